"""A grammar engine for the tests: llguidance compiles bodies as structured-output servers do.

llguidance (the engine behind several structured-output servers) turns a JSON Schema into
a grammar and masks the tokens a model may produce. Servers compile with the model's own
tokenizer; here a byte-level tokenizer (one token per byte, plus end-of-sequence) stands
in, so no model files are needed and "the grammar accepts these tokens" means exactly
"the grammar accepts these bytes".

``Shaper`` turns ``orjson.loads(encode(x))`` into the reply a model constrained by a
strict body would write (every key present, absent nullables as ``null``, dicts as
``{"key", "value"}`` arrays, keys in schema order) by walking the body itself, and records
where each object and value sits so that tests can break the reply in a known place.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import attrs
import orjson
from hypothesis import strategies as st
from llguidance import LLMatcher, LLTokenizer, TokenizerWrapper

__all__ = [
    "EOS",
    "TOKENIZER",
    "Compiled",
    "Location",
    "Mismatch",
    "Shaper",
    "Verdict",
    "compile_body",
    "kind_of",
    "match",
    "reply_text",
    "sample",
]

Json = Any
Path = tuple[Any, ...]

#: The end-of-sequence token: the model saying "done".
EOS = 256


class _ByteTokenizer:
    """The smallest tokenizer llguidance takes: token ``i`` is byte ``i``, then EOS."""

    eos_token_id = EOS
    bos_token_id = None
    tokens = [bytes([i]) for i in range(256)] + [b"<eos>"]
    special_token_ids: ClassVar[list[int]] = [EOS]

    def __call__(self, text: str | bytes) -> list[int]:
        return list(text.encode() if isinstance(text, str) else text)


TOKENIZER = LLTokenizer(TokenizerWrapper(_ByteTokenizer()))


@attrs.frozen
class Compiled:
    """A schema body compiled by the engine.

    Attributes:
        grammar: The engine's grammar for the body.
        error: The engine refused the body (``messages`` then holds the one reason).
        messages: Errors or warnings, e.g. ``Unimplemented keys: ["uniqueItems"]``.
    """

    grammar: str
    error: bool
    messages: tuple[str, ...]

    @property
    def clean(self) -> bool:
        """Compiled with no error and no warning."""
        return not self.error and not self.messages


def compile_body(
    body: Mapping[str, Any], *, lenient: bool = False, compact: bool = False
) -> Compiled:
    """Compile a JSON Schema body the way a server does.

    ``lenient`` ignores keywords the engine cannot enforce (with a warning); ``compact``
    allows no whitespace between tokens (servers allow it; samples are shorter without).
    """
    options: dict[str, Any] = {}
    if lenient:
        options["lenient"] = True
    if compact:
        options["whitespace_flexible"] = False
    grammar = LLMatcher.grammar_from_json_schema(_plain(body), overrides=options or None)
    error, messages = LLMatcher.validate_grammar_with_warnings(grammar, TOKENIZER)
    return Compiled(grammar, error, tuple(messages))


@attrs.frozen
class Verdict:
    """What the engine made of a reply: ``accepted``, else ``reason`` (where and why not)."""

    accepted: bool
    reason: str


def match(compiled: Compiled, text: bytes) -> Verdict:
    """Feed ``text`` to a fresh matcher one token (byte) at a time, then end the sequence.

    The reply is accepted when every byte was allowed at its turn, the matcher is in an
    accepting state at the end, and it takes the end-of-sequence token and stops.
    """
    matcher = LLMatcher(TOKENIZER, compiled.grammar, log_level=0)
    if matcher.is_error():
        return Verdict(False, "grammar: " + matcher.get_error())
    for offset, byte in enumerate(text):
        if not matcher.consume_token(byte):
            near = text[max(0, offset - 30) : offset].decode(errors="replace")
            error = matcher.get_error().split("\n", 1)[0]
            return Verdict(
                False, f"byte {offset} ({bytes([byte])!r}) refused after ...{near!r}: {error}"
            )
    if not matcher.is_accepting():
        return Verdict(False, f"the reply ended early; the grammar expects more after {text!r}")
    if not matcher.consume_token(EOS) or not matcher.is_stopped():
        return Verdict(False, f"the matcher would not stop after the reply: {matcher.get_error()}")
    return Verdict(True, "")


_EXTENDING = frozenset(b"0123456789 \t\r\n")


def reply_text(reply: Any) -> bytes:
    """``reply`` as the JSON text a constrained model writes.

    That is orjson's compact text, except that DEL (U+007F) is escaped: RFC 8259 lets it
    stand raw in a string, but llguidance's string grammar does not, so a model held to
    the grammar can only write ``\\u007f``. (A 0x7F byte is never part of a longer UTF-8
    sequence, and JSON allows it only inside strings, so the replacement is exact.)
    """
    return orjson.dumps(reply).replace(b"\x7f", b"\\u007f")


def _allowed(matcher: LLMatcher) -> list[int]:
    mask = matcher.compute_bitmask()  # one bit per token, little-endian 32-bit words
    return [t for t in range(EOS + 1) if mask[t // 8] >> (t % 8) & 1]


@st.composite
def sample(draw: st.DrawFn, compiled: Compiled, budget: int = 40) -> bytes:
    """A reply the grammar allows, chosen byte by byte as a sampling model would.

    After ``budget`` bytes the walk ends as soon as the grammar lets it, so that grammars
    with unbounded parts (fraction digits) still give short replies.
    """
    matcher = LLMatcher(TOKENIZER, compiled.grammar, log_level=0)
    out = bytearray()
    while True:
        allowed = _allowed(matcher)
        assert allowed, f"the grammar allows nothing after {bytes(out)!r}"
        if EOS in allowed and (
            allowed == [EOS] or len(out) >= budget or draw(st.integers(0, 3)) == 0
        ):
            return bytes(out)
        choices = [t for t in allowed if t != EOS]
        if len(out) >= budget:  # steer towards the end: no more digits or whitespace
            choices = [t for t in choices if t not in _EXTENDING] or choices
        token = draw(st.sampled_from(choices))
        assert matcher.consume_token(token), matcher.get_error()
        out.append(token)


# -- shaping an encoded instance into the reply a strict body asks for ----------------------


class Mismatch(Exception):
    """The value does not fit the schema (so a union tries its next option)."""


@attrs.frozen
class Location:
    """Where a value sits in a shaped reply, and the (resolved) schema it was shaped by."""

    path: Path
    schema: Mapping[str, Any]


class Shaper:
    """Shapes JSON values after a schema body, recording every object and value it places."""

    def __init__(self, body: Mapping[str, Any]) -> None:
        self.body = body
        self.objects: list[Location] = []
        self.values: list[Location] = []

    def shape(self, value: Json) -> Json:
        """The reply for ``value`` under the body; raises Mismatch if it cannot be one."""
        self.objects, self.values = [], []
        return self._shape(value, self.body, ())

    def resolve(self, ref: str) -> Mapping[str, Any]:
        """The subschema a local reference (``#`` or ``#/$defs/...``) points at."""
        assert ref.startswith("#"), ref
        target: Any = self.body
        for part in ref[1:].split("/")[1:]:
            target = target[part.replace("~1", "/").replace("~0", "~")]
        return target  # type: ignore[no-any-return]

    def _shape(self, value: Json, schema: Mapping[str, Any], path: Path) -> Json:
        while "$ref" in schema:
            schema = self.resolve(schema["$ref"])
        if "anyOf" in schema:
            saved = len(self.objects), len(self.values)
            for option in schema["anyOf"]:
                try:
                    return self._shape(value, option, path)
                except Mismatch:
                    del self.objects[saved[0] :], self.values[saved[1] :]
            raise Mismatch(f"{_where(path)}: no anyOf option takes {value!r}")
        if "enum" in schema and not any(_same(value, v) for v in schema["enum"]):
            raise Mismatch(f"{_where(path)}: {value!r} not in {schema['enum']!r}")
        if "const" in schema and not _same(value, schema["const"]):
            raise Mismatch(f"{_where(path)}: {value!r} is not {schema['const']!r}")
        types = schema.get("type")
        allowed = {types} if isinstance(types, str) else set(types) if types else None
        kind = kind_of(value)
        self.values.append(Location(path, schema))
        if kind == "object":
            if allowed is None or "object" in allowed:
                return self._object(value, schema, path)
            items = schema.get("items")
            if "array" in allowed and isinstance(items, Mapping) and _is_entry(items):
                entries = [{"key": k, "value": v} for k, v in value.items()]
                return [self._shape(e, items, (*path, i)) for i, e in enumerate(entries)]
        elif kind == "array":
            if allowed is None or "array" in allowed:
                prefix: Sequence[Any] = schema.get("prefixItems", ())
                items = schema.get("items", {})
                return [
                    self._shape(v, prefix[i] if i < len(prefix) else items, (*path, i))
                    for i, v in enumerate(value)
                ]
        elif allowed is None or kind in allowed or (kind == "integer" and "number" in allowed):
            return value
        self.values.pop()
        raise Mismatch(f"{_where(path)}: a JSON {kind} where the schema says {types!r}")

    def _object(self, value: dict[str, Any], schema: Mapping[str, Any], path: Path) -> Json:
        properties: Mapping[str, Any] = schema.get("properties", {})
        required = schema.get("required", [])
        extra = schema.get("additionalProperties", True)
        unknown = [k for k in value if k not in properties]
        if unknown and extra is False:
            raise Mismatch(f"{_where(path)}: keys {unknown} are not in the schema")
        self.objects.append(Location(path, schema))
        out: dict[str, Any] = {}
        for key, sub in properties.items():
            if key in value:
                out[key] = self._shape(value[key], sub, (*path, key))
            elif key in required:
                # encode() leaves a nullable None out; a strict body wants it as null.
                out[key] = self._shape(None, sub, (*path, key))
        for key in unknown:
            out[key] = self._shape(value[key], extra if isinstance(extra, Mapping) else {},
                                   (*path, key))
        missing = [k for k in required if k not in out]
        if missing:
            raise Mismatch(f"{_where(path)}: required keys {missing} absent")
        return out


def _is_entry(schema: Mapping[str, Any]) -> bool:
    return schema.get("type") == "object" and list(schema.get("properties", {})) == [
        "key",
        "value",
    ]


def kind_of(value: Json) -> str:
    """The JSON type of a parsed value: ``null``, ``boolean``, ``integer``, ``number``, ..."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    raise TypeError(f"not a JSON value: {value!r}")


def _same(a: Json, b: Json) -> bool:
    """JSON equality: ``true`` is not ``1``."""
    return kind_of(a) == kind_of(b) and a == b


def _where(path: Path) -> str:
    return "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path)


def _plain(value: Any) -> Any:
    """Plain dicts and lists (a schema may come with another mapping type)."""
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value

"""The grammar engines of self-hosted servers, driven offline as the servers drive them.

Each ``Harness`` compiles a schema body the way its server does, feeds a reply to the
engine's matcher one token at a time, and walks the engine's own token mask to write a
document as a sampling model would. A byte-level vocabulary (token ``i`` is byte ``i``,
then end-of-sequence) stands in for a model's tokenizer, so no model files are needed and
"the engine accepts these tokens" means "the engine accepts these bytes".

- llguidance as vLLM's ``guidance`` backend calls it (``grammar_from_json_schema`` with
  flexible whitespace; vllm/v1/structured_output/backend_guidance.py), reusing
  tests/grammar_support.py;
- xgrammar as vLLM's and SGLang's default backend calls it
  (``GrammarCompiler.compile_json_schema(schema, any_whitespace=True)``;
  vllm/v1/structured_output/backend_xgrammar.py); it imports torch for its token masks;
- outlines-core as vLLM's ``outlines`` backend calls it (``build_regex_from_schema`` then
  an ``Index`` and a ``Guide``; vllm/v1/structured_output/backend_outlines.py).

``spell`` writes a JSON value the way the engine's string and number grammars accept it
(JSON has several spellings of one value: ``\\u007f`` or a raw DEL, ``1e16`` or
``1e+16``); where the engine accepts no spelling at all, it says so (``Unspellable``).
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Mapping
from typing import Any, Protocol

import orjson

from . import grammar_support as gs

__all__ = [
    "ALLOWED_DECODE_ERRORS",
    "WALK_BUGS",
    "Harness",
    "Unspellable",
    "allowed_errors",
    "harness",
    "xgrammar_precheck",
    "spell",
]

EOS = 256
_EXTENDING = frozenset(b"0123456789 \t\r\n")
_CLOSING = frozenset(b'"]}')


class Unspellable(Exception):
    """The engine's grammar has no spelling for this value (an engine bug, documented)."""


class Harness(Protocol):
    name: str

    def compile(self, body: Mapping[str, Any], *, compact: bool = False) -> Any:
        """The engine's compiled grammar; raises on a compile error or warning."""
        ...

    def accepts(self, compiled: Any, text: bytes) -> str | None:
        """None when the engine accepts ``text`` whole, else why not."""
        ...

    def walk(self, compiled: Any, rng: random.Random, budget: int = 40) -> bytes:
        """A document the engine allows, chosen byte by byte as a sampling model would."""
        ...

    def spell(self, value: Any) -> bytes:
        """``value`` as JSON text the engine accepts (raises ``Unspellable``)."""
        ...


def _choose(allowed: list[int], out: bytearray, rng: random.Random, budget: int) -> int:
    """The next token of a walk: end when allowed (sometimes, or past the budget)."""
    if EOS in allowed and (allowed == [EOS] or len(out) >= budget or rng.randrange(4) == 0):
        return EOS
    choices = [t for t in allowed if t != EOS]
    if len(out) >= budget:
        # Steer towards the end: close what is open, write no more digits or whitespace.
        # Punctuation next (the "@" a pattern may still need), then anything but more.
        choices = ([t for t in choices if t in _CLOSING]
                   or [t for t in choices if t < 0x7F and not chr(t).isalnum()
                       and t not in _EXTENDING]
                   or [t for t in choices if t not in _EXTENDING] or choices)
    return rng.choice(choices)


# -- spelling values ------------------------------------------------------------------------

_EXPONENT = re.compile(rb"e(?=[0-9])")
# Characters outlines-core's string grammar takes in no form: raw they are refused
# (U+0000-U+001F, U+007F-U+009F), and it knows no \uXXXX escape, only \" \\ \/ \b \f \n \r \t.
_OUTLINES_UNSPELLABLE = re.compile("[\x00-\x07\x0b\x0e-\x1f\x7f-\x9f]")


def spell(value: Any, *, escape_del: bool, signed_exponent: bool,
          unspellable: re.Pattern[str] | None = None) -> bytes:
    """``value`` as compact JSON text in one engine's spelling (keys in their order)."""
    if isinstance(value, dict):
        return b"{" + b",".join(
            spell(k, escape_del=escape_del, signed_exponent=signed_exponent,
                  unspellable=unspellable) + b":"
            + spell(v, escape_del=escape_del, signed_exponent=signed_exponent,
                    unspellable=unspellable)
            for k, v in value.items()
        ) + b"}"
    if isinstance(value, list):
        return b"[" + b",".join(
            spell(v, escape_del=escape_del, signed_exponent=signed_exponent,
                  unspellable=unspellable) for v in value
        ) + b"]"
    if isinstance(value, str):
        if unspellable is not None and (found := unspellable.search(value)):
            raise Unspellable(f"the string {value!r} holds {found.group()!r}")
        text = orjson.dumps(value)
        return text.replace(b"\x7f", b"\\u007f") if escape_del else text
    text = orjson.dumps(value)
    if signed_exponent and isinstance(value, float):
        text = _EXPONENT.sub(b"e+", text)
    return text


# -- llguidance -----------------------------------------------------------------------------


class Guidance:
    """llguidance, as vLLM's ``guidance`` and SGLang's ``llguidance`` backends compile."""

    name = "llguidance"

    def compile(self, body: Mapping[str, Any], *, compact: bool = False) -> gs.Compiled:
        compiled = gs.compile_body(body, compact=compact)
        if not compiled.clean:
            raise AssertionError(f"llguidance: {list(compiled.messages)}")
        return compiled

    def accepts(self, compiled: gs.Compiled, text: bytes) -> str | None:
        verdict = gs.match(compiled, text)
        return None if verdict.accepted else verdict.reason

    def walk(self, compiled: gs.Compiled, rng: random.Random, budget: int = 40) -> bytes:
        from llguidance import LLMatcher

        matcher = LLMatcher(gs.TOKENIZER, compiled.grammar, log_level=0)
        out = bytearray()
        while True:
            mask = matcher.compute_bitmask()
            allowed = [t for t in range(EOS + 1) if mask[t // 8] >> (t % 8) & 1]
            assert allowed, f"llguidance allows nothing after {bytes(out)!r}"
            token = _choose(allowed, out, rng, budget)
            if token == EOS:
                return bytes(out)
            assert matcher.consume_token(token), matcher.get_error()
            out.append(token)

    def spell(self, value: Any) -> bytes:
        # llguidance refuses a raw DEL in a string; its \u escape is taken.
        return spell(value, escape_del=True, signed_exponent=False)


# -- xgrammar -------------------------------------------------------------------------------


class Xgrammar:
    """xgrammar, as vLLM's and SGLang's default backend compiles (torch for the masks)."""

    name = "xgrammar"

    def __init__(self) -> None:
        import xgrammar as xgr

        self.xgr = xgr
        vocab = [bytes([i]) for i in range(256)] + [b"<eos>"]
        info = xgr.TokenizerInfo(vocab, vocab_type=xgr.VocabType.RAW, vocab_size=EOS + 1,
                                 stop_token_ids=[EOS])
        self.compiler = xgr.GrammarCompiler(info, max_threads=1, cache_enabled=False)

    def compile(self, body: Mapping[str, Any], *, compact: bool = False) -> Any:
        return self.compiler.compile_json_schema(json.dumps(body), any_whitespace=not compact)

    def accepts(self, compiled: Any, text: bytes) -> str | None:
        matcher = self.xgr.GrammarMatcher(compiled)
        for offset in range(len(text)):
            if not matcher.accept_string(text[offset:offset + 1]):
                near = text[max(0, offset - 30):offset]
                return f"byte {offset} ({text[offset:offset + 1]!r}) refused after ...{near!r}"
        if not matcher.accept_token(EOS) or not matcher.is_terminated():
            return f"the reply ended early; the grammar expects more after {text!r}"
        return None

    def walk(self, compiled: Any, rng: random.Random, budget: int = 40) -> bytes:
        matcher = self.xgr.GrammarMatcher(compiled)
        bitmask = self.xgr.allocate_token_bitmask(1, EOS + 1)
        out = bytearray()
        while True:
            matcher.fill_next_token_bitmask(bitmask)
            words = bitmask[0].tolist()
            allowed = [t for t in range(EOS + 1) if (words[t // 32] >> (t % 32)) & 1]
            assert allowed, f"xgrammar allows nothing after {bytes(out)!r}"
            token = _choose(allowed, out, rng, budget)
            assert matcher.accept_token(token), bytes(out)
            if token == EOS:
                return bytes(out)
            out.append(token)

    def spell(self, value: Any) -> bytes:
        return spell(value, escape_del=False, signed_exponent=False)


# -- outlines-core --------------------------------------------------------------------------


class Outlines:
    """outlines-core, as vLLM's and SGLang's ``outlines`` backends compile."""

    name = "outlines-core"

    def __init__(self) -> None:
        import outlines_core as oc

        self.oc = oc
        self.vocabulary = oc.Vocabulary(EOS, {bytes([i]): [i] for i in range(256)})

    def compile(self, body: Mapping[str, Any], *, compact: bool = False) -> Any:
        from outlines_core.json_schema import build_regex_from_schema

        regex = build_regex_from_schema(json.dumps(body))
        return self.oc.Index(regex, self.vocabulary)

    def accepts(self, compiled: Any, text: bytes) -> str | None:
        guide = self.oc.Guide(compiled)
        for offset, byte in enumerate(text):
            if byte not in guide.get_tokens():
                near = text[max(0, offset - 30):offset]
                return f"byte {offset} ({bytes([byte])!r}) refused after ...{near!r}"
            guide.advance(byte)
        if EOS not in guide.get_tokens():
            return f"the reply ended early; the grammar expects more after {text!r}"
        return None

    def walk(self, compiled: Any, rng: random.Random, budget: int = 40) -> bytes:
        guide = self.oc.Guide(compiled)
        out = bytearray()
        while True:
            allowed = sorted(guide.get_tokens())
            assert allowed, f"outlines-core allows nothing after {bytes(out)!r}"
            token = _choose(allowed, out, rng, budget)
            if token == EOS:
                return bytes(out)
            guide.advance(token)
            out.append(token)

    def spell(self, value: Any) -> bytes:
        # Exponents need their sign; some characters have no spelling at all.
        return spell(value, escape_del=False, signed_exponent=True,
                     unspellable=_OUTLINES_UNSPELLABLE)


def _llama() -> Harness:
    from .llama_support import LlamaCpp

    return LlamaCpp()


_HARNESSES: dict[str, Callable[[], Harness]] = {
    "llguidance": Guidance,
    "xgrammar": Xgrammar,
    "outlines-core": Outlines,
    "llama.cpp": _llama,  # tests/llama_support.py
}
_MADE: dict[str, Harness] = {}


def harness(engine_name: str) -> Harness:
    """The (shared) harness for the engine of that name."""
    if engine_name not in _MADE:
        _MADE[engine_name] = _HARNESSES[engine_name]()
    return _MADE[engine_name]


# -- the servers' own checks before they compile with xgrammar ----------------------------

# vLLM's list (vllm/v1/structured_output/backend_xgrammar.py, STRING_SUPPORTED_FORMATS).
_XGRAMMAR_FORMATS = frozenset({
    "email", "date", "time", "date-time", "duration", "ipv4", "ipv6", "hostname", "uuid", "uri",
    "uri-reference", "uri-template", "json-pointer", "relative-json-pointer",
})


def xgrammar_precheck(schema_part: Any) -> list[str]:
    """What vLLM's and SGLang's checks refuse before compiling with xgrammar (re-stated).

    vLLM's ``has_xgrammar_unsupported_json_features`` (auto then falls back to guidance,
    an explicit xgrammar backend answers 400) and SGLang's json_schema_validation.py both
    refuse: ``multipleOf``; ``uniqueItems`` and ``contains``; a format off the list; a
    pattern or format beside a length; ``patternProperties``, ``propertyNames``,
    ``dependentSchemas``. Returns what it found, empty when the body passes.
    """
    found: list[str] = []

    def visit(part: Any, where: str) -> None:
        if isinstance(part, list):
            for i, item in enumerate(part):
                visit(item, f"{where}/{i}")
            return
        if not isinstance(part, dict):
            return
        for key in ("multipleOf", "uniqueItems", "contains", "patternProperties",
                    "propertyNames", "dependentSchemas"):
            if key in part:
                found.append(f"{where}/{key}")
        fmt = part.get("format")
        if isinstance(fmt, str) and fmt not in _XGRAMMAR_FORMATS:
            found.append(f"{where}/format")
        if ("pattern" in part or "format" in part) and (
            "minLength" in part or "maxLength" in part
        ):
            found.append(f"{where}: pattern or format beside a length")
        for key, value in part.items():
            if key not in ("enum", "const", "default") and isinstance(value, (dict, list)):
                visit(value, f"{where}/{key}")

    visit(schema_part, "")
    return found


# -- what a walked document may fail to decode on -------------------------------------------

#: Decoder messages for what no engine holds: a date the calendar does not have (the
#: grammars check the digits, not the month's length, leap years or year 0), and the
#: numbers JSON parsers cannot read exactly (an integer beyond 64 bits, a number beyond
#: a double), which no schema keyword states.
ALLOWED_DECODE_ERRORS = (
    # JSON's grammar lets a string hold a lone UTF-16 surrogate escape (\\uDC7E); no
    # engine refuses one, and the decoder does (the text would not be valid Unicode).
    re.compile(r"invalid (high|low) surrogate"),
    re.compile(r"is written right but is not a valid"),
    re.compile(r"too large to be read exactly"),
    re.compile(r"the number is too large for JSON"),
)

#: Engine bugs a walk may run into, by engine: (what the document holds, the decoder's
#: words). xgrammar's string grammar lets a byte-level model write a UTF-16 surrogate as
#: three UTF-8 bytes (ED A0-BF xx), which is not UTF-8; the decoder refuses it.
WALK_BUGS: dict[str, tuple[re.Pattern[bytes], re.Pattern[str]]] = {
    "xgrammar": (re.compile(rb"\xed[\xa0-\xbf]"), re.compile(r"not valid UTF-8")),
}

# The decoder's words for each constraint the builder moved into a description.
_DESCRIBED = {
    "minimum": r"^must be at least", "exclusiveMinimum": r"^must be greater than",
    "maximum": r"^must be at most", "exclusiveMaximum": r"^must be less than",
    "multipleOf": r"^must be a multiple of", "minLength": r"^must have at least \d+ char",
    "maxLength": r"^must have at most \d+ char", "minItems": r"^must have at least \d+ item",
    "maxItems": r"^must have at most \d+ item", "uniqueItems": r"^the items must be unique",
    "dict keys": r"^invalid key", "pattern": r"match", "format": r"expected",
}


def allowed_errors(rewrites: list[Any]) -> list[re.Pattern[str]]:
    """The decoder messages a walked document may draw under a body with these rewrites.

    The grammar holds everything the body keeps, so a document it allowed can break only
    what the body says in words (a rewrite ``described``) or what no engine holds.
    """
    found = list(ALLOWED_DECODE_ERRORS)
    for rewrite in rewrites:
        if rewrite.action != "described":
            continue
        keyword = rewrite.detail.split(":")[0].split(" ")[0]
        if rewrite.detail.startswith("dict keys"):
            keyword = "dict keys"
        if keyword in _DESCRIBED:
            found.append(re.compile(_DESCRIBED[keyword]))
    return found

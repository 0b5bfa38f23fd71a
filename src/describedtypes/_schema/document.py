"""Schemas as the provider rules see them: a walked document, its counts, and problems.

A ``Document`` is a schema (or a provider's wrapped definition) unwrapped to its body and
walked once into ``Visit`` records, one per subschema with its JSON pointer; the rules in
``rules`` read it. The size counts (properties, nesting depth, enum values) the providers'
limits are measured in are computed here once per document.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, TypeGuard, cast

import attrs
import orjson

from .problem import Problem

if TYPE_CHECKING:
    from .adapters import Adapter

__all__ = [
    "Document",
    "Limits",
    "Rule",
    "Stats",
    "MISSING",
    "Visit",
    "container_of",
    "document",
    "escape",
    "is_map",
    "is_object",
    "max_depth",
    "types_of",
]


@attrs.frozen(kw_only=True)
class Limits:
    """Size limits of one schema and budgets of one request; None means no limit.

    Attributes:
        max_properties: Object properties in one schema, summed over every object.
        max_depth: Levels of object nesting (the root object is level 1).
        max_chars: Characters of all property names, definition names, enum and const
            values in one schema.
        max_enum_values: Enum values in one schema.
        large_enum_values: A string enum with more values than this ...
        large_enum_chars: ... may hold at most this many characters in total.
        max_strict_tools: Strict tools in one request.
        max_optional_params: Properties left out of ``required``, over all strict
            schemas of a request (one schema alone is checked too).
        max_union_params: Schemas with ``anyOf`` or a list of types, over all strict
            schemas of a request (one schema alone is checked too).

    .. versionadded:: 0.1.0
    """

    max_properties: int | None = None
    max_depth: int | None = None
    max_chars: int | None = None
    max_enum_values: int | None = None
    large_enum_values: int | None = None
    large_enum_chars: int | None = None
    max_strict_tools: int | None = None
    max_optional_params: int | None = None
    max_union_params: int | None = None


class Visit:
    """One subschema met while walking a document.

    A plain slotted record: one is made per subschema on every check, so it is cheap to
    build, and its pointer is spelled only when asked for (most never are).

    Attributes:
        pointer: Its JSON pointer within the schema body (``""`` is the body's root).
        schema: The subschema.
        parent: The visit of the schema that holds it (None at the root).
        keyword: The keyword it sits under (``"properties"``, ``"items"``, ``"$defs"``,
            ...); ``""`` at the root.
        key: The property name, definition name or list index under ``keyword``.
    """

    __slots__ = ("_pointer", "key", "keyword", "parent", "schema")

    def __init__(
        self,
        schema: Mapping[str, Any],
        parent: Visit | None,
        keyword: str,
        key: str | None,
    ) -> None:
        self.schema = schema
        self.parent = parent
        self.keyword = keyword
        self.key = key
        self._pointer: str | None = "" if parent is None else None

    @property
    def pointer(self) -> str:
        if self._pointer is not None:
            return self._pointer
        # Up to the nearest visit that knows its pointer, then down spelling each one
        # (a loop, not recursion: hand-written schemas may nest very deep).
        chain: list[Visit] = []
        here: Visit | None = self
        while here is not None and here._pointer is None:
            chain.append(here)
            here = here.parent
        pointer = "" if here is None or here._pointer is None else here._pointer
        for v in reversed(chain):
            step = v.keyword if v.key is None else f"{v.keyword}/{escape(v.key)}"
            pointer = v._pointer = f"{pointer}/{step}"
        return pointer

    def __repr__(self) -> str:
        return f"Visit({self.pointer or '/'})"


@attrs.frozen(kw_only=True, eq=False)
class Document:
    """What a rule looks at: a schema body, where it sits, and every subschema in it.

    Attributes:
        body: The JSON Schema body.
        prefix: The body's pointer within the checked document (``""`` for a bare body,
            ``"/function/parameters"`` for a wrapped Chat Completions tool, ...).
        wrapped: True when the checked document was an adapter's wrapped output.
        name: The schema or tool name found in the wrapper, if any.
        name_pointer: Where that name sits (None when the wrapper holds no name).
        strict: Whether the provider applies its strict rules: the wrapper's own
            ``strict`` flag when it has one, else the adapter's.
        visits: Every subschema of the body, root first, in document order.
        malformed: What sits in a schema position but is no schema object (a boolean
            ``true``/``false`` included), or a holder of the wrong kind (``properties``
            as a list, ``anyOf`` as an object): ``(holder, keyword, key, value)``, where
            ``holder`` is the visit of the schema holding it and ``key`` the property
            name or index (None for a holder itself or a single schema).
    """

    body: Mapping[str, Any]
    prefix: str
    wrapped: bool
    name: Any
    name_pointer: str | None
    strict: bool
    visits: tuple[Visit, ...]
    malformed: tuple[tuple[Visit, str, str | None, Any], ...] = ()

    def problem(self, pointer: str, rule: str, message: str) -> Problem:
        """A problem at ``pointer`` within the body."""
        return Problem(self.prefix + pointer, rule, message)

    def resolve(self, ref: str) -> Mapping[str, Any] | None:
        """The subschema a local ``$ref`` points at, or None."""
        return _resolve(self.body, ref)

    @functools.cached_property
    def containers(self) -> tuple[str, ...]:
        """Pointers of the root and every definition, longest first."""
        found = [v.pointer for v in self.visits if v.keyword in ("$defs", "definitions")]
        return (*sorted(found, key=len, reverse=True), "")

    @functools.cached_property
    def container_set(self) -> frozenset[str]:
        """The same pointers, for lookups."""
        return frozenset(self.containers)

    @functools.cached_property
    def stats(self) -> Stats:
        """Counts the size limits and budgets are measured in."""
        return compute_stats(self)


@attrs.frozen(repr=False)
class Rule:
    """One provider rule: a function that finds the problems of a document.

    Args:
        id: The rule's name, used in ``Problem.rule`` unless the rule gives a finer one.
        find: ``find(document, adapter)`` yields ``Problem`` values.
        strict_only: The provider applies it only in strict mode.
        summary: One line saying what the rule demands.

    .. versionadded:: 0.1.0
    """

    id: str
    find: Callable[[Document, Adapter], Iterable[Problem]]
    strict_only: bool = False
    summary: str = ""

    def __repr__(self) -> str:
        return f"Rule({self.id!r})"


# -- walking -----------------------------------------------------------------------------

_SCHEMA_MAPS = ("properties", "$defs", "definitions", "patternProperties", "dependentSchemas")
_SCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_SCHEMA_ONE = (
    "items",
    "additionalProperties",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
    "additionalItems",
)


def escape(token: str) -> str:
    if "~" in token or "/" in token:
        return token.replace("~", "~0").replace("/", "~1")
    return token


def _unescape(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


def is_map(value: Any) -> TypeGuard[Mapping[str, Any]]:
    # JSON data is almost always plain dicts and JSON scalars: tell those apart by their
    # exact type first, which is much cheaper than the Mapping ABC's isinstance.
    kind = type(value)
    if kind is dict:
        return True
    if kind in _NOT_MAPS:
        return False
    return isinstance(value, (dict, Mapping))


_NOT_MAPS = frozenset({str, list, int, float, bool, type(None)})


_MAP, _LIST, _ONE, _ITEMS = range(4)
_KINDS: dict[str, int] = {
    **dict.fromkeys(_SCHEMA_MAPS, _MAP),
    **dict.fromkeys(_SCHEMA_LISTS, _LIST),
    **dict.fromkeys(_SCHEMA_ONE, _ONE),
    "items": _ITEMS,
}
_KIND_KEYS = frozenset(_KINDS)


def _walk(
    body: Mapping[str, Any],
) -> tuple[tuple[Visit, ...], tuple[tuple[Visit, str, str | None, Any], ...]]:
    """Every subschema of ``body`` in document order (depth first, keys in order), and
    what sits in a schema position without being a schema object (``malformed``).

    A subschema is a JSON object under a keyword that holds schemas: one (``not``), a map
    of them (``properties``, ``$defs``), a list (``anyOf``, ``prefixItems``) or either
    (``items``). With a stack of its own, not recursion: a hand-written schema may nest
    deeper than Python's recursion limit.
    """
    out: list[Visit] = []
    bad: list[tuple[Visit, str, str | None, Any]] = []
    stack: list[Visit] = [Visit(body, None, "", None)]
    kinds = _KINDS
    holders = _KIND_KEYS
    while stack:
        here = stack.pop()
        out.append(here)
        schema = here.schema
        if holders.isdisjoint(schema.keys()):  # a leaf ({"type": "string"}): at C speed
            continue
        found: list[Visit] = []
        for kw, value in schema.items():
            kind = kinds.get(kw)
            if kind is None:
                continue
            if kind == _MAP:
                if is_map(value):
                    for key, sub in value.items():
                        if is_map(sub):
                            found.append(Visit(sub, here, kw, str(key)))
                        else:
                            bad.append((here, kw, str(key), sub))
                else:
                    bad.append((here, kw, None, value))
            elif isinstance(value, list) and kind in (_LIST, _ITEMS):
                for i, sub in enumerate(value):
                    if is_map(sub):
                        found.append(Visit(sub, here, kw, str(i)))
                    else:
                        bad.append((here, kw, str(i), sub))
                if kind == _ITEMS:
                    bad.append((here, kw, None, value))  # the draft-07 tuple form
            elif kind != _LIST and is_map(value):
                found.append(Visit(value, here, kw, None))
            else:
                bad.append((here, kw, None, value))
        if found:
            found.reverse()
            stack.extend(found)
    return tuple(out), tuple(bad)


def _resolve(body: Mapping[str, Any], ref: Any) -> Mapping[str, Any] | None:
    if not isinstance(ref, str) or not ref.startswith("#"):
        return None
    node: Any = body
    fragment = ref[1:]
    if fragment and not fragment.startswith("/"):
        return None
    for token in fragment.split("/")[1:] if fragment else ():
        token = _unescape(token)
        if is_map(node) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return None
    return node if is_map(node) else None


# -- unwrapping --------------------------------------------------------------------------

_NAME = "\x00describedtypes-name\x00"
_DESCRIPTION = "\x00describedtypes-description\x00"
_BODY = {"\x00describedtypes-body\x00": True}


class _StrictMark:
    """Passed as ``strict`` to a wrapper to find where it puts the flag."""

    def __bool__(self) -> bool:
        return True


_STRICT = _StrictMark()

Path = tuple[Any, ...]


@functools.lru_cache(maxsize=128)
def _layout(wrap: Any) -> tuple[Path | None, Path | None, Path | None]:
    """Where a wrapper puts the body, the name and the strict flag."""
    try:
        sample = wrap(_NAME, _DESCRIPTION, dict(_BODY), _STRICT)
    except Exception:  # a user's wrapper that cannot be probed is treated as bare
        return (), None, None
    paths: dict[str, Path] = {}

    def find(value: Any, path: Path) -> None:
        if isinstance(value, Mapping) and dict(value) == _BODY:
            paths.setdefault("body", path)
        elif isinstance(value, str) and value.startswith("{") and _json_body(value):
            paths.setdefault("body", (*path, JSON_TEXT))  # Bedrock: the body as a string
        elif value is _STRICT:
            paths.setdefault("strict", path)
        elif isinstance(value, str) and value == _NAME:
            paths.setdefault("name", path)
        elif isinstance(value, Mapping):
            for k, v in value.items():
                find(v, (*path, k))
        elif isinstance(value, list):
            for i, v in enumerate(value):
                find(v, (*path, i))

    find(sample, ())
    return paths.get("body", ()), paths.get("name"), paths.get("strict")


class _JsonText:
    """A step of a body's path: the value there is the body as JSON text."""

    def __repr__(self) -> str:
        return "JSON_TEXT"


JSON_TEXT = _JsonText()


def _json_body(text: str) -> bool:
    try:
        return bool(orjson.loads(text) == _BODY)
    except orjson.JSONDecodeError:
        return False


def _get(doc: Any, path: Path) -> Any:
    for step in path:
        if step is JSON_TEXT:
            if not isinstance(doc, str):
                return MISSING
            try:
                doc = orjson.loads(doc)
            except orjson.JSONDecodeError:
                return MISSING
            continue
        in_map = isinstance(doc, Mapping) and step in doc
        in_list = isinstance(doc, list) and isinstance(step, int) and step < len(doc)
        if not (in_map or in_list):
            return MISSING
        doc = doc[step]
    return doc


def _pointer(path: Path) -> str:
    return "".join(f"/{escape(str(step))}" for step in path if step is not JSON_TEXT)


class _Missing:
    def __repr__(self) -> str:
        return "<missing>"


MISSING: Any = _Missing()


def document(obj: Mapping[str, Any], adapter: Adapter, prefix: str = "") -> Document:
    """Find the body in ``obj`` (an adapter's wrapped output or a bare body)."""
    body_path, name_path, strict_path = _layout(cast(Any, adapter.wrap))
    body = obj
    wrapped = False
    name: Any = None
    name_pointer = None
    strict = adapter.strict
    if body_path:
        inner = _get(obj, body_path)
        if isinstance(inner, Mapping):
            body, wrapped = inner, True
            if name_path is not None:
                name = _get(obj, name_path)
                name_pointer = prefix + _pointer(name_path)
            if strict_path is not None:
                flag = _get(obj, strict_path)
                if isinstance(flag, bool):
                    strict = flag
    visits, malformed = _walk(body)
    return Document(
        body=body,
        prefix=prefix + (_pointer(body_path) if wrapped and body_path else ""),
        wrapped=wrapped,
        name=name,
        name_pointer=name_pointer,
        strict=strict,
        visits=visits,
        malformed=malformed,
    )


# -- helpers the rules share -------------------------------------------------------------


def types_of(schema: Mapping[str, Any]) -> list[Any]:
    kind = schema.get("type", MISSING)
    if kind is MISSING:
        return []
    return list(kind) if isinstance(kind, list) else [kind]


def is_object(schema: Mapping[str, Any]) -> bool:
    kind = schema.get("type")
    if kind == "object":
        return True
    if kind is None:
        return "properties" in schema
    return isinstance(kind, list) and "object" in kind


def container_of(doc: Document, pointer: str) -> str:
    if pointer in doc.container_set:
        return pointer
    for c in doc.containers:
        if c == "" or pointer == c or pointer.startswith(c + "/"):
            return c
    return ""


# -- limits ------------------------------------------------------------------------------


@attrs.frozen
class Stats:
    properties: int
    chars: int
    enum_values: int
    optional: int
    unions: int
    large_enums: tuple[tuple[str, int, int], ...]  # (pointer, values, chars)


def text_length(value: Any) -> int:
    return len(value) if isinstance(value, str) else len(json.dumps(value, default=repr))


def compute_stats(doc: Document) -> Stats:
    properties = chars = enum_values = optional = unions = 0
    large: list[tuple[str, int, int]] = []
    for v in doc.visits:
        s = v.schema
        if v.key is not None and v.keyword in _DEFINITIONS:
            chars += len(v.key)
        props = s.get("properties")
        if props is not None and is_map(props):
            properties += len(props)
            chars += sum(len(str(k)) for k in props)
            required = s.get("required", ())
            required = required if isinstance(required, list) else ()
            optional += sum(1 for k in props if k not in required)
        values = s.get("enum")
        if values is not None and isinstance(values, list):
            enum_values += len(values)
            length = sum(text_length(x) for x in values)
            chars += length
            if all(isinstance(x, str) for x in values):
                large.append((v.pointer, len(values), length))
        if "const" in s:
            chars += text_length(s["const"])
        if "anyOf" in s or "oneOf" in s or isinstance(s.get("type"), list):
            unions += 1
    return Stats(properties, chars, enum_values, optional, unions, tuple(large))


_DEFINITIONS = frozenset({"$defs", "definitions"})


def max_depth(doc: Document) -> tuple[int, str]:
    """The deepest object nesting (root object = 1) and where, following references.

    Each definition (and the root) is measured once: the object levels down to every
    place inside it, plus, at a ``$ref``, the height of the definition it refers to.
    A reference back into a definition being measured (recursion) adds nothing.
    """
    # Per visit, its object level within its container (the root or a definition); per
    # container, its deepest place without a reference and every place with one. Visits
    # compare by identity (keyed by the visit itself); only the answer's pointer is spelled.
    level: dict[Visit, int] = {}
    container: dict[Visit, str] = {}
    deepest: dict[str, tuple[int, int, Visit]] = {}  # (level, -order, visit)
    refs: dict[str, list[tuple[int, int, Visit, str]]] = {}
    for order, v in enumerate(doc.visits):
        parent = v.parent
        if parent is None or v.keyword in _DEFINITIONS:
            base, home = 0, v.pointer
        else:
            base, home = level[parent], container[parent]
        schema = v.schema
        here = base + 1 if is_object(schema) else base
        level[v] = here
        container[v] = home
        ref = schema.get("$ref")
        if ref is not None and isinstance(ref, str) and ref.startswith("#") and (
            doc.resolve(ref) is not None
        ):
            refs.setdefault(home, []).append((here, -order, v, container_of(doc, ref[1:])))
        elif here and here > deepest.get(home, (0, 0, v))[0]:
            deepest[home] = (here, -order, v)

    memo: dict[str, tuple[int, Visit | str]] = {}

    def height(home: str, active: frozenset[str]) -> tuple[int, Visit | str]:
        # The deepest place; among equally deep ones, the first in document order.
        if home in memo:
            return memo[home]
        level, first, visit = deepest.get(home, (0, 1, None))
        best: tuple[int, int, Visit | str] = (level, first, home if visit is None else visit)
        for here, order, place, target in refs.get(home, ()):
            total, where = here, cast("Visit | str", place)
            if target not in active:
                below, inner = height(target, active | {target})
                if below:
                    total, where = here + below, inner
            best = max(best, (total, order, where), key=lambda b: (b[0], b[1]))
        memo[home] = (best[0], best[2])
        return memo[home]

    depth, where = height("", frozenset({""}))
    return depth, where if isinstance(where, str) else where.pointer


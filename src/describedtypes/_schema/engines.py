"""Self-hosted grammar engines as data: what each one enforces, ignores and rejects.

vLLM, SGLang, llama.cpp and Ollama constrain a model's tokens with a grammar compiled from
the request's JSON Schema by one of four engines (xgrammar, llguidance, outlines-core and
llama.cpp's own converter). Each engine accepts keywords it does not enforce, mostly
answering HTTP 200 with unconstrained output. An ``Engine`` records, per keyword and per
JSON type, what the builder may send to it (the grammar holds it) and what goes into the
description instead (the decoder holds it), its pattern dialect, its string formats and
its limits. The tables were checked against the engines themselves (docs/engines.md lists
each engine's own documentation and source per row); the rules at the end of this module
let ``check()`` report the same for hand-written schemas.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

import attrs

from .document import MISSING, Document, Rule, escape, is_map, types_of
from .patterns import ASCII_CLASSES, Dialect
from .problem import Problem
from .rules import REF_TARGET, ROOT_OBJECT, cyclic_refs

if TYPE_CHECKING:
    from .adapters import Adapter

__all__ = [
    "Engine",
    "LLAMA_CPP",
    "LLAMA_CPP_OLLAMA",
    "LLGUIDANCE",
    "OUTLINES_CORE",
    "XGRAMMAR",
    "ENGINE_RULES",
    "ENGINE_TOOL_RULES",
]

_BOUNDS = frozenset({"minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum"})
_NUMERIC = _BOUNDS | {"multipleOf"}
_LENGTHS = frozenset({"minLength", "maxLength"})


# -- engines -----------------------------------------------------------------------------


@attrs.frozen(kw_only=True)
class Engine:
    """One grammar engine's JSON Schema support, as checked against the engine itself.

    ``enforces``, ``ignores`` and ``rejects`` classify keywords as the engine treats
    them anywhere (with ``notes`` for the conditions); the ``*_keywords`` sets say what
    the builder keeps per JSON type, the rest going into the description, where the
    decoder enforces it.

    Attributes:
        name: The engine's name (``"xgrammar"``).
        version: The version the table was checked against.
        source: The engine's own documentation of its JSON Schema support.
        enforces: Keywords the grammar holds.
        ignores: Keywords accepted and not enforced (the server answers 200).
        rejects: Keywords that fail to compile (the server answers 400).
        integer_keywords: Bounds kept on an integer.
        number_keywords: Bounds kept on a number.
        string_keywords: ``minLength``, ``maxLength``, ``pattern`` kept on a string.
        array_keywords: ``minItems``, ``maxItems``, ``uniqueItems`` kept on an array.
        lengths_beside_pattern: A length holds beside a ``pattern`` or ``format``
            (when False, the length goes into the description).
        multiple_of_beside_bounds: ``multipleOf`` holds beside a bound.
        formats: String formats the grammar holds.
        format_patterns: Formats sent as a pattern instead, as (format, pattern) pairs
            (narrower than the format: the engine's own regex for it refuses valid values).
        dialect: How ``pattern`` is read.
        over_strict: Why a keyword the engine enforces is still not sent, as
            (``"<type> <keyword>"``, reason) pairs: it refuses valid values there.
        closed_tuples: ``items: false`` after ``prefixItems`` compiles.
        recursion: Recursive schemas compile without a depth limit.
        open_objects: An object without ``additionalProperties`` takes extra keys.
        siblings_of_ref: Keywords beside ``$ref`` hold.
        siblings_of_any_of: Keywords beside ``anyOf`` hold.
        required_needs_properties: ``required`` is read only beside ``properties``.
        any_value: ``{}`` (any JSON value, for ``Any``) compiles to a grammar that takes
            any value.
        root_reference: ``{"$ref": "#"}`` (the whole document, for a class that holds
            itself) compiles; when False, such a class goes under ``$defs`` too.
        escaped_keys: A property name that needs a JSON escape (``"``, ``\\`` or a
            control character) is written escaped; when False the engine writes it raw,
            which is not JSON, so no reply can hold that key.
        all_of_merges_objects: ``allOf`` is read only as one object with every property
            of its object branches, each required (or as the intersection of enums);
            other branches are dropped, and ``allOf`` beside ``properties``, an ``enum``
            or a type other than object and string is ignored.
        max_integer_digits: Digits an integer (or a number's integral part) may have.
        notes: The engine's other limits and bugs, in words.

    .. versionadded:: 0.3.0
    """

    name: str
    version: str
    source: str
    enforces: frozenset[str]
    ignores: frozenset[str]
    rejects: frozenset[str]
    integer_keywords: frozenset[str]
    number_keywords: frozenset[str]
    string_keywords: frozenset[str]
    array_keywords: frozenset[str]
    lengths_beside_pattern: bool
    multiple_of_beside_bounds: bool
    formats: frozenset[str]
    format_patterns: tuple[tuple[str, str], ...] = ()
    dialect: Dialect
    over_strict: tuple[tuple[str, str], ...] = ()
    closed_tuples: bool = True
    recursion: bool = True
    open_objects: bool = False
    siblings_of_ref: bool = False
    siblings_of_any_of: bool = False
    required_needs_properties: bool = True
    any_value: bool = True
    root_reference: bool = True
    escaped_keys: bool = True
    all_of_merges_objects: bool = False
    max_integer_digits: int | None = None
    notes: tuple[str, ...] = ()

    def __repr__(self) -> str:
        return f"<Engine {self.name} {self.version}>"

    @property
    def keywords(self) -> frozenset[str]:
        """Every optional keyword the builder may send to this engine somewhere."""
        return (self.integer_keywords | self.number_keywords | self.string_keywords
                | self.array_keywords | {"const"})

    def format_pattern(self, fmt: str) -> str | None:
        """The pattern sent for ``fmt`` in place of the format, if the engine needs one."""
        for key, pattern in self.format_patterns:
            if key == fmt:
                return pattern
        return None

    def keeps(self, keyword: str, kind: str, *, patterned: bool, bounded: bool) -> str | None:
        """None when ``keyword`` on a ``kind`` schema holds; else why it is described.

        ``patterned``: the schema also has a pattern or format; ``bounded``: it also
        has a numeric bound.
        """
        if kind == "array":
            allowed = self.array_keywords
        elif kind == "integer":
            allowed = self.integer_keywords
        elif kind == "number":
            allowed = self.number_keywords
        else:
            allowed = self.string_keywords
        if keyword not in allowed:
            for where, why in self.over_strict:
                if where == f"{kind} {keyword}":
                    return f"{self.name} {why}"
            return f"{self.name} does not hold {keyword} on a {kind}"
        if keyword in _LENGTHS and patterned and not self.lengths_beside_pattern:
            return f"{self.name} drops {keyword} beside a pattern or format"
        if keyword == "multipleOf" and bounded and not self.multiple_of_beside_bounds:
            return f"{self.name} ignores multipleOf beside a bound"
        return None


# Narrower than RFC 3339 (upper-case T and Z, no leap second), and what the encoder
# writes: engines whose own date-time or time regex refuses valid values get these.
_TIME = (r"([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]([.][0-9]+){0,1}"
         r"(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])")
DATE_TIME_PATTERN = r"^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T" + _TIME + "$"
TIME_PATTERN = "^" + _TIME + "$"
DATE_PATTERN = r"^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$"
_FORMAT_PATTERNS = (("date-time", DATE_TIME_PATTERN), ("time", TIME_PATTERN))

# The keyword sets the engines below share, so each engine's entry says how it differs.
_ITEM_COUNTS = frozenset({"minItems", "maxItems"})
_PROPERTY_COUNTS = frozenset({"minProperties", "maxProperties"})
_STRING_KEYWORDS = _LENGTHS | {"pattern"}
#: What all four engines enforce.
_COMMON = frozenset({
    "type", "enum", "const", "anyOf", "$ref", "$defs", "properties", "required",
    "additionalProperties", "items", "prefixItems", "format",
}) | _ITEM_COUNTS | _STRING_KEYWORDS
_UNSATISFIABLE = frozenset({"not", "if", "then", "else", "dependentRequired",
                            "dependentSchemas", "uniqueItems", "contains", "minContains",
                            "maxContains"})

# \d, \w, \D and \W as the classes Python's re means by them, since the decoder checks
# patterns with re (Unicode classes): xgrammar and llguidance read them as ASCII (checked
# with "၆२" and "é"), outlines-core as Rust's Unicode classes (not quite Python's),
# llama.cpp not at all.
_PYTHON_SHORTHANDS = frozenset({"d", "w", "D", "W"})
_SHORTHANDS_NOTE = ("\\d, \\w, \\D and \\W are sent as the classes Python's re means "
                    "by them (Unicode: \\w takes \"é\"), which the decoder holds")

# Pattern features no engine reads as JSON Schema means them, and the two that an
# engine matching the whole string (matching="full") cannot read either.
_REFUSED_BY_ALL = frozenset({"lookahead", "lookbehind", "backreferences"})
_FULL_MATCH = frozenset({"unanchored", "inner anchors"})
# What Rust's regex crate (llguidance's and outlines-core's) refuses to compile: \b and
# \B (word boundaries are lookarounds there), \b in a class (a backspace in ECMA-262, an
# invalid escape there), \0 (read as a backreference) and \cX.
_RUST_REFUSED = frozenset({"word boundaries", "\\b", "\\0", "\\c"})

_NUMBER_BOUNDS_OVER_STRICT = tuple(
    (f"number {k}", f"refuses exponents (5e0) in a number with {k}") for k in sorted(_BOUNDS)
)

XGRAMMAR = Engine(
    name="xgrammar",
    version="0.2.9",
    source="https://github.com/mlc-ai/xgrammar/blob/main/docs/xgrammar_features/json_schema.md",
    enforces=_COMMON | _NUMERIC | _PROPERTY_COUNTS | {"propertyNames", "patternProperties"},
    ignores=_UNSATISFIABLE | {"oneOf", "allOf"},
    rejects=frozenset(),
    # xgrammar holds multipleOf on a bare integer, but vLLM's and SGLang's checks refuse
    # it before compiling (vLLM's auto then falls back to guidance).
    integer_keywords=_BOUNDS,
    number_keywords=frozenset(),
    string_keywords=frozenset({"pattern"}),
    array_keywords=_ITEM_COUNTS,
    lengths_beside_pattern=False,
    multiple_of_beside_bounds=False,
    formats=frozenset({"date", "time", "date-time", "duration", "email", "hostname", "ipv4",
                       "ipv6", "uri", "uri-reference", "uri-template", "uuid", "json-pointer",
                       "relative-json-pointer"}),
    # Its regex converter misreads an optional group after an alternation:
    # ^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?$ takes "07", ^(?:0|9)(?:\.[0-9]+)?$ takes "99";
    # spelled {0,1}, the same group is read right.
    # Under a pattern xgrammar writes the characters the pattern allows raw and takes no
    # escape: a '"', backslash or control character a class allows (["], [\x00-\x1f],
    # and any negated class holding a character beyond ASCII, [^é] or \W as Python means
    # it) is written as itself and the reply is not JSON. Classes and "." are sent
    # without them (json_text_unescaped); a pattern that needs one is described.
    dialect=Dialect(matching="full",
                    refused=_REFUSED_BY_ALL | _FULL_MATCH | {"word boundaries",
                                                             "unicode classes"},
                    rewritten=_PYTHON_SHORTHANDS, counted_optional_groups=True,
                    unescaped_text=True),
    over_strict=(
        *_NUMBER_BOUNDS_OVER_STRICT,
        ("integer multipleOf", "holds multipleOf on an integer, but vLLM and SGLang refuse "
         "it before compiling (HTTP 400, or vLLM's auto falls back to guidance)"),
        *((f"string {k}", f"refuses every escape (such as \\n or \\u00e9) in a string "
           f"with {k}") for k in sorted(_LENGTHS)),
    ),
    notes=(
        "a string with minLength or maxLength refuses every escape (\\n, \\\", \\u00e9): "
        "lengths go into the description",
        "a number with a bound refuses exponents and more than 6 fraction digits: "
        "number bounds go into the description",
        "multipleOf holds on a bare integer only, and vLLM's and SGLang's own checks refuse "
        "it before compiling: it goes into the description",
        "a length beside a pattern or format is dropped",
        "oneOf is read as anyOf; allOf keeps one branch",
        "keywords beside $ref or anyOf are ignored",
        "an optional group after an alternation is misread (^(?:0|9)(?:\\.[0-9]+)?$ takes "
        "\"99\"): describedtypes sends (...)? as (...){0,1}",
        "patterns are matched against the whole string; a lookahead is ignored, "
        "lookbehind, backreferences and \\p{...} fail to compile",
        _SHORTHANDS_NOTE,
        "under a pattern it writes the characters the pattern allows raw and takes no "
        "escape, so a class allowing \", backslash or a control character (and any "
        "negated class holding a character beyond ASCII, such as [^é]) lets it write "
        "one raw (not JSON): . and such classes are sent without them, and a value "
        "holding one cannot be written there; a pattern that needs one (a\"b, \\n) goes "
        "into the description",
    ),
)
"""xgrammar: vLLM's and SGLang's default backend."""

LLGUIDANCE = Engine(
    name="llguidance",
    version="1.9.1",
    source="https://github.com/guidance-ai/llguidance/blob/main/docs/json_schema.md",
    enforces=_COMMON | _NUMERIC | _PROPERTY_COUNTS | {"patternProperties", "allOf"},
    ignores=frozenset(),
    rejects=_UNSATISFIABLE | {"propertyNames", "oneOf"},
    integer_keywords=_NUMERIC,
    number_keywords=frozenset(),
    string_keywords=_STRING_KEYWORDS,
    array_keywords=_ITEM_COUNTS,
    lengths_beside_pattern=True,
    multiple_of_beside_bounds=True,
    formats=frozenset({"date-time", "time", "date", "duration", "email", "hostname", "ipv4",
                       "ipv6", "uuid", "uri"}),
    # Its \s is Rust's (Unicode's White_Space), which leaves out U+001C-U+001F.
    dialect=Dialect(matching="search", refused=_REFUSED_BY_ALL | _RUST_REFUSED,
                    rewritten=_PYTHON_SHORTHANDS, python_spaces=True),
    # It holds multipleOf on a number as decimal arithmetic does (0.3 is a multiple of
    # 0.1, as decode() reads it), but, as with bounds, refuses exponents and trailing
    # fraction zeros there (5e-1, 0.50 under multipleOf 0.5).
    over_strict=(
        *_NUMBER_BOUNDS_OVER_STRICT,
        ("number multipleOf", "refuses exponents (5e-1) and trailing fraction zeros (0.50) "
         "in a number with multipleOf"),
    ),
    open_objects=True,
    siblings_of_ref=True,
    siblings_of_any_of=True,
    required_needs_properties=False,
    notes=(
        "an object without additionalProperties takes extra keys (vLLM closes them only "
        "with disable_additional_properties): every object is sent closed",
        "a number with a bound refuses exponents: number bounds go into the description",
        "multipleOf holds on a number too, but refuses exponents (5e-1) and trailing "
        "fraction zeros (0.50) there: on a number it goes into the description",
        "oneOf is an error unless its branches are provably disjoint; not, if/then/else, "
        "dependentRequired, uniqueItems, contains, propertyNames are errors",
        "a \\uXXXX escape is taken only for control characters; a raw U+007F is refused",
        "a pattern with \\b or \\B (a lookaround there), \\b in a class, \\0 or \\cX "
        "fails to compile: such patterns go into the description",
        "\\s is Rust's (no U+001C-U+001F, which Python's takes): it is sent as "
        "[\\s\\x1c-\\x1f], \\S as [^\\s\\x1c-\\x1f]; \\S inside a class goes into the "
        "description",
        _SHORTHANDS_NOTE,
        "unknown formats are errors; the date check has no leap years",
    ),
)
"""llguidance: vLLM's ``guidance`` backend, SGLang's ``llguidance``."""

OUTLINES_CORE = Engine(
    name="outlines-core",
    version="0.2.14",
    source="https://github.com/dottxt-ai/outlines-core/blob/main/src/json_schema/mod.rs",
    enforces=_COMMON | {"minProperties"},
    ignores=_UNSATISFIABLE | _NUMERIC | {"maxProperties", "propertyNames", "oneOf"},
    rejects=frozenset({"allOf", "patternProperties"}),
    integer_keywords=frozenset(),
    number_keywords=frozenset(),
    string_keywords=_STRING_KEYWORDS,
    array_keywords=_ITEM_COUNTS,
    lengths_beside_pattern=False,
    multiple_of_beside_bounds=False,
    formats=frozenset({"email", "uuid"}),
    # Its date regex reads \d as any Unicode digit ("၆２۱๔-06-12" passes).
    format_patterns=(("date", DATE_PATTERN), *_FORMAT_PATTERNS),
    dialect=Dialect(matching="full", refused=_REFUSED_BY_ALL | _FULL_MATCH | _RUST_REFUSED,
                    rewritten=_PYTHON_SHORTHANDS, json_text=True),
    recursion=False,
    # {} compiles to a grammar that takes no value at all.
    any_value=False,
    escaped_keys=False,
    siblings_of_any_of=True,
    notes=(
        "numeric bounds and multipleOf are ignored, even on integers",
        "a length beside a pattern or format wins and the pattern or format is dropped",
        "its date-time and time regexes refuse offsets such as +00:00 and fractions other "
        "than 3 digits, and its date regex takes any Unicode digit in the year: "
        "describedtypes sends its own patterns instead",
        "\\d and \\w in a pattern are Rust's Unicode classes, not quite Python's",
        _SHORTHANDS_NOTE,
        "a pattern is matched against the string's JSON text as written, so . or [^a] let "
        "the model write a raw \", backslash or control character (not JSON): such classes "
        "are sent without them, or with their JSON escapes (\\\" and \\\\) as options",
        "recursion is unrolled 3 levels deep (max_recursion_depth=3)",
        "{} (Any) compiles to a grammar that takes no value: Any is a SchemaError",
        "strings take no \\uXXXX escape and no raw U+007F-U+009F: a control character "
        "other than \\b \\f \\n \\r \\t, DEL or a C1 character cannot be written",
        "an exponent needs its sign (1e+16, not 1e16); whitespace is one optional space",
        "a property name is written raw, unescaped: a name holding \", \\ or a control "
        "character cannot be written as JSON, so such a key is a SchemaError",
        "ipv4, ipv6, hostname, duration and unknown formats fail to compile; uri takes "
        "only http(s), ftp and urn; uuid only lower case",
    ),
)
"""outlines-core: vLLM's and SGLang's ``outlines`` backend."""

_LLAMA_CPP_NOTES = (
    "a pattern must be ^...$; an unsupported one (\\d, \\w, \\s, inner anchors, "
    "lookaround) is a warning and the string is left unconstrained (HTTP 200): \\d and "
    "\\w are rewritten, the rest goes into the description",
    _SHORTHANDS_NOTE,
    "integers, and a number's integral and fraction parts, have at most 16 digits each "
    "(0.0030284219030615525 must be written 3.0284219030615525e-3)",
    "bounds hold on integers only; multipleOf, min/maxProperties and formats other than "
    "date, time, date-time and uuid are ignored",
    "items: false is a conversion error (HTTP 400); prefixItems alone closes the array",
    "its date-time takes 0 or 3 fraction digits: describedtypes sends its own pattern",
    "a pattern is matched against the string's JSON text as written (. is [^\\n\\r]), so "
    ". or [^a] let the model write a raw \", backslash or control character (not JSON): "
    "such classes are sent without them, or with their JSON escapes as options",
    "a raw U+007F is refused (write \\u007f)",
    "keywords beside $ref or anyOf are ignored",
    "allOf is read as one object with every property of its object branches, each "
    "required (or as the intersection of enums): a branch that is not an object is dropped "
    "(allOf over integers becomes {}), and allOf beside properties, an enum or a type "
    "other than object or string is ignored",
    "a $ref that does not start with #/ is a conversion error (HTTP 400), \"#\" too: a class "
    "that holds itself goes under $defs as well as at the root",
)

LLAMA_CPP = Engine(
    name="llama.cpp",
    version="0c1e57098bba (2026-10-01)",
    source="https://github.com/ggml-org/llama.cpp/blob/master/grammars/README.md",
    enforces=_COMMON | _BOUNDS | {"allOf"},
    ignores=_UNSATISFIABLE | _PROPERTY_COUNTS | {"multipleOf", "propertyNames",
                                                 "patternProperties", "oneOf"},
    rejects=frozenset(),
    integer_keywords=_BOUNDS,
    number_keywords=frozenset(),
    string_keywords=_STRING_KEYWORDS,
    array_keywords=_ITEM_COUNTS,
    lengths_beside_pattern=False,
    multiple_of_beside_bounds=False,
    formats=frozenset({"date", "uuid"}),
    format_patterns=_FORMAT_PATTERNS,
    dialect=Dialect(
        matching="full",
        refused=_REFUSED_BY_ALL | _FULL_MATCH | {"word boundaries", "unicode classes"},
        escapes=frozenset({"\\-"}),
        # Every build copies an escape in a class into the grammar, which reads \xHH.
        class_escapes=frozenset({"\\x"}),
        rewritten=_PYTHON_SHORTHANDS,
        json_text=True,
    ),
    closed_tuples=False,
    root_reference=False,
    all_of_merges_objects=True,
    max_integer_digits=16,
    notes=_LLAMA_CPP_NOTES,
)
"""llama.cpp's ``common/json-schema-to-grammar.cpp`` (llama-server)."""

LLAMA_CPP_OLLAMA = attrs.evolve(
    LLAMA_CPP,
    version="b10488 (2026-08, in Ollama fb30760)",
    source="https://github.com/ollama/ollama/blob/main/docs/api.md",
    dialect=attrs.evolve(LLAMA_CPP.dialect, escapes=frozenset()),
    notes=(*_LLAMA_CPP_NOTES, "this build predates llama.cpp PR #29127: \\- in a class "
           "leaves the string unconstrained, so such patterns go into the description"),
)
"""The llama.cpp converter in Ollama's llama-server (an August 2026 build)."""


# -- checking hand-written schemas against an engine -------------------------------------

_DESCRIBE = ("state it in the description instead (describedtypes does, and its decoder "
             "enforces it)")


def _engine_of(adapter: Adapter) -> Engine | None:
    engine = getattr(adapter, "engine", None)
    return engine if isinstance(engine, Engine) else None


def needs_escape(key: str) -> bool:
    """``key`` holds a character JSON writes only escaped: ``"``, ``\\``, U+0000-U+001F."""
    return any(c in ('"', "\\") or c < " " for c in key)


def _kind_of(schema: Mapping[str, Any]) -> str | None:
    kinds = [k for k in types_of(schema) if k != "null"]
    return kinds[0] if len(kinds) == 1 and isinstance(kinds[0], str) else None


def _engine_keywords(doc: Document, adapter: Adapter) -> Iterator[Problem]:
    engine = _engine_of(adapter)
    if engine is None:
        return
    server = adapter.name
    for v in doc.visits:
        s = v.schema
        at = v.pointer
        for kw in s:
            if kw in engine.rejects:
                yield doc.problem(f"{at}/{escape(kw)}", "engine.rejected",
                                  f"{kw!r} fails to compile in {engine.name}, so {server} "
                                  f"answers 400; {_fix_for(kw)}")
            elif kw in engine.ignores:
                yield doc.problem(f"{at}/{escape(kw)}", "engine.ignored",
                                  f"{kw!r} is accepted and silently not enforced by "
                                  f"{engine.name} ({server} answers 200 with output that may "
                                  f"break it); {_fix_for(kw)}")
        if not s and not engine.any_value and v.parent is not None:
            yield doc.problem(at, "engine.rejected",
                              f"{engine.name} compiles {{}} (any value) to a grammar that takes "
                              "no value at all; give this schema a type (or anyOf of types)")
        kind = _kind_of(s)
        patterned = "pattern" in s or "format" in s
        bounded = any(k in s for k in _BOUNDS)
        for kw in (*_NUMERIC, *_LENGTHS):
            if kw not in s or kw in engine.ignores or kind is None:
                continue
            if (kw in _NUMERIC) != (kind in ("integer", "number")):
                continue
            why = engine.keeps(kw, kind, patterned=patterned, bounded=bounded)
            if why is None:
                continue
            if any(where == f"{kind} {kw}" for where, _ in engine.over_strict):
                yield doc.problem(f"{at}/{kw}", "engine.over-strict",
                                  f"{why}, so the model cannot write some valid values; "
                                  f"{_DESCRIBE}")
            else:
                yield doc.problem(f"{at}/{kw}", "engine.ignored",
                                  f"{why}, so the model may write values that break it; "
                                  f"{_DESCRIBE}")
        fmt = s.get("format")
        if isinstance(fmt, str) and fmt not in engine.formats:
            replacement = engine.format_pattern(fmt)
            if replacement is not None:
                yield doc.problem(f"{at}/format", "engine.format",
                                  f"{engine.name}'s own regex for format {fmt!r} refuses valid "
                                  f"values; send the pattern {replacement!r} instead "
                                  "(describedtypes does)")
            else:
                yield doc.problem(f"{at}/format", "engine.format",
                                  f"{engine.name} does not hold the format {fmt!r} (it holds "
                                  f"{', '.join(sorted(engine.formats))}); remove it and "
                                  f"{_DESCRIBE}")
        pattern = s.get("pattern")
        if isinstance(pattern, str):
            sent, why = engine.dialect.fit(pattern)
            if sent is None and engine.dialect.over_budget(pattern) is not None:
                yield doc.problem(f"{at}/pattern", "engine.pattern",
                                  f"this pattern is too long to send in a tool definition as "
                                  f"decode() reads it: {why}; {ASCII_CLASSES}, or "
                                  f"{_DESCRIBE}")
            elif sent is None:
                yield doc.problem(f"{at}/pattern", "engine.pattern",
                                  f"{engine.name} does not read this pattern as JSON Schema "
                                  f"does ({why}); anchor it as ^...$ without those features, "
                                  f"or {_DESCRIBE}")
            elif sent != pattern:
                yield doc.problem(f"{at}/pattern", "engine.pattern",
                                  f"{engine.name} misreads part of this pattern (\\d or "
                                  "\\w as Unicode classes or not at all, an optional "
                                  "group, or ., a negated class, \" or a backslash, matched "
                                  "against the string's JSON text or written unescaped, so "
                                  f"that the model may write what is not JSON); send {sent!r} "
                                  "instead")
        ref = s.get("$ref")
        if isinstance(ref, str) and ref.startswith("#") and not ref.startswith("#/") and (
                not engine.root_reference):
            yield doc.problem(f"{at}/$ref", "engine.rejected",
                              f"{engine.name} converts only references that start with #/ "
                              f"(not {ref!r}), so {server} answers 400; put the schema under "
                              "$defs and refer to it as #/$defs/<name> (describedtypes does)")
        properties = s.get("properties")
        if not engine.escaped_keys and is_map(properties):
            for key in properties:
                if needs_escape(key):
                    yield doc.problem(f"{at}/properties/{escape(key)}", "engine.key",
                                      f"{engine.name} writes property names unescaped, so "
                                      f"the key {key!r} (it needs a JSON escape) can never be "
                                      "written as JSON; rename it without \", \\ or control "
                                      "characters, or use another backend")
        if engine.all_of_merges_objects and isinstance(s.get("allOf"), list):
            yield from _merged_all_of(doc, at, s, engine.name, server)
        if "$ref" in s:
            extra = [k for k in s if k not in ("$ref", "$defs", "description", "title")]
            if extra and not engine.siblings_of_ref:
                yield doc.problem(at, "engine.ignored",
                                  f"{engine.name} ignores keywords beside $ref (found "
                                  f"{', '.join(extra)}); move them onto the definition or "
                                  "inline it here")
        if "anyOf" in s:
            extra = [k for k in s if k not in ("anyOf", "$defs", "description", "title",
                                               "default")]
            if extra and not engine.siblings_of_any_of:
                yield doc.problem(at, "engine.ignored",
                                  f"{engine.name} ignores keywords beside anyOf (found "
                                  f"{', '.join(extra)}); move them into each option")
        if s.get("items") is False and not engine.closed_tuples:
            yield doc.problem(f"{at}/items", "engine.rejected",
                              f"items: false fails to convert in {engine.name} (HTTP 400); "
                              "leave it out: prefixItems alone closes the array there")
        if kind == "object" or "properties" in s:
            if ("required" in s and not is_map(s.get("properties"))
                    and engine.required_needs_properties):
                yield doc.problem(at, "engine.ignored",
                                  f"required without properties is not read by {engine.name}; "
                                  "list the required keys under properties too")
            if engine.open_objects and s.get("additionalProperties", MISSING) is MISSING:
                yield doc.problem(at, "engine.open-object",
                                  f"{engine.name} leaves an object without "
                                  "additionalProperties open (any extra key passes); set "
                                  "additionalProperties: false")


def _merged_all_of(doc: Document, at: str, s: Mapping[str, Any], name: str,
                   server: str) -> Iterator[Problem]:
    """What an engine reading ``allOf`` as a merge of object branches does not hold."""
    where = f"{at}/allOf"
    kind = s.get("type")
    beside = [k for k in ("enum", "const", "properties") if k in s]
    if s.get("additionalProperties", True) is not True:
        beside.append("additionalProperties")
    if kind not in (None, "object", "string") or beside:
        found = ", ".join(beside) if beside else f"type {kind!r}"
        yield doc.problem(where, "engine.ignored",
                          f"{name} ignores allOf beside {found} ({server} answers 200 with "
                          f"output that may break it); merge the schemas into one")
        return
    branches: list[tuple[str, Any, bool]] = []
    for i, branch in enumerate(s["allOf"]):
        options = branch.get("anyOf") if is_map(branch) else None
        if isinstance(options, list):
            branches += [(f"{where}/{i}/anyOf/{j}", o, False) for j, o in enumerate(options)]
        else:
            branches.append((f"{where}/{i}", branch, True))
    resolved = [(p, _resolved(doc, b), direct) for p, b, direct in branches]
    if resolved and all(is_map(b) and "enum" in b for _, b, _ in resolved):
        return  # read as the intersection of the enums
    for pointer, branch, direct in resolved:
        if not (is_map(branch) and branch.get("type", "object") == "object"
                and is_map(branch.get("properties")) and "enum" not in branch):
            yield doc.problem(pointer, "engine.all-of",
                              f"{name} reads allOf only as one object holding the properties "
                              "of its object branches, and drops this branch (allOf over "
                              "integers or strings becomes the empty object {}); merge the "
                              "schemas into one")
        elif direct:
            required = branch.get("required", [])
            loose = [k for k in branch["properties"]
                     if not (isinstance(required, list) and k in required)]
            if loose:
                yield doc.problem(pointer, "engine.over-strict",
                                  f"{name} makes every property of an allOf branch required "
                                  f"(here {', '.join(map(repr, loose))}), so the model cannot "
                                  "leave them out; merge the schemas into one object")


def _resolved(doc: Document, branch: Any) -> Any:
    ref = branch.get("$ref") if is_map(branch) else None
    if isinstance(ref, str):
        target = doc.resolve(ref)
        return target if target is not None else branch
    return branch


def _fix_for(keyword: str) -> str:
    if keyword == "oneOf":
        return "use anyOf (the decoder checks that one option matches)"
    if keyword == "allOf":
        return "merge the schemas into one"
    if keyword in ("patternProperties", "propertyNames"):
        return "use additionalProperties with the value schema and say what a key is in the " \
               "description"
    return _DESCRIBE


ENGINE_KEYWORDS = Rule(
    "engine", _engine_keywords,
    summary="Only keywords, formats and patterns the server's grammar engine enforces.",
)


def _engine_recursion(doc: Document, adapter: Adapter) -> Iterator[Problem]:
    engine = _engine_of(adapter)
    if engine is None or engine.recursion:
        return
    for v in cyclic_refs(doc):
        yield doc.problem(
            v.pointer, "engine.recursion",
            f"the reference {v.schema['$ref']!r} makes the schema recursive, which "
            f"{engine.name} unrolls only 3 levels deep (deeper replies are refused by the "
            f"grammar); use another backend ({adapter.name.split('(')[0]}"
            '.replace(backend="xgrammar")), '
            "or bound the depth with separate classes (a Level2 type without the "
            "self-reference)",
        )


ENGINE_RECURSION = Rule(
    "engine.recursion", _engine_recursion,
    summary="No recursive schemas where the engine unrolls recursion to a fixed depth.",
)

ENGINE_RULES: tuple[Rule, ...] = (REF_TARGET, ENGINE_KEYWORDS, ENGINE_RECURSION)
ENGINE_TOOL_RULES: tuple[Rule, ...] = (ROOT_OBJECT, *ENGINE_RULES)

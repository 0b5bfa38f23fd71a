"""Provider rules: what OpenAI, Anthropic, Gemini and MCP accept, as checks on a schema.

One set of rules serves two callers: ``schema()`` runs an adapter's rules on its own
output (and raises ``SchemaError`` listing what they found instead of emitting a schema the
provider would reject), and ``check()`` runs them on any schema dict, such as one made by
pydantic or written by hand. The rules, their codes (O1, A5, ...) and the provider
documentation they come from are listed in docs/provider-rules.md.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from .document import (
    MISSING,
    Document,
    Rule,
    Visit,
    container_of,
    escape,
    is_map,
    is_object,
    max_depth,
    types_of,
)
from .patterns import features
from .problem import Problem
from .wellformed import ANTHROPIC_SDK_SHAPES, BOOLEAN_SCHEMAS, PRIMITIVE_LITERALS, WELL_FORMED

if TYPE_CHECKING:
    from .adapters import Adapter

__all__ = [
    "ANTHROPIC_RULES",
    "cyclic_refs",
    "GEMINI_RULES",
    "MCP_RULES",
    "OPENAI_RULES",
    "request_budgets",
    "run_rules",
    "regex_features",
    "suggest_name",
]


# -- public entry points -----------------------------------------------------------------


def run_rules(doc: Document, adapter: Adapter) -> list[Problem]:
    problems: list[Problem] = []
    for rule in adapter.checks:
        if rule.strict_only and not doc.strict:
            continue
        problems.extend(rule.find(doc, adapter))
    return problems


def request_budgets(docs: list[Document], adapter: Adapter) -> Iterator[Problem]:
    limits = adapter.limits
    strict = [d for d in docs if d.strict]
    if limits.max_strict_tools is not None and len(strict) > limits.max_strict_tools:
        yield Problem(
            "", "limit.strict-tools",
            f"{len(strict)} strict tools in one request; {adapter.name} accepts at most "
            f"{limits.max_strict_tools}; send the others with strict off "
            f"({adapter.name}.replace(strict=False)) or split the request",
        )
    if len(strict) < 2:
        return
    optional = sum(d.stats.optional for d in strict)
    if limits.max_optional_params is not None and optional > limits.max_optional_params:
        yield Problem(
            "", "limit.optional-params",
            f"{optional} optional parameters across {len(strict)} strict schemas; "
            f"{adapter.name} accepts at most {limits.max_optional_params} per request; "
            "make some required, or send some tools with strict off",
        )
    unions = sum(d.stats.unions for d in strict)
    if limits.max_union_params is not None and unions > limits.max_union_params:
        yield Problem(
            "", "limit.union-params",
            f"{unions} union-typed parameters (anyOf or a list of types, nullable fields "
            f"included) across {len(strict)} strict schemas; {adapter.name} accepts at most "
            f"{limits.max_union_params} per request; make some fields non-nullable, or send "
            "some tools with strict off",
        )


# -- names -------------------------------------------------------------------------------


def suggest_name(name: str, pattern: str | None) -> str:
    """A name close to ``name`` that matches ``pattern`` (the provider's name rule).

    .. versionadded:: 0.1.0
    """
    cleaned = re.sub(r"[^A-Za-z0-9_-]+", "_", name).strip("_") or "tool"
    if pattern is None:
        return cleaned
    candidates = [cleaned, cleaned[:64], "_" + cleaned[:63], "tool_" + cleaned[:59], "tool"]
    for candidate in candidates:
        if re.fullmatch(pattern, candidate):
            return candidate
    return cleaned[:64]


def _name_rule(doc: Document, adapter: Adapter) -> Iterator[Problem]:
    if doc.name_pointer is None or adapter.name_pattern is None:
        return
    name = doc.name
    if not isinstance(name, str):
        yield Problem(doc.name_pointer, "name",
                      f"the name is missing; {adapter.name} needs a name matching "
                      f"^{adapter.name_pattern}$")
        return
    if re.fullmatch(adapter.name_pattern, name) is None:
        better = suggest_name(name, adapter.name_pattern)
        yield Problem(
            doc.name_pointer, "name",
            f"the name {name!r} does not match ^{adapter.name_pattern}$, the names "
            f"{adapter.name} accepts; use a name such as {better!r} (for a Python type or "
            f"function: annotate.register(obj, Annotation(name={better!r})))",
        )


NAME = Rule("name", _name_rule, summary="The schema or tool name matches the provider's pattern.")


# -- structure ---------------------------------------------------------------------------


def _short(value: Any) -> str:
    text = json.dumps(value, default=repr)
    return text if len(text) <= 40 else text[:37] + "..."


def _root_object_rule(unions_ok: bool) -> Callable[[Document, Adapter], Iterator[Problem]]:
    def find(doc: Document, adapter: Adapter) -> Iterator[Problem]:
        body = doc.body
        fix = ("wrap the value in an object with one property (in Python: wrap the value in "
               "an attrs class or dataclass with one field)")
        for kw in ("anyOf", "oneOf", "allOf"):
            if kw in body and not (unions_ok and body.get("type") == "object"):
                yield doc.problem("", "root-object",
                                  f"the root is a union ({kw}); {adapter.name} needs one "
                                  f"object (type: \"object\") at the root; {fix}")
                return
        if "$ref" in body and "type" not in body:
            yield doc.problem("", "root-object",
                              f"the root is a $ref; {adapter.name} needs type: \"object\" at "
                              "the root; put the referenced object's keywords at the root")
            return
        if body.get("type") != "object":
            got = f"type {_short(body['type'])}" if "type" in body else "no type"
            yield doc.problem("", "root-object",
                              f"the root has {got}; {adapter.name} needs type: \"object\" at "
                              f"the root; {fix}")

    return find


ROOT_OBJECT = Rule("root-object", _root_object_rule(unions_ok=False),
                   summary="The root is one object schema, not a union.")
MCP_ROOT_OBJECT = Rule("root-object", _root_object_rule(unions_ok=True),
                       summary="The root has type: \"object\" (other keywords may join it).")


def _closed_objects(doc: Document, adapter: Adapter) -> Iterator[Problem]:
    for v in doc.visits:
        if not is_object(v.schema):
            continue
        extra = v.schema.get("additionalProperties", MISSING)
        if extra is MISSING:
            yield doc.problem(v.pointer, "additionalProperties",
                              f"this object does not set additionalProperties; {adapter.name} "
                              "needs additionalProperties: false on every object")
        elif extra is not False:
            yield doc.problem(
                v.pointer + "/additionalProperties", "additionalProperties",
                f"additionalProperties is {_short(extra)}; {adapter.name} accepts only closed "
                "objects (additionalProperties: false); send an open map such as "
                "dict[str, T] as an array of {key, value} objects (describedtypes does this "
                "under strict adapters)",
            )


CLOSED_OBJECTS = Rule("additionalProperties", _closed_objects, strict_only=True,
                      summary="Every object sets additionalProperties: false.")


def _all_required(doc: Document, adapter: Adapter) -> Iterator[Problem]:
    for v in doc.visits:
        props = v.schema.get("properties")
        if props is None or not is_map(props):
            continue
        required = v.schema.get("required", [])
        required = required if isinstance(required, list) else []
        missing = [k for k in props if k not in required]
        if missing:
            listed = ", ".join(repr(k) for k in missing)
            yield doc.problem(
                v.pointer, "required",
                f"every property must be listed in required under {adapter.name}; missing: "
                f"{listed}; spell an optional field as a union with null (type: [T, \"null\"] "
                "or anyOf with {\"type\": \"null\"}) and list it",
            )


ALL_REQUIRED = Rule("required", _all_required, strict_only=True,
                    summary="Every property is listed in required.")


def _object_properties(doc: Document, adapter: Adapter) -> Iterator[Problem]:
    for v in doc.visits:
        s = v.schema
        kind = s.get("type")
        if (kind == "object" or (isinstance(kind, list) and "object" in kind)) and (
            "properties" not in s and s.get("additionalProperties", False) is False
        ):
            yield doc.problem(v.pointer, "properties",
                              f"an object without a properties key is rejected by "
                              f"{adapter.name}; write properties: {{}} and required: [] for an "
                              "object with no fields")


OBJECT_PROPERTIES = Rule("properties", _object_properties, strict_only=True,
                         summary="Every object has a properties key.")

_JSON_TYPES = frozenset({"string", "number", "integer", "boolean", "object", "array", "null"})


def _typed_rule(untyped_ok: frozenset[str]) -> Callable[[Document, Adapter], Iterator[Problem]]:
    def find(doc: Document, adapter: Adapter) -> Iterator[Problem]:
        for v in doc.visits:
            s = v.schema
            if "type" not in s:
                if v.keyword in ("$defs", "definitions") or any(k in s for k in untyped_ok):
                    continue
                yield doc.problem(v.pointer, "type",
                                  f"this schema has no type; {adapter.name} needs a type on "
                                  "every schema (Any cannot be expressed); use a concrete "
                                  "type, or anyOf over the allowed types")
                continue
            kind = s["type"]
            if isinstance(kind, str) and kind in _JSON_TYPES:
                continue  # the usual case, told at once
            bad = [k for k in types_of(s) if not (isinstance(k, str) and k in _JSON_TYPES)]
            if bad:
                yield doc.problem(v.pointer + "/type", "type",
                                  f"{_short(bad[0])} is not a JSON Schema type "
                                  f"{adapter.name} accepts; use one of "
                                  + ", ".join(sorted(_JSON_TYPES)))

    return find


_UNTYPED_OK = frozenset({"anyOf", "oneOf", "allOf", "$ref", "enum", "const"})
TYPED = Rule("type", _typed_rule(_UNTYPED_OK), strict_only=True,
             summary="Every schema has a JSON type (or is a union, reference or enum).")


def _formats(doc: Document, adapter: Adapter) -> Iterator[Problem]:
    allowed = adapter.formats
    if allowed is None:
        return
    for v in doc.visits:
        fmt = v.schema.get("format")
        if fmt is not None and not (isinstance(fmt, str) and fmt in allowed):
            yield doc.problem(v.pointer + "/format", "format",
                              f"the format {fmt!r} is not accepted by {adapter.name}, which "
                              f"accepts {', '.join(sorted(allowed))}; remove it and say it in "
                              "the description")


FORMATS = Rule("format", _formats, strict_only=True,
               summary="String formats are from the provider's list.")


def _ref_target(doc: Document, adapter: Adapter) -> Iterator[Problem]:
    for v in doc.visits:
        if "$ref" not in v.schema:
            continue
        ref = v.schema["$ref"]
        if not isinstance(ref, str) or not ref.startswith("#"):
            yield doc.problem(v.pointer + "/$ref", "$ref",
                              f"{adapter.name} accepts only local references (#/$defs/...), "
                              f"got {_short(ref)}; copy the external schema into $defs")
        elif doc.resolve(ref) is None:
            yield doc.problem(v.pointer + "/$ref", "$ref",
                              f"the reference {ref!r} points at nothing in this schema")


REF_TARGET = Rule("$ref", _ref_target, summary="Every $ref is local and resolves.")


def _ref_siblings_rule(dollar_ok: bool) -> Callable[[Document, Adapter], Iterator[Problem]]:
    def find(doc: Document, adapter: Adapter) -> Iterator[Problem]:
        for v in doc.visits:
            s = v.schema
            if "$ref" not in s:
                continue
            siblings = [
                k for k in s
                if k not in ("$ref", "$defs", "definitions")
                and not (dollar_ok and k.startswith("$"))
            ]
            if siblings:
                listed = ", ".join(siblings)
                yield doc.problem(
                    v.pointer, "$ref-siblings",
                    f"a $ref cannot have sibling keywords under {adapter.name} (found "
                    f"{listed}); inline the referenced schema here and put them on it "
                    "(describedtypes does this for a described field), or move them onto "
                    "the definition",
                )

    return find


OPENAI_REF_SIBLINGS = Rule("$ref-siblings", _ref_siblings_rule(dollar_ok=False),
                           strict_only=True, summary="A $ref stands alone.")
GEMINI_REF_SIBLINGS = Rule("$ref-siblings", _ref_siblings_rule(dollar_ok=True),
                           summary="A $ref has only $-keywords beside it.")


def _keyword_rule(
    accepted: frozenset[str], advice: Mapping[str, str], provider: str
) -> Callable[[Document, Adapter], Iterator[Problem]]:
    def find(doc: Document, adapter: Adapter) -> Iterator[Problem]:
        for v in doc.visits:
            for kw in v.schema:
                if kw in accepted:
                    continue
                hint = advice.get(kw)
                if hint is None:
                    text = (f"{kw!r} is not among the keywords {provider} documents as "
                            f"supported under {adapter.name}; remove it or say it in the "
                            "description")
                else:
                    text = f"{kw!r} is rejected by {adapter.name}; {hint}"
                yield doc.problem(f"{v.pointer}/{escape(kw)}", "keyword", text)

    return find


_DESCRIBE = "state it in the description instead (describedtypes writes e.g. 'Must be at least 1.')"
_COMMON_ADVICE = {
    "oneOf": "use anyOf with the same alternatives",
    "discriminator": "remove it (pydantic emits it with oneOf for tagged unions); anyOf needs none",
    "allOf": "merge the schemas into one",
    "not": _DESCRIBE,
    "if": _DESCRIBE,
    "then": _DESCRIBE,
    "else": _DESCRIBE,
    "dependentRequired": _DESCRIBE,
    "dependentSchemas": _DESCRIBE,
    "uniqueItems": "say 'Items must be unique.' in the description instead",
    "nullable": 'use type: [T, "null"] or anyOf with {"type": "null"}',
    "prefixItems": "fixed-length tuples are not supported; use an object with one property "
                   "per position",
    "patternProperties": "open maps are not supported; use an array of {key, value} objects",
    "propertyNames": "open maps are not supported; use an array of {key, value} objects",
}

_OPENAI_ACCEPTED = frozenset({
    "type", "properties", "required", "additionalProperties", "items", "anyOf", "enum",
    "const", "$ref", "$defs", "definitions", "description", "title", "pattern", "format",
    "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minItems",
    "maxItems", "minLength", "maxLength", "$schema", "$id",
})
_OPENAI_ADVICE = {
    **_COMMON_ADVICE,
    "default": "remove it (OpenAI and Azure OpenAI reject default in strict mode); every "
               "field is required there, so say the usual value in the description",
}
OPENAI_KEYWORDS = Rule(
    "keyword", _keyword_rule(_OPENAI_ACCEPTED, _OPENAI_ADVICE, "OpenAI"), strict_only=True,
    summary="Only keywords OpenAI's strict mode supports.",
)

_ANTHROPIC_ACCEPTED = frozenset({
    "type", "properties", "required", "additionalProperties", "items", "anyOf", "allOf",
    "enum", "const", "$ref", "$defs", "definitions", "description", "title", "default",
    "format", "pattern", "minItems", "$schema", "$id",
})
_ANTHROPIC_BOUND = ("Anthropic's strict mode has no numeric, length or item-count bounds; "
                    + _DESCRIBE)
_ANTHROPIC_ADVICE = {
    **_COMMON_ADVICE,
    **dict.fromkeys(("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
                     "multipleOf", "minLength", "maxLength", "maxItems"), _ANTHROPIC_BOUND),
}
ANTHROPIC_KEYWORDS = Rule(
    "keyword", _keyword_rule(_ANTHROPIC_ACCEPTED, _ANTHROPIC_ADVICE, "Anthropic"),
    strict_only=True, summary="Only keywords Anthropic's strict mode supports.",
)


def _min_items(doc: Document, adapter: Adapter) -> Iterator[Problem]:
    top = adapter.min_items_max
    if top is None:
        return
    for v in doc.visits:
        value = v.schema.get("minItems")
        if isinstance(value, int) and value > top:
            yield doc.problem(v.pointer + "/minItems", "minItems",
                              f"minItems is {value}; {adapter.name} accepts at most {top}; "
                              f"{_DESCRIBE}")


MIN_ITEMS = Rule("minItems", _min_items, strict_only=True,
                 summary="minItems is within the provider's bound (Anthropic: 0 or 1).")


#: The features of ``patterns.features`` that Anthropic's strict grammar lacks.
_STRICT_GRAMMAR_LACKS = frozenset({"word boundaries", "backreferences", "lookahead",
                                   "lookbehind"})


def regex_features(pattern: str) -> list[str]:
    """The regex features in ``pattern`` that Anthropic's strict grammar lacks.

    Finds backreferences, lookahead, lookbehind and word boundaries (``\\b``, ``\\B``),
    each once, in the order they first occur.

    .. versionadded:: 0.1.0
    """
    found: list[str] = []
    for feature in features(pattern):
        # In a class, \1 is no backreference (ECMA-262 reads an octal escape there).
        if (feature.name in _STRICT_GRAMMAR_LACKS and not feature.in_class
                and feature.name not in found):
            found.append(feature.name)
    return found


def _pattern_syntax(doc: Document, adapter: Adapter) -> Iterator[Problem]:
    for v in doc.visits:
        pattern = v.schema.get("pattern")
        if not isinstance(pattern, str):
            continue
        lacking = regex_features(pattern)
        if lacking:
            yield doc.problem(v.pointer + "/pattern", "pattern",
                              f"the pattern uses {', '.join(lacking)}, which {adapter.name} "
                              "does not support (no backreferences, lookaround or \\b); "
                              "simplify the pattern or say it in the description")


PATTERN_SYNTAX = Rule("pattern", _pattern_syntax, strict_only=True,
                      summary="Patterns use no backreferences, lookaround or \\b.")


def _enum_rule(
    allowed: Callable[[Any], bool], what: str
) -> Callable[[Document, Adapter], Iterator[Problem]]:
    def find(doc: Document, adapter: Adapter) -> Iterator[Problem]:
        for v in doc.visits:
            values = v.schema.get("enum")
            if not isinstance(values, list):
                continue
            bad = [x for x in values if not allowed(x)]
            if bad:
                yield doc.problem(v.pointer + "/enum", "enum",
                                  f"{adapter.name} accepts only {what} in enum, got "
                                  f"{_short(bad[0])}; move the other values into the type "
                                  "(anyOf with {\"type\": \"null\"} for null) or the description")

    return find


def _primitive(x: Any) -> bool:
    return x is None or isinstance(x, (str, int, float, bool))


def _string_or_number(x: Any) -> bool:
    # Gemini refuses an empty string in an enum ("enum[0]: cannot be empty").
    return isinstance(x, (str, int, float)) and not isinstance(x, bool) and x != ""


ANTHROPIC_ENUM = Rule("enum", _enum_rule(_primitive, "primitive values"), strict_only=True,
                      summary="enum holds primitive values only.")
GEMINI_ENUM = Rule("enum", _enum_rule(_string_or_number, "non-empty strings and numbers"),
                   summary="enum holds non-empty strings and numbers only.")


# -- references and recursion ------------------------------------------------------------


def _cyclic_refs(doc: Document) -> list[Visit]:
    """The ``$ref`` visits that lead back to the definition (or root) holding them."""
    edges: dict[str, set[str]] = {}
    refs: list[tuple[Visit, str, str]] = []
    for v in doc.visits:
        ref = v.schema.get("$ref")
        if not isinstance(ref, str) or not ref.startswith("#") or doc.resolve(ref) is None:
            continue
        source = container_of(doc, v.pointer)
        target = container_of(doc, ref[1:])
        edges.setdefault(source, set()).add(target)
        refs.append((v, source, target))

    @functools.cache
    def reach(start: str) -> frozenset[str]:
        seen: set[str] = set()
        todo = [start]
        while todo:
            node = todo.pop()
            if node in seen:
                continue
            seen.add(node)
            todo.extend(edges.get(node, ()))
        return frozenset(seen)

    return [v for v, source, target in refs if source in reach(target)]


#: The ``$ref`` visits that make a document recursive (for the engine rules too).
cyclic_refs = _cyclic_refs


def _no_recursion(doc: Document, adapter: Adapter) -> Iterator[Problem]:
    if adapter.recursion:
        return
    for v in _cyclic_refs(doc):
        yield doc.problem(
            v.pointer, "recursion",
            f"the reference {v.schema['$ref']!r} leads back to the schema that holds it, and "
            f"{adapter.name} does not accept recursive schemas; bound the depth with separate "
            "classes (e.g. a Level2 type without the self-reference), or send it with strict "
            f"off ({adapter.name}.replace(strict=False))",
        )


NO_RECURSION = Rule("recursion", _no_recursion, strict_only=True,
                    summary="No recursive schemas (unless the adapter's recursion is True).")


def _cyclic_ref_required(doc: Document, adapter: Adapter) -> Iterator[Problem]:
    for v in _cyclic_refs(doc):
        container = container_of(doc, v.pointer)
        node: Visit | None = v
        innermost: Visit | None = None
        optional = False
        while node is not None and node.pointer != container:
            if node.keyword == "properties" and node.parent is not None:
                required = node.parent.schema.get("required", [])
                if node.key not in (required if isinstance(required, list) else []):
                    optional = True
                    break
                innermost = innermost or node
            node = node.parent
        if optional:
            continue
        if innermost is not None:
            key = innermost.key
            where = f"the required property {key!r}"
            fix = (f"leave {key!r} out of required (in Python: give the field a default, "
                   "e.g. attrs.field(factory=list) or = None)")
        else:
            where = "a place that is always present"
            fix = "put the reference in a property that is not required"
        yield doc.problem(
            (innermost or v).pointer, "recursion",
            f"the recursive reference {v.schema['$ref']!r} sits in {where}; {adapter.name} "
            "unrolls recursion only through properties that are not required (nullable is "
            f"not enough); {fix}",
        )


CYCLIC_REF_REQUIRED = Rule("recursion", _cyclic_ref_required,
                           summary="Recursive references sit only in non-required properties.")


def _limits(doc: Document, adapter: Adapter) -> Iterator[Problem]:
    limits = adapter.limits
    stats = doc.stats
    name = adapter.name
    if limits.max_properties is not None and stats.properties > limits.max_properties:
        yield doc.problem("", "limit.properties",
                          f"the schema has {stats.properties:,} object properties; {name} "
                          f"accepts at most {limits.max_properties:,} in one schema; split it "
                          "into smaller schemas or tools")
    if limits.max_depth is not None:
        deepest, where = max_depth(doc)
        if deepest > limits.max_depth:
            yield doc.problem(where, "limit.depth",
                              f"objects nest {deepest} levels deep here; {name} accepts at "
                              f"most {limits.max_depth} levels of nesting; flatten the inner "
                              "classes")
    if limits.max_chars is not None and stats.chars > limits.max_chars:
        yield doc.problem("", "limit.chars",
                          f"property names, definition names, enum and const values add up "
                          f"to {stats.chars:,} characters; {name} accepts at most "
                          f"{limits.max_chars:,}; shorten names or enums")
    if limits.max_enum_values is not None and stats.enum_values > limits.max_enum_values:
        yield doc.problem("", "limit.enum-values",
                          f"the schema has {stats.enum_values:,} enum values; {name} accepts "
                          f"at most {limits.max_enum_values:,} in one schema; use a string "
                          "and list the values in the description, or split the enum")
    if limits.large_enum_values is not None and limits.large_enum_chars is not None:
        for pointer, count, length in stats.large_enums:
            if count > limits.large_enum_values and length > limits.large_enum_chars:
                yield doc.problem(pointer + "/enum", "limit.large-enum",
                                  f"this string enum has {count:,} values of {length:,} "
                                  f"characters in total; {name} accepts at most "
                                  f"{limits.large_enum_chars:,} characters in an enum of more "
                                  f"than {limits.large_enum_values} values")
    if limits.max_optional_params is not None and stats.optional > limits.max_optional_params:
        yield doc.problem("", "limit.optional-params",
                          f"the schema has {stats.optional} optional properties; {name} "
                          f"accepts at most {limits.max_optional_params} per request; make "
                          "some required")
    if limits.max_union_params is not None and stats.unions > limits.max_union_params:
        yield doc.problem("", "limit.union-params",
                          f"the schema has {stats.unions} union-typed schemas (anyOf or a list "
                          f"of types, nullable fields included); {name} accepts at most "
                          f"{limits.max_union_params} per request; make some fields "
                          f"non-nullable, or send it with strict off "
                          f"({name}.replace(strict=False))")


LIMITS = Rule("limits", _limits, strict_only=True,
              summary="The schema stays within the adapter's size limits and budgets.")


MCP_MAX_COMPOSITION_DEPTH = 10
"""How deep composition keywords (``anyOf``, ``oneOf``, ``allOf``, ``not``) may nest in
an MCP tool's schema: the 2026-07-28 revision asks for a bound on their depth and count
(the numbers are this library's)."""

MCP_MAX_COMPOSITION_BRANCHES = 500
"""How many subschemas the composition keywords of one MCP tool's schema may hold."""

_COMPOSITION = frozenset({"anyOf", "oneOf", "allOf", "not"})


def _composition(doc: Document, adapter: Adapter) -> Iterator[Problem]:
    depths: dict[int, int] = {}
    branches = 0
    deepest: tuple[int, str] = (0, "")
    for v in doc.visits:
        parent = 0 if v.parent is None else depths.get(id(v.parent), 0)
        depth = parent + (v.keyword in _COMPOSITION)
        depths[id(v)] = depth
        if v.keyword in _COMPOSITION:
            branches += 1
        if depth > deepest[0]:
            deepest = (depth, v.pointer)
    if deepest[0] > MCP_MAX_COMPOSITION_DEPTH:
        yield doc.problem(deepest[1], "composition-depth",
                          f"composition keywords (anyOf, oneOf, allOf, not) nest {deepest[0]} "
                          f"deep here; {adapter.name} accepts at most "
                          f"{MCP_MAX_COMPOSITION_DEPTH}; flatten the alternatives into one "
                          "anyOf")
    if branches > MCP_MAX_COMPOSITION_BRANCHES:
        yield doc.problem("", "composition-count",
                          f"the composition keywords (anyOf, oneOf, allOf, not) hold "
                          f"{branches:,} subschemas; {adapter.name} accepts at most "
                          f"{MCP_MAX_COMPOSITION_BRANCHES:,} in one schema; split the tool")


MCP_COMPOSITION = Rule("composition", _composition,
                       summary="Composition keywords stay within a bounded depth and count.")


# -- the providers' rule sets ------------------------------------------------------------

OPENAI_RULES: tuple[Rule, ...] = (
    WELL_FORMED, BOOLEAN_SCHEMAS, PRIMITIVE_LITERALS, ROOT_OBJECT, NAME, REF_TARGET, TYPED,
    OPENAI_KEYWORDS, CLOSED_OBJECTS, ALL_REQUIRED, OBJECT_PROPERTIES, FORMATS,
    OPENAI_REF_SIBLINGS, LIMITS,
)
ANTHROPIC_RULES: tuple[Rule, ...] = (
    WELL_FORMED, BOOLEAN_SCHEMAS, ANTHROPIC_SDK_SHAPES, PRIMITIVE_LITERALS, ROOT_OBJECT, NAME,
    REF_TARGET, TYPED, ANTHROPIC_KEYWORDS, CLOSED_OBJECTS, FORMATS, MIN_ITEMS, PATTERN_SYNTAX,
    ANTHROPIC_ENUM, NO_RECURSION, LIMITS,
)
GEMINI_RULES: tuple[Rule, ...] = (
    WELL_FORMED, ROOT_OBJECT, NAME, REF_TARGET, GEMINI_REF_SIBLINGS, CYCLIC_REF_REQUIRED,
    GEMINI_ENUM,
)
MCP_RULES: tuple[Rule, ...] = (WELL_FORMED, MCP_ROOT_OBJECT, NAME, REF_TARGET, MCP_COMPOSITION)

"""Rules for hand-written schemas: what no provider or grammar engine takes.

``check()`` of a schema written by hand must not pass what the provider's own SDK or a
grammar engine then refuses. The openai SDK's strict transform (``to_strict_json_schema``)
raises "Expected True to be a dictionary" for a boolean subschema; the Anthropic SDK's
``transform_schema`` raises for a boolean subschema, a list of types, ``items`` given as
a list and an untyped schema whose ``const`` or ``enum`` is not primitive; llguidance
refuses an empty ``anyOf`` or ``enum`` (unsatisfiable), a ``required`` that is not a list
of strings, ``properties`` that is not an object and a pattern it cannot parse.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from .document import Document, Rule, escape
from .problem import Problem

if TYPE_CHECKING:
    from .adapters import Adapter

__all__ = ["ANTHROPIC_SDK_SHAPES", "BOOLEAN_SCHEMAS", "PRIMITIVE_LITERALS", "WELL_FORMED"]

#: Where a boolean is the value the keyword means, not a subschema to refuse.
_BOOLEAN_OK = frozenset({"additionalProperties", "unevaluatedProperties"})
_LISTS = ("anyOf", "oneOf", "allOf", "enum", "prefixItems")


def _at(v: Any, keyword: str, key: str | None) -> str:
    return f"{v.pointer}/{keyword}" + ("" if key is None else f"/{escape(key)}")


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "the boolean " + ("true" if value else "false")
    if value is None:
        return "null"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return f"a {type(value).__name__}"


def _well_formed(doc: Document, adapter: Adapter) -> Iterator[Problem]:
    for holder, keyword, key, value in doc.malformed:
        if isinstance(value, bool):
            continue  # a boolean schema is valid JSON Schema: BOOLEAN_SCHEMAS decides
        if keyword == "items" and key is None and isinstance(value, list):
            continue  # the draft-07 tuple form: ANTHROPIC_SDK_SHAPES decides
        where = _at(holder, keyword, key)
        if key is None and keyword in ("properties", "$defs", "definitions",
                                       "patternProperties", "dependentSchemas"):
            fix = f"make {keyword} an object mapping names to schemas"
        elif key is None and keyword in ("anyOf", "oneOf", "allOf", "prefixItems"):
            fix = f"make {keyword} a list of schemas"
        else:
            fix = "put a schema object here"
        yield doc.problem(where, "well-formed",
                          f"{keyword} holds {_kind(value)}, which is no schema; {fix}")
    for v in doc.visits:
        s = v.schema
        for keyword in _LISTS:
            if keyword not in s:
                continue
            value = s[keyword]
            if isinstance(value, list) and not value:
                yield doc.problem(f"{v.pointer}/{keyword}", "well-formed",
                                  f"{keyword} is empty, so no value matches (a grammar engine "
                                  "refuses it as unsatisfiable); list at least one "
                                  + ("value" if keyword == "enum" else "schema")
                                  + f", or remove {keyword}")
            elif keyword == "enum" and not isinstance(value, list):
                yield doc.problem(f"{v.pointer}/enum", "well-formed",
                                  f"enum holds {_kind(value)}; make it a list of values")
        if "required" in s:
            required = s["required"]
            if not isinstance(required, list):
                yield doc.problem(f"{v.pointer}/required", "well-formed",
                                  f"required holds {_kind(required)}; make it a list of "
                                  "property names")
            else:
                for i, name in enumerate(required):
                    if not isinstance(name, str):
                        yield doc.problem(f"{v.pointer}/required/{i}", "well-formed",
                                          f"required lists {_kind(name)}; list property "
                                          "names (strings)")
        pattern = s.get("pattern")
        if pattern is not None:
            reason = _pattern_error(pattern)
            if reason is not None:
                yield doc.problem(f"{v.pointer}/pattern", "well-formed",
                                  f"the pattern {reason}; fix it so it compiles, or say the "
                                  "format in the description")


def _pattern_error(pattern: Any) -> str | None:
    if not isinstance(pattern, str):
        return f"is {_kind(pattern)}, not a string"
    # ECMA-262 syntax Python's re lacks: named groups (?<name>...), \p{...}, \u{...}.
    if re.search(r"\\[pPu]\{", pattern):
        return None
    try:
        re.compile(re.sub(r"\(\?<(?![=!])", "(?P<", pattern))
    except re.error as exc:
        return f"does not compile ({exc})"
    except (RecursionError, OverflowError):
        return "is too complex to compile"
    return None


WELL_FORMED = Rule(
    "well-formed", _well_formed,
    summary="Subschemas are objects; anyOf, allOf, oneOf and enum are non-empty lists; "
            "required lists names; properties is an object; patterns compile.",
)


def _boolean_schemas(doc: Document, adapter: Adapter) -> Iterator[Problem]:
    for holder, keyword, key, value in doc.malformed:
        if not isinstance(value, bool) or (keyword in _BOOLEAN_OK and key is None):
            continue
        fix = "{} (any value)" if value else "remove it (or use a schema no value matches)"
        if value:
            fix = "write {} or the schema it should be"
        yield doc.problem(_at(holder, keyword, key), "well-formed",
                          f"a boolean schema ({'true' if value else 'false'}) here is "
                          f"refused by {adapter.name}'s strict mode and its SDK's schema "
                          f"transform; {fix}")


BOOLEAN_SCHEMAS = Rule(
    "well-formed", _boolean_schemas, strict_only=True,
    summary="No boolean subschemas (true/false) outside additionalProperties.",
)


def _primitive(x: Any) -> bool:
    return x is None or isinstance(x, (str, int, float, bool))


def _anthropic_sdk_shapes(doc: Document, adapter: Adapter) -> Iterator[Problem]:
    for holder, keyword, key, value in doc.malformed:
        if keyword == "items" and key is None and isinstance(value, list):
            yield doc.problem(_at(holder, keyword, None), "well-formed",
                              "items holds a list (the draft-07 tuple form), which the "
                              "Anthropic SDK's transform_schema refuses; make items one "
                              "schema, or use prefixItems")
    for v in doc.visits:
        s = v.schema
        kind = s.get("type")
        if isinstance(kind, list):
            yield doc.problem(f"{v.pointer}/type", "type",
                              f"type is a list ({kind!r}), which the Anthropic SDK's "
                              "transform_schema refuses; write anyOf with one type each")


ANTHROPIC_SDK_SHAPES = Rule(
    "type", _anthropic_sdk_shapes, strict_only=True,
    summary="One type per schema, items one schema (the SDK's transform).",
)


def _primitive_literals(doc: Document, adapter: Adapter) -> Iterator[Problem]:
    enum_rule = any(r.id == "enum" for r in adapter.checks)
    for v in doc.visits:
        s = v.schema
        if "const" in s and not _primitive(s["const"]):
            yield doc.problem(f"{v.pointer}/const", "const",
                              f"const is {_kind(s['const'])}; {adapter.name}'s strict mode "
                              "takes a string, number, boolean or null there (grammar engines "
                              "and the SDK's transform do not take more); describe the value "
                              "in the description instead")
        values = s.get("enum")
        if not enum_rule and isinstance(values, list):
            bad = [x for x in values if not _primitive(x)]
            if bad:
                yield doc.problem(f"{v.pointer}/enum", "enum",
                                  f"enum holds {_kind(bad[0])}; {adapter.name}'s strict mode "
                                  "takes strings, numbers, booleans and null there; describe "
                                  "such values in the description instead")


PRIMITIVE_LITERALS = Rule(
    "const", _primitive_literals, strict_only=True,
    summary="const and enum hold strings, numbers, booleans and null only.",
)

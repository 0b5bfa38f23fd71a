"""The restricted schema of an MCP elicitation request, as a rule on a schema body.

An MCP server asks the user for input with ``elicitation/create``, whose
``requestedSchema`` is a flat object of primitive fields a client can show as a form
(MCP specification, ``client/elicitation``, and its ``schema.ts``:
``PrimitiveSchemaDefinition``): strings (``minLength``, ``maxLength``, ``format`` one of
email, uri, date, date-time), numbers and integers (``minimum``, ``maximum``), booleans,
single-select enums of strings, and multi-select arrays of string enums, each with
``title``, ``description`` and ``default``. Nothing nests, nothing is a union. The rule
names every field outside that shape, with the fix.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from .document import Document, Rule, escape
from .problem import Problem

if TYPE_CHECKING:
    from .adapters import Adapter

__all__ = ["ELICITATION_FORMATS", "ELICITATION_KEYWORDS", "ELICITATION_RULES"]

#: The string formats an elicitation field may carry.
ELICITATION_FORMATS = frozenset({"email", "uri", "date", "date-time"})

#: The keywords the renderer may emit as keywords for an elicitation field; the rule
#: refuses each one a field's kind does not take (``pattern``, ``exclusiveMinimum``...),
#: so a bound the form cannot enforce is never silently lost.
ELICITATION_KEYWORDS = frozenset(
    {"minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum", "multipleOf",
     "minLength", "maxLength", "pattern", "minItems", "maxItems"}
)

_COMMON = frozenset({"type", "title", "description", "default"})
_ALLOWED = {
    "string": _COMMON | {"minLength", "maxLength", "format"},
    "number": _COMMON | {"minimum", "maximum"},
    "integer": _COMMON | {"minimum", "maximum"},
    "boolean": _COMMON,
    "enum": _COMMON | {"enum", "enumNames", "oneOf"},
    "array": _COMMON | {"minItems", "maxItems", "items"},
}
_ROOT = frozenset({"$schema", "type", "properties", "required"})
_KINDS = "a string, number, integer, boolean, an enum of strings or a list of such an enum"
_CHECK_LATER = "drop it from the type and check it in the tool after decoding the answer"


def _short(value: Any) -> str:
    text = json.dumps(value, default=repr)
    return text if len(text) <= 40 else text[:37] + "..."


def _field_problems(key: str, prop: Any) -> Iterator[str]:
    """What is wrong with one property of a requested schema, each with its fix."""
    if not isinstance(prop, Mapping):
        yield f"field {key!r} is {_short(prop)}, not a schema; give it a type ({_KINDS})"
        return
    if "$ref" in prop or prop.get("type") == "object" or "properties" in prop:
        yield (
            f"field {key!r} is an object (a nested class or a dict); an elicitation form is "
            "flat: put its fields on the class you ask for, or ask for them in a second "
            "request"
        )
        return
    for union in ("anyOf", "allOf", "not"):
        if union in prop:
            yield (
                f"field {key!r} is a union ({union}); a form field has one type: use one "
                f"type ({_KINDS}); an optional field is `T | None = None`, left out of "
                "required"
            )
            return
    kind = prop.get("type")
    if isinstance(kind, list):
        if "null" in kind:
            fix = ("an optional field is `T | None = None` (left out of required): a union "
                   "with null whose default is not None cannot be a form field")
        else:
            fix = f"use one type ({_KINDS})"
        yield f"field {key!r} has the types {_short(kind)}; a form field has one type: {fix}"
        return
    if kind is None:
        yield f"field {key!r} has no type (Any); give it one: {_KINDS}"
        return
    if "enum" in prop or "oneOf" in prop:
        shape = "enum"
        values = prop.get("enum")
        if values is None:
            options = prop.get("oneOf")
            values = [o.get("const") for o in options if isinstance(o, Mapping)] if (
                isinstance(options, list)) else [None]
        bad = [v for v in values if not isinstance(v, str)] if isinstance(values, list) else [
            values]
        if bad:
            yield (
                f"field {key!r} has the enum value {_short(bad[0])}; elicitation enums hold "
                "strings only: use an Enum with string values or a Literal of strings"
            )
    elif kind in ("string", "number", "integer", "boolean"):
        shape = kind
        fmt = prop.get("format")
        if fmt is not None and fmt not in ELICITATION_FORMATS:
            yield (
                f"field {key!r} has the format {_short(fmt)}; elicitation takes only the "
                f"formats {', '.join(sorted(ELICITATION_FORMATS))}: type the field str and "
                "convert it in the tool after decoding the answer"
            )
    elif kind == "array":
        shape = "array"
        items = prop.get("items")
        ok = isinstance(items, Mapping) and (
            (items.get("type") == "string" and isinstance(items.get("enum"), list)
             and all(isinstance(v, str) for v in items["enum"])
             and set(items) <= {"type", "enum"})
            or (set(items) <= {"type", "anyOf"} and isinstance(items.get("anyOf"), list))
        )
        if not ok:
            yield (
                f"field {key!r} is a list of {_short(items)}; an elicitation list is a "
                "multi-select of string enum values: use list[SomeEnum] or "
                "list[Literal['a', 'b']]"
            )
            return
    else:
        yield f"field {key!r} has the type {_short(kind)}; a form field is {_KINDS}"
        return
    extra = [k for k in prop if k not in _ALLOWED[shape]]
    if extra:
        listed = ", ".join(repr(k) for k in extra)
        takes = ", ".join(sorted(_ALLOWED[shape] - {"type"}))
        what = "an enum" if shape == "enum" else f"a {shape}"
        yield (
            f"field {key!r} uses {listed}, which an elicitation field that is {what} does not "
            f"take (it takes {takes}); {_CHECK_LATER}"
        )


def _elicitation(doc: Document, adapter: Adapter) -> Iterator[Problem]:
    body = doc.body
    if body.get("type") != "object" or not isinstance(body.get("properties"), Mapping):
        yield doc.problem(
            "", "elicitation",
            f"{adapter.name} asks for a flat object with properties at the root; ask for an "
            "attrs class, dataclass or TypedDict whose fields are the form's fields",
        )
        return
    if "$defs" in body:
        names = ", ".join(repr(k) for k in body["$defs"]) if isinstance(
            body["$defs"], Mapping) else "?"
        yield doc.problem(
            "/$defs", "elicitation",
            f"the schema defines nested classes ({names}); an elicitation form is flat: put "
            "their fields on the class you ask for",
        )
    for k in body:
        if k not in _ROOT and k != "$defs":
            yield doc.problem(
                f"/{escape(k)}", "elicitation",
                f"{k!r} is not allowed at the root of an elicitation schema, which holds "
                "only type, properties and required; remove it (say it in the message "
                "of the request instead)",
            )
    for key, prop in body["properties"].items():
        for text in _field_problems(key, prop):
            yield doc.problem(f"/properties/{escape(key)}", "elicitation", text)


ELICITATION = Rule(
    "elicitation", _elicitation,
    summary="A flat object of string, number, integer, boolean and string-enum fields.",
)

ELICITATION_RULES: tuple[Rule, ...] = (ELICITATION,)

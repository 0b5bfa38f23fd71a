"""The schemas an MCP server sends: closed MCP_TOOLS input schemas, outputSchema from a
tool's return annotation, and the MCP_ELICITATION form schema.

The consumers are real: jsonschema's 2020-12 validator (what the SDK's ClientSession
validates with), the SDK's generated 2025-11-25 elicitation models, and ``decode``.
"""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import enum
import functools
import inspect
import json
import uuid
from typing import Annotated, Any, Literal

import annotated_types as at
import attrs
import mcp_types._v2025_11_25 as spec
import pytest
from hypothesis import given
from hypothesis import strategies as st
from jsonschema.validators import Draft202012Validator
from pydantic import TypeAdapter

from describedtypes import (
    MCP_ELICITATION,
    MCP_TOOLS,
    DecodeError,
    SchemaError,
    Tool,
    check,
    decode,
    encode,
    schema,
)
from describedtypes._codec.encode import json_value
from describedtypes._serve.mcp import output_schema

from .strategies import classes

# -- MCP_TOOLS: closed objects, optional fields still optional --------------------------


def _objects(node: Any) -> list[dict[str, Any]]:
    """Every schema object with properties in ``node``."""
    found = []
    if isinstance(node, dict):
        if "properties" in node:
            found.append(node)
        for value in node.values():
            found += _objects(value)
    elif isinstance(node, list):
        for value in node:
            found += _objects(value)
    return found


@given(classes(), st.data())
def test_mcp_tools_input_refuses_what_the_decoder_refuses(
    pair: Any, data: st.DataObject
) -> None:
    """A client validating with inputSchema accepts every encoded value and refuses an
    unknown key, as the decoder does; every object is closed, none made required."""
    cls, values = pair
    body = schema(cls, MCP_TOOLS)["inputSchema"]
    validator = Draft202012Validator(body)
    for obj in _objects(body):
        assert obj["additionalProperties"] is False
    assert body.get("required", []) == schema(cls).get("required", [])  # as STANDARD
    value = data.draw(values)
    payload = json.loads(encode(value))
    assert not list(validator.iter_errors(payload))
    payload["zz_unknown"] = 1
    assert list(validator.iter_errors(payload))
    with pytest.raises(DecodeError, match="zz_unknown"):
        decode(cls, payload)


@dataclasses.dataclass
class Point:
    x: int


def test_mcp_tools_maps_stay_open() -> None:
    """dict[str, T] stays an open map under MCP_TOOLS; a class inside it is closed."""

    def plot(points: dict[str, Point], label: str | None = None) -> None:
        """Plot."""

    body = schema(plot, MCP_TOOLS)["inputSchema"]
    assert body == {
        "type": "object",
        "properties": {
            "points": {"type": "object", "additionalProperties": {
                "type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"],
                "additionalProperties": False}},
            "label": {"type": "string"},
        },
        "required": ["points"],
        "additionalProperties": False,
    }


def test_mcp_tools_without_parameters_is_the_recommended_empty_schema() -> None:
    """A tool without parameters sends a closed empty object (the MCP tools page's advice)."""

    def ping() -> str:
        """Ping."""
        return "pong"

    assert schema(ping, MCP_TOOLS)["inputSchema"] == {
        "type": "object", "properties": {}, "additionalProperties": False
    }


# -- outputSchema ------------------------------------------------------------------------


@dataclasses.dataclass
class Node:
    value: int
    next: Node | None = None


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


def returns_node() -> Node:
    return Node(1)


def returns_nodes() -> list[Node]:
    return [Node(1, Node(2))]


def returns_maybe_node() -> Node | None:
    return Node(1, Node(2))


def returns_int() -> int:
    return 1


def returns_none() -> None:
    return None


def returns_map() -> dict[str, int]:
    return {"a": 1}


def returns_color_map() -> dict[Color, int]:
    return {Color.RED: 1}


def returns_nothing_annotated():  # type: ignore[no-untyped-def]
    return 1


def returns_undescribable() -> dict[int, str]:
    return {1: "a"}


class Service:
    def method(self, n: int) -> list[int]:
        return [n]

    def __call__(self, n: int) -> int:
        return n


def _wrapped(value: int, *, scale: int) -> int:
    return value * scale


@pytest.mark.parametrize(
    ("func", "wrapped"),
    [(returns_node, False), (returns_nodes, True), (returns_maybe_node, True),
     (returns_int, True), (returns_none, True), (returns_map, False),
     (returns_color_map, False), (Service().method, True), (Service(), True),
     (functools.partial(_wrapped, scale=2), True)],
    ids=lambda v: getattr(v, "__name__", type(v).__name__),
)
def test_output_schema_validates_the_encoded_return(func: Any, wrapped: bool) -> None:
    """An object return is its own outputSchema; anything else is wrapped as result, with
    references still resolving; the encoded value validates against it."""
    tool = Tool(func)
    out, is_wrapped = output_schema(tool)
    assert out is not None
    assert is_wrapped is wrapped
    assert out["type"] == "object"
    Draft202012Validator.check_schema(out)
    kwargs = {"n": 3} if "n" in tool.accepted_parameters else {}
    if "value" in tool.accepted_parameters:
        kwargs = {"value": 3}
    encoded = json.loads(encode(func(**kwargs)))
    structured = {"result": encoded} if wrapped else encoded
    assert not list(Draft202012Validator(out).iter_errors(structured))
    if wrapped:
        assert out["required"] == ["result"]
        assert list(Draft202012Validator(out).iter_errors(encoded)) or not isinstance(
            encoded, dict)


@given(classes(), st.sampled_from(["T", "list[T]", "T | None", "dict[str, T]"]), st.data())
def test_structured_content_validates_against_the_output_schema(
    pair: Any, shape: str, data: st.DataObject
) -> None:
    """For any class T and a return of T, list[T], T | None or dict[str, T], the encoded
    return value (wrapped as the server wraps it) validates against the outputSchema,
    with references into $defs resolving after the wrapping."""
    cls, values = pair
    returns = {"T": cls, "list[T]": list[cls], "T | None": cls | None,
               "dict[str, T]": dict[str, cls]}[shape]

    def tool() -> None:
        """Returns a value."""

    tool.__annotations__["return"] = returns
    out, wrapped = output_schema(Tool(tool))
    assert out is not None
    assert wrapped is (shape in ("list[T]", "T | None"))
    one = data.draw(values)
    value = {"T": one, "list[T]": [one, one], "T | None": data.draw(st.none() | st.just(one)),
             "dict[str, T]": {"k": one}}[shape]
    encoded = json_value(value)
    assert not list(Draft202012Validator(out).iter_errors(
        {"result": encoded} if wrapped else encoded))


def test_output_schema_rebases_references_to_a_recursive_root() -> None:
    """A recursive value under a non-object root keeps its references pointing at it."""
    out, wrapped = output_schema(Tool(returns_nodes))
    assert wrapped
    assert out is not None
    bad = {"result": [{"value": 1, "next": {"value": "two"}}]}
    assert list(Draft202012Validator(out).iter_errors(bad))


@pytest.mark.parametrize("func", [returns_nothing_annotated, returns_undescribable])
def test_no_output_schema_without_a_described_return(func: Any) -> None:
    """No return annotation, or one schema() refuses: no outputSchema (text only)."""
    assert output_schema(Tool(func)) == (None, False)


def test_return_type_reads_through_wrappers() -> None:
    """Tool.return_type is the evaluated annotation, through methods, partials, objects."""
    assert Tool(returns_maybe_node).return_type == Node | None
    assert Tool(Service().method).return_type == list[int]
    assert Tool(Service()).return_type is int
    assert Tool(functools.partial(_wrapped, scale=2)).return_type is int
    assert Tool(returns_nothing_annotated).return_type is inspect.Signature.empty

    @functools.wraps(returns_int)
    def decorated() -> Any:
        return returns_int()

    assert Tool(decorated).return_type is int


def test_return_type_survives_a_parameter_it_cannot_evaluate() -> None:
    """A parameter annotation that cannot be evaluated does not hide the return type."""
    namespace: dict[str, Any] = {}
    exec(  # a module whose Context parameter names a type-checking-only import
        "from __future__ import annotations\n"
        "from describedtypes import Context\n"
        "def who(ctx: Context[Session]) -> int:\n"
        "    return 1\n",
        namespace,
    )
    assert Tool(namespace["who"]).return_type is int


# -- MCP_ELICITATION -------------------------------------------------------------------------


class Size(enum.Enum):
    SMALL = "s"
    LARGE = "l"


_PRIMITIVES: list[Any] = [
    spec.StringSchema, spec.NumberSchema, spec.BooleanSchema,
    spec.UntitledSingleSelectEnumSchema, spec.UntitledMultiSelectEnumSchema,
]


def spec_model_keeping(prop: dict[str, Any]) -> Any:
    """The generated 2025-11-25 model that reads ``prop`` and loses nothing of it."""
    for model in _PRIMITIVES:
        try:
            parsed = model.model_validate(prop)
        except Exception:
            continue
        if parsed.model_dump(mode="json", by_alias=True, exclude_unset=True) == prop:
            return model
    return None


def assert_spec_accepts(requested: dict[str, Any]) -> None:
    """The SDK's RequestedSchema model, and for each field one primitive model, keep all
    of ``requested``."""
    root = spec.RequestedSchema.model_validate(requested)
    assert root.model_dump(mode="json", by_alias=True, exclude_unset=True) == requested
    TypeAdapter(spec.PrimitiveSchemaDefinition)  # the union the fields belong to
    for key, prop in requested["properties"].items():
        assert spec_model_keeping(prop) is not None, (key, prop)


_FIELD_TYPES: list[tuple[Any, st.SearchStrategy[Any]]] = [
    (str, st.text(max_size=8)),
    (int, st.integers(-1000, 1000)),
    (float, st.floats(-1e6, 1e6, allow_nan=False)),
    (bool, st.booleans()),
    (datetime.date, st.dates()),
    (datetime.datetime, st.datetimes()),
    (Size, st.sampled_from(Size)),
    (Literal["a", "b", "c"], st.sampled_from(["a", "b", "c"])),
    (list[Size], st.lists(st.sampled_from(Size), max_size=2)),
    (Annotated[str, at.MinLen(1), at.MaxLen(20)], st.text(min_size=1, max_size=20)),
    (Annotated[int, at.Ge(0), at.Le(9)], st.integers(0, 9)),
]


@st.composite
def flat_classes(draw: st.DrawFn) -> tuple[Any, st.SearchStrategy[Any]]:
    """A dataclass of 1-5 fields an elicitation form can ask for, and its instances."""
    count = draw(st.integers(1, 5))
    picks = [draw(st.sampled_from(_FIELD_TYPES)) for _ in range(count)]
    kinds = draw(st.lists(st.sampled_from(["required", "default", "optional"]),
                          min_size=count, max_size=count))
    order = sorted(range(count), key=lambda i: kinds[i] != "required")
    fields: list[Any] = []
    strategies: dict[str, st.SearchStrategy[Any]] = {}
    for i in order:
        tp, values = picks[i]
        name = f"f{i}"
        if kinds[i] == "required":
            fields.append((name, tp))
            strategies[name] = values
        elif kinds[i] == "optional":
            fields.append((name, tp | None, dataclasses.field(default=None)))
            strategies[name] = st.none() | values
        else:
            default = draw(values)
            fields.append((name, tp, dataclasses.field(default_factory=lambda d=default: d)))
            strategies[name] = values
    cls = dataclasses.make_dataclass(f"Form{draw(st.integers(0, 10**6))}", fields)
    return cls, st.builds(cls, **strategies)


@given(flat_classes(), st.data())
def test_elicitation_schema_is_what_the_spec_allows(pair: Any, data: st.DataObject) -> None:
    """Every flat class gives a requestedSchema the SDK's spec models keep whole; an
    answer (the encoded instance) validates against it and decodes back equal."""
    cls, values = pair
    requested = dict(schema(cls, MCP_ELICITATION))
    assert_spec_accepts(requested)
    instance = data.draw(values)
    answer = json.loads(encode(instance))
    assert not list(Draft202012Validator(requested).iter_errors(answer))
    assert decode(cls, answer) == instance
    assert check(requested, MCP_ELICITATION) == []


def test_elicitation_schema_of_a_booking() -> None:
    """Formats, defaults, an optional field and a multi-select, as the spec spells them."""

    @attrs.define
    class Booking:
        """Not sent: the request's message says what is asked."""

        name: str
        day: datetime.date
        seats: Annotated[int, at.Ge(1), at.Le(8)] = 2
        window: bool | None = None
        sizes: list[Size] = attrs.field(factory=list)

    requested = schema(Booking, MCP_ELICITATION)
    assert requested["properties"]["day"] == {"type": "string", "format": "date"}
    assert requested["properties"]["seats"] == {
        "type": "integer", "minimum": 1, "maximum": 8, "default": 2
    }
    assert requested["properties"]["window"] == {"type": "boolean"}
    assert requested["properties"]["sizes"] == {
        "type": "array", "items": {"type": "string", "enum": ["s", "l"]}, "default": []
    }
    assert requested["required"] == ["name", "day"]
    assert "description" not in requested
    assert_spec_accepts(dict(requested))


@dataclasses.dataclass
class Inner:
    x: int


@pytest.mark.parametrize(
    ("tp", "field", "says"),
    [(Inner, "value", "is an object"),
     (dict[str, int], "value", "is an object"),
     (int | str, "value", "a form field has one type"),
     (int | None, "value", "a union with null whose default is not None"),
     (list[int], "value", "multi-select of string enum values"),
     (datetime.time, "value", "the format \"time\""),
     (uuid.UUID, "value", "the format \"uuid\""),
     (decimal.Decimal, "value", "uses 'pattern'"),
     (Annotated[str, at.MinLen(1), at.MaxLen(3)] | None, "value", None),
     (Annotated[int, at.Gt(0)], "value", "uses 'exclusiveMinimum'"),
     (Literal[1, 2], "value", "enum value 1"),
     (Any, "value", "has no type"),
     (tuple[int, int], "value", "a list of")],
    ids=repr,
)
def test_elicitation_refuses_what_a_form_cannot_ask(tp: Any, field: str, says: str | None) -> None:
    """Anything outside the flat primitive form is a SchemaError naming the field and
    saying what to do instead."""
    # `int | None = 3`: only null says None, so the union stays (and is refused).
    default: Any = 3 if tp == (int | None) else dataclasses.MISSING
    cls = dataclasses.make_dataclass("Form", [(field, tp, dataclasses.field(default=default))])
    if says is None:  # an optional bounded string is fine
        assert_spec_accepts(dict(schema(cls, MCP_ELICITATION)))
        return
    with pytest.raises(SchemaError) as info:
        schema(cls, MCP_ELICITATION)
    message = str(info.value)
    assert f"field {field!r}" in message
    assert f"/properties/{field}" in message
    assert says in message


def test_elicitation_needs_a_class() -> None:
    """A bare type is not a form: the error says to ask for a class."""
    with pytest.raises(SchemaError, match="needs an object at the root"):
        schema(int, MCP_ELICITATION)


@pytest.mark.parametrize(
    ("requested", "pointer", "says"),
    [({"type": "object", "properties": {"a": {"type": "string", "pattern": "^x"}}},
      "/properties/a", "uses 'pattern'"),
     ({"type": "object", "properties": {"a": {"type": "string"}},
       "additionalProperties": False}, "/additionalProperties", "not allowed at the root"),
     ({"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}},
       "$defs": {"A": {"type": "object"}}}, "/$defs", "nested classes"),
     ({"type": "array"}, "/", "flat object with properties")],
)
def test_check_reads_hand_written_elicitation_schemas(
    requested: dict[str, Any], pointer: str, says: str
) -> None:
    """check(..., MCP_ELICITATION) finds the same problems in a schema written by hand."""
    problems = check(requested, MCP_ELICITATION)
    assert any(str(p).startswith(pointer) and says in p.message for p in problems), problems
    assert {p.rule for p in problems} == {"elicitation"}


# -- 2026-07-28: references never followed, composition bounded -----------------------------


@pytest.mark.parametrize("ref", ["https://example.com/weather.json", "weather.json#/$defs/A",
                                 "file:///etc/passwd"])
def test_an_external_ref_is_refused_never_fetched(ref: str) -> None:
    """check(..., MCP_TOOLS) refuses a reference outside the schema, and says to copy the
    schema into $defs; nothing is fetched (the checks read only the dict)."""
    tool = {"name": "t", "inputSchema": {"type": "object", "properties": {"a": {"$ref": ref}}}}
    problems = check(tool, MCP_TOOLS)
    assert [(p.pointer, p.rule) for p in problems] == [("/inputSchema/properties/a/$ref", "$ref")]
    assert "copy the external schema into $defs" in problems[0].message


def test_an_unresolved_local_ref_is_refused() -> None:
    tool = {"name": "t", "inputSchema": {"type": "object",
                                         "properties": {"a": {"$ref": "#/$defs/Missing"}}}}
    assert [p.rule for p in check(tool, MCP_TOOLS)] == ["$ref"]


def test_composition_depth_is_bounded() -> None:
    """Composition keywords nested past MCP_MAX_COMPOSITION_DEPTH are refused, in a hand-
    written schema (check) and in a type's own (schema raises SchemaError)."""
    from describedtypes._schema.rules import MCP_MAX_COMPOSITION_DEPTH

    def nested(depth: int) -> dict[str, Any]:
        node: dict[str, Any] = {"type": "string"}
        for _ in range(depth):
            node = {"anyOf": [node, {"type": "integer"}]}
        return {"type": "object", "properties": {"a": node}}

    assert check(nested(MCP_MAX_COMPOSITION_DEPTH), MCP_TOOLS) == []
    problems = check(nested(MCP_MAX_COMPOSITION_DEPTH + 1), MCP_TOOLS)
    assert [p.rule for p in problems] == ["composition-depth"]
    assert f"nest {MCP_MAX_COMPOSITION_DEPTH + 1} deep" in problems[0].message

    deep: Any = int
    for _ in range(MCP_MAX_COMPOSITION_DEPTH + 2):
        deep = list[deep | str] | None  # an anyOf in each level's items (but the outer's)

    holder = dataclasses.make_dataclass("Deep", [("value", deep)])
    with pytest.raises(SchemaError, match=f"nest {MCP_MAX_COMPOSITION_DEPTH + 1} deep"):
        schema(holder, MCP_TOOLS)


def test_composition_count_is_bounded() -> None:
    from describedtypes._schema.rules import MCP_MAX_COMPOSITION_BRANCHES

    many = {"type": "object", "properties": {"a": {"anyOf": [
        {"type": "integer", "minimum": i} for i in range(MCP_MAX_COMPOSITION_BRANCHES + 1)
    ]}}}
    assert [p.rule for p in check(many, MCP_TOOLS)] == ["composition-count"]

"""Adapters: each provider's shape, and each provider rule applied while building.

The tables pair a rule from docs/provider-rules.md (its code leads the row's name) with a Python
type that would break it, and the outcome: the transformed output, or the SchemaError text.
"""

from __future__ import annotations

import datetime
import enum
import json
import re
from typing import Annotated, Any, ClassVar, Literal, Optional, Union

import attrs
import jsonschema
import pytest
from hypothesis import given, settings

from describedtypes import (
    ANTHROPIC,
    ANTHROPIC_TOOLS,
    GEMINI,
    MCP_TOOLS,
    OPENAI,
    OPENAI_CHAT_TOOLS,
    OPENAI_TOOLS,
    STANDARD,
    Adapter,
    Annotation,
    Rewrite,
    SchemaError,
    annotate,
    check,
    explain,
    schema,
)
from describedtypes import adapters as adapters_module
from describedtypes._schema.document import document
from describedtypes.adapters import Limits

from .strategies import classes

ALL = [STANDARD, OPENAI, OPENAI_TOOLS, OPENAI_CHAT_TOOLS, ANTHROPIC_TOOLS, ANTHROPIC, GEMINI,
       MCP_TOOLS]
STRICT = [OPENAI, OPENAI_TOOLS, OPENAI_CHAT_TOOLS, ANTHROPIC_TOOLS, ANTHROPIC]


def body_of(out: Any, adapter: Adapter) -> Any:
    """The schema body inside an adapter's wrapped output."""
    return document(out, adapter).body


def field(tp: Any, adapter: Adapter, **options: Any) -> Any:
    """The schema of one field ``x`` of type ``tp`` (attrs field options allowed)."""
    holder = attrs.make_class("Holder", {"x": attrs.field(type=tp, **options)})
    return body_of(schema(holder, adapter), adapter)["properties"]["x"]


@attrs.define
class Weather:
    """Current weather for a city."""

    city: str
    days: int | None = None


@attrs.define
class Address:
    """A postal address."""

    city: str


@attrs.define
class Home:
    address: Annotated[Address, Annotation(description="Where they live")]
    work: Address


@attrs.define
class Tree:
    value: int
    children: list[Tree]


@attrs.define
class OptionalTree:
    value: int
    children: list[OptionalTree] = attrs.field(factory=list)


@attrs.define
class DescribedTree:
    value: int
    parent: Annotated[Optional[DescribedTree], Annotation(description="Up")]  # noqa: UP045


@attrs.define
class Cat:
    name: str


@attrs.define
class Dog:
    name: str
    good: bool


@attrs.define
class Empty:
    pass


class Color(enum.Enum):
    red = "red"
    green = "green"


def nested(levels: int) -> type:
    """A class whose objects nest ``levels`` deep (itself included)."""
    inner: type = attrs.make_class("Level0", {"leaf": attrs.field(type=str)})
    for i in range(1, levels):
        inner = attrs.make_class(f"Level{i}", {"child": attrs.field(type=inner)})
    return inner


class TestShapes:
    """Each adapter's wrapper, with its exact key order."""

    BODY_STRICT: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {"city": {"type": "string"}, "days": {"type": ["integer", "null"]}},
        "required": ["city", "days"],
        "additionalProperties": False,
    }
    BODY_STANDARD: ClassVar[dict[str, Any]] = {
        "type": "object",
        "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
        "required": ["city"],
    }

    def test_openai(self) -> None:
        """OPENAI is the json_schema object of a response_format."""
        out = schema(Weather, OPENAI)
        assert out == {"name": "Weather", "description": "Current weather for a city.",
                       "strict": True, "schema": self.BODY_STRICT}
        assert list(out) == ["name", "description", "strict", "schema"]

    def test_openai_tools(self) -> None:
        """OPENAI_TOOLS is a flat Responses API function tool."""
        out = schema(Weather, OPENAI_TOOLS)
        assert list(out) == ["type", "name", "description", "strict", "parameters"]
        assert out["type"] == "function"
        assert out["parameters"] == self.BODY_STRICT

    def test_openai_chat_tools(self) -> None:
        """OPENAI_CHAT_TOOLS nests the function under "function"."""
        out = schema(Weather, OPENAI_CHAT_TOOLS)
        assert out == {"type": "function", "function": {
            "name": "Weather", "description": "Current weather for a city.", "strict": True,
            "parameters": self.BODY_STRICT}}
        assert list(out["function"]) == ["name", "description", "strict", "parameters"]

    BODY_ANTHROPIC: ClassVar[dict[str, Any]] = {
        **BODY_STRICT,
        "properties": {"city": {"type": "string"},
                       "days": {"anyOf": [{"type": "integer"}, {"type": "null"}]}},
    }

    def test_anthropic_tools(self) -> None:
        """ANTHROPIC_TOOLS is a strict Messages API tool; nullable types use anyOf."""
        out = schema(Weather, ANTHROPIC_TOOLS)
        assert out == {"name": "Weather", "description": "Current weather for a city.",
                       "strict": True, "input_schema": self.BODY_ANTHROPIC}
        assert list(out) == ["name", "description", "strict", "input_schema"]

    def test_anthropic_output_format(self) -> None:
        """ANTHROPIC is output_config.format; the body keeps the description."""
        out = schema(Weather, ANTHROPIC)
        assert out == {"type": "json_schema", "schema": {
            **self.BODY_ANTHROPIC, "description": "Current weather for a city."}}

    def test_gemini(self) -> None:
        """GEMINI is a function declaration on the JSON Schema path, STANDARD-style body."""
        out = schema(Weather, GEMINI)
        assert out == {"name": "Weather", "description": "Current weather for a city.",
                       "parameters_json_schema": self.BODY_STANDARD}
        assert list(out) == ["name", "description", "parameters_json_schema"]

    def test_mcp_tools(self) -> None:
        """MCP_TOOLS is an MCP tool with STANDARD rules, closed objects and a display title."""
        out = schema(Weather, MCP_TOOLS)
        assert out == {"name": "Weather", "title": "Weather",
                       "description": "Current weather for a city.",
                       "inputSchema": {**self.BODY_STANDARD, "additionalProperties": False}}
        assert list(out) == ["name", "title", "description", "inputSchema"]

    @pytest.mark.parametrize(
        ("name", "title"),
        [("get_weather", "Get weather"), ("GetWeather", "Get weather"),
         ("admin.tools.list", "Admin tools list"), ("fetchURL", "Fetch URL"), ("x", "X")],
    )
    def test_mcp_title_spells_the_name_as_words(self, name: str, title: str) -> None:
        """The MCP title is the tool name written as words."""
        from describedtypes.adapters import display_title

        assert display_title(name) == title

    @pytest.mark.parametrize("adapter", [a for a in ALL if a not in (STANDARD, ANTHROPIC)])
    def test_no_description_key_when_unknown(self, adapter: Adapter) -> None:
        """An omitted description key means no description was known."""
        out = schema(Cat, adapter)
        assert "description" not in json.dumps(out)

    def test_adapter_reprs(self) -> None:
        """An adapter prints as its name; a replaced one shows what changed."""
        assert repr(OPENAI_CHAT_TOOLS) == "OPENAI_CHAT_TOOLS"
        assert repr(OPENAI_TOOLS.replace(strict=False)) == "OPENAI_TOOLS(strict=False)"
        assert repr(ANTHROPIC_TOOLS.checks[0]) == "Rule('well-formed')"


OPENAI_BUILD = [
    ("O2 optional field", Optional[int], {}, {"type": ["integer", "null"]}),  # noqa: UP045
    ("O2 optional class", Optional[Cat], {},  # noqa: UP045
     {"anyOf": [{"type": "object", "properties": {"name": {"type": "string"}},
                 "required": ["name"], "additionalProperties": False}, {"type": "null"}]}),
    ("O3 dict as entries", dict[str, int], {},
     {"type": "array", "items": {"type": "object", "properties": {
         "key": {"type": "string"}, "value": {"type": "integer"}},
         "required": ["key", "value"], "additionalProperties": False}}),
    ("O5 formats kept", datetime.date, {}, {"type": "string", "format": "date"}),
    ("O6 number bounds kept", int, {"validator": attrs.validators.ge(0)},
     {"type": "integer", "minimum": 0}),
    ("O7 item bounds kept", list[int], {"validator": attrs.validators.min_len(2)},
     {"type": "array", "items": {"type": "integer"}, "minItems": 2}),
    ("O8 length bounds described", str, {"validator": attrs.validators.max_len(5)},
     {"type": "string", "description": "Must have at most 5 characters."}),
    ("O10 unions are anyOf", Union[Cat, Dog], {},  # noqa: UP007
     {"anyOf": [
         {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"],
          "additionalProperties": False},
         {"type": "object", "properties": {"name": {"type": "string"},
                                           "good": {"type": "boolean"}},
          "required": ["name", "good"], "additionalProperties": False}]}),
    ("O11 uniqueItems described", set[int], {},
     {"type": "array", "items": {"type": "integer"}, "description": "Items must be unique."}),
    ("O16 default dropped", int, {"default": 3}, {"type": "integer"}),
    ("O18 const kept", Literal["a"], {}, {"type": "string", "const": "a"}),
    ("O19 empty class", Empty, {},
     {"type": "object", "properties": {}, "required": [], "additionalProperties": False}),
]


@pytest.mark.parametrize(("tp", "options", "expected"), [c[1:] for c in OPENAI_BUILD],
                         ids=[c[0] for c in OPENAI_BUILD])
def test_openai_builds(tp: Any, options: dict[str, Any], expected: Any) -> None:
    """Each OpenAI rule shapes the field's schema as expected."""
    assert field(tp, OPENAI, **options) == expected


ANTHROPIC_BUILD = [
    ("A1 nested objects closed", Cat, {},
     {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"],
      "additionalProperties": False}),
    ("A4 formats kept", datetime.datetime, {}, {"type": "string", "format": "date-time"}),
    ("A5 numeric bounds described", int,
     {"validator": [attrs.validators.ge(0), attrs.validators.lt(10)]},
     {"type": "integer", "description": "Must be at least 0 and less than 10."}),
    ("A5 length bounds described", str,
     {"validator": [attrs.validators.min_len(2), attrs.validators.max_len(5)]},
     {"type": "string", "description": "Must have 2 to 5 characters."}),
    ("A5 minItems 1 kept", list[int], {"validator": attrs.validators.min_len(1)},
     {"type": "array", "items": {"type": "integer"}, "minItems": 1}),
    ("A5 minItems above 1 described", list[int], {"validator": attrs.validators.min_len(2)},
     {"type": "array", "items": {"type": "integer"}, "description": "Must have at least 2 items."}),
    ("A5 maxItems described", list[int], {"validator": attrs.validators.max_len(3)},
     {"type": "array", "items": {"type": "integer"}, "description": "Must have at most 3 items."}),
    ("A5 uniqueItems described", frozenset[str], {},
     {"type": "array", "items": {"type": "string"}, "description": "Items must be unique."}),
    ("A6 plain pattern kept", str, {"validator": attrs.validators.matches_re(r"[a-z]+")},
     {"type": "string", "pattern": "^(?:[a-z]+)$"}),
    ("A6 lookahead described", str, {"validator": attrs.validators.matches_re(r"(?=a)\w+")},
     {"type": "string",
      "description": "Must match the regular expression `^(?:(?=a)\\w+)$`."}),
    ("A7 nullable as anyOf", Optional[str], {},  # noqa: UP045
     {"anyOf": [{"type": "string"}, {"type": "null"}]}),
    ("A7 scalar union as anyOf", Union[int, str], {},  # noqa: UP007
     {"anyOf": [{"type": "integer"}, {"type": "string"}]}),
    ("A7 mixed literal without a type list", Literal["a", 1], {}, {"enum": ["a", 1]}),
    ("dict as entries", dict[str, bool], {},
     {"type": "array", "items": {"type": "object", "properties": {
         "key": {"type": "string"}, "value": {"type": "boolean"}},
         "required": ["key", "value"], "additionalProperties": False}}),
]


@pytest.mark.parametrize(("tp", "options", "expected"), [c[1:] for c in ANTHROPIC_BUILD],
                         ids=[c[0] for c in ANTHROPIC_BUILD])
def test_anthropic_builds(tp: Any, options: dict[str, Any], expected: Any) -> None:
    """Each Anthropic rule shapes the field's schema as expected."""
    assert field(tp, ANTHROPIC_TOOLS, **options) == expected
    assert field(tp, ANTHROPIC, **options) == expected


GEMINI_BUILD = [
    ("G2 minimum kept, exclusive bound described", int,
     {"validator": [attrs.validators.ge(0), attrs.validators.lt(10)]},
     {"type": "integer", "minimum": 0, "description": "Must be less than 10."}),
    ("G2 length bounds described", str, {"validator": attrs.validators.max_len(5)},
     {"type": "string", "description": "Must have at most 5 characters."}),
    ("G2 item bounds kept", list[int], {"validator": attrs.validators.min_len(3)},
     {"type": "array", "items": {"type": "integer"}, "minItems": 3}),
    ("G2 const becomes a one-value enum", Literal["a"], {}, {"type": "string", "enum": ["a"]}),
    ("G2 boolean enum described", Literal[True], {},
     {"type": "boolean", "description": "Must be true."}),
    ("G2 null leaves the enum", list[Optional[Literal["a", "b"]]], {},  # noqa: UP045
     {"type": "array", "items": {"anyOf": [{"type": "string", "enum": ["a", "b"]},
                                           {"type": "null"}]}}),
    ("G2 key enum as closed properties", dict[Literal["k1", "k2"], int], {},
     {"type": "object", "properties": {"k1": {"type": "integer"}, "k2": {"type": "integer"}},
      "additionalProperties": False}),
    ("G2 no default", int, {"default": 3}, {"type": "integer"}),
    ("G2 uniqueItems described", set[int], {},
     {"type": "array", "items": {"type": "integer"}, "description": "Items must be unique."}),
    ("G5 optional keeps its type", Optional[int], {}, {"type": "integer"}),  # noqa: UP045
]


@pytest.mark.parametrize(("tp", "options", "expected"), [c[1:] for c in GEMINI_BUILD],
                         ids=[c[0] for c in GEMINI_BUILD])
def test_gemini_builds(tp: Any, options: dict[str, Any], expected: Any) -> None:
    """Each Gemini rule shapes the field's schema as expected."""
    assert field(tp, GEMINI, **options) == expected


MCP_BUILD = [
    ("STANDARD bounds", int, {"validator": attrs.validators.ge(0)},
     {"type": "integer", "minimum": 0}),
    ("STANDARD uniqueItems", set[int], {},
     {"type": "array", "items": {"type": "integer"}, "uniqueItems": True}),
    ("STANDARD default", int, {"default": 3}, {"type": "integer", "default": 3}),
    ("STANDARD open map", dict[str, int], {},
     {"type": "object", "additionalProperties": {"type": "integer"}}),
]


@pytest.mark.parametrize(("tp", "options", "expected"), [c[1:] for c in MCP_BUILD],
                         ids=[c[0] for c in MCP_BUILD])
def test_mcp_builds(tp: Any, options: dict[str, Any], expected: Any) -> None:
    """MCP_TOOLS follows STANDARD inside the object root."""
    assert field(tp, MCP_TOOLS, **options) == expected


def build(obj: Any, adapter: Adapter) -> tuple[Any, str | None]:
    """The output, or the SchemaError's text."""
    try:
        return schema(obj, adapter), None
    except SchemaError as exc:
        return None, str(exc)


def errors(adapter: Adapter, obj: Any) -> str:
    with pytest.raises(SchemaError) as info:
        schema(obj, adapter)
    return str(info.value)


class TestBuildErrors:
    """A type a provider cannot take raises SchemaError saying why and what to do."""

    @pytest.mark.parametrize("adapter", [a for a in ALL if a is not STANDARD])
    def test_object_root(self, adapter: Adapter) -> None:
        """O1/A10/G8/M3: every provider adapter needs an object root."""
        assert "wrap the value in an attrs class or dataclass" in errors(adapter, list[int])

    @pytest.mark.parametrize("adapter", STRICT)
    def test_any_is_rejected_under_strict(self, adapter: Adapter) -> None:
        """O4: Any cannot be expressed under a strict adapter."""
        holder = attrs.make_class("HasAny", {"x": attrs.field(type=Any)})
        assert f"Any cannot be expressed under {adapter.name}" in errors(adapter, holder)

    @pytest.mark.parametrize("adapter", STRICT)
    def test_tuple_is_rejected_under_strict(self, adapter: Adapter) -> None:
        """prefixItems is not supported by strict adapters."""
        holder = attrs.make_class("HasTuple", {"x": attrs.field(type=tuple[int, str])})
        assert "fixed-length tuple" in errors(adapter, holder)

    @pytest.mark.parametrize("adapter", [ANTHROPIC_TOOLS, ANTHROPIC])
    def test_anthropic_recursion(self, adapter: Adapter) -> None:
        """A5: recursion is a SchemaError under Anthropic strict, with the fixes."""
        text = errors(adapter, Tree)
        assert "does not accept recursive schemas" in text
        assert "[recursion]" in text
        assert "replace(strict=False)" in text

    def test_gemini_recursion_in_required_property(self) -> None:
        """G3: a recursive reference in a required property is an error naming it."""
        text = errors(GEMINI, Tree)
        assert "the required property 'children'" in text
        assert "attrs.field(factory=list)" in text

    def test_gemini_recursion_in_optional_property(self) -> None:
        """G3: recursion through a property with a default is accepted."""
        body = schema(OptionalTree, GEMINI)["parameters_json_schema"]
        assert body["required"] == ["value"]
        assert body["properties"]["children"]["items"] == {"$ref": "#"}

    def test_openai_recursion(self) -> None:
        """O14: OpenAI accepts recursion through the root."""
        body = schema(Tree, OPENAI)["schema"]
        assert body["properties"]["children"]["items"] == {"$ref": "#"}

    @pytest.mark.parametrize(
        ("adapter", "name", "suggestion"),
        [(OPENAI, "my schema.v1", "my_schema_v1"), (OPENAI_CHAT_TOOLS, "a.b", "a_b"),
         (ANTHROPIC_TOOLS, "a.b", "a_b"), (GEMINI, "1st", "_1st"),
         (MCP_TOOLS, "list files", "list_files")],
    )
    def test_names(self, adapter: Adapter, name: str, suggestion: str) -> None:
        """O/A11/G7/M7: a name outside the pattern is an error proposing a valid one."""
        cls = attrs.make_class("Named", {"x": attrs.field(type=int)})
        annotate.register(cls, Annotation(name=name))
        text = errors(adapter, cls)
        assert f"Annotation(name={suggestion!r})" in text
        assert "[name]" in text

    @pytest.mark.parametrize(("adapter", "name"), [(GEMINI, "ns.tool:v1"),
                                                   (MCP_TOOLS, "admin.tools.list")])
    def test_names_with_dots(self, adapter: Adapter, name: str) -> None:
        """Gemini and MCP accept dotted names."""
        cls = attrs.make_class("Dotted", {"x": attrs.field(type=int)})
        annotate.register(cls, Annotation(name=name))
        assert schema(cls, adapter)["name"] == name

    def test_anthropic_output_format_has_no_name_rule(self) -> None:
        """ANTHROPIC's output format has no name, so any class name is fine."""
        cls = attrs.make_class("Named2", {"x": attrs.field(type=int)})
        annotate.register(cls, Annotation(name="not a valid.tool name"))
        assert schema(cls, ANTHROPIC)["type"] == "json_schema"


class TestLimits:
    """1d, A9: limits checked while building, with the figure in the message."""

    def test_properties(self) -> None:
        """More than 5,000 properties raises, naming the limit and the count."""
        big = attrs.make_class("Big", {f"p{i}": attrs.field(type=int) for i in range(5001)})
        text = errors(OPENAI, big)
        assert "5,001 object properties" in text
        assert "at most 5,000" in text

    def test_depth(self) -> None:
        """More than 10 levels of nesting raises; 10 are fine."""
        schema(nested(10), OPENAI)
        text = errors(OPENAI, nested(11))
        assert "11 levels" in text
        assert "at most 10" in text

    def test_enum_values(self) -> None:
        """More than 1,000 enum values raises."""
        big = enum.Enum("BigEnum", {f"m{i}": i for i in range(1001)})  # type: ignore[misc]
        holder = attrs.make_class("HasBigEnum", {"x": attrs.field(type=big)})
        assert "1,001 enum values" in errors(OPENAI, holder)

    def test_large_enum(self) -> None:
        """A string enum of more than 250 values longer than 15,000 characters raises."""
        big = enum.Enum("LongEnum", {f"m{i}": f"{i:060d}" for i in range(251)})  # type: ignore[misc]
        holder = attrs.make_class("HasLongEnum", {"x": attrs.field(type=big)})
        assert "15,000 characters" in errors(OPENAI, holder)

    def test_characters(self) -> None:
        """Names and values beyond 120,000 characters raise."""
        big = attrs.make_class("Wordy", {f"p{i:030d}": attrs.field(type=int)
                                         for i in range(4000)})
        assert "124,000 characters" in errors(OPENAI, big)

    def test_anthropic_union_budget(self) -> None:
        """A9: 17 nullable fields exceed Anthropic's 16 union-typed parameters; 16 fit."""
        ok = attrs.make_class("Sixteen", {f"p{i}": attrs.field(type=Optional[int])  # noqa: UP045
                                          for i in range(16)})
        schema(ok, ANTHROPIC_TOOLS)
        over = attrs.make_class("Seventeen", {f"p{i}": attrs.field(type=Optional[int])  # noqa: UP045
                                              for i in range(17)})
        text = errors(ANTHROPIC_TOOLS, over)
        assert "17 union-typed" in text
        assert "at most 16" in text

    def test_limits_are_explicit_data(self) -> None:
        """The figures live on the adapter and can be changed with replace()."""
        assert OPENAI.limits.max_properties == 5000
        assert ANTHROPIC_TOOLS.limits.max_strict_tools == 20
        tight = OPENAI.replace(limits=Limits(max_depth=2))
        assert "at most 2 levels" in errors(tight, nested(3))


class TestReferences:
    """O15/G3: a described $ref is inlined (or, when recursive, stands alone)."""

    @pytest.mark.parametrize("adapter", [OPENAI, ANTHROPIC_TOOLS, GEMINI])
    def test_described_reference_is_inlined(self, adapter: Adapter) -> None:
        """The field's description stays beside an inlined copy; undescribed uses keep $ref."""
        report: list[Rewrite] = []
        out = schema(Home, adapter, use_references=True, report=report)
        body = body_of(out, adapter)
        address = body["properties"]["address"]
        assert "$ref" not in address
        assert address["description"] == "Where they live"
        assert address["properties"] == {"city": {"type": "string"}}
        assert body["properties"]["work"] == {"$ref": "#/$defs/Address"}
        assert body["$defs"]["Address"]["description"] == "A postal address."
        assert Rewrite("/properties/address", "inlined",
                       f"$ref to Address inlined to keep the description beside it "
                       f"({adapter.name} takes no keywords beside $ref)") in report

    def test_unused_definitions_are_left_out(self) -> None:
        """A definition every use of which was inlined is not emitted."""
        @attrs.define
        class OnlyDescribed:
            address: Annotated[Address, Annotation(description="Where")]

        body = schema(OnlyDescribed, OPENAI, use_references=True)["schema"]
        assert "$defs" not in body

    def test_standard_keeps_description_beside_ref(self) -> None:
        """STANDARD and MCP keep the description beside the $ref."""
        for adapter in (STANDARD, MCP_TOOLS):
            body = body_of(schema(Home, adapter, use_references=True), adapter)
            assert body["properties"]["address"] == {"$ref": "#/$defs/Address",
                                                     "description": "Where they live"}

    def test_nullable_recursive_reference_keeps_description(self) -> None:
        """A described nullable recursive reference carries the description on its anyOf."""
        body = schema(DescribedTree, OPENAI)["schema"]
        assert body["properties"]["parent"] == {
            "anyOf": [{"$ref": "#"}, {"type": "null"}], "description": "Up"}

    def test_recursive_described_reference(self) -> None:
        """A described reference to a recursive class keeps $ref alone; the drop is reported."""
        report: list[Rewrite] = []
        out = schema(Chapter, OPENAI, report=report)
        body = out["schema"]
        assert body["properties"]["book"] == {"$ref": "#/$defs/Book"}
        assert Rewrite("/properties/book", "dropped",
                       "description 'The book it belongs to' beside $ref to a recursive class "
                       "(the referenced definition keeps its own)") in report
        assert check(out, OPENAI) == []


@attrs.define
class Book:
    """A book."""

    chapters: list[Chapter]


@attrs.define
class Chapter:
    title: str
    book: Annotated[Book, Annotation(description="The book it belongs to")]


class TestStrictness:
    """Strictness is explicit: a non-strict variant is one replace() away."""

    def test_openai_non_strict(self) -> None:
        """Non-strict OpenAI: optional fields out of required, no closed objects, strict false."""
        loose = OPENAI_TOOLS.replace(strict=False)
        out = schema(Weather, loose)
        assert out["strict"] is False
        assert out["parameters"] == {
            "type": "object",
            "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
            "required": ["city"],
        }
        assert check(out, loose) == []

    def test_non_strict_allows_what_strict_cannot(self) -> None:
        """Non-strict OpenAI takes open maps, tuples and Any; Anthropic non-strict takes
        recursion."""
        holder = attrs.make_class("Loose", {"m": attrs.field(type=dict[str, int]),
                                            "t": attrs.field(type=tuple[int, str]),
                                            "a": attrs.field(type=Any)})
        body = schema(holder, OPENAI_CHAT_TOOLS.replace(strict=False))["function"]["parameters"]
        assert body["properties"]["m"] == {"type": "object",
                                           "additionalProperties": {"type": "integer"}}
        assert body["properties"]["a"] == {}
        out = schema(Tree, ANTHROPIC_TOOLS.replace(strict=False))
        assert out["strict"] is False
        assert out["input_schema"]["properties"]["children"]["items"] == {"$ref": "#"}

    def test_back_to_strict(self) -> None:
        """Switching strict back on restores the strict choices."""
        again = OPENAI_TOOLS.replace(strict=False).replace(strict=True)
        assert schema(Weather, again) == schema(Weather, OPENAI_TOOLS)

    def test_explicit_choice_wins(self) -> None:
        """A choice given together with strict is kept."""
        loose = OPENAI.replace(strict=False, nullable_optionals=True)
        props = schema(Weather, loose)["schema"]["properties"]
        assert props["days"]["type"] == ["integer", "null"]

    @pytest.mark.parametrize("adapter", STRICT)
    def test_every_object_closed_and_required(self, adapter: Adapter) -> None:
        """In every strict adapter each object is closed and lists all its properties."""
        @attrs.define
        class Outer:
            a: Cat
            b: list[Dog]
            c: Optional[Cat] = None  # noqa: UP045
            d: dict[str, Cat] = attrs.field(factory=dict)

        body = body_of(schema(Outer, adapter), adapter)
        objects = [o for o in _all_subschemas(body) if o.get("type") == "object"]
        assert len(objects) == 6
        for o in objects:
            assert o["additionalProperties"] is False
            assert o["required"] == list(o["properties"])


def _all_subschemas(node: Any) -> list[Any]:
    found = []
    if isinstance(node, dict):
        found.append(node)
        for value in node.values():
            found.extend(_all_subschemas(value))
    elif isinstance(node, list):
        for value in node:
            found.extend(_all_subschemas(value))
    return found


class TestExplain:
    def test_explain_lists_rewrites(self) -> None:
        """explain() lists every lossy change with its pointer, as report= does."""
        @attrs.define
        class Form:
            age: int = attrs.field(validator=attrs.validators.ge(0))
            tags: set[str] = attrs.field(factory=set)
            extra: dict[str, int] = attrs.field(factory=dict)

        rewrites = explain(Form, ANTHROPIC_TOOLS)
        report: list[Rewrite] = []
        schema(Form, ANTHROPIC_TOOLS, report=report)
        assert rewrites == report
        assert rewrites == [
            Rewrite("/properties/age", "described", "minimum: 0"),
            Rewrite("/properties/tags", "described", "uniqueItems"),
            Rewrite("/properties/tags", "dropped", "default []"),
            Rewrite("/properties/extra", "rewritten", "dict as an array of {key, value} objects"),
            Rewrite("/properties/extra", "dropped", "default {}"),
        ]

    def test_nothing_to_explain(self) -> None:
        """A schema the provider takes as is has no rewrites."""
        assert explain(Weather, STANDARD) == []
        assert explain(Cat, OPENAI) == []

    def test_explain_wants_an_adapter(self) -> None:
        """explain() names a wrong adapter argument."""
        with pytest.raises(SchemaError, match="must be an Adapter"):
            explain(Weather, "OPENAI")  # type: ignore[arg-type]

    @settings(max_examples=40)
    @given(classes(more_types=True))
    def test_rewrite_pointers_resolve(self, drawn: Any) -> None:
        """Every rewrite's pointer names a place that exists in the body."""
        cls, _ = drawn
        for adapter in (OPENAI, ANTHROPIC_TOOLS, GEMINI):
            try:
                out = schema(cls, adapter)
            except SchemaError:
                continue
            body = body_of(out, adapter)
            for rewrite in explain(cls, adapter):
                node = body
                for token in rewrite.pointer.strip("/").split("/") if rewrite.pointer != "/" \
                        else []:
                    token = token.replace("~1", "/").replace("~0", "~")
                    node = node[int(token)] if isinstance(node, list) else node[token]


class TestGeneratedClasses:
    @settings(max_examples=60)
    @given(classes(more_types=True))
    def test_every_adapter_output_passes_its_rules(self, drawn: Any) -> None:
        """For random class trees each adapter's output is valid JSON Schema and passes
        its own provider's check (or the build raises SchemaError)."""
        cls, _ = drawn
        for adapter in ALL:
            out, error = build(cls, adapter)
            if error is not None:
                # The only reason a generated class fails: a provider's size limits or
                # budgets (deeply nested maps, many nullable fields).
                assert adapter in STRICT, error
                assert "[limit." in error
                continue
            assert check(out, adapter) == []
            jsonschema.Draft202012Validator.check_schema(body_of(out, adapter))


class TestCustomAdapter:
    """docs/adapters.md: a portable strict adapter every provider accepts."""

    def portable(self) -> Adapter:
        """The PORTABLE adapter, built by running the example in docs/adapters.md."""
        from pathlib import Path

        docs = (Path(__file__).parent.parent / "docs" / "adapters.md").read_text()
        blocks = re.findall(r"```python\n(.*?)```", docs, flags=re.DOTALL)
        [example] = [b for b in blocks if "PORTABLE = Adapter(" in b]
        namespace: dict[str, Any] = {}
        exec(compile(example, "docs/adapters.md", "exec"), namespace)
        portable = namespace["PORTABLE"]
        assert isinstance(portable, Adapter)
        return portable

    def test_portable_is_strict_everywhere(self) -> None:
        """The example closes objects, requires every field and refuses what any provider
        refuses."""
        portable = self.portable()
        assert repr(portable) == "PORTABLE"
        out = schema(Weather, portable)
        assert out["function"]["parameters"] == TestShapes.BODY_ANTHROPIC
        assert out["function"]["strict"] is True

    @settings(max_examples=40)
    @given(classes(more_types=True))
    def test_portable_output_passes_every_provider(self, drawn: Any) -> None:
        """The portable adapter's body passes OpenAI, Anthropic and Gemini checks."""
        cls, _ = drawn
        out, error = build(cls, self.portable())
        if error is not None:
            assert "[limit." in error
            return
        body = out["function"]["parameters"]
        for adapter in (OPENAI, ANTHROPIC_TOOLS, GEMINI, MCP_TOOLS):
            assert check(body, adapter) == []
        assert re.fullmatch(r"[a-zA-Z_][a-zA-Z0-9_-]{0,63}", out["function"]["name"])

    def test_portable_rejects_recursion(self) -> None:
        """The portable adapter refuses what Anthropic refuses."""
        with pytest.raises(SchemaError, match="recursive"):
            schema(Tree, self.portable())


def test_adapters_module_exports() -> None:
    """Every public adapter name is listed in __all__ of adapters and the package."""
    import describedtypes

    for name in ("OPENAI_CHAT_TOOLS", "ANTHROPIC_TOOLS", "ANTHROPIC", "GEMINI", "MCP_TOOLS"):
        assert name in adapters_module.__all__
        assert name in describedtypes.__all__
    for name in ("check", "check_request", "explain", "Problem"):
        assert name in describedtypes.__all__

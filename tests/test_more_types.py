"""Decimal, TypedDict, NamedTuple, annotated-types bounds, Doc, InitVar and Flag (SPEC 8):
the schema under every adapter, decode, encode, and the refusals."""

from __future__ import annotations

import dataclasses
import decimal
import enum
import sys
from decimal import Decimal
from typing import Annotated, Any, Generic, NamedTuple, TypeVar

import annotated_types as at
import attrs
import jsonschema
import orjson
import pytest
import typing_extensions
from hypothesis import given
from hypothesis import strategies as st
from typing_extensions import Doc, NotRequired, Required, TypedDict

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
    DecodeError,
    SchemaError,
    Toolbox,
    check,
    decode,
    decode_arguments,
    encode,
    schema,
)
from describedtypes._schema.document import document

from .runtime.isolated import run_isolated

ALL = [STANDARD, OPENAI, OPENAI_TOOLS, OPENAI_CHAT_TOOLS, ANTHROPIC_TOOLS, ANTHROPIC, GEMINI,
       MCP_TOOLS]
DECIMAL_PATTERN = r"^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?$"
T = TypeVar("T")


def body(tp: Any, adapter: Adapter = STANDARD) -> Any:
    return document(schema(tp, adapter), adapter).body


def prop(tp: Any, adapter: Adapter = STANDARD) -> Any:
    """The schema of the one field ``x`` of a class holding ``tp``."""
    holder = attrs.make_class("Holder", {"x": attrs.field(type=tp)})
    return body(holder, adapter)["properties"]["x"]


def errors(tp: Any, data: Any) -> list[tuple[str, str]]:
    with pytest.raises(DecodeError) as info:
        decode(tp, data)
    return info.value.errors


# -- Decimal ---------------------------------------------------------------------------


@attrs.define
class Price:
    price: Decimal


def test_decimal_from_a_json_number_is_exact() -> None:
    assert decode(Price, '{"price": 0.1}').price == Decimal("0.1")
    assert decode(Price, b'{"price": 1e-7}').price == Decimal("1e-7")
    big = "12345678901234567890.123456789"
    assert decode(Price, f'{{"price": {big}}}').price == Decimal(big)
    assert decode(Price, '{"price": 123456789012345678901234567890}').price == Decimal(
        "123456789012345678901234567890"
    )
    # A fenced reply is read exactly too.
    assert decode(Price, f'```json\n{{"price": {big}}}\n```').price == Decimal(big)


def test_decimal_from_a_string_is_exact() -> None:
    big = "12345678901234567890.123456789"
    assert decode(Price, f'{{"price": "{big}"}}').price == Decimal(big)
    assert str(decode(Price, '{"price": "-0.50"}').price) == "-0.50"
    # Parsed input: a float by its shortest repr, the Decimal itself as it is.
    assert decode(Price, {"price": 0.1}).price == Decimal("0.1")
    assert decode(Price, {"price": Decimal(big)}).price == Decimal(big)


@pytest.mark.parametrize(
    "bad",
    ['"1e3"', '"+1"', '"01"', '" 1"', '"1."', '"NaN"', '"Infinity"', "true", "null", "[1]",
     '"' + "1" * 1001 + '"'],
)
def test_decimal_rejects_what_is_not_a_plain_numeral(bad: str) -> None:
    [(path, message)] = errors(Price, f'{{"price": {bad}}}')
    assert path == "$.price"
    assert message.startswith("expected a decimal number as a string of digits")


def test_decimal_encodes_every_digit_as_a_string() -> None:
    big = Decimal("12345678901234567890.123456789")
    assert encode(Price(big)) == b'{"price":"12345678901234567890.123456789"}'
    assert encode(Price(Decimal("1E+3"))) == b'{"price":"1000"}'
    assert encode(Decimal("0.10")) == b'"0.10"'
    with pytest.raises(ValueError, match="NaN or Infinity"):
        encode(Price(Decimal("NaN")))


@pytest.mark.parametrize("adapter", ALL, ids=lambda a: a.name)
def test_decimal_is_a_string_with_a_pattern_under_every_adapter(adapter: Adapter) -> None:
    out = prop(Annotated[Decimal, at.Ge(0), at.Lt(Decimal("1000.5"))], adapter)
    assert out["type"] == "string"
    # Bounds on a string would mean nothing: they are said in words everywhere.
    for key in ("minimum", "exclusiveMaximum", "maximum", "exclusiveMinimum"):
        assert key not in out
    assert "Must be at least 0 and less than 1000.5." in out["description"]
    if "pattern" in adapter.keywords:
        assert out["pattern"] == DECIMAL_PATTERN
    else:  # Gemini: the pattern is in the description
        assert DECIMAL_PATTERN in out["description"]
    assert check(schema(attrs.make_class("H", {"x": attrs.field(type=Decimal)}), adapter),
                 adapter) == []


def test_decimal_bounds_are_enforced_exactly() -> None:
    @attrs.define
    class Pay:
        amount: Annotated[Decimal, at.Gt(0), at.Le(Decimal("0.3")), at.MultipleOf(Decimal("0.1"))]

    assert decode(Pay, '{"amount": "0.3"}').amount == Decimal("0.3")
    assert decode(Pay, '{"amount": 0.1}').amount == Decimal("0.1")
    assert errors(Pay, '{"amount": "0.30000000000000001"}') == [
        ("$.amount", "must be at most 0.3, got 0.30000000000000001"),
        ("$.amount", "must be a multiple of 0.1, got 0.30000000000000001"),
    ]
    assert [m for _, m in errors(Pay, '{"amount": "0.25"}')] == [
        "must be a multiple of 0.1, got 0.25"
    ]
    assert [m for _, m in errors(Pay, '{"amount": "0"}')] == ["must be greater than 0, got 0"]


def test_decimal_in_unions_and_function_arguments() -> None:
    assert decode(Decimal | None, '"2.5"') == Decimal("2.5")
    assert decode(Decimal | None, "null") is None
    assert decode(int | Decimal, "3") == 3  # an integer prefers int
    assert decode(int | Decimal, '"3"') == Decimal(3)

    def pay(amount: Decimal, note: str = "") -> str:
        return f"{amount}"

    big = "98765432109876543210.0123456789"
    assert decode_arguments(pay, f'{{"amount": {big}}}') == {"amount": Decimal(big)}
    assert decode_arguments(pay, {"amount": "1.10"}) == {"amount": Decimal("1.10")}
    box = Toolbox()
    box.tool(pay)
    result = box.call("pay", f'{{"amount": {big}}}')
    assert not result.is_error
    assert result.content == big


@given(st.decimals(allow_nan=False, allow_infinity=False))
def test_any_finite_decimal_round_trips_and_validates(value: Decimal) -> None:
    raw = encode(Price(value))
    back = decode(Price, raw).price
    assert back == value
    assert not value.is_signed() or back.is_signed() or value == 0
    jsonschema.validate(orjson.loads(raw), schema(Price))


# -- TypedDict -------------------------------------------------------------------------


class Cast(TypedDict):
    """Who plays whom."""

    actor: str
    role: NotRequired[str]


class Movie(TypedDict, total=False):
    title: Required[str]
    year: int
    cast: list[Cast]


class Box(TypedDict, Generic[T]):
    item: T
    label: NotRequired[Annotated[str, Doc("What is in the box.")]]


def test_typeddict_schema_marks_required_and_optional_keys() -> None:
    out = body(Movie)
    assert out["required"] == ["title"]
    assert list(out["properties"]) == ["title", "year", "cast"]
    cast = out["properties"]["cast"]["items"]
    assert cast["required"] == ["actor"]
    assert cast["description"] == "Who plays whom."


def test_typeddict_decodes_into_a_dict_with_only_the_keys_sent() -> None:
    movie = decode(Movie, '{"title": "Heat", "cast": [{"actor": "Pacino"}]}')
    assert movie == {"title": "Heat", "cast": [{"actor": "Pacino"}]}
    assert type(movie) is dict
    assert decode(Movie, {"title": "Heat", "year": 1995}) == {"title": "Heat", "year": 1995}


def test_typeddict_problems_name_the_path() -> None:
    assert errors(Movie, '{"year": "1995", "cast": [{"role": "x"}], "extra": 1}') == [
        ("$.title", "missing required field"),
        ("$.year", 'expected integer, got string "1995"'),
        ("$.cast[0].actor", "missing required field"),
        ("$.extra", "unknown field (accepted fields: title, year, cast)"),
    ]


def test_generic_typeddict() -> None:
    out = body(Box[int])
    assert out["properties"]["item"] == {"type": "integer"}
    assert out["properties"]["label"]["description"] == "What is in the box."
    assert decode(Box[int], '{"item": 3}') == {"item": 3}
    assert errors(Box[int], '{"item": "3"}') == [("$.item", 'expected integer, got string "3"')]


@pytest.mark.parametrize("adapter", ALL, ids=lambda a: a.name)
def test_typeddict_under_every_adapter(adapter: Adapter) -> None:
    out = schema(Movie, adapter)
    assert check(out, adapter) == []
    props = body(Movie, adapter)["properties"]
    assert set(props) == {"title", "year", "cast"}


def test_typeddict_encodes_the_keys_it_has() -> None:
    @attrs.define
    class Shelf:
        movies: list[Movie]

    shelf = Shelf([{"title": "Heat"}, {"title": "Ran", "year": 1985}])
    raw = encode(shelf)
    assert raw == b'{"movies":[{"title":"Heat"},{"title":"Ran","year":1985}]}'
    assert decode(Shelf, raw) == shelf


if sys.version_info >= (3, 11):
    import typing

    class TypingTypedDict(typing.TypedDict):
        a: typing.NotRequired[int]


# -- NamedTuple ------------------------------------------------------------------------


class Point(NamedTuple):
    """A point on the map."""

    x: float
    y: float = 0.0
    label: str | None = None


class Plain(NamedTuple):
    a: int


def test_namedtuple_is_an_object_of_named_properties() -> None:
    assert body(Point) == {
        "type": "object",
        "properties": {
            "x": {"type": "number"},
            "y": {"type": "number", "default": 0.0},
            "label": {"type": "string"},
        },
        "required": ["x"],
        "description": "A point on the map.",
    }
    # The docstring namedtuple writes for itself ("Plain(a)") is not a description.
    assert "description" not in schema(Plain)


def test_namedtuple_decodes_into_the_namedtuple() -> None:
    p = decode(Point, '{"x": 1, "label": "home"}')
    assert p == Point(1.0, 0.0, "home")
    assert type(p) is Point
    assert encode(p) == b'{"x":1.0,"y":0.0,"label":"home"}'
    assert decode(list[Point], encode([Point(1, 2)])) == [Point(1, 2)]
    assert errors(Point, "[1, 2]") == [("$", "expected object, got array")]


@pytest.mark.parametrize("adapter", ALL, ids=lambda a: a.name)
def test_namedtuple_under_every_adapter(adapter: Adapter) -> None:
    assert check(schema(Point, adapter), adapter) == []


# -- annotated-types and Doc -----------------------------------------------------------


@pytest.mark.parametrize(
    ("tp", "keywords"),
    [
        (Annotated[int, at.Ge(1)], {"minimum": 1}),
        (Annotated[int, at.Gt(1)], {"exclusiveMinimum": 1}),
        (Annotated[float, at.Le(2.5)], {"maximum": 2.5}),
        (Annotated[float, at.Lt(2.5)], {"exclusiveMaximum": 2.5}),
        (Annotated[int, at.MultipleOf(5)], {"multipleOf": 5}),
        (Annotated[int, at.Interval(ge=0, lt=10)], {"minimum": 0, "exclusiveMaximum": 10}),
        (Annotated[str, at.MinLen(2)], {"minLength": 2}),
        (Annotated[str, at.MaxLen(4)], {"maxLength": 4}),
        (Annotated[str, at.Len(1, 3)], {"minLength": 1, "maxLength": 3}),
        (Annotated[list[int], at.Len(1, 3)], {"minItems": 1, "maxItems": 3}),
        (Annotated[int, Doc("How many.")], {"description": "How many."}),
        (Annotated[int, at.Ge(0)] | None, {"minimum": 0}),
        (Annotated[int | None, at.Ge(0)], {"minimum": 0}),
    ],
)
def test_annotated_types_become_keywords_under_standard(tp: Any, keywords: dict[str, Any]) -> None:
    out = prop(tp)
    assert {k: out[k] for k in keywords} == keywords
    assert jsonschema.Draft202012Validator.check_schema(out) is None


def test_annotated_types_under_the_providers() -> None:
    tp = Annotated[int, at.Ge(0), at.MultipleOf(5)]
    assert prop(tp, OPENAI) == {"type": "integer", "minimum": 0, "multipleOf": 5}
    assert prop(tp, ANTHROPIC) == {
        "type": "integer", "description": "Must be at least 0 and a multiple of 5."
    }
    assert prop(tp, GEMINI) == {
        "type": "integer", "minimum": 0, "description": "Must be a multiple of 5."
    }
    assert prop(Annotated[str, at.Len(1, 3)], ANTHROPIC_TOOLS) == {
        "type": "string", "description": "Must have 1 to 3 characters."
    }


@pytest.mark.parametrize(
    ("tp", "good", "bad", "message"),
    [
        (Annotated[int, at.Ge(1)], 1, 0, "must be at least 1, got 0"),
        (Annotated[int, at.Gt(1)], 2, 1, "must be greater than 1, got 1"),
        (Annotated[float, at.Le(2.5)], 2.5, 2.6, "must be at most 2.5, got 2.6"),
        (Annotated[float, at.Lt(2.5)], 2.4, 2.5, "must be less than 2.5, got 2.5"),
        (Annotated[int, at.MultipleOf(5)], 10, 12, "must be a multiple of 5, got 12"),
        (Annotated[float, at.MultipleOf(0.1)], 0.3, 0.35, "must be a multiple of 0.1, got 0.35"),
        (Annotated[int, at.Interval(gt=0, le=3)], 3, 4, "must be at most 3, got 4"),
        (Annotated[str, at.MinLen(2)], "ab", "a", "must have at least 2 characters, got 1"),
        (Annotated[str, at.MaxLen(1)], "a", "ab", "must have at most 1 characters, got 2"),
        (Annotated[list[int], at.Len(1, 2)], [1], [], "must have at least 1 items, got 0"),
    ],
)
def test_decode_enforces_annotated_types(tp: Any, good: Any, bad: Any, message: str) -> None:
    assert decode(tp, orjson.dumps(good)) == good
    assert errors(tp, orjson.dumps(bad)) == [("$", message)]


@pytest.mark.parametrize(
    ("tp", "message"),
    [
        (Annotated[str, at.Ge(1)], "Ge(1) bounds a number, but the type here is str (string)"),
        (Annotated[int, at.MinLen(1)], "MinLen(1) bounds a length, but the type here is int"),
        (Annotated[dict[str, int], at.MaxLen(2)], "MaxLen(2) bounds a length, but the type here "
                                                  "is a dict"),
        (Annotated[bool, at.Gt(0)], "Gt(0) bounds a number, but the type here is bool"),
        (Annotated[int, at.MultipleOf(0)], "MultipleOf(0): the bound must be a finite int, "
                                           "float or Decimal greater than 0"),
        (Annotated[float, at.Ge(float("nan"))], "Ge(nan): the bound must be a finite"),
        (Annotated[int, at.Ge("1")], "Ge('1'): the bound must be a finite"),
    ],
)
def test_bounds_that_cannot_apply_are_refused(tp: Any, message: str) -> None:
    with pytest.raises(SchemaError, match="^" + _escape(message)):
        schema(tp)


def _escape(text: str) -> str:
    import re

    return re.escape(text)


def test_unknown_metadata_is_ignored() -> None:
    assert schema(Annotated[int, at.Predicate(str.isdigit), "a note"]) == {"type": "integer"}


def test_without_annotated_types_installed() -> None:
    out = run_isolated(
        """
        import sys
        sys.modules["annotated_types"] = None  # made unimportable
        from typing import Annotated
        from typing_extensions import Doc
        from describedtypes import decode, schema
        print(schema(Annotated[int, Doc("How many."), "note"]))
        print(decode(Annotated[int, "note"], "3"))
        """
    )
    assert out.splitlines() == ["{'type': 'integer', 'description': 'How many.'}", "3"]


def test_doc_describes_fields_and_parameters() -> None:
    @dataclasses.dataclass
    class Order:
        qty: Annotated[int, Doc("How many to buy.")]

    def buy(qty: Annotated[int, Doc("How many to buy."), at.Gt(0)]) -> None:
        """Buy."""

    assert body(Order)["properties"]["qty"] == {"type": "integer",
                                                "description": "How many to buy."}
    assert schema(buy, MCP_TOOLS)["inputSchema"]["properties"]["qty"] == {
        "type": "integer", "exclusiveMinimum": 0, "description": "How many to buy."
    }


# -- InitVar ---------------------------------------------------------------------------


@dataclasses.dataclass
class Scaled:
    base: float
    factor: dataclasses.InitVar[float]
    offset: dataclasses.InitVar[float] = 0.0
    value: float = dataclasses.field(init=False)

    def __post_init__(self, factor: float, offset: float) -> None:
        self.value = self.base * factor + offset
        self.factor = factor


def test_initvar_is_described_and_passed_to_init() -> None:
    out = body(Scaled)
    assert list(out["properties"]) == ["base", "factor", "offset"]
    assert out["required"] == ["base", "factor"]
    s = decode(Scaled, '{"base": 2, "factor": 3}')
    assert s.value == 6.0
    assert errors(Scaled, '{"base": 2}') == [("$.factor", "missing required field")]


def test_initvar_is_encoded_from_the_attribute_the_instance_keeps() -> None:
    s = Scaled(2.0, 3.0)
    s.offset = 1.0  # type: ignore[misc]
    assert encode(s) == b'{"base":2.0,"factor":3.0,"offset":1.0}'
    assert decode(Scaled, encode(s)) == Scaled(2.0, 3.0, 1.0)
    # Not kept: its value is gone, even where the class has a default for it.
    with pytest.raises(TypeError, match="the InitVar 'offset' is passed to __init__"):
        encode(Scaled(2.0, 3.0))

    @dataclasses.dataclass
    class Lost:
        secret: dataclasses.InitVar[str]

        def __post_init__(self, secret: str) -> None:
            pass

    with pytest.raises(TypeError, match="the InitVar 'secret' is passed to __init__ and not kept"):
        encode(Lost("x"))


@pytest.mark.parametrize("adapter", ALL, ids=lambda a: a.name)
def test_initvar_under_every_adapter(adapter: Adapter) -> None:
    assert check(schema(Scaled, adapter), adapter) == []
    assert "factor" in body(Scaled, adapter)["properties"]


# -- Flag / IntFlag --------------------------------------------------------------------


class Perm(enum.Flag):
    READ = 1
    WRITE = 2
    EXEC = 4
    RW = READ | WRITE  # a named combination: not one of the names the model picks


class Mode(enum.IntFlag):
    A = 1
    B = 8


NO_MODE = Mode(0)


@attrs.define
class File:
    perm: Perm
    mode: Mode = NO_MODE


def test_flag_is_an_array_of_member_names() -> None:
    assert body(File)["properties"] == {
        "perm": {"type": "array", "items": {"type": "string", "enum": ["READ", "WRITE", "EXEC"]},
                 "uniqueItems": True},
        "mode": {"type": "array", "items": {"type": "string", "enum": ["A", "B"]},
                 "uniqueItems": True, "default": []},
    }


def test_flag_combinations_round_trip() -> None:
    f = File(Perm.READ | Perm.EXEC, Mode.A | Mode.B)
    raw = encode(f)
    assert raw == b'{"perm":["READ","EXEC"],"mode":["A","B"]}'
    assert decode(File, raw) == f
    assert decode(File, '{"perm": []}') == File(Perm(0))
    assert decode(File, '{"perm": ["WRITE", "READ"]}').perm is Perm.RW
    assert encode(Perm.RW) == b'["READ","WRITE"]'
    assert decode(Perm, encode(Perm.RW)) is Perm.RW


def test_flag_problems() -> None:
    assert errors(File, '{"perm": ["READ", "READ"]}') == [("$.perm", "the items must be unique")]
    assert errors(File, '{"perm": ["RW"]}') == [
        ("$.perm[0]", "'RW' is not one of ['READ', 'WRITE', 'EXEC']")
    ]
    assert errors(File, '{"perm": 3}') == [("$.perm", "expected array, got integer 3")]


def test_flag_with_stray_bits_cannot_be_encoded() -> None:
    class Loose(enum.IntFlag):
        A = 1

    # IntFlag keeps bits no member stands for (3.11+: boundary KEEP; 3.10: always).
    with pytest.raises(ValueError, match="has bits no single member"):
        encode(Loose(3))


def test_flag_without_single_bit_members_is_refused() -> None:
    class Empty(enum.Flag):
        NONE = 0

    with pytest.raises(SchemaError, match="has no single-bit members"):
        schema(Empty)


@pytest.mark.parametrize("adapter", ALL, ids=lambda a: a.name)
def test_flag_under_every_adapter(adapter: Adapter) -> None:
    assert check(schema(File, adapter), adapter) == []


@given(st.lists(st.sampled_from([Perm.READ, Perm.WRITE, Perm.EXEC])))
def test_every_flag_combination_round_trips(chosen: list[Perm]) -> None:
    value = Perm(0)
    for member in chosen:
        value |= member
    raw = encode(File(value))
    assert decode(File, raw) == File(value)
    jsonschema.validate(orjson.loads(raw), schema(File))


# -- all of them at once, under every adapter ------------------------------------------


@dataclasses.dataclass
class Everything:
    price: Annotated[Decimal, at.Ge(0), Doc("The price.")]
    movie: Movie
    where: Point
    perm: Perm
    count: Annotated[int, at.Interval(ge=1, le=9), at.MultipleOf(2)]
    scale: dataclasses.InitVar[int]
    tags: Annotated[list[Annotated[str, at.MinLen(1)]], at.MaxLen(3)] = dataclasses.field(
        default_factory=list
    )

    def __post_init__(self, scale: int) -> None:
        self.scale = scale


@pytest.mark.parametrize("adapter", ALL, ids=lambda a: a.name)
def test_everything_builds_and_checks_under_every_adapter(adapter: Adapter) -> None:
    out = schema(Everything, adapter)
    assert check(out, adapter) == []
    value = Everything(Decimal("19.99"), {"title": "Heat"}, Point(1.0), Perm.READ, 4, 2, ["a"])
    assert decode(Everything, encode(value)) == value


def test_typing_extensions_module_is_what_users_import() -> None:
    # Required/NotRequired from typing (3.11+) and typing_extensions both work.
    if sys.version_info >= (3, 11):
        assert "required" not in body(TypingTypedDict)
    assert typing_extensions.NotRequired is NotRequired
    assert isinstance(decimal.Decimal("1"), Decimal)


def test_decimal_work_is_bounded() -> None:
    assert errors(Price, {"price": Decimal("1E+2000")}) == [
        ("$.price", "the number 1E+2000 is out of range; send a decimal number between -1e1000 "
                    "and 1e1000"),
    ]

    @attrs.define
    class Deep:
        price: Decimal
        rest: Any = None

    # Deeper than the standard parser's recursion allows, within orjson's limit: the
    # exact re-parse gives way to orjson's result instead of raising RecursionError.
    nested = "[" * 1000 + "]" * 1000
    out = decode(Deep, '{"price": "1.5", "rest": %s}' % nested)  # noqa: UP031
    assert out.price == Decimal("1.5")


def test_decode_arguments_reads_a_registry_of_its_own() -> None:
    from describedtypes import Annotation, Registry

    def lookup(city: str) -> str:
        return city

    renamed = Registry()
    renamed.register(lookup, Annotation(parameters={"city": Annotation(name="town")}))
    assert decode_arguments(lookup, '{"town": "Oslo"}', registry=renamed) == {"city": "Oslo"}
    assert decode_arguments(lookup, '{"city": "Oslo"}') == {"city": "Oslo"}
    with pytest.raises(TypeError, match="registry must be a Registry"):
        decode_arguments(lookup, "{}", registry="annotate")  # type: ignore[arg-type]
    with pytest.raises(SchemaError, match="decodes a function's arguments"):
        decode_arguments(Price, "{}")

"""decode() and encode(): the rules schema() states, applied to replies."""

from __future__ import annotations

import dataclasses
import datetime
import enum
import uuid
from typing import Annotated, Any, Generic, Literal, Optional, TypeVar, Union

import attrs
import cattrs
import orjson
import pytest

import describedtypes
from describedtypes import (
    OPENAI,
    Annotation,
    DecodeError,
    SchemaError,
    annotate,
    decode,
    encode,
    schema,
)

T = TypeVar("T")


class Unit(enum.Enum):
    CELSIUS = "celsius"
    FAHRENHEIT = "fahrenheit"


class Priority(enum.IntEnum):
    LOW = 1
    HIGH = 2


@attrs.define
class Weather:
    location: str
    temperature: float
    unit: Unit


@attrs.define
class Address:
    street: str
    city: str


@attrs.define
class Person:
    name: str
    age: int
    address: Address
    nickname: Optional[str] = None  # noqa: UP045 - the spelling under test
    tags: list[str] = attrs.Factory(list)


@attrs.define
class Box(Generic[T]):
    item: T
    extras: list[T] = attrs.Factory(list)


@attrs.define
class Tree:
    value: int
    children: list[Tree] = attrs.Factory(list)


@attrs.define
class Cat:
    kind: Literal["cat"]
    lives: int


@attrs.define
class Dog:
    kind: Literal["dog"]
    good: bool


@attrs.define
class Pets:
    pets: list[Union[Cat, Dog]]  # noqa: UP007


@attrs.define
class Circle:
    radius: float


@attrs.define
class Square:
    side: float
    label: str = ""


@attrs.define
class Drawing:
    shape: Union[Circle, Square, None]  # noqa: UP007


def test_weather_reply_decodes_into_the_class() -> None:
    """The seed example decodes, the enum read by value and an int accepted as a float."""
    w = decode(Weather, '{"location": "Oslo", "temperature": 21, "unit": "celsius"}')
    assert w == Weather("Oslo", 21.0, Unit.CELSIUS)
    assert type(w.temperature) is float


def test_nested_classes_optional_fields_and_defaults() -> None:
    """Absent optional fields become None or their default; null is accepted for them."""
    p = decode(
        Person,
        {"name": "Ada", "age": 36, "address": {"street": "1 Way", "city": "London"},
         "nickname": None},
    )
    assert p == Person("Ada", 36, Address("1 Way", "London"), None, [])
    p2 = decode(Person, '{"name": "Ada", "age": 36, "address": {"street": "s", "city": "c"}}')
    assert p2.nickname is None
    assert p2.tags == []
    assert p2.tags is not decode(Person, encode(p2)).tags  # each instance its own list


def test_factory_and_computed_defaults_come_from_the_class() -> None:
    """A factory or takes_self default is made by the class when the field is absent."""

    @attrs.define
    class Counter:
        start: int
        end: int = attrs.field(default=attrs.Factory(lambda self: self.start + 10,
                                                     takes_self=True))
        seen: set[int] = attrs.Factory(set)

    c = decode(Counter, '{"start": 5}')
    assert c.end == 15
    assert c.seen == set()
    assert decode(Counter, '{"start": 5, "end": 7, "seen": [1, 2]}') == Counter(5, 7, {1, 2})


def test_dataclasses_decode_like_attrs_classes() -> None:
    """Dataclasses, their defaults and default factories decode too."""

    @dataclasses.dataclass
    class Point:
        x: float
        y: float = 0.0
        labels: list[str] = dataclasses.field(default_factory=list)

    assert decode(Point, '{"x": 1}') == Point(1.0)
    assert decode(Point, '{"x": 1, "y": 2.5, "labels": ["a"]}') == Point(1.0, 2.5, ["a"])


def test_enums_and_literals_by_value() -> None:
    """Enums are read by member value, Literals by their values, IntEnums from integers."""

    @attrs.define
    class Task:
        priority: Priority
        status: Literal["open", "done"]
        level: Literal[1, 2, 3]
        unit: Literal[Unit.CELSIUS]

    t = decode(Task, '{"priority": 2, "status": "done", "level": 3, "unit": "celsius"}')
    assert t == Task(Priority.HIGH, "done", 3, Unit.CELSIUS)
    assert t.unit is Unit.CELSIUS


def test_date_time_and_uuid_formats() -> None:
    """datetime, date, time and UUID fields are read from their ISO / canonical text."""

    @attrs.define
    class Event:
        at: datetime.datetime
        on: datetime.date
        start: datetime.time
        id: uuid.UUID

    e = decode(
        Event,
        '{"at": "2024-05-01T12:30:00Z", "on": "2024-05-01", "start": "09:15:00", '
        '"id": "12345678-1234-5678-1234-567812345678"}',
    )
    assert e.at == datetime.datetime(2024, 5, 1, 12, 30, tzinfo=datetime.timezone.utc)
    assert e.on == datetime.date(2024, 5, 1)
    assert e.start == datetime.time(9, 15)
    assert e.id == uuid.UUID("12345678-1234-5678-1234-567812345678")
    assert decode(Event, encode(e)) == e


def test_generic_classes_decode_with_their_arguments() -> None:
    """Box[int] checks its items as ints, Box[Address] builds addresses."""
    assert decode(Box[int], '{"item": 1, "extras": [2, 3]}') == Box(1, [2, 3])
    assert decode(Box[Address], '{"item": {"street": "s", "city": "c"}}') == Box(Address("s", "c"))
    with pytest.raises(DecodeError) as info:
        decode(Box[int], '{"item": "1"}')
    assert info.value.errors == [("$.item", 'expected integer, got string "1"')]


def test_recursive_classes_decode_at_any_depth_json_allows() -> None:
    """A self-referencing class decodes, up to the nesting depth JSON text can carry."""
    assert decode(Tree, '{"value": 1, "children": [{"value": 2}]}') == Tree(1, [Tree(2)])
    depth = 500  # 1001 levels of JSON nesting; orjson stops at 1024
    text = '{"value": 0, "children": [' * depth + '{"value": 1}' + "]}" * depth
    tree = decode(Tree, text)
    for _ in range(depth):
        tree = tree.children[0]
    assert tree == Tree(1)


def test_tagged_union_is_decided_by_its_literal_field() -> None:
    """A Literal field that differs per class picks the class; its errors are that class's."""
    pets = decode(Pets, '{"pets": [{"kind": "cat", "lives": 9}, {"kind": "dog", "good": true}]}')
    assert pets == Pets([Cat("cat", 9), Dog("dog", True)])
    with pytest.raises(DecodeError) as info:
        decode(Pets, '{"pets": [{"kind": "dog", "lives": 9}, {"kind": "cow"}]}')
    assert info.value.errors == [
        ("$.pets[0].good", "missing required field"),
        ("$.pets[0].lives", "unknown field (accepted fields: kind, good)"),
        ("$.pets[1].kind", "'cow' is not one of ['cat', 'dog']"),
    ]


def test_untagged_union_is_decided_by_the_fields_present() -> None:
    """Classes with different required fields are told apart by which keys came."""
    assert decode(Drawing, '{"shape": {"radius": 2}}') == Drawing(Circle(2.0))
    assert decode(Drawing, '{"shape": {"side": 2, "label": "s"}}') == Drawing(Square(2.0, "s"))
    assert decode(Drawing, '{"shape": null}') == Drawing(None)
    with pytest.raises(DecodeError) as info:
        decode(Drawing, '{"shape": {"side": "2"}}')
    assert info.value.errors == [("$.shape.side", 'expected number, got string "2"')]


def test_scalar_unions_prefer_the_exact_json_type() -> None:
    """An int goes to the int option and a float to the float option, whatever the order."""
    assert type(decode(Union[float, int], "3")) is int  # noqa: UP007
    assert type(decode(Union[int, float], "3.5")) is float  # noqa: UP007
    assert decode(Union[int, str], '"3"') == "3"  # noqa: UP007
    with pytest.raises(DecodeError) as info:
        decode(Union[int, str], "true")  # noqa: UP007
    assert info.value.errors == [("$", "expected integer or string, got boolean true")]


def test_dict_fields_accept_an_object_or_key_value_entries() -> None:
    """dict[str, T] reads a JSON object or the strict adapters' [{key, value}] array."""

    @attrs.define
    class Prices:
        prices: dict[str, float]
        by_unit: dict[Unit, int] = attrs.Factory(dict)

    expected = Prices({"apple": 1.5, "pear": 2.0}, {Unit.CELSIUS: 1})
    assert decode(Prices, '{"prices": {"apple": 1.5, "pear": 2}, "by_unit": {"celsius": 1}}') == (
        expected
    )
    entries = (
        '{"prices": [{"key": "apple", "value": 1.5}, {"key": "pear", "value": 2}], '
        '"by_unit": [{"key": "celsius", "value": 1}]}'
    )
    assert decode(Prices, entries) == expected
    with pytest.raises(DecodeError) as info:
        decode(Prices, '{"prices": [{"key": "apple", "value": "x"}, {"key": 1, "val": 2}]}')
    assert info.value.errors == [
        ("$.prices[0].value", 'expected number, got string "x"'),
        ("$.prices[1].value", "missing required field"),
        ("$.prices[1].val", 'unknown field; an entry has only "key" and "value"'),
    ]


def test_a_reply_made_under_the_strict_adapter_decodes() -> None:
    """A reply shaped by the OPENAI schema (every key sent, nulls, dict entries) decodes."""

    @attrs.define
    class Report:
        title: str
        scores: dict[str, int]
        note: Optional[str] = None  # noqa: UP045
        pages: int = 1

    body = schema(Report, OPENAI)["schema"]
    assert body["required"] == ["title", "scores", "note", "pages"]
    reply = '{"title": "t", "scores": [{"key": "a", "value": 1}], "note": null, "pages": 3}'
    assert decode(Report, reply) == Report("t", {"a": 1}, None, 3)


def test_sets_tuples_and_frozensets() -> None:
    """Arrays become the declared container; fixed tuples check their length and items."""

    @attrs.define
    class Shapes:
        ids: frozenset[int]
        point: tuple[int, str]
        values: tuple[float, ...]
        names: set[str] = attrs.Factory(set)

    s = decode(Shapes, '{"ids": [3, 1], "point": [1, "a"], "values": [1, 2.5], "names": ["x"]}')
    assert s == Shapes(frozenset({1, 3}), (1, "a"), (1.0, 2.5), {"x"})
    assert decode(Shapes, encode(s)) == s


def test_top_level_values_of_any_supported_type() -> None:
    """decode() takes any type expression, not only classes."""
    assert decode(list[int], "[1, 2]") == [1, 2]
    assert decode(dict[str, Address], '{"a": {"street": "s", "city": "c"}}') == {
        "a": Address("s", "c")
    }
    assert decode(Optional[int], "null") is None  # noqa: UP045
    assert decode(str, '"x"') == "x"


def test_parsed_values_and_every_text_form_are_accepted() -> None:
    """str, bytes, bytearray, memoryview and already-parsed values all decode."""
    text = '{"location": "Oslo", "temperature": 1.5, "unit": "fahrenheit"}'
    expected = Weather("Oslo", 1.5, Unit.FAHRENHEIT)
    for data in (text, text.encode(), bytearray(text.encode()), memoryview(text.encode()),
                 orjson.loads(text)):
        assert decode(Weather, data) == expected


def test_attrs_validators_run_and_report_at_the_field() -> None:
    """A failing attrs validator becomes a DecodeError at the field it guards."""

    def even(_instance: Any, attribute: Any, value: int) -> None:
        if value % 2:
            msg = f"'{attribute.name}' must be even"
            raise ValueError(msg)

    @attrs.define
    class Pair:
        count: int = attrs.field(validator=even)

    assert decode(Pair, '{"count": 4}') == Pair(4)
    with pytest.raises(DecodeError) as info:
        decode(Pair, '{"count": 3}')
    assert info.value.errors == [("$.count", "invalid value: 'count' must be even")]


def test_dataclass_post_init_errors_become_decode_errors() -> None:
    """An exception from __post_init__ is reported at the object, not raised raw."""

    @dataclasses.dataclass
    class Span:
        start: int
        end: int

        def __post_init__(self) -> None:
            if self.end < self.start:
                msg = "end must not be before start"
                raise ValueError(msg)

    with pytest.raises(DecodeError) as info:
        decode(Span, '{"start": 5, "end": 1}')
    assert info.value.errors == [("$", "invalid value: end must not be before start")]


def test_annotated_names_are_the_keys_and_follow_registration() -> None:
    """Keys come from the annotation; registering a new one changes what decode reads."""

    @attrs.define
    class Reading:
        temp: float

    assert decode(Reading, '{"temp": 1}') == Reading(1.0)
    annotate.register(Reading, Annotation(parameters={"temp": Annotation(name="temperature")}))
    try:
        assert decode(Reading, '{"temperature": 2}') == Reading(2.0)
        assert encode(Reading(2.0)) == b'{"temperature":2.0}'
        with pytest.raises(DecodeError) as info:
            decode(Reading, '{"temp": 1}')
        assert info.value.errors == [
            ("$.temperature", "missing required field"),
            ("$.temp", "unknown field; did you mean 'temperature'?"),
        ]
    finally:
        annotate.unregister(Reading)
    assert decode(Reading, '{"temp": 3}') == Reading(3.0)


def test_annotation_enum_restricts_a_plain_string() -> None:
    """An enum registered on a str field is enforced by the decoder."""

    @attrs.define
    class Shirt:
        size: Annotated[str, Annotation(enum=["S", "M", "L"])]

    assert decode(Shirt, '{"size": "M"}') == Shirt("M")
    with pytest.raises(DecodeError) as info:
        decode(Shirt, '{"size": "XL"}')
    assert info.value.errors == [("$.size", "'XL' is not one of ['S', 'M', 'L']")]


def test_functions_and_undescribable_types_are_refused() -> None:
    """decode() of a function is a TypeError; of an unsupported type a SchemaError."""

    def tool(x: int) -> int:
        return x

    with pytest.raises(TypeError, match="is a function"):
        decode(tool, "{}")
    with pytest.raises(SchemaError):
        decode(complex, "1")


# -- a user's cattrs converter ------------------------------------------------------------


@attrs.define
class Money:
    amount: int
    currency: str


@attrs.define
class Invoice:
    total: Money
    count: int


def test_user_hooks_decode_their_types_and_the_rest_stays_strict() -> None:
    """A registered hook replaces the rules for its type only; other fields stay strict."""
    converter = cattrs.Converter()

    def money(value: str, _tp: Any) -> Money:
        amount, currency = value.split()
        return Money(int(amount), currency)

    converter.register_structure_hook(Money, money)
    assert decode(Invoice, '{"total": "12 EUR", "count": 1}', converter=converter) == Invoice(
        Money(12, "EUR"), 1
    )
    with pytest.raises(DecodeError) as info:
        decode(Invoice, '{"total": "12EUR", "count": "1"}', converter=converter)
    assert info.value.errors == [
        ("$.total", "invalid value: not enough values to unpack (expected 2, got 1)"),
        ("$.count", 'expected integer, got string "1"'),
    ]


def test_a_stock_converter_changes_nothing() -> None:
    """A converter without hooks of its own decodes exactly like no converter."""
    converter = cattrs.Converter()
    reply = '{"total": {"amount": 3, "currency": "EUR"}, "count": 1}'
    assert decode(Invoice, reply, converter=converter) == decode(Invoice, reply)
    with pytest.raises(DecodeError) as info:
        decode(Invoice, '{"total": {"amount": "3", "currency": "EUR"}, "count": 1}',
               converter=converter)
    assert info.value.errors == [("$.total.amount", 'expected integer, got string "3"')]


def test_hooks_registered_after_a_decode_are_used() -> None:
    """Registering a hook on a converter already used for a type takes effect."""
    converter = cattrs.Converter()
    with pytest.raises(DecodeError):
        decode(Invoice, '{"total": {"amount": 1, "currency": "X"}, "count": "2"}',
               converter=converter)
    converter.register_structure_hook(int, lambda v, _: int(v))
    invoice = decode(Invoice, '{"total": {"amount": 1, "currency": "X"}, "count": "2"}',
                     converter=converter)
    assert invoice.count == 2


def test_cattrs_validation_errors_from_a_hook_keep_their_paths() -> None:
    """A hook raising cattrs' grouped errors reports each under the right JSON path."""
    converter = cattrs.Converter()
    inner = cattrs.Converter(detailed_validation=True)
    converter.register_structure_hook(Money, lambda v, t: inner.structure(v, t))
    with pytest.raises(DecodeError) as info:
        decode(Invoice, '{"total": {"amount": "x", "currency": "EUR"}, "count": 1}',
               converter=converter)
    assert info.value.errors == [("$.total.amount", "invalid value for type, expected int")]


# -- encode ---------------------------------------------------------------------------------


def test_encode_uses_schema_keys_values_and_leaves_out_none() -> None:
    """encode() writes enum values, ISO dates, lists for sets, and omits None optionals."""

    @attrs.define
    class Entry:
        when: datetime.date
        unit: Unit
        ids: frozenset[int]
        counts: dict[str, int]
        note: Optional[str] = None  # noqa: UP045

    out = encode(Entry(datetime.date(2024, 1, 2), Unit.CELSIUS, frozenset({2, 1}), {"a": 1}))
    assert orjson.loads(out) == {
        "when": "2024-01-02", "unit": "celsius", "ids": [1, 2], "counts": {"a": 1}
    }


def test_null_over_a_non_null_default_is_written_as_null() -> None:
    """None in a nullable field whose default is not None is kept, so it decodes back."""

    @attrs.define
    class Limit:
        value: Optional[int] = 10  # noqa: UP045

    assert encode(Limit(None)) == b'{"value":null}'
    assert decode(Limit, encode(Limit(None))) == Limit(None)
    assert encode(Limit()) == b'{"value":10}'
    # The STANDARD schema says so too: only null can mean None for this field.
    assert schema(Limit)["properties"]["value"] == {"type": ["integer", "null"], "default": 10}


def test_encode_refuses_values_json_cannot_hold() -> None:
    """NaN is a ValueError and an unsupported object a TypeError, each naming the value."""

    @attrs.define
    class Reading:
        value: float

    with pytest.raises(ValueError, match="NaN or Infinity"):
        encode(Reading(float("nan")))
    with pytest.raises(TypeError, match="cannot encode a complex"):
        encode([1j])


def test_encode_of_generic_instances_and_plain_values() -> None:
    """Generic instances, lists of instances and plain JSON values encode."""
    assert encode(Box(Address("s", "c"))) == b'{"item":{"street":"s","city":"c"},"extras":[]}'
    assert encode([Cat("cat", 1)]) == b'[{"kind":"cat","lives":1}]'
    assert encode({"a": Unit.FAHRENHEIT}) == b'{"a":"fahrenheit"}'


def test_public_names_are_exported() -> None:
    """decode, encode and decode_response are part of the package's public names."""
    for name in ("decode", "encode", "decode_response"):
        assert name in describedtypes.__all__
        assert getattr(describedtypes, name) is not None


def test_parsed_input_may_hold_the_decoded_values_themselves() -> None:
    """Dates, UUIDs, sets and enum members in parsed input (cattrs.unstructure's output) pass."""

    @attrs.define
    class Record:
        on: datetime.date
        id: uuid.UUID
        tags: frozenset[str]
        unit: Unit

    record = Record(datetime.date(2024, 1, 2), uuid.UUID(int=7), frozenset({"a"}), Unit.CELSIUS)
    raw = {"on": record.on, "id": record.id, "tags": record.tags, "unit": Unit.CELSIUS}
    assert decode(Record, raw) == record
    assert decode(Record, cattrs.Converter().unstructure(record)) == record
    with pytest.raises(DecodeError) as info:
        decode(Record, {**raw, "on": datetime.datetime(2024, 1, 2)})
    assert info.value.errors == [
        ("$.on", "expected date string (YYYY-MM-DD), got a Python datetime (not a JSON value)")
    ]


def test_a_converter_that_is_not_a_cattrs_converter_is_named() -> None:
    """decode(converter=...) takes a cattrs Converter and says so when given anything else."""

    @attrs.define
    class One:
        x: int

    with pytest.raises(TypeError, match="converter must be a cattrs Converter"):
        describedtypes.decode(One, '{"x": 1}', converter=5)


def test_any_itself_is_any_json_value_on_every_python() -> None:
    """``Any`` (typing's or typing_extensions') is described and decoded as any JSON value,
    as the type itself too: before 3.11 it is a callable special form, never a function."""
    import typing

    import typing_extensions

    from describedtypes import schema

    for any_ in (typing.Any, typing_extensions.Any):
        assert schema(any_) == {}
        assert schema(list[any_]) == {"type": "array", "items": {}}  # type: ignore[valid-type]
        assert decode(any_, '[1, {"a": null}]') == [1, {"a": None}]

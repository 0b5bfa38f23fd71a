"""Dict keys of every type the inspector takes: encoded as the text decode() reads.

A dict key is a JSON string, so the key types are the ones whose node is a string:
str (and str subclasses, NewType over str, constrained str), Decimal, date, datetime,
time, UUID, Enums with string values and Literals of strings. Each round-trips through
``encode`` (the object form) and through every adapter's converter (the
``[{"key", "value"}]`` form of the strict adapters). Two different texts that decode to
one key are an error in both forms.
"""

from __future__ import annotations

import datetime
import decimal
import enum
import uuid
from typing import Annotated, Any, Literal, NewType, Optional

import annotated_types as at
import attrs
import jsonschema
import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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
    DecodeError,
    SchemaError,
    decode,
    encode,
    make_converter,
    schema,
)
from describedtypes._types import inspector

ALL = [STANDARD, OPENAI, OPENAI_TOOLS, OPENAI_CHAT_TOOLS, ANTHROPIC_TOOLS, ANTHROPIC, GEMINI,
       MCP_TOOLS]

UTC = datetime.timezone.utc
OFFSETS = st.sampled_from(
    [UTC, datetime.timezone(datetime.timedelta(hours=5, minutes=30)),
     datetime.timezone(-datetime.timedelta(hours=8))]
)


class Word(str):
    """A str subclass: decoded keys are Words again."""


Sku = NewType("Sku", str)


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"


class Size(str, enum.Enum):
    S = "s"
    M = "m"


text = st.text(max_size=8)

#: Every dict key type the inspector accepts, with a strategy of keys.
KEY_TYPES: dict[str, tuple[Any, st.SearchStrategy[Any]]] = {
    "str": (str, text),
    "str subclass": (Word, text.map(Word)),
    "NewType": (Sku, text),
    "constrained str": (Annotated[str, at.MaxLen(3)], st.text(max_size=3)),
    "Decimal": (
        decimal.Decimal,
        st.decimals(allow_nan=False, allow_infinity=False, places=3)
        | st.decimals(allow_nan=False, allow_infinity=False, min_value=-(10**25),
                      max_value=10**25),
    ),
    "date": (datetime.date, st.dates()),
    "datetime": (
        datetime.datetime,
        st.datetimes(datetime.datetime(1900, 1, 1), datetime.datetime(2200, 1, 1),
                     timezones=OFFSETS),
    ),
    "naive datetime": (datetime.datetime, st.datetimes()),
    "time": (datetime.time, st.times(timezones=st.none() | OFFSETS)),
    "UUID": (uuid.UUID, st.uuids()),
    "Enum": (Color, st.sampled_from(Color)),
    "str Enum": (Size, st.sampled_from(Size)),
    "Literal": (Literal["a", "b", "c d"], st.sampled_from(["a", "b", "c d"])),
    "Literal of a member": (Literal[Color.RED, "z"], st.sampled_from([Color.RED, "z"])),
}


def _holder(name: str, key_tp: Any) -> type:
    """A class with a dict, a nested map and an optional dict, all keyed by ``key_tp``."""
    return attrs.make_class(
        f"Keyed_{name.replace(' ', '_')}",
        {
            "d": attrs.field(type=dict[key_tp, int]),
            "nested": attrs.field(type=list[dict[key_tp, bool]]),
            "maybe": attrs.field(type=Optional[dict[key_tp, str]], default=None),  # noqa: UP045
        },
    )


HOLDERS = {name: _holder(name, tp) for name, (tp, _) in KEY_TYPES.items()}


def instances(name: str) -> st.SearchStrategy[Any]:
    keys = KEY_TYPES[name][1]
    return st.builds(
        HOLDERS[name],
        d=st.dictionaries(keys, st.integers(-5, 5), max_size=4),
        nested=st.lists(st.dictionaries(keys, st.booleans(), max_size=2), max_size=2),
        maybe=st.none() | st.dictionaries(keys, text, max_size=2),
    )


def key_classes(x: Any) -> list[Any]:
    maps = [x.d, *x.nested, x.maybe or {}]
    return [{(k, type(k)) for k in m} for m in maps]


def through(adapter: Adapter, x: Any) -> bytes:
    """The JSON a model held to ``adapter``'s schema would send for ``x``."""
    if adapter is STANDARD:
        return encode(x)
    return orjson.dumps(make_converter(adapter).unstructure(x))


def test_every_string_scalar_is_a_tested_key_type() -> None:
    """A string scalar the inspector gains is a dict key type: it must be tested here."""
    tested = {tp for tp, _ in KEY_TYPES.values()}
    for tp, node in inspector._SCALAR_NODES.items():
        if node.type == "string":
            assert tp in tested, tp


@pytest.mark.parametrize("name", list(KEY_TYPES))
@pytest.mark.parametrize("adapter", [STANDARD, OPENAI], ids=lambda a: a.name)
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_keys_round_trip(name: str, adapter: Adapter, data: st.DataObject) -> None:
    """decode(T, what the adapter sends for x) == x, keys of their own classes."""
    cls = HOLDERS[name]
    x = data.draw(instances(name))
    sent = through(adapter, x)
    back = decode(cls, sent)
    assert back == x
    assert key_classes(back) == key_classes(x)
    # And what was sent is valid under that adapter's own schema.
    body = schema(cls, adapter)
    body = body.get("schema", body)
    assert list(jsonschema.Draft202012Validator(body).iter_errors(orjson.loads(sent))) == []


@pytest.mark.parametrize("adapter", ALL, ids=lambda a: a.name)
def test_every_adapter_writes_keys_as_text(adapter: Adapter) -> None:
    """Under every adapter's converter the keys are strings that decode to the same keys."""
    cls = _holder("mixed", decimal.Decimal)
    x = cls(d={decimal.Decimal("1.50"): 1, decimal.Decimal("-2"): 2},
            nested=[{decimal.Decimal("1E+3"): True}])
    sent = orjson.loads(through(adapter, x))
    if adapter.dict_as_entries:
        assert sent["d"] == [{"key": "1.50", "value": 1}, {"key": "-2", "value": 2}]
        assert sent["nested"] == [[{"key": "1000", "value": True}]]
    else:
        assert sent["d"] == {"1.50": 1, "-2": 2}
        assert sent["nested"] == [{"1000": True}]
    assert decode(cls, orjson.dumps(sent)) == x


def test_keys_are_written_in_their_decoders_text_forms() -> None:
    moment = datetime.datetime(2024, 5, 6, 7, 8, 9, 123000,
                               tzinfo=datetime.timezone(datetime.timedelta(hours=2)))
    cases = [
        (decimal.Decimal, decimal.Decimal("0.10"), "0.10"),
        (datetime.date, datetime.date(2024, 5, 6), "2024-05-06"),
        (datetime.datetime, moment, "2024-05-06T07:08:09.123000+02:00"),
        (datetime.time, datetime.time(7, 8, tzinfo=UTC), "07:08:00+00:00"),
        (uuid.UUID, uuid.UUID("A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11"),
         "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"),
        (Color, Color.GREEN, "green"),
        (Size, Size.M, "m"),
        (Word, Word("w"), "w"),
    ]
    for key_tp, key, written in cases:
        assert encode({key: 1}) == orjson.dumps({written: 1})  # a dict of unknown type too
        cls = _holder("one", key_tp)
        assert orjson.loads(encode(cls(d={key: 1}, nested=[])))["d"] == {written: 1}


def test_enum_keys_are_written_in_the_schemas_order() -> None:
    """In the object form an Enum-keyed dict is a closed object: keys in property order."""
    cls = _holder("order", Color)
    x = cls(d={Color.GREEN: 2, Color.RED: 1}, nested=[])
    assert list(schema(cls)["properties"]["d"]["properties"]) == ["red", "green"]
    assert encode(x) == b'{"d":{"red":1,"green":2},"nested":[]}'
    strict = make_converter(OPENAI).unstructure(x)["d"]
    assert list(strict.items()) == [("red", 1), ("green", 2)]  # strict: every key, in order
    assert decode(cls, encode(x)) == x


def test_a_str_subclass_key_is_written_as_its_characters() -> None:
    """A subclass's own __str__ does not change the key (decode reads the characters)."""

    class Loud(str):
        def __str__(self) -> str:
            return self.upper()

    cls = _holder("loud", Loud)
    x = cls(d={Loud("quiet"): 1}, nested=[])
    assert encode(x) == b'{"d":{"quiet":1},"nested":[]}'
    assert decode(cls, encode(x)) == x


# -- refused key types --------------------------------------------------------------------


@pytest.mark.parametrize(
    "key_tp",
    [int, float, bool, Optional[str], tuple[str, str], enum.IntEnum("N", {"A": 1}),  # noqa: UP045
     Literal["a", 1], datetime.timedelta],
    ids=repr,
)
def test_keys_that_are_not_json_strings_are_refused_at_schema_time(key_tp: Any) -> None:
    cls = attrs.make_class("Refused", {"m": attrs.field(type=dict[key_tp, int])})
    with pytest.raises(SchemaError) as info:
        schema(cls)
    assert info.value.path in ("Refused.m", "Refused.m{}")
    assert "dict keys must be strings" in str(info.value) or "cannot describe" in str(info.value)


# -- hostile input ------------------------------------------------------------------------


def problems(cls: Any, payload: Any) -> list[tuple[str, str]]:
    with pytest.raises(DecodeError) as info:
        decode(cls, payload if isinstance(payload, (str, bytes)) else orjson.dumps(payload))
    return info.value.errors


DateKeyed = _holder("date", datetime.date)
DecimalKeyed = _holder("decimal", decimal.Decimal)
UuidKeyed = _holder("uuid", uuid.UUID)
MomentKeyed = _holder("moment", datetime.datetime)
TimeKeyed = _holder("time", datetime.time)
ColorKeyed = _holder("color", Color)


class TestBadKeys:
    def test_a_key_that_is_not_a_date_names_its_path(self) -> None:
        assert problems(DateKeyed, {"d": {"2024-01-02": 1, "soon": 2}, "nested": []}) == [
            ("$.d.soon", 'invalid key: expected date string (YYYY-MM-DD), got string "soon"')
        ]
        assert problems(DateKeyed, {"d": [{"key": "soon", "value": 2}], "nested": []}) == [
            ("$.d[0].key", 'expected date string (YYYY-MM-DD), got string "soon"')
        ]

    def test_a_date_that_does_not_exist_says_so(self) -> None:
        [(path, message)] = problems(DateKeyed, {"d": {"2023-02-29": 1}, "nested": []})
        assert path == '$.d["2023-02-29"]'
        assert message.startswith('invalid key: "2023-02-29" is written right but is not a valid')

    @pytest.mark.parametrize(
        "key", ["1e5", "NaN", "Infinity", "0x10", "1_000", " 1", "+1", "01", "1" * 2000, ""]
    )
    def test_a_decimal_key_must_be_plain_digits(self, key: str) -> None:
        for form in ({key: 1}, [{"key": key, "value": 1}]):
            [(_, message)] = problems(DecimalKeyed, {"d": form, "nested": []})
            assert "expected a decimal number as a string of digits" in message

    @pytest.mark.parametrize("key", [None, 5, True, [], {}])
    def test_an_entry_key_of_another_json_kind_is_refused(self, key: Any) -> None:
        [(path, message)] = problems(DateKeyed, {"d": [{"key": key, "value": 1}], "nested": []})
        assert path == "$.d[0].key"
        assert message.startswith("expected date string")

    def test_a_key_that_is_not_a_member_lists_the_values(self) -> None:
        assert problems(ColorKeyed, {"d": {"RED": 1}, "nested": []}) == [
            ("$.d.RED", "invalid key: 'RED' is not one of ['red', 'green']; did you mean 'red'?")
        ]

    def test_every_bad_key_and_value_is_reported(self) -> None:
        payload = {"d": {"x": 1, "2024-01-01": "one", "y": 2}, "nested": [{"z": True}]}
        assert [p for p, _ in problems(DateKeyed, payload)] == [
            "$.d.x", '$.d["2024-01-01"]', "$.d.y", "$.nested[0].z"
        ]


ONE_KEY_TWO_TEXTS = [
    (DecimalKeyed, "1.5", "1.50"),
    (DecimalKeyed, "0", "-0"),
    (UuidKeyed, "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11"),
    (MomentKeyed, "2024-01-01T00:00:00Z", "2024-01-01T01:00:00+01:00"),
    (MomentKeyed, "2024-01-01T00:00:00Z", "2024-01-01t00:00:00.000z"),
    (TimeKeyed, "10:00:00Z", "12:00:00+02:00"),
]


class TestOneKeyTwoTexts:
    """Two texts that decode to one key: an error in both forms, never a lost value."""

    @pytest.mark.parametrize(("cls", "first", "second"), ONE_KEY_TWO_TEXTS)
    def test_in_an_object(self, cls: Any, first: str, second: str) -> None:
        [(path, message)] = problems(cls, {"d": {first: 1, second: 2}, "nested": []})
        assert path == f"$.d[{orjson.dumps(second).decode()}]"
        assert message == (
            f"the key {orjson.dumps(second).decode()} is the same key as "
            f"{orjson.dumps(first).decode()}, sent before it; a dict holds one value per "
            "key, so send each key once"
        )

    @pytest.mark.parametrize(("cls", "first", "second"), ONE_KEY_TWO_TEXTS)
    def test_in_key_value_entries(self, cls: Any, first: str, second: str) -> None:
        entries = [{"key": first, "value": 1}, {"key": second, "value": 2}]
        [(path, message)] = problems(cls, {"d": entries, "nested": []})
        assert path == "$.d[1].key"
        assert message == (
            f"the key {orjson.dumps(second).decode()} is the same key as "
            f"{orjson.dumps(first).decode()}, already sent in entry [0]; a dict holds one "
            "value per key, so send each key once"
        )

    def test_the_same_text_twice_in_entries_keeps_its_message(self) -> None:
        entries = [{"key": "1.5", "value": 1}, {"key": "1.5", "value": 2}]
        assert problems(DecimalKeyed, {"d": entries, "nested": []}) == [
            ("$.d[1].key", 'the key "1.5" was already sent in entry [0]; a dict holds one '
             "value per key, so send each key once")
        ]

    def test_many_spellings_of_one_key_stop_at_the_problem_cap(self) -> None:
        """Thousands of spellings of zero: a hundred problems, then 'at least N more'."""
        keys = {"0." + "0" * i: 1 for i in range(1, 3000)}
        with pytest.raises(DecodeError) as info:
            decode(DecimalKeyed, orjson.dumps({"d": {"0": 0, **keys}, "nested": []}))
        assert len(info.value.errors) == 100
        assert info.value.truncated

    def test_a_repeated_member_in_an_object_is_the_parsers_matter(self) -> None:
        """The same text twice in one JSON object: the parser keeps the last (RFC 8259)."""
        assert decode(DecimalKeyed, '{"d": {"1.5": 1, "1.5": 2}, "nested": []}').d == {
            decimal.Decimal("1.5"): 2
        }


class TestEncodingBadKeys:
    def test_a_key_of_another_type_is_a_type_error(self) -> None:
        with pytest.raises(TypeError, match=r"the dict key 3: its JSON form is 3, not a string"):
            encode(DecimalKeyed(d={3: 1}, nested=[]))  # type: ignore[dict-item]
        with pytest.raises(TypeError, match="the dict key 3"):
            make_converter(OPENAI).unstructure(DecimalKeyed(d={3: 1}, nested=[]))  # type: ignore[dict-item]

    def test_a_nan_key_has_no_json_form(self) -> None:
        with pytest.raises(ValueError, match="NaN or Infinity"):
            encode(DecimalKeyed(d={decimal.Decimal("NaN"): 1}, nested=[]))

    def test_two_keys_written_alike_are_refused(self) -> None:
        """Literal[Color.RED, "red"] holds two keys that are both written "red"."""
        cls = _holder("clash", Literal[Color.RED, "red"])
        x = cls(d={Color.RED: 1, "red": 2}, nested=[])
        message = (
            "cannot encode the dict keys Color.RED and 'red': both are written "
            '"red", and a JSON object holds one value per key; keep one of them'
        )
        with pytest.raises(ValueError, match="both are written") as info:
            encode(x)
        assert str(info.value) == message
        with pytest.raises(ValueError, match="both are written") as info:
            make_converter(OPENAI).unstructure(x)
        assert str(info.value) == message


# -- what the schema tells the model about keys -------------------------------------------


def _map_schema(key_tp: Any) -> dict[str, Any]:
    cls = attrs.make_class("KeyedMap", {"m": attrs.field(type=dict[key_tp, int])})
    found: dict[str, Any] = orjson.loads(orjson.dumps(schema(cls)))["properties"]["m"]
    return found


@pytest.mark.parametrize(
    ("key_tp", "sentence"),
    [
        (datetime.date, "Every key is a date (YYYY-MM-DD)."),
        (datetime.datetime, "Every key is a date and time (RFC 3339, e.g. 2024-01-31T09:30:00Z)."),
        (datetime.time, "Every key is a time of day (HH:MM:SS)."),
        (uuid.UUID, "Every key is a UUID."),
        (decimal.Decimal, 'Every key is a decimal number written as a string, e.g. "12.50".'),
        (Annotated[str, at.Len(2, 8)],
         "Every key has 2 to 8 characters."),
        (Annotated[str, at.MinLen(3)], "Every key has at least 3 characters."),
        (Annotated[str, at.MaxLen(1)], "Every key has at most 1 character."),
    ],
)
def test_the_object_form_says_what_a_key_must_be(key_tp: Any, sentence: str) -> None:
    """No keyword every provider takes states a key's form (propertyNames is not one), so
    the description says it: a model that cannot see it sends keys decode() refuses."""
    found = _map_schema(key_tp)
    assert found["description"] == sentence
    assert found["additionalProperties"] == {"type": "integer"}


def test_plain_string_keys_need_no_sentence() -> None:
    assert "description" not in _map_schema(str)
    assert "description" not in _map_schema(Word)


def test_annotation_enum_keys_are_a_closed_object() -> None:
    """Keys limited by an annotation enum are listed, as Enum and Literal keys are; an
    open map would let the model send keys decode() refuses."""
    key = Annotated[str, Annotation(enum=["x", "y"])]
    assert _map_schema(key) == {
        "type": "object",
        "properties": {"x": {"type": "integer"}, "y": {"type": "integer"}},
        "additionalProperties": False,
    }
    cls = attrs.make_class("EnumKeyed", {"m": attrs.field(type=dict[key, int])})
    assert decode(cls, '{"m": {"y": 2}}').m == {"y": 2}
    with pytest.raises(DecodeError, match="not one of"):
        decode(cls, '{"m": {"z": 2}}')


def test_the_key_sentence_follows_the_description_of_the_field() -> None:
    cls = attrs.make_class("Described", {"m": attrs.field(
        type=Annotated[dict[datetime.date, int], Annotation(description="Sales per day.")]
    )})
    found = orjson.loads(orjson.dumps(schema(cls)))["properties"]["m"]
    assert found["description"] == "Sales per day. Every key is a date (YYYY-MM-DD)."


# -- UTC offsets RFC 3339 cannot write ------------------------------------------------------

# Offsets with seconds: fixed ones, and a zone's local mean time before standard time.
SECOND_OFFSETS = st.builds(
    lambda s: datetime.timezone(datetime.timedelta(seconds=s)),
    st.integers(min_value=-86_399, max_value=86_399).filter(lambda s: s % 60),
)


@attrs.define
class Stamped:
    at: datetime.datetime
    by_instant: dict[datetime.datetime, int]


@given(st.datetimes(min_value=datetime.datetime(1901, 1, 1),
                    max_value=datetime.datetime(9998, 12, 31), timezones=SECOND_OFFSETS))
def test_a_date_time_whose_offset_has_seconds_is_written_in_utc(value: datetime.datetime) -> None:
    """RFC 3339 offsets are whole minutes (decode() refuses +05:30:15): such a date-time is
    written as the same instant in UTC, so it still round-trips."""
    sent = encode(Stamped(value, {value: 1}))
    assert b"+00:00" in sent
    back = decode(Stamped, sent)
    assert back.at == value
    assert list(back.by_instant) == [value]


def test_local_mean_time_round_trips() -> None:
    zoneinfo = pytest.importorskip("zoneinfo")
    try:
        zone = zoneinfo.ZoneInfo("Europe/Amsterdam")
    except zoneinfo.ZoneInfoNotFoundError:
        pytest.skip("this machine has no time zone database (system tzdata or the tzdata package)")
    amsterdam = datetime.datetime(1900, 1, 1, 12, tzinfo=zone)
    assert encode(Stamped(amsterdam, {})) == (
        b'{"at":"1900-01-01T11:40:28+00:00","by_instant":{}}'
    )
    assert decode(Stamped, encode(Stamped(amsterdam, {}))).at == amsterdam


def test_a_time_whose_offset_has_seconds_is_refused() -> None:
    """A time of day cannot be moved to UTC without a date: a clear error, not text that
    decode() would refuse."""
    cls = attrs.make_class("Clock", {"t": attrs.field(type=datetime.time)})
    odd = datetime.timezone(datetime.timedelta(hours=5, minutes=30, seconds=15))
    with pytest.raises(ValueError, match="offset is not a whole number of minutes"):
        encode(cls(datetime.time(9, 0, tzinfo=odd)))
    whole = datetime.timezone(datetime.timedelta(hours=5, minutes=30))
    assert encode(cls(datetime.time(9, 0, tzinfo=whole))) == b'{"t":"09:00:00+05:30"}'


class _Shade(enum.Enum):
    RED = "red"
    GREEN = "green"


@attrs.define
class _ByShade:
    d: dict[_Shade, int]
    e: dict[Literal["x", "y"], str]


@attrs.define
class _NullableValues:
    d: dict[_Shade, Optional[int]]  # noqa: UP045 - a runtime type object


@pytest.mark.parametrize("adapter", [OPENAI, ANTHROPIC, OPENAI_TOOLS])
def test_under_strict_adapters_a_closed_key_dict_cannot_repeat_a_key(adapter: Any) -> None:
    """An object with one nullable property per key: no engine can send a key twice."""
    body = schema(_ByShade, adapter)
    body = body.get("schema", body.get("parameters", body.get("input_schema", body)))
    d = body["properties"]["d"]
    assert d["type"] == "object"
    assert d["required"] == ["red", "green"]
    assert d["additionalProperties"] is False
    validator = jsonschema.Draft202012Validator(body)
    twice = {"d": [{"key": "red", "value": 1}, {"key": "red", "value": 2}],
             "e": {"x": "a", "y": None}}
    assert not validator.is_valid(twice)
    sent = {"d": {"red": 1, "green": None}, "e": {"x": None, "y": "b"}}
    assert validator.is_valid(sent)
    value = _ByShade({_Shade.RED: 1}, {"y": "b"})
    assert decode(_ByShade, orjson.dumps(sent)) == value  # null: the key is not in the dict
    converter = make_converter(adapter)
    assert converter.unstructure(value) == sent
    assert converter.structure(sent, _ByShade) == value


def test_a_closed_key_dict_with_nullable_values_stays_entries() -> None:
    """Where null is a value, it cannot also mean "no such key": the entries form stays."""
    d = schema(_NullableValues, OPENAI)["schema"]["properties"]["d"]
    assert d["type"] == "array"
    assert decode(_NullableValues, '{"d": {"red": null}}') == _NullableValues({_Shade.RED: None})

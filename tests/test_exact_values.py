"""Values that must not vanish or be mis-read: Literal kinds, repeated keys, RFC text forms."""

from __future__ import annotations

import datetime
import decimal
import enum
import uuid
from typing import Any, Literal

import attrs
import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from describedtypes import (
    ANTHROPIC,
    GEMINI,
    OPENAI,
    DecodeError,
    check,
    decode,
    schema,
)


def errors_of(tp: Any, data: Any) -> list[tuple[str, str]]:
    with pytest.raises(DecodeError) as info:
        decode(tp, data)
    return info.value.errors


class TestLiteralKinds:
    def test_true_and_one_are_both_kept(self) -> None:
        """Literal[1, True, "1"] lists three values: True is not the integer 1."""
        assert schema(Literal[1, True, "1"]) == {
            "type": ["integer", "boolean", "string"],
            "enum": [1, True, "1"],
        }
        assert decode(Literal[1, True, "1"], "true") is True
        assert decode(Literal[1, True, "1"], "1") == 1
        assert type(decode(Literal[1, True, "1"], "1")) is int
        assert decode(Literal[1, True, "1"], '"1"') == "1"

    def test_one_is_not_lost_after_true(self) -> None:
        """Literal[True, 1] is an enum of both, and 1 decodes."""
        assert schema(Literal[True, 1]) == {"type": ["boolean", "integer"], "enum": [True, 1]}
        assert type(decode(Literal[True, 1], "1")) is int
        assert decode(Literal[True, 1], "true") is True

    def test_zero_and_false_are_told_apart(self) -> None:
        """Literal[0, False] accepts 0 and false and neither 1 nor true."""
        assert decode(Literal[0, False], "false") is False
        assert type(decode(Literal[0, False], "0")) is int
        assert errors_of(Literal[0, False], "true") == [
            ("$", "True is not one of [0, False]")
        ]

    @pytest.mark.parametrize("adapter", [OPENAI, ANTHROPIC])
    def test_strict_adapters_keep_both(self, adapter: Any) -> None:
        """The strict adapters list both values as well."""

        @attrs.define
        class Pick:
            v: Literal[True, 1]

        text = str(schema(Pick, adapter))
        assert "[True, 1]" in text

    def test_an_in_validator_restricting_a_literal_compares_kinds(self) -> None:
        """An ``in_([True])`` validator on a Literal[1, True] field allows true, not 1."""

        @attrs.define
        class Flag:
            v: Literal[1, True] = attrs.field(validator=attrs.validators.in_([True]))

        assert schema(Flag)["properties"]["v"]["enum"] == [True]
        assert decode(Flag, '{"v": true}') == Flag(True)
        assert errors_of(Flag, '{"v": 1}') == [("$.v", "expected one of [True], got integer 1")]

    def test_a_tag_of_one_and_true_still_tells_classes_apart(self) -> None:
        """A union tagged by 1 and True decodes each to its own class."""

        @attrs.define
        class One:
            tag: Literal[1]
            a: int = 0

        @attrs.define
        class Yes:
            tag: Literal[True]
            a: int = 0

        assert type(decode(One | Yes, {"tag": 1})) is One
        assert type(decode(One | Yes, {"tag": True})) is Yes


class TestRepeatedKeys:
    def test_a_repeated_key_in_entries_is_an_error(self) -> None:
        """A key sent twice in the key/value array form names the key and both entries."""
        entries = [
            {"key": "a", "value": 1},
            {"key": "b", "value": 2},
            {"key": "a", "value": 3},
        ]
        assert errors_of(dict[str, int], entries) == [
            (
                "$[2].key",
                'the key "a" was already sent in entry [0]; a dict holds one value per key, '
                "so send each key once",
            )
        ]

    def test_keys_equal_after_decoding_are_repeated_too(self) -> None:
        """Two entries whose keys decode to the same Enum member are a repeated key."""

        class Color(enum.Enum):
            RED = "red"

        errors = errors_of(dict[Color, int], [{"key": "red", "value": 1}] * 2)
        assert errors == [
            (
                "$[1].key",
                'the key "red" was already sent in entry [0]; a dict holds one value per '
                "key, so send each key once",
            )
        ]

    def test_a_repeated_key_is_reported_with_the_other_problems(self) -> None:
        """The repeated key and a bad value of the same entry are both reported."""

        @attrs.define
        class Counts:
            counts: dict[str, int]

        errors = errors_of(
            Counts, {"counts": [{"key": "a", "value": 1}, {"key": "a", "value": "x"}]}
        )
        assert [path for path, _ in errors] == ["$.counts[1].key", "$.counts[1].value"]

    def test_distinct_keys_still_decode(self) -> None:
        """Entries with distinct keys decode as before."""
        entries = [{"key": "a", "value": 1}, {"key": "b", "value": 2}]
        assert decode(dict[str, int], entries) == {"a": 1, "b": 2}

    def test_a_key_repeated_in_a_json_object_keeps_the_last_value(self) -> None:
        """JSON text with a repeated object key: the last value wins (documented)."""
        assert decode(dict[str, int], '{"a": 1, "a": 2}') == {"a": 2}


ACCEPTED = [
    (datetime.date, "2020-01-01", datetime.date(2020, 1, 1)),
    (datetime.datetime, "2020-01-01T12:30:00Z",
     datetime.datetime(2020, 1, 1, 12, 30, tzinfo=datetime.timezone.utc)),
    (datetime.datetime, "2020-01-01t12:30:00z",
     datetime.datetime(2020, 1, 1, 12, 30, tzinfo=datetime.timezone.utc)),
    (datetime.datetime, "2020-01-01T12:30:00.5+05:30",
     datetime.datetime(2020, 1, 1, 12, 30, 0, 500000,
                       tzinfo=datetime.timezone(datetime.timedelta(hours=5, minutes=30)))),
    (datetime.datetime, "2020-01-01T12:30:00.123456789-00:00",
     datetime.datetime(2020, 1, 1, 12, 30, 0, 123456, tzinfo=datetime.timezone.utc)),
    (datetime.datetime, "2020-01-01T12:30:00", datetime.datetime(2020, 1, 1, 12, 30)),
    (datetime.time, "12:30:00", datetime.time(12, 30)),
    (datetime.time, "12:30:00.25Z", datetime.time(12, 30, 0, 250000, datetime.timezone.utc)),
    (uuid.UUID, "123E4567-e89b-12D3-A456-426614174000",
     uuid.UUID("123e4567-e89b-12d3-a456-426614174000")),
]

REFUSED = [
    (datetime.date, "20200101"),
    (datetime.date, "2020-W01-1"),
    (datetime.date, "2020-001"),
    (datetime.date, "2020-1-1"),
    (datetime.date, "2020-01-01T00:00:00Z"),
    (datetime.date, "\u0662020-01-01"),
    (datetime.datetime, "2020-01-01"),
    (datetime.datetime, "20200101T123000Z"),
    (datetime.datetime, "2020-01-01 12:30:00Z"),
    (datetime.datetime, "2020-01-01T12:30Z"),
    (datetime.datetime, "2020-01-01T12"),
    (datetime.datetime, "2020-01-01T12:30:00+0530"),
    (datetime.datetime, "2020-01-01T12:30:00.Z"),
    (datetime.datetime, "2020-01-01T12:30:00Z "),
    (datetime.time, "12:30"),
    (datetime.time, "1230"),
    (datetime.time, "T12:30:00"),
    (uuid.UUID, "{123e4567-e89b-12d3-a456-426614174000}"),
    (uuid.UUID, "123e4567e89b12d3a456426614174000"),
    (uuid.UUID, "urn:uuid:123e4567-e89b-12d3-a456-426614174000"),
    (uuid.UUID, "123e4567-e89b-12d3-a456-42661417400g"),
]


class TestTextForms:
    @pytest.mark.parametrize(("tp", "text", "value"), ACCEPTED)
    def test_rfc_forms_decode(self, tp: Any, text: str, value: Any) -> None:
        """RFC 3339 dates and times and RFC 4122 UUIDs decode, on every Python version."""
        decoded = decode(tp, f'"{text}"')
        assert decoded == value
        assert type(decoded) is tp
        assert decoded.__class__ is value.__class__
        if isinstance(value, (datetime.datetime, datetime.time)):
            assert decoded.utcoffset() == value.utcoffset()

    @pytest.mark.parametrize(("tp", "text"), REFUSED)
    def test_other_iso_forms_are_refused(self, tp: Any, text: str) -> None:
        """Basic ISO 8601, week dates, a date for a date-time, braces or bare hex are refused."""
        ((path, message),) = errors_of(tp, orjson_string(text))
        assert path == "$"
        assert message.startswith("expected ")

    @pytest.mark.parametrize(
        ("tp", "text", "reason"),
        [
            (datetime.date, "2023-02-29", "day is out of range for month"),
            (datetime.date, "0000-01-01", "year 0 is out of range"),
            (datetime.datetime, "2016-12-31T23:59:60Z", "(Python has no leap seconds)"),
            (datetime.time, "12:00:00+24:00", "the offset's hours must be in 0..23"),
        ],
    )
    def test_well_formed_but_impossible_values_say_why(
        self, tp: Any, text: str, reason: str
    ) -> None:
        """A date that does not exist is named as such, not as a bad spelling."""
        ((path, message),) = errors_of(tp, orjson_string(text))
        assert path == "$"
        assert message.startswith(f'"{text}" is written right but is not a valid ')
        assert reason in message

    @given(st.datetimes(timezones=st.just(datetime.timezone.utc) | st.none()))
    def test_isoformat_of_any_datetime_decodes_back(self, value: datetime.datetime) -> None:
        """What Python writes for a datetime (and encode() sends) decodes to the same value."""
        assert decode(datetime.datetime, orjson_string(value.isoformat())) == value


def orjson_string(text: str) -> bytes:
    return orjson.dumps(text)


class Shade(enum.Enum):
    LIGHT = "light"
    DARK = "dark"
    NONE = None


@attrs.define
class Paint:
    finish: Literal["matt", "gloss", None]
    shade: Shade
    trim: Literal["matt", "gloss", None] = None


class TestGeminiNullInEnums:
    def test_null_becomes_an_any_of_option(self) -> None:
        """Gemini takes no null in an enum: the enum keeps its strings, null is an anyOf option."""
        report: list[Any] = []
        body = schema(Paint, GEMINI, report=report)["parameters_json_schema"]
        finish = {"anyOf": [{"type": "string", "enum": ["matt", "gloss"]}, {"type": "null"}]}
        assert body["properties"]["finish"] == finish
        assert body["properties"]["trim"] == finish
        assert body["properties"]["shade"] == {
            "anyOf": [{"type": "string", "enum": ["light", "dark"]}, {"type": "null"}]
        }
        assert [r.action for r in report] == ["rewritten"] * 3
        assert check(schema(Paint, GEMINI), GEMINI) == []

    def test_what_the_gemini_schema_allows_decodes(self) -> None:
        """Every value the Gemini schema allows decodes, and no other."""
        import jsonschema

        body = schema(Paint, GEMINI)["parameters_json_schema"]
        for finish in ("matt", "gloss", None, "satin", 1):
            for shade in ("light", None, "pale"):
                reply = {"finish": finish, "shade": shade}
                allowed = jsonschema.Draft202012Validator(body).is_valid(reply)
                try:
                    decode(Paint, reply)
                except DecodeError:
                    decoded = False
                else:
                    decoded = True
                assert allowed == decoded, reply

    def test_other_adapters_keep_null_in_the_enum(self) -> None:
        """Adapters that take null in an enum are unchanged."""
        assert schema(Paint)["properties"]["finish"] == {
            "type": ["string", "null"],
            "enum": ["matt", "gloss", None],
        }
        assert schema(Paint, OPENAI)["schema"]["properties"]["shade"]["enum"] == [
            "light", "dark", None,
        ]


def _two(low: int, high: int) -> st.SearchStrategy[str]:
    """Two digits, mostly in range and sometimes just past it (60 seconds, 13th month)."""
    return st.integers(low, high).map(lambda n: f"{n:02d}")


rfc_times = st.builds(
    lambda h, m, s, fraction, offset: f"{h}:{m}:{s}{fraction}{offset}",
    _two(0, 24), _two(0, 60), _two(0, 60),
    st.just("") | st.text("0123456789", min_size=1, max_size=12).map(lambda d: "." + d),
    st.sampled_from(["", "Z", "z"])
    | st.builds(lambda sign, h, m: f"{sign}{h}:{m}", st.sampled_from("+-"), _two(0, 24),
                _two(0, 99)),
)
rfc_datetimes = st.builds(
    lambda y, mo, d, sep, time: f"{y}-{mo}-{d}{sep}{time}",
    st.integers(0, 9999).map(lambda n: f"{n:04d}"), _two(0, 13), _two(0, 32),
    st.sampled_from("Tt"), rfc_times,
)


def _outcome(parse: Any, text: str) -> Any:
    try:
        value = parse(text)
    except ValueError:
        return "refused"
    return value, type(value), value.utcoffset()


class TestFastAndLongWayAgree:
    """The C parser is used for the common spellings: it must agree with the long way."""

    @given(rfc_datetimes)
    def test_date_times(self, text: str) -> None:
        """Any RFC 3339 date-time (possible or not) reads the same either way."""
        from describedtypes._types.scalars import read_clock

        assert _outcome(lambda t: read_clock(t, datetime.datetime), text) == _outcome(
            lambda t: read_clock(t, datetime.datetime, shortcut=False), text
        )

    @given(rfc_times)
    def test_times(self, text: str) -> None:
        """Any RFC 3339 time (possible or not) reads the same either way."""
        from describedtypes._types.scalars import read_clock

        assert _outcome(lambda t: read_clock(t, datetime.time), text) == _outcome(
            lambda t: read_clock(t, datetime.time, shortcut=False), text
        )


@attrs.define
class Mixed:
    f0: list[float]
    f1: decimal.Decimal


def test_a_float_past_the_double_range_says_so_beside_a_decimal() -> None:
    """A type with a Decimal is read with exact numbers: a float field given 637e171310837
    (a grammar engine may write it: no engine bounds an exponent) is told it is too large,
    in the same words as the JSON parser's, not 'got Infinity'."""
    from describedtypes import DecodeError, decode

    with pytest.raises(DecodeError) as info:
        decode(Mixed, b'{"f0": [637e171310837], "f1": "4"}')
    assert info.value.errors == [
        ("$.f0[0]", "the number is too large for JSON (beyond about 1.8e308); send a smaller "
                    "number"),
    ]


@attrs.define
class Counted:
    n: list[int]
    total: decimal.Decimal


def test_an_int_past_the_double_range_says_so_beside_a_decimal() -> None:
    """An int field beside a Decimal given 1e400 is told the number is too large (the
    parser's words), not 'expected integer, got Infinity'."""
    from describedtypes import DecodeError, decode

    with pytest.raises(DecodeError) as info:
        decode(Counted, '{"n": [1, 1e400], "total": 2}')
    assert info.value.errors == [
        ("$.n[1]", "the number is too large for JSON (beyond about 1.8e308); send a smaller "
                   "number"),
    ]


def test_minus_zero_keeps_its_sign_in_a_decimal() -> None:
    """JSON's -0 (an integer to its grammar) reaches a Decimal as Decimal("-0"), every digit
    and the sign as written; an int beside it is still 0."""
    from describedtypes import decode

    value = decode(Counted, '{"n": [-0], "total": -0}')
    assert value.total.as_tuple() == decimal.Decimal("-0").as_tuple()
    assert value.n == [0]
    assert type(value.n[0]) is int


@attrs.define
class WithAny:
    price: decimal.Decimal
    extra: Any


def _typed(value: Any) -> Any:
    """``value`` with every scalar paired with its exact class, to compare types too."""
    if isinstance(value, list):
        return [_typed(x) for x in value]
    if isinstance(value, dict):
        return {k: _typed(x) for k, x in value.items()}
    return (type(value), value)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner,
                                                                max_size=4),
    max_leaves=12,
)


@given(json_values)
def test_a_value_under_any_beside_a_decimal_is_plain_json(value: Any) -> None:
    """Beside a Decimal (which reads the reply with exact numbers), a field typed Any gets
    the plain JSON value, of the same classes as without the Decimal: floats, ints, never
    the parser's exact numbers."""
    import json

    text = json.dumps(value)
    got = decode(WithAny, f'{{"price": "1.5", "extra": {text}}}').extra
    assert _typed(got) == _typed(decode(Any, text))


def test_a_number_past_the_float_range_under_any_is_refused_as_without_a_decimal() -> None:
    """1e400 under Any is too large for JSON, with a Decimal beside it or not; -0 is 0."""
    with pytest.raises(DecodeError, match=r"\$\.extra\b.*too large for JSON"):
        decode(WithAny, '{"price": "1", "extra": {"a": [1e400]}}')
    with pytest.raises(DecodeError, match="too large for JSON"):
        decode(Any, '{"a": [1e400]}')
    zero = decode(WithAny, '{"price": "1", "extra": -0}').extra
    assert zero == 0
    assert type(zero) is int

"""DecodeError: every problem of a reply, with paths and messages a model can act on."""

from __future__ import annotations

import enum
import re
from typing import Annotated, Any, Literal, Optional, Union

import annotated_types as at
import attrs
import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from describedtypes import DecodeError, decode

MB = 1024 * 1024


class Unit(enum.Enum):
    CELSIUS = "celsius"
    FAHRENHEIT = "fahrenheit"


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
class Item:
    name: str
    price: float = attrs.field(validator=attrs.validators.ge(0))
    quantity: int = 1


@attrs.define
class Order:
    address: Address
    items: list[Item]
    express: bool = False
    note: Optional[str] = None  # noqa: UP045 - the spelling under test


@attrs.define
class Node:
    value: int
    child: Optional[Node] = None  # noqa: UP045


def errors_of(tp: Any, data: Any) -> list[tuple[str, str]]:
    with pytest.raises(DecodeError) as info:
        decode(tp, data)
    return info.value.errors


# -- no silent coercion -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("tp", "reply", "message"),
    [
        (int, '"5"', 'expected integer, got string "5"'),
        (int, "3.9", "expected integer, got number 3.9"),
        (int, "true", "expected integer, got boolean true"),
        (bool, "1", "expected boolean, got integer 1"),
        (bool, "0", "expected boolean, got integer 0"),
        (bool, '"true"', 'expected boolean, got string "true"'),
        (float, '"3.5"', 'expected number, got string "3.5"'),
        (float, "false", "expected number, got boolean false"),
        (str, "5", "expected string, got integer 5"),
        (str, "null", "expected string, got null"),
        (Unit, "0", "expected one of ['celsius', 'fahrenheit'], got integer 0"),
    ],
)
def test_values_are_never_coerced(tp: Any, reply: str, message: str) -> None:
    """A value of the wrong JSON type is an error, never converted by calling the type."""
    assert errors_of(tp, reply) == [("$", message)]


def test_ints_are_floats_and_whole_floats_are_ints() -> None:
    """JSON has one number type: 3 is a fine float, and 3.0 a fine integer."""
    assert decode(float, "3") == 3.0
    assert type(decode(float, "3")) is float
    assert decode(int, "3.0") == 3
    assert type(decode(int, "3.0")) is int


# -- every kind of problem, all at once ----------------------------------------------------


def test_all_problems_in_one_reply_are_reported_together() -> None:
    """Missing, unknown, mistyped, out-of-range and null values are all listed, in order."""
    reply = (
        '{"address": {"street": null}, "adress": 1, '
        '"items": [{"name": "a", "price": -1}, {"name": 2, "price": "9", "quantity": 1.5}], '
        '"express": "yes"}'
    )
    assert errors_of(Order, reply) == [
        ("$.address.street", "expected string, got null"),
        ("$.address.city", "missing required field"),
        ("$.items[0].price", "must be at least 0, got -1"),
        ("$.items[1].name", "expected string, got integer 2"),
        ("$.items[1].price", 'expected number, got string "9"'),
        ("$.items[1].quantity", "expected integer, got number 1.5"),
        ("$.express", 'expected boolean, got string "yes"'),
        ("$.adress", "unknown field; did you mean 'address'?"),
    ]


def test_the_message_is_a_compact_report_for_the_model() -> None:
    """str(error) lists each problem as 'path: message', one per line."""
    with pytest.raises(DecodeError) as info:
        decode(Weather, '{"location": "Oslo", "temprature": 20, "unit": "kelvin"}')
    assert str(info.value) == (
        "The reply does not match the schema:\n"
        "- $.temperature: missing required field\n"
        "- $.unit: 'kelvin' is not one of ['celsius', 'fahrenheit']\n"
        "- $.temprature: unknown field; did you mean 'temperature'?"
    )


def test_an_unknown_field_without_a_close_match_lists_the_fields() -> None:
    """With no near name to suggest, the message lists the accepted fields."""
    assert errors_of(Address, '{"street": "s", "city": "c", "zzz": 1}') == [
        ("$.zzz", "unknown field (accepted fields: street, city)")
    ]


def test_literal_and_enum_violations_list_the_allowed_values() -> None:
    """A value outside a Literal or Enum is reported with the allowed values."""

    @attrs.define
    class Ticket:
        status: Literal["open", "closed"]
        level: Literal[1, 2]

    assert errors_of(Ticket, '{"status": "pending", "level": 3}') == [
        ("$.status", "'pending' is not one of ['open', 'closed']"),
        ("$.level", "3 is not one of [1, 2]"),
    ]


def test_constraint_violations_name_the_bound() -> None:
    """Bounds, lengths and patterns from attrs validators are checked with clear words."""
    v = attrs.validators

    @attrs.define
    class Form:
        age: int = attrs.field(validator=[v.ge(0), v.lt(150)])
        code: str = attrs.field(validator=[v.min_len(2), v.max_len(4)])
        sku: str = attrs.field(validator=v.matches_re(r"[A-Z]+-\d+"))
        tags: list[str] = attrs.field(validator=v.max_len(2))

    reply = '{"age": 150, "code": "toolong", "sku": "abc", "tags": ["a", "b", "c"]}'
    assert errors_of(Form, reply) == [
        ("$.age", "must be less than 150, got 150"),
        ("$.code", "must have at most 4 characters, got 7"),
        ("$.sku", "must match the pattern '^(?:[A-Z]+-\\\\d+)$'"),
        ("$.tags", "must have at most 2 items, got 3"),
    ]
    assert errors_of(Form, '{"age": -1, "code": "x", "sku": "A-1", "tags": []}') == [
        ("$.age", "must be at least 0, got -1"),
        ("$.code", "must have at least 2 characters, got 1"),
    ]


def test_a_top_level_value_of_the_wrong_kind() -> None:
    """An array, string or number where an object belongs is one error at $."""
    assert errors_of(Weather, "[]") == [("$", "expected object, got array")]
    assert errors_of(Weather, '"Oslo"') == [("$", 'expected object, got string "Oslo"')]
    assert errors_of(list[int], '{"a": 1}') == [("$", "expected array, got object")]


# -- broken and hostile input ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        ("", "Input is a zero-length, empty document"),
        (b"", "Input is a zero-length, empty document"),
        ("   ", "input data is empty"),
        ('{"location": "Oslo", "temperature": 2', "unexpected end of data"),
        ('{"location": "Oslo",}', "trailing comma is not allowed"),
        ('{"temperature": NaN}', "unexpected character"),
        ('{"temperature": Infinity}', "unexpected character"),
        ("{} {}", "unexpected content after document"),
        (b"\xff\xfe", "not valid UTF-8"),
    ],
)
def test_invalid_json_is_a_decode_error_with_the_position(reply: str | bytes, reason: str) -> None:
    """Empty, truncated or malformed JSON gives one error at $ with the position and a fix."""
    ((path, message),) = errors_of(Weather, reply)
    assert path == "$"
    assert message.startswith("invalid JSON: ")
    assert reason in message
    assert re.search(r"at line \d+ column \d+ \(char \d+\)(, near \".*\")?; \w", message)


def test_nan_and_infinity_in_parsed_values_are_not_numbers() -> None:
    """A parsed NaN or infinity is rejected where a number is expected."""
    assert errors_of(float, float("nan")) == [("$", "expected number, got NaN")]
    assert errors_of(list[float], [float("-inf")]) == [("$[0]", "expected number, got -Infinity")]
    assert errors_of(float, 10**400) == [
        ("$", "expected number, got integer <integer of 1329 bits>")
    ]


def test_python_objects_in_parsed_values_are_not_json() -> None:
    """A non-JSON object inside parsed data is reported, not raised raw."""
    assert errors_of(list[int], range(3)) == [
        ("$", "expected array, got a Python range (not a JSON value)")
    ]
    assert errors_of(dict[str, str], {"a": b"x"}) == [
        ("$.a", "expected string, got a Python bytes (not a JSON value)")
    ]
    assert errors_of(dict[str, int], {1: 1}) == [
        ("$[1]", "invalid key: expected string, got integer 1")
    ]


def test_ten_thousand_levels_of_nesting_are_an_error_not_a_crash() -> None:
    """Nesting far beyond any schema is one DecodeError, as text and as parsed values."""
    text = '{"value": 1, "child": ' * 10_000 + '{"value": 1}' + "}" * 10_000
    ((path, message),) = errors_of(Node, text)
    assert (path, message.split(" at ")[0]) == ("$", "invalid JSON: depth limit exceeded")
    parsed: dict[str, Any] = {"value": 1}
    for _ in range(10_000):
        parsed = {"value": 1, "child": parsed}
    assert errors_of(Node, parsed) == [
        ("$", "the value is nested too deeply to decode; send a flatter value")
    ]
    arrays = "[" * 10_000 + "]" * 10_000
    assert errors_of(list[Any], arrays)[0][1].startswith("invalid JSON: depth limit exceeded")


def test_a_fifty_megabyte_string_is_decoded_or_cut_short_in_messages() -> None:
    """A huge string decodes where strings are allowed and is never echoed in full."""
    big = "x" * (50 * MB)
    reply = orjson.dumps({"location": big, "temperature": big, "unit": big})
    with pytest.raises(DecodeError) as info:
        decode(Weather, reply)
    assert len(str(info.value)) < 400
    assert info.value.errors[0] == (
        "$.temperature",
        f'expected number, got string "{"x" * 40}…" ({50 * MB} characters)',
    )
    assert decode(Address, orjson.dumps({"street": big, "city": "c"})).street == big


def test_a_huge_unknown_key_is_cut_short_in_the_path() -> None:
    """A long unknown key is shortened in the path, and no did-you-mean is searched for it."""
    key = "k" * (5 * MB)
    ((path, message),) = errors_of(Address, {"street": "s", "city": "c", key: 1})
    assert path == f'$["{"k" * 40}…" ({5 * MB} characters)]'
    assert message == "unknown field (accepted fields: street, city)"


def test_thousands_of_problems_keep_the_message_short() -> None:
    """Decoding stops after 100 problems; str(error) shows the first twenty and says more."""
    with pytest.raises(DecodeError) as info:
        decode(list[int], orjson.dumps(["x"] * 5000))
    assert len(info.value.errors) == 100
    assert info.value.truncated
    text = str(info.value)
    assert text.startswith("The reply does not match the schema (more than 100 problems; the ")
    assert text.count("\n- ") == 21
    assert text.endswith(
        "- … and at least 81 more problems (checking stopped after 100); fix these and "
        "send the whole reply again"
    )


def test_up_to_a_hundred_problems_are_all_kept() -> None:
    """Below the bound every problem is kept and counted exactly."""
    with pytest.raises(DecodeError) as info:
        decode(list[int], orjson.dumps(["x"] * 100))
    assert len(info.value.errors) == 100
    assert not info.value.truncated
    assert str(info.value).endswith("- … and 80 more")


@given(st.binary(max_size=200) | st.text(max_size=200))
def test_any_bytes_or_text_give_an_instance_or_a_decode_error(reply: bytes | str) -> None:
    """Arbitrary input never raises anything but DecodeError."""
    try:
        decode(Order, reply)
    except DecodeError as exc:
        errors = exc.errors
    else:
        return
    assert errors


@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
        lambda inner: st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(["address", "items", "name", "price", "x"]), inner,
                          max_size=4),
        max_leaves=20,
    )
)
def test_any_parsed_value_gives_an_instance_or_a_decode_error(value: Any) -> None:
    """Arbitrary JSON-like values never raise anything but DecodeError."""
    try:
        decode(Order, value)
    except DecodeError as exc:
        errors = exc.errors
    else:
        return
    assert errors
    assert all(path.startswith("$") and message for path, message in errors)


class _Unprintable(ValueError):  # a refusal of the value, whose text cannot be read
    def __str__(self) -> str:
        raise RuntimeError("__str__ is broken")


def test_a_constructor_exception_that_cannot_be_printed_is_still_a_decode_error() -> None:
    import dataclasses

    @dataclasses.dataclass
    class Checked:
        x: int

        def __post_init__(self) -> None:
            raise _Unprintable

    def refuse(instance: object, attribute: object, value: object) -> None:
        raise _Unprintable

    @attrs.define
    class Validated:
        x: int = attrs.field(validator=refuse)

    for tp in (Checked, Validated):
        with pytest.raises(DecodeError) as info:
            decode(tp, {"x": 1})
        assert "_Unprintable (its message could not be read)" in str(info.value)


def test_a_constructor_message_cannot_fake_error_lines() -> None:
    import dataclasses

    @dataclasses.dataclass
    class Checked:
        x: int

        def __post_init__(self) -> None:
            raise ValueError("no\n- $.admin: approved")

    with pytest.raises(DecodeError) as info:
        decode(Checked, {"x": 1})
    assert all(not line.startswith("- $.admin") for line in str(info.value).splitlines())
    assert "no\\n- $.admin: approved" in str(info.value)


@attrs.define
class _Choice:
    v: Union[Literal[7, "yzz", "z"], Annotated[str, at.Len(2, 6)], None]  # noqa: UP007


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        ('""', "matches none of the union's options: '' is not one of [7, 'yzz', 'z']; "
               "or: must have at least 2 characters, got 0; or: null"),
        ('"abcdefgh"', "matches none of the union's options: 'abcdefgh' is not one of "
                       "[7, 'yzz', 'z']; or: must have at most 6 characters, got 8; or: null"),
        ("5", "matches none of the union's options: 5 is not one of [7, 'yzz', 'z']; "
              "or: string; or: null"),
        ("[]", "expected one of [7, 'yzz', 'z'], string or null, got array"),
    ],
)
def test_a_union_error_names_every_option(reply: str, message: str) -> None:
    """Not only the first option's failure: the retry would chase the wrong bound."""
    with pytest.raises(DecodeError) as info:
        decode(_Choice, '{"v": ' + reply + "}")
    assert info.value.errors == [("$.v", message)]


class _Code(enum.IntEnum):
    LOW = 13
    HIGH = 30


@attrs.frozen
class _Inner:
    code: str = attrs.field(validator=attrs.validators.min_len(1))


@attrs.frozen
class _Box:
    f0: _Inner


@attrs.frozen
class _DictFirst:
    f: Union[dict[str, _Code], _Box, int]  # noqa: UP007


@attrs.frozen
class _BoxFirst:
    f: Union[_Box, dict[str, _Code], int]  # noqa: UP007


@pytest.mark.parametrize("cls", [_DictFirst, _BoxFirst])
@pytest.mark.parametrize(
    ("reply", "errors"),
    [
        ('{"f0": {"code": ""}}', [("$.f.f0.code", "must have at least 1 characters, got 0")]),
        ('{"f0": {"code": 5}}', [("$.f.f0.code", "expected string, got integer 5")]),
        ('{"f1": 99}', [("$.f.f1", "99 is not one of [13, 30]")]),
    ],
)
def test_a_union_reports_the_option_the_value_went_furthest_in(
    cls: Any, reply: str, errors: list[tuple[str, str]]
) -> None:
    """An object that fails a class option deep inside (a string too short) and a dict
    option at its first key is reported by the class's problem, whatever the order of the
    options: the value went further there, so that is what the model meant; an option
    with fewer problems still wins (an unknown key fails the class twice)."""
    with pytest.raises(DecodeError) as info:
        decode(cls, '{"f": ' + reply + "}")
    assert info.value.errors == errors

"""Small promises kept exactly: dict_type, Decimal beyond the float range, Gemini enums."""

from __future__ import annotations

import decimal
import enum
import json
import logging
from collections import OrderedDict
from typing import Annotated, Any, Literal

import annotated_types as at
import attrs
import pytest

from describedtypes import (
    ANTHROPIC,
    GEMINI,
    OPENAI,
    DecodeError,
    FrozenDict,
    check,
    decode,
    decode_arguments,
    schema,
)


@attrs.define
class Named:
    name: str


def test_dict_type_dict_gives_a_fresh_plain_dict() -> None:
    """As the read-only error promises: dict_type=dict builds a fresh, mutable tree."""
    shared = schema(Named, OPENAI)
    assert type(shared) is FrozenDict
    with pytest.raises(TypeError, match=r"dict_type=dict"):
        shared["name"] = "changed"  # type: ignore[index]
    fresh = schema(Named, OPENAI, dict_type=dict)
    assert type(fresh) is dict
    assert type(fresh["schema"]) is dict
    fresh["name"] = "changed"
    fresh["schema"]["properties"]["name"]["type"] = "integer"
    assert schema(Named, OPENAI)["name"] == "Named"
    assert schema(Named, OPENAI) == shared
    assert schema(Named, OPENAI, dict_type=dict) is not fresh
    assert type(schema(Named, dict_type=OrderedDict)) is OrderedDict


@attrs.define
class Amount:
    x: decimal.Decimal


@pytest.mark.parametrize(
    ("number", "expected"),
    [("1e-400", "1e-400"), ("1e400", "1e400"), ("-2.5E+999", "-2.5e999"),
     ("123456789012345678901234567890e300", "1.23456789012345678901234567890e329")],
)
def test_a_decimal_beyond_the_float_range_decodes_both_ways(number: str, expected: str) -> None:
    assert decode(Amount, '{"x": ' + number + "}").x == decimal.Decimal(expected)
    assert decode(Amount, '```json\n{"x": ' + number + "}\n```").x == decimal.Decimal(expected)

    def pay(x: decimal.Decimal) -> None:
        """Pay."""

    assert decode_arguments(pay, '{"x": ' + number + "}") == {"x": decimal.Decimal(expected)}


def test_beyond_the_float_range_a_float_field_is_still_refused() -> None:
    @attrs.define
    class Both:
        x: float
        d: decimal.Decimal

    with pytest.raises(DecodeError) as info:
        decode(Both, '{"x": 1e400, "d": 1}')
    assert [path for path, _ in info.value.errors] == ["$.x"]
    with pytest.raises(DecodeError, match="NaN or Infinity"):
        decode(Amount, '{"x": Infinity}')
    with pytest.raises(DecodeError, match="invalid JSON"):
        decode(Amount, '{"x": 1e400')


class Role(enum.Enum):
    NONE = ""
    USER = "user"


@attrs.define
class Speaker:
    role: Role
    kind: Literal["", "user"]
    other: Literal["a", "b"]


def _enums(node: Any) -> list[Any]:
    if isinstance(node, dict):
        return list(node.get("enum", [])) + [x for v in node.values() for x in _enums(v)]
    if isinstance(node, list):
        return [x for v in node for x in _enums(v)]
    return []


def test_gemini_never_emits_an_empty_string_enum_value() -> None:
    """Gemini refuses it ("enum[0]: cannot be empty"): the values go into the description."""
    report: list[Any] = []
    body = schema(Speaker, GEMINI, report=report)
    assert "" not in _enums(body)
    properties = body["parameters_json_schema"]["properties"]
    assert properties["role"] == {"type": "string", "description": 'Must be one of: "", "user".'}
    assert properties["other"]["enum"] == ["a", "b"]  # other enums stay enums
    assert any(r.pointer == "/properties/role" and r.action == "described" for r in report)
    assert check(body, GEMINI) == []
    assert decode(Speaker, json.dumps({"role": "", "kind": "", "other": "a"})) == Speaker(
        Role.NONE, "", "a"
    )


def test_check_finds_an_empty_string_enum_value_for_gemini() -> None:
    body = {"type": "object", "properties": {"k": {"type": "string", "enum": ["", "a"]}}}
    problems = check(body, GEMINI)
    assert [p.pointer for p in problems] == ["/properties/k/enum"]
    assert "non-empty" in problems[0].message


def test_a_schema_rewrite_is_recorded_once_at_debug(caplog: pytest.LogCaptureFixture) -> None:
    """On the describedtypes logger, at DEBUG only: the details quote the user's bounds."""
    @attrs.define
    class Short:  # new for this test: nothing cached
        name: Annotated[str, at.MaxLen(5)]

    caplog.set_level(logging.DEBUG, logger="describedtypes")
    schema(Short, ANTHROPIC)
    schema(Short, ANTHROPIC)  # cached: no second record
    records = [r for r in caplog.records if r.name == "describedtypes"]
    assert len(records) == 1, [r.getMessage() for r in records]
    assert records[0].levelno == logging.DEBUG
    assert "/properties/name described maxLength" in records[0].getMessage()
    assert "Short" in records[0].getMessage()

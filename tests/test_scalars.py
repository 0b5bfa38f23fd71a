"""The scalar table: one row per scalar type says what every layer does with it."""

from __future__ import annotations

import ast
import dataclasses
import datetime
import decimal
import enum
import uuid
from pathlib import Path
from typing import Any

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from describedtypes import OPENAI, STANDARD, DecodeError, decode, encode, schema
from describedtypes._types.scalars import (
    SCALARS,
    STRING,
    as_bound,
    is_number,
    scalar_for,
    scalar_of_value,
)

SOURCE = Path(__file__).resolve().parent.parent / "src" / "describedtypes"

offsets = st.integers(-23 * 60 - 59, 23 * 60 + 59).map(
    lambda m: datetime.timezone(datetime.timedelta(minutes=m))
)
zones = st.none() | offsets

#: A value of every row's type, as a model could send it and encode() writes it.
VALUES: dict[type, st.SearchStrategy[Any]] = {
    str: st.text(max_size=20),
    int: st.integers(-(2**53), 2**53),
    float: st.floats(allow_nan=False, allow_infinity=False),
    bool: st.booleans(),
    datetime.datetime: st.datetimes(timezones=zones),
    datetime.date: st.dates(),
    datetime.time: st.times(timezones=zones),
    uuid.UUID: st.uuids(),
    decimal.Decimal: st.decimals(allow_nan=False, allow_infinity=False, places=4),
}


def test_every_row_has_a_value_strategy_here() -> None:
    """The tests below cover every row: a new scalar needs its values here too."""
    assert {row.python_type for row in SCALARS} == set(VALUES)


@pytest.mark.parametrize("row", SCALARS, ids=lambda r: r.python_type.__name__)
def test_the_schema_says_what_the_row_says(row: Any) -> None:
    """A field of the row's type gets the row's JSON type, format and pattern."""
    holder = dataclasses.make_dataclass("Holder", [("x", row.python_type)])
    prop = schema(holder, STANDARD)["properties"]["x"]
    assert prop["type"] == row.json_type
    assert prop.get("format") == row.format
    assert prop.get("pattern") == row.pattern


@pytest.mark.parametrize("row", SCALARS, ids=lambda r: r.python_type.__name__)
@given(data=st.data())
def test_what_write_writes_read_reads_back(row: Any, data: st.DataObject) -> None:
    """For every row, decoding the encoded value gives the value back (written by the
    row's ``write``, read by its ``read`` or as the JSON value itself)."""
    value = data.draw(VALUES[row.python_type])
    written = value if row.write is None else row.write(value)
    if row.read is not None:
        assert isinstance(written, str)
        assert row.read(written) == value
    assert decode(row.python_type, encode(value)) == value


def test_holds_tells_the_json_kinds_apart() -> None:
    """``True`` is no int, a date-time is no date, and 1 is a float (JSON has one number)."""
    assert not scalar_for(int).holds(True)  # type: ignore[union-attr]
    assert scalar_for(float).holds(1)  # type: ignore[union-attr]
    assert not scalar_for(float).holds(False)  # type: ignore[union-attr]
    date_row = scalar_for(datetime.date)
    assert date_row is not None
    assert date_row.holds(datetime.date(2024, 1, 31))
    assert not date_row.holds(datetime.datetime(2024, 1, 31, 9, 30))


def test_a_value_of_a_subclass_reads_as_its_nearest_base() -> None:
    """An IntEnum member is an int, a bool a bool, a datetime subclass a date-time."""

    class Level(enum.IntEnum):
        LOW = 1

    class Stamp(datetime.datetime):
        pass

    assert scalar_of_value(Level.LOW) is scalar_for(int)
    assert scalar_of_value(True) is scalar_for(bool)
    assert scalar_of_value(Stamp(2024, 1, 1)) is scalar_for(datetime.datetime)
    assert scalar_of_value(object()) is None
    assert scalar_for([]) is None  # unhashable: no row, no TypeError
    assert scalar_for(str) is STRING


def test_bounds_are_numbers_of_the_rows_that_take_them() -> None:
    """A numeric bound is a finite int, float or Decimal; a Decimal bound on an int field
    becomes the number it equals, and stays a Decimal on a Decimal field."""
    assert is_number(3)
    assert is_number(2.5)
    assert is_number(decimal.Decimal("1.5"))
    assert not is_number(True)
    assert not is_number(float("nan"))
    assert not is_number(decimal.Decimal("Infinity"))
    assert not is_number("3")
    assert as_bound(decimal.Decimal("4"), number_text=False) == 4
    assert isinstance(as_bound(decimal.Decimal("4"), number_text=False), int)
    assert as_bound(decimal.Decimal("4.5"), number_text=False) == 4.5
    assert as_bound(decimal.Decimal("4.5"), number_text=True) == decimal.Decimal("4.5")


ONE = uuid.UUID(int=1)


@attrs.define
class Dated:
    when: datetime.date = datetime.date(2024, 1, 31)
    at: datetime.time = datetime.time(9, 30, tzinfo=datetime.timezone.utc)
    key: uuid.UUID = ONE
    price: decimal.Decimal = decimal.Decimal("12.50")
    nothing: decimal.Decimal = decimal.Decimal("NaN")


def test_defaults_are_stated_where_json_has_the_value() -> None:
    """STANDARD states a Decimal's default as its digits and leaves out the defaults JSON
    has no value for (a date, a time, a UUID, a NaN); strict adapters state none."""
    props = schema(Dated, STANDARD)["properties"]
    assert props["price"]["default"] == "12.50"
    for name in ("when", "at", "key", "nothing"):
        assert "default" not in props[name]
    assert decode(Dated, {"nothing": "1"}) == Dated(nothing=decimal.Decimal("1"))
    strict = schema(Dated, OPENAI)["schema"]["properties"]
    assert all("default" not in p for p in strict.values())


@pytest.mark.parametrize("row", SCALARS, ids=lambda r: r.python_type.__name__)
def test_a_decode_error_names_what_the_row_expected(row: Any) -> None:
    """A value of the wrong kind or text is refused in the row's own words."""
    wrong = "5" if row is STRING else '"soon"'
    with pytest.raises(DecodeError) as info:
        decode(row.python_type, wrong)
    assert f"expected {row.expected}, got" in str(info.value)


_TYPE_MODULES = {"decimal", "datetime", "uuid"}


def _identity_tests(tree: ast.AST) -> list[str]:
    """``x is decimal.Decimal``-style comparisons: a scalar recognised by identity."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare) and any(
            isinstance(op, (ast.Is, ast.IsNot)) for op in node.ops
        ):
            for side in (node.left, *node.comparators):
                if (
                    isinstance(side, ast.Attribute)
                    and isinstance(side.value, ast.Name)
                    and side.value.id in _TYPE_MODULES
                ):
                    found.append(f"line {node.lineno}: {ast.unparse(node)}")
    return found


def test_no_module_but_the_table_recognises_a_scalar_by_identity() -> None:
    """Every module asks the scalar table what a Decimal, date or UUID is; none compares
    a type with ``is`` (the table's own module and its readers of RFC 3339 aside)."""
    offenders = {}
    for path in SOURCE.rglob("*.py"):
        if path.name == "scalars.py":
            continue
        found = _identity_tests(ast.parse(path.read_text(encoding="utf-8")))
        if found:
            offenders[str(path.relative_to(SOURCE))] = found
    assert offenders == {}

"""encode() picks a union option by the value, and what it writes decodes back equal."""

from __future__ import annotations

import decimal
import uuid
from typing import Any, NamedTuple, TypedDict, Union

import attrs
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from describedtypes import decode, encode

from .strategies import classes


class Pair(NamedTuple):
    a: int
    b: int


class Named(TypedDict):
    k: int


@attrs.define
class UuidsOrInts:
    v: Union[list[uuid.UUID], list[int]]  # noqa: UP007 - the form users write too


@attrs.define
class IntsOrDecimals:
    v: Union[list[int], list[decimal.Decimal]]  # noqa: UP007


@attrs.define
class StrIntsOrNamed:
    v: Union[dict[str, int], Named]  # noqa: UP007


@attrs.define
class NamedOrDecimalKeys:
    v: Union[Named, dict[decimal.Decimal, int]]  # noqa: UP007


@attrs.define
class IntsOrPair:
    v: Union[list[int], Pair]  # noqa: UP007


@attrs.define
class DecimalsOrStrs:
    v: Union[list[decimal.Decimal], list[str]]  # noqa: UP007


ROUND_TRIPS = [
    UuidsOrInts([4]),
    UuidsOrInts([uuid.UUID(int=7)]),
    IntsOrDecimals([decimal.Decimal("1.5")]),
    IntsOrDecimals([3]),
    StrIntsOrNamed({"k": 1}),
    StrIntsOrNamed({"x": 1, "y": 2}),
    NamedOrDecimalKeys({decimal.Decimal("1.5"): 1}),
    NamedOrDecimalKeys({"k": 2}),
    IntsOrPair(Pair(1, 2)),
    IntsOrPair([1, 2]),
    DecimalsOrStrs([decimal.Decimal("2.5")]),
    DecimalsOrStrs(["a"]),
]


@pytest.mark.parametrize("value", ROUND_TRIPS, ids=repr)
def test_a_union_of_containers_is_written_by_the_option_that_holds_the_value(value: Any) -> None:
    assert decode(type(value), encode(value)) == value


@pytest.mark.parametrize(
    ("value", "words"),
    [
        # No option holds it: an error, never a silently emptied value.
        (StrIntsOrNamed({decimal.Decimal("1.5"): 1}), "none of the types"),
        # list[Decimal] would read "0" back as Decimal("0"): refused, not written wrong.
        (DecimalsOrStrs(["0"]), "decodes as another of the union's options"),
    ],
)
def test_a_value_that_would_not_decode_back_is_refused(value: Any, words: str) -> None:
    with pytest.raises(TypeError, match=words):
        encode(value)


@pytest.mark.slow  # 300 generated types and values
@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_every_value_encode_writes_decodes_back_equal(data: st.DataObject) -> None:
    """Over random class trees with unions of containers: decode(T, encode(x)) == x.

    Where the options of a union overlap (``list[Decimal] | list[str]`` both read
    ``["0"]``), encode refuses a value that would come back different; it never writes one.
    """
    # The top is a class (a TypedDict value is a plain dict: encode() cannot know its type).
    kind = data.draw(st.sampled_from(["attrs", "dataclass"]))
    cls, values = data.draw(classes(kind=kind, more_types=True, unions=True))
    x = data.draw(values)
    try:
        text = encode(x)
    except TypeError as exc:
        refusal = str(exc)
    else:
        refusal = ""
    if refusal:
        assert "decodes as another of the union's options" in refusal, refusal
        event("refused: the options overlap")
        return
    event("written")
    assert decode(cls, text) == x, text

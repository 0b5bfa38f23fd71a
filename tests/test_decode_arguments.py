"""decode_arguments(): a function's parameters object, checked and decoded for the tools layer."""

from __future__ import annotations

import enum
from typing import Any

import attrs
import pytest

from describedtypes import Annotation, DecodeError, annotate
from describedtypes._codec.decode import decode_arguments
from describedtypes.inspect import ObjectNode, type_info


class Unit(enum.Enum):
    CELSIUS = "celsius"
    FAHRENHEIT = "fahrenheit"


@attrs.define
class Location:
    city: str
    country: str | None = None


def forecast(
    location: Location,
    days: int,
    unit: Unit = Unit.CELSIUS,
    note: str | None = None,
    limit: int | None = 5,
) -> str:
    """Forecast for a place."""
    return f"{location.city} {days} {unit} {note} {limit}"


def node_of(func: Any) -> ObjectNode:
    node = type_info(func)
    assert isinstance(node, ObjectNode)
    return node


def test_supplied_arguments_come_back_decoded_by_parameter_name() -> None:
    """Nested classes and enums are built; only the supplied parameters are returned."""
    args = decode_arguments(
        node_of(forecast),
        '{"location": {"city": "Oslo"}, "days": 3, "unit": "fahrenheit"}',
    )
    assert args == {"location": Location("Oslo"), "days": 3, "unit": Unit.FAHRENHEIT}
    assert forecast(**args) == "Oslo 3 Unit.FAHRENHEIT None 5"


def test_absent_optional_parameters_are_left_to_python_defaults() -> None:
    """A nullable or defaulted parameter the model left out is not passed at all."""
    args = decode_arguments(node_of(forecast), {"location": {"city": "Rome"}, "days": 1})
    assert args == {"location": Location("Rome"), "days": 1}


def test_explicit_null_is_passed_for_a_nullable_parameter() -> None:
    """A null the model sent for a nullable parameter is passed as None."""
    args = decode_arguments(
        node_of(forecast), {"location": {"city": "Rome"}, "days": 1, "limit": None}
    )
    assert args["limit"] is None


def test_every_problem_is_reported_with_the_accepted_parameter_names() -> None:
    """Missing, unknown and mistyped arguments are reported together, naming the parameters."""
    with pytest.raises(DecodeError) as info:
        decode_arguments(node_of(forecast), '{"locaton": {"city": "Oslo"}, "days": "3"}')
    errors = dict(info.value.errors)
    assert errors["$.location"] == "missing required argument"
    assert errors["$.days"] == 'expected integer, got string "3"'
    assert errors["$.locaton"] == (
        "unknown argument; did you mean 'location'? "
        "(accepted parameters: location, days, unit, note, limit)"
    )
    assert len(info.value.errors) == 3


def test_keys_are_the_annotated_names_and_results_the_python_names() -> None:
    """A parameter renamed by an annotation is read by its new name and returned by its own."""

    def search(q: str, max_results: int = 10) -> list[str]:
        return [q] * max_results

    annotate.register(search, Annotation(parameters={"q": Annotation(name="query")}))
    try:
        node = node_of(search)
        assert decode_arguments(node, '{"query": "cats"}') == {"q": "cats"}
        with pytest.raises(DecodeError) as info:
            decode_arguments(node, '{"q": "cats"}')
        assert info.value.errors[0] == ("$.query", "missing required argument")
        assert info.value.errors[1][1].startswith("unknown argument; did you mean 'query'?")
    finally:
        annotate.unregister(search)


def test_blank_text_means_no_arguments() -> None:
    """An empty arguments string (some models send it for no-argument calls) is {}."""

    def ping() -> str:
        return "pong"

    assert decode_arguments(node_of(ping), "") == {}
    assert decode_arguments(node_of(ping), b"  ") == {}
    assert decode_arguments(node_of(ping), "{}") == {}


def test_arguments_that_are_not_an_object_are_rejected() -> None:
    """A JSON array or scalar in place of the arguments object is a DecodeError naming them."""
    with pytest.raises(DecodeError) as info:
        decode_arguments(node_of(forecast), "[1, 2]")
    assert info.value.errors == [
        ("$", "expected an object of named arguments (location, days, unit, note, limit), "
              "got array")
    ]


def test_invalid_json_arguments_report_the_position() -> None:
    """Truncated argument text is a DecodeError with the parser's position."""
    with pytest.raises(DecodeError) as info:
        decode_arguments(node_of(forecast), '{"days": 3')
    ((path, message),) = info.value.errors
    assert path == "$"
    assert message.startswith("invalid JSON: ")
    assert "line 1 column" in message

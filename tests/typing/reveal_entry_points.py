"""Never executed: tests/test_typing.py runs mypy and pyright on it and compares each
revealed type with the ``# expect:`` text beside it (module prefixes and ``builtins.``
left out; a ``pyright:`` part where pyright spells the type differently)."""

from __future__ import annotations

import dataclasses
import enum
from collections import OrderedDict
from collections.abc import Mapping
from decimal import Decimal
from typing import Any, NamedTuple

import attrs
from typing_extensions import TypedDict, reveal_type

from describedtypes import (
    decode,
    decode_arguments,
    decode_response,
    decode_stream,
    extract,
    extract_stream,
    schema,
)


@attrs.define
class Weather:
    location: str
    temperature: float


@dataclasses.dataclass
class Price:
    amount: Decimal


class Movie(TypedDict):
    title: str


class Point(NamedTuple):
    x: int
    y: int


class Perm(enum.Flag):
    READ = 1
    WRITE = 2


def get_weather(city: str) -> Weather:
    return Weather(city, 21.5)


def fresh_mapping() -> dict[str, Any]:
    return {}


raw = '{"location": "Paris", "temperature": 21.5}'
response: dict[str, Any] = {}

reveal_type(decode(Weather, raw))  # expect: Weather
reveal_type(decode(Weather, b"{}", converter=None))  # expect: Weather
reveal_type(decode(Price, raw))  # expect: Price
reveal_type(decode(Point, raw))  # expect: tuple[int, int, fallback=Point]  pyright: Point
reveal_type(decode(Movie, raw))  # expect: TypedDict(Movie, {'title': str})  pyright: Movie
reveal_type(decode(Perm, raw))  # expect: Perm
reveal_type(decode(int, "1"))  # expect: int
reveal_type(decode(Decimal, '"1.5"'))  # expect: decimal.Decimal  pyright: Decimal
reveal_type(decode(list[Weather], "[]"))  # expect: list[Weather]
reveal_type(decode_response(Weather, response))  # expect: Weather
reveal_type(decode_response(list[int], response))  # expect: list[int]
reveal_type(decode_arguments(get_weather, '{"city": "Paris"}'))  # expect: dict[str, Any]
reveal_type(schema(Weather))  # expect: typing.Mapping[str, Any]  pyright: Mapping[str, Any]
reveal_type(schema(Weather, dict_type=OrderedDict))  # expect: typing.Mapping[str, Any]  pyright: Mapping[str, Any]
reveal_type(schema(Weather, dict_type=fresh_mapping))  # expect: typing.Mapping[str, Any]  pyright: Mapping[str, Any]


client: Any = None
reveal_type(extract(Weather, client, messages=[], model="m"))  # expect: Weather
reveal_type(extract(list[Weather], client, messages=[], model="m"))  # expect: list[Weather]
reveal_type(extract(Weather, client, messages=[], model="m", details=True))  # expect: describedtypes._ask.results.Extraction[Weather]  pyright: Extraction[Weather]
reveal_type(extract_stream(Weather, client, messages=[], model="m"))  # expect: describedtypes._ask.stream.ExtractStream[Weather]  pyright: ExtractStream[Weather]
reveal_type(decode_stream(Weather, ["{}"]))  # expect: typing.Iterator[Weather | describedtypes._codec.partial.Partial[Weather]]  pyright: Iterator[Weather | Partial[Weather]]


def typed_result(text: str) -> Weather:
    # Under --strict this would fail with no-any-return if decode returned Any.
    return decode(Weather, text)


def typed_schema() -> Mapping[str, Any]:
    return schema(get_weather)

"""The types of DescribedTypes.jl's guide, with their annotations."""

from __future__ import annotations

import enum

import attrs

from describedtypes import Annotation, annotate


@attrs.define
class Weather:
    location: str
    temperature: float
    unit: str


WEATHER = Annotation(
    name="Weather",
    description="Current weather observation.",
    parameters={
        "location": Annotation(name="location", description="City name"),
        "temperature": Annotation(name="temperature", description="Temperature value"),
        "unit": Annotation(
            name="unit", description="Unit of measurement", enum=["celsius", "fahrenheit"]
        ),
    },
)


@attrs.define
class Query:
    text: str
    max_tokens: int | None


QUERY = Annotation(
    name="Query",
    description="A search query.",
    parameters={
        "text": Annotation(name="text", description="The query string"),
        "max_tokens": Annotation(name="max_tokens", description="Optional token limit"),
    },
)


class Color(enum.Enum):
    red = "red"
    green = "green"
    blue = "blue"


@attrs.define
class Palette:
    primary: Color


PALETTE = Annotation(
    name="Palette",
    description="A color palette.",
    parameters={"primary": Annotation(name="primary", description="The primary color")},
)


@attrs.define
class Shirt:
    color: str


SHIRT = Annotation(
    name="Shirt",
    description="A shirt.",
    parameters={
        "color": Annotation(name="color", description="Shirt color", enum=["red", "green", "blue"])
    },
)


@attrs.define
class Address:
    street: str
    city: str


@attrs.define
class Person:
    name: str
    address: Address


def register_all() -> None:
    """Register the guide's annotations (Palette's only where the guide does)."""
    annotate.register(Weather, WEATHER)
    annotate.register(Query, QUERY)
    annotate.register(Shirt, SHIRT)

"""An example type for the command line: python -m describedtypes schema examples/weather.py:Weather"""

from __future__ import annotations

import enum

import attrs

from describedtypes import Annotation, annotate


class Unit(enum.Enum):
    CELSIUS = "celsius"
    FAHRENHEIT = "fahrenheit"


@attrs.define
class Location:
    """Where the observation was made."""

    city: str = attrs.field(metadata={"description": "City name"})
    country: str | None = attrs.field(default=None, metadata={"description": "ISO country code"})


@attrs.define
class Weather:
    """Current weather observation."""

    location: Location
    temperature: float = attrs.field(validator=attrs.validators.ge(-273.15))
    unit: Unit = Unit.CELSIUS


annotate.register(
    Weather,
    Annotation(parameters={"temperature": Annotation(description="Temperature value")}),
)

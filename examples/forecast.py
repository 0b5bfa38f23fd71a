"""A richer example for the command line: nested classes, a list, an enum, a bound.

    python -m describedtypes schema examples/forecast.py:Forecast --adapter openai --references
    python -m describedtypes graph examples/forecast.py:Forecast
"""

from __future__ import annotations

import datetime
import enum

import attrs


class Unit(enum.Enum):
    CELSIUS = "celsius"
    FAHRENHEIT = "fahrenheit"


@attrs.define
class Location:
    """Where the forecast is for."""

    city: str = attrs.field(metadata={"description": "City name"})
    country: str | None = attrs.field(default=None, metadata={"description": "ISO country code"})


@attrs.define
class Day:
    """The forecast for one day."""

    date: datetime.date
    high: float = attrs.field(validator=attrs.validators.ge(-273.15))
    low: float = attrs.field(validator=attrs.validators.ge(-273.15))


@attrs.define
class Forecast:
    """A weather forecast for one place, day by day."""

    location: Location
    days: list[Day]
    unit: Unit = Unit.CELSIUS

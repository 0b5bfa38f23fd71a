"""A Toolbox for the command line's ``mcp`` command (docs/mcp.md).

    python -m describedtypes mcp examples/weather_tools.py:toolbox
    python -m describedtypes mcp --http 127.0.0.1:8000 examples/weather_tools.py:toolbox
"""

from __future__ import annotations

import dataclasses
import enum

from describedtypes import Toolbox


class Unit(enum.Enum):
    CELSIUS = "celsius"
    FAHRENHEIT = "fahrenheit"


@dataclasses.dataclass
class Weather:
    city: str
    temperature: float
    unit: Unit


def get_weather(city: str, unit: Unit = Unit.CELSIUS) -> Weather:
    """Get the current weather in a city.

    Args:
        city: City name, e.g. "Paris".
        unit: Temperature unit.
    """
    return Weather(city=city, temperature=21.5, unit=unit)


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


toolbox = Toolbox([get_weather, add], timeout=10)

"""The README's example type, for the command line.

    python -m describedtypes schema examples/weather.py:Weather --adapter openai

prints the same schema as the tour in README.md: this is the tour's ``Weather``.
"""

from __future__ import annotations

import attrs

from describedtypes import Annotation, annotate


@attrs.define
class Weather:
    """Current weather observation."""

    location: str
    temperature: float
    unit: str


annotate.register(Weather, Annotation(parameters={
    "location": Annotation(description="City name"),
    "unit": Annotation(description="Unit of measurement", enum=["celsius", "fahrenheit"]),
}))

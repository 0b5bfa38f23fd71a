"""A toolbox built in a subprocess for the determinism tests: annotations are registered
in the order ``DT_ORDER`` gives (indexes, comma-separated), tools in the order
``DT_TOOLS`` gives; prints the definitions' bytes for several adapters, one line each."""

from __future__ import annotations

import enum
import os
import sys
from typing import Literal

import attrs

from describedtypes import (
    ANTHROPIC_TOOLS,
    GEMINI,
    MCP_TOOLS,
    OPENAI_CHAT_TOOLS,
    OPENAI_TOOLS,
    VLLM_TOOLS,
    Annotation,
    Registry,
    Toolbox,
)


class Unit(enum.Enum):
    CELSIUS = "celsius"
    FAHRENHEIT = "fahrenheit"


@attrs.define
class Place:
    city: str
    country: str | None = None
    tags: frozenset[str] = frozenset()


@attrs.define
class Window:
    start: int
    end: int
    labels: set[Literal["a", "b", "c"]] = attrs.field(factory=set)


def forecast(place: Place, window: Window, unit: Unit = Unit.CELSIUS) -> str:
    """Forecast for a place."""
    return ""


def book(place: Place, seats: int, notes: dict[str, int] | None = None) -> str:
    """Book seats."""
    return ""


def search(query: str, kinds: list[Literal["x", "y"]] | None = None) -> list[str]:
    """Search."""
    return []


ANNOTATIONS = [
    (Place, Annotation(description="A place.",
                       parameters={"city": Annotation(description="City.")})),
    (Window, Annotation(description="A window.")),
    (forecast, Annotation(parameters={"unit": Annotation(description="Unit.")})),
    (book, Annotation(description="Book seats for a place.")),
    (search, Annotation(name="find")),
]
TOOLS = [forecast, book, search]


def main() -> None:
    registry = Registry(name="determinism")
    order = [int(i) for i in os.environ.get("DT_ORDER", "0,1,2,3,4").split(",")]
    for i in order:
        registry.register(*ANNOTATIONS[i])
    tools = [TOOLS[int(i)] for i in os.environ.get("DT_TOOLS", "0,1,2").split(",")]
    box = Toolbox(tools, registry=registry)
    import orjson

    for adapter in (OPENAI_TOOLS, OPENAI_CHAT_TOOLS, ANTHROPIC_TOOLS, GEMINI, MCP_TOOLS,
                    VLLM_TOOLS):
        sys.stdout.write(orjson.dumps(box.definitions(adapter, order="name")).decode() + "\n")
        sys.stdout.write(orjson.dumps(box.definitions(adapter, use_references=True,
                                                      order="name")).decode() + "\n")


if __name__ == "__main__":
    main()

"""The toolbox tests/test_mcp.py serves: in memory, over stdio and over HTTP (a subprocess
loads it as ``tests.mcp_tools:toolbox`` or ``tests/mcp_tools.py:toolbox``).

Good, wrong, raising, slow (async and sync), Context, long, lying, exiting, unannotated
and recursive tools; the timeout is short so the slow scenarios stay fast.
"""

from __future__ import annotations

import asyncio
import dataclasses
import datetime
import enum
import subprocess
import sys
import time
from typing import Any

from describedtypes import MCP_ELICITATION, Context, Toolbox, decode, schema

# Printed while TARGET is imported: over stdio it must not reach the wire.
print("mcp_tools imported")

#: Seconds any call may take: short, so the timeout scenarios cost little, yet ten times
#: what the quick tools need on a busy machine (a call that should finish never times out).
TIMEOUT = 2.0


class Unit(enum.Enum):
    CELSIUS = "celsius"
    FAHRENHEIT = "fahrenheit"


@dataclasses.dataclass
class Weather:
    city: str
    temperature: float
    unit: Unit
    note: str | None = None


@dataclasses.dataclass
class Where:
    lat: float
    lon: float


@dataclasses.dataclass
class Tree:
    name: str
    children: list[Tree] = dataclasses.field(default_factory=list)


def get_weather(city: str, unit: Unit = Unit.CELSIUS) -> Weather:
    """Current weather for a city.

    Args:
        city: The city name.
        unit: The temperature unit.
    """
    return Weather(city=city, temperature=21.5, unit=unit)


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def locate(place: Where, tags: list[str] | None = None) -> list[str]:
    """Echo a nested argument."""
    return [f"{place.lat},{place.lon}", *(tags or [])]


def explode(reason: str) -> str:
    """Always raises."""
    raise RuntimeError(f"boom: {reason}\nsecond line")


async def slow(seconds: float) -> str:
    """Sleeps (async)."""
    await asyncio.sleep(seconds)
    return "done"


def slow_sync(seconds: float) -> str:
    """Sleeps (on a worker thread)."""
    time.sleep(seconds)
    return "done"


def who(session: Context[Any]) -> str:
    """Says what its Context parameter received."""
    return session if isinstance(session, str) else type(session).__name__


def big(n: int) -> str:
    """A long text."""
    return "x" * n


def numbers(n: int) -> list[int]:
    """The first n integers (a structured result, over the budget past about 250)."""
    return list(range(n))


def spawn() -> int:
    """Starts a long child process (ended with the server) and gives its pid."""
    return subprocess.Popen(["sleep", "120"]).pid


def liar() -> Weather:
    """Claims to return Weather, returns something else."""
    return {"not": "weather"}  # type: ignore[return-value]


def leave() -> str:
    """Calls sys.exit, as a careless tool might."""
    sys.exit(3)


def noisy(text: str) -> str:
    """Prints, as a careless tool might (over stdio, it must not reach the wire)."""
    print("stray output", text)
    return text


def untyped(x: int):  # type: ignore[no-untyped-def]  # no return annotation: no outputSchema
    """No return annotation."""
    return {"x": x}


def tree(depth: int) -> Tree | None:
    """A recursive value under a non-object root (wrapped, its references rebased)."""
    if depth < 0:
        return None
    node = Tree("root")
    here = node
    for i in range(depth):
        child = Tree(f"level {i + 1}")
        here.children.append(child)
        here = child
    return node


toolbox = Toolbox(
    [get_weather, add, locate, explode, slow, slow_sync, who, big, numbers, liar, leave, noisy,
     untyped, tree, spawn],
    timeout=TIMEOUT,
    max_result_chars=1000,
)


@dataclasses.dataclass
class Booking:
    """A table booking, asked of the user through elicitation."""

    name: str
    day: datetime.date
    seats: int = 1
    window: bool | None = None


async def book(ctx: Context[Any]) -> str:
    """Book a table, asking the user for the details (MCP elicitation)."""
    answer = await ctx.session.elicit_form("Your booking?", schema(Booking, MCP_ELICITATION))
    if answer.action != "accept":
        return answer.action
    booking = decode(Booking, answer.content)
    return f"{booking.name} on {booking.day:%d %b}, {booking.seats} seat(s)"


toolbox.add(book)

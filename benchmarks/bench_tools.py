"""Overhead of ``Toolbox.call`` for a trivial tool with 3 arguments, against calling it directly.

Run: python benchmarks/bench_tools.py [--profile]

One model call ``{"city": "Paris", "days": 3, "metric": true}`` (JSON text, as OpenAI
sends it) is run five ways, in one run:

- ``direct``: ``get_weather(city="Paris", days=3, metric=True)``, the floor;
- ``orjson + direct``: ``orjson.loads`` then ``get_weather(**args)``, no checks at all;
- ``pydantic validate_call``: ``orjson.loads`` then a ``pydantic.validate_call(strict=True)``
  wrapper (the usual way to check a function's arguments);
- ``msgspec``: ``msgspec.json.decode`` into a Struct of the three parameters, then the call;
- ``Toolbox.call``: the whole tool path: lookup, JSON parsing, argument checking
  (unknown keys, types, no coercion), the call, and the ``ToolResult`` with the
  JSON-encoded content.

Everything is reported as time per call and as the ratio to ``direct``; the
``Toolbox.call`` / ``pydantic`` ratio is printed too.

Then batches of 100 trivial calls through ``acall_many`` against a bare
``asyncio.gather`` of the same coroutines and a gather of ``Toolbox.acall`` (how
``acall_many`` ran before it started calls eagerly): an async tool, a sync tool with
``blocking=False`` and a sync tool on the toolbox's worker threads. Last, the cost of
one ``Toolbox`` per request over a ``functools.partial``. ``--profile`` adds a cProfile
of ``Toolbox.call``.
"""

from __future__ import annotations

import asyncio
import cProfile
import functools
import pstats
import statistics
import sys
import timeit
from typing import Any

import msgspec
import orjson
import pydantic

from describedtypes import Toolbox, ToolCall

ARGUMENTS = b'{"city": "Paris", "days": 3, "metric": true}'


def get_weather(city: str, days: int, metric: bool) -> str:
    """Get the weather forecast.

    Args:
        city: City name.
        days: Days ahead.
        metric: Celsius when true.
    """
    return "sunny"


class WeatherArgs(msgspec.Struct, forbid_unknown_fields=True):
    city: str
    days: int
    metric: bool


BATCH = 100


def lookup(query: str, limit: int, session: object) -> str:
    """Look something up.

    Args:
        query: What to look up.
        limit: How many results.
    """
    return query


async def aget_weather(city: str, days: int, metric: bool) -> str:
    """Get the weather forecast (async)."""
    return "sunny"


def batch_rows(box: Toolbox) -> list[tuple[str, float]]:
    """Seconds per call of a batch of trivial calls, several ways, on one event loop."""
    box.add(aget_weather)
    box.add(get_weather, name="get_weather_on_loop", blocking=False)
    arguments = orjson.loads(ARGUMENTS)

    async def bare_gather() -> None:
        await asyncio.gather(*(aget_weather(**arguments) for _ in range(BATCH)))

    def batch(name: str) -> Any:
        calls = [ToolCall(name, ARGUMENTS, f"call_{i}") for i in range(BATCH)]

        async def run() -> None:
            results = await box.acall_many(calls)
            assert not results[-1].is_error, results[-1]

        return run

    async def gather_acall() -> None:  # what acall_many did before: gather of acall
        await asyncio.gather(*(box.acall("aget_weather", ARGUMENTS) for _ in range(BATCH)))

    loop = asyncio.new_event_loop()
    try:
        rows = []
        for label, make in [
            ("bare asyncio.gather of the coroutines", bare_gather),
            ("gather of Toolbox.acall (the old way)", gather_acall),
            ("Toolbox.acall_many, async tool", batch("aget_weather")),
            ("acall_many, sync tool, blocking=False", batch("get_weather_on_loop")),
            ("acall_many, sync tool on worker threads", batch("get_weather")),
        ]:
            number = 20 if "threads" in label else 200
            seconds = per_call(lambda m=make: loop.run_until_complete(m()), number, repeat=5)
            rows.append((label, seconds / BATCH))
        return rows
    finally:
        loop.close()
        box.close()


def per_call(fn: Any, number: int, repeat: int = 9) -> float:
    """Median seconds per call over ``repeat`` runs of ``number`` calls."""
    return statistics.median(timeit.repeat(fn, number=number, repeat=repeat)) / number


def main() -> None:
    box = Toolbox([get_weather], max_calls_per_turn=None)  # batches of 100
    validated = pydantic.validate_call(config={"strict": True, "extra": "forbid"})(get_weather)

    def direct() -> str:
        return get_weather(city="Paris", days=3, metric=True)

    def loads_direct() -> str:
        return get_weather(**orjson.loads(ARGUMENTS))

    def with_pydantic() -> str:
        return validated(**orjson.loads(ARGUMENTS))

    def with_msgspec() -> str:
        a = msgspec.json.decode(ARGUMENTS, type=WeatherArgs)
        return get_weather(city=a.city, days=a.days, metric=a.metric)

    def toolbox() -> Any:
        return box.call("get_weather", ARGUMENTS, call_id="call_1")

    result = toolbox()
    assert not result.is_error, result
    assert result.content == "sunny", result
    assert with_pydantic() == with_msgspec() == "sunny"

    number = 20_000
    rows = [
        ("direct", per_call(direct, number * 5)),
        ("orjson + direct", per_call(loads_direct, number)),
        ("pydantic validate_call", per_call(with_pydantic, number)),
        ("msgspec", per_call(with_msgspec, number)),
        ("Toolbox.call", per_call(toolbox, number)),
    ]
    base = rows[0][1]
    print(f"Toolbox.call of a 3-argument tool ({len(ARGUMENTS)} bytes of JSON arguments)")
    print(f"{'':<24}{'per call':>12}{'x direct':>12}")
    for label, seconds in rows:
        print(f"{label:<24}{seconds * 1e6:>10.2f}us{seconds / base:>11.1f}x")
    times = dict(rows)
    print(f"Toolbox.call / direct:                 {times['Toolbox.call'] / base:.1f}x")
    print(f"Toolbox.call - direct (overhead):      "
          f"{(times['Toolbox.call'] - base) * 1e6:.2f}us")
    print(f"Toolbox.call / pydantic validate_call: "
          f"{times['Toolbox.call'] / times['pydantic validate_call']:.2f}x")

    print()
    print(f"acall_many: {BATCH} calls per batch, time per call")
    print(f"{'':<40}{'per call':>12}{'x gather':>12}")
    base_many = None
    for label, seconds in batch_rows(box):
        base_many = base_many or seconds
        print(f"{label:<40}{seconds * 1e6:>10.2f}us{seconds / base_many:>11.1f}x")

    def per_request() -> Any:
        return Toolbox([functools.partial(lookup, session=object())])

    seconds = per_call(per_request, 2_000, repeat=5)
    print(f"\nToolbox per request over functools.partial(lookup, session=s): {seconds * 1e6:.1f}us")

    if "--profile" in sys.argv:
        profiler = cProfile.Profile()
        profiler.enable()
        for _ in range(50_000):
            toolbox()
        profiler.disable()
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(15)


def run(quick: bool) -> list:  # type: ignore[type-arg]
    """The rows for ``run_all.py`` (``benchmarks/README.md``): ``Toolbox.call`` vs the peers."""
    sys.path.insert(0, str(__import__("pathlib").Path(__file__).parent))
    from _common import Row, best_of_turns

    box = Toolbox([get_weather])
    validated = pydantic.validate_call(config={"strict": True, "extra": "forbid"})(get_weather)

    def with_msgspec() -> str:
        a = msgspec.json.decode(ARGUMENTS, type=WeatherArgs)
        return get_weather(city=a.city, days=a.days, metric=a.metric)

    number, repeat = (2_000, 3) if quick else (20_000, 9)

    def direct() -> str:
        return get_weather(city="Paris", days=3, metric=True)

    def with_pydantic() -> str:
        return validated(**orjson.loads(ARGUMENTS))

    # Taking turns, best round each: the overhead is a difference of two small times,
    # so both must come from the same, least disturbed, stretch of the run.
    best = best_of_turns(
        {
            "ours": lambda: box.call("get_weather", ARGUMENTS, call_id="c"),
            "direct": direct,
            "pydantic": with_pydantic,
            "msgspec": with_msgspec,
        },
        number,
        repeat,
    )
    ours, direct_time = best["ours"], best["direct"]
    case = "Toolbox.call, 3-argument tool"
    return [
        Row(case, ours, "direct call", direct_time),
        Row(case, ours, "pydantic validate_call", best["pydantic"]),
        Row(case, ours, "msgspec", best["msgspec"]),
        # The figure: what the call path adds, against what pydantic's adds.
        Row(
            "Toolbox.call overhead over a direct call",
            ours - direct_time,
            "validate_call overhead",
            best["pydantic"] - direct_time,
            goal="<= 2 µs",
        ),
    ]


if __name__ == "__main__":
    main()

"""The MCP server over stdio: tools/call round trips, and a small call's latency while a
large result is on its way; describedtypes against the MCP SDK's own ``MCPServer``.

Run: python benchmarks/bench_mcp.py [--quick]

Both servers run in a subprocess of their own (``benchmarks/_mcp_servers.py``) serving the
same functions; the client is the SDK's ``ClientSession`` over stdio. Times here are
wall-clock (``time.perf_counter``): a round trip is mostly the other process's work and
the pipe between them, which this process's CPU time does not see.

- ``tools/call round trip``: seconds per sequential ``tools/call`` of ``add(a, b)``.
- ``add while items(N) is answered``: the longest an ``add`` call waited while a concurrent
  call of ``items(N)`` (N records) was being answered: the server's event loop stalled
  by per-result work shows up here. describedtypes answers ``items(100000)`` with an
  ``isError`` result (its JSON is over the toolbox's ``max_result_chars`` of 100,000
  characters: a structured result is never cut); the SDK's server sends it whole. The
  longest wait includes the garbage collector's pauses while a tool allocates N objects
  (they stop every thread); the median is the event loop's own share.
"""

from __future__ import annotations

import contextlib
import statistics
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path

import anyio
from _common import Row
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

HERE = Path(__file__).resolve().parent
SERVERS = HERE / "_mcp_servers.py"
OURS = StdioServerParameters(command=sys.executable,
                             args=["-m", "describedtypes", "mcp", f"{SERVERS}:toolbox"])
PEER = StdioServerParameters(command=sys.executable, args=[str(SERVERS)])
LIMIT = 600  # seconds a measurement may take (a hang fails, it never waits forever)


@contextlib.asynccontextmanager
async def session(params: StdioServerParameters) -> AsyncIterator[ClientSession]:
    import os

    params = params.model_copy(update={"env": {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(HERE.parent / "src"), os.environ.get("PYTHONPATH", "")])}})
    with open(os.devnull, "w") as errlog, anyio.fail_after(LIMIT):
        async with stdio_client(params, errlog=errlog) as (read, write), \
                ClientSession(read, write) as client:
            await client.initialize()
            yield client


async def round_trips(params: StdioServerParameters, calls: int) -> float:
    async with session(params) as client:
        for _ in range(max(calls // 10, 3)):  # warm up
            await client.call_tool("add", {"a": 1, "b": 2})
        start = time.perf_counter()
        for _ in range(calls):
            await client.call_tool("add", {"a": 1, "b": 2})
        return (time.perf_counter() - start) / calls


async def latency_under_load(params: StdioServerParameters, n: int) -> tuple[float, float]:
    """The median and the longest wait of a small call while ``items(n)`` is answered."""
    async with session(params) as client:
        await client.call_tool("add", {"a": 1, "b": 2})
        await client.call_tool("items", {"n": 10})  # its code paths warmed up
        done = anyio.Event()
        waits: list[float] = []

        async def large() -> None:
            await client.call_tool("items", {"n": n})
            done.set()

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(large)
            while not done.is_set():
                start = time.perf_counter()
                await client.call_tool("add", {"a": 1, "b": 2})
                waits.append(time.perf_counter() - start)
                await anyio.sleep(0.005)
        return statistics.median(waits), max(waits)


def run(quick: bool) -> list[Row]:
    calls = 20 if quick else 1000
    n = 2_000 if quick else 100_000
    rows = []
    ours = anyio.run(round_trips, OURS, calls)
    theirs = anyio.run(round_trips, PEER, calls)
    rows.append(Row("tools/call round trip over stdio (add)", ours, "mcp MCPServer", theirs))
    ours_median, ours_longest = anyio.run(latency_under_load, OURS, n)
    theirs_median, theirs_longest = anyio.run(latency_under_load, PEER, n)
    rows.append(Row(f"add while items({n:,}) is answered (median wait)", ours_median,
                    "mcp MCPServer", theirs_median))
    rows.append(Row(f"add while items({n:,}) is answered (longest wait)", ours_longest,
                    "mcp MCPServer", theirs_longest))
    return rows


def main() -> None:
    quick = "--quick" in sys.argv
    for row in run(quick):
        ratio = f"{row.ratio:.2f}" if row.ratio is not None else "-"
        print(f"{row.case}: describedtypes {row.ours * 1000:.2f} ms, {row.peer} "
              f"{(row.theirs or 0) * 1000:.2f} ms (ratio {ratio})")
        print(f"  {1 / row.ours:,.0f} calls/s" if "round trip" in row.case else "", end="")
        print()


if __name__ == "__main__":
    main()

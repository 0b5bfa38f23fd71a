"""A Toolbox served over MCP, checked with the SDK's own client (``mcp.ClientSession``).

The same scenario (list, good, wrong, raising, slow, lying, hostile calls, elicitation)
runs in memory, over stdio (``describedtypes mcp`` in a subprocess) and over streamable
HTTP on 127.0.0.1. Every async scenario runs under ``anyio.fail_after`` and every
subprocess wait has a timeout, so the suite never hangs.
"""

from __future__ import annotations

import contextlib
import datetime
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import textwrap
import threading
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import anyio
import mcp.types as types
import pytest
from mcp import ClientSession, MCPError
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.memory import create_client_server_memory_streams

from describedtypes import MCP_TOOLS, SchemaError, Toolbox

from . import mcp_tools

ROOT = Path(__file__).resolve().parent.parent
SRC = str(ROOT / "src")
LIMIT = 120.0  # seconds any one scenario may take: a hang guard (a hang fails, never a wait)
TARGET = "tests.mcp_tools:toolbox"

pytestmark = pytest.mark.anyio
PROC = pytest.mark.skipif(not Path("/proc/self/stat").exists(),
                          reason="reads a process's state in /proc (Linux)")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def child_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (SRC, env.get("PYTHONPATH", "")) if p)
    return env


# -- connecting ------------------------------------------------------------------------


async def answer_booking(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
    """The user's side of an elicitation: check the form, fill it in."""
    asked = params.requested_schema  # type: ignore[union-attr]
    assert asked == {
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "day": {"type": "string", "format": "date"},
            "seats": {"type": "integer", "default": 1},
            "window": {"type": "boolean"},
        },
        "required": ["name", "day"],
    }
    return types.ElicitResult(action="accept", content={"name": "Ada", "day": "2026-09-01"})


@contextlib.asynccontextmanager
async def in_memory(server: Any, **session_kw: Any) -> AsyncIterator[ClientSession]:
    async with (
        create_client_server_memory_streams() as (client_streams, server_streams),
        anyio.create_task_group() as tg,
    ):
        tg.start_soon(lambda: server.run(*server_streams, server.create_initialization_options()))
        async with ClientSession(*client_streams, **session_kw) as session:
            await session.initialize()
            yield session
        tg.cancel_scope.cancel()


@contextlib.asynccontextmanager
async def over_stdio() -> AsyncIterator[ClientSession]:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "describedtypes", "mcp", TARGET],
        cwd=str(ROOT), env=child_env(),
    )
    with open(os.devnull, "w") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write, elicitation_callback=answer_booking) as session,
        ):
            await session.initialize()
            yield session


@contextlib.asynccontextmanager
async def over_http(url: str) -> AsyncIterator[ClientSession]:
    async with (
        streamable_http_client(url) as (read, write),
        ClientSession(read, write, elicitation_callback=answer_booking) as session,
    ):
        await session.initialize()
        yield session


def stderr_line(proc: subprocess.Popen[bytes], timeout: float = 120.0) -> str:
    """The next line the process writes to stderr, waiting at most ``timeout`` seconds."""
    assert proc.stderr is not None
    ready, _, _ = select.select([proc.stderr], [], [], timeout)
    assert ready, f"the server said nothing on stderr within {timeout} s"
    return proc.stderr.readline().decode()


@contextlib.contextmanager
def http_server(target: str = TARGET) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """``describedtypes mcp --http 127.0.0.1:0`` (a free port) and its URL; stopped after."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "describedtypes", "mcp", "--http", "127.0.0.1:0", target],
        cwd=ROOT, env=child_env(), stderr=subprocess.PIPE,
    )
    try:
        line = stderr_line(proc)
        assert line.startswith("serving MCP on http://127.0.0.1:"), line
        url = line.split()[-1]
        assert url.endswith("/mcp")  # the SDK's default path
        yield proc, url
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(60)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if proc.stderr is not None and not proc.stderr.closed:
            proc.stderr.close()


# -- the scenario every transport runs ---------------------------------------------------


def text(result: types.CallToolResult) -> str:
    assert len(result.content) == 1
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return block.text


async def scenario(session: ClientSession) -> None:
    first = await session.list_tools()
    second = await session.list_tools()
    names = [t.name for t in first.tools]
    assert names == mcp_tools.toolbox.names == [t.name for t in second.tools]
    by_name = {t.name: t for t in first.tools}
    for tool in first.tools:
        assert tool.input_schema["additionalProperties"] is False
    place = by_name["locate"].input_schema["properties"]["place"]
    assert place["additionalProperties"] is False
    assert by_name["locate"].input_schema["required"] == ["place"]  # optional stays optional
    assert by_name["untyped"].output_schema is None
    assert by_name["add"].output_schema == {
        "type": "object", "properties": {"result": {"type": "integer"}}, "required": ["result"]
    }

    good = await session.call_tool("add", {"a": 2, "b": 3})
    assert not good.is_error
    assert good.structured_content == {"result": 5}
    assert text(good) == "5"

    weather = await session.call_tool("get_weather", {"city": "Paris"})  # the client validates
    assert weather.structured_content == {
        "city": "Paris", "temperature": 21.5, "unit": "celsius"
    }
    assert json.loads(text(weather)) == weather.structured_content

    deep = await session.call_tool("tree", {"depth": 3})  # recursion under {"result": ...}
    assert deep.structured_content is not None
    assert deep.structured_content["result"]["children"][0]["name"] == "level 1"
    empty = await session.call_tool("tree", {"depth": -1})
    assert empty.structured_content == {"result": None}

    wrong = await session.call_tool("add", {"a": "two", "b": 3})
    assert wrong.is_error
    assert wrong.structured_content is None
    assert text(wrong) == (
        "Invalid arguments for tool 'add':\n"
        '- $.a: expected integer, got string "two"\n'
        "Required parameters: a, b. Accepted parameters: a, b."
    )
    extra = await session.call_tool("add", {"a": 1, "b": 2, "c": 3})
    assert extra.is_error
    assert "$.c" in text(extra)

    raised = await session.call_tool("explode", {"reason": "x"})
    assert raised.is_error
    assert text(raised) == "Tool 'explode' failed: RuntimeError: boom: x\\nsecond line"

    slow = await session.call_tool("slow", {"seconds": 30})
    assert slow.is_error
    assert text(slow) == (
        "Tool 'slow' timed out: it did not finish within its time limit of 2 seconds."
    )
    slow_sync = await session.call_tool("slow_sync", {"seconds": 6})
    assert slow_sync.is_error
    assert "timed out" in text(slow_sync)

    # A str return has no outputSchema: its text is cut to the budget like any result.
    long = await session.call_tool("big", {"n": 5000})
    assert not long.is_error
    assert long.structured_content is None
    assert text(long).startswith("x" * 1000 + "\n[The result was cut here")  # the budget
    # A structured result is never cut: over the budget, it is an error that says so.
    within = await session.call_tool("numbers", {"n": 100})
    assert within.structured_content == {"result": list(range(100))}
    over = await session.call_tool("numbers", {"n": 5000})
    assert over.is_error
    assert over.structured_content is None
    assert text(over) == (
        "Tool 'numbers' failed: its result has 23,902 characters of JSON, more than this "
        "server sends in one result (max_result_chars=1,000). Ask for less: a narrower "
        "query or a smaller page."
    )

    liar = await session.call_tool("liar", {})
    assert liar.is_error
    assert "does not match its declared return type" in text(liar)

    gone = await session.call_tool("leave", {})
    assert gone.is_error
    assert "SystemExit" in text(gone)

    printed = await session.call_tool("noisy", {"text": "hello"})
    assert text(printed) == "hello"

    # A slow call does not hold up the others: both are answered, each with its own.
    answers: dict[str, types.CallToolResult] = {}

    async def run(name: str, arguments: dict[str, Any]) -> None:
        answers[name] = await session.call_tool(name, arguments)

    async with anyio.create_task_group() as tg:
        tg.start_soon(run, "slow_sync", {"seconds": 0.2})
        tg.start_soon(run, "add", {"a": 20, "b": 22})
    assert answers["add"].structured_content == {"result": 42}
    assert text(answers["slow_sync"]) == "done"

    plain = await session.call_tool("untyped", {"x": 1})
    assert not plain.is_error
    assert plain.structured_content is None
    assert text(plain) == '{"x":1}'

    booked = await session.call_tool("book", {})
    assert not booked.is_error
    assert text(booked) == "Ada on 01 Sep, 1 seat(s)"

    with pytest.raises(MCPError) as unknown:
        await session.call_tool("ad", {})
    assert unknown.value.code == types.INVALID_PARAMS
    assert unknown.value.message.startswith("Unknown tool 'ad'. Did you mean 'add'?")

    # Hostile arguments: deep nesting, a huge number; the server answers and lives on.
    nested: Any = "x"
    for _ in range(150):
        nested = [nested]
    hostile = await session.call_tool("locate", {"place": {"lat": 1, "lon": 2}, "tags": nested})
    assert hostile.is_error
    assert text(hostile).startswith("Invalid arguments for tool 'locate'")
    huge = await session.call_tool("add", {"a": "9" * 200_000, "b": 1})
    assert huge.is_error
    assert len(text(huge)) < 2000
    again = await session.call_tool("add", {"a": 1, "b": 1})
    assert again.structured_content == {"result": 2}


# -- in memory ---------------------------------------------------------------------------


async def test_in_memory() -> None:
    """The whole scenario against the server in this process."""
    with anyio.fail_after(LIMIT):
        server = mcp_tools.toolbox.mcp_server(name="demo", version="1.2")
        async with in_memory(server, elicitation_callback=answer_booking) as session:
            assert session.server_info is not None
            assert (session.server_info.name, session.server_info.version) == ("demo", "1.2")
            await scenario(session)


def _plus(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


async def test_the_version_defaults_to_the_tools_package() -> None:
    """Without version=, the server says the version of the installed distribution its
    tools come from (here attrs', as if the tool were defined there), else nothing."""
    import attrs

    # A function whose module is attrs.fake: defined in globals named so.
    namespace: dict[str, Any] = {"__name__": "attrs.fake"}
    exec("def plus(a: int, b: int) -> int:\n    'Add two numbers.'\n    return a + b\n",
         namespace)
    with anyio.fail_after(LIMIT):
        async with in_memory(Toolbox([_plus]).mcp_server(name="plain")) as session:
            assert session.server_info is not None
            assert session.server_info.version == ""  # tests/ is no installed package
        async with in_memory(Toolbox([namespace["plus"]]).mcp_server(name="pkg")) as session:
            assert session.server_info is not None
            assert session.server_info.version == attrs.__version__
        server = Toolbox([namespace["plus"]]).mcp_server(name="given", version="9.1")
        async with in_memory(server) as session:
            assert session.server_info is not None
            assert session.server_info.version == "9.1"


async def test_a_2026_era_client() -> None:
    """mcp.Client reaches the 2026-07-28 protocol (no initialize): listing and calls work;
    elicitation, which needs a back-channel that era lacks, fails the tool with the SDK's
    NoBackChannelError."""
    from mcp import Client

    with anyio.fail_after(LIMIT):
        async with Client(mcp_tools.toolbox.mcp_server(name="demo")) as client:
            assert client.protocol_version == "2026-07-28"
            listed = await client.list_tools()
            assert [t.name for t in listed.tools] == mcp_tools.toolbox.names
            good = await client.call_tool("get_weather", {"city": "Oslo"})
            assert good.structured_content == {
                "city": "Oslo", "temperature": 21.5, "unit": "celsius"
            }
            booked = await client.call_tool("book", {})
            with pytest.raises(MCPError) as unknown:
                await client.call_tool("ad", {})
    assert booked.is_error
    assert text(booked).startswith("Tool 'book' failed: NoBackChannelError:")
    assert unknown.value.code == types.INVALID_PARAMS


async def _modern_fields(client: Any) -> None:
    """tools/list twice in the toolbox's order with 2026-07-28's cache fields; every
    result with resultType."""
    assert client.protocol_version == "2026-07-28"
    first, second = await client.list_tools(), await client.list_tools()
    assert [t.name for t in first.tools] == [t.name for t in second.tools]
    assert [t.name for t in first.tools] == mcp_tools.toolbox.names
    assert (first.ttl_ms, first.cache_scope, first.result_type) == (0, "public", "complete")
    good = await client.call_tool("add", {"a": 1, "b": 2})
    assert (good.structured_content, good.result_type) == ({"result": 3}, "complete")
    raised = await client.call_tool("explode", {"reason": "x"})
    assert (raised.is_error, raised.result_type) == (True, "complete")


async def test_2026_fields_in_memory() -> None:
    from mcp import Client

    with anyio.fail_after(LIMIT):
        async with Client(mcp_tools.toolbox.mcp_server(name="demo")) as client:
            await _modern_fields(client)


@pytest.mark.slow  # a server in a subprocess
async def test_2026_fields_over_stdio_and_http() -> None:
    """The SDK's mcp.Client speaks 2026-07-28 over stdio and over HTTP to the command."""
    from mcp import Client

    params = StdioServerParameters(
        command=sys.executable, args=["-m", "describedtypes", "mcp", TARGET],
        cwd=str(ROOT), env=child_env(),
    )
    with anyio.fail_after(LIMIT):
        async with Client(params) as client:
            await _modern_fields(client)
    with http_server() as (_, url):
        with anyio.fail_after(LIMIT):
            async with Client(url) as client:
                await _modern_fields(client)


@pytest.mark.slow  # a server in a subprocess
def test_2025_results_have_no_2026_fields() -> None:
    """On a 2025-11-25 connection (the wire itself, read over stdio) tools/list and
    tools/call results carry no ttlMs, cacheScope or resultType."""
    proc = start_stdio()
    assert proc.stdin is not None
    assert proc.stdout is not None
    try:
        for message in (
            {"jsonrpc": "2.0", "id": 11, "method": "tools/list"},
            {"jsonrpc": "2.0", "id": 12, "method": "tools/call",
             "params": {"name": "add", "arguments": {"a": 1, "b": 2}}},
        ):
            proc.stdin.write((json.dumps(message) + "\n").encode())
            proc.stdin.flush()
            ready, _, _ = select.select([proc.stdout], [], [], 120)
            assert ready, "no answer within 120 s"
            answer = json.loads(proc.stdout.readline())
            assert answer["id"] == message["id"]
            assert not {"ttlMs", "cacheScope", "resultType"} & set(answer["result"]), answer
    finally:
        code, err = stop(proc, signal.SIGTERM)
    assert code == 0, err


async def test_a_failure_inside_the_server_is_an_error_result(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Whatever raises while the server runs a call (here, the toolbox itself) is an
    isError result, not a JSON-RPC error: SDK 2's low-level server does not do it."""
    box = Toolbox([mcp_tools.add])

    async def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("the toolbox broke")

    with anyio.fail_after(LIMIT):
        async with in_memory(box.mcp_server(name="broken")) as session:
            monkeypatch.setattr(box, "acall", broken)
            result = await session.call_tool("add", {"a": 1, "b": 2})
    assert result.is_error
    assert text(result) == (
        "Tool 'add' failed: the server could not run it (its log says why)."
    )


_TRACED = """
import anyio, sys
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from mcp import ClientSession
from mcp.shared.memory import create_client_server_memory_streams
from describedtypes import Toolbox

exporter = InMemorySpanExporter()
provider = TracerProvider()
provider.add_span_processor(SimpleSpanProcessor(exporter))
trace.set_tracer_provider(provider)

def add(a: int, b: int) -> int:
    return a + b

server = Toolbox([add]).mcp_server(name="traced")
TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
PARENT = "00f067aa0ba902b7"

async def main() -> None:
    with anyio.fail_after(120):  # a hang guard
        async with create_client_server_memory_streams() as (client, served), \\
                anyio.create_task_group() as tg:
            tg.start_soon(lambda: server.run(*served, server.create_initialization_options()))
            async with ClientSession(*client) as session:
                await session.initialize()
                # The caller's trace: the SDK's client sends it in _meta (its own span
                # under the caller's, SEP-414); the server runs in tasks of its own, so
                # only _meta can carry it there.
                caller = trace.NonRecordingSpan(trace.SpanContext(
                    int(TRACE, 16), int(PARENT, 16), is_remote=True,
                    trace_flags=trace.TraceFlags(1),
                ))
                with trace.use_span(caller):
                    result = await session.call_tool("add", {"a": 1, "b": 2})
                assert result.structured_content == {"result": 3}
            tg.cancel_scope.cancel()

anyio.run(main)
tool = [s for s in exporter.get_finished_spans() if s.name == "execute_tool add"]
assert len(tool) == 1, [s.name for s in exporter.get_finished_spans()]
assert format(tool[0].context.trace_id, "032x") == TRACE, "a new trace, not the caller's"
served = [s for s in exporter.get_finished_spans() if s.name == "tools/call add"]
assert tool[0].parent.span_id == served[0].context.span_id
print("continued")
"""


@pytest.mark.slow  # a server in a subprocess
def test_a_traceparent_in_meta_continues_the_trace() -> None:
    """A tools/call whose _meta carries a W3C traceparent: the tool's span (execute_tool)
    is in the caller's trace, a child of the SDK's server span (in a subprocess: a tracer
    provider is set once per process)."""
    done = subprocess.run([sys.executable, "-c", _TRACED], cwd=ROOT, env=child_env(),
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "continued"


async def test_listing_is_the_mcp_tools_definitions() -> None:
    """tools/list carries each MCP_TOOLS definition unchanged, in registration order."""
    with anyio.fail_after(LIMIT):
        server = mcp_tools.toolbox.mcp_server(name="demo")
        async with in_memory(server) as session:
            listed = (await session.list_tools()).tools
    definitions = mcp_tools.toolbox.definitions(MCP_TOOLS)
    for tool, definition in zip(listed, definitions, strict=True):
        assert tool.name == definition["name"]
        assert tool.title == definition["title"]
        assert tool.description == definition.get("description")
        assert tool.input_schema == definition["inputSchema"]


class _SlowDate(datetime.date):
    """A date whose encoding waits until the test lets it go (or gives up)."""

    entered = threading.Event()
    release = threading.Event()
    gave_up = False

    def isoformat(self) -> str:
        type(self).entered.set()
        if not type(self).release.wait(LIMIT / 2):  # a hang guard, never a pass condition
            type(self).gave_up = True
        return super().isoformat()


def dates() -> list[datetime.date]:
    """A result whose encoding blocks until released."""
    return [_SlowDate(2026, 1, 1)]


async def test_a_result_is_encoded_off_the_event_loop() -> None:
    """While one result is being encoded (and checked), the server answers other calls:
    the encoding waits until a later call has been answered, which only a free event
    loop can do."""
    box = Toolbox([dates, mcp_tools.add])
    answers: dict[str, types.CallToolResult] = {}
    with anyio.fail_after(LIMIT):
        async with in_memory(box.mcp_server(name="busy")) as session:

            async def encoded() -> None:
                answers["dates"] = await session.call_tool("dates", {})

            async with anyio.create_task_group() as tg:
                tg.start_soon(encoded)
                assert await anyio.to_thread.run_sync(_SlowDate.entered.wait, LIMIT / 2)
                answers["add"] = await session.call_tool("add", {"a": 1, "b": 2})
                _SlowDate.release.set()
    assert not _SlowDate.gave_up, "the encoding held the event loop: add waited for it"
    assert answers["add"].structured_content == {"result": 3}
    assert answers["dates"].structured_content == {"result": ["2026-01-01"]}


async def test_listing_follows_the_toolbox() -> None:
    """A tool added after the server was made is listed and callable; a removed one is not."""
    box = Toolbox([mcp_tools.add])
    with anyio.fail_after(LIMIT):
        server = box.mcp_server(name="growing")
        async with in_memory(server) as session:
            assert [t.name for t in (await session.list_tools()).tools] == ["add"]
            box.add(mcp_tools.numbers)
            assert [t.name for t in (await session.list_tools()).tools] == ["add", "numbers"]
            result = await session.call_tool("numbers", {"n": 3})
            assert result.structured_content == {"result": [0, 1, 2]}
            box.remove("add")
            assert [t.name for t in (await session.list_tools()).tools] == ["numbers"]
            with pytest.raises(MCPError):
                await session.call_tool("add", {"a": 1, "b": 2})


async def test_context_callback_sees_the_request() -> None:
    """The context callback gets the SDK's request context, once per call of a Context tool."""
    seen: list[Any] = []

    def context(request: Any) -> str:
        seen.append(request)
        return f"request {request.request_id} on {request.method}"

    with anyio.fail_after(LIMIT):
        server = mcp_tools.toolbox.mcp_server(name="demo", context=context)
        async with in_memory(server) as session:
            await session.call_tool("add", {"a": 1, "b": 2})  # no Context: not called
            result = await session.call_tool("who", {})
    [request] = seen
    assert text(result) == f"request {request.request_id} on tools/call"
    assert request.session is not None
    assert request.request is None


async def test_async_context_callback() -> None:
    """A coroutine function works as the callback: its awaited value is passed."""

    async def context(request: Any) -> str:
        await anyio.sleep(0)
        return "from a coroutine"

    with anyio.fail_after(LIMIT):
        server = mcp_tools.toolbox.mcp_server(name="demo", context=context)
        async with in_memory(server) as session:
            result = await session.call_tool("who", {})
    assert text(result) == "from a coroutine"


async def test_default_context_is_the_request_context() -> None:
    """Without a callback, a Context parameter receives the SDK's ServerRequestContext."""
    with anyio.fail_after(LIMIT):
        server = mcp_tools.toolbox.mcp_server(name="demo")
        async with in_memory(server) as session:
            result = await session.call_tool("who", {})
    assert text(result) == "ServerRequestContext"


async def test_context_callback_failure_is_an_error_result() -> None:
    """A raising callback fails that call with a neutral message; the server goes on."""

    def context(request: Any) -> Any:
        raise LookupError("no session store at db://secret")

    with anyio.fail_after(LIMIT):
        server = mcp_tools.toolbox.mcp_server(name="demo", context=context)
        async with in_memory(server) as session:
            result = await session.call_tool("who", {})
            ok = await session.call_tool("add", {"a": 1, "b": 2})
    assert result.is_error
    assert text(result) == (
        "Tool 'who' could not be run: the server failed to prepare its context."
    )
    assert ok.structured_content == {"result": 3}


async def test_elicitation_declined() -> None:
    """A declined elicitation reaches the tool as the answer's action."""

    async def decline(context: Any, params: Any) -> types.ElicitResult:
        return types.ElicitResult(action="decline")

    with anyio.fail_after(LIMIT):
        server = mcp_tools.toolbox.mcp_server(name="demo")
        async with in_memory(server, elicitation_callback=decline) as session:
            result = await session.call_tool("book", {})
    assert text(result) == "decline"


async def test_elicitation_answer_that_does_not_decode() -> None:
    """An answer the strict decoder refuses fails the tool with the decoder's report."""

    async def sloppy(context: Any, params: Any) -> types.ElicitResult:
        return types.ElicitResult(action="accept", content={"name": "Ada", "day": "soon"})

    with anyio.fail_after(LIMIT):
        server = mcp_tools.toolbox.mcp_server(name="demo")
        async with in_memory(server, elicitation_callback=sloppy) as session:
            result = await session.call_tool("book", {})
    assert result.is_error
    assert text(result).startswith("Tool 'book' failed: DecodeError:")
    assert "$.day" in text(result)


def test_server_refuses_tools_mcp_cannot_describe() -> None:
    """A tool name MCP does not accept is a SchemaError when the server is made."""
    box = Toolbox()
    box.add(mcp_tools.add, name="add numbers")
    with pytest.raises(SchemaError, match="add numbers"):
        box.mcp_server(name="demo")


@pytest.mark.parametrize(
    ("options", "message"),
    [({"name": ""}, "name must be a non-empty str"),
     ({"name": "x", "version": 1}, "version must be a str"),
     ({"name": "x", "context": "session"}, "context must be a function")],
)
def test_bad_options(options: dict[str, Any], message: str) -> None:
    """Wrong arguments to mcp_server say which and what is expected."""
    with pytest.raises(TypeError, match=message):
        mcp_tools.toolbox.mcp_server(**options)


# -- stdio ---------------------------------------------------------------------------------


@pytest.mark.slow  # a server in a subprocess
async def test_stdio() -> None:
    """The whole scenario against ``describedtypes mcp TARGET`` over stdio."""
    with anyio.fail_after(LIMIT):
        async with over_stdio() as session:
            assert session.server_info is not None
            assert session.server_info.name == "mcp_tools"  # TARGET's module
            await scenario(session)


INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {},
    "clientInfo": {"name": "test", "version": "0"}}}


def start_stdio() -> subprocess.Popen[bytes]:
    """The stdio server, initialized, with a sync tool running and stdin left open."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "describedtypes", "mcp", TARGET], cwd=ROOT, env=child_env(),
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    assert proc.stdin is not None
    assert proc.stdout is not None
    proc.stdin.write((json.dumps(INIT) + "\n").encode())
    proc.stdin.flush()
    ready, _, _ = select.select([proc.stdout], [], [], 120)
    assert ready, "no answer to initialize within 120 s"
    assert b'"result"' in proc.stdout.readline()
    for message in (
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
         "params": {"name": "slow_sync", "arguments": {"seconds": 0.25}}},
        {"jsonrpc": "2.0", "id": 3, "method": "ping"},
    ):
        proc.stdin.write((json.dumps(message) + "\n").encode())
    proc.stdin.flush()
    ready, _, _ = select.select([proc.stdout], [], [], 120)
    assert ready
    assert b'"id":3' in proc.stdout.readline()
    return proc


@pytest.mark.slow  # a server in a subprocess
@PROC
def test_stdio_an_over_long_line_is_an_error_and_the_server_serves_on() -> None:
    """A line past MAX_LINE_BYTES is answered with an error carrying its request id, read
    past without being kept (the server's peak memory stays far below the line's size),
    and the next request is served."""
    from describedtypes._serve.transports import MAX_LINE_BYTES

    size = 64 * 1024 * 1024
    assert size > MAX_LINE_BYTES
    proc = start_stdio()
    assert proc.stdin is not None
    assert proc.stdout is not None
    head = b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"add",'
    long_line = head + b'"arguments":{"a":"' + b"9" * size + b'","b":1}}}\n'
    then = {"jsonrpc": "2.0", "id": 8, "method": "tools/call",
            "params": {"name": "add", "arguments": {"a": 1, "b": 2}}}

    def send() -> None:
        assert proc.stdin is not None
        proc.stdin.write(long_line)
        proc.stdin.write((json.dumps(then) + "\n").encode())
        proc.stdin.flush()

    def peak_kb() -> int:
        with open(f"/proc/{proc.pid}/status") as status:
            return next(int(line.split()[1]) for line in status if line.startswith("VmHWM"))

    before = peak_kb()
    writer = threading.Thread(target=send, daemon=True)
    writer.start()
    answers: dict[int, Any] = {}
    try:
        while len(answers) < 2:
            ready, _, _ = select.select([proc.stdout], [], [], 120)
            assert ready, f"no answer within 120 s (got {answers}, {writer.is_alive()=})"
            answer = json.loads(proc.stdout.readline())
            if answer.get("id") in (7, 8):
                answers[answer["id"]] = answer
        writer.join(60)
        grown = peak_kb() - before
    finally:
        code, err = stop(proc, signal.SIGTERM)
    assert answers[7]["error"]["code"] == -32600
    assert answers[7]["error"]["message"].startswith(
        f"message too long: {len(long_line) - 1:,} bytes in one line, over this server's "
        f"limit of {MAX_LINE_BYTES:,} bytes"
    )
    assert answers[8]["result"]["structuredContent"] == {"result": 3}
    assert grown * 1024 < size / 2, f"the server's peak memory grew by {grown} kB"
    assert code == 0, err


def stop(proc: subprocess.Popen[bytes], *signals: int) -> tuple[int, str]:
    """Send ``signals`` (stdin stays open) and wait at most 60 s (a hang guard; the server
    stops within its 3 s watchdog): the status and stderr."""
    try:
        for signum in signals:
            proc.send_signal(signum)
        code = proc.wait(60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        assert proc.stderr is not None
        err = proc.stderr.read().decode()
        for pipe in (proc.stdin, proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()
    return code, err


@pytest.mark.slow  # a server in a subprocess
def test_a_signal_race_is_not_reported_but_other_unraisables_are() -> None:
    """A second Ctrl-C that was pending while the first made SIGINT ignored is what
    CPython reports as "Signal 2 ignored due to race condition": the server keeps that off
    stderr (the signal is ignored, as meant), and every other unraisable error still
    reaches stderr."""
    script = textwrap.dedent(
        """
        from describedtypes._cli.mcp import quiet_signal_races

        class Unraisable:  # its error is "ignored": it goes to sys.unraisablehook
            def __init__(self, message):
                self.message = message

            def __del__(self):
                raise OSError(self.message)

        quiet_signal_races()
        Unraisable("Signal 2 ignored due to race condition")
        Unraisable("something else")
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert "race condition" not in done.stderr
    assert "something else" in done.stderr


@pytest.mark.slow  # a server in a subprocess
@pytest.mark.parametrize("signals", [1, 2])
def test_stdio_ctrl_c_exits_cleanly(signals: int) -> None:
    """Ctrl-C (once or twice) ends the stdio server with 130 and no traceback, though
    stdin is still open and a sync tool still runs; it is the server stopping, not the
    watchdog leaving."""
    code, err = stop(start_stdio(), *[signal.SIGINT] * signals)
    assert code == 130, err
    assert "Traceback" not in err, err
    assert "KeyboardInterrupt" not in err, err
    assert "leaving now" not in err, err


@pytest.mark.slow  # a server in a subprocess
def test_stdio_sigterm_exits_zero() -> None:
    """SIGTERM stops the stdio server with 0."""
    code, err = stop(start_stdio(), signal.SIGTERM)
    assert code == 0, err
    assert "Traceback" not in err, err


@pytest.mark.slow  # a server in a subprocess
def test_stdio_eof_exits_zero() -> None:
    """The client closing stdin ends the server with 0."""
    done = subprocess.run(
        [sys.executable, "-m", "describedtypes", "mcp", TARGET], cwd=ROOT, env=child_env(),
        input=(json.dumps(INIT) + "\n").encode(), capture_output=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert b'"result"' in done.stdout
    assert b"Traceback" not in done.stderr


# -- streamable HTTP -----------------------------------------------------------------------


@pytest.mark.slow  # a server in a subprocess
async def test_http() -> None:
    """The whole scenario over streamable HTTP, then a second session on the same server;
    Ctrl-C stops it with no traceback."""
    with http_server("tests/mcp_tools.py:toolbox") as (proc, url):
        with anyio.fail_after(LIMIT):
            async with over_http(url) as session:
                await scenario(session)
            async with over_http(url) as again:
                listed = (await again.list_tools()).tools
                assert [t.name for t in listed] == mcp_tools.toolbox.names
        code, err = stop(proc, signal.SIGINT)
    assert code == 130, (code, err)
    assert "Traceback" not in err, (code, err)


_HTTP_CONTEXT = """
import asyncio, sys
from describedtypes import Context, Toolbox
from describedtypes._serve.transports import serve_http

def whoami(user: Context[str]) -> str:
    \"\"\"Who is asking.\"\"\"
    return f"you are {user}"

def user_of(request):
    return request.request.headers.get("x-user", "nobody")

server = Toolbox([whoami]).mcp_server(name="users", context=user_of)
asyncio.run(serve_http(server, "127.0.0.1", 0, ready=lambda url: print(url, file=sys.stderr,
                                                                        flush=True)))
"""


@pytest.mark.slow  # a server in a subprocess
async def test_http_context_sees_the_http_request() -> None:
    """Over streamable HTTP the request context carries the HTTP request (its headers)."""
    import httpx2

    proc = subprocess.Popen([sys.executable, "-c", _HTTP_CONTEXT], cwd=ROOT, env=child_env(),
                            stderr=subprocess.PIPE)
    try:
        url = stderr_line(proc).strip()
        with anyio.fail_after(LIMIT):
            async with (
                httpx2.AsyncClient(headers={"x-user": "ada"}) as http,
                streamable_http_client(url, http_client=http) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                result = await session.call_tool("whoami", {})
    finally:
        proc.kill()
        stop(proc)
    assert text(result) == "you are ada"


@pytest.mark.slow  # a server in a subprocess
async def test_http_ctrl_c_with_a_session_open() -> None:
    """Ctrl-C while a client holds a session (and its event stream) open still exits."""
    with http_server() as (proc, url):
        with anyio.fail_after(LIMIT):
            async with over_http(url) as session:
                await session.list_tools()
                proc.send_signal(signal.SIGINT)
                while proc.poll() is None:
                    await anyio.sleep(0.05)
        code, err = stop(proc)
    assert code == 130, (code, err)
    assert "Traceback" not in err, (code, err)


@pytest.mark.slow  # a server in a subprocess
def test_http_sigterm_exits_zero() -> None:
    """SIGTERM stops the HTTP server with status 0 (uvicorn would raise it again and die
    of it, -15), no traceback."""
    with http_server() as (proc, url):

        async def call() -> None:
            with anyio.fail_after(LIMIT):
                async with over_http(url) as session:
                    assert (await session.call_tool("add", {"a": 1, "b": 2})).structured_content
        anyio.run(call)
        code, err = stop(proc, signal.SIGTERM)
    assert code == 0, (code, err)
    assert "Traceback" not in err, (code, err)


@pytest.mark.slow  # a server in a subprocess
@pytest.mark.parametrize("http", [False, True], ids=["stdio", "http"])
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_while_starting_stops_at_once(http: bool, signum: int) -> None:
    """A signal while TARGET is still being imported ends the command: 130 after SIGINT,
    0 after SIGTERM, no traceback, nothing served."""
    args = ["--http", "127.0.0.1:0"] if http else []
    proc = subprocess.Popen(
        [sys.executable, "-m", "describedtypes", "mcp", *args, "tests.mcp_slow_start:toolbox"],
        cwd=ROOT, env=child_env(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert stderr_line(proc, 60).strip() == "importing mcp_slow_start"
    code, err = stop(proc, signum)
    assert code == (130 if signum == signal.SIGINT else 0), (code, err)
    assert "Traceback" not in err, err
    assert "serving" not in err, err


@pytest.mark.slow  # a server in a subprocess
@PROC
def test_stdio_a_tools_child_process_ends_with_the_server() -> None:
    """A process a tool started (sleep 120) is ended when the server stops."""
    proc = start_stdio()
    assert proc.stdin is not None
    assert proc.stdout is not None
    call = {"jsonrpc": "2.0", "id": 9, "method": "tools/call",
            "params": {"name": "spawn", "arguments": {}}}
    proc.stdin.write((json.dumps(call) + "\n").encode())
    proc.stdin.flush()
    ready, _, _ = select.select([proc.stdout], [], [], 120)
    assert ready, "no answer within 120 s"
    child = json.loads(proc.stdout.readline())["result"]["structuredContent"]["result"]
    assert _alive(child)
    proc.send_signal(signal.SIGINT)
    try:
        code = proc.wait(60)
        # Not stop(): the child holds the server's stderr open, reading it would wait
        # for the child to end.
        for _ in range(300):  # a hang guard (30 s), well before the child's 120 s
            if not _alive(child):
                break
            select.select([], [], [], 0.1)
        assert not _alive(child), "the tool's child process outlived the server"
    finally:
        if _alive(child):
            os.kill(child, signal.SIGKILL)
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for pipe in (proc.stdin, proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()
    assert code == 130


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie waiting for its parent to reap it does not)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rpartition(")")[2].split()[0] != "Z"
    except FileNotFoundError:
        return False


@pytest.mark.slow  # a server in a subprocess
def test_the_docs_client_configurations_work_from_any_directory(tmp_path: Path) -> None:
    """Every client configuration in docs/mcp.md names its TARGET by module or absolute
    path; the file one, pointed at this repository's example, serves from elsewhere."""
    page = (ROOT / "docs" / "mcp.md").read_text()
    configs = [json.loads(line) for line in page.splitlines() if line.startswith('{"mcpServers"')]
    assert len(configs) >= 2
    for config in configs:
        for entry in config["mcpServers"].values():
            target = entry["args"][-1]
            module = target.rpartition(":")[0]
            assert Path(module).is_absolute() or "/" not in module, target
    example = ROOT / "examples" / "weather_tools.py"
    done = subprocess.run(
        [sys.executable, "-m", "describedtypes", "mcp", f"{example}:toolbox"],
        input=(json.dumps(INIT) + "\n").encode(), capture_output=True, timeout=60,
        cwd=tmp_path, env=child_env(), check=False,
    )
    assert done.returncode == 0, done.stderr.decode()
    answer = json.loads(done.stdout.splitlines()[0])
    assert answer["result"]["serverInfo"]["name"] == "weather_tools"


@pytest.mark.slow  # a server in a subprocess
def test_the_server_version_is_the_packages() -> None:
    """Without --server-version, the version of the distribution TARGET's module comes
    from; a file has none."""
    from importlib.metadata import version

    from describedtypes._cli.mcp import _package_version

    assert _package_version("describedtypes._cli.mcp:x") == version("describedtypes")
    assert _package_version("tests/mcp_tools.py:toolbox") == ""
    assert _package_version("no_such_package_here:toolbox") == ""


# -- a client not written in Python: the TypeScript SDK's ----------------------------------------

TS_CLIENT = Path(__file__).resolve().parent / "interop" / "mcp_client.mjs"


@pytest.fixture(scope="module")
def ts_client(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """tests/interop/mcp_client.mjs beside an npm install of the TypeScript SDK 1.x."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.skip("Node.js and npm are not installed: the TypeScript SDK's client needs them")
    where = tmp_path_factory.mktemp("ts-mcp")
    done = subprocess.run(
        [npm, "install", "--no-audit", "--no-fund", "--silent", "@modelcontextprotocol/sdk@1"],
        cwd=where, capture_output=True, text=True, timeout=600, check=False,
    )
    if done.returncode != 0:  # no registry (offline): nothing to test against
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        pytest.skip(f"npm could not install @modelcontextprotocol/sdk: {last}")
    shutil.copy(TS_CLIENT, where / TS_CLIENT.name)
    return where / TS_CLIENT.name


def _ts_saw(script: Path, *args: str) -> dict[str, Any]:
    node = shutil.which("node")
    assert node is not None
    done = subprocess.run([node, str(script), *args], cwd=ROOT, env=child_env(),
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    saw: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return saw


def _check_ts(saw: dict[str, Any]) -> None:
    assert saw["names"] == mcp_tools.toolbox.names
    assert saw["add"] == {"result": 5}
    assert saw["weather"] == {"city": "Oslo", "temperature": 21.5, "unit": "celsius"}
    assert saw["wrong"]["isError"] is True
    assert saw["wrong"]["text"].startswith("Invalid arguments for tool 'add':")
    assert saw["unknown"]["code"] == -32602
    assert "Did you mean 'add'?" in saw["unknown"]["message"]


@pytest.mark.slow  # a server in a subprocess
def test_typescript_client_over_stdio(ts_client: Path) -> None:
    _check_ts(_ts_saw(ts_client, "stdio", sys.executable, TARGET))


@pytest.mark.slow  # a server in a subprocess
def test_typescript_client_over_http(ts_client: Path) -> None:
    with http_server() as (_, url):
        _check_ts(_ts_saw(ts_client, "http", url))


# -- the command line's errors ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "message"),
    [(["mcp", "tests.mcp_tools:Weather"], "is a type, not a Toolbox"),
     (["mcp", "tests.mcp_tools:nothing"], "has no attribute 'nothing'"),
     (["mcp", "--http", "localhost", TARGET], "--http takes HOST:PORT"),
     (["mcp", "--http", "127.0.0.1:99999", TARGET], "--http takes HOST:PORT")],
)
@pytest.mark.slow  # a server in a subprocess
def test_cli_usage_errors(argv: list[str], message: str) -> None:
    """A TARGET that is not a Toolbox, or a bad address, is exit 2 with one line."""
    done = subprocess.run(
        [sys.executable, "-m", "describedtypes", *argv], cwd=ROOT, env=child_env(),
        capture_output=True, text=True, timeout=30,
    )
    assert done.returncode == 2, done.stderr
    # Besides what tests/mcp_tools.py prints when imported (to stderr: over stdio the
    # standard output is the wire), one line.
    [line] = [line for line in done.stderr.splitlines() if line != "mcp_tools imported"]
    assert line.startswith("error: ")
    assert message in line


@pytest.mark.slow  # a server in a subprocess
def test_cli_port_in_use() -> None:
    """A port another socket holds is exit 2 with one line saying so."""
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "describedtypes", "mcp", "--http", f"127.0.0.1:{port}",
             TARGET], cwd=ROOT, env=child_env(), capture_output=True, text=True, timeout=30,
        )
    assert done.returncode == 2, done.stderr
    assert done.stderr == f"error: cannot serve on 127.0.0.1:{port}: Address already in use\n"


# -- without the SDK -----------------------------------------------------------------------------

_BLOCK_MCP = """
import sys

class BlockMCP:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("mcp", "mcp_types"):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, BlockMCP())
"""


def run_without_mcp(code: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(_BLOCK_MCP) + textwrap.dedent(code), *args],
        cwd=ROOT, env=child_env(), capture_output=True, text=True, timeout=60,
    )


@pytest.mark.slow  # a server in a subprocess
def test_without_mcp_the_error_names_the_extra() -> None:
    """Without the SDK, importing the package works (and never imports mcp), and making a
    server is a ModuleNotFoundError that says which extra to install."""
    done = run_without_mcp("""
        import describedtypes
        assert not any(m.split(".")[0] in ("mcp", "mcp_types") for m in sys.modules)
        from tests.mcp_tools import toolbox
        try:
            toolbox.mcp_server(name="demo")
        except ModuleNotFoundError as exc:
            print(exc.name, exc)
    """)
    assert done.returncode == 0, done.stderr
    told = done.stdout.splitlines()[-1]  # after what tests/mcp_tools.py prints
    assert told.startswith("mcp serving a Toolbox over MCP needs the MCP SDK (mcp>=2.3)")
    assert ("pip install 'mcp>=2.3' "
            "(or, in a clone of describedtypes: pip install -e '.[mcp]')") in told


@pytest.mark.slow  # a server in a subprocess
def test_without_mcp_the_command_exits_2() -> None:
    """``describedtypes mcp`` without the SDK is exit 2 with one line naming the extra."""
    done = run_without_mcp("""
        from describedtypes._cli.main import main
        sys.exit(main(["mcp", sys.argv[1]]))
    """, TARGET)
    assert done.returncode == 2, done.stderr
    [line] = [line for line in done.stderr.splitlines() if line != "mcp_tools imported"]
    assert line.startswith("error: serving a Toolbox over MCP needs the MCP SDK (mcp>=2.3)")
    assert line.endswith("install the extra: pip install 'mcp>=2.3' "
                         "(or, in a clone of describedtypes: pip install -e '.[mcp]')")

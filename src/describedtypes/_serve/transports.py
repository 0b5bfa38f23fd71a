"""Serving an MCP server over stdio and streamable HTTP, stoppable at any moment.

Both run the SDK's own transports. Over stdio, standard input is read by a reader of
our own (``StdinLines``): the SDK's reader (``mcp/server/stdio.py``) iterates
``anyio.wrap_file(stdin)``, whose ``readline`` runs in a worker thread under a shielded
cancel scope (``to_thread.run_sync`` without ``abandon_on_cancel``), on a thread that is
not a daemon. Cancelling the server (Ctrl-C) then waits for the client's next line, and
the interpreter's exit waits for that thread: the server hangs until stdin closes. Our
reader runs on a daemon thread feeding a bounded queue, so cancelling it is immediate
and the exit never joins it. It also bounds a line (``MAX_LINE_BYTES``): a longer one is
read past without being kept and answered with a JSON-RPC error.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import re
import socket
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcp.server import Server

__all__ = ["MAX_LINE_BYTES", "StdinLines", "serve_http", "serve_stdio"]

logger = logging.getLogger("describedtypes.mcp")

#: Seconds open HTTP requests (event streams) get to finish once the server stops.
GRACEFUL_SECONDS = 2

#: Lines read ahead of the server (a bound on the memory a fast client can fill).
QUEUE_LINES = 16

#: The longest message a client may send over stdio: 4 MiB of UTF-8 in one line (the
#: newline not counted). A longer line is read past without being kept and answered with a
#: JSON-RPC error; the server keeps serving.
MAX_LINE_BYTES = 4 * 1024 * 1024

#: Bytes of an over-long line kept to find its request id in.
_HEAD_BYTES = 512
_SKIP_CHUNK = 1 << 16
_ID = re.compile(rb'"id"\s*:\s*(-?[0-9]{1,18}|"(?:[^"\\]|\\.){0,200}")')


class TooLong:
    """Strictly private: a line past ``MAX_LINE_BYTES``: its size and its first bytes."""

    __slots__ = ("head", "size")

    def __init__(self, head: bytes, size: int) -> None:
        self.head = head
        self.size = size

    def request_id(self) -> int | str | None:
        """The id of the request the line starts (a client writes it before the params),
        so the client's call fails at once instead of waiting; None when not found."""
        head = self.head.split(b'"params"', 1)[0]
        found = _ID.search(head)
        if found is None:
            return None
        try:
            value = json.loads(found.group(1))
        except ValueError:
            return None
        return value if isinstance(value, (int, str)) else None


class StdinLines:
    """Lines of standard input for ``stdio_server(stdin=...)``, read on a daemon thread.

    Like the SDK, fd 0 is pointed at the null device while serving (a tool that reads
    stdin gets end of file, never a message of the wire) and the wire is read from a
    private duplicate; ``restore()`` puts fd 0 back. The SDK only iterates the object
    (``async for line in stdin``), so this is all it needs.
    """

    def __init__(self, max_line_bytes: int = MAX_LINE_BYTES) -> None:
        self.max_line_bytes = max_line_bytes
        #: Called with each over-long line (the server answers it with an error).
        self.on_too_long: Callable[[TooLong], Awaitable[None]] | None = None
        self._private = os.dup(0)
        self._saved = os.dup(0)
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.close(devnull)
        # closefd=False: the daemon thread may still be blocked reading it when the
        # server has stopped; the descriptor goes with the process.
        self._file = open(self._private, "rb", closefd=False)  # noqa: SIM115
        self._loop = asyncio.get_running_loop()
        self._queue: asyncio.Queue[bytes | TooLong | None] = asyncio.Queue(maxsize=QUEUE_LINES)
        self._thread = threading.Thread(target=self._read, name="mcp-stdin", daemon=True)
        self._thread.start()

    def _read(self) -> None:
        limit = self.max_line_bytes
        try:
            while line := self._file.readline(limit + 1):
                item: bytes | TooLong = line
                if len(line) > limit and not line.endswith(b"\n"):
                    item = TooLong(line[:_HEAD_BYTES], len(line) + self._skip_line())
                del line
                # Back-pressure: wait until the queue has room for this line.
                asyncio.run_coroutine_threadsafe(self._queue.put(item), self._loop).result()
                del item
        except Exception:  # the loop closed under us at shutdown, or a read error: stop
            pass
        finally:
            # A closed loop (RuntimeError): nobody is waiting for the end any more.
            with contextlib.suppress(Exception):
                self._loop.call_soon_threadsafe(self._queue.put_nowait, None)

    def _skip_line(self) -> int:
        """Read past the rest of the current line, keeping none of it; its length (the
        newline not counted)."""
        skipped = 0
        while chunk := self._file.readline(_SKIP_CHUNK):
            if chunk.endswith(b"\n"):
                return skipped + len(chunk) - 1
            skipped += len(chunk)
        return skipped

    def restore(self) -> None:
        """Point fd 0 back at the original standard input."""
        os.dup2(self._saved, 0)
        os.close(self._saved)

    def __aiter__(self) -> AsyncIterator[str]:
        return self._lines()

    async def _lines(self) -> AsyncIterator[str]:
        while (line := await self._queue.get()) is not None:
            if isinstance(line, TooLong):
                if self.on_too_long is not None:
                    await self.on_too_long(line)
                continue
            yield line.decode("utf-8", errors="replace")


async def serve_stdio(server: Server[Any]) -> None:
    """Serve ``server`` on this process's stdin and stdout until stdin ends or it is
    cancelled."""
    from mcp.server.stdio import stdio_server

    stdin = StdinLines()
    try:
        # With stdin given, the SDK skips only its claim of fd 0: it still points fd 1 at
        # stderr while serving, so a stray print never corrupts the wire.
        async with stdio_server(stdin=stdin) as (read, write):  # type: ignore[arg-type]
            stdin.on_too_long = _refuser(write, stdin.max_line_bytes)
            await server.run(read, write, server.create_initialization_options())
    finally:
        stdin.restore()


def _refuser(write: Any, limit: int) -> Callable[[TooLong], Awaitable[None]]:
    """Answers an over-long line with a JSON-RPC "invalid request" error."""
    from mcp import types
    from mcp.shared.message import SessionMessage

    async def refuse(line: TooLong) -> None:
        request_id = line.request_id()
        logger.warning(
            "a message of %d bytes was refused: over the stdio limit of %d bytes (id %.80r)",
            line.size, limit, request_id,
        )
        error = types.ErrorData(
            code=types.INVALID_REQUEST,
            message=(
                f"message too long: {line.size:,} bytes in one line, over this server's "
                f"limit of {limit:,} bytes over stdio; send less in one request"
            ),
        )
        await write.send(SessionMessage(types.JSONRPCError(
            jsonrpc="2.0", id=request_id, error=error,
        )))

    return refuse


async def serve_http(
    server: Server[Any], host: str, port: int, *,
    ready: Callable[[str], None] | None = None, stop: asyncio.Event | None = None,
) -> None:
    """Serve ``server`` over streamable HTTP at ``http://host:port/mcp`` (the SDK's path).

    ``ready(url)`` is called once the socket listens (with the real port when ``port``
    is 0): a connection is accepted from then on. Setting ``stop`` shuts the server down
    (open requests get ``GRACEFUL_SECONDS``). Signals are the caller's: uvicorn's own
    handling (which raises the signal again once stopped, so SIGTERM kills the process)
    is left out.
    """
    import uvicorn

    class _Uvicorn(uvicorn.Server):
        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:
            yield

    # For a loopback host the SDK turns on its DNS-rebinding protection (only Host
    # headers of 127.0.0.1, localhost and [::1] are served).
    app = server.streamable_http_app(host=host)
    config = uvicorn.Config(
        app, host=host, port=port, log_level="warning", lifespan="on",
        # An open event stream must not hold up the exit.
        timeout_graceful_shutdown=GRACEFUL_SECONDS,
    )
    web = _Uvicorn(config)
    # Bound here, not by uvicorn: a port in use is an OSError for the caller (uvicorn would
    # log it and exit the process), and port 0 is known at once.
    listening = _bind(host, port)
    bound = listening.getsockname()[1]

    async def announce() -> None:
        while not web.started:
            if web.should_exit:
                return
            await asyncio.sleep(0.02)
        shown = f"[{host}]" if ":" in host else host
        if ready is not None and not web.should_exit:
            ready(f"http://{shown}:{bound}/mcp")

    async def stopping() -> None:
        assert stop is not None
        await stop.wait()
        # An event stream still open after GRACEFUL_SECONDS is cancelled, as meant:
        # uvicorn would log that with a traceback.
        logging.getLogger("uvicorn.error").addFilter(_cancelled_on_shutdown)
        web.should_exit = True

    loop = asyncio.get_running_loop()
    waiters = [loop.create_task(announce())]
    if stop is not None:
        waiters.append(loop.create_task(stopping()))
    try:
        await web.serve(sockets=[listening])
    finally:
        for waiter in waiters:
            waiter.cancel()
        listening.close()


def _cancelled_on_shutdown(record: logging.LogRecord) -> bool:
    """False for uvicorn's report of a request cancelled by the shutdown."""
    if record.exc_info and isinstance(record.exc_info[1], asyncio.CancelledError):
        return False
    return not record.getMessage().startswith("Cancel ")


def _bind(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``host:port`` (the first address the host resolves to)."""
    family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
    except OSError:
        sock.close()
        raise
    return sock

"""Serving an MCP server over stdio and streamable HTTP, stoppable at any moment.

Both run the SDK's own transports. Over stdio, standard input is read by a reader of
our own (``StdinLines``): the SDK's reader (``mcp/server/stdio.py``) iterates
``anyio.wrap_file(stdin)``, whose ``readline`` runs in a worker thread under a shielded
cancel scope (``to_thread.run_sync`` without ``abandon_on_cancel``), on a thread that is
not a daemon. Cancelling the server (Ctrl-C) then waits for the client's next line, and
the interpreter's exit waits for that thread: the server hangs until stdin closes. Our
reader runs on a daemon thread feeding a bounded queue, so cancelling it is immediate
and the exit never joins it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import threading
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcp.server import Server

__all__ = ["StdinLines", "serve_http", "serve_stdio"]

#: Lines read ahead of the server (a bound on the memory a fast client can fill).
QUEUE_LINES = 16


class StdinLines:
    """Lines of standard input for ``stdio_server(stdin=...)``, read on a daemon thread.

    Like the SDK, fd 0 is pointed at the null device while serving (a tool that reads
    stdin gets end of file, never a message of the wire) and the wire is read from a
    private duplicate; ``restore()`` puts fd 0 back. The SDK only iterates the object
    (``async for line in stdin``), so this is all it needs.
    """

    def __init__(self) -> None:
        self._private = os.dup(0)
        self._saved = os.dup(0)
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.close(devnull)
        # closefd=False: the daemon thread may still be blocked reading it when the
        # server has stopped; the descriptor goes with the process.
        self._file = open(self._private, "rb", closefd=False)  # noqa: SIM115
        self._loop = asyncio.get_running_loop()
        self._queue: asyncio.Queue[bytes | None] = asyncio.Queue(maxsize=QUEUE_LINES)
        self._thread = threading.Thread(target=self._read, name="mcp-stdin", daemon=True)
        self._thread.start()

    def _read(self) -> None:
        try:
            for line in self._file:
                # Back-pressure: wait until the queue has room for this line.
                asyncio.run_coroutine_threadsafe(self._queue.put(line), self._loop).result()
        except Exception:  # the loop closed under us at shutdown, or a read error: stop
            pass
        finally:
            # A closed loop (RuntimeError): nobody is waiting for the end any more.
            with contextlib.suppress(Exception):
                self._loop.call_soon_threadsafe(self._queue.put_nowait, None)

    def restore(self) -> None:
        """Point fd 0 back at the original standard input."""
        os.dup2(self._saved, 0)
        os.close(self._saved)

    def __aiter__(self) -> AsyncIterator[str]:
        return self._lines()

    async def _lines(self) -> AsyncIterator[str]:
        while (line := await self._queue.get()) is not None:
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
            await server.run(read, write, server.create_initialization_options())
    finally:
        stdin.restore()


async def serve_http(
    server: Server[Any], host: str, port: int, *, ready: Callable[[str], None] | None = None
) -> None:
    """Serve ``server`` over streamable HTTP at ``http://host:port/mcp`` (the SDK's path).

    ``ready(url)`` is called once the socket listens (with the real port when ``port``
    is 0). uvicorn handles SIGINT and SIGTERM itself: it closes the sessions, stops and
    raises the signal again (``KeyboardInterrupt`` for Ctrl-C).
    """
    import uvicorn

    # For a loopback host the SDK turns on its DNS-rebinding protection (only Host
    # headers of 127.0.0.1, localhost and [::1] are served).
    app = server.streamable_http_app(host=host)
    config = uvicorn.Config(
        app, host=host, port=port, log_level="warning", lifespan="on",
        # An open event stream must not hold up the exit.
        timeout_graceful_shutdown=2,
    )
    web = uvicorn.Server(config)
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
        if ready is not None:
            ready(f"http://{shown}:{bound}/mcp")

    waiter = asyncio.get_running_loop().create_task(announce())
    try:
        await web.serve(sockets=[listening])
    finally:
        waiter.cancel()
        listening.close()


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

"""``describedtypes mcp TARGET``: serve a Toolbox over MCP (stdio, or streamable HTTP).

Exit status: 0 when the client closed stdin (or on SIGTERM), 130 after Ctrl-C, 2 for a
usage problem (a TARGET that cannot be loaded or is not a Toolbox, a bad ``--http``
address, the SDK missing), 1 when the toolbox cannot be described as MCP tools.

Ctrl-C over stdio: the first SIGINT (or SIGTERM) cancels the server and ignores any
later one; the server's stdin reader never holds the exit (see
``_serve/transports.py``). A watchdog leaves after a few seconds anyway, should
anything else wedge the shutdown (a write blocked on a full pipe, a tool's thread that
is not a daemon), so one Ctrl-C always ends the process, without a traceback.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import signal
import sys
import threading
from collections.abc import Awaitable
from pathlib import Path
from typing import Any

from .._tools.toolbox import Toolbox
from ..errors import DescribedTypesError
from .targets import UsageError, load_target

__all__ = ["add_mcp_command", "run_mcp"]

#: Seconds after the first Ctrl-C before the process leaves whatever is still running.
GRACE_SECONDS = 3.0


def add_mcp_command(commands: Any) -> None:
    """Add the ``mcp`` subcommand to the command line's subparsers."""
    cmd = commands.add_parser(
        "mcp",
        help="serve a Toolbox as an MCP server (stdio by default)",
        description=(
            "Serve the Toolbox at TARGET to MCP clients: over stdio (the default; the "
            "client starts this command), or over streamable HTTP with --http. Exit "
            "status: 0 stdin closed, 130 interrupted, 2 usage error."
        ),
    )
    cmd.add_argument("target", metavar="TARGET",
                     help="the Toolbox: package.module:name or path/to/file.py:name")
    cmd.add_argument("--http", metavar="HOST:PORT", default=None,
                     help="serve streamable HTTP at http://HOST:PORT/mcp instead of stdio "
                          "(PORT 0 picks a free port; the URL is printed on stderr)")
    cmd.add_argument("--name", default=None,
                     help="the server's name for clients (default: TARGET's module name)")
    cmd.add_argument("--server-version", default="", metavar="VERSION",
                     help="the server's version for clients (default: empty)")


def _address(text: str) -> tuple[str, int]:
    host, sep, port = text.rpartition(":")
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    if not sep or not host or not port.isdigit() or int(port) > 65535:
        msg = (
            f"--http takes HOST:PORT such as 127.0.0.1:8000 (or [::1]:8000), got {text!r}"
        )
        raise UsageError(msg)
    return host, int(port)


def _default_name(target: str) -> str:
    module = target.rpartition(":")[0]
    if module.endswith(".py") or "/" in module or "\\" in module:
        return Path(module).stem
    return module.rpartition(".")[2] or module


def run_mcp(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """Run the ``mcp`` subcommand; returns the exit status."""
    try:
        address = _address(args.http) if args.http is not None else None
        # Over stdio, standard output is the wire: what TARGET prints while it is
        # imported goes to standard error.
        with contextlib.redirect_stdout(sys.stderr if address is None else sys.stdout):
            toolbox = load_target(args.target, instance=True)
        if not isinstance(toolbox, Toolbox):
            msg = (
                f"{args.target} is a {type(toolbox).__name__}, not a Toolbox; point TARGET "
                "at a Toolbox (toolbox = Toolbox([get_weather, ...]))"
            )
            raise UsageError(msg)
        server = toolbox.mcp_server(
            name=args.name or _default_name(args.target), version=args.server_version
        )
    except UsageError as exc:
        parser.exit(2, f"error: {exc}\n")
    except ImportError as exc:  # the SDK is missing (the message names the extra)
        parser.exit(2, f"error: {exc}\n")
    except DescribedTypesError as exc:
        parser.exit(1, f"error: {exc}\n")
    if address is not None:
        return _serve_http(server, *address)
    return _serve_stdio(server)


def _serve_http(server: Any, host: str, port: int) -> int:
    from .._serve.transports import serve_http

    def ready(url: str) -> None:
        print(f"serving MCP on {url}", file=sys.stderr, flush=True)

    try:
        asyncio.run(serve_http(server, host, port, ready=ready))
    except KeyboardInterrupt:  # uvicorn raises Ctrl-C again once it has shut down
        return 130
    except OSError as exc:  # the port is taken, the host is not ours or unknown
        print(f"error: cannot serve on {host}:{port}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    return 0


def _serve_stdio(server: Any) -> int:
    from .._serve.transports import serve_stdio

    stopper = _Stopper()
    try:
        asyncio.run(stopper.run(serve_stdio(server)))
    except KeyboardInterrupt:  # a SIGINT that came before the handler was in place
        return 130
    if stopper.signum is None:
        return 0  # stdin ended: the client went away
    return 130 if stopper.signum == signal.SIGINT else 0


def _watchdog(code: int) -> None:
    """Leave with ``code`` after ``GRACE_SECONDS``, whatever is still running."""

    def leave() -> None:
        try:
            sys.stderr.write(
                f"describedtypes mcp: still stopping {GRACE_SECONDS:g} s after the signal; "
                "leaving now\n"
            )
            sys.stderr.flush()
        finally:
            os._exit(code)

    timer = threading.Timer(GRACE_SECONDS, leave)
    timer.daemon = True
    timer.start()


#: What CPython writes (as an "exception ignored") when a signal that was already
#: pending finds its handler set to SIG_IGN by the time the interpreter runs it.
_RACE = "ignored due to race condition"


def quiet_signal_races() -> None:
    """Stop the interpreter reporting a second Ctrl-C that arrived while the first was
    being handled (its handler had just become SIG_IGN): the signal is ignored, as
    meant, and its traceback on stderr would say otherwise. Other unraisable exceptions
    still go to the previous hook."""
    previous = sys.unraisablehook

    def hook(unraisable: Any) -> None:
        value = unraisable.exc_value
        if isinstance(value, OSError) and _RACE in str(value):
            return
        previous(unraisable)

    sys.unraisablehook = hook


class _Stopper:
    """The first SIGINT or SIGTERM cancels the server's task; later ones are ignored.

    Installed with ``signal.signal`` before ``asyncio.run``, so asyncio's own handling
    of SIGINT (cancel on the first, ``KeyboardInterrupt`` on the second) stays out.
    """

    def __init__(self) -> None:
        self.signum: int | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task[Any] | None = None
        quiet_signal_races()
        signal.signal(signal.SIGINT, self._on_signal)
        signal.signal(signal.SIGTERM, self._on_signal)

    def _on_signal(self, signum: int, frame: Any) -> None:
        self.signum = signum
        # Ignored at the C level from now on: the interpreter's finalization resets a
        # Python handler to the default (a second Ctrl-C would then kill the process
        # with a KeyboardInterrupt in threading._shutdown) but leaves SIG_IGN alone.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        _watchdog(130 if signum == signal.SIGINT else 0)
        loop, task = self._loop, self._task
        if loop is not None and task is not None and not loop.is_closed():
            loop.call_soon_threadsafe(task.cancel)

    async def run(self, serving: Awaitable[None]) -> None:
        self._loop = asyncio.get_running_loop()
        self._task = asyncio.current_task()
        if self.signum is not None:  # Ctrl-C while starting
            if asyncio.iscoroutine(serving):
                serving.close()
            return
        try:
            await serving
        except asyncio.CancelledError:
            if self.signum is None:
                raise

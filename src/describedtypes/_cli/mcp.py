"""``describedtypes mcp TARGET``: serve a Toolbox over MCP (stdio, or streamable HTTP).

Exit status: 0 when the client closed stdin (or on SIGTERM), 130 after Ctrl-C, 2 for a
usage problem (a TARGET that cannot be loaded or is not a Toolbox, a bad ``--http``
address, the SDK missing), 1 when the toolbox cannot be described as MCP tools.

Signals: from the start (TARGET's import included) the first SIGINT or SIGTERM stops
the command and any later one is ignored: while starting it interrupts the start, over
stdio it cancels the server, over HTTP it shuts uvicorn down gracefully (uvicorn's own
signal handling is not used); the server's stdin reader never holds the exit (see
``_serve/transports.py``). When a client started it (stdin not a terminal), the command
leads a process group of its own and ends the rest of it, its tools' child processes,
on the way out. A watchdog leaves after a few seconds anyway, should
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
from collections.abc import Awaitable, Callable, Iterator
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
                     help="the server's version for clients (default: the version of the "
                          "installed package TARGET's module belongs to, if any)")


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
    # From here on the first SIGINT or SIGTERM stops the command: while it starts (the
    # TARGET's import, the SDK's) by interrupting it, once it serves by stopping the
    # server; either way within GRACE_SECONDS and without a traceback.
    stopper = _Stopper()
    try:
        with stopper.starting():
            server, address = _prepare(args, parser)
    except KeyboardInterrupt:
        return stopper.status()
    own_group = _lead_a_process_group()
    try:
        if address is not None:
            host, port = address
            return _serve_http(server, host, port, stopper)
        return _serve_stdio(server, stopper)
    finally:
        if own_group:
            _end_children()


def _prepare(
    args: argparse.Namespace, parser: argparse.ArgumentParser
) -> tuple[Any, tuple[str, int] | None]:
    """The server and the HTTP address (None: stdio); a usage problem exits."""
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
            name=args.name or _default_name(args.target),
            version=args.server_version or _package_version(args.target),
        )
    except UsageError as exc:
        parser.exit(2, f"error: {exc}\n")
    except ImportError as exc:  # the SDK is missing (the message names the extra)
        parser.exit(2, f"error: {exc}\n")
    except DescribedTypesError as exc:
        parser.exit(1, f"error: {exc}\n")
    return server, address


def _serve_http(server: Any, host: str, port: int, stopper: _Stopper) -> int:
    from .._serve.transports import serve_http

    def ready(url: str) -> None:
        print(f"serving MCP on {url}", file=sys.stderr, flush=True)

    try:
        asyncio.run(stopper.run(lambda stop: serve_http(server, host, port, ready=ready,
                                                        stop=stop)))
    except KeyboardInterrupt:  # a SIGINT that came before the handler was in place
        return 130
    except OSError as exc:  # the port is taken, the host is not ours or unknown
        print(f"error: cannot serve on {host}:{port}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    return stopper.status()


def _serve_stdio(server: Any, stopper: _Stopper) -> int:
    from .._serve.transports import serve_stdio

    try:
        asyncio.run(stopper.run(lambda stop: serve_stdio(server), cancel=True))
    except KeyboardInterrupt:  # a SIGINT that came before the handler was in place
        return 130
    return stopper.status()  # 0 when stdin ended: the client went away


def _lead_a_process_group() -> bool:
    """Make this process the leader of a process group of its own, so the processes its
    tools start can be ended with it; False where that is not wanted or not possible.

    Not when standard input is a terminal: the terminal's Ctrl-C goes to its foreground
    process group, which a new group would leave (and a shell's job control already
    gave the command a group of its own).
    """
    if not hasattr(os, "setpgid"):
        return False
    try:
        if os.isatty(0) or os.getpgrp() == os.getpid():
            return False
        os.setpgid(0, 0)
    except OSError:  # a session leader cannot move
        return False
    _owned_group[0] = True
    return True


#: Whether this process made the process group it leads (its children may be ended).
_owned_group = [False]


def _end_children() -> None:
    """SIGTERM to the rest of this process's own group: what its tools started."""
    if not _owned_group[0]:
        return
    try:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # the group includes this process
        os.killpg(os.getpgrp(), signal.SIGTERM)
    except (OSError, ValueError):
        pass


def _package_version(target: str) -> str:
    """The version of the distribution TARGET's top package comes from, or ""."""
    from .._serve.mcp import package_version

    module = target.rpartition(":")[0]
    if module.endswith(".py") or "/" in module or "\\" in module:
        return ""
    return package_version(module)


def _watchdog(code: int) -> None:
    """Leave with ``code`` after ``GRACE_SECONDS``, whatever is still running."""

    def leave() -> None:
        try:
            sys.stderr.write(
                f"describedtypes mcp: still stopping {GRACE_SECONDS:g} s after the signal; "
                "leaving now\n"
            )
            sys.stderr.flush()
            _end_children()
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
    """The first SIGINT or SIGTERM stops the command; later ones are ignored.

    Installed with ``signal.signal`` when the command starts, so asyncio's own handling
    of SIGINT (cancel on the first, ``KeyboardInterrupt`` on the second) and uvicorn's
    (which raises the signal again once stopped: SIGTERM then kills the process) stay
    out. While starting, a signal interrupts what runs (``KeyboardInterrupt``, caught by
    ``run_mcp``); while serving, it sets the server's stop event (HTTP: a graceful
    shutdown) or cancels its task (stdio). A watchdog bounds either.
    """

    def __init__(self) -> None:
        self.signum: int | None = None
        self._starting = False
        self._cancel = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task[Any] | None = None
        self._stop: asyncio.Event | None = None
        quiet_signal_races()
        signal.signal(signal.SIGINT, self._on_signal)
        signal.signal(signal.SIGTERM, self._on_signal)

    def status(self) -> int:
        """The exit status: 130 after SIGINT, else 0."""
        return 130 if self.signum == signal.SIGINT else 0

    @contextlib.contextmanager
    def starting(self) -> Iterator[None]:
        self._starting = True
        try:
            if self.signum is not None:
                raise KeyboardInterrupt
            yield
        finally:
            self._starting = False

    def _on_signal(self, signum: int, frame: Any) -> None:
        if self.signum is not None:
            return
        self.signum = signum
        # Ignored at the C level from now on: the interpreter's finalization resets a
        # Python handler to the default (a second Ctrl-C would then kill the process
        # with a KeyboardInterrupt in threading._shutdown) but leaves SIG_IGN alone.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        _watchdog(self.status())
        if self._starting:
            raise KeyboardInterrupt
        loop, task, stop = self._loop, self._task, self._stop
        if loop is None or task is None or loop.is_closed():
            return  # not serving yet: run() sees self.signum
        if self._cancel or stop is None:
            loop.call_soon_threadsafe(task.cancel)
        else:
            loop.call_soon_threadsafe(stop.set)

    async def run(
        self, serve: Callable[[asyncio.Event], Awaitable[None]], *, cancel: bool = False
    ) -> None:
        """Run ``serve(stop)`` until it returns or a signal stops it (``cancel``: by
        cancelling it; otherwise by setting ``stop``, which it must watch)."""
        self._cancel = cancel
        self._stop = asyncio.Event()
        self._loop = asyncio.get_running_loop()
        self._task = asyncio.current_task()
        if self.signum is not None:  # a signal while starting
            return
        try:
            await serve(self._stop)
        except asyncio.CancelledError:
            if self.signum is None:
                raise

"""What running a tool needs besides the tool: threads, time limits, and safe text.

- ``ToolThreads``: the bounded pool of daemon threads a ``Toolbox`` runs sync tools on
  (never the event loop's default executor), started lazily and stopped by ``close()``
  or when the toolbox is collected.
- The error-detail policy and the limits on what reaches the model: an exception's text
  read without ever raising, cut to a bounded length, with its line breaks escaped.
- ``start_eagerly``: step a coroutine once right away, and hand it to a task only if it
  really waits for something.
"""

from __future__ import annotations

import collections
import concurrent.futures
import logging
import os
import threading
import types
from collections.abc import Callable, Coroutine, Generator
from typing import Any, Literal

logger = logging.getLogger("describedtypes")
logger.addHandler(logging.NullHandler())

# -- threads -------------------------------------------------------------------------------

DEFAULT_MAX_WORKERS = min(32, (os.cpu_count() or 1) + 4)
"""Threads a Toolbox may start for sync tools, unless ``max_workers=`` says otherwise."""

_IDLE_SECONDS = 30.0
"""A thread with nothing to do for this long exits; the next call starts another."""


class _PoolState:
    """The part of a pool its threads share: the queue and the counts, never the owner."""

    def __init__(self, max_workers: int, name: str) -> None:
        self.max_workers = max_workers
        self.name = name
        self.lock = threading.Lock()
        self.ready = threading.Condition(self.lock)
        self.queue: collections.deque[Any] = collections.deque()
        self.threads = 0
        self.idle = 0
        self.closed = False

    def close(self) -> None:
        with self.lock:
            self.closed = True
            pending = list(self.queue)
            self.queue.clear()
            self.ready.notify_all()
        for future, *_ in pending:
            future.cancel()


def _work(state: _PoolState) -> None:
    while True:
        with state.lock:
            state.idle += 1
            while not state.queue and not state.closed:
                if not state.ready.wait(_IDLE_SECONDS) and not state.queue:
                    break
            state.idle -= 1
            if not state.queue:
                state.threads -= 1
                return
            future, fn, args = state.queue.popleft()
        if not future.set_running_or_notify_cancel():
            continue
        try:
            result = fn(*args)
        except BaseException as exc:  # handed to the caller, who decides what propagates
            future.set_exception(exc)
            del exc
        else:
            future.set_result(result)
        del future, fn, args


class ToolThreads(concurrent.futures.Executor):
    """A bounded pool of daemon threads, started one by one as calls need them.

    Daemon threads: a tool that never returns cannot keep the interpreter from exiting
    (``concurrent.futures.ThreadPoolExecutor`` joins its threads at exit).
    """

    def __init__(
        self, max_workers: int = DEFAULT_MAX_WORKERS, name: str = "describedtypes"
    ) -> None:
        self._state = _PoolState(max_workers, name)

    @property
    def max_workers(self) -> int:
        return self._state.max_workers

    @property
    def threads(self) -> int:
        """Threads alive now (busy or idle)."""
        return self._state.threads

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
        if kwargs:
            args = (_with_kwargs(fn, kwargs), *args)
            fn = _call_first
        future: concurrent.futures.Future[Any] = concurrent.futures.Future()
        state = self._state
        with state.lock:
            if state.closed:
                msg = "this pool of tool threads is closed"
                raise RuntimeError(msg)
            state.queue.append((future, fn, args))
            if state.idle > len(state.queue) - 1:
                state.ready.notify()
            elif state.threads < state.max_workers:
                state.threads += 1
                thread = threading.Thread(
                    target=_work, args=(state,), name=f"{state.name}-{state.threads}", daemon=True
                )
                thread.start()
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Stop the idle threads; calls still running finish on their own threads."""
        self._state.close()


def _with_kwargs(fn: Callable[..., Any], kwargs: dict[str, Any]) -> Callable[..., Any]:
    return lambda *args: fn(*args, **kwargs)


def _call_first(fn: Callable[..., Any], *args: Any) -> Any:
    return fn(*args)


# -- what an exception may tell the model ----------------------------------------------------

ErrorDetail = Literal["message", "full", "type", "none"] | Callable[[BaseException], str]
"""How much of a tool's exception the model is told (``Toolbox(error_detail=...)``)."""

ERROR_DETAILS = ("message", "full", "type", "none")

MAX_MESSAGE_CHARS = 500
"""Under ``error_detail="message"``: the most characters of an exception's text shown."""

DEFAULT_MAX_RESULT_CHARS = 100_000
"""The most characters of a tool's result sent to the model, unless configured."""

_LINE_BREAKS = {ord(c): repr(c)[1:-1] for c in "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"}
_LINE_BREAKS.update({c: f"\\x{c:02x}" for c in range(32) if c not in _LINE_BREAKS and c != 9})
_LINE_BREAKS[0x7F] = "\\x7f"


def type_name(exc: BaseException) -> str:
    try:
        name = type(exc).__name__
    except Exception:  # a metaclass may do anything
        return "Exception"
    return name if type(name) is str else "Exception"


def exception_text(exc: BaseException) -> str:
    """``str(exc)``, never raising: an unreadable message is said to be so."""
    try:
        return str.__str__(str(exc))  # str() may return a str subclass
    except Exception:
        return f"(the {type_name(exc)}'s message could not be read)"


def one_line(text: str, limit: int) -> str:
    """``text`` on one line (line breaks and control characters escaped), at most ``limit``."""
    if len(text) > limit:
        cut = text[:limit].translate(_LINE_BREAKS)[:limit]
        return f"{cut}… ({len(text) - limit} more characters)"
    return text.translate(_LINE_BREAKS)[:limit] if not text.isprintable() else text


def check_error_detail(value: Any) -> ErrorDetail:
    if callable(value) or value in ERROR_DETAILS:
        return value  # type: ignore[no-any-return]
    msg = (
        f"error_detail must be one of {', '.join(map(repr, ERROR_DETAILS))} or a function "
        f"exception -> str, got {value!r}"
    )
    raise ValueError(msg)


def describe_exception(
    tool: str, exc: BaseException, detail: ErrorDetail, max_chars: int | None
) -> str:
    """The model's text for a tool that raised ``exc``, under the ``detail`` policy."""
    head = f"Tool {tool!r} failed"
    if detail == "message":
        text = exception_text(exc)
        kind = type_name(exc)
        return f"{head}: {kind}: {one_line(text, MAX_MESSAGE_CHARS)}" if text else f"{head}: {kind}"
    if detail == "type":
        return f"{head}: {type_name(exc)}"
    if detail == "none":
        return f"{head}."
    if detail == "full":
        text = exception_text(exc)
        full = f"{head}: {type_name(exc)}: {text}" if text else f"{head}: {type_name(exc)}"
        return cut_result(full, max_chars)
    told: object = None
    try:
        told = detail(exc)
    except Exception:
        logger.exception("the error_detail function failed for the tool %r", tool)
    if not isinstance(told, str):
        if told is not None:
            logger.error("error_detail returned %s, not a str", type(told).__name__)
        return f"{head}: {type_name(exc)}"
    return cut_result(f"{head}: {str.__str__(told)}" if told else f"{head}.", max_chars)


def cut_result(text: str, max_chars: int | None) -> str:
    """``text``, or its first ``max_chars`` characters and a note saying it was cut."""
    if max_chars is None or len(text) <= max_chars:
        return text
    return (
        f"{text[:max_chars]}\n[The result was cut here: it had {len(text):,} characters and "
        f"only the first {max_chars:,} are shown.]"
    )


# -- running a coroutine's first step right away ---------------------------------------------


@types.coroutine
def _continue(coro: Coroutine[Any, Any, Any], first: Any) -> Generator[Any, Any, Any]:
    """Go on with ``coro`` after its first step yielded ``first`` (``yield from`` the middle)."""
    pending = first
    while True:
        try:
            sent = yield pending
        except GeneratorExit:
            coro.close()
            raise
        except BaseException as exc:
            try:
                pending = coro.throw(exc)
            except StopIteration as stop:
                return stop.value
        else:
            try:
                pending = coro.send(sent)
            except StopIteration as stop:
                return stop.value


async def _rest(coro: Coroutine[Any, Any, Any], first: Any) -> Any:
    return await _continue(coro, first)


def start_eagerly(
    coro: Coroutine[Any, Any, Any], create_task: Callable[[Any], Any]
) -> tuple[bool, Any]:
    """Run ``coro`` until it first waits: ``(True, result)``, or ``(False, task)`` with a task
    (made by ``create_task``) that goes on with it. Exceptions from the first step raise."""
    try:
        first = coro.send(None)
    except StopIteration as stop:
        return True, stop.value
    return False, create_task(_rest(coro, first))

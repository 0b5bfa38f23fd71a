"""Running one call of a tool: its settings, time limits, and calls left running.

- ``Settings``: how a Toolbox runs its calls (error detail, timeout, result limit, its
  pool of ``ToolThreads``), and the calls still running that nobody waits for.
- Running one call: the concurrency gate, time limits (``Began`` tells when a call
  on a worker thread really started), telling a tool's own ``CancelledError`` from a
  cancelled caller, and listing calls left running.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import logging
import sys
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .._base.aio import CANCEL_GRACE, abandon, is_awaitable
from .._base.aio import run_coroutine as _run_coroutine
from .._base.lazy import LazyModule as _LazyModule
from ..errors import ArgumentError
from .model_text import DEFAULT_MAX_RESULT_CHARS, ErrorDetail, cut_result, exception_text, type_name
from .threads import DEFAULT_MAX_WORKERS, Job, ToolThreads

if TYPE_CHECKING:
    import asyncio
else:  # imported when a tool first runs asynchronously: it is slow to import
    asyncio = _LazyModule("asyncio", globals())

if TYPE_CHECKING:
    from .._base.records import ToolCall, ToolResult

logger = logging.getLogger("describedtypes")
logger.addHandler(logging.NullHandler())


def run_coroutine(
    awaitable: Any, timeout: float | None, call: ToolCall | None = None,
    rt: Settings | None = None, held: list[Callable[[], None]] | None = None,
) -> Any:
    """Run a tool's awaitable to completion from synchronous code, within ``timeout``
    seconds (past them, the model is told the tool timed out) plus ``CANCEL_GRACE`` for
    it to stop; what does not stop is listed in ``rt.running`` until it ends, and keeps
    the gate ``held`` holds the release of (a ``concurrent=False`` tool's) until then."""
    if timeout is None:
        return _run_coroutine(awaitable)
    assert call is not None
    assert rt is not None

    def left(tasks: list[Any]) -> None:
        _track(tasks, rt, call, _handed(held))
        _left_running(call, "it overran its timeout and did not stop when cancelled")

    return _run_coroutine(awaitable, timeout, lambda: _timed_out(call.name, timeout), left)


class Settings:
    """Strictly private: how a Toolbox runs its calls (one per Toolbox; defaults for a Tool).

    Holds no reference to the Toolbox, so a finalizer can close the threads when the
    Toolbox is collected.
    """

    __slots__ = ("_pool", "error_detail", "lock", "max_result_chars", "max_workers", "running",
                 "timeout")

    def __init__(
        self,
        error_detail: ErrorDetail = "message",
        timeout: float | None = None,
        max_result_chars: int | None = DEFAULT_MAX_RESULT_CHARS,
        max_workers: int = DEFAULT_MAX_WORKERS,
    ) -> None:
        self.error_detail = error_detail
        self.timeout = timeout
        self.max_result_chars = max_result_chars
        self.max_workers = max_workers
        self.lock = threading.Lock()
        self._pool: ToolThreads | None = None
        #: Calls running on a thread or in a task the caller no longer waits for.
        self.running: dict[int, ToolCall] = {}

    def pool(self) -> ToolThreads:
        pool = self._pool
        if pool is None:
            with self.lock:
                pool = self._pool
                if pool is None:
                    pool = self._pool = ToolThreads(self.max_workers)
        return pool

    def close(self) -> None:
        with self.lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False)


DEFAULTS = Settings()
"""The settings of a ``Tool`` called on its own (its threads are shared, library-wide)."""

HAS_CANCELLING = sys.version_info >= (3, 11)


class TimedOut(TimeoutError):
    """Strictly private: a call overran its ``timeout``; the model is told so."""


class NotStarted(RuntimeError):
    """Strictly private: a call that could not start within its time limit (every worker
    thread busy, or its ``concurrent=False`` tool busy with another call); never run."""


class ToolCancelled(Exception):
    """Strictly private: the tool raised ``CancelledError`` itself (nobody cancelled it)."""

    def __init__(self, original: BaseException) -> None:
        super().__init__("the tool raised CancelledError")
        self.original = original


def cancelled_from_outside() -> bool:
    """Whether the running task was asked to cancel (so a CancelledError is the caller's)."""
    if not HAS_CANCELLING:
        # Python 3.10 cannot tell; tools are run in a task of their own there, so a
        # CancelledError reaching the caller is the caller's.
        return True
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0  # type: ignore[attr-defined,unused-ignore]


_GATE_POLL = 0.05
"""Seconds between looks at whether its caller gave up, for a call waiting for its gate."""


class Began:
    """Strictly private: when a call on a worker thread really starts (its gate held), or
    that its caller gave up first, in which case it never runs."""

    __slots__ = ("_lock", "_then", "at", "event", "given_up")

    def __init__(self, event: threading.Event | None = None) -> None:
        self._lock = threading.Lock()
        self._then: Callable[[], None] | None = None
        self.at = 0.0
        self.event = event
        self.given_up = False

    def start(self) -> bool:
        """On the worker thread: True if the call may run (its clock starts now)."""
        with self._lock:
            if self.given_up:
                return False
            self.at = time.monotonic()
            if self.event is not None:
                self.event.set()
            then, self._then = self._then, None
        if then is not None:
            then()
        return True

    @property
    def started(self) -> bool:
        return self.at != 0.0

    def give_up(self) -> bool:
        """For the caller: True if the call had not started, and now never will."""
        with self._lock:
            if self.at != 0.0:
                return False
            self.given_up = True
            return True

    def then(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` (on the worker thread) when the call starts."""
        with self._lock:
            if self.at == 0.0:
                self._then = callback
                return
        callback()


_NOT_RUN = object()


def _thread_call(
    running: dict[int, ToolCall],
    call: ToolCall,
    func: Callable[..., Any],
    kwargs: dict[str, Any],
    lock: Any,
    began: Began | None,
) -> Any:
    if lock is not None:
        if began is None:
            lock.acquire()
        else:
            while not lock.acquire(timeout=_GATE_POLL):
                if began.given_up:
                    return _NOT_RUN
    try:
        if began is not None and not began.start():
            return _NOT_RUN
        key = id(kwargs)  # unique while this call runs
        running[key] = call
        try:
            return func(**kwargs)
        except asyncio.CancelledError as exc:  # not a cancellation of anyone's task
            raise ToolCancelled(exc) from exc
        finally:
            del running[key]
    finally:
        if lock is not None:
            lock.release()


def log_outcome(result: ToolResult, seconds: float, arguments: Any) -> None:
    ms = seconds * 1000
    if result.is_error:
        why = type_name(result.exception) if result.exception is not None else "invalid call"
        logger.info("tool %s failed (%s) in %.2f ms, call_id=%.80s", result.name, why, ms,
                    result.call_id)
    else:
        logger.info("tool %s ran in %.2f ms, call_id=%.80s", result.name, ms, result.call_id)
    if logger.isEnabledFor(logging.DEBUG):
        logger.debug("tool %s arguments=%.1000r content=%.1000r", result.name, arguments,
                     result.content)


async def _watch(
    coro: Any, timeout: float | None, rt: Settings, call: ToolCall,
    held: list[Callable[[], None]] | None = None,
) -> Any:
    """Run a tool's coroutine in a task of its own: its own CancelledError and a timeout
    are told apart from a cancellation of the caller. A task left running keeps the gate
    ``held`` holds the release of until it ends."""
    task = asyncio.ensure_future(coro)
    try:
        done, _ = await asyncio.wait((task,), timeout=timeout)
    except asyncio.CancelledError:
        task.cancel()
        _track([task], rt, call, _handed(held))
        raise
    if not done:
        task.cancel()
        done, _ = await asyncio.wait((task,), timeout=CANCEL_GRACE)
        if not done:
            abandon(task)  # given its grace: a loop winding down does not wait again
            _track([task], rt, call, _handed(held))
            _left_running(call, "it overran its timeout and did not stop when cancelled")
        raise _timed_out(call.name, timeout)
    if task.cancelled():
        raise ToolCancelled(asyncio.CancelledError())
    return task.result()


def _handed(held: list[Callable[[], None]] | None) -> Callable[[], None] | None:
    """The release of a gate, taken over from the caller (who then does not release it)."""
    return held.pop() if held else None


def _track(
    tasks: list[Any], rt: Settings, call: ToolCall, then: Callable[[], None] | None = None
) -> None:
    """List ``call`` in ``running_calls`` until all of ``tasks`` are done; then ``then()``."""
    waiting = [t for t in tasks if not t.done()]
    if not waiting:
        if then is not None:
            then()
        return
    count = [len(waiting)]
    key = id(count)  # unique while the callbacks below hold ``count``
    rt.running[key] = call

    def done(task: Any) -> None:
        if not task.cancelled():
            task.exception()  # retrieved: the caller was told of the timeout already
        count[0] -= 1
        if count[0] == 0:
            rt.running.pop(key, None)
            if then is not None:
                then()

    for task in waiting:
        task.add_done_callback(done)


def _left_running(call: ToolCall, why: str) -> None:
    logger.warning(
        "tool %s (call_id=%.80s) is still running after %s; it is listed in "
        "Toolbox.running_calls until it returns", call.name, call.call_id, why
    )


def _timed_out(name: str, timeout: float | None) -> TimedOut:
    return TimedOut(
        f"Tool {name!r} timed out: it did not finish within its time limit of {timeout:g} "
        "seconds."
    )


def _start_wait(timeout: float) -> float:
    """How long a call waits to start: its time limit, and a second more for a thread to
    be started (so a short limit on a busy machine does not turn into "not run")."""
    return timeout + CANCEL_GRACE


def _not_started(call: ToolCall, timeout: float, rt: Settings, gated: bool) -> NotStarted:
    why = (
        "another call of it was still running (it runs one call at a time)" if gated
        else f"all {rt.max_workers} worker threads were busy with other calls"
    )
    logger.warning(
        "tool %s (call_id=%.80s) was not run: %s for %g seconds", call.name, call.call_id,
        why, _start_wait(timeout),
    )
    return NotStarted(f"Tool {call.name!r} was not run: {why}. Call it again later.")


def own_words(exc: ArgumentError, rt: Settings) -> str:
    """An ``ArgumentError``'s message, as the tool wrote it, within the result limit."""
    text = exception_text(exc)
    limit = rt.max_result_chars
    return text if limit is None or len(text) <= limit else cut_result(text, limit)


def check_timeout(timeout: Any) -> float | None:
    if timeout is None:
        return None
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)):
        msg = f"timeout must be a number of seconds or None, got {timeout!r}"
        raise TypeError(msg)
    if not timeout > 0 or timeout == float("inf"):
        msg = f"timeout must be a positive, finite number of seconds, got {timeout!r}"
        raise ValueError(msg)
    return float(timeout)


# -- running one call of a tool (``tool`` is a ``Tool``) --------------------------------------
#
# A sync function runs on a worker thread of the toolbox's pool. Its time limit starts
# when it starts (``Began``), not when it is queued: a call waits for a free thread (and a
# concurrent=False tool for its gate) at most its time limit and a second, and one that
# did not start in that time never runs and is not said to have timed out. A call past its
# time limit cannot be stopped: its thread is abandoned (no longer counted against
# max_workers) and the call is listed in running_calls until it returns.


async def off_loop(rt: Settings, fn: Callable[..., Any], /, *args: Any) -> Any:
    """``fn(*args)`` on a worker thread of ``rt``'s pool, awaited from the event loop.

    For per-result work that grows with the value (encoding a large result as JSON,
    checking it against a schema): on the loop it would hold up every other call the
    loop serves. A cancelled caller cancels the job if it has not started yet. When every
    thread is busy (with tools that run long), ``fn`` runs here instead: a result never
    waits for another call to end.
    """
    pool = rt.pool()
    if not pool.has_room():
        return fn(*args)
    waiter = asyncio.wrap_future(pool.submit(fn, *args))
    try:
        return await waiter
    except asyncio.CancelledError:
        waiter.cancel()
        raise


def call_within(
    tool: Any, kwargs: dict[str, Any], timeout: float, rt: Settings, call: ToolCall
) -> Any:
    """Run a call from synchronous code within ``timeout`` seconds."""
    gate = tool.gate
    if tool.is_async:
        if gate is None:
            return run_coroutine(tool.func(**kwargs), timeout, call, rt)
        if not gate.lock.acquire(timeout=_start_wait(timeout)):
            raise _not_started(call, timeout, rt, True)
        held = [gate.lock.release]
        try:
            return run_coroutine(tool.func(**kwargs), timeout, call, rt, held)
        finally:
            if held:  # not handed to a task left running
                held.pop()()
    pool = rt.pool()
    began = Began(threading.Event())
    job = pool.start(
        _thread_call, rt.running, call, tool.func, kwargs, None if gate is None else gate.lock,
        began,
    )
    assert began.event is not None
    if not began.event.wait(_start_wait(timeout)) and began.give_up():
        job.future.cancel()
        raise _not_started(call, timeout, rt, gate is not None and job.worker is not None)
    left = timeout - (time.monotonic() - began.at)
    done, _ = concurrent.futures.wait([job.future], max(left, 0.0))
    if not done:
        pool.abandon(job)
        _left_running(call, "it overran its timeout")
        raise _timed_out(call.name, timeout)
    value = job.future.result()
    if is_awaitable(value):
        left = timeout - (time.monotonic() - began.at)
        return run_coroutine(value, max(left, 0.001), call, rt)
    return value


async def on_loop(tool: Any, kwargs: dict[str, Any]) -> Any:
    try:
        if tool.gate is None:
            return tool.func(**kwargs)
        async with tool.gate.hold():
            return tool.func(**kwargs)
    except asyncio.CancelledError as exc:  # raised by the function: it never waited
        raise ToolCancelled(exc) from exc


async def in_thread(
    tool: Any, kwargs: dict[str, Any], timeout: float | None, rt: Settings, call: ToolCall
) -> Any:
    """Run a sync function on a worker thread from a coroutine, within ``timeout``."""
    gate = tool.gate
    pool = rt.pool()
    lock = None
    if gate is not None:
        # Queue in this loop; the worker thread takes the thread lock itself, so a
        # cancelled caller never lets two runs overlap.
        lock = gate.loop_lock()
        await lock.acquire()
    try:
        began = Began()
        job = pool.start(
            _thread_call, rt.running, call, tool.func, kwargs,
            None if gate is None else gate.lock, began,
        )
        waiter = asyncio.wrap_future(job.future)
        try:
            if timeout is None:
                return await waiter
            return await _within(job, waiter, began, timeout, rt, call, gate is not None)
        except asyncio.CancelledError:
            waiter.cancel()
            if not job.future.cancel() and not began.give_up() and not job.future.done():
                _left_running(call, "its caller was cancelled")
            raise
    finally:
        if lock is not None:
            lock.release()


async def _within(
    job: Job, waiter: Any, began: Began, timeout: float, rt: Settings, call: ToolCall,
    gated: bool,
) -> Any:
    loop = asyncio.get_running_loop()
    started = loop.create_future()
    began.then(lambda: _resolve_from_thread(loop, started))
    done, _ = await asyncio.wait(
        (started, waiter), timeout=_start_wait(timeout), return_when=asyncio.FIRST_COMPLETED
    )
    if not done and began.give_up():
        waiter.cancel()
        job.future.cancel()
        raise _not_started(call, timeout, rt, gated and job.worker is not None)
    if not waiter.done():
        left = timeout - (time.monotonic() - began.at)
        done, _ = await asyncio.wait((waiter,), timeout=max(left, 0.0))
        if not done:
            waiter.cancel()
            rt.pool().abandon(job)
            _left_running(call, "it overran its timeout")
            raise _timed_out(call.name, timeout)
    return waiter.result()


def _resolve_from_thread(loop: asyncio.AbstractEventLoop, future: asyncio.Future[Any]) -> None:
    def resolve() -> None:
        if not future.done():
            future.set_result(None)

    with contextlib.suppress(RuntimeError):  # a closed loop: nobody waits for the start
        loop.call_soon_threadsafe(resolve)


async def in_task(
    tool: Any, kwargs: dict[str, Any], timeout: float | None, rt: Settings, call: ToolCall
) -> Any:
    if tool.gate is None:
        return await _watch(tool.func(**kwargs), timeout, rt, call)
    release = await tool.gate.enter(None if timeout is None else _start_wait(timeout))
    if release is None:
        raise _not_started(call, timeout or 0.0, rt, True)
    held = [release]
    try:
        return await _watch(tool.func(**kwargs), timeout, rt, call, held)
    finally:
        if held:  # not handed to a task left running
            held.pop()()

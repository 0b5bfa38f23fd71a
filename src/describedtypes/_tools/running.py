"""What running a tool needs besides the tool: threads, time limits, and safe text.

- ``ToolThreads``: the bounded pool of daemon threads a ``Toolbox`` runs sync tools on
  (never the event loop's default executor), started lazily and stopped by ``close()``
  or when the toolbox is collected; a thread whose call overran its time limit is
  abandoned (no longer counted), and ``Began`` tells when a call really started.
- The error-detail policy and the limits on what reaches the model: an exception's text
  read without ever raising, cut to a bounded length, with its line breaks escaped (the
  one table of ``_base/text.py``).
- ``start_eagerly``: step a coroutine once right away, and hand it to a task only if it
  really waits for something.
- Running one call: the concurrency gate, time limits, telling a tool's own
  ``CancelledError`` from a cancelled caller, and listing calls left running.
"""

from __future__ import annotations

import collections
import concurrent.futures
import contextlib
import itertools
import logging
import os
import re
import sys
import threading
import time
import types
import weakref
from collections.abc import AsyncIterator, Callable, Coroutine, Generator
from typing import TYPE_CHECKING, Any, Literal

from .._base.aio import CANCEL_GRACE, abandon, is_awaitable
from .._base.aio import run_coroutine as _run_coroutine
from .._base.lazy import LazyModule as _LazyModule
from .._base.text import one_line
from ..errors import ArgumentError

if TYPE_CHECKING:
    import asyncio
else:  # imported when a tool first runs asynchronously: it is slow to import
    asyncio = _LazyModule("asyncio", globals())

if TYPE_CHECKING:
    from .._base.records import ToolCall, ToolResult

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
        self.queue: collections.deque[Job] = collections.deque()
        self.threads = 0
        self.idle = 0
        self.closed = False
        self.serial = itertools.count(1)

    def close(self) -> None:
        with self.lock:
            self.closed = True
            pending = list(self.queue)
            self.queue.clear()
            self.ready.notify_all()
        for job in pending:
            job.future.cancel()

    def spawn(self) -> None:
        """Start a thread if one may be started (hold ``lock``)."""
        if self.threads < self.max_workers and not self.closed:
            self.threads += 1
            thread = threading.Thread(
                target=_work, args=(self,), name=f"{self.name}-{next(self.serial)}", daemon=True
            )
            thread.start()


class _Worker:
    """One thread of a pool: abandoned once its call overran its time limit."""

    __slots__ = ("abandoned",)

    def __init__(self) -> None:
        self.abandoned = False


class Job:
    """Strictly private: one function call queued on a ``ToolThreads`` pool."""

    __slots__ = ("args", "fn", "future", "worker")

    def __init__(self, fn: Callable[..., Any], args: tuple[Any, ...]) -> None:
        self.future: concurrent.futures.Future[Any] = concurrent.futures.Future()
        self.fn = fn
        self.args = args
        self.worker: _Worker | None = None  # set (under the pool's lock) when taken


def _work(state: _PoolState) -> None:
    worker = _Worker()
    while True:
        with state.lock:
            if worker.abandoned:  # no longer counted: the pool started another in its place
                return
            state.idle += 1
            while not state.queue and not state.closed:
                if not state.ready.wait(_IDLE_SECONDS) and not state.queue:
                    break
            state.idle -= 1
            if not state.queue:
                state.threads -= 1
                return
            job = state.queue.popleft()
            job.worker = worker
        future = job.future
        if future.set_running_or_notify_cancel():
            try:
                result = job.fn(*job.args)
            except BaseException as exc:  # handed to the caller, who decides what propagates
                future.set_exception(exc)
                del exc
            else:
                future.set_result(result)
                del result
        del job, future


class ToolThreads(concurrent.futures.Executor):
    """A bounded pool of daemon threads, started one by one as calls need them.

    Daemon threads: a tool that never returns cannot keep the interpreter from exiting
    (``concurrent.futures.ThreadPoolExecutor`` joins its threads at exit). A thread whose
    call overran its time limit is ``abandon``-ed: no longer counted against
    ``max_workers``, it exits when the call returns, and another thread takes its place.
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
        """Threads counted against ``max_workers`` now (busy or idle; abandoned ones not)."""
        return self._state.threads

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
        if kwargs:
            args = (_with_kwargs(fn, kwargs), *args)
            fn = _call_first
        return self.start(fn, *args).future

    def start(self, fn: Callable[..., Any], /, *args: Any) -> Job:
        """Queue ``fn(*args)``; the ``Job`` holds its future."""
        job = Job(fn, args)
        state = self._state
        with state.lock:
            if state.closed:
                msg = "this pool of tool threads is closed"
                raise RuntimeError(msg)
            state.queue.append(job)
            if state.idle > len(state.queue) - 1:
                state.ready.notify()
            else:
                state.spawn()
        return job

    def abandon(self, job: Job) -> bool:
        """Stop counting the thread running ``job`` (it overran its time limit): the thread
        exits when the call returns, and a new one may start now. False if ``job`` is not
        running (queued, finished, or abandoned already)."""
        state = self._state
        with state.lock:
            worker = job.worker
            if worker is None or worker.abandoned or job.future.done():
                return False
            worker.abandoned = True
            state.threads -= 1
            if len(state.queue) > state.idle:
                state.spawn()
        return True

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
    except Exception as failed:
        # The traceback's chain holds the tool's own exception, whose text is the
        # model's to see only under the policy: at DEBUG only.
        logger.error(
            "the error_detail function failed for the tool %r (%s); the model is told the "
            "exception's type only", tool, type_name(failed),
        )
        logger.debug("the error_detail function's failure", exc_info=True)
    if not isinstance(told, str):
        if told is not None:
            logger.error("error_detail returned %s, not a str", type(told).__name__)
        return f"{head}: {type_name(exc)}"
    return cut_result(f"{head}: {str.__str__(told)}" if told else f"{head}.", max_chars)


def cut_result(text: str, max_chars: int | None) -> str:
    """``text``, or its first ``max_chars`` characters and a note saying it was cut."""
    if max_chars is None or len(text) <= max_chars:
        return text
    return f"{text[:max_chars]}{_cut_note(len(text), max_chars)}"


def _cut_note(length: int, kept: int) -> str:
    return (
        f"\n[The result was cut here: it had {length:,} characters and only the first "
        f"{kept:,} are shown.]"
    )


_CUT_NOTE = re.compile(
    r"\n\[The result was cut here: it had ([0-9,]+) characters and only the first "
    r"([0-9,]+) are shown\.\]\Z"
)


def original_length(result: ToolResult) -> tuple[int, int]:
    """``(length of the result before any cut, characters of it in the content)``: a
    result ``cut_result`` cut already is told by its note, so a second cut can state the
    original length."""
    content = result.content
    length = len(content)
    if length < 80 or content[-1] != "]":
        return length, length
    found = _CUT_NOTE.search(content, max(0, length - 200))
    if found is not None:
        kept = int(found.group(2).replace(",", ""))
        if found.start() == kept:  # the note follows exactly the characters it speaks of
            return int(found.group(1).replace(",", "")), kept
    return length, length


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


# -- running calls under the concurrency rule ----------------------------------------------


class Gate:
    """Strictly private: keeps a ``concurrent=False`` tool to one call at a time.

    One thread lock covers every caller (threads, event loops, worker threads); an
    ``asyncio.Lock`` per event loop makes waiting coroutines queue in their loop instead
    of each parking a worker thread on the thread lock.
    """

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self._guard = threading.Lock()
        self._loop_locks: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = (
            weakref.WeakKeyDictionary()
        )

    def loop_lock(self) -> asyncio.Lock:
        loop = asyncio.get_running_loop()
        with self._guard:
            lock = self._loop_locks.get(loop)
            if lock is None:
                lock = self._loop_locks[loop] = asyncio.Lock()
            return lock

    async def enter(self, timeout: float | None = None) -> Callable[[], None] | None:
        """Take the gate from a coroutine (both locks), without blocking the event loop,
        waiting at most ``timeout`` seconds; returns what gives it back (once, on this
        loop: a task's done callback will do), or None if the time ran out."""
        loop_lock = self.loop_lock()
        if timeout is None:
            await loop_lock.acquire()
        else:
            deadline = time.monotonic() + timeout
            acquiring = asyncio.ensure_future(loop_lock.acquire())
            done, _ = await asyncio.wait((acquiring,), timeout=timeout)
            if not done:
                if not acquiring.cancel():  # acquired meanwhile: give it back
                    loop_lock.release()
                return None
        try:
            # Held by another thread or loop: poll for it (1 ms, doubling up to 50 ms)
            # rather than park a thread of the loop's default executor on it, where a
            # stuck holder would hold up everything else that executor runs.
            delay = 0.001
            while not self.lock.acquire(blocking=False):
                if timeout is not None and time.monotonic() > deadline:
                    loop_lock.release()
                    return None
                await asyncio.sleep(delay)
                delay = min(delay * 2, 0.05)
        except BaseException:
            loop_lock.release()
            raise

        def release() -> None:
            self.lock.release()
            loop_lock.release()

        return release

    @contextlib.asynccontextmanager
    async def hold(self) -> AsyncIterator[None]:
        """Hold the gate from a coroutine (both locks), without blocking the event loop."""
        release = await self.enter()
        assert release is not None  # no time limit
        try:
            yield
        finally:
            release()


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

"""Running coroutines from synchronous code, and telling async callables from sync ones.

``run_coroutine`` is what the sync entry points (``Toolbox.call`` of an async tool, the
tool execution of ``Toolbox.run``) run an awaitable with. It does not use
``asyncio.run``, for two reasons:

- ``asyncio.run`` ends by cancelling the tasks left over and then waits for them with no
  limit: a task that ignores its cancellation keeps the caller waiting forever, whatever
  the timeout. Here the leftover tasks get ``CANCEL_GRACE`` seconds to stop; past that the
  event loop, with whatever still runs on it, is handed to a daemon thread that runs it
  until they finish and then closes it (a warning on the ``describedtypes`` logger says
  so), and the caller gets its answer.
- ``asyncio.Runner`` installs a SIGINT handler holding the main task; on the way out,
  ``signal.getsignal`` formats it, and an exception whose ``__repr__`` raises breaks the
  handler's restoration and every later ``asyncio.run()`` of the process (CPython 3.11,
  ``asyncio/runners.py``). This loop installs no handler, and the awaitable's outcome is
  carried out of the loop as a value, never as the main task's exception.
"""

from __future__ import annotations

import concurrent.futures
import functools
import inspect as _pyinspect
import logging
import threading
import weakref
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from .lazy import LazyModule as _LazyModule

if TYPE_CHECKING:
    import asyncio
else:  # imported when a coroutine first runs: it is slow to import
    asyncio = _LazyModule("asyncio", globals())

__all__ = ["CANCEL_GRACE", "abandon", "is_async", "is_awaitable", "run_coroutine"]

logger = logging.getLogger("describedtypes")

CANCEL_GRACE = 1.0
"""Seconds a cancelled task is given to stop before it is left running on its own."""

_ABANDONED: weakref.WeakSet[Any] = weakref.WeakSet()
"""Tasks that were already given their grace period after being cancelled (``abandon``)."""


def abandon(task: Any) -> None:
    """Mark ``task`` as cancelled and given its grace already: when its loop winds down,
    nobody waits for it again."""
    _ABANDONED.add(task)


def run_coroutine(
    awaitable: Any,
    timeout: float | None = None,
    on_timeout: Callable[[], BaseException] | None = None,
    on_left: Callable[[list[Any]], None] | None = None,
) -> Any:
    """Run an awaitable to completion from synchronous code.

    Args:
        awaitable: What to run, on an event loop of its own.
        timeout: Seconds it may take; past them it is cancelled and ``on_timeout()``
            (or a ``TimeoutError``) is raised, at most ``CANCEL_GRACE`` seconds later
            even if it ignores the cancellation.
        on_timeout: Makes the exception raised on a timeout.
        on_left: Called with the tasks still running when the loop is handed to a
            background thread (to list them where the application can see them).

    Called from inside a running event loop (a sync call of an async tool in async
    code), the awaitable runs on a loop of its own in a helper thread while the caller
    waits; ``acall`` is the non-blocking way.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return _run(awaitable, timeout, on_timeout, on_left)
    outcome: concurrent.futures.Future[Any] = concurrent.futures.Future()

    def run_here() -> None:
        try:
            outcome.set_result(_run(awaitable, timeout, on_timeout, on_left))
        except BaseException as exc:  # handed to the waiting caller, who re-raises it
            outcome.set_exception(exc)

    threading.Thread(target=run_here, name="describedtypes-loop", daemon=True).start()
    return outcome.result()


def _run(
    awaitable: Any,
    timeout: float | None,
    on_timeout: Callable[[], BaseException] | None,
    on_left: Callable[[list[Any]], None] | None,
) -> Any:
    loop = asyncio.new_event_loop()
    try:
        main = loop.create_task(_await(awaitable, timeout, on_timeout))
        ok, value = loop.run_until_complete(main)
    except BaseException:  # KeyboardInterrupt, SystemExit from inside the loop
        _wind_down(loop, on_left)
        raise
    _wind_down(loop, on_left)
    if ok:
        return value
    try:
        raise value
    finally:
        del value


async def _await(
    awaitable: Any, timeout: float | None, on_timeout: Callable[[], BaseException] | None
) -> tuple[bool, Any]:
    """``(True, result)`` or ``(False, exception)``: the main task itself never fails."""
    try:
        if timeout is None:
            return True, await awaitable
        task = asyncio.ensure_future(awaitable)
        done, _ = await asyncio.wait((task,), timeout=timeout)
        if not done:
            task.cancel()
            return False, on_timeout() if on_timeout is not None else TimeoutError(timeout)
        return True, task.result()
    except BaseException as exc:
        return False, exc


def _wind_down(
    loop: asyncio.AbstractEventLoop, on_left: Callable[[list[Any]], None] | None
) -> None:
    """Cancel what is left on ``loop``, give it ``CANCEL_GRACE`` seconds, then close the
    loop, or hand it to a daemon thread that runs it until the rest stop."""
    tasks = [t for t in asyncio.all_tasks(loop) if not t.done()]
    for task in tasks:
        task.cancel()
    closing = loop.create_task(_close(loop, tasks))
    fresh = [t for t in tasks if t not in _ABANDONED]
    if fresh or not tasks:  # tasks already given their grace are not waited for again
        loop.run_until_complete(asyncio.wait((closing,), timeout=CANCEL_GRACE))
    if closing.done():
        loop.close()
        return
    left = [t for t in tasks if not t.done()]
    if on_left is not None and left:
        on_left(left)
    logger.warning(
        "%d task(s) did not stop within %g s of being cancelled; their event loop runs on "
        "in a background thread until they finish", len(left), CANCEL_GRACE,
    )
    threading.Thread(
        target=_run_out, args=(loop, closing), name="describedtypes-loop", daemon=True
    ).start()


async def _close(loop: asyncio.AbstractEventLoop, tasks: Iterable[Any]) -> None:
    tasks = list(tasks)
    if tasks:
        await asyncio.wait(tasks)
    for task in tasks:
        if not task.cancelled() and task.exception() is not None:
            logger.debug("a task left on the loop ended with %s", _kind(task.exception()))
    await loop.shutdown_asyncgens()
    await loop.shutdown_default_executor()


def _run_out(loop: asyncio.AbstractEventLoop, closing: Any) -> None:
    try:
        loop.run_until_complete(closing)
    finally:
        loop.close()


def _kind(exc: BaseException | None) -> str:
    try:
        return type(exc).__name__
    except Exception:  # a metaclass may do anything
        return "an exception"


def is_awaitable(value: Any) -> bool:
    # inspect.isawaitable without its abc check on every plain return value.
    return value is not None and type(value) not in _PLAIN and _pyinspect.isawaitable(value)


_PLAIN = frozenset({str, int, float, bool, list, dict, tuple, bytes})


def is_async(func: Any) -> bool:
    while isinstance(func, functools.partial):
        func = func.func
    if _pyinspect.iscoroutinefunction(func):
        return True
    if _pyinspect.isroutine(func) or isinstance(func, type):
        return False
    return _pyinspect.iscoroutinefunction(type(func).__call__)

"""Running coroutines from synchronous code, and telling async callables from sync ones."""

from __future__ import annotations

import concurrent.futures
import functools
import inspect as _pyinspect
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .lazy import LazyModule as _LazyModule

if TYPE_CHECKING:
    import asyncio
else:  # imported when a coroutine first runs: it is slow to import
    asyncio = _LazyModule("asyncio", globals())

__all__ = ["is_async", "is_awaitable", "run_coroutine"]


def run_coroutine(
    awaitable: Any,
    timeout: float | None = None,
    on_timeout: Callable[[], BaseException] | None = None,
) -> Any:
    """Run an awaitable to completion from synchronous code (within ``timeout`` seconds;
    past it, the exception ``on_timeout()`` makes is raised)."""
    coro = _await(awaitable, timeout, on_timeout)
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    # Called from inside a running event loop (a sync call of an async tool): run it on a
    # loop of its own in a helper thread. acall() is the non-blocking way.
    with concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="describedtypes") as pool:
        return pool.submit(asyncio.run, coro).result()


async def _await(
    awaitable: Any, timeout: float | None, on_timeout: Callable[[], BaseException] | None
) -> Any:
    if timeout is None:
        return await awaitable
    task = asyncio.ensure_future(awaitable)
    done, _ = await asyncio.wait((task,), timeout=timeout)
    if not done:
        task.cancel()
        raise on_timeout() if on_timeout is not None else TimeoutError(timeout)
    return task.result()


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

"""The gate that keeps a ``concurrent=False`` tool to one call at a time."""

from __future__ import annotations

import contextlib
import threading
import time
import weakref
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING

from .._base.lazy import LazyModule as _LazyModule

if TYPE_CHECKING:
    import asyncio
else:  # imported when a tool first runs asynchronously: it is slow to import
    asyncio = _LazyModule("asyncio", globals())


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

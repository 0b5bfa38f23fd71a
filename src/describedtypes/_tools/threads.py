"""The bounded pool of daemon threads a ``Toolbox`` runs sync tools on.

``ToolThreads`` is never the event loop's default executor: its threads are started
lazily, one by one as calls need them, and stopped by ``close()`` or when the toolbox is
collected; a thread whose call overran its time limit is abandoned (no longer counted).
"""

from __future__ import annotations

import collections
import concurrent.futures
import itertools
import os
import threading
from collections.abc import Callable
from typing import Any

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

    def has_room(self) -> bool:
        """Whether a job queued now would start at once (an idle thread, or room for one)."""
        state = self._state
        with state.lock:
            return not state.closed and (
                state.idle > len(state.queue) or state.threads < state.max_workers
            )

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

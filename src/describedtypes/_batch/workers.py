"""Worker processes that run one function over a stream of tasks, results in task order.

Built for ``describedtypes decode --jobs N`` in place of ``multiprocessing.Pool``, whose
worker-handler thread wakes up, and polls every worker, each time a result is waiting in
the shared result pipe; with results of a few hundred kilobytes that is a busy loop in
the parent (0.15 s of CPU time in a 1.1 s run on two cores), time taken from the
workers it waits for. Here the parent has no threads: each worker has its own pipe,
the parent hands out the next task to whichever worker has room (so a worker slowed
down by a neighbour gets fewer) and waits on the pipes with
``multiprocessing.connection.wait``.

- At most ``window`` tasks are out (sent and not yet yielded) and at most ``depth`` per
  worker, so memory stays flat; results that come back early wait in a dict.
- An exception raised by the function is raised again in the parent, in task order.
- A worker that dies (killed, out of memory) is a ``WorkerError``, not a hang.
- Workers ignore SIGINT: Ctrl-C reaches the parent (the terminal sends it to the whole
  process group), which stops them.
- Workers never outlive the parent. Each closes the parent's ends of every pipe it
  inherited (so a dead parent is end-of-file on its pipe), and on Linux asks the kernel
  to kill it when the parent dies (``prctl(PR_SET_PDEATHSIG)``, which also reaches a
  worker busy in a long task); elsewhere a thread of the worker watches the parent's pid.
- Tasks larger than a pipe's buffer need ``depth=1``: a task is then only sent to a worker
  that is waiting for one, so the parent never blocks on a worker that is itself blocked
  sending a result back.
"""

from __future__ import annotations

import contextlib
import gc
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

__all__ = ["Workers", "WorkerError"]

#: Seconds a worker gets to exit after being told to, before it is killed.
JOIN_TIMEOUT = 5.0


class WorkerError(RuntimeError):
    """A worker process ended before it sent back the result of its task."""


_END = object()


class Workers:
    """``jobs`` processes started at once (before the parent starts any threads of its own),
    each running ``initializer(*initargs)`` and then ``fn`` on the tasks it is sent.

    Use as a context manager; leaving it stops the processes (killing them if the block
    ended with an exception, e.g. Ctrl-C).

    ``method`` is the multiprocessing start method (default: the interpreter's).
    ``quiet_fds`` are descriptors of the parent's the workers must not hold (its output
    files, standard output): a worker points them at the null device, so a reader of
    the parent's output sees its end when the parent ends. Both apply to ``fork``, where
    a worker inherits every descriptor of the parent.
    """

    def __init__(
        self, jobs: int, fn: Callable[[Any], Any], initializer: Callable[..., None],
        initargs: tuple[Any, ...], *, method: str | None = None,
        quiet_fds: Sequence[int] = (),
    ) -> None:
        import multiprocessing

        ctx: Any = multiprocessing.get_context(method)
        forks = ctx.get_start_method() == "fork"
        self._procs: list[Any] = []
        self._conns: list[Any] = []
        try:
            for _ in range(jobs):
                mine, theirs = ctx.Pipe()
                # What the forked worker inherits and must let go of: the parent's end
                # of its own pipe and of every earlier worker's, and the quiet ones.
                held = [c.fileno() for c in (*self._conns, mine)] + list(quiet_fds)
                proc = ctx.Process(
                    target=_serve,
                    args=(theirs, fn, initializer, initargs, os.getpid(),
                          held if forks else []),
                    daemon=True,
                )
                proc.start()
                theirs.close()
                self._procs.append(proc)
                self._conns.append(mine)
        except BaseException:
            self.close(kill=True)
            raise

    def __enter__(self) -> Workers:
        return self

    def __exit__(self, kind: Any, *rest: Any) -> None:
        self.close(kill=kind is not None)

    def close(self, *, kill: bool = False) -> None:
        """Stop the workers: ask them to exit (or kill them), then wait for them."""
        for conn, proc in zip(self._conns, self._procs, strict=True):
            if kill:
                proc.terminate()
            else:
                with contextlib.suppress(OSError):
                    conn.send(None)
        for conn, proc in zip(self._conns, self._procs, strict=True):
            proc.join(JOIN_TIMEOUT)
            if proc.exitcode is None:
                proc.kill()
                proc.join()
            conn.close()
        self._procs, self._conns = [], []

    def map(
        self, tasks: Iterable[Any], *, window: int, depth: int,
        local: Callable[[Any], Any] | None = None,
    ) -> Iterator[Any]:
        """``fn(task)`` for each task, computed in the workers and yielded in task order.

        With ``local`` (the same work as ``fn``, done in this process), the parent does
        tasks too while the result it must yield next is still out: with N cores, N - 1
        workers and the parent then keep N cores busy, and no worker shares a core with
        a parent that wakes up for every result.
        """
        from multiprocessing.connection import wait

        conns = self._conns
        if not conns and local is None:
            msg = "no workers to run the tasks: start at least one, or pass local="
            raise ValueError(msg)
        busy = dict.fromkeys(conns, 0)  # tasks out per worker
        ready: dict[int, Any] = {}  # results that came back before their turn
        source = iter(tasks)
        sent = 0  # tasks handed out so far (the next task's number)
        head = 0  # the number of the next result to yield
        more = True
        while True:
            while more and conns and sent - head < window:
                conn = min(conns, key=busy.__getitem__)
                if busy[conn] >= depth:
                    break
                task = next(source, _END)
                if task is _END:
                    more = False
                    break
                self._send(conn, (sent, task))
                busy[conn] += 1
                sent += 1
            if head in ready:
                ok, value = ready.pop(head)
                head += 1
                if not ok:
                    raise value
                yield value
                continue
            if not more and head == sent:
                return
            waiting = [c for c in conns if busy[c]]
            if local is not None and more and sent - head < window:
                back = wait(waiting, 0.0) if waiting else []
                if back:  # results came back meanwhile: refill those workers first
                    for conn in back:
                        self._collect(conn, busy, ready)
                    continue
                task = next(source, _END)
                if task is _END:
                    more = False
                    continue
                try:
                    ready[sent] = (True, local(task))
                except Exception as exc:
                    ready[sent] = (False, exc)
                sent += 1
                continue
            for conn in wait(waiting):
                self._collect(conn, busy, ready)

    def _collect(self, conn: Any, busy: dict[Any, int], ready: dict[int, Any]) -> None:
        number, ok, value = self._receive(conn)
        busy[conn] -= 1
        ready[number] = (ok, value)

    def _send(self, conn: Any, message: Any) -> None:
        try:
            conn.send(message)
        except OSError:  # its end of the pipe is closed: the worker is gone
            raise self._died(conn) from None

    def _receive(self, conn: Any) -> Any:
        try:
            return conn.recv()
        except (EOFError, OSError):
            raise self._died(conn) from None

    def _died(self, conn: Any) -> WorkerError:
        proc = self._procs[self._conns.index(conn)]
        proc.join(JOIN_TIMEOUT)
        return WorkerError(
            f"a worker process ended unexpectedly (exit code {proc.exitcode}); "
            "run again, or with fewer jobs if memory is short"
        )


#: ``prctl`` option: the signal the kernel sends this process when its parent dies.
_PR_SET_PDEATHSIG = 1


def _follow_parent(parent: int) -> None:
    """End this worker when the parent process ``parent`` ends, however it ends."""
    if sys.platform.startswith("linux"):
        import ctypes

        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            if libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0:
                if os.getppid() != parent:  # it died before the request was made
                    os._exit(1)
                return

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, daemon=True, name="describedtypes-parent-watch").start()


def _let_go(fds: Sequence[int]) -> None:
    """Point inherited descriptors at the null device (their objects may close them later)."""
    if not fds:
        return
    null = os.open(os.devnull, os.O_RDWR)
    for fd in fds:
        with contextlib.suppress(OSError):
            os.dup2(null, fd)
    os.close(null)


def _serve(
    conn: Any, fn: Callable[[Any], Any], initializer: Callable[..., None],
    initargs: tuple[Any, ...], parent: int, inherited: Sequence[int],
) -> None:
    """A worker's life: set up, then answer ``(number, task)`` messages until told to stop."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # The parent's handlers (SIGTERM stops it cleanly) are not the worker's.
    for name in ("SIGTERM", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_DFL)
    _follow_parent(parent)
    _let_go(inherited)
    failed: BaseException | None = None
    try:
        initializer(*initargs)
    except Exception as exc:  # reported with each task rather than as a dead worker
        failed = exc
    # What the worker inherited or set up lives as long as it does: the collector
    # need not walk it again and again.
    gc.freeze()
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        if message is None:
            return
        number, task = message
        # ``answer`` lives on until the next one replaces it. Dropped at once, the
        # result (the last thing allocated) would let malloc hand the top of the heap
        # back to the system after every task, and the next task would fault it all in
        # again: twenty times the page faults and a fifth more CPU time.
        try:
            if failed is not None:
                raise failed
            answer = (number, True, fn(task))
        except Exception as exc:
            answer = (number, False, exc)
        try:
            conn.send(answer)
        except Exception as exc:  # a result or an exception that does not pickle
            shown = exc if answer[1] else answer[2]
            conn.send((number, False, RuntimeError(f"{type(shown).__name__}: {shown}")))

"""``describedtypes decode --jobs N``: chunks decoded in worker processes, in input order.

From a file, each worker reads its own byte ranges of the open file (``os.pread``, so the
processes never move each other's reads); from a stream, this process reads blocks of
whole lines and sends them to the workers.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import io
import multiprocessing
import os
from collections.abc import Iterator
from typing import IO, Any

from .._batch.lines import MAX_LINE_BYTES, TooLong, read_lines
from .._batch.workers import Workers
from .chunks import Chunk, decode_chunk
from .files import InputError, Output, file_identity
from .targets import load_target

# A worker's state. Forked, it inherits TARGET as loaded here (a TARGET file is not
# executed again) and FILE's open descriptor; started afresh, it loads TARGET by name
# and opens FILE by name, checking it is the file this process opened.
_WORKER: dict[str, Any] = {}


def _init_worker(
    tp: Any, target: str, shape: str, together: bool, source: tuple[int, str, Any] | None
) -> None:
    _WORKER["tp"] = tp if tp is not None else load_target(target)
    _WORKER["shape"] = shape
    _WORKER["together"] = together
    if source is not None:
        fd, path, identity = source
        if fd < 0:  # not inherited: open FILE again, and check it is the same file
            fd = os.open(path, os.O_RDONLY)
            if file_identity(os.fstat(fd)) != identity:
                msg = f"{path} was replaced before a worker could open it; run again"
                raise InputError(msg)
        _WORKER["fd"] = fd


def _worker_chunk(chunk: tuple[int, bytes | TooLong]) -> Chunk:
    """Decode a block of whole lines (or one line over the limit) numbered from ``start``."""
    start, block = chunk
    lines = block_lines(block)
    return decode_chunk(_WORKER["tp"], _WORKER["shape"], start, lines, _WORKER["together"])


def block_lines(block: bytes | TooLong, limit: int = MAX_LINE_BYTES) -> list[Any]:
    """The lines of a ``_blocks`` task, as ``read_lines`` gives them."""
    return [block] if isinstance(block, TooLong) else list(read_lines(io.BytesIO(block), limit))


def _worker_range(task: tuple[int, int, int]) -> Chunk:
    return decode_range(_WORKER["tp"], _WORKER["shape"], _WORKER["together"], _WORKER["fd"], task)


class _Positioned(io.RawIOBase):
    """Strictly private: a file descriptor read from a given offset with ``os.pread``.

    ``pread`` leaves the descriptor's own offset alone, so the processes that share the
    descriptor never move each other's reads.
    """

    def __init__(self, fd: int, offset: int) -> None:
        self.fd, self.offset = fd, offset

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        data = os.pread(self.fd, len(buffer), self.offset)
        buffer[: len(data)] = data
        self.offset += len(data)
        return len(data)


def decode_range(
    tp: Any, shape: str, together: bool, fd: int, task: tuple[int, int, int]
) -> Chunk:
    """Decode the lines in bytes ``[offset, offset + length)`` of the open file ``fd``."""
    offset, length, start = task
    try:
        with io.BufferedReader(_Positioned(fd, offset), RANGE_BYTES) as handle:
            lines = list(_lines_within(handle, length))
    except OSError as exc:
        raise InputError(exc.strerror or str(exc)) from None
    return decode_chunk(tp, shape, start, lines, together)


def _lines_within(handle: IO[bytes], length: int) -> Iterator[Any]:
    used = 0
    for line in read_lines(handle):
        yield line
        used += line.size if not isinstance(line, bytes) else len(line)
        if used >= length:
            return


#: Bytes of the file per task. The results of 512 KB of Batch API lines (about 150 KB)
#: fit in the buffer of a worker's pipe, so a worker goes on to its next task without
#: waiting for this process, busy decoding a range of its own, to read them; with 1 MB
#: ranges the worker of ``--jobs 2`` waited a sixth of the run.
RANGE_BYTES = 1 << 19


def _ranges(handle: IO[bytes]) -> Iterator[tuple[int, int, int]]:
    """``(offset, length, first line)`` tasks cut at line ends, about 512 KB each.

    The parent only counts newlines (a ``memchr`` per block); the workers read and
    decode, so the parent is never the bottleneck.
    """
    offset = 0  # where the current task starts
    pos = 0  # bytes read so far
    line = 1  # the number of the task's first line
    while True:
        try:
            block = handle.read(RANGE_BYTES)
        except OSError as exc:
            raise InputError(exc.strerror or str(exc)) from None
        if not block:
            break
        pos += len(block)
        last = block.rfind(b"\n")
        if last < 0:
            continue  # inside a long line: the task grows until it ends
        end = pos - len(block) + last + 1
        yield offset, end - offset, line
        # Earlier blocks of this task had no newline, and none follows ``last``.
        line += block.count(b"\n", 0, last + 1)
        offset = end
    if pos > offset:
        yield offset, pos - offset, line


def _blocks(
    source: IO[bytes], limit: int = MAX_LINE_BYTES
) -> Iterator[tuple[int, bytes | TooLong]]:
    """``(first line, block)`` tasks from a stream: about 512 KB of whole lines each.

    A line over ``limit`` is read past and sent as its size alone, as ``read_lines``
    does, so no more than about ``limit`` of it is ever held.
    """
    line = 1
    rest: list[bytes] = []  # the start of a line whose end is not read yet
    held = 0  # its size
    pending = b""  # read, not yet cut
    while True:
        block = pending or source.read(RANGE_BYTES)
        pending = b""
        if not block:
            break
        last = block.rfind(b"\n")
        if last >= 0:
            yield line, b"".join([*rest, block[:last + 1]]) if rest else block[:last + 1]
            line += block.count(b"\n", 0, last + 1)
            tail = block[last + 1:]
            rest, held = ([tail] if tail else []), len(tail)
        elif held + len(block) <= limit:
            rest.append(block)
            held += len(block)
        else:  # a line over the limit: read past its end
            size = held + len(block)
            rest, held = [], 0
            while True:
                block = source.read(RANGE_BYTES)
                end = block.find(b"\n")
                if end >= 0 or not block:
                    break
                size += len(block)
            if not block:
                yield line, TooLong(size)
                return
            yield line, TooLong(size + end + 1)
            line += 1
            pending = block[end + 1:]
    if rest:
        yield line, b"".join(rest)


def _start_method() -> str:
    """``fork`` where there is one (the worker inherits TARGET and FILE), else ``spawn``."""
    return "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"


def decode_in_parallel(
    stack: contextlib.ExitStack, tp: Any, args: argparse.Namespace, source: IO[bytes],
    together: bool, outputs: list[Output],
) -> Iterator[Chunk]:
    """Chunks decoded in ``jobs`` processes, yielded in input order, few in flight.

    From a file, this process and ``jobs - 1`` workers decode: each reads its own byte
    ranges of the open file, so this one only counts newlines, writes, and decodes while
    it waits. From a stream, ``jobs`` workers decode what this one reads and sends them.

    The workers start now; ``stack`` stops them (kills them on an error or Ctrl-C).
    """
    jobs, shape = args.jobs, args.shape
    method = _start_method()
    forked = method == "fork"
    quiet = [o.handle.fileno() for o in outputs]
    held = tp if forked else None
    # Standard input redirected from a file is seekable too, but has no path to reopen.
    if args.file != "-" and source.seekable():
        fd = source.fileno()
        identity = file_identity(os.fstat(fd))
        setup: tuple[Any, ...] = (
            held, args.target, shape, together, (fd if forked else -1, args.file, identity)
        )
        workers = stack.enter_context(
            Workers(jobs - 1, _worker_range, _init_worker, setup, method=method, quiet_fds=quiet)
        )
        # A task is a few bytes: one waits in the pipe while the other is decoded.
        local = functools.partial(decode_range, tp, shape, together, fd)
        return workers.map(_ranges(source), window=4 * jobs, depth=2, local=local)
    setup = (held, args.target, shape, together, None)
    workers = stack.enter_context(
        Workers(jobs, _worker_chunk, _init_worker, setup, method=method, quiet_fds=quiet)
    )
    # A task is half a megabyte: it is only sent to a worker that waits for one.
    return workers.map(_blocks(source), window=4 * jobs, depth=1)

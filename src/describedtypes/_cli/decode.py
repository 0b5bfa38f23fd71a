"""``describedtypes decode TARGET FILE``: decode a batch results file from the command line.

Every input line becomes one JSON line in ``--out`` (decoded) or ``--errors`` (not), in
input order; a summary goes to stderr at the end. ``--jobs N`` decodes chunks of lines in
N processes (this one and N - 1 workers; N workers when reading standard input; N is at
most the CPUs this process may use) and writes their results in order, with a bounded
number of chunks in flight so memory stays flat. The progress bar (by bytes read) needs
the optional ``tqdm`` package and a terminal on stderr.

FILE is opened once: the workers read that open file (they inherit its descriptor), so a
file renamed over FILE or deleted during the run changes nothing (a note says so). Where
processes cannot be forked (macOS and Windows start them afresh), each worker loads
TARGET again, executing a TARGET file once more, and opens FILE by name, checking it is
still the file this process opened.

Exit status: 0 when every line decoded, 1 when at least one did not, 2 for a usage
problem (bad arguments, a TARGET that cannot be loaded or described, an unreadable FILE,
an output that cannot be written) or a worker process that died, 130 when interrupted
(Ctrl-C), 143 when terminated (SIGTERM); the lines written until then are complete.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import dataclasses
import functools
import importlib
import io
import multiprocessing
import os
import signal
import sys
import time
from collections.abc import Iterator
from typing import IO, Any

import attrs
import orjson

from .._batch.lines import (
    MAX_LINE_BYTES,
    OUTCOMES,
    SHAPES,
    BatchResult,
    TooLong,
    check_type,
    decode_line,
    read_lines,
)
from .._batch.summary import error_paths, summary_table
from .._batch.workers import WorkerError, Workers
from .._codec.encode import encoder_for, json_value
from ..errors import DecodeError, DescribedTypesError
from .stdout import quiet_stdout
from .targets import UsageError, load_target

__all__ = ["add_decode_command", "run_decode"]

#: Lines per chunk decoded at once (a chunk also ends after ``CHUNK_BYTES`` of input).
CHUNK_LINES = 2000
#: Input bytes per chunk: with lines of a megabyte, 2,000 of them would be 2 GB at once.
CHUNK_BYTES = 1 << 20
#: Distinct error paths counted; past that the rarest are dropped (counts become floors).
MAX_PATHS = 10_000


_HELP = (
    "Decode OpenAI Batch output, Anthropic Message Batches results or bare replies, "
    "one JSON line each. Exit status: 0 every line decoded; 1 some line did not; 2 usage "
    "error (bad arguments, a TARGET that cannot be loaded, an unreadable FILE, an output "
    "that cannot be written, a worker that died); 130 interrupted (Ctrl-C); 143 "
    "terminated (SIGTERM). After 130 or 143 the summary says how many lines were written."
)


def add_decode_command(commands: Any) -> None:
    """Add the ``decode`` subcommand to the command line's subparsers."""
    cmd = commands.add_parser(
        "decode",
        help="decode a batch results file (JSONL) into TARGET, one result per line",
        description=_HELP,
    )
    cmd.add_argument("target", metavar="TARGET", help="package.module:Name or path/to/file.py:Name")
    cmd.add_argument("file", metavar="FILE", help="the JSONL file, or - for standard input")
    cmd.add_argument("--out", metavar="OK.jsonl", default="-",
                     help="where decoded lines go (default: standard output)")
    cmd.add_argument("--errors", metavar="ERR.jsonl", default=None,
                     help="where lines that did not decode go (default: with --out)")
    cmd.add_argument("--jobs", metavar="N", type=int, default=1,
                     help="processes that decode (default: 1, this one alone; at most the "
                          "CPUs this process may use)")
    cmd.add_argument("--shape", default="auto", choices=SHAPES,
                     help="the line shape (default: auto, decided per line)")


class _Stopped(BaseException):
    """SIGTERM or SIGHUP arrived: stop as Ctrl-C does, with exit status 128 + signal."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _on_signal(signum: int, frame: Any) -> None:
    raise _Stopped(signum)


class _Failed(Exception):
    """Strictly private: the run ends with this one-line message and exit status 2."""


class InputError(Exception):
    """FILE could not be read (in this process or a worker), or is not the file opened."""


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity mask where the system has one)."""
    count = getattr(os, "process_cpu_count", None)
    if count is not None:
        return int(count() or 1)
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1


def run_decode(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """Run ``decode``; returns the exit status."""
    if args.jobs < 1:
        parser.exit(2, f"error: --jobs must be 1 or more, got {args.jobs}\n")
    try:
        tp = load_target(args.target)
        check_type(tp)
    except UsageError as exc:
        parser.exit(2, f"error: {exc}\n")
    except DescribedTypesError as exc:
        parser.exit(2, f"error: {args.target} cannot be decoded into: {exc}\n")
    cpus = usable_cpus()
    if args.jobs > cpus:
        sys.stderr.write(
            f"note: --jobs {args.jobs} is more than the {cpus} CPU{'s' if cpus > 1 else ''} "
            f"this process may use; decoding with {cpus}\n"
        )
        args.jobs = cpus
    try:
        source, size = _open_input(args.file)
    except OSError as exc:
        parser.exit(2, f"error: cannot read {args.file}: {exc.strerror or exc}\n")
    try:
        _check_outputs(args, source)
    except _Failed as exc:
        if args.file != "-":
            source.close()
        parser.exit(2, f"error: {exc}\n")
    previous = {}
    for name in ("SIGTERM", "SIGHUP"):
        if hasattr(signal, name):
            number = getattr(signal, name)
            previous[number] = signal.signal(number, _on_signal)
    try:
        return _run(args, parser, tp, source, size)
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


def _identity(stat: os.stat_result) -> tuple[int, int]:
    return stat.st_dev, stat.st_ino


def _stat_of(name: str) -> os.stat_result | None:
    """The file an output name writes to, where it exists already (``-``: standard output)."""
    try:
        return os.fstat(sys.stdout.fileno()) if name == "-" else os.stat(name)
    except (OSError, ValueError):
        return None


def _shown(name: str) -> str:
    return "standard output" if name == "-" else name


def _check_outputs(args: argparse.Namespace, source: IO[bytes]) -> None:
    """Refuse an output that is the input, or ``--errors`` that is ``--out`` by another name.

    Checked by device and inode, before any output is opened (and so truncated).
    """
    try:
        into = _identity(os.fstat(source.fileno()))
    except (OSError, ValueError):
        into = None
    names = [args.out] + ([args.errors] if args.errors not in (None, args.out) else [])
    found = {name: _stat_of(name) for name in names}
    for name, stat in found.items():
        # A regular file only: standard input and output may both be one terminal.
        if stat is not None and into is not None and _identity(stat) == into and (
            os.path.isfile(name) if name != "-" else _regular(stat)
        ):
            what = "standard output" if name == "-" else name
            msg = f"{what} is the input file {args.file}; write the results elsewhere"
            raise _Failed(msg)
    if len(names) == 2:
        out, errors = (found[n] for n in names)
        if _clash(out, errors):
            raise _Failed(_same_output(args))


def _clash(out: os.stat_result | None, errors: os.stat_result | None) -> bool:
    """Whether two outputs are one file (the null device may be written twice: it loses
    nothing)."""
    if out is None or errors is None or _identity(out) != _identity(errors):
        return False
    try:
        return _identity(out) != _identity(os.stat(os.devnull))
    except OSError:
        return True


def _regular(stat: os.stat_result) -> bool:
    import stat as _stat

    return _stat.S_ISREG(stat.st_mode)


def _same_output(args: argparse.Namespace) -> str:
    if args.out == "-":
        return (
            f"--errors {args.errors} is the same file as standard output (--out); leave out "
            "--errors to write both to one file"
        )
    return (
        f"--errors {args.errors} is the same file as --out {args.out}; leave out --errors "
        "(or spell it as --out is spelt) to write both to one file"
    )


@attrs.define
class _Output:
    """Strictly private: an output stream and the name it is reported by."""

    name: str
    handle: IO[bytes]
    lines: int = 0

    @property
    def shown(self) -> str:
        return _shown(self.name)


@attrs.define
class _Tally:
    """Strictly private: what has been written so far, kept by ``_run`` across a Ctrl-C."""

    counts: collections.Counter[str] = attrs.Factory(collections.Counter)
    paths: collections.Counter[str] = attrs.Factory(collections.Counter)
    path_lines: int = 0
    trimmed: bool = False

    def add_paths(self, paths: collections.Counter[str]) -> None:
        """Count error paths, holding at most ``MAX_PATHS`` of them."""
        self.paths.update(paths)
        if len(self.paths) > MAX_PATHS:
            kept = self.paths.most_common(MAX_PATHS // 2)
            self.paths = collections.Counter(dict(kept))
            self.trimmed = True


def _run(
    args: argparse.Namespace, parser: argparse.ArgumentParser, tp: Any, source: IO[bytes],
    size: int | None,
) -> int:
    tally = _Tally()
    try:
        opened = _identity(os.fstat(source.fileno())) if args.file != "-" else None
    except OSError:
        opened = None
    outputs: list[_Output] = []
    started = time.monotonic()
    status = 0
    message = ""
    try:
        with contextlib.ExitStack() as stack:
            if args.file != "-":
                stack.callback(source.close)
            try:
                out = _open_output(args.out)
                outputs.append(out)
                if args.errors in (None, args.out):
                    errors = out
                else:
                    # A name that only now names --out (a link to the file just made).
                    if _clash(os.fstat(out.handle.fileno()), _stat_of(args.errors)):
                        raise _Failed(_same_output(args))
                    errors = _open_output(args.errors)
                    outputs.append(errors)
            except OSError as exc:
                raise _Failed(
                    f"cannot write {exc.filename or args.out}: {exc.strerror or exc}"
                ) from None
            together = errors is out
            if args.jobs == 1:
                chunks = _serial(tp, args.shape, source, together)
            else:  # started before the bar, whose thread a fork would not copy
                chunks = _parallel(stack, tp, args, source, together, outputs)
            bar = _progress(size, sys.stderr)
            if bar is not None:
                stack.callback(bar.close)
            _write(chunks, out, errors, bar, tally)
            for output in outputs:
                _close(output)
    except BrokenPipeError:  # the reader went away (``| head``): stop quietly
        _abandon(outputs)
        return 1
    except KeyboardInterrupt:
        status, message = 130, "interrupted"
    except _Stopped as exc:
        status, message = 128 + exc.signum, "terminated"
    except _Failed as exc:
        _abandon(outputs)
        parser.exit(2, f"error: {exc}\n")
    except InputError as exc:
        _abandon(outputs)
        parser.exit(2, f"error: cannot read {args.file}: {exc}\n")
    except WorkerError as exc:
        _abandon(outputs)
        parser.exit(2, f"error: {exc}\n")
    if status:
        try:
            for output in outputs:
                _close(output)
        except _Failed as exc:
            _abandon(outputs)
            parser.exit(2, f"error: {exc}\n")
        sys.stderr.write(f"{message}: {_written(outputs)}\n")
        sys.stderr.write(summary(tally.counts, tally.paths, tally.path_lines, tally.trimmed))
        return status
    elapsed = time.monotonic() - started
    note = _changed(args.file, opened)
    if note:
        sys.stderr.write(f"note: {note}\n")
    sys.stderr.write(
        summary(tally.counts, tally.paths, tally.path_lines, tally.trimmed, elapsed=elapsed)
    )
    return 0 if tally.counts.get("ok", 0) == sum(tally.counts.values()) else 1


def _written(outputs: list[_Output]) -> str:
    total = sum(o.lines for o in outputs)
    if len(outputs) == 1:
        where = outputs[0].shown
    else:
        where = " and ".join(f"{o.shown} ({o.lines:,})" for o in outputs)
    return (
        f"{total:,} lines written to {where}, each one complete; the lines after line "
        f"{total:,} of the input were not decoded"
    )


def _close(output: _Output) -> None:
    """Flush (and close, unless standard output) one output; a failure is ``_Failed``."""
    try:
        output.handle.flush()
        if output.name != "-":
            output.handle.close()
    except OSError as exc:
        msg = f"cannot write {output.shown}: {exc.strerror or exc}"
        raise _Failed(msg) from None


def _abandon(outputs: list[_Output]) -> None:
    """Close outputs after an error, saying nothing more (their flush may fail again)."""
    for output in outputs:
        if output.name == "-":
            quiet_stdout()
            continue
        with contextlib.suppress(OSError):
            output.handle.close()


def _changed(name: str, opened: tuple[int, int] | None) -> str:
    """A note when FILE no longer names the file that was read."""
    if opened is None:
        return ""
    try:
        now = os.stat(name)
    except FileNotFoundError:
        return f"{name} was deleted during the run; the results are of the file as it was opened"
    except (OSError, ValueError):
        return ""
    if opened != _identity(now):
        return (
            f"{name} was replaced during the run; the results are of the file as it was "
            "opened, not of the new one"
        )
    return ""


def _open_input(name: str) -> tuple[IO[bytes], int | None]:
    if name == "-":
        return sys.stdin.buffer, None
    handle = open(name, "rb")  # noqa: SIM115 - closed by the caller's ExitStack
    try:
        size: int | None = os.fstat(handle.fileno()).st_size
    except OSError:
        size = None
    return handle, size


def _open_output(name: str) -> _Output:
    if name == "-":
        return _Output(name, sys.stdout.buffer)
    return _Output(name, open(name, "wb"))


# -- decoding lines into output records ------------------------------------------------


class _Encoders(dict[type, Any]):
    """Encoders of plain (non-generic) attrs classes and dataclasses, for one chunk.

    Made per chunk, so no class is kept alive past the run.
    """

    def __missing__(self, cls: type) -> Any:
        params: Any = getattr(cls, "__parameters__", None)
        found = None
        if not params and (attrs.has(cls) or dataclasses.is_dataclass(cls)):
            found = encoder_for(cls)
        self[cls] = found
        return found


def record(
    result: BatchResult, raw: Any = None, encoders: _Encoders | None = None
) -> tuple[str, bytes, tuple[str, ...]]:
    """The output line for one result, with its outcome and error paths."""
    head: dict[str, Any] = {"line": result.line, "custom_id": result.custom_id}
    error = result.error
    if error is None:
        head["outcome"] = "ok"
        value = result.value
        encoder = encoders[value.__class__] if encoders is not None else None
        # A described class goes straight to its encoder, past the generic checks.
        head["value"] = encoder(value) if encoder is not None else json_value(value)
        return "ok", orjson.dumps(head, option=orjson.OPT_APPEND_NEWLINE), ()
    outcome = result.outcome
    head["outcome"] = outcome
    head["message"] = str(error)
    paths: tuple[str, ...] = ()
    if isinstance(error, DecodeError):
        head["errors"] = [list(pair) for pair in error.errors]
        if outcome == "invalid":  # a refusal or a cut-off reply has no path to fix
            paths = error_paths(error)
    if outcome == "malformed" and isinstance(raw, (bytes, str)):
        # Nothing is lost: the unreadable line itself, to fix or resend.
        text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
        head["input"] = text.rstrip("\r\n")
    return outcome, orjson.dumps(head, option=orjson.OPT_APPEND_NEWLINE), paths


@attrs.frozen
class _Chunk:
    """Strictly private: the output of a run of lines, as the writer needs it."""

    ok: bytes
    failed: bytes
    counts: collections.Counter[str]
    paths: collections.Counter[str]
    path_lines: int
    size: int


def decode_chunk(
    tp: Any, shape: str, start: int, lines: list[Any], together: bool = False
) -> _Chunk:
    """Decode lines numbered from ``start`` into their output lines and tallies.

    ``together``: every output line goes to ``ok``, in input order (one output stream).
    """
    encoders = _Encoders()
    ok: list[bytes] = []
    failed: list[bytes] = []
    tally = dict.fromkeys(OUTCOMES, 0)
    paths: collections.Counter[str] = collections.Counter()
    path_lines = 0
    size = 0
    keep_ok, keep_failed = ok.append, (ok if together else failed).append
    for number, raw in enumerate(lines, start):
        outcome, line, error_paths = record(
            decode_line(tp, raw, number, shape, None, MAX_LINE_BYTES), raw, encoders
        )
        tally[outcome] += 1
        if outcome == "ok":
            keep_ok(line)
        else:
            keep_failed(line)
            if error_paths:
                paths.update(error_paths)
                path_lines += 1
        size += len(raw) if raw.__class__ is bytes else _size(raw)
    counts = collections.Counter({name: n for name, n in tally.items() if n})
    return _Chunk(b"".join(ok), b"".join(failed), counts, paths, path_lines, size)


def _size(raw: Any) -> int:
    return raw.size if isinstance(raw, TooLong) else len(raw)


def _chunks(source: IO[bytes]) -> Iterator[tuple[int, list[Any]]]:
    """Runs of lines: ``CHUNK_LINES`` lines or ``CHUNK_BYTES`` of input, whichever is first.

    A line longer than ``CHUNK_BYTES`` is a chunk of its own, so memory is bounded by
    the longest line, not by ``CHUNK_LINES`` of them.
    """
    start = 1
    batch: list[Any] = []
    held = 0
    for line in read_lines(source):
        batch.append(line)
        held += _size(line)
        if len(batch) == CHUNK_LINES or held >= CHUNK_BYTES:
            yield start, batch
            start += len(batch)
            batch, held = [], 0
    if batch:
        yield start, batch


def _serial(tp: Any, shape: str, source: IO[bytes], together: bool) -> Iterator[_Chunk]:
    for start, lines in _chunks(source):
        yield decode_chunk(tp, shape, start, lines, together)


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
            if _identity(os.fstat(fd)) != identity:
                msg = f"{path} was replaced before a worker could open it; run again"
                raise InputError(msg)
        _WORKER["fd"] = fd


def _worker_chunk(chunk: tuple[int, bytes | TooLong]) -> _Chunk:
    """Decode a block of whole lines (or one line over the limit) numbered from ``start``."""
    start, block = chunk
    lines = block_lines(block)
    return decode_chunk(_WORKER["tp"], _WORKER["shape"], start, lines, _WORKER["together"])


def block_lines(block: bytes | TooLong, limit: int = MAX_LINE_BYTES) -> list[Any]:
    """The lines of a ``_blocks`` task, as ``read_lines`` gives them."""
    return [block] if isinstance(block, TooLong) else list(read_lines(io.BytesIO(block), limit))


def _worker_range(task: tuple[int, int, int]) -> _Chunk:
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
) -> _Chunk:
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


def _parallel(
    stack: contextlib.ExitStack, tp: Any, args: argparse.Namespace, source: IO[bytes],
    together: bool, outputs: list[_Output],
) -> Iterator[_Chunk]:
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
        identity = _identity(os.fstat(fd))
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


def _put(output: _Output, data: bytes) -> None:
    try:
        output.handle.write(data)
    except BrokenPipeError:
        raise
    except OSError as exc:  # a full disk, a closed stream
        msg = f"cannot write {output.shown}: {exc.strerror or exc}"
        raise _Failed(msg) from None


def _write(
    chunks: Iterator[_Chunk], out: _Output, errors: _Output, bar: Any, tally: _Tally
) -> None:
    for chunk in chunks:
        _put(out, chunk.ok)
        _put(errors, chunk.failed)
        tally.counts.update(chunk.counts)
        tally.add_paths(chunk.paths)
        tally.path_lines += chunk.path_lines
        lines = sum(chunk.counts.values())
        if errors is out:
            out.lines += lines
        else:
            errors.lines += lines - chunk.counts.get("ok", 0)
            out.lines += chunk.counts.get("ok", 0)
        if bar is not None:
            bar.update(chunk.size)


# -- progress and summary ------------------------------------------------------------------


def _progress(total: int | None, stream: Any) -> Any:
    """A tqdm bar over the input's bytes when ``stream`` is a terminal and tqdm is installed."""
    try:
        if not stream.isatty():
            return None
    except (AttributeError, ValueError):
        return None
    try:
        tqdm = importlib.import_module("tqdm").tqdm
    except ImportError:
        return None
    return tqdm(total=total, unit="B", unit_scale=True, unit_divisor=1024, file=stream,
                desc="decoding", leave=False)


def summary(
    counts: collections.Counter[str], paths: collections.Counter[str], path_lines: int = 0,
    trimmed: bool = False, *, elapsed: float | None = None,
) -> str:
    """The table printed at the end (``BatchSummary``'s) and, for a run that finished,
    the time it took."""
    lines = ["", *summary_table(counts, paths, path_lines, trimmed, max_paths=MAX_PATHS)]
    if elapsed is not None:
        total = sum(counts.values())
        rate = total / elapsed if elapsed > 0 else 0.0
        lines += ["", f"decoded {total:,} line{'s' if total != 1 else ''} in {elapsed:.2f} s "
                      f"({rate:,.0f} lines/s)"]
    return "\n".join(lines) + "\n"

"""``describedtypes decode TARGET FILE``: decode a batch results file from the command line.

Every input line becomes one JSON line in ``--out`` (decoded) or ``--errors`` (not), in
input order; a summary goes to stderr at the end. ``--jobs N`` decodes chunks of lines in
N processes (this one and N - 1 workers; N workers when reading standard input) and
writes their results in order, with a bounded number of chunks in flight so memory stays
flat. The progress bar (by bytes read) needs the optional ``tqdm``
package and a terminal on stderr.

Exit status: 0 when every line decoded, 1 when at least one did not, 2 for a usage
problem (bad arguments, a TARGET that cannot be loaded or described, an unreadable FILE,
an output that cannot be written) or a worker process that died, 130 when interrupted.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import dataclasses
import functools
import importlib
import io
import os
import re
import sys
from collections.abc import Iterator
from typing import IO, Any

import attrs
import orjson

from .._batch.lines import (
    MAX_LINE_BYTES,
    OUTCOMES,
    SHAPES,
    BatchResult,
    _TooLong,
    check_type,
    decode_line,
    read_lines,
)
from .._batch.workers import WorkerError, Workers
from .._codec.encode import encoder_for, json_value
from ..errors import DecodeError, DescribedTypesError
from .targets import UsageError, load_target

__all__ = ["add_decode_command", "run_decode"]

#: Lines per chunk handed to a worker process.
CHUNK_LINES = 2000
#: Error paths listed in the summary.
TOP_PATHS = 10

_INDEX = re.compile(r"\[\d+\]")



def add_decode_command(commands: Any) -> None:
    """Add the ``decode`` subcommand to the command line's subparsers."""
    cmd = commands.add_parser(
        "decode",
        help="decode a batch results file (JSONL) into TARGET, one result per line",
        description=(
            "Decode OpenAI Batch output, Anthropic Message Batches results or bare replies, "
            "one JSON line each. Exit status: 0 every line decoded, 1 some line did not, "
            "2 usage error."
        ),
    )
    cmd.add_argument("target", metavar="TARGET", help="package.module:Name or path/to/file.py:Name")
    cmd.add_argument("file", metavar="FILE", help="the JSONL file, or - for standard input")
    cmd.add_argument("--out", metavar="OK.jsonl", default="-",
                     help="where decoded lines go (default: standard output)")
    cmd.add_argument("--errors", metavar="ERR.jsonl", default=None,
                     help="where lines that did not decode go (default: with --out)")
    cmd.add_argument("--jobs", metavar="N", type=int, default=1,
                     help="processes that decode (default: 1, this one alone)")
    cmd.add_argument("--shape", default="auto", choices=SHAPES,
                     help="the line shape (default: auto, decided per line)")


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
    for name in (args.out, args.errors):
        if name not in (None, "-") and args.file != "-" and _same_file(name, args.file):
            parser.exit(2, f"error: {name} is the input file; write the results elsewhere\n")
    try:
        source, size = _open_input(args.file)
    except OSError as exc:
        parser.exit(2, f"error: cannot read {args.file}: {exc.strerror or exc}\n")
    try:
        return _run(args, parser, tp, source, size)
    except BrokenPipeError:  # the reader went away (``| head``): stop quietly
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        return 130


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _run(
    args: argparse.Namespace, parser: argparse.ArgumentParser, tp: Any, source: IO[bytes],
    size: int | None,
) -> int:
    with contextlib.ExitStack() as stack:
        if args.file != "-":
            stack.enter_context(source)
        try:
            out = _open_output(stack, args.out)
            errors = out if args.errors in (None, args.out) else _open_output(stack, args.errors)
        except OSError as exc:
            parser.exit(2, f"error: cannot write: {exc}\n")
        if args.jobs == 1:
            chunks = _serial(tp, args.shape, source, errors is out)
        else:  # started before the bar, whose thread a fork would not copy
            chunks = _parallel(stack, tp, args, source, errors is out)
        bar = _progress(size, sys.stderr)
        if bar is not None:
            stack.callback(bar.close)
        try:
            counts, paths = _write(chunks, out, errors, bar)
        except BrokenPipeError:
            raise
        except OSError as exc:  # a full disk, a closed stream
            parser.exit(2, f"error: cannot write the results: {exc.strerror or exc}\n")
        except WorkerError as exc:
            parser.exit(2, f"error: {exc}\n")
    sys.stderr.write(summary(counts, paths))
    return 0 if counts.get("ok", 0) == sum(counts.values()) else 1


def _open_input(name: str) -> tuple[IO[bytes], int | None]:
    if name == "-":
        return sys.stdin.buffer, None
    handle = open(name, "rb")  # noqa: SIM115 - closed by the caller's ExitStack
    try:
        size: int | None = os.fstat(handle.fileno()).st_size
    except OSError:
        size = None
    return handle, size


def _open_output(stack: contextlib.ExitStack, name: str) -> IO[bytes]:
    if name == "-":
        return sys.stdout.buffer
    return stack.enter_context(open(name, "wb"))


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
            paths = tuple(dict.fromkeys(_INDEX.sub("[*]", p) for p, _ in error.errors))
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
        size += len(raw) if raw.__class__ is bytes else _size(raw)
    counts = collections.Counter({name: n for name, n in tally.items() if n})
    return _Chunk(b"".join(ok), b"".join(failed), counts, paths, size)


def _size(raw: Any) -> int:
    return raw.size if isinstance(raw, _TooLong) else len(raw)


def _chunks(source: IO[bytes]) -> Iterator[tuple[int, list[Any]]]:
    start = 1
    batch: list[Any] = []
    for line in read_lines(source):
        batch.append(line)
        if len(batch) == CHUNK_LINES:
            yield start, batch
            start += len(batch)
            batch = []
    if batch:
        yield start, batch


def _serial(tp: Any, shape: str, source: IO[bytes], together: bool) -> Iterator[_Chunk]:
    for start, lines in _chunks(source):
        yield decode_chunk(tp, shape, start, lines, together)


# Worker processes: TARGET is loaded once per process, by name (so any start method works).
_WORKER: dict[str, Any] = {}


def _init_worker(target: str, shape: str, together: bool) -> None:

    _WORKER["tp"] = load_target(target)
    _WORKER["shape"] = shape
    _WORKER["together"] = together


def _worker_chunk(chunk: tuple[int, bytes | _TooLong]) -> _Chunk:
    """Decode a block of whole lines (or one line over the limit) numbered from ``start``."""
    start, block = chunk
    lines = block_lines(block)
    return decode_chunk(_WORKER["tp"], _WORKER["shape"], start, lines, _WORKER["together"])


def block_lines(block: bytes | _TooLong, limit: int = MAX_LINE_BYTES) -> list[Any]:
    """The lines of a ``_blocks`` task, as ``read_lines`` gives them."""
    return [block] if isinstance(block, _TooLong) else list(read_lines(io.BytesIO(block), limit))


def _worker_range(task: tuple[str, int, int, int]) -> _Chunk:
    return decode_range(_WORKER["tp"], _WORKER["shape"], _WORKER["together"], task)


def decode_range(tp: Any, shape: str, together: bool, task: tuple[str, int, int, int]) -> _Chunk:
    """Decode the lines of ``path`` in bytes ``[offset, offset + length)``, read here."""
    path, offset, length, start = task
    with open(path, "rb") as handle:
        handle.seek(offset)
        lines = list(_lines_within(handle, length))
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


def _ranges(handle: IO[bytes], path: str) -> Iterator[tuple[str, int, int, int]]:
    """``(path, offset, length, first line)`` tasks cut at line ends, about 512 KB each.

    The parent only counts newlines (a ``memchr`` per block); the workers read and
    decode, so the parent is never the bottleneck.
    """
    offset = 0  # where the current task starts
    pos = 0  # bytes read so far
    line = 1  # the number of the task's first line
    while True:
        block = handle.read(RANGE_BYTES)
        if not block:
            break
        pos += len(block)
        last = block.rfind(b"\n")
        if last < 0:
            continue  # inside a long line: the task grows until it ends
        end = pos - len(block) + last + 1
        yield path, offset, end - offset, line
        # Earlier blocks of this task had no newline, and none follows ``last``.
        line += block.count(b"\n", 0, last + 1)
        offset = end
    if pos > offset:
        yield path, offset, pos - offset, line


def _blocks(
    source: IO[bytes], limit: int = MAX_LINE_BYTES
) -> Iterator[tuple[int, bytes | _TooLong]]:
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
                yield line, _TooLong(size)
                return
            yield line, _TooLong(size + end + 1)
            line += 1
            pending = block[end + 1:]
    if rest:
        yield line, b"".join(rest)


def _parallel(
    stack: contextlib.ExitStack, tp: Any, args: argparse.Namespace, source: IO[bytes],
    together: bool,
) -> Iterator[_Chunk]:
    """Chunks decoded in ``jobs`` processes, yielded in input order, few in flight.

    From a file, this process and ``jobs - 1`` workers decode: each reads its own byte
    ranges, so this one only counts newlines, writes, and decodes while it waits. From
    a stream, ``jobs`` workers decode what this one reads and sends them.

    The workers start now; ``stack`` stops them (kills them on an error or Ctrl-C).
    """
    jobs, shape = args.jobs, args.shape
    setup = (args.target, shape, together)
    # Standard input redirected from a file is seekable too, but has no path to reopen.
    path = args.file if args.file != "-" else None
    if path is not None and source.seekable():
        workers = stack.enter_context(Workers(jobs - 1, _worker_range, _init_worker, setup))
        # A task is a few bytes: one waits in the pipe while the other is decoded.
        local = functools.partial(decode_range, tp, shape, together)
        return workers.map(_ranges(source, path), window=4 * jobs, depth=2, local=local)
    workers = stack.enter_context(Workers(jobs, _worker_chunk, _init_worker, setup))
    # A task is half a megabyte: it is only sent to a worker that waits for one.
    return workers.map(_blocks(source), window=4 * jobs, depth=1)


def _write(
    chunks: Iterator[_Chunk], out: IO[bytes], errors: IO[bytes], bar: Any
) -> tuple[collections.Counter[str], collections.Counter[str]]:
    counts: collections.Counter[str] = collections.Counter()
    paths: collections.Counter[str] = collections.Counter()
    for chunk in chunks:
        counts.update(chunk.counts)
        paths.update(chunk.paths)
        out.write(chunk.ok)
        errors.write(chunk.failed)
        if bar is not None:
            bar.update(chunk.size)
    out.flush()
    errors.flush()
    return counts, paths


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


def summary(counts: collections.Counter[str], paths: collections.Counter[str]) -> str:
    """The table printed at the end: lines per outcome, then the most frequent error paths."""
    total = sum(counts.values())
    rows = [(name, counts[name]) for name in OUTCOMES if counts.get(name)]
    lines = ["", f"{'outcome':<12}{'lines':>12}{'share':>9}"]
    for name, n in rows:
        lines.append(f"{name:<12}{n:>12,}{n / total:>9.1%}")
    lines.append(f"{'total':<12}{total:>12,}")
    if paths:
        lines += ["", f"most frequent error paths (of {sum(paths.values()):,})",
                  f"{'lines':>12}  path"]
        lines += [f"{n:>12,}  {path}" for path, n in paths.most_common(TOP_PATHS)]
    return "\n".join(lines) + "\n"

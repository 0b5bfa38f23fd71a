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
import contextlib
import os
import signal
import sys
import time
from collections.abc import Iterator
from typing import IO, Any

from .._batch.lines import SHAPES, check_type
from .._batch.workers import WorkerError
from ..errors import DescribedTypesError
from .chunks import Chunk, decode_serially
from .files import (
    InputError,
    Output,
    OutputError,
    abandon_outputs,
    check_outputs,
    close_output,
    file_identity,
    open_input,
    open_outputs,
    write_output,
)
from .parallel import decode_in_parallel
from .report import Tally, progress_bar, summary
from .targets import UsageError, load_target

__all__ = ["add_decode_command", "run_decode"]


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
        source, size = open_input(args.file)
    except OSError as exc:
        parser.exit(2, f"error: cannot read {args.file}: {exc.strerror or exc}\n")
    try:
        check_outputs(args, source)
    except OutputError as exc:
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


def _run(
    args: argparse.Namespace, parser: argparse.ArgumentParser, tp: Any, source: IO[bytes],
    size: int | None,
) -> int:
    tally = Tally()
    try:
        opened = file_identity(os.fstat(source.fileno())) if args.file != "-" else None
    except OSError:
        opened = None
    outputs: list[Output] = []
    started = time.monotonic()
    status = 0
    message = ""
    try:
        with contextlib.ExitStack() as stack:
            if args.file != "-":
                stack.callback(source.close)
            out, errors = open_outputs(args, outputs)
            together = errors is out
            if args.jobs == 1:
                chunks = decode_serially(tp, args.shape, source, together)
            else:  # started before the bar, whose thread a fork would not copy
                chunks = decode_in_parallel(stack, tp, args, source, together, outputs)
            bar = progress_bar(size, sys.stderr)
            if bar is not None:
                stack.callback(bar.close)
            _write(chunks, out, errors, bar, tally)
            for output in outputs:
                close_output(output)
    except BrokenPipeError:  # the reader went away (``| head``): stop quietly
        abandon_outputs(outputs)
        return 1
    except KeyboardInterrupt:
        status, message = 130, "interrupted"
    except _Stopped as exc:
        status, message = 128 + exc.signum, "terminated"
    except OutputError as exc:
        abandon_outputs(outputs)
        parser.exit(2, f"error: {exc}\n")
    except InputError as exc:
        abandon_outputs(outputs)
        parser.exit(2, f"error: cannot read {args.file}: {exc}\n")
    except WorkerError as exc:
        abandon_outputs(outputs)
        parser.exit(2, f"error: {exc}\n")
    if status:
        try:
            for output in outputs:
                close_output(output)
        except OutputError as exc:
            abandon_outputs(outputs)
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


def _written(outputs: list[Output]) -> str:
    total = sum(o.lines for o in outputs)
    if len(outputs) == 1:
        where = outputs[0].shown
    else:
        where = " and ".join(f"{o.shown} ({o.lines:,})" for o in outputs)
    return (
        f"{total:,} lines written to {where}, each one complete; the lines after line "
        f"{total:,} of the input were not decoded"
    )



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
    if opened != file_identity(now):
        return (
            f"{name} was replaced during the run; the results are of the file as it was "
            "opened, not of the new one"
        )
    return ""



def _write(
    chunks: Iterator[Chunk], out: Output, errors: Output, bar: Any, tally: Tally
) -> None:
    for chunk in chunks:
        write_output(out, chunk.ok)
        write_output(errors, chunk.failed)
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

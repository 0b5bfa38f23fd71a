"""FILE and the outputs of ``describedtypes decode``: opening, comparing and writing them.

Files are told apart by device and inode, so an output that is the input, or ``--errors``
that is ``--out`` by another name, is refused before any output is opened (and so
truncated). A failure to write is an ``OutputError`` naming the output.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from typing import IO

import attrs

from .stdout import quiet_stdout


class OutputError(Exception):
    """An output cannot be written, or is the input or the other output by another name:
    the run ends with this one-line message and exit status 2."""


class InputError(Exception):
    """FILE could not be read (in this process or a worker), or is not the file opened."""


def file_identity(stat: os.stat_result) -> tuple[int, int]:
    return stat.st_dev, stat.st_ino


def _stat_of(name: str) -> os.stat_result | None:
    """The file an output name writes to, where it exists already (``-``: standard output)."""
    try:
        return os.fstat(sys.stdout.fileno()) if name == "-" else os.stat(name)
    except (OSError, ValueError):
        return None


def _shown(name: str) -> str:
    return "standard output" if name == "-" else name


def check_outputs(args: argparse.Namespace, source: IO[bytes]) -> None:
    """Refuse an output that is the input, or ``--errors`` that is ``--out`` by another name.

    Checked by device and inode, before any output is opened (and so truncated).
    """
    try:
        into = file_identity(os.fstat(source.fileno()))
    except (OSError, ValueError):
        into = None
    names = [args.out] + ([args.errors] if args.errors not in (None, args.out) else [])
    found = {name: _stat_of(name) for name in names}
    for name, stat in found.items():
        # A regular file only: standard input and output may both be one terminal.
        if stat is not None and into is not None and file_identity(stat) == into and (
            os.path.isfile(name) if name != "-" else _regular(stat)
        ):
            what = "standard output" if name == "-" else name
            msg = f"{what} is the input file {args.file}; write the results elsewhere"
            raise OutputError(msg)
    if len(names) == 2:
        out, errors = (found[n] for n in names)
        if _clash(out, errors):
            raise OutputError(_same_output(args))


def _clash(out: os.stat_result | None, errors: os.stat_result | None) -> bool:
    """Whether two outputs are one file (the null device may be written twice: it loses
    nothing)."""
    if out is None or errors is None or file_identity(out) != file_identity(errors):
        return False
    try:
        return file_identity(out) != file_identity(os.stat(os.devnull))
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
class Output:
    """Strictly private: an output stream and the name it is reported by."""

    name: str
    handle: IO[bytes]
    lines: int = 0

    @property
    def shown(self) -> str:
        return _shown(self.name)


def _open_output(name: str) -> Output:
    if name == "-":
        return Output(name, sys.stdout.buffer)
    return Output(name, open(name, "wb"))


def open_outputs(args: argparse.Namespace, outputs: list[Output]) -> tuple[Output, Output]:
    """Open ``--out`` and ``--errors`` (one output when they are one name): ``(out, errors)``.

    Each is listed in ``outputs`` as soon as it is open, so the caller closes it after an
    error.
    """
    try:
        out = _open_output(args.out)
        outputs.append(out)
        if args.errors in (None, args.out):
            errors = out
        else:
            # A name that only now names --out (a link to the file just made).
            if _clash(os.fstat(out.handle.fileno()), _stat_of(args.errors)):
                raise OutputError(_same_output(args))
            errors = _open_output(args.errors)
            outputs.append(errors)
    except OSError as exc:
        raise OutputError(
            f"cannot write {exc.filename or args.out}: {exc.strerror or exc}"
        ) from None
    return out, errors


def close_output(output: Output) -> None:
    """Flush (and close, unless standard output) one output; a failure is ``OutputError``."""
    try:
        output.handle.flush()
        if output.name != "-":
            output.handle.close()
    except OSError as exc:
        msg = f"cannot write {output.shown}: {exc.strerror or exc}"
        raise OutputError(msg) from None


def abandon_outputs(outputs: list[Output]) -> None:
    """Close outputs after an error, saying nothing more (their flush may fail again)."""
    for output in outputs:
        if output.name == "-":
            quiet_stdout()
            continue
        with contextlib.suppress(OSError):
            output.handle.close()


def open_input(name: str) -> tuple[IO[bytes], int | None]:
    if name == "-":
        return sys.stdin.buffer, None
    handle = open(name, "rb")  # noqa: SIM115 - closed by the caller's ExitStack
    try:
        size: int | None = os.fstat(handle.fileno()).st_size
    except OSError:
        size = None
    return handle, size


def write_output(output: Output, data: bytes) -> None:
    try:
        output.handle.write(data)
    except BrokenPipeError:
        raise
    except OSError as exc:  # a full disk, a closed stream
        msg = f"cannot write {output.shown}: {exc.strerror or exc}"
        raise OutputError(msg) from None

"""Standard output of the commands: a write that fails is one line and exit status 2."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys

__all__ = ["emit", "quiet_stdout"]


def emit(parser: argparse.ArgumentParser, text: str) -> int:
    """Write ``text`` to standard output and flush it; a failed write is one line, exit 2.

    A full disk or a closed pipe would otherwise be a traceback at interpreter exit, when
    Python flushes standard output once more: after an error, standard output is pointed
    at the null device so that last flush has nothing to say.
    """
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:  # the reader went away (``| head``): stop quietly
        quiet_stdout()
        return 1
    except OSError as exc:
        quiet_stdout()
        parser.exit(2, f"error: cannot write to standard output: {exc.strerror or exc}\n")
    return 0


def quiet_stdout() -> None:
    """Point standard output at the null device (what was buffered for it is dropped)."""
    with contextlib.suppress(OSError, ValueError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())

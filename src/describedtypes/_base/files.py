"""Writing a file whole or not at all, and only where a regular file may go; reading a
small file whole, and only a regular file of bounded size.

``write_batch`` and ``describedtypes batch retry --out`` write into a temporary file
beside the target and rename it over the target, so a reader never sees half a file.
The rename replaces whatever is at the path: a symlink, a FIFO or a device node would be
replaced by a regular file (run as root, that replaced a system device node), so the
target must be a regular file or a new path, and anything else is refused before a byte
is written. A process killed between creating its temporary file and the rename leaves
the file behind: each temporary file's name holds the target's name and the writer's
process id, and the next write to the same target removes those whose process is gone.
"""

from __future__ import annotations

import contextlib
import os
import stat
import sys
import tempfile
from collections.abc import Iterator

__all__ = [
    "FileRefused",
    "check_target",
    "read_small",
    "rename_over",
    "replaced",
    "temporary_beside",
]


class FileRefused(ValueError):
    """Strictly private: the path holds something a regular file must not replace."""


_KINDS = (
    (stat.S_ISLNK, "a symbolic link"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISDIR, "a directory"),
)


def check_target(path: str) -> None:
    """Refuse ``path`` unless it is a regular file (not through a symlink) or absent."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    except OSError:
        return  # the write itself reports what is wrong with the folder
    if stat.S_ISREG(mode):
        return
    kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
    msg = (
        f"{path} is {kind}; only a regular file or a new path is replaced (the file is "
        "written beside it and renamed over it); give the path of a file"
    )
    raise FileRefused(msg)


def read_small(path: str | os.PathLike[str], limit: int, what: str) -> bytes:
    """The bytes of the regular file at ``path``, at most ``limit`` of them.

    A FIFO would block the reader until a writer came, and a device such as /dev/zero
    never ends: anything but a regular file (symlinks followed) is refused before it is
    opened, and a file past ``limit`` bytes is refused after reading ``limit + 1``.

    Raises:
        FileRefused: not a regular file, or larger than ``limit`` (the message names the
            path, the kind of file or the limit, and ``what`` should be there).
        OSError: the file cannot be read (missing, no permission).
    """
    where = os.fspath(path)
    mode = os.stat(where).st_mode
    if not stat.S_ISREG(mode):
        kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
        msg = f"{where} is {kind}; give the path of a regular file holding {what}"
        raise FileRefused(msg)
    with open(where, "rb") as f:
        data = f.read(limit + 1)
    if len(data) > limit:
        msg = f"{where} is larger than {limit:,} bytes, more than {what} can be; check the path"
        raise FileRefused(msg)
    return data


def _prefix(path: str) -> str:
    return f".{os.path.basename(path)}.{os.getpid()}."


def _alive(pid: int) -> bool:
    if sys.platform == "win32":  # no signal 0 there: keep every leftover
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # exists, owned by another user
    return True


def _sweep(path: str, suffix: str) -> None:
    """Remove the temporary files of earlier writes to ``path`` whose writer is gone."""
    folder = os.path.dirname(os.path.abspath(path))
    head = f".{os.path.basename(path)}."
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for name in names:
        if not (name.startswith(head) and name.endswith(suffix)):
            continue
        pid_text = name[len(head):].split(".", 1)[0]
        if not pid_text.isdigit() or int(pid_text) == os.getpid() or _alive(int(pid_text)):
            continue
        with contextlib.suppress(OSError):
            os.unlink(os.path.join(folder, name))


def temporary_beside(path: str, suffix: str) -> tuple[int, str]:
    """A new temporary file beside ``path`` (its descriptor and name), once ``path`` is
    known to be a regular file or absent and earlier writers' leftovers are gone.

    Raises:
        FileRefused: ``path`` is a symlink, FIFO, device, socket or directory.
        OSError: The temporary file cannot be made.
    """
    check_target(path)
    _sweep(path, suffix)
    folder = os.path.dirname(os.path.abspath(path))
    return tempfile.mkstemp(prefix=_prefix(path), suffix=suffix, dir=folder)


def rename_over(temporary: str, path: str) -> None:
    """Put the finished ``temporary`` in ``path``'s place (checked once more first)."""
    os.chmod(temporary, 0o644)  # mkstemp makes it private to its owner
    check_target(path)
    os.replace(temporary, path)


@contextlib.contextmanager
def replaced(path: str, suffix: str) -> Iterator[tuple[int, str]]:
    """``temporary_beside(path)``, renamed over ``path`` when the block ends without an
    error and removed when it raises."""
    fd, temporary = temporary_beside(path, suffix)
    try:
        yield fd, temporary
        rename_over(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise

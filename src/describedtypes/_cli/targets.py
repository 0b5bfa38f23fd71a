"""The TARGET argument of every command: ``package.module:Name`` or ``path/to/file.py:Name``.

Whatever goes wrong while a TARGET is loaded (its module does not import, raises, or
calls ``sys.exit()``; the name is missing; the object is not something a schema can be
made of) is a :class:`UsageError` with one line naming the file and the reason, which the
commands print and exit with status 2.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import inspect
import sys
import traceback
import types
import typing
from pathlib import Path
from typing import Any

__all__ = ["UsageError", "check_target", "load_target"]


class UsageError(Exception):
    """A TARGET the command line cannot load; exits 2 with the message."""


def _one_line(text: str) -> str:
    """``text`` on one line: line breaks of any kind written as escapes."""
    return "".join(
        ch if ch.isprintable() or ch == " " else ch.encode("unicode_escape").decode()
        for ch in text
    )


def _failure(shown: str, filename: str | None, exc: BaseException) -> UsageError:
    """The one-line error for a module that failed while it was imported."""
    if isinstance(exc, SystemExit):
        return UsageError(
            f"{shown} exited (sys.exit({exc.code!r})) while it was imported; put its script "
            'code under if __name__ == "__main__":'
        )
    where = shown
    if isinstance(exc, SyntaxError) and exc.lineno is not None:
        where = f"{shown}:{exc.lineno}"
        detail = exc.msg
    else:
        detail = str(exc)
        if filename is not None:  # the innermost line of the module's own file
            for frame in reversed(traceback.extract_tb(exc.__traceback__)):
                if frame.filename == filename and frame.lineno is not None:
                    where = f"{shown}:{frame.lineno}"
                    break
    text = f"{type(exc).__name__}: {detail}" if detail else type(exc).__name__
    return UsageError(_one_line(f"{where}: cannot import it: {text}"))


def load_target(target: str, *, instance: bool = False) -> Any:
    """The object named by ``package.module:Name`` or ``path/to/file.py:Name``.

    ``instance=True`` takes any object (``mcp`` serves a ``Toolbox`` instance); otherwise
    it must be something a schema can be made of.

    Raises:
        UsageError: The TARGET is misspelt, its module fails to import (any exception,
            ``sys.exit()`` included; Ctrl-C goes through), it names no attribute, or
            the object is an instance (not a class, type or function).
    """
    module_part, sep, attr_path = target.rpartition(":")
    if not sep or not module_part or not attr_path:
        msg = (
            f"TARGET must look like package.module:Name or path/to/file.py:Name, got {target!r}"
        )
        raise UsageError(msg)
    if module_part.endswith(".py") or "/" in module_part or "\\" in module_part:
        module = _load_file(module_part)
    else:
        sys.path.insert(0, str(Path.cwd()))
        try:
            module = importlib.import_module(module_part)
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # any failure: one line, exit 2
            spec = _find(module_part)
            raise _failure(module_part, spec, exc) from None
        finally:
            sys.path.pop(0)
    obj: Any = module
    for part in attr_path.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            names = [n for n in dir(obj) if not n.startswith("_")]
            import difflib

            close = difflib.get_close_matches(part, names, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            msg = f"{module_part} has no attribute {part!r}{hint}"
            raise UsageError(msg) from None
    return obj if instance else check_target(target, obj)


def _find(module_part: str) -> str | None:
    """The file of a module that failed to import, where it can be found without importing."""
    try:
        spec = importlib.util.find_spec(module_part)
    except BaseException:  # only a line number is at stake
        return None
    return spec.origin if spec is not None else None


def _load_file(module_part: str) -> types.ModuleType:
    path = Path(module_part)
    if not path.is_file():
        msg = f"no such file: {module_part}"
        raise UsageError(msg)
    name = f"_describedtypes_target_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        msg = f"cannot import {module_part} as a Python module"
        raise UsageError(msg)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # so dataclasses and typing can find the module
    sys.path.insert(0, str(path.resolve().parent))
    try:
        spec.loader.exec_module(module)
    except KeyboardInterrupt:
        sys.modules.pop(name, None)
        raise
    except BaseException as exc:  # any failure: one line, exit 2
        sys.modules.pop(name, None)
        raise _failure(module_part, spec.origin, exc) from None
    finally:
        sys.path.pop(0)
    return module


def _is_describable(obj: Any) -> bool:
    """A class, a typing construct or a function: something a schema can be made of."""
    if obj is None or isinstance(obj, type) or inspect.isroutine(obj):
        return True
    if isinstance(obj, functools.partial | typing.TypeVar | typing.NewType):
        return True
    if typing.get_origin(obj) is not None:
        return True
    # Special forms (Any, LiteralString ...), aliases (type X = ...), typing_extensions.
    return type(obj).__module__ in {"typing", "typing_extensions", "types"}


def check_target(target: str, obj: Any) -> Any:
    """``obj`` if a schema can be made of it, else a :class:`UsageError` saying what it is."""
    if _is_describable(obj):
        return obj
    cls = type(obj)
    module = cls.__module__
    name = cls.__qualname__ if module == "builtins" else f"{module}.{cls.__qualname__}"
    msg = (
        f"{target} is an instance of {name}, not a class, type or function: TARGET names "
        "what the values are (a class such as Weather, or list[Weather] in a module)"
    )
    raise UsageError(msg)

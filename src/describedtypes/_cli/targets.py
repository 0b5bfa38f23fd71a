"""The TARGET argument of every command: ``package.module:Name`` or ``path/to/file.py:Name``."""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path
from typing import Any

__all__ = ["UsageError", "load_target"]


class UsageError(Exception):
    """A TARGET the command line cannot load; exits 2 with the message."""


def load_target(target: str) -> Any:
    """The object named by ``package.module:Name`` or ``path/to/file.py:Name``."""
    module_part, sep, attr_path = target.rpartition(":")
    if not sep or not module_part or not attr_path:
        msg = (
            f"TARGET must look like package.module:Name or path/to/file.py:Name, got {target!r}"
        )
        raise UsageError(msg)
    if module_part.endswith(".py") or "/" in module_part or "\\" in module_part:
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
        finally:
            sys.path.pop(0)
    else:
        sys.path.insert(0, str(Path.cwd()))
        try:
            module = importlib.import_module(module_part)
        except ImportError as exc:
            msg = f"cannot import {module_part!r}: {exc}"
            raise UsageError(msg) from None
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
    return obj

"""The ``$defs`` key of each class: its name, qualified only where two would clash."""

from __future__ import annotations

from typing import Any

from .._types import inspector as ni

__all__ = ["defs_keys"]


def defs_keys(objects: list[ni.ObjectNode]) -> dict[int, str]:
    """Collision-free ``$defs`` keys: the name, module-qualified only on a clash."""
    base: dict[int, str] = {}
    for o in objects:
        name = o.name
        if o.generic_args:
            name += "_" + "_".join(_arg_name(a) for a in o.generic_args)
        base[id(o)] = name
    counts: dict[str, int] = {}
    for key in base.values():
        counts[key] = counts.get(key, 0) + 1
    keys: dict[int, str] = {}
    used: set[str] = set()
    for o in objects:
        key = base[id(o)]
        if counts[key] > 1:
            module = getattr(_origin(o.python_type), "__module__", "") or ""
            key = f"{module}.{key}" if module else key
        candidate, n = key, 2
        while candidate in used:
            candidate = f"{key}_{n}"
            n += 1
        used.add(candidate)
        keys[id(o)] = candidate
    return keys


def _origin(tp: Any) -> Any:
    return getattr(tp, "__origin__", None) or tp


def _arg_name(arg: Any) -> str:
    name = getattr(arg, "__name__", None)
    if name is None:
        name = repr(arg).replace("typing.", "")
    return "".join(ch if ch.isalnum() else "_" for ch in name).strip("_")

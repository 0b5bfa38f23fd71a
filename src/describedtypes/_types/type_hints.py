"""Reading a class's or function's type hints, once per inspection.

``typing.get_type_hints`` evaluates every annotation, which is most of the work of
describing a plain class; classes whose annotations are already type objects (no
``from __future__ import annotations``, or made with ``attrs.make_class``) are read
without it. Within ``remembering_hints()`` (one top-level inspection) each object's hints
are read once and shared by every reader.
"""

from __future__ import annotations

import contextlib
import threading
import types
import typing
from collections.abc import Iterator
from typing import Any

__all__ = ["remembering_hints", "type_hints"]


_HINTS = threading.local()


def type_hints(obj: Any) -> dict[str, Any]:
    """``typing.get_type_hints(obj, include_extras=True)``, once per object per inspection.

    Reading a class's annotation and inspecting its fields both need its hints; while
    ``remembering_hints()`` is active (one top-level inspection) the second read reuses
    the first. The dict returned is shared: callers must not change it.
    """
    memo: dict[int, tuple[Any, dict[str, Any]]] | None = getattr(_HINTS, "memo", None)
    if memo is None:
        return _get_type_hints(obj)
    found = memo.get(id(obj))
    if found is None or found[0] is not obj:
        # The object is kept with its hints, so its id cannot be reused meanwhile.
        found = memo[id(obj)] = (obj, _get_type_hints(obj))
    return found[1]


def _get_type_hints(obj: Any) -> dict[str, Any]:
    if isinstance(obj, type):
        hints = _evaluated_class_hints(obj)
        if hints is not None:
            return hints
    return typing.get_type_hints(obj, include_extras=True)


def _evaluated_class_hints(cls: type) -> dict[str, Any] | None:
    """What ``get_type_hints(cls, include_extras=True)`` returns, when nothing needs evaluating.

    Annotations written as type objects (no ``from __future__ import annotations``, or
    classes made with ``attrs.make_class``) come back from ``get_type_hints`` as they are,
    ``None`` as ``NoneType``; its work is finding that out. None when any annotation is a
    string, holds one, or is something this check does not know: then ``get_type_hints``.
    """
    hints: dict[str, Any] = {}
    for base in reversed(cls.__mro__):
        # As get_type_hints reads them: each class's own, from its __dict__.
        annotations = base.__dict__.get("__annotations__", {})  # noqa: RUF063
        if not isinstance(annotations, dict):
            return None
        for name, value in annotations.items():
            if value is None:
                value = type(None)
            elif type(value) is not type and not _evaluated(value, 0):  # str, int, a class
                return None
            hints[name] = value
    return hints


# Generic aliases (list[int], Optional[int], X | None, Annotated[...], Literal[...]): their
# arguments are what get_type_hints evaluates.
_ALIASES = (types.GenericAlias, types.UnionType, getattr(typing, "_GenericAlias"))  # noqa: B009
_KEPT = (typing.TypeVar, getattr(typing, "_SpecialForm"))  # noqa: B009 - Any on 3.10


def _evaluated(tp: Any, depth: int) -> bool:
    """True when ``typing._eval_type`` would return ``tp`` unchanged (or an equal copy)."""
    if issubclass(type(tp), type) or tp is Ellipsis or isinstance(tp, _KEPT):
        return True
    if depth > 20 or not isinstance(tp, _ALIASES):
        return False  # strings, ForwardRefs and anything unknown: let typing decide
    if getattr(tp, "__origin__", None) is typing.Literal:  # values, never evaluated
        return True
    for arg in tp.__args__:
        if type(arg) is not type and not _evaluated(arg, depth + 1):
            return False
    return True


@contextlib.contextmanager
def remembering_hints() -> Iterator[None]:
    """Share ``type_hints`` results within this block (and this thread), then forget them."""
    if getattr(_HINTS, "memo", None) is not None:  # an inspection inside an inspection
        yield
        return
    _HINTS.memo = {}
    try:
        yield
    finally:
        _HINTS.memo = None

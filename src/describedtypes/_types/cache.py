"""The one owner of what the library caches for a type or function.

What is cached for a class or function (its inspected node, its schemas, its compiled
decoder and encoder) is stored *on that object*, in an attribute named
``__describedtypes_cache__``, the way msgspec keeps ``__msgspec_cache__`` and pydantic
``__pydantic_validator__``. So the cache lives exactly as long as the object: when the
last reference to a class, a function or a ``functools.partial`` goes, the object and
everything built for it form an unreachable cycle and the garbage collector frees them.
A module-level dictionary keyed by the type would keep every type alive forever (20,000
classes made at run time, each described once, cost half a gigabyte that way).

A type expression (``list[Weather]``, ``Weather | None``, ``Box[int]``) is stored on the
first user class or function inside it, its *anchor*. Expressions with no anchor (``int``,
``list[str]``, ``Literal["a"]``) and objects that take no attributes (builtins, callable
objects with ``__slots__``) go to a small bounded table instead, which can only keep
a bounded number of objects alive.

Entries are checked against the registries: each remembers the registration stamp it was
built under, and after any registration it is used again only if none of the objects it
consulted got a new annotation (``current()``). Nothing here holds a lock while user code
runs: values are computed outside any lock and stored with one dictionary assignment; two
threads that miss at once both compute, and one result is kept.
"""

from __future__ import annotations

import enum
import functools
import inspect
import threading
import typing
from collections.abc import Callable, Hashable
from typing import Any

from .annotate import Registry, current_stamp

__all__ = ["Entry", "get", "key_of", "put"]

ATTRIBUTE = "__describedtypes_cache__"

#: Modules whose classes are never anchors: their types live as long as the process.
_SYSTEM_MODULES = frozenset(
    {
        "builtins",
        "typing",
        "typing_extensions",
        "types",
        "collections.abc",
        "datetime",
        "decimal",
        "uuid",
        "enum",
        "abc",
    }
)

_FALLBACK_MAX = 512
_FALLBACK: dict[Hashable, Entry] = {}
_FALLBACK_LOCK = threading.Lock()


class Entry:
    """Strictly private: one cached value, with what it takes to tell it is current.

    ``deps`` maps each object whose registered annotation was consulted to its version
    in ``registry`` when the value was built; ``node`` (for values built from an
    inspected node) is that node, current while inspection still returns it.
    """

    __slots__ = ("deps", "node", "registry", "stamp", "value")

    def __init__(
        self,
        value: Any,
        registry: Registry,
        stamp: int,
        deps: dict[Any, tuple[int, ...]] | None = None,
        node: Any = None,
    ) -> None:
        self.value = value
        self.registry = registry
        self.stamp = stamp
        self.deps = deps
        self.node = node

    def is_current(self, node_of: Callable[[], Any] | None = None) -> bool:
        """True while no registration since this was built changed what it depends on."""
        stamp = current_stamp()
        if self.stamp == stamp:
            return True
        if self.deps is not None:
            version = self.registry.version
            if any(version(obj) != seen for obj, seen in self.deps.items()):
                return False
        if node_of is not None and node_of() is not self.node:
            return False
        self.stamp = stamp
        return True


def _anchor(obj: Any, depth: int = 0) -> Any:
    """The user class or function whose lifetime an entry for ``obj`` should share."""
    # Generic aliases first: on Python 3.10 ``isinstance(list[int], type)`` is true.
    origin = typing.get_origin(obj)
    if isinstance(obj, type) and origin is None:
        return None if obj.__module__ in _SYSTEM_MODULES else obj
    if inspect.ismethod(obj):
        return _anchor(obj.__func__, depth)
    if isinstance(obj, functools.partial):
        return obj
    if inspect.isfunction(obj):
        return obj
    if depth > 20:
        return None
    if origin is None:
        return None
    found = _anchor(origin, depth + 1) if isinstance(origin, type) else None
    if found is not None:
        return found
    for arg in typing.get_args(obj):
        if isinstance(arg, enum.Enum):  # Literal[Color.RED]
            arg = type(arg)
        elif not (isinstance(arg, type) or typing.get_origin(arg) is not None):
            continue  # a literal value, Annotated metadata, a forward reference
        found = _anchor(arg, depth + 1)
        if found is not None:
            return found
    return None


def _store(obj: Any, create: bool) -> dict[Hashable, Entry] | None:
    """The dictionary an entry for ``obj`` lives in (None: use the bounded table)."""
    anchor = _anchor(obj)
    if anchor is None:
        return None
    if isinstance(anchor, type):
        found = anchor.__dict__.get(ATTRIBUTE)
        if found is not None or not create:
            return found
        store: dict[Hashable, Entry] = {}
        try:
            # type.__setattr__: a metaclass's own __setattr__ is user code.
            type.__setattr__(anchor, ATTRIBUTE, store)
        except (TypeError, AttributeError):
            return None
        return store
    namespace = getattr(anchor, "__dict__", None)
    if not isinstance(namespace, dict):
        return None
    own: dict[Hashable, Entry] | None = namespace.get(ATTRIBUTE)
    if own is not None or not create:
        return own
    created: dict[Hashable, Entry] = namespace.setdefault(ATTRIBUTE, {})
    return created


def key_of(obj: Any) -> Any:
    """``obj`` as it appears in a cache key: a bound method stands for its function.

    A bound method is a new object on each attribute access and holds its instance; the
    description of ``svc.lookup`` is the same for every ``svc``, so it is cached once on
    the function and holds no instance alive.
    """
    if inspect.ismethod(obj):
        return ("bound method", obj.__func__)
    return obj


def get(obj: Any, key: Hashable) -> Entry | None:
    """The entry stored for ``obj`` under ``key``, or None (also for unhashable keys)."""
    store = _store(obj, create=False)
    try:
        if store is not None:
            return store.get(key)
        return _FALLBACK.get(key)
    except TypeError:
        return None


def put(obj: Any, key: Hashable, entry: Entry) -> Entry:
    """Store ``entry`` for ``obj`` under ``key``; return the entry that is kept."""
    try:
        hash(key)
    except TypeError:
        return entry
    store = _store(obj, create=True)
    if store is not None:
        store[key] = entry
        return entry
    with _FALLBACK_LOCK:
        while len(_FALLBACK) >= _FALLBACK_MAX:
            del _FALLBACK[next(iter(_FALLBACK))]
        _FALLBACK[key] = entry
    return entry


def clear() -> None:
    """Drop the bounded table (entries stored on objects go with their objects)."""
    with _FALLBACK_LOCK:
        _FALLBACK.clear()

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

import contextlib
import enum
import functools
import inspect
import sys
import threading
import types
import typing
import weakref
from collections.abc import Callable, Hashable
from typing import Any

from .annotate import Registry, annotate, current_stamp

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
_FALLBACK: dict[Hashable, Any] = {}
_FALLBACK_LOCK = threading.Lock()


class Entry:
    """Strictly private: one cached value, with what it takes to tell it is current.

    ``deps`` maps each object whose registered annotation was consulted to its version
    in ``registry`` when the value was built; ``node`` (for values built from an
    inspected node) is that node, current while inspection still returns it.

    ``registry`` is the default registry ``annotate`` itself, or None for an entry built
    under another registry, which the entry holds only weakly (``_registry_ref``): a
    registry made per request is not kept alive by what was built for it.
    """

    __slots__ = ("_registry_ref", "deps", "node", "order", "registry", "stamp", "value")

    def __init__(
        self,
        value: Any,
        registry: Registry,
        stamp: int,
        deps: dict[Any, tuple[int, ...]] | None = None,
        node: Any = None,
    ) -> None:
        self.value = value
        if registry is annotate:
            self.registry: Registry | None = registry
            self._registry_ref: Any = None
        else:
            self.registry = None
            self._registry_ref = _token(registry)
        self.stamp = stamp
        self.deps = deps
        self.node = node
        #: Set by ``put``: the type expressions of the key whose ``==`` ignores the order
        #: of their arguments, with that order (``_order_of``); None: no such expression.
        self.order: tuple[tuple[int, Any, tuple[Any, ...]], ...] | None = None

    def is_current(self, node_of: Callable[[], Any] | None = None) -> bool:
        """True while no registration since this was built changed what it depends on."""
        stamp = current_stamp()
        if self.stamp == stamp:
            return True
        if self.deps is not None:
            registry = self.registry or self._registry_ref()
            if registry is None:
                return False
            version = registry.version
            if any(version(obj) != seen for obj, seen in self.deps.items()):
                return False
        if node_of is not None and node_of() is not self.node:
            return False
        self.stamp = stamp
        return True


_HEAPTYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class made by a class statement or type()


def _is_system(cls: type) -> bool:
    """A class that lives as long as the process: a builtin, or one of a system module's.

    By the module name alone, ``dataclasses.make_dataclass`` classes would be system ones
    on Python 3.11 (their ``__module__`` is ``types``), and their entries would go to the
    bounded table and keep them alive; so a class counts as a system module's only when
    the module really holds it under its name.
    """
    if not cls.__flags__ & _HEAPTYPE:
        return True
    if cls.__module__ not in _SYSTEM_MODULES:
        return False
    return _importable(cls)


def _importable(cls: Any) -> bool:
    """Whether ``cls`` is what its module holds under its qualified name."""
    module = sys.modules.get(getattr(cls, "__module__", None) or "")
    if module is None:
        return False
    found: Any = module
    for part in getattr(cls, "__qualname__", "<>").split("."):
        found = getattr(found, part, None)
        if found is None:
            return False
    return found is cls


def _anchor(obj: Any) -> Any:
    """The user class or function whose lifetime an entry for ``obj`` should share.

    For an expression, a class made at run time (one its module does not hold under its
    name, which can be dropped) is preferred over a module's class, and of those the
    last: ``Long | Short`` is stored on a run-time ``Short``, so dropping ``Short`` frees
    the entry (stored on ``Long`` it would keep ``Short`` alive for as long as ``Long``
    lives). An expression of two run-time classes lives as long as the one it is on.
    """
    origin = typing.get_origin(obj)
    # Generic aliases first: on Python 3.10 ``isinstance(list[int], type)`` is true.
    if isinstance(obj, type) and origin is None:
        return None if _is_system(obj) else obj
    if inspect.ismethod(obj):
        return _anchor(obj.__func__)
    if isinstance(obj, functools.partial):
        return obj
    if inspect.isfunction(obj):
        return obj
    if origin is None:
        return None
    found: list[Any] = []
    _anchors_in(obj, found, 0)
    if not found:
        return None
    for candidate in reversed(found):
        if not _importable(candidate):
            return candidate
    return found[0]


def _anchors_in(obj: Any, found: list[Any], depth: int) -> None:
    """The user classes inside the expression ``obj``, in order, into ``found``."""
    if depth > 20:
        return
    origin = typing.get_origin(obj)
    if origin is None:
        if isinstance(obj, type) and not _is_system(obj):
            found.append(obj)
        return
    if isinstance(origin, type) and not _is_system(origin):
        found.append(origin)
    for arg in typing.get_args(obj):
        if isinstance(arg, enum.Enum):  # Literal[Color.RED]
            arg = type(arg)
        elif not (isinstance(arg, type) or typing.get_origin(arg) is not None):
            continue  # a literal value, Annotated metadata, a forward reference
        _anchors_in(arg, found, depth + 1)


# -- entries built under a registry other than ``annotate`` ---------------------------
#
# Their keys name the registry; stored as they are, each entry would keep its registry
# alive for as long as the class, and a registry made per request would pile up on
# every class it described. So such an entry is stored under the key without the
# registry, in a sub-table of the anchor's store named by a weak reference to the
# registry (its token); when the registry is collected, the token's callback removes
# those sub-tables from every anchor it wrote to (held weakly too).

_ANCHORS: dict[Any, weakref.WeakSet[Any]] = {}
_ANCHORS_LOCK = threading.Lock()


def _token(registry: Registry) -> Any:
    token = registry.cache_token
    if token is None:
        token = weakref.ref(registry, _forget)
        hash(token)  # a weak reference keeps the hash it had while the registry lived
        with _ANCHORS_LOCK:
            if registry.cache_token is None:
                registry.cache_token = token
                _ANCHORS[token] = weakref.WeakSet()
            token = registry.cache_token
    return token


def _forget(token: Any) -> None:
    """The registry of ``token`` was collected: drop what was built for it.

    Takes no lock: a weak reference's callback may run in any thread, at any allocation
    (a garbage collection), even inside ``put`` holding a lock; each step is one
    dictionary operation, atomic on its own.
    """
    anchors = _ANCHORS.pop(token, None)
    for anchor in list(anchors or ()):
        store = _own_store(anchor, create=False)
        if store is not None:
            store.pop(token, None)
    _FALLBACK.pop(token, None)


def _split(key: Hashable) -> tuple[Any, Hashable]:
    """(the token of a registry other than ``annotate`` in ``key``, or None; the rest)."""
    if type(key) is tuple:
        for i, part in enumerate(key):
            if type(part) is Registry and part is not annotate:
                return _token(part), key[:i] + key[i + 1 :]
    return None, key


def _store(obj: Any, create: bool) -> tuple[Any, dict[Hashable, Any] | None]:
    """(the anchor, the dictionary an entry for ``obj`` lives in; None: the bounded table)."""
    anchor = _anchor(obj)
    if anchor is None:
        return None, None
    return anchor, _own_store(anchor, create)


def _own_store(anchor: Any, create: bool) -> dict[Hashable, Any] | None:
    if isinstance(anchor, type):
        found = anchor.__dict__.get(ATTRIBUTE)
        if found is not None or not create:
            return found
        store: dict[Hashable, Any] = {}
        try:
            # type.__setattr__: a metaclass's own __setattr__ is user code.
            type.__setattr__(anchor, ATTRIBUTE, store)
        except (TypeError, AttributeError):
            return None
        return store
    namespace = getattr(anchor, "__dict__", None)
    if not isinstance(namespace, dict):
        return None
    own: dict[Hashable, Any] | None = namespace.get(ATTRIBUTE)
    if own is not None or not create:
        return own
    created: dict[Hashable, Any] = namespace.setdefault(ATTRIBUTE, {})
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
    token, key = _split(key)
    _, store = _store(obj, create=False)
    if store is None:
        store = _FALLBACK
    try:
        if token is not None:
            store = store.get(token)
            if store is None:
                return None
        found: Entry | None = store.get(key)
    except TypeError:
        return None
    if found is not None and found.order is not None and not _in_order(key, found.order):
        return None  # an equal expression with its arguments in another order
    return found


def fast_get(obj: Any, key: tuple[Any, ...], registry: Registry) -> Entry | None:
    """``get(obj, key + (registry,))`` for the hot path of a class or function whose
    entries live on itself: two dictionary look-ups, no anchor search (None on a miss)."""
    try:
        store = obj.__dict__[ATTRIBUTE]
        if registry is annotate:
            found: Entry | None = store.get((*key, registry))
        else:  # another registry's entries: in its own table, keyed without it
            table = store.get(registry.cache_token)
            found = table.get(key) if table is not None else None
    except (KeyError, AttributeError, TypeError):
        return None
    if found is not None and found.order is not None:
        return None  # (get() tells which order it was built for)
    return found


def lives_on(obj: Any, key: Hashable, entry: Entry) -> bool:
    """Whether ``entry`` is the one stored in ``obj``'s own table under ``key`` (not in
    the bounded table for anchorless objects, nor on another anchor)."""
    token, key = _split(key)
    own = _own_store(obj, create=False) if isinstance(obj, type) else None
    if own is None:
        return False
    if token is not None:
        own = own.get(token)
        if own is None:
            return False
    try:
        return own.get(key) is entry
    except TypeError:
        return False


def put(obj: Any, key: Hashable, entry: Entry) -> Entry:
    """Store ``entry`` for ``obj`` under ``key``; return the entry that is kept."""
    try:
        hash(key)
    except TypeError:
        return entry
    token, key = _split(key)
    entry.order = _order_of(key)
    anchor, store = _store(obj, create=True)
    if store is None:
        with _FALLBACK_LOCK:
            while len(_FALLBACK) >= _FALLBACK_MAX:
                del _FALLBACK[next(iter(_FALLBACK))]
            if token is None:
                _FALLBACK[key] = entry
            else:
                # Bounded too: a registry's own table holds at most _FALLBACK_MAX entries.
                own = _FALLBACK.setdefault(token, {})
                while len(own) >= _FALLBACK_MAX:
                    del own[next(iter(own))]
                own[key] = entry
        return entry
    if token is None:
        store[key] = entry
        return entry
    own = store.get(token)
    if own is None:
        own = store.setdefault(token, {})
        with _ANCHORS_LOCK:
            anchors = _ANCHORS.get(token)
            if anchors is not None:
                # An unhashable anchor: its entries stay until the anchor goes.
                with contextlib.suppress(TypeError):
                    anchors.add(anchor)
    own[key] = entry
    return entry


# -- type expressions that compare equal in another order -----------------------------
#
# Python compares ``Literal`` and ``Union`` by the set of their arguments:
# ``Literal["a", "b"] == Literal["b", "a"]``, ``int | str == str | int`` (and
# ``Literal[0, False] == Literal[False, 0]``, since ``0 == False``), with equal hashes. A
# dictionary keyed by such an expression finds the entry built for the other order, so
# the schema of the second would list its enum or anyOf in the first's order, and which
# one a process described first would decide it. An entry whose key holds one records
# the order it was built for, and a lookup with the arguments in another order misses
# (the new entry then replaces it). Keys without one pay nothing on lookup.

_UNORDERED = frozenset({typing.Literal, typing.Union, types.UnionType})
#: Arguments that are no type expression, told apart by their type alone.
_PLAIN_ARGS = frozenset({str, int, bool, float, bytes, type(None), type})
#: Key parts that are no type expression, told apart by their type alone.
_PLAIN_PARTS = frozenset({str, int, bool, type(None), type, Registry})


def _order_of(key: Hashable) -> tuple[tuple[int, Any, tuple[Any, ...]], ...] | None:
    """Each part of ``key`` that is a type expression holding a ``Literal`` or a
    ``Union``: (its place, the expression, its arguments in order); None if none is."""
    parts = key if type(key) is tuple else (key,)
    found = [
        (i, part, _ordered(part, 0))
        for i, part in enumerate(parts)
        if type(part) not in _PLAIN_PARTS and _holds_unordered(part, 0)
    ]
    return tuple(found) if found else None


def _in_order(key: Hashable, order: tuple[tuple[int, Any, tuple[Any, ...]], ...]) -> bool:
    """Whether the expressions of ``key`` have their arguments in the order recorded
    (at once when they are the very objects it was built for)."""
    parts = key if type(key) is tuple else (key,)
    for i, built_for, arguments in order:
        part = parts[i]
        if part is built_for:
            continue
        if len(arguments) == 2:  # no nested expression, no metadata: _ordered inline
            # (a union written afresh on each call meets this on every lookup)
            args = getattr(part, "__args__", ())
            if args != arguments[0] or tuple(map(type, args)) != arguments[1]:
                return False
        elif _ordered(part, 0) != arguments:
            return False
    return True


def _holds_unordered(expression: Any, depth: int) -> bool:
    origin = typing.get_origin(expression)
    if origin is None or depth > 20:
        return False
    if origin in _UNORDERED:
        return True
    return any(
        type(arg) not in _PLAIN_ARGS and _holds_unordered(arg, depth + 1)
        for arg in getattr(expression, "__args__", ())
    )


def _ordered(expression: Any, depth: int) -> tuple[Any, ...]:
    """A type expression's arguments in order with their types (``Literal[0, False]``
    is not ``Literal[False, 0]``), the same of each nested expression, and any
    ``Annotated`` metadata with its types."""
    args = getattr(expression, "__args__", ())
    out: list[Any] = [args, tuple(map(type, args))]
    if depth < 20:
        for arg in args:
            if type(arg) not in _PLAIN_ARGS and typing.get_origin(arg) is not None:
                out.append(_ordered(arg, depth + 1))
    meta = getattr(expression, "__metadata__", None)
    if meta is not None:
        out += (meta, tuple(map(type, meta)))
    return tuple(out)


def clear() -> None:
    """Drop the bounded table (entries stored on objects go with their objects)."""
    with _FALLBACK_LOCK:
        _FALLBACK.clear()

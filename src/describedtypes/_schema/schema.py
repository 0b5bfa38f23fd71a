"""The schema builder: renders inspected nodes as JSON Schema through an adapter.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any, Literal, cast

import orjson

from .._types import annotate as _annotate
from .._types import cache as _cache
from .._types import inspector as ni
from .._types.annotate import Registry, annotate, check_registry, current_stamp
from .._types.cache import ATTRIBUTE as _CACHE
from ..errors import SchemaError
from .adapters import STANDARD, Adapter, adapter_for, check, check_adapter
from .profiles import Profile
from .refs import MAX_INLINE_COPIES, inline_copies, smallest, too_large
from .render import Builder, Json, Rewrite

__all__ = ["Rewrite", "build", "explain", "schema"]


class Built:
    """Strictly private: a cached build: the read-only schema, its rewrites, its JSON."""

    __slots__ = ("_json", "frozen", "rewrites")

    def __init__(self, frozen: Any, rewrites: tuple[Rewrite, ...]) -> None:
        self.frozen = frozen
        self.rewrites = rewrites
        self._json: bytes | None = None

    @property
    def json(self) -> bytes:
        if self._json is None:
            self._json = orjson.dumps(self.frozen)
        return self._json


#: What ``use_references`` takes: every nested class inline, all under ``$defs``, or per
#: class whichever gives the smaller body.
References = bool | Literal["auto"]


def references(value: Any) -> References:
    """``value`` checked as a ``use_references`` argument (``True``, ``False`` or ``"auto"``)."""
    if value is True or value is False:
        return bool(value)
    if value.__class__ is str and value == "auto":
        return "auto"
    msg = (
        f"use_references must be True, False or 'auto', got {value!r}; True puts every "
        "nested class under $defs, False writes each one out where it is used, and 'auto' "
        "picks per class whichever gives the smaller schema"
    )
    raise TypeError(msg)


def build(
    obj: Any, adapter: Adapter, use_references: References, registry: Registry = annotate
) -> tuple[Json, list[Rewrite], ni.Node]:
    """Build the wrapped schema of ``obj`` as plain dicts, with the rewrites made."""
    node = ni.type_info(obj, registry)
    wrapped, rewrites = build_definition(node, obj, adapter, use_references)
    return wrapped, rewrites, node


def build_definition(
    node: ni.Node,
    obj: Any,
    adapter: Adapter,
    use_references: References = False,
    *,
    name: str | None = None,
    description: str | None = None,
) -> tuple[Json, list[Rewrite]]:
    """The wrapped definition of ``node`` for ``adapter``, checked once by its rules.

    ``name`` and ``description`` replace what the node says (a tool registered under
    another name); the one path for ``schema()`` and for tool definitions.
    """
    if use_references == "auto":
        def build_with(to_defs: frozenset[ni.ObjectNode]) -> tuple[Json, list[Rewrite]]:
            builder = Builder(node, adapter, False, obj, to_defs=to_defs, wrap_refs=True)
            return _checked(builder, node, obj, adapter, name, description)

        try:
            return smallest(node, build_with)
        except RecursionError:
            raise ni.too_deep_error(obj, "build the schema of") from None
    if use_references is False:
        copies, most = inline_copies(node)
        if copies > MAX_INLINE_COPIES:
            raise too_large(copies, most, obj)
    return _checked(Builder(node, adapter, use_references is True, obj), node, obj, adapter,
                    name, description)


def _checked(
    builder: Builder,
    node: ni.Node,
    obj: Any,
    adapter: Adapter,
    name: str | None,
    description: str | None,
) -> tuple[Json, list[Rewrite]]:
    """``builder``'s body wrapped for ``adapter`` and checked by its rules."""
    try:
        body = builder.body()
    except RecursionError:
        raise ni.too_deep_error(obj, "build the schema of") from None
    root = ni.object_of(node)
    own_name = root.name if root is not None else _fallback_name(obj)
    own_description = root.description if root is not None else node.description
    if description is not None and "description" in body:
        body["description"] = description
    final_name = own_name if name is None else name
    wrapped = adapter.wrap(
        final_name, own_description if description is None else description, body,
        adapter.strict,
    )
    # The same rules check() applies: never hand out a schema the provider rejects.
    try:
        problems = check(wrapped, adapter)
    except RecursionError:
        raise ni.too_deep_error(obj, "check the schema of") from None
    if problems:
        raise rejection(adapter, problems, final_name, obj)
    return wrapped, builder.rewrites


def rejection(adapter: Adapter, problems: list[Any], name: str, obj: Any) -> SchemaError:
    """The error for a schema or request ``adapter``'s provider would reject."""
    lines = [str(p) for p in problems]
    text = lines[0] if len(lines) == 1 else "\n" + "\n".join(f"- {line}" for line in lines)
    return SchemaError(f"{adapter.name} would reject this schema: {text}", path=name, type_=obj)


def _fallback_name(obj: Any) -> str:
    from .._types.annotate import object_name

    return object_name(obj)


def _frozen_copy_error(kind: str) -> TypeError:
    return TypeError(
        f"this schema {kind} is cached and shared by every caller, so it is read-only; "
        "copy.deepcopy(schema(...)) gives a mutable copy (plain dicts and lists), and "
        "schema(..., dict_type=dict) builds a fresh one of plain dicts"
    )


class FrozenDict(dict):  # type: ignore[type-arg]
    """A read-only ``dict``: what ``schema()`` returns, shared by every call.

    It is a real ``dict`` subclass, so ``json``, orjson, httpx and the provider SDKs take
    it as it is; changing it raises ``TypeError``. ``copy.deepcopy`` (and ``copy.copy``,
    ``pickle``) give plain, mutable ``dict`` and ``list`` objects.

    .. versionadded:: 0.2.0
    """

    __slots__ = ()

    def _readonly(self, *args: Any, **kwargs: Any) -> Any:
        raise _frozen_copy_error("object")

    __setitem__ = __delitem__ = _readonly
    clear = pop = popitem = setdefault = update = _readonly
    __ior__ = _readonly

    def __copy__(self) -> dict[Any, Any]:
        return dict(self)

    def __deepcopy__(self, memo: Any) -> dict[Any, Any]:
        thawed: dict[Any, Any] = thaw(self, dict)
        return thawed

    def __reduce__(self) -> Any:
        return (dict, (thaw(self, dict),))


class FrozenList(list):  # type: ignore[type-arg]
    """A read-only ``list``: the arrays inside a schema ``schema()`` returns.

    .. versionadded:: 0.2.0
    """

    __slots__ = ()

    def _readonly(self, *args: Any, **kwargs: Any) -> Any:
        raise _frozen_copy_error("array")

    __setitem__ = __delitem__ = __iadd__ = __imul__ = _readonly
    append = extend = insert = pop = remove = clear = sort = reverse = _readonly

    def __copy__(self) -> list[Any]:
        return list(self)

    def __deepcopy__(self, memo: Any) -> list[Any]:
        thawed: list[Any] = thaw(self, dict)
        return thawed

    def __reduce__(self) -> Any:
        return (list, (thaw(self, dict),))


def freeze(value: Any) -> Any:
    """A deeply read-only copy of JSON data (dicts and lists; everything else is shared)."""
    if isinstance(value, dict):
        return _frozen_dict(value)
    if isinstance(value, list):
        return _frozen_list(value)
    return value


# dict(...) and list(...) fill a FrozenDict or FrozenList without calling the blocked
# __setitem__/append: copying a built schema costs one C-level copy per container.
def _frozen_dict(value: dict[Any, Any]) -> FrozenDict:
    out = {}
    for k, v in value.items():
        if v.__class__ not in _ATOMS:  # strings and numbers, the most values, at once
            if isinstance(v, dict):
                v = _frozen_dict(v)
            elif isinstance(v, list):
                v = _frozen_list(v)
        out[k] = v
    return FrozenDict(out)


def _frozen_list(value: list[Any]) -> FrozenList:
    return FrozenList([
        v if v.__class__ in _ATOMS
        else _frozen_dict(v) if isinstance(v, dict)
        else _frozen_list(v) if isinstance(v, list)
        else v
        for v in value
    ])


_ATOMS = frozenset({str, int, float, bool, type(None)})


def thaw(value: Any, dict_type: Callable[[], Any]) -> Any:
    if isinstance(value, dict):
        out = dict_type()
        for k, v in value.items():
            out[k] = thaw(v, dict_type)
        return out
    if isinstance(value, list):
        return [thaw(v, dict_type) for v in value]
    return value


def cached_build(
    obj: Any, adapter: Adapter, use_references: References, registry: Registry = annotate
) -> Built:
    """The cached build of ``obj`` for ``adapter``, built now if there is none current."""
    key = ("schema", _cache.key_of(obj), adapter, use_references, registry)
    entry = _cache.get(obj, key)
    if entry is not None and entry.is_current(lambda: ni.type_info(obj, registry)):
        built: Built = entry.value
        return built
    stamp = current_stamp()
    body, rewrites, node = build(obj, adapter, use_references, registry)
    built = Built(freeze(body), tuple(rewrites))
    if rewrites and _log.isEnabledFor(logging.DEBUG):
        # Once per build (not per call); DEBUG: the details quote the user's annotations
        # (a pattern, a bound, enum values).
        _log.debug(
            "%s: %d rewrite(s) of the schema of %s: %s",
            adapter.name,
            len(rewrites),
            _described(obj),
            "; ".join(f"{r.pointer} {r.action} {r.detail}" for r in rewrites),
        )
    _cache.put(obj, key, _cache.Entry(built, registry, stamp, node=node))
    return built


_log = logging.getLogger("describedtypes")


def _described(obj: Any) -> str:
    try:
        name = getattr(obj, "__qualname__", None)
        return name if isinstance(name, str) else repr(obj)[:200]
    except Exception:  # a user's __repr__ that raises
        return type(obj).__name__


def _check_arguments(adapter: Any, registry: Any, label: str = "llm_adapter") -> None:
    check_adapter(adapter, label)
    check_registry(registry)


def schema(
    obj: Any,
    llm_adapter: Adapter = STANDARD,
    *,
    use_references: bool | Literal["auto"] = False,
    dict_type: Callable[[], Any] | None = None,
    report: list[Rewrite] | None = None,
    registry: Registry = annotate,
) -> Mapping[str, Any]:
    """The JSON Schema of a type or function, shaped for ``llm_adapter``.

    The result is cached per object, adapter and registry. Without ``dict_type`` every
    call returns the same read-only ``FrozenDict`` (a ``dict`` subclass that ``json``,
    orjson and the provider SDKs accept as it is), so a repeated call costs well under a
    microsecond; ``copy.deepcopy(...)`` of it is a mutable copy made of plain dicts and
    lists. Any ``dict_type`` given, ``dict`` included, builds a fresh, mutable tree of
    that mapping type on each call.

    Args:
        obj: An attrs class, a dataclass, any supported type expression, or a function.
        llm_adapter: Where the schema goes: ``STANDARD`` (the plain body), ``OPENAI``
            (a structured-output ``json_schema`` object), ``OPENAI_TOOLS`` (a Responses
            API function tool), or any other adapter.
        use_references: ``False`` (the default) writes every nested class out where it
            is used; ``True`` puts every nested class under ``$defs`` and refers to it
            with ``$ref``; ``"auto"`` chooses per class whichever gives the smaller
            compact JSON, dropping nothing the inline schema says (where the adapter's
            ``ref_any_of`` allows, a use's own description sits on a one-option
            ``anyOf`` around the ``$ref``). Recursive classes go under ``$defs`` either
            way.
        dict_type: The mapping type of every object in a fresh, mutable output (``dict``
            for plain dicts); None (the default): the shared read-only schema.
        report: A list to which every change the adapter made to fit its provider
            (a keyword moved into a description, ...) is appended as a ``Rewrite``.
        registry: Where registered annotations are looked up.

    Returns:
        The schema; keys in reading order (``type``, ``properties``, ``required``, ...).

    Raises:
        SchemaError: ``obj`` cannot be described under ``llm_adapter``; the message
            names the path, the reason and the fix.
        TypeError: ``use_references`` is not ``True``, ``False`` or ``"auto"``.

    .. versionadded:: 0.1.0
    .. versionchanged:: 0.2.0
       Returns a shared read-only ``FrozenDict`` for ``dict_type=dict``; ``registry=``.
    .. versionchanged:: 0.3.0
       ``use_references="auto"``; any other non-bool value is a ``TypeError``.
       The shared ``FrozenDict`` is the default (no ``dict_type``); ``dict_type=dict``
       gives a fresh plain ``dict``, as the read-only error says.
    """
    built = _built(obj, llm_adapter, use_references, registry)
    if report is not None:
        report.extend(built.rewrites)
    if dict_type is None:
        shared: Mapping[str, Any] = built.frozen
        return shared
    if not callable(cast(Any, dict_type)):
        msg = f"dict_type must be a mapping type such as dict, got {dict_type!r}"
        raise SchemaError(msg)
    thawed: Mapping[str, Any] = thaw(built.frozen, dict_type)
    return thawed


def _built(obj: Any, adapter: Any, use_references: Any, registry: Any) -> Built:
    # Checked first: 1 == True (and hashes alike), so an unchecked 1 would find True's entry.
    if use_references is not False and use_references is not True:
        use_references = references(use_references)
    # The common case, spelled out (a call of _cache.fast_get and a second key tuple cost
    # a third of a cached call): a class or function whose schema is cached in its own
    # namespace under the default registry, and no registration since.
    try:
        if registry is annotate:
            entry = obj.__dict__[_CACHE][("schema", obj, adapter, use_references, registry)]
            if entry.stamp == _annotate.stamp:
                built: Built = entry.value
                return built
    except (KeyError, AttributeError, TypeError):
        pass
    if registry is not annotate:  # another registry's entries: in a table of their own
        entry = _cache.fast_get(obj, ("schema", obj, adapter, use_references), registry)
        if entry is not None and entry.stamp == _annotate.stamp:
            return cast(Built, entry.value)
    _check_arguments(adapter, registry)
    return cached_build(obj, adapter, use_references, registry)


def schema_json(
    obj: Any,
    llm_adapter: Adapter = STANDARD,
    *,
    use_references: bool | Literal["auto"] = False,
    registry: Registry = annotate,
) -> bytes:
    """The schema ``schema()`` returns, as compact UTF-8 JSON bytes (cached, no copy).

    For code that sends bytes (an HTTP body, a file), this skips serialising the same
    schema again on every request.

    Raises:
        SchemaError: as ``schema()``.

    .. versionadded:: 0.2.0
    """
    return _built(obj, llm_adapter, use_references, registry).json


def explain(
    obj: Any,
    llm_adapter: Adapter | Profile = STANDARD,
    *,
    use_references: bool | Literal["auto"] = False,
    registry: Registry = annotate,
) -> list[Rewrite]:
    """Every change ``llm_adapter`` makes to fit ``obj``'s schema to its provider.

    A bound moved into the description, a ``$ref`` inlined, a default or keyword dropped,
    a dict sent as key/value entries: each is a ``Rewrite`` with the JSON pointer (into the
    schema body) where it happened. ``schema(..., report=[...])`` collects the same list.

    Args:
        obj: The type or function, as passed to ``schema()``.
        llm_adapter: The adapter it is built for, or a ``Profile``: the rewrites are then
            those made for that endpoint (``adapter_for(profile)``).
        use_references: As for ``schema()``.
        registry: As for ``schema()``.

    Returns:
        The rewrites in the order they were made; empty when nothing was changed.

    Raises:
        SchemaError: ``obj`` cannot be described under ``llm_adapter``.

    .. versionadded:: 0.1.0
    .. versionchanged:: 0.2.0
       The adapter parameter is named ``llm_adapter``, as in ``schema()``.
    .. versionchanged:: 0.4.0
       ``llm_adapter`` may be a ``Profile``.
    """
    if isinstance(llm_adapter, Profile):
        llm_adapter = adapter_for(llm_adapter)
    return list(_built(obj, llm_adapter, use_references, registry).rewrites)

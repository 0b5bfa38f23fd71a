"""Encoding instances as JSON, following the same inspected nodes the decoder reads.

Keys are ``Field.key``, enums go by value, date/time values as ISO 8601 text, sets as
lists, dict keys as the text their key type's values are written in, and a nullable
field holding ``None`` is left out when leaving it out decodes back to ``None``.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Callable, Mapping
from typing import Any

import attrs
import orjson

from .._types import cache as _cache
from .._types import inspector as ni
from .._types import kinds as mt
from .._types import pydantic_models as pyd
from .._types.annotate import annotate, current_stamp
from .._types.nodes import (
    closed_keys_as_object,
    empty_dict_is_ambiguous,
    hook_type,
    scalar_of,
)
from .._types.scalars import scalar_of_value
from .problems import ABSENT, brief, quote
from .union_options import (
    deep_matcher,
    is_exact_class,
    matcher,
    not_a_tuple,
    overlapping,
    read_back_check,
    shared_containers,
)
from .values import constructor_of

__all__ = ["encode"]

Unstructure = Callable[[Any], Any]



class _EncodeCompiler:
    """Strictly private: turns a node tree into functions producing JSON values."""

    def __init__(
        self,
        *,
        entries: bool = False,
        keep_null: bool = False,
        hooks: Callable[[Any], Unstructure | None] | None = None,
    ) -> None:
        self._objects: dict[ni.ObjectNode, Unstructure] = {}
        #: Strict adapters: dicts as ``[{"key", "value"}]`` arrays, every field present.
        self.entries = entries
        self.keep_null = keep_null
        #: A cattrs converter's own unstructure hooks (``make_converter``), by type.
        self.hooks = hooks

    def compile(self, node: ni.Node) -> Unstructure:
        if isinstance(node, ni.UseNode):
            node = node.target
        if self.hooks is not None:
            hooked = self._hooked(node)
            if hooked is not None:
                return hooked
        if isinstance(node, ni.ObjectNode):
            return self.object(node)
        if isinstance(node, ni.ScalarNode):
            row = scalar_of(node)
            return _plain if row is None or row.write is None else row.write
        if isinstance(node, (ni.NullNode, ni.AnyNode)):
            return _encode_any
        if isinstance(node, (ni.EnumNode, ni.LiteralNode)):
            return _enum_value
        if isinstance(node, ni.ArrayNode):
            if issubclass(node.container, enum.Flag):
                return mt.flag_names
            item = self.compile(node.items)
            if node.container in (set, frozenset):
                return lambda v: _sorted_if_possible([item(x) for x in v])
            return lambda v: [item(x) for x in v]
        if isinstance(node, ni.TupleNode):
            items = [self.compile(i) for i in node.items]
            return lambda v: [f(x) for f, x in zip(items, v, strict=False)]
        if isinstance(node, ni.DictNode):
            value = self.compile(node.values)
            key = self.key(node.keys)
            if self.entries and closed_keys_as_object(node):
                # Strict adapters: an object with every key, null for a key not in the dict.
                every = dict.fromkeys(
                    node.keys.values if isinstance(node.keys, (ni.EnumNode, ni.LiteralNode))
                    else node.keys.enum or ()
                )

                def closed(v: Any) -> Any:
                    out = {key(k): value(x) for k, x in v.items()}
                    if len(out) != len(v):
                        raise _same_text(v, key)
                    return {k: out.get(k) for k in every} | {
                        k: x for k, x in out.items() if k not in every
                    }

                return closed
            if key is _str_key:  # distinct str keys have distinct text
                if self.entries:
                    return lambda v: [{"key": key(k), "value": value(x)} for k, x in v.items()]
                return lambda v: {key(k): value(x) for k, x in v.items()}
            entries = self.entries
            # Keys from an Enum or Literal are the properties of a closed object in the
            # object form: written in the schema's order, as a model held to it writes them.
            order = None
            if not entries and isinstance(node.keys, (ni.EnumNode, ni.LiteralNode)):
                order = {text: i for i, text in enumerate(node.keys.values)}

            def mapping(v: Any) -> Any:
                out = {key(k): value(x) for k, x in v.items()}
                if len(out) != len(v):
                    raise _same_text(v, key)
                if entries:
                    return [{"key": k, "value": x} for k, x in out.items()]
                if order is not None and len(out) > 1:
                    last = len(order)
                    return {k: out[k] for k in sorted(out, key=lambda k: order.get(k, last))}
                return out

            return mapping
        if isinstance(node, ni.UnionNode):
            return self.union(node)
        msg = f"unknown node {node!r}"
        raise AssertionError(msg)

    def key(self, node: ni.Node) -> Unstructure:
        """The JSON text of a dict key: the string ``compile(node)`` writes for it as a value.

        So a key is written in the form its decoder reads (a Decimal's digits, RFC 3339
        text, a UUID's canonical text, an Enum's value), under both dict shapes.
        """
        if (
            isinstance(node, ni.ScalarNode)
            and node.python_type is str
            and (self.hooks is None or self.hooks(str) is None)
        ):
            return _str_key
        text = self.compile(node)
        return lambda k: _key_text(text(k), k)

    def _hooked(self, node: ni.Node) -> Unstructure | None:
        assert self.hooks is not None
        if isinstance(node, ni.ObjectNode) and node in self._objects:
            return None  # being compiled (or done): object() returns it
        tp = hook_type(node)
        return None if tp is None else self.hooks(tp)

    def union(self, node: ni.UnionNode) -> Unstructure:
        """The option that holds the value writes it.

        Which option holds a value is decided by its contents where options share a
        container (``list[UUID] | list[int]``: the items; a TypedDict: its keys), and an
        option of the value's own class (a NamedTuple, a dataclass) before a structural
        one. Where two options can read the same JSON (``list[Decimal] | list[str]``:
        both read ``["1.5"]``), the written value is read back as ``decode`` would, and a
        value that would come back different is written by the next option that holds
        it, or refused (never written to decode as something else).
        """
        deep = shared_containers(node.options)
        memo: dict[int, Callable[[Any], bool]] = {}
        ordered = sorted(node.options, key=lambda o: not is_exact_class(o))
        # With a fixed-length tuple option, a tuple is that option's, not a list's.
        fixed = any(isinstance(o, ni.TupleNode) for o in node.options)
        # The entries form writes an empty dict as [], which an array option of the
        # union reads as its own: the schema gives the empty dict the form {} there.
        empty_forms = self.entries and empty_dict_is_ambiguous(node)
        options = []
        for o in ordered:
            matches = deep_matcher(o, memo) if deep else matcher(o)
            if fixed and isinstance(o, ni.ArrayNode):
                matches = not_a_tuple(matches)
            un = self.compile(o)
            target = o.target if isinstance(o, ni.UseNode) else o
            if (
                empty_forms
                and isinstance(target, ni.DictNode)
                and not closed_keys_as_object(target)
            ):
                un = _empty_as_object(un)
            options.append((o, matches, un))
        check = None
        if not self.entries and self.hooks is None and overlapping(node):
            check = read_back_check(node, lenient=not fixed)

        def fn(v: Any) -> Any:
            written: list[Any] = []
            for option, matches, un in options:
                if matches(v):
                    out = un(v)
                    if check is None or check(out, v, option):
                        return out
                    written.append(out)
            if written:
                msg = (
                    f"cannot encode {brief(v)}: it would be written as {brief(written[0])}, "
                    "which decodes as another of the union's options (their JSON forms "
                    "overlap); put the option it belongs to first in the union, or give the "
                    "options distinct forms"
                )
                raise TypeError(msg)
            msg = f"cannot encode {brief(v)}: it is none of the types the field allows"
            raise TypeError(msg)

        return fn

    def object(self, node: ni.ObjectNode) -> Unstructure:
        found = self._objects.get(node)
        if found is not None:
            return found
        plan: list[tuple[str, str, bool, Unstructure]] = []
        cls = constructor_of(node.python_type)
        typed_dict = mt.is_typeddict(cls)
        fn = (self._typeddict(plan, self.keep_null) if typed_dict
              else self._instance(plan, cls, node))
        self._objects[node] = fn
        for f in node.fields:
            # Leaving a None out is only right when reading it back gives None again.
            omit = not self.keep_null and f.nullable and (not f.has_default or (
                f.default_factory is None and f.default is None))
            plan.append((f.name, f.key, omit, self.compile(f.node)))
        return fn

    @staticmethod
    def _typeddict(plan: list[tuple[str, str, bool, Unstructure]], keep_null: bool) -> Unstructure:
        def fn(obj: Any) -> Any:
            out: dict[str, Any] = {}
            for name, key, omit_none, un in plan:
                value = obj.get(name, ABSENT)
                if value is ABSENT and keep_null:
                    # Strict bodies require every key, and say "left out" with null.
                    out[key] = None
                    continue
                if value is ABSENT or (value is None and omit_none):
                    continue  # a key left out decodes back to a key left out
                out[key] = un(value)
            return out

        return fn

    @staticmethod
    def _instance(
        plan: list[tuple[str, str, bool, Unstructure]], cls: Any, node: ni.ObjectNode
    ) -> Unstructure:
        # A dataclass InitVar is passed to __init__ and not kept: it is written from an
        # attribute of the same name the instance itself keeps (``self.x = x`` in
        # __post_init__), and is an error otherwise (its value is gone; writing the
        # class default instead would decode back to a different instance).
        own = getattr(cls, "__dataclass_fields__", {})
        initvars = {
            name
            for name, f in own.items()
            if f._field_type is dataclasses._FIELD_INITVAR  # type: ignore[attr-defined]
        }

        def fn(obj: Any) -> Any:
            out: dict[str, Any] = {}
            for name, key, omit_none, un in plan:
                if name in initvars:
                    value = getattr(obj, "__dict__", {}).get(name, ABSENT)
                    if value is ABSENT:
                        msg = (
                            f"cannot encode {type(obj).__qualname__}: the InitVar {name!r} is "
                            "passed to __init__ and not kept on the instance; keep it "
                            f"(self.{name} = {name} in __post_init__) so it can be written"
                        )
                        raise TypeError(msg)
                else:
                    value = getattr(obj, name)
                if value is None and omit_none:
                    continue
                out[key] = un(value)
            return out

        return fn


def _empty_as_object(un: Unstructure) -> Unstructure:
    def fn(v: Any) -> Any:
        return {} if not v else un(v)

    return fn


def _plain(v: Any) -> Any:
    return v


def _str_key(k: Any) -> str:
    if k.__class__ is str:
        return k
    return _key_text(k, k)


def _key_text(text: Any, key: Any) -> str:
    """``text`` as a plain ``str`` (orjson writes no str subclass as a key), or why not."""
    if text.__class__ is str:
        return text
    if isinstance(text, str):
        return str.__str__(text)  # the characters, whatever the subclass's __str__ says
    msg = (
        f"cannot encode the dict key {_shown(key)}: its JSON form is {brief(text)}, not a "
        "string, and JSON object keys are strings; keep keys of the dict's declared key type"
    )
    raise TypeError(msg)


def _same_text(v: Mapping[Any, Any], key: Unstructure) -> ValueError:
    seen: dict[str, Any] = {}
    for k in v:
        text = key(k)
        if text in seen:
            return ValueError(
                f"cannot encode the dict keys {_shown(seen[text])} and {_shown(k)}: both are "
                f"written {quote(text)}, and a JSON object holds one value per key; keep "
                "one of them"
            )
        seen[text] = k
    return ValueError("cannot encode the dict: two keys have the same JSON text")


def _shown(key: Any) -> str:
    if isinstance(key, enum.Enum):
        return f"{type(key).__qualname__}.{key.name}"
    return brief(key)


def _enum_value(v: Any) -> Any:
    # ``_value_`` is what the ``value`` property reads, without the property's call.
    return v._value_ if isinstance(v, enum.Enum) else v


def _sorted_if_possible(items: list[Any]) -> list[Any]:
    try:
        return sorted(items)
    except TypeError:
        return items


def _encode_any(v: Any) -> Any:
    """A JSON value for a value of unknown type (``Any`` fields, type parameters)."""
    if isinstance(v, enum.Flag):
        return mt.flag_names(v)
    if isinstance(v, enum.Enum):
        return v.value
    if v is None:
        return v
    row = scalar_of_value(v)
    if row is not None:
        return v if row.write is None else row.write(v)
    if (
        attrs.has(type(v))
        or (dataclasses.is_dataclass(v) and not isinstance(v, type))
        or pyd.is_model_instance(v)
    ):
        return _encoder_for(_runtime_type(v))(v)
    if mt.is_namedtuple(type(v)):
        return _encoder_for(type(v))(v)
    if isinstance(v, Mapping):
        out = {_any_key(k): _encode_any(x) for k, x in v.items()}
        if len(out) != len(v):
            raise _same_text(v, _any_key)
        return out
    if isinstance(v, (set, frozenset)):
        return _sorted_if_possible([_encode_any(x) for x in v])
    if isinstance(v, (list, tuple)):
        return [_encode_any(x) for x in v]
    msg = f"cannot encode a {type(v).__name__} as JSON"
    raise TypeError(msg)


def _any_key(k: Any) -> str:
    """A key of a dict of unknown type, written as its value would be (when that is text)."""
    if k.__class__ is str:
        return k
    return _key_text(_encode_any(k), k)


def _runtime_type(obj: Any) -> Any:
    """The type to encode ``obj`` as: its parametrized generic, or ``Any`` per parameter."""
    orig = getattr(obj, "__orig_class__", None)
    if orig is not None:
        return orig
    cls = type(obj)
    params = getattr(cls, "__parameters__", ())
    if params:
        return cls[tuple(Any for _ in params)]
    return cls


def _encoder_for(tp: Any) -> Unstructure:
    key = ("encoder", tp)
    entry = _cache.get(tp, key)
    if entry is not None and entry.is_current(lambda: ni.type_info(tp)):
        found: Unstructure = entry.value
        return found
    stamp = current_stamp()
    node = ni.type_info(tp)
    found = _compile(node, tp)
    _cache.put(tp, key, _cache.Entry(found, annotate, stamp, node=node))
    return found


def _compile(node: ni.Node, tp: Any) -> Unstructure:
    try:
        return _EncodeCompiler().compile(node)
    except RecursionError:
        raise ni.too_deep_error(tp, "compile an encoder for") from None


#: The deepest nesting orjson writes (it refuses more, whatever the recursion limit).
_MAX_OUTPUT_DEPTH = 254


def _too_deep(obj: Any) -> ValueError:
    return ValueError(
        f"cannot encode {type(obj).__name__}: the value is nested too deeply (or contains "
        f"itself); JSON output is written at most {_MAX_OUTPUT_DEPTH} levels deep. Keep "
        "long chains (a linked list) in a list instead"
    )


# -- for make_converter and the decode command -----------------------------------------


def compile_encoder(
    node: ni.Node,
    *,
    entries: bool = False,
    keep_null: bool = False,
    hooks: Callable[[Any], Unstructure | None] | None = None,
) -> Unstructure:
    """An encoder for ``node``: dicts as ``[{"key", "value"}]`` arrays with ``entries``,
    ``None`` fields written as ``null`` with ``keep_null``, ``hooks(tp)`` giving a user's
    own unstructure hook for a class, enum or scalar type (or None)."""
    return _EncodeCompiler(entries=entries, keep_null=keep_null, hooks=hooks).compile(node)


def encoder_for(tp: Any) -> Unstructure:
    """The cached encoder of ``tp``, as ``encode`` uses it."""
    return _encoder_for(tp)


def json_value(obj: Any) -> Any:
    """``obj`` as the JSON value ``encode`` would write (not yet serialized)."""
    return _encode_any(obj)


def encode(obj: Any) -> bytes:
    """Encode an instance as the JSON the model would have sent for it.

    Keys are the names the schema shows (``Field.key``), enums are written by value,
    date/time values as ISO 8601 text, UUIDs as text, sets as lists, dict keys in the
    text a value of the key type is written in (a Decimal, date or UUID key too); a
    nullable field holding ``None`` is left out when decoding would give ``None`` back. The output
    decodes back to an equal instance with ``decode(type(obj), ...)``.

    Args:
        obj: An attrs, dataclass or pydantic model instance, or any value made of JSON
            types, enums, date/time values, UUIDs and such instances.

    Returns:
        UTF-8 JSON bytes.

    Raises:
        TypeError: A value has no JSON form (or an int is beyond 64 bits), or a dict
            key's is not a string.
        ValueError: A float is NaN or infinite, two keys of a dict are written alike,
            or the value nests more than 254 levels deep (a linked list thousands of
            nodes long, a value containing itself).

    .. versionadded:: 0.1.0
    """
    try:
        value = _encode_any(obj)
    except RecursionError:
        value = ABSENT
    if value is ABSENT:  # raised here, not in the handler, so no RecursionError is chained
        raise _too_deep(obj)
    try:
        return orjson.dumps(value)
    except orjson.JSONEncodeError as exc:
        problem = str(exc)
    if "Recursion limit" in problem:
        raise _too_deep(obj)
    msg = f"cannot encode {type(obj).__name__} as JSON: {problem}"
    raise TypeError(msg)

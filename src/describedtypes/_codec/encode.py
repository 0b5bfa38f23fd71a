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
from .._types.annotate import annotate, current_stamp
from .._types.nodes import closed_keys_as_object, hook_type, scalar_of
from .._types.scalars import scalar_for, scalar_of_value
from .problems import ABSENT, Members, brief, quote
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
        deep = _shared_containers(node.options)
        memo: dict[int, Callable[[Any], bool]] = {}
        ordered = sorted(node.options, key=lambda o: not _is_exact_class(o))
        # With a fixed-length tuple option, a tuple is that option's, not a list's.
        fixed = any(isinstance(o, ni.TupleNode) for o in node.options)
        options = []
        for o in ordered:
            matches = _deep_matcher(o, memo) if deep else _matcher(o)
            if fixed and isinstance(o, ni.ArrayNode):
                matches = _not_a_tuple(matches)
            options.append((o, matches, self.compile(o)))
        check = None
        if not self.entries and self.hooks is None and _overlapping(node):
            check = _reader(node, lenient=not fixed)

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


def _matcher(node: ni.Node) -> Callable[[Any], bool]:
    if isinstance(node, ni.NullNode):
        return lambda v: v is None
    if isinstance(node, ni.AnyNode):
        return lambda v: True
    if isinstance(node, ni.ScalarNode):
        py = node.python_type
        row = scalar_for(py)
        if row is not None:
            return row.holds
        return lambda v: isinstance(v, py)  # a str subclass
    if isinstance(node, ni.EnumNode):
        cls = node.cls
        return lambda v: isinstance(v, cls)
    if isinstance(node, ni.LiteralNode):
        members = Members([(p, p) for p in node.python_values])
        return lambda v: members.get(v, ABSENT) is not ABSENT
    if isinstance(node, ni.ArrayNode) and issubclass(node.container, enum.Flag):
        flag = node.container
        return lambda v: isinstance(v, flag)
    if isinstance(node, ni.ArrayNode):
        kinds: tuple[type, ...] = (
            (set, frozenset) if node.container in (set, frozenset) else (list, tuple)
        )
        return lambda v: isinstance(v, kinds) and not mt.is_namedtuple(type(v))
    if isinstance(node, ni.TupleNode):
        n = len(node.items)
        return lambda v: isinstance(v, tuple) and len(v) == n
    if isinstance(node, ni.DictNode):
        return lambda v: isinstance(v, Mapping)
    obj = ni.object_of(node)
    if obj is not None:
        cls = constructor_of(obj.python_type)
        if mt.is_typeddict(cls):
            return lambda v: isinstance(v, Mapping)
        return lambda v: isinstance(v, cls)
    if isinstance(node, ni.UnionNode):
        inner = [_matcher(o) for o in node.options]
        return lambda v: any(m(v) for m in inner)
    return lambda v: False


def _is_exact_class(node: ni.Node) -> bool:
    """An option matched by the value's own class (not by its shape): tried first."""
    obj = ni.object_of(node)
    if obj is not None:
        return not mt.is_typeddict(constructor_of(obj.python_type))
    return isinstance(node, ni.EnumNode) or (
        isinstance(node, ni.ArrayNode) and issubclass(node.container, enum.Flag)
    )


def _container(node: ni.Node) -> str | None:
    """The kind of Python container an option takes by shape alone, or None."""
    if isinstance(node, ni.UseNode):
        node = node.target
    if isinstance(node, ni.ArrayNode) and not issubclass(node.container, enum.Flag):
        return "set" if node.container in (set, frozenset) else "sequence"
    if isinstance(node, ni.TupleNode):
        return "sequence"
    if isinstance(node, ni.DictNode):
        return "mapping"
    obj = ni.object_of(node)
    if obj is not None and mt.is_typeddict(constructor_of(obj.python_type)):
        return "mapping"
    if obj is not None and mt.is_namedtuple(constructor_of(obj.python_type)):
        return "sequence"  # a tuple: list options' shallow test takes it too
    if isinstance(node, ni.UnionNode):
        kinds = {_container(o) for o in node.options} - {None}
        return kinds.pop() if len(kinds) == 1 else ("many" if kinds else None)
    return None


def _shared_containers(options: tuple[ni.Node, ...] | list[ni.Node]) -> bool:
    """Whether two options take the same kind of container (so shape cannot tell them)."""
    seen: set[str] = set()
    for option in options:
        kind = _container(option)
        if kind is None:
            continue
        if kind in seen or kind == "many":
            return True
        seen.add(kind)
    return False


def _overlapping(node: ni.UnionNode) -> bool:
    """Whether two options read the same JSON kind and one of them is structural.

    Options that are classes of their own (attrs, dataclasses) are told apart by the
    decoder's keys unless one object could fit two of them; a structural option (a list, a
    dict, a TypedDict, a scalar) sharing a JSON kind with another option may read what the
    other wrote.
    """
    from .compiler import Compiler

    compiler = Compiler()
    by_kind: dict[type, list[ni.Node]] = {}
    for option in node.options:
        compiled = compiler.compile(option)
        for cls in compiled.kinds | compiled.lenient:
            by_kind.setdefault(cls, []).append(option)
    return any(
        len(group) > 1
        and (not all(_is_exact_class(o) for o in group) or _may_share_keys(group))
        for group in by_kind.values()
    )


def _may_share_keys(group: list[ni.Node]) -> bool:
    """Whether one JSON object could be read by two of these classes (same field keys)."""
    shapes = []
    for option in group:
        obj = ni.object_of(option)
        if obj is None:
            return True
        keys = frozenset(f.key for f in obj.fields)
        # A nullable field left out reads as None: not needed in the object.
        needed = frozenset(f.key for f in obj.fields if f.required and not f.nullable)
        shapes.append((keys, needed))
    return any(
        ra <= kb and rb <= ka
        for i, (ka, ra) in enumerate(shapes)
        for kb, rb in shapes[i + 1 :]
    )


def _not_a_tuple(matches: Callable[[Any], bool]) -> Callable[[Any], bool]:
    return lambda v: not isinstance(v, tuple) and matches(v)


def _reader(node: ni.UnionNode, *, lenient: bool) -> Callable[[Any, Any, ni.Node], bool]:
    """``check(written, value, option)``: whether ``written`` (what ``option`` wrote for
    ``value``) decodes back equal to ``value``.

    The decoder tries the options that read the written JSON kind in order; only those
    before ``option`` can take the value from it, so only they are tried (most fail at
    once: a list of ints at its first item under ``list[UUID]``). When one takes it as
    something else, the union's own decoder (which narrows objects by their keys) has the
    last word. ``lenient``: a tuple written for a list option counts as that list (unless
    a fixed-length tuple option could have held it).
    """
    same = _same if lenient else _equal
    from .compiler import Compiler
    from .problems import JSON_CLASSES, Invalid, classify

    compiler = Compiler()
    read = compiler.compile(node).fn
    compiled = [(o, compiler.compile(o)) for o in node.options]
    order: dict[type, list[tuple[ni.Node, Callable[[Any], Any]]]] = {}
    for cls in JSON_CLASSES:
        exact = [(o, c.fn) for o, c in compiled if cls in c.kinds]
        loose = [(o, c.fn) for o, c in compiled if cls not in c.kinds and cls in c.lenient]
        order[cls] = exact + loose

    def full(written: Any, value: Any) -> bool:
        try:
            back = read(written)
        except Invalid:
            return False
        return same(back, value)

    def check(written: Any, value: Any, option: ni.Node) -> bool:
        cls = classify(written)
        for candidate, decode_fn in order.get(cls, []) if cls is not None else []:
            if candidate is option:
                return True  # every option before it refused: the decoder reaches it
            try:
                back = decode_fn(written)
            except Invalid:
                continue
            return same(back, value) or full(written, value)
        return full(written, value)

    return check


def _same(back: Any, value: Any) -> bool:
    """``back == value``, a tuple written for a list counting as that list."""
    try:
        return bool(back == value) or _lists(back) == _lists(value)
    except Exception:  # a user's __eq__ that raises: not known to be the same
        return False


def _equal(back: Any, value: Any) -> bool:
    try:
        return bool(back == value)
    except Exception:  # a user's __eq__ that raises: not known to be the same
        return False


def _lists(v: Any) -> Any:
    if isinstance(v, (list, tuple)) and not mt.is_namedtuple(type(v)):
        return [_lists(x) for x in v]
    if isinstance(v, Mapping):
        return {k: _lists(x) for k, x in v.items()}
    return v


def _deep_matcher(node: ni.Node, memo: dict[int, Callable[[Any], bool]]) -> Callable[[Any], bool]:
    """Whether a value is one of ``node``'s, its contents checked too (for shared shapes)."""
    if isinstance(node, ni.UseNode):
        node = node.target
    found = memo.get(id(node))
    if found is not None:
        return found
    if isinstance(node, ni.ArrayNode) and not issubclass(node.container, enum.Flag):
        kinds: tuple[type, ...] = (
            (set, frozenset) if node.container in (set, frozenset) else (list, tuple)
        )

        def array(v: Any) -> bool:
            if not isinstance(v, kinds) or mt.is_namedtuple(type(v)):
                return False
            members: Any = v
            return all(item(x) for x in members)

        memo[id(node)] = array
        item = _deep_matcher(node.items, memo)
        return array
    if isinstance(node, ni.TupleNode):
        n = len(node.items)

        def fixed(v: Any) -> bool:
            return (
                isinstance(v, tuple)
                and not mt.is_namedtuple(type(v))
                and len(v) == n
                and all(m(x) for m, x in zip(items, v, strict=True))
            )

        memo[id(node)] = fixed
        items = [_deep_matcher(i, memo) for i in node.items]
        return fixed
    if isinstance(node, ni.DictNode):

        def mapping(v: Any) -> bool:
            return isinstance(v, Mapping) and all(
                key(k) and value(x) for k, x in v.items()
            )

        memo[id(node)] = mapping
        key = _deep_matcher(node.keys, memo)
        value = _deep_matcher(node.values, memo)
        return mapping
    obj = ni.object_of(node)
    if obj is not None and mt.is_typeddict(constructor_of(obj.python_type)):
        required = frozenset(f.name for f in obj.fields if f.required)

        def typed(v: Any) -> bool:
            if not isinstance(v, Mapping) or not required <= v.keys():
                return False
            for k, x in v.items():
                m = fields.get(k) if isinstance(k, str) else None
                if m is None or not m(x):
                    return False
            return True

        memo[id(node)] = typed
        fields = {f.name: _deep_matcher(f.node, memo) for f in obj.fields}
        return typed
    if isinstance(node, ni.UnionNode):

        def any_of(v: Any) -> bool:
            return any(m(v) for m in inner)

        memo[id(node)] = any_of
        inner = [_deep_matcher(o, memo) for o in node.options]
        return any_of
    shallow = _matcher(node)
    memo[id(node)] = shallow
    return shallow


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
    if attrs.has(type(v)) or (dataclasses.is_dataclass(v) and not isinstance(v, type)):
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
        obj: An attrs or dataclass instance, or any value made of JSON types, enums,
            date/time values, UUIDs and such instances.

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

"""Which option of a union holds a value, for the encoder.

The encoder writes a union's value with the first option that holds it. Whether an
option holds it is told by the value's class where that is enough, and by its contents
where options share a container (``list[UUID] | list[int]``); where two options' JSON
forms overlap, ``read_back_check`` decodes what was written to make sure it comes back
as the same value.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from typing import Any

from .._types import inspector as ni
from .._types import kinds as mt
from .._types.scalars import scalar_for
from .problems import ABSENT, Members
from .values import constructor_of

__all__ = [
    "deep_matcher",
    "is_exact_class",
    "matcher",
    "not_a_tuple",
    "overlapping",
    "read_back_check",
    "shared_containers",
]


def matcher(node: ni.Node) -> Callable[[Any], bool]:
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
        inner = [matcher(o) for o in node.options]
        return lambda v: any(m(v) for m in inner)
    return lambda v: False


def is_exact_class(node: ni.Node) -> bool:
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


def shared_containers(options: tuple[ni.Node, ...] | list[ni.Node]) -> bool:
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


def overlapping(node: ni.UnionNode) -> bool:
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
        and (not all(is_exact_class(o) for o in group) or _may_share_keys(group))
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


def not_a_tuple(matches: Callable[[Any], bool]) -> Callable[[Any], bool]:
    return lambda v: not isinstance(v, tuple) and matches(v)


def read_back_check(node: ni.UnionNode, *, lenient: bool) -> Callable[[Any, Any, ni.Node], bool]:
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


def deep_matcher(node: ni.Node, memo: dict[int, Callable[[Any], bool]]) -> Callable[[Any], bool]:
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
        item = deep_matcher(node.items, memo)
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
        items = [deep_matcher(i, memo) for i in node.items]
        return fixed
    if isinstance(node, ni.DictNode):

        def mapping(v: Any) -> bool:
            return isinstance(v, Mapping) and all(
                key(k) and value(x) for k, x in v.items()
            )

        memo[id(node)] = mapping
        key = deep_matcher(node.keys, memo)
        value = deep_matcher(node.values, memo)
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
        fields = {f.name: deep_matcher(f.node, memo) for f in obj.fields}
        return typed
    if isinstance(node, ni.UnionNode):

        def any_of(v: Any) -> bool:
            return any(m(v) for m in inner)

        memo[id(node)] = any_of
        inner = [deep_matcher(o, memo) for o in node.options]
        return any_of
    shallow = matcher(node)
    memo[id(node)] = shallow
    return shallow

"""The nodes ``describedtypes.inspect`` turns types into: a closed, immutable tree.

The node classes are final: code that walks a tree (the renderer, the compilers) may
tell them apart by their exact class, which is cheaper than a chain of isinstance tests.

They are public through ``describedtypes.inspect``; this module only holds them, so that
the inspector and the modules that read nodes can import them without each other.
"""

from __future__ import annotations

import builtins
import enum
from collections.abc import Callable, Iterator
from typing import Any, final

import attrs

from .scalars import STRING, JsonType, Scalar, scalar_for


@attrs.frozen(kw_only=True)
class Constraints:
    """Value bounds from attrs validators, in JSON Schema's terms."""

    minimum: float | None = None
    exclusive_minimum: float | None = None
    maximum: float | None = None
    exclusive_maximum: float | None = None
    min_length: int | None = None
    max_length: int | None = None
    pattern: str | None = None
    multiple_of: float | None = None

    def __bool__(self) -> bool:
        # Asked for every node the builder renders: spelled out, not attrs.astuple.
        return not (
            self.minimum is None
            and self.exclusive_minimum is None
            and self.maximum is None
            and self.exclusive_maximum is None
            and self.min_length is None
            and self.max_length is None
            and self.pattern is None
            and self.multiple_of is None
        )

    def merged(self, other: Constraints) -> Constraints:
        changes = {
            k: v for k, v in attrs.asdict(other, recurse=False).items() if v is not None
        }
        return attrs.evolve(self, **changes) if changes else self


#: The constraints of a node with no bounds: shared, so "none" is an identity test.
NO_CONSTRAINTS = Constraints()


@attrs.frozen(kw_only=True)
class Node:
    """Base of every node.

    Attributes:
        description: From ``Annotated[T, Annotation(description=...)]``.
        enum: Allowed values from an annotation or an ``in_`` validator (the type's own
            values, for Enum and Literal, live on those nodes).
        constraints: Bounds from validators.
    """

    description: str | None = None
    enum: tuple[Any, ...] | None = None
    constraints: Constraints = NO_CONSTRAINTS


@final
@attrs.frozen(kw_only=True)
class ScalarNode(Node):
    """``str``, ``int``, ``float``, ``bool``, and the string formats (datetime, UUID, ...)."""

    type: JsonType
    python_type: builtins.type
    format: str | None = None


@final
@attrs.frozen(kw_only=True)
class NullNode(Node):
    """``None``."""


@final
@attrs.frozen(kw_only=True)
class AnyNode(Node):
    """``Any`` or ``object``: any JSON value."""


@final
@attrs.frozen(kw_only=True)
class EnumNode(Node):
    """An ``enum.Enum`` subclass, described by its member values."""

    cls: type[enum.Enum]
    values: tuple[Any, ...]
    types: tuple[JsonType, ...]


@final
@attrs.frozen(kw_only=True)
class LiteralNode(Node):
    """``Literal[...]``; ``values`` are JSON values (Enum members by their value)."""

    values: tuple[Any, ...]
    python_values: tuple[Any, ...]
    types: tuple[JsonType, ...]


@final
@attrs.frozen(kw_only=True)
class ArrayNode(Node):
    """A homogeneous collection: list, ``tuple[T, ...]``, set, frozenset, Sequence."""

    items: Node
    container: type
    unique: bool = False


@final
@attrs.frozen(kw_only=True)
class TupleNode(Node):
    """A fixed-length tuple, ``tuple[A, B]``."""

    items: tuple[Node, ...]


@final
@attrs.frozen(kw_only=True)
class DictNode(Node):
    """``dict[str, T]`` and ``Mapping[str, T]``."""

    keys: Node
    values: Node
    container: type = dict


@final
@attrs.frozen(kw_only=True)
class UnionNode(Node):
    """``A | B | ...``; ``None`` among the options appears as a ``NullNode``."""

    options: tuple[Node, ...]

    @property
    def nullable(self) -> bool:
        return any(isinstance(o, NullNode) for o in self.options)

    def without_null(self) -> Node:
        """The node this union is when ``None`` is taken out."""
        rest = tuple(o for o in self.options if not isinstance(o, NullNode))
        if len(rest) == 1:
            return rest[0]
        return UnionNode(options=rest)


@final
@attrs.frozen(kw_only=True)
class UseNode(Node):
    """One use of a class, with what this use says about it.

    An ``ObjectNode`` is shared by every field typed with its class (and is its own
    descendant in a recursive type), so what one field says about it
    (``Annotated[Address, Annotation(description="Where to deliver")]``) belongs to that
    use: ``description`` and ``enum`` here, ``target`` the shared class node. Renderers and
    compilers treat a use as its target, with the use's description.

    .. versionadded:: 0.2.0
    """

    target: ObjectNode


def hook_type(node: Node) -> Any:
    """The Python type a user's cattrs hook for ``node`` is registered on, or None.

    Classes, enums and scalars can have hooks of their own; other nodes (lists, unions,
    ...) are built from their parts.
    """
    if isinstance(node, (ObjectNode, ScalarNode)):
        return node.python_type
    if isinstance(node, EnumNode):
        return node.cls
    return None


def object_of(node: Node) -> ObjectNode | None:
    """The class node ``node`` stands for (itself, or a use's target); None for others."""
    # By exact class (node classes are final): asked for every node rendered.
    kind = node.__class__
    if kind is ObjectNode:
        return node  # type: ignore[return-value]
    if kind is UseNode:
        return node.target  # type: ignore[attr-defined,no-any-return]
    return None


NOTHING: Any = attrs.NOTHING


def scalar_of(node: Node) -> Scalar | None:
    """The scalar table's row for a scalar node (a ``str`` subclass reads as ``str``)."""
    if not isinstance(node, ScalarNode):
        return None
    return scalar_for(node.python_type) or STRING


def is_number_text(node: Node) -> bool:
    """A number JSON carries as a string of digits (Decimal): its bounds said in words."""
    found = scalar_of(node)
    return found is not None and found.number_text


@attrs.frozen(kw_only=True)
class Field:
    """One property of an object: a class field or a function parameter.

    Attributes:
        name: The Python name (attribute or parameter).
        key: The JSON property key the model sees (the annotation's name, else ``name``).
        init_name: The keyword the constructor or function takes it by.
        node: Its type.
        description: From the owner's annotation, the field metadata or the docstring.
        required: True when it has no default.
        default: The default value, or ``attrs.NOTHING``.
        default_factory: A zero-argument callable making the default, or None.
        absent_is_none: Leaving the field out means None when its type allows None
            (True for class fields and parameters; False for TypedDict keys, where a
            key left out is not a key holding None).
    """

    name: str
    key: str
    init_name: str
    node: Node
    description: str | None = None
    required: bool = True
    default: Any = NOTHING
    default_factory: Callable[[], Any] | None = None
    absent_is_none: bool = True

    @property
    def nullable(self) -> bool:
        """None is among its values, and leaving it out means None."""
        return self.absent_is_none and isinstance(self.node, UnionNode) and self.node.nullable

    @property
    def has_default(self) -> bool:
        return self.default is not NOTHING or self.default_factory is not None


@final
@attrs.frozen(kw_only=True, eq=False, repr=False)
class ObjectNode(Node):
    """An attrs class, a dataclass or a function's parameters.

    Compared by identity: a recursive type is one node whose fields lead back to itself.

    Attributes:
        python_type: The class (or ``Box[int]`` alias); for a function, the function.
        name: The annotation name (schema or tool name).
        fields: The properties, in declaration order.
        is_function: True for a function's parameters.
        context_params: Parameters typed with ``Context``, filled from the call's context.
        generic_args: For a generic alias such as ``Box[int]``: its arguments.
    """

    python_type: Any
    name: str
    fields: tuple[Field, ...] = ()
    is_function: bool = False
    context_params: tuple[str, ...] = ()
    generic_args: tuple[Any, ...] = ()

    # Identity, not the inherited field-wise equality: two classes with the same
    # description are different objects, and a recursive node must not compare itself.
    __eq__ = object.__eq__
    __ne__ = object.__ne__
    __hash__ = object.__hash__

    def __repr__(self) -> str:
        keys = ", ".join(f.key for f in self.fields)
        return f"ObjectNode({self.name}: {keys})"

    def field(self, key: str) -> Field:
        for f in self.fields:
            if f.key == key:
                return f
        raise KeyError(key)

    def field_by_name(self, name: str) -> Field:
        for f in self.fields:
            if f.name == name:
                return f
        raise KeyError(name)


# -- walking a tree -----------------------------------------------------------------


def iter_objects(node: Node) -> Iterator[ObjectNode]:
    """Every object node reachable from ``node``, each once, in first-seen order."""
    return iter(object_graph(node)[0])


# Nodes that hold no other node.
_LEAVES = frozenset({ScalarNode, EnumNode, LiteralNode, NullNode, AnyNode})


def object_graph(root: Node) -> tuple[list[ObjectNode], set[ObjectNode]]:
    """The object nodes reachable from ``root`` in first-seen order, and those on a cycle.

    One depth-first walk: an object met again while its own fields are being walked
    closes a cycle, and every object on the path from it is recursive.
    """
    order: list[ObjectNode] = []
    recursive: set[ObjectNode] = set()
    path: list[ObjectNode] = []
    done: set[ObjectNode] = set()  # object nodes hash by identity

    def visit(node: Node) -> None:
        kind = node.__class__
        if kind in _LEAVES:
            return
        if isinstance(node, ObjectNode):
            if node in done:
                return
            if node in path:
                recursive.update(path[path.index(node):])
                return
            order.append(node)
            path.append(node)
            for f in node.fields:
                visit(f.node)
            path.pop()
            done.add(node)
        elif kind is ArrayNode:
            visit(node.items)  # type: ignore[attr-defined]
        elif kind is UseNode:
            visit(node.target)  # type: ignore[attr-defined]
        else:
            for child in children_of(node):
                visit(child)

    visit(root)
    return order, recursive


def children_of(node: Node) -> Iterator[Node]:
    if isinstance(node, ObjectNode):
        for f in node.fields:
            yield f.node
    elif isinstance(node, ArrayNode):
        yield node.items
    elif isinstance(node, TupleNode):
        yield from node.items
    elif isinstance(node, DictNode):
        yield node.values
    elif isinstance(node, UnionNode):
        yield from node.options
    elif isinstance(node, UseNode):
        yield node.target


def admits_null(node: Node) -> bool:
    """Whether ``null`` is one of ``node``'s values."""
    if isinstance(node, UseNode):
        node = node.target
    if isinstance(node, (NullNode, AnyNode)):
        return True
    if isinstance(node, UnionNode):
        return any(admits_null(o) for o in node.options)
    if isinstance(node, (EnumNode, LiteralNode)):
        return None in node.values
    return node.enum is not None and None in node.enum


def closed_keys_as_object(node: DictNode) -> bool:
    """Whether strict adapters write ``node`` as an object with every key, null for absent.

    So for keys from an Enum, a Literal or an annotation enum (all strings), when the
    values cannot be null themselves: a null then means the key is not in the dict, and
    decoding drops it.
    """
    keys = node.keys
    if isinstance(keys, (EnumNode, LiteralNode)):
        values: tuple[Any, ...] = keys.values
    elif isinstance(keys, ScalarNode) and keys.enum is not None:
        values = keys.enum
    else:
        return False
    return bool(values) and all(isinstance(v, str) for v in values) and not admits_null(
        node.values
    )


def empty_dict_is_ambiguous(node: UnionNode) -> bool:
    """Whether, in the entries form of the strict adapters, an empty dict of one of
    ``node``'s options would be written as ``[]`` that another option reads as something
    else (a list, a set, an empty tuple, any JSON): such a union gets an empty object as
    an option of its own, and an empty dict is written as ``{}``.
    """
    entries = False
    arrays = False
    for option in node.options:
        if isinstance(option, UseNode):
            option = option.target
        if isinstance(option, DictNode):
            entries = entries or not closed_keys_as_object(option)
        elif isinstance(option, (ArrayNode, AnyNode)) or (
            isinstance(option, TupleNode) and not option.items
        ):
            arrays = True
    return entries and arrays

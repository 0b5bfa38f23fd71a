"""A read-only view of Python types and functions as a small tree of immutable nodes.

``type_info(obj)`` inspects a type or a function once; the schema builder, the decoder
and the tool runtime all read the same nodes, so they cannot disagree.
"""

from ._types.inspector import (
    AnyNode,
    ArrayNode,
    Constraints,
    DictNode,
    EnumNode,
    Field,
    LiteralNode,
    Node,
    NullNode,
    ObjectNode,
    ScalarNode,
    TupleNode,
    UnionNode,
    UseNode,
    iter_objects,
    object_of,
    type_info,
)

__all__ = (
    "AnyNode",
    "ArrayNode",
    "Constraints",
    "DictNode",
    "EnumNode",
    "Field",
    "LiteralNode",
    "Node",
    "NullNode",
    "ObjectNode",
    "ScalarNode",
    "TupleNode",
    "UnionNode",
    "UseNode",
    "iter_objects",
    "object_of",
    "type_info",
)


def __dir__() -> list[str]:
    return list(__all__)

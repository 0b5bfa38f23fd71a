"""Fields and parameters: the key, description, enum and bounds each one gets.

The inspector reads a class's fields or a function's parameters; what each of them says
to the model is decided here, from weakest to strongest: the docstring, field metadata,
``Annotated[T, Annotation(...)]`` on its type, and a registered annotation. Bounds from
``annotated_types`` metadata and the checks that catch a misspelt or repeated name live
here too.
"""

from __future__ import annotations

import enum
import types
import typing
from collections.abc import Callable
from typing import Any

import attrs

from ..errors import SchemaError
from . import predicates as t
from .annotate import Annotation, default_annotation, iter_annotation_metadata, object_name
from .declared import constrain
from .nodes import (
    NOTHING,
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
    scalar_of,
)
from .scalars import STRING, as_bound, is_number

__all__ = [
    "NOTHING_TO_UNWRAP",
    "bounded",
    "check_parameter_names",
    "check_unique_keys",
    "function_annotation",
    "make_field",
    "override_parameters",
    "refuse_fixed_enum",
    "with_annotated_name",
]

#: Classes of type expressions that are never Annotated, an alias, a NewType or Final:
#: list[int], dict[str, int], X | None, Optional[X], and Enum classes.
NOTHING_TO_UNWRAP = frozenset(
    {types.GenericAlias, types.UnionType, type(typing.Optional[int]), enum.EnumMeta}  # noqa: UP045
)



_NUMERIC_BOUNDS = frozenset(
    {"minimum", "exclusive_minimum", "maximum", "exclusive_maximum", "multiple_of"}
)


def bounded(node: Node, bounds: list[tuple[str, Any, str]], path: str, owner: Any) -> Node:
    """``node`` with the ``annotated_types`` bounds of its ``Annotated`` metadata.

    Numeric bounds go on numbers (int, float, Decimal), length bounds on strings and
    arrays; anything else would be a bound the schema cannot state or the decoder
    cannot check, so it is refused.
    """
    target = node.without_null() if isinstance(node, UnionNode) and node.nullable else node
    scalar = scalar_of(target)
    numeric = scalar is not None and scalar.number
    # A string with a text form of its own (a date, a Decimal's digits) has no length.
    sized = (scalar is not None and scalar is STRING) or (
        isinstance(target, ArrayNode) and not issubclass(target.container, enum.Flag)
    )
    found = Constraints()
    for field, value, spelled in bounds:
        if field in _NUMERIC_BOUNDS:
            if not numeric:
                raise SchemaError(
                    f"{spelled} bounds a number, but the type here is {_node_kind(target)}; "
                    "put numeric bounds on int, float or Decimal",
                    path=path,
                    type_=owner,
                )
            if not is_number(value) or (field == "multiple_of" and value <= 0):
                raise SchemaError(
                    f"{spelled}: the bound must be a finite int, float or Decimal"
                    + (" greater than 0" if field == "multiple_of" else ""),
                    path=path,
                    type_=owner,
                )
            value = as_bound(value, number_text=scalar is not None and scalar.number_text)
        elif field == "pattern":
            if scalar is not STRING:
                raise SchemaError(
                    f"{spelled} constrains text, but the type here is {_node_kind(target)}; "
                    "put a pattern on str",
                    path=path,
                    type_=owner,
                )
            if not isinstance(value, str):
                raise SchemaError(
                    f"{spelled}: a pattern must be a regular expression given as str",
                    path=path,
                    type_=owner,
                )
        else:
            if not sized:
                raise SchemaError(
                    f"{spelled} bounds a length, but the type here is {_node_kind(target)}; "
                    "put length bounds on str, list, tuple[T, ...] or set",
                    path=path,
                    type_=owner,
                )
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise SchemaError(
                    f"{spelled}: a length must be an int of at least 0",
                    path=path,
                    type_=owner,
                )
        found = found.merged(Constraints(**{field: value}))
    return constrain(node, found, None)


def _node_kind(node: Node) -> str:
    if isinstance(node, ScalarNode):
        return f"{node.python_type.__name__} ({node.format or node.type})"
    if isinstance(node, ArrayNode) and issubclass(node.container, enum.Flag):
        return f"the Flag {node.container.__qualname__}"
    names = {
        ArrayNode: "an array", TupleNode: "a fixed-length tuple", DictNode: "a dict",
        UnionNode: "a union", EnumNode: "an Enum", LiteralNode: "a Literal", AnyNode: "Any",
        NullNode: "None", ObjectNode: "an object",
    }
    return names.get(type(node), type(node).__name__)


def make_field(
    name: str,
    init_name: str,
    node: Node,
    ann: Annotation,
    override: Annotation | None,
    default: Any,
    factory: Callable[[], Any] | None,
    absent_is_none: bool = True,
) -> Field:
    if ann.enum is not None:
        node = _with_enum(node, ann.enum)
    # A registered override wins; then Annotated[T, Annotation(...)] on the field's own
    # type; then field metadata and the docstring. (An ObjectNode's own description is
    # its class docstring, not this use of it: the renderer falls back to it.)
    description = override.description if override is not None else None
    if description is None:
        use_site = None if isinstance(node, ObjectNode) else node.description
        description = use_site if use_site is not None else ann.description
    return Field(
        name=name,
        key=ann.name or name,
        init_name=init_name,
        node=node,
        description=description,
        required=default is NOTHING and factory is None,
        default=default,
        default_factory=factory,
        absent_is_none=absent_is_none,
    )


def with_annotated_name(ann: Annotation, hint: Any) -> Annotation:
    """``ann`` with the name an ``Annotated[T, Annotation(name=...)]`` gives, if it has none."""
    if ann.name is not None or type(hint) is type or type(hint) in NOTHING_TO_UNWRAP:
        return ann
    name = None
    while t.is_annotated(hint):
        for meta in iter_annotation_metadata(hint.__metadata__):
            if meta.name is not None:
                name = meta.name
        hint = t.get_args(hint)[0]
    return ann if name is None else attrs.evolve(ann, name=name)


def refuse_fixed_enum(node: Node, values: Any, path: str, owner: Any) -> None:
    """An annotation enum on a type that already fixes its values is a mistake to report."""
    if values is None:
        return
    inner = node.without_null() if isinstance(node, UnionNode) and node.nullable else node
    if isinstance(inner, (EnumNode, LiteralNode)):
        kind = "Enum" if isinstance(inner, EnumNode) else "Literal"
        allowed = ", ".join(repr(v) for v in inner.values)
        raise SchemaError(
            f"an annotation enum {list(values)!r} was given, but the field's {kind} type "
            f"already fixes its values ({allowed}); remove enum= from the annotation, or "
            "change the type",
            path=path,
            type_=owner,
        )


def _with_enum(node: Node, values: tuple[Any, ...]) -> Node:
    if isinstance(node, UnionNode) and node.nullable:
        inner = _with_enum(node.without_null(), values)
        return UnionNode(options=(inner, NullNode()), description=node.description)
    if isinstance(node, ObjectNode):
        return UseNode(target=node, enum=values)
    return attrs.evolve(node, enum=values)


def check_parameter_names(ann: Annotation, names: list[str], path: str, owner: Any) -> None:
    for key in ann.parameters:
        if key in names:
            continue
        import difflib

        close = difflib.get_close_matches(key, names, n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        listed = ", ".join(names) if names else "(none)"
        raise SchemaError(
            f"the annotation describes a field {key!r} that {object_name(owner)} does not "
            f"have; {hint}its fields are: {listed}",
            path=f"{path}.{key}",
            type_=owner,
        )


def check_unique_keys(fields: list[Field], path: str, owner: Any) -> None:
    if len({f.key for f in fields}) == len(fields):
        return
    seen: dict[str, str] = {}
    for f in fields:
        if f.key in seen:
            raise SchemaError(
                f"the fields {seen[f.key]!r} and {f.name!r} are both named {f.key!r} for the "
                "model; give one of them another name in its Annotation",
                path=f"{path}.{f.name}",
                type_=owner,
            )
        seen[f.key] = f.name


def function_annotation(
    func: Any, layers: list[Any], override_of: Callable[[Any], Annotation | None]
) -> tuple[Annotation, dict[str, Annotation]]:
    """What the code and the registered overrides say about a callable.

    ``layers`` runs from ``func`` inwards (partial, bound method, function; or a callable
    object and its ``__call__``). The docstring of the innermost function counts (for a
    callable object its class docstring comes first, its ``__call__`` docstring second);
    an override registered on any layer counts, the outer ones winning.

    Returns:
        The merged annotation, and the overridden parameters alone.
    """
    base = default_annotation(func)
    if len(layers) > 1 and layers[-1] is type(layers[-2]).__call__:
        # A callable object: its class docstring first, its __call__ docstring second.
        inner = default_annotation(layers[-1])
        base = Annotation(
            name=base.name,
            description=base.description or inner.description,
            parameters={**base.parameters, **inner.parameters},
        )
    merged: Annotation | None = None
    for layer in reversed(layers):
        own = override_of(layer)
        if own is not None:
            merged = own if merged is None else own.merged_over(merged)
    if merged is None:
        return base, {}
    return merged.merged_over(base), dict(merged.parameters)


def override_parameters(
    tp: Any, cls: Any, override_of: Callable[[Any], Annotation | None]
) -> dict[str, Annotation]:
    found: dict[str, Annotation] = {}
    for source in (cls, tp):
        own = override_of(source) if source is not None else None
        if own is not None:
            for key, value in own.parameters.items():
                found[key] = value.merged_over(found[key]) if key in found else value
    return found

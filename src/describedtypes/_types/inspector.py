"""A read-only view of Python types and functions as a small tree of immutable nodes.

``type_info(obj)`` inspects a type or a function once; the schema builder, the decoder
and the tool runtime all read the same nodes, so they cannot disagree.
"""

from __future__ import annotations

import collections.abc
import dataclasses
import enum
import inspect as _pyinspect
import sys
import types
import typing
from collections.abc import Iterator
from typing import Any

import attrs

from ..errors import SchemaError
from . import cache as _cache
from . import kinds as mt
from . import predicates as t
from . import pydantic_models as pyd
from .annotate import (
    Annotation,
    Registry,
    annotate,
    check_registry,
    default_annotation,
    iter_annotation_metadata,
    object_name,
)
from .annotate import (
    current_stamp as _current_stamp,
)
from .declared import (
    all_parameter_names,
    apply_validator,
    class_fields,
    class_hints,
    function_hints,
    is_context,
    resolve_forward,
    unwrap_callable,
)
from .fields import (
    NOTHING_TO_UNWRAP,
    bounded,
    check_parameter_names,
    check_unique_keys,
    function_annotation,
    make_field,
    override_parameters,
    refuse_fixed_enum,
    with_annotated_name,
)
from .nodes import (
    NO_CONSTRAINTS,
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
    iter_objects,
    object_of,
)
from .scalars import SCALARS, JsonType
from .type_hints import remembering_hints

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


_LIST_ORIGINS = {
    list: list,
    collections.abc.Sequence: list,
    collections.abc.MutableSequence: list,
    collections.abc.Iterable: list,
    collections.abc.Collection: list,
    typing.List: list,  # noqa: UP006 - the alias is a distinct object to recognise
    typing.Sequence: list,
}


_SET_ORIGINS = {
    set: set,
    frozenset: frozenset,
    collections.abc.Set: frozenset,
    collections.abc.MutableSet: set,
    typing.Set: set,  # noqa: UP006
    typing.FrozenSet: frozenset,  # noqa: UP006
}


_DICT_ORIGINS = {
    dict: dict,
    collections.abc.Mapping: dict,
    collections.abc.MutableMapping: dict,
    typing.Dict: dict,  # noqa: UP006
    typing.Mapping: dict,
}


_SUGGESTIONS: dict[Any, str] = {
    bytes: "JSON has no bytes; use str (e.g. base64 text) instead",
    bytearray: "JSON has no bytes; use str (e.g. base64 text) instead",
    complex: "JSON has no complex numbers; use two floats",
}


def same_value(a: Any, b: Any) -> bool:
    """``a`` and ``b`` are the same JSON value: equal *and* of the same kind.

    Python has ``1 == True == 1.0`` and ``0 == False``; JSON and ``Literal`` do not mix
    booleans with numbers, so enum and literal values are compared with this.
    """
    return (a is b) or (a == b and isinstance(a, bool) == isinstance(b, bool))


def _json_type_of(value: Any) -> JsonType:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    raise TypeError(value)


def json_types(values: tuple[Any, ...]) -> tuple[JsonType, ...]:
    kinds: list[JsonType] = []
    for v in values:
        kind = _json_type_of(v)
        if kind not in kinds:
            kinds.append(kind)
    if "integer" in kinds and "number" in kinds:
        kinds.remove("integer")
    return tuple(kinds)


# Scalar nodes hold nothing per use, so one shared node per type serves every field.
_SCALAR_NODES: dict[Any, ScalarNode] = {
    s.python_type: ScalarNode(
        type=s.json_type,
        python_type=s.python_type,
        format=s.format,
        constraints=Constraints(pattern=s.pattern) if s.pattern is not None else NO_CONSTRAINTS,
    )
    for s in SCALARS
}


#: Types nested deeper than this (a class in a class in a list in ...) are refused with
#: a SchemaError. Every provider limits nesting far below it (OpenAI: 10 levels of
#: objects), and it leaves room below Python's recursion limit for everything that
#: walks the tree recursively (rendering, compiling a decoder). A recursive class is
#: one level however deep its values go.
_MAX_NESTING = 100



# None holds nothing per use: one shared node.
_NULL = NullNode()

# The class of Optional[X] and Union[X, Y] (X | Y is a types.UnionType).
_OPTIONAL_ALIAS = type(typing.Optional[int])  # noqa: UP045

_NO_ANNOTATION = Annotation()  # frozen: one shared "nothing said" for every field
_NO_HINT = object()


class _Inspector:
    """Strictly private: turns typing objects into nodes, once per object."""

    def __init__(self, registry: Registry = annotate) -> None:
        self._objects: dict[Any, ObjectNode] = {}
        self._depth = 0
        self.registry = registry
        #: Every object whose registered annotation was consulted, with its version.
        self.deps: dict[Any, tuple[int, ...]] = {}
        self._overrides: dict[Any, Annotation | None] = {}
        self._enums: dict[Any, Node] = {}

    def override(self, obj: Any) -> Annotation | None:
        """The registered annotation of ``obj``, remembered as a dependency."""
        # A bound method is registered (and remembered) as its function: the instance
        # must not be kept alive by a cache entry.
        key = obj.__func__ if _pyinspect.ismethod(obj) else obj
        try:
            if key in self._overrides:
                return self._overrides[key]
            self.deps[key] = self.registry.version(key)
        except TypeError:  # unhashable: nothing can be registered for it
            return None
        # Asked once per inspection: a registered function runs once per build.
        found = self._overrides[key] = self.registry.override(obj)
        return found

    def annotation(self, obj: Any) -> Annotation:
        """What the code says of ``obj`` with the registered override over it."""
        default = default_annotation(obj)
        override = self.override(obj)
        return default if override is None else override.merged_over(default)

    # The path is a list of names from the root, for error messages.
    def node(self, tp: Any, path: str, owner: Any) -> Node:
        self._depth += 1
        try:
            if self._depth > _MAX_NESTING:
                raise SchemaError(
                    f"the type nests more than {_MAX_NESTING} levels deep here; no provider "
                    "takes a schema this deep (OpenAI takes 10 levels of objects) and no "
                    "model fills one in reliably: flatten it, or let a class refer to "
                    "itself (a recursive class is described once, by reference)",
                    path=_short(path),
                    type_=owner,
                )
            return self._node(tp, path, owner)
        finally:
            self._depth -= 1

    def _node(self, tp: Any, path: str, owner: Any) -> Node:
        if type(tp) is type:
            # A plain class (str, int, an attrs class, an Enum is EnumMeta's): no
            # Annotated, alias or NewType to unwrap. Most nodes take this path.
            scalar = _SCALAR_NODES.get(tp)
            if scalar is not None:
                return scalar
            if tp is t.NoneType:  # the None of X | None
                return _NULL
            if attrs.has(tp) or dataclasses.is_dataclass(tp):
                return self.object(tp, path)
        elif type(tp) in NOTHING_TO_UNWRAP:
            return self._bare(tp, path, owner)
        meta: list[Annotation] = []
        bounds: list[tuple[str, Any, str]] = []
        while True:
            if t.is_annotated(tp):
                args = t.get_args(tp)
                meta.extend(iter_annotation_metadata(tp.__metadata__))
                bounds.extend(mt.metadata_bounds(tp.__metadata__))
                tp = args[0]
            elif (qualified := mt.unwrap_qualifier(tp)) is not None:
                tp = qualified[0]  # Required/NotRequired/ReadOnly/InitVar: read by the owner
            elif t.is_type_alias_type(tp):
                tp = tp.__value__
            elif t.is_newtype(tp):
                tp = tp.__supertype__
            elif t.is_final(tp) and t.get_args(tp):
                tp = t.get_args(tp)[0]
            else:
                break
        node = self._bare(tp, path, owner)
        if bounds:
            node = bounded(node, bounds, path, owner)
        for ann in meta:
            changes: dict[str, Any] = {}
            if ann.description is not None:
                changes["description"] = ann.description
            if ann.enum is not None:
                refuse_fixed_enum(node, ann.enum, path, owner)
                changes["enum"] = ann.enum
            if changes:
                if isinstance(node, ObjectNode):
                    # An object node is shared by every use; describe the use instead.
                    node = UseNode(target=node, **changes)
                elif isinstance(node, UseNode):
                    node = attrs.evolve(node, **changes)
                else:
                    node = attrs.evolve(node, **changes)
        return node

    def _alias_annotation(self, alias: Any, cls: type) -> Annotation:
        return _annotation_for_alias(alias, cls, self)

    def override_parameters(self, tp: Any, cls: Any) -> dict[str, Annotation]:
        return override_parameters(tp, cls, self.override)

    def function_annotation(
        self, func: Any, layers: list[Any]
    ) -> tuple[Annotation, dict[str, Annotation]]:
        return function_annotation(func, layers, self.override)

    def _bare(self, tp: Any, path: str, owner: Any) -> Node:
        # The common forms first, told apart by their class alone: list[str] and
        # dict[str, X] (never a union, Literal or forward reference), X | None, Enums.
        kind = type(tp)
        if kind is types.GenericAlias:
            return self._generic(tp, tp.__origin__, tp.__args__, path, owner)
        if kind is _OPTIONAL_ALIAS or kind is types.UnionType:
            return self._union(tp, path, owner)
        if kind is enum.EnumMeta:
            return self._enum_or_flag(tp, path, owner)
        if tp is None or tp is t.NoneType:
            return _NULL
        if t.is_any(tp) or tp is object:
            return AnyNode()
        if isinstance(tp, (str, typing.ForwardRef)):
            name = tp if isinstance(tp, str) else tp.__forward_arg__
            resolved = resolve_forward(name, owner)
            if resolved is not None:
                return self.node(resolved, path, owner)
            raise SchemaError(
                f"cannot resolve the forward reference {name!r}; define {name} at module "
                "level (or import it) so typing.get_type_hints can find it",
                path=path,
                type_=owner,
            )
        if t.is_typevar(tp):
            raise SchemaError(
                f"the type variable {tp.__name__} is not bound; describe a parametrized "
                f"generic such as {object_name(owner)}[int]",
                path=path,
                type_=owner,
            )
        if isinstance(tp, type) and tp in _SCALAR_NODES:
            return _SCALAR_NODES[tp]
        if isinstance(tp, type) and issubclass(tp, enum.Enum):
            return self._enum_or_flag(tp, path, owner)
        if t.is_literal(tp):
            return self._literal(tp, path, owner)
        if t.is_union(tp):
            return self._union(tp, path, owner)
        return self._generic(tp, t.get_origin(tp), t.get_args(tp), path, owner)

    def _union(self, tp: Any, path: str, owner: Any) -> Node:
        options: list[Node] = []
        described_union = False
        for arg in tp.__args__:
            sub = self.node(arg, path, owner)
            if isinstance(sub, UnionNode):
                if sub.description is None and sub.enum is None:
                    options.extend(o for o in sub.options if o not in options)
                    continue
                described_union = described_union or sub.nullable
            if sub not in options:
                options.append(sub)
        if described_union:
            # Python 3.10 wraps a None-defaulted Annotated[X | None, ...] in Optional
            # again; the described union already allows null.
            options = [o for o in options if not isinstance(o, NullNode)]
        return options[0] if len(options) == 1 else UnionNode(options=tuple(options))

    def _enum_or_flag(self, cls: Any, path: str, owner: Any) -> Node:
        # One node per Enum class and inspection: it holds nothing that depends on the use.
        found = self._enums.get(cls)
        if found is None:
            if issubclass(cls, enum.Flag):
                found = self._flag(cls, path, owner)
            else:
                found = self._enum(cls, path, owner)
            self._enums[cls] = found
        return found

    def _generic(self, tp: Any, origin: Any, args: tuple[Any, ...], path: str, owner: Any) -> Node:
        """Containers, generic classes, and the errors for what cannot be described."""
        if origin is tuple or tp is tuple or origin is typing.Tuple:  # noqa: UP006
            if not args or (len(args) == 2 and args[1] is Ellipsis):
                item = self.node(args[0], f"{path}[]", owner) if args else AnyNode()
                return ArrayNode(items=item, container=tuple)
            if args == ((),):
                return TupleNode(items=())
            return TupleNode(
                items=tuple(self.node(a, f"{path}[{i}]", owner) for i, a in enumerate(args))
            )
        base = origin if origin is not None else tp
        if base in _LIST_ORIGINS:
            item = self.node(args[0], f"{path}[]", owner) if args else AnyNode()
            return ArrayNode(items=item, container=_LIST_ORIGINS[base])
        if base in _SET_ORIGINS:
            item = self.node(args[0], f"{path}[]", owner) if args else AnyNode()
            return ArrayNode(items=item, container=_SET_ORIGINS[base], unique=True)
        if base in _DICT_ORIGINS:
            key_tp, value_tp = args if args else (str, Any)
            key = self.node(key_tp, f"{path}{{}}", owner)
            if not _is_string_key(key):
                raise SchemaError(
                    f"dict keys must be strings in JSON, got {t.type_repr(key_tp)}; "
                    "use dict[str, ...] (or a str Enum / Literal of strings as the key)",
                    path=path,
                    type_=owner,
                )
            value = self.node(value_tp, f"{path}{{}}", owner)
            return DictNode(keys=key, values=value, container=_DICT_ORIGINS[base])
        cls = origin if origin is not None else tp
        if isinstance(cls, type) and (
            attrs.has(cls)
            or dataclasses.is_dataclass(cls)
            or mt.is_typeddict(cls)
            or mt.is_namedtuple(cls)
            or pyd.is_model(cls)
        ):
            return self.object(tp, path)
        if t.is_classvar(tp):
            raise SchemaError("ClassVar is not a field type", path=path, type_=owner)
        try:
            hint = _SUGGESTIONS.get(tp)
        except TypeError:  # an unhashable object where a type should be
            hint = None
        if hint is None and isinstance(tp, type) and hasattr(tp, "__fields__") and hasattr(
            tp, "parse_obj"
        ):
            hint = (
                "it is a pydantic v1 model (pydantic.v1.BaseModel); describedtypes reads "
                "pydantic v2 models: derive it from pydantic.BaseModel"
            )
        if hint is None and isinstance(tp, type) and issubclass(tp, str):
            return ScalarNode(type="string", python_type=tp)
        reason = f"cannot describe {t.type_repr(tp)} to a model"
        fix = hint or (
            "use an attrs class, dataclass or pydantic model, a builtin (str, int, float, bool, "
            "list, dict), "
            "an Enum, a Literal, datetime/date/time/UUID, or a union of these"
        )
        raise SchemaError(f"{reason}; {fix}", path=path, type_=owner)

    def _enum(self, cls: type[enum.Enum], path: str, owner: Any) -> EnumNode:
        values = tuple(member.value for member in cls)
        if not values:
            raise SchemaError(
                f"the Enum {cls.__qualname__} has no members; a model cannot pick a value",
                path=path,
                type_=owner,
            )
        try:
            kinds = json_types(values)
        except TypeError:
            bad = next(v for v in values if not isinstance(v, (str, int, float, bool)))
            raise SchemaError(
                f"the Enum {cls.__qualname__} has the value {bad!r}, which is not a JSON "
                "scalar; give its members str or int values",
                path=path,
                type_=owner,
            ) from None
        return EnumNode(cls=cls, values=values, types=kinds)

    def _flag(self, cls: type[enum.Flag], path: str, owner: Any) -> ArrayNode:
        """A Flag: an array of the names of its single-bit members (``[]`` for none)."""
        members = mt.flag_members(cls)
        if not members:
            raise SchemaError(
                f"the Flag {cls.__qualname__} has no single-bit members with int values; a "
                "model cannot name a combination of them",
                path=path,
                type_=owner,
            )
        names = tuple(m.name or "" for m in members)
        items = LiteralNode(values=names, python_values=tuple(members), types=("string",))
        return ArrayNode(items=items, container=cls, unique=True)

    def _literal(self, tp: Any, path: str, owner: Any) -> Node:
        python_values: list[Any] = []
        keys: set[Any] = set()
        for arg in _flatten_literal(tp):
            # By type and value: 1 == True, yet Literal[1, True] allows both. A set of
            # keys that mean what same_value means keeps this linear in the values.
            key = _literal_key(arg)
            if key is None:
                if not any(same_value(arg, seen) for seen in python_values):
                    python_values.append(arg)
            elif key not in keys:
                keys.add(key)
                python_values.append(arg)
        values = []
        for v in python_values:
            value = v.value if isinstance(v, enum.Enum) else v
            if not isinstance(value, (str, int, float, bool)) and value is not None:
                raise SchemaError(
                    f"the Literal value {v!r} is not a JSON scalar; use str, int, bool or None",
                    path=path,
                    type_=owner,
                )
            values.append(value)
        return LiteralNode(
            values=tuple(values),
            python_values=tuple(python_values),
            types=json_types(tuple(values)),
        )

    # -- objects ---------------------------------------------------------------------

    def object(self, tp: Any, path: str) -> ObjectNode:
        try:
            cached = self._objects.get(tp)
        except TypeError:
            cached = None
        if cached is not None:
            return cached
        origin = None if type(tp) is type else t.get_origin(tp)  # Box[int]'s is Box
        cls = origin if origin is not None else tp
        model = origin is None and type(tp) is not type and pyd.is_model(tp)
        # pydantic makes a class of Box[int]: Box with its arguments, as for attrs.
        generic = pyd.generic_origin(tp) if model else None
        if generic is not None:
            base, generic_args = generic
            ann = self._alias_annotation(tp, base)
            override = self.override_parameters(tp, base)
        else:
            base, generic_args = cls, t.get_args(tp) if origin is not None else ()
            ann = self.annotation(tp) if origin is None else self._alias_annotation(tp, cls)
            override = self.override_parameters(tp, cls)
        node = ObjectNode(
            python_type=tp,
            name=ann.name or object_name(base),
            description=ann.description,
            generic_args=generic_args,
        )
        # Registered before the fields are read, so a type that contains itself
        # finds this node instead of recursing forever.
        self._objects[tp] = node
        root = path or node.name
        try:
            if model:
                hints, raw_fields = _model_rows(tp, root)
            else:
                hints = class_hints(cls, tp)
                raw_fields = list(class_fields(cls, hints))
        except SchemaError:
            del self._objects[tp]
            raise
        except NameError as exc:
            del self._objects[tp]
            raise SchemaError(
                f"cannot resolve a type annotation of {cls.__qualname__}: {exc}; define the "
                "missing name at module level so typing.get_type_hints can find it",
                path=root,
                type_=tp,
            ) from None
        if ann.parameters:
            check_parameter_names(ann, [row[0] for row in raw_fields], root, tp)
        fields = []
        parameters = ann.parameters
        # A TypedDict key left out is not a key holding None.
        absent_is_none = not mt.is_typeddict(cls)
        overridden = override.get if override else None
        for name, init_name, default, factory, validator in raw_fields:
            field_ann = parameters.get(name, _NO_ANNOTATION) if parameters else _NO_ANNOTATION
            field_path = f"{root}.{name}"
            hint = hints.get(name, _NO_HINT)
            if hint is _NO_HINT:
                raise SchemaError(
                    "the field has no type annotation; annotate it (e.g. `x: int`)",
                    path=field_path,
                    type_=tp,
                )
            # A plain str/int/float/... field: its shared node, without the walk.
            scalar = _SCALAR_NODES.get(hint) if type(hint) is type else None
            fnode = self.node(hint, field_path, tp) if scalar is None else scalar
            if validator is not None:
                fnode = apply_validator(fnode, validator, field_path, tp)
            if type(hint) is not type and type(hint) not in NOTHING_TO_UNWRAP:
                field_ann = with_annotated_name(field_ann, hint)
            if field_ann.enum is not None:
                refuse_fixed_enum(fnode, field_ann.enum, field_path, tp)
            fields.append(make_field(
                name, init_name, fnode, field_ann, overridden(name) if overridden else None,
                default, factory, absent_is_none,
            ))
        check_unique_keys(fields, root, tp)
        # Frozen from birth; its fields are set once, here, after the fields that lead
        # back to it (a recursive type) have found it.
        object.__setattr__(node, "fields", tuple(fields))
        return node

    def function(self, func: Any) -> ObjectNode:
        """The parameters of ``func`` as an object node."""
        target, hidden, layers = unwrap_callable(func)
        name = object_name(func)
        try:
            signature = _pyinspect.signature(func)
        except (TypeError, ValueError) as exc:
            raise SchemaError(
                f"cannot read the signature of {name}: {exc}; describe a Python function",
                path=name,
                type_=func,
            ) from None
        ann, override = self.function_annotation(func, layers)
        # The override may describe any parameter of the underlying function, including
        # ones a partial binds; docstring entries for names that are not parameters
        # (``**kwargs``, say) are ignored.
        check_parameter_names(
            Annotation(parameters=override), all_parameter_names(target, signature), name, func
        )
        hints = function_hints(target, name, func)
        params = list(signature.parameters.values())
        if params and params[0].name in {"self", "cls"} and params[0].name not in hints:
            params = params[1:]
        params = [p for p in params if p.name not in hidden]
        fields: list[Field] = []
        context: list[str] = []
        for p in params:
            ppath = f"{name}.{p.name}"
            if p.kind is p.VAR_POSITIONAL or p.kind is p.VAR_KEYWORD:
                star = "*" if p.kind is p.VAR_POSITIONAL else "**"
                raise SchemaError(
                    f"{star}{p.name} cannot be described to a model, which passes arguments "
                    "by name; replace it with named parameters (or a list/dict parameter)",
                    path=ppath,
                    type_=func,
                )
            if p.kind is p.POSITIONAL_ONLY:
                raise SchemaError(
                    "positional-only parameters cannot be passed by name, and a model passes "
                    "arguments by name; remove the `/` from the signature, bind the "
                    "parameter with functools.partial, or wrap the function",
                    path=ppath,
                    type_=func,
                )
            if p.name not in hints:
                raise SchemaError(
                    "the parameter has no type annotation; annotate it (e.g. `city: str`)",
                    path=ppath,
                    type_=func,
                )
            hint = hints[p.name]
            if is_context(hint):
                context.append(p.name)
                continue
            pnode = self.node(hint, ppath, func)
            default = NOTHING if p.default is p.empty else p.default
            param_ann = with_annotated_name(ann.parameters.get(p.name, Annotation()), hint)
            refuse_fixed_enum(pnode, param_ann.enum, ppath, func)
            fields.append(
                make_field(p.name, p.name, pnode, param_ann, override.get(p.name), default, None)
            )
        check_unique_keys(fields, name, func)
        return ObjectNode(
            # A bound method's node is cached on its function: it must not hold the
            # instance (a service, a session) alive.
            python_type=func.__func__ if _pyinspect.ismethod(func) else func,
            name=ann.name or name,
            description=ann.description,
            fields=tuple(fields),
            is_function=True,
            context_params=tuple(context),
        )


def _model_rows(cls: Any, path: str) -> tuple[dict[str, Any], list[Any]]:
    """A pydantic model's hints and field rows, in the shape ``class_fields`` gives."""
    fields = pyd.model_fields(cls, path)
    hints = {f.name: f.hint for f in fields}
    rows = [(f.name, f.init_key, f.default, f.factory, None) for f in fields]
    return hints, rows


def _is_string_key(node: Node) -> bool:
    if isinstance(node, ScalarNode):
        return node.type == "string"
    if isinstance(node, (EnumNode, LiteralNode)):
        return node.types == ("string",)
    return False


def _literal_key(value: Any) -> Any:
    """A hashable key that two Literal values share exactly when ``same_value`` says they
    are the same (None for a value that cannot be hashed: compared one by one)."""
    base = value
    if isinstance(value, enum.Enum) and isinstance(value, (str, int, float)):
        # A str or int enum member equals its value, but hashes by its name.
        base = value._value_
    key = (isinstance(value, bool), base)
    try:
        hash(key)
    except TypeError:
        return None
    return key


def _flatten_literal(tp: Any) -> Iterator[Any]:
    for arg in t.get_args(tp):
        if t.is_literal(arg):
            yield from _flatten_literal(arg)
        else:
            yield arg


def _annotation_for_alias(alias: Any, cls: type, inspector: _Inspector) -> Annotation:
    # Box[int] has its own registration if there is one, else Box's.
    base = inspector.annotation(cls)
    own = inspector.override(alias)
    if own is None:
        return base
    return own.merged_over(default_annotation(alias)).merged_over(base)


def is_function_like(obj: Any) -> bool:
    """True for functions, methods, partials and other non-class callables."""
    if isinstance(obj, type) or t.get_origin(obj) is not None or t.is_special_form(obj):
        return False
    return callable(obj) and not isinstance(obj, enum.Enum)


def _check_describable(obj: Any) -> None:
    """Catch the common slips of passing something that stands for a type."""
    cls = type(obj)
    if not isinstance(obj, type) and (
        attrs.has(cls) or dataclasses.is_dataclass(cls) or pyd.is_model_instance(obj)
    ):
        raise SchemaError(
            f"got an instance of {cls.__qualname__}, not a type; pass the class itself: "
            f"schema({cls.__qualname__})",
            type_=obj,
        )
    if isinstance(obj, str):
        raise SchemaError(
            f"got the string {obj[:60]!r}, not a type; pass the class or function itself "
            "(the command line takes names: python -m describedtypes schema module:Name)",
            type_=obj,
        )
    if isinstance(obj, (list, dict, set, tuple)) and not t.get_origin(obj):
        raise SchemaError(
            f"got a {cls.__name__} value, not a type; describe its type instead, e.g. "
            "list[int] or dict[str, float]",
            type_=obj,
        )


def type_info(obj: Any, registry: Registry = annotate) -> Node:
    """Inspect a type expression or a function into a node tree (cached).

    Args:
        obj: A type expression or a function.
        registry: Where registered annotations are looked up.

    Raises:
        SchemaError: ``obj`` (or something inside it) cannot be described.

    .. versionadded:: 0.1.0
    """
    key = ("node", _cache.key_of(obj), registry)
    entry = _cache.get(obj, key)
    if entry is not None and entry.is_current():
        node: Node = entry.value
        return node
    stamp = _current_stamp()
    _check_describable(obj)
    check_registry(registry)
    inspector = _Inspector(registry)
    try:
        with remembering_hints():
            if is_function_like(obj):
                node = inspector.function(obj)
            else:
                node = inspector.node(obj, "", obj)
    except RecursionError:
        # Called from deep in the caller's own stack: less room than _MAX_NESTING needs.
        raise too_deep_error(obj) from None
    _cache.put(obj, key, _cache.Entry(node, registry, stamp, deps=inspector.deps))
    return node


def too_deep_error(obj: Any, action: str = "inspect") -> SchemaError:
    """The SchemaError for a type Python's recursion limit stops us from walking."""
    return SchemaError(
        f"cannot {action} {object_name(obj)}: it is nested too deeply for Python's "
        f"recursion limit ({sys.getrecursionlimit()}) here; flatten the type, or let a "
        "class refer to itself (a recursive class is described once, by reference)",
        path=object_name(obj),
        type_=obj,
    )


def _short(path: str) -> str:
    """A dotted path cut in the middle when a deep type makes it long."""
    return path if len(path) <= 200 else f"{path[:80]}…{path[-100:]}"

"""Reading what a class or function declares: evaluated type hints (forward references
included), fields with their defaults, a callable's layers, and attrs validators as
schema constraints.
"""

from __future__ import annotations

import collections.abc
import contextlib
import dataclasses
import enum
import functools
import inspect as _pyinspect
import re
import sys
import typing
from collections.abc import Callable, Iterator
from typing import Any

import attrs

from ..errors import SchemaError
from . import kinds as mt
from . import predicates as t
from .context import Context
from .nodes import (
    NOTHING,
    Constraints,
    Node,
    NullNode,
    ObjectNode,
    UnionNode,
    is_number_text,
)
from .scalars import as_bound, is_number
from .type_hints import type_hints


def resolve_forward(name: str, owner: Any) -> Any:
    """Evaluate a forward reference left inside a generic (``list["Tree"]``) by Python 3.10.

    Python 3.11 evaluates these in ``get_type_hints``; 3.10 leaves the string. The names
    visible are the owner's module globals and the owner itself.
    """

    target = getattr(owner, "__origin__", None) or owner
    target = getattr(target, "__func__", target)
    namespace: dict[str, Any] = {}
    module = sys.modules.get(getattr(target, "__module__", "") or "")
    if module is not None:
        namespace.update(vars(module))
    namespace.update(getattr(target, "__globals__", {}))
    if isinstance(target, type):
        namespace.setdefault(target.__name__, target)
    try:
        return eval(name, namespace)  # what get_type_hints itself does
    except Exception:  # any failure: "cannot resolve", told by the caller
        return None


def is_context(hint: Any) -> bool:
    """``Context``, ``Context[T]``, ``Context[T] | None`` (``Annotated`` seen through)."""
    while t.is_annotated(hint):
        hint = t.get_args(hint)[0]
    if hint is Context or t.get_origin(hint) is Context:
        return True
    if t.is_union(hint):
        options = [a for a in t.get_args(hint) if a is not t.NoneType and a is not None]
        return bool(options) and all(is_context(a) for a in options)
    return False


# ``Context[...]`` written as text, for annotations that cannot be evaluated (the context
# type is often imported under ``if TYPE_CHECKING:`` only).
_CONTEXT_TEXT = re.compile(r"\s*(?:[\w.]+\.)?Context\s*(?:\[.*\])?\s*(?:\|\s*None\s*)?")


class _HintsOf:
    """Strictly private: one annotation with the globals it is evaluated in."""

    def __init__(self, name: str, annotation: Any, globalns: Any) -> None:
        self.__annotations__ = {name: annotation}
        self.__globals__ = globalns


def function_hints(target: Any, name: str, func: Any) -> dict[str, Any]:
    """The evaluated parameter annotations of ``target``.

    When some annotation cannot be evaluated, the parameters are evaluated one by one so
    the error names the parameter; a ``Context[...]`` annotation that names a type
    imported for type checking only is accepted as a context parameter.
    """
    with contextlib.suppress(Exception):  # NameError, or a TypeError: find which one
        return typing.get_type_hints(target, include_extras=True)
    raw = getattr(target, "__annotations__", None) or {}
    globalns = getattr(target, "__globals__", {})
    hints: dict[str, Any] = {}
    for pname, annotation in raw.items():
        if pname == "return":
            continue
        try:
            hints[pname] = typing.get_type_hints(
                _HintsOf(pname, annotation, globalns), include_extras=True
            )[pname]
        except Exception as exc:
            if isinstance(annotation, str) and _CONTEXT_TEXT.fullmatch(annotation):
                hints[pname] = Context
                continue
            raise SchemaError(
                f"cannot resolve the type annotation {annotation!r}: {exc}; define or import "
                "the missing name at module level so typing.get_type_hints can find it",
                path=f"{name}.{pname}",
                type_=func,
            ) from None
    return hints


def all_parameter_names(target: Any, signature: _pyinspect.Signature) -> list[str]:
    names = list(signature.parameters)
    try:
        inner = _pyinspect.signature(target)
    except (TypeError, ValueError):
        return names
    return names + [n for n in inner.parameters if n not in names]


def class_hints(cls: type, tp: Any) -> dict[str, Any]:
    hints: dict[str, Any] = {}
    # Walk the MRO so generic parents are substituted with the arguments they got.
    for klass in reversed(cls.__mro__):
        if klass is object:
            continue
        try:
            own = type_hints(klass)
        except TypeError:
            # Python 3.10 refuses a string annotation that evaluates to InitVar[T]
            # ("Forward references must evaluate to types"): evaluate those by hand.
            own = _hints_one_by_one(klass)
        hints.update(own)
    params = getattr(cls, "__parameters__", ())
    args = t.get_args(tp)
    if params and args:
        mapping = dict(zip(params, args, strict=False))
        hints = {k: _substitute(v, mapping) for k, v in hints.items()}
    return hints


def _hints_one_by_one(klass: type) -> dict[str, Any]:

    module = sys.modules.get(klass.__module__)
    globalns = dict(vars(module)) if module is not None else {}
    own: dict[str, Any] = {}
    for name, annotation in _pyinspect.get_annotations(klass).items():
        try:
            own[name] = typing.get_type_hints(
                _HintsOf(name, annotation, globalns), include_extras=True
            )[name]
        except TypeError:
            if not isinstance(annotation, str):
                raise
            own[name] = eval(annotation, globalns, dict(vars(klass)))  # as get_type_hints does
    return own


def _substitute(tp: Any, mapping: dict[Any, Any]) -> Any:
    if t.is_typevar(tp):
        return mapping.get(tp, tp)
    params = getattr(tp, "__parameters__", ())
    if params:
        try:
            return tp[tuple(mapping.get(p, p) for p in params)]
        except TypeError:
            return tp
    return tp


_FieldRow = tuple[str, str, Any, Callable[[], Any] | None, Any]


def class_fields(cls: type, hints: dict[str, Any]) -> Iterator[_FieldRow]:
    if attrs.has(cls):  # the common case first
        for a in attrs.fields(cls):
            if not a.init:
                continue
            default, factory = a.default, None
            if isinstance(default, attrs.Factory):  # type: ignore[arg-type]
                if default.takes_self:
                    default, factory = NOTHING, None
                    # A default computed from self can't be shown; the field stays optional.
                    yield a.name, a.alias or a.name, TAKES_SELF, None, a.validator
                    continue
                default, factory = NOTHING, default.factory
            yield a.name, a.alias or a.name, default, factory, a.validator
        return
    if mt.is_typeddict(cls):
        required_keys = getattr(cls, "__required_keys__", frozenset(hints))
        for key in hints:
            required = mt.qualified_required(hints[key])
            if required is None:
                required = key in required_keys
            # A key that may be left out is left out of the dict when absent.
            yield key, key, NOTHING if required else ABSENT, None, None
        return
    if mt.is_namedtuple(cls):
        defaults = cls._field_defaults  # type: ignore[attr-defined]
        for name in cls._fields:  # type: ignore[attr-defined]
            yield name, name, defaults.get(name, NOTHING), None, None
        return
    # A dataclass: every __init__ parameter, InitVar pseudo-fields included, in
    # signature order.
    own: dict[str, dataclasses.Field[Any]] = getattr(cls, "__dataclass_fields__", {})
    for f in own.values():
        if not f.init or f._field_type is dataclasses._FIELD_CLASSVAR:  # type: ignore[attr-defined]
            continue
        default = NOTHING if f.default is dataclasses.MISSING else f.default
        factory = None if f.default_factory is dataclasses.MISSING else f.default_factory
        yield f.name, f.name, default, factory, None


class _TakesSelf:
    """A default computed from the instance: present, but not a JSON value."""

    def __repr__(self) -> str:
        return "<computed default>"


TAKES_SELF: Any = _TakesSelf()


class _Absent:
    """A TypedDict key that may be left out: absent from the dict when not sent."""

    def __repr__(self) -> str:
        return "<left out>"


ABSENT: Any = _Absent()


def unwrap_callable(func: Any) -> tuple[Any, set[str], list[Any]]:
    """The plain function behind ``func``, the keywords partials bind, and the layers.

    Sees through ``functools.partial`` (its bound keywords are hidden from the model; its
    bound positional arguments are already gone from ``inspect.signature``), bound
    methods, ``staticmethod`` objects, callable objects (their ``__call__``) and
    ``functools.wraps`` decorators.

    Returns:
        ``(function, hidden keyword names, layers from func inwards)``.
    """
    hidden: set[str] = set()
    layers: list[Any] = [func]
    while isinstance(func, functools.partial):
        hidden.update(func.keywords)
        func = func.func
        layers.append(func)
    inner = getattr(func, "__func__", None)
    if inner is not None and (_pyinspect.ismethod(func) or isinstance(func, staticmethod)):
        func = inner
        layers.append(func)
    if not (_pyinspect.isfunction(func) or _pyinspect.isbuiltin(func)) and callable(func):
        call = type(func).__call__
        if _pyinspect.isfunction(call):
            func = call
            layers.append(func)
    return _pyinspect.unwrap(func), hidden, layers


def _iter_validators(validator: Any) -> Iterator[Any]:
    if validator is None:
        return
    inner = getattr(validator, "_validators", None)
    if inner is not None:  # and_() / a list of validators
        for v in inner:
            yield from _iter_validators(v)
        return
    if type(validator).__name__ == "_OptionalValidator":
        yield from _iter_validators(validator.validator)
        return
    yield validator


def apply_validator(node: Node, validator: Any, path: str, owner: Any) -> Node:
    if validator is None:
        return node
    enum_values: tuple[Any, ...] | None = None
    found = Constraints()
    for v in _iter_validators(validator):
        kind = type(v).__name__
        if kind == "_InValidator":
            options = v.options
            if isinstance(options, (str, bytes, dict)) or not isinstance(
                options, collections.abc.Iterable
            ):
                continue
            values = tuple(o.value if isinstance(o, enum.Enum) else o for o in options)
            if all(isinstance(x, (str, int, float, bool)) for x in values):
                enum_values = values
        elif kind == "_NumberValidator":
            bound = _json_bound(v.bound, node)
            if bound is not None:
                op = v.compare_op
                if op == ">=":
                    found = found.merged(Constraints(minimum=bound))
                elif op == ">":
                    found = found.merged(Constraints(exclusive_minimum=bound))
                elif op == "<=":
                    found = found.merged(Constraints(maximum=bound))
                elif op == "<":
                    found = found.merged(Constraints(exclusive_maximum=bound))
        elif kind == "_MinLengthValidator":
            found = found.merged(Constraints(min_length=v.min_length))
        elif kind == "_MaxLengthValidator":
            found = found.merged(Constraints(max_length=v.max_length))
        elif kind == "_MatchesReValidator":
            pattern = _json_pattern(v)
            if pattern is not None:
                found = found.merged(Constraints(pattern=pattern))
    if not found and enum_values is None:
        return node
    return constrain(node, found, enum_values)


def _json_bound(bound: Any, node: Node) -> Any:
    """A number validator's bound as the schema states it, or None if no number can.

    As for ``Annotated[T, Ge(...)]``: a Decimal field keeps the bound as it is (said in
    words, as a Decimal is a JSON string); on an int or float field a Decimal bound
    becomes the int or float it equals. NaN and infinite bounds have no JSON form.
    """
    if not is_number(bound):
        return None
    target = node.without_null() if isinstance(node, UnionNode) and node.nullable else node
    return as_bound(bound, number_text=is_number_text(target))


def _json_pattern(validator: Any) -> str | None:
    """The JSON Schema ``pattern`` of an attrs ``matches_re`` validator.

    attrs matches with ``re.fullmatch`` unless told otherwise, while a JSON Schema
    ``pattern`` matches anywhere in the string, so the pattern is anchored to say the same.
    """
    compiled = validator.pattern
    pattern = compiled.pattern if isinstance(compiled, re.Pattern) else compiled
    if not isinstance(pattern, str):
        return None
    func = getattr(validator.match_func, "__name__", "fullmatch")
    if func == "search":
        return pattern
    if func == "match":
        return f"^(?:{pattern})"
    return f"^(?:{pattern})$"


def constrain(node: Node, found: Constraints, enum_values: tuple[Any, ...] | None) -> Node:
    if isinstance(node, UnionNode) and node.nullable:
        inner = constrain(node.without_null(), found, enum_values)
        return UnionNode(options=(inner, NullNode()), description=node.description, enum=node.enum)
    if isinstance(node, ObjectNode):
        return node
    changes: dict[str, Any] = {"constraints": node.constraints.merged(found)}
    if enum_values is not None:
        changes["enum"] = enum_values
    return attrs.evolve(node, **changes)

"""Low-level predicates over typing objects (typing and typing_extensions alike)."""

from __future__ import annotations

import types
import typing
from typing import Any

import typing_extensions

__all__ = [
    "NoneType",
    "get_args",
    "get_origin",
    "is_annotated",
    "is_classvar",
    "is_final",
    "is_literal",
    "is_newtype",
    "is_type_alias_type",
    "is_typevar",
    "is_union",
    "type_repr",
]

NoneType = type(None)

get_origin = typing_extensions.get_origin
get_args = typing_extensions.get_args

_UNION_TYPES: tuple[Any, ...] = (typing.Union, types.UnionType)

_LITERALS = {typing.Literal, typing_extensions.Literal}
_ANNOTATED = {typing.Annotated, typing_extensions.Annotated}
_CLASSVARS = {typing.ClassVar, typing_extensions.ClassVar}
_FINALS = {typing.Final, typing_extensions.Final}
_ALIAS_TYPES: tuple[type, ...] = tuple(
    {t for t in (getattr(typing, "TypeAliasType", None), typing_extensions.TypeAliasType) if t}
)


#: The class of typing's special forms (``ClassVar``; ``Any`` too before Python 3.11):
#: callable objects that stand for a type, never functions to describe.
_SPECIAL_FORM = type(typing.ClassVar)


def is_special_form(tp: Any) -> bool:
    return isinstance(tp, _SPECIAL_FORM)


def is_any(tp: Any) -> bool:
    """``typing.Any`` (or ``typing_extensions.Any``, a class of its own before 3.11)."""
    return tp is typing.Any or tp is typing_extensions.Any


def is_union(tp: Any) -> bool:
    """``Union[...]``, ``Optional[...]`` or ``A | B``."""
    return get_origin(tp) in _UNION_TYPES or isinstance(tp, _UNION_TYPES[1:])


def is_literal(tp: Any) -> bool:
    return get_origin(tp) in _LITERALS


def is_annotated(tp: Any) -> bool:
    return get_origin(tp) in _ANNOTATED


def _is_one_of(tp: Any, forms: set[Any]) -> bool:
    # By identity: ``tp`` may be any object, unhashable ones included.
    return any(tp is form for form in forms) or get_origin(tp) in forms


def is_classvar(tp: Any) -> bool:
    return _is_one_of(tp, _CLASSVARS)


def is_final(tp: Any) -> bool:
    return _is_one_of(tp, _FINALS)


def is_newtype(tp: Any) -> bool:
    return isinstance(tp, typing.NewType) if isinstance(typing.NewType, type) else hasattr(
        tp, "__supertype__"
    )


def is_type_alias_type(tp: Any) -> bool:
    return bool(_ALIAS_TYPES) and isinstance(tp, _ALIAS_TYPES)


def is_typevar(tp: Any) -> bool:
    # typing_extensions.TypeVar makes typing.TypeVar objects (or a subclass's), and its
    # own isinstance check is a slow metaclass hook: typing.TypeVar alone says it all.
    return isinstance(tp, typing.TypeVar)


def type_repr(tp: Any) -> str:
    """A short, readable spelling of a type for error messages."""
    if isinstance(tp, type) and not get_args(tp):
        return tp.__qualname__ if tp.__module__ not in {"builtins"} else tp.__name__
    if tp is None or tp is NoneType:
        return "None"
    text = repr(tp)
    return text.replace("typing.", "").replace("typing_extensions.", "")

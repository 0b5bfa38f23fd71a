"""Griffe extension for the API reference: the ``__init__`` attrs generates, as a signature.

Griffe reads the source, where an attrs class has no ``__init__``; without one, the
reference shows the ``Args:`` of the class docstring with no type and every parameter
"required". This imports each attrs class and writes down the ``__init__`` attrs made:
the parameters in order, their annotations as written in the class, their defaults, and
keyword-only where attrs made them so.
"""

from __future__ import annotations

import importlib
from typing import Any

import attrs
import griffe


def _runtime(cls: griffe.Class) -> Any:
    try:
        obj: Any = importlib.import_module(cls.module.path)
        for part in cls.path.removeprefix(cls.module.path + ".").split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError):
        return None
    return obj


def _default(field: Any) -> str | None:
    default = field.default
    if default is attrs.NOTHING:
        return None
    if isinstance(default, attrs.Factory):  # type: ignore[arg-type]
        factory = default.factory
        if not default.takes_self:
            try:
                text = repr(factory())
            except Exception:
                text = ""
            if text and len(text) <= 30:
                return text
        return f"{getattr(factory, '__name__', 'factory')}()"
    return repr(default)


def _annotation(cls: griffe.Class, field: Any) -> Any:
    member = cls.all_members.get(field.name)
    if isinstance(member, griffe.Attribute) and member.annotation is not None:
        return member.annotation
    if field.type is None:
        return None
    return field.type if isinstance(field.type, str) else getattr(field.type, "__name__", None)


def _set_init(cls: griffe.Class) -> None:
    runtime = _runtime(cls)
    if not isinstance(runtime, type) or not attrs.has(runtime):
        return
    parameters = [
        griffe.Parameter(
            "self", annotation=None, kind=griffe.ParameterKind.positional_or_keyword
        )
    ]
    for field in attrs.fields(runtime):
        if not field.init:
            continue
        parameters.append(
            griffe.Parameter(
                field.alias or field.name.lstrip("_"),
                annotation=_annotation(cls, field),
                kind=(
                    griffe.ParameterKind.keyword_only
                    if field.kw_only
                    else griffe.ParameterKind.positional_or_keyword
                ),
                default=_default(field),
            )
        )
    init = griffe.Function(
        "__init__",
        lineno=0,
        endlineno=0,
        parent=cls,
        parameters=griffe.Parameters(*parameters),
        returns="None",
    )
    cls.set_member("__init__", init)


def _walk(obj: griffe.Module | griffe.Class, seen: set[str]) -> None:
    if obj.path in seen:
        return
    seen.add(obj.path)
    if isinstance(obj, griffe.Class) and "__init__" not in obj.members:
        _set_init(obj)
    for member in obj.members.values():
        if not member.is_alias and (member.is_module or member.is_class):
            _walk(member, seen)  # type: ignore[arg-type]


class AttrsInit(griffe.Extension):
    """Adds the generated ``__init__`` to every attrs class that has none in its source."""

    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        """Walk the loaded package once it is complete."""
        _walk(pkg, set())

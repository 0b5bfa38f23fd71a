"""Facts about the less common types: TypedDict, NamedTuple, Flag, InitVar and the
``annotated_types`` constraints (and pydantic's pattern), shared by inspection, decoding
and encoding.

Flag
----
An ``enum.Flag`` (``IntFlag`` too) is a JSON array of the names of its single-bit
members: ``["READ", "WRITE"]`` for ``READ | WRITE``, ``[]`` for no flags. A model reads
names; the integer a combination makes means nothing to it.
"""

from __future__ import annotations

import dataclasses
import enum
import typing
from collections.abc import Iterator
from typing import Any

import typing_extensions

from . import predicates as t

__all__ = [
    "flag_members",
    "flag_names",
    "is_namedtuple",
    "is_typeddict",
    "metadata_bounds",
    "unwrap_qualifier",
]

def is_typeddict(tp: Any) -> bool:
    return isinstance(tp, type) and typing_extensions.is_typeddict(tp)


def is_namedtuple(tp: Any) -> bool:
    return (
        isinstance(tp, type)
        and issubclass(tp, tuple)
        and isinstance(getattr(tp, "_fields", None), tuple)
        and hasattr(tp, "_field_defaults")
    )


# typing has Required/NotRequired from Python 3.11 and ReadOnly from 3.13;
# typing_extensions has them all (ReadOnly from 4.9).
_REQUIRED = {f for f in (typing_extensions.Required, getattr(typing, "Required", None)) if f}
_NOT_REQUIRED = {
    f for f in (typing_extensions.NotRequired, getattr(typing, "NotRequired", None)) if f
}
_READ_ONLY = {
    f
    for f in (getattr(typing_extensions, "ReadOnly", None), getattr(typing, "ReadOnly", None))
    if f
}


def unwrap_qualifier(tp: Any) -> tuple[Any, bool | None] | None:
    """``(inner, required)`` for ``Required[T]`` / ``NotRequired[T]`` / ``ReadOnly[T]``
    (``required`` None for ReadOnly) and ``(T, None)`` for ``InitVar[T]``; else None."""
    if isinstance(tp, dataclasses.InitVar):
        return tp.type, None
    origin = t.get_origin(tp)
    if origin is None:
        return None
    if origin in _REQUIRED:
        return t.get_args(tp)[0], True
    if origin in _NOT_REQUIRED:
        return t.get_args(tp)[0], False
    if origin in _READ_ONLY:
        return t.get_args(tp)[0], None
    return None


def qualified_required(tp: Any) -> bool | None:
    """What ``Required`` / ``NotRequired`` around a TypedDict key's hint says, if anything."""
    while True:
        if t.is_annotated(tp):
            tp = t.get_args(tp)[0]
            continue
        found = unwrap_qualifier(tp)
        if found is None:
            return None
        tp, required = found
        if required is not None:
            return required


# -- Flag ----------------------------------------------------------------------------


def flag_members(cls: type[enum.Flag]) -> list[enum.Flag]:
    """The single-bit members of a Flag, in definition order (aliases and named
    combinations left out)."""
    out: list[enum.Flag] = []
    seen: set[int] = set()
    for member in cls.__members__.values():
        value = member.value
        if isinstance(value, int) and value > 0 and value & (value - 1) == 0 and value not in seen:
            seen.add(value)
            out.append(member)
    return out


def flag_names(value: enum.Flag) -> list[str]:
    """The names of the single-bit members ``value`` combines (raises for stray bits)."""
    cls = type(value)
    names: list[str] = []
    covered = 0
    for member in flag_members(cls):
        if member.value & value.value:
            names.append(member.name or "")
            covered |= member.value
    if covered != value.value:
        msg = (
            f"cannot encode {value!r}: it has bits no single member of {cls.__qualname__} "
            "stands for"
        )
        raise ValueError(msg)
    return names


# -- annotated_types -----------------------------------------------------------------

#: attribute of an annotated_types object -> the Constraints field it sets.
_BOUND_ATTRS = {
    "Gt": ("gt", "exclusive_minimum"),
    "Ge": ("ge", "minimum"),
    "Lt": ("lt", "exclusive_maximum"),
    "Le": ("le", "maximum"),
    "MultipleOf": ("multiple_of", "multiple_of"),
    "MinLen": ("min_length", "min_length"),
    "MaxLen": ("max_length", "max_length"),
}


def metadata_bounds(metadata: Any) -> Iterator[tuple[str, Any, str]]:
    """``(constraint field, value, spelled)`` for each ``annotated_types`` constraint
    among ``Annotated`` metadata (``Interval`` and ``Len`` unpacked).

    ``annotated_types`` is optional: without it installed nothing here matches.
    """
    try:
        import annotated_types as at
    except ImportError:
        return
    for item in metadata:
        kind = type(item).__name__
        if kind == "_PydanticGeneralMetadata":
            # pydantic's own constraints without an annotated_types class: only the
            # pattern is a bound of the JSON value; the rest (strict, allow_inf_nan,
            # strip_whitespace...) pydantic applies when it builds the instance.
            pattern = item.__dict__.get("pattern")
            if pattern is not None:
                text = getattr(pattern, "pattern", pattern)  # a compiled re.Pattern
                yield "pattern", text, f"pattern={text!r}"
            continue
        if kind == "FieldInfo" and isinstance(getattr(item, "metadata", None), list):
            # Annotated[T, Field(gt=0)] inside a container: pydantic's field metadata.
            yield from metadata_bounds(item.metadata)
            continue
        if isinstance(item, at.GroupedMetadata):  # Interval, Len, StringConstraints...
            yield from metadata_bounds(list(item))
            continue
        found = _BOUND_ATTRS.get(kind)
        if found is None or not isinstance(item, at.BaseMetadata):
            continue
        attr, field = found
        value = getattr(item, attr)
        if value is None:
            continue
        yield field, value, f"{kind}({value!r})"

"""A field's default as the JSON value a schema states (or none, where JSON has none)."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import Any

from .._types import inspector as ni
from .._types import kinds as mt
from .._types.scalars import scalar_of_value

__all__ = ["NO_DEFAULT", "json_default"]

#: What ``json_default`` gives for a default JSON cannot state (a date, a NaN, an object).
NO_DEFAULT = object()


def json_default(f: ni.Field) -> Any:
    """The JSON value of ``f``'s default, as ``encode()`` would write it, or ``NO_DEFAULT``.

    A factory's default is stated only for the empty containers (``list``, ``dict``,
    ...), whose value is known without calling user code.
    """
    if f.default_factory is not None:
        made = {list: [], dict: {}, set: [], frozenset: [], tuple: []}.get(f.default_factory)  # type: ignore[call-overload]
        return NO_DEFAULT if made is None else made
    return _to_json(f.default)


def _to_json(value: Any) -> Any:
    if isinstance(value, enum.Flag):
        return mt.flag_names(value)
    if isinstance(value, enum.Enum):
        value = value.value
    if value is None:
        return value
    row = scalar_of_value(value)
    if row is None:
        return _container_default(value)
    if row.read is not None:  # a date, a UUID: JSON has no such value, none is stated
        return NO_DEFAULT
    try:  # as encode() writes it: a Decimal as its digits
        return value if row.write is None else row.write(value)
    except ValueError:  # NaN, infinity: no JSON value
        return NO_DEFAULT


def _container_default(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        items = [_to_json(v) for v in value]
        return NO_DEFAULT if any(i is NO_DEFAULT for i in items) else items
    if isinstance(value, Mapping) and all(isinstance(k, str) for k in value):
        out = {k: _to_json(v) for k, v in value.items()}
        return NO_DEFAULT if any(v is NO_DEFAULT for v in out.values()) else out
    return NO_DEFAULT

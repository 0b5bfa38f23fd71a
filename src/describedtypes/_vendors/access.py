"""Reading provider objects: SDK objects by attribute, plain dicts (raw HTTP JSON,
``model_dump()`` output) by key, and a hostile accessor turned into a library error."""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from typing import Any

from ..errors import DescribedTypesError

__all__ = ["MISSING", "ShapeError", "enum_value", "field_of", "has", "items_of", "text_or_none"]

MISSING: Any = object()


class ShapeError(DescribedTypesError, TypeError):
    """Strictly private: a reply (or a part of one) is not in a shape these readers know.

    A ``TypeError``, as the readers document, and a ``DescribedTypesError``, as every
    error *describedtypes* raises on purpose is.
    """


def field_of(obj: Any, name: str, default: Any = None) -> Any:
    """``obj[name]`` for a mapping, ``obj.name`` for an SDK object; ``default`` if absent.

    Raises:
        ShapeError: Reading the field raised (a hostile ``__getattr__`` or property); the
            message names the field and the exception's type, never its text.
    """
    try:
        if obj.__class__ is dict or isinstance(obj, Mapping):
            return obj.get(name, default)
        return getattr(obj, name, default)
    except Exception as exc:
        msg = (
            f"reading {name!r} of a {_kind(obj)} raised {type(exc).__name__}; pass the "
            "provider's response object as the SDK returned it, or its JSON as a dict"
        )
        raise ShapeError(msg) from None


def has(obj: Any, name: str) -> bool:
    """Whether ``obj`` has the field ``name`` (None counts as present)."""
    return field_of(obj, name, MISSING) is not MISSING


def items_of(value: Any) -> list[Any]:
    """The items of a JSON array (list, tuple, SDK list); [] for anything else."""
    if value.__class__ is list:  # parsed JSON: no ABC checks
        return list(value)
    if value is None or isinstance(value, (str, bytes, Mapping)):
        return []
    if isinstance(value, Sequence):
        try:
            return list(value)
        except Exception:
            msg = f"iterating a {_kind(value)} raised; pass the provider's own list"
            raise ShapeError(msg) from None
    return []


def enum_value(value: Any) -> Any:
    """An SDK enum's value (Gemini's ``FinishReason.STOP`` -> ``"STOP"``), else itself."""
    if isinstance(value, enum.Enum):
        return value.value
    if value is None or isinstance(value, (str, int)):
        return value
    return field_of(value, "value", value)


def text_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _kind(obj: Any) -> str:
    try:
        return type(obj).__name__
    except Exception:  # pragma: no cover - type() does not fail on real objects
        return "object"

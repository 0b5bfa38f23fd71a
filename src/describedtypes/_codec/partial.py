"""Partial values: what has arrived of a reply that is still streaming (the value users
see; ``partial_builder`` makes them)."""

from __future__ import annotations

import types
from collections.abc import Mapping
from typing import Any, Generic, TypeVar, get_origin

from .._base.display import html_table
from .._types import inspector as ni

__all__ = ["Partial", "partial_of"]

T = TypeVar("T")

_EMPTY: Mapping[str, Any] = types.MappingProxyType({})
#: ``Partial._value`` of a class's partial: its value is its fields.
_FIELDS: Any = object()


class Partial(Generic[T]):
    """What has arrived so far of a ``T`` that is still streaming.

    Fields read as attributes (``partial.name``); ``fields`` maps the Python names of
    the fields that have arrived to their decoded values, and a field that has not
    arrived yet is absent (reading it raises ``AttributeError``). A finished nested
    object is an instance of its class, an enum a member, a date a ``date``; a nested
    object still arriving is a ``Partial`` of its class, a list still arriving a
    ``list`` of the items so far. At most one field, ``growing``, may still change:
    a string there is the text received so far (shown only for plain ``str`` fields,
    and checked against its constraints once it is finished), a list or object there
    may still gain items or fields. Every other field in ``fields`` is final.

    A partial is never an instance of ``T``: ``isinstance(value, Partial)`` tells a
    partial from the finished value. A field named like one of the attributes below is
    read through ``fields[...]``.

    Attributes:
        type_: The class (or type expression) this is a part of.
        fields: The fields that have arrived, by Python name (read-only).
        growing: The name of the field that may still change, or ``None``.
        value: What has arrived as plain data: a ``dict`` of the fields for a class;
            for any other type (a list, a dict, a string at the top) the value so far.

    .. versionadded:: 0.2.0
    """

    __slots__ = ("_fields", "_growing", "_type", "_value")

    _type: Any
    _fields: Mapping[str, Any]
    _growing: str | None
    _value: Any

    def __init__(
        self,
        type_: Any,
        fields: Mapping[str, Any] | None = None,
        *,
        growing: str | None = None,
        value: Any = None,
    ) -> None:
        object.__setattr__(self, "_type", type_)
        object.__setattr__(
            self, "_fields", types.MappingProxyType(dict(fields)) if fields else _EMPTY
        )
        object.__setattr__(self, "_growing", growing)
        object.__setattr__(self, "_value", _FIELDS if value is None else value)

    @property
    def type_(self) -> Any:
        """The class (or type expression) this is a part of."""
        return self._type

    @property
    def fields(self) -> Mapping[str, Any]:
        """The fields that have arrived, by Python name."""
        return self._fields

    @property
    def growing(self) -> str | None:
        """The name of the one field that may still change, or ``None``."""
        return self._growing

    @property
    def value(self) -> Any:
        """What has arrived, as plain data."""
        if self._value is _FIELDS:
            return dict(self._fields)
        return self._value

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name in Partial.__slots__:
            raise AttributeError(name)
        try:
            return self._fields[name]
        except KeyError:
            pass
        kind = _type_name(self._type)
        if name in _field_names(self._type):
            msg = (
                f"{kind}.{name} has not arrived yet; check "
                f"'{name}' in partial.fields first, or wait for the finished value"
            )
        else:
            msg = f"a Partial[{kind}] has no field {name!r}"
        raise AttributeError(msg)

    def __setattr__(self, name: str, value: Any) -> None:
        msg = "a Partial is read-only: it shows what has arrived so far"
        raise AttributeError(msg)

    def __delattr__(self, name: str) -> None:
        msg = "a Partial is read-only: it shows what has arrived so far"
        raise AttributeError(msg)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Partial):
            return NotImplemented
        return (
            self._type == other._type
            and self._growing == other._growing
            and self._fields == other._fields
            and self._value == other._value
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        kind = _type_name(self._type)
        if self._value is _FIELDS:
            shown = []
            for name, value in self._fields.items():
                mark = "…" if name == self._growing else ""
                shown.append(f"{name}={value!r}{mark}")
            return f"Partial[{kind}]({', '.join(shown)})"
        return f"Partial[{kind}]({self._value!r}…)"

    def _repr_html_(self) -> str:
        """What Jupyter shows: one row per field, with its value (escaped, cut to 200
        characters) and whether it is done, still arriving, or not here yet.

        .. versionadded:: 0.3.0
        """
        kind = _type_name(self._type)
        if self._value is not _FIELDS:
            rows: list[tuple[str, str, str]] = [("", repr(self._value), "arriving…")]
        else:
            rows = [
                (name, repr(value), "arriving…" if name == self._growing else "done")
                for name, value in self._fields.items()
            ]
            rows += [(name, "", "not yet") for name in _field_names(self._type)
                     if name not in self._fields]
        return html_table(f"Partial[{kind}]", ("field", "value", "state"),
                           [(n, _cut(v), st) for n, v, st in rows])

    def __dir__(self) -> list[str]:
        return sorted(set(super().__dir__()) | set(self._fields))

    def __reduce__(self) -> tuple[Any, ...]:
        value = None if self._value is _FIELDS else self._value
        return (_rebuild, (self._type, dict(self._fields), self._growing, value))


def partial_of(type_: Any, fields: dict[str, Any], growing: str | None) -> Partial[Any]:
    """A class's partial made of ``fields``, a dict no one else holds (not copied again)."""
    partial: Partial[Any] = _new(Partial)
    _set_type(partial, type_)
    _set_fields(partial, _proxy(fields) if fields else _EMPTY)
    _set_growing(partial, growing)
    _set_value(partial, _FIELDS)
    return partial


# Partial's own __setattr__ refuses (it is read-only): its slots are set through their
# descriptors, which is also half the cost of object.__setattr__ by name (a stream makes
# a partial per open class on each parse).
_set_type = Partial.__dict__["_type"].__set__
_set_fields = Partial.__dict__["_fields"].__set__
_set_growing = Partial.__dict__["_growing"].__set__
_set_value = Partial.__dict__["_value"].__set__
_new = object.__new__
_proxy = types.MappingProxyType


def _rebuild(type_: Any, fields: dict[str, Any], growing: str | None, value: Any) -> Partial[Any]:
    return Partial(type_, fields, growing=growing, value=value)


def _cut(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


def _field_names(tp: Any) -> list[str]:
    if not isinstance(tp, type) or get_origin(tp) is not None:
        return []
    try:
        node = ni.type_info(tp)
    except Exception:
        return []
    return [f.name for f in node.fields] if isinstance(node, ni.ObjectNode) else []


def _type_name(tp: Any) -> str:
    if isinstance(tp, type) and get_origin(tp) is None:  # list[int] is a type on 3.10
        return tp.__name__
    return repr(tp).replace("typing.", "")

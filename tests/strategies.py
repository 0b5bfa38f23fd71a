"""Hypothesis builders of whole attrs/dataclass class trees plus matching instances.

``classes()`` draws a ``(cls, instances)`` pair: a freshly made class (attrs or dataclass,
nested classes, Optional, list, set, dict, Enum, Literal, datetime, defaults) and a
strategy of its instances. Types are made with real type objects, so they inspect and
decode like hand-written ones.
"""

from __future__ import annotations

import copy
import dataclasses
import datetime
import enum
import itertools
import uuid
from collections.abc import Callable
from typing import Any, Literal, Optional

import attrs
from hypothesis import strategies as st

__all__ = ["TypeAndValues", "classes", "field_types", "json_text"]

TypeAndValues = tuple[Any, st.SearchStrategy[Any]]

_counter = itertools.count()

# JSON numbers that survive a round trip through orjson and any JSON parser exactly.
json_ints = st.integers(min_value=-(2**53), max_value=2**53)
json_floats = st.floats(allow_nan=False, allow_infinity=False, width=64)
json_text = st.text(max_size=12)

_UTC = datetime.timezone.utc


def _enum_type(draw: st.DrawFn) -> TypeAndValues:
    n = next(_counter)
    if draw(st.booleans()):
        names = draw(st.lists(st.sampled_from("abcdefgh"), min_size=1, max_size=4, unique=True))
        members = {f"M_{name}": f"{name}{n}" for name in names}
    else:
        values = draw(st.lists(st.integers(-5, 50), min_size=1, max_size=4, unique=True))
        members = {f"M_{i}": v for i, v in enumerate(values)}
    cls = enum.Enum(f"GenEnum{n}", members)  # type: ignore[misc]
    return cls, st.sampled_from(list(cls))


def _literal_type(draw: st.DrawFn) -> TypeAndValues:
    values = tuple(
        draw(
            st.lists(
                st.one_of(st.text("xyz", min_size=1, max_size=3), st.integers(0, 9)),
                min_size=1,
                max_size=3,
                unique=True,
            )
        )
    )
    return Literal[values], st.sampled_from(values)  # type: ignore[valid-type]


_SCALARS: list[Callable[[st.DrawFn], TypeAndValues]] = [
    lambda d: (str, json_text),
    lambda d: (int, json_ints),
    lambda d: (float, json_floats),
    lambda d: (bool, st.booleans()),
    lambda d: (
        datetime.datetime,
        st.datetimes(
            min_value=datetime.datetime(1970, 1, 2),
            max_value=datetime.datetime(2100, 1, 1),
            timezones=st.just(_UTC),
        ).map(lambda v: v.replace(microsecond=0)),
    ),
    lambda d: (datetime.date, st.dates(datetime.date(1, 1, 1), datetime.date(9999, 12, 31))),
    lambda d: (uuid.UUID, st.uuids()),
    _enum_type,
    _literal_type,
]

_HASHABLE_SCALARS = [*_SCALARS[:4], lambda d: (uuid.UUID, st.uuids())]


@st.composite
def field_types(draw: st.DrawFn, depth: int = 2, containers: int = 3) -> TypeAndValues:
    """A field type and a strategy of its values.

    ``depth`` bounds class nesting and ``containers`` the lists, dicts and optionals
    around one another (OpenAI accepts 10 levels of nesting; a dict under a strict
    adapter is two levels).
    """
    kinds = ["scalar"] * 5 + ["set"]
    if containers > 0:
        kinds += ["optional", "list", "dict"]
    if depth > 0:
        kinds += ["class", "class"]
    kind = draw(st.sampled_from(kinds))
    if kind == "scalar":
        return draw(st.sampled_from(_SCALARS))(draw)
    if kind == "set":
        tp, values = draw(st.sampled_from(_HASHABLE_SCALARS))(draw)
        return frozenset[tp], st.frozensets(values, max_size=3)  # type: ignore[valid-type]
    if kind == "class":
        return draw(classes(depth=depth - 1))
    inner_tp, inner = draw(field_types(depth=max(depth - 1, 0), containers=containers - 1))
    if kind == "optional":
        if _is_optional(inner_tp):
            return inner_tp, inner
        return Optional[inner_tp], st.none() | inner  # noqa: UP045 - a runtime type object
    if kind == "list":
        return list[inner_tp], st.lists(inner, max_size=3)  # type: ignore[valid-type]
    return dict[str, inner_tp], st.dictionaries(json_text, inner, max_size=3)  # type: ignore[valid-type]


def _is_optional(tp: Any) -> bool:
    return type(None) in getattr(tp, "__args__", ())


@st.composite
def classes(draw: st.DrawFn, depth: int = 2, kind: str | None = None) -> TypeAndValues:
    """A new attrs class or dataclass with 1-4 fields, and a strategy of its instances.

    Some fields get defaults (drawn from their own values); those come last, as both
    attrs and dataclasses require.
    """
    n = next(_counter)
    name = f"Gen{n}"
    count = draw(st.integers(min_value=1, max_value=4))
    specs = [draw(field_types(depth=depth)) for _ in range(count)]
    with_default = draw(st.lists(st.booleans(), min_size=count, max_size=count))
    order = sorted(range(count), key=lambda i: with_default[i])
    kind = kind or draw(st.sampled_from(["attrs", "dataclass"]))
    fields: dict[str, tuple[Any, Any]] = {}
    value_strategies: dict[str, st.SearchStrategy[Any]] = {}
    for i in order:
        tp, values = specs[i]
        fname = f"f{i}"
        default = attrs.NOTHING
        if with_default[i]:
            default = draw(values)
        fields[fname] = (tp, default)
        value_strategies[fname] = values
    if kind == "attrs":
        attributes = {}
        for fname, (tp, default) in fields.items():
            if default is attrs.NOTHING:
                attributes[fname] = attrs.field(type=tp)
            elif not _hashable(default):
                attributes[fname] = attrs.field(type=tp, factory=_copier(default))
            else:
                attributes[fname] = attrs.field(type=tp, default=default)
        cls = attrs.make_class(name, attributes, frozen=draw(st.booleans()))
    else:
        dc_fields = []
        for fname, (tp, default) in fields.items():
            if default is attrs.NOTHING:
                dc_fields.append((fname, tp))
            elif not _hashable(default):
                dc_fields.append(
                    (fname, tp, dataclasses.field(default_factory=_copier(default)))
                )
            else:
                dc_fields.append((fname, tp, dataclasses.field(default=default)))
        cls = dataclasses.make_dataclass(name, dc_fields)
    cls.__module__ = __name__
    globals()[name] = cls  # so typing can find it by name, like a module-level class
    return cls, st.builds(cls, **value_strategies)


def _hashable(value: Any) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


def _copier(value: Any) -> Callable[[], Any]:
    def make() -> Any:
        return copy.deepcopy(value)

    return make

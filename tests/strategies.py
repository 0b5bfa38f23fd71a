"""Hypothesis builders of whole attrs/dataclass class trees plus matching instances.

``classes()`` draws a ``(cls, instances)`` pair: a freshly made class (attrs or dataclass,
nested classes, Optional, list, set, dict, Enum, Literal, datetime, defaults) and a
strategy of its instances. ``classes(more_types=True)`` also makes TypedDicts and
NamedTuples, dataclasses with an InitVar, fields of Decimal, Flag/IntFlag and
annotated-types bounds, and dicts keyed by Decimal, date, datetime, UUID, Enum or Literal
(opt-in: tests whose oracle knows only attrs and dataclasses, such as the pydantic
differential or ``cattrs.unstructure``, keep the plain trees). Types are
made with real type objects, so they inspect and decode like hand-written ones.
"""

from __future__ import annotations

import copy
import dataclasses
import datetime
import decimal
import enum
import itertools
import types
import typing
import uuid
from collections.abc import Callable
from typing import Annotated, Any, Literal, Optional

import annotated_types as at
import attrs
import typing_extensions
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


def _flag_type(draw: st.DrawFn) -> TypeAndValues:
    n = next(_counter)
    names = draw(st.lists(st.sampled_from("RWXADS"), min_size=1, max_size=4, unique=True))
    base = draw(st.sampled_from([enum.Flag, enum.IntFlag]))
    cls = base(f"GenFlag{n}", {name: 1 << i for i, name in enumerate(names)})  # type: ignore[call-overload]
    members = list(cls.__members__.values())

    def combine(chosen: list[Any]) -> Any:
        value = cls(0)
        for m in chosen:
            value |= m
        return value

    return cls, st.lists(st.sampled_from(members), max_size=len(members)).map(combine)


# Decimals as money and as long exact numbers: every digit must survive.
_decimals = st.decimals(allow_nan=False, allow_infinity=False, places=2) | st.decimals(
    allow_nan=False, allow_infinity=False, min_value=-(10**25), max_value=10**25
)


def _bounded_number(draw: st.DrawFn) -> TypeAndValues:
    lo = draw(st.integers(-100, 100))
    hi = lo + draw(st.integers(0, 100))
    kind = draw(st.sampled_from(["int", "interval", "multiple", "decimal"]))
    if kind == "int":
        return Annotated[int, at.Ge(lo), at.Le(hi)], st.integers(lo, hi)
    if kind == "interval":
        return (
            Annotated[int, at.Interval(gt=lo - 1, lt=hi + 1)],
            st.integers(lo, hi),
        )
    if kind == "multiple":
        step = draw(st.integers(1, 7))
        return Annotated[int, at.MultipleOf(step)], st.integers(-50, 50).map(lambda k: k * step)
    return (
        Annotated[decimal.Decimal, at.Ge(decimal.Decimal(lo)), typing_extensions.Doc("An amount.")],
        st.decimals(min_value=lo, max_value=lo + 10**6, allow_nan=False, places=3),
    )


def _sized_text(draw: st.DrawFn) -> TypeAndValues:
    lo = draw(st.integers(0, 3))
    hi = lo + draw(st.integers(0, 5))
    bound = draw(st.sampled_from([at.Len(lo, hi), at.MinLen(lo), at.MaxLen(hi)]))
    low = lo if not isinstance(bound, at.MaxLen) else 0
    high = hi if not isinstance(bound, at.MinLen) else 12
    return Annotated[str, bound], st.text("abc ", min_size=low, max_size=high)


_MORE_SCALARS: list[Callable[[st.DrawFn], TypeAndValues]] = [
    *_SCALARS,
    lambda d: (decimal.Decimal, _decimals),
    _flag_type,
    _bounded_number,
    _sized_text,
]

_HASHABLE_SCALARS = [*_SCALARS[:4], lambda d: (uuid.UUID, st.uuids())]


def _str_enum_type(draw: st.DrawFn) -> TypeAndValues:
    n = next(_counter)
    names = draw(st.lists(st.sampled_from("abcdefgh"), min_size=1, max_size=4, unique=True))
    cls = enum.Enum(f"GenKeyEnum{n}", {f"M_{name}": f"{name}{n}" for name in names})  # type: ignore[misc]
    return cls, st.sampled_from(list(cls))


def _str_literal_type(draw: st.DrawFn) -> TypeAndValues:
    values = tuple(draw(st.lists(st.text("xyz", min_size=1, max_size=3), min_size=1,
                                 max_size=3, unique=True)))
    return Literal[values], st.sampled_from(values)  # type: ignore[valid-type]


# Dict key types (more_types only): every kind of key whose JSON form is a string; str
# first, so shrinking ends at plain keys.
_KEY_TYPES: list[Callable[[st.DrawFn], TypeAndValues]] = [
    lambda d: (str, json_text),
    lambda d: (str, json_text),
    lambda d: (decimal.Decimal, _decimals),
    _SCALARS[4],  # datetime
    _SCALARS[5],  # date
    lambda d: (uuid.UUID, st.uuids()),
    _str_enum_type,
    _str_literal_type,
]


@st.composite
def field_types(
    draw: st.DrawFn,
    depth: int = 2,
    containers: int = 3,
    more_types: bool = False,
    unions: bool = False,
) -> TypeAndValues:
    """A field type and a strategy of its values.

    ``depth`` bounds class nesting and ``containers`` the lists, dicts and optionals
    around one another (OpenAI accepts 10 levels of nesting; a dict under a strict
    adapter is two levels). ``unions`` also makes unions of containers (two lists, a
    list and a NamedTuple, a dict and a TypedDict, ...), whose values are either
    option's.
    """
    kinds = ["scalar"] * 5 + ["set"]
    if containers > 0:
        kinds += ["optional", "list", "dict"]
        if unions:
            kinds += ["union"] * 3
    if depth > 0:
        kinds += ["class", "class"]
    kind = draw(st.sampled_from(kinds))
    if kind == "scalar":
        return draw(st.sampled_from(_MORE_SCALARS if more_types else _SCALARS))(draw)
    if kind == "set":
        tp, values = draw(st.sampled_from(_HASHABLE_SCALARS))(draw)
        return frozenset[tp], st.frozensets(values, max_size=3)  # type: ignore[valid-type]
    if kind == "class":
        return draw(classes(depth=depth - 1, more_types=more_types, unions=unions))
    if kind == "union":
        return draw(_container_union(depth, containers, more_types))
    inner_tp, inner = draw(
        field_types(depth=max(depth - 1, 0), containers=containers - 1, more_types=more_types,
                    unions=unions)
    )
    if kind == "optional":
        if _is_optional(inner_tp):
            return inner_tp, inner
        return Optional[inner_tp], st.none() | inner  # noqa: UP045 - a runtime type object
    if kind == "list":
        return list[inner_tp], st.lists(inner, max_size=3)  # type: ignore[valid-type]
    key_tp, keys = draw(st.sampled_from(_KEY_TYPES))(draw) if more_types else (str, json_text)
    return dict[key_tp, inner_tp], st.dictionaries(keys, inner, max_size=3)  # type: ignore[valid-type]


@st.composite
def _container(draw: st.DrawFn, depth: int, containers: int, more_types: bool) -> TypeAndValues:
    """A list, dict, fixed tuple, TypedDict or NamedTuple type, and its values."""
    kind = draw(st.sampled_from(["list", "list", "dict", "tuple", "typeddict", "namedtuple"]))
    if kind in ("typeddict", "namedtuple"):
        return draw(classes(depth=max(depth - 1, 0), kind=kind, more_types=more_types))
    inner_tp, inner = draw(
        field_types(depth=max(depth - 1, 0), containers=containers - 1, more_types=more_types)
    )
    if kind == "list":
        return list[inner_tp], st.lists(inner, max_size=3)  # type: ignore[valid-type]
    if kind == "tuple":
        return tuple[inner_tp, inner_tp], st.tuples(inner, inner)  # type: ignore[valid-type]
    key_tp, keys = draw(st.sampled_from(_KEY_TYPES))(draw) if more_types else (str, json_text)
    return dict[key_tp, inner_tp], st.dictionaries(keys, inner, max_size=3)  # type: ignore[valid-type]


@st.composite
def _container_union(
    draw: st.DrawFn, depth: int, containers: int, more_types: bool
) -> TypeAndValues:
    """A union of two or three container types; a value is any option's."""
    options = [draw(_container(depth, containers, more_types))
               for _ in range(draw(st.integers(2, 3)))]
    tp = typing.Union[tuple(t for t, _ in options)]  # noqa: UP007 - a runtime type object
    return tp, st.one_of([values for _, values in options])


def _is_optional(tp: Any) -> bool:
    return type(None) in getattr(tp, "__args__", ())


@st.composite
def classes(
    draw: st.DrawFn,
    depth: int = 2,
    kind: str | None = None,
    more_types: bool = False,
    unions: bool = False,
) -> TypeAndValues:
    """A new attrs class or dataclass with 1-4 fields, and a strategy of its instances.

    Some fields get defaults (drawn from their own values); those come last, as both
    attrs and dataclasses require.
    """
    n = next(_counter)
    name = f"Gen{n}"
    count = draw(st.integers(min_value=1, max_value=4))
    specs = [draw(field_types(depth=depth, more_types=more_types, unions=unions))
             for _ in range(count)]
    with_default = draw(st.lists(st.booleans(), min_size=count, max_size=count))
    order = sorted(range(count), key=lambda i: with_default[i])
    kinds = ["attrs", "dataclass", "typeddict", "namedtuple"] if more_types else ["attrs",
                                                                                  "dataclass"]
    kind = kind or draw(st.sampled_from(kinds))
    if kind == "typeddict":
        return _typeddict(draw, name, specs, with_default)
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
    elif kind == "namedtuple":
        body: dict[str, Any] = {
            "__module__": __name__,
            "__annotations__": {fname: tp for fname, (tp, _) in fields.items()},
            **{fname: d for fname, (_, d) in fields.items() if d is not attrs.NOTHING},
        }
        cls = types.new_class(name, (typing.NamedTuple,), exec_body=lambda ns: ns.update(body))
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
        initvar = more_types and draw(st.booleans())
        if initvar:  # a required InitVar, kept by __post_init__ so it can be encoded
            dc_fields.insert(0, ("scale", dataclasses.InitVar[int]))  # type: ignore[arg-type]
            value_strategies["scale"] = st.integers(-5, 5)
        namespace = {"__post_init__": _keep_scale} if initvar else None
        cls = dataclasses.make_dataclass(name, dc_fields, namespace=namespace)
    cls.__module__ = __name__
    globals()[name] = cls  # so typing can find it by name, like a module-level class
    return cls, st.builds(cls, **value_strategies)


def _keep_scale(self: Any, scale: int) -> None:
    self.scale = scale


def _typeddict(
    draw: st.DrawFn, name: str, specs: list[TypeAndValues], optional: list[bool]
) -> TypeAndValues:
    """A TypedDict: some keys NotRequired (or the class not total, some keys Required)."""
    total = draw(st.booleans())
    annotations: dict[str, Any] = {}
    required: dict[str, st.SearchStrategy[Any]] = {}
    left_out: dict[str, st.SearchStrategy[Any]] = {}
    for i, (tp, values) in enumerate(specs):
        key = f"k{i}"
        # A key that may be left out and may hold None cannot be told apart under a
        # strict adapter (null is "left out" there, but None is a value): such keys are
        # required here, and the docs state the limit.
        if optional[i] and not _is_optional(tp):
            annotations[key] = typing_extensions.NotRequired[tp] if total else tp
            left_out[key] = values
        else:
            annotations[key] = tp if total else typing_extensions.Required[tp]
            required[key] = values
    cls = typing_extensions.TypedDict(name, annotations, total=total)  # type: ignore[operator]
    cls.__module__ = __name__
    globals()[name] = cls
    order = list(annotations)
    # Keys in declaration order, as a dict literal is usually written: encode() of a
    # plain dict keeps the dict's own order (it cannot know the TypedDict).
    return cls, st.fixed_dictionaries(required, optional=left_out).map(
        lambda d: {k: d[k] for k in order if k in d}
    )


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

"""The msgspec fast path of decode() accepts and rejects exactly what the normal path does.

The fast path (``describedtypes._codec.fast``) decodes with msgspec into mirror Structs and
builds the classes through their constructors; whatever it cannot decode goes to the
normal decoder. The property that matters: whenever the fast path returns a value, the
normal decoder accepts the same text and returns an identical value (same types all
the way down), and ``decode()`` as a whole behaves as the normal decoder alone.
"""

from __future__ import annotations

import dataclasses
import datetime
import enum
import gc
import itertools
import json
import math
import sys
import uuid
import weakref
from typing import Annotated, Any, Literal, Optional

import attrs
import cattrs
import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from describedtypes import (
    Annotation,
    DecodeError,
    Registry,
    annotate,
    decode,
    encode,
)
from describedtypes._codec import decode as _decode
from describedtypes._codec import fast as _fast
from describedtypes._codec import problems as _problems

from .strategies import classes

REJECT: Any = object()


def normal_outcome(cls: Any, text: bytes) -> Any:
    """The normal decoder's value, or REJECT."""
    try:
        parsed = orjson.loads(text)
    except orjson.JSONDecodeError:
        return REJECT
    try:
        return _decode.decoder_for(cls, None).fn(parsed)
    except (_problems.Invalid, RecursionError):
        return REJECT


def same(a: Any, b: Any) -> bool:
    """Equal values of the same types all the way down (1 is not 1.0, -0.0 is not 0.0)."""
    if type(a) is not type(b):
        return False
    if attrs.has(type(a)):
        return all(same(getattr(a, f.name), getattr(b, f.name)) for f in attrs.fields(type(a)))
    if dataclasses.is_dataclass(a):
        return all(same(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a))
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, float):
        return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)
    return bool(a == b)


def fast_for(cls: Any, registry: Registry = annotate) -> Any:
    """The fast decoder built (and cached) with ``cls``'s normal decoder, or None."""
    return _decode.decoder_for(cls, None, registry).fast


def check_agreement(cls: Any, text: bytes) -> Any:
    """Assert the fast path never disagrees with the normal one; return the fast outcome."""
    fast = fast_for(cls)
    expected = normal_outcome(cls, text)
    got = _fast.FALLBACK if fast is None else fast(text)
    if got is not _fast.FALLBACK:
        assert expected is not REJECT, ("fast path accepted what decode rejects", text)
        assert same(got, expected), (got, expected, text)
    # And decode() as a whole is the normal decoder.
    if expected is REJECT:
        with pytest.raises(DecodeError):
            decode(cls, text)
    else:
        assert same(decode(cls, text), expected)
    return got


# -- types the fast path mirrors --------------------------------------------------------

_counter = itertools.count()


class Colour(enum.Enum):
    RED = "red"
    GREEN = "green"


class Size(enum.IntEnum):
    S = 1
    M = 2


class Perm(enum.Flag):  # msgspec reads any combination: never mirrored
    R = 1
    W = 2


_INTS = st.integers(-(2**53), 2**53)
_FLOATS = st.floats(allow_nan=False, allow_infinity=False)
_TEXT = st.text(max_size=8)

MIRRORED_SCALARS: list[tuple[Any, st.SearchStrategy[Any]]] = [
    (str, _TEXT),
    (int, _INTS),
    (float, _FLOATS),
    (bool, st.booleans()),
    (datetime.date, st.dates()),
    (Colour, st.sampled_from(Colour)),
    (Size, st.sampled_from(Size)),
    (Literal["a", "b"], st.sampled_from(["a", "b"])),
    (Literal[1, 2, 3], st.sampled_from([1, 2, 3])),
]


@st.composite
def mirrored_types(draw: st.DrawFn, depth: int = 2) -> tuple[Any, st.SearchStrategy[Any]]:
    """A field type made only of what the fast path mirrors, and its values."""
    kinds = ["scalar"] * 4 + ["optional", "list", "tuple", "dict"]
    if depth > 0:
        kinds += ["class"]
    kind = draw(st.sampled_from(kinds))
    if kind == "scalar":
        return draw(st.sampled_from(MIRRORED_SCALARS))
    if kind == "class":
        return draw(mirrored_classes(depth=depth - 1))
    inner, values = draw(mirrored_types(depth=max(depth - 1, 0)))
    if kind == "optional":
        return Optional[inner], st.none() | values  # noqa: UP045 - a runtime type object
    if kind == "list":
        return list[inner], st.lists(values, max_size=3)  # type: ignore[valid-type]
    if kind == "tuple":
        return tuple[inner, ...], st.lists(values, max_size=3).map(tuple)  # type: ignore[valid-type]
    return dict[str, inner], st.dictionaries(_TEXT, values, max_size=3)  # type: ignore[valid-type]


@st.composite
def mirrored_classes(draw: st.DrawFn, depth: int = 2) -> tuple[Any, st.SearchStrategy[Any]]:
    """An attrs class or dataclass of mirrored fields: defaults, factories, aliases, keys."""
    n = next(_counter)
    count = draw(st.integers(1, 4))
    specs = [draw(mirrored_types(depth=depth)) for _ in range(count)]
    defaults = draw(st.lists(st.sampled_from(["none", "value", "factory"]), min_size=count,
                             max_size=count))
    order = sorted(range(count), key=lambda i: defaults[i] != "none")
    strategies: dict[str, st.SearchStrategy[Any]] = {}
    if draw(st.booleans()):
        fields: dict[str, Any] = {}
        for i in order:
            tp, values = specs[i]
            name = f"_p{i}" if draw(st.booleans()) else f"f{i}"  # private: init by alias
            if defaults[i] == "value":
                fields[name] = attrs.field(type=tp, default=draw(values))
            elif defaults[i] == "factory":
                fields[name] = attrs.field(type=tp, factory=_const(draw(values)))
            else:
                fields[name] = attrs.field(type=tp)
            strategies[name.lstrip("_")] = values
        cls = attrs.make_class(f"Mirror{n}", fields, frozen=draw(st.booleans()),
                               kw_only=draw(st.booleans()))
    else:
        dc_fields: list[Any] = []
        for i in order:
            tp, values = specs[i]
            default = draw(values) if defaults[i] != "none" else None
            if defaults[i] == "value" and default.__class__.__hash__ is not None:
                dc_fields.append((f"f{i}", tp, dataclasses.field(default=default)))
            elif defaults[i] != "none":
                factory = dataclasses.field(default_factory=_const(default))
                dc_fields.append((f"f{i}", tp, factory))
            else:
                dc_fields.append((f"f{i}", tp))
            strategies[f"f{i}"] = values
        cls = dataclasses.make_dataclass(f"Mirror{n}", dc_fields)
    cls.__module__ = __name__
    globals()[cls.__name__] = cls
    return cls, st.builds(cls, **strategies)


def _const(value: Any) -> Any:
    return lambda: value


# -- JSON texts near the valid ones -------------------------------------------------------

TRICKY: list[str] = [
    "0", "-0", "1", "3.0", "-2.5", "1e20", "1e400", str(2**53 + 1), str(2**63 - 1), str(2**63),
    str(2**64 - 1), str(2**64), str(2**70), "-9223372036854775809", "true", "false", "null",
    '""', '"a"', '"b"', '"red"', '"RED"', '"2024-05-01"', '"2024-5-1"', '"20240501"',
    '"2024-05-01T00:00:00"', '"12345678-1234-5678-1234-567812345678"',
    '"12345678123456781234567812345678"', '"{12345678-1234-5678-1234-567812345678}"',
    '"\\ud800"', "[]", "[1]", '["a"]', "{}", '{"a": 1}', '[{"key": "k", "value": 1}]',
]


def mutate(value: Any, draw: st.DrawFn) -> Any:
    """``value`` with one place changed: a tricky value, a key dropped, added or doubled."""
    if isinstance(value, dict) and value and draw(st.integers(0, 3)) == 0:
        key = draw(st.sampled_from(sorted(value)))
        return {**value, key: mutate(value[key], draw)}
    if isinstance(value, list) and value and draw(st.integers(0, 2)) == 0:
        i = draw(st.integers(0, len(value) - 1))
        return [*value[:i], mutate(value[i], draw), *value[i + 1 :]]
    how = draw(st.sampled_from(["tricky", "drop", "add", "float", "twice"]))
    if how == "twice" and isinstance(value, dict) and value:  # a key sent twice
        key = draw(st.sampled_from(sorted(value)))
        pairs = [*value.items(), (key, _Raw(draw(st.sampled_from(TRICKY))))]
        return _Pairs(draw(st.permutations(pairs)))
    if how == "drop" and isinstance(value, dict) and value:
        key = draw(st.sampled_from(sorted(value)))
        return {k: v for k, v in value.items() if k != key}
    if how == "add" and isinstance(value, dict):
        return {**value, draw(st.sampled_from(["zz", "f0", "p0", "key"])): 1}
    if how == "float" and type(value) is int:
        return float(value)
    return _Raw(draw(st.sampled_from(TRICKY)))


class _Raw(str):
    """JSON text spliced in as is (big integers, escapes json.dumps would not write)."""


class _Pairs(list):  # type: ignore[type-arg]
    """A JSON object written from (key, value) pairs, repeated keys and all."""


def to_text(value: Any) -> bytes:
    if isinstance(value, _Raw):
        return value.encode()
    if isinstance(value, _Pairs):
        inner = ", ".join(f"{json.dumps(k)}: {to_text(v).decode()}" for k, v in value)
        return ("{" + inner + "}").encode()
    if isinstance(value, dict):
        inner = ", ".join(f"{json.dumps(k)}: {to_text(v).decode()}" for k, v in value.items())
        return ("{" + inner + "}").encode()
    if isinstance(value, list):
        return ("[" + ", ".join(to_text(v).decode() for v in value) + "]").encode()
    return json.dumps(value).encode()


# -- the properties ------------------------------------------------------------------------


@given(st.data())
def test_mirrored_types_take_the_fast_path_for_valid_replies(data: st.DataObject) -> None:
    """A type made of mirrored parts gets a fast decoder, which decodes encode(x) to x."""
    cls, values = data.draw(mirrored_classes())
    assert fast_for(cls) is not None
    x = data.draw(values)
    got = check_agreement(cls, encode(x))
    assert got is not _fast.FALLBACK
    assert same(got, x)


@given(st.data())
def test_fast_and_normal_paths_agree_on_changed_replies(data: st.DataObject) -> None:
    """Near-valid replies: the fast path accepts only what decode accepts, with equal values."""
    cls, values = data.draw(mirrored_classes())
    payload = orjson.loads(encode(data.draw(values)))
    for _ in range(data.draw(st.integers(1, 3))):
        payload = mutate(payload, data.draw)
    check_agreement(cls, to_text(payload))


@given(st.data())
def test_fast_and_normal_paths_agree_on_any_generated_type(data: st.DataObject) -> None:
    """The shared class-tree strategy (sets, datetimes, ...): mirrored or not, never different."""
    cls, values = data.draw(classes())
    payload = orjson.loads(encode(data.draw(values)))
    check_agreement(cls, encode(data.draw(values)))
    check_agreement(cls, to_text(mutate(payload, data.draw)))


@given(st.recursive(
    st.none() | st.booleans() | _INTS | _FLOATS | _TEXT,
    lambda kids: st.lists(kids, max_size=3) | st.dictionaries(_TEXT, kids, max_size=3),
    max_leaves=8,
), st.data())
def test_fast_and_normal_paths_agree_on_arbitrary_json(value: Any, data: st.DataObject) -> None:
    """Any JSON value at all against a mirrored type."""
    cls, _ = data.draw(mirrored_classes(depth=1))
    check_agreement(cls, orjson.dumps(value))


# -- what is not mirrored ------------------------------------------------------------------


@attrs.define
class WithConverter:
    n: int = attrs.field(converter=int)


@attrs.define
class WithTakesSelf:
    a: int
    b: int = attrs.field(default=attrs.Factory(lambda self: self.a, takes_self=True))


@attrs.define
class WithBounds:
    n: int = attrs.field(validator=attrs.validators.ge(0))


@attrs.define
class WithIn:
    s: str = attrs.field(validator=attrs.validators.in_(["a", "b"]))


@attrs.define
class WithDatetime:
    at: datetime.datetime


@attrs.define
class WithSet:
    tags: frozenset[str]


@attrs.define
class WithAny:
    x: Any


@attrs.define
class WithUnion:
    x: int | str


@attrs.define
class WithFlag:
    p: Perm


@attrs.define
class Tree:
    children: list[Tree]


@pytest.mark.parametrize(
    "cls",
    [WithConverter, WithTakesSelf, WithBounds, WithIn, WithDatetime, WithSet, WithAny, WithUnion,
     WithFlag, Tree],
)
def test_types_without_an_exact_mirror_keep_the_normal_path(cls: type) -> None:
    """converter=, takes_self, validator bounds, datetime, sets, Any, unions, Flag, cycles."""
    assert fast_for(cls) is None


def test_plain_validators_run_on_the_fast_path() -> None:
    """A validator that says nothing to the schema runs in the constructor: same errors."""
    seen: list[int] = []

    @attrs.define
    class Checked:
        n: int = attrs.field()

        @n.validator
        def _check(self, _attribute: Any, value: int) -> None:
            seen.append(value)
            if value == 13:
                raise ValueError("13 is unlucky")

    assert fast_for(Checked) is not None
    assert decode(Checked, b'{"n": 1}') == Checked(1)
    with pytest.raises(DecodeError, match="unlucky"):
        decode(Checked, b'{"n": 13}')


@attrs.define
class Point:
    x: int
    y: float = 0.0


def test_not_for_generic_aliases_parsed_input_or_converters() -> None:
    """list[X] and an already-parsed dict use the normal decoder; so does converter=."""
    assert fast_for(list[Colour]) is None
    assert decode(list[Colour], b'["red"]') == [Colour.RED]
    assert decode(Point, {"x": 1}) == Point(1)
    assert decode(Point, '{"x": 1}', converter=cattrs.Converter()) == Point(1)


def test_what_msgspec_rejects_still_decodes_when_decode_accepts_it() -> None:
    """A fenced reply, 3.0 for an int, a key/value-pair array: the normal path decodes them."""
    assert fast_for(Point) is not None
    assert decode(Point, '```json\n{"x": 1}\n```') == Point(1)
    assert decode(Point, '{"x": 3.0}') == Point(3)

    @attrs.define
    class Counts:
        by_name: dict[str, int]

    assert decode(Counts, '{"by_name": [{"key": "a", "value": 1}]}') == Counts({"a": 1})


def test_registry_changes_rebuild_the_mirror() -> None:
    """annotate.register renaming a field key takes effect on the fast path too."""

    @attrs.define
    class Renamed:
        value: int

    assert decode(Renamed, b'{"value": 1}') == Renamed(1)
    assert fast_for(Renamed) is not None
    annotate.register(Renamed, Annotation(parameters={"value": Annotation(name="v")}))
    assert fast_for(Renamed) is not None
    assert decode(Renamed, b'{"v": 2}') == Renamed(2)
    with pytest.raises(DecodeError, match="unknown"):
        decode(Renamed, b'{"value": 2}')


def test_each_registry_gets_its_own_mirror() -> None:
    """decode(..., registry=) decodes by that registry's keys on the fast path as well."""

    @attrs.define
    class Keyed:
        value: int

    other = Registry()
    other.register(Keyed, Annotation(parameters={"value": Annotation(name="v")}))
    assert fast_for(Keyed, other) is not None
    assert decode(Keyed, b'{"v": 1}', registry=other) == Keyed(1)
    assert decode(Keyed, b'{"value": 1}') == Keyed(1)
    with pytest.raises(DecodeError, match="unknown"):
        decode(Keyed, b'{"value": 1}', registry=other)


@pytest.mark.slow  # builds and drops thousands of classes
def test_the_fast_decoder_does_not_keep_classes_alive() -> None:
    """A class that goes away takes its fast decoder with it."""

    def make() -> weakref.ref[type]:
        @attrs.define
        class Temporary:
            x: int

        assert decode(Temporary, b'{"x": 1}') == Temporary(1)
        assert fast_for(Temporary) is not None
        return weakref.ref(Temporary)

    ref = make()
    for _ in range(3):
        gc.collect()
    assert ref() is None


def test_without_msgspec_nothing_changes(monkeypatch: pytest.MonkeyPatch) -> None:
    """msgspec made unimportable: no fast decoders, decode works and reports as before."""

    @attrs.define
    class Plain:
        x: int
        y: float = 0.0

    monkeypatch.setitem(sys.modules, "msgspec", None)
    assert fast_for(Plain) is None
    assert decode(Plain, b'{"x": 1}') == Plain(1, 0.0)
    with pytest.raises(DecodeError, match="expected integer"):
        decode(Plain, b'{"x": "1"}')


@attrs.define
class TwoComputed:
    n: int
    tags: list[str] = attrs.Factory(list)
    note: str = "-"
    counts: dict[str, int] = attrs.Factory(dict)


@attrs.define(kw_only=True)
class ThreeComputed:
    n: int
    tags: list[str] = attrs.Factory(list)
    counts: dict[str, int] = attrs.Factory(dict)
    sizes: tuple[int, ...] = attrs.Factory(tuple)


@pytest.mark.parametrize("cls", [TwoComputed, ThreeComputed])
def test_every_mix_of_present_and_absent_computed_defaults(cls: type) -> None:
    """Each field the constructor defaults (a factory) present or absent, in every mix:
    the constructor's own default fills in, fresh for each object, as on the normal path."""
    assert fast_for(cls) is not None
    sent = {"tags": ["a"], "counts": {"k": 1}, "sizes": [2, 3], "note": "x"}
    names = [f.name for f in attrs.fields(cls) if f.name != "n"]
    for present in itertools.product((True, False), repeat=len(names)):
        payload = {"n": 1, **{k: sent[k] for k, here in zip(names, present, strict=True) if here}}
        text = orjson.dumps(payload)
        got = check_agreement(cls, text)
        assert got is not _fast.FALLBACK
        again = _fast_value(cls, text)
        for name, here in zip(names, present, strict=True):
            if not here and isinstance(getattr(got, name), (list, dict)):  # made per object
                assert getattr(got, name) is not getattr(again, name)


def _fast_value(cls: Any, text: bytes) -> Any:
    fast = fast_for(cls)
    assert fast is not None
    return fast(text)


@attrs.define
class Address:
    city: str


@attrs.define
class Delivery:
    to: Annotated[Address, Annotation(description="Where to deliver")]
    back: Optional[Address] = None  # noqa: UP045 - a runtime type object


def test_a_described_use_of_a_class_is_mirrored_as_the_class() -> None:
    """Annotated[Address, Annotation(description=...)] decodes on the fast path, alike."""
    assert fast_for(Delivery) is not None
    got = check_agreement(Delivery, b'{"to": {"city": "Oslo"}, "back": {"city": "Rome"}}')
    assert got == Delivery(Address("Oslo"), Address("Rome"))
    check_agreement(Delivery, b'{"to": {"city": "Oslo", "zip": 1}}')


def test_the_fast_decoders_source_is_in_linecache() -> None:
    """Tracebacks through the fast path show its generated source, as the compiler's do."""
    import linecache

    @attrs.define
    class Spot:
        name: str
        rank: int

    fast = _decode.decoder_for(Spot, None).fast
    assert fast is not None
    filename = fast.__code__.co_filename
    assert filename.startswith("<describedtypes fast decode #")
    assert "def _decode_fast" in "".join(linecache.getlines(filename))


def test_a_uuid_without_hyphens_is_refused_on_every_path() -> None:
    """msgspec reads 32 hex digits as a UUID; the normal path does not: no fast mirror."""

    @attrs.define
    class Keyed:
        id: uuid.UUID

    text = b'{"id": "12345678123456781234567812345678"}'
    assert fast_for(Keyed) is None
    with pytest.raises(DecodeError):
        decode(Keyed, text)

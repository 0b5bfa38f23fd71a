"""Differential: a pydantic model and its attrs twin are the same type to describedtypes.

Hypothesis draws a tree of field specifications (scalars, Literal, Enum, optional, lists,
dicts, nested classes; descriptions, aliases, bounds, patterns and defaults) and builds it
twice: once as pydantic models (``Field(description=, alias=, ge=, max_length=,
pattern=, default_factory=)``) and once as attrs classes (field metadata,
``Annotation(name=)``, ``annotated_types`` bounds, a ``matches_re`` validator,
``attrs.Factory``), with the same class names. Every adapter must render both alike (or
refuse both with the same message), and ``decode()`` must agree on every reply: the same
value (by its JSON) or the same errors.
"""

from __future__ import annotations

import enum
import itertools
import json
import re
from typing import Annotated, Any, Literal, Optional

import annotated_types as at
import attrs
import pydantic
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from describedtypes import Annotation, DecodeError, SchemaError, decode, encode, schema
from describedtypes import adapters as dta

ADAPTERS = [value for name in dta.__all__ if isinstance(value := getattr(dta, name), dta.Adapter)]

_names = itertools.count()


@attrs.frozen
class Spec:
    """One field type: ``kind`` with its parts, its bounds and how its values are drawn."""

    kind: str  # str, int, float, bool, literal, enum, optional, list, dict, class
    inner: Any = None  # the item / value Spec, the Literal values, the Enum, the Fields
    bounds: tuple[tuple[str, Any], ...] = ()  # (pydantic Field keyword, value)
    name: str = ""


@attrs.frozen
class FieldSpec:
    name: str
    spec: Spec
    description: str | None
    alias: str | None
    default: Any  # attrs.NOTHING for none; a list means a factory making it


_WORDS = st.text("abcxyz", min_size=1, max_size=6)


@st.composite
def specs(draw: st.DrawFn, depth: int = 2, top: bool = False) -> Spec:
    """A field type; a pattern only on a field's own str (attrs says it with a validator)."""
    kinds = ["str", "int", "float", "bool", "literal", "enum"]
    if depth > 0:
        kinds += ["optional", "list", "dict", "class"]
    kind = draw(st.sampled_from(kinds))
    if kind == "str":
        bounds: list[tuple[str, Any]] = []
        if draw(st.booleans()):
            bounds.append(("max_length", draw(st.integers(0, 5))))
        if top and draw(st.booleans()):
            bounds.append(("pattern", draw(st.sampled_from(["^a", "b", "^[a-c]*$"]))))
        return Spec("str", bounds=tuple(bounds))
    if kind in ("int", "float"):
        bounds = []
        if draw(st.booleans()):
            bounds.append((draw(st.sampled_from(["ge", "gt"])), draw(st.integers(-5, 5))))
        if draw(st.booleans()):
            bounds.append((draw(st.sampled_from(["le", "lt"])), draw(st.integers(6, 20))))
        return Spec(kind, bounds=tuple(bounds))
    if kind == "literal":
        values = tuple(draw(st.lists(_WORDS, min_size=1, max_size=3, unique=True)))
        return Spec("literal", inner=values)
    if kind == "enum":
        values = draw(st.lists(_WORDS, min_size=1, max_size=3, unique=True))
        return Spec("enum", inner=enum.Enum(f"Kind{next(_names)}", {v.upper(): v for v in values}))
    if kind == "class":
        return draw(class_specs(depth - 1))
    inner = draw(specs(depth - 1))
    if kind == "optional" and inner.kind == "optional":
        return inner
    bounds = [("max_length", draw(st.integers(0, 3)))] if kind == "list" and draw(
        st.booleans()) else []
    return Spec(kind, inner=inner, bounds=tuple(bounds))


@st.composite
def class_specs(draw: st.DrawFn, depth: int = 2) -> Spec:
    count = draw(st.integers(1, 4))
    fields: list[FieldSpec] = []
    aliases = iter(draw(st.lists(_WORDS, min_size=count, max_size=count, unique=True)))
    for i in range(count):
        spec = draw(specs(depth, top=True))
        alias = next(aliases)
        default: Any = attrs.NOTHING
        if draw(st.booleans()):  # a default drawn from the field's own values
            values = _values(spec)
            value = draw(st.none() | values) if spec.kind == "optional" else draw(values)
            if value is not _NO_VALUE:
                default = value
        fields.append(FieldSpec(
            name=f"f{i}",
            spec=spec,
            description=draw(st.none() | _WORDS),
            alias=f"k_{alias}" if draw(st.booleans()) else None,
            default=default,
        ))
    # Defaults last, as attrs requires (both twins alike).
    fields.sort(key=lambda f: f.default is not attrs.NOTHING)
    return Spec("class", inner=tuple(fields), name=f"Twin{next(_names)}")


_NO_VALUE: Any = object()


def _values(spec: Spec) -> st.SearchStrategy[Any]:
    """Python values of ``spec`` for defaults (none for classes: defaults stay plain)."""
    if spec.kind == "str":
        return st.just(_NO_VALUE) if spec.bounds else _WORDS
    if spec.kind in ("int", "float"):
        return st.just(_NO_VALUE) if spec.bounds else st.integers(-3, 3)
    if spec.kind == "bool":
        return st.booleans()
    if spec.kind == "literal":
        return st.sampled_from(spec.inner)
    if spec.kind == "enum":
        return st.sampled_from(list(spec.inner))
    if spec.kind == "list":
        return st.just([])  # a factory in both twins
    return st.just(_NO_VALUE)


# -- the twins --------------------------------------------------------------------------


def _at_bounds(bounds: tuple[tuple[str, Any], ...]) -> list[Any]:
    made = {"ge": at.Ge, "gt": at.Gt, "le": at.Le, "lt": at.Lt, "max_length": at.MaxLen}
    return [made[k](v) for k, v in bounds if k != "pattern"]


def attrs_type(spec: Spec, made: dict[str, Any]) -> Any:
    if spec.kind == "class":
        if spec.name not in made:
            made[spec.name] = _attrs_class(spec, made)
        return made[spec.name]
    tp = _common_type(spec, lambda s: attrs_type(s, made))
    metadata = _at_bounds(spec.bounds)
    params = (tp, *metadata)
    return Annotated[params] if metadata else tp


def _common_type(spec: Spec, inner_of: Any) -> Any:
    simple = {"str": str, "int": int, "float": float, "bool": bool}
    if spec.kind in simple:
        return simple[spec.kind]
    if spec.kind == "literal":
        return Literal[spec.inner]
    if spec.kind == "enum":
        return spec.inner
    inner = inner_of(spec.inner)
    if spec.kind == "optional":
        return Optional[inner]  # noqa: UP045 - a runtime type object
    if spec.kind == "list":
        return list[inner]
    return dict[str, inner]


def _attrs_class(spec: Spec, made: dict[str, Any]) -> Any:
    attributes = {}
    for f in spec.inner:
        tp = attrs_type(f.spec, made)
        if f.alias is not None:
            tp = Annotated[tp, Annotation(name=f.alias)]
        pattern = dict(f.spec.bounds).get("pattern")
        validator = attrs.validators.matches_re(pattern, func=re.search) if pattern else None
        default = f.default
        if isinstance(default, list):
            default = attrs.Factory(list)
        metadata = {"description": f.description} if f.description else {}
        attributes[f.name] = attrs.field(type=tp, default=default, validator=validator,
                                         metadata=metadata)
    cls = attrs.make_class(spec.name, attributes)
    cls.__module__ = __name__
    globals()[spec.name] = cls
    return cls


def pydantic_type(spec: Spec, made: dict[str, Any]) -> Any:
    if spec.kind == "class":
        if spec.name not in made:
            made[spec.name] = _pydantic_model(spec, made)
        return made[spec.name]
    tp = _common_type(spec, lambda s: pydantic_type(s, made))
    if not spec.bounds:
        return tp
    return Annotated[tp, pydantic.Field(**dict(spec.bounds))]


def _pydantic_model(spec: Spec, made: dict[str, Any]) -> Any:
    fields: dict[str, Any] = {}
    for f in spec.inner:
        tp = pydantic_type(f.spec, made)
        options: dict[str, Any] = {}
        if f.description:
            options["description"] = f.description
        if f.alias is not None:
            options["alias"] = f.alias
        if isinstance(f.default, list):
            options["default_factory"] = list
        elif f.default is not attrs.NOTHING:
            options["default"] = f.default
        fields[f.name] = (tp, pydantic.Field(**options))
    model = pydantic.create_model(spec.name, __module__=__name__, **fields)  # type: ignore[call-overload]
    globals()[spec.name] = model
    return model


# -- replies ----------------------------------------------------------------------------

_ANY_JSON = st.one_of(st.none(), st.booleans(), st.integers(-30, 30), st.floats(-30, 30),
                      _WORDS, st.just([]), st.just({}))


def replies(spec: Spec) -> st.SearchStrategy[Any]:
    """JSON values mostly of ``spec``'s shape, now and then a wrong value anywhere."""
    return st.one_of(_shaped(spec), _ANY_JSON) if spec.kind != "class" else _shaped(spec)


def _shaped(spec: Spec) -> st.SearchStrategy[Any]:
    if spec.kind == "str":
        return st.text("abcxyz", max_size=7)
    if spec.kind == "int":
        return st.integers(-10, 25)
    if spec.kind == "float":
        return st.integers(-10, 25) | st.floats(-10, 25)
    if spec.kind == "bool":
        return st.booleans()
    if spec.kind == "literal":
        return st.sampled_from(spec.inner) | _WORDS
    if spec.kind == "enum":
        return st.sampled_from([m.value for m in spec.inner]) | _WORDS
    if spec.kind == "optional":
        return st.none() | replies(spec.inner)
    if spec.kind == "list":
        return st.lists(replies(spec.inner), max_size=4)
    if spec.kind == "dict":
        return st.dictionaries(_WORDS, replies(spec.inner), max_size=3)

    @st.composite
    def objects(draw: st.DrawFn) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for f in spec.inner:
            key = f.alias or f.name
            if f.default is not attrs.NOTHING and draw(st.integers(0, 3)) == 0:
                continue  # left out: its default
            if draw(st.integers(0, 15)) == 0:
                continue  # left out although required, sometimes
            out[key] = draw(replies(f.spec))
        if draw(st.integers(0, 15)) == 0:
            out["unexpected"] = 1
        return out

    return objects()


def _outcome(tp: Any, text: str) -> Any:
    try:
        return "value", json.loads(encode(decode(tp, text)))
    except DecodeError as exc:
        return "errors", sorted(exc.errors)


def _rendered(tp: Any, adapter: Any) -> Any:
    try:
        return "schema", schema(tp, adapter)
    except SchemaError as exc:
        return "refused", str(exc)


@st.composite
def twins(draw: st.DrawFn) -> tuple[Any, Any, list[str]]:
    spec = draw(class_specs())
    twin_attrs = attrs_type(spec, {})
    twin_pydantic = pydantic_type(spec, {})
    texts = [json.dumps(draw(replies(spec))) for _ in range(6)]
    return twin_attrs, twin_pydantic, texts


def _agree(pair: tuple[Any, Any, list[str]]) -> None:
    twin_attrs, twin_pydantic, texts = pair
    for adapter in ADAPTERS:
        assert _rendered(twin_pydantic, adapter) == _rendered(twin_attrs, adapter), adapter
    for text in texts:
        assert _outcome(twin_pydantic, text) == _outcome(twin_attrs, text), text


@pytest.mark.slow  # 200 generated pairs, each through every adapter
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(twins())
def test_pydantic_model_and_attrs_twin_agree(pair: tuple[Any, Any, list[str]]) -> None:
    """Every adapter renders the twins alike, and decode() agrees on every reply."""
    _agree(pair)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(twins())
def test_a_few_pairs_agree(pair: tuple[Any, Any, list[str]]) -> None:
    """The same, on a few pairs: the quick run's share of the differential."""
    _agree(pair)


def test_the_adapters_are_all_there() -> None:
    """The differential runs under every adapter the library has (a guard for the list)."""
    assert len(ADAPTERS) >= 15
    assert dta.OPENAI in ADAPTERS
    assert dta.MCP_ELICITATION in ADAPTERS


@pytest.mark.parametrize("default", [[], attrs.NOTHING])
def test_a_hand_made_pair(default: Any) -> None:
    """One pair written out: the generator's two builders agree on it too."""
    inner = Spec("class", inner=(FieldSpec("f0", Spec("int", bounds=(("ge", 1),)), "n", None,
                                           attrs.NOTHING),), name=f"Hand{next(_names)}")
    outer = Spec("class", inner=(
        FieldSpec("f0", Spec("list", inner=inner), "items", "k_items", default),
    ), name=f"Hand{next(_names)}")
    a, p = attrs_type(outer, {}), pydantic_type(outer, {})
    assert schema(a) == schema(p)
    assert _outcome(p, '{"k_items": [{"f0": 0}]}') == _outcome(a, '{"k_items": [{"f0": 0}]}') == (
        "errors", [("$.k_items[0].f0", "must be at least 1, got 0")])

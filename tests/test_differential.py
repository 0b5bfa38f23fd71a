"""Differential test against the openai SDK's own strict-schema converter.

For random attrs/dataclass trees, our strict OPENAI body and ``to_strict_json_schema`` of
an equivalent pydantic model must accept and reject the same instances (checked with
jsonschema), and our body must hold none of the constructs the SDK leaves in and the
OpenAI API rejects (see docs/provider-rules.md).

Both schemas describe the same values, but one value is spelled two ways in JSON: the
SDK keeps ``dict[str, T]`` as an open object, our strict body sends it as a list of
``{"key", "value"}`` objects. Each instance is therefore written once in the plain
("logical") form, checked against the SDK schema as is, and checked against ours after
turning its maps into key/value lists.
"""

from __future__ import annotations

import dataclasses
import datetime
import enum
import json
import typing
import uuid
from typing import Any, Literal, Optional, Union

import attrs
import pydantic
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from openai.lib._pydantic import to_strict_json_schema

from describedtypes import OPENAI, SchemaError, check, encode, schema
from describedtypes import inspect as ni
from describedtypes._types.nodes import children_of

from .strategies import classes

# -- an equivalent pydantic model ------------------------------------------------------

_PLAIN_DEFAULTS = (str, int, float, bool, enum.Enum, datetime.date, datetime.time, uuid.UUID)


def to_pydantic(tp: Any, made: dict[Any, Any]) -> Any:
    """The pydantic counterpart of a type built by tests/strategies.py."""
    if isinstance(tp, type) and (attrs.has(tp) or dataclasses.is_dataclass(tp)):
        if tp not in made:
            made[tp] = _model(tp, made)
        return made[tp]
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin is typing.Union:
        return Optional[to_pydantic(next(a for a in args if a is not type(None)), made)]  # noqa: UP045
    if origin is list:
        return list[to_pydantic(args[0], made)]  # type: ignore[misc]
    if origin is frozenset:
        return frozenset[to_pydantic(args[0], made)]  # type: ignore[misc]
    if origin is dict:
        return dict[str, to_pydantic(args[1], made)]  # type: ignore[misc]
    return tp


def _model(cls: type, made: dict[Any, Any]) -> Any:
    spec: dict[str, Any] = {}
    if attrs.has(cls):
        for a in attrs.fields(cls):
            tp = to_pydantic(a.type, made)
            if a.default is attrs.NOTHING:
                spec[a.name] = (tp, ...)
            elif isinstance(a.default, attrs.Factory):  # type: ignore[arg-type]
                spec[a.name] = (tp, pydantic.Field(default_factory=a.default.factory))
            else:
                spec[a.name] = (tp, _default(a.default))
    else:
        for f in dataclasses.fields(cls):
            tp = to_pydantic(f.type, made)
            if f.default is not dataclasses.MISSING:
                spec[f.name] = (tp, _default(f.default))
            elif f.default_factory is not dataclasses.MISSING:
                spec[f.name] = (tp, pydantic.Field(default_factory=f.default_factory))
            else:
                spec[f.name] = (tp, ...)
    return pydantic.create_model(cls.__name__, **spec)


def _default(value: Any) -> Any:
    # Defaults pydantic can show in the schema stay defaults (the SDK leaves the non-null
    # ones in); instances of our classes become factories, which pydantic does not show.
    if value is None or isinstance(value, _PLAIN_DEFAULTS):
        return value
    return pydantic.Field(default_factory=lambda: value)


# -- instances in both spellings ---------------------------------------------------------


def logical(node: ni.Node, value: Any) -> Any:
    """``encode()``'s JSON with the nullable fields it leaves out written as null."""
    if isinstance(node, ni.UnionNode):
        if value is None:
            return None
        return logical(node.without_null(), value)
    if isinstance(node, ni.ObjectNode):
        out = {}
        for f in node.fields:
            if f.key in value:
                out[f.key] = logical(f.node, value[f.key])
            else:
                assert f.nullable, f.key
                out[f.key] = None
        return out
    if isinstance(node, ni.ArrayNode):
        return [logical(node.items, v) for v in value]
    if isinstance(node, ni.DictNode):
        return {k: logical(node.values, v) for k, v in value.items()}
    return value


def ours(node: ni.Node, value: Any) -> Any:
    """The logical JSON in our strict spelling: maps become key/value lists.

    Values that do not fit the type (a mutation put them there) are left as they are.
    """
    if isinstance(node, ni.UnionNode):
        return value if value is None else ours(node.without_null(), value)
    if isinstance(node, ni.ObjectNode) and isinstance(value, dict):
        by_key = {f.key: f for f in node.fields}
        return {k: ours(by_key[k].node, v) if k in by_key else v for k, v in value.items()}
    if isinstance(node, ni.ArrayNode) and isinstance(value, list):
        return [ours(node.items, v) for v in value]
    if isinstance(node, ni.DictNode) and isinstance(value, dict):
        return [{"key": k, "value": ours(node.values, v)} for k, v in value.items()]
    return value


def objects_in(node: ni.Node, value: Any, path: tuple[Any, ...] = ()) -> list[Any]:
    """Every (path, ObjectNode) of an object inside the logical value."""
    if isinstance(node, ni.UnionNode):
        return [] if value is None else objects_in(node.without_null(), value, path)
    if isinstance(node, ni.ObjectNode):
        found = [(path, node)]
        for f in node.fields:
            found += objects_in(f.node, value[f.key], (*path, f.key))
        return found
    if isinstance(node, ni.ArrayNode):
        return [x for i, v in enumerate(value) for x in objects_in(node.items, v, (*path, i))]
    if isinstance(node, ni.DictNode):
        return [x for k, v in value.items() for x in objects_in(node.values, v, (*path, k))]
    return []


def junk_for(node: ni.Node) -> Any:
    """A JSON value no schema of this field accepts."""
    inner = node.without_null() if isinstance(node, ni.UnionNode) and node.nullable else node
    if isinstance(inner, ni.ScalarNode) and inner.type == "string":
        return 12345.5
    return "\x00junk"


def mutate(data: st.DataObject, root: ni.ObjectNode, value: Any) -> tuple[str, Any]:
    """A copy of ``value`` with one object made invalid; returns (what was done, copy)."""
    copy = json.loads(json.dumps(value))
    path, node = data.draw(st.sampled_from(objects_in(root, copy)), label="object")
    target = copy
    for step in path:
        target = target[step]
    kinds = ["extra key"]
    if node.fields:
        kinds += ["missing key", "wrong type"]
        if any(not f.nullable for f in node.fields):
            kinds.append("null")
    kind = data.draw(st.sampled_from(kinds), label="mutation")
    if kind == "extra key":
        target["zz_not_a_field"] = 1
    else:
        fields = [f for f in node.fields if kind != "null" or not f.nullable]
        f = data.draw(st.sampled_from(fields), label="field")
        if kind == "missing key":
            del target[f.key]
        elif kind == "wrong type":
            target[f.key] = junk_for(f.node)
        else:
            target[f.key] = None
    return kind, copy


# -- the constructs the SDK leaves in (openai-python's lib/_pydantic.py) ----------------


def walk(node: Any) -> list[dict[str, Any]]:
    found = []
    if isinstance(node, dict):
        found.append(node)
        for v in node.values():
            found += walk(v)
    elif isinstance(node, list):
        for v in node:
            found += walk(v)
    return found


def rejected_constructs(body: Any) -> set[str]:
    """Which of the SDK's known leftovers appear in a schema body."""
    found = set()
    for s in walk(body):
        for key in ("uniqueItems", "oneOf", "allOf", "discriminator"):
            if key in s:
                found.add(key)
        if "default" in s and s["default"] is not None and not isinstance(s["default"], dict):
            found.add("default")
        if isinstance(s.get("additionalProperties"), dict):
            found.add("open object")
        if "$ref" in s and set(s) - {"$ref", "$defs"}:
            found.add("$ref siblings")
    return found


def build_openai(cls: Any) -> Any:
    """Our OPENAI output; a class tree beyond OpenAI's size limits is filtered out.

    The generated trees may nest maps deeply; written as key/value lists they can pass
    OpenAI's 10 levels of object nesting, which must (and does) raise SchemaError.
    """
    try:
        return schema(cls, OPENAI)
    except SchemaError as exc:
        assert "[limit." in str(exc), exc  # noqa: PT017 - the only accepted reason
        assume(False)
        raise


def has_field_kind(node: ni.Node, predicate: Any, seen: set[int] | None = None) -> bool:
    seen = set() if seen is None else seen
    if predicate(node):
        return True
    if isinstance(node, ni.ObjectNode):
        if id(node) in seen:
            return False
        seen.add(id(node))
        return any(has_field_kind(f.node, predicate, seen) for f in node.fields)
    return any(has_field_kind(c, predicate, seen) for c in children_of(node))


@pytest.mark.slow  # 120 generated classes through the SDK
@settings(max_examples=120)
@given(classes(), st.data())
def test_same_verdicts_as_the_openai_sdk(drawn: Any, data: st.DataObject) -> None:
    """Our strict body and the SDK's accept a valid instance and reject the same mutations."""
    cls, values = drawn
    node = ni.type_info(cls)
    assert isinstance(node, ni.ObjectNode)
    our_schema = Draft202012Validator(build_openai(cls)["schema"])
    sdk_schema = Draft202012Validator(to_strict_json_schema(to_pydantic(cls, {})))
    instance = logical(node, json.loads(encode(data.draw(values, label="instance"))))

    assert sdk_schema.is_valid(instance)
    assert our_schema.is_valid(ours(node, instance))
    for _ in range(3):
        kind, bad = mutate(data, node, instance)
        assert not sdk_schema.is_valid(bad), kind
        assert not our_schema.is_valid(ours(node, bad)), kind


@pytest.mark.slow  # 120 generated classes through the SDK
@settings(max_examples=120)
@given(classes())
def test_none_of_the_sdk_leftovers(drawn: Any) -> None:
    """Our body holds none of the constructs the SDK leaves in; check() finds the SDK's."""
    cls, _ = drawn
    out = build_openai(cls)
    assert rejected_constructs(out["schema"]) == set()
    assert check(out, OPENAI) == []

    sdk = to_strict_json_schema(to_pydantic(cls, {}))
    left = rejected_constructs(sdk)
    problems = check(sdk, OPENAI)
    rules = {(p.rule, p.pointer.rsplit("/", 1)[-1]) for p in problems}
    if "uniqueItems" in left:
        assert ("keyword", "uniqueItems") in rules
    if "default" in left:
        assert ("keyword", "default") in rules
    if "open object" in left:
        assert ("additionalProperties", "additionalProperties") in rules
    node = ni.type_info(cls)
    # The leftovers come exactly from sets, maps and non-null defaults in the class tree.
    if has_field_kind(node, lambda n: isinstance(n, ni.ArrayNode) and n.unique):
        assert "uniqueItems" in left
    if has_field_kind(node, lambda n: isinstance(n, ni.DictNode)):
        assert "open object" in left


@attrs.define
class ACat:
    kind: Literal["cat"]


@attrs.define
class ADog:
    kind: Literal["dog"]


@attrs.define
class ABox:
    pet: Union[ACat, ADog]  # noqa: UP007
    tags: set[str]
    counts: dict[str, int]
    size: int = 3


def test_known_sdk_gaps_are_found() -> None:
    """A model with a tagged union, a set, a map and a described sub-model: the SDK's
    strict schema keeps what OpenAI rejects, check() names each one, ours has none."""
    class Cat(pydantic.BaseModel):
        kind: Literal["cat"]

    class Dog(pydantic.BaseModel):
        kind: Literal["dog"]

    class Box(pydantic.BaseModel):
        pet: Union[Cat, Dog] = pydantic.Field(discriminator="kind")  # noqa: UP007
        tags: set[str]
        counts: dict[str, int]
        size: int = 3

    sdk = to_strict_json_schema(Box)
    seen = {(p.pointer, p.rule) for p in check(sdk, OPENAI)}
    assert ("/properties/pet/oneOf", "keyword") in seen
    assert ("/properties/pet/discriminator", "keyword") in seen
    assert ("/properties/tags/uniqueItems", "keyword") in seen
    assert ("/properties/counts/additionalProperties", "additionalProperties") in seen
    assert ("/properties/size/default", "keyword") in seen

    assert rejected_constructs(schema(ABox, OPENAI)["schema"]) == set()


@attrs.define
class PlainA:
    x: int
    y: Optional[str] = None  # noqa: UP045


@dataclasses.dataclass
class PlainD:
    x: int
    y: Optional[str] = None  # noqa: UP045


@pytest.mark.parametrize("kind", ["attrs", "dataclass"])
def test_pydantic_counterpart_matches(kind: str) -> None:
    """The pydantic counterpart has the same field names and required-ness basis."""
    model = to_pydantic(PlainA if kind == "attrs" else PlainD, {})
    assert list(model.model_fields) == ["x", "y"]
    assert model.model_fields["x"].is_required()
    assert not model.model_fields["y"].is_required()

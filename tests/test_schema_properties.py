"""Properties of schema() over random class trees (strict invariants, validity)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import jsonschema
import orjson
from hypothesis import given
from hypothesis import strategies as st

from describedtypes import OPENAI, OPENAI_TOOLS, STANDARD, encode, schema

from .strategies import TypeAndValues, classes

STRICT = [OPENAI, OPENAI_TOOLS]


def body_of(out: dict[str, Any], adapter: Any) -> dict[str, Any]:
    if adapter is STANDARD:
        return out
    return out["schema"] if adapter is OPENAI else out["parameters"]


def objects(node: Any) -> Iterator[dict[str, Any]]:
    """Every schema object with type 'object' anywhere in ``node``."""
    if isinstance(node, dict):
        if node.get("type") == "object":
            yield node
        for value in node.values():
            yield from objects(value)
    elif isinstance(node, list):
        for value in node:
            yield from objects(value)


@given(classes(), st.sampled_from([STANDARD, OPENAI, OPENAI_TOOLS]), st.booleans())
def test_every_body_is_valid_json_schema(
    cv: TypeAndValues, adapter: Any, use_references: bool
) -> None:
    """Every adapter builds a body that passes the Draft 2020-12 meta-schema."""
    cls, _ = cv
    body = body_of(schema(cls, llm_adapter=adapter, use_references=use_references), adapter)
    jsonschema.Draft202012Validator.check_schema(body)


@given(classes(), st.sampled_from(STRICT), st.booleans())
def test_strict_objects_are_closed_and_fully_required(
    cv: TypeAndValues, adapter: Any, use_references: bool
) -> None:
    """Under strict adapters every object is closed and requires all its properties."""
    cls, _ = cv
    body = body_of(schema(cls, llm_adapter=adapter, use_references=use_references), adapter)
    for obj in objects(body):
        assert obj["additionalProperties"] is False
        assert obj["required"] == list(obj["properties"])


@given(classes(), st.sampled_from(STRICT), st.booleans())
def test_strict_output_has_no_rejected_constructs(
    cv: TypeAndValues, adapter: Any, use_references: bool
) -> None:
    """Strict bodies never carry keywords OpenAI rejects, nor $ref with siblings."""
    cls, _ = cv
    body = body_of(schema(cls, llm_adapter=adapter, use_references=use_references), adapter)

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for banned in ("oneOf", "allOf", "not", "default", "uniqueItems", "prefixItems"):
                assert banned not in node
            if "$ref" in node:
                assert set(node) == {"$ref"}
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(body)
    assert body["type"] == "object"


@given(st.data(), classes(), st.booleans())
def test_encoded_instances_validate_against_standard(
    data: st.DataObject, cv: TypeAndValues, use_references: bool
) -> None:
    """encode() of any instance validates against the STANDARD body, inline or with $defs."""
    cls, values = cv
    instance = data.draw(values)
    body = schema(cls, use_references=use_references)
    jsonschema.Draft202012Validator(body).validate(orjson.loads(encode(instance)))


@given(classes(), st.sampled_from([STANDARD, OPENAI, OPENAI_TOOLS]))
def test_references_do_not_change_a_flat_class(cv: TypeAndValues, adapter: Any) -> None:
    """A class with no nested classes has the same schema with or without references."""
    cls, _ = cv
    inline = body_of(schema(cls, llm_adapter=adapter), adapter)
    refs = body_of(schema(cls, llm_adapter=adapter, use_references=True), adapter)
    if "$defs" not in refs and "$defs" not in inline:
        assert refs == inline
    else:
        assert "$defs" in refs

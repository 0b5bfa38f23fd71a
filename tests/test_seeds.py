"""The five examples of DescribedTypes.jl's guide, reproduced exactly."""

from __future__ import annotations

import collections
import json
from collections.abc import Iterator
from typing import Any

import pytest

from describedtypes import OPENAI, OPENAI_TOOLS, STANDARD, annotate, schema

from .seed_types import PALETTE, Palette, Person, Query, Shirt, Weather, register_all


@pytest.fixture(autouse=True)
def _registered() -> Iterator[None]:
    register_all()
    yield
    for tp in (Weather, Query, Shirt, Palette):
        annotate.unregister(tp)


def same(actual: Any, expected: Any) -> None:
    """Equal values and equal key order everywhere."""
    assert json.dumps(actual, indent=1) == json.dumps(expected, indent=1)


WEATHER_PROPS = {
    "location": {"type": "string", "description": "City name"},
    "temperature": {"type": "number", "description": "Temperature value"},
    "unit": {
        "type": "string",
        "description": "Unit of measurement",
        "enum": ["celsius", "fahrenheit"],
    },
}
WEATHER_BODY = {
    "type": "object",
    "properties": WEATHER_PROPS,
    "required": ["location", "temperature", "unit"],
    "additionalProperties": False,
}


class TestWeather:
    def test_standard(self) -> None:
        """STANDARD is the guide's body plus the registered descriptions and enum."""
        same(
            schema(Weather),
            {
                "type": "object",
                "properties": WEATHER_PROPS,
                "required": ["location", "temperature", "unit"],
                "description": "Current weather observation.",
            },
        )

    def test_openai(self) -> None:
        """OPENAI wraps a strict body as name, description, strict, schema."""
        same(
            schema(Weather, llm_adapter=OPENAI),
            {
                "name": "Weather",
                "description": "Current weather observation.",
                "strict": True,
                "schema": WEATHER_BODY,
            },
        )

    def test_openai_tools(self) -> None:
        """OPENAI_TOOLS is a Responses API function tool around the same body."""
        same(
            schema(Weather, llm_adapter=OPENAI_TOOLS),
            {
                "type": "function",
                "name": "Weather",
                "description": "Current weather observation.",
                "strict": True,
                "parameters": WEATHER_BODY,
            },
        )


class TestQuery:
    def test_standard_leaves_optional_out_of_required(self) -> None:
        """An Optional field keeps its type and is not required in STANDARD."""
        same(
            schema(Query),
            {
                "type": "object",
                "properties": {
                    "text": {"type": "string", "description": "The query string"},
                    "max_tokens": {"type": "integer", "description": "Optional token limit"},
                },
                "required": ["text"],
                "description": "A search query.",
            },
        )

    def test_openai_makes_optional_nullable_and_required(self) -> None:
        """OPENAI keeps every field required and spells optional as [T, null]."""
        same(
            schema(Query, llm_adapter=OPENAI),
            {
                "name": "Query",
                "description": "A search query.",
                "strict": True,
                "schema": {
                    "type": "object",
                    "properties": {
                        "text": {"type": "string", "description": "The query string"},
                        "max_tokens": {
                            "type": ["integer", "null"],
                            "description": "Optional token limit",
                        },
                    },
                    "required": ["text", "max_tokens"],
                    "additionalProperties": False,
                },
            },
        )


class TestPalette:
    def test_standard_enum_from_type(self) -> None:
        """An Enum field lists its member values after the type."""
        same(
            schema(Palette),
            {
                "type": "object",
                "properties": {
                    "primary": {"type": "string", "enum": ["red", "green", "blue"]}
                },
                "required": ["primary"],
            },
        )

    def test_openai_type_enum_comes_before_description(self) -> None:
        """An enum from the type comes before the description."""
        annotate.register(Palette, PALETTE)
        same(
            schema(Palette, llm_adapter=OPENAI),
            {
                "name": "Palette",
                "description": "A color palette.",
                "strict": True,
                "schema": {
                    "type": "object",
                    "properties": {
                        "primary": {
                            "type": "string",
                            "enum": ["red", "green", "blue"],
                            "description": "The primary color",
                        }
                    },
                    "required": ["primary"],
                    "additionalProperties": False,
                },
            },
        )


def test_shirt_annotation_enum_comes_after_description() -> None:
    """An enum from an annotation comes after the description."""
    same(
        schema(Shirt, llm_adapter=OPENAI),
        {
            "name": "Shirt",
            "description": "A shirt.",
            "strict": True,
            "schema": {
                "type": "object",
                "properties": {
                    "color": {
                        "type": "string",
                        "description": "Shirt color",
                        "enum": ["red", "green", "blue"],
                    }
                },
                "required": ["color"],
                "additionalProperties": False,
            },
        },
    )


ADDRESS_BODY = {
    "type": "object",
    "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
    "required": ["street", "city"],
}


class TestPerson:
    def test_nested_inline(self) -> None:
        """Nested classes are expanded inline by default."""
        same(
            schema(Person),
            {
                "type": "object",
                "properties": {"name": {"type": "string"}, "address": ADDRESS_BODY},
                "required": ["name", "address"],
            },
        )

    def test_references(self) -> None:
        """use_references puts nested classes under $defs, keyed by their name."""
        same(
            schema(Person, use_references=True),
            {
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "address": {"$ref": "#/$defs/Address"},
                },
                "required": ["name", "address"],
                "$defs": {"Address": ADDRESS_BODY},
            },
        )

    def test_dict_type_is_used_for_every_mapping(self) -> None:
        """dict_type builds every object of the output, nested ones included."""
        out = schema(Person, use_references=True, dict_type=collections.OrderedDict)
        assert type(out) is collections.OrderedDict
        assert type(out["properties"]["address"]) is collections.OrderedDict
        assert type(out["$defs"]["Address"]["properties"]) is collections.OrderedDict


@pytest.mark.parametrize("adapter", [STANDARD, OPENAI, OPENAI_TOOLS])
def test_every_seed_builds_for_every_adapter(adapter: Any) -> None:
    """Each guide type has a schema under each seed adapter."""
    for tp in (Weather, Query, Palette, Shirt, Person):
        assert schema(tp, llm_adapter=adapter)

"""What check() accepts, the provider's SDK and a grammar engine accept (a differential).

The oracles: the openai SDK's strict transform (``_ensure_strict_json_schema``, the body
of ``to_strict_json_schema``) for OPENAI, the Anthropic SDK's ``transform_schema`` for
ANTHROPIC, and llguidance (``LLMatcher.validate_grammar``) for both. The corpus: tricky
hand-made schemas, the schemas of random classes, and those schemas with one defect
injected at a random place. check() may report more than the oracles refuse (a provider
rule the SDK does not know); it must never pass what they refuse.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from anthropic.lib._parse._transform import transform_schema
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from llguidance import LLMatcher
from openai.lib._pydantic import _ensure_strict_json_schema

from describedtypes import ANTHROPIC, OPENAI, Adapter, check, schema

from .strategies import classes


def openai_sdk(body: Any) -> str | None:
    body = copy.deepcopy(body)
    try:
        _ensure_strict_json_schema(body, path=(), root=body)
    except Exception as exc:
        return f"openai SDK: {type(exc).__name__}: {exc}"
    return None


def anthropic_sdk(body: Any) -> str | None:
    try:
        transform_schema(copy.deepcopy(body))
    except Exception as exc:  # AssertionError (assert_never) included
        return f"anthropic SDK transform_schema: {type(exc).__name__}: {exc}"
    return None


def llguidance(body: Any) -> str | None:
    try:
        error = LLMatcher.validate_grammar(LLMatcher.grammar_from_json_schema(json.dumps(body)))
    except Exception as exc:
        return f"llguidance: {exc}"
    return f"llguidance: {error}" if error else None


ORACLES = {"OPENAI": (OPENAI, openai_sdk), "ANTHROPIC": (ANTHROPIC, anthropic_sdk)}


def refusals(adapter_name: str, body: Any) -> list[str]:
    sdk = ORACLES[adapter_name][1]
    return [r for oracle in (sdk, llguidance) if (r := oracle(body)) is not None]


def agrees(adapter_name: str, body: Any) -> None:
    adapter: Adapter = ORACLES[adapter_name][0]
    problems = check(body, adapter)
    if problems:
        return
    refused = refusals(adapter_name, body)
    assert not refused, f"check(..., {adapter_name}) found nothing: {refused} in {json.dumps(body)}"


def _object(properties: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": list(properties),
            "additionalProperties": False}


S = {"type": "string"}

CORPUS: dict[str, Any] = {
    "anyOf holds true": _object({"v": {"anyOf": [True, S]}}),
    "anyOf holds false": _object({"v": {"anyOf": [False, S]}}),
    "items is false": _object({"v": {"type": "array", "items": False}}),
    "items is true": _object({"v": {"type": "array", "items": True}}),
    "property is true": _object({"v": True}),
    "a definition is true": {**_object({"v": {"$ref": "#/$defs/A"}}), "$defs": {"A": True}},
    "allOf holds true": _object({"v": {"allOf": [True, S]}}),
    "empty anyOf": _object({"v": {"anyOf": []}}),
    "empty allOf": _object({"v": {"allOf": []}}),
    "required is a str": {"type": "object", "properties": {"v": S}, "required": "v",
                          "additionalProperties": False},
    "required holds a number": {"type": "object", "properties": {"v": S}, "required": ["v", 1],
                                "additionalProperties": False},
    "object const": _object({"v": {"const": {"a": 1}}}),
    "object const with a type": _object({"v": {"type": "object", "const": {"a": 1},
                                               "properties": {}, "additionalProperties": False,
                                               "required": []}}),
    "type list": _object({"v": {"type": ["string", "null"]}}),
    "empty enum": _object({"v": {"type": "string", "enum": []}}),
    "enum is a str": _object({"v": {"type": "string", "enum": "a"}}),
    "object in an untyped enum": _object({"v": {"enum": [{"a": 1}]}}),
    "items is a list": _object({"v": {"type": "array", "items": [S]}}),
    "items is a number": _object({"v": {"type": "array", "items": 3}}),
    "properties is a list": {"type": "object", "properties": [], "required": [],
                             "additionalProperties": False},
    "pattern does not compile": _object({"v": {"type": "string", "pattern": "(("}}),
    "pattern is a number": _object({"v": {"type": "string", "pattern": 5}}),
    "anyOf is an object": _object({"v": {"anyOf": S}}),
    "nested defect in a definition": {**_object({"v": {"$ref": "#/$defs/A"}}),
                                      "$defs": {"A": _object({"w": {"anyOf": []}})}},
    # Controls: well-formed, and accepted by all.
    "plain object": _object({"v": S, "n": {"type": "integer"}}),
    "nullable by anyOf": _object({"v": {"anyOf": [S, {"type": "null"}]}}),
    "a pattern": _object({"v": {"type": "string", "pattern": "^[a-z]+\\d{2}$"}}),
    "a named group": _object({"v": {"type": "string", "pattern": "^(?<year>\\d{4})$"}}),
    "an enum": _object({"v": {"type": "string", "enum": ["a", "b"]}}),
    "a definition": {**_object({"v": {"$ref": "#/$defs/A"}}), "$defs": {"A": _object({"w": S})}},
}


@pytest.mark.parametrize("adapter_name", ["OPENAI", "ANTHROPIC"])
@pytest.mark.parametrize("name", list(CORPUS))
def test_hand_made_schemas(name: str, adapter_name: str) -> None:
    agrees(adapter_name, CORPUS[name])


def test_the_corpus_has_refusals_check_catches() -> None:
    """The differential is not vacuous: most of the corpus is refused by some oracle."""
    refused = [n for n in CORPUS for a in ORACLES if refusals(a, CORPUS[n])]
    assert len(refused) >= 30, refused


# -- generated: our own schemas, and the same with one defect injected -------------------

_DEFECTS: list[tuple[str, Any]] = [
    ("true", lambda s: True),
    ("false", lambda s: False),
    ("empty anyOf", lambda s: {**s, "anyOf": []}),
    ("empty enum", lambda s: {**s, "enum": []}),
    ("required str", lambda s: {**s, "required": "x"}),
    ("type list", lambda s: {**s, "type": [s.get("type", "string"), "null"]}),
    ("object const", lambda s: {k: v for k, v in s.items() if k != "type"} | {"const": {"a": 1}}),
    ("items list", lambda s: {"type": "array", "items": [S]}),
    ("bad pattern", lambda s: {"type": "string", "pattern": "(("}),
    ("properties list", lambda s: {"type": "object", "properties": [], "required": [],
                                   "additionalProperties": False}),
    ("anyOf object", lambda s: {"anyOf": S}),
    ("enum str", lambda s: {"type": "string", "enum": "ab"}),
]


def _places(node: Any, out: list[tuple[Any, Any]]) -> None:
    """Every (holder, key) where a subschema sits, to put a defect in its place."""
    if not isinstance(node, dict):
        return
    for kw in ("properties", "$defs"):
        if isinstance(node.get(kw), dict):
            for k in node[kw]:
                out.append((node[kw], k))
                _places(node[kw][k], out)
    if isinstance(node.get("items"), dict):
        out.append((node, "items"))
        _places(node["items"], out)
    if isinstance(node.get("anyOf"), list):
        for i in range(len(node["anyOf"])):
            out.append((node["anyOf"], i))
            _places(node["anyOf"][i], out)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(classes(more_types=True), st.sampled_from(["OPENAI", "ANTHROPIC"]), st.data())
def test_generated_schemas_and_their_defects(
    drawn: Any, adapter_name: str, data: st.DataObject
) -> None:
    cls, _ = drawn
    adapter: Adapter = ORACLES[adapter_name][0]
    try:
        body = schema(cls, adapter, dict_type=dict)["schema"]
    except Exception:  # a type this adapter cannot express: a SchemaError, tested elsewhere
        return
    agrees(adapter_name, body)
    places: list[tuple[Any, Any]] = []
    _places(body, places)
    if not places:
        return
    holder, key = data.draw(st.sampled_from(places))
    _, defect = data.draw(st.sampled_from(_DEFECTS))
    here = holder[key]
    holder[key] = defect(here if isinstance(here, dict) else {})
    agrees(adapter_name, body)

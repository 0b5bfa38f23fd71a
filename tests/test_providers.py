"""Real consumers take the adapters' output: provider SDKs, MCP types, JSON Schema itself.

Requests go through the SDKs' own clients into a ``MockTransport`` (of ``httpx``, or of
``httpx2`` for SDK releases built on it), so the test sees the exact body that would reach
the provider and no network is used.
"""

from __future__ import annotations

import datetime
import enum
import json
import uuid
from collections.abc import Callable
from typing import Annotated, Any, Literal, Optional

import attrs
import jsonschema
import pytest
from hypothesis import given, settings

from describedtypes import (
    ANTHROPIC,
    ANTHROPIC_TOOLS,
    GEMINI,
    MCP_TOOLS,
    OPENAI,
    OPENAI_CHAT_TOOLS,
    OPENAI_TOOLS,
    STANDARD,
    Adapter,
    Annotation,
    SchemaError,
    check_request,
    schema,
)
from describedtypes._schema.document import document

from .strategies import classes


class Unit(enum.Enum):
    celsius = "c"
    fahrenheit = "f"


@attrs.define
class Place:
    """A place on Earth."""

    city: str
    country: Annotated[str, Annotation(description="ISO 3166 code")] = "US"


@attrs.define
class Forecast:
    """Get the weather forecast for a place."""

    place: Annotated[Place, Annotation(description="Where to look")]
    days: int = attrs.field(default=3, validator=[attrs.validators.ge(1),
                                                  attrs.validators.le(14)])
    unit: Unit = Unit.celsius
    when: Optional[datetime.date] = None  # noqa: UP045
    tags: frozenset[str] = frozenset()
    extra: dict[str, float] = attrs.field(factory=dict)
    mode: Literal["fast", "exact"] = "fast"
    request_id: Optional[uuid.UUID] = None  # noqa: UP045


@attrs.define
class Search:
    """Search the web."""

    query: str = attrs.field(validator=attrs.validators.min_len(1))
    limit: Optional[int] = None  # noqa: UP045


def body_of(out: Any, adapter: Adapter) -> Any:
    return document(out, adapter).body


Handler = Callable[[Any], Any]


def mock_client(sdk_base: Any) -> tuple[Any, list[dict[str, Any]], dict[str, Any]]:
    """An HTTP client of the kind the SDK uses, the request bodies it sent, and the reply.

    ``sdk_base`` is the SDK's ``_base_client`` module, which imports ``httpx`` or (newer
    releases) ``httpx2``; the mock transport must come from the same package.
    """
    http = getattr(sdk_base, "httpx2", None) or sdk_base.httpx
    seen: list[dict[str, Any]] = []
    reply: dict[str, Any] = {}

    def handler(request: Any) -> Any:
        seen.append(json.loads(request.content))
        return http.Response(200, json=reply)

    return http.Client(transport=http.MockTransport(handler)), seen, reply


class TestAnthropicSDK:
    def client(self) -> tuple[Any, list[dict[str, Any]]]:
        import anthropic
        import anthropic._base_client

        http, seen, reply = mock_client(anthropic._base_client)
        reply.update(self.REPLY)
        return anthropic.Anthropic(api_key="test-key", http_client=http, max_retries=0), seen

    REPLY: dict[str, Any] = {  # noqa: RUF012 - read only
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-test",
        "content": [{"type": "text", "text": "ok"}], "stop_reason": "end_turn",
        "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 1},
    }

    def test_tools_reach_the_transport_unchanged(self) -> None:
        """The anthropic SDK sends our strict tool definitions exactly as built."""
        client, seen = self.client()
        tools = [schema(Forecast, ANTHROPIC_TOOLS), schema(Search, ANTHROPIC_TOOLS)]
        assert check_request(tools, ANTHROPIC_TOOLS) == []
        message = client.messages.create(
            model="claude-test", max_tokens=16,
            messages=[{"role": "user", "content": "weather?"}], tools=tools,
        )
        assert message.content[0].text == "ok"
        assert seen[0]["tools"] == tools
        assert seen[0]["tools"][0]["strict"] is True

    def test_output_format_reaches_the_transport_unchanged(self) -> None:
        """output_config.format takes the ANTHROPIC output unchanged."""
        client, seen = self.client()
        fmt = schema(Forecast, ANTHROPIC)
        client.messages.create(
            model="claude-test", max_tokens=16,
            messages=[{"role": "user", "content": "weather?"}],
            output_config={"format": fmt},
        )
        assert seen[0]["output_config"]["format"] == fmt

    def test_sdk_transform_moves_only_patterns(self) -> None:
        """The SDK's own transform (``transform_schema``) changes our body in two ways.

        It leaves out ``type`` beside ``enum``/``const``, and it moves every ``pattern``
        into the description as ``{pattern: ...}`` (its string branch keeps only
        ``format``), so a pattern sent through it is no longer enforced. Everything else
        of ours it keeps. Send our body as it is, not through the SDK's transform.
        """
        from anthropic.lib._parse._transform import transform_schema

        def expected(node: Any) -> Any:
            if isinstance(node, dict):
                out = {k: expected(v) for k, v in node.items()}
                if "enum" in out or "const" in out:
                    out.pop("type", None)
                if "pattern" in out and out.get("type") == "string":
                    pattern = out.pop("pattern")
                    text = out.get("description")
                    out["description"] = (f"{text}\n\n" if text is not None else "") + (
                        f"{{pattern: {pattern}}}"
                    )
                return out
            if isinstance(node, list):
                return [expected(v) for v in node]
            return node

        @attrs.define
        class Code:
            """A code."""

            code: str = attrs.field(validator=attrs.validators.matches_re(r"[A-Z]{3}"))
            note: Annotated[str, Annotation(description="A note.")] = attrs.field(
                validator=attrs.validators.matches_re(r"\d+")
            )

        moved = 0
        for cls in (Forecast, Search, Place, Code):
            body = schema(cls, ANTHROPIC)["schema"]
            assert transform_schema(body) == expected(body)
            moved += json.dumps(body).count('"pattern"')
        assert moved == 2  # the patterns were there to move


class TestOpenAISDK:
    REPLY: dict[str, Any] = {  # noqa: RUF012 - read only
        "id": "c1", "object": "chat.completion", "created": 0, "model": "gpt-test",
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": "{}"}}],
    }

    def client(self, reply: dict[str, Any]) -> tuple[Any, list[dict[str, Any]]]:
        import openai
        import openai._base_client

        http, seen, sent_reply = mock_client(openai._base_client)
        sent_reply.update(reply)
        return openai.OpenAI(api_key="test-key", http_client=http, max_retries=0), seen

    def test_chat_tools_and_response_format(self) -> None:
        """Chat Completions sends our tools and response_format unchanged."""
        client, seen = self.client(self.REPLY)
        tools = [schema(Forecast, OPENAI_CHAT_TOOLS), schema(Search, OPENAI_CHAT_TOOLS)]
        fmt = schema(Forecast, OPENAI)
        client.chat.completions.create(
            model="gpt-test", messages=[{"role": "user", "content": "hi"}], tools=tools,
            response_format={"type": "json_schema", "json_schema": fmt},
        )
        assert seen[0]["tools"] == tools
        assert seen[0]["response_format"]["json_schema"] == fmt

    def test_responses_tools(self) -> None:
        """The Responses API sends our flat function tools unchanged."""
        client, seen = self.client({
            "id": "r1", "object": "response", "created_at": 0, "model": "gpt-test",
            "output": [], "parallel_tool_calls": True, "tool_choice": "auto", "tools": [],
            "status": "completed"})
        tools = [schema(Forecast, OPENAI_TOOLS)]
        client.responses.create(model="gpt-test", input="hi", tools=tools)
        assert seen[0]["tools"] == tools


class TestMCP:
    @pytest.mark.parametrize("cls", [Forecast, Search, Place])
    def test_tool_validates(self, cls: type) -> None:
        """mcp.types.Tool accepts MCP_TOOLS output and keeps the input schema as is."""
        from mcp.types import Tool

        out = schema(cls, MCP_TOOLS)
        tool = Tool.model_validate(out)
        assert tool.name == out["name"]
        assert tool.description == out["description"]
        assert tool.input_schema == out["inputSchema"]
        assert tool.model_dump(by_alias=True, exclude_none=True) == out

    def test_function_tool_validates(self) -> None:
        """A function's MCP tool definition validates too."""
        from mcp.types import Tool

        def lookup(city: str, days: int = 1) -> str:
            """Look up a city."""
            return city

        out = schema(lookup, MCP_TOOLS)
        assert Tool.model_validate(out).input_schema["required"] == ["city"]


class TestGemini:
    @pytest.mark.parametrize("cls", [Forecast, Search, Place])
    def test_function_declaration_validates(self, cls: type) -> None:
        """google-genai's FunctionDeclaration accepts GEMINI output."""
        from google.genai import types

        out = schema(cls, GEMINI)
        declaration = types.FunctionDeclaration.model_validate(out)
        assert declaration.name == out["name"]
        assert declaration.parameters_json_schema == out["parameters_json_schema"]
        assert declaration.parameters is None

    def test_tool_config_round_trip(self) -> None:
        """A Tool holding our declarations serializes to what the API is sent."""
        from google.genai import types

        out = schema(Forecast, GEMINI)
        tool = types.Tool(function_declarations=[types.FunctionDeclaration.model_validate(out)])
        sent = tool.model_dump(mode="json", exclude_none=True)
        assert sent["function_declarations"][0]["parameters_json_schema"] == \
            out["parameters_json_schema"]


ADAPTERS = [STANDARD, OPENAI, OPENAI_TOOLS, OPENAI_CHAT_TOOLS, ANTHROPIC_TOOLS, ANTHROPIC,
            GEMINI, MCP_TOOLS]


@pytest.mark.parametrize("adapter", ADAPTERS, ids=repr)
@pytest.mark.parametrize("cls", [Forecast, Search, Place])
def test_bodies_are_json_schema(adapter: Adapter, cls: type) -> None:
    """Every adapter's body is a valid draft 2020-12 schema, with and without $defs."""
    for refs in (False, True):
        body = body_of(schema(cls, adapter, use_references=refs), adapter)
        jsonschema.Draft202012Validator.check_schema(body)


@settings(max_examples=50)
@given(classes(more_types=True))
def test_generated_bodies_are_json_schema(drawn: Any) -> None:
    """For random class trees every adapter's body is a valid draft 2020-12 schema."""
    cls, _ = drawn
    for adapter in ADAPTERS:
        try:
            out = schema(cls, adapter, use_references=True)
        except SchemaError:
            continue
        jsonschema.Draft202012Validator.check_schema(body_of(out, adapter))

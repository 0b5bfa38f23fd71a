"""End to end with the real provider SDKs over a mock HTTP transport: definitions out, calls in,
results back in each provider's shape; and the mcp SDK's Tool type accepting MCP_TOOLS output."""

from __future__ import annotations

import asyncio
import importlib
import json
from collections.abc import Callable
from typing import Any

import anthropic
import attrs
import mcp.types
import openai
import pytest

from describedtypes import (
    ANTHROPIC_TOOLS,
    MCP_TOOLS,
    OPENAI_CHAT_TOOLS,
    OPENAI_TOOLS,
    Context,
    Toolbox,
    read_tool_calls,
    tool_results_for_anthropic,
    tool_results_for_openai_chat,
    tool_results_for_openai_responses,
)


@attrs.define
class Account:
    user: str


@attrs.define
class Address:
    street: str
    city: str


def get_weather(city: str, unit: str = "celsius") -> dict[str, Any]:
    """Get the current weather.

    Args:
        city: City name.
        unit: celsius or fahrenheit.
    """
    return {"city": city, "temperature": 21, "unit": unit}


def ship(to: Address, express: bool = False) -> str:
    """Ship a parcel to an address."""
    return f"shipping to {to.city}"


async def whoami(account: Context[Account]) -> str:
    """Say who is signed in."""
    await asyncio.sleep(0)
    return account.user


def make_box() -> Toolbox:
    return Toolbox([get_weather, ship, whoami])


def http_module(client: Any) -> Any:
    """The httpx-compatible module the SDK's own HTTP client comes from (httpx or httpx2)."""
    for cls in type(client._client).__mro__:
        if cls.__name__ == "Client" and cls.__module__.split(".")[0].startswith("httpx"):
            return importlib.import_module(cls.__module__.split(".")[0])
    msg = f"cannot find the HTTP library of {type(client).__name__}"
    raise AssertionError(msg)


class Recorder:
    """A mock transport handler: records each request body and answers from a list."""

    def __init__(self, replies: list[dict[str, Any]]) -> None:
        self.replies = list(replies)
        self.bodies: list[dict[str, Any]] = []
        self.paths: list[str] = []

    def __call__(self, request: Any) -> Any:
        self.paths.append(request.url.path)
        self.bodies.append(json.loads(request.content))
        return self.http.Response(200, json=self.replies.pop(0))

    def client(self, sdk_client: Callable[..., Any]) -> Any:
        probe = sdk_client(api_key="test-key")
        self.http = http_module(probe)
        transport = self.http.MockTransport(self)
        return sdk_client(
            api_key="test-key",
            base_url="https://api.example.test/v1",
            http_client=self.http.Client(transport=transport),
            max_retries=0,
        )


CALL_ARGS = {
    "get_weather": '{"city": "Paris", "unit": "celsius"}',
    "ship": '{"to": {"street": "Main 1", "city": 7}, "express": false}',  # a type mistake
    "whoami": "{}",
}


def test_openai_responses_round_trip() -> None:
    """Responses API: our tools go out, function_call items run, outputs come back by call_id."""
    box = make_box()
    reply = {
        "id": "resp_1", "object": "response", "created_at": 0, "model": "gpt-test",
        "status": "completed", "parallel_tool_calls": True, "tool_choice": "auto", "tools": [],
        "output": [
            {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "get_weather",
             "arguments": CALL_ARGS["get_weather"], "status": "completed"},
            {"type": "function_call", "id": "fc_2", "call_id": "call_2", "name": "ship",
             "arguments": CALL_ARGS["ship"], "status": "completed"},
            {"type": "function_call", "id": "fc_3", "call_id": "call_3", "name": "whoami",
             "arguments": CALL_ARGS["whoami"], "status": "completed"},
        ],
    }
    final = {**reply, "id": "resp_2", "output": [
        {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
         "content": [{"type": "output_text", "text": "Done.", "annotations": []}]},
    ]}
    recorder = Recorder([reply, final])
    client = recorder.client(openai.OpenAI)
    tools = box.definitions(OPENAI_TOOLS)
    history: list[Any] = [{"role": "user", "content": "Weather in Paris?"}]

    response = client.responses.create(model="gpt-test", input=history, tools=tools)
    assert recorder.paths[0].endswith("/responses")
    assert recorder.bodies[0]["tools"] == tools

    calls = read_tool_calls(response)
    assert [c.call_id for c in calls] == ["call_1", "call_2", "call_3"]
    results = asyncio.run(box.acall_many(calls, context=Account("ada")))
    assert [r.is_error for r in results] == [False, True, False]

    history += [item.model_dump(exclude_none=True) for item in response.output]
    history += tool_results_for_openai_responses(results)
    second = client.responses.create(model="gpt-test", input=history, tools=tools)
    assert second.output_text == "Done."

    sent = recorder.bodies[1]["input"]
    outputs = [item for item in sent if item.get("type") == "function_call_output"]
    assert [o["call_id"] for o in outputs] == ["call_1", "call_2", "call_3"]
    assert json.loads(outputs[0]["output"]) == {"city": "Paris", "temperature": 21,
                                                "unit": "celsius"}
    assert "$.to.city" in outputs[1]["output"]
    assert outputs[2]["output"] == "ada"


def test_openai_chat_round_trip() -> None:
    """Chat Completions: tools nested under function, tool_calls run, role tool messages back."""
    box = make_box()
    reply = {
        "id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": "gpt-test",
        "choices": [{
            "index": 0, "finish_reason": "tool_calls",
            "message": {"role": "assistant", "content": None, "tool_calls": [
                {"id": "call_1", "type": "function",
                 "function": {"name": "get_weather", "arguments": CALL_ARGS["get_weather"]}},
                {"id": "call_2", "type": "function",
                 "function": {"name": "get_wether", "arguments": "{}"}},
            ]},
        }],
    }
    final = {**reply, "id": "chatcmpl-2", "choices": [{
        "index": 0, "finish_reason": "stop",
        "message": {"role": "assistant", "content": "It is 21 degrees."},
    }]}
    recorder = Recorder([reply, final])
    client = recorder.client(openai.OpenAI)
    tools = box.definitions(OPENAI_CHAT_TOOLS)
    messages: list[Any] = [{"role": "user", "content": "Weather in Paris?"}]

    completion = client.chat.completions.create(model="gpt-test", messages=messages,
                                                tools=tools)
    assert recorder.paths[0].endswith("/chat/completions")
    assert recorder.bodies[0]["tools"] == tools
    assert tools[0]["function"]["name"] == "get_weather"

    results = asyncio.run(box.acall_many(read_tool_calls(completion)))
    assert [r.is_error for r in results] == [False, True]
    messages.append(completion.choices[0].message.model_dump(exclude_none=True))
    messages += tool_results_for_openai_chat(results)
    second = client.chat.completions.create(model="gpt-test", messages=messages, tools=tools)
    assert second.choices[0].message.content == "It is 21 degrees."

    sent = recorder.bodies[1]["messages"]
    assert sent[1]["tool_calls"][0]["id"] == "call_1"
    tool_messages = [m for m in sent if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in tool_messages] == ["call_1", "call_2"]
    assert "Did you mean 'get_weather'?" in tool_messages[1]["content"]


def test_anthropic_round_trip() -> None:
    """Messages API: tool_use blocks run, one user message of tool_result blocks goes back."""
    box = make_box()
    reply = {
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-test",
        "stop_reason": "tool_use", "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 10},
        "content": [
            {"type": "text", "text": "Let me check."},
            {"type": "tool_use", "id": "toolu_1", "name": "get_weather",
             "input": {"city": "Paris"}},
            {"type": "tool_use", "id": "toolu_2", "name": "ship",
             "input": {"to": {"street": "Main 1", "city": "Lyon"}, "expres": True}},
        ],
    }
    final = {**reply, "id": "msg_2", "stop_reason": "end_turn",
             "content": [{"type": "text", "text": "Sunny."}]}
    recorder = Recorder([reply, final])
    client = recorder.client(anthropic.Anthropic)
    tools = box.definitions(ANTHROPIC_TOOLS)
    messages: list[Any] = [{"role": "user", "content": "Weather in Paris?"}]

    message = client.messages.create(model="claude-test", max_tokens=100, messages=messages,
                                     tools=tools)
    assert recorder.paths[0].endswith("/messages")
    assert recorder.bodies[0]["tools"] == tools
    assert all(t["input_schema"]["additionalProperties"] is False for t in tools)

    results = asyncio.run(box.acall_many(read_tool_calls(message)))
    messages.append({"role": "assistant",
                     "content": [b.model_dump(exclude_none=True) for b in message.content]})
    messages.append(tool_results_for_anthropic(results))
    second = client.messages.create(model="claude-test", max_tokens=100, messages=messages,
                                    tools=tools)
    assert second.content[0].text == "Sunny."

    sent = recorder.bodies[1]["messages"][-1]
    assert sent["role"] == "user"
    blocks = sent["content"]
    assert [b["tool_use_id"] for b in blocks] == ["toolu_1", "toolu_2"]
    assert [b["is_error"] for b in blocks] == [False, True]
    assert "did you mean 'express'?" in blocks[1]["content"]


def test_async_clients() -> None:
    """The async SDK clients carry the same definitions and results."""
    box = make_box()
    reply = {
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-test",
        "stop_reason": "tool_use", "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
        "content": [{"type": "tool_use", "id": "toolu_1", "name": "whoami", "input": {}}],
    }
    bodies: list[dict[str, Any]] = []
    http = http_module(anthropic.Anthropic(api_key="k"))

    async def handler(request: Any) -> Any:
        bodies.append(json.loads(request.content))
        return http.Response(200, json=reply)

    async def main() -> list[Any]:
        client = anthropic.AsyncAnthropic(
            api_key="k", base_url="https://api.example.test",
            http_client=http.AsyncClient(transport=http.MockTransport(handler)), max_retries=0,
        )
        message = await client.messages.create(
            model="claude-test", max_tokens=10, tools=box.definitions(ANTHROPIC_TOOLS),
            messages=[{"role": "user", "content": "who?"}],
        )
        return await box.acall_many(read_tool_calls(message), context=Account("lin"))

    results = asyncio.run(main())
    assert bodies[0]["tools"] == box.definitions(ANTHROPIC_TOOLS)
    assert tool_results_for_anthropic(results)["content"][0]["content"] == "lin"


@pytest.mark.parametrize("func", [get_weather, ship, whoami])
def test_mcp_tool_type_accepts_definitions(func: Any) -> None:
    """The mcp SDK's Tool model validates each MCP_TOOLS definition and keeps it intact."""
    (definition,) = Toolbox([func]).definitions(MCP_TOOLS)
    tool = mcp.types.Tool.model_validate(definition)
    assert tool.name == func.__name__
    assert tool.model_dump(by_alias=True, exclude_none=True) == definition

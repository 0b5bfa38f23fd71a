"""Provider glue: tool calls read from replies, results shaped for each provider's next request."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from describedtypes import (
    ToolCall,
    ToolResult,
    read_tool_calls,
    tool_calls_from_anthropic,
    tool_calls_from_openai_chat,
    tool_calls_from_openai_responses,
    tool_results_for_anthropic,
    tool_results_for_openai_chat,
    tool_results_for_openai_responses,
)

RESPONSES_REPLY: dict[str, Any] = {
    "id": "resp_1",
    "object": "response",
    "output": [
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {"type": "function_call", "id": "fc_1", "call_id": "call_a", "name": "get_weather",
         "arguments": '{"city": "Paris"}', "status": "completed"},
        {"type": "message", "id": "msg_1", "role": "assistant", "content": []},
        {"type": "function_call", "id": "fc_2", "call_id": "call_b", "name": "ship",
         "arguments": "{}", "status": "completed"},
    ],
}

CHAT_REPLY: dict[str, Any] = {
    "id": "chatcmpl-1",
    "object": "chat.completion",
    "choices": [
        {
            "index": 0,
            "finish_reason": "tool_calls",
            "message": {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": "call_a", "type": "function",
                     "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}},
                    {"id": "call_c", "type": "custom",
                     "custom": {"name": "grammar_tool", "input": "x"}},
                    {"id": "call_b", "type": "function",
                     "function": {"name": "ship", "arguments": "{}"}},
                ],
            },
        }
    ],
}

ANTHROPIC_REPLY: dict[str, Any] = {
    "id": "msg_1",
    "type": "message",
    "role": "assistant",
    "stop_reason": "tool_use",
    "content": [
        {"type": "text", "text": "Let me check."},
        {"type": "tool_use", "id": "toolu_a", "name": "get_weather", "input": {"city": "Paris"}},
        {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}},
        {"type": "tool_use", "id": "toolu_b", "name": "ship", "input": {}},
    ],
}

EXPECTED_TEXT = [
    ToolCall("get_weather", '{"city": "Paris"}', "call_a"),
    ToolCall("ship", "{}", "call_b"),
]
EXPECTED_ANTHROPIC = [
    ToolCall("get_weather", {"city": "Paris"}, "toolu_a"),
    ToolCall("ship", {}, "toolu_b"),
]


class TestReading:
    def test_openai_responses(self) -> None:
        """function_call items are read in order; other output items are skipped."""
        assert tool_calls_from_openai_responses(RESPONSES_REPLY) == EXPECTED_TEXT
        assert tool_calls_from_openai_responses(RESPONSES_REPLY["output"]) == EXPECTED_TEXT

    def test_openai_chat(self) -> None:
        """Function tool calls of the first choice are read; custom tool calls are skipped."""
        choice = CHAT_REPLY["choices"][0]
        for shape in (CHAT_REPLY, choice, choice["message"], choice["message"]["tool_calls"]):
            assert tool_calls_from_openai_chat(shape) == EXPECTED_TEXT

    def test_openai_chat_without_calls(self) -> None:
        """A plain text reply, or one with no choices, has no tool calls."""
        message = {"role": "assistant", "content": "Hello", "tool_calls": None}
        assert tool_calls_from_openai_chat(message) == []
        assert tool_calls_from_openai_chat({"choices": []}) == []

    def test_anthropic(self) -> None:
        """tool_use blocks are read with their parsed input; other blocks are skipped."""
        assert tool_calls_from_anthropic(ANTHROPIC_REPLY) == EXPECTED_ANTHROPIC
        assert tool_calls_from_anthropic(ANTHROPIC_REPLY["content"]) == EXPECTED_ANTHROPIC

    @pytest.mark.parametrize(
        ("reply", "expected"),
        [
            (RESPONSES_REPLY, EXPECTED_TEXT),
            (RESPONSES_REPLY["output"], EXPECTED_TEXT),
            (CHAT_REPLY, EXPECTED_TEXT),
            (CHAT_REPLY["choices"][0], EXPECTED_TEXT),
            (CHAT_REPLY["choices"][0]["message"], EXPECTED_TEXT),
            (CHAT_REPLY["choices"][0]["message"]["tool_calls"], EXPECTED_TEXT),
            (ANTHROPIC_REPLY, EXPECTED_ANTHROPIC),
            (ANTHROPIC_REPLY["content"], EXPECTED_ANTHROPIC),
            ([], []),
        ],
        ids=["responses", "responses-output", "chat", "chat-choice", "chat-message",
             "chat-tool-calls", "anthropic", "anthropic-content", "empty"],
    )
    def test_read_tool_calls_detects_shape(self, reply: Any, expected: list[ToolCall]) -> None:
        """read_tool_calls recognises every supported reply shape by itself."""
        assert read_tool_calls(reply) == expected

    @pytest.mark.parametrize(
        "reply", [42, "text", {"something": "else"}, {"content": "just text"}],
        ids=["int", "str", "unknown-dict", "text-content"],
    )
    def test_unknown_shape(self, reply: Any) -> None:
        """A value of no known shape is a TypeError that lists the accepted shapes."""
        with pytest.raises(TypeError, match=r"Responses|Chat|Anthropic"):
            read_tool_calls(reply)

    def test_bad_item(self) -> None:
        """A tool call without a string name is a TypeError, not a silent skip."""
        with pytest.raises(TypeError, match="name must be a str"):
            tool_calls_from_anthropic([{"type": "tool_use", "id": "t", "input": {}}])

    def test_reads_attributes_of_objects(self) -> None:
        """SDK-like objects are read through attributes as well as dict keys."""

        class Obj:
            def __init__(self, **kw: Any) -> None:
                self.__dict__.update(kw)

        reply = Obj(content=[Obj(type="tool_use", id="t1", name="ship", input={"a": 1})])
        assert read_tool_calls(reply) == [ToolCall("ship", {"a": 1}, "t1")]


RESULTS = [
    ToolResult(content='{"temp":21}', value={"temp": 21}, call_id="c1", name="get_weather"),
    ToolResult(content="Unknown tool 'x'.", is_error=True, call_id="c2", name="x"),
]


class TestResults:
    def test_openai_responses_outputs(self) -> None:
        """Each result becomes a function_call_output item with its call_id."""
        assert tool_results_for_openai_responses(RESULTS) == [
            {"type": "function_call_output", "call_id": "c1", "output": '{"temp":21}'},
            {"type": "function_call_output", "call_id": "c2", "output": "Unknown tool 'x'."},
        ]

    def test_openai_chat_messages(self) -> None:
        """Each result becomes a role: tool message with its tool_call_id."""
        assert tool_results_for_openai_chat(RESULTS) == [
            {"role": "tool", "tool_call_id": "c1", "content": '{"temp":21}'},
            {"role": "tool", "tool_call_id": "c2", "content": "Unknown tool 'x'."},
        ]

    def test_anthropic_message(self) -> None:
        """All results go into one user message of tool_result blocks carrying is_error."""
        assert tool_results_for_anthropic(RESULTS) == {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "c1", "content": '{"temp":21}',
                 "is_error": False},
                {"type": "tool_result", "tool_use_id": "c2", "content": "Unknown tool 'x'.",
                 "is_error": True},
            ],
        }

    def test_single_result(self) -> None:
        """One ToolResult may be passed without a list."""
        assert tool_results_for_openai_chat(RESULTS[0]) == tool_results_for_openai_chat(
            RESULTS[:1]
        )

    @pytest.mark.parametrize(
        "writer",
        [tool_results_for_openai_responses, tool_results_for_openai_chat,
         tool_results_for_anthropic],
    )
    def test_missing_call_id(self, writer: Any) -> None:
        """A result without call_id cannot be sent back, and the error says where to set it."""
        with pytest.raises(ValueError, match="call_id="):
            writer([ToolResult(content="x", name="t")])

    def test_not_a_result(self) -> None:
        """Only ToolResult objects are accepted."""
        with pytest.raises(TypeError, match="ToolResult"):
            tool_results_for_openai_chat([{"content": "x"}])  # type: ignore[list-item]


names = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_-0123456789", min_size=1, max_size=20)
ids = st.text(min_size=1, max_size=20)
argument_objects = st.dictionaries(
    st.text(max_size=8), st.one_of(st.integers(), st.text(max_size=8), st.none()), max_size=3
)
calls = st.lists(st.tuples(names, argument_objects, ids), max_size=5)


@given(calls)
def test_round_trip_through_every_shape(drawn: list[tuple[str, dict[str, Any], str]]) -> None:
    """Calls written in any provider's reply shape read back as the same calls."""
    responses = {"output": [
        {"type": "function_call", "call_id": i, "name": n, "arguments": json.dumps(a)}
        for n, a, i in drawn
    ]}
    chat = {"choices": [{"message": {"role": "assistant", "tool_calls": [
        {"id": i, "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
        for n, a, i in drawn
    ]}}]}
    anthropic = {"content": [
        {"type": "tool_use", "id": i, "name": n, "input": a} for n, a, i in drawn
    ]}
    as_text = [ToolCall(n, json.dumps(a), i) for n, a, i in drawn]
    assert read_tool_calls(responses) == as_text
    assert read_tool_calls(chat) == as_text
    assert read_tool_calls(anthropic) == [ToolCall(n, a, i) for n, a, i in drawn]

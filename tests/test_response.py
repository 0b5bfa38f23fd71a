"""decode_response(): replies inside OpenAI and Anthropic responses, refusals and cut-offs."""

from __future__ import annotations

import enum
from typing import Any

import attrs
import orjson
import pytest
from anthropic.types import Message
from openai.types.chat import ChatCompletion
from openai.types.responses import Response

from describedtypes import (
    DecodeError,
    IncompleteReplyError,
    RefusalError,
    decode_response,
)


class Unit(enum.Enum):
    CELSIUS = "celsius"
    FAHRENHEIT = "fahrenheit"


@attrs.define
class Weather:
    location: str
    temperature: float
    unit: Unit


GOOD = '{"location": "Oslo", "temperature": 21.5, "unit": "celsius"}'
EXPECTED = Weather("Oslo", 21.5, Unit.CELSIUS)


# -- response builders: the providers' JSON, as dicts and as SDK objects --------------------


def chat(
    content: str | None = GOOD,
    *,
    refusal: str | None = None,
    finish_reason: str = "stop",
    tool_calls: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content, "refusal": refusal}
    if tool_calls is not None:
        message["tool_calls"] = tool_calls
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": "gpt-4o",
        "choices": [{"index": 0, "finish_reason": finish_reason, "message": message,
                     "logprobs": None}],
    }


def chat_tool_call(name: str, arguments: str) -> dict[str, Any]:
    return {"id": "call_1", "type": "function", "function": {"name": name, "arguments": arguments}}


def responses(
    output: list[dict[str, Any]],
    *,
    status: str = "completed",
    incomplete: str | None = None,
) -> dict[str, Any]:
    return {
        "id": "resp_1",
        "object": "response",
        "created_at": 1,
        "model": "gpt-4o",
        "output": output,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "status": status,
        "incomplete_details": {"reason": incomplete} if incomplete else None,
    }


def output_message(*parts: dict[str, Any]) -> dict[str, Any]:
    return {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
            "content": list(parts)}


def output_text(text: str = GOOD) -> dict[str, Any]:
    return {"type": "output_text", "text": text, "annotations": []}


def anthropic(blocks: list[dict[str, Any]], stop_reason: str = "end_turn") -> dict[str, Any]:
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": blocks,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }


SDK = {
    "chat": ChatCompletion.model_validate,
    "responses": Response.model_validate,
    "anthropic": Message.model_validate,
}


def forms(kind: str, raw: dict[str, Any]) -> list[Any]:
    """The same response as a plain dict and as the provider's SDK object."""
    return [raw, SDK[kind](raw)]


# -- decoding the reply ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "raw"),
    [
        ("chat", chat()),
        ("responses", responses([output_message(output_text())])),
        ("anthropic", anthropic([{"type": "text", "text": GOOD}])),
    ],
)
def test_the_reply_text_is_decoded(kind: str, raw: dict[str, Any]) -> None:
    """Message text from each API, as dict or SDK object, decodes into the type."""
    for response in forms(kind, raw):
        assert decode_response(Weather, response) == EXPECTED


def test_a_chat_message_alone_is_accepted() -> None:
    """The message object (choices[0].message) can be passed instead of the completion."""
    sdk = ChatCompletion.model_validate(chat())
    assert decode_response(Weather, sdk.choices[0].message) == EXPECTED
    assert decode_response(Weather, chat()["choices"][0]["message"]) == EXPECTED


@pytest.mark.parametrize(
    ("kind", "raw"),
    [
        ("chat", chat(None, tool_calls=[chat_tool_call("Weather", GOOD)])),
        ("responses", responses([{"type": "function_call", "id": "fc_1", "call_id": "call_1",
                                  "name": "Weather", "arguments": GOOD}])),
        ("anthropic", anthropic(
            [{"type": "text", "text": "Let me record that."},
             {"type": "tool_use", "id": "toolu_1", "name": "Weather",
              "input": orjson.loads(GOOD)}],
            stop_reason="tool_use",
        )),
    ],
)
def test_a_tool_call_named_like_the_type_is_decoded(kind: str, raw: dict[str, Any]) -> None:
    """When the type was offered as a tool, the call's arguments are the reply."""
    for response in forms(kind, raw):
        assert decode_response(Weather, response) == EXPECTED


def test_mistakes_in_the_reply_are_decode_errors() -> None:
    """A reply that does not match is a plain DecodeError with the paths."""
    for response in forms("chat", chat('{"location": "Oslo", "temperature": "hot"}')):
        with pytest.raises(DecodeError) as info:
            decode_response(Weather, response)
        assert type(info.value) is DecodeError
        assert info.value.errors == [
            ("$.temperature", 'expected number, got string "hot"'),
            ("$.unit", "missing required field"),
        ]


# -- refusals and cut-off replies -------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "raw"),
    [
        ("chat", chat(None, refusal="I can't help with that.")),
        ("responses", responses([output_message(
            {"type": "refusal", "refusal": "I can't help with that."})])),
        ("anthropic", anthropic([{"type": "text", "text": "I can't help with that."}],
                                stop_reason="refusal")),
    ],
)
def test_refusals_raise_refusal_error(kind: str, raw: dict[str, Any]) -> None:
    """A refusal is a RefusalError carrying the model's words, not a decoding mistake."""
    for response in forms(kind, raw):
        with pytest.raises(RefusalError) as info:
            decode_response(Weather, response)
        assert info.value.refusal == "I can't help with that."
        assert info.value.errors == [("$", "the model refused: I can't help with that.")]


@pytest.mark.parametrize(
    ("kind", "raw", "reason"),
    [
        ("chat", chat('{"location": "Os', finish_reason="length"), "length"),
        ("chat", chat("", finish_reason="content_filter"), "content_filter"),
        ("responses", responses([output_message(output_text('{"loc'))], status="incomplete",
                                incomplete="max_output_tokens"), "max_output_tokens"),
        ("responses", responses([], status="incomplete", incomplete="content_filter"),
         "content_filter"),
        ("anthropic", anthropic([{"type": "text", "text": '{"locat'}], stop_reason="max_tokens"),
         "max_tokens"),
    ],
)
def test_cut_off_replies_raise_incomplete_reply_error(
    kind: str, raw: dict[str, Any], reason: str
) -> None:
    """A reply stopped by the token limit or a filter is an IncompleteReplyError with why."""
    for response in forms(kind, raw):
        with pytest.raises(IncompleteReplyError) as info:
            decode_response(Weather, response)
        assert info.value.reason == reason
        assert "raise the output token limit" in str(info.value)


def test_a_response_without_a_reply_is_a_decode_error() -> None:
    """No choices, no output text or no text block is a DecodeError saying so."""
    cases = [
        {**chat(), "choices": []},
        responses([]),
        anthropic([]),
    ]
    for response in cases:
        with pytest.raises(DecodeError) as info:
            decode_response(Weather, response)
        ((path, message),) = info.value.errors
        assert path == "$"
        assert message.startswith("the response has no reply to decode")


def test_a_failed_responses_call_reports_its_error() -> None:
    """A Responses object with an error carries the provider's message."""
    raw = {**responses([], status="failed"),
           "error": {"code": "server_error", "message": "The server had an error"}}
    for response in forms("responses", raw):
        with pytest.raises(DecodeError) as info:
            decode_response(Weather, response)
        assert info.value.errors == [("$", "the response failed: The server had an error")]


def test_an_unknown_object_is_a_type_error_pointing_to_decode() -> None:
    """Something that is no provider response is a TypeError suggesting decode()."""
    with pytest.raises(TypeError, match=r"use decode\(tp, text\)"):
        decode_response(Weather, {"text": GOOD})

"""extract_stream puts a streamed reply back into the conversation as extract() puts the
same reply whole: text, tool calls with their ids, reasoning blocks and signatures.

Each provider's real SDK (boto3 for Bedrock) sends the requests over a mock transport; the
retry request after a bad streamed reply must equal the one extract() sends after the same
bad whole reply, apart from the keywords only a stream sends."""

from __future__ import annotations

import asyncio
import importlib
import json
import sys
from collections.abc import Callable
from typing import Any

import anthropic
import attrs
import httpx
import openai
import pytest
from google import genai

from describedtypes import (
    ANTHROPIC_TOOLS,
    BEDROCK_TOOLS,
    GEMINI,
    OPENAI_CHAT_TOOLS,
    OPENAI_TOOLS,
    DecodeError,
    aextract_stream,
    extract,
    extract_stream,
    schema,
)

from .test_stream import sse

pytest.importorskip("jiter", reason="partial parsing is the stream extra")

#: Keywords only a streamed request carries.
STREAM_ONLY = ("stream", "stream_options")

BAD = {"city": 5, "degrees": "warm"}
GOOD = {"city": "Paris", "degrees": 21}
PREAMBLE = "Let me fill it in."


@attrs.define
class Weather:
    city: str
    degrees: int


class Server:
    """Records each request body; answers from a list of (content type, bytes)."""

    def __init__(self, replies: list[tuple[str, bytes]]) -> None:
        self.replies = list(replies)
        self.bodies: list[dict[str, Any]] = []

    def __call__(self, request: Any) -> Any:
        self.bodies.append(json.loads(request.content))
        kind, body = self.replies.pop(0)
        module = importlib.import_module(type(request).__module__.split(".")[0])
        return module.Response(200, headers={"content-type": kind}, content=body)


def _json(data: dict[str, Any]) -> tuple[str, bytes]:
    return "application/json", json.dumps(data).encode()


def _sdk_client(cls: Any, server: Server, base_url: str, *, asynchronous: bool = False) -> Any:
    probe = cls(api_key="k")
    for klass in type(probe._client).__mro__:
        if klass.__name__ == "Client" and klass.__module__.startswith("httpx"):
            http = importlib.import_module(klass.__module__.split(".")[0])
            break
    else:  # pragma: no cover
        http = httpx
    if asynchronous:
        cls = getattr(sys.modules[cls.__module__.split(".")[0]], "Async" + cls.__name__)
    client = (http.AsyncClient if asynchronous else http.Client)(
        transport=http.MockTransport(server))
    return cls(api_key="k", base_url=base_url, max_retries=0, http_client=client)


class Provider:
    """One API: its client over a server, a reply whole and streamed, the tools keyword."""

    api: str | None = None

    def client(self, server: Server) -> Any:
        raise NotImplementedError

    def whole(self, args: dict[str, Any]) -> tuple[str, bytes]:
        raise NotImplementedError

    def streamed(self, args: dict[str, Any]) -> tuple[str, bytes]:
        raise NotImplementedError

    def tools(self) -> dict[str, Any]:
        raise NotImplementedError

    def results(self, body: dict[str, Any]) -> list[tuple[Any, str]]:
        raise NotImplementedError


class Chat(Provider):
    def client(self, server: Server) -> Any:
        return _sdk_client(openai.OpenAI, server, "https://api.example.test/v1")

    def whole(self, args: dict[str, Any]) -> tuple[str, bytes]:
        return _json({
            "id": "c1", "object": "chat.completion", "created": 0, "model": "m",
            "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
                "role": "assistant", "content": PREAMBLE,
                "tool_calls": [{"id": "call_1", "type": "function", "function": {
                    "name": "Weather", "arguments": json.dumps(args)}}],
            }}],
        })

    def streamed(self, args: dict[str, Any]) -> tuple[str, bytes]:
        text = json.dumps(args)
        deltas: list[dict[str, Any]] = [
            {"role": "assistant", "content": PREAMBLE[:6]}, {"content": PREAMBLE[6:]},
            {"tool_calls": [{"index": 0, "id": "call_1", "type": "function",
                             "function": {"name": "Weather", "arguments": ""}}]},
            {"tool_calls": [{"index": 0, "function": {"arguments": text[:7]}}]},
            {"tool_calls": [{"index": 0, "function": {"arguments": text[7:]}}]},
        ]
        chunks = [
            {"id": "c1", "object": "chat.completion.chunk", "created": 0, "model": "m",
             "choices": [{"index": 0, "delta": d, "finish_reason": None}]}
            for d in deltas
        ]
        chunks.append({"id": "c1", "object": "chat.completion.chunk", "created": 0,
                       "model": "m",
                       "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})
        return "text/event-stream", sse(chunks, named=False, done=True)

    def tools(self) -> dict[str, Any]:
        return {"tools": [schema(Weather, OPENAI_CHAT_TOOLS)]}

    def results(self, body: dict[str, Any]) -> list[tuple[Any, str]]:
        """(call id, content) of the tool results after the last assistant message."""
        messages = body["messages"]
        last = max(i for i, m in enumerate(messages) if m["role"] == "assistant")
        assert all(m["role"] == "tool" for m in messages[last + 1:])
        return [(m["tool_call_id"], m["content"]) for m in messages[last + 1:]]


class Responses(Provider):
    api = "responses"

    def __init__(self, *, completed_output: bool = True) -> None:
        self.completed_output = completed_output

    def client(self, server: Server) -> Any:
        return _sdk_client(openai.OpenAI, server, "https://api.example.test/v1")

    def _output(self, args: dict[str, Any]) -> list[dict[str, Any]]:
        return [
            {"type": "reasoning", "id": "rs_1", "summary": [],
             "encrypted_content": "opaque"},
            {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
             "phase": "commentary",
             "content": [{"type": "output_text", "text": PREAMBLE, "annotations": []}]},
            {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "Weather",
             "arguments": json.dumps(args), "status": "completed"},
        ]

    def _response(self, output: list[Any], status: str) -> dict[str, Any]:
        return {"id": "resp_1", "object": "response", "created_at": 0, "model": "m",
                "status": status, "parallel_tool_calls": True, "tool_choice": "auto",
                "tools": [], "output": output}

    def whole(self, args: dict[str, Any]) -> tuple[str, bytes]:
        return _json(self._response(self._output(args), "completed"))

    def streamed(self, args: dict[str, Any]) -> tuple[str, bytes]:
        reasoning, message, call = self._output(args)
        text = call["arguments"]
        events: list[dict[str, Any]] = [
            {"type": "response.created", "response": self._response([], "in_progress")},
            {"type": "response.output_item.added", "output_index": 0, "item": reasoning},
            {"type": "response.output_item.done", "output_index": 0, "item": reasoning},
            {"type": "response.output_item.added", "output_index": 1,
             "item": {**message, "status": "in_progress", "content": []}},
            {"type": "response.output_text.delta", "output_index": 1, "item_id": "msg_1",
             "content_index": 0, "delta": PREAMBLE, "logprobs": []},
            {"type": "response.output_item.done", "output_index": 1, "item": message},
            {"type": "response.output_item.added", "output_index": 2,
             "item": {**call, "arguments": "", "status": "in_progress"}},
            {"type": "response.function_call_arguments.delta", "output_index": 2,
             "item_id": "fc_1", "delta": text[:5]},
            {"type": "response.function_call_arguments.delta", "output_index": 2,
             "item_id": "fc_1", "delta": text[5:]},
            {"type": "response.function_call_arguments.done", "output_index": 2,
             "item_id": "fc_1", "name": "Weather", "arguments": text},
            {"type": "response.output_item.done", "output_index": 2, "item": call},
            {"type": "response.completed", "response": self._response(
                self._output(args) if self.completed_output else [], "completed")},
        ]
        for i, event in enumerate(events):
            event["sequence_number"] = i
        return "text/event-stream", sse(events, named=True)

    def tools(self) -> dict[str, Any]:
        return {"tools": [schema(Weather, OPENAI_TOOLS)]}

    def results(self, body: dict[str, Any]) -> list[tuple[Any, str]]:
        items = body["input"]
        last = max(i for i, m in enumerate(items) if m.get("type") == "function_call")
        assert all(m.get("type") == "function_call_output" for m in items[last + 1:])
        return [(m["call_id"], m["output"]) for m in items[last + 1:]]


class Claude(Provider):
    def client(self, server: Server) -> Any:
        return _sdk_client(anthropic.Anthropic, server, "https://api.example.test")

    def _content(self, args: dict[str, Any]) -> list[dict[str, Any]]:
        return [
            {"type": "thinking", "thinking": "The user wants weather.", "signature": "sig=="},
            {"type": "text", "text": PREAMBLE},
            {"type": "tool_use", "id": "toolu_1", "name": "Weather", "input": args},
        ]

    def whole(self, args: dict[str, Any]) -> tuple[str, bytes]:
        return _json({
            "id": "msg_1", "type": "message", "role": "assistant", "model": "m",
            "stop_reason": "tool_use", "stop_sequence": None,
            "usage": {"input_tokens": 1, "output_tokens": 1}, "content": self._content(args),
        })

    def streamed(self, args: dict[str, Any]) -> tuple[str, bytes]:
        text = json.dumps(args)
        events: list[dict[str, Any]] = [
            {"type": "message_start", "message": {
                "id": "msg_1", "type": "message", "role": "assistant", "model": "m",
                "content": [], "stop_reason": None, "stop_sequence": None,
                "usage": {"input_tokens": 1, "output_tokens": 1}}},
            {"type": "content_block_start", "index": 0,
             "content_block": {"type": "thinking", "thinking": "", "signature": ""}},
            {"type": "content_block_delta", "index": 0,
             "delta": {"type": "thinking_delta", "thinking": "The user wants "}},
            {"type": "content_block_delta", "index": 0,
             "delta": {"type": "thinking_delta", "thinking": "weather."}},
            {"type": "content_block_delta", "index": 0,
             "delta": {"type": "signature_delta", "signature": "sig=="}},
            {"type": "content_block_stop", "index": 0},
            {"type": "content_block_start", "index": 1,
             "content_block": {"type": "text", "text": ""}},
            {"type": "content_block_delta", "index": 1,
             "delta": {"type": "text_delta", "text": PREAMBLE[:4]}},
            {"type": "content_block_delta", "index": 1,
             "delta": {"type": "text_delta", "text": PREAMBLE[4:]}},
            {"type": "content_block_stop", "index": 1},
            {"type": "content_block_start", "index": 2, "content_block": {
                "type": "tool_use", "id": "toolu_1", "name": "Weather", "input": {}}},
            {"type": "content_block_delta", "index": 2,
             "delta": {"type": "input_json_delta", "partial_json": text[:6]}},
            {"type": "content_block_delta", "index": 2,
             "delta": {"type": "input_json_delta", "partial_json": text[6:]}},
            {"type": "content_block_stop", "index": 2},
            {"type": "message_delta", "delta": {"stop_reason": "tool_use",
                                                "stop_sequence": None},
             "usage": {"output_tokens": 5}},
            {"type": "message_stop"},
        ]
        return "text/event-stream", sse(events, named=True)

    def tools(self) -> dict[str, Any]:
        return {"tools": [schema(Weather, ANTHROPIC_TOOLS)]}

    def results(self, body: dict[str, Any]) -> list[tuple[Any, str]]:
        last = body["messages"][-1]
        assert last["role"] == "user"
        assert all(b["type"] == "tool_result" and b["is_error"] for b in last["content"])
        return [(b["tool_use_id"], b["content"]) for b in last["content"]]


class Gemini(Provider):
    def client(self, server: Server) -> Any:
        return genai.Client(api_key="k", http_options={
            "httpx_client": httpx.Client(transport=httpx.MockTransport(server)),
        })

    def _chunk(self, parts: list[dict[str, Any]], finish: str | None = None) -> dict[str, Any]:
        candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}}
        if finish:
            candidate["finishReason"] = finish
        return {"candidates": [candidate], "modelVersion": "m"}

    def whole(self, args: dict[str, Any]) -> tuple[str, bytes]:
        return _json(self._chunk([
            {"text": PREAMBLE},
            {"functionCall": {"name": "Weather", "args": args}, "thoughtSignature": "c2ln"},
        ], "STOP"))

    def streamed(self, args: dict[str, Any]) -> tuple[str, bytes]:
        chunks = [
            self._chunk([{"text": PREAMBLE[:5]}]),
            self._chunk([{"text": PREAMBLE[5:]}]),
            self._chunk([{"functionCall": {"name": "Weather", "args": args},
                          "thoughtSignature": "c2ln"}], "STOP"),
        ]
        body = "".join(f"data: {json.dumps(c)}\r\n\r\n" for c in chunks)
        return "text/event-stream", body.encode()

    def tools(self) -> dict[str, Any]:
        return {"config": {"tools": [{"function_declarations": [schema(Weather, GEMINI)]}]}}

    def results(self, body: dict[str, Any]) -> list[tuple[Any, str]]:
        last = body["contents"][-1]
        assert last["role"] == "user"
        return [(p["functionResponse"]["name"], p["functionResponse"]["response"]["error"])
                for p in last["parts"]]


PROVIDERS: dict[str, Callable[[], Provider]] = {
    "openai-chat": Chat,
    "openai-responses": Responses,
    "openai-responses-no-completed-output": lambda: Responses(completed_output=False),
    "anthropic": Claude,
    "gemini": Gemini,
}


def _without_stream_keywords(body: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in body.items() if k not in STREAM_ONLY}


@pytest.mark.parametrize("name", sorted(PROVIDERS))
def test_a_streamed_retry_sends_what_extract_sends(name: str) -> None:
    """A reply with a preamble and a tool call (plus reasoning where the API has it) whose
    arguments do not decode: the streamed retry request is extract()'s, calls and ids
    included; so is the conversation Extraction.messages holds after the good reply."""
    provider = PROVIDERS[name]()
    api = {"api": provider.api} if provider.api else {}

    whole = Server([provider.whole(BAD), provider.whole(GOOD), provider.whole(GOOD)])
    client = provider.client(whole)
    done = extract(Weather, client, messages="Paris?", model="m", details=True,
                   **api, **provider.tools())
    assert done.value == Weather("Paris", 21)

    streamed = Server([provider.streamed(BAD), provider.streamed(GOOD),
                       provider.whole(GOOD)])
    client = provider.client(streamed)
    stream = extract_stream(Weather, client, messages="Paris?", model="m", **api,
                            **provider.tools())
    assert list(stream)[-1] == Weather("Paris", 21)
    assert stream.attempt == 2
    assert stream.details is not None

    retry, streamed_retry = whole.bodies[1], _without_stream_keywords(streamed.bodies[1])
    assert streamed_retry == retry
    # The call is answered, as every provider requires before the conversation goes on,
    # with the problems of its arguments, and the request ends there.
    [(call, content)] = provider.results(retry)
    assert call in ("call_1", "toolu_1", "Weather")
    assert "$.city" in content
    assert content.endswith("Answer again with the complete JSON, corrected.")

    # The conversation to continue: sent on, it makes the same request.
    for server, messages in ((whole, done.messages), (streamed, stream.details.messages)):
        extract(Weather, provider.client(server), messages=[*messages, _user(name, "And?")],
                model="m", **api)
    assert streamed.bodies[2] == whole.bodies[2]


def _user(name: str, text: str) -> dict[str, Any]:
    if name == "gemini":
        return {"role": "user", "parts": [{"text": text}]}
    return {"role": "user", "content": text}


# -- Bedrock: boto3's own client, validating what it would send ----------------------------


boto3 = pytest.importorskip("boto3", reason="boto3 is in the test extra")

CLAUDE = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"


class _Bedrock:
    """boto3's bedrock-runtime client with converse and converse_stream answered from
    recorded replies (botocore's Stubber cannot build an event stream); every request is
    validated and serialized by botocore as it would be sent."""

    def __init__(self, replies: list[Any]) -> None:
        self.client = boto3.client(
            "bedrock-runtime", region_name="us-east-1", aws_access_key_id="testing",
            aws_secret_access_key="testing",
        )
        self.replies = list(replies)
        self.sent: list[dict[str, Any]] = []

    def _send(self, operation: str, kwargs: dict[str, Any]) -> Any:
        from botocore.validate import validate_parameters

        model = self.client.meta.service_model.operation_model(operation)
        validate_parameters(kwargs, model.input_shape)
        self.client._serializer.serialize_to_request(kwargs, model)
        self.sent.append(kwargs)
        return self.replies.pop(0)

    def converse(self, **kwargs: Any) -> Any:
        return self._send("Converse", kwargs)

    def converse_stream(self, **kwargs: Any) -> Any:
        return {"ResponseMetadata": {}, "stream": iter(self._send("ConverseStream", kwargs))}


def _bedrock_whole(args: dict[str, Any]) -> dict[str, Any]:
    return {
        "output": {"message": {"role": "assistant", "content": [
            {"reasoningContent": {"reasoningText": {"text": "Weather, then.",
                                                    "signature": "sig"}}},
            {"text": PREAMBLE},
            {"toolUse": {"toolUseId": "tu_1", "name": "Weather", "input": args}},
        ]}},
        "stopReason": "tool_use",
        "usage": {"inputTokens": 1, "outputTokens": 1, "totalTokens": 2},
        "metrics": {"latencyMs": 1},
    }


def _bedrock_streamed(args: dict[str, Any]) -> list[dict[str, Any]]:
    text = json.dumps(args)
    return [
        {"messageStart": {"role": "assistant"}},
        {"contentBlockDelta": {"contentBlockIndex": 0,
                               "delta": {"reasoningContent": {"text": "Weather, "}}}},
        {"contentBlockDelta": {"contentBlockIndex": 0,
                               "delta": {"reasoningContent": {"text": "then."}}}},
        {"contentBlockDelta": {"contentBlockIndex": 0,
                               "delta": {"reasoningContent": {"signature": "sig"}}}},
        {"contentBlockStop": {"contentBlockIndex": 0}},
        {"contentBlockDelta": {"contentBlockIndex": 1, "delta": {"text": PREAMBLE[:3]}}},
        {"contentBlockDelta": {"contentBlockIndex": 1, "delta": {"text": PREAMBLE[3:]}}},
        {"contentBlockStop": {"contentBlockIndex": 1}},
        {"contentBlockStart": {"contentBlockIndex": 2,
                               "start": {"toolUse": {"toolUseId": "tu_1", "name": "Weather"}}}},
        {"contentBlockDelta": {"contentBlockIndex": 2,
                               "delta": {"toolUse": {"input": text[:4]}}}},
        {"contentBlockDelta": {"contentBlockIndex": 2,
                               "delta": {"toolUse": {"input": text[4:]}}}},
        {"contentBlockStop": {"contentBlockIndex": 2}},
        {"messageStop": {"stopReason": "tool_use"}},
        {"metadata": {"usage": {"inputTokens": 1, "outputTokens": 1, "totalTokens": 2},
                      "metrics": {"latencyMs": 1}}},
    ]


def test_a_streamed_bedrock_retry_sends_what_extract_sends() -> None:
    """Bedrock Converse: reasoning, text and a toolUse block go back in the streamed retry as
    in extract()'s, and the finished conversation is the same."""
    tools = {"toolConfig": {"tools": [schema(Weather, BEDROCK_TOOLS)]}}
    whole = _Bedrock([_bedrock_whole(BAD), _bedrock_whole(GOOD), _bedrock_whole(GOOD)])
    done = extract(Weather, whole, messages="Paris?", model=CLAUDE, details=True, **tools)
    streamed = _Bedrock([_bedrock_streamed(BAD), _bedrock_streamed(GOOD),
                         _bedrock_whole(GOOD)])
    stream = extract_stream(Weather, streamed, messages="Paris?", model=CLAUDE, **tools)
    assert list(stream)[-1] == done.value == Weather("Paris", 21)
    assert streamed.sent[1] == whole.sent[1]
    assert {"toolUse": {"toolUseId": "tu_1", "name": "Weather", "input": BAD}} in (
        streamed.sent[1]["messages"][1]["content"]
    )
    # The call is answered with its problems in the next (user) message, and that is all.
    [(user)] = streamed.sent[1]["messages"][2:]
    [result] = user["content"]
    assert result["toolResult"]["toolUseId"] == "tu_1"
    assert result["toolResult"]["status"] == "error"
    assert "$.city" in result["toolResult"]["content"][0]["text"]
    assert stream.details is not None
    for client, messages in ((whole, done.messages), (streamed, stream.details.messages)):
        extract(Weather, client, model=CLAUDE,
                messages=[*messages, {"role": "user", "content": [{"text": "And?"}]}])
    assert streamed.sent[2] == whole.sent[2]


def test_calls_beside_a_text_answer_are_answered_before_the_retry_text() -> None:
    """A text answer that does not decode beside a call of another tool: the call gets a
    "not run" result and the problems follow in the same user message (Bedrock refuses
    two user messages in a row; Anthropic wants the results first)."""
    text = json.dumps(BAD)
    whole = {"output": {"message": {"role": "assistant", "content": [
        {"text": text}, {"toolUse": {"toolUseId": "tu_9", "name": "lookup", "input": {}}}]}},
        "stopReason": "end_turn",
        "usage": {"inputTokens": 1, "outputTokens": 1, "totalTokens": 2},
        "metrics": {"latencyMs": 1}}
    good = _bedrock_whole(GOOD)
    client = _Bedrock([whole, good])
    assert extract(Weather, client, messages="Paris?", model=CLAUDE) == Weather("Paris", 21)
    [user] = client.sent[1]["messages"][2:]
    result, problems = user["content"]
    assert result["toolResult"]["toolUseId"] == "tu_9"
    assert result["toolResult"]["content"][0]["text"].startswith("Not run")
    assert problems["text"].endswith("Answer again with the complete JSON, corrected.")

    server = Server([Claude().whole(GOOD), Claude().whole(GOOD)])
    server.replies[0] = _json({
        "id": "m", "type": "message", "role": "assistant", "model": "m",
        "stop_reason": "tool_use", "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
        "content": [{"type": "text", "text": text},
                    {"type": "tool_use", "id": "toolu_9", "name": "lookup", "input": {}}]})
    assert extract(Weather, Claude().client(server), messages="Paris?", model="m") == (
        Weather("Paris", 21))
    [user] = server.bodies[1]["messages"][2:]
    assert [b["type"] for b in user["content"]] == ["tool_result", "text"]
    assert user["content"][0]["tool_use_id"] == "toolu_9"


def test_the_async_stream_sends_what_the_sync_one_sends() -> None:
    """aextract_stream shares the rule: the same retry request through AsyncAnthropic."""
    provider = Claude()
    sync = Server([provider.streamed(BAD), provider.streamed(GOOD)])
    stream = extract_stream(Weather, provider.client(sync), messages="Paris?", model="m",
                            **provider.tools())
    assert list(stream)[-1] == Weather("Paris", 21)

    asynchronous = Server([provider.streamed(BAD), provider.streamed(GOOD)])
    client = _sdk_client(anthropic.Anthropic, asynchronous, "https://api.example.test",
                         asynchronous=True)

    async def run() -> Any:
        found = aextract_stream(Weather, client, messages="Paris?", model="m",
                                **provider.tools())
        return [value async for value in found][-1], found.details

    value, details = asyncio.run(run())
    assert value == Weather("Paris", 21)
    assert asynchronous.bodies[1] == sync.bodies[1]
    assert stream.details is not None
    assert details.messages == stream.details.messages


def test_an_ollama_stream_goes_back_as_the_whole_reply() -> None:
    """Ollama's native chat stream: text and tool calls go back as reply_messages sends
    the same reply whole."""
    from describedtypes import annotate
    from describedtypes._vendors.ollama import FORMAT
    from describedtypes._vendors.stream import StreamDecoder

    call = {"function": {"name": "Weather", "arguments": BAD}}
    whole = {"model": "m", "done": True, "done_reason": "stop",
             "message": {"role": "assistant", "content": PREAMBLE, "tool_calls": [call]}}
    chunks = [
        {"model": "m", "done": False, "message": {"role": "assistant", "content": "Let me "}},
        {"model": "m", "done": False,
         "message": {"role": "assistant", "content": PREAMBLE[7:]}},
        {"model": "m", "done": False,
         "message": {"role": "assistant", "content": "", "tool_calls": [call]}},
        {"model": "m", "done": True, "done_reason": "stop",
         "message": {"role": "assistant", "content": ""}},
    ]
    decoder = StreamDecoder(Weather, None, annotate)
    for chunk in chunks:
        decoder.feed(chunk)
    with pytest.raises(DecodeError):
        decoder.finish()
    streamed = FORMAT.stream_messages(decoder, decoder.reply_text(), decoder.calls())
    assert streamed == FORMAT.reply_messages(whole)


@pytest.mark.parametrize("completed_output", [True, False])
def test_responses_items_kept_for_the_conversation_are_bounded(completed_output: bool) -> None:
    """The output items a Responses stream keeps for the conversation are bounded in size:
    past the bound the conversation gets the answer's text and the calls instead."""
    from unittest import mock

    from describedtypes import annotate
    from describedtypes._vendors import openai_responses
    from describedtypes._vendors.stream import StreamDecoder

    provider = Responses(completed_output=completed_output)
    events = [json.loads(line[6:]) for line in provider.streamed(BAD)[1].decode().splitlines()
              if line.startswith("data: ")]

    def messages() -> list[Any]:
        decoder = StreamDecoder(Weather, None, annotate)
        for event in events:
            decoder.feed(event)
        with pytest.raises(DecodeError):
            decoder.finish()
        return openai_responses.FORMAT.stream_messages(
            decoder, decoder.reply_text(), decoder.calls())

    assert messages() == json.loads(provider.whole(BAD)[1])["output"]
    with mock.patch.object(openai_responses, "_MAX_KEPT", 300):
        built = messages()
    assert built[-1] == {"type": "function_call", "call_id": "call_1", "name": "Weather",
                         "arguments": json.dumps(BAD)}
    assert built[:-1] in ([], [{"role": "assistant", "content": PREAMBLE}])


def test_anthropic_redacted_thinking_goes_back_and_signatures_are_bounded() -> None:
    """A redacted_thinking block goes back as it came; a signature (or redacted data)
    longer than 1 MiB is a DecodeError, not kept memory."""
    from describedtypes import annotate
    from describedtypes._vendors.anthropic import FORMAT
    from describedtypes._vendors.stream import StreamDecoder

    good = json.dumps(GOOD)

    def events(extra: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [
            {"type": "message_start", "message": {"usage": {"input_tokens": 1}}},
            *extra,
            {"type": "content_block_start", "index": 1,
             "content_block": {"type": "text", "text": ""}},
            {"type": "content_block_delta", "index": 1,
             "delta": {"type": "text_delta", "text": good}},
            {"type": "message_delta", "delta": {"stop_reason": "end_turn"}},
        ]

    redacted = {"type": "redacted_thinking", "data": "opaque"}
    decoder = StreamDecoder(Weather, None, annotate)
    for event in events([{"type": "content_block_start", "index": 0,
                          "content_block": redacted}]):
        decoder.feed(event)
    assert decoder.finish() == Weather("Paris", 21)
    assert FORMAT.stream_messages(decoder, decoder.reply_text(), decoder.calls()) == [
        {"role": "assistant", "content": [redacted, {"type": "text", "text": good}]}]

    for huge in ({"type": "content_block_start", "index": 0,
                  "content_block": {**redacted, "data": "x" * (2**20 + 1)}},
                 {"type": "content_block_delta", "index": 0,
                  "delta": {"type": "signature_delta", "signature": "x" * (2**20 + 1)}}):
        decoder = StreamDecoder(Weather, None, annotate)
        with pytest.raises(DecodeError, match="longer than 1 MiB"):
            list(map(decoder.feed, events([huge])))

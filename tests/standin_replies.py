"""The canned replies of the docs' blocks that talk to a model, by the name the page gives.

A page marks such a block with ``<!-- stand-in: NAME -->``; tests/test_docs.py runs it
with the SDKs' clients answering from ``REPLIES[NAME]`` (see tests/standin.py), in order.
Each reply is what the provider's API returns: a response body, or a stream's events.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

#: The OpenAI Batch output file the docs' batch round trip downloads.
_BATCH_RESULTS = (Path(__file__).resolve().parent.parent / "examples" / "batch_results.jsonl")


def chat_completion(content: str) -> dict[str, Any]:
    """A Chat Completions response whose message is ``content``."""
    return {
        "id": "chatcmpl-standin", "object": "chat.completion", "created": 1741476542,
        "model": "gpt-5-mini-2025-08-07",
        "choices": [{"index": 0, "finish_reason": "stop", "logprobs": None,
                     "message": {"role": "assistant", "content": content, "refusal": None}}],
        "usage": {"prompt_tokens": 40, "completion_tokens": 12, "total_tokens": 52},
    }


def chat_chunks(text: str, pieces: int = 3) -> list[dict[str, Any]]:
    """The chunks of a streamed Chat Completion carrying ``text`` in ``pieces`` deltas."""
    base = {"id": "chatcmpl-standin", "object": "chat.completion.chunk", "created": 1741476542,
            "model": "gpt-5-mini-2025-08-07"}
    size = -(-len(text) // pieces)
    chunks = [{**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""},
                                    "finish_reason": None}]}]
    chunks += [{**base, "choices": [{"index": 0, "delta": {"content": text[i:i + size]},
                                     "finish_reason": None}]}
               for i in range(0, len(text), size)]
    chunks.append({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    return chunks


def _response(output: list[dict[str, Any]], response_id: str) -> dict[str, Any]:
    return {
        "id": response_id, "object": "response", "created_at": 1741476542,
        "status": "completed", "model": "gpt-5-mini-2025-08-07", "output": output,
        "parallel_tool_calls": True, "tool_choice": "auto", "tools": [],
        "usage": {"input_tokens": 40, "input_tokens_details": {"cached_tokens": 0},
                  "output_tokens": 12, "output_tokens_details": {"reasoning_tokens": 0},
                  "total_tokens": 52},
    }


def response_text(text: str, response_id: str = "resp_standin_1") -> dict[str, Any]:
    """A Responses API response whose message is ``text``."""
    return _response([{
        "type": "message", "id": "msg_standin", "status": "completed", "role": "assistant",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }], response_id)


def response_call(name: str, arguments: dict[str, Any], call_id: str) -> dict[str, Any]:
    """A Responses API response that calls one function."""
    return _response([{
        "type": "function_call", "id": "fc_standin", "call_id": call_id, "name": name,
        "arguments": json.dumps(arguments), "status": "completed",
    }], "resp_standin_2")


def message_text(text: str) -> dict[str, Any]:
    """An Anthropic Messages response whose one text block is ``text``."""
    return {
        "id": "msg_standin", "type": "message", "role": "assistant",
        "model": "claude-haiku-4-5-20251001",
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn", "stop_sequence": None,
        "usage": {"input_tokens": 40, "output_tokens": 12},
    }


def message_tool_stream(name: str, arguments: str, pieces: int = 3) -> list[dict[str, Any]]:
    """The events of a streamed Anthropic message calling tool ``name`` with ``arguments``."""
    size = -(-len(arguments) // pieces)
    events: list[dict[str, Any]] = [
        {"type": "message_start", "message": {
            "id": "msg_standin", "type": "message", "role": "assistant", "content": [],
            "model": "claude-haiku-4-5-20251001", "stop_reason": None,
            "stop_sequence": None, "usage": {"input_tokens": 40, "output_tokens": 1}}},
        {"type": "content_block_start", "index": 0, "content_block": {
            "type": "tool_use", "id": "toolu_standin", "name": name, "input": {}}},
    ]
    events += [{"type": "content_block_delta", "index": 0,
                "delta": {"type": "input_json_delta", "partial_json": arguments[i:i + size]}}
               for i in range(0, len(arguments), size)]
    events += [
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": None},
         "usage": {"output_tokens": 30}},
        {"type": "message_stop"},
    ]
    return events


_PARIS = '{"location":"Paris","temperature":21.5}'
_STORY = ('{"title":"Two Cats","year":1867,"cats":[{"name":"Tom","mood":"grumpy"}],'
          '"moral":"Share the fire."}')

def openai_file(file_id: str, size: int) -> dict[str, Any]:
    """The Files API's answer to an upload."""
    return {"id": file_id, "object": "file", "bytes": size, "created_at": 1711652795,
            "filename": "requests.jsonl", "purpose": "batch", "status": "processed"}


def openai_batch(status: str, output_file_id: str | None = None) -> dict[str, Any]:
    """A Batch object of the OpenAI Batch API."""
    return {"id": "batch_standin", "object": "batch", "endpoint": "/v1/chat/completions",
            "input_file_id": "file-standin-in", "completion_window": "24h", "status": status,
            "created_at": 1711652795, "output_file_id": output_file_id, "error_file_id": None,
            "request_counts": {"total": 5, "completed": 5 if output_file_id else 0,
                               "failed": 0}}


def anthropic_batch() -> dict[str, Any]:
    """A Message Batch just created."""
    return {"id": "msgbatch_standin", "type": "message_batch",
            "processing_status": "in_progress",
            "request_counts": {"processing": 5, "succeeded": 0, "errored": 0, "canceled": 0,
                               "expired": 0},
            "ended_at": None, "created_at": "2025-03-09T10:00:00Z",
            "expires_at": "2025-03-10T10:00:00Z", "archived_at": None,
            "cancel_initiated_at": None, "results_url": None}


_PYDANTIC_WEATHER = (
    '{"location":{"city":"Paris","country":"FR"},"temperature":21.5,"unit":"celsius",'
    '"conditions":"sunny"}'
)


#: Replies by the name a page's ``<!-- stand-in: NAME -->`` gives, in request order.
def converse(content: list[dict[str, Any]], stop: str = "end_turn") -> dict[str, Any]:
    """A Bedrock Converse reply (botocore's ConverseResponse shape)."""
    return {
        "output": {"message": {"role": "assistant", "content": content}},
        "stopReason": stop,
        "usage": {"inputTokens": 52, "outputTokens": 18, "totalTokens": 70},
        "metrics": {"latencyMs": 412},
    }


REPLIES: dict[str, list[tuple[str, Any]]] = {
    "hosts-bedrock": [
        ("bedrock", converse([{"text": '{"quantity": 2, "tags": ["red"]}'}])),
        ("bedrock", converse([{"toolUse": {"toolUseId": "tu_1", "name": "stock",
                                           "input": {"item": "box"}}}], stop="tool_use")),
        ("bedrock", converse([{"text": "Yes: 3 boxes are in stock."}])),
    ],
    "providers-chat": [("openai", chat_completion(_PARIS))],
    "providers-responses": [
        ("openai", response_text(_PARIS)),
        ("openai", response_call("get_weather", {"city": "Paris"}, "call_standin")),
        ("openai", response_text("It's 21.5 °C in Paris.", "resp_standin_3")),
    ],
    "providers-anthropic": [("anthropic", message_text(_PARIS))],
    "streaming-openai": [("openai", chat_chunks(_STORY))],
    "streaming-anthropic": [("anthropic", message_tool_stream("Story", _STORY))],
    "batches-openai": [
        ("openai", openai_file("file-standin-in", 2998)),
        ("openai", openai_batch("validating")),
        ("openai", openai_batch("completed", "file-standin-out")),
        ("openai", _BATCH_RESULTS.read_bytes()),
    ],
    "batches-anthropic": [("anthropic", anthropic_batch())],
    "asking-clients": [
        ("openai", response_text('{"city":"Oslo","temperature":-3.5,"unit":"celsius"}')),
    ],
    "pydantic-parse": [("openai", chat_completion(_PYDANTIC_WEATHER))],
    "pydantic-extract": [
        ("openai", chat_completion(_PYDANTIC_WEATHER.replace("21.5", "42"))),
        ("openai", chat_completion(_PYDANTIC_WEATHER)),
    ],
}

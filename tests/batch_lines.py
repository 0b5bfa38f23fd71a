"""Batch result lines in the providers' documented shapes, for tests and benchmarks.

OpenAI Batch API output: https://platform.openai.com/docs/guides/batch
Anthropic Message Batches results:
https://docs.anthropic.com/en/docs/build-with-claude/batch-processing
"""

from __future__ import annotations

import enum
from typing import Any

import attrs
import orjson


class Unit(enum.Enum):
    CELSIUS = "celsius"
    FAHRENHEIT = "fahrenheit"


@attrs.frozen
class Weather:
    city: str
    temperature: int
    unit: Unit


def chat_completion(content: str | None, *, finish_reason: str = "stop",
                    refusal: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1711652795,
        "model": "gpt-4o-2024-08-06",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content, "refusal": refusal},
                "logprobs": None,
                "finish_reason": finish_reason,
            }
        ],
        "usage": {"prompt_tokens": 22, "completion_tokens": 9, "total_tokens": 31},
        "system_fingerprint": "fp_1",
    }


def responses_object(text: str) -> dict[str, Any]:
    return {
        "id": "resp_1",
        "object": "response",
        "status": "completed",
        "output": [
            {
                "type": "message",
                "id": "msg_1",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": text, "annotations": []}],
            }
        ],
    }


def openai_line(custom_id: str, body: dict[str, Any] | None, *, status: int = 200,
                error: dict[str, Any] | None = None) -> bytes:
    response = None if body is None else {
        "status_code": status, "request_id": "req_1", "body": body
    }
    return orjson.dumps(
        {"id": "batch_req_1", "custom_id": custom_id, "response": response, "error": error}
    )


def anthropic_message(text: str, *, stop_reason: str = "end_turn") -> dict[str, Any]:
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": [{"type": "text", "text": text}],
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {"input_tokens": 11, "output_tokens": 36},
    }


def anthropic_line(custom_id: str, result: dict[str, Any]) -> bytes:
    return orjson.dumps({"custom_id": custom_id, "result": result})


def anthropic_succeeded(custom_id: str, text: str, **kw: Any) -> bytes:
    return anthropic_line(
        custom_id, {"type": "succeeded", "message": anthropic_message(text, **kw)}
    )


def anthropic_errored(custom_id: str, message: str) -> bytes:
    return anthropic_line(custom_id, {
        "type": "errored",
        "error": {"type": "error", "error": {"type": "invalid_request_error", "message": message}},
    })


def weather_reply(i: int) -> str:
    return orjson.dumps(
        {"city": f"City {i}", "temperature": 10 + i % 25, "unit": "celsius"}
    ).decode()


def mixed_openai_file(n: int, *, bad_every: int = 10) -> list[bytes]:
    """``n`` OpenAI Batch lines for ``Weather``; one in ``bad_every`` does not match."""
    lines = []
    for i in range(n):
        reply = weather_reply(i)
        if bad_every and i % bad_every == bad_every - 1:
            reply = reply.replace('"celsius"', '"kelvin"')
        lines.append(openai_line(f"request-{i}", chat_completion(reply)))
    return lines

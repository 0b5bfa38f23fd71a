"""OpenAI Responses: ``responses.create``, its output items, function calls, function
call outputs and stream events (https://platform.openai.com/docs/api-reference/responses).

Of an output with several messages, the one whose ``phase`` is ``"final_answer"`` is the
answer (a ``"commentary"`` message may come before it); without phases, the last message.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar

from .._base.records import ToolCall, ToolResult
from .._base.usage import Usage
from .._schema import adapters as _adapters
from .._types.annotate import Registry
from ..errors import DecodeError, IncompleteReplyError, RefusalError
from .access import MISSING, ShapeError, field_of, items_of
from .wire import (
    Reply,
    StreamState,
    WireFormat,
    as_dict,
    checked_results,
    described,
    flat_calls,
)

__all__ = ["FORMAT", "OpenAIResponsesFormat"]


class OpenAIResponsesFormat(WireFormat):
    name = "OpenAI Responses"
    messages_key = "input"
    tool_adapter = _adapters.OPENAI_TOOLS
    shape = "an OpenAI Responses reply (with an 'output' list)"
    adapter = _adapters.OPENAI

    otel_provider = "openai"
    servers: ClassVar[dict[str, tuple[str, str]]] = {"OPENAI": ("OPENAI", "OPENAI_TOOLS")}

    def finish_reason(self, response: Any) -> str | None:
        status = field_of(response, "status")
        if status == "incomplete":
            status = field_of(field_of(response, "incomplete_details"), "reason") or status
        return status if isinstance(status, str) else None

    def owns_reply(self, response: Any) -> bool:
        return field_of(response, "output") is not None and field_of(response, "object") in (
            "response",
            None,
        )

    def owns_event(self, event: Any) -> bool:
        kind = field_of(event, "type")
        return isinstance(kind, str) and kind.startswith("response.")

    # -- reading ----------------------------------------------------------------------

    def reply(self, response: Any) -> Reply:
        error = field_of(response, "error")
        if error:
            text = field_of(error, "message") or str(error)
            raise DecodeError([("$", f"the response failed: {text}")])
        if field_of(response, "status") == "incomplete":
            reason = field_of(field_of(response, "incomplete_details"), "reason") or "incomplete"
            raise IncompleteReplyError(str(reason))
        output = items_of(field_of(response, "output"))
        messages = [item for item in output if field_of(item, "type") == "message"]
        for message in messages:
            for part in items_of(field_of(message, "content")):
                if field_of(part, "type") == "refusal":
                    raise RefusalError(str(field_of(part, "refusal") or ""))
        final = [m for m in messages if field_of(m, "phase") == "final_answer"]
        answer = final[-1] if final else (messages[-1] if messages else None)
        text = "".join(
            str(field_of(part, "text") or "")
            for part in items_of(field_of(answer, "content"))
            if field_of(part, "type") == "output_text"
        )
        calls = self._calls(output, "output", strict=False)
        return Reply(text, tuple(calls), "no output_text in the output")

    def tool_calls(self, response: Any) -> list[ToolCall]:
        output = response if isinstance(response, list) else field_of(response, "output", MISSING)
        if output is MISSING:
            msg = f"expected {self.shape}, got {type(response).__name__}"
            raise ShapeError(msg)
        return self._calls(output, "output")

    def _calls(self, output: Any, where: str, *, strict: bool = True) -> list[ToolCall]:
        return flat_calls(
            output, "Responses output items", where, "function_call", "arguments",
            "call_id", strict=strict,
        )

    def usage(self, response: Any) -> Usage:
        usage = field_of(response, "usage")
        return Usage(
            1,
            field_of(usage, "input_tokens"),
            field_of(usage, "output_tokens"),
            field_of(field_of(usage, "input_tokens_details"), "cached_tokens"),
            field_of(field_of(usage, "output_tokens_details"), "reasoning_tokens"),
        )

    def result_messages(self, results: ToolResult | Iterable[ToolResult]) -> list[Any]:
        # is_error has no field of its own here; the content says what went wrong.
        return [
            {"type": "function_call_output", "call_id": r.call_id, "output": r.content}
            for r in checked_results(results)
        ]

    # -- streams ----------------------------------------------------------------------

    def feed(self, state: StreamState, event: Any) -> Any:
        kind = field_of(event, "type")
        if kind == "response.output_text.delta":
            return state.add_text(field_of(event, "delta"))
        if kind == "response.function_call_arguments.delta":
            return state.add_call(_call_key(event), None, field_of(event, "delta"))
        if kind == "response.output_item.added":
            item = field_of(event, "item")
            if field_of(item, "type") == "function_call":
                return state.add_call(
                    _call_key(event), field_of(item, "name"), field_of(item, "arguments")
                )
        elif kind == "response.function_call_arguments.done":
            return state.add_call(
                _call_key(event), field_of(event, "name"), field_of(event, "arguments"),
                whole=True,
            )
        elif kind == "response.refusal.delta":
            state.add_refusal(field_of(event, "delta"))
        elif kind == "response.refusal.done" and not state.refusal_text:
            state.add_refusal(str(field_of(event, "refusal") or ""))
        elif kind in ("response.incomplete", "response.failed", "response.completed"):
            response = field_of(event, "response")
            state.status = field_of(response, "status") or kind.removeprefix("response.")
            state.incomplete = field_of(response, "incomplete_details")
            state.failed = field_of(response, "error")
            state.usage = self.usage(response)
        return None, False

    def stream_reply(self, state: StreamState, text: str, calls: list[ToolCall]) -> Reply:
        if state.failed:
            message = field_of(state.failed, "message") or str(state.failed)
            raise DecodeError([("$", f"the response failed: {message}")])
        if state.status == "incomplete":
            reason = field_of(state.incomplete, "reason") or "incomplete"
            raise IncompleteReplyError(str(reason))
        if state.refusal_text:
            raise RefusalError(state.refusal_text)
        return Reply(text, tuple(calls), "no output_text in the output")

    # -- the conversation -------------------------------------------------------------

    def reply_messages(self, response: Any) -> list[Any]:
        # Every output item goes back as it came (reasoning items included), as the
        # Responses API expects when the conversation is sent again.
        return list(items_of(field_of(response, "output")))

    def structured(
        self, tp: Any, extra: dict[str, Any], registry: Registry,
        adapter: _adapters.Adapter | None = None,
    ) -> dict[str, Any]:
        text = as_dict(extra.get("text"), "text")
        body = described(tp, adapter or self.adapter, registry)
        text["format"] = {"type": "json_schema", **body}
        return {**extra, "text": text}


def _call_key(event: Any) -> Any:
    index = field_of(event, "output_index")
    return index if index is not None else field_of(event, "item_id")


FORMAT = OpenAIResponsesFormat()

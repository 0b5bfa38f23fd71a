"""Google Gen AI (Gemini): ``models.generate_content``, its candidates, function calls,
function responses and streamed chunks (https://ai.google.dev/api/generate-content).

SDK objects name fields in snake_case (``finish_reason``); the REST API's JSON (batch
output lines, raw HTTP) in camelCase (``finishReason``): both are read.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar

from .._base.records import ToolCall, ToolResult
from .._base.usage import Usage
from .._schema import adapters as _adapters
from .._types.annotate import Registry
from ..errors import IncompleteReplyError, RefusalError
from .access import ShapeError, enum_value, field_of, has, items_of
from .wire import (
    Reply,
    StreamBlocks,
    StreamState,
    WireFormat,
    as_dict,
    checked_results,
    described,
    field_any,
    listed,
    no_reply,
    strict_name,
)

__all__ = ["DONE", "FORMAT", "GeminiFormat"]

#: Finish reasons of a complete answer.
DONE = frozenset({"STOP", "FINISH_REASON_UNSPECIFIED"})


def _texts(content: Any) -> str:
    return "".join(
        str(field_of(part, "text"))
        for part in items_of(field_of(content, "parts"))
        if field_of(part, "text") is not None and not field_of(part, "thought")
    )


def _blocked(response: Any) -> str | None:
    """Why the prompt was blocked (``promptFeedback.blockReason``), if it was."""
    feedback = field_any(response, "prompt_feedback", "promptFeedback")
    blocked = enum_value(field_any(feedback, "block_reason", "blockReason"))
    return str(blocked) if blocked else None


def _finish(candidate: Any) -> Any:
    return enum_value(field_any(candidate, "finish_reason", "finishReason"))


def _streamed_part(kind: str, value: Any, signature: Any) -> dict[str, Any]:
    """Streamed text or thought (``StreamBlocks.resolved``) as a part."""
    part: dict[str, Any] = {"text": value}
    if kind == "thinking":
        part["thought"] = True
    if signature:
        part["thought_signature"] = signature
    return part


class GeminiFormat(WireFormat):
    name = "Gemini"
    messages_key = "contents"
    tool_adapter = _adapters.GEMINI
    shape = "a Gemini GenerateContentResponse (with 'candidates')"
    adapter = _adapters.GEMINI

    otel_provider = "gcp.gemini"
    servers: ClassVar[dict[str, tuple[str, str]]] = {"GEMINI": ("GEMINI", "GEMINI")}
    otel_operation = "generate_content"

    def finish_reason(self, response: Any) -> str | None:
        candidates = items_of(field_of(response, "candidates"))
        reason = _finish(candidates[0]) if candidates else None
        return str(reason) if reason is not None else None

    def owns_reply(self, response: Any) -> bool:
        # A reply whose prompt was blocked has no candidates, only its promptFeedback.
        return (has(response, "candidates") or _blocked(response) is not None) and not has(
            response, "choices"
        )

    def owns_event(self, event: Any) -> bool:
        return self.owns_reply(event) or (
            field_any(event, "usage_metadata", "usageMetadata") is not None
            and field_of(event, "type") is None
        )

    # -- reading ----------------------------------------------------------------------

    def _candidate(self, response: Any) -> Any:
        candidates = items_of(field_of(response, "candidates"))
        if not candidates:
            blocked = _blocked(response)
            if blocked is not None:
                raise RefusalError(f"the prompt was blocked ({blocked})")
            raise no_reply("no candidates")
        return candidates[0]

    def reply(self, response: Any) -> Reply:
        candidate = self._candidate(response)
        finish = _finish(candidate)
        if finish is not None and str(finish) not in DONE:
            raise IncompleteReplyError(str(finish))
        content = field_of(candidate, "content")
        calls = self._calls(content, "candidates[0].content.parts", strict=False)
        return Reply(_texts(content), tuple(calls), "no text part in the first candidate")

    def tool_calls(self, response: Any) -> list[ToolCall]:
        if isinstance(response, list):  # the parts
            return self._calls({"parts": response}, "parts")
        if not has(response, "candidates") and _blocked(response) is None:
            msg = f"expected {self.shape}, got {type(response).__name__}"
            raise ShapeError(msg)
        candidates = items_of(field_of(response, "candidates"))
        if not candidates:
            return []
        return self._calls(field_of(candidates[0], "content"), "candidates[0].content.parts")

    def _calls(self, content: Any, where: str, *, strict: bool = True) -> list[ToolCall]:
        calls = []
        parts = field_of(content, "parts")
        for i, part in enumerate(listed(parts, "parts", where, strict=strict)):
            call = field_any(part, "function_call", "functionCall")
            if call is None:
                continue
            if not strict and not isinstance(field_of(call, "name"), str):
                continue
            name = strict_name(
                field_of(call, "name"), "function_call name", f"{where}[{i}].function_call.name"
            )
            calls.append(ToolCall(name, field_of(call, "args") or {}, field_of(call, "id")))
        return calls

    def usage(self, response: Any) -> Usage:
        meta = field_any(response, "usage_metadata", "usageMetadata")

        def count(*names: str) -> int:
            value = field_any(meta, *names)
            return value if type(value) is int and value >= 0 else 0

        # Thoughts are not inside candidatesTokenCount: output is both together.
        thoughts = count("thoughts_token_count", "thoughtsTokenCount")
        return Usage(
            1,
            count("prompt_token_count", "promptTokenCount")
            + count("tool_use_prompt_token_count", "toolUsePromptTokenCount"),
            count("candidates_token_count", "candidatesTokenCount") + thoughts,
            count("cached_content_token_count", "cachedContentTokenCount"),
            thoughts,
        )

    def result_messages(self, results: ToolResult | Iterable[ToolResult]) -> list[Any]:
        # Gemini matches a function response to its call by name and order; the id is
        # optional (the Gemini API leaves it out of most calls) and is echoed when given.
        parts = []
        for r in checked_results(results, ids=False):
            response = {"error": r.content} if r.is_error else {"output": r.content}
            answer: dict[str, Any] = {"name": r.name, "response": response}
            if r.call_id is not None:
                answer["id"] = r.call_id
            parts.append({"function_response": answer})
        return [{"role": "user", "parts": parts}]

    def results_and_text(self, results: list[ToolResult], text: str) -> list[Any]:
        # One user turn: the function responses, then the text.
        [message] = self.result_messages(results)
        message["parts"].append({"text": text})
        return [message]

    # -- streams ----------------------------------------------------------------------

    def feed(self, state: StreamState, chunk: Any) -> Any:
        if field_any(chunk, "usage_metadata", "usageMetadata") is not None:
            state.usage = self.usage(chunk)  # cumulative: the last chunk's is the total
        candidates = items_of(field_of(chunk, "candidates"))
        if not candidates:
            blocked = _blocked(chunk)
            if blocked is not None:
                state.add_refusal(f"the prompt was blocked ({blocked})")
            return None, False
        candidate = candidates[0]
        finish = _finish(candidate)
        if finish is not None:
            state.stop = str(finish)
        result: Any = (None, False)
        blocks = StreamBlocks.of(state)
        for part in items_of(field_of(field_of(candidate, "content"), "parts")):
            call = field_any(part, "function_call", "functionCall")
            if call is not None:  # function calls arrive whole, one part each
                # The part goes back as it came (its thought signature with it).
                blocks.whole(None, part)
                state.add_call(None, field_of(call, "name"), field_of(call, "args") or {},
                               whole=True, call_id=field_of(call, "id"))
                continue
            text = field_of(part, "text")
            signature = field_any(part, "thought_signature", "thoughtSignature")
            if field_of(part, "thought"):
                blocks.thinking(None, ("thought", len(blocks.blocks)), signature)
                state.add_text(text, blocks.blocks[-1][1])
            elif isinstance(text, str) and (text or signature):
                blocks.text(None, text, signature)
                if text:
                    result = state.add_text(text)
        return result

    def stream_reply(self, state: StreamState, text: str, calls: list[ToolCall]) -> Reply:
        if state.refusal_text:
            raise RefusalError(state.refusal_text)
        if state.stop is not None and str(state.stop) not in DONE:
            raise IncompleteReplyError(str(state.stop))
        return Reply(text, tuple(calls), "no text part in the first candidate")

    # -- the conversation -------------------------------------------------------------

    def user_message(self, text: str) -> Any:
        return {"role": "user", "parts": [{"text": text}]}

    stream_method = "generate_content_stream"

    def streaming(self, kwargs: dict[str, Any]) -> dict[str, Any]:
        return dict(kwargs)  # a method of its own, no flag

    def stream_messages(
        self, state: StreamState, text: str, calls: list[ToolCall]
    ) -> list[Any]:
        # The parts in the order they streamed, text pieces joined into one part each
        # (with the thought signature one of them carried), function calls as they came.
        parts = StreamBlocks.of(state).shaped(state, text, [], _streamed_part)
        return [{"role": "model", "parts": parts}]

    def reply_messages(self, response: Any) -> list[Any]:
        # The content goes back as it came: function calls keep their thought signature.
        candidates = items_of(field_of(response, "candidates"))
        content = field_of(candidates[0], "content") if candidates else None
        return [content] if content is not None else []

    def request(self, model: str, transcript: list[Any], extra: dict[str, Any]) -> dict[str, Any]:
        sent = super().request(model, transcript, extra)
        if "config" in sent:
            sent["config"] = as_dict(sent["config"], "config")
        return sent

    def structured(
        self, tp: Any, extra: dict[str, Any], registry: Registry,
        adapter: _adapters.Adapter | None = None,
    ) -> dict[str, Any]:
        config = as_dict(extra.get("config"), "config")
        config["response_mime_type"] = "application/json"
        declaration = described(tp, adapter or self.adapter, registry)
        config["response_json_schema"] = declaration["parameters_json_schema"]
        return {**extra, "config": config}

    def closing(self, extra: dict[str, Any]) -> dict[str, Any]:
        # Gemini 2.x refuses function declarations beside a JSON response type.
        if "config" not in extra:
            return dict(extra)
        config = {k: v for k, v in as_dict(extra["config"], "config").items()
                  if k not in ("tools", "tool_config")}
        return {**extra, "config": config}

    def with_tools(self, definitions: list[Any], extra: dict[str, Any]) -> dict[str, Any]:
        config = as_dict(extra.get("config"), "config")
        tools = list(items_of(config.get("tools")))
        config["tools"] = [*tools, {"function_declarations": definitions}]
        return {**extra, "config": config}


FORMAT = GeminiFormat()

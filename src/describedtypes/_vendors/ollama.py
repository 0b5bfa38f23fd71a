"""Ollama's native API: the ``ollama`` package's ``Client.chat`` / ``AsyncClient.chat``
(``POST /api/chat``), its replies, tool calls, tool results and streamed chunks
(https://docs.ollama.com/api/chat).

Structured output is the ``format=`` argument (a JSON Schema object); tool call
arguments arrive as objects, tool calls carry no ids (a result names its tool), and the
usage is ``prompt_eval_count`` / ``eval_count`` on the final response. Ollama's
OpenAI-compatible endpoint (``/v1``, through an ``openai.OpenAI(base_url=...)`` client) is
the Chat Completions format instead.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar

from .._base.records import ToolCall, ToolResult
from .._base.usage import Usage
from .._schema import adapters as _adapters
from .._types.annotate import Registry
from ..errors import IncompleteReplyError
from .access import ShapeError, field_of, has, items_of
from .wire import (
    Reply,
    StreamState,
    WireFormat,
    checked_results,
    described,
    listed,
    strict_name,
)

__all__ = ["CUT_OFF", "FORMAT", "OllamaFormat"]

#: ``done_reason`` values of a reply stopped before it was complete.
CUT_OFF = frozenset({"length"})


class OllamaFormat(WireFormat):
    name = "Ollama"
    tool_adapter = _adapters.OLLAMA_TOOLS
    shape = "an Ollama chat response (with 'message' and 'done')"
    otel_provider = "ollama"
    servers: ClassVar[dict[str, tuple[str, str]]] = {"OLLAMA": ("OLLAMA", "OLLAMA_TOOLS")}
    adapter = _adapters.OLLAMA

    def owns_reply(self, response: Any) -> bool:
        return (
            has(response, "message") and has(response, "done")
            and field_of(response, "choices") is None
        )

    def owns_event(self, event: Any) -> bool:
        return self.owns_reply(event)

    # -- reading ----------------------------------------------------------------------

    def finish_reason(self, response: Any) -> str | None:
        reason = field_of(response, "done_reason")
        return reason if isinstance(reason, str) else None

    def reply(self, response: Any) -> Reply:
        reason = field_of(response, "done_reason")
        if isinstance(reason, str) and reason in CUT_OFF:
            raise IncompleteReplyError(reason)
        message = field_of(response, "message")
        content = field_of(message, "content")
        calls = self._calls(field_of(message, "tool_calls"), "message.tool_calls", strict=False)
        text = content if isinstance(content, str) else ""
        return Reply(text, tuple(calls), "the message has no content")

    def tool_calls(self, response: Any) -> list[ToolCall]:
        if isinstance(response, list):
            return self._calls(response, "tool_calls")
        message = field_of(response, "message") if has(response, "message") else response
        if not has(message, "tool_calls") and not has(message, "role"):
            msg = f"expected {self.shape}, got {type(response).__name__}"
            raise ShapeError(msg)
        return self._calls(field_of(message, "tool_calls"), "message.tool_calls")

    def _calls(self, tool_calls: Any, where: str, *, strict: bool = True) -> list[ToolCall]:
        calls = []
        for i, item in enumerate(listed(tool_calls, "tool calls", where, strict=strict)):
            function = field_of(item, "function")
            if function is None:
                continue
            if not strict and not isinstance(field_of(function, "name"), str):
                continue
            name = strict_name(
                field_of(function, "name"), "tool call's function name",
                f"{where}[{i}].function.name",
            )
            calls.append(ToolCall(name, field_of(function, "arguments")))
        return calls

    def usage(self, response: Any) -> Usage:
        return Usage(1, field_of(response, "prompt_eval_count"), field_of(response, "eval_count"))

    def result_messages(self, results: ToolResult | Iterable[ToolResult]) -> list[Any]:
        # No call ids: each result names the tool it answers, in the order of the calls.
        return [
            {"role": "tool", "content": r.content, "tool_name": r.name}
            for r in checked_results(results, ids=False)
        ]

    # -- streams ----------------------------------------------------------------------

    def feed(self, state: StreamState, chunk: Any) -> Any:
        if field_of(chunk, "done"):
            state.stop = field_of(chunk, "done_reason") or "stop"  # the stream is over
            state.usage = self.usage(chunk)
        message = field_of(chunk, "message")
        for call in items_of(field_of(message, "tool_calls")):
            function = field_of(call, "function")
            state.add_call(None, field_of(function, "name"),
                           field_of(function, "arguments") or {}, whole=True)
        content = field_of(message, "content")
        if isinstance(content, str) and content:
            return state.add_text(content)
        return None, False

    def stream_reply(self, state: StreamState, text: str, calls: list[ToolCall]) -> Reply:
        if isinstance(state.stop, str) and state.stop in CUT_OFF:
            raise IncompleteReplyError(state.stop)
        return Reply(text, tuple(calls), "the message has no content")

    # -- the conversation -------------------------------------------------------------

    def reply_messages(self, response: Any) -> list[Any]:
        message = field_of(response, "message")
        if message is None:
            return []
        out: dict[str, Any] = {"role": "assistant", "content": field_of(message, "content") or ""}
        calls = [
            {"function": {"name": field_of(field_of(c, "function"), "name"),
                          "arguments": field_of(field_of(c, "function"), "arguments")}}
            for c in items_of(field_of(message, "tool_calls"))
            if field_of(c, "function") is not None
        ]
        if calls:
            out["tool_calls"] = calls
        return [out]

    def stream_messages(
        self, state: StreamState, text: str, calls: list[ToolCall]
    ) -> list[Any]:
        # The message reply_messages() makes of the same reply whole.
        out: dict[str, Any] = {"role": "assistant", "content": text}
        if calls:
            out["tool_calls"] = [
                {"function": {"name": c.name, "arguments": c.arguments}} for c in calls
            ]
        return [out]

    def structured(
        self, tp: Any, extra: dict[str, Any], registry: Registry,
        adapter: _adapters.Adapter | None = None,
    ) -> dict[str, Any]:
        body = described(tp, adapter or self.adapter, registry)
        return {**extra, "format": body.get("schema", body) if isinstance(body, dict) else body}


FORMAT = OllamaFormat()

"""Anthropic Messages: ``messages.create``, its content blocks, ``tool_use`` calls,
``tool_result`` answers and stream events (https://docs.anthropic.com/en/api/messages).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar

from .._base.records import ToolCall, ToolResult
from .._base.usage import Usage
from .._schema import adapters as _adapters
from .._types.annotate import Registry
from ..errors import IncompleteReplyError, RefusalError
from .access import MISSING, ShapeError, field_of, items_of
from .wire import (
    Reply,
    StreamBlocks,
    StreamState,
    WireFormat,
    as_dict,
    call_input,
    checked_results,
    described,
    flat_calls,
    keeps_signature,
)

__all__ = ["CUT_OFF", "FORMAT", "MAX_TOKENS", "AnthropicFormat"]

#: Stop reasons that mean the reply stopped before it was complete.
CUT_OFF = frozenset({"max_tokens", "model_context_window_exceeded"})

#: ``max_tokens`` sent when the caller gives none (the Messages API requires one; 4,096 is
#: the largest output every Claude model accepts). A caller's own ``max_tokens=`` wins.
MAX_TOKENS = 4096


def _verdict(texts: str, stop: Any) -> None:
    if stop == "refusal":
        raise RefusalError(texts.strip() or "(no explanation given)")
    if isinstance(stop, str) and stop in CUT_OFF:
        raise IncompleteReplyError(stop)


def _usage(usage: Any, before: Usage) -> Usage:
    """Usage from Anthropic's fields; a field left out keeps its value in ``before``.

    ``input_tokens`` there counts only the uncached part: the total input is it plus the
    tokens read from and written to the cache.
    """
    if usage is None:
        return before
    fresh = field_of(usage, "input_tokens")
    read = field_of(usage, "cache_read_input_tokens")
    written = field_of(usage, "cache_creation_input_tokens")
    output = field_of(usage, "output_tokens")
    thinking = field_of(field_of(usage, "output_tokens_details"), "thinking_tokens")
    cached = read if read is not None else before.cached_input_tokens
    if fresh is None and read is None and written is None:
        total = before.input_tokens
    else:
        total = sum(v for v in (fresh, read, written) if type(v) is int and v >= 0)
    return Usage(
        before.requests,
        total,
        output if output is not None else before.output_tokens,
        cached,
        thinking if thinking is not None else before.reasoning_tokens,
    )


def _streamed_block(kind: str, value: Any, signature: Any) -> dict[str, Any]:
    """A streamed block (``StreamBlocks.resolved``) as a content block."""
    if kind == "text":
        return {"type": "text", "text": value}
    if kind == "call":
        return {"type": "tool_use", "id": value.call_id, "name": value.name,
                "input": call_input(value.arguments)}
    return {"type": "thinking", "thinking": value, "signature": signature}


class AnthropicFormat(WireFormat):
    name = "Anthropic Messages"
    tool_adapter = _adapters.ANTHROPIC_TOOLS
    shape = "an Anthropic Messages reply (with a 'content' list of blocks)"
    adapter = _adapters.ANTHROPIC

    otel_provider = "anthropic"
    servers: ClassVar[dict[str, tuple[str, str]]] = {"ANTHROPIC": ("ANTHROPIC", "ANTHROPIC_TOOLS")}

    def finish_reason(self, response: Any) -> str | None:
        reason = field_of(response, "stop_reason")
        return reason if isinstance(reason, str) else None

    def owns_reply(self, response: Any) -> bool:
        return field_of(response, "stop_reason") is not None or (
            field_of(response, "type") == "message"
            and isinstance(field_of(response, "content"), list)
        )

    def owns_event(self, event: Any) -> bool:
        kind = field_of(event, "type")
        return isinstance(kind, str) and kind.startswith(("message_", "content_block_"))

    # -- reading ----------------------------------------------------------------------

    def reply(self, response: Any) -> Reply:
        blocks = items_of(field_of(response, "content"))
        text = "".join(
            str(field_of(b, "text") or "") for b in blocks if field_of(b, "type") == "text"
        )
        _verdict(text, field_of(response, "stop_reason"))
        calls = self._calls(blocks, "content", strict=False)
        return Reply(text, tuple(calls), "no text block in the content")

    def tool_calls(self, response: Any) -> list[ToolCall]:
        content = response if isinstance(response, list) else field_of(response, "content", MISSING)
        if content is MISSING or isinstance(content, str):
            msg = f"expected {self.shape}, got {type(response).__name__}"
            raise ShapeError(msg)
        return self._calls(content, "content")

    def _calls(self, blocks: Any, where: str, *, strict: bool = True) -> list[ToolCall]:
        return flat_calls(
            blocks, "content blocks", where, "tool_use", "input", "id", strict=strict
        )

    def usage(self, response: Any) -> Usage:
        return _usage(field_of(response, "usage"), Usage(1))

    def result_message(self, results: Any) -> dict[str, Any]:
        """All results of one turn in one ``user`` message, in the order of the calls."""
        return {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": r.call_id,
                    "content": r.content,
                    "is_error": r.is_error,
                }
                for r in checked_results(results)
            ],
        }

    def result_messages(self, results: ToolResult | Iterable[ToolResult]) -> list[Any]:
        return [self.result_message(results)]

    def results_and_text(self, results: list[ToolResult], text: str) -> list[Any]:
        # One user message: the results first (as the API requires), then the text.
        message = self.result_message(results)
        message["content"].append({"type": "text", "text": text})
        return [message]

    # -- streams ----------------------------------------------------------------------

    def feed(self, state: StreamState, event: Any) -> Any:
        kind = field_of(event, "type")
        if kind == "content_block_delta":
            delta = field_of(event, "delta")
            delta_kind = field_of(delta, "type")
            index = field_of(event, "index")
            if delta_kind == "text_delta":
                piece = field_of(delta, "text")
                StreamBlocks.of(state).text(index, piece)
                return state.add_text(piece)
            if delta_kind == "input_json_delta":
                piece = field_of(delta, "partial_json")
                StreamBlocks.of(state).call(index)
                return state.add_call(index, None, piece)
            if delta_kind in ("thinking_delta", "signature_delta"):
                # Kept so the message goes back with its thinking, as a whole reply's does.
                StreamBlocks.of(state).thinking(
                    index, ("thinking", index), field_of(delta, "signature")
                )
                state.add_text(field_of(delta, "thinking"), ("thinking", index))
        elif kind == "content_block_start":
            block = field_of(event, "content_block")
            block_kind = field_of(block, "type")
            index = field_of(event, "index")
            if block_kind == "tool_use":
                StreamBlocks.of(state).call(index)
                state.add_call(index, field_of(block, "name"), None,
                               call_id=field_of(block, "id"))
            elif block_kind == "text":
                StreamBlocks.of(state).text(index, field_of(block, "text"))
                return state.add_text(field_of(block, "text"))
            elif block_kind == "thinking":
                StreamBlocks.of(state).thinking(
                    index, ("thinking", index), field_of(block, "signature")
                )
                state.add_text(field_of(block, "thinking"), ("thinking", index))
            elif block_kind == "redacted_thinking":
                keeps_signature(field_of(block, "data"))  # bounded as a signature is
                StreamBlocks.of(state).whole(index, block)
        elif kind == "message_start":
            state.usage = _usage(field_of(field_of(event, "message"), "usage"), Usage(1))
        elif kind == "message_delta":
            stop = field_of(field_of(event, "delta"), "stop_reason")
            if stop:
                state.stop = stop
            # The delta's usage is cumulative: its fields replace those of message_start.
            state.usage = _usage(field_of(event, "usage"), state.usage or Usage(1))
        return None, False

    def stream_reply(self, state: StreamState, text: str, calls: list[ToolCall]) -> Reply:
        _verdict(text, state.stop)
        calls = [ToolCall(c.name, c.arguments or "{}", c.call_id) for c in calls]
        return Reply(text, tuple(calls), "no text block in the content")

    # -- the conversation -------------------------------------------------------------

    def reply_messages(self, response: Any) -> list[Any]:
        # The content blocks go back as they came: thinking blocks keep their signature.
        return [{"role": "assistant", "content": list(items_of(field_of(response, "content")))}]

    def stream_messages(
        self, state: StreamState, text: str, calls: list[ToolCall]
    ) -> list[Any]:
        # The blocks in the order they streamed, as a whole reply's content lists them.
        content = StreamBlocks.of(state).shaped(state, text, calls, _streamed_block)
        return [{"role": "assistant", "content": content}]

    def request(self, model: str, transcript: list[Any], extra: dict[str, Any]) -> dict[str, Any]:
        sent = super().request(model, transcript, extra)
        sent.setdefault("max_tokens", MAX_TOKENS)
        return sent

    def closing(self, extra: dict[str, Any]) -> dict[str, Any]:
        # A conversation holding tool_use blocks must still define the tools: they stay,
        # and tool_choice none keeps the model from calling one.
        return {**extra, "tool_choice": {"type": "none"}} if extra.get("tools") else dict(extra)

    def structured(
        self, tp: Any, extra: dict[str, Any], registry: Registry,
        adapter: _adapters.Adapter | None = None,
    ) -> dict[str, Any]:
        config = as_dict(extra.get("output_config"), "output_config")
        config["format"] = described(tp, adapter or self.adapter, registry)
        return {**extra, "output_config": config}


FORMAT = AnthropicFormat()

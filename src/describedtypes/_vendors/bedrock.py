"""Amazon Bedrock's Converse API: ``boto3``'s ``bedrock-runtime`` client (``converse`` /
``converse_stream``), its replies, ``toolUse`` calls, ``toolResult`` answers, stream
events and usage (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html;
the shapes are those of botocore's ``bedrock-runtime`` service model).

Structured output is ``outputConfig.textFormat`` (the schema as a JSON string); tools go
in ``toolConfig.tools`` as ``toolSpec`` objects. The rules and budgets are those of the
model family behind the ``modelId``: Anthropic's for Claude (and any model that is not
OpenAI's, the stricter subset), OpenAI's for ``openai.`` models.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

from .._base.records import ToolCall, ToolResult
from .._base.usage import Usage
from .._schema import adapters as _adapters
from .._types.annotate import Registry
from ..errors import DecodeError, IncompleteReplyError, RefusalError
from .access import MISSING, ShapeError, field_of, has, items_of
from .wire import (
    Reply,
    StreamBlocks,
    StreamState,
    WireFormat,
    as_dict,
    call_input,
    checked_results,
    described,
    listed,
    strict_name,
)

__all__ = ["CUT_OFF", "FORMAT", "BedrockFormat", "family_of"]

#: Stop reasons of a reply that stopped before it was complete.
CUT_OFF = frozenset({"max_tokens", "model_context_window_exceeded"})
#: Stop reasons of a reply a guardrail or content filter replaced.
BLOCKED = frozenset({"guardrail_intervened", "content_filtered"})
#: The keys of a Converse stream event (one per event).
EVENTS = frozenset({"messageStart", "contentBlockStart", "contentBlockDelta",
                    "contentBlockStop", "messageStop", "metadata"})
#: The error events a Converse stream may carry instead.
STREAM_ERRORS = frozenset({"internalServerException", "modelStreamErrorException",
                           "validationException", "throttlingException",
                           "serviceUnavailableException"})


def family_of(model: str) -> str:
    """The model family whose rules a Bedrock ``modelId`` (a model id, an inference
    profile such as ``us.anthropic.claude-...`` or an ARN) follows: ``"openai"`` for
    OpenAI's models, else ``"anthropic"`` (Claude's rules, the stricter subset, which the
    other families' structured outputs accept too)."""
    lowered = model.lower()
    tail = lowered.rsplit("/", 1)[-1]
    parts = tail.split(".")
    return "openai" if "openai" in parts[:2] else "anthropic"


def _verdict(text: str, stop: Any) -> None:
    if isinstance(stop, str) and stop in CUT_OFF:
        raise IncompleteReplyError(stop)
    if isinstance(stop, str) and stop in BLOCKED:
        raise RefusalError(text.strip() or f"(the reply was blocked: {stop})")


def _usage(usage: Any) -> Usage:
    """Usage from Converse's ``TokenUsage``: ``inputTokens`` counts only the input that was
    not read from or written to the prompt cache, so the total input adds both."""
    if usage is None:
        return Usage(1)
    fresh = field_of(usage, "inputTokens")
    read = field_of(usage, "cacheReadInputTokens")
    written = field_of(usage, "cacheWriteInputTokens")
    total = sum(v for v in (fresh, read, written) if type(v) is int and v >= 0)
    return Usage(1, total, field_of(usage, "outputTokens"), read)


def _text_of(blocks: list[Any]) -> str:
    return "".join(
        t for t in (field_of(b, "text") for b in blocks) if isinstance(t, str)
    )


def _streamed_block(kind: str, value: Any, signature: Any) -> dict[str, Any]:
    """A streamed block (``StreamBlocks.resolved``) as a Converse content block."""
    if kind == "text":
        return {"text": value}
    if kind == "call":
        return {"toolUse": {"toolUseId": value.call_id, "name": value.name,
                            "input": call_input(value.arguments)}}
    reasoning: dict[str, Any] = {"text": value}
    if signature:
        reasoning["signature"] = signature
    return {"reasoningContent": {"reasoningText": reasoning}}


class BedrockFormat(WireFormat):
    name = "Bedrock Converse"
    tool_adapter = _adapters.BEDROCK_TOOLS
    shape = "a Bedrock Converse reply (with 'output.message.content' blocks)"
    otel_provider = "aws.bedrock"
    servers: ClassVar[dict[str, tuple[str, str]]] = {"BEDROCK": ("BEDROCK", "BEDROCK_TOOLS")}
    adapter = _adapters.BEDROCK
    stream_method = "converse_stream"

    def owns_reply(self, response: Any) -> bool:
        return has(response, "stopReason") and field_of(response, "output") is not None

    def owns_event(self, event: Any) -> bool:
        if not isinstance(event, Mapping):
            return False
        return any(key in event for key in EVENTS) or any(key in event for key in STREAM_ERRORS)

    # -- reading ----------------------------------------------------------------------

    def finish_reason(self, response: Any) -> str | None:
        reason = field_of(response, "stopReason")
        return reason if isinstance(reason, str) else None

    def response_model(self, response: Any) -> str | None:
        return None  # the reply does not name the model

    def _content(self, response: Any) -> list[Any]:
        return items_of(field_of(field_of(field_of(response, "output"), "message"), "content"))

    def reply(self, response: Any) -> Reply:
        blocks = self._content(response)
        text = _text_of(blocks)
        _verdict(text, field_of(response, "stopReason"))
        calls = self._calls(blocks, "output.message.content", strict=False)
        return Reply(text, tuple(calls), "no text block in output.message.content")

    def tool_calls(self, response: Any) -> list[ToolCall]:
        if isinstance(response, list):
            return self._calls(response, "content")
        if has(response, "output"):
            message = field_of(field_of(response, "output"), "message")
            return self._calls(field_of(message, "content"), "output.message.content")
        content = field_of(response, "content", MISSING)
        if content is MISSING or isinstance(content, str):
            msg = f"expected {self.shape}, got {type(response).__name__}"
            raise ShapeError(msg)
        return self._calls(content, "content")

    def _calls(self, blocks: Any, where: str, *, strict: bool = True) -> list[ToolCall]:
        calls = []
        for i, block in enumerate(listed(blocks, "content blocks", where, strict=strict)):
            use = field_of(block, "toolUse")
            if use is None:
                continue
            name = field_of(use, "name")
            if not strict and not isinstance(name, str):
                continue
            name = strict_name(name, "toolUse name", f"{where}[{i}].toolUse.name")
            calls.append(ToolCall(name, field_of(use, "input"), field_of(use, "toolUseId")))
        return calls

    def usage(self, response: Any) -> Usage:
        return _usage(field_of(response, "usage"))

    def result_messages(self, results: ToolResult | Iterable[ToolResult]) -> list[Any]:
        # All results of one turn in one user message, in the order of the calls.
        return [{
            "role": "user",
            "content": [
                {"toolResult": {
                    "toolUseId": r.call_id,
                    "content": [{"text": r.content}],
                    "status": "error" if r.is_error else "success",
                }}
                for r in checked_results(results)
            ],
        }]

    def results_and_text(self, results: list[ToolResult], text: str) -> list[Any]:
        # One user message (Converse refuses two in a row): the results, then the text.
        [message] = self.result_messages(results)
        message["content"].append({"text": text})
        return [message]

    # -- streams ----------------------------------------------------------------------

    def stream_events(self, response: Any) -> Any:
        """``converse_stream`` answers ``{"stream": events, "ResponseMetadata": ...}``."""
        if isinstance(response, Mapping) and "stream" in response:
            return response["stream"]
        return response

    def feed(self, state: StreamState, event: Any) -> Any:
        for key in STREAM_ERRORS:
            if key in event:
                message = field_of(event[key], "message")
                raise DecodeError([("$", f"the stream failed ({key}): {message}")])
        if "contentBlockDelta" in event:
            body = event["contentBlockDelta"]
            delta = field_of(body, "delta")
            index = field_of(body, "contentBlockIndex")
            text = field_of(delta, "text")
            if isinstance(text, str):
                StreamBlocks.of(state).text(index, text)
                return state.add_text(text)
            use = field_of(delta, "toolUse")
            if use is not None:
                StreamBlocks.of(state).call(index)
                return state.add_call(index, None, field_of(use, "input"))
            reasoning = field_of(delta, "reasoningContent")
            if reasoning is not None:  # kept so the message goes back whole
                StreamBlocks.of(state).thinking(
                    index, ("reasoning", index), field_of(reasoning, "signature")
                )
                state.add_text(field_of(reasoning, "text"), ("reasoning", index))
        elif "contentBlockStart" in event:
            body = event["contentBlockStart"]
            use = field_of(field_of(body, "start"), "toolUse")
            if use is not None:
                StreamBlocks.of(state).call(field_of(body, "contentBlockIndex"))
                state.add_call(field_of(body, "contentBlockIndex"), field_of(use, "name"), None,
                               call_id=field_of(use, "toolUseId"))
        elif "messageStop" in event:
            state.stop = field_of(event["messageStop"], "stopReason")
        elif "metadata" in event:
            state.usage = _usage(field_of(event["metadata"], "usage"))
        return None, False

    def stream_reply(self, state: StreamState, text: str, calls: list[ToolCall]) -> Reply:
        _verdict(text, state.stop)
        calls = [ToolCall(c.name, c.arguments or "{}", c.call_id) for c in calls]
        return Reply(text, tuple(calls), "no text block in the content")

    def streaming(self, kwargs: dict[str, Any]) -> dict[str, Any]:
        return dict(kwargs)  # the same keywords, sent to converse_stream

    # -- the conversation -------------------------------------------------------------

    def user_message(self, text: str) -> Any:
        return {"role": "user", "content": [{"text": text}]}

    def stream_messages(
        self, state: StreamState, text: str, calls: list[ToolCall]
    ) -> list[Any]:
        # The blocks in the order they streamed, as a whole reply's content lists them.
        content = StreamBlocks.of(state).shaped(state, text, calls, _streamed_block)
        return [{"role": "assistant", "content": content}]

    def reply_messages(self, response: Any) -> list[Any]:
        message = field_of(field_of(response, "output"), "message")
        if message is None:
            return []
        # The blocks go back as they came: toolUse blocks keep their ids.
        return [{"role": "assistant", "content": list(items_of(field_of(message, "content")))}]

    def request(self, model: str, transcript: list[Any], extra: dict[str, Any]) -> dict[str, Any]:
        """``modelId`` and ``messages``; a ``system`` message of the conversation goes into
        Converse's ``system`` field, and text content given as a str becomes a text
        block (the shape Converse takes)."""
        system = list(items_of(extra.get("system")))
        messages = []
        for message in transcript:
            content = field_of(message, "content")
            role = field_of(message, "role")
            if isinstance(content, str):
                if role == "system":
                    system.append({"text": content})
                    continue
                message = {**message, "content": [{"text": content}]}
            messages.append(message)
        sent = {"modelId": model, "messages": messages, **extra}
        if system:
            sent["system"] = system
        return sent

    def model_adapters(self, model: str) -> tuple[_adapters.Adapter, _adapters.Adapter]:
        family = family_of(model)
        return (_adapters.BEDROCK.replace(family=family),
                _adapters.BEDROCK_TOOLS.replace(family=family))

    def structured(
        self, tp: Any, extra: dict[str, Any], registry: Registry,
        adapter: _adapters.Adapter | None = None,
    ) -> dict[str, Any]:
        config = as_dict(extra.get("outputConfig"), "outputConfig")
        config["textFormat"] = described(tp, adapter or self.adapter, registry)
        return {**extra, "outputConfig": config}

    def with_tools(self, definitions: list[Any], extra: dict[str, Any]) -> dict[str, Any]:
        config = as_dict(extra.get("toolConfig"), "toolConfig")
        config["tools"] = [*items_of(config.get("tools")), *definitions]
        return {**extra, "toolConfig": config}


FORMAT = BedrockFormat()

"""OpenAI Chat Completions: ``chat.completions.create``, its replies, tool calls, tool
results and stream chunks (https://platform.openai.com/docs/api-reference/chat).

The OpenAI-compatible servers (vLLM, SGLang, llama.cpp's server, Ollama's ``/v1``) speak
this format too.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

from .._base.records import ToolCall, ToolResult
from .._base.usage import Usage
from .._schema import adapters as _adapters
from .._schema.profiles import JSON_OBJECT_FIELD, Profile
from .._types.annotate import Registry
from ..errors import IncompleteReplyError, RefusalError
from .access import ShapeError, field_of, has, items_of
from .wire import (
    Reply,
    StreamState,
    WireFormat,
    checked_results,
    described,
    listed,
    no_reply,
    strict_items,
    strict_name,
)

__all__ = ["CUT_OFF", "FORMAT", "OpenAIChatFormat"]

#: Finish reasons that mean the reply stopped before it was complete.
CUT_OFF = frozenset({"length", "content_filter"})


def content_text(content: Any) -> str:
    """A message's content as text: a str, or the text parts of a list of parts (image or
    audio parts carry no answer text)."""
    if isinstance(content, str):
        return content
    return "".join(
        str(field_of(part, "text") or "")
        for part in items_of(content)
        if field_of(part, "type") == "text"
    )


class OpenAIChatFormat(WireFormat):
    name = "OpenAI Chat Completions"
    tool_adapter = _adapters.OPENAI_CHAT_TOOLS
    shape = "a Chat Completions reply (a completion, a choice or an assistant message)"
    #: The structured-output adapter.
    adapter = _adapters.OPENAI

    otel_provider = "openai"
    servers: ClassVar[dict[str, tuple[str, str]]] = {
        "OPENAI": ("OPENAI", "OPENAI_CHAT_TOOLS"),
        "VLLM": ("VLLM", "VLLM_TOOLS"),
        "SGLANG": ("SGLANG", "SGLANG_TOOLS"),
        "LLAMACPP": ("LLAMACPP", "LLAMACPP_TOOLS"),
        "OLLAMA": ("OLLAMA", "OLLAMA_TOOLS"),
    }

    def __init__(
        self, tool_choice: str | dict[str, Any] | None = None,
        tool_call_content: str | None = None,
    ) -> None:
        #: What a host needs that the API does not (a profile's own; see ``for_host``).
        self.tool_choice = tool_choice
        self.tool_call_content = tool_call_content

    def for_host(self, profile: Profile) -> OpenAIChatFormat:
        # llama-cpp-python's server: tool turns need tool_choice "auto", and an assistant
        # message carrying tool calls needs content "" (docs/hosts.md).
        if profile.tool_choice is None and profile.tool_call_content is None:
            return self
        return OpenAIChatFormat(profile.tool_choice, profile.tool_call_content)

    def finish_reason(self, response: Any) -> str | None:
        choices = items_of(field_of(response, "choices"))
        reason = field_of(choices[0], "finish_reason") if choices else None
        return reason if isinstance(reason, str) else None

    def owns_reply(self, response: Any) -> bool:
        return field_of(response, "choices") is not None

    def owns_message(self, response: Any) -> bool:
        """A bare assistant message (the detector asks this after every other format)."""
        return bool(field_of(response, "role") == "assistant")

    def owns_event(self, event: Any) -> bool:
        return field_of(event, "choices") is not None

    # -- reading ----------------------------------------------------------------------

    def _message(self, response: Any) -> tuple[Any, Any]:
        if field_of(response, "choices") is None:  # the message itself
            return response, None
        choices = items_of(field_of(response, "choices"))
        if not choices:
            raise no_reply("no choices")
        message = field_of(choices[0], "message")
        if message is None:
            raise no_reply("the first choice has no message")
        return message, field_of(choices[0], "finish_reason")

    def reply(self, response: Any) -> Reply:
        message, finish = self._message(response)
        refusal = field_of(message, "refusal")
        if refusal:
            raise RefusalError(str(refusal))
        if isinstance(finish, str) and finish in CUT_OFF:
            raise IncompleteReplyError(finish)
        text = content_text(field_of(message, "content"))
        calls = self._calls(field_of(message, "tool_calls"), "tool_calls", strict=False)
        return Reply(text, tuple(calls), "the message has no content")

    def tool_calls(self, response: Any) -> list[ToolCall]:
        if isinstance(response, list):
            return self._calls(response, "tool_calls")
        message = response
        where = "tool_calls"
        if has(response, "choices"):
            listed = strict_items(field_of(response, "choices"), "choices", "choices")
            if not listed:
                return []
            message = field_of(listed[0], "message")
            where = "choices[0].message.tool_calls"
        elif has(response, "message"):
            message = field_of(response, "message")
            where = "message.tool_calls"
        if not has(message, "tool_calls") and not has(message, "role"):
            msg = f"expected {self.shape}, got {type(response).__name__}"
            raise ShapeError(msg)
        return self._calls(field_of(message, "tool_calls"), where)

    def _calls(self, tool_calls: Any, where: str, *, strict: bool = True) -> list[ToolCall]:
        calls = []
        for i, item in enumerate(listed(tool_calls, "tool calls", where, strict=strict)):
            function = field_of(item, "function")
            if field_of(item, "type", "function") != "function" or function is None:
                continue  # custom tools
            if not strict and not isinstance(field_of(function, "name"), str):
                continue
            name = strict_name(
                field_of(function, "name"), "tool call's function name",
                f"{where}[{i}].function.name",
            )
            calls.append(ToolCall(name, field_of(function, "arguments"), field_of(item, "id")))
        return calls

    def usage(self, response: Any) -> Usage:
        usage = field_of(response, "usage")
        return Usage(
            1,
            field_of(usage, "prompt_tokens"),
            field_of(usage, "completion_tokens"),
            field_of(field_of(usage, "prompt_tokens_details"), "cached_tokens"),
            field_of(field_of(usage, "completion_tokens_details"), "reasoning_tokens"),
        )

    def result_messages(self, results: ToolResult | Iterable[ToolResult]) -> list[Any]:
        return [
            {"role": "tool", "tool_call_id": r.call_id, "content": r.content}
            for r in checked_results(results)
        ]

    # -- streams ----------------------------------------------------------------------

    def feed(self, state: StreamState, chunk: Any) -> Any:
        if field_of(chunk, "usage") is not None:  # stream_options.include_usage
            state.usage = self.usage(chunk)
        choices = items_of(field_of(chunk, "choices"))
        choice = next((c for c in choices if (field_of(c, "index") or 0) == 0), None)
        if choice is None:
            return None, False
        if field_of(choice, "finish_reason"):
            state.stop = field_of(choice, "finish_reason")
        delta = field_of(choice, "delta")
        if delta is None:
            return None, False
        refusal = field_of(delta, "refusal")
        if isinstance(refusal, str):
            state.add_refusal(refusal)
        result: Any = (None, False)
        for call in items_of(field_of(delta, "tool_calls")):
            function = field_of(call, "function")
            result = state.add_call(
                field_of(call, "index"), field_of(function, "name"),
                field_of(function, "arguments"), call_id=field_of(call, "id"),
            )
        content = field_of(delta, "content")
        if content is not None and not isinstance(content, str):
            content = content_text(content)  # content given as parts
        if isinstance(content, str) and content:
            result = state.add_text(content)
        return result

    def stream_reply(self, state: StreamState, text: str, calls: list[ToolCall]) -> Reply:
        refusal = state.refusal_text
        if refusal:
            raise RefusalError(refusal)
        if isinstance(state.stop, str) and state.stop in CUT_OFF:
            raise IncompleteReplyError(state.stop)
        return Reply(text, tuple(calls), "the message has no content")

    # -- the conversation -------------------------------------------------------------

    def reply_messages(self, response: Any) -> list[Any]:
        choices = items_of(field_of(response, "choices"))
        message = field_of(choices[0], "message") if choices else None
        if message is None:
            return []
        content = field_of(message, "content")
        calls = [
            {
                "id": field_of(call, "id"),
                "type": "function",
                "function": {
                    "name": field_of(field_of(call, "function"), "name"),
                    "arguments": field_of(field_of(call, "function"), "arguments"),
                },
            }
            for call in items_of(field_of(message, "tool_calls"))
            if field_of(call, "function") is not None
        ]
        if calls and content is None and self.tool_call_content is not None:
            content = self.tool_call_content
        out: dict[str, Any] = {"role": "assistant", "content": content}
        if calls:
            out["tool_calls"] = calls
        return [out]

    def stream_messages(
        self, state: StreamState, text: str, calls: list[ToolCall]
    ) -> list[Any]:
        # The message reply_messages() makes of the same reply whole.
        content: Any = text if text or not calls else None
        if calls and content is None and self.tool_call_content is not None:
            content = self.tool_call_content
        out: dict[str, Any] = {"role": "assistant", "content": content}
        if calls:
            out["tool_calls"] = [
                {"id": c.call_id, "type": "function",
                 "function": {"name": c.name, "arguments": c.arguments}}
                for c in calls
            ]
        return [out]

    def with_tools(self, definitions: list[Any], extra: dict[str, Any]) -> dict[str, Any]:
        out = super().with_tools(definitions, extra)
        if self.tool_choice is not None and "tool_choice" not in out:
            out["tool_choice"] = self.tool_choice  # the caller's own wins
        return out

    def streaming(self, kwargs: dict[str, Any]) -> dict[str, Any]:
        # Usage arrives in a last chunk only when asked for (stream_options.include_usage).
        options = dict(kwargs.get("stream_options") or {})
        options.setdefault("include_usage", True)
        return {**kwargs, "stream": True, "stream_options": options}

    def structured(
        self, tp: Any, extra: dict[str, Any], registry: Registry,
        adapter: _adapters.Adapter | None = None,
    ) -> dict[str, Any]:
        # vLLM (>= 0.12), SGLang, llama.cpp's server and Ollama's /v1 take the same
        # response_format; vLLM's removed guided_json is never sent.
        adapter = adapter or self.adapter
        body = described(tp, adapter, registry)
        profile = adapter.given_profile
        if profile is not None and profile.request_field == JSON_OBJECT_FIELD:
            # llama-cpp-python's server takes only this form (a json_schema one is a 500)
            schema = body.get("schema", body) if isinstance(body, Mapping) else body
            return {**extra, "response_format": {"type": "json_object", "schema": schema}}
        fmt = {"type": "json_schema", "json_schema": body}
        return {**extra, "response_format": fmt}


FORMAT = OpenAIChatFormat()

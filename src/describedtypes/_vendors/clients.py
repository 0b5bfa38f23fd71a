"""One place per provider: how a request is built, how a reply is read, how the conversation
grows (the model's reply, a retry message, tool results).

The client is the caller's own SDK client, recognised by the methods it has; no SDK is
imported. SDK response objects are read by attribute, dicts by key, as in ``_response``.

=====================  ===================================  ===============================
client                 request                              structured output
=====================  ===================================  ===============================
OpenAI, Chat           ``chat.completions.create``          ``response_format`` (OPENAI)
OpenAI, Responses      ``responses.create``                 ``text.format`` (OPENAI)
Anthropic              ``messages.create``                  ``output_config.format``
                                                            (ANTHROPIC)
Google Gen AI          ``models.generate_content``          ``config.response_json_schema``
                                                            (GEMINI's body)
=====================  ===================================  ===============================
"""

from __future__ import annotations

import abc
import inspect as _pyinspect
import logging
from collections.abc import Mapping
from typing import Any

from .._base.records import ToolCall, ToolResult
from .._codec.decode import decode
from .._schema import adapters as _adapters
from .._schema.schema import Rewrite, schema
from .._types.annotate import Registry, annotate, check_registry
from ..errors import DecodeError, IncompleteReplyError, RefusalError
from .replies import (
    ANTHROPIC_CUT_OFF,
    CHAT_CUT_OFF,
    decode_response,
    field_of,
    items_of,
    responses_output,
)
from .toolcalls import (
    ShapeError,
    tool_calls_from_anthropic,
    tool_calls_from_openai_chat,
    tool_calls_from_openai_responses,
    tool_results_for_anthropic,
    tool_results_for_openai_chat,
    tool_results_for_openai_responses,
)

#: ``max_tokens`` sent to Anthropic when the caller gives none (the Messages API requires
#: one). A caller's own ``max_tokens=`` always wins.
ANTHROPIC_MAX_TOKENS = 4096

log = logging.getLogger("describedtypes")

#: Gemini finish reasons of a complete answer.
_GEMINI_DONE = frozenset({"STOP", "FINISH_REASON_UNSPECIFIED"})


def _method(obj: Any, path: str) -> Any:
    """``obj.a.b.c`` if every step exists and the last is callable, else None."""
    for name in path.split("."):
        if isinstance(obj, Mapping):
            return None
        try:
            obj = getattr(obj, name, None)
        except Exception:
            return None
        if obj is None:
            return None
    return obj if callable(obj) else None


def _is_async(method: Any) -> bool:
    try:
        return _pyinspect.iscoroutinefunction(_pyinspect.unwrap(method))
    except Exception:
        return False


def _no_reply(what: str) -> DecodeError:
    return DecodeError([("$", f"the response has no reply to decode ({what})")])


def described(tp: Any, adapter: _adapters.Adapter, registry: Registry) -> Any:
    """``schema(tp, adapter)``, with the adapter's rewrites logged (they quote the
    user's annotations, so at DEBUG)."""
    rewrites: list[Rewrite] = []
    body = schema(tp, adapter, report=rewrites, registry=registry)
    if log.isEnabledFor(logging.DEBUG):
        for rewrite in rewrites:
            log.debug(
                "schema of %r for %s: %s %s (%s)",
                tp, adapter.name, rewrite.pointer, rewrite.action, rewrite.detail,
            )
    return body


def retry_text(error: DecodeError) -> str:
    """What the model is told after a reply that did not decode."""
    return f"{error}\n{RETRY_REQUEST}"


#: The line after the problems in a retry message.
RETRY_REQUEST = "Answer again with the complete JSON, corrected."


def _as_dict(value: Any, what: str) -> dict[str, Any]:
    """A request keyword that the library extends (``text``, ``output_config``, ``config``)."""
    if value is None:
        return {}
    if isinstance(value, Mapping):
        return dict(value)
    dump = getattr(value, "model_dump", None)
    if callable(dump):  # an SDK's own config object (pydantic)
        dumped = dump(exclude_none=True)
        if isinstance(dumped, dict):
            return dumped
    msg = f"{what}= must be a dict (or the SDK's config object), got {type(value).__name__}"
    raise TypeError(msg)


class Provider(abc.ABC):
    """What differs between providers; one instance per ``extract``/``run`` call.

    Each provider class fills in the abstract methods: how its replies go back into the
    conversation, how structured output is asked for, and how text, tool calls and tool
    results are read and written.
    """

    #: Shown in log records and messages.
    name = ""
    #: The request keyword that carries the conversation.
    messages_key = "messages"
    #: The adapter of this provider's tool definitions.
    tool_adapter: _adapters.Adapter = _adapters.OPENAI_CHAT_TOOLS

    def __init__(self, create: Any, *, is_async: bool, registry: Registry = annotate) -> None:
        self.create = create
        self.is_async = is_async
        self.registry = registry

    # -- the conversation --------------------------------------------------------------

    def user_message(self, text: str) -> Any:
        return {"role": "user", "content": text}

    @abc.abstractmethod
    def reply_messages(self, response: Any) -> list[Any]:
        """The model's reply, as it goes back into the conversation."""

    def retry_messages(self, response: Any, error: DecodeError) -> list[Any]:
        """The reply that failed, then a user message carrying ``str(error)``."""
        return [*self.reply_messages(response), self.user_message(retry_text(error))]

    # -- requests ----------------------------------------------------------------------

    def request(self, model: str, transcript: list[Any], extra: dict[str, Any]) -> dict[str, Any]:
        return {"model": model, self.messages_key: list(transcript), **extra}

    @abc.abstractmethod
    def structured(self, tp: Any, extra: dict[str, Any]) -> dict[str, Any]:
        """``extra`` plus this provider's structured-output keyword for ``tp``."""

    def with_tools(self, definitions: list[Any], extra: dict[str, Any]) -> dict[str, Any]:
        tools = list(items_of(extra.get("tools")))
        return {**extra, "tools": [*tools, *definitions]}

    # -- replies -----------------------------------------------------------------------

    def decode(self, tp: Any, response: Any) -> Any:
        return decode_response(tp, response, registry=self.registry)

    @abc.abstractmethod
    def text(self, response: Any) -> str:
        """The reply's text; RefusalError / IncompleteReplyError as ``decode`` would."""

    @abc.abstractmethod
    def calls(self, response: Any) -> list[ToolCall]:
        """The tool calls in the reply, in order."""

    @abc.abstractmethod
    def result_messages(self, results: list[ToolResult]) -> list[Any]:
        """The messages that carry the tools' results back, ids matched."""


# -- OpenAI Chat Completions ------------------------------------------------------------


class OpenAIChat(Provider):
    name = "OpenAI Chat Completions"
    tool_adapter = _adapters.OPENAI_CHAT_TOOLS

    def _message(self, response: Any) -> tuple[Any, Any]:
        choices = items_of(field_of(response, "choices"))
        if not choices:
            raise _no_reply("no choices")
        return field_of(choices[0], "message"), field_of(choices[0], "finish_reason")

    def reply_messages(self, response: Any) -> list[Any]:
        choices = items_of(field_of(response, "choices"))
        message = field_of(choices[0], "message") if choices else None
        if message is None:
            return []
        out: dict[str, Any] = {"role": "assistant", "content": field_of(message, "content")}
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
        if calls:
            out["tool_calls"] = calls
        return [out]

    def structured(self, tp: Any, extra: dict[str, Any]) -> dict[str, Any]:
        fmt = {"type": "json_schema", "json_schema": described(tp, _adapters.OPENAI, self.registry)}
        return {**extra, "response_format": fmt}

    def text(self, response: Any) -> str:
        message, finish = self._message(response)
        refusal = field_of(message, "refusal")
        if refusal:
            raise RefusalError(str(refusal))
        if isinstance(finish, str) and finish in CHAT_CUT_OFF:
            raise IncompleteReplyError(finish)
        content = field_of(message, "content")
        if isinstance(content, list):
            content = "".join(str(field_of(p, "text") or "") for p in content)
        return content if isinstance(content, str) else ""

    def calls(self, response: Any) -> list[ToolCall]:
        return tool_calls_from_openai_chat(response)

    def result_messages(self, results: list[ToolResult]) -> list[Any]:
        return tool_results_for_openai_chat(results)


# -- OpenAI Responses -------------------------------------------------------------------


class OpenAIResponses(Provider):
    name = "OpenAI Responses"
    messages_key = "input"
    tool_adapter = _adapters.OPENAI_TOOLS

    def reply_messages(self, response: Any) -> list[Any]:
        # Every output item goes back as it came (reasoning items included), as the
        # Responses API expects when the conversation is sent again.
        return list(items_of(field_of(response, "output")))

    def structured(self, tp: Any, extra: dict[str, Any]) -> dict[str, Any]:
        text = _as_dict(extra.get("text"), "text")
        text["format"] = {"type": "json_schema", **described(tp, _adapters.OPENAI, self.registry)}
        return {**extra, "text": text}

    def text(self, response: Any) -> str:
        texts, _ = responses_output(response)
        return "".join(texts)

    def calls(self, response: Any) -> list[ToolCall]:
        return tool_calls_from_openai_responses(response)

    def result_messages(self, results: list[ToolResult]) -> list[Any]:
        return tool_results_for_openai_responses(results)


# -- Anthropic Messages -----------------------------------------------------------------


class Anthropic(Provider):
    name = "Anthropic Messages"
    tool_adapter = _adapters.ANTHROPIC_TOOLS

    def reply_messages(self, response: Any) -> list[Any]:
        # The content blocks go back as they came: thinking blocks keep their signature.
        return [{"role": "assistant", "content": list(items_of(field_of(response, "content")))}]

    def request(self, model: str, transcript: list[Any], extra: dict[str, Any]) -> dict[str, Any]:
        sent = super().request(model, transcript, extra)
        sent.setdefault("max_tokens", ANTHROPIC_MAX_TOKENS)
        return sent

    def structured(self, tp: Any, extra: dict[str, Any]) -> dict[str, Any]:
        config = _as_dict(extra.get("output_config"), "output_config")
        config["format"] = described(tp, _adapters.ANTHROPIC, self.registry)
        return {**extra, "output_config": config}

    def text(self, response: Any) -> str:
        blocks = items_of(field_of(response, "content"))
        texts = [str(field_of(b, "text") or "") for b in blocks if field_of(b, "type") == "text"]
        stop = field_of(response, "stop_reason")
        if stop == "refusal":
            raise RefusalError("".join(texts).strip() or "(no explanation given)")
        if isinstance(stop, str) and stop in ANTHROPIC_CUT_OFF:
            raise IncompleteReplyError(stop)
        return "".join(texts)

    def calls(self, response: Any) -> list[ToolCall]:
        return tool_calls_from_anthropic(response)

    def result_messages(self, results: list[ToolResult]) -> list[Any]:
        return [tool_results_for_anthropic(results)]


# -- Google Gen AI (Gemini) -------------------------------------------------------------


def _enum_value(value: Any) -> Any:
    return getattr(value, "value", value)


class Gemini(Provider):
    name = "Gemini"
    messages_key = "contents"
    tool_adapter = _adapters.GEMINI

    def user_message(self, text: str) -> Any:
        return {"role": "user", "parts": [{"text": text}]}

    def _content(self, response: Any) -> Any:
        """The first candidate's content, after the refusal and cut-off checks."""
        candidates = items_of(field_of(response, "candidates"))
        if not candidates:
            blocked = _enum_value(field_of(field_of(response, "prompt_feedback"), "block_reason"))
            if blocked:
                raise RefusalError(f"the prompt was blocked ({blocked})")
            raise _no_reply("no candidates")
        finish = _enum_value(field_of(candidates[0], "finish_reason"))
        if finish is not None and str(finish) not in _GEMINI_DONE:
            raise IncompleteReplyError(str(finish))
        return field_of(candidates[0], "content")

    def reply_messages(self, response: Any) -> list[Any]:
        # The content goes back as it came: function calls keep their thought signature.
        candidates = items_of(field_of(response, "candidates"))
        content = field_of(candidates[0], "content") if candidates else None
        return [content] if content is not None else []

    def request(self, model: str, transcript: list[Any], extra: dict[str, Any]) -> dict[str, Any]:
        sent = super().request(model, transcript, extra)
        if "config" in sent:
            sent["config"] = _as_dict(sent["config"], "config")
        return sent

    def structured(self, tp: Any, extra: dict[str, Any]) -> dict[str, Any]:
        config = _as_dict(extra.get("config"), "config")
        config["response_mime_type"] = "application/json"
        declaration = described(tp, _adapters.GEMINI, self.registry)
        config["response_json_schema"] = declaration["parameters_json_schema"]
        return {**extra, "config": config}

    def with_tools(self, definitions: list[Any], extra: dict[str, Any]) -> dict[str, Any]:
        config = _as_dict(extra.get("config"), "config")
        tools = list(items_of(config.get("tools")))
        config["tools"] = [*tools, {"function_declarations": definitions}]
        return {**extra, "config": config}

    def _texts(self, content: Any) -> str:
        return "".join(
            str(field_of(part, "text"))
            for part in items_of(field_of(content, "parts"))
            if field_of(part, "text") is not None and not field_of(part, "thought")
        )

    def decode(self, tp: Any, response: Any) -> Any:
        text = self._texts(self._content(response))
        if not text:
            raise _no_reply("no text part in the first candidate")
        return decode(tp, text, registry=self.registry)

    def text(self, response: Any) -> str:
        return self._texts(self._content(response))

    def calls(self, response: Any) -> list[ToolCall]:
        candidates = items_of(field_of(response, "candidates"))
        content = field_of(candidates[0], "content") if candidates else None
        calls = []
        for i, part in enumerate(items_of(field_of(content, "parts"))):
            call = field_of(part, "function_call")
            if call is None:
                continue
            name = field_of(call, "name")
            if not isinstance(name, str):
                msg = f"candidates[0].content.parts[{i}].function_call.name must be a str"
                raise ShapeError(msg)
            calls.append(ToolCall(name, field_of(call, "args") or {}, field_of(call, "id")))
        return calls

    def result_messages(self, results: list[ToolResult]) -> list[Any]:
        parts = []
        for r in results:
            response = {"error": r.content} if r.is_error else {"output": r.content}
            answer: dict[str, Any] = {"name": r.name, "response": response}
            if r.call_id is not None:
                answer["id"] = r.call_id
            parts.append({"function_response": answer})
        return [{"role": "user", "parts": parts}]


# -- recognising the client -------------------------------------------------------------

_KNOWN = (
    "an openai.OpenAI / AsyncOpenAI, anthropic.Anthropic / AsyncAnthropic or "
    "google.genai.Client (or its .aio) client"
)


def provider_for(
    client: Any, api: str | None, *, want_async: bool, names: tuple[str, str],
    registry: Any = annotate,
) -> Provider:
    """The provider behind ``client``, checked against sync/async use.

    Raises:
        TypeError: ``client`` is not one of the known clients, ``api`` does not fit it,
            or a sync client was given to the async entry point (or the reverse).
    """
    chat = _method(client, "chat.completions.create")
    responses = _method(client, "responses.create")
    messages = _method(client, "messages.create")
    gemini = _method(client, "models.generate_content")
    provider: Provider
    if chat is not None and responses is not None:
        if api in (None, "chat", "chat.completions"):
            provider = OpenAIChat(chat, is_async=_is_async(chat))
        elif api == "responses":
            provider = OpenAIResponses(responses, is_async=_is_async(responses))
        else:
            msg = f"api={api!r} is not an OpenAI API; pass api='chat' (the default) or 'responses'"
            raise TypeError(msg)
    elif api is not None:
        msg = f"api= chooses between OpenAI's APIs; leave it out for {type(client).__name__}"
        raise TypeError(msg)
    elif messages is not None:
        provider = Anthropic(messages, is_async=_is_async(messages))
    elif gemini is not None:
        aio = _method(client, "aio.models.generate_content")
        if want_async and aio is not None:
            provider = Gemini(aio, is_async=True)
        else:
            provider = Gemini(gemini, is_async=_is_async(gemini))
    else:
        msg = f"{names[want_async]}() takes {_KNOWN}, got {type(client).__name__}"
        raise TypeError(msg)
    provider.registry = check_registry(registry)
    if provider.is_async and not want_async:
        msg = (
            f"{type(client).__name__} is an async client; use {names[1]}() with it, or a "
            "sync client"
        )
        raise TypeError(msg)
    if want_async and not provider.is_async:
        msg = (
            f"{type(client).__name__} is a sync client; use {names[0]}() with it, or its "
            "async counterpart (AsyncOpenAI, AsyncAnthropic, genai Client.aio)"
        )
        raise TypeError(msg)
    return provider

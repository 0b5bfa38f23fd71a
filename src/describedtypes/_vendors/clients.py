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
Bedrock (boto3)        ``converse``                         ``outputConfig.textFormat``
                                                            (BEDROCK)
=====================  ===================================  ===============================
"""

from __future__ import annotations

import inspect as _pyinspect
from typing import Any

from .._base.records import ToolCall, ToolResult
from .._base.usage import Usage
from .._schema import adapters as _adapters
from .._types.annotate import Registry, annotate, check_registry
from ..errors import DecodeError, DescribedTypesError
from . import anthropic, gemini, openai_chat, openai_responses
from .detect import client_format
from .replies import decode_reply
from .wire import Reply, StreamState, WireFormat, pick_call

__all__ = ["ANTHROPIC_MAX_TOKENS", "Provider", "provider_for", "retry_text"]

#: ``max_tokens`` sent to Anthropic when the caller gives none (the Messages API requires
#: one). A caller's own ``max_tokens=`` always wins.
ANTHROPIC_MAX_TOKENS = anthropic.MAX_TOKENS


def _is_async(method: Any) -> bool:
    try:
        return _pyinspect.iscoroutinefunction(_pyinspect.unwrap(method))
    except Exception:
        return False


def retry_text(error: DecodeError) -> str:
    """What the model is told after a reply that did not decode."""
    return f"{error}\n{RETRY_REQUEST}"


#: The line after the problems in a retry message.
RETRY_REQUEST = "Answer again with the complete JSON, corrected."
#: The result of a call the reply made beside an answer that did not decode (it is not run).
NOT_ANSWERED = "Not run: this request asks for the answer, not for tool calls."


class Provider:
    """The caller's client as ``extract``/``run`` use it: its create method and the wire
    format it speaks; one instance per call."""

    #: The wire format; each subclass names its own.
    wire: WireFormat

    def __init__(
        self, create: Any, *, is_async: bool, registry: Registry = annotate,
        stream_create: Any = None, wire: WireFormat | None = None,
    ) -> None:
        if wire is not None:
            self.wire = wire
        self.create = create
        self.is_async = is_async
        self.registry = registry
        #: The adapters of the structured output and the tools (``llm_adapter=`` may
        #: name a self-hosted server's; else the format's own).
        self.adapter: _adapters.Adapter | None = None
        self.tools_adapter: _adapters.Adapter = self.wire.tool_adapter
        #: The caller chose the adapters (``llm_adapter=``).
        self.chosen = False
        #: The method that streams (Gemini's generate_content_stream; else ``create``).
        self.stream_create = stream_create if stream_create is not None else create

    @property
    def name(self) -> str:
        return self.wire.name

    @property
    def messages_key(self) -> str:
        return self.wire.messages_key

    @property
    def tool_adapter(self) -> Any:
        return self.tools_adapter

    def use(self, llm_adapter: Any, entry: str) -> None:
        """Send the bodies of ``llm_adapter`` (a server's structured-output adapter or its
        tools form, for example ``VLLM`` or ``VLLM_TOOLS``; a backend is kept).

        Raises:
            TypeError: It is not an adapter, or not one this client's API takes.
        """
        if llm_adapter is None:
            return
        if not isinstance(llm_adapter, _adapters.Adapter):
            msg = (
                f"{entry}(llm_adapter=...) takes an adapter such as VLLM or OLLAMA, got "
                f"{type(llm_adapter).__name__}"
            )
            raise TypeError(msg)
        base = llm_adapter.name.split("(", 1)[0]
        found = next(
            (pair for pair in self.wire.servers.values() if base in pair), None
        )
        if found is None:
            names = ", ".join(self.wire.servers)
            msg = (
                f"{entry}(llm_adapter={llm_adapter.name}) does not fit a {self.name} client; "
                f"it takes {names}"
            )
            raise TypeError(msg)
        structured, tools = (getattr(_adapters, name) for name in found)
        backend = getattr(llm_adapter, "backend", None)
        if backend is not None and llm_adapter.name != base:  # VLLM.replace(backend=...)
            structured = structured.replace(backend=backend)
            tools = tools.replace(backend=backend)
        if llm_adapter.family is not None and llm_adapter.family != structured.family:
            structured = structured.replace(family=llm_adapter.family)
            tools = tools.replace(family=llm_adapter.family)
        profile = llm_adapter.given_profile
        if profile is not None:  # ADAPTER.replace(profile=...): both forms build for it
            structured = structured.replace(profile=profile)
            tools = tools.replace(profile=profile)
            self.wire = self.wire.for_host(profile)  # and the conversation goes its way
        self.adapter, self.tools_adapter = structured, tools
        self.chosen = True

    def for_model(self, model: str) -> None:
        """Take the adapters ``model`` needs, where the format's rules depend on the model
        and the caller did not choose (Bedrock: the model family behind the modelId)."""
        if self.chosen:
            return
        found = self.wire.model_adapters(model)
        if found is not None:
            self.adapter, self.tools_adapter = found

    # -- the conversation --------------------------------------------------------------

    def user_message(self, text: str) -> Any:
        return self.wire.user_message(text)

    def reply_messages(self, response: Any) -> list[Any]:
        return self.wire.reply_messages(response)

    def streaming(self, kwargs: dict[str, Any]) -> dict[str, Any]:
        return self.wire.streaming(kwargs)

    def stream_messages(self, state: StreamState) -> list[Any]:
        """A finished stream's reply as it goes back into the conversation: the messages
        ``reply_messages`` gives for the same reply whole (text, tool calls with their
        ids, reasoning)."""
        return self.wire.stream_messages(state, state.reply_text(), state.calls())

    def stream_retry_messages(
        self, state: StreamState, error: DecodeError, tp: Any = None
    ) -> list[Any]:
        """A streamed reply that failed, then what tells the model (``retry_messages``)."""
        reply = getattr(state, "reply", None)
        if not isinstance(reply, Reply):
            reply = Reply(state.reply_text(), tuple(state.calls()))
        return self._retry(self.stream_messages(state), reply, error, tp)

    def retry_messages(self, response: Any, error: DecodeError, tp: Any = None) -> list[Any]:
        """The reply that failed, then what tells the model ``str(error)``: a user message;
        when the reply made tool calls, a result for each (the provider wants every call
        answered before the conversation goes on), the problems in the result of the call
        that was decoded, and the user message only when the text was the answer."""
        try:
            reply = self.wire.reply(response)
        except DescribedTypesError:
            reply = Reply("")
        return self._retry(self.reply_messages(response), reply, error, tp)

    def _retry(
        self, messages: list[Any], reply: Reply, error: DecodeError, tp: Any
    ) -> list[Any]:
        text = retry_text(error)
        if not reply.calls:
            return [*messages, self.user_message(text)]
        answered = pick_call(tp, reply) if tp is not None else None
        results = [
            ToolResult(content=text if call is answered else NOT_ANSWERED, is_error=True,
                       call_id=call.call_id, name=call.name)
            for call in reply.calls
        ]
        try:
            if answered is not None:
                return [*messages, *self.wire.result_messages(results)]
            return [*messages, *self.wire.results_and_text(results, text)]
        except ValueError:  # a call without the id the format needs: it cannot be answered
            return [*messages, self.user_message(text)]

    # -- requests ----------------------------------------------------------------------

    def request(self, model: str, transcript: list[Any], extra: dict[str, Any]) -> dict[str, Any]:
        return self.wire.request(model, transcript, extra)

    def structured(self, tp: Any, extra: dict[str, Any]) -> dict[str, Any]:
        """``extra`` plus this provider's structured-output keyword for ``tp``."""
        return self.wire.structured(tp, extra, self.registry, self.adapter)

    def with_tools(self, definitions: list[Any], extra: dict[str, Any]) -> dict[str, Any]:
        return self.wire.with_tools(definitions, extra)

    def closing(self, extra: dict[str, Any]) -> dict[str, Any]:
        """A tool turn's keywords for a closing request that may call no tool."""
        return self.wire.closing(extra)

    @property
    def format_adapter(self) -> _adapters.Adapter:
        """The adapter of the structured output this provider sends."""
        return self.adapter if self.adapter is not None else self.wire.adapter

    # -- replies -----------------------------------------------------------------------

    def decode(self, tp: Any, response: Any) -> Any:
        return decode_reply(tp, self.wire.reply(response), registry=self.registry)

    def usage(self, response: Any) -> Usage:
        """What the request cost, from the provider's own usage fields."""
        return self.wire.usage(response)

    def text(self, response: Any) -> str:
        """The reply's text; RefusalError / IncompleteReplyError as ``decode`` would."""
        return self.wire.reply(response).text

    def calls(self, response: Any) -> list[ToolCall]:
        """The tool calls in the reply, in order."""
        return self.wire.tool_calls(response)

    def result_messages(self, results: list[ToolResult]) -> list[Any]:
        """The messages that carry the tools' results back, ids matched."""
        return self.wire.result_messages(results)


# One name per format, for code that builds a format's requests without a client
# (``Provider(None, is_async=False, wire=...)`` is the same).
class OpenAIChat(Provider):
    wire = openai_chat.FORMAT


class OpenAIResponses(Provider):
    wire = openai_responses.FORMAT


class Anthropic(Provider):
    wire = anthropic.FORMAT


class Gemini(Provider):
    wire = gemini.FORMAT


def provider_for(
    client: Any, api: str | None, *, want_async: bool, names: tuple[str, str],
    registry: Any = annotate,
) -> Provider:
    """The provider behind ``client``, checked against sync/async use.

    Raises:
        TypeError: ``client`` is not one of the known clients, ``api`` does not fit it,
            or a sync client was given to the async entry point (or the reverse).
    """
    wire, create, aio = client_format(client, api, want_async=want_async, names=names)
    stream_create = None
    if wire.stream_method is not None:
        owner = getattr(create, "__self__", None)
        stream_create = getattr(owner, wire.stream_method, None)
    provider = Provider(
        create, is_async=aio or _is_async(create), stream_create=stream_create, wire=wire
    )
    check_registry(registry)
    provider.registry = registry
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

"""The one protocol every wire format implements, and the rules all of them share.

A wire format (OpenAI Chat Completions, OpenAI Responses, Anthropic Messages, Gemini
``generateContent``, ...) is one module of this package holding one ``WireFormat``
object: how its structured-output and tool requests are built, how a reply is read
(text, refusal, truncation, tool calls), how tool results are written, how its stream
events are read. ``detect`` maps a reply, an event, a batch line or a client to its
format; every reader of the library goes through it, so two readers of one format
cannot disagree.
"""

from __future__ import annotations

import abc
import logging
from collections.abc import Callable, Iterable, Mapping
from itertools import pairwise
from typing import TYPE_CHECKING, Any, ClassVar

import attrs
import orjson

from .._base.records import ToolCall, ToolResult
from .._base.usage import Usage
from .._codec.problems import brief
from .._schema import adapters as _adapters
from .._schema.schema import schema
from .._types import inspector as ni
from .._types.annotate import Registry
from ..errors import DecodeError
from .access import ShapeError, field_of, items_of

if TYPE_CHECKING:
    from .._schema.profiles import Profile

__all__ = [
    "Reply",
    "StreamBlocks",
    "flat_calls",
    "listed",
    "StreamState",
    "WireFormat",
    "as_dict",
    "call_input",
    "keeps_signature",
    "checked_results",
    "described",
    "no_reply",
    "pick_call",
    "tool_name_of",
]

log = logging.getLogger("describedtypes")


@attrs.frozen
class Reply:
    """What a complete reply says: its text and its tool calls (refusals and cut-off
    replies never get this far: reading them raises).

    Attributes:
        text: The answer's text, joined from the parts the provider means as the answer;
            ``""`` when there is none.
        calls: The tool calls, in order.
        missing: What "no reply" says when neither a text nor a usable call is there.
    """

    text: str
    calls: tuple[ToolCall, ...] = ()
    missing: str = "no reply"


def no_reply(what: str) -> DecodeError:
    return DecodeError([("$", f"the response has no reply to decode ({what})")])


def tool_name_of(tp: Any) -> str | None:
    """The name ``tp`` has as a tool (its schema name), if it is an object."""
    try:
        node = ni.type_info(tp)
    except Exception:
        return None
    obj = ni.object_of(node)
    return obj.name if obj is not None else None


def pick_call(tp: Any, reply: Reply) -> ToolCall | None:
    """The tool call that answers for ``tp``: the one named like it, else the only one
    when the reply has no text (the text wins over a call named otherwise)."""
    if not reply.calls:
        return None
    wanted = tool_name_of(tp)
    for call in reply.calls:
        if wanted is not None and call.name == wanted:
            return call
    if len(reply.calls) == 1 and not reply.text:
        return reply.calls[0]
    return None


def described(tp: Any, adapter: _adapters.Adapter, registry: Registry) -> Any:
    """``schema(tp, adapter)`` (its rewrites are logged once per build, at DEBUG)."""
    return schema(tp, adapter, registry=registry)


def as_dict(value: Any, what: str) -> dict[str, Any]:
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


def checked_results(results: Any, *, ids: bool = True) -> list[ToolResult]:
    """``results`` as a list of ``ToolResult`` objects that each carry a ``call_id``
    (unless the format matches results to calls without ids: ``ids=False``)."""
    if isinstance(results, (str, bytes, Mapping)) or not (
        isinstance(results, ToolResult) or hasattr(results, "__iter__")
    ):
        msg = (
            f"expected a ToolResult or a list of them (what Toolbox.call returns), got "
            f"{type(results).__name__}"
        )
        raise ShapeError(msg)
    listed: list[Any] = [results] if isinstance(results, ToolResult) else list(results)
    for r in listed:
        if not isinstance(r, ToolResult):
            msg = f"expected ToolResult objects, got {type(r).__name__}"
            raise ShapeError(msg)
        if ids and r.call_id is None:
            msg = (
                f"the result of {r.name!r} has no call_id, so the provider cannot match it to "
                "its call; pass call_id= to Toolbox.call (read_tool_calls keeps it)"
            )
            raise ValueError(msg)
    return listed


class StreamState(abc.ABC):
    """Strictly private: what a stream reader needs from the stream it feeds: the reply
    text, the tool calls by key, the refusal, the stop reason (``_vendors.stream``).

    A format whose reply may hold several messages (OpenAI Responses) keys each text
    piece by its message and says which message is the answer (``choose_text``): only
    that message's text is shown in partials and decoded at the end.
    """

    @abc.abstractmethod
    def add_text(self, piece: Any, key: Any = None) -> Any:
        """Append to the text of message ``key`` (None: the reply's one text); returns
        the text and whether a parse is due."""

    @abc.abstractmethod
    def choose_text(self, key: Any) -> None:
        """The message ``key`` is the answer (None: the reply's one text): its text is the
        reply text from now on (a key no text was added to: an empty one)."""

    @abc.abstractmethod
    def reply_text(self) -> str:
        """The answer's text as it stands."""

    @abc.abstractmethod
    def set_text(self, text: str) -> None:
        """The answer's text is ``text``, whole (the provider's final word on it, in
        place of what its pieces made)."""

    @abc.abstractmethod
    def add_call(
        self, key: Any, name: Any, piece: Any, *, whole: bool = False, call_id: Any = None
    ) -> Any:
        """Append to the arguments of the call ``key`` (made when new, named when the
        name first arrives, given its provider id when that first arrives); ``whole``
        means the piece is the whole arguments."""

    @abc.abstractmethod
    def add_refusal(self, piece: Any) -> None:
        """Append to the refusal text."""

    @property
    @abc.abstractmethod
    def refusal_text(self) -> str:
        """The refusal so far ("" when the model did not refuse)."""

    @abc.abstractmethod
    def text_of(self, key: Any) -> str:
        """The text added under ``key`` so far ("" when none was)."""

    @abc.abstractmethod
    def calls(self) -> list[ToolCall]:
        """The tool calls so far, in order, with their provider ids."""

    stop: Any = None
    #: The usage the stream reported last (streams report it cumulatively: replace it).
    usage: Usage | None = None
    status: Any = None
    incomplete: Any = None
    failed: Any = None
    #: What the format keeps between the events of one stream (its own object).
    memo: Any = None


class WireFormat(abc.ABC):
    """One provider's wire format; one instance per format (and one per host that needs
    its own, ``for_host``), holding no state."""

    #: Shown in log records and messages.
    name: ClassVar[str] = ""
    #: The request keyword that carries the conversation.
    messages_key: ClassVar[str] = "messages"
    #: The adapter of this format's tool definitions.
    tool_adapter: ClassVar[_adapters.Adapter] = _adapters.OPENAI_CHAT_TOOLS
    #: The adapter of this format's structured output.
    adapter: ClassVar[_adapters.Adapter] = _adapters.OPENAI
    #: What ``read_tool_calls`` says this format's replies look like.
    shape: ClassVar[str] = ""
    #: ``gen_ai.provider.name`` and ``gen_ai.operation.name`` of its requests (the
    #: OpenTelemetry GenAI conventions' well-known values).
    otel_provider: ClassVar[str] = ""
    otel_operation: ClassVar[str] = "chat"

    # -- recognising ------------------------------------------------------------------

    @abc.abstractmethod
    def owns_reply(self, response: Any) -> bool:
        """Whether ``response`` (an SDK object or its JSON) is a reply in this format."""

    def owns_event(self, event: Any) -> bool:
        """Whether ``event`` is one of this format's stream events."""
        return False

    # -- reading ----------------------------------------------------------------------

    @abc.abstractmethod
    def reply(self, response: Any) -> Reply:
        """The reply's text and calls.

        Raises:
            RefusalError: The model refused.
            IncompleteReplyError: The reply was cut off.
            DecodeError: The response failed, or holds no reply at all.
            ShapeError: A part of it has the wrong type.
        """

    @abc.abstractmethod
    def tool_calls(self, response: Any) -> list[ToolCall]:
        """The tool calls in the reply (or in the part of it the caller passed)."""

    def finish_reason(self, response: Any) -> str | None:
        """Why the model stopped (``gen_ai.response.finish_reasons``), if the reply says."""
        return None

    def response_model(self, response: Any) -> str | None:
        """The model that answered (``gen_ai.response.model``), if the reply says."""
        model = field_any(response, "model", "model_version", "modelVersion")
        return model if isinstance(model, str) else None

    def usage(self, response: Any) -> Usage:
        """The tokens the request cost, from the provider's own usage fields (one request;
        a field it leaves out is 0)."""
        return Usage(requests=1)

    @abc.abstractmethod
    def result_messages(self, results: ToolResult | Iterable[ToolResult]) -> list[Any]:
        """The messages that carry the tools' results back, ids matched."""

    def results_and_text(self, results: list[ToolResult], text: str) -> list[Any]:
        """Tool results, then a user message holding ``text`` (formats whose results go in
        a user message put the text into the same one: Bedrock refuses two user messages
        in a row)."""
        return [*self.result_messages(results), self.user_message(text)]

    def feed(self, state: StreamState, event: Any) -> Any:
        """Read one stream event into ``state``; returns ``(text, due)`` as the state's
        ``add_*`` methods do, or ``(None, False)``."""
        return None, False

    def stream_reply(self, state: StreamState, text: str, calls: list[ToolCall]) -> Reply:
        """The reply a finished stream amounts to (refusals and cut-offs raise)."""
        return Reply(text, tuple(calls))

    def stream_events(self, response: Any) -> Any:
        """The events of what the streaming method returned (the response itself, unless
        the format wraps its events: Bedrock's ``{"stream": ...}``)."""
        return response

    # -- the conversation -------------------------------------------------------------

    def user_message(self, text: str) -> Any:
        return {"role": "user", "content": text}

    @abc.abstractmethod
    def reply_messages(self, response: Any) -> list[Any]:
        """The model's reply, as it goes back into the conversation."""

    def request(self, model: str, transcript: list[Any], extra: dict[str, Any]) -> dict[str, Any]:
        return {"model": model, self.messages_key: list(transcript), **extra}

    @abc.abstractmethod
    def structured(
        self, tp: Any, extra: dict[str, Any], registry: Registry,
        adapter: _adapters.Adapter | None = None,
    ) -> dict[str, Any]:
        """``extra`` plus this format's structured-output keyword for ``tp`` (the body
        built by ``adapter``, else the format's own)."""

    def model_adapters(
        self, model: str
    ) -> tuple[_adapters.Adapter, _adapters.Adapter] | None:
        """The structured-output and tool adapters for ``model``, where the format's rules
        depend on the model (Bedrock: the model family); None: the format's own."""
        return None

    #: The structured-output adapters a server speaking this format may want (by name,
    #: without a backend): ``llm_adapter=`` picks one of them.
    servers: ClassVar[dict[str, tuple[str, str]]] = {}

    def with_tools(self, definitions: list[Any], extra: dict[str, Any]) -> dict[str, Any]:
        tools = list(items_of(extra.get("tools")))
        return {**extra, "tools": [*tools, *definitions]}

    def for_host(self, profile: Profile) -> WireFormat:
        """This format as the host ``profile`` describes it (the parts of a conversation
        a host needs other than the API's own: ``Profile.tool_choice``,
        ``Profile.tool_call_content``); the format itself where the profile changes
        nothing it reads."""
        return self

    def closing(self, extra: dict[str, Any]) -> dict[str, Any]:
        """``extra`` (a tool turn's keywords) for the closing request of a two-phase run:
        the model may no longer call a tool. Here the tools go, with the keywords only
        allowed beside them (OpenAI's ``tool_choice`` and ``parallel_tool_calls``)."""
        return {k: v for k, v in extra.items()
                if k not in ("tools", "tool_choice", "parallel_tool_calls")}

    #: The client method that streams, when it is not the create method with stream=True.
    stream_method: ClassVar[str | None] = None

    def streaming(self, kwargs: dict[str, Any]) -> dict[str, Any]:
        """The request keywords of the same request, streamed."""
        return {**kwargs, "stream": True}

    def stream_messages(
        self, state: StreamState, text: str, calls: list[ToolCall]
    ) -> list[Any]:
        """A finished stream's reply as it goes back into the conversation: what
        ``reply_messages`` gives for the same reply whole (its text, and its tool calls
        with their ids), so a retry or the next question continues the conversation the
        provider expects."""
        return [{"role": "assistant", "content": text}]

    def __repr__(self) -> str:
        return f"<wire format {self.name}>"


#: The most blocks (or parts) of one streamed message that ``StreamBlocks`` keeps.
_MAX_BLOCKS = 4096


class StreamBlocks:
    """Strictly private: the blocks of one streamed message in the order they began, kept
    in the stream's ``memo`` by the formats whose reply is a list of blocks (Anthropic,
    Bedrock, Gemini), so that the message goes back as the whole reply's blocks do.

    Text blocks hold where they start in the stream's one reply text (the text itself is
    kept once, by the state); calls hold their place among the state's calls; thinking
    holds the state's text key of its text and its signature; other blocks are kept whole.
    """

    __slots__ = ("blocks", "calls", "keys", "size")

    def __init__(self) -> None:
        self.blocks: list[list[Any]] = []
        self.keys: dict[Any, list[Any]] = {}
        self.size = 0  # characters of reply text so far
        self.calls = 0  # calls begun so far

    @classmethod
    def of(cls, state: StreamState) -> StreamBlocks:
        memo = state.memo
        if not isinstance(memo, StreamBlocks):
            memo = state.memo = cls()
        return memo

    def _add(self, key: Any, block: list[Any]) -> list[Any]:
        if len(self.blocks) >= _MAX_BLOCKS:
            raise DecodeError(
                [("$", f"the reply holds more than {_MAX_BLOCKS} blocks; ask for a shorter "
                  "answer")]
            )
        self.blocks.append(block)
        if key is not None:
            self.keys[key] = block
        return block

    def text(self, key: Any, piece: Any, signature: Any = None) -> None:
        """A piece of the reply text, in block ``key`` (None: the last block when it is
        text, else a new one), and the block's signature if this piece carries it."""
        block = self._last(key, "text")
        if block is None:
            block = self._add(key, ["text", self.size, None])
        if isinstance(piece, str):
            self.size += len(piece)
        if keeps_signature(signature) and block[2] is None:
            block[2] = signature

    def _last(self, key: Any, kind: str) -> list[Any] | None:
        """The block ``key`` (None: the last block) if it is of ``kind``."""
        block = self.keys.get(key) if key is not None else (
            self.blocks[-1] if self.blocks else None
        )
        return block if block is not None and block[0] == kind else None

    def call(self, key: Any) -> None:
        """A tool call begins (the state's next call)."""
        if key is None or key not in self.keys:
            self._add(key, ["call", self.calls])
            self.calls += 1

    def thinking(self, key: Any, text_key: Any, signature: Any = None) -> None:
        """Reasoning text (added to the state under ``text_key``) or its signature, in
        block ``key`` (None: the last block when it is reasoning, else a new one)."""
        block = self._last(key, "thinking")
        if block is None:
            block = self._add(key, ["thinking", text_key, None])
        if keeps_signature(signature):
            block[2] = signature

    def whole(self, key: Any, value: Any) -> None:
        """A block that arrived whole, kept as it came."""
        self._add(key, ["whole", value])

    def shaped(
        self, state: StreamState, text: str, calls: list[ToolCall],
        shape: Callable[[str, Any, Any], Any],
    ) -> list[Any]:
        """The blocks in order, each ``shape(kind, value, signature)`` of ``resolved`` (a
        block kept whole stays as it came)."""
        return [value if kind == "whole" else shape(kind, value, signature)
                for kind, value, signature in self.resolved(state, text, calls)]

    def resolved(
        self, state: StreamState, text: str, calls: list[ToolCall]
    ) -> list[tuple[str, Any, Any]]:
        """The blocks, in order: ``("text", str, signature or None)`` (empty ones
        without a signature left out),
        ``("call", ToolCall, None)``, ``("thinking", text, signature)``, ``("whole",
        value, None)``. Calls the blocks do not account for come last."""
        out: list[tuple[str, Any, Any]] = []
        starts = [b[1] for b in self.blocks if b[0] == "text"] + [len(text)]
        spans = pairwise(starts)
        placed = set()
        for block in self.blocks:
            kind = block[0]
            if kind == "text":
                start, end = next(spans)
                if text[start:end] or block[2]:
                    out.append(("text", text[start:end], block[2]))
            elif kind == "call":
                if block[1] < len(calls):
                    placed.add(block[1])
                    out.append(("call", calls[block[1]], None))
            elif kind == "thinking":
                out.append(("thinking", state.text_of(block[1]), block[2]))
            else:
                out.append(("whole", block[1], None))
        out += [("call", c, None) for i, c in enumerate(calls) if i not in placed]
        if not self.blocks and text:
            out.insert(0, ("text", text, None))
        return out


#: The longest reasoning signature kept (a real one is a few kB).
_MAX_SIGNATURE = 1024 * 1024


def keeps_signature(value: Any) -> bool:
    """Whether ``value`` is a signature to keep (a str, or bytes as Gemini's SDK gives)."""
    if isinstance(value, (str, bytes)) and value:
        if len(value) > _MAX_SIGNATURE:
            raise DecodeError([("$", "a reasoning signature of the reply is longer than "
                                     f"{_MAX_SIGNATURE // 2**20} MiB")])
        return True
    return False


def call_input(arguments: Any) -> dict[str, Any]:
    """A streamed call's arguments as the object a whole reply's call carries (Anthropic's
    ``input``, Bedrock's ``toolUse.input``): arguments that are no JSON object (a reply
    that broke off) go back as ``{}``, the only object those APIs take in their place."""
    if isinstance(arguments, Mapping):
        return dict(arguments)
    if isinstance(arguments, (str, bytes)) and arguments:
        try:
            value = orjson.loads(arguments)
        except orjson.JSONDecodeError:
            return {}
        return value if isinstance(value, dict) else {}
    return {}


def strict_items(value: Any, what: str, where: str) -> list[Any]:
    """A list the reader needs (None is empty); anything else is a ShapeError."""
    if value is None:
        return []
    if isinstance(value, (str, bytes, Mapping)) or not hasattr(value, "__iter__"):
        msg = f"{where}: expected a list of {what}, got {type(value).__name__}"
        raise ShapeError(msg)
    try:
        return list(value)
    except Exception:
        msg = f"{where}: iterating the list of {what} raised"
        raise ShapeError(msg) from None


def listed(value: Any, what: str, where: str, *, strict: bool) -> list[Any]:
    """``strict_items`` when reading tool calls for ``read_tool_calls`` (a wrong type is an
    error), ``items_of`` when reading a reply to decode (a wrong type is no call)."""
    return strict_items(value, what, where) if strict else items_of(value)


def flat_calls(
    items: Any, what: str, where: str, kind: str, arguments: str, call_id: str,
    *, strict: bool,
) -> list[ToolCall]:
    """The calls among ``items`` that carry their name, arguments and id themselves (the
    Responses API's ``function_call`` items, Anthropic's ``tool_use`` blocks), keeping
    those whose ``type`` is ``kind``. ``strict``: a wrong type is a ShapeError (for
    ``read_tool_calls``); otherwise such an item is no call (for a reply to decode)."""
    calls = []
    for i, item in enumerate(listed(items, what, where, strict=strict)):
        if field_of(item, "type") != kind:
            continue
        name = field_of(item, "name")
        if not strict and not isinstance(name, str):
            continue
        name = strict_name(name, f"{kind} name", f"{where}[{i}].name")
        calls.append(ToolCall(name, field_of(item, arguments), field_of(item, call_id)))
    return calls


def strict_name(value: Any, what: str, where: str) -> str:
    if not isinstance(value, str):
        msg = f"{where}: the {what} must be a str, got {brief(value)}"
        raise ShapeError(msg)
    return value


def field_any(obj: Any, *names: str) -> Any:
    """The first of ``names`` that ``obj`` has (snake_case SDK attribute or camelCase
    JSON key); None when it has none."""
    for name in names:
        value = field_of(obj, name)
        if value is not None:
            return value
    return None

"""OpenAI Responses: ``responses.create``, its output items, function calls, function
call outputs and stream events (https://platform.openai.com/docs/api-reference/responses).

Of an output with several messages, the one whose ``phase`` is ``"final_answer"`` is the
answer (a ``"commentary"`` message may come before it); without one, the last message
(https://platform.openai.com/docs/api-reference/responses/object, the output message's
``phase``). A stream is read by the same rule (``answer_index``): its messages are
announced by ``response.output_item.added`` / ``.done`` events and each text delta names
its message; the partials never show a commentary message, and the decoder reads the
answer's text.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar

import orjson

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
        messages = _messages(output)
        refusal = _refusal(messages)
        if refusal is not None:
            raise RefusalError(refusal)
        calls = self._calls(output, "output", strict=False)
        text = _answer_text(messages, calls=bool(calls))
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
            return _text_delta(state, event)
        if kind == "response.function_call_arguments.delta":
            return state.add_call(_call_key(event), None, field_of(event, "delta"))
        if kind in ("response.output_item.added", "response.output_item.done"):
            item = field_of(event, "item")
            item_type = field_of(item, "type")
            if kind == "response.output_item.done":
                _memo(state).keep(_plain(field_of(event, "output_index"), int), item)
            if item_type == "message":
                _seen(state, event, item)
            elif item_type == "function_call" and kind == "response.output_item.added":
                return state.add_call(
                    _call_key(event), field_of(item, "name"), field_of(item, "arguments"),
                    call_id=field_of(item, "call_id"),
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
            if kind == "response.completed":
                _completed(state, response)
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
        memo = state.memo
        if isinstance(memo, _Messages) and not memo.completed:
            # The stream is over: the answer by the rule reply() reads (a preamble that
            # is the only message included), no longer the message the partials showed.
            key = memo.answer()
            state.choose_text(key)
            commentary = memo.phases.get(key) == "commentary"
            text = "" if commentary and calls else state.reply_text()
        return Reply(text, tuple(calls), "no output_text in the output")

    # -- the conversation -------------------------------------------------------------

    def reply_messages(self, response: Any) -> list[Any]:
        # Every output item goes back as it came (reasoning items included), as the
        # Responses API expects when the conversation is sent again.
        return list(items_of(field_of(response, "output")))

    def stream_messages(
        self, state: StreamState, text: str, calls: list[ToolCall]
    ) -> list[Any]:
        # Every output item, as reply_messages() sends the whole reply's: the completed
        # response's output, else the items the stream finished (output_item.done), else
        # (a stream that sent neither) the answer's text and the calls.
        memo = state.memo
        if isinstance(memo, _Messages):
            if memo.output is not None:
                return list(memo.output)
            if memo.items:
                return [item for _, item in sorted(memo.items, key=lambda pair: pair[0])]
        out: list[Any] = [{"role": "assistant", "content": text}] if text else []
        out += [
            {"type": "function_call", "call_id": c.call_id, "name": c.name,
             "arguments": c.arguments}
            for c in calls
        ]
        return out

    def structured(
        self, tp: Any, extra: dict[str, Any], registry: Registry,
        adapter: _adapters.Adapter | None = None,
    ) -> dict[str, Any]:
        text = as_dict(extra.get("text"), "text")
        body = described(tp, adapter or self.adapter, registry)
        text["format"] = {"type": "json_schema", **body}
        return {**extra, "text": text}


# -- which message is the answer: one rule for whole replies and streams -------------------


def answer_index(phases: list[str | None]) -> int | None:
    """Which of an output's messages (given by their phases, in output order) is the
    answer: the last ``"final_answer"``; without one, the last message; None when there
    is no message."""
    for i in range(len(phases) - 1, -1, -1):
        if phases[i] == "final_answer":
            return i
    return len(phases) - 1 if phases else None


def shown_index(phases: list[str | None]) -> int | None:
    """Which message a stream's partials show while it arrives: the answer as it stands,
    except that a ``"commentary"`` message is never shown (a preamble that turns out to
    be the only message is still the answer at the end: ``answer_index``)."""
    index = answer_index(phases)
    while index is not None and phases[index] == "commentary":
        index = index - 1 if index > 0 else None
    return index


def _plain(value: Any, kind: type) -> Any:
    # Only the exact type is read: a subclass could override == or hashing (hostile input).
    return value if type(value) is kind else None


def _phase(item: Any) -> str | None:
    phase: str | None = _plain(field_of(item, "phase"), str)
    return phase


def _messages(output: list[Any]) -> list[Any]:
    return [item for item in output if field_of(item, "type") == "message"]


def _refusal(messages: list[Any]) -> str | None:
    """The refusal of any message (a refusal anywhere is the model's word), else None."""
    for message in messages:
        for part in items_of(field_of(message, "content")):
            if field_of(part, "type") == "refusal":
                return str(field_of(part, "refusal") or "")
    return None


def _answer_text(messages: list[Any], *, calls: bool = False) -> str:
    """The answer's text; with tool calls beside it, none when the answer is only a
    preamble (``"commentary"``): the calls answer then."""
    index = answer_index([_phase(m) for m in messages])
    if index is None or (calls and _phase(messages[index]) == "commentary"):
        return ""
    return "".join(
        str(field_of(part, "text") or "")
        for part in items_of(field_of(messages[index], "content"))
        if field_of(part, "type") == "output_text"
    )


# -- the messages of one stream -----------------------------------------------------------

#: The most output messages one streamed reply may announce.
_MAX_MESSAGES = 1024
#: The most output items of one streamed reply kept for the conversation.
_MAX_ITEMS = 4096
#: The most characters of JSON the kept output items may hold in all (they go back into
#: the conversation; the stream's own text is bounded apart).
_MAX_KEPT = 64 * 1024 * 1024


def _json_size(item: Any) -> int:
    """The length of an output item's JSON (an SDK model's, or a dict's); one that cannot
    be written counts as too long to keep."""
    try:
        dump = getattr(item, "model_dump_json", None)
        if callable(dump):
            return len(dump())
        return len(orjson.dumps(item, default=str))
    except Exception:
        return _MAX_KEPT + 1


#: The key ``choose_text`` gets when no message is the answer (yet): a text never added to.
_NO_ANSWER: Any = ("no answer",)


class _Messages:
    """Strictly private: the output messages one stream has announced, in output order
    (kept in the stream's ``memo``), with their phases so far."""

    __slots__ = ("completed", "ids", "items", "kept", "output", "phases")

    def __init__(self) -> None:
        self.phases: dict[Any, str | None] = {}
        self.ids: dict[str, Any] = {}  # item id -> key, for events that carry only one
        self.completed = False  # a response.completed event gave the whole output
        #: The finished output items (output_item.done), by output index, and the whole
        #: output of response.completed: what goes back into the conversation.
        self.items: list[tuple[int, Any]] = []
        self.output: list[Any] | None = None
        self.kept = 0  # the JSON size of the items kept

    def keep(self, index: int | None, item: Any) -> None:
        """A finished output item (one with no index goes after those before it). Past
        ``_MAX_KEPT`` characters in all none is kept any more (the conversation then gets
        the answer's text and the calls)."""
        if len(self.items) >= _MAX_ITEMS:
            raise DecodeError(
                [("$", f"the reply holds more than {_MAX_ITEMS} output items; ask for a "
                  "shorter answer")]
            )
        if self.kept > _MAX_KEPT:
            return
        self.kept += _json_size(item)
        if self.kept > _MAX_KEPT:
            self.items.clear()
            return
        self.items.append((index if index is not None else len(self.items), item))

    def keep_output(self, output: list[Any]) -> None:
        """The completed response's output, unless it is longer than ``_MAX_KEPT``."""
        if sum(_json_size(item) for item in output) <= _MAX_KEPT:
            self.output = output

    def key(self, index: Any, item_id: Any) -> Any:
        """A message's key: its output index, else its item id (None: the one text)."""
        known = self.ids.get(item_id) if item_id is not None else None
        if known is not None:
            return known
        key = index if index is not None else item_id
        if item_id is not None and key is not None:
            self.ids[item_id] = key
        return key

    def note(self, key: Any, phase: str | None) -> bool:
        """Record a message's phase (a phase once known stays); True when it changed."""
        if key in self.phases and (phase is None or self.phases[key] == phase):
            return False
        if key not in self.phases and len(self.phases) >= _MAX_MESSAGES:
            raise DecodeError(
                [("$", f"the reply holds more than {_MAX_MESSAGES} output messages; ask "
                  "for a shorter answer")]
            )
        self.phases[key] = phase if phase is not None else self.phases.get(key)
        return True

    def shown(self) -> Any:
        """The key of the message the partials show now."""
        return self._key(shown_index(list(self.phases.values())))

    def answer(self) -> Any:
        """The key of the answer's message, the stream being over."""
        return self._key(answer_index(list(self.phases.values())))

    def _key(self, index: int | None) -> Any:
        return list(self.phases)[index] if index is not None else _NO_ANSWER


def _memo(state: StreamState) -> _Messages:
    memo = state.memo
    if not isinstance(memo, _Messages):
        memo = state.memo = _Messages()
    return memo


def _note(state: StreamState, key: Any, phase: str | None) -> str | None:
    """Record a message; when that changes which one is the answer, tell the state.
    Returns the message's phase as known now."""
    memo = _memo(state)
    if memo.note(key, phase):
        state.choose_text(memo.shown())
    return memo.phases[key]


def _seen(state: StreamState, event: Any, item: Any) -> None:
    """An ``output_item.added`` / ``.done`` event of a message: its key and phase."""
    memo = _memo(state)
    key = memo.key(_plain(field_of(event, "output_index"), int), _plain(field_of(item, "id"), str))
    _note(state, key, _phase(item))


def _text_delta(state: StreamState, event: Any) -> Any:
    """An ``output_text.delta``: text of the message it names (a commentary message's is
    kept aside, shown in no partial: it is the answer only if no other message comes)."""
    memo = _memo(state)
    key = memo.key(
        _plain(field_of(event, "output_index"), int), _plain(field_of(event, "item_id"), str)
    )
    _note(state, key, None)
    return state.add_text(field_of(event, "delta"), key)


def _completed(state: StreamState, response: Any) -> None:
    """A ``response.completed`` event that carries the whole output: its answer, read as
    ``reply()`` reads it, is the reply text (and a refusal in it counts)."""
    output = items_of(field_of(response, "output"))
    if not output:  # an event without the output (a proxy's, a test's): the deltas stand
        return
    messages = _messages(output)
    refusal = _refusal(messages)
    if refusal is not None and not state.refusal_text:
        state.add_refusal(refusal or "refused")
    calls = any(field_of(item, "type") == "function_call" for item in output)
    state.set_text(_answer_text(messages, calls=calls))
    memo = _memo(state)
    memo.completed = True
    memo.keep_output(output)


def _call_key(event: Any) -> Any:
    index = _plain(field_of(event, "output_index"), int)
    return index if index is not None else _plain(field_of(event, "item_id"), str)


FORMAT = OpenAIResponsesFormat()

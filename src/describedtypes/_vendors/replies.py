"""Reading a provider's response object: the reply to decode, or why there is none.

Refusals and cut-off replies are told apart from model mistakes: a refusal raises
``RefusalError``, a reply stopped by the token limit or a content filter raises
``IncompleteReplyError`` (both ``DecodeError`` subclasses), and only a complete reply is
decoded. Provider SDKs are never imported: SDK objects are read by attribute, plain dicts
(``model_dump()`` output, raw HTTP JSON) by key.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypeVar, overload

from .._codec.decode import decode
from .._types import inspector as ni
from .._types.annotate import Registry, annotate
from ..errors import DecodeError, IncompleteReplyError, RefusalError
from .toolcalls import ShapeError

__all__ = ["decode_response"]

#: Chat Completions finish reasons that mean the reply stopped before it was complete.
CHAT_CUT_OFF = frozenset({"length", "content_filter"})
#: Anthropic stop reasons that mean the same.
ANTHROPIC_CUT_OFF = frozenset({"max_tokens", "model_context_window_exceeded"})


def field_of(obj: Any, name: str) -> Any:
    """``obj[name]`` for a mapping, ``obj.name`` for an SDK object; None if absent."""
    if obj.__class__ is dict or isinstance(obj, Mapping):
        return obj.get(name)
    try:
        return getattr(obj, name, None)
    except Exception:  # a hostile __getattr__
        return None


def items_of(value: Any) -> list[Any]:
    """The items of a JSON array (list, tuple, SDK list); [] for anything else."""
    if value.__class__ is list:  # parsed JSON: no ABC checks
        return list(value)
    if value is None or isinstance(value, (str, bytes, Mapping)):
        return []
    if isinstance(value, Sequence):
        return list(value)
    return []


T = TypeVar("T")


@overload
def decode_response(
    tp: type[T], response: Any, *, converter: Any = None, registry: Registry = annotate
) -> T: ...
@overload
def decode_response(
    tp: Any, response: Any, *, converter: Any = None, registry: Registry = annotate
) -> Any: ...
def decode_response(
    tp: Any, response: Any, *, converter: Any = None, registry: Registry = annotate
) -> Any:
    """Decode the reply inside a provider's response into an instance of ``tp``.

    Accepts, as SDK objects or as plain dicts: an OpenAI Chat Completions response (or
    its ``message``), an OpenAI Responses API response, and an Anthropic Messages
    response. The reply is the message text, or, when ``tp`` was offered as a tool, the
    arguments of the tool call named like ``tp`` (or of the only tool call).

    Args:
        tp: The type to decode into, as for ``decode()``.
        response: The provider's response.
        converter: Passed on to ``decode()``.
        registry: Passed on to ``decode()``.

    Returns:
        The decoded value.

    Raises:
        RefusalError: The model refused (an OpenAI ``refusal``, an Anthropic
            ``refusal`` stop reason).
        IncompleteReplyError: The reply was cut off (OpenAI ``length`` or
            ``content_filter``, a Responses ``incomplete`` status, Anthropic
            ``max_tokens``).
        DecodeError: The reply is missing or does not match ``tp``.
        TypeError: ``response`` is none of the shapes above (also a
            ``DescribedTypesError``).

    .. versionadded:: 0.1.0
    """
    opts: dict[str, Any] = {"converter": converter, "registry": registry}
    if field_of(response, "choices") is not None:
        return _chat_completion(tp, response, opts)
    if field_of(response, "output") is not None and field_of(response, "object") in (
        "response",
        None,
    ):
        return responses_reply(tp, response, opts)
    if field_of(response, "stop_reason") is not None or (
        field_of(response, "type") == "message" and isinstance(field_of(response, "content"), list)
    ):
        return anthropic_reply(tp, response, opts)
    if field_of(response, "role") == "assistant":
        return chat_message_reply(tp, response, None, opts)
    kind = type(response).__name__
    msg = (
        f"decode_response() reads an OpenAI Chat Completions or Responses response or an "
        f"Anthropic message, got a {kind} without their fields (choices / output / "
        "stop_reason); to decode the reply text itself, use decode(tp, text)"
    )
    raise ShapeError(msg)


def tool_name_of(tp: Any) -> str | None:
    """The name ``tp`` has as a tool (its schema name), if it is an object."""
    try:
        node = ni.type_info(tp)
    except Exception:
        return None
    obj = ni.object_of(node)
    return obj.name if obj is not None else None


def _pick_call(tp: Any, calls: list[Any], name_of: Any) -> Any:
    """The tool call meant for ``tp``: the one named like it, else the only one."""
    wanted = tool_name_of(tp)
    for call in calls:
        if wanted is not None and name_of(call) == wanted:
            return call
    return calls[0] if len(calls) == 1 else None


def _no_reply(what: str) -> DecodeError:
    return DecodeError([("$", f"the response has no reply to decode ({what})")])


# -- OpenAI Chat Completions ------------------------------------------------------------


def _chat_completion(tp: Any, response: Any, opts: dict[str, Any]) -> Any:
    choices = items_of(field_of(response, "choices"))
    if not choices:
        raise _no_reply("no choices")
    choice = choices[0]
    message = field_of(choice, "message")
    if message is None:
        raise _no_reply("the first choice has no message")
    return chat_message_reply(tp, message, field_of(choice, "finish_reason"), opts)


def chat_message_reply(tp: Any, message: Any, finish_reason: Any, opts: dict[str, Any]) -> Any:
    refusal = field_of(message, "refusal")
    if refusal:
        raise RefusalError(str(refusal))
    if isinstance(finish_reason, str) and finish_reason in CHAT_CUT_OFF:
        raise IncompleteReplyError(finish_reason)
    content = field_of(message, "content")
    if isinstance(content, list):  # content parts
        content = "".join(
            str(field_of(part, "text") or "")
            for part in content
            if field_of(part, "type") == "text"
        )
    calls = items_of(field_of(message, "tool_calls"))
    if calls:
        call = _pick_call(tp, calls, lambda c: field_of(field_of(c, "function"), "name"))
        named = field_of(field_of(call, "function"), "name") if call is not None else None
        if call is not None and (not content or named == tool_name_of(tp)):
            return decode(tp, field_of(field_of(call, "function"), "arguments") or "", **opts)
    if not content:
        raise _no_reply("the message has no content")
    return decode(tp, content, **opts)


# -- OpenAI Responses -------------------------------------------------------------------


def responses_output(response: Any) -> tuple[list[str], list[Any]]:
    """The output texts and function-call items of an OpenAI Responses object.

    Raises:
        DecodeError: The response failed (its ``error``).
        IncompleteReplyError: Its status is ``incomplete``.
        RefusalError: A message part is a refusal.
    """
    error = field_of(response, "error")
    if error:
        text = field_of(error, "message") or str(error)
        raise DecodeError([("$", f"the response failed: {text}")])
    if field_of(response, "status") == "incomplete":
        reason = field_of(field_of(response, "incomplete_details"), "reason") or "incomplete"
        raise IncompleteReplyError(str(reason))
    texts: list[str] = []
    calls: list[Any] = []
    for item in items_of(field_of(response, "output")):
        kind = field_of(item, "type")
        if kind == "message":
            for part in items_of(field_of(item, "content")):
                part_kind = field_of(part, "type")
                if part_kind == "refusal":
                    raise RefusalError(str(field_of(part, "refusal") or ""))
                if part_kind == "output_text":
                    texts.append(str(field_of(part, "text") or ""))
        elif kind == "function_call":
            calls.append(item)
    return texts, calls


def responses_reply(tp: Any, response: Any, opts: dict[str, Any]) -> Any:
    texts, calls = responses_output(response)
    if calls:
        call = _pick_call(tp, calls, lambda c: field_of(c, "name"))
        if call is not None and (not texts or field_of(call, "name") == tool_name_of(tp)):
            return decode(tp, field_of(call, "arguments") or "", **opts)
    if not texts:
        raise _no_reply("no output_text in the output")
    return decode(tp, "".join(texts), **opts)


# -- Anthropic Messages -----------------------------------------------------------------


def anthropic_reply(tp: Any, response: Any, opts: dict[str, Any]) -> Any:
    blocks = items_of(field_of(response, "content"))
    texts = [str(field_of(b, "text") or "") for b in blocks if field_of(b, "type") == "text"]
    stop = field_of(response, "stop_reason")
    if stop == "refusal":
        raise RefusalError("".join(texts).strip() or "(no explanation given)")
    if isinstance(stop, str) and stop in ANTHROPIC_CUT_OFF:
        raise IncompleteReplyError(stop)
    calls = [b for b in blocks if field_of(b, "type") == "tool_use"]
    if calls:
        call = _pick_call(tp, calls, lambda c: field_of(c, "name"))
        if call is not None and (not texts or field_of(call, "name") == tool_name_of(tp)):
            return decode(tp, field_of(call, "input"), **opts)
    if not texts:
        raise _no_reply("no text block in the content")
    return decode(tp, "".join(texts), **opts)

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

from . import inspect as ni
from ._annotate import Registry, annotate
from ._decode import decode
from ._glue import ShapeError
from .errors import DecodeError, IncompleteReplyError, RefusalError

__all__ = ["decode_response"]

#: Chat Completions finish reasons that mean the reply stopped before it was complete.
CHAT_CUT_OFF = frozenset({"length", "content_filter"})
#: Anthropic stop reasons that mean the same.
ANTHROPIC_CUT_OFF = frozenset({"max_tokens", "model_context_window_exceeded"})


def _get(obj: Any, name: str) -> Any:
    if obj.__class__ is dict or isinstance(obj, Mapping):
        return obj.get(name)
    return getattr(obj, name, None)


def _items(value: Any) -> list[Any]:
    if value is None or isinstance(value, (str, bytes)):
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
    if _get(response, "choices") is not None:
        return _chat_completion(tp, response, opts)
    if _get(response, "output") is not None and _get(response, "object") in ("response", None):
        return _responses(tp, response, opts)
    if _get(response, "stop_reason") is not None or (
        _get(response, "type") == "message" and isinstance(_get(response, "content"), list)
    ):
        return _anthropic(tp, response, opts)
    if _get(response, "role") == "assistant":
        return _chat_message(tp, response, None, opts)
    kind = type(response).__name__
    msg = (
        f"decode_response() reads an OpenAI Chat Completions or Responses response or an "
        f"Anthropic message, got a {kind} without their fields (choices / output / "
        "stop_reason); to decode the reply text itself, use decode(tp, text)"
    )
    raise ShapeError(msg)


def _tool_name(tp: Any) -> str | None:
    """The name ``tp`` has as a tool (its schema name), if it is an object."""
    try:
        node = ni.type_info(tp)
    except Exception:
        return None
    obj = ni.object_of(node)
    return obj.name if obj is not None else None


def _pick_call(tp: Any, calls: list[Any], name_of: Any) -> Any:
    """The tool call meant for ``tp``: the one named like it, else the only one."""
    wanted = _tool_name(tp)
    for call in calls:
        if wanted is not None and name_of(call) == wanted:
            return call
    return calls[0] if len(calls) == 1 else None


def _no_reply(what: str) -> DecodeError:
    return DecodeError([("$", f"the response has no reply to decode ({what})")])


# -- OpenAI Chat Completions ------------------------------------------------------------


def _chat_completion(tp: Any, response: Any, opts: dict[str, Any]) -> Any:
    choices = _items(_get(response, "choices"))
    if not choices:
        raise _no_reply("no choices")
    choice = choices[0]
    message = _get(choice, "message")
    if message is None:
        raise _no_reply("the first choice has no message")
    return _chat_message(tp, message, _get(choice, "finish_reason"), opts)


def _chat_message(tp: Any, message: Any, finish_reason: Any, opts: dict[str, Any]) -> Any:
    refusal = _get(message, "refusal")
    if refusal:
        raise RefusalError(str(refusal))
    if isinstance(finish_reason, str) and finish_reason in CHAT_CUT_OFF:
        raise IncompleteReplyError(finish_reason)
    content = _get(message, "content")
    if isinstance(content, list):  # content parts
        content = "".join(
            str(_get(part, "text") or "") for part in content if _get(part, "type") == "text"
        )
    calls = _items(_get(message, "tool_calls"))
    if calls:
        call = _pick_call(tp, calls, lambda c: _get(_get(c, "function"), "name"))
        named = _get(_get(call, "function"), "name") if call is not None else None
        if call is not None and (not content or named == _tool_name(tp)):
            return decode(tp, _get(_get(call, "function"), "arguments") or "", **opts)
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
    error = _get(response, "error")
    if error:
        text = _get(error, "message") or str(error)
        raise DecodeError([("$", f"the response failed: {text}")])
    if _get(response, "status") == "incomplete":
        reason = _get(_get(response, "incomplete_details"), "reason") or "incomplete"
        raise IncompleteReplyError(str(reason))
    texts: list[str] = []
    calls: list[Any] = []
    for item in _items(_get(response, "output")):
        kind = _get(item, "type")
        if kind == "message":
            for part in _items(_get(item, "content")):
                part_kind = _get(part, "type")
                if part_kind == "refusal":
                    raise RefusalError(str(_get(part, "refusal") or ""))
                if part_kind == "output_text":
                    texts.append(str(_get(part, "text") or ""))
        elif kind == "function_call":
            calls.append(item)
    return texts, calls


def _responses(tp: Any, response: Any, opts: dict[str, Any]) -> Any:
    texts, calls = responses_output(response)
    if calls:
        call = _pick_call(tp, calls, lambda c: _get(c, "name"))
        if call is not None and (not texts or _get(call, "name") == _tool_name(tp)):
            return decode(tp, _get(call, "arguments") or "", **opts)
    if not texts:
        raise _no_reply("no output_text in the output")
    return decode(tp, "".join(texts), **opts)


# -- Anthropic Messages -----------------------------------------------------------------


def _anthropic(tp: Any, response: Any, opts: dict[str, Any]) -> Any:
    blocks = _items(_get(response, "content"))
    texts = [str(_get(b, "text") or "") for b in blocks if _get(b, "type") == "text"]
    stop = _get(response, "stop_reason")
    if stop == "refusal":
        raise RefusalError("".join(texts).strip() or "(no explanation given)")
    if isinstance(stop, str) and stop in ANTHROPIC_CUT_OFF:
        raise IncompleteReplyError(stop)
    calls = [b for b in blocks if _get(b, "type") == "tool_use"]
    if calls:
        call = _pick_call(tp, calls, lambda c: _get(c, "name"))
        if call is not None and (not texts or _get(call, "name") == _tool_name(tp)):
            return decode(tp, _get(call, "input"), **opts)
    if not texts:
        raise _no_reply("no text block in the content")
    return decode(tp, "".join(texts), **opts)

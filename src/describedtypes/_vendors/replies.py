"""Reading a provider's response object: the reply to decode, or why there is none.

Each format's module (``openai_chat.py`` and its siblings) reads its replies; the
detector picks the module. Refusals and cut-off replies are told apart from model
mistakes: a refusal raises ``RefusalError``, a reply stopped by the token limit or a
content filter raises ``IncompleteReplyError`` (both ``DecodeError`` subclasses), and
only a complete reply is decoded. Provider SDKs are never imported: SDK objects are read
by attribute, plain dicts (``model_dump()`` output, raw HTTP JSON) by key.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, overload

from .._codec.decode import decode
from .._types.annotate import Registry, annotate
from .access import ShapeError
from .detect import reply_format
from .wire import Reply, no_reply, pick_call

__all__ = ["decode_reply", "decode_response"]

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
    its ``message``), an OpenAI Responses API response, an Anthropic Messages response,
    and a Gemini ``GenerateContentResponse``. The reply is the message text, or, when
    ``tp`` was offered as a tool, the arguments of the tool call named like ``tp`` (or of
    the only tool call).

    Args:
        tp: The type to decode into, as for ``decode()``.
        response: The provider's response.
        converter: Passed on to ``decode()``.
        registry: Passed on to ``decode()``.

    Returns:
        The decoded value.

    Raises:
        RefusalError: The model refused (an OpenAI ``refusal``, an Anthropic
            ``refusal`` stop reason, a Gemini prompt block).
        IncompleteReplyError: The reply was cut off (OpenAI ``length`` or
            ``content_filter``, a Responses ``incomplete`` status, Anthropic
            ``max_tokens``, a Gemini finish reason other than ``STOP``).
        DecodeError: The reply is missing or does not match ``tp``.
        TypeError: ``response`` is none of the shapes above (also a
            ``DescribedTypesError``).

    .. versionadded:: 0.1.0
    """
    fmt = reply_format(response)
    if fmt is None:
        msg = (
            "decode_response() reads an OpenAI Chat Completions or Responses response, an "
            f"Anthropic message or a Gemini response, got a {type(response).__name__} "
            "without their fields (choices / output / stop_reason / candidates); to decode "
            "the reply text itself, use decode(tp, text)"
        )
        raise ShapeError(msg)
    try:
        reply = fmt.reply(response)
    except ShapeError as exc:
        msg = f"decode_response() cannot read this {fmt.name} response: {exc}"
        raise ShapeError(msg) from None
    return decode_reply(tp, reply, converter=converter, registry=registry)


def decode_reply(
    tp: Any, reply: Reply, *, decoder: Callable[..., Any] = decode, **opts: Any
) -> Any:
    """Decode a read reply: the tool call meant for ``tp`` if there is one, else the text
    (with ``decoder``, ``decode()``'s signature: a stream's own knows its texts)."""
    call = pick_call(tp, reply)
    if call is not None:
        return decoder(tp, call.arguments if call.arguments is not None else "", **opts)
    if not reply.text:
        raise no_reply(reply.missing)
    return decoder(tp, reply.text, **opts)

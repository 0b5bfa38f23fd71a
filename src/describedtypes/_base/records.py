"""The records every layer shares: a model's tool call and the result that answers it."""

from __future__ import annotations

import traceback as _traceback
from collections.abc import Mapping
from typing import Any

import attrs

__all__ = [
    "RESULT_LINES", "RESULT_NAMES", "Arguments", "ToolCall", "ToolResult", "failure", "new_result",
]

Arguments = str | bytes | bytearray | Mapping[str, Any] | None
"""A call's arguments as a provider sends them: JSON text, or an already parsed object."""

@attrs.frozen
class ToolCall:
    """One tool call requested by a model.

    Args:
        name: The tool's name, as the model wrote it.
        arguments: The arguments: JSON text (OpenAI) or a parsed object (Anthropic).
        call_id: The provider's id for the call, echoed in the result
            (OpenAI ``call_id`` / ``tool_call_id``, Anthropic ``tool_use_id``).

    .. versionadded:: 0.1.0
    """

    name: str
    arguments: Arguments = None
    call_id: str | None = None


@attrs.frozen(kw_only=True)
class ToolResult:
    """The outcome of one tool call: what the model is told and what the application keeps.

    Attributes:
        content: The text for the model: a ``str`` return value as it is, any other value
            JSON-encoded, or for a failed call a message the model can correct itself from.
        value: The Python return value, for the application (None when the call failed).
        is_error: The call failed: a mistake in the call (unknown tool, bad arguments) or
            an exception inside the tool.
        call_id: The provider's id for the call, to send the result back under.
        name: The tool's name, as the model called it.
        exception: The exception behind a failed call, if one was raised.
        traceback: That exception's formatted traceback, for logs; never sent to the model.

    .. versionadded:: 0.1.0
    """

    content: str
    value: Any = None
    is_error: bool = False
    call_id: str | None = None
    name: str = ""
    exception: BaseException | None = attrs.field(default=None, repr=False, eq=False)
    traceback: str | None = attrs.field(default=None, repr=False, eq=False)


_NEW_RESULT = ToolResult.__new__
_SLOTS = {n: ToolResult.__dict__[n].__set__ for n in attrs.fields_dict(ToolResult)}
_SET_CONTENT, _SET_VALUE, _SET_IS_ERROR, _SET_CALL_ID, _SET_NAME, _SET_EXC, _SET_TB = (
    _SLOTS["content"], _SLOTS["value"], _SLOTS["is_error"], _SLOTS["call_id"], _SLOTS["name"],
    _SLOTS["exception"], _SLOTS["traceback"],
)


#: How ``new_result`` fills a result, for generated code that does it inline (without the
#: call): the names to run its lines in, and the lines, which make ``result`` of
#: ``content``, ``value``, ``call_id`` and ``name`` (any expressions in their place).
RESULT_NAMES: dict[str, Any] = {
    "_NEW_RESULT": _NEW_RESULT,
    "ToolResult": ToolResult,
    **{f"_SET_{n.upper()}": setter for n, setter in _SLOTS.items()},
}
RESULT_LINES = (
    "result = _NEW_RESULT(ToolResult)",
    "_SET_CONTENT(result, {content})",
    "_SET_VALUE(result, {value})",
    "_SET_IS_ERROR(result, False)",
    "_SET_CALL_ID(result, {call_id})",
    "_SET_NAME(result, {name})",
    "_SET_EXCEPTION(result, None)",
    "_SET_TRACEBACK(result, None)",
)


def new_result(content: str, value: Any, call_id: str | None, name: str) -> ToolResult:
    """``ToolResult(content=..., value=..., call_id=..., name=...)``, filled through its
    slots (the hot path of every successful call; the same frozen instance)."""
    result = _NEW_RESULT(ToolResult)
    _SET_CONTENT(result, content)
    _SET_VALUE(result, value)
    _SET_IS_ERROR(result, False)
    _SET_CALL_ID(result, call_id)
    _SET_NAME(result, name)
    _SET_EXC(result, None)
    _SET_TB(result, None)
    return result


def failure(
    content: str, call_id: str | None, name: str, exc: BaseException | None = None
) -> ToolResult:
    text = None
    if exc is not None:
        try:
            text = "".join(_traceback.format_exception(type(exc), exc, exc.__traceback__))
        except Exception:  # a hostile exception; the type and message are on the result
            text = None
    return ToolResult(
        content=content, is_error=True, call_id=call_id, name=name, exception=exc, traceback=text
    )

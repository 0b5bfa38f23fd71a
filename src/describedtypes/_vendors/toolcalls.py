"""Provider glue: read tool calls out of a reply, and shape tool results for the next request.

Each reader takes the provider SDK's object or the same data as plain dicts (the JSON the
API returned), since only attribute or key access is used; no SDK is imported.

=====================  ======================================  ==================================
provider               calls are read from                     results go back as
=====================  ======================================  ==================================
OpenAI Responses       ``response.output`` ``function_call``   ``function_call_output`` items
OpenAI Chat            ``choices[0].message.tool_calls``       ``{"role": "tool"}`` messages
Anthropic Messages     ``message.content`` ``tool_use``        one ``user`` message of
                                                               ``tool_result`` blocks
Gemini                 ``candidates[0].content.parts``         one ``user`` content of
                       ``function_call``                       ``function_response`` parts
=====================  ======================================  ==================================

Each format's module reads and writes its own shapes; these functions are the public
names for them (the flat ``tool_calls_from_*`` / ``tool_results_for_*`` ones are thin
aliases kept for existing callers).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .._base.records import ToolCall, ToolResult
from . import anthropic, gemini, openai_chat, openai_responses
from .access import ShapeError, field_of, has
from .detect import reply_format
from .wire import WireFormat

__all__ = [
    "read_tool_calls",
    "tool_calls_from_anthropic",
    "tool_calls_from_openai_chat",
    "tool_calls_from_openai_responses",
    "tool_results_for_anthropic",
    "tool_results_for_openai_chat",
    "tool_results_for_openai_responses",
]


def read_tool_calls(response: Any) -> list[ToolCall]:
    """The tool calls in a reply from any of the supported APIs, recognised by shape.

    Args:
        response: An OpenAI Responses ``Response`` (has ``output``), a Chat Completions
            ``ChatCompletion`` / choice / message (has ``choices``, ``message`` or
            ``tool_calls``), an Anthropic ``Message`` (has ``content``), a Gemini
            ``GenerateContentResponse`` (has ``candidates``), or the list of output items
            / tool calls / content blocks / parts; SDK objects or dicts.

    Returns:
        The calls in order; an empty list when the reply calls no tool.

    Raises:
        TypeError: ``response`` has none of these shapes, or a part of it has the wrong
            type; the message names the part. It is also a ``DescribedTypesError``.

    .. versionadded:: 0.1.0
    """
    fmt: WireFormat | None
    if isinstance(response, list):
        fmt = _list_format(response)
    else:
        fmt = reply_format(response) or _part_format(response)
    if fmt is None:
        msg = (
            f"cannot find tool calls in {type(response).__name__}; pass an OpenAI Responses "
            "reply, a Chat Completions reply, an Anthropic Messages reply or a Gemini "
            "response (SDK object or dict)"
        )
        raise ShapeError(msg)
    return fmt.tool_calls(response)


def _list_format(items: list[Any]) -> WireFormat:
    """The format of a bare list: Chat tool calls, Anthropic blocks, Gemini parts, or
    Responses output items."""
    # A list, not a set: a "type" may be any JSON value, unhashable ones included.
    kinds = [field_of(item, "type") for item in items]
    if any(has(item, "function") for item in items):
        return openai_chat.FORMAT
    if "tool_use" in kinds or any(has(item, "input") for item in items):
        return anthropic.FORMAT
    if any(has(item, "function_call") or has(item, "functionCall") for item in items):
        return gemini.FORMAT
    return openai_responses.FORMAT


def _part_format(response: Any) -> WireFormat | None:
    """The format of a part of a reply: a Chat choice or message, an Anthropic content
    holder, a Responses output holder."""
    if has(response, "output"):
        return openai_responses.FORMAT
    if has(response, "message") or has(response, "tool_calls"):
        return openai_chat.FORMAT
    if has(response, "content") and not isinstance(field_of(response, "content"), str):
        return anthropic.FORMAT
    return None


# -- one format each (thin aliases) ------------------------------------------------------------


def tool_calls_from_openai_responses(response: Any) -> list[ToolCall]:
    """The function calls in an OpenAI Responses API reply.

    Args:
        response: A ``Response`` (SDK object or dict), or its ``output`` list. Items other
            than ``function_call`` (messages, reasoning, built-in tools) are skipped.

    Returns:
        One ``ToolCall`` per ``function_call`` item, in order; ``call_id`` is the item's
        ``call_id``, ``arguments`` its JSON text.

    Raises:
        TypeError: ``response`` is not such a reply, or a part of it has the wrong type (a
            list that is not a list, a tool name that is not a str); the message names
            the part. It is also a ``DescribedTypesError``.

    .. versionadded:: 0.1.0
    """
    return openai_responses.FORMAT.tool_calls(response)


def tool_calls_from_openai_chat(completion: Any) -> list[ToolCall]:
    """The tool calls in an OpenAI Chat Completions reply.

    Args:
        completion: A ``ChatCompletion`` (its first choice is read), a choice, an
            assistant message, or a message's ``tool_calls`` list; SDK objects or dicts.
            Tool calls other than ``function`` ones (custom tools) are skipped.

    Returns:
        One ``ToolCall`` per function tool call, in order; ``call_id`` is the call's
        ``id``, ``arguments`` its JSON text.

    Raises:
        TypeError: ``completion`` is not such a reply, or a part of it has the wrong type (a
            list that is not a list, a tool name that is not a str); the message names
            the part. It is also a ``DescribedTypesError``.

    .. versionadded:: 0.1.0
    """
    return openai_chat.FORMAT.tool_calls(completion)


def tool_calls_from_anthropic(message: Any) -> list[ToolCall]:
    """The tool calls in an Anthropic Messages API reply.

    Args:
        message: A ``Message`` (SDK object or dict), or its ``content`` list. Blocks other
            than ``tool_use`` (text, thinking, server tools) are skipped.

    Returns:
        One ``ToolCall`` per ``tool_use`` block, in order; ``call_id`` is the block's
        ``id``, ``arguments`` its parsed ``input``.

    Raises:
        TypeError: ``message`` is not such a reply, or a part of it has the wrong type (a
            list that is not a list, a tool name that is not a str); the message names
            the part. It is also a ``DescribedTypesError``.

    .. versionadded:: 0.1.0
    """
    return anthropic.FORMAT.tool_calls(message)


def tool_results_for_openai_responses(
    results: ToolResult | Iterable[ToolResult],
) -> list[dict[str, Any]]:
    """``function_call_output`` items to append to the next Responses API ``input``.

    ``is_error`` has no field of its own there; the content says what went wrong.

    Raises:
        TypeError: ``results`` are not ``ToolResult`` objects (also a ``DescribedTypesError``).
        ValueError: A result has no ``call_id``.

    .. versionadded:: 0.1.0
    """
    return openai_responses.FORMAT.result_messages(results)


def tool_results_for_openai_chat(
    results: ToolResult | Iterable[ToolResult],
) -> list[dict[str, Any]]:
    """``{"role": "tool"}`` messages to append to the next Chat Completions ``messages``.

    Raises:
        TypeError: ``results`` are not ``ToolResult`` objects (also a ``DescribedTypesError``).
        ValueError: A result has no ``call_id``.

    .. versionadded:: 0.1.0
    """
    return openai_chat.FORMAT.result_messages(results)


def tool_results_for_anthropic(results: ToolResult | Iterable[ToolResult]) -> dict[str, Any]:
    """The ``user`` message of ``tool_result`` blocks answering an Anthropic ``tool_use`` turn.

    All results of one turn belong in this one message, in the order of the calls; each
    block carries ``is_error``.

    Raises:
        TypeError: ``results`` are not ``ToolResult`` objects (also a ``DescribedTypesError``).
        ValueError: A result has no ``call_id``.

    .. versionadded:: 0.1.0
    """
    return anthropic.FORMAT.result_message(results)

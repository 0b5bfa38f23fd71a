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
=====================  ======================================  ==================================
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .._base.records import ToolCall, ToolResult
from .._codec.problems import brief
from ..errors import DescribedTypesError

__all__ = [
    "read_tool_calls",
    "tool_calls_from_anthropic",
    "tool_calls_from_openai_chat",
    "tool_calls_from_openai_responses",
    "tool_results_for_anthropic",
    "tool_results_for_openai_chat",
    "tool_results_for_openai_responses",
]

_MISSING = object()


class ShapeError(DescribedTypesError, TypeError):
    """Strictly private: a reply (or a part of one) is not in a shape these readers know.

    A ``TypeError``, as the readers document, and a ``DescribedTypesError``, as every
    error *describedtypes* raises on purpose is.
    """


def _get(obj: Any, key: str, default: Any = None) -> Any:
    if isinstance(obj, Mapping):
        return obj.get(key, default)
    return getattr(obj, key, default)


def _has(obj: Any, key: str) -> bool:
    return _get(obj, key, _MISSING) is not _MISSING


def _items(value: Any, what: str, where: str) -> list[Any]:
    if value is None:
        return []
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Iterable):
        msg = f"{where}: expected a list of {what}, got {type(value).__name__}"
        raise ShapeError(msg)
    return list(value)


def _text(value: Any, what: str, where: str) -> str:
    if not isinstance(value, str):
        msg = f"{where}: the {what} must be a str, got {brief(value)}"
        raise ShapeError(msg)
    return value


# -- reading calls ----------------------------------------------------------------------------


def _flat_calls(
    items: Any, what: str, where: str, kind: str, arguments: str, call_id: str
) -> list[ToolCall]:
    """The calls among items that carry name, arguments and id themselves (Responses,
    Anthropic), keeping those whose ``type`` is ``kind``."""
    calls = []
    for i, item in enumerate(_items(items, what, where)):
        if _get(item, "type") != kind:
            continue
        name = _text(_get(item, "name"), f"{kind} name", f"{where}[{i}].name")
        calls.append(ToolCall(name, _get(item, arguments), _get(item, call_id)))
    return calls


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
    output = _get(response, "output", _MISSING) if not isinstance(response, list) else response
    if output is _MISSING:
        msg = (
            f"expected an OpenAI Responses reply (with an 'output' list), got "
            f"{type(response).__name__}"
        )
        raise ShapeError(msg)
    return _flat_calls(
        output, "Responses output items", "output", "function_call", "arguments", "call_id"
    )


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
    where = "tool_calls"
    if isinstance(completion, list):
        tool_calls: Any = completion
    else:
        message = completion
        choices = _get(completion, "choices", _MISSING)
        if choices is not _MISSING:
            listed = _items(choices, "choices", "choices")
            if not listed:
                return []
            message = _get(listed[0], "message")
            where = "choices[0].message.tool_calls"
        elif _has(completion, "message"):
            message = _get(completion, "message")
            where = "message.tool_calls"
        if not _has(message, "tool_calls") and not _has(message, "role"):
            msg = (
                "expected an OpenAI Chat Completions reply (a completion, a choice or an "
                f"assistant message), got {type(completion).__name__}"
            )
            raise ShapeError(msg)
        tool_calls = _get(message, "tool_calls")
    calls = []
    for i, item in enumerate(_items(tool_calls, "tool calls", where)):
        kind = _get(item, "type", "function")
        function = _get(item, "function")
        if kind != "function" or function is None:
            continue
        calls.append(
            ToolCall(
                _text(
                    _get(function, "name"), "tool call's function name",
                    f"{where}[{i}].function.name",
                ),
                _get(function, "arguments"),
                _get(item, "id"),
            )
        )
    return calls


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
    content = _get(message, "content", _MISSING) if not isinstance(message, list) else message
    if content is _MISSING or isinstance(content, str):
        msg = (
            "expected an Anthropic Messages reply (with a 'content' list of blocks), got "
            f"{type(message).__name__}"
        )
        raise ShapeError(msg)
    return _flat_calls(content, "content blocks", "content", "tool_use", "input", "id")


def read_tool_calls(response: Any) -> list[ToolCall]:
    """The tool calls in a reply from any of the supported APIs, recognised by shape.

    Args:
        response: An OpenAI Responses ``Response`` (has ``output``), a Chat Completions
            ``ChatCompletion`` / choice / message (has ``choices``, ``message`` or
            ``tool_calls``), an Anthropic ``Message`` (has ``content``), or the list of
            output items / tool calls / content blocks; SDK objects or dicts.

    Returns:
        The calls in order; an empty list when the reply calls no tool.

    Raises:
        TypeError: ``response`` has none of these shapes, or a part of it has the wrong
            type; the message names the part. It is also a ``DescribedTypesError``.

    .. versionadded:: 0.1.0
    """
    if isinstance(response, list):
        # A list, not a set: a "type" may be any JSON value, unhashable ones included.
        kinds = [_get(item, "type") for item in response]
        if any(_has(item, "function") for item in response):
            return tool_calls_from_openai_chat(response)
        if "tool_use" in kinds or _has_key_in_any(response, "input"):
            return tool_calls_from_anthropic(response)
        return tool_calls_from_openai_responses(response)
    if _has(response, "output"):
        return tool_calls_from_openai_responses(response)
    if _has(response, "choices") or _has(response, "message") or _has(response, "tool_calls"):
        return tool_calls_from_openai_chat(response)
    if _has(response, "content") and not isinstance(_get(response, "content"), str):
        return tool_calls_from_anthropic(response)
    msg = (
        f"cannot find tool calls in {type(response).__name__}; pass an OpenAI Responses "
        "reply, a Chat Completions reply or an Anthropic Messages reply (SDK object or dict)"
    )
    raise ShapeError(msg)


def _has_key_in_any(items: list[Any], key: str) -> bool:
    return any(_has(item, key) for item in items)


# -- writing results --------------------------------------------------------------------------


def _results(results: Any) -> list[ToolResult]:
    if isinstance(results, (str, bytes, Mapping)) or not (
        isinstance(results, (ToolResult, Iterable))
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
        if r.call_id is None:
            msg = (
                f"the result of {r.name!r} has no call_id, so the provider cannot match it to "
                "its call; pass call_id= to Toolbox.call (read_tool_calls keeps it)"
            )
            raise ValueError(msg)
    return listed


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
    return [
        {"type": "function_call_output", "call_id": r.call_id, "output": r.content}
        for r in _results(results)
    ]


def tool_results_for_openai_chat(
    results: ToolResult | Iterable[ToolResult],
) -> list[dict[str, Any]]:
    """``{"role": "tool"}`` messages to append to the next Chat Completions ``messages``.

    Raises:
        TypeError: ``results`` are not ``ToolResult`` objects (also a ``DescribedTypesError``).
        ValueError: A result has no ``call_id``.

    .. versionadded:: 0.1.0
    """
    return [
        {"role": "tool", "tool_call_id": r.call_id, "content": r.content}
        for r in _results(results)
    ]


def tool_results_for_anthropic(results: ToolResult | Iterable[ToolResult]) -> dict[str, Any]:
    """The ``user`` message of ``tool_result`` blocks answering an Anthropic ``tool_use`` turn.

    All results of one turn belong in this one message, in the order of the calls; each
    block carries ``is_error``.

    Raises:
        TypeError: ``results`` are not ``ToolResult`` objects (also a ``DescribedTypesError``).
        ValueError: A result has no ``call_id``.

    .. versionadded:: 0.1.0
    """
    return {
        "role": "user",
        "content": [
            {
                "type": "tool_result",
                "tool_use_id": r.call_id,
                "content": r.content,
                "is_error": r.is_error,
            }
            for r in _results(results)
        ],
    }

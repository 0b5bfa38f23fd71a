"""The request objects the providers wrap a schema body in, one function each.

An adapter's ``wrap`` is one of these (or a function of the same shape): it places the
name, the description, the ``strict`` flag and the body where the provider's API reads
them. Each function below is written as the object it returns, in the provider's key
order; ``describedtypes.adapters`` re-exports them (its ``__all__`` lists them).
"""

from __future__ import annotations

import re
from typing import Any, Protocol

import orjson

Body = dict[str, Any]


class Wrapper(Protocol):
    """Builds the provider's request object around a schema body."""

    def __call__(self, name: str, description: str | None, body: Body, strict: bool) -> Body:
        """Return the wrapped object; ``description`` None means leave the key out."""
        ...


def _described(description: str | None) -> Body:
    """The ``description`` entry, or nothing: every wrapper leaves the key out for None."""
    return {} if description is None else {"description": description}


def bare_body(name: str, description: str | None, body: Body, strict: bool) -> Body:
    """The body alone (plain JSON Schema)."""
    return body


def openai_response_format(
    name: str, description: str | None, body: Body, strict: bool
) -> Body:
    """The ``json_schema`` object of a Chat Completions ``response_format``."""
    return {"name": name, **_described(description), "strict": strict, "schema": body}


def openai_responses_tool(name: str, description: str | None, body: Body, strict: bool) -> Body:
    """A Responses API function tool (flat)."""
    return {"type": "function", "name": name, **_described(description), "strict": strict,
            "parameters": body}


def openai_chat_tool(name: str, description: str | None, body: Body, strict: bool) -> Body:
    """A Chat Completions tool: the function nested under ``"function"``."""
    return {"type": "function", "function": {
        "name": name, **_described(description), "strict": strict, "parameters": body,
    }}


def chat_tool_without_strict(
    name: str, description: str | None, body: Body, strict: bool
) -> Body:
    """A Chat Completions tool with no ``strict`` flag (servers that have none).

    .. versionadded:: 0.3.0
    """
    tool = openai_chat_tool(name, description, body, strict)
    del tool["function"]["strict"]
    return tool


def anthropic_tool(name: str, description: str | None, body: Body, strict: bool) -> Body:
    """A Messages API tool."""
    return {"name": name, **_described(description), "strict": strict, "input_schema": body}


def anthropic_output_format(
    name: str, description: str | None, body: Body, strict: bool
) -> Body:
    """The ``output_config.format`` object; it has no name or description field."""
    return {"type": "json_schema", "schema": body}


def bedrock_output_format(
    name: str, description: str | None, body: Body, strict: bool
) -> Body:
    """The Bedrock Converse ``outputConfig.textFormat`` object: the JSON Schema goes in as a
    JSON **string** (``structure.jsonSchema.schema``).

    .. versionadded:: 0.4.0
    """
    return {"type": "json_schema", "structure": {"jsonSchema": {
        "schema": orjson.dumps(body).decode(), "name": name, **_described(description),
    }}}


def bedrock_tool(name: str, description: str | None, body: Body, strict: bool) -> Body:
    """A Bedrock Converse tool: ``{"toolSpec": {"name", "description", "inputSchema":
    {"json": body}, "strict"}}``.

    .. versionadded:: 0.4.0
    """
    return {"toolSpec": {"name": name, **_described(description),
                         "inputSchema": {"json": body}, "strict": strict}}


def gemini_function(name: str, description: str | None, body: Body, strict: bool) -> Body:
    """A function declaration on Gemini's JSON Schema path."""
    return {"name": name, **_described(description), "parameters_json_schema": body}


def mcp_tool(name: str, description: str | None, body: Body, strict: bool) -> Body:
    """An MCP tool definition.

    ``title`` is the human display name MCP clients show: the name spelled as words
    (``get_weather`` and ``GetWeather`` become ``Get weather``).
    """
    return {"name": name, "title": display_title(name), **_described(description),
            "inputSchema": body}


def display_title(name: str) -> str:
    """``name`` as words for people: ``get_weather`` -> ``Get weather``."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|[_\-.]+", " ", name)
    words = spaced.split()
    if not words:
        return name
    text = " ".join(w if w.isupper() and len(w) > 1 else w.lower() for w in words)
    return text[:1].upper() + text[1:]

"""Describe plain Python types and functions to large language models."""

from __future__ import annotations

from typing import Any

from ._annotate import Annotation, Registry, annotate
from ._batch import BatchResult, decode_batch
from ._context import Context
from ._converter import make_converter, register_hooks
from ._decode import decode
from ._document import Problem
from ._encode import encode
from ._extract import aextract, extract
from ._glue import (
    read_tool_calls,
    tool_calls_from_anthropic,
    tool_calls_from_openai_chat,
    tool_calls_from_openai_responses,
    tool_results_for_anthropic,
    tool_results_for_openai_chat,
    tool_results_for_openai_responses,
)
from ._graph import graph
from ._partial import Partial
from ._response import decode_response
from ._schema import FrozenDict, FrozenList, Rewrite, explain, schema, schema_json
from ._stream import adecode_stream, decode_stream
from ._tools import ParseArgs, Tool, Toolbox, ToolCall, ToolResult
from .adapters import (
    ANTHROPIC,
    ANTHROPIC_TOOLS,
    GEMINI,
    MCP_TOOLS,
    OPENAI,
    OPENAI_CHAT_TOOLS,
    OPENAI_TOOLS,
    STANDARD,
    Adapter,
    check,
    check_request,
)
from .errors import (
    ArgumentError,
    DecodeError,
    DescribedTypesError,
    IncompleteReplyError,
    MalformedLineError,
    MaxTurnsError,
    RefusalError,
    RequestError,
    SchemaError,
)

__all__ = [
    "ANTHROPIC",
    "ANTHROPIC_TOOLS",
    "Adapter",
    "Annotation",
    "ArgumentError",
    "BatchResult",
    "Context",
    "DecodeError",
    "DescribedTypesError",
    "FrozenDict",
    "FrozenList",
    "GEMINI",
    "IncompleteReplyError",
    "MCP_TOOLS",
    "MalformedLineError",
    "MaxTurnsError",
    "OPENAI",
    "OPENAI_CHAT_TOOLS",
    "OPENAI_TOOLS",
    "ParseArgs",
    "Partial",
    "Problem",
    "RefusalError",
    "Registry",
    "RequestError",
    "Rewrite",
    "STANDARD",
    "SchemaError",
    "Tool",
    "ToolCall",
    "ToolResult",
    "Toolbox",
    "adecode_stream",
    "aextract",
    "annotate",
    "check",
    "check_request",
    "decode",
    "decode_batch",
    "decode_response",
    "decode_stream",
    "encode",
    "explain",
    "extract",
    "graph",
    "make_converter",
    "read_tool_calls",
    "register_hooks",
    "schema",
    "schema_json",
    "tool_calls_from_anthropic",
    "tool_calls_from_openai_chat",
    "tool_calls_from_openai_responses",
    "tool_results_for_anthropic",
    "tool_results_for_openai_chat",
    "tool_results_for_openai_responses",
]


def __getattr__(name: str) -> Any:
    if name == "__version__":
        from importlib.metadata import version

        return version("describedtypes")
    msg = f"module 'describedtypes' has no attribute {name!r}"
    raise AttributeError(msg)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__) | {"__version__"})

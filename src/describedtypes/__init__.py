"""Describe plain Python types and functions to large language models."""

from __future__ import annotations

from typing import Any, get_type_hints

from ._ask.extract import aextract, extract
from ._base.records import ToolCall, ToolResult
from ._batch.lines import BatchResult, decode_batch
from ._batch.requests import BatchRequests, write_batch
from ._batch.summary import BatchSummary
from ._codec.converter import make_converter, register_hooks
from ._codec.decode import decode, decode_arguments
from ._codec.encode import encode
from ._codec.partial import Partial
from ._schema.adapters import (
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
from ._schema.document import Problem
from ._schema.graph import Diagram, graph
from ._schema.schema import FrozenDict, FrozenList, Rewrite, explain, schema, schema_json
from ._tools.tool import ParseArgs, Tool
from ._tools.toolbox import Toolbox
from ._types.annotate import Annotation, Registry, annotate
from ._types.context import Context
from ._vendors.replies import decode_response
from ._vendors.stream import adecode_stream, decode_stream
from ._vendors.toolcalls import (
    read_tool_calls,
    tool_calls_from_anthropic,
    tool_calls_from_openai_chat,
    tool_calls_from_openai_responses,
    tool_results_for_anthropic,
    tool_results_for_openai_chat,
    tool_results_for_openai_responses,
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
    "BatchRequests",
    "BatchResult",
    "BatchSummary",
    "Context",
    "DecodeError",
    "DescribedTypesError",
    "Diagram",
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
    "decode_arguments",
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
    "write_batch",
]




def _own(names: list[str]) -> None:
    """Show the public classes and functions as ``describedtypes.X`` (in reprs, tracebacks
    and the docs), not under the private module that defines them; pickling finds them
    here under the same name."""
    for name in names:
        obj = globals()[name]
        own = isinstance(obj, type) or (callable(obj) and hasattr(obj, "__code__"))
        if not own or not obj.__module__.startswith("describedtypes._"):
            continue
        if isinstance(obj, type):
            # typing.get_type_hints() evaluates a class's string annotations in the module
            # __module__ names: evaluate them first, where they were written.
            obj.__annotations__ = get_type_hints(obj)
        obj.__module__ = "describedtypes"


_own(__all__)
del _own


def __getattr__(name: str) -> Any:
    if name == "__version__":
        from importlib.metadata import version

        return version("describedtypes")
    msg = f"module 'describedtypes' has no attribute {name!r}"
    raise AttributeError(msg)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__) | {"__version__"})

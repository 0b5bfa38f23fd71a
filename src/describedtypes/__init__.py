"""Describe plain Python types and functions to large language models."""

from __future__ import annotations

from typing import Any, get_type_hints

from ._ask.extract import aextract, extract
from ._ask.results import Attempt, Extraction, ToolRun, Turn
from ._ask.stream import AsyncExtractStream, ExtractStream, aextract_stream, extract_stream
from ._base.records import ToolCall, ToolResult
from ._base.usage import Usage
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
    BEDROCK,
    BEDROCK_TOOLS,
    GEMINI,
    LLAMACPP,
    LLAMACPP_TOOLS,
    MCP_ELICITATION,
    MCP_TOOLS,
    OLLAMA,
    OLLAMA_TOOLS,
    OPENAI,
    OPENAI_CHAT_TOOLS,
    OPENAI_TOOLS,
    SGLANG,
    SGLANG_TOOLS,
    STANDARD,
    VLLM,
    VLLM_TOOLS,
    Adapter,
    check,
    check_request,
)
from ._schema.graph import Diagram, graph
from ._schema.problem import Problem
from ._schema.profiles import Profile, Support
from ._schema.schema import FrozenDict, FrozenList, Rewrite, explain, schema, schema_json
from ._schema.tokens import count_tokens
from ._serve.mcp import mcp_server as _mcp_server
from ._tools.tool import ParseArgs, Tool
from ._tools.toolbox import Toolbox, install_mcp_server
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
    "AsyncExtractStream",
    "Attempt",
    "BEDROCK",
    "BEDROCK_TOOLS",
    "BatchRequests",
    "BatchResult",
    "BatchSummary",
    "Context",
    "DecodeError",
    "DescribedTypesError",
    "Diagram",
    "ExtractStream",
    "Extraction",
    "FrozenDict",
    "FrozenList",
    "GEMINI",
    "IncompleteReplyError",
    "LLAMACPP",
    "LLAMACPP_TOOLS",
    "MCP_ELICITATION",
    "MCP_TOOLS",
    "MalformedLineError",
    "MaxTurnsError",
    "OLLAMA",
    "OLLAMA_TOOLS",
    "OPENAI",
    "OPENAI_CHAT_TOOLS",
    "OPENAI_TOOLS",
    "ParseArgs",
    "Partial",
    "Problem",
    "Profile",
    "RefusalError",
    "Registry",
    "RequestError",
    "Rewrite",
    "SGLANG",
    "SGLANG_TOOLS",
    "STANDARD",
    "SchemaError",
    "Support",
    "Tool",
    "ToolCall",
    "ToolResult",
    "ToolRun",
    "Toolbox",
    "Turn",
    "Usage",
    "VLLM",
    "VLLM_TOOLS",
    "adecode_stream",
    "aextract",
    "aextract_stream",
    "annotate",
    "check",
    "check_request",
    "count_tokens",
    "decode",
    "decode_arguments",
    "decode_batch",
    "decode_response",
    "decode_stream",
    "encode",
    "explain",
    "extract",
    "extract_stream",
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



# Toolbox.mcp_server lives in _serve, a layer above _tools: the package root connects
# them (see install_mcp_server). _serve.mcp imports the mcp SDK only when a server is made.
install_mcp_server(_mcp_server)
del install_mcp_server, _mcp_server


def _own(names: list[str]) -> None:
    """Show the public classes and functions as ``describedtypes.X`` (in reprs, tracebacks
    and the docs), not under the private module that defines them; pickling finds them
    here under the same name."""
    import types

    for name in names:
        obj = globals()[name]
        # A type alias (ParseArgs = Callable[...]) is no class of ours, though Python 3.10
        # says isinstance(alias, type).
        if isinstance(obj, types.GenericAlias):
            continue
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

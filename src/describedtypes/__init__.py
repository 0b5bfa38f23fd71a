"""Describe plain Python types and functions to large language models."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

# Every public name is imported on first use (a module __getattr__ reading _WHERE), so
# that ``import describedtypes`` costs next to nothing and a program pays only for what it
# uses: schema() never loads the request, MCP, batch or CLI machinery. The imports below
# are for type checkers (mypy, pyright) and editors only; they name the same modules as
# _WHERE, which tests/test_public_api.py keeps in step.
if TYPE_CHECKING:
    from ._ask.counting import count_tokens
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
    from ._eval.evaluate import evaluate
    from ._eval.evaluation import Comparison, Evaluation, PathScore, Score, compare
    from ._eval.normalize import Normalize
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
    from ._tools.diff import DefinitionChange, diff_definitions
    from ._tools.requests import RequestPlan
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
    "AsyncExtractStream",
    "Attempt",
    "BEDROCK",
    "BEDROCK_TOOLS",
    "BatchRequests",
    "BatchResult",
    "BatchSummary",
    "Comparison",
    "Context",
    "DecodeError",
    "DefinitionChange",
    "DescribedTypesError",
    "Diagram",
    "Evaluation",
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
    "Normalize",
    "OLLAMA",
    "OLLAMA_TOOLS",
    "OPENAI",
    "OPENAI_CHAT_TOOLS",
    "OPENAI_TOOLS",
    "ParseArgs",
    "Partial",
    "PathScore",
    "Problem",
    "Profile",
    "RefusalError",
    "Registry",
    "RequestError",
    "RequestPlan",
    "Rewrite",
    "SGLANG",
    "SGLANG_TOOLS",
    "STANDARD",
    "SchemaError",
    "Score",
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
    "compare",
    "count_tokens",
    "decode",
    "decode_arguments",
    "decode_batch",
    "decode_response",
    "decode_stream",
    "diff_definitions",
    "encode",
    "evaluate",
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

#: Where each public name is defined: the private module imported when it is first read.
_WHERE: dict[str, str] = {
    "ANTHROPIC": "._schema.adapters",
    "ANTHROPIC_TOOLS": "._schema.adapters",
    "Adapter": "._schema.adapters",
    "Annotation": "._types.annotate",
    "ArgumentError": ".errors",
    "AsyncExtractStream": "._ask.stream",
    "Attempt": "._ask.results",
    "BEDROCK": "._schema.adapters",
    "BEDROCK_TOOLS": "._schema.adapters",
    "BatchRequests": "._batch.requests",
    "BatchResult": "._batch.lines",
    "BatchSummary": "._batch.summary",
    "Comparison": "._eval.evaluation",
    "Context": "._types.context",
    "DecodeError": ".errors",
    "DefinitionChange": "._tools.diff",
    "DescribedTypesError": ".errors",
    "Diagram": "._schema.graph",
    "Evaluation": "._eval.evaluation",
    "ExtractStream": "._ask.stream",
    "Extraction": "._ask.results",
    "FrozenDict": "._schema.schema",
    "FrozenList": "._schema.schema",
    "GEMINI": "._schema.adapters",
    "IncompleteReplyError": ".errors",
    "LLAMACPP": "._schema.adapters",
    "LLAMACPP_TOOLS": "._schema.adapters",
    "MCP_ELICITATION": "._schema.adapters",
    "MCP_TOOLS": "._schema.adapters",
    "MalformedLineError": ".errors",
    "MaxTurnsError": ".errors",
    "Normalize": "._eval.normalize",
    "OLLAMA": "._schema.adapters",
    "OLLAMA_TOOLS": "._schema.adapters",
    "OPENAI": "._schema.adapters",
    "OPENAI_CHAT_TOOLS": "._schema.adapters",
    "OPENAI_TOOLS": "._schema.adapters",
    "ParseArgs": "._tools.tool",
    "Partial": "._codec.partial",
    "PathScore": "._eval.evaluation",
    "Problem": "._schema.problem",
    "Profile": "._schema.profiles",
    "RefusalError": ".errors",
    "Registry": "._types.annotate",
    "RequestError": ".errors",
    "RequestPlan": "._tools.requests",
    "Rewrite": "._schema.schema",
    "SGLANG": "._schema.adapters",
    "SGLANG_TOOLS": "._schema.adapters",
    "STANDARD": "._schema.adapters",
    "SchemaError": ".errors",
    "Score": "._eval.evaluation",
    "Support": "._schema.profiles",
    "Tool": "._tools.tool",
    "ToolCall": "._base.records",
    "ToolResult": "._base.records",
    "ToolRun": "._ask.results",
    "Toolbox": "._tools.toolbox",
    "Turn": "._ask.results",
    "Usage": "._base.usage",
    "VLLM": "._schema.adapters",
    "VLLM_TOOLS": "._schema.adapters",
    "adecode_stream": "._vendors.stream",
    "aextract": "._ask.extract",
    "aextract_stream": "._ask.stream",
    "annotate": "._types.annotate",
    "check": "._schema.adapters",
    "check_request": "._schema.adapters",
    "compare": "._eval.evaluation",
    "count_tokens": "._ask.counting",
    "decode": "._codec.decode",
    "decode_arguments": "._codec.decode",
    "decode_batch": "._batch.lines",
    "decode_response": "._vendors.replies",
    "decode_stream": "._vendors.stream",
    "diff_definitions": "._tools.diff",
    "encode": "._codec.encode",
    "evaluate": "._eval.evaluate",
    "explain": "._schema.schema",
    "extract": "._ask.extract",
    "extract_stream": "._ask.stream",
    "graph": "._schema.graph",
    "make_converter": "._codec.converter",
    "read_tool_calls": "._vendors.toolcalls",
    "register_hooks": "._codec.converter",
    "schema": "._schema.schema",
    "schema_json": "._schema.schema",
    "tool_calls_from_anthropic": "._vendors.toolcalls",
    "tool_calls_from_openai_chat": "._vendors.toolcalls",
    "tool_calls_from_openai_responses": "._vendors.toolcalls",
    "tool_results_for_anthropic": "._vendors.toolcalls",
    "tool_results_for_openai_chat": "._vendors.toolcalls",
    "tool_results_for_openai_responses": "._vendors.toolcalls",
    "write_batch": "._batch.requests",
}


def _mcp_server(*args: Any, **kwargs: Any) -> Any:
    from ._serve.mcp import mcp_server

    return mcp_server(*args, **kwargs)


# Toolbox.mcp_server lives in _serve, a layer above _tools: the package root connects
# them without importing either (see _base.lazy.Provided). _serve.mcp imports the mcp SDK
# only when a server is made.
from ._base import lazy as _lazy  # noqa: E402  (after the definitions it is given)

_lazy.mcp_server.provide(_mcp_server)
del _lazy


def _own(obj: Any) -> None:
    """Show a public class or function as ``describedtypes.X`` (in reprs, tracebacks and
    the docs), not under the private module that defines it; pickling finds it here under
    the same name."""
    import types

    # A type alias (ParseArgs = Callable[...]) is no class of ours, though Python 3.10
    # says isinstance(alias, type).
    if isinstance(obj, types.GenericAlias):
        return
    own = isinstance(obj, type) or (callable(obj) and hasattr(obj, "__code__"))
    if not own or not obj.__module__.startswith("describedtypes._"):
        return
    if isinstance(obj, type):
        from typing import get_type_hints

        # typing.get_type_hints() evaluates a class's string annotations in the module
        # __module__ names: evaluate them first, where they were written.
        obj.__annotations__ = get_type_hints(obj)
    obj.__module__ = "describedtypes"


def _settle() -> None:
    """Bind every public name whose module is loaded by now, and show it as ours.

    Run after each first read of a name: the module it loaded may have loaded others
    holding public names (``extract`` brings ``Usage``), and those are shown under
    ``describedtypes`` from then on too, not only once they are read here.
    """
    here = globals()
    for name, where in _WHERE.items():
        if name in here:
            continue
        module = sys.modules.get(__name__ + where)
        if module is not None and name in vars(module):
            obj = vars(module)[name]
            _own(obj)
            here[name] = obj


def __getattr__(name: str) -> Any:
    where = _WHERE.get(name)
    if where is not None:
        from importlib import import_module

        obj = getattr(import_module(where, __name__), name)
        _own(obj)
        globals()[name] = obj
        _settle()
        return obj
    if name == "__version__":
        from importlib.metadata import version

        return version("describedtypes")
    msg = f"module 'describedtypes' has no attribute {name!r}"
    raise AttributeError(msg)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__) | {"__version__"})

"""A ``Toolbox`` as an MCP server, built on the official ``mcp`` SDK's low-level ``Server``.

``tools/list`` answers the toolbox's ``MCP_TOOLS`` definitions (objects closed, so a
client validating with ``inputSchema`` refuses what the decoder refuses) with an
``outputSchema`` built from each return annotation; ``tools/call`` runs the call through
``Toolbox.acall``, so strict decoding, timeouts, the error policy and the result budget
are the toolbox's own. The MCP specification's tools page
(https://modelcontextprotocol.io/specification/2025-11-25/server/tools) is followed
throughout: an unknown tool is a protocol error (``-32602``), a bad call or a failing
tool is a result with ``isError: true``, and ``structuredContent`` conforms to the
``outputSchema``.

The SDK is optional (the ``mcp`` extra) and is imported only when a server is built:
``import describedtypes`` never imports it.
"""

from __future__ import annotations

import copy
import inspect as _pyinspect
import logging
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from .._base.lazy import install_hint
from .._codec.encode import encode, json_value
from .._schema.adapters import MCP_TOOLS, STANDARD
from .._schema.schema import schema
from .._tools.toolbox import result_limit, run_off_loop
from .._types.annotate import current_stamp
from ..errors import SchemaError

if TYPE_CHECKING:
    from mcp.server import Server, ServerRequestContext

    from .._tools.tool import Tool
    from .._tools.toolbox import Toolbox

__all__ = ["ContextFactory", "load_sdk", "mcp_server", "output_schema"]

logger = logging.getLogger("describedtypes.mcp")

ContextFactory = Callable[[Any], Any]
"""``context(request_context) -> value`` (or an awaitable of it): what the ``Context``
parameters of a tool receive for one ``tools/call``; ``request_context`` is the SDK's
``mcp.server.ServerRequestContext``."""

#: The smallest SDK with the API used here (``Server(on_list_tools=..., ...)``).
SDK_REQUIREMENT = "mcp>=2.3"
_INSTALL = install_hint(SDK_REQUIREMENT, "mcp")

#: ``ttlMs`` of a ``tools/list`` result (2026-07-28): 0, stale at once, since a toolbox can
#: change while it is served (a client asks again rather than keep an old listing).
LIST_TTL_MS = 0


def load_sdk() -> Any:
    """The ``mcp.server`` module, or an error that names the extra to install."""
    try:
        import mcp.server
        from mcp.server import ServerRequestContext  # noqa: F401  (new in mcp 2)
    except ModuleNotFoundError as exc:
        if exc.name is None or exc.name.split(".")[0] not in ("mcp", "mcp_types"):
            raise
        msg = (
            f"serving a Toolbox over MCP needs the MCP SDK ({SDK_REQUIREMENT}), which is not "
            f"installed; install the extra: {_INSTALL}"
        )
        raise ModuleNotFoundError(msg, name="mcp") from None
    except ImportError as exc:  # an mcp 1.x: no ServerRequestContext, no constructor handlers
        from importlib.metadata import version

        msg = (
            f"serving a Toolbox over MCP needs {SDK_REQUIREMENT}, found mcp "
            f"{version('mcp')} ({exc}); upgrade it: {_INSTALL}"
        )
        raise ImportError(msg, name="mcp") from None
    return mcp.server


# -- tools/list ----------------------------------------------------------------------


def output_schema(tool: Tool) -> tuple[dict[str, Any] | None, bool]:
    """``(outputSchema, wrapped)`` for ``tool``: None when its return is not described.

    An object root (a class, ``dict[str, T]``) is sent as it is; anything else (a
    scalar, a list, a union, ``None``, ``Any``) is wrapped as ``{"result": ...}``, the
    rule of the SDK's own ``MCPServer`` (``mcp/server/mcpserver/utilities/
    func_metadata.py``): MCP through 2025-11-25 wants an object at the root, and a
    handshake-era client is refused a listing that has another one.
    """
    hint = tool.return_type
    if hint is _pyinspect.Signature.empty:
        return None, False
    if hint is str:
        # Text is the answer itself: the text block carries it, cut to the result
        # budget as every Toolbox result is; {"result": "..."} would only repeat it,
        # and could never be cut.
        return None, False
    try:
        body: dict[str, Any] = copy.deepcopy(dict(schema(hint, STANDARD, registry=tool.registry)))
    except SchemaError as exc:
        logger.info("tool %s: no outputSchema, its return type is not described (%s)",
                    tool.name, exc)
        return None, False
    if body.get("type") == "object":
        return body, False
    defs = body.pop("$defs", None)
    wrapped: dict[str, Any] = {
        "type": "object",
        "properties": {"result": _rebase(body, "/properties/result")},
        "required": ["result"],
    }
    if defs is not None:
        # The definitions stay at the root; what pointed at the old root ("#",
        # "#/items", ...) now points at the result.
        wrapped["$defs"] = _rebase(defs, "/properties/result")
    return wrapped, True


def _rebase(node: Any, prefix: str) -> Any:
    """``node`` with its root-relative ``$ref``s (other than ``#/$defs/...``) under ``prefix``."""
    if isinstance(node, Mapping):
        out: dict[str, Any] = {}
        for key, value in node.items():
            if (key == "$ref" and isinstance(value, str) and value.startswith("#")
                    and not value.startswith("#/$defs/")):
                value = "#" + prefix + value[1:]
            out[key] = _rebase(value, prefix)
        return out
    if isinstance(node, list):
        return [_rebase(v, prefix) for v in node]
    return node


class _Output:
    """A tool's output facts: its schema, whether it is wrapped, and its validator."""

    __slots__ = ("schema", "validator", "wrapped")

    def __init__(self, tool: Tool) -> None:
        self.schema, self.wrapped = output_schema(tool)
        self.validator: Any = None
        if self.schema is not None:
            # The validator the SDK's ClientSession checks structuredContent with
            # (jsonschema's, chosen by $schema: 2020-12 when absent); the mcp SDK
            # depends on jsonschema.
            from jsonschema.validators import validator_for

            self.validator = validator_for(self.schema)(self.schema)

    def structured(self, tool_name: str, value: Any, limit: int | None) -> tuple[Any, str | None]:
        """``(structuredContent, None)`` for ``value``, or ``(None, why not)`` for the model.

        Runs on a worker thread. A value over ``limit`` characters of JSON is refused
        whole (a cut object would break its own schema); one outside ``outputSchema`` is
        refused naming the path.
        """
        try:
            structured: Any = json_value(value)
            if self.wrapped:
                structured = {"result": structured}
            size = len(encode(structured))  # bytes: never fewer than characters
        except (TypeError, ValueError, RecursionError) as exc:
            logger.error("tool %s: its value could not be encoded: %s", tool_name, exc)
            return None, (
                f"Tool {tool_name!r} failed: its result could not be encoded as JSON "
                f"({type(exc).__name__})."
            )
        if limit is not None and size > limit:
            size = len(encode(structured).decode())
            if size > limit:
                logger.warning(
                    "tool %s: its result has %d characters of JSON, over max_result_chars=%d; "
                    "sent as an error", tool_name, size, limit,
                )
                return None, (
                    f"Tool {tool_name!r} failed: its result has {size:,} characters of JSON, "
                    f"more than this server sends in one result (max_result_chars={limit:,}). "
                    "Ask for less: a narrower query or a smaller page."
                )
        error = next(iter(self.validator.iter_errors(structured)), None)
        if error is not None:
            # The client validates structuredContent against outputSchema
            # (ClientSession.call_tool) and raises on a mismatch: refuse it here, where
            # the message can still reach the model.
            # The path and the keyword only: the message quotes the value, which may
            # hold model text (that reaches the logs at DEBUG only).
            logger.error("tool %s returned a value outside its return type (%s at %s)",
                         tool_name, error.validator, error.json_path)
            logger.debug("tool %s: %s", tool_name, error.message)
            return None, (
                f"Tool {tool_name!r} failed: it returned a value that does not match its "
                f"declared return type (at {error.json_path}: {error.message[:200]})."
            )
        return structured, None


class _Listing:
    """The ``tools/list`` answer and each tool's output facts, rebuilt on a change.

    A change is a tool added or removed, or any annotation registered since (which may
    change a definition); the order is the toolbox's registration order, so it is the
    same on every ``tools/list`` (what prompt caching wants).
    """

    def __init__(self, toolbox: Toolbox, types: Any) -> None:
        self.toolbox = toolbox
        self.types = types
        self.key: tuple[Any, ...] | None = None
        self.tools: list[Any] = []
        self.outputs: dict[str, _Output] = {}

    def current(self) -> _Listing:
        tools = list(self.toolbox)
        key = (current_stamp(), *((t.name, id(t)) for t in tools))
        if key != self.key:
            definitions = self.toolbox.definitions(MCP_TOOLS)
            listed, outputs = [], {}
            for tool, definition in zip(tools, definitions, strict=True):
                output = outputs[tool.name] = _Output(tool)
                listed.append(self.types.Tool(
                    name=definition["name"],
                    title=definition.get("title"),
                    description=definition.get("description"),
                    input_schema=definition["inputSchema"],
                    output_schema=output.schema,
                ))
            self.tools, self.outputs, self.key = listed, outputs, key
        return self


# -- tools/call ----------------------------------------------------------------------


def package_version(module: str) -> str:
    """The version of the installed distribution ``module``'s top package comes from, or
    "" (a script, ``__main__``, a module that no distribution installed)."""
    from importlib.metadata import PackageNotFoundError, packages_distributions, version

    top = module.partition(".")[0]
    if not top or top == "__main__":
        return ""
    # The distribution named like the package first (an editable install may not list
    # its packages in the metadata packages_distributions reads).
    for dist in (top, *packages_distributions().get(top, ())):
        try:
            return version(dist)
        except PackageNotFoundError:
            continue
    return ""


def _tools_version(toolbox: Toolbox) -> str:
    """The version of the first tool's package that an installed distribution has."""
    for tool in toolbox:
        module = getattr(tool.func, "__module__", None)
        found = package_version(module) if isinstance(module, str) else ""
        if found:
            return found
    return ""


def mcp_server(
    toolbox: Toolbox,
    *,
    name: str,
    version: str = "",
    instructions: str | None = None,
    context: ContextFactory | None = None,
) -> Server[Any]:
    """An ``mcp.server.Server`` that lists and runs ``toolbox``'s tools.

    ``Toolbox.mcp_server`` calls this; see its docstring.
    """
    sdk = load_sdk()
    from mcp import types
    from mcp.shared.exceptions import MCPError

    given: Any = (name, version, context)  # checked at run time, whatever the annotations say
    if not isinstance(given[0], str) or not name:
        msg = f"name must be a non-empty str (the server's name for clients), got {name!r}"
        raise TypeError(msg)
    if not isinstance(given[1], str):
        msg = f"version must be a str such as '1.0', got {version!r}"
        raise TypeError(msg)
    if given[2] is not None and not callable(given[2]):
        msg = f"context must be a function request_context -> value, got {context!r}"
        raise TypeError(msg)
    listing = _Listing(toolbox, types)
    listing.current()  # a SchemaError now, not at the first tools/list
    if not version:
        version = _tools_version(toolbox)

    def text(content: str) -> list[Any]:
        return [types.TextContent(type="text", text=content)]

    def failed(content: str) -> Any:
        return types.CallToolResult(content=text(content), is_error=True)

    async def on_list_tools(ctx: ServerRequestContext[Any], params: Any) -> Any:
        try:
            tools = listing.current().tools
        except SchemaError as exc:  # an annotation registered since made a tool undescribable
            logger.error("tools/list failed: %s", exc)
            raise MCPError(code=types.INTERNAL_ERROR,
                           message=f"the server cannot describe its tools: {exc}") from None
        return types.ListToolsResult(tools=tools)

    async def on_call_tool(ctx: ServerRequestContext[Any], params: Any) -> Any:
        tool_name: str = params.name
        try:
            return await call(ctx, tool_name, params.arguments)
        except MCPError:
            raise
        except SystemExit:  # a tool's sys.exit() ends its call, not the server
            logger.exception("tool %s raised SystemExit", _logged(tool_name))
            return failed(
                f"Tool {tool_name[:200]!r} failed: SystemExit (a tool cannot stop the server)."
            )
        except Exception:
            logger.exception("tools/call of %s failed inside the server", _logged(tool_name))
            return failed(
                f"Tool {tool_name[:200]!r} failed: the server could not run it (its log says "
                "why)."
            )

    async def call(ctx: ServerRequestContext[Any], tool_name: str, arguments: Any) -> Any:
        call_id = None if ctx.request_id is None else str(ctx.request_id)
        try:
            tool = toolbox[tool_name]
        except KeyError:
            told = await toolbox.acall(tool_name, arguments, call_id=call_id)
            if told.is_error:
                # A protocol error, as the MCP tools page has it; the message is the
                # toolbox's own (with "Did you mean ...?" and the tools available).
                raise MCPError(
                    code=types.INVALID_PARAMS, message=told.content,
                    data={"available": toolbox.names},
                ) from None
            return types.CallToolResult(content=text(told.content))  # added meanwhile
        value: Any = None
        if tool.node.context_params:
            try:
                value = ctx if context is None else context(ctx)
                if _pyinspect.isawaitable(value):
                    value = await value
            except Exception:
                logger.exception("the context callback failed for tool %s", tool_name)
                return failed(
                    f"Tool {tool_name!r} could not be run: the server failed to prepare "
                    "its context."
                )
        result = await toolbox.acall(tool_name, arguments, context=value, call_id=call_id)
        if result.is_error:
            return failed(result.content)
        output = listing.current().outputs.get(tool_name)
        if output is None or output.schema is None:
            return types.CallToolResult(content=text(result.content))
        # Encoding, measuring and checking grow with the value: on the toolbox's worker
        # threads, so one large result never holds up the other calls.
        structured, problem = await run_off_loop(
            toolbox, output.structured, tool_name, result.value, result_limit(toolbox)
        )
        if problem is not None:
            return failed(problem)
        return types.CallToolResult(content=text(result.content), structured_content=structured)

    def _logged(tool_name: str) -> str:
        # A name the client sent is model text: it reaches the logs at DEBUG only.
        if tool_name in toolbox:
            return repr(tool_name)
        logger.debug("the unknown tool name: %.200r", tool_name)
        return "an unknown tool"

    from mcp.server.caching import CacheHint

    server: Server[Any] = sdk.Server(
        name, version=version, instructions=instructions,
        on_list_tools=on_list_tools, on_call_tool=on_call_tool,
        # 2026-07-28's cache fields (the SDK leaves them out for older versions): the
        # listing is the same for every caller ("public"), and stale at once (ttlMs 0)
        # since tools may be added to or removed from the toolbox while it is served.
        cache_hints={"tools/list": CacheHint(ttl_ms=LIST_TTL_MS, scope="public")},
    )
    return server

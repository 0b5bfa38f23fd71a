"""``Tool`` and ``Toolbox``: run a model's tool calls with typed arguments and helpful errors.
"""

from __future__ import annotations

import logging
import threading
import weakref
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Literal, TypeVar, overload

from .._ask.results import ToolRun
from .._base import lazy as _lazy
from .._base import tracing
from .._base.lazy import LazyModule as _LazyModule
from .._codec.problems import brief
from .._schema import adapters as _adapters
from .._schema.adapters import check_adapter
from .._schema.schema import references
from .._types.annotate import Registry, annotate, check_registry
from .._vendors.wire import described
from ..errors import SchemaError
from .eager import start_eagerly
from .limits import (
    DEFAULT_MAX_CALLS_PER_TURN,
    DEFAULT_MAX_RESULT_CHARS_PER_TURN,
    check_limit,
    fit,
    refused,
)
from .model_text import DEFAULT_MAX_RESULT_CHARS, ErrorDetail, check_error_detail
from .requests import (
    Chosen,
    Cost,
    RequestPlan,
    StrictPolicy,
    check_order,
    check_phases,
    check_policy,
    cost_of,
    fingerprint_of,
    output_adapter_for,
    plan_tools,
)
from .running import Settings, check_timeout, logger, off_loop
from .threads import DEFAULT_MAX_WORKERS

if TYPE_CHECKING:
    import asyncio

    from mcp.server import Server
else:  # imported when a tool first runs asynchronously: it is slow to import
    asyncio = _LazyModule("asyncio", globals())

from .._base.records import Arguments, ToolCall, ToolResult, failure
from .tool import (
    F,
    ParseArgs,
    Tool,
    did_you_mean,
    listing,
)

__all__ = ["Toolbox", "result_limit", "run_off_loop"]

T = TypeVar("T")

Phases = Literal["combined", "two-phase"]

_INFO = logging.INFO


class Toolbox:
    """Tools by name: their definitions for a provider, and the runner of the model's calls.

    Args:
        tools: Functions or ``Tool`` objects to register right away.
        error_detail: What the model is told of an exception raised inside a tool:
            ``"message"`` (the default: its type and message on one line, line breaks
            escaped, at most 500 characters), ``"full"`` (type and message as written,
            cut only at ``max_result_chars``), ``"type"`` (the type alone), ``"none"``
            (only that the tool failed), or a function ``exception -> str`` whose text is
            sent instead (to redact secrets, say). ``ToolResult.exception`` and
            ``.traceback`` always keep everything, for the application.
        timeout: Seconds any call may take unless its tool sets its own ``timeout``;
            None (the default) sets no limit. The time is counted from the call's start:
            a call waits for a free thread at most that long and a second more, and one
            that could not start is answered "not run", never "timed out". ``call`` and
            ``run`` return within the limit plus a second even when an async tool
            ignores its cancellation.
        max_result_chars: The most characters of a result the model is sent (100,000 by
            default; None for no limit). A longer result is cut, with a note saying so;
            ``ToolResult.value`` keeps the whole value.
        max_workers: How many threads the toolbox may start to run sync tools under
            ``acall``/``acall_many`` (and under ``call`` when there is a timeout):
            ``min(32, os.cpu_count() + 4)`` by default. Threads are started when first
            needed, exit after 30 idle seconds, and are stopped by ``close()`` or when the
            toolbox is garbage-collected. A thread whose call overran its timeout no
            longer counts: another may start in its place.
        max_calls_per_turn: The most calls of one turn (one reply of the model, one
            ``acall_many``) that are run: 32 by default; None for no limit. Each call past
            it is not run and gets an error result telling the model to make fewer calls
            at a time, so every call id still has its result.
        max_result_chars_per_turn: The most characters the results of one turn send the
            model together (400,000 by default; None for no limit). When they come to
            more, the longest are cut to an equal share, with a note saying so; shorter
            ones stay whole. The error results of calls past ``max_calls_per_turn`` and
            the notes count in it too.
        registry: Where the annotations of the functions added are looked up
            (``annotate`` by default); a ``Tool`` added as it is keeps its own.
        strict: Which tools are sent strict, for providers with per-request budgets on
            strict tools (Anthropic: 20 strict tools, 24 optional and 16 union-typed
            parameters, the output format included): ``"prefer"`` (the default) keeps
            every tool strict while the budgets allow, tools marked ``Tool(strict=True)``
            first, then the cheapest, and sends the rest non-strict (the output is the
            same as ``"require"`` whenever that fits); ``"require"`` sends every tool
            strict or raises a ``SchemaError`` naming the budget; ``"off"`` sends none
            strict. A tool's own ``strict=True | False`` overrides it.

    Nothing a tool does raises out of ``call``, ``acall`` or ``acall_many``, nor does a
    mistake in the model's call: an unknown tool, missing, unrecognized or wrongly typed
    arguments, an exception inside the tool (even one whose ``str()`` raises, or a
    ``CancelledError`` the tool raises itself) and a timeout each give a ``ToolResult``
    with ``is_error=True`` and a message the model can correct itself from.
    ``KeyboardInterrupt`` and ``SystemExit`` propagate, and cancelling the caller
    cancels its calls.

    .. versionadded:: 0.1.0
    .. versionchanged:: 0.2.0 ``error_detail``, ``timeout``, ``max_result_chars``,
       ``max_workers``, ``max_calls_per_turn``, ``max_result_chars_per_turn``,
       ``registry``, ``close()`` and ``running_calls``.
    .. versionchanged:: 0.4.0 ``strict``, ``plan()`` and ``fingerprint()``.
    """

    def __init__(
        self,
        tools: Iterable[Callable[..., Any] | Tool] = (),
        *,
        error_detail: ErrorDetail = "message",
        timeout: float | None = None,
        max_result_chars: int | None = DEFAULT_MAX_RESULT_CHARS,
        max_workers: int = DEFAULT_MAX_WORKERS,
        max_calls_per_turn: int | None = DEFAULT_MAX_CALLS_PER_TURN,
        max_result_chars_per_turn: int | None = DEFAULT_MAX_RESULT_CHARS_PER_TURN,
        registry: Registry = annotate,
        strict: StrictPolicy = "prefer",
    ) -> None:
        check_registry(registry)
        self._registry = registry
        self.strict: str = check_policy(strict, "Toolbox()")
        if max_result_chars is not None and (
            isinstance(max_result_chars, bool) or not isinstance(max_result_chars, int)
            or max_result_chars < 1
        ):
            msg = f"max_result_chars must be a positive int or None, got {max_result_chars!r}"
            raise ValueError(msg)
        if isinstance(max_workers, bool) or not isinstance(max_workers, int) or max_workers < 1:
            msg = f"max_workers must be a positive int, got {max_workers!r}"
            raise ValueError(msg)
        self._rt = Settings(
            check_error_detail(error_detail), check_timeout(timeout), max_result_chars,
            max_workers,
        )
        self._max_calls = check_limit("max_calls_per_turn", max_calls_per_turn)
        self._max_turn_chars = check_limit("max_result_chars_per_turn", max_result_chars_per_turn)
        weakref.finalize(self, self._rt.close)
        self._tools: dict[str, Tool] = {}
        self._lock = threading.Lock()
        for item in tools:
            self.add(item)

    def __repr__(self) -> str:
        return f"Toolbox({list(self._tools)!r})"

    def __len__(self) -> int:
        return len(self._tools)

    def __iter__(self) -> Iterator[Tool]:
        return iter(list(self._tools.values()))

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __getitem__(self, name: str) -> Tool:
        return self._tools[name]

    def __enter__(self) -> Toolbox:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop the toolbox's idle threads; calls still running finish on their own.

        The toolbox stays usable: a later call that needs a thread starts one again.
        Dropping the last reference to a toolbox closes it too.
        """
        self._rt.close()

    @property
    def running_calls(self) -> list[ToolCall]:
        """Calls still running though their caller stopped waiting (a timeout, a cancelled
        ``acall_many``) and calls running on the toolbox's threads now.

        A sync function cannot be interrupted from outside: after a timeout or a
        cancellation its thread runs on until the function returns (after a timeout,
        no longer counted against ``max_workers``); an async tool that ignores its
        cancellation runs on too. Such calls are listed here, and logged as a warning on
        the ``describedtypes`` logger.
        """
        return list(self._rt.running.values())

    @property
    def names(self) -> list[str]:
        """The tool names, in registration order."""
        return list(self._tools)

    def add(
        self,
        func: Callable[..., Any] | Tool,
        *,
        name: str | None = None,
        description: str | None = None,
        parse_args: ParseArgs | None = None,
        concurrent: bool = True,
        timeout: float | None = None,
        blocking: bool = True,
        strict: bool | None = None,
        defer_loading: bool = False,
    ) -> Tool:
        """Register a function (or a ready ``Tool``) and return its ``Tool``.

        The keyword arguments are those of ``Tool``; they cannot be combined with a
        ``Tool`` object, which already has them.

        Raises:
            SchemaError: The function cannot be described, or a tool of that name is
                already registered.
        """
        if isinstance(func, Tool):
            if name is not None or description is not None or parse_args is not None or (
                not concurrent or timeout is not None or not blocking or strict is not None
                or defer_loading
            ):
                msg = (
                    f"{func!r} is already a Tool; set name=, description=, parse_args=, "
                    "concurrent=, timeout=, blocking=, strict= and defer_loading= when "
                    "making it, or pass its function instead"
                )
                raise SchemaError(msg, type_=func.func)
            tool = func
        else:
            tool = Tool(
                func,
                name=name,
                description=description,
                parse_args=parse_args,
                concurrent=concurrent,
                timeout=timeout,
                blocking=blocking,
                registry=self._registry,
                strict=strict,
                defer_loading=defer_loading,
            )
        with self._lock:
            if tool.name in self._tools:
                msg = (
                    f"a tool named {tool.name!r} is already registered "
                    f"({self._tools[tool.name].func!r}); register this one with another "
                    "name=..."
                )
                raise SchemaError(msg, path=tool.name, type_=tool.func)
            self._tools[tool.name] = tool
        return tool

    def remove(self, name: str) -> Tool:
        """Unregister the tool called ``name`` and return it.

        Raises:
            KeyError: No tool has that name.
        """
        with self._lock:
            return self._tools.pop(name)

    @overload
    def tool(self, func: F, /) -> F: ...

    @overload
    def tool(
        self,
        *,
        name: str | None = None,
        description: str | None = None,
        parse_args: ParseArgs | None = None,
        concurrent: bool = True,
        timeout: float | None = None,
        blocking: bool = True,
        strict: bool | None = None,
        defer_loading: bool = False,
    ) -> Callable[[F], F]: ...

    def tool(
        self,
        func: Callable[..., Any] | None = None,
        *,
        name: str | None = None,
        description: str | None = None,
        parse_args: ParseArgs | None = None,
        concurrent: bool = True,
        timeout: float | None = None,
        blocking: bool = True,
        strict: bool | None = None,
        defer_loading: bool = False,
    ) -> Any:
        """Decorator: register the function as a tool and return it unchanged.

        ``@toolbox.tool`` or ``@toolbox.tool(name=..., description=..., parse_args=...,
        concurrent=False, timeout=..., blocking=False, strict=True)``.
        """
        options: dict[str, Any] = {
            "name": name,
            "description": description,
            "parse_args": parse_args,
            "concurrent": concurrent,
            "timeout": timeout,
            "blocking": blocking,
            "strict": strict,
            "defer_loading": defer_loading,
        }
        if func is not None:
            self.add(func, **options)
            return func

        def decorator(f: F) -> F:
            self.add(f, **options)
            return f

        return decorator

    def definitions(
        self,
        llm_adapter: _adapters.Adapter,
        *,
        use_references: bool | Literal["auto"] = False,
        strict: StrictPolicy | None = None,
        order: Literal["registration", "name"] = "registration",
    ) -> list[Any]:
        """Every tool's definition in ``llm_adapter``'s shape, as one request sends them.

        For example ``OPENAI_TOOLS`` (Responses API ``tools=``), ``OPENAI_CHAT_TOOLS``,
        ``ANTHROPIC_TOOLS``, ``GEMINI`` or ``MCP_TOOLS``. The same tools give the same
        bytes in every process (whatever ``PYTHONHASHSEED`` or the order annotations
        were registered in), so the provider's prompt cache keeps them.

        Args:
            llm_adapter: The provider's tool form.
            use_references: As for ``schema()``, per tool: ``False`` (the default)
                writes every nested class out where it is used, ``True`` puts every
                nested class under ``$defs``, ``"auto"`` picks per class whichever gives
                the smaller definition (each tool's is then ``schema(f, llm_adapter,
                use_references="auto")``).
            strict: The strict policy for this call (``"prefer"``, ``"require"`` or
                ``"off"``); None: the toolbox's.
            order: ``"registration"`` (the default) or ``"name"``.

        Raises:
            SchemaError: A tool cannot be described for that provider, or the tools
                break one of its per-request budgets under ``strict="require"`` (or
                the tools marked ``strict=True`` do alone).
            TypeError: ``use_references`` is not ``True``, ``False`` or ``"auto"``.
            ValueError: ``strict`` or ``order`` is not one of its values.

        .. versionchanged:: 0.3.0 ``use_references`` (new).
        .. versionchanged:: 0.4.0 ``strict`` and ``order``; over a budget, the default
           ``"prefer"`` sends the tools that do not fit non-strict instead of raising.
        """
        return self._chosen(llm_adapter, use_references, strict, order, None).definitions

    def _chosen(
        self, llm_adapter: Any, use_references: Any, strict: Any, order: Any,
        format_cost: Cost | None, where: str = "Toolbox.definitions()",
    ) -> Chosen:
        refs = references(use_references)  # checked once, before any tool is built
        check_adapter(llm_adapter)
        policy = self.strict if strict is None else check_policy(strict, where)
        # Each definition is checked as it is built and the budgets as they are planned;
        # the names are unique, being the toolbox's keys.
        return plan_tools(
            list(self), llm_adapter, policy, use_references=refs, format_cost=format_cost,
            order=check_order(order, where),
        )

    def plan(
        self,
        llm_adapter: _adapters.Adapter,
        *,
        output_type: Any = None,
        strict: StrictPolicy | None = None,
        model: str | None = None,
        order: Literal["registration", "name"] = "registration",
        use_references: bool | Literal["auto"] = False,
    ) -> RequestPlan:
        """What a request with these tools (and a typed answer) sends, and why.

        Args:
            llm_adapter: The provider's tool form (``ANTHROPIC_TOOLS``, ``VLLM_TOOLS``...).
            output_type: The type of the final answer, or None for text. Its format is
                built by the structured-output adapter of the same provider
                (``ANTHROPIC`` for ``ANTHROPIC_TOOLS``, ``VLLM`` for ``VLLM_TOOLS``) and,
                when it shares the request with the tools, counts in the same budgets.
            strict: The strict policy; None: the toolbox's.
            model: The model, for adapters whose ``combined`` depends on the model
                generation (Gemini).
            order: ``"registration"`` (the default) or ``"name"``.
            use_references: As for ``definitions()``.

        Raises:
            SchemaError: As ``definitions()``; or the format adapter of ``llm_adapter``
                is not known (for an adapter of your own, pass a provider's own).

        .. versionadded:: 0.4.0
        """
        return self._plan(llm_adapter, None, output_type, strict, model, order, use_references,
                          self._registry, None, "Toolbox.plan()")

    def _plan(
        self, llm_adapter: Any, format_adapter: Any, output_type: Any, strict: Any,
        model: Any, order: Any, use_references: Any, registry: Any, phases: Any,
        where: str,
    ) -> RequestPlan:
        check_adapter(llm_adapter)
        chosen_phases = check_phases(phases, where) or (
            "combined" if llm_adapter.combines(model) else "two-phase"
        )
        if output_type is None:  # nothing to send apart from the tools
            chosen_phases = "combined"
        body = None
        format_cost = None
        if output_type is not None:
            if format_adapter is None:
                format_adapter = output_adapter_for(llm_adapter)
            body = described(output_type, format_adapter, registry)
            # Counted in the budgets even for two phases: Anthropic's closing request
            # keeps the tools (its conversation holds tool blocks) beside the format.
            format_cost = cost_of(body, format_adapter)
        chosen = self._chosen(llm_adapter, use_references, strict, order, format_cost, where)
        return RequestPlan(
            chosen.definitions, chosen.strict, chosen.downgraded, body, chosen_phases,
            fingerprint_of(chosen.definitions, body), llm_adapter, chosen.costs,
        )

    def fingerprint(
        self,
        llm_adapter: _adapters.Adapter,
        *,
        strict: StrictPolicy | None = None,
        order: Literal["registration", "name"] = "registration",
    ) -> str:
        """A short stable hex digest of ``definitions(llm_adapter)`` as sent (16 digits
        of SHA-256 over their compact JSON): equal exactly when the bytes are.

        .. versionadded:: 0.4.0
        """
        return fingerprint_of(self.definitions(llm_adapter, strict=strict, order=order))

    def mcp_server(
        self,
        *,
        name: str,
        version: str = "",
        instructions: str | None = None,
        context: Callable[[Any], Any] | None = None,
    ) -> Server[Any]:
        """An MCP server (the official ``mcp`` SDK's ``mcp.server.Server``) for these tools.

        ``tools/list`` gives each tool's ``MCP_TOOLS`` definition (every object closed,
        so a client validating with ``inputSchema`` refuses the keys the decoder would)
        plus an ``outputSchema`` from its return annotation (none for ``str`` or an
        undescribable return): an object as it is, anything else wrapped as
        ``{"result": ...}``; in registration order, the same on every call.
        ``tools/call`` runs ``acall``, so strict decoding, timeouts, the error policy and
        ``max_result_chars`` apply: the answer is ``structuredContent`` (the encoded
        value, checked against the ``outputSchema``, for a tool with one; a value whose
        JSON is over ``max_result_chars`` is an error, never cut) plus a text block
        (``ToolResult.content``, within the result budget), or ``isError: true`` with
        the message the model can correct itself from. Encoding and checking a result
        run on the toolbox's worker threads, off the event loop. An unknown tool name is a
        JSON-RPC error ``-32602`` (a protocol error, as the MCP specification has it)
        whose message is the toolbox's "Unknown tool ..." text. Per-turn limits
        (``max_calls_per_turn``, ``max_result_chars_per_turn``) do not apply: each
        ``tools/call`` is one call.

        Serve it with the SDK (``server.run(read, write,
        server.create_initialization_options())``, ``server.streamable_http_app()``) or
        with ``describedtypes mcp module:toolbox`` (stdio, or ``--http HOST:PORT``).

        Args:
            name: The server's name, as clients show it.
            version: The server's version; by default the version of the installed
                distribution the tools' package comes from (``importlib.metadata``), or
                empty when none is (a script, a notebook).
            instructions: What the client may tell the model about these tools.
            context: Called once per ``tools/call`` of a tool with ``Context``
                parameters, with the SDK's ``ServerRequestContext`` (its ``session``
                sends elicitation requests, ``request_id``, ``meta``, ``request``: the
                HTTP request over streamable HTTP); its return value (or awaited
                value) fills those parameters. None passes the request context itself.

        Raises:
            ModuleNotFoundError: The ``mcp`` SDK is not installed (the ``mcp`` extra).
            SchemaError: A tool cannot be described as an MCP tool.

        .. versionadded:: 0.3.0
        """
        # Built in _serve, a layer above this one: the package root provides the builder.
        server: Server[Any] = _lazy.mcp_server(
            self, name=name, version=version, instructions=instructions, context=context
        )
        return server

    def _unknown(self, name: Any, call_id: str | None) -> ToolResult:
        shown = name if isinstance(name, str) else brief(name)
        hint = did_you_mean(shown, self._tools) if isinstance(name, str) else ""
        # brief: a huge name is cut short in the text for the model.
        content = f"Unknown tool {brief(shown)}. {hint}Available tools: {listing(self.names)}."
        result = failure(content, call_id, shown)
        if logger.isEnabledFor(logging.INFO):  # the name is the model's: DEBUG only
            logger.info("a call of an unknown tool, call_id=%.80s", call_id)
            logger.debug("the unknown tool's name: %.200r", name)
        return result

    def call(
        self,
        name: str,
        arguments: Arguments = None,
        *,
        context: Any = None,
        call_id: str | None = None,
    ) -> ToolResult:
        """Run the tool ``name`` with the model's ``arguments``; never raises for a mistake.

        Args:
            name: The tool name from the model's call.
            arguments: The arguments, as JSON text or a parsed object.
            context: Passed to the tool's ``Context`` parameters.
            call_id: The provider's id for the call, copied onto the result.
        """
        try:
            tool = self._tools[name]
        except (KeyError, TypeError):
            return self._unknown(name, call_id)
        # The common case, nothing watching (no INFO line, no tracer provider): the
        # tool's invoker straight from here.
        if not logger.isEnabledFor(_INFO) and not tracing.enabled():
            invoke = tool.invoke
            if invoke is not None:
                done = invoke(tool, arguments, context, call_id, name, self._rt)
                if done is not None:
                    return done
            return tool.run_general(arguments, context, call_id, name, self._rt)
        if tracing.enabled():
            with tracing.tool_span(name, call_id) as span:
                return _traced_result(span, tool.run_call(arguments, context, call_id, name,
                                                          self._rt))
        return tool.run_call(arguments, context, call_id, name, self._rt)

    async def acall(
        self,
        name: str,
        arguments: Arguments = None,
        *,
        context: Any = None,
        call_id: str | None = None,
    ) -> ToolResult:
        """``call`` for coroutines: sync tools run on the toolbox's worker threads."""
        try:
            tool = self._tools[name]
        except (KeyError, TypeError):
            return self._unknown(name, call_id)
        if tracing.enabled():
            return await _traced(tool.arun_call(arguments, context, call_id, name, self._rt),
                                 name, call_id)
        return await tool.arun_call(arguments, context, call_id, name, self._rt)

    async def acall_many(
        self, calls: Iterable[ToolCall], *, context: Any = None
    ) -> list[ToolResult]:
        """Run several calls concurrently; the results come back in the calls' order.

        Each call starts at once, in order: one that finishes without waiting for
        anything costs no task. Tools registered with ``concurrent=False`` still run one
        call at a time. Cancelling ``acall_many`` cancels every call still running (a
        sync tool's thread runs on until its function returns: see ``running_calls``).

        The calls are one turn: only the first ``max_calls_per_turn`` run, each call
        past them gets an error result (never run), and the results of those that ran
        are cut to fit ``max_result_chars_per_turn`` together. There is one result per
        call either way.

        Args:
            calls: ``ToolCall`` objects, such as those ``read_tool_calls`` returns.
            context: Passed to every tool's ``Context`` parameters.
        """
        if isinstance(calls, (str, bytes, Mapping)) or not isinstance(calls, Iterable):
            msg = (
                f"acall_many takes a list of ToolCall objects, got {type(calls).__name__}; "
                "use read_tool_calls(response)"
            )
            raise TypeError(msg)
        items: list[Any] = list(calls)
        for item in items:
            if not isinstance(item, ToolCall):
                msg = (
                    f"acall_many takes ToolCall objects, got {type(item).__name__}; "
                    "use read_tool_calls(response) or ToolCall(name, arguments, call_id)"
                )
                raise TypeError(msg)
        limit = self._max_calls
        budget = self._max_turn_chars
        extra: list[ToolResult] = []
        room = budget
        if limit is not None and len(items) > limit:
            extra = refused(items[limit:], limit, len(items), budget)
            del items[limit:]
            if budget is not None:  # the calls not run are answered within the budget too
                room = budget - sum(len(r.content) for r in extra)
        create_task = asyncio.get_running_loop().create_task
        results: list[Any] = []
        waiting: list[tuple[int, asyncio.Task[ToolResult]]] = []
        tools = self._tools
        traced = tracing.enabled()
        try:
            for i, c in enumerate(items):
                tool = tools.get(c.name) if type(c.name) is str else None
                if tool is not None:  # Toolbox.acall without its coroutine
                    coro = tool.arun_call(c.arguments, context, c.call_id, c.name, self._rt)
                    if traced:
                        coro = _traced(coro, c.name, c.call_id)
                else:
                    coro = self.acall(c.name, c.arguments, context=context, call_id=c.call_id)
                finished, outcome = start_eagerly(coro, create_task)
                results.append(outcome if finished else None)
                if not finished:
                    waiting.append((i, outcome))
            for i, task in waiting:
                results[i] = await task
        except BaseException:
            for _, task in waiting:
                task.cancel()
            raise
        results = fit(results, room, budget)
        return results + extra if extra else results

    @overload
    def run(
        self, client: Any, *, messages: Any, model: str, max_turns: int = 10,
        output_type: None = None, retries: int = 2, api: str | None = None,
        context: Any = None, registry: Any = None, llm_adapter: Any = None,
        phases: Phases | None = None, details: Literal[True],
        **request: Any,
    ) -> ToolRun[str]: ...
    @overload
    def run(
        self, client: Any, *, messages: Any, model: str, max_turns: int = 10,
        output_type: type[T], retries: int = 2, api: str | None = None,
        context: Any = None, registry: Any = None, llm_adapter: Any = None,
        phases: Phases | None = None, details: Literal[True],
        **request: Any,
    ) -> ToolRun[T]: ...
    @overload
    def run(
        self, client: Any, *, messages: Any, model: str, max_turns: int = 10,
        output_type: Any = None, retries: int = 2, api: str | None = None,
        context: Any = None, registry: Any = None, llm_adapter: Any = None,
        phases: Phases | None = None, details: bool = False,
        **request: Any,
    ) -> Any: ...
    def run(
        self, client: Any, *, messages: Any, model: str, max_turns: int = 10,
        output_type: Any = None, retries: int = 2, api: str | None = None,
        context: Any = None, registry: Any = None, llm_adapter: Any = None,
        phases: Phases | None = None, details: bool = False,
        **request: Any,
    ) -> Any:
        """The tool loop: ask, run the model's tool calls, send the results back, until
        the model answers without calling a tool.

        Each request carries what ``plan()`` says for the client's tool form (the tools
        strict as the toolbox's ``strict`` policy fits them in the provider's budgets;
        ``ToolRun.plan`` keeps the plan); the calls of one turn run concurrently
        (``acall_many``) and their results go back matched by id.

        With ``output_type``, where the provider takes a structured-output format beside
        tools with tool calls still possible (OpenAI, Anthropic, Gemini 3), the format
        goes with every turn (``"combined"``). Where the format would constrain every
        turn so that no tool could be called (vLLM, SGLang, llama.cpp, Ollama, Gemini
        2.x), the run has two phases: tool turns without the format until the model
        answers without a tool call, then one closing request with the format and no
        tool to call (Anthropic keeps the tools with ``tool_choice`` none, since its
        conversation holds tool blocks), decoded with ``extract()``'s retry rules.
        The closing request and its retries do not count in ``max_turns``.
        The toolbox's ``max_calls_per_turn`` and ``max_result_chars_per_turn`` bound each
        turn: calls past the first ``max_calls_per_turn`` get an error result (the model
        is told to make fewer at a time) and are never run.

        Args:
            client: An ``openai.OpenAI`` (Chat Completions; ``api="responses"`` for the
                Responses API), ``anthropic.Anthropic`` or ``google.genai.Client``.
            messages: The conversation, in the provider's shape, or one str; copied.
            model: The model name.
            max_turns: The most requests to send.
            output_type: A type for the final answer: sent as structured output (on
                every turn, or in the closing request of a two-phase run) and decoded,
                with ``extract()``'s retry rules; ``None`` for text.
            retries: Retries of a final answer that does not decode into ``output_type``.
            api: For OpenAI clients: ``"chat"`` (the default) or ``"responses"``.
            context: Passed to the tools' ``Context`` parameters.
            registry: Where annotations of ``output_type`` are looked up (default: the
                toolbox's own ``registry``).
            llm_adapter: For a self-hosted server behind an ``openai.OpenAI(base_url=...)``
                client: ``VLLM``, ``SGLANG``, ``LLAMACPP`` or ``OLLAMA`` (or their
                ``_TOOLS`` forms); the tools go as that server's tool form (``strict``
                where the server constrains only strict tools).
            phases: ``"combined"`` or ``"two-phase"`` overrides the adapter's choice
                (``Adapter.combined``); None (the default) keeps it.
            details: Return a ``ToolRun`` (the output, the usage summed over every turn,
                each turn with its calls, results and phase, the conversation, the time,
                the plan).
            **request: Passed on to the SDK call (``temperature``, ``system``, ...).

        Returns:
            The final answer's text, or the decoded ``output_type`` (with
            ``details=True``, a ``ToolRun`` of it).

        Raises:
            MaxTurnsError: ``max_turns`` requests were sent and the model still called
                tools; ``.transcript`` holds the conversation.
            DecodeError: As ``extract()`` raises, for ``output_type``.
            RequestError: The provider refused the request for going over one of its
                strict-schema budgets; the message names the budget and the fix.

        .. versionadded:: 0.2.0
        .. versionchanged:: 0.4.0 The request plan, ``phases`` and two-phase runs.
        """
        from .._ask import loop as _loop

        registry = self._registry if registry is None else registry
        return _loop.run(
            self, client, messages=messages, model=model, max_turns=max_turns,
            output_type=output_type, retries=retries, api=api, context=context,
            registry=registry, request=request, llm_adapter=llm_adapter, details=details,
            planner=self._planner(registry, phases, "Toolbox.run()"),
        )

    @overload
    async def arun(
        self, client: Any, *, messages: Any, model: str, max_turns: int = 10,
        output_type: None = None, retries: int = 2, api: str | None = None,
        context: Any = None, registry: Any = None, llm_adapter: Any = None,
        phases: Phases | None = None, details: Literal[True],
        **request: Any,
    ) -> ToolRun[str]: ...
    @overload
    async def arun(
        self, client: Any, *, messages: Any, model: str, max_turns: int = 10,
        output_type: type[T], retries: int = 2, api: str | None = None,
        context: Any = None, registry: Any = None, llm_adapter: Any = None,
        phases: Phases | None = None, details: Literal[True],
        **request: Any,
    ) -> ToolRun[T]: ...
    @overload
    async def arun(
        self, client: Any, *, messages: Any, model: str, max_turns: int = 10,
        output_type: Any = None, retries: int = 2, api: str | None = None,
        context: Any = None, registry: Any = None, llm_adapter: Any = None,
        phases: Phases | None = None, details: bool = False,
        **request: Any,
    ) -> Any: ...
    async def arun(
        self, client: Any, *, messages: Any, model: str, max_turns: int = 10,
        output_type: Any = None, retries: int = 2, api: str | None = None,
        context: Any = None, registry: Any = None, llm_adapter: Any = None,
        phases: Phases | None = None, details: bool = False,
        **request: Any,
    ) -> Any:
        """``run`` for async clients (``AsyncOpenAI``, ``AsyncAnthropic``, genai ``.aio``).

        .. versionadded:: 0.2.0
        """
        from .._ask import loop as _loop

        registry = self._registry if registry is None else registry
        return await _loop.arun(
            self, client, messages=messages, model=model, max_turns=max_turns,
            output_type=output_type, retries=retries, api=api, context=context,
            registry=registry, request=request, llm_adapter=llm_adapter, details=details,
            planner=self._planner(registry, phases, "Toolbox.arun()"),
        )

    def _planner(self, registry: Any, phases: Any, where: str) -> Callable[..., RequestPlan]:
        """The request plan of one run, once its client's adapters are known."""
        check_phases(phases, where)  # before the client is even looked at

        def planner(
            tools_adapter: Any, format_adapter: Any, output_type: Any, model: str
        ) -> RequestPlan:
            return self._plan(tools_adapter, format_adapter, output_type, None, model,
                              "registration", False, registry, phases, where)

        return planner


def result_limit(toolbox: Toolbox) -> int | None:
    """The toolbox's ``max_result_chars`` (None: no limit), for a server that sends a
    result in another form as well (MCP's ``structuredContent``)."""
    return toolbox._rt.max_result_chars


async def run_off_loop(toolbox: Toolbox, fn: Callable[..., Any], /, *args: Any) -> Any:
    """``fn(*args)`` on one of the toolbox's worker threads, awaited: per-result work of
    a server (encoding, checking a schema) never holds up the event loop."""
    return await off_loop(toolbox._rt, fn, *args)


async def _traced(coro: Any, name: str, call_id: str | None) -> ToolResult:
    """A tool call inside its ``execute_tool {name}`` span (with OpenTelemetry on)."""
    with tracing.tool_span(name, call_id, current=False) as span:
        return _traced_result(span, await coro)


def _traced_result(span: Any, result: ToolResult) -> ToolResult:
    if result.is_error:  # tools never raise: a failed call is an error result
        exc = result.exception
        span.failed(type(exc).__qualname__ if exc is not None else "tool_error")
    return result

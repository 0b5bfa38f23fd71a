"""A tool: one function described to a model, and the records of its calls.

``Tool`` reads the function's parameters once (``plan``), checks a model's arguments against
them and runs the function under the policies of ``running`` (time limits, what an
exception may say, how long a result may be). ``ToolCall`` and ``ToolResult`` are the
call as a provider sent it and what goes back to the model.
"""

from __future__ import annotations

import difflib
import enum
import inspect as _pyinspect
import logging
import threading
import time
import typing
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, TypeVar

import attrs
import orjson

from .._base.aio import is_async, is_awaitable
from .._base.generated import run_source
from .._base.lazy import LazyModule as _LazyModule
from .._base.records import (
    RESULT_LINES,
    RESULT_NAMES,
    Arguments,
    ToolCall,
    ToolResult,
    failure,
    new_result,
)
from .._base.text import one_line
from .._codec.encode import encode
from .._codec.jsontext import BEYOND_FLOAT, json_problem
from .._codec.problems import ABSENT, Invalid, decode_error, problem_lines
from .._codec.values import exact_beyond_float, exact_loads
from .._schema import adapters as _adapters
from .._schema.adapters import check_adapter
from .._schema.schema import references
from .._types import annotate as _stamps
from .._types.annotate import Registry, annotate, check_registry, current_stamp
from .._types.declared import unwrap_callable
from .._types.inspector import ObjectNode
from ..errors import ArgumentError, SchemaError
from .gate import Gate
from .model_text import MAX_MESSAGE_CHARS, cut_result, describe_exception, exception_text, type_name
from .plan import Plan, plan_for
from .running import (
    DEFAULTS,
    HAS_CANCELLING,
    NotStarted,
    Settings,
    TimedOut,
    ToolCancelled,
    call_within,
    cancelled_from_outside,
    check_timeout,
    in_task,
    in_thread,
    log_outcome,
    logger,
    off_loop,
    on_loop,
    own_words,
    run_coroutine,
)

if TYPE_CHECKING:
    import asyncio
else:  # imported when a tool first runs asynchronously: it is slow to import
    asyncio = _LazyModule("asyncio", globals())

__all__ = ["ParseArgs", "Tool"]


F = TypeVar("F", bound=Callable[..., Any])

ParseArgs = Callable[[dict[str, Any]], Mapping[str, Any] | None]
"""``parse_args(raw) -> kwargs``: replaces the built-in argument checking of one tool.

It receives the model's arguments as a parsed JSON object and returns the keyword
arguments for the function (``None`` means: pass ``raw`` unchanged). It rejects a call by
raising ``ArgumentError(message)``; the message reaches the model unchanged.
"""


def listing(names: Sequence[str]) -> str:
    return ", ".join(names) if names else "(none)"


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    options = list(choices)
    close = difflib.get_close_matches(word, options, n=1, cutoff=0.6)
    if not close:
        lowered = {c.lower(): c for c in options}
        close = [lowered[word.lower()]] if word.lower() in lowered else []
    return f"Did you mean {close[0]!r}? " if close else ""


class Tool:
    """A function the model may call, with the name and description it is shown under.

    Args:
        func: A function, async function, bound method, static or class method,
            ``functools.partial`` (its bound arguments are hidden) or callable object.
            Parameters typed ``Context[...]`` receive the call's ``context=``.
        name: The tool name shown to the model; defaults to the annotation's name (the
            function's ``__name__`` unless ``annotate.register`` says otherwise).
        description: What the tool does, for the model; defaults to the annotation's
            description (the docstring's summary).
        parse_args: Replaces the built-in argument checking (see ``ParseArgs``).
        concurrent: False keeps this tool to one call at a time, across threads and
            event loops (for tools that share state that is not thread-safe).
        timeout: Seconds a call may take; a call that overruns gives an error result
            saying so (``exception`` is a ``TimeoutError``). None: the Toolbox's
            ``timeout``. A sync tool cannot be stopped from outside: its thread runs on
            until the function returns, listed in ``Toolbox.running_calls``.
        blocking: For a sync function: True (the default) runs it on a worker thread
            under ``acall``; False runs it directly on the event loop, which is faster
            for a function that returns at once and never blocks (it then cannot have a
            ``timeout``).
        registry: Where registered annotations are looked up (``annotate`` by default).
        strict: Whether the tool is sent strict (its arguments constrained by the
            provider): True keeps it strict whatever the budgets (a ``SchemaError`` if the
            strict tools marked so exceed one alone), False always sends it non-strict,
            None (the default) follows the toolbox's ``strict`` policy. The decoder checks
            the arguments against the full type either way.
        defer_loading: Send the tool for the provider's tool search: its
            ``defer_loading: true`` (OpenAI Responses function tools, Anthropic tools),
            so the definition stays out of the prompt (and its cached prefix) until the
            model searches for it. Providers without tool search get the tool as usual.

    Raises:
        SchemaError: ``func`` cannot be described to a model (a parameter without a type
            annotation, ``*args``/``**kwargs``, positional-only parameters, ...).
        ValueError: ``strict`` is not True, False or None.

    .. versionadded:: 0.1.0
    .. versionchanged:: 0.2.0 ``timeout``, ``blocking`` and ``registry``.
    .. versionchanged:: 0.4.0 ``strict`` and ``defer_loading``.
    """

    __slots__ = (
        "__weakref__",
        "_description",
        "_node",
        "_plan",
        "blocking",
        "concurrent",
        "defer_loading",
        "func",
        "gate",
        "invoke",
        "is_async",
        "name",
        "parse_args",
        "registry",
        "strict",
        "timeout",
    )

    def __init__(
        self,
        func: Callable[..., Any],
        *,
        name: str | None = None,
        description: str | None = None,
        parse_args: ParseArgs | None = None,
        concurrent: bool = True,
        timeout: float | None = None,
        blocking: bool = True,
        registry: Registry = annotate,
        strict: bool | None = None,
        defer_loading: bool = False,
    ) -> None:
        _check_options(func, name, description, parse_args)
        deferred: Any = defer_loading  # checked at run time: callers may pass anything
        if not isinstance(deferred, bool):
            msg = f"Tool(defer_loading=...) takes True or False, got {deferred!r}"
            raise ValueError(msg)
        self.defer_loading: bool = deferred
        flag: Any = strict  # checked at run time: callers may pass anything
        if flag is not None and not isinstance(flag, bool):
            msg = (
                f"Tool(strict=...) takes True, False or None (the toolbox's policy), got "
                f"{strict!r}"
            )
            raise ValueError(msg)
        self.strict: bool | None = strict
        check_registry(registry)
        self.registry = registry
        _check_not_unbound(func)
        self.func = func
        self.is_async = is_async(func)
        self.timeout = check_timeout(timeout)
        self.blocking = bool(blocking)
        if not self.blocking and self.timeout is not None and not self.is_async:
            msg = (
                "a sync tool with blocking=False runs on the event loop, where nothing can "
                "stop it: drop timeout= or blocking=False"
            )
            raise SchemaError(msg, type_=func)
        self._plan = plan_for(func, registry)
        self._node: ObjectNode | None = None
        self.name: str = name if name is not None else self._plan.name
        self._description = description
        self.parse_args = parse_args
        self.concurrent = bool(concurrent)
        #: For ``concurrent=False``: what keeps the tool to one call at a time.
        self.gate = None if self.concurrent else Gate()
        #: The tool's common call, made once per plan (see ``invoker``); for the toolbox.
        self.invoke: Invoker | None = invoker(self, self._plan)

    def __repr__(self) -> str:
        extra = "" if self.concurrent else ", concurrent=False"
        if self.timeout is not None:
            extra += f", timeout={self.timeout!r}"
        if not self.blocking:
            extra += ", blocking=False"
        if self.strict is not None:
            extra += f", strict={self.strict!r}"
        if self.defer_loading:
            extra += ", defer_loading=True"
        return f"Tool({self.name!r}, func={self.func!r}{extra})"

    def _current(self) -> Plan:
        plan = self._plan
        if plan.generation != current_stamp():
            plan = self._plan = plan_for(self.func, self.registry)
            self._node = None
            self.invoke = invoker(self, plan)
        return plan

    @property
    def node(self) -> ObjectNode:
        """The inspected parameters (``describedtypes.inspect.ObjectNode``)."""
        plan = self._current()
        node = self._node
        if node is None:
            node = self._node = plan.node(self.func)
        return node

    @property
    def description(self) -> str | None:
        """The description the model sees, or None when nothing describes the tool."""
        return self._description if self._description is not None else self._current().description

    @property
    def required_parameters(self) -> list[str]:
        """The argument names the model must send."""
        return list(self._current().required)

    @property
    def accepted_parameters(self) -> list[str]:
        """Every argument name the model may send."""
        return list(self._current().accepted)

    @property
    def return_type(self) -> Any:
        """The function's return annotation, evaluated; ``inspect.Signature.empty`` when
        it has none (or it names something that cannot be found).

        Read through partials, bound methods, callable objects and ``functools.wraps``
        decorators, as the parameters are. An MCP server builds the tool's
        ``outputSchema`` from it.

        .. versionadded:: 0.3.0
        """
        return _return_hint(unwrap_callable(self.func)[0])

    def definition(
        self, llm_adapter: _adapters.Adapter, *, use_references: bool | Literal["auto"] = False
    ) -> Any:
        """This tool's definition in ``llm_adapter``'s shape (e.g. ``OPENAI_TOOLS``).

        Args:
            llm_adapter: The provider's tool form.
            use_references: As for ``schema()``: ``False`` (the default) writes nested
                classes inline, ``True`` puts them under ``$defs``, ``"auto"`` picks per
                class whichever gives the smaller definition.

        Raises:
            SchemaError: The tool cannot be described for that provider (its name, a
                parameter type), with the fix.
            TypeError: ``use_references`` is not ``True``, ``False`` or ``"auto"``.

        .. versionchanged:: 0.3.0 ``use_references`` (new).
        """
        refs = references(use_references)
        check_adapter(llm_adapter)
        if not llm_adapter.valid_name(self.name):
            msg = (
                f"the tool name {self.name!r} is not accepted by {llm_adapter.name} (it must "
                f"match {llm_adapter.name_pattern}); register the tool with name=..."
            )
            raise SchemaError(msg, path=self.name, type_=self.func)
        return self._current().definition(
            self.func, llm_adapter, self.name, self._description, refs
        )

    # -- running -----------------------------------------------------------------------

    def _prepare(
        self, arguments: Arguments, context: Any, call_id: str | None, name: str, rt: Settings
    ) -> dict[str, Any] | ToolResult:
        """The keyword arguments for the function, or the error result to return."""
        plan = self._plan
        if plan.generation != current_stamp():
            plan = self._current()
        raw: Any = None
        kind = type(arguments)
        if kind is bytes or kind is str:  # the common case, inlined
            try:
                raw = orjson.loads(arguments)  # type: ignore[arg-type]
            except orjson.JSONDecodeError:
                raw = None
            else:
                if type(raw) is not dict:
                    raw = None
                elif plan.exact and raw:
                    # A Decimal parameter reads its digits from the text, not a parsed float.
                    raw = exact_loads(arguments, raw)  # type: ignore[arg-type]
        if raw is None:
            # Past the float range (1e400) only where the built-in checking reads the
            # numbers: a Decimal takes it exactly, an int or float says it is too large.
            raw = _parse_raw(arguments, plan.exact, beyond_float=self.parse_args is None)
            if isinstance(raw, str):
                return failure(self._argument_message(plan, [("$", raw)]), call_id, name)
        if self.parse_args is None:
            try:
                kwargs = plan.decode(raw)
            except Exception as exc:
                return self._refused(exc, plan, call_id, name, rt)
            if plan.fill_none:
                for param in plan.fill_none:
                    if param not in kwargs:
                        kwargs[param] = None
        else:
            try:
                parsed: Any = self.parse_args(raw)
            except ArgumentError as exc:
                return failure(own_words(exc, rt), call_id, name, exc)
            except Exception as exc:
                return self._error(exc, call_id, name, rt)
            if parsed is None:
                kwargs = raw
            elif isinstance(parsed, Mapping):
                kwargs = dict(parsed)
            else:
                wrong = TypeError(
                    f"parse_args of tool {self.name!r} returned {type(parsed).__name__}; "
                    "return a dict of keyword arguments (or None to keep the raw ones)"
                )
                return self._error(wrong, call_id, name, rt)
        if plan.context_params:
            for param in plan.context_params:
                kwargs[param] = context
        return kwargs

    def _refused(
        self, exc: Exception, plan: Plan, call_id: str | None, name: str, rt: Settings
    ) -> ToolResult:
        """The result of a call whose arguments the decoder refused with ``exc``."""
        if isinstance(exc, Invalid):
            error = decode_error(exc.errors)
            message = self._argument_message(plan, error.errors, truncated=error.truncated)
            return failure(message, call_id, name)
        if isinstance(exc, RecursionError):
            errors = [("$", "the arguments are nested too deeply; send flatter values")]
            return failure(self._argument_message(plan, errors), call_id, name)
        # An argument type's validator that is not the model's mistake (a ConnectionError,
        # say): the tool's failure, told the model under the toolbox's error policy, never
        # raised out of call().
        return self._error(exc, call_id, name, rt)

    def _argument_message(
        self, plan: Plan, errors: Sequence[tuple[str, str]], *, truncated: bool = False
    ) -> str:
        # The first twenty problems, long paths shortened, "at least" when cut short.
        lines = problem_lines(list(errors), truncated=truncated)
        return (
            f"Invalid arguments for tool {self.name!r}:\n" + "\n".join(lines) + "\n"
            f"Required parameters: {listing(plan.required)}. "
            f"Accepted parameters: {listing(plan.accepted)}."
        )

    def _finish(self, value: Any, call_id: str | None, name: str, rt: Settings) -> ToolResult:
        limit = rt.max_result_chars
        if type(value) is str:
            content = value if limit is None or len(value) <= limit else cut_result(value, limit)
            return new_result(content, value, call_id, name)
        if isinstance(value, ToolResult):
            # The result answers the call that ran, whatever ids the tool put on it: a
            # model's call without its result is a request the providers refuse.
            changes: dict[str, Any] = {}
            if call_id is not None and value.call_id != call_id:
                changes["call_id"] = call_id
            if value.name != name:
                changes["name"] = name
            if changes and logger.isEnabledFor(logging.DEBUG):
                logger.debug(
                    "tool %s returned a ToolResult for call_id=%.80r name=%.80r; sent as "
                    "the result of call_id=%.80r", name, value.call_id, value.name, call_id,
                )
            if limit is not None and len(value.content) > limit:
                changes["content"] = cut_result(value.content, limit)
            return attrs.evolve(value, **changes) if changes else value
        try:
            content = _content(value)
        except Exception as exc:
            text = one_line(exception_text(exc), MAX_MESSAGE_CHARS)
            failed = failure(
                f"Tool {self.name!r} failed: its result could not be encoded as JSON "
                f"({type_name(exc)}: {text})",
                call_id,
                name,
                exc,
            )
            return attrs.evolve(failed, value=value)
        if limit is not None and len(content) > limit:
            content = cut_result(content, limit)
        return new_result(content, value, call_id, name)

    def _error(
        self, exc: BaseException, call_id: str | None, name: str, rt: Settings
    ) -> ToolResult:
        if isinstance(exc, ToolCancelled):
            exc = exc.original
        if isinstance(exc, (TimedOut, NotStarted)):
            return failure(exception_text(exc), call_id, name, exc)
        if isinstance(exc, ArgumentError):  # the tool's own words for the model
            return failure(own_words(exc, rt), call_id, name, exc)
        content = describe_exception(self.name, exc, rt.error_detail, rt.max_result_chars)
        return failure(content, call_id, name, exc)

    def _timeout(self, rt: Settings) -> float | None:
        if self.timeout is not None:
            return self.timeout
        if not self.blocking and not self.is_async:
            return None
        return rt.timeout

    def call(
        self, arguments: Arguments = None, *, context: Any = None, call_id: str | None = None
    ) -> ToolResult:
        """Run one call synchronously; never raises for anything the model or tool does.

        An async tool is run to completion on an event loop of its own. With a timeout,
        a sync tool runs on a worker thread so the caller can stop waiting.
        ``KeyboardInterrupt`` and ``SystemExit`` still propagate.
        """
        return self.run_call(arguments, context, call_id, self.name, DEFAULTS)

    def run_call(
        self, arguments: Arguments, context: Any, call_id: str | None, name: str, rt: Settings
    ) -> ToolResult:
        """``call`` under the settings ``rt`` of a Toolbox, the result named ``name``."""
        if not logger.isEnabledFor(logging.INFO):
            return self.run_call_unlogged(arguments, context, call_id, name, rt)
        started = time.perf_counter()
        result = self.run_call_unlogged(arguments, context, call_id, name, rt)
        log_outcome(result, time.perf_counter() - started, arguments)
        return result

    def run_call_unlogged(
        self, arguments: Arguments, context: Any, call_id: str | None, name: str, rt: Settings
    ) -> ToolResult:
        """``run_call`` without its INFO log line: ``Toolbox.call`` asks the logger (and
        the tracer) once and comes here straight when neither wants the call."""
        invoke = self.invoke
        if invoke is not None:
            done = invoke(self, arguments, context, call_id, name, rt)
            if done is not None:
                return done
        return self.run_general(arguments, context, call_id, name, rt)

    def run_general(
        self, arguments: Arguments, context: Any, call_id: str | None, name: str, rt: Settings
    ) -> ToolResult:
        """``run_call_unlogged`` for a call its invoker (if any) left to the general path."""
        kwargs = self._prepare(arguments, context, call_id, name, rt)
        if isinstance(kwargs, ToolResult):
            return kwargs
        try:
            timeout = None
            if self.timeout is not None or rt.timeout is not None:
                timeout = self._timeout(rt)
            if timeout is not None:
                value = call_within(self, kwargs, timeout, rt, ToolCall(name, arguments, call_id))
            elif self.gate is None:
                value = self.func(**kwargs)
                if is_awaitable(value):
                    value = run_coroutine(value, None)
            else:
                with self.gate.lock:
                    value = self.func(**kwargs)
                    if is_awaitable(value):
                        value = run_coroutine(value, None)
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException as exc:  # the tool's, whatever it is: the model is told
            return self._error(exc, call_id, name, rt)
        return self._result(value, call_id, name, rt)

    def _decoded(
        self, raw: dict[str, Any], context: Any, call_id: str | None, name: str, rt: Settings
    ) -> ToolResult:
        """The rest of a call (without a timeout or gate) whose arguments, parsed into
        ``raw``, need the decoder: ``_prepare`` and ``run_general`` from there on."""
        plan = self._plan
        try:
            kwargs = plan.decode(raw)
        except Exception as exc:
            return self._refused(exc, plan, call_id, name, rt)
        for param in plan.fill_none:
            if param not in kwargs:
                kwargs[param] = None
        for param in plan.context_params:
            kwargs[param] = context
        try:
            value = self.func(**kwargs)
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException as exc:  # the tool's, whatever it is: the model is told
            return self._error(exc, call_id, name, rt)
        return self._settle(value, call_id, name, rt)

    def _settle(self, value: Any, call_id: str | None, name: str, rt: Settings) -> ToolResult:
        """The result of a call without a timeout or gate whose function returned
        ``value``: an awaitable is run to its end first (what it raises is the tool's)."""
        if is_awaitable(value):
            try:
                value = run_coroutine(value, None)
            except (KeyboardInterrupt, SystemExit):
                raise
            except BaseException as exc:  # the tool's, whatever it is: the model is told
                return self._error(exc, call_id, name, rt)
        return self._result(value, call_id, name, rt)

    def _result(self, value: Any, call_id: str | None, name: str, rt: Settings) -> ToolResult:
        """The result of a call that returned ``value`` (a short string as it is)."""
        limit = rt.max_result_chars
        if type(value) is str and (limit is None or len(value) <= limit):
            return new_result(value, value, call_id, name)
        return self._finish(value, call_id, name, rt)

    async def acall(
        self, arguments: Arguments = None, *, context: Any = None, call_id: str | None = None
    ) -> ToolResult:
        """Run one call from a coroutine; never raises for anything the model or tool does.

        A sync tool runs on a worker thread (unless ``blocking=False``), so it does not
        block the event loop. Cancelling the caller still cancels the call;
        ``KeyboardInterrupt`` and ``SystemExit`` still propagate.
        """
        return await self.arun_call(arguments, context, call_id, self.name, DEFAULTS)

    async def arun_call(
        self, arguments: Arguments, context: Any, call_id: str | None, name: str, rt: Settings
    ) -> ToolResult:
        """``acall`` under the settings ``rt`` of a Toolbox, the result named ``name``."""
        if not logger.isEnabledFor(logging.INFO):
            return await self._acall(arguments, context, call_id, name, rt)
        started = time.perf_counter()
        result = await self._acall(arguments, context, call_id, name, rt)
        log_outcome(result, time.perf_counter() - started, arguments)
        return result

    async def _acall(
        self, arguments: Arguments, context: Any, call_id: str | None, name: str, rt: Settings
    ) -> ToolResult:
        kwargs = self._prepare(arguments, context, call_id, name, rt)
        if isinstance(kwargs, ToolResult):
            return kwargs
        try:
            timeout = self._timeout(rt)
            if self.is_async:
                if timeout is None and HAS_CANCELLING:
                    if self.gate is None:
                        value = await self.func(**kwargs)
                    else:
                        async with self.gate.hold():
                            value = await self.func(**kwargs)
                else:
                    call = ToolCall(name, arguments, call_id)
                    value = await in_task(self, kwargs, timeout, rt, call)
            elif not self.blocking:
                value = await on_loop(self, kwargs)
            else:
                call = ToolCall(name, arguments, call_id)
                value = await in_thread(self, kwargs, timeout, rt, call)
            if is_awaitable(value):
                value = await value
        except asyncio.CancelledError as exc:
            if cancelled_from_outside():
                raise
            return self._error(exc, call_id, name, rt)
        except Exception as exc:
            return self._error(exc, call_id, name, rt)
        except BaseException as exc:
            if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                raise
            return self._error(exc, call_id, name, rt)
        if type(value) in _ON_LOOP or isinstance(value, ToolResult):
            return self._finish(value, call_id, name, rt)
        # Encoding a value grows with it (a 100,000-item list takes a second): on a
        # worker thread, so the loop keeps serving the other calls meanwhile.
        result: ToolResult = await off_loop(rt, self._finish, value, call_id, name, rt)
        return result

def _check_options(func: Any, name: Any, description: Any, parse_args: Any) -> None:
    if isinstance(func, Tool):
        msg = "Tool() takes a function; this is already a Tool (add it to a Toolbox as it is)"
        raise SchemaError(msg, type_=func)
    if not callable(func) or isinstance(func, type):
        msg = (
            f"a tool must be a function or other callable, got {func!r}; "
            "pass the function itself (toolbox.add(get_weather))"
        )
        raise SchemaError(msg, type_=func)
    if name is not None and (not isinstance(name, str) or not name):
        msg = f"a tool name must be a non-empty str, got {name!r}"
        raise SchemaError(msg, type_=func)
    if description is not None and not isinstance(description, str):
        msg = f"a tool description must be a str, got {description!r}"
        raise SchemaError(msg, type_=func)
    if parse_args is not None and not callable(parse_args):
        msg = f"parse_args must be a function raw -> kwargs, got {parse_args!r}"
        raise SchemaError(msg, type_=func)


def _check_not_unbound(func: Any) -> None:
    if not _pyinspect.isfunction(func):
        return
    try:
        params = list(_pyinspect.signature(func).parameters.values())
    except (TypeError, ValueError):
        return
    if params and params[0].name in {"self", "cls"} and (
        params[0].annotation is _pyinspect.Parameter.empty
    ):
        qualname = getattr(func, "__qualname__", func.__name__)
        msg = (
            f"{qualname} takes {params[0].name} but is not bound to an instance or class; "
            f"register the bound method (toolbox.add(instance.{func.__name__})), or make it "
            "a staticmethod or classmethod"
        )
        raise SchemaError(msg, path=func.__name__, type_=func)


def _parse_raw(
    arguments: Any, exact: bool = False, *, beyond_float: bool = False
) -> dict[str, Any] | str:
    """The arguments as a new dict, or the problem with them as text.

    With ``exact`` (a Decimal parameter), JSON text is read with exact numbers; with
    ``beyond_float`` too, a number past the float range is read rather than refused, as
    ``decode`` reads it for a type holding a Decimal.
    """
    if arguments is None:
        return {}
    if isinstance(arguments, (str, bytes, bytearray)):
        try:
            raw: Any = orjson.loads(arguments)
        except orjson.JSONDecodeError as exc:
            if not arguments.strip():  # some providers send "" for a call without arguments
                return {}
            raw = ABSENT
            if exact and beyond_float and exc.msg == BEYOND_FLOAT:
                raw = exact_beyond_float(arguments)  # NaN and Infinity stay refused
            if raw is ABSENT:
                return f"the arguments are not valid JSON: {json_problem(exc, arguments)}"
        else:
            if exact and type(raw) is dict and raw:
                raw = exact_loads(arguments, raw)
        if type(raw) is dict:  # parsed JSON: a fresh dict with str keys
            return raw
    elif isinstance(arguments, Mapping):
        raw = arguments
    else:
        return (
            f"the arguments must be a JSON object, got {type(arguments).__name__}; send one "
            "JSON object with the parameter names as keys"
        )
    if not isinstance(raw, Mapping):
        kind = _json_kind(raw)
        return (
            f"the arguments must be a JSON object with the parameter names as keys, got {kind}"
        )
    bad = [k for k in raw if not isinstance(k, str)]
    if bad:
        return f"argument names must be strings, got {bad[0]!r}"
    return dict(raw)


def _json_kind(value: Any) -> str:
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if value is None:
        return "null"
    return type(value).__name__


def _return_hint(target: Any) -> Any:
    """The evaluated return annotation of ``target``, or ``Signature.empty``."""
    empty = _pyinspect.Signature.empty
    try:
        return typing.get_type_hints(target, include_extras=True).get("return", empty)
    except Exception:  # a parameter's annotation may be the one that cannot be evaluated
        raw = (getattr(target, "__annotations__", None) or {}).get("return", empty)
    if not isinstance(raw, str):
        return raw
    try:
        return eval(raw, dict(getattr(target, "__globals__", {})))  # as typing evaluates it
    except Exception:
        return empty


#: Results whose text is made on the event loop: it costs no more than a thread hop.
_ON_LOOP = frozenset({str, int, float, bool, type(None)})


def _content(value: Any) -> str:
    """The text for the model: a str as it is, anything else as JSON."""
    if type(value) is str:
        return value
    if isinstance(value, str) and not isinstance(value, enum.Enum):
        return str.__str__(value)
    return encode(value).decode()


#: ``invoke(tool, arguments, context, call_id, name, rt)``: the call's result, or None for
#: the general path. (The tool is passed in, not held: no reference cycle through the tool,
#: and one function serves every tool over the same plan.)
Invoker = Callable[["Tool", Any, Any, "str | None", str, Settings], "ToolResult | None"]

_MAKING = threading.Lock()


def invoker(tool: Tool, plan: Plan) -> Invoker | None:
    """The common call of ``tool``, compiled once per plan, or None where it never applies
    (``parse_args``, or a Decimal parameter, whose digits are read from the text).

    It runs JSON text arguments (str or bytes) and dicts of a tool without a timeout or a
    gate as ``run_general`` would, with what that asks on every call (the plan's options,
    the decoder) settled when it is made. Arguments that need no decoding go straight
    into the function's call (``fused_lines``: no keyword dict is built, the result is
    filled inline; a dict's values are the very objects the general path would pass);
    the others go through the decoder, from the object parsed from the text. It gives
    None (the general path runs the call from the start) for anything else, for text
    that is not a JSON object and for a dict that needs the decoder, before any of the
    tool's own code (decoder hooks, the function) has run.
    """
    if plan.exact or tool.parse_args is not None:
        return None
    made: Invoker | None = plan.invoke
    return _first_call if made is None else made


def _first_call(
    tool: Tool, arguments: Any, context: Any, call_id: str | None, name: str, rt: Settings
) -> ToolResult | None:
    """A tool's invoker until its first call: compiles the plan's (compiling it when the
    tool is made would double the cost of making a tool that is never called)."""
    plan = tool._plan
    if plan.generation != current_stamp():
        return None  # the general path plans afresh (and sets the new plan's invoker)
    made: Invoker | None = plan.invoke
    if made is None:
        with _MAKING:  # the plan's compiler names what it compiles: one at a time
            made = plan.invoke
            if made is None:
                made = plan.invoke = _make_invoker(plan)
                plan.compiler = None  # done with: what it compiled lives on in ``made``
    if tool.invoke is _first_call and tool._plan is plan:
        tool.invoke = made
    return made(tool, arguments, context, call_id, name, rt)


def _make_invoker(plan: Plan) -> Invoker:
    # The decoder's turn: from the object parsed here; a dict the caller passed goes to
    # the general path, which checks its keys are strings and copies it first.
    slow = "return None if d is arguments else tool._decoded(d, context, call_id, name, rt)"
    compiler = plan.compiler
    assert compiler is not None  # dropped only once this has run
    fused = compiler.fused(plan.node(None), slow)
    checks, call = fused if fused is not None else ([slow], [])
    filled = [
        line.format(content="value", value="value", call_id="call_id", name="name")
        for line in RESULT_LINES
    ]
    lines = [
        "def invoke(tool, arguments, context, call_id, name, rt):",
        "    if (",
        "        _stamps.stamp != GENERATION  # a registration since: plan afresh",
        "        or tool.timeout is not None",
        "        or rt.timeout is not None",
        "        or tool.gate is not None",
        "        or tool.parse_args is not None",
        "    ):",
        "        return None",
        "    kind = arguments.__class__",
        "    if kind is dict:  # parsed by the caller: its keys are looked at on the general path",
        "        d = arguments",
        "    elif kind is str or kind is bytes:",
        "        try:",
        "            d = _loads(arguments)",
        "        except _NotJSON:",
        "            return None",
        "        if d.__class__ is not dict:",
        "            return None",
        "    else:",
        "        return None",
        *("    " + line for line in checks),
    ]
    if call:
        lines += [
            "    func = tool.func",
            "    try:",
            *("        " + line for line in call),
            "    except Exception as exc:  # only the function raises in there",
            "        return tool._error(exc, call_id, name, rt)",
            "    except BaseException as exc:",
            "        if isinstance(exc, (KeyboardInterrupt, SystemExit)):",
            "            raise",
            "        return tool._error(exc, call_id, name, rt)",
            "    if value.__class__ is str:",
            "        limit = rt.max_result_chars",
            "        if limit is None or len(value) <= limit:",
            *("            " + line for line in filled),
            "            return result",
            "    return tool._settle(value, call_id, name, rt)",
        ]
    names = {
        **compiler.ns,
        **RESULT_NAMES,
        "_stamps": _stamps,
        "GENERATION": plan.generation,
        "_loads": orjson.loads,
        "_NotJSON": orjson.JSONDecodeError,
    }
    made: Invoker = run_source("\n".join(lines) + "\n", names, f"call {plan.name}", "invoke")
    return made


# -- the toolbox ---------------------------------------------------------------------------

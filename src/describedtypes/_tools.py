"""``Tool`` and ``Toolbox``: run a model's tool calls with typed arguments and helpful errors."""

from __future__ import annotations

import contextlib
import difflib
import enum
import functools
import inspect as _pyinspect
import threading
import traceback as _traceback
import weakref
from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar, overload

import attrs
import orjson

from . import adapters as _adapters
from ._annotate import _REGISTRY
from ._decode import _brief, _problem_lines, decode_arguments
from ._encode import encode
from ._jsontext import _json_problem
from ._lazy import LazyModule as _LazyModule
from ._schema import schema
from .adapters import check, check_request
from .errors import ArgumentError, DecodeError, SchemaError
from .inspect import ObjectNode, type_info

if TYPE_CHECKING:
    import asyncio
else:  # imported when a tool first runs asynchronously: it is slow to import
    asyncio = _LazyModule("asyncio", globals())

__all__ = ["ParseArgs", "Tool", "ToolCall", "ToolResult", "Toolbox"]

F = TypeVar("F", bound=Callable[..., Any])

Arguments = str | bytes | bytearray | Mapping[str, Any] | None
"""A call's arguments as a provider sends them: JSON text, or an already parsed object."""

ParseArgs = Callable[[dict[str, Any]], Mapping[str, Any] | None]
"""``parse_args(raw) -> kwargs``: replaces the built-in argument checking of one tool.

It receives the model's arguments as a parsed JSON object and returns the keyword
arguments for the function (``None`` means: pass ``raw`` unchanged). It rejects a call by
raising ``ArgumentError(message)``; the message reaches the model unchanged.
"""


@attrs.frozen
class ToolCall:
    """One tool call requested by a model.

    Args:
        name: The tool's name, as the model wrote it.
        arguments: The arguments: JSON text (OpenAI) or a parsed object (Anthropic).
        call_id: The provider's id for the call, echoed in the result
            (OpenAI ``call_id`` / ``tool_call_id``, Anthropic ``tool_use_id``).

    .. versionadded:: 0.1.0
    """

    name: str
    arguments: Arguments = None
    call_id: str | None = None


@attrs.frozen(kw_only=True)
class ToolResult:
    """The outcome of one tool call: what the model is told and what the application keeps.

    Attributes:
        content: The text for the model: a ``str`` return value as it is, any other value
            JSON-encoded, or for a failed call a message the model can correct itself from.
        value: The Python return value, for the application (None when the call failed).
        is_error: The call failed: a mistake in the call (unknown tool, bad arguments) or
            an exception inside the tool.
        call_id: The provider's id for the call, to send the result back under.
        name: The tool's name, as the model called it.
        exception: The exception behind a failed call, if one was raised.
        traceback: That exception's formatted traceback, for logs; never sent to the model.

    .. versionadded:: 0.1.0
    """

    content: str
    value: Any = None
    is_error: bool = False
    call_id: str | None = None
    name: str = ""
    exception: BaseException | None = attrs.field(default=None, repr=False, eq=False)
    traceback: str | None = attrs.field(default=None, repr=False, eq=False)


def _failure(
    content: str, call_id: str | None, name: str, exc: BaseException | None = None
) -> ToolResult:
    text = None
    if exc is not None:
        text = "".join(_traceback.format_exception(type(exc), exc, exc.__traceback__))
    return ToolResult(
        content=content, is_error=True, call_id=call_id, name=name, exception=exc, traceback=text
    )


def _listing(names: Sequence[str]) -> str:
    return ", ".join(names) if names else "(none)"


def _did_you_mean(word: str, choices: Iterable[str]) -> str:
    options = list(choices)
    close = difflib.get_close_matches(word, options, n=1, cutoff=0.6)
    if not close:
        lowered = {c.lower(): c for c in options}
        close = [lowered[word.lower()]] if word.lower() in lowered else []
    return f"Did you mean {close[0]!r}? " if close else ""


# -- running calls under the concurrency rule ----------------------------------------------


class _Gate:
    """Strictly private: keeps a ``concurrent=False`` tool to one call at a time.

    One thread lock covers every caller (threads, event loops, worker threads); an
    ``asyncio.Lock`` per event loop makes waiting coroutines queue in their loop instead
    of each parking a worker thread on the thread lock.
    """

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self._guard = threading.Lock()
        self._loop_locks: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = (
            weakref.WeakKeyDictionary()
        )

    def loop_lock(self) -> asyncio.Lock:
        loop = asyncio.get_running_loop()
        with self._guard:
            lock = self._loop_locks.get(loop)
            if lock is None:
                lock = self._loop_locks[loop] = asyncio.Lock()
            return lock

    @contextlib.asynccontextmanager
    async def hold(self) -> AsyncIterator[None]:
        """Hold the gate from a coroutine (both locks), without blocking the event loop."""
        async with self.loop_lock():
            if not self.lock.acquire(blocking=False):
                # Held by another thread or loop: wait for it on a worker thread. If this
                # coroutine is cancelled meanwhile, release the lock once it is acquired.
                waiter = asyncio.get_running_loop().run_in_executor(None, self.lock.acquire)
                try:
                    await asyncio.shield(waiter)
                except asyncio.CancelledError:
                    waiter.add_done_callback(lambda _: self.lock.release())
                    raise
            try:
                yield
            finally:
                self.lock.release()


def _run_coroutine(awaitable: Any) -> Any:
    """Run an awaitable to completion from synchronous code."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(_await(awaitable))
    # Called from inside a running event loop (a sync call of an async tool): run it on a
    # loop of its own in a helper thread. acall() is the non-blocking way.
    import concurrent.futures

    with concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="describedtypes") as pool:
        return pool.submit(asyncio.run, _await(awaitable)).result()


async def _await(awaitable: Any) -> Any:
    return await awaitable


def _is_awaitable(value: Any) -> bool:
    # inspect.isawaitable without its abc check on every plain return value.
    return value is not None and type(value) not in _PLAIN and _pyinspect.isawaitable(value)


_PLAIN = frozenset({str, int, float, bool, list, dict, tuple, bytes})


def _is_async(func: Any) -> bool:
    while isinstance(func, functools.partial):
        func = func.func
    if _pyinspect.iscoroutinefunction(func):
        return True
    if _pyinspect.isroutine(func) or isinstance(func, type):
        return False
    return _pyinspect.iscoroutinefunction(type(func).__call__)


def _body_only(name: str, description: str | None, body: dict[str, Any], strict: bool) -> Any:
    return body


@functools.lru_cache(maxsize=64)
def _unwrapped(adapter: _adapters.Adapter) -> _adapters.Adapter:
    # The adapter's rules without its wrapper or name rule: the tool's own name and
    # description are put into the wrapper (they may differ from the function's).
    return attrs.evolve(adapter, wrap=_body_only, name_pattern=None)


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

    Raises:
        SchemaError: ``func`` cannot be described to a model (a parameter without a type
            annotation, ``*args``/``**kwargs``, positional-only parameters, ...).

    .. versionadded:: 0.1.0
    """

    __slots__ = (
        "_description",
        "_fill_none",
        "_gate",
        "_generation",
        "_node",
        "concurrent",
        "func",
        "is_async",
        "name",
        "parse_args",
    )

    def __init__(
        self,
        func: Callable[..., Any],
        *,
        name: str | None = None,
        description: str | None = None,
        parse_args: ParseArgs | None = None,
        concurrent: bool = True,
    ) -> None:
        _check_options(func, name, description, parse_args)
        _check_not_unbound(func)
        self.func = func
        self._generation = -1
        self._node = self._current_node()
        self.name: str = name if name is not None else self._node.name
        self._description = description
        self.parse_args = parse_args
        self.concurrent = bool(concurrent)
        self.is_async = _is_async(func)
        self._gate = None if self.concurrent else _Gate()

    def __repr__(self) -> str:
        extra = "" if self.concurrent else ", concurrent=False"
        return f"Tool({self.name!r}, func={self.func!r}{extra})"

    def _current_node(self) -> ObjectNode:
        # Inspected once per annotation change: a callable object may be unhashable,
        # which type_info cannot cache.
        generation = _REGISTRY.generation
        if generation != self._generation:
            node = type_info(self.func)
            if not isinstance(node, ObjectNode) or not node.is_function:
                msg = f"{self.func!r} is not a function; a tool must be a callable"
                raise SchemaError(msg, type_=self.func)
            self._node = node
            # ``x: T | None`` without a default may be left out by the model (it is not
            # required), but Python needs a value for it: None.
            self._fill_none = tuple(
                f.init_name for f in node.fields if f.nullable and not f.has_default
            )
            self._generation = generation
        return self._node

    @property
    def node(self) -> ObjectNode:
        """The inspected parameters (``describedtypes.inspect.ObjectNode``)."""
        return self._current_node()

    @property
    def description(self) -> str | None:
        """The description the model sees, or None when nothing describes the tool."""
        return self._description if self._description is not None else self.node.description

    @property
    def required_parameters(self) -> list[str]:
        """The argument names the model must send."""
        return [f.key for f in self.node.fields if f.required and not f.nullable]

    @property
    def accepted_parameters(self) -> list[str]:
        """Every argument name the model may send."""
        return [f.key for f in self.node.fields]

    def definition(self, llm_adapter: _adapters.Adapter) -> Any:
        """This tool's definition in ``llm_adapter``'s shape (e.g. ``OPENAI_TOOLS``).

        Raises:
            SchemaError: The tool cannot be described for that provider (its name, a
                parameter type), with the fix.
        """
        _require_adapter(llm_adapter)
        if not llm_adapter.valid_name(self.name):
            msg = (
                f"the tool name {self.name!r} is not accepted by {llm_adapter.name} (it must "
                f"match {llm_adapter.name_pattern}); register the tool with name=..."
            )
            raise SchemaError(msg, path=self.name, type_=self.func)
        body = dict(schema(self.func, _unwrapped(llm_adapter)))
        description = self.description
        if self._description is not None and "description" in body:
            body["description"] = self._description
        wrapped = llm_adapter.wrap(self.name, description, body, llm_adapter.strict)
        # The body was checked as it was built; this adds the wrapper's own rules.
        problems = check(wrapped, llm_adapter)
        if problems:
            text = "; ".join(str(p) for p in problems)
            msg = f"{llm_adapter.name} would reject the tool {self.name!r}: {text}"
            raise SchemaError(msg, path=self.name, type_=self.func)
        return wrapped

    # -- running -----------------------------------------------------------------------

    def _prepare(
        self, arguments: Arguments, context: Any, call_id: str | None, name: str
    ) -> dict[str, Any] | ToolResult:
        """The keyword arguments for the function, or the error result to return."""
        node = self._current_node()
        raw = _parse_raw(arguments)
        if isinstance(raw, str):
            return _failure(self._argument_message([("$", raw)]), call_id, name)
        if self.parse_args is not None:
            try:
                parsed: Any = self.parse_args(raw)
            except ArgumentError as exc:
                return _failure(str(exc), call_id, name, exc)
            except Exception as exc:
                return _failure(self._exception_message(exc), call_id, name, exc)
            if parsed is None:
                kwargs = raw
            elif isinstance(parsed, Mapping):
                kwargs = dict(parsed)
            else:
                wrong = TypeError(
                    f"parse_args of tool {self.name!r} returned {type(parsed).__name__}; "
                    "return a dict of keyword arguments (or None to keep the raw ones)"
                )
                return _failure(self._exception_message(wrong), call_id, name, wrong)
        else:
            try:
                kwargs = decode_arguments(node, raw)
            except DecodeError as exc:
                return _failure(self._argument_message(exc.errors), call_id, name, exc)
            for param in self._fill_none:
                kwargs.setdefault(param, None)
        for param in node.context_params:
            kwargs[param] = context
        return kwargs

    def _argument_message(self, errors: Sequence[tuple[str, str]]) -> str:
        lines = _problem_lines(list(errors))  # the first twenty; long paths shortened
        return (
            f"Invalid arguments for tool {self.name!r}:\n" + "\n".join(lines) + "\n"
            f"Required parameters: {_listing(self.required_parameters)}. "
            f"Accepted parameters: {_listing(self.accepted_parameters)}."
        )

    def _exception_message(self, exc: BaseException) -> str:
        text = str(exc)
        kind = type(exc).__name__
        return f"Tool {self.name!r} failed: {kind}: {text}" if text else (
            f"Tool {self.name!r} failed: {kind}"
        )

    def _finish(self, value: Any, call_id: str | None, name: str) -> ToolResult:
        if type(value) is str:
            return ToolResult(content=value, value=value, call_id=call_id, name=name)
        if isinstance(value, ToolResult):
            changes: dict[str, Any] = {}
            if value.call_id is None:
                changes["call_id"] = call_id
            if not value.name:
                changes["name"] = name
            return attrs.evolve(value, **changes) if changes else value
        try:
            content = _content(value)
        except Exception as exc:
            failed = _failure(
                f"Tool {self.name!r} failed: its result could not be encoded as JSON "
                f"({type(exc).__name__}: {exc})",
                call_id,
                name,
                exc,
            )
            return attrs.evolve(failed, value=value)
        return ToolResult(content=content, value=value, call_id=call_id, name=name)

    def _error(self, exc: Exception, call_id: str | None, name: str) -> ToolResult:
        if isinstance(exc, ArgumentError):  # the tool's own words for the model
            return _failure(str(exc), call_id, name, exc)
        return _failure(self._exception_message(exc), call_id, name, exc)

    def call(
        self, arguments: Arguments = None, *, context: Any = None, call_id: str | None = None,
        _name: str | None = None,
    ) -> ToolResult:
        """Run one call synchronously; never raises for a mistake in the call.

        An async tool is run to completion on an event loop of its own.
        """
        name = self.name if _name is None else _name
        kwargs = self._prepare(arguments, context, call_id, name)
        if isinstance(kwargs, ToolResult):
            return kwargs
        try:
            if self._gate is None:
                value = self.func(**kwargs)
                if _is_awaitable(value):
                    value = _run_coroutine(value)
            else:
                with self._gate.lock:
                    value = self.func(**kwargs)
                    if _is_awaitable(value):
                        value = _run_coroutine(value)
        except Exception as exc:
            return self._error(exc, call_id, name)
        return self._finish(value, call_id, name)

    async def acall(
        self, arguments: Arguments = None, *, context: Any = None, call_id: str | None = None,
        _name: str | None = None,
    ) -> ToolResult:
        """Run one call from a coroutine; never raises for a mistake in the call.

        A synchronous tool runs in a worker thread, so it does not block the event loop.
        """
        name = self.name if _name is None else _name
        kwargs = self._prepare(arguments, context, call_id, name)
        if isinstance(kwargs, ToolResult):
            return kwargs
        try:
            if self.is_async:
                if self._gate is None:
                    value = await self.func(**kwargs)
                else:
                    async with self._gate.hold():
                        value = await self.func(**kwargs)
            elif self._gate is None:
                value = await asyncio.to_thread(_call_sync, self.func, kwargs, None)
            else:
                # Queue in this loop; the worker thread takes the thread lock itself, so
                # a cancelled caller never lets two runs overlap.
                async with self._gate.loop_lock():
                    value = await asyncio.to_thread(_call_sync, self.func, kwargs, self._gate.lock)
            if _is_awaitable(value):
                value = await value
        except Exception as exc:
            return self._error(exc, call_id, name)
        return self._finish(value, call_id, name)


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


def _require_adapter(adapter: Any) -> None:
    if not isinstance(adapter, _adapters.Adapter):
        msg = f"llm_adapter must be an Adapter such as OPENAI_TOOLS, got {adapter!r}"
        raise SchemaError(msg)


def _call_sync(func: Callable[..., Any], kwargs: dict[str, Any], lock: Any) -> Any:
    if lock is None:
        return func(**kwargs)
    with lock:
        return func(**kwargs)


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


def _parse_raw(arguments: Any) -> dict[str, Any] | str:
    """The arguments as a new dict, or the problem with them as text."""
    if arguments is None:
        return {}
    if isinstance(arguments, (str, bytes, bytearray)):
        try:
            raw: Any = orjson.loads(arguments)
        except orjson.JSONDecodeError as exc:
            if not arguments.strip():  # some providers send "" for a call without arguments
                return {}
            return f"the arguments are not valid JSON: {_json_problem(exc, arguments)}"
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


def _content(value: Any) -> str:
    """The text for the model: a str as it is, anything else as JSON."""
    if type(value) is str:
        return value
    if isinstance(value, str) and not isinstance(value, enum.Enum):
        return str.__str__(value)
    return encode(value).decode()


# -- the toolbox ---------------------------------------------------------------------------


class Toolbox:
    """Tools by name: their definitions for a provider, and the runner of the model's calls.

    Args:
        tools: Functions or ``Tool`` objects to register right away.

    A mistake in a model's call never raises out of ``call``, ``acall`` or
    ``acall_many``: an unknown tool, missing, unrecognized or wrongly typed arguments and
    an exception inside the tool each give a ``ToolResult`` with ``is_error=True`` and a
    message the model can correct itself from.

    .. versionadded:: 0.1.0
    """

    def __init__(self, tools: Iterable[Callable[..., Any] | Tool] = ()) -> None:
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
                not concurrent
            ):
                msg = (
                    f"{func!r} is already a Tool; set name=, description=, parse_args= and "
                    "concurrent= when making it, or pass its function instead"
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
    ) -> Callable[[F], F]: ...

    def tool(
        self,
        func: Callable[..., Any] | None = None,
        *,
        name: str | None = None,
        description: str | None = None,
        parse_args: ParseArgs | None = None,
        concurrent: bool = True,
    ) -> Any:
        """Decorator: register the function as a tool and return it unchanged.

        ``@toolbox.tool`` or ``@toolbox.tool(name=..., description=..., parse_args=...,
        concurrent=False)``.
        """
        options: dict[str, Any] = {
            "name": name,
            "description": description,
            "parse_args": parse_args,
            "concurrent": concurrent,
        }
        if func is not None:
            self.add(func, **options)
            return func

        def decorator(f: F) -> F:
            self.add(f, **options)
            return f

        return decorator

    def definitions(self, llm_adapter: _adapters.Adapter) -> list[Any]:
        """Every tool's definition in ``llm_adapter``'s shape, in registration order.

        For example ``OPENAI_TOOLS`` (Responses API ``tools=``), ``OPENAI_CHAT_TOOLS``,
        ``ANTHROPIC_TOOLS``, ``GEMINI`` or ``MCP_TOOLS``.

        Raises:
            SchemaError: A tool cannot be described for that provider, or the tools
                together break one of its per-request limits.
        """
        found = [tool.definition(llm_adapter) for tool in self]
        problems = check_request(found, llm_adapter)
        if problems:
            text = "; ".join(str(p) for p in problems)
            msg = f"{llm_adapter.name} would reject these tools together: {text}"
            raise SchemaError(msg)
        return found

    def _lookup(self, name: Any, call_id: str | None) -> Tool | ToolResult:
        tool = self._tools.get(name) if isinstance(name, str) else None
        if tool is not None:
            return tool
        shown = name if isinstance(name, str) else _brief(name)
        hint = _did_you_mean(shown, self._tools) if isinstance(name, str) else ""
        # _brief: a huge name is cut short in the text for the model.
        content = f"Unknown tool {_brief(shown)}. {hint}Available tools: {_listing(self.names)}."
        return _failure(content, call_id, shown)

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
        tool = self._lookup(name, call_id)
        if isinstance(tool, ToolResult):
            return tool
        return tool.call(arguments, context=context, call_id=call_id, _name=name)

    async def acall(
        self,
        name: str,
        arguments: Arguments = None,
        *,
        context: Any = None,
        call_id: str | None = None,
    ) -> ToolResult:
        """``call`` for coroutines: sync tools run in a worker thread."""
        tool = self._lookup(name, call_id)
        if isinstance(tool, ToolResult):
            return tool
        return await tool.acall(arguments, context=context, call_id=call_id, _name=name)

    async def acall_many(
        self, calls: Iterable[ToolCall], *, context: Any = None
    ) -> list[ToolResult]:
        """Run several calls concurrently; the results come back in the calls' order.

        Tools registered with ``concurrent=False`` still run one call at a time.

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
        return list(
            await asyncio.gather(
                *(
                    self.acall(c.name, c.arguments, context=context, call_id=c.call_id)
                    for c in items
                )
            )
        )

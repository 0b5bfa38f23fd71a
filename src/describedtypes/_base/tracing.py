"""OpenTelemetry spans by the GenAI semantic conventions, when opentelemetry-api is there.

https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-spans/: a request is a CLIENT
span named ``{gen_ai.operation.name} {gen_ai.request.model}``, a tool call an INTERNAL span
named ``execute_tool {gen_ai.tool.name}``. The tracer is the global provider's, under the
instrumentation scope ``describedtypes``; ``opentelemetry`` is looked up at the first
request, never at ``import describedtypes``, and without it every span here is a shared
object that does nothing. Message contents are recorded only when the standard switch
``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`` is ``true`` (or ``SPAN_ONLY`` /
``SPAN_AND_EVENT``).
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
from collections.abc import Iterator
from typing import Any

__all__ = ["NO_SPAN", "capture_content", "enabled", "request_span", "tool_span", "tracer"]

SCOPE = "describedtypes"
_UNSET: Any = object()
_tracer: Any = _UNSET
_trace: Any = None  # the opentelemetry.trace module, once found
_on = False  # a tracer provider is set: OpenTelemetry lets one be set once per process
#: The opentelemetry.trace module once it is known to keep the provider in
#: ``_TRACER_PROVIDER`` (None until then, or when it keeps it elsewhere).
_holder: Any = None


def tracer() -> Any:
    """The library's tracer, or None when opentelemetry-api is not installed."""
    global _tracer, _trace
    if _tracer is _UNSET:
        if importlib.util.find_spec("opentelemetry") is None:
            _tracer = None
        else:
            from importlib.metadata import PackageNotFoundError, version

            from opentelemetry import trace

            try:
                own = version("describedtypes")
            except PackageNotFoundError:  # a source tree that was never installed
                own = None
            # A ProxyTracer until the application sets a provider; it follows it then.
            # get_tracer() reads the OTEL_PYTHON_TRACER_PROVIDER variable, as OpenTelemetry
            # does on the first look-up of the provider.
            _tracer = trace.get_tracer(SCOPE, own)
            _trace = trace
    return _tracer


def enabled() -> bool:
    """Whether spans would be recorded: opentelemetry is there and the application set a
    tracer provider (checked per use, so a provider set later is picked up).

    Asked on every tool call, so it costs a few global reads once the answer is known:
    without opentelemetry it is no, and once a provider is set it is yes for good. In
    between (opentelemetry installed, no provider yet) it reads the one global that
    OpenTelemetry's own proxy tracer reads (the module attribute itself, once it is known
    to be there), instead of ``get_tracer_provider()``, which looks up an environment
    variable on every call.
    """
    if _on:
        return True
    if _tracer is None:
        return False
    if _holder is not None and _holder._TRACER_PROVIDER is None:
        return False
    return _look()


def _look() -> bool:
    """``enabled()`` the long way: the first time, and for an opentelemetry-api that keeps
    its provider elsewhere."""
    global _on, _holder
    if _tracer is None or (_tracer is _UNSET and tracer() is None):
        return False
    provider = getattr(_trace, "_TRACER_PROVIDER", _UNSET)
    if provider is _UNSET:  # an opentelemetry-api that keeps it elsewhere: ask it
        provider = _trace.get_tracer_provider()
        on = type(provider).__name__ != "ProxyTracerProvider"
    else:
        _holder = _trace  # read straight from now on
        on = provider is not None
    _on = on
    return on


def capture_content() -> bool:
    """Whether the user opted in to message contents on spans."""
    value = os.environ.get("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "")
    return value.strip().lower() in {"true", "span_only", "span_and_event"}


class _NoSpan:
    """What the spans are without OpenTelemetry: every method does nothing."""

    def set(self, key: str, value: Any) -> None:
        pass

    def usage(self, usage: Any) -> None:
        pass

    def failed(self, kind: str) -> None:
        pass


NO_SPAN = _NoSpan()


class _Span(_NoSpan):
    __slots__ = ("span",)

    def __init__(self, span: Any) -> None:
        self.span = span

    def set(self, key: str, value: Any) -> None:
        if value is not None:
            self.span.set_attribute(key, value)

    def usage(self, usage: Any) -> None:
        self.span.set_attribute("gen_ai.usage.input_tokens", usage.input_tokens)
        self.span.set_attribute("gen_ai.usage.output_tokens", usage.output_tokens)
        if usage.cached_input_tokens:
            self.span.set_attribute(
                "gen_ai.usage.cache_read.input_tokens", usage.cached_input_tokens
            )
        if usage.reasoning_tokens:
            self.span.set_attribute(
                "gen_ai.usage.reasoning.output_tokens", usage.reasoning_tokens
            )

    def failed(self, kind: str) -> None:
        from opentelemetry.trace import Status, StatusCode

        self.span.set_attribute("error.type", kind)
        self.span.set_status(Status(StatusCode.ERROR))


@contextlib.contextmanager
def request_span(
    operation: str, provider: str, model: str, *, current: bool = True
) -> Iterator[_NoSpan]:
    """A span around one request to the model. As the current span, the SDK's own span
    (where it has one) becomes its child; a stream's span is not made current, since the
    caller's code runs between its events."""
    found = tracer()
    if found is None:
        yield NO_SPAN
        return
    from opentelemetry.trace import SpanKind

    attributes = {
        "gen_ai.operation.name": operation,
        "gen_ai.provider.name": provider,
        "gen_ai.request.model": model,
    }
    name = f"{operation} {model}"
    if current:
        opened = found.start_as_current_span(
            name, kind=SpanKind.CLIENT, attributes=attributes,
            record_exception=False, set_status_on_exception=False,
        )
    else:
        opened = found.start_span(
            name, kind=SpanKind.CLIENT, attributes=attributes,
            record_exception=False, set_status_on_exception=False,
        )
    with opened as span:
        wrapped = _Span(span)
        try:
            yield wrapped
        except GeneratorExit:
            raise  # a stream the caller stopped reading: not a failure
        except BaseException as exc:
            wrapped.failed(type(exc).__qualname__)
            raise


@contextlib.contextmanager
def tool_span(name: str, call_id: str | None, *, current: bool = True) -> Iterator[_NoSpan]:
    """A span around one tool call. The calls of a turn start eagerly and may finish on
    a task of their own (a copy of the context), so theirs is not made current: a context
    attached in one and detached in the other is an error of OpenTelemetry's."""
    found = tracer()
    if found is None:
        yield NO_SPAN
        return
    from opentelemetry.trace import SpanKind

    attributes = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": name,
        "gen_ai.tool.type": "function",
    }
    if call_id is not None:
        attributes["gen_ai.tool.call.id"] = call_id
    start = found.start_as_current_span if current else found.start_span
    with start(
        f"execute_tool {name}", kind=SpanKind.INTERNAL, attributes=attributes,
        record_exception=False, set_status_on_exception=False,
    ) as span:
        wrapped = _Span(span)
        try:
            yield wrapped
        except BaseException as exc:
            wrapped.failed(type(exc).__qualname__)
            raise

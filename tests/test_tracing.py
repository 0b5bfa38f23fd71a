"""OpenTelemetry: one span per request by the GenAI semantic conventions, under the
library's own instrumentation scope, around the SDK's own spans; contents only on opt-in;
nothing imported without opentelemetry."""

from __future__ import annotations

import json
from typing import Any

import pytest

pytest.importorskip("opentelemetry.sdk", reason="the [otel] tests need opentelemetry-sdk")

from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from describedtypes import extract
from tests.runtime.isolated import run_isolated
from tests.test_accounting import EXPECTED, with_usage
from tests.test_ask_sdk import GOOD, KINDS, WEATHER, Kind, Weather, ask

EXPORTER = InMemorySpanExporter()


@pytest.fixture(autouse=True)
def spans() -> InMemorySpanExporter:
    """The global tracer provider (it can be set once per process) with a memory exporter."""
    if not isinstance(trace.get_tracer_provider(), TracerProvider):
        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(EXPORTER))
        trace.set_tracer_provider(provider)
    EXPORTER.clear()
    return EXPORTER


def ours(exporter: InMemorySpanExporter) -> list[Any]:
    return [s for s in exporter.get_finished_spans()
            if s.instrumentation_scope.name == "describedtypes"]


PROVIDERS = {"chat": "openai", "responses": "openai", "anthropic": "anthropic",
             "gemini": "gcp.gemini"}


@pytest.mark.parametrize("kind", KINDS, ids=[k.name for k in KINDS])
def test_each_request_is_a_genai_span(kind: Kind, spans: InMemorySpanExporter) -> None:
    """Name, provider, model, usage and finish reason by the conventions' names."""
    value, _ = ask(kind, False, [with_usage(kind, kind.text(GOOD))])
    assert value == WEATHER
    [span] = ours(spans)
    operation = "generate_content" if kind.name == "gemini" else "chat"
    assert span.name == f"{operation} m"
    assert span.kind == trace.SpanKind.CLIENT
    attributes = dict(span.attributes)
    assert attributes["gen_ai.operation.name"] == operation
    assert attributes["gen_ai.provider.name"] == PROVIDERS[kind.name]
    assert attributes["gen_ai.request.model"] == "m"
    assert attributes["gen_ai.usage.input_tokens"] == EXPECTED.input_tokens
    assert attributes["gen_ai.usage.output_tokens"] == EXPECTED.output_tokens
    assert len(attributes["gen_ai.response.finish_reasons"]) == 1
    assert "gen_ai.input.messages" not in attributes  # contents only on opt-in


def test_the_sdks_own_span_is_a_child_of_ours(spans: InMemorySpanExporter) -> None:
    """The Anthropic SDK traces its calls itself: its span sits inside ours."""
    kind = next(k for k in KINDS if k.name == "anthropic")
    ask(kind, False, [kind.text(GOOD)])
    [mine] = ours(spans)
    theirs = [s for s in spans.get_finished_spans() if s is not mine]
    for span in theirs:  # none when this SDK version does not trace
        assert span.parent is not None
        assert span.parent.span_id == mine.context.span_id


def test_contents_are_recorded_only_on_opt_in(
    spans: InMemorySpanExporter, monkeypatch: pytest.MonkeyPatch
) -> None:
    """OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true adds the messages."""
    monkeypatch.setenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "true")
    kind = KINDS[0]
    ask(kind, False, [kind.text(GOOD)])
    [span] = ours(spans)
    sent = json.loads(span.attributes["gen_ai.input.messages"])
    assert sent == [{"role": "user", "content": "Weather in Paris?"}]
    assert "Paris" in span.attributes["gen_ai.output.messages"]


def test_a_failed_request_is_an_error_span(spans: InMemorySpanExporter) -> None:
    """An exception from the SDK call sets error.type and the status, and propagates."""

    class Boom(Exception):
        pass

    class Completions:
        def create(self, **kwargs: Any) -> Any:
            raise Boom

    client = type("Client", (), {})()
    client.chat = type("Chat", (), {"completions": Completions()})()
    client.responses = type("R", (), {"create": lambda self, **k: None})()
    with pytest.raises(Boom):
        extract(Weather, client, model="m", messages="hi")
    [span] = ours(spans)
    assert span.attributes["error.type"] == "test_a_failed_request_is_an_error_span.<locals>.Boom"
    assert span.status.status_code == StatusCode.ERROR


def test_without_opentelemetry_nothing_is_imported_and_all_works() -> None:
    """With opentelemetry blocked, extract() works; importing the library never imports it."""
    out = run_isolated("""
        import sys, importlib.abc

        class Block(importlib.abc.MetaPathFinder):
            def find_spec(self, name, path=None, target=None):
                if name == "opentelemetry" or name.startswith("opentelemetry."):
                    raise ModuleNotFoundError(name)
                return None

        import describedtypes
        print("imported:", any(m.startswith("opentelemetry") for m in sys.modules))
        sys.meta_path.insert(0, Block())
        from describedtypes._base import tracing
        tracing._tracer = tracing._UNSET
        import importlib.util
        real = importlib.util.find_spec
        importlib.util.find_spec = lambda n, *a: None if n == "opentelemetry" else real(n, *a)
        with tracing.request_span("chat", "openai", "m") as span:
            span.set("x", 1)
        print("span:", type(span).__name__)
    """)
    assert "imported: False" in out
    assert "span: _NoSpan" in out


def test_each_tool_call_is_an_execute_tool_span(spans: InMemorySpanExporter) -> None:
    """Toolbox.run: each tool call is an execute_tool span; a failed call is an error."""
    from tests.test_ask_sdk import run_loop

    kind = KINDS[0]
    replies = [kind.calls([("c1", "get_weather", {"city": "Paris"}),
                           ("c2", "get_weather", {"town": "Oslo"})]),
               kind.text("Sunny.")]
    run_loop(kind, False, replies)
    tools = [s for s in ours(spans) if s.name == "execute_tool get_weather"]
    assert len(tools) == 2
    good, bad = sorted(tools, key=lambda s: s.attributes["gen_ai.tool.call.id"])
    assert good.attributes["gen_ai.operation.name"] == "execute_tool"
    assert good.attributes["gen_ai.tool.name"] == "get_weather"
    assert good.kind == trace.SpanKind.INTERNAL
    assert good.status.status_code != StatusCode.ERROR
    assert bad.attributes["error.type"]
    assert bad.status.status_code == StatusCode.ERROR


def test_toolbox_call_is_traced_too(spans: InMemorySpanExporter) -> None:
    """A direct Toolbox.call (no model) is one execute_tool span."""
    from tests.test_ask_sdk import make_box

    result = make_box().call("get_weather", {"city": "Paris"}, call_id="x1")
    assert not result.is_error
    [span] = [s for s in ours(spans) if s.name.startswith("execute_tool")]
    assert span.attributes["gen_ai.tool.call.id"] == "x1"


def test_tool_calls_ask_opentelemetry_nothing_until_a_provider_is_set() -> None:
    """With opentelemetry installed and no provider, a tool call looks nothing up in it
    (no get_tracer_provider() and its environment read per call); a provider set later is
    still picked up, and from then on every call is a span."""
    out = run_isolated("""
        from opentelemetry import trace
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import SimpleSpanProcessor
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
        from describedtypes import Toolbox

        def double(x: int) -> int:
            return 2 * x

        box = Toolbox([double])
        assert box.call("double", '{"x": 1}').value == 2
        lookups = []
        real = trace.get_tracer_provider
        trace.get_tracer_provider = lambda: lookups.append(1) or real()
        for _ in range(5):
            assert box.call("double", '{"x": 2}').value == 4
        print("lookups:", len(lookups))
        exporter = InMemorySpanExporter()
        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(exporter))
        trace.set_tracer_provider(provider)
        box.call("double", '{"x": 3}')
        box.call("double", '{"x": 4}')
        print("spans:", [s.name for s in exporter.get_finished_spans()])
    """)
    assert "lookups: 0" in out
    assert "spans: ['execute_tool double', 'execute_tool double']" in out

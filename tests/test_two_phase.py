"""Tools with a typed answer: combined requests where the provider allows tool calls beside
a format, two phases where the format would constrain every turn. Run through the real
openai, anthropic and google-genai SDKs over mock transports; every request body is
checked against the SDK's own request types (``tests/standin.py``)."""

from __future__ import annotations

import asyncio
import importlib
import json
from typing import Any

import pytest

from describedtypes import (
    ANTHROPIC,
    ANTHROPIC_TOOLS,
    GEMINI,
    OPENAI,
    VLLM,
    VLLM_TOOLS,
    RequestPlan,
    Toolbox,
    adapters,
    schema,
)
from describedtypes._vendors.detect import FORMATS
from describedtypes.errors import SchemaError

from .standin import problems
from .test_ask_sdk import (
    BAD,
    GOOD,
    WEATHER,
    Account,
    Chat,
    Claude,
    Gemini,
    Responses,
    Weather,
    make_box,
)


def _respond(request: Any, data: dict[str, Any]) -> Any:
    module = importlib.import_module(type(request).__module__.split(".")[0])
    return module.Response(200, json=data)


class ChatServer:
    """A Chat Completions stand-in that keeps every request body, each checked against
    the openai SDK's own request types first."""

    def __init__(self) -> None:
        self.bodies: list[dict[str, Any]] = []
        self.kind = Chat()

    def take(self, request: Any) -> dict[str, Any]:
        body: dict[str, Any] = json.loads(request.content)
        self.bodies.append(body)
        wrong = problems("openai", "/v1/chat/completions", body)
        assert not wrong, wrong
        return body


class VllmLike(ChatServer):
    """A stand-in that behaves like vLLM (and SGLang, llama.cpp, Ollama): while a
    ``response_format`` is set, the output is constrained to it and no tool call can be
    made; without one, the model calls ``get_weather`` once, then answers in words."""

    def __init__(self, answers: list[str] | None = None) -> None:
        super().__init__()
        self.answers = list(answers or [GOOD])

    def __call__(self, request: Any) -> Any:
        body = self.take(request)
        if "response_format" in body:  # constrained: JSON, never a tool call
            return _respond(request, self.kind.text(self.answers.pop(0)))
        ran = any(m.get("role") == "tool" for m in body["messages"])
        if not ran and body.get("tools"):
            return _respond(request, self.kind.calls([("call_1", "get_weather",
                                                       {"city": "Paris"})]))
        return _respond(request, self.kind.text("It is 21.5 degrees in Paris."))


def run(client: Any, is_async: bool, **kwargs: Any) -> Any:
    box = make_box()
    kwargs.setdefault("messages", "Weather in Paris?")
    kwargs.setdefault("context", Account("ada"))
    if is_async:
        return asyncio.run(box.arun(client, model="m", details=True, **kwargs))
    return box.run(client, model="m", details=True, **kwargs)


@pytest.mark.parametrize("is_async", [False, True], ids=["sync", "async"])
def test_vllm_runs_two_phases(is_async: bool) -> None:
    """On vLLM: tool turns without the format, then one closing request with the format
    and no tools; the tool ran and the answer decodes."""
    server = VllmLike()
    client = Chat().client(server, is_async=is_async)
    result = run(client, is_async, output_type=Weather, llm_adapter=VLLM)
    assert result.output == WEATHER
    assert [t.phase for t in result.turns] == ["tools", "tools", "closing"]
    first, second, closing = server.bodies
    assert "response_format" not in first
    assert "response_format" not in second
    assert first["tools"] == make_box().definitions(VLLM_TOOLS)
    assert "tools" not in closing
    assert "tool_choice" not in closing
    assert closing["response_format"] == {"type": "json_schema",
                                          "json_schema": schema(Weather, VLLM)}
    # the closing request holds the whole conversation and asks for the answer
    assert closing["messages"][-1]["role"] == "user"
    assert any(m["role"] == "tool" for m in closing["messages"])
    assert result.turns[0].calls[0][1].value["city"] == "Paris"
    plan = result.plan
    assert isinstance(plan, RequestPlan)
    assert plan.phases == "two-phase"
    assert plan.output_format == schema(Weather, VLLM)
    assert plan.tools == first["tools"]


def test_combined_on_vllm_never_calls_a_tool() -> None:
    """What two phases avoid: with the format on every turn, the vLLM-like server can never
    call the tool, so the answer is made without it."""
    server = VllmLike()
    client = Chat().client(server, is_async=False)
    result = run(client, False, output_type=Weather, llm_adapter=VLLM, phases="combined")
    assert [t.phase for t in result.turns] == ["combined"]
    assert not result.turns[0].calls
    assert result.plan.phases == "combined"


def test_closing_request_retries_as_extract_does() -> None:
    """A closing answer that does not decode is sent back with the problems; the retry
    is another closing request (format, no tools)."""
    server = VllmLike([BAD, GOOD])
    client = Chat().client(server, is_async=False)
    result = run(client, False, output_type=Weather, llm_adapter=VLLM)
    assert result.output == WEATHER
    assert [t.phase for t in result.turns] == ["tools", "tools", "closing", "closing"]
    retry = server.bodies[-1]
    assert "tools" not in retry
    assert "temprature" in retry["messages"][-1]["content"]


def test_openai_is_combined_by_default() -> None:
    """OpenAI Chat takes the format beside the tools: one kind of request throughout."""
    kind = Chat()
    replies = [kind.calls([("c1", "get_weather", {"city": "Paris"})]), kind.text(GOOD)]
    bodies: list[dict[str, Any]] = []

    def handler(request: Any) -> Any:
        body = json.loads(request.content)
        bodies.append(body)
        assert not problems("openai", "/v1/chat/completions", body)
        return _respond(request, replies.pop(0))

    result = run(kind.client(handler, is_async=False), False, output_type=Weather)
    assert result.output == WEATHER
    assert [t.phase for t in result.turns] == ["combined", "combined"]
    assert all(b["response_format"]["json_schema"] == schema(Weather, OPENAI) for b in bodies)
    assert all("tools" in b for b in bodies)


def test_responses_two_phase_when_asked() -> None:
    """phases="two-phase" on the Responses API: the closing request has text.format and no
    tools, and passes the SDK's request types."""
    kind = Responses()
    replies = [kind.calls([("c1", "get_weather", {"city": "Paris"})]),
               kind.text("Sunny."), kind.text(GOOD)]
    bodies: list[dict[str, Any]] = []

    def handler(request: Any) -> Any:
        body = json.loads(request.content)
        bodies.append(body)
        wrong = problems("openai", "/v1/responses", body)
        assert not wrong, wrong
        return _respond(request, replies.pop(0))

    result = run(kind.client(handler, is_async=False), False, output_type=Weather,
                 phases="two-phase", api="responses")
    assert result.output == WEATHER
    assert "text" not in bodies[0]
    assert "tools" not in bodies[2]
    assert bodies[2]["text"]["format"]["schema"] == schema(Weather, OPENAI)["schema"]


@pytest.mark.parametrize("is_async", [False, True], ids=["sync", "async"])
def test_anthropic_two_phase_keeps_tools_with_tool_choice_none(is_async: bool) -> None:
    """Anthropic needs the tools defined while the conversation holds tool_use blocks: its
    closing request keeps them with tool_choice none, and the format."""
    kind = Claude()
    replies = [kind.calls([("c1", "get_weather", {"city": "Paris"})]),
               kind.text("Sunny."), kind.text(GOOD)]
    bodies: list[dict[str, Any]] = []

    def handler(request: Any) -> Any:
        body = json.loads(request.content)
        bodies.append(body)
        wrong = problems("anthropic", "/v1/messages", body)
        assert not wrong, wrong
        return _respond(request, replies.pop(0))

    result = run(kind.client(handler, is_async=is_async), is_async, output_type=Weather,
                 phases="two-phase")
    assert result.output == WEATHER
    assert "output_config" not in bodies[0]
    closing = bodies[2]
    assert closing["tool_choice"] == {"type": "none"}
    assert closing["tools"] == bodies[0]["tools"]
    assert closing["output_config"]["format"] == schema(Weather, ANTHROPIC)
    assert closing["messages"][-1]["role"] == "user"


def test_anthropic_default_is_combined_and_counts_the_format() -> None:
    """Anthropic takes both in one request; the plan counts the format in the budgets."""
    kind = Claude()
    replies = [kind.text(GOOD)]
    bodies: list[dict[str, Any]] = []

    def handler(request: Any) -> Any:
        bodies.append(json.loads(request.content))
        return _respond(request, replies.pop(0))

    result = run(kind.client(handler, is_async=False), False, output_type=Weather)
    assert result.plan.phases == "combined"
    assert bodies[0]["output_config"]["format"] == result.plan.output_format
    assert bodies[0]["tools"] == result.plan.tools == make_box().plan(
        ANTHROPIC_TOOLS, output_type=Weather).tools


def test_gemini_two_phase_by_model() -> None:
    """Gemini 2.x: two phases (no function declarations beside a JSON response); a
    gemini-3 model: combined."""
    box = make_box()
    assert box.plan(GEMINI, output_type=Weather, model="gemini-2.5-flash").phases == "two-phase"
    assert box.plan(GEMINI, output_type=Weather, model="gemini-3-pro").phases == "combined"
    kind = Gemini()
    replies = [kind.calls([("c1", "get_weather", {"city": "Paris"})]),
               kind.text("Sunny."), kind.text(GOOD)]
    bodies: list[dict[str, Any]] = []

    def handler(request: Any) -> Any:
        bodies.append(json.loads(request.content))
        return _respond(request, replies.pop(0))

    result = run(kind.client(handler, is_async=False), False, output_type=Weather)
    assert result.output == WEATHER
    assert [t.phase for t in result.turns] == ["tools", "tools", "closing"]
    assert "responseJsonSchema" not in bodies[0].get("generationConfig", {})
    assert "tools" in bodies[0]
    assert "tools" not in bodies[2]
    assert bodies[2]["generationConfig"]["responseMimeType"] == "application/json"


def test_phases_value_checked() -> None:
    """phases= takes "combined", "two-phase" or None."""
    client = Chat().client(VllmLike(), is_async=False)
    with pytest.raises(ValueError, match="two-phase"):
        make_box().run(client, messages="hi", model="m", phases="both")  # type: ignore[call-overload]


def test_plan_without_output_type_is_combined() -> None:
    """Without a typed answer there is one kind of request."""
    plan = make_box().plan(VLLM_TOOLS)
    assert plan.phases == "combined"
    assert plan.output_format is None
    assert plan.strict == ("get_weather", "whoami")
    html = plan._repr_html_()
    assert "<table>" in html
    assert "get_weather" in html


def test_anthropic_two_phase_budget_counts_the_format() -> None:
    """Anthropic's closing request carries the tools and the format together: the run's
    plan keeps them within the budgets in two phases too."""
    from .test_requests import Answer, budget_use, make_tool, within

    box = Toolbox()
    box.add(make_tool(7), name="seven")
    box.add(make_tool(7), name="seven_too")
    assert not box.plan(ANTHROPIC_TOOLS).downgraded  # 14 union-typed: within 16
    kind = Claude()
    replies = [kind.text("Done."), kind.text('{"a": 1, "b": null, "c": null, "d": null}')]
    bodies: list[dict[str, Any]] = []

    def handler(request: Any) -> Any:
        body = json.loads(request.content)
        bodies.append(body)
        assert not problems("anthropic", "/v1/messages", body)
        return _respond(request, replies.pop(0))

    client = kind.client(handler, is_async=False)
    result = box.run(client, model="m", messages="hi", output_type=Answer,
                     phases="two-phase", details=True)
    assert result.plan.phases == "two-phase"
    assert set(result.plan.downgraded) == {"seven_too"}
    closing = bodies[-1]
    assert closing["tool_choice"] == {"type": "none"}
    assert within(budget_use(closing["tools"], closing["output_config"]["format"]))


@pytest.mark.parametrize("tools", sorted(
    {tools for fmt in FORMATS for _, tools in fmt.servers.values()}
))
def test_every_tool_form_plans_a_typed_answer(tools: str) -> None:
    """Every provider's tool form has the structured-output form of the same provider,
    read from the wire formats (Bedrock's included), keeping its backend or model family."""
    adapter = getattr(adapters, tools)
    plan = make_box().plan(adapter, output_type=Weather)
    output = next(output for fmt in FORMATS for output, t in fmt.servers.values() if t == tools)
    assert plan.output_format == schema(Weather, getattr(adapters, output))
    assert plan.phases == ("combined" if adapter.combined else "two-phase")


@pytest.mark.parametrize(("adapter", "output"), [
    (adapters.BEDROCK_TOOLS.replace(family="openai"), adapters.BEDROCK.replace(family="openai")),
    (VLLM_TOOLS.replace(backend="guidance"), VLLM.replace(backend="guidance")),
])
def test_a_typed_answer_keeps_the_tool_forms_family_or_backend(adapter: Any, output: Any) -> None:
    assert make_box().plan(adapter, output_type=Weather).output_format == schema(Weather, output)


def test_a_tool_form_without_a_provider_cannot_plan_a_typed_answer() -> None:
    with pytest.raises(SchemaError, match=r"MCP_TOOLS.*BEDROCK_TOOLS.*plan with one of those"):
        make_box().plan(adapters.MCP_TOOLS, output_type=Weather)

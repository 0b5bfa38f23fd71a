"""count_tokens(..., client=, model=): the providers' own count endpoints through the real
SDKs over mock transports, with and without the schema or tools; the difference returned."""

from __future__ import annotations

import importlib
import json
from typing import Any

import anthropic
import attrs
import httpx
import openai
import pytest
from google import genai

from describedtypes import (
    ANTHROPIC,
    ANTHROPIC_TOOLS,
    GEMINI,
    OPENAI,
    OPENAI_TOOLS,
    Toolbox,
    count_tokens,
    schema,
)


@attrs.define
class Weather:
    city: str
    temperature: float


def get_weather(city: str) -> str:
    """Get the weather."""
    return city


class Counter:
    """Answers a count request with a base count plus a fixed amount per extra key."""

    def __init__(self, field: str, extra: dict[str, int]) -> None:
        self.field, self.extra = field, extra
        self.bodies: list[dict[str, Any]] = []
        self.paths: list[str] = []

    def __call__(self, request: Any) -> Any:
        body = json.loads(request.content)
        self.bodies.append(body)
        self.paths.append(request.url.path)
        count = 11 + sum(n for key, n in self.extra.items() if key in body)
        module = importlib.import_module(type(request).__module__.split(".")[0])
        data: dict[str, Any] = {self.field: count}
        if "/responses" in request.url.path:
            data["object"] = "response.input_tokens"
        return module.Response(200, json=data)


def _http(sdk_client: Any) -> Any:
    for cls in type(sdk_client(api_key="k")._client).__mro__:
        if cls.__name__ == "Client" and cls.__module__.split(".")[0].startswith("httpx"):
            return importlib.import_module(cls.__module__.split(".")[0])
    return httpx


def sdk(cls: Any, counter: Counter, base_url: str) -> Any:
    http = _http(cls)
    return cls(api_key="k", base_url=base_url, max_retries=0,
               http_client=http.Client(transport=http.MockTransport(counter)))


def test_openai_tools_and_format() -> None:
    """OpenAI: POST /responses/input_tokens with tools= or text.format, and without."""
    counter = Counter("input_tokens", {"tools": 40, "text": 25})
    client = sdk(openai.OpenAI, counter, "https://api.example.test/v1")
    box = Toolbox([get_weather])
    assert count_tokens(box, OPENAI_TOOLS, client=client, model="gpt-5") == 40
    assert count_tokens(Weather, OPENAI, client=client, model="gpt-5") == 25
    assert count_tokens(get_weather, OPENAI_TOOLS, client=client, model="gpt-5") == 40
    assert all(p.endswith("/responses/input_tokens") for p in counter.paths)
    with_tools, without = counter.bodies[:2]
    assert with_tools["tools"] == box.definitions(OPENAI_TOOLS)
    assert without == {"model": "gpt-5", "input": "x"}
    assert counter.bodies[2]["text"]["format"] == {"type": "json_schema",
                                                    **schema(Weather, OPENAI)}


def test_anthropic_tools_and_format() -> None:
    """Anthropic: messages.count_tokens with tools= or output_config.format, and without."""
    counter = Counter("input_tokens", {"tools": 300, "output_config": 120})
    client = sdk(anthropic.Anthropic, counter, "https://api.example.test")
    box = Toolbox([get_weather])
    assert count_tokens(box, ANTHROPIC_TOOLS, client=client, model="claude-x") == 300
    assert count_tokens(Weather, ANTHROPIC, client=client, model="claude-x") == 120
    assert all(p.endswith("/v1/messages/count_tokens") for p in counter.paths)
    assert counter.bodies[0]["tools"] == box.definitions(ANTHROPIC_TOOLS)
    assert counter.bodies[2]["output_config"] == {"format": schema(Weather, ANTHROPIC)}
    assert counter.bodies[3] == {"model": "claude-x",
                                 "messages": [{"role": "user", "content": "x"}]}


def gemini_client(counter: Counter, *, vertex: bool) -> Any:
    options = {"httpx_client": httpx.Client(transport=httpx.MockTransport(counter))}
    return genai.Client(vertexai=vertex, api_key="k", http_options=options)


def test_gemini_on_vertex() -> None:
    """Gemini (Vertex AI): count_tokens with tools or a response schema, and without."""
    counter = Counter("totalTokens", {"tools": 17, "generationConfig": 9})
    client = gemini_client(counter, vertex=True)
    assert count_tokens(Toolbox([get_weather]), GEMINI, client=client, model="g") == 17
    assert count_tokens(Weather, GEMINI, client=client, model="g") == 9
    assert count_tokens(get_weather, GEMINI, client=client, model="g") == 17


def test_gemini_developer_api_says_what_to_do() -> None:
    """google-genai counts tools only on Vertex AI: a ValueError naming both ways out."""
    client = gemini_client(Counter("totalTokens", {}), vertex=False)
    with pytest.raises(ValueError, match=r"Vertex AI client.*count offline"):
        count_tokens(Toolbox([get_weather]), GEMINI, client=client, model="g")


def test_wrong_arguments() -> None:
    """model= without client=, client= without model=, an unknown or async client."""
    with pytest.raises(TypeError, match="pass the client too"):
        count_tokens(Weather, OPENAI, model="gpt-5")
    counter = Counter("input_tokens", {})
    client = sdk(openai.OpenAI, counter, "https://api.example.test/v1")
    with pytest.raises(TypeError, match="needs model="):
        count_tokens(Weather, OPENAI, client=client)
    with pytest.raises(TypeError, match=r"openai\.OpenAI, anthropic\.Anthropic"):
        count_tokens(Weather, OPENAI, client=object(), model="m")
    http = _http(openai.OpenAI)
    aclient = openai.AsyncOpenAI(api_key="k", base_url="https://api.example.test/v1",
                                 http_client=http.AsyncClient(
                                     transport=http.MockTransport(counter)))
    with pytest.raises(TypeError, match="sync client"):
        count_tokens(Weather, OPENAI, client=aclient, model="m")

"""Self-hosted servers through the clients users run them with: an openai.OpenAI(base_url=)
client with llm_adapter= (vLLM, SGLang, llama.cpp, Ollama's /v1), and the ollama package's
own Client/AsyncClient (native /api/chat), over httpx mock transports."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import openai
import pytest

from describedtypes import (
    LLAMACPP,
    OLLAMA,
    OLLAMA_TOOLS,
    SGLANG,
    VLLM,
    VLLM_TOOLS,
    IncompleteReplyError,
    Toolbox,
    Usage,
    aextract,
    extract,
    extract_stream,
    schema,
)
from tests.test_ask_sdk import GOOD, WEATHER, Chat, Server, Weather, get_weather

ollama = pytest.importorskip("ollama", reason="the ollama client is a test dependency")


def chat_client(server: Any) -> Any:
    return openai.OpenAI(api_key="none", base_url="http://127.0.0.1:8000/v1", max_retries=0,
                         http_client=httpx.Client(transport=httpx.MockTransport(server)))


@pytest.mark.parametrize("adapter", [VLLM, SGLANG, LLAMACPP, OLLAMA,
                                     VLLM.replace(backend="guidance")],
                         ids=lambda a: a.name)
def test_an_openai_compatible_server_gets_its_own_body(adapter: Any) -> None:
    """response_format carries the server's body; vLLM's removed guided_json never goes."""
    server = Server([Chat().text(GOOD)])
    value = extract(Weather, chat_client(server), model="m", messages="Paris?",
                    llm_adapter=adapter)
    assert value == WEATHER
    [body] = server.bodies
    assert body["response_format"] == {"type": "json_schema",
                                       "json_schema": schema(Weather, adapter)}
    assert "guided_json" not in body
    assert "guided_json" not in body.get("extra_body", {})


def test_run_sends_the_servers_tool_form() -> None:
    """Toolbox.run(llm_adapter=VLLM): tools as VLLM_TOOLS, strict so vLLM constrains them."""
    kind = Chat()
    server = Server([kind.calls([("c1", "get_weather", {"city": "Paris"})]),
                     kind.text("Sunny.")])
    box = Toolbox([get_weather])
    assert box.run(chat_client(server), model="m", messages="Paris?",
                   llm_adapter=VLLM) == "Sunny."
    tools = server.bodies[0]["tools"]
    assert tools == box.definitions(VLLM_TOOLS)
    assert all(t["function"]["strict"] is True for t in tools)


def test_an_adapter_the_client_cannot_send_is_a_type_error() -> None:
    """An Anthropic client with llm_adapter=VLLM, or a non-adapter, says what fits."""
    import anthropic

    client = anthropic.Anthropic(api_key="k", base_url="http://127.0.0.1:9")
    with pytest.raises(TypeError, match="ANTHROPIC"):
        extract(Weather, client, model="m", messages="hi", llm_adapter=VLLM)
    with pytest.raises(TypeError, match="llm_adapter"):
        extract(Weather, chat_client(Server([])), model="m", messages="hi", llm_adapter="vllm")


# -- the ollama package's own client ------------------------------------------------------


def ollama_reply(content: str = "", calls: Any = (), reason: str = "stop") -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if calls:
        message["tool_calls"] = [{"function": {"name": n, "arguments": a}} for n, a in calls]
    return {"model": "llama3", "created_at": "2026-12-01T00:00:00Z", "message": message,
            "done": True, "done_reason": reason, "prompt_eval_count": 12, "eval_count": 7}


class OllamaServer(Server):
    """Answers /api/chat; a streamed request gets NDJSON chunks."""

    def __call__(self, request: Any) -> Any:
        self.paths.append(request.url.path)
        body = json.loads(request.content)
        self.bodies.append(body)
        reply = self.replies.pop(0)
        if body.get("stream"):
            text = reply["message"]["content"]
            chunks = [{"model": "llama3", "created_at": "t", "done": False,
                       "message": {"role": "assistant", "content": text[i : i + 8]}}
                      for i in range(0, len(text), 8)]
            chunks.append({**reply, "message": {"role": "assistant", "content": ""}})
            return httpx.Response(200, text="".join(json.dumps(c) + "\n" for c in chunks))
        return httpx.Response(200, json=reply)


def test_ollama_client_extract_sends_format_and_reads_usage() -> None:
    """extract() with ollama.Client: POST /api/chat with format=, usage from its counts."""
    server = OllamaServer([ollama_reply('{"city": "Paris"'), ollama_reply(GOOD)])
    client = ollama.Client(host="http://127.0.0.1:11434", transport=httpx.MockTransport(server))
    result = extract(Weather, client, model="llama3", messages="Paris?", details=True)
    assert result.value == WEATHER
    assert server.paths == ["/api/chat", "/api/chat"]
    assert server.bodies[0]["format"] == schema(Weather, OLLAMA)["schema"]
    assert result.usage == Usage(2, 24, 14)
    retry = server.bodies[1]["messages"]
    assert retry[-2]["role"] == "assistant"
    assert retry[-1]["role"] == "user"


def test_ollama_client_cut_off_reply_is_incomplete() -> None:
    """done_reason 'length' is a cut-off reply, not a model mistake."""
    server = OllamaServer([ollama_reply('{"city": "Pa', reason="length")])
    client = ollama.Client(host="http://127.0.0.1:11434", transport=httpx.MockTransport(server))
    with pytest.raises(IncompleteReplyError):
        extract(Weather, client, model="llama3", messages="Paris?")


def test_ollama_client_tool_loop() -> None:
    """Tool calls with object arguments; results go back as role 'tool' with tool_name."""
    server = OllamaServer([ollama_reply(calls=[("get_weather", {"city": "Paris"})]),
                           ollama_reply("Sunny.")])
    client = ollama.Client(host="http://127.0.0.1:11434", transport=httpx.MockTransport(server))
    box = Toolbox([get_weather])
    run = box.run(client, model="llama3", messages="Paris?", details=True)
    assert run.output == "Sunny."
    first, second = server.bodies
    # The ollama client's own Tool model keeps only type, items, description and enum of
    # each property (additionalProperties is dropped on the way): the rest is in words.
    [sent] = first["tools"]
    [ours] = box.definitions(OLLAMA_TOOLS)
    assert sent["function"]["name"] == ours["function"]["name"]
    assert sent["function"]["parameters"]["properties"] == ours["function"]["parameters"][
        "properties"]
    result = second["messages"][-1]
    assert result["role"] == "tool"
    assert result["tool_name"] == "get_weather"
    assert json.loads(result["content"])["city"] == "Paris"
    assert run.usage == Usage(2, 24, 14)


def test_ollama_async_client_and_stream() -> None:
    """ollama.AsyncClient with aextract; extract_stream over the NDJSON stream."""
    server = OllamaServer([ollama_reply(GOOD), ollama_reply(GOOD)])
    aclient = ollama.AsyncClient(host="http://127.0.0.1:11434",
                                 transport=httpx.MockTransport(server))
    assert asyncio.run(aextract(Weather, aclient, model="llama3", messages="hi")) == WEATHER
    client = ollama.Client(host="http://127.0.0.1:11434", transport=httpx.MockTransport(server))
    stream = extract_stream(Weather, client, model="llama3", messages="hi")
    values = list(stream)
    assert values[-1] == WEATHER
    assert server.bodies[-1]["stream"] is True
    assert stream.usage == Usage(1, 12, 7)

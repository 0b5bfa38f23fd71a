"""extract()/aextract() and Toolbox.run()/arun() through the real provider SDKs over a mock
HTTP transport: every client, sync and async; the request bodies are checked."""

from __future__ import annotations

import asyncio
import enum
import importlib
import json
import logging
from collections.abc import Callable
from typing import Any

import anthropic
import attrs
import httpx
import openai
import pytest
from google import genai
from hypothesis import given, settings
from hypothesis import strategies as st

from describedtypes import (
    ANTHROPIC,
    ANTHROPIC_TOOLS,
    GEMINI,
    OPENAI,
    OPENAI_CHAT_TOOLS,
    OPENAI_TOOLS,
    Context,
    DecodeError,
    DescribedTypesError,
    IncompleteReplyError,
    MaxTurnsError,
    RefusalError,
    Toolbox,
    aextract,
    extract,
    schema,
)


class Unit(enum.Enum):
    CELSIUS = "celsius"
    FAHRENHEIT = "fahrenheit"


@attrs.define
class Weather:
    city: str
    temperature: float
    unit: Unit


GOOD = '{"city": "Paris", "temperature": 21.5, "unit": "celsius"}'
BAD = '{"city": "Paris", "temprature": 21.5, "unit": "kelvin"}'
WEATHER = Weather("Paris", 21.5, Unit.CELSIUS)


@attrs.define
class Account:
    user: str


def get_weather(city: str) -> dict[str, Any]:
    """Get the current weather.

    Args:
        city: City name.
    """
    return {"city": city, "temperature": 21.5, "unit": "celsius"}


async def whoami(account: Context[Account]) -> str:
    """Say who is signed in."""
    return account.user


def make_box() -> Toolbox:
    return Toolbox([get_weather, whoami])


# -- each provider: its canned replies and where its request keeps things ---------------


def _http_module(client: Any) -> Any:
    for cls in type(client._client).__mro__:
        if cls.__name__ == "Client" and cls.__module__.split(".")[0].startswith("httpx"):
            return importlib.import_module(cls.__module__.split(".")[0])
    return httpx  # pragma: no cover


class Kind:
    """One provider API: how to make its client, its replies, and how to read its requests."""

    name = ""
    api: str | None = None
    path = ""
    key = "messages"
    tool_adapter: Any = None

    def client(self, handler: Callable[[Any], Any], *, is_async: bool) -> Any:
        raise NotImplementedError

    # replies
    def text(self, text: str) -> dict[str, Any]:
        raise NotImplementedError

    def refusal(self) -> dict[str, Any]:
        raise NotImplementedError

    def truncated(self) -> dict[str, Any]:
        raise NotImplementedError

    def calls(self, calls: list[tuple[str, str, dict[str, Any]]]) -> dict[str, Any]:
        raise NotImplementedError

    # requests
    def sent_schema(self, body: dict[str, Any]) -> Any:
        raise NotImplementedError

    def expected_schema(self) -> Any:
        raise NotImplementedError

    def last_text(self, body: dict[str, Any]) -> str:
        return str(body[self.key][-1]["content"])

    def sent_tools(self, body: dict[str, Any]) -> Any:
        return body["tools"]

    def expected_tools(self, box: Toolbox) -> Any:
        return box.definitions(self.tool_adapter)

    def sent_results(self, body: dict[str, Any]) -> list[tuple[str | None, str, bool | None]]:
        """(call id, content, is_error or None) of the tool results in the request."""
        raise NotImplementedError


class _SdkKind(Kind):
    sync_cls: Any
    async_cls: Any
    base_url = "https://api.example.test/v1"

    def client(self, handler: Callable[[Any], Any], *, is_async: bool) -> Any:
        http = _http_module(self.sync_cls(api_key="k"))
        transport = http.MockTransport(handler)
        if is_async:
            return self.async_cls(
                api_key="k", base_url=self.base_url, max_retries=0,
                http_client=http.AsyncClient(transport=transport),
            )
        return self.sync_cls(
            api_key="k", base_url=self.base_url, max_retries=0,
            http_client=http.Client(transport=transport),
        )


class Chat(_SdkKind):
    name = "chat"
    path = "/v1/chat/completions"
    sync_cls = openai.OpenAI
    async_cls = openai.AsyncOpenAI
    tool_adapter = OPENAI_CHAT_TOOLS

    def _reply(self, message: dict[str, Any], finish: str) -> dict[str, Any]:
        return {
            "id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": "gpt-test",
            "choices": [{"index": 0, "finish_reason": finish,
                         "message": {"role": "assistant", **message}}],
        }

    def text(self, text: str) -> dict[str, Any]:
        return self._reply({"content": text}, "stop")

    def refusal(self) -> dict[str, Any]:
        return self._reply({"content": None, "refusal": "I can't help with that."}, "stop")

    def truncated(self) -> dict[str, Any]:
        return self._reply({"content": '{"city": "Par'}, "length")

    def calls(self, calls: list[tuple[str, str, dict[str, Any]]]) -> dict[str, Any]:
        return self._reply({"content": None, "tool_calls": [
            {"id": i, "type": "function",
             "function": {"name": n, "arguments": json.dumps(a)}} for i, n, a in calls
        ]}, "tool_calls")

    def sent_schema(self, body: dict[str, Any]) -> Any:
        return body["response_format"]

    def expected_schema(self) -> Any:
        return {"type": "json_schema", "json_schema": schema(Weather, OPENAI)}

    def sent_results(self, body: dict[str, Any]) -> list[tuple[str | None, str, bool | None]]:
        return [(m["tool_call_id"], m["content"], None)
                for m in body["messages"] if m["role"] == "tool"]


class Responses(_SdkKind):
    name = "responses"
    api = "responses"
    path = "/v1/responses"
    key = "input"
    sync_cls = openai.OpenAI
    async_cls = openai.AsyncOpenAI
    tool_adapter = OPENAI_TOOLS

    def _reply(self, output: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
        return {
            "id": "resp_1", "object": "response", "created_at": 0, "model": "gpt-test",
            "status": "completed", "parallel_tool_calls": True, "tool_choice": "auto",
            "tools": [], "output": output, **extra,
        }

    def _message(self, part: dict[str, Any]) -> dict[str, Any]:
        return {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
                "content": [part]}

    def text(self, text: str) -> dict[str, Any]:
        return self._reply(
            [self._message({"type": "output_text", "text": text, "annotations": []})]
        )

    def refusal(self) -> dict[str, Any]:
        return self._reply([self._message({"type": "refusal", "refusal": "I can't."})])

    def truncated(self) -> dict[str, Any]:
        return self._reply(
            [self._message({"type": "output_text", "text": '{"ci', "annotations": []})],
            status="incomplete", incomplete_details={"reason": "max_output_tokens"},
        )

    def calls(self, calls: list[tuple[str, str, dict[str, Any]]]) -> dict[str, Any]:
        return self._reply([
            {"type": "function_call", "id": f"fc_{i}", "call_id": i, "name": n,
             "arguments": json.dumps(a), "status": "completed"} for i, n, a in calls
        ])

    def sent_schema(self, body: dict[str, Any]) -> Any:
        return body["text"]["format"]

    def expected_schema(self) -> Any:
        return {"type": "json_schema", **schema(Weather, OPENAI)}

    def sent_results(self, body: dict[str, Any]) -> list[tuple[str | None, str, bool | None]]:
        return [(m["call_id"], m["output"], None)
                for m in body["input"] if m.get("type") == "function_call_output"]


class Claude(_SdkKind):
    name = "anthropic"
    path = "/v1/messages"
    sync_cls = anthropic.Anthropic
    async_cls = anthropic.AsyncAnthropic
    base_url = "https://api.example.test"
    tool_adapter = ANTHROPIC_TOOLS

    def _reply(self, content: list[dict[str, Any]], stop: str) -> dict[str, Any]:
        return {
            "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-test",
            "stop_reason": stop, "stop_sequence": None,
            "usage": {"input_tokens": 1, "output_tokens": 1}, "content": content,
        }

    def text(self, text: str) -> dict[str, Any]:
        return self._reply([{"type": "text", "text": text}], "end_turn")

    def refusal(self) -> dict[str, Any]:
        return self._reply([{"type": "text", "text": "I won't."}], "refusal")

    def truncated(self) -> dict[str, Any]:
        return self._reply([{"type": "text", "text": '{"city'}], "max_tokens")

    def calls(self, calls: list[tuple[str, str, dict[str, Any]]]) -> dict[str, Any]:
        return self._reply(
            [{"type": "tool_use", "id": i, "name": n, "input": a} for i, n, a in calls],
            "tool_use",
        )

    def sent_schema(self, body: dict[str, Any]) -> Any:
        return body["output_config"]["format"]

    def expected_schema(self) -> Any:
        return schema(Weather, ANTHROPIC)

    def sent_results(self, body: dict[str, Any]) -> list[tuple[str | None, str, bool | None]]:
        last = body["messages"][-1]
        assert last["role"] == "user"
        return [(b["tool_use_id"], b["content"], b["is_error"]) for b in last["content"]]


class Gemini(Kind):
    name = "gemini"
    key = "contents"
    tool_adapter = GEMINI

    def client(self, handler: Callable[[Any], Any], *, is_async: bool) -> Any:
        transport = httpx.MockTransport(handler)
        client = genai.Client(api_key="k", http_options={
            "httpx_client": httpx.Client(transport=transport),
            "httpx_async_client": httpx.AsyncClient(transport=transport),
        })
        return client.aio if is_async else client

    def _reply(self, parts: list[dict[str, Any]], finish: str) -> dict[str, Any]:
        return {"candidates": [{"content": {"role": "model", "parts": parts},
                                "finishReason": finish}], "modelVersion": "gemini-test"}

    def text(self, text: str) -> dict[str, Any]:
        return self._reply([{"text": text}], "STOP")

    def refusal(self) -> dict[str, Any]:
        return {"promptFeedback": {"blockReason": "SAFETY"}, "modelVersion": "gemini-test"}

    def truncated(self) -> dict[str, Any]:
        return self._reply([{"text": '{"city'}], "MAX_TOKENS")

    def calls(self, calls: list[tuple[str, str, dict[str, Any]]]) -> dict[str, Any]:
        return self._reply(
            [{"functionCall": {"id": i, "name": n, "args": a}, "thoughtSignature": "c2ln"}
             for i, n, a in calls],
            "STOP",
        )

    def sent_schema(self, body: dict[str, Any]) -> Any:
        config = body["generationConfig"]
        assert config["responseMimeType"] == "application/json"
        return config["responseJsonSchema"]

    def expected_schema(self) -> Any:
        return schema(Weather, GEMINI)["parameters_json_schema"]

    def last_text(self, body: dict[str, Any]) -> str:
        last = body["contents"][-1]
        assert last["role"] == "user"
        return str(last["parts"][0]["text"])

    def sent_tools(self, body: dict[str, Any]) -> Any:
        [tool] = body["tools"]
        return tool["functionDeclarations"]

    def sent_results(self, body: dict[str, Any]) -> list[tuple[str | None, str, bool | None]]:
        last = body["contents"][-1]
        assert last["role"] == "user"
        out = []
        for part in last["parts"]:
            answer = part["functionResponse"]
            response = answer["response"]
            is_error = "error" in response
            out.append((answer.get("id"), response["error" if is_error else "output"], is_error))
        return out


KINDS = [Chat(), Responses(), Claude(), Gemini()]


class Server:
    """A mock transport handler: records each request body and answers from a list."""

    def __init__(self, replies: list[dict[str, Any]]) -> None:
        self.replies = list(replies)
        self.bodies: list[dict[str, Any]] = []
        self.paths: list[str] = []

    def __call__(self, request: Any) -> Any:
        self.paths.append(request.url.path)
        self.bodies.append(json.loads(request.content))
        return _response(request, self.replies.pop(0))


def _response(request: Any, data: dict[str, Any]) -> Any:
    module = importlib.import_module(type(request).__module__.split(".")[0])
    return module.Response(200, json=data)


def ask(kind: Kind, is_async: bool, replies: list[dict[str, Any]], **kwargs: Any) -> Any:
    """extract(Weather) or aextract(Weather) through ``kind``'s SDK; returns (value, server)."""
    server = Server(replies)
    client = kind.client(server, is_async=is_async)
    messages = kwargs.pop("messages", "Weather in Paris?")
    if kind.api:
        kwargs["api"] = kind.api
    if is_async:
        value = asyncio.run(aextract(Weather, client, messages=messages, model="m", **kwargs))
    else:
        value = extract(Weather, client, messages=messages, model="m", **kwargs)
    return value, server


def run_loop(kind: Kind, is_async: bool, replies: list[dict[str, Any]], **kwargs: Any) -> Any:
    server = Server(replies)
    client = kind.client(server, is_async=is_async)
    box = kwargs.pop("box") if "box" in kwargs else make_box()
    if kind.api:
        kwargs["api"] = kind.api
    kwargs.setdefault("messages", "Weather in Paris?")
    kwargs.setdefault("context", Account("ada"))
    if is_async:
        value = asyncio.run(box.arun(client, model="m", **kwargs))
    else:
        value = box.run(client, model="m", **kwargs)
    return value, server


PAIRS = [(k, a) for k in KINDS for a in (False, True)]
IDS = [f"{k.name}-{'async' if a else 'sync'}" for k, a in PAIRS]
both = pytest.mark.parametrize(("kind", "is_async"), PAIRS, ids=IDS)


# -- extract -------------------------------------------------------------------------------


@both
def test_extract_success(kind: Kind, is_async: bool) -> None:
    """One request carrying the provider's structured-output schema; the reply decoded."""
    value, server = ask(kind, is_async, [kind.text(GOOD)])
    assert value == WEATHER
    [body] = server.bodies
    assert kind.sent_schema(body) == kind.expected_schema()
    assert body["model"] == "m" if kind.name != "gemini" else server.paths[0].endswith(
        "/models/m:generateContent"
    )
    if kind.path:
        assert server.paths == [kind.path]


@both
def test_extract_bad_then_good(kind: Kind, is_async: bool) -> None:
    """A bad reply is sent back with the error text; the second reply is the answer."""
    value, server = ask(kind, is_async, [kind.text(BAD), kind.text(GOOD)])
    assert value == WEATHER
    first, second = server.bodies
    assert len(second[kind.key]) == len(first[kind.key]) + 2
    error = kind.last_text(second)
    assert "$.temprature: unknown field; did you mean 'temperature'?" in error
    assert "$.unit: 'kelvin' is not one of ['celsius', 'fahrenheit']" in error
    assert "$.temperature: missing required field" in error
    assert kind.sent_schema(second) == kind.sent_schema(first)


@both
def test_extract_gives_up_with_every_attempt(kind: Kind, is_async: bool) -> None:
    """After ``retries`` retries the last DecodeError is raised with every attempt attached."""
    with pytest.raises(DecodeError) as info:
        ask(kind, is_async, [kind.text(BAD), kind.text("not json"), kind.text(BAD)], retries=2)
    err = info.value
    assert not isinstance(err, (RefusalError, IncompleteReplyError))
    assert len(err.attempts) == 3
    assert err.attempts[-1][1] is err
    assert "did you mean 'temperature'" in str(err.attempts[0][1])
    assert err.attempts[1][1].errors[0][0] == "$"


@both
def test_refusal_raises_at_once(kind: Kind, is_async: bool) -> None:
    """A refusal is not retried."""
    with pytest.raises(RefusalError) as info:
        ask(kind, is_async, [kind.refusal(), kind.text(GOOD)])
    assert len(info.value.attempts) == 1


@both
def test_truncation_raises_at_once(kind: Kind, is_async: bool) -> None:
    """A reply cut off by the token limit is not retried."""
    with pytest.raises(IncompleteReplyError):
        ask(kind, is_async, [kind.truncated(), kind.text(GOOD)])


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.name)
def test_messages_are_copied_and_extra_keywords_pass_through(kind: Kind) -> None:
    """The caller's list is unchanged after a retry; extra keywords reach the request."""
    if isinstance(kind, Gemini):
        messages: list[Any] = [{"role": "user", "parts": [{"text": "Weather?"}]}]
        extra: dict[str, Any] = {"config": {"temperature": 0.5, "max_output_tokens": 99}}
    else:
        messages = [{"role": "user", "content": "Weather?"}]
        token_limit = "max_output_tokens" if kind.api == "responses" else "max_tokens"
        # (this Anthropic SDK has no temperature=; stop_sequences is an extra like any other)
        setting = ("stop_sequences", ["END"]) if isinstance(kind, Claude) else ("temperature", 0.5)
        extra = {setting[0]: setting[1], token_limit: 99}
    before = json.dumps(messages)
    _, server = ask(kind, False, [kind.text(BAD), kind.text(GOOD)], messages=messages, **extra)
    assert json.dumps(messages) == before
    body = server.bodies[0]
    if isinstance(kind, Gemini):
        assert body["generationConfig"]["temperature"] == 0.5
        assert body["generationConfig"]["maxOutputTokens"] == 99
    else:
        assert all(body[k] == v for k, v in extra.items())


def test_anthropic_gets_a_default_max_tokens() -> None:
    """The Messages API needs max_tokens; extract sends 4096 unless told otherwise."""
    _, server = ask(Claude(), False, [Claude().text(GOOD)])
    assert server.bodies[0]["max_tokens"] == 4096


def test_merged_request_keywords() -> None:
    """text= (Responses) and output_config= (Anthropic) keep the caller's other settings."""
    _, server = ask(Responses(), False, [Responses().text(GOOD)], text={"verbosity": "low"})
    assert server.bodies[0]["text"]["verbosity"] == "low"
    assert server.bodies[0]["text"]["format"]["name"] == "Weather"
    _, server = ask(Claude(), False, [Claude().text(GOOD)], output_config={"effort": "low"})
    assert server.bodies[0]["output_config"] == {
        "effort": "low", "format": schema(Weather, ANTHROPIC)
    }


def test_system_messages_and_instructions_go_through() -> None:
    """A system prompt in the caller's messages (Chat) or system= (Anthropic) is sent."""
    _, server = ask(Chat(), False, [Chat().text(GOOD)], messages=[
        {"role": "system", "content": "Answer in JSON."}, {"role": "user", "content": "Paris"}
    ])
    assert server.bodies[0]["messages"][0]["role"] == "system"
    _, server = ask(Claude(), False, [Claude().text(GOOD)], system="Be brief.")
    assert server.bodies[0]["system"] == "Be brief."


# -- logging -----------------------------------------------------------------------------


def test_retry_logging_keeps_values_at_debug(caplog: pytest.LogCaptureFixture) -> None:
    """INFO says how many problems the reply had, not where (the paths hold the model's
    keys) nor what it said; DEBUG has the paths and the error text."""
    with caplog.at_level(logging.INFO, logger="describedtypes"):
        ask(Chat(), False, [Chat().text(BAD), Chat().text(GOOD)])
    info = [r for r in caplog.records if r.name == "describedtypes"]
    assert [r.levelname for r in info] == ["INFO"]
    text = info[0].getMessage()
    assert "(3 problems); asking again (retry 1 of 2)" in text
    assert "temprature" not in text
    assert "kelvin" not in text
    caplog.clear()
    with caplog.at_level(logging.DEBUG, logger="describedtypes"):
        ask(Chat(), False, [Chat().text(BAD), Chat().text(GOOD)])
    debug = [r.getMessage() for r in caplog.records if r.levelname == "DEBUG"]
    assert any("$.temprature" in m for m in debug)
    assert any("kelvin" in m for m in debug)


def test_final_failure_and_refusal_are_warnings(caplog: pytest.LogCaptureFixture) -> None:
    """Giving up and a refusal are logged at WARNING without the model's text."""
    with caplog.at_level(logging.INFO, logger="describedtypes"), pytest.raises(DecodeError):
        ask(Chat(), False, [Chat().text(BAD)], retries=0)
    assert [r.levelname for r in caplog.records] == ["WARNING"]
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="describedtypes"), pytest.raises(RefusalError):
        ask(Chat(), False, [Chat().refusal()])
    [record] = caplog.records
    assert record.levelname == "WARNING"
    assert "can't help" not in record.getMessage()


# -- the tool loop -----------------------------------------------------------------------


@both
def test_run_tool_error_the_model_corrects(kind: Kind, is_async: bool) -> None:
    """A bad call gets an error result; the model fixes it; the final text is returned."""
    replies = [
        kind.calls([("call_1", "get_weather", {"town": "Paris"}),
                    ("call_2", "whoami", {})]),
        kind.calls([("call_3", "get_weather", {"city": "Paris"})]),
        kind.text("It is 21.5 °C in Paris, ada."),
    ]
    answer, server = run_loop(kind, is_async, replies)
    assert answer == "It is 21.5 °C in Paris, ada."
    first, second, third = server.bodies
    assert kind.sent_tools(first) == kind.expected_tools(make_box()) or (
        [t["name"] for t in kind.sent_tools(first)] == ["get_weather", "whoami"]
    )
    results = kind.sent_results(second)
    assert [r[0] for r in results] == ["call_1", "call_2"]
    if isinstance(kind, Gemini):  # the model's turn goes back whole, signature included
        assert second["contents"][-2]["parts"][0]["thoughtSignature"] == "c2ln"
    assert "missing required" in results[0][1]
    assert "town" in results[0][1]
    assert results[1][1] == "ada"
    if results[0][2] is not None:
        assert [r[2] for r in results] == [True, False]
    call_id, content, _ = kind.sent_results(third)[-1]
    assert call_id == "call_3"
    assert json.loads(content)["temperature"] == 21.5


@both
def test_run_max_turns(kind: Kind, is_async: bool) -> None:
    """A model that keeps calling tools stops at max_turns, with the transcript."""
    call = kind.calls([("call_1", "whoami", {})])
    with pytest.raises(MaxTurnsError) as info:
        run_loop(kind, is_async, [call, call, call], max_turns=2)
    err = info.value
    assert isinstance(err, DescribedTypesError)
    assert err.turns == 2
    assert len(err.transcript) > 2


@both
def test_run_with_output_type(kind: Kind, is_async: bool) -> None:
    """output_type: the schema rides along with the tools; a bad answer is retried."""
    replies = [
        kind.calls([("call_1", "get_weather", {"city": "Paris"})]),
        kind.text(BAD),
        kind.text(GOOD),
    ]
    # Gemini 2.x takes no format beside tools: its runs are two-phase unless told
    phases = {"phases": "combined"} if isinstance(kind, Gemini) else {}
    value, server = run_loop(kind, is_async, replies, output_type=Weather, **phases)
    assert value == WEATHER
    assert all(kind.sent_schema(b) == kind.expected_schema() for b in server.bodies)
    assert "did you mean 'temperature'" in kind.last_text(server.bodies[2])


def test_run_without_tools_is_a_plain_request() -> None:
    """An empty toolbox sends no tools= at all."""
    answer, server = run_loop(Chat(), False, [Chat().text("Hi.")], box=Toolbox())
    assert answer == "Hi."
    assert "tools" not in server.bodies[0]


@pytest.mark.parametrize("is_async", [False, True], ids=["sync", "async"])
def test_gemini_tool_loop_with_calls_that_carry_no_id(is_async: bool) -> None:
    """Gemini's function calls often carry no ``id``: Gemini matches each function
    response to its call by name and order, so the loop sends the results back in the
    calls' order, under their names, without an id, and the SDK accepts the request."""
    kind = Gemini()
    replies = [
        kind._reply([{"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}},
                     {"functionCall": {"name": "whoami", "args": {}}},
                     {"functionCall": {"name": "get_weather", "args": {"town": "Rome"}}}],
                    "STOP"),
        kind.text("It is 21.5 °C in Paris, ada."),
    ]
    answer, server = run_loop(kind, is_async, replies)
    assert answer == "It is 21.5 °C in Paris, ada."
    second = server.bodies[1]
    last = second["contents"][-1]
    assert [p["functionResponse"]["name"] for p in last["parts"]] == [
        "get_weather", "whoami", "get_weather"
    ]
    assert all("id" not in p["functionResponse"] for p in last["parts"])
    results = kind.sent_results(second)
    assert json.loads(results[0][1])["temperature"] == 21.5
    assert results[1] == (None, "ada", False)
    assert results[2][2] is True
    assert "town" in results[2][1]


# -- hostile input -----------------------------------------------------------------------


class NotAClient:
    pass


@pytest.mark.parametrize(
    "client", [None, NotAClient(), "openai", {"chat": 1}, object()],
    ids=["None", "object", "str", "dict", "bare"],
)
def test_unknown_clients_get_a_type_error(client: Any) -> None:
    """Anything but a known SDK client is refused before a request, naming the clients."""
    with pytest.raises(TypeError, match=r"openai\.OpenAI"):
        extract(Weather, client, messages="hi", model="m")
    with pytest.raises(TypeError, match=r"openai\.OpenAI"):
        make_box().run(client, messages="hi", model="m")


def test_sync_and_async_mixups() -> None:
    """A sync client in aextract (or the reverse) is a TypeError naming the right call."""
    server = Server([])
    with pytest.raises(TypeError, match=r"use aextract\(\)"):
        extract(Weather, Chat().client(server, is_async=True), messages="hi", model="m")
    with pytest.raises(TypeError, match=r"use extract\(\)"):
        asyncio.run(aextract(Weather, Claude().client(server, is_async=False),
                             messages="hi", model="m"))
    with pytest.raises(TypeError, match=r"Toolbox.arun"):
        make_box().run(Claude().client(server, is_async=True), messages="hi", model="m")
    assert server.bodies == []


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"messages": None}, TypeError, "list of messages"),
        ({"messages": {"role": "user"}}, TypeError, "list of messages"),
        ({"messages": [None]}, TypeError, r"messages\[0\] is a NoneType"),
        ({"messages": ["hi"]}, TypeError, r"messages\[0\] is a str"),
        ({"messages": []}, ValueError, "nothing to ask"),
        ({"model": ""}, TypeError, "model"),
        ({"model": 3}, TypeError, "model"),
        ({"retries": -1}, ValueError, "at least 0"),
        ({"retries": True}, TypeError, "int"),
        ({"retries": "2"}, TypeError, "int"),
        ({"api": "completions"}, TypeError, "api="),
        ({"response_format": {}}, TypeError, "response_format"),
        ({"input": []}, TypeError, "messages="),
    ],
)
def test_bad_arguments(kwargs: dict[str, Any], error: type[Exception], match: str) -> None:
    """Bad arguments are refused before any request, saying what to pass."""
    server = Server([])
    client = Chat().client(server, is_async=False)
    call: dict[str, Any] = {"messages": "hi", "model": "m", **kwargs}
    if "input" in kwargs:
        call["api"] = "responses"
    with pytest.raises(error, match=match):
        extract(Weather, client, **call)
    assert server.bodies == []


def test_bad_loop_arguments() -> None:
    """max_turns must be a positive int; api= is refused for non-OpenAI clients."""
    server = Server([])
    client = Claude().client(server, is_async=False)
    with pytest.raises(ValueError, match="at least 1"):
        make_box().run(client, messages="hi", model="m", max_turns=0)
    with pytest.raises(TypeError, match="api="):
        make_box().run(client, messages="hi", model="m", api="responses")
    assert server.bodies == []


def test_hostile_reply_shapes_are_decode_errors() -> None:
    """A reply with no choices, or content that is not text, is a DecodeError, retried."""
    empty = {"id": "x", "object": "chat.completion", "created": 0, "model": "m", "choices": []}
    value, server = ask(Chat(), False, [empty, Chat().text(GOOD)])
    assert value == WEATHER
    assert "no reply" in Chat().last_text(server.bodies[1])


def test_schema_errors_come_before_any_request() -> None:
    """A type the provider cannot take raises SchemaError and sends nothing."""
    server = Server([])
    client = Chat().client(server, is_async=False)
    with pytest.raises(TypeError, match="object"):
        extract(list[int], client, messages="hi", model="m")
    assert server.bodies == []


def test_the_exact_retry_conversation() -> None:
    """Chat Completions: the bad reply goes back as the assistant's turn, then the problems."""
    _, server = ask(Chat(), False, [Chat().text(BAD), Chat().text(GOOD)])
    assert server.bodies[1]["messages"][1:] == [
        {"role": "assistant", "content": BAD},
        {
            "role": "user",
            "content": (
                "The reply does not match the schema:\n"
                "- $.temperature: missing required field\n"
                "- $.unit: 'kelvin' is not one of ['celsius', 'fahrenheit']\n"
                "- $.temprature: unknown field; did you mean 'temperature'?\n"
                "Answer again with the complete JSON, corrected."
            ),
        },
    ]


@attrs.define
class Reading:
    unit: Unit = Unit.CELSIUS


def test_rewrites_are_logged_at_debug(caplog: pytest.LogCaptureFixture) -> None:
    """What the adapter changed to fit the provider is logged at DEBUG only, once per build."""

    @attrs.define
    class Fresh:  # a class of its own: its schema is built (and logged) in this test
        unit: Unit = Unit.CELSIUS

    reply = Chat().text('{"unit": "celsius"}')
    with caplog.at_level(logging.DEBUG, logger="describedtypes"):
        server = Server([reply, reply])
        client = Chat().client(server, is_async=False)
        extract(Fresh, client, messages="hi", model="m")
        extract(Fresh, client, messages="hi", model="m")
    rewrites = [r for r in caplog.records if "/properties/unit dropped" in r.getMessage()]
    assert len(rewrites) == 1  # the second request reuses the cached schema
    assert {r.levelname for r in rewrites} == {"DEBUG"}


def test_aextract_takes_the_sync_genai_client() -> None:
    """For Gemini, aextract uses the client's .aio side."""
    server = Server([Gemini().text(GOOD)])
    client = Gemini().client(server, is_async=False)
    assert asyncio.run(aextract(Weather, client, messages="hi", model="m")) == WEATHER


@settings(max_examples=25, deadline=None)
@given(
    bad=st.integers(min_value=0, max_value=4),
    retries=st.integers(min_value=0, max_value=3),
    kind=st.sampled_from(KINDS),
)
def test_requests_and_attempts_follow_the_retry_rule(bad: int, retries: int, kind: Kind) -> None:
    """k bad replies then a good one: success after k + 1 requests when k <= retries, else a
    DecodeError after retries + 1 requests carrying that many attempts; the caller's list
    is never changed."""
    messages: list[Any] = (
        [{"role": "user", "parts": [{"text": "Weather?"}]}] if isinstance(kind, Gemini)
        else [{"role": "user", "content": "Weather?"}]
    )
    before = json.dumps(messages)
    replies = [kind.text(BAD)] * bad + [kind.text(GOOD)]
    if bad <= retries:
        value, server = ask(kind, False, replies, messages=messages, retries=retries)
        assert value == WEATHER
        assert len(server.bodies) == bad + 1
    else:
        with pytest.raises(DecodeError) as info:
            ask(kind, False, replies, messages=messages, retries=retries)
        assert len(info.value.attempts) == retries + 1
    assert json.dumps(messages) == before


def test_registry_is_used_for_the_schema_and_the_decoding() -> None:
    """registry=: the schema sent and the reply decoded follow that registry's annotations."""
    from describedtypes import Annotation, Registry

    registry = Registry()
    registry.register(Weather, Annotation(name="Observation", description="An observation."))
    _, server = ask(Chat(), False, [Chat().text(GOOD)], registry=registry)
    sent = server.bodies[0]["response_format"]["json_schema"]
    assert sent["name"] == "Observation"
    assert sent["description"] == "An observation."
    reply = Claude().calls([("call_1", "get_weather", {"city": "Oslo"})])
    value, server = run_loop(Claude(), False, [reply, Claude().text(GOOD)], output_type=Weather,
                             registry=registry)
    assert value == WEATHER
    with pytest.raises(TypeError, match="registry"):
        ask(Chat(), False, [], registry="annotate")


@both
def test_run_refusal_and_truncation_raise(kind: Kind, is_async: bool) -> None:
    """In the tool loop too, a refusal or a cut-off answer raises at once."""
    with pytest.raises(RefusalError):
        run_loop(kind, is_async, [kind.refusal(), kind.text("late")])
    with pytest.raises(IncompleteReplyError):
        run_loop(kind, is_async, [kind.truncated(), kind.text("late")], output_type=Weather)
    # in a two-phase run, a cut-off last tool turn raises before the closing request
    with pytest.raises(IncompleteReplyError):
        run_loop(kind, is_async, [kind.truncated(), kind.text("late")], output_type=Weather,
                 phases="two-phase")


def test_sdk_errors_pass_through_unchanged() -> None:
    """An HTTP error from the provider is the SDK's own exception, not wrapped."""

    def failing(request: Any) -> Any:
        module = importlib.import_module(type(request).__module__.split(".")[0])
        return module.Response(400, json={"error": {"message": "bad schema", "type": "x"}})

    client = Chat().client(failing, is_async=False)
    with pytest.raises(openai.BadRequestError, match="bad schema"):
        extract(Weather, client, messages="hi", model="m")


def test_logged_paths_are_one_bounded_line(caplog: pytest.LogCaptureFixture) -> None:
    """A key name the model invented cannot forge log lines or flood the log at INFO."""
    hostile = json.dumps({"city": "Oslo", "temperature": 1, "unit": "celsius",
                          "x\nWARNING forged" + "y" * 500: 1})
    with caplog.at_level(logging.INFO, logger="describedtypes"):
        ask(Chat(), False, [Chat().text(hostile), Chat().text(GOOD)])
    [record] = caplog.records
    assert "\n" not in record.getMessage()
    assert len(record.getMessage()) < 400

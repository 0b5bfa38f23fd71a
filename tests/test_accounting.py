"""What a request costs: extract(details=True), Toolbox.run(details=True), usage read from
each provider's own fields through the real SDKs, the conversation continued, and
extract_stream with retries."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import openai
import pytest

from describedtypes import (
    DecodeError,
    Extraction,
    MaxTurnsError,
    ToolRun,
    Usage,
    aextract_stream,
    extract,
    extract_stream,
)
from tests.test_ask_sdk import (
    BAD,
    GOOD,
    IDS,
    KINDS,
    PAIRS,
    WEATHER,
    Kind,
    Server,
    Weather,
    ask,
    run_loop,
)

both = pytest.mark.parametrize(("kind", "is_async"), PAIRS, ids=IDS)
kinds = pytest.mark.parametrize("kind", KINDS, ids=[k.name for k in KINDS])

#: The same cost in every provider's own usage fields: 10 input tokens of which 4 were
#: cached, 5 output tokens of which 2 were reasoning.
EXPECTED = Usage(requests=1, input_tokens=10, output_tokens=5, cached_input_tokens=4,
                 reasoning_tokens=2)


def with_usage(kind: Kind, reply: dict[str, Any]) -> dict[str, Any]:
    if kind.name == "chat":
        reply["usage"] = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15,
                          "prompt_tokens_details": {"cached_tokens": 4},
                          "completion_tokens_details": {"reasoning_tokens": 2}}
    elif kind.name == "responses":
        reply["usage"] = {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15,
                          "input_tokens_details": {"cached_tokens": 4},
                          "output_tokens_details": {"reasoning_tokens": 2}}
    elif kind.name == "anthropic":
        # input_tokens is the uncached part only: 6 + 4 read from the cache.
        reply["usage"] = {"input_tokens": 6, "output_tokens": 5, "cache_read_input_tokens": 4,
                          "cache_creation_input_tokens": 0,
                          "output_tokens_details": {"thinking_tokens": 2}}
    else:
        # Thoughts are not inside candidatesTokenCount: 3 + 2 output tokens.
        reply["usageMetadata"] = {"promptTokenCount": 10, "candidatesTokenCount": 3,
                                  "thoughtsTokenCount": 2, "cachedContentTokenCount": 4,
                                  "totalTokenCount": 15}
    return reply


@both
def test_extract_details_sums_each_providers_own_usage(kind: Kind, is_async: bool) -> None:
    """details=True: the value, every attempt with its usage, and their sum."""
    replies = [with_usage(kind, kind.text(BAD)), with_usage(kind, kind.text(GOOD))]
    result, server = ask(kind, is_async, replies, details=True)
    assert isinstance(result, Extraction)
    assert result.value == WEATHER
    assert result.usage == EXPECTED + EXPECTED
    assert [a.usage for a in result.attempts] == [EXPECTED, EXPECTED]
    assert isinstance(result.attempts[0].outcome, DecodeError)
    assert result.attempts[1].outcome == WEATHER
    assert all(a.seconds >= 0 for a in result.attempts)
    assert result.seconds >= 0
    assert len(server.bodies) == 2


@kinds
def test_the_messages_continue_the_conversation_through_the_sdk(kind: Kind) -> None:
    """Extraction.messages plus a user message is a valid next request for the SDK."""
    result, _ = ask(kind, False, [kind.text(GOOD)], details=True)
    follow_up = [*result.messages, _user(kind, "And tomorrow?")]
    value, server = ask(kind, False, [kind.text(GOOD)], messages=follow_up)
    assert value == WEATHER
    [body] = server.bodies
    sent = body[kind.key]
    assert len(sent) == len(follow_up)
    assert kind.last_text(body) == "And tomorrow?"


def _user(kind: Kind, text: str) -> dict[str, Any]:
    if kind.name == "gemini":
        return {"role": "user", "parts": [{"text": text}]}
    return {"role": "user", "content": text}


@kinds
def test_a_decode_error_carries_the_usage_of_every_attempt(kind: Kind) -> None:
    """After the last retry the DecodeError says what the failed requests cost."""
    replies = [with_usage(kind, kind.text(BAD)) for _ in range(2)]
    with pytest.raises(DecodeError) as info:
        ask(kind, False, replies, retries=1)
    assert info.value.usage == EXPECTED + EXPECTED
    assert len(info.value.attempts) == 2


@both
def test_run_details_records_every_turn(kind: Kind, is_async: bool) -> None:
    """Toolbox.run(details=True): each turn with its usage and its calls' results."""
    replies = [
        with_usage(kind, kind.calls([("c1", "get_weather", {"city": "Paris"})])),
        with_usage(kind, kind.text("Sunny in Paris.")),
    ]
    result, _ = run_loop(kind, is_async, replies, details=True)
    assert isinstance(result, ToolRun)
    assert result.output == "Sunny in Paris."
    assert result.usage == EXPECTED + EXPECTED
    first, last = result.turns
    [(call, outcome)] = first.calls
    assert call.name == "get_weather"
    assert not outcome.is_error
    assert last.calls == ()
    assert result.messages[-1] is not None


@kinds
def test_max_turns_error_carries_usage_and_turns(kind: Kind) -> None:
    """A run that never answers still says what it cost."""
    calls = [with_usage(kind, kind.calls([(f"c{i}", "get_weather", {"city": "Paris"})]))
             for i in range(2)]
    with pytest.raises(MaxTurnsError) as info:
        run_loop(kind, False, calls, max_turns=2)
    assert info.value.usage == EXPECTED + EXPECTED
    assert len(info.value.turn_records) == 2


def test_details_must_be_a_bool() -> None:
    """details="yes" is a TypeError naming the argument, for extract and run."""
    kind = KINDS[0]
    with pytest.raises(TypeError, match="details"):
        ask(kind, False, [kind.text(GOOD)], details="yes")
    with pytest.raises(TypeError, match="details"):
        run_loop(kind, False, [kind.text("hi")], details=1)


def test_stream_true_points_to_extract_stream() -> None:
    """extract(stream=True) says to use extract_stream, before any request."""
    client = openai.OpenAI(api_key="k", base_url="http://127.0.0.1:9")
    with pytest.raises(TypeError, match="extract_stream"):
        extract(Weather, client, model="m", messages="hi", stream=True)


def test_usage_adds_up_and_refuses_other_things() -> None:
    """Usage + Usage adds field by field; sum() works; a non-Usage is refused."""
    assert sum([EXPECTED, EXPECTED], Usage()) == Usage(2, 20, 10, 8, 4)
    assert sum([EXPECTED, EXPECTED]) == Usage(2, 20, 10, 8, 4)
    with pytest.raises(TypeError):
        EXPECTED + 1  # type: ignore[operator]
    assert Usage(requests=-3, input_tokens="many") == Usage()  # type: ignore[arg-type]


def test_a_count_no_provider_could_mean_is_no_count() -> None:
    """A hostile server's 5,001-digit token count is read as 0 (not kept: Python cannot
    even print it), so repr(), the notebook view and the details of a result still
    work; a sum of real counts stops at 2**63 - 1 instead of growing without bound."""
    from describedtypes import Extraction
    from describedtypes._vendors import openai_chat

    huge = 10**5000
    usage = openai_chat.FORMAT.usage(
        {"usage": {"prompt_tokens": huge, "completion_tokens": 5, "total_tokens": huge}}
    )
    assert usage == Usage(1, 0, 5)
    assert Usage(1, huge, huge, huge, huge) == Usage(1)
    assert "input_tokens=0" in repr(usage)
    assert "<td>5</td>" in usage._repr_html_()
    details = Extraction(1, usage, [], [], 0.5)
    assert "Usage(" in repr(details)
    assert details._repr_html_()
    top = 2**63 - 1
    assert (Usage(1, top) + Usage(1, top)).input_tokens == top
    assert sum([Usage(1, top)] * 3).input_tokens == top


# -- extract_stream ----------------------------------------------------------------------


def _sse_chat(text: str, usage: bool = True) -> Any:
    pieces = [text[i : i + 9] for i in range(0, len(text), 9)]
    events = [{"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m",
               "choices": [{"index": 0, "delta": {"content": p}, "finish_reason": None}]}
              for p in pieces]
    events.append({"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m",
                   "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    if usage:
        events.append({"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m",
                       "choices": [], "usage": {"prompt_tokens": 10, "completion_tokens": 5,
                                                "total_tokens": 15}})
    return "".join(f"data: {json.dumps(e)}\n\n" for e in events) + "data: [DONE]\n\n"


class StreamServer(Server):
    def __call__(self, request: Any) -> Any:
        import httpx

        self.paths.append(request.url.path)
        self.bodies.append(json.loads(request.content))
        return httpx.Response(200, text=self.replies.pop(0),
                              headers={"content-type": "text/event-stream"})


def _openai(server: Any, is_async: bool) -> Any:
    import httpx

    transport = httpx.MockTransport(server)
    if is_async:
        return openai.AsyncOpenAI(api_key="k", base_url="https://api.example.test/v1",
                                  http_client=httpx.AsyncClient(transport=transport))
    return openai.OpenAI(api_key="k", base_url="https://api.example.test/v1",
                         http_client=httpx.Client(transport=transport))


def test_extract_stream_retries_on_a_new_stream_through_the_sdk() -> None:
    """A streamed reply that does not decode starts a new stream; partials start over."""
    server = StreamServer([_sse_chat(BAD), _sse_chat(GOOD)])
    stream = extract_stream(Weather, _openai(server, False), model="m", messages="Paris?")
    seen: list[tuple[int, Any]] = [(stream.attempt, value) for value in stream]
    assert seen[-1] == (2, WEATHER)
    assert {attempt for attempt, _ in seen} == {1, 2}
    assert stream.usage == Usage(2, 20, 10)
    assert stream.details is not None
    assert stream.details.value == WEATHER
    first, second = server.bodies
    assert first["stream"] is True
    assert first["stream_options"] == {"include_usage": True}
    assert second["messages"][-1]["role"] == "user"  # the problems, sent back
    assert "temprature" in second["messages"][-1]["content"]


def test_aextract_stream_through_the_async_sdk() -> None:
    """The async form yields the same values from an AsyncOpenAI stream."""
    server = StreamServer([_sse_chat(GOOD)])

    async def main() -> list[Any]:
        stream = aextract_stream(Weather, _openai(server, True), model="m", messages="Paris?")
        return [value async for value in stream]

    values = asyncio.run(main())
    assert values[-1] == WEATHER


class _Fake:
    """A client recognised by shape whose create method returns the given events."""

    def __init__(self, path: str, events: list[list[Any]]) -> None:
        self.events = list(events)
        self.sent: list[dict[str, Any]] = []
        head, _, last = path.rpartition(".")
        owner: Any = self
        for part in head.split("."):
            child = type(part, (), {})()
            setattr(owner, part, child)
            owner = child
        setattr(owner, last, self._create)
        if path == "models.generate_content":
            owner.generate_content_stream = self._create

    def _create(self, **kwargs: Any) -> Any:
        self.sent.append(kwargs)
        return iter(self.events.pop(0))


def _anthropic_events(text: str) -> list[Any]:
    return [
        {"type": "message_start", "message": {"usage": {"input_tokens": 6,
                                                        "cache_read_input_tokens": 4,
                                                        "output_tokens": 1}}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text",
                                                                      "text": ""}},
        *({"type": "content_block_delta", "index": 0,
           "delta": {"type": "text_delta", "text": text[i : i + 9]}}
          for i in range(0, len(text), 9)),
        {"type": "message_delta", "delta": {"stop_reason": "end_turn"},
         "usage": {"output_tokens": 5}},
        {"type": "message_stop"},
    ]


def _responses_events(text: str) -> list[Any]:
    return [
        *({"type": "response.output_text.delta", "delta": text[i : i + 9]}
          for i in range(0, len(text), 9)),
        {"type": "response.completed", "response": {"status": "completed", "usage": {
            "input_tokens": 10, "output_tokens": 5,
            "input_tokens_details": {"cached_tokens": 4}}}},
    ]


def _gemini_events(text: str) -> list[Any]:
    pieces = [text[i : i + 9] for i in range(0, len(text), 9)]
    chunks = [{"candidates": [{"content": {"role": "model", "parts": [{"text": p}]}}]}
              for p in pieces]
    chunks[-1]["candidates"][0]["finishReason"] = "STOP"
    chunks[-1]["usageMetadata"] = {"promptTokenCount": 10, "candidatesTokenCount": 5,
                                   "cachedContentTokenCount": 4}
    return chunks


@pytest.mark.parametrize(("path", "events", "api"), [
    ("messages.create", _anthropic_events, None),
    ("models.generate_content", _gemini_events, None),
], ids=["anthropic", "gemini"])
def test_extract_stream_reads_every_streaming_source(path: str, events: Any, api: Any) -> None:
    """Anthropic and Gemini streams: a retry, and usage read from their own events."""
    client = _Fake(path, [events(BAD), events(GOOD)])
    stream = extract_stream(Weather, client, model="m", messages="Paris?", api=api)
    values = list(stream)
    assert values[-1] == WEATHER
    assert stream.attempt == 2
    assert stream.usage == Usage(2, 20, 10, 8)


def test_extract_stream_reads_responses_events() -> None:
    """OpenAI Responses events, through a client with both OpenAI APIs."""
    client = _Fake("responses.create", [_responses_events(GOOD)])
    client.chat = type("chat", (), {})()
    client.chat.completions = type("completions", (), {"create": lambda self, **k: None})()
    stream = extract_stream(Weather, client, model="m", messages="Paris?", api="responses")
    assert list(stream)[-1] == WEATHER
    assert stream.usage == Usage(1, 10, 5, 4)
    assert client.sent[0]["stream"] is True


def test_extract_stream_gives_up_with_the_usage_attached() -> None:
    """Past the last retry the DecodeError is raised while iterating, with .usage."""
    server = StreamServer([_sse_chat(BAD), _sse_chat(BAD)])
    stream = extract_stream(Weather, _openai(server, False), model="m", messages="Paris?",
                            retries=1)
    with pytest.raises(DecodeError) as info:
        list(stream)
    assert info.value.usage == Usage(2, 20, 10)
    assert stream.attempt == 2


@kinds
def test_details_print_short_with_the_responses_a_field_away(kind: Kind) -> None:
    """print(extract(..., details=True)) and print(run(..., details=True)) are one short
    line each: the value, the counts and the usage, never the SDK's whole responses (which
    stay in ``attempts[i].response`` / ``turns[i].response``)."""
    extraction, _ = ask(kind, False, [kind.text(BAD), kind.text(GOOD)], details=True)
    text = repr(extraction)
    assert text.startswith(f"Extraction(value={WEATHER!r}, attempts=2, usage=")
    assert len(text) < 400, text
    assert "chatcmpl" not in text
    assert "choices" not in text
    assert "candidates" not in text
    assert repr(extraction.attempts[0]).startswith("Attempt(ok=False, outcome=DecodeError(")
    replies = [kind.calls([("c1", "get_weather", {"city": "Paris"})]),
               kind.text("Sunny in Paris.")]
    run, _ = run_loop(kind, False, replies, details=True)
    text = repr(run)
    assert text.startswith("ToolRun(output='Sunny in Paris.', turns=2, calls=1, usage=")
    assert len(text) < 400, text
    assert repr(run.turns[0]).startswith("Turn(calls=['get_weather'], usage=")


def test_a_long_value_is_cut_in_the_short_repr() -> None:
    """The value's own repr is cut at 200 characters, with an ellipsis."""
    long = Extraction(value="x" * 1000, usage=Usage(), attempts=(), messages=(), seconds=0.0)
    text = repr(long)
    assert "x" * 190 in text
    assert "x" * 300 not in text
    assert "...," in text

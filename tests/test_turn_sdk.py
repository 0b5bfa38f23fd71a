"""The per-turn limits through the real provider SDKs over a mock HTTP transport: a reply with
more tool calls than ``max_calls_per_turn`` still gets exactly one result per call id (OpenAI
and Anthropic reject a request in which a tool call has none), the first calls run, the rest
are error results, and the next request passes the SDK's own request types."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import anthropic.types
import openai.types.chat
import openai.types.responses
import pydantic
import pytest
from google.genai import types as genai_types

from describedtypes import Toolbox

from .test_ask_sdk import IDS, PAIRS, Claude, Gemini, Kind, Responses, Server

both = pytest.mark.parametrize(("kind", "is_async"), PAIRS, ids=IDS)

_CHAT = pydantic.TypeAdapter(list[openai.types.chat.ChatCompletionMessageParam])
_RESPONSES = pydantic.TypeAdapter(openai.types.responses.ResponseInputParam)
_ANTHROPIC = pydantic.TypeAdapter(list[anthropic.types.MessageParam])


def accepted_by_the_sdk(kind: Kind, body: dict[str, Any]) -> None:
    """The request's conversation validates against the SDK's own request types."""
    if isinstance(kind, Gemini):
        for content in body["contents"]:
            genai_types.Content.model_validate(content)
    elif isinstance(kind, Claude):
        for message in _ANTHROPIC.validate_python(body["messages"]):
            content = message["content"]
            if not isinstance(content, str):
                list(content)  # the blocks are validated as they are read
    elif isinstance(kind, Responses):
        _RESPONSES.validate_python(body["input"])
    else:
        _CHAT.validate_python(body["messages"])


def make_box(ran: list[str], **options: Any) -> Toolbox:
    box = Toolbox(**options)

    @box.tool
    def lookup(key: str) -> str:
        """Look a key up.

        Args:
            key: The key.
        """
        ran.append(key)
        return f"value of {key}"

    return box


def run_loop(kind: Kind, is_async: bool, box: Toolbox, replies: list[dict[str, Any]]) -> Any:
    server = Server(replies)
    client = kind.client(server, is_async=is_async)
    kwargs: dict[str, Any] = {"model": "m", "messages": "Look up every key."}
    if kind.api:
        kwargs["api"] = kind.api
    if is_async:
        return asyncio.run(box.arun(client, **kwargs)), server
    return box.run(client, **kwargs), server


@both
def test_calls_past_the_cap_get_error_results_and_never_run(kind: Kind, is_async: bool) -> None:
    ran: list[str] = []
    box = make_box(ran, max_calls_per_turn=3)
    ids = [f"call_{i}" for i in range(8)]
    replies = [
        kind.calls([(i, "lookup", {"key": f"k{n}"}) for n, i in enumerate(ids)]),
        kind.text("Done."),
    ]
    answer, server = run_loop(kind, is_async, box, replies)
    assert answer == "Done."
    assert sorted(ran) == ["k0", "k1", "k2"]
    _, second = server.bodies
    results = kind.sent_results(second)
    assert [r[0] for r in results] == ids  # one result per call id, in order
    assert [r[1] for r in results[:3]] == ["value of k0", "value of k1", "value of k2"]
    for _, content, is_error in results[3:]:
        assert content.startswith(
            "Not run: this turn made 8 tool calls and at most 3 are run per turn."
        )
        assert is_error in (True, None)  # the providers with an error flag set it
    if results[0][2] is not None:
        assert [r[2] for r in results] == [False] * 3 + [True] * 5
    accepted_by_the_sdk(kind, second)


@both
def test_the_model_can_call_the_rest_in_the_next_turn(kind: Kind, is_async: bool) -> None:
    ran: list[str] = []
    box = make_box(ran, max_calls_per_turn=2)
    replies = [
        kind.calls([(f"a{n}", "lookup", {"key": f"k{n}"}) for n in range(4)]),
        kind.calls([(f"b{n}", "lookup", {"key": f"k{n}"}) for n in (2, 3)]),
        kind.text("Done."),
    ]
    answer, server = run_loop(kind, is_async, box, replies)
    assert answer == "Done."
    assert ran == ["k0", "k1", "k2", "k3"]
    third = server.bodies[2]
    assert [r[:2] for r in kind.sent_results(third)[-2:]] == [
        ("b2", "value of k2"), ("b3", "value of k3")
    ]
    accepted_by_the_sdk(kind, third)


@both
def test_a_turn_of_long_results_is_cut_to_the_budget(kind: Kind, is_async: bool) -> None:
    box = Toolbox(max_result_chars_per_turn=4000)

    @box.tool
    def page(n: int) -> str:
        """Fetch a page."""
        return str(n) * 5000

    replies = [kind.calls([(f"p{n}", "page", {"n": n}) for n in range(4)]), kind.text("ok")]
    _, server = run_loop(kind, is_async, box, replies)
    results = kind.sent_results(server.bodies[1])
    assert [r[0] for r in results] == ["p0", "p1", "p2", "p3"]
    for n, (_, content, _) in enumerate(results):
        kept, note = content.split("\n", 1)
        assert kept == str(n) * len(kept)
        assert note.startswith(f"[The result was cut here: it had 5,000 characters and only "
                               f"the first {len(kept):,} are shown")
    assert sum(len(content) for _, content, _ in results) <= 4000  # the notes included
    accepted_by_the_sdk(kind, server.bodies[1])


_MALFORMED = [
    (Kind(), {"messages": [{"role": "user", "content": "hi"},
                           {"role": "tool", "content": json.dumps("x")}]}),
    # openai 3.57's FunctionCallOutput has no required key (3.3's required call_id), so
    # the call id is there but of the wrong type: refused by both.
    (Responses(), {"input": [{"type": "function_call_output", "call_id": 5, "output": "o"}]}),
    (Claude(), {"messages": [{"role": "user", "content": [
        {"type": "tool_result", "content": "x"}]}]}),
    (Gemini(), {"contents": [{"role": "user", "parts": [
        {"functionResponse": {"id": "x", "name": "n", "response": "not an object"}}]}]}),
]


@pytest.mark.parametrize(("kind", "body"), _MALFORMED, ids=["chat", "responses", "anthropic",
                                                            "gemini"])
def test_the_sdk_types_catch_a_malformed_result(kind: Kind, body: dict[str, Any]) -> None:
    """The check above has teeth: a result without its call id (a call id that is not a
    string for Responses; for Gemini, a response that is not an object) fails it."""
    with pytest.raises(pydantic.ValidationError):
        accepted_by_the_sdk(kind, body)


@pytest.mark.parametrize("key", ["max_calls_per_turn", "max_result_chars_per_turn",
                                 "max_result_chars"])
@pytest.mark.parametrize("is_async", [False, True])
def test_the_limits_passed_to_run_say_where_they_belong(key: str, is_async: bool) -> None:
    """run() would pass an unknown keyword on to the SDK; these are the toolbox's, and the
    error says so before any request."""
    server = Server([])
    client = Claude().client(server, is_async=is_async)
    box = make_box([])
    match = rf"Toolbox\.a?run\(\) got {key}=; it is a setting of the toolbox: Toolbox\(tools, "
    def start() -> Any:
        if is_async:
            return asyncio.run(box.arun(client, messages="hi", model="m", **{key: 3}))
        return box.run(client, messages="hi", model="m", **{key: 3})

    with pytest.raises(TypeError, match=match):
        start()
    assert server.bodies == []

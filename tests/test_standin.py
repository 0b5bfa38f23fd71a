"""The docs' provider stand-in refuses what the API refuses, with the SDK's own types."""

from __future__ import annotations

import attrs
import pytest

from describedtypes import ANTHROPIC, OPENAI, schema

from .standin import StandIn, problems
from .standin_replies import chat_completion, message_text

openai = pytest.importorskip("openai", reason="the stand-in checks with the openai SDK")
anthropic = pytest.importorskip("anthropic", reason="the stand-in checks with the SDK")


@attrs.define
class Story:
    title: str


MESSAGES = [{"role": "user", "content": "A story?"}]


def test_a_response_format_without_its_wrapper_is_refused_as_the_api_would() -> None:
    """The mistake docs/streaming.md once made: the schema passed as response_format."""
    stand_in = StandIn([("openai", chat_completion('{"title": "x"}'))])
    with stand_in.serving(), pytest.raises(openai.BadRequestError, match="response_format"):
        openai.OpenAI().chat.completions.create(
            model="gpt-5-mini", messages=MESSAGES, response_format=schema(Story, OPENAI),
        )
    assert stand_in.replies  # refused: the reply was never used


def test_a_correct_request_gets_the_canned_reply() -> None:
    stand_in = StandIn([("openai", chat_completion('{"title": "x"}'))])
    with stand_in.serving():
        completion = openai.OpenAI().chat.completions.create(
            model="gpt-5-mini", messages=MESSAGES,
            response_format={"type": "json_schema", "json_schema": schema(Story, OPENAI)},
        )
    assert completion.choices[0].message.content == '{"title": "x"}'
    assert stand_in.replies == []


def test_a_misspelt_parameter_is_refused() -> None:
    found = problems("openai", "/v1/chat/completions",
                     {"model": "m", "messages": MESSAGES, "respose_format": {}})
    assert found == ["respose_format: not a parameter of /v1/chat/completions"]


def test_anthropic_requests_are_checked_too() -> None:
    body = {"model": "claude-haiku-4-5", "messages": MESSAGES,
            "output_config": {"format": schema(Story, ANTHROPIC)}}
    assert problems("anthropic", "/v1/messages", body) == ["max_tokens: Field required"]
    stand_in = StandIn([("anthropic", message_text('{"title": "x"}'))])
    with stand_in.serving():
        message = anthropic.Anthropic().messages.create(max_tokens=1024, **body)
    assert message.content[0].text == '{"title": "x"}'

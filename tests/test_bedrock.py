"""Amazon Bedrock Converse: bodies, replies, tool loops and streams through boto3's own
bedrock-runtime client, answered by botocore's Stubber (never a live call)."""

from __future__ import annotations

import json
from typing import Annotated, Any

import annotated_types as at
import attrs
import pytest

import describedtypes as dt
from describedtypes import BEDROCK, BEDROCK_TOOLS, Toolbox, check, extract, schema

boto3 = pytest.importorskip("boto3", reason="boto3 is in the test extra")
from botocore.stub import ANY, Stubber  # noqa: E402

from describedtypes._vendors import bedrock as vendor  # noqa: E402

CLAUDE = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
GPT = "openai.gpt-oss-120b-1:0"


@attrs.define
class City:
    """A city and its population."""

    name: str
    population: Annotated[int, at.Ge(0)]
    aliases: Annotated[list[str], at.MaxLen(3)]


def _client() -> Any:
    return boto3.client("bedrock-runtime", region_name="us-east-1",
                        aws_access_key_id="testing", aws_secret_access_key="testing")


def _reply(content: list[dict[str, Any]], stop: str = "end_turn",
           usage: dict[str, int] | None = None) -> dict[str, Any]:
    return {
        "output": {"message": {"role": "assistant", "content": content}},
        "stopReason": stop,
        "usage": usage or {"inputTokens": 10, "outputTokens": 5, "totalTokens": 15},
        "metrics": {"latencyMs": 12},
    }


def test_output_format_carries_the_schema_as_a_string() -> None:
    """BEDROCK's body is outputConfig.textFormat with the schema as JSON text."""
    body = schema(City, BEDROCK)
    spec = body["structure"]["jsonSchema"]
    assert body["type"] == "json_schema"
    assert spec["name"] == "City"
    assert spec["description"] == "A city and its population."
    inner = json.loads(spec["schema"])
    assert inner["additionalProperties"] is False
    # Anthropic's rules: no numeric bounds, no maxItems: they are in the descriptions.
    assert "minimum" not in inner["properties"]["population"]
    assert "maxItems" not in inner["properties"]["aliases"]
    assert check(dict(body), BEDROCK) == []


def test_the_openai_family_keeps_openai_keywords() -> None:
    """replace(family="openai") has OpenAI's rules; unknown families are refused."""
    inner = json.loads(schema(City, BEDROCK.replace(family="openai"))["structure"]
                       ["jsonSchema"]["schema"])
    assert inner["properties"]["population"]["minimum"] == 0
    assert inner["properties"]["aliases"]["maxItems"] == 3
    with pytest.raises(ValueError, match="'anthropic', 'openai'"):
        BEDROCK.replace(family="mistral")
    assert vendor.family_of(GPT) == "openai"
    assert vendor.family_of("us.openai.gpt-oss-20b-1:0") == "openai"
    assert vendor.family_of(CLAUDE) == "anthropic"
    assert vendor.family_of(
        "arn:aws:bedrock:us-west-2::foundation-model/openai.gpt-oss-20b-1:0") == "openai"
    assert vendor.family_of("amazon.nova-pro-v1:0") == "anthropic"


def test_a_check_points_into_the_schema_string() -> None:
    """check() reads the body inside the JSON string, with Anthropic's rules."""
    body = json.loads(json.dumps(schema(City, BEDROCK)))
    inner = json.loads(body["structure"]["jsonSchema"]["schema"])
    inner["properties"]["population"]["maximum"] = 10
    body["structure"]["jsonSchema"]["schema"] = json.dumps(inner)
    problems = check(body, BEDROCK)
    assert [p.pointer for p in problems] == [
        "/structure/jsonSchema/schema/properties/population/maximum"]


def test_tool_spec_shape_and_budgets() -> None:
    """BEDROCK_TOOLS is a toolSpec with inputSchema.json and strict; Anthropic's budgets."""
    def lookup(city: str, limit: int = 3) -> str:
        """Look a city up."""
        return city

    tool = schema(lookup, BEDROCK_TOOLS)
    spec = tool["toolSpec"]
    assert spec["name"] == "lookup"
    assert spec["strict"] is True
    assert spec["inputSchema"]["json"]["type"] == "object"
    assert BEDROCK_TOOLS.profile.limits.max_strict_tools == 20
    assert BEDROCK_TOOLS.replace(family="openai").profile.limits.max_strict_tools is None
    assert BEDROCK.profile.request_field == "outputConfig.textFormat"
    assert BEDROCK_TOOLS.profile.request_field == "toolConfig.tools"


def test_extract_through_the_stubbed_client() -> None:
    """extract() sends a valid Converse request (botocore validates it) and decodes."""
    client = _client()
    with Stubber(client) as stub:
        stub.add_response(
            "converse",
            _reply([{"text": '{"name": "Oslo", "population": 709000, "aliases": []}'}],
                   usage={"inputTokens": 7, "outputTokens": 9, "totalTokens": 216,
                          "cacheReadInputTokens": 200}),
            {"modelId": CLAUDE, "messages": [
                {"role": "user", "content": [{"text": "Oslo?"}]}],
             "system": [{"text": "Be brief."}],
             "outputConfig": {"textFormat": dict(schema(City, BEDROCK))}},
        )
        result = extract(City, client,
                         messages=[{"role": "system", "content": "Be brief."},
                                   {"role": "user", "content": "Oslo?"}],
                         model=CLAUDE, details=True)
        stub.assert_no_pending_responses()
    assert result.value == City("Oslo", 709000, [])
    assert result.usage == dt.Usage(1, 207, 9, 200)


def test_extract_picks_the_openai_family_from_the_model_id() -> None:
    """An openai. modelId gets OpenAI's rules: bounds are sent as keywords."""
    client = _client()
    with Stubber(client) as stub:
        stub.add_response(
            "converse",
            _reply([{"text": '{"name": "Oslo", "population": 1, "aliases": []}'}]),
            {"modelId": GPT, "messages": ANY,
             "outputConfig": {"textFormat": dict(schema(City, BEDROCK.replace(
                 family="openai")))}},
        )
        assert extract(City, client, messages="Oslo?", model=GPT) == City("Oslo", 1, [])


def test_a_bad_reply_is_retried_with_the_problems() -> None:
    """A reply that breaks the full type is sent back; the second one decodes."""
    client = _client()
    with Stubber(client) as stub:
        stub.add_response("converse", _reply(
            [{"text": '{"name": "Oslo", "population": -4, "aliases": []}'}]))
        stub.add_response("converse", _reply(
            [{"text": '{"name": "Oslo", "population": 4, "aliases": []}'}]))
        assert extract(City, client, messages="Oslo?", model=CLAUDE) == City("Oslo", 4, [])
        stub.assert_no_pending_responses()


def test_refusals_and_cut_off_replies() -> None:
    """max_tokens is an IncompleteReplyError; a guardrail is a RefusalError."""
    for stop, error in (("max_tokens", dt.IncompleteReplyError),
                        ("guardrail_intervened", dt.RefusalError)):
        with pytest.raises(error):
            dt.decode_response(City, _reply([{"text": '{"name": "O'}], stop=stop))


def test_tool_loop_through_the_stubbed_client() -> None:
    """Toolbox.run sends toolConfig, reads toolUse, answers with toolResult blocks."""
    seen = []

    def population(city: str) -> int:
        """The population of a city."""
        seen.append(city)
        return 709000

    box = Toolbox([population])
    client = _client()
    definitions = box.definitions(BEDROCK_TOOLS)
    with Stubber(client) as stub:
        stub.add_response(
            "converse",
            _reply([{"text": "Let me look."},
                    {"toolUse": {"toolUseId": "t1", "name": "population",
                                 "input": {"city": "Oslo"}}}], stop="tool_use"),
            {"modelId": CLAUDE, "messages": ANY,
             "toolConfig": {"tools": [dict(d) for d in definitions]}},
        )
        stub.add_response(
            "converse", _reply([{"text": "Oslo has 709000 people."}]),
            {"modelId": CLAUDE, "toolConfig": ANY, "messages": [
                {"role": "user", "content": [{"text": "How many live in Oslo?"}]},
                {"role": "assistant", "content": [
                    {"text": "Let me look."},
                    {"toolUse": {"toolUseId": "t1", "name": "population",
                                 "input": {"city": "Oslo"}}}]},
                {"role": "user", "content": [{"toolResult": {
                    "toolUseId": "t1", "content": [{"text": "709000"}],
                    "status": "success"}}]},
            ]},
        )
        out = box.run(client, messages="How many live in Oslo?", model=CLAUDE)
        stub.assert_no_pending_responses()
    assert out == "Oslo has 709000 people."
    assert seen == ["Oslo"]


def test_tool_loop_with_a_typed_answer() -> None:
    """Toolbox.run(output_type=...) with a Bedrock client: Claude models on Bedrock take
    tools and outputConfig in one request, and the answer decodes into the type."""

    def population(city: str) -> int:
        """The population of a city."""
        return 709000

    box = Toolbox([population])
    client = _client()
    plan = box.plan(BEDROCK_TOOLS, output_type=City)
    assert plan.phases == "combined"
    answer = '{"name": "Oslo", "population": 709000, "aliases": []}'
    with Stubber(client) as stub:
        stub.add_response(
            "converse",
            _reply([{"toolUse": {"toolUseId": "t1", "name": "population",
                                 "input": {"city": "Oslo"}}}], stop="tool_use"),
            {"modelId": CLAUDE, "messages": ANY,
             "toolConfig": {"tools": [dict(d) for d in plan.tools]},
             "outputConfig": {"textFormat": dict(plan.output_format)}},
        )
        stub.add_response(
            "converse", _reply([{"text": answer}]),
            {"modelId": CLAUDE, "messages": ANY, "toolConfig": ANY, "outputConfig": ANY},
        )
        out = box.run(client, messages="Tell me about Oslo.", model=CLAUDE, output_type=City,
                      details=True)
        stub.assert_no_pending_responses()
    assert out.output == City("Oslo", 709000, [])
    assert [turn.phase for turn in out.turns] == ["combined", "combined"]


def test_read_tool_calls_and_results() -> None:
    """read_tool_calls reads toolUse blocks; results are toolResult blocks with status."""
    reply = _reply([{"toolUse": {"toolUseId": "a", "name": "f", "input": {"x": 1}}}],
                   stop="tool_use")
    calls = dt.read_tool_calls(reply)
    assert [(c.name, c.arguments, c.call_id) for c in calls] == [("f", {"x": 1}, "a")]
    results = [dt.ToolResult(content="boom", is_error=True, call_id="a", name="f")]
    assert vendor.FORMAT.result_messages(results) == [{"role": "user", "content": [
        {"toolResult": {"toolUseId": "a", "content": [{"text": "boom"}],
                        "status": "error"}}]}]


EVENTS = [
    {"messageStart": {"role": "assistant"}},
    {"contentBlockDelta": {"delta": {"text": '{"name": "Os'}, "contentBlockIndex": 0}},
    {"contentBlockDelta": {"delta": {"text": 'lo", "population": 709000, '},
                           "contentBlockIndex": 0}},
    {"contentBlockDelta": {"delta": {"text": '"aliases": ["Christiania"]}'},
                           "contentBlockIndex": 0}},
    {"contentBlockStop": {"contentBlockIndex": 0}},
    {"messageStop": {"stopReason": "end_turn"}},
    {"metadata": {"usage": {"inputTokens": 3, "outputTokens": 20, "totalTokens": 23},
                  "metrics": {"latencyMs": 5}}},
]


def test_decode_stream_reads_converse_events() -> None:
    """decode_stream reads contentBlockDelta text, whole or as converse_stream returns it."""
    pytest.importorskip("jiter", reason="partial parsing is the stream extra")
    values = list(dt.decode_stream(City, {"stream": iter(EVENTS)}))
    assert values[-1] == City("Oslo", 709000, ["Christiania"])
    assert list(dt.decode_stream(City, EVENTS))[-1] == values[-1]


def test_a_streamed_tool_call_is_read() -> None:
    """toolUse start and input deltas make one call."""
    pytest.importorskip("jiter", reason="partial parsing is the stream extra")
    events = [
        {"contentBlockStart": {"start": {"toolUse": {"toolUseId": "t", "name": "City"}},
                               "contentBlockIndex": 1}},
        {"contentBlockDelta": {"delta": {"toolUse": {"input": '{"name": "Rome", '}},
                               "contentBlockIndex": 1}},
        {"contentBlockDelta": {"delta": {"toolUse": {
            "input": '"population": 2, "aliases": []}'}}, "contentBlockIndex": 1}},
        {"messageStop": {"stopReason": "tool_use"}},
    ]
    assert list(dt.decode_stream(City, events))[-1] == City("Rome", 2, [])


def test_a_stream_error_event_is_a_decode_error() -> None:
    """An exception event in the stream is a DecodeError naming it."""
    pytest.importorskip("jiter", reason="partial parsing is the stream extra")
    events = [EVENTS[1], {"throttlingException": {"message": "slow down"}}]
    with pytest.raises(dt.DecodeError, match=r"throttlingException.*slow down"):
        list(dt.decode_stream(City, events))


class _StreamingClient:
    """boto3's client with converse_stream answered from recorded events (the Stubber
    cannot build an event stream)."""

    def __init__(self, client: Any, streams: list[list[dict[str, Any]]]) -> None:
        self.client = client
        self.streams = streams
        self.sent: list[dict[str, Any]] = []

    def converse(self, **kwargs: Any) -> Any:
        return self.client.converse(**kwargs)

    def converse_stream(self, **kwargs: Any) -> Any:
        # botocore validates the request as it would send it
        self.client._serializer.serialize_to_request(
            kwargs, self.client.meta.service_model.operation_model("ConverseStream"))
        from botocore.validate import validate_parameters
        validate_parameters(kwargs, self.client.meta.service_model.operation_model(
            "ConverseStream").input_shape)
        self.sent.append(kwargs)
        return {"ResponseMetadata": {}, "stream": iter(self.streams.pop(0))}


def test_extract_stream_with_a_retry() -> None:
    """extract_stream reads converse_stream; a failed stream is retried."""
    pytest.importorskip("jiter", reason="partial parsing is the stream extra")
    bad = [{"contentBlockDelta": {"delta": {"text": '{"name": 1}'}, "contentBlockIndex": 0}},
           {"messageStop": {"stopReason": "end_turn"}}]
    client = _StreamingClient(_client(), [bad, EVENTS])
    stream = dt.extract_stream(City, client, messages="Oslo?", model=CLAUDE)
    values = list(stream)
    assert values[-1] == City("Oslo", 709000, ["Christiania"])
    assert stream.attempt == 2
    assert "outputConfig" in client.sent[0]
    assert "stream" not in client.sent[0]
    assert client.sent[1]["messages"][-1]["content"][0]["text"].startswith(
        "The reply does not match")

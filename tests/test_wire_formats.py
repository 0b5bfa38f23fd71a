"""One module per wire format: every reader goes through the one detector, so the same
reply reads the same through decode_response, read_tool_calls, decode_stream,
decode_batch and extract's provider; Gemini is read everywhere; Responses phases and
Chat content parts are read as the providers mean them; hostile objects are errors."""

from __future__ import annotations

from typing import Any

import attrs
import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from describedtypes import (
    DecodeError,
    DescribedTypesError,
    Toolbox,
    ToolCall,
    annotate,
    decode,
    decode_batch,
    decode_response,
    decode_stream,
    read_tool_calls,
)
from describedtypes._vendors import anthropic, gemini, openai_chat, openai_responses
from describedtypes._vendors.clients import Provider
from describedtypes._vendors.detect import FORMATS, reply_format


@attrs.define
class Note:
    """A short note."""

    title: str
    count: int


def chat_reply(text: str, parts: bool = False) -> dict[str, Any]:
    content: Any = [{"type": "text", "text": text}] if parts else text
    return {"object": "chat.completion", "choices": [{"index": 0, "finish_reason": "stop",
            "message": {"role": "assistant", "content": content}}]}


def responses_reply(text: str, parts: bool = False) -> dict[str, Any]:
    return {"object": "response", "status": "completed", "output": [
        {"type": "message", "role": "assistant",
         "content": [{"type": "output_text", "text": text}]}]}


def anthropic_reply(text: str, parts: bool = False) -> dict[str, Any]:
    return {"type": "message", "role": "assistant", "stop_reason": "end_turn",
            "content": [{"type": "text", "text": text}]}


def gemini_reply(text: str, parts: bool = False) -> dict[str, Any]:
    pieces = [text[: len(text) // 2], text[len(text) // 2 :]] if parts else [text]
    return {"candidates": [{"finishReason": "STOP", "content": {
        "role": "model", "parts": [{"text": p} for p in pieces]}}]}


BUILDERS = {
    openai_chat.FORMAT: chat_reply,
    openai_responses.FORMAT: responses_reply,
    anthropic.FORMAT: anthropic_reply,
    gemini.FORMAT: gemini_reply,
}

notes = st.builds(Note, title=st.text(max_size=20), count=st.integers(-10**6, 10**6))


def provider(wire: Any) -> Provider:
    cls = type("P", (Provider,), {"wire": wire})
    return cls(None, is_async=False)


@given(note=notes, wire=st.sampled_from(list(BUILDERS)), parts=st.booleans())
def test_every_reader_reads_a_reply_the_same(note: Note, wire: Any, parts: bool) -> None:
    """decode_response, the provider of extract(), decode_batch and decode agree."""
    text = orjson.dumps(attrs.asdict(note)).decode()
    reply = BUILDERS[wire](text, parts)
    assert reply_format(reply) is wire
    assert decode_response(Note, reply) == note
    assert provider(wire).decode(Note, reply) == note
    assert provider(wire).text(reply) == text
    [result] = decode_batch(Note, [orjson.dumps(reply)])
    assert result.value == note
    assert decode(Note, text) == note


def test_chat_content_parts_keep_only_the_text_parts() -> None:
    """A Chat message whose content is parts: image parts are no answer text."""
    reply = chat_reply("x")
    reply["choices"][0]["message"]["content"] = [
        {"type": "text", "text": '{"title": "a", '},
        {"type": "image_url", "image_url": {"url": "https://example.org/x.png"}},
        {"type": "text", "text": '"count": 1}'},
    ]
    assert decode_response(Note, reply) == Note("a", 1)
    assert provider(openai_chat.FORMAT).text(reply) == '{"title": "a", "count": 1}'


def test_chat_stream_chunks_with_content_parts_decode() -> None:
    """A Chat stream whose delta.content is a list of parts decodes like text deltas."""
    chunks = [
        {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {
            "content": [{"type": "text", "text": '{"title": "a", '}]}}]},
        {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {
            "content": [{"type": "text", "text": '"count": 2}'}]}, "finish_reason": "stop"}]},
    ]
    assert list(decode_stream(Note, chunks))[-1] == Note("a", 2)


def test_the_final_answer_phase_is_the_reply_with_the_openai_types() -> None:
    """Of a commentary message and a final answer, only the final answer is decoded."""
    from openai.types.responses import Response

    response = Response.model_validate({
        "id": "resp_1", "object": "response", "created_at": 0, "model": "gpt-5",
        "status": "completed", "parallel_tool_calls": True, "tool_choice": "auto",
        "tools": [], "output": [
            {"type": "message", "id": "m1", "role": "assistant", "status": "completed",
             "phase": "commentary",
             "content": [{"type": "output_text", "text": "Let me think.", "annotations": []}]},
            {"type": "message", "id": "m2", "role": "assistant", "status": "completed",
             "phase": "final_answer",
             "content": [{"type": "output_text", "text": '{"title": "t", "count": 3}',
                          "annotations": []}]},
        ],
    })
    assert decode_response(Note, response) == Note("t", 3)
    assert decode_response(Note, response.model_dump()) == Note("t", 3)


def test_without_phases_the_last_message_is_the_reply() -> None:
    """Several messages and no phase: the last message is the answer."""
    reply = responses_reply("Working on it.")
    reply["output"].append({"type": "message", "role": "assistant", "content": [
        {"type": "output_text", "text": '{"title": "t", "count": 4}'}]})
    assert decode_response(Note, reply) == Note("t", 4)


def test_a_preamble_alone_is_the_last_message_and_a_call_still_answers() -> None:
    """Without a final_answer message the last message is the reply, a commentary one
    too; beside a tool call meant for the type, the call answers."""
    preamble = {"type": "message", "role": "assistant", "phase": "commentary",
                "content": [{"type": "output_text", "text": "I will call the tool."}]}
    with pytest.raises(DecodeError, match="invalid JSON"):
        decode_response(Note, {"object": "response", "output": [preamble]})
    noted = {**preamble, "content": [{"type": "output_text", "text": '{"title": "t", "count": 3}'}]}
    assert decode_response(Note, {"object": "response", "output": [noted]}) == Note("t", 3)
    call = {"type": "function_call", "name": "report", "call_id": "c1",
            "arguments": '{"title": "t", "count": 5}'}
    assert decode_response(Note, {"object": "response", "output": [preamble, call]}) \
        == Note("t", 5)


# -- Gemini through every reader, with the google-genai SDK's own types ------------------


def _genai_response(parts: list[dict[str, Any]], finish: str = "STOP") -> Any:
    from google.genai import types

    return types.GenerateContentResponse.model_validate(
        {"candidates": [{"finish_reason": finish, "content": {"role": "model", "parts": parts}}],
         "usage_metadata": {"prompt_token_count": 3, "candidates_token_count": 5}}
    )


def test_gemini_replies_through_decode_response() -> None:
    """A google-genai GenerateContentResponse decodes, and its finish reason is read."""
    from describedtypes import IncompleteReplyError

    assert decode_response(Note, _genai_response([{"text": '{"title": "g", "count": 1}'}])) \
        == Note("g", 1)
    with pytest.raises(IncompleteReplyError):
        decode_response(Note, _genai_response([{"text": '{"title": "g"'}], "MAX_TOKENS"))


def test_a_gemini_reply_whose_prompt_was_blocked_is_a_refusal() -> None:
    """No candidates, only promptFeedback.blockReason (as the REST JSON, the SDK's
    object and a stream chunk give it): a RefusalError with the reason, from every
    reader; no tool calls."""
    from google.genai import types as genai_types

    from describedtypes import RefusalError

    blocked = {"promptFeedback": {"blockReason": "SAFETY"}, "modelVersion": "gemini-test",
               "usageMetadata": {"promptTokenCount": 7, "totalTokenCount": 7}}
    sdk = genai_types.GenerateContentResponse.model_validate(blocked)
    for reply in (blocked, {"promptFeedback": {"blockReason": "OTHER"}}, sdk,
                  sdk.model_dump(mode="json", exclude_none=True)):
        with pytest.raises(RefusalError, match=r"the prompt was blocked \((SAFETY|OTHER)\)"):
            decode_response(Note, reply)
        assert read_tool_calls(reply) == []
    with pytest.raises(RefusalError, match="SAFETY"):
        list(decode_stream(Note, [blocked]))


def test_gemini_tool_calls_through_read_tool_calls() -> None:
    """Function calls of a Gemini reply are ToolCalls, with their arguments as given."""
    response = _genai_response([{"function_call": {"name": "weather", "args": {"city": "Bern"},
                                                   "id": "c1"}}])
    [call] = read_tool_calls(response)
    assert (call.name, call.arguments, call.call_id) == ("weather", {"city": "Bern"}, "c1")
    assert read_tool_calls(response.model_dump(mode="json")) == [call]


def test_gemini_stream_chunks_through_decode_stream() -> None:
    """generate_content_stream chunks: partials while the text grows, then the value."""
    text = '{"title": "a streamed note", "count": 12}'
    chunks = [_genai_response([{"text": text[i : i + 7]}], "STOP" if i + 7 >= len(text)
                              else "FINISH_REASON_UNSPECIFIED") for i in range(0, len(text), 7)]
    values = list(decode_stream(Note, chunks))
    assert values[-1] == Note("a streamed note", 12)


def test_gemini_batch_output_lines_through_decode_batch() -> None:
    """Gemini Batch API output lines ({key, response} / {key, error}) decode by key."""
    ok = {"key": "r1", "response": gemini_reply('{"title": "b", "count": 5}')}
    failed = {"key": "r2", "error": {"code": 400, "status": "INVALID_ARGUMENT",
                                     "message": "bad request"}}
    first, second = decode_batch(Note, [orjson.dumps(ok), orjson.dumps(failed)])
    assert (first.custom_id, first.value) == ("r1", Note("b", 5))
    assert second.custom_id == "r2"
    assert "INVALID_ARGUMENT" in str(second.error)


# -- hostile objects are library errors at every reader ----------------------------------


class Hostile:
    """An SDK-like object whose every attribute access raises."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):  # what pytest and copy ask of any object
            raise AttributeError(name)
        raise RuntimeError("secret://password@host")


class HostileChoices:
    """A Chat-like reply whose message raises on access."""

    def __init__(self) -> None:
        choice = type("Choice", (), {"finish_reason": "stop", "message": Hostile(), "index": 0})
        self.choices = [choice()]


@pytest.mark.parametrize("obj", [Hostile(), HostileChoices()])
def test_hostile_objects_are_library_errors_in_every_reader(obj: Any) -> None:
    """A __getattr__ that raises is a DescribedTypesError, and its text is not copied."""
    for read in (lambda: decode_response(Note, obj), lambda: read_tool_calls(obj),
                 lambda: list(decode_stream(Note, [obj]))):
        with pytest.raises(DescribedTypesError) as info:
            read()
        assert "password" not in str(info.value)
    for wire in FORMATS:
        with pytest.raises(DescribedTypesError):
            provider(wire).decode(Note, HostileChoices())


def test_a_hostile_reply_in_the_tool_loop_is_a_library_error() -> None:
    """Toolbox.run with a client whose reply raises on access: a library error, no raw one."""
    from describedtypes import Toolbox

    class Completions:
        def create(self, **kwargs: Any) -> Any:
            return HostileChoices()

    class Client:
        def __init__(self) -> None:
            self.chat = type("Chat", (), {"completions": Completions()})()
            self.responses = type("R", (), {"create": lambda self, **k: None})()

    def weather(city: str) -> str:
        """The weather."""
        return "sunny"

    with pytest.raises(DescribedTypesError) as info:
        Toolbox([weather]).run(Client(), messages="hi", model="m")
    assert "password" not in str(info.value)


def test_no_reply_at_all_is_a_decode_error_naming_what_is_missing() -> None:
    """An empty Gemini reply says there are no candidates."""
    with pytest.raises(DecodeError, match="no candidates"):
        decode_response(Note, {"candidates": []})


# -- streamed tool calls keep their ids ---------------------------------------------------


def _gemini_call_chunk(calls: list[dict[str, Any]], finish: str | None) -> dict[str, Any]:
    candidate: dict[str, Any] = {
        "content": {"role": "model", "parts": [{"functionCall": c} for c in calls]}
    }
    if finish is not None:
        candidate["finishReason"] = finish
    return {"candidates": [candidate]}


def _streamed_calls(chunks: list[Any]) -> list[ToolCall]:
    from describedtypes._vendors.stream import StreamDecoder

    decoder = StreamDecoder(Note, None, annotate)
    for chunk in chunks:
        decoder.feed(chunk)
    return decoder.calls()


def _weather_box() -> Toolbox:
    def get_weather(city: str) -> str:
        """The weather in a city."""
        return f"sunny in {city}"

    def whoami() -> str:
        """The user's name."""
        return "ada"

    return Toolbox([get_weather, whoami])


@pytest.mark.parametrize("sdk", [False, True], ids=["dicts", "google-genai"])
def test_gemini_streamed_function_calls_keep_their_id(sdk: bool) -> None:
    """A streamGenerateContent reply whose functionCall parts carry an ``id``: the calls
    read from the stream keep it, as read_tool_calls keeps it from the whole reply, and
    the function responses sent back carry it (``functionResponse.id``); without ids,
    the calls and their responses keep the order and names Gemini matches them by."""
    from google.genai import types as genai_types

    weather = {"name": "get_weather", "args": {"city": "Bern"}, "id": "fc-1"}
    who = {"name": "whoami", "args": {}, "id": "fc-2"}
    chunks: list[Any] = [_gemini_call_chunk([weather], None), _gemini_call_chunk([who], "STOP")]
    if sdk:
        chunks = [genai_types.GenerateContentResponse.model_validate(c) for c in chunks]
    streamed = _streamed_calls(chunks)
    whole = read_tool_calls(_gemini_call_chunk([weather, who], "STOP"))
    assert streamed == whole
    assert [(c.name, c.call_id) for c in streamed] == [("get_weather", "fc-1"), ("whoami", "fc-2")]

    box = _weather_box()
    results = [box.call(c.name, c.arguments, call_id=c.call_id) for c in streamed]
    [message] = gemini.FORMAT.result_messages(results)
    answers = [part["function_response"] for part in message["parts"]]
    assert [(a["name"], a.get("id")) for a in answers] == [
        ("get_weather", "fc-1"), ("whoami", "fc-2")
    ]
    assert answers[0]["response"] == {"output": "sunny in Bern"}

    # Without ids (what the Gemini API sends for most calls): by name and order.
    plain = [{k: v for k, v in c.items() if k != "id"} for c in (weather, who, weather)]
    streamed = _streamed_calls([_gemini_call_chunk(plain[:2], None),
                                _gemini_call_chunk(plain[2:], "STOP")])
    assert [(c.name, c.call_id) for c in streamed] == [
        ("get_weather", None), ("whoami", None), ("get_weather", None)
    ]
    results = [box.call(c.name, c.arguments, call_id=c.call_id) for c in streamed]
    [message] = gemini.FORMAT.result_messages(results)
    answers = [part["function_response"] for part in message["parts"]]
    assert [a["name"] for a in answers] == ["get_weather", "whoami", "get_weather"]
    assert all("id" not in a for a in answers)


def test_every_formats_streamed_tool_calls_keep_their_id() -> None:
    """The ids that Chat, Responses, Anthropic and Bedrock streams give a tool call are
    kept on the calls read from the stream."""
    args = '{"city": "Bern"}'
    chat = [{"choices": [{"index": 0, "delta": {"tool_calls": [
                {"index": 0, "id": "call_1", "type": "function",
                 "function": {"name": "get_weather", "arguments": args[:5]}}]}}]},
            {"choices": [{"index": 0, "delta": {"tool_calls": [
                {"index": 0, "function": {"arguments": args[5:]}}]}}]},
            {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}]
    responses = [
        {"type": "response.output_item.added", "output_index": 0,
         "item": {"type": "function_call", "name": "get_weather", "arguments": "",
                  "call_id": "call_2", "id": "fc_2"}},
        {"type": "response.function_call_arguments.delta", "output_index": 0, "delta": args},
        {"type": "response.completed", "response": {"status": "completed", "output": []}},
    ]
    claude = [
        {"type": "message_start", "message": {"usage": {"input_tokens": 1}}},
        {"type": "content_block_start", "index": 0,
         "content_block": {"type": "tool_use", "id": "toolu_3", "name": "get_weather",
                           "input": {}}},
        {"type": "content_block_delta", "index": 0,
         "delta": {"type": "input_json_delta", "partial_json": args}},
        {"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {}},
    ]
    bedrock = [
        {"contentBlockStart": {"contentBlockIndex": 0, "start": {
            "toolUse": {"toolUseId": "tooluse_4", "name": "get_weather"}}}},
        {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"toolUse": {"input": args}}}},
        {"messageStop": {"stopReason": "tool_use"}},
    ]
    for chunks, call_id in ((chat, "call_1"), (responses, "call_2"), (claude, "toolu_3"),
                            (bedrock, "tooluse_4")):
        [call] = _streamed_calls(chunks)
        assert (call.name, call.arguments, call.call_id) == ("get_weather", args, call_id)

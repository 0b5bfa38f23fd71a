"""decode_stream() / adecode_stream(): typed partials as a reply streams, then decode()'s value."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import enum
import gc
import importlib
import itertools
import json
import subprocess
import sys
import weakref
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from typing import Any
from unittest import mock

import anthropic
import attrs
import cattrs
import openai
import orjson
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from describedtypes import (
    Annotation,
    DecodeError,
    DescribedTypesError,
    IncompleteReplyError,
    Partial,
    RefusalError,
    Registry,
    SchemaError,
    adecode_stream,
    annotate,
    decode,
    decode_response,
    decode_stream,
    encode,
)
from describedtypes._vendors import stream as _stream

from .strategies import classes


class Kind(enum.Enum):
    CAT = "cat"
    DOG = "dog"


@attrs.define
class Pet:
    name: str
    kind: Kind


@attrs.define
class Person:
    name: str
    age: int
    bio: str
    pets: list[Pet]
    tags: frozenset[str] = frozenset()


PERSON = (
    '{"name": "Ada", "age": 36, "bio": "Writes \\"notes\\" on engines.", '
    '"pets": [{"name": "Rex", "kind": "dog"}, {"name": "Tom", "kind": "cat"}], '
    '"tags": ["math"]}'
)


@contextmanager
def every_chunk() -> Iterator[None]:
    """Parse after every chunk (the default spaces parses out to keep the cost linear)."""
    with mock.patch.object(_stream, "_MIN_STEP", 1), mock.patch.object(_stream, "_GROWTH", 0):
        yield


def decode_error(tp: Any, text: Any) -> DecodeError:
    """The error decode() raises for ``text``."""
    with pytest.raises(DecodeError) as raised:
        decode(tp, text)
    return raised.value


def drain(stream: Iterator[Any], seen: list[Any]) -> None:
    """Consume ``stream`` into ``seen``; everything before the end must be a Partial."""
    for value in stream:
        assert not seen or isinstance(seen[-1], Partial)
        seen.append(value)


def pieces(text: str, size: int = 3) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


# -- growing ------------------------------------------------------------------------


def grows(old: Any, new: Any) -> None:
    """``new`` keeps everything ``old`` showed; only ``old``'s growing part may extend."""
    if isinstance(old, Partial) and not is_class(old.type_):  # a list, dict, ... at the top
        grows(old.value, new.value if isinstance(new, Partial) else new)
    elif isinstance(old, Partial):
        for name, value in old.fields.items():
            later = new.fields[name] if isinstance(new, Partial) else getattr(new, name)
            if name == old.growing:
                grows(value, later)
            else:
                assert later == value, (name, value, later)
    elif isinstance(old, str):
        assert isinstance(new, str)
        assert new.startswith(old), (old, new)
    elif isinstance(old, list):
        if isinstance(new, (set, frozenset)):
            assert all(item in new for item in old[:-1])
            return
        new = list(new)
        assert len(new) >= len(old)
        for a, b in zip(old[:-1], new, strict=False):
            assert a == b
        if old:
            grows(old[-1], new[len(old) - 1])
    elif isinstance(old, dict):
        assert set(old) <= set(new)
        keys = list(old)
        for key in keys[:-1]:
            assert old[key] == new[key]
        if keys:
            grows(old[keys[-1]], new[keys[-1]])
    else:
        assert old == new


def is_class(tp: Any) -> bool:
    return attrs.has(tp) or dataclasses.is_dataclass(tp)


def check_stream(values: list[Any], expected: Any) -> None:
    *partials, last = values
    assert last == expected
    assert not isinstance(last, Partial)
    for partial in partials:
        assert isinstance(partial, Partial)
    for old, new in itertools.pairwise(values):
        grows(old, new)


def test_a_reply_grows_field_by_field() -> None:
    """Each partial shows the fields so far, nested objects as their class once finished."""
    with every_chunk():
        values = list(decode_stream(Person, pieces(PERSON, 7)))
    check_stream(values, decode(Person, PERSON))
    shown = [v for v in values[:-1] if "pets" in v.fields and len(v.pets) == 2]
    assert shown
    assert shown[-1].pets[0] == Pet("Rex", Kind.DOG)
    growing_bios = [v.bio for v in values[:-1] if v.growing == "bio"]
    assert len(growing_bios) > 2
    assert all('Writes "notes" on engines.'.startswith(b) for b in growing_bios)
    ages = {v.age for v in values[:-1] if "age" in v.fields}
    assert ages == {36}  # a number is shown only once it is finished
    assert any(isinstance((v.fields.get("pets") or [None])[-1], Partial) for v in values[:-1])
    # A nested object is never shown empty: only once its first field has arrived.
    assert not [v for v in values[:-1] for p in v.fields.get("pets", []) if p == Partial(Pet)]


def test_partial_reads_like_the_instance() -> None:
    """Attribute access, a read-only fields mapping, and clear errors for missing fields."""
    with every_chunk():
        partial = next(v for v in decode_stream(Person, pieces(PERSON, 7)) if "age" in v.fields)
    assert partial.name == "Ada"
    assert partial.type_ is Person
    assert dict(partial.value) == dict(partial.fields)
    assert not isinstance(partial, Person)
    with pytest.raises(AttributeError, match=r"Person\.pets has not arrived yet"):
        _ = partial.pets
    with pytest.raises(AttributeError, match="no field 'colour'"):
        _ = partial.colour
    with pytest.raises(AttributeError, match="read-only"):
        partial.name = "Bob"
    with pytest.raises(TypeError):
        partial.fields["name"] = "Bob"  # type: ignore[index]
    assert repr(partial).startswith("Partial[Person](name='Ada', age=36")
    assert partial == Partial(Person, dict(partial.fields), growing=partial.growing)
    assert "name" in dir(partial)


def test_typed_strings_wait_until_finished() -> None:
    """An enum or date string is shown once it is finished, as the member."""
    text = '{"name": "Rex", "kind": "dog"}'
    with every_chunk():
        values = list(decode_stream(Pet, pieces(text, 1)))
    kinds = [v.fields["kind"] for v in values[:-1] if "kind" in v.fields]
    assert set(kinds) <= {Kind.DOG}


def test_top_level_list_and_text_fence() -> None:
    """A list at the top is a Partial whose value grows; a markdown fence is read through."""
    text = '```json\n[{"name": "Rex", "kind": "dog"}, {"name": "Tom", "kind": "cat"}]\n```'
    with every_chunk():
        values = list(decode_stream(list[Pet], pieces(text, 4)))
    check_stream(values, decode(list[Pet], text))
    assert values[-2].value[0] == Pet("Rex", Kind.DOG)
    assert repr(values[-2]).startswith("Partial[list[")


def test_default_spacing_still_ends_with_the_instance() -> None:
    """Without the test hook, partials come less often but the end is the same."""
    body = orjson.dumps({"name": "A", "age": 1, "bio": "x" * 5000, "pets": []}).decode()
    values = list(decode_stream(Person, pieces(body, 10)))
    assert 2 < len(values) < 60
    assert values[-1] == decode(Person, body)


def test_bytes_chunks_split_inside_characters() -> None:
    """Bytes cut in the middle of a UTF-8 character decode like the whole text."""
    text = '{"name": "Zoë 🐈", "kind": "cat"}'.encode()
    with every_chunk():
        values = list(decode_stream(Pet, [text[i : i + 1] for i in range(len(text))]))
    check_stream(values, decode(Pet, text))


@given(st.data())
def test_any_valid_reply_in_any_chunks_grows_to_decode(data: st.DataObject) -> None:
    """Random classes, instances and cuts: monotone partials ending equal to decode()."""
    cls, instances = data.draw(classes())
    text = encode(data.draw(instances)).decode()
    if data.draw(st.booleans()):  # non-ASCII as \\u escapes, surrogate pairs cut in two
        text = json.dumps(json.loads(text), indent=data.draw(st.sampled_from([None, 1])))
    # Cut points drawn independently of the text's length (the generated enums' values,
    # and so the text, differ between runs of one example).
    drawn = data.draw(st.lists(st.integers(0, 9999), max_size=12))
    cuts = sorted(c % (len(text) + 1) for c in drawn)
    chunks = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]
    with every_chunk():
        values = list(decode_stream(cls, chunks))
    check_stream(values, decode(cls, text))


def _broken(text: str, how: int) -> str:
    value = orjson.loads(text)
    if how == 0:
        return text[: max(1, len(text) // 2)]
    if how == 1:
        return text + " trailing words"
    if how == 2 and isinstance(value, dict) and value:
        value.pop(next(iter(value)))
        return orjson.dumps(value).decode()
    if how == 3 and isinstance(value, dict):
        value["unexpected"] = [1, {"x": None}]
        return orjson.dumps(value).decode()
    if isinstance(value, dict) and value:
        value[next(iter(value))] = {"wrong": [True]}
        return orjson.dumps(value).decode()
    return "{" + text


@given(st.data())
def test_invalid_replies_raise_what_decode_raises(data: st.DataObject) -> None:
    """A broken reply streams its partials, then raises decode()'s own error at the end."""
    cls, instances = data.draw(classes())
    text = _broken(encode(data.draw(instances)).decode(), data.draw(st.integers(0, 4)))
    try:
        expected: Any = decode(cls, text)
    except DecodeError as err:
        expected = err
    size = data.draw(st.integers(1, 20))
    as_bytes = data.draw(st.booleans())
    chunks: list[Any] = [text[i : i + size] for i in range(0, len(text), size)]
    if as_bytes:
        chunks = [c.encode() for c in chunks]
    with every_chunk():
        stream = decode_stream(cls, chunks)
        if not isinstance(expected, DecodeError):
            assert list(stream)[-1] == expected
            return
        seen: list[Any] = []
        with pytest.raises(DecodeError) as raised:
            drain(stream, seen)
    assert all(isinstance(v, Partial) for v in seen)
    assert raised.value.errors == expected.errors
    assert str(raised.value) == str(expected)


def test_invalid_finished_parts_are_shown_by_their_valid_fields() -> None:
    """A finished nested object that breaks the rules shows what is valid, then raises."""
    text = '{"name": "A", "age": 1, "bio": "", "pets": [{"name": "Rex", "kind": "cow"}], "x": 1}'
    seen: list[Any] = []
    with every_chunk(), pytest.raises(DecodeError) as raised:
        drain(decode_stream(Person, pieces(text, 5)), seen)
    assert raised.value.errors == decode_error(Person, text).errors
    assert seen[-1].pets == [Partial(Pet, {"name": "Rex"})]


# -- async ------------------------------------------------------------------------


async def _agen(chunks: list[Any]) -> AsyncIterator[Any]:
    for chunk in chunks:
        await asyncio.sleep(0)
        yield chunk


def test_adecode_stream_matches_decode_stream() -> None:
    """The async stream yields exactly what the sync one does."""

    async def collect() -> list[Any]:
        return [v async for v in adecode_stream(Person, _agen(pieces(PERSON, 5)))]

    with every_chunk():
        assert asyncio.run(collect()) == list(decode_stream(Person, pieces(PERSON, 5)))


# -- provider events as dicts -------------------------------------------------------


def chat_chunks(deltas: list[dict[str, Any]], finish: str = "stop") -> list[dict[str, Any]]:
    out = [
        {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m",
         "choices": [{"index": 0, "delta": d, "finish_reason": None}]}
        for d in deltas
    ]
    out.append({"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m",
                "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]})
    return out


def test_chat_chunks_text_and_tool_arguments() -> None:
    """Chat Completions: delta.content, or the tool call's argument deltas."""
    text = chat_chunks([{"role": "assistant", "content": ""}]
                       + [{"content": p} for p in pieces(PERSON)])
    with every_chunk():
        check_stream(list(decode_stream(Person, text)), decode(Person, PERSON))
    calls = chat_chunks(
        [{"tool_calls": [{"index": 0, "id": "call_1", "type": "function",
                          "function": {"name": "Person", "arguments": ""}}]}]
        + [{"tool_calls": [{"index": 0, "function": {"arguments": p}}]} for p in pieces(PERSON)],
        finish="tool_calls",
    )
    with every_chunk():
        values = list(decode_stream(Person, calls))
    check_stream(values, decode(Person, PERSON))
    assert len(values) > 5


def test_chat_refusal_and_cut_off() -> None:
    """A refusal delta raises RefusalError; finish_reason length raises IncompleteReplyError."""
    with pytest.raises(RefusalError, match="cannot help"):
        list(decode_stream(Person, chat_chunks([{"refusal": "I cannot "}, {"refusal": "help"}])))
    cut = chat_chunks([{"content": p} for p in pieces(PERSON[:40])], finish="length")
    with pytest.raises(IncompleteReplyError) as raised:
        list(decode_stream(Person, cut))
    assert raised.value.reason == "length"


def test_responses_events() -> None:
    """Responses events: output_text deltas, function-call argument deltas, incomplete, refusal."""
    text = [{"type": "response.created", "response": {"status": "in_progress"}}]
    text += [{"type": "response.output_text.delta", "output_index": 0, "delta": p}
             for p in pieces(PERSON)]
    text += [{"type": "response.completed", "response": {"status": "completed"}}]
    with every_chunk():
        check_stream(list(decode_stream(Person, text)), decode(Person, PERSON))
    call = [{"type": "response.output_item.added", "output_index": 1,
             "item": {"type": "function_call", "name": "Person", "arguments": ""}}]
    call += [{"type": "response.function_call_arguments.delta", "output_index": 1, "delta": p}
             for p in pieces(PERSON)]
    with every_chunk():
        check_stream(list(decode_stream(Person, call)), decode(Person, PERSON))
    cut = [*text[:5], {"type": "response.incomplete", "response": {
        "status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"}}}]
    with pytest.raises(IncompleteReplyError, match="max_output_tokens"):
        list(decode_stream(Person, cut))
    refusal = [{"type": "response.refusal.delta", "delta": "No."},
               {"type": "response.refusal.done", "refusal": "No."}]
    with pytest.raises(RefusalError, match="No"):
        list(decode_stream(Person, refusal))
    failed = [{"type": "error", "message": "server overloaded"}]
    with pytest.raises(DecodeError, match="server overloaded"):
        list(decode_stream(Person, failed))


# -- Responses output messages: commentary, final answer ------------------------------


@attrs.define
class Answer:
    title: str
    count: int


ANSWER = '{"title": "the answer", "count": 3}'
#: A preamble shaped like an answer, so a partial that showed it would be caught.
PREAMBLE = '{"title": "commentary draft", "count": 1}'

_RESPONSE = {"id": "resp_1", "object": "response", "created_at": 0, "model": "gpt-5",
             "parallel_tool_calls": True, "tool_choice": "auto", "tools": []}


def responses_output(messages: list[tuple[str | None, str]]) -> list[dict[str, Any]]:
    """The output items of a complete Responses reply: one message per (phase, text)."""
    out = []
    for i, (phase, text) in enumerate(messages):
        item: dict[str, Any] = {
            "type": "message", "id": f"msg_{i}", "role": "assistant", "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}] if text else [],
        }
        if phase is not None:  # absent, as before the API had phases
            item["phase"] = phase
        out.append(item)
    return out


def responses_stream(
    messages: list[tuple[str | None, str]], *, sdk: bool = False, phase_at_added: bool = True,
    whole_output: bool = True, size: int = 5,
) -> list[Any]:
    """The events of a Responses stream of ``messages``, as dicts or (``sdk``) as the openai
    SDK's own event models. ``phase_at_added``: the phase is on the added item already (else
    only on the done one); ``whole_output``: the completed event carries the output."""
    items = responses_output(messages)
    seq = itertools.count()
    events: list[dict[str, Any]] = [{"type": "response.created", "sequence_number": next(seq),
                                     "response": {**_RESPONSE, "status": "in_progress",
                                                  "output": []}}]
    for index, item in enumerate(items):
        added = {**item, "status": "in_progress", "content": []}
        if not phase_at_added:
            added.pop("phase", None)
        events.append({"type": "response.output_item.added", "sequence_number": next(seq),
                       "output_index": index, "item": added})
        text = messages[index][1]
        events += [{"type": "response.output_text.delta", "sequence_number": next(seq),
                    "item_id": item["id"], "output_index": index, "content_index": 0,
                    "delta": text[i : i + size], "logprobs": []}
                   for i in range(0, len(text), size)]
        events.append({"type": "response.output_item.done", "sequence_number": next(seq),
                       "output_index": index, "item": item})
    events.append({"type": "response.completed", "sequence_number": next(seq), "response": {
        **_RESPONSE, "status": "completed", "output": items if whole_output else []}})
    return [sdk_event(e) for e in events] if sdk else events


def sdk_event(event: dict[str, Any]) -> Any:
    """``event`` as the openai SDK's own model of its type (validated, so the shape is real)."""
    from openai.types import responses as r

    kinds = {
        "response.created": r.ResponseCreatedEvent,
        "response.output_item.added": r.ResponseOutputItemAddedEvent,
        "response.output_text.delta": r.ResponseTextDeltaEvent,
        "response.output_item.done": r.ResponseOutputItemDoneEvent,
        "response.completed": r.ResponseCompletedEvent,
    }
    return kinds[event["type"]].model_validate(event)


def outcome(read: Any) -> Any:
    """What ``read()`` gives: its value, or the type and text of the library error it raises."""
    try:
        return read()
    except DecodeError as err:
        return type(err), str(err)


PREAMBLED = [("commentary", "Let me think."), ("final_answer", ANSWER)]


@pytest.mark.parametrize("sdk", [False, True], ids=["dicts", "sdk-models"])
@pytest.mark.parametrize("whole_output", [True, False], ids=["completed-output", "no-output"])
def test_a_commentary_message_before_the_answer_is_not_decoded(
    sdk: bool, whole_output: bool
) -> None:
    """A commentary message, then the final answer: the stream decodes the answer alone."""
    events = responses_stream(PREAMBLED, sdk=sdk, whole_output=whole_output)
    with every_chunk():
        values = list(decode_stream(Answer, events))
    check_stream(values, Answer("the answer", 3))
    assert values[-1] == decode_response(Answer, {**_RESPONSE, "status": "completed",
                                                  "output": responses_output(PREAMBLED)})


@pytest.mark.parametrize("sdk", [False, True], ids=["dicts", "sdk-models"])
def test_partials_never_show_the_commentary(sdk: bool) -> None:
    """A preamble shaped like an answer never shows in a partial: only the answer's text does."""
    events = responses_stream([("commentary", PREAMBLE), ("final_answer", ANSWER)], sdk=sdk,
                              size=2)
    with every_chunk():
        *partials, last = decode_stream(Answer, events)
    assert last == Answer("the answer", 3)
    assert partials
    assert all("commentary" not in repr(p) for p in partials), partials


@pytest.mark.parametrize("whole_output", [True, False], ids=["completed-output", "no-output"])
def test_a_preamble_alone_is_decoded_at_the_end_but_never_shown(whole_output: bool) -> None:
    """With no other message the commentary one is the last message, so the answer; its
    text shows in no partial, and the end agrees with decode_response()."""
    alone = [("commentary", PREAMBLE)]
    with every_chunk():
        values = list(decode_stream(Answer, responses_stream(alone, whole_output=whole_output)))
    assert values == [Answer("commentary draft", 1)]
    assert values[-1] == decode_response(Answer, {**_RESPONSE, "status": "completed",
                                                  "output": responses_output(alone)})


def test_without_phases_a_later_message_is_the_answer() -> None:
    """Messages without phases: the last one is the answer, as decode_response reads it."""
    events = responses_stream([(None, PREAMBLE), (None, ANSWER)], whole_output=False)
    assert list(decode_stream(Answer, events))[-1] == Answer("the answer", 3)
    one = responses_stream([(None, ANSWER)], whole_output=False)  # the common case
    with every_chunk():
        check_stream(list(decode_stream(Answer, one)), Answer("the answer", 3))


def test_a_phase_first_known_when_the_message_is_done_still_decides() -> None:
    """A commentary phase that arrives only on the done item still keeps it out of the end."""
    events = responses_stream(PREAMBLED, phase_at_added=False, whole_output=False)
    assert list(decode_stream(Answer, events))[-1] == Answer("the answer", 3)


def test_the_completed_output_has_the_last_word() -> None:
    """When response.completed carries the output, its answer is the reply, as decode_response
    reads it, whatever the deltas said."""
    events = responses_stream([(None, '{"title": "streamed", "count": 1}')])
    events[-1]["response"]["output"] = responses_output(PREAMBLED)
    assert list(decode_stream(Answer, events))[-1] == Answer("the answer", 3)
    refused = responses_stream([(None, ANSWER)])
    refused[-1]["response"]["output"][0]["content"] = [{"type": "refusal", "refusal": "No."}]
    with pytest.raises(RefusalError, match="No"):
        list(decode_stream(Answer, refused))


def test_extract_stream_sends_back_the_output_items() -> None:
    """extract_stream over a Responses client: the answer is decoded (never the preamble),
    and a retry, like the conversation it returns, carries the reply's output items as
    extract() sends a whole reply's: the preamble message with its phase included, as the
    Responses API expects the output back."""
    from types import SimpleNamespace

    from describedtypes import extract_stream

    bad = [("commentary", "Let me think."), ("final_answer", '{"title": "t"}')]
    streams = [responses_stream(bad, sdk=True), responses_stream(PREAMBLED, sdk=True)]
    sent: list[dict[str, Any]] = []

    def create(**kwargs: Any) -> Any:
        sent.append(kwargs)
        return iter(streams.pop(0))

    client = SimpleNamespace(
        responses=SimpleNamespace(create=create),
        chat=SimpleNamespace(completions=SimpleNamespace(create=lambda **kwargs: None)),
    )
    stream = extract_stream(Answer, client, model="gpt-5", messages="Ask", api="responses")
    values = list(stream)
    assert values[-1] == Answer("the answer", 3)
    assert not any("commentary" in repr(v) for v in values)
    assert stream.attempt == 2
    retry = sent[1]["input"]
    dumped = [m if isinstance(m, dict) else m.model_dump(exclude_none=True) for m in retry]
    assert dumped[1:3] == responses_output(bad)
    assert stream.details is not None
    last = [m.model_dump(exclude_none=True) for m in stream.details.messages[-2:]]
    assert last == responses_output(PREAMBLED)


_PHASES = st.sampled_from([None, "commentary", "final_answer"])


@st.composite
def phased_messages(draw: Any) -> list[tuple[str | None, str]]:
    """One to four messages, each with or without a phase; a commentary message's text is
    marked "commentary" so a partial that showed it is caught."""
    out = []
    for _ in range(draw(st.integers(1, 4))):
        phase = draw(_PHASES)
        mark = "commentary" if phase == "commentary" else "answer"
        n = draw(st.integers(0, 9))
        out.append((phase, draw(st.sampled_from([
            json.dumps({"title": f"{mark} {n}", "count": n}), "", f"Let me {mark}.",
            '{"title": "' + mark,
        ]))))
    return out


@given(phased_messages(), st.booleans(), st.booleans(), st.booleans(), st.integers(1, 9))
def test_a_streamed_reply_decodes_as_its_complete_response(
    messages: list[tuple[str | None, str]], sdk: bool, phase_at_added: bool,
    whole_output: bool, size: int,
) -> None:
    """Any messages, with or without phases, streamed in any pieces: the stream ends as
    decode_response ends on the complete response (the value, or the same error), and with
    the phases announced, no partial shows a commentary message."""
    response = {**_RESPONSE, "status": "completed", "output": responses_output(messages)}
    events = responses_stream(messages, sdk=sdk, phase_at_added=phase_at_added,
                              whole_output=whole_output, size=size)
    with every_chunk():
        values = outcome(lambda: list(decode_stream(Answer, events)))
    expected = outcome(lambda: decode_response(Answer, response))
    if isinstance(values, tuple):  # an error
        assert values == expected
        return
    *partials, last = values
    assert last == expected
    if phase_at_added:
        assert all("commentary" not in repr(p) for p in partials), partials


class _Raising:
    """A Responses event read by attribute whose field ``bad`` raises (the others answer)."""

    def __init__(self, bad: str, **fields: Any) -> None:
        self._bad, self._fields = bad, fields

    def __getattr__(self, name: str) -> Any:
        if name == self._bad:
            raise RuntimeError("secret://password@host")
        if name in self._fields:
            return self._fields[name]
        raise AttributeError(name)


class _Unhashable:
    """An output index that raises on hashing and comparing."""

    def __hash__(self) -> int:
        raise RuntimeError("secret://password@host")

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("secret://password@host")


_HOSTILE_EVENTS = {
    "phase": _Raising("-", type="response.output_item.added", output_index=0,
                      item=_Raising("phase", type="message", id="m")),
    "item_id": _Raising("item_id", type="response.output_text.delta", output_index=0,
                        delta="{"),
    "completed output": _Raising("-", type="response.completed", response=_Raising(
        "output", status="completed")),
    "completed content": _Raising("-", type="response.completed", response=_Raising(
        "-", status="completed", output=[_Raising("content", type="message")])),
}


@pytest.mark.parametrize("name", sorted(_HOSTILE_EVENTS))
def test_hostile_responses_events_are_library_errors(name: str) -> None:
    """An event field that raises is the library's ShapeError or DecodeError, its text unshown."""
    from describedtypes import DescribedTypesError

    with pytest.raises(DescribedTypesError) as raised:
        list(decode_stream(Answer, [*responses_stream(PREAMBLED)[:-1], _HOSTILE_EVENTS[name]]))
    assert isinstance(raised.value, (TypeError, DecodeError))
    assert "password" not in str(raised.value)
    assert "chunk 16 (an OpenAI Responses event): reading" in str(raised.value)


def test_an_output_index_that_cannot_be_hashed_is_not_a_key() -> None:
    """An output index of a foreign type is ignored (the item id keys the message instead)."""
    events = responses_stream(PREAMBLED, whole_output=False)
    for event in events:
        if "output_index" in event:
            event["output_index"] = _Unhashable()
    assert list(decode_stream(Answer, events))[-1] == Answer("the answer", 3)

def test_the_output_messages_of_a_stream_are_bounded() -> None:
    """A stream announcing more output messages than the bound is a DecodeError."""
    from describedtypes._vendors import openai_responses

    events = responses_stream([(None, ANSWER)] * 4, whole_output=False)
    with mock.patch.object(openai_responses, "_MAX_MESSAGES", 3), pytest.raises(
        DecodeError, match="more than 3 output messages"
    ):
        list(decode_stream(Answer, events))
    assert list(decode_stream(Answer, events))[-1] == Answer("the answer", 3)


def anthropic_events(blocks: list[tuple[str, list[str]]], stop: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [{"type": "message_start", "message": {
        "id": "m", "type": "message", "role": "assistant", "content": [], "model": "c",
        "stop_reason": None, "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 1}}}]
    for index, (kind, parts) in enumerate(blocks):
        if kind == "text":
            start = {"type": "text", "text": ""}
        else:
            start = {"type": "tool_use", "id": "t", "name": kind, "input": {}}
        out.append({"type": "content_block_start", "index": index, "content_block": start})
        for part in parts:
            delta = ({"type": "text_delta", "text": part} if kind == "text"
                     else {"type": "input_json_delta", "partial_json": part})
            out.append({"type": "content_block_delta", "index": index, "delta": delta})
        out.append({"type": "content_block_stop", "index": index})
    out.append({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {"output_tokens": 9}})
    out.append({"type": "message_stop"})
    return out


def test_anthropic_events() -> None:
    """Anthropic: text deltas, tool input deltas, max_tokens and refusal stops."""
    with every_chunk():
        values = list(decode_stream(Person, anthropic_events([("text", pieces(PERSON))],
                                                             "end_turn")))
    check_stream(values, decode(Person, PERSON))
    tool = anthropic_events([("text", ["Let me fill that in."]), ("Person", pieces(PERSON))],
                            "tool_use")
    with every_chunk():
        values = list(decode_stream(Person, tool))
    check_stream(values, decode(Person, PERSON))
    with pytest.raises(IncompleteReplyError, match="max_tokens"):
        list(decode_stream(Person, anthropic_events([("text", pieces(PERSON[:30]))],
                                                    "max_tokens")))
    with pytest.raises(RefusalError):
        list(decode_stream(Person, anthropic_events([("text", ["I won't."])], "refusal")))
    with pytest.raises(DecodeError, match="Overloaded"):
        list(decode_stream(Person, [{"type": "error", "error": {"type": "overloaded_error",
                                                                 "message": "Overloaded"}}]))


def test_no_reply_at_all() -> None:
    """An empty stream is decode()'s empty-reply error; an event stream without text says so."""
    with pytest.raises(DecodeError) as raised:
        list(decode_stream(Person, []))
    assert raised.value.errors == decode_error(Person, "").errors
    with pytest.raises(DecodeError, match="no reply"):
        list(decode_stream(Person, chat_chunks([])))


# -- hostile input --------------------------------------------------------------------


@pytest.mark.parametrize("chunks", [5, None, object(), "{}", b"{}", {"type": "x"}])
def test_not_a_stream(chunks: Any) -> None:
    """A value that is not an iterable of chunks is a TypeError that says what to pass."""
    with pytest.raises(TypeError, match="iterable of chunks"):
        decode_stream(Person, chunks)


def test_sync_and_async_mixed_up() -> None:
    """Each entry point names the other when given the wrong kind of iterable."""
    with pytest.raises(TypeError, match="adecode_stream"):
        decode_stream(Person, _agen([]))
    with pytest.raises(TypeError, match="decode_stream"):
        adecode_stream(Person, [PERSON])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="iterable of chunks"):
        adecode_stream(Person, 5)  # type: ignore[arg-type]


@pytest.mark.parametrize("junk", [5, None, 1.5, ["{"], {"no": "type"}, object()])
def test_junk_chunks(junk: Any) -> None:
    """A chunk that is neither text nor a provider event is a TypeError naming its position."""
    with pytest.raises(TypeError, match="chunk 2 is a"):
        list(decode_stream(Person, ['{"name": ', junk]))


def test_text_and_events_mixed() -> None:
    """Text chunks and provider events, or two providers' events, in one stream: TypeError."""
    with pytest.raises(TypeError, match=r"chunk 2 is an OpenAI Chat .* began with text"):
        list(decode_stream(Person, ["{", chat_chunks([])[0]]))
    with pytest.raises(TypeError, match="chunk 2 is text, but the stream began with an OpenAI"):
        list(decode_stream(Person, [chat_chunks([])[0], "{"]))
    mixed = [chat_chunks([])[0], {"type": "message_stop"}]
    with pytest.raises(TypeError, match="chunk 2 is an Anthropic Messages event, but"):
        list(decode_stream(Person, mixed))


def test_unknown_event_types_are_skipped() -> None:
    """Event kinds with nothing to decode (pings, SDK helper events) do not break a stream."""
    events = anthropic_events([("text", pieces(PERSON))], "end_turn")
    events.insert(2, {"type": "ping"})
    events.insert(3, {"type": "text", "text": "{", "snapshot": "{"})  # the SDK helper's event
    assert list(decode_stream(Person, events))[-1] == decode(Person, PERSON)


def test_huge_replies_are_bounded() -> None:
    """A reply past the size limit is a DecodeError, not unbounded memory."""
    with mock.patch.object(_stream, "_MAX_REPLY", 1000), pytest.raises(
        DecodeError, match="longer than"
    ):
        list(decode_stream(Person, ["[" * 600, "[" * 600]))
    one = "x" * 2_000_000
    with pytest.raises(DecodeError):
        list(decode_stream(Person, ['{"name": "' + one, '"}']))


def test_deep_nesting_ends_in_decodes_error() -> None:
    """Arrays nested past the parsers' limits stop the partials and end in decode()'s error."""
    text = "[" * 5000
    seen: list[Any] = []
    with every_chunk(), pytest.raises(DecodeError) as raised:
        drain(decode_stream(list[Any], [text[i : i + 100] for i in range(0, 5000, 100)]), seen)
    assert all(isinstance(v, Partial) for v in seen)
    assert len(seen) < 5  # jiter stops at its depth limit; no partials past it
    assert raised.value.errors == decode_error(list[Any], text).errors


def test_without_jiter(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without jiter, the error names the extra to install."""
    monkeypatch.setitem(sys.modules, "jiter", None)
    with pytest.raises(ModuleNotFoundError, match=r"pip install 'jiter>=0.5'.*\.\[stream\]"):
        decode_stream(Person, [PERSON])
    with pytest.raises(ModuleNotFoundError, match=r"pip install 'jiter>=0.5'.*\.\[stream\]"):
        adecode_stream(Person, _agen([PERSON]))
    assert decode(Person, PERSON).name == "Ada"  # the rest of the library does not need it


# -- the real SDKs, over a mock transport serving server-sent events -----------------


def sse(events: list[dict[str, Any]], *, named: bool, done: bool = False) -> bytes:
    lines = []
    for event in events:
        head = f"event: {event['type']}\n" if named else ""
        lines.append(f"{head}data: {json.dumps(event)}\n\n")
    if done:
        lines.append("data: [DONE]\n\n")
    return "".join(lines).encode()


def http_module(client: Any) -> Any:
    """The httpx-compatible module the SDK's own HTTP client comes from (httpx or httpx2)."""
    for cls in type(client._client).__mro__:
        if cls.__name__ == "Client" and cls.__module__.split(".")[0].startswith("httpx"):
            return importlib.import_module(cls.__module__.split(".")[0])
    msg = f"cannot find the HTTP library of {type(client).__name__}"
    raise AssertionError(msg)


def sdk_client(cls: Any, body: bytes) -> Any:
    """``cls`` (an SDK client class) whose every request is answered with ``body`` as SSE."""
    asynchronous = cls.__name__.startswith("Async")
    package = sys.modules[cls.__module__.split(".")[0]]
    http = http_module(getattr(package, cls.__name__.removeprefix("Async"))(api_key="k"))

    def reply(request: Any) -> Any:
        return http.Response(200, headers={"content-type": "text/event-stream"}, content=body)

    async def areply(request: Any) -> Any:
        return reply(request)

    transport = http.MockTransport(areply if asynchronous else reply)
    client = (http.AsyncClient if asynchronous else http.Client)(transport=transport)
    return cls(api_key="k", base_url="https://api.example.test/v1", http_client=client,
               max_retries=0)


def _openai_chat(client: Any) -> Any:
    return client.chat.completions.create(
        model="gpt-test", messages=[{"role": "user", "content": "Who?"}], stream=True
    )


def _openai_responses(client: Any) -> Any:
    return client.responses.create(model="gpt-test", input="Who?", stream=True)


def _anthropic(client: Any) -> Any:
    return client.messages.create(
        model="claude-test", max_tokens=100, messages=[{"role": "user", "content": "Who?"}],
        stream=True,
    )


def _responses_text(parts: list[str]) -> list[dict[str, Any]]:
    response = {"id": "r", "object": "response", "created_at": 0, "model": "gpt-test",
                "output": [], "status": "in_progress", "parallel_tool_calls": True,
                "tool_choice": "auto", "tools": []}
    events: list[dict[str, Any]] = [
        {"type": "response.created", "sequence_number": 0, "response": response},
        {"type": "response.output_item.added", "sequence_number": 1, "output_index": 0,
         "item": {"type": "message", "id": "msg", "role": "assistant", "status": "in_progress",
                  "content": []}},
    ]
    events += [
        {"type": "response.output_text.delta", "sequence_number": 2 + i, "item_id": "msg",
         "output_index": 0, "content_index": 0, "delta": p, "logprobs": []}
        for i, p in enumerate(parts)
    ]
    events.append({"type": "response.completed", "sequence_number": 2 + len(parts),
                   "response": {**response, "status": "completed"}})
    return events


SDK_CASES = {
    "openai-chat": (openai.OpenAI, openai.AsyncOpenAI, _openai_chat,
                    lambda parts: sse(chat_chunks([{"content": p} for p in parts]),
                                      named=False, done=True)),
    "openai-chat-tool": (openai.OpenAI, openai.AsyncOpenAI, _openai_chat, lambda parts: sse(
        chat_chunks([{"tool_calls": [{"index": 0, "id": "call_1", "type": "function",
                                      "function": {"name": "Person", "arguments": ""}}]}]
                    + [{"tool_calls": [{"index": 0, "function": {"arguments": p}}]}
                       for p in parts], finish="tool_calls"),
        named=False, done=True)),
    "openai-responses": (openai.OpenAI, openai.AsyncOpenAI, _openai_responses,
                         lambda parts: sse(_responses_text(parts), named=True)),
    "anthropic": (anthropic.Anthropic, anthropic.AsyncAnthropic, _anthropic,
                  lambda parts: sse(anthropic_events([("text", parts)], "end_turn"), named=True)),
    "anthropic-tool": (anthropic.Anthropic, anthropic.AsyncAnthropic, _anthropic,
                       lambda parts: sse(anthropic_events([("Person", parts)], "tool_use"),
                                         named=True)),
}


@pytest.mark.parametrize("case", sorted(SDK_CASES))
def test_sdk_streams(case: str) -> None:
    """The SDKs' own stream objects (stream=True), sync and async, decode like the text."""
    sync_cls, async_cls, request, body = SDK_CASES[case]
    payload = body(pieces(PERSON, 6))
    with every_chunk():
        values = list(decode_stream(Person, request(sdk_client(sync_cls, payload))))
    check_stream(values, decode(Person, PERSON))
    assert len(values) > 10

    async def collect() -> list[Any]:
        stream = await request(sdk_client(async_cls, payload))
        return [v async for v in adecode_stream(Person, stream)]

    with every_chunk():
        assert asyncio.run(collect()) == values


def test_sdk_stream_cut_off() -> None:
    """A stream stopped by the token limit raises IncompleteReplyError through the SDK too."""
    payload = sse(anthropic_events([("text", pieces(PERSON[:50]))], "max_tokens"), named=True)
    client = sdk_client(anthropic.Anthropic, payload)
    seen: list[Any] = []
    with pytest.raises(IncompleteReplyError, match="max_tokens"):
        drain(decode_stream(Person, _anthropic(client)), seen)
    assert seen  # the partials came before the error
    chat = sse(chat_chunks([{"content": p} for p in pieces(PERSON[:50])], finish="length"),
               named=False, done=True)
    with pytest.raises(IncompleteReplyError, match="length"):
        list(decode_stream(Person, _openai_chat(sdk_client(openai.OpenAI, chat))))


def test_converter_hooks_decode_the_partials_too() -> None:
    """A cattrs hook for a class decodes its finished values in the partials and at the end."""
    converter = cattrs.Converter()
    converter.register_structure_hook(Pet, lambda v, _: Pet(v["name"].upper(), Kind(v["kind"])))
    with every_chunk():
        values = list(decode_stream(Person, pieces(PERSON, 7), converter=converter))
    assert values[-1] == decode(Person, PERSON, converter=converter)
    assert values[-1].pets[0].name == "REX"
    assert any(
        isinstance(v, Partial) and v.fields.get("pets") and v.pets[0] == Pet("REX", Kind.DOG)
        for v in values
    )


def test_bad_type_or_converter_fails_at_the_call() -> None:
    """A type that cannot be described, or a converter that is not one, fails before any chunk."""
    with pytest.raises(SchemaError):
        decode_stream(complex, [])
    with pytest.raises(TypeError, match="cattrs Converter"):
        decode_stream(Person, [], converter=object())


class Source:
    """A stream with a close() that records being called, like an SDK stream."""

    def __init__(self, chunks: list[Any]) -> None:
        self.chunks = chunks
        self.closed = False

    def __iter__(self) -> Iterator[Any]:
        return iter(self.chunks)

    def close(self) -> None:
        self.closed = True


def test_a_stream_left_early_is_closed() -> None:
    """Stopping after a partial, or a bad chunk, closes the source; a full read does not."""
    source = Source(pieces(PERSON, 5))
    with every_chunk():
        stream = decode_stream(Person, source)
        assert isinstance(next(stream), Partial)
        stream.close()
    assert source.closed
    junk = Source(['{"name": ', 5])
    with pytest.raises(TypeError):
        list(decode_stream(Person, junk))
    assert junk.closed
    whole = Source(pieces(PERSON, 5))
    assert list(decode_stream(Person, whole))[-1] == decode(Person, PERSON)
    assert not whole.closed


def test_scalar_replies_have_no_partials() -> None:
    """A number or null at the top shows nothing before the end, and then the value."""
    assert list(decode_stream(int, ["12", "34"])) == [1234]
    assert list(decode_stream(Person | None, ["nu", "ll"])) == [None]


@attrs.define
class Point:
    x: int
    y: float


def test_a_number_cut_at_its_point_keeps_the_one_before() -> None:
    """Text ending in "1." drops the unfinished number, not the finished one before it."""
    with every_chunk():
        values = list(decode_stream(Point, ['{"x": 7, "y": 1.', "5}"]))
    assert values[0] == Partial(Point, {"x": 7})
    assert values[-1] == Point(7, 1.5)
    with every_chunk():
        values = list(decode_stream(Point, ['{"x": 7', '0, "y": 2}']))
    assert values[0] == Partial(Point, {})  # "7" may still grow: not shown yet
    assert all(v.fields.get("x", 70) == 70 for v in values[:-1])
    assert values[-1] == Point(70, 2.0)


def test_registry_renames_the_keys_the_stream_reads() -> None:
    """registry= is passed on: a key renamed there is read in the partials and at the end."""
    mine = Registry()
    mine.register(Point, Annotation(parameters={"x": Annotation(name="across")}))
    text = '{"across": 3, "y": 4.5}'
    with every_chunk():
        values = list(decode_stream(Point, pieces(text, 4), registry=mine))
    assert values[-1] == decode(Point, text, registry=mine) == Point(3, 4.5)
    assert any(isinstance(v, Partial) and v.fields.get("x") == 3 for v in values)
    with pytest.raises(DecodeError, match="across"):
        list(decode_stream(Point, pieces(text, 4)))  # the default registry knows only "x"

    async def collect() -> list[Any]:
        return [v async for v in adecode_stream(Point, _agen(pieces(text, 4)), registry=mine)]

    assert asyncio.run(collect())[-1] == Point(3, 4.5)


def test_streaming_keeps_no_type_alive() -> None:
    """What a stream compiles for a type goes when the type goes."""
    def make() -> weakref.ref[type]:
        cls = attrs.make_class("Temporary", {"a": attrs.field(type=int),
                                             "b": attrs.field(type=str)})
        assert list(decode_stream(cls, ['{"a": 1, "b": "x', 'y"}']))[-1] == cls(1, "xy")
        return weakref.ref(cls)

    ref = make()
    gc.collect()
    assert ref() is None


def test_a_number_cut_in_its_exponent_does_not_repeat_the_item_before() -> None:
    """jiter leaves out a number cut at 'e' or a sign: the item before is not shown twice."""

    @attrs.define
    class Readings:
        values: list[float]
        by_name: dict[str, float]

    text = '{"values":[100.0,3.4945315985422844e+16],"by_name":{"a":1.5,"b":2.5e+10}}'
    # Each number is first seen whole but for its exponent ("...844"), then cut at "e"
    # and at the sign: the parses before and after jiter leaves it out.
    e16, e10 = text.index("e+16"), text.index("e+10")
    cuts = [e16, e16 + 1, e16 + 2, e10, e10 + 1, e10 + 2]
    chunks = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]
    with every_chunk():
        values = list(decode_stream(Readings, chunks))
    shown = [v.fields.get("values") for v in values if isinstance(v, Partial)]
    assert all(item == [100.0] or item == [100.0, 3.4945315985422844e16] for item in shown if item)
    mappings = [v.fields.get("by_name") for v in values if isinstance(v, Partial)]
    assert all(m in ({}, {"a": 1.5}, {"a": 1.5, "b": 2.5e10}) for m in mappings if m is not None)
    check_stream(values, decode(Readings, text))


# -- which members of a partial are finished --------------------------------------------


@attrs.define
class Place:
    city: str
    country: str


@attrs.define
class Report:
    place: Place
    summary: str


@pytest.mark.parametrize(
    ("head", "rest"),
    [
        ('{"place":{"city":"Zürich","country":"CH"},"summ', 'ary":"A long summary"}'),
        ('{"place":{"city":"Zürich","country":"CH"}', ',"summary":"A long summary"}'),
        # Brackets and an escaped quote inside a string do not count.
        ('{"place":{"city":"Z}\\"ü[rich{","country":"CH"},', '"summary":"A long summary"}'),
        # An escaped backslash ends with the string's closing quote.
        ('{"place":{"city":"Z\\\\","country":"CH"} , "summ', 'ary":"A long summary"}'),
    ],
)
def test_a_finished_nested_object_is_shown_as_its_class(head: str, rest: str) -> None:
    with every_chunk():
        first, *_, final = decode_stream(Report, [head, rest])
    assert isinstance(first, Partial)
    assert isinstance(first.place, Place), repr(first)
    assert first.place == final.place


@attrs.define
class Cat:
    name: str


@attrs.define
class Cats:
    cats: list[Cat]


def test_a_partial_never_shows_an_empty_nested_object() -> None:
    text = '{"cats":[{"name":"Tom"},{"name":"Felix"}]}'
    with every_chunk():
        shown = [repr(v) for v in decode_stream(Cats, list(text))]
    assert not [s for s in shown if "Partial[Cat]()" in s], shown
    assert "Partial[Cats](cats=[Cat(name='Tom')]…)" in shown  # Tom as a Cat once closed
    assert any("Partial[Cat](name='Fel" in s for s in shown), shown


@attrs.define
class Twice:
    a: int
    b: str
    c: str = ""


def test_partials_agree_with_the_final_value_on_a_repeated_key() -> None:
    """A key sent twice: the last value wins, in the partials as in the final value."""
    text = '{"a":1,"b":"some long string here","a":2,"c":"and more text to stream"}'
    with every_chunk():
        values = list(decode_stream(Twice, pieces(text, 4)))
    *partials, final = values
    assert final == decode(Twice, text)
    assert final == Twice(2, "some long string here", "and more text to stream")
    after = [p for p in partials if "c" in p.fields]  # the second "a" has arrived
    assert after
    assert all(p.a == 2 for p in after), [repr(p) for p in after]
    # Before the second "a" arrived, the partials showed the first.
    assert any(p.fields.get("a") == 1 for p in partials)


def test_a_converters_stream_plan_is_built_once_and_rebuilt_with_its_hooks() -> None:
    """decode_stream(converter=...) keeps its compiled plan, as decode() keeps its decoder;
    a hook registered later makes a new one."""
    import cattrs

    from describedtypes import annotate

    converter = cattrs.Converter()
    first = _stream.StreamDecoder(Point, converter, annotate).plan
    assert _stream.StreamDecoder(Point, converter, annotate).plan is first
    converter.register_structure_hook(int, lambda v, _: int(v))
    assert _stream.StreamDecoder(Point, converter, annotate).plan is not first


def _cut_chat_stream(text: str) -> list[dict[str, Any]]:
    """A Chat Completions stream that stops after ``text`` with no finish reason."""
    return chat_chunks([{"content": p} for p in pieces(text)])[:-1]


@pytest.mark.parametrize("cut", [
    pytest.param(_cut_chat_stream(ANSWER[:20]), id="openai-chat"),
    pytest.param(anthropic_events([("text", pieces(ANSWER[:20]))], "end_turn")[:-2],
                 id="anthropic"),
    pytest.param([{"candidates": [{"content": {"role": "model", "parts": [{"text": p}]}}]}
                  for p in pieces(ANSWER[:20])], id="gemini"),
])
def test_a_stream_cut_without_a_finish_reason_is_incomplete_not_the_models_fault(
    cut: list[dict[str, Any]],
) -> None:
    """A stream that ends before its reply is whole and without a finish reason was cut
    (a dropped connection), not answered wrongly: IncompleteReplyError, which extract_stream
    does not retry, so the model is never told that its JSON was invalid."""
    from types import SimpleNamespace

    from describedtypes import extract_stream

    with pytest.raises(IncompleteReplyError, match="without a finish reason"):
        list(decode_stream(Answer, cut))
    # A whole reply decodes without a finish reason (a server that leaves it out).
    assert list(decode_stream(Answer, _cut_chat_stream(ANSWER)))[-1] == Answer("the answer", 3)
    streams = [_cut_chat_stream(ANSWER[:20]), chat_chunks([{"content": ANSWER}])]
    sent: list[dict[str, Any]] = []

    def create(**kwargs: Any) -> Any:
        sent.append(kwargs)
        return iter(streams.pop(0))

    client = SimpleNamespace(
        chat=SimpleNamespace(completions=SimpleNamespace(create=create)),
        responses=SimpleNamespace(create=lambda **kwargs: None),
    )
    with pytest.raises(IncompleteReplyError, match="connection was cut"):
        list(extract_stream(Answer, client, model="m", messages="Ask"))
    assert len(sent) == 1
    # Whole JSON that does not match, without a finish reason: the model's mistake,
    # told to it and asked again.
    streams[:] = [_cut_chat_stream('{"title": 5, "count": 1}'), chat_chunks([{"content": ANSWER}])]
    sent.clear()
    assert list(extract_stream(Answer, client, model="m", messages="Ask"))[-1] == Answer(
        "the answer", 3)
    assert len(sent) == 2


class _RaisingAiter:
    def __aiter__(self) -> Any:
        raise RuntimeError("hostile __aiter__")


class _RaisingAiterLookup:
    @property
    def __aiter__(self) -> Any:
        raise RuntimeError("hostile lookup")


class _RaisingIter:
    def __iter__(self) -> Any:
        raise RuntimeError("hostile __iter__")


@pytest.mark.parametrize("source", [_RaisingAiterLookup(), _RaisingIter()],
                         ids=["aiter-lookup", "iter"])
def test_a_source_that_raises_when_asked_for_its_iterator_is_a_shape_error(
    source: Any,
) -> None:
    """An object whose __iter__ or __aiter__ raises is no stream: a TypeError (ShapeError)
    naming the method, never the object's own exception."""
    with pytest.raises(TypeError, match=r"the stream's __a?iter__ raised RuntimeError") as info:
        list(decode_stream(Answer, source))
    assert isinstance(info.value, DescribedTypesError)


@pytest.mark.parametrize("source", [_RaisingAiter(), _RaisingAiterLookup()],
                         ids=["aiter", "aiter-lookup"])
def test_an_async_source_whose_aiter_raises_is_a_shape_error(source: Any) -> None:
    """adecode_stream over an object whose __aiter__ raises: a TypeError (ShapeError)."""

    async def collect() -> list[Any]:
        return [v async for v in adecode_stream(Answer, source)]

    with pytest.raises(TypeError, match=r"the stream's __aiter__ raised RuntimeError") as info:
        asyncio.run(collect())
    assert isinstance(info.value, DescribedTypesError)


def test_the_errors_of_a_streams_items_are_its_own() -> None:
    """An error raised while the stream runs (an SDK's network error) passes unchanged."""

    class Dropped(Exception):
        pass

    def source() -> Iterator[str]:
        yield '{"title": '
        raise Dropped

    async def asource() -> AsyncIterator[str]:
        yield '{"title": '
        raise Dropped

    async def collect() -> list[Any]:
        return [v async for v in adecode_stream(Answer, asource())]

    with pytest.raises(Dropped):
        list(decode_stream(Answer, source()))
    with pytest.raises(Dropped):
        asyncio.run(collect())


_ENDLESS = """
import itertools, sys
from types import SimpleNamespace
import attrs
from describedtypes import IncompleteReplyError, extract_stream

@attrs.define
class Answer:
    title: str

empty = {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m",
         "choices": [{"index": 0, "delta": {"content": ""}, "finish_reason": None}]}
made = []

def create(**kwargs):
    made.append(1)
    first = {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m",
             "choices": [{"index": 0, "delta": {"content": '{"title": "a'},
                          "finish_reason": None}]}
    return itertools.chain([first], itertools.repeat(empty))

client = SimpleNamespace(chat=SimpleNamespace(completions=SimpleNamespace(create=create)),
                         responses=SimpleNamespace(create=lambda **kwargs: None))
try:
    for _ in extract_stream(Answer, client, model="m", messages="Ask"):
        pass
except IncompleteReplyError as exc:
    print("incomplete", len(made), exc.reason)
"""


def test_a_stream_of_endless_empty_deltas_ends() -> None:
    """extract_stream over a server that sends empty deltas forever stops after 100,000
    events that add nothing (IncompleteReplyError, not retried), instead of running on
    (run in a subprocess: without the bound it never ends)."""
    done = subprocess.run([sys.executable, "-c", _ENDLESS], capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("incomplete 1 the stream sent more than 100,000 events"), (
        done.stdout
    )


def _open_depth(text: bytes) -> int:
    """Containers open at the end of ``text``: the plain reading, byte by byte."""
    depth, in_string, escaped = 0, False, False
    for byte in text:
        if escaped:
            escaped = False
        elif in_string:
            if byte == 0x5C:
                escaped = True
            elif byte == 0x22:
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in b"{[":
            depth += 1
        elif byte in b"}]":
            depth -= 1
    return depth


_TRICKY_TEXT = st.text(alphabet='ab"\\{}[] \n\u00e9', max_size=8)
_JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | _TRICKY_TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_TRICKY_TEXT, inner, max_size=4),
    max_leaves=12,
)


@given(value=_JSON_VALUES, cuts=st.lists(st.integers(min_value=0, max_value=400), max_size=12))
def test_open_depth_read_in_pieces_matches_reading_the_whole(value: Any, cuts: list[int]) -> None:
    """The stream's count of open containers, fed the text in any pieces (cut inside
    strings, escapes and brackets), matches reading each prefix byte by byte."""
    from describedtypes._codec.jsonscan import Depth

    text = json.dumps(value, ensure_ascii=False).encode()
    reader = Depth()
    for cut in sorted({min(c, len(text)) for c in cuts} | {len(text)}):
        prefix = bytearray(text[:cut])
        assert reader.feed(prefix, 0) == _open_depth(prefix), prefix


def _in_string_at_end(text: bytes) -> bool:
    """Whether ``text`` ends inside a string: the plain reading, byte by byte."""
    in_string, escaped = False, False
    for byte in text:
        if escaped:
            escaped = False
        elif in_string and byte == 0x5C:
            escaped = True
        elif byte == 0x22:
            in_string = not in_string
    return in_string


@given(value=_JSON_VALUES, cuts=st.lists(st.integers(min_value=0, max_value=400), max_size=12))
def test_in_string_read_in_pieces_matches_reading_the_whole(value: Any, cuts: list[int]) -> None:
    """Whether the text ends inside a string (what decides if a trailing string is shown
    growing) comes from the same pieces-wise reading, and matches a byte-by-byte one."""
    from describedtypes._codec.jsonscan import Depth

    text = json.dumps(value, ensure_ascii=False).encode()
    reader = Depth()
    for cut in sorted({min(c, len(text)) for c in cuts} | {len(text)}):
        prefix = bytearray(text[:cut])
        reader.feed(prefix, 0)
        assert reader.in_string == _in_string_at_end(prefix), prefix


def _general_path(cls: Any, chunks: list[Any]) -> list[Any]:
    """What decode_stream yields, each chunk taken by the stream's general path (the one
    every kind of chunk and event goes through), with no short cut for text pieces."""
    stream = _stream.StreamDecoder(cls, None, annotate)
    values = []
    for chunk in chunks:
        stream.count += 1
        partial = stream._feed(chunk)
        if partial is not None:
            values.append(partial)
    values.append(stream.finish())
    return values


@given(st.data(), st.booleans())
def test_the_short_path_for_text_pieces_yields_what_the_general_one_does(
    data: st.DataObject, each: bool
) -> None:
    """Text pieces skip the general per-chunk path (a call per chunk was a fifth of a
    stream's cost): for any reply of a generated class cut anywhere, the partials and
    the final value are the same, parsing after every chunk or at the default spacing."""
    cls, instances = data.draw(classes())
    text = encode(data.draw(instances)).decode()
    drawn = data.draw(st.lists(st.integers(0, 9999), max_size=20))
    cuts = sorted(c % (len(text) + 1) for c in drawn)
    chunks = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]
    with every_chunk() if each else contextlib.nullcontext():
        assert list(decode_stream(cls, chunks)) == _general_path(cls, chunks)


def _outcome(cls: Any, chunks: list[Any], skim: bool) -> list[Any]:
    """Everything decode_stream yields, then the error it raises at the end (if any)."""
    from describedtypes._codec import partial_builder as _partial

    values: list[Any] = []
    with mock.patch.object(_partial, "SKIM", skim):
        try:
            for value in decode_stream(cls, chunks):
                values.append(value)
        except DescribedTypesError as exc:
            values.append((type(exc), str(exc)))
    return values


def _cut_anywhere(data: st.DataObject, text: str, most: int = 30) -> list[str]:
    drawn = data.draw(st.lists(st.integers(0, 99_999), max_size=most))
    cuts = sorted(c % (len(text) + 1) for c in drawn)
    return [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]


def _skim_both_ways(cls: Any, text: str, data: st.DataObject) -> None:
    """Skimming an open array's items from their text yields what parsing the whole text
    does: cut anywhere, parsing after every chunk or at the default spacing, the reply
    whole or cut off."""
    if data.draw(st.booleans()):
        text = text[: data.draw(st.integers(0, len(text)))]  # the stream was cut
    chunks = _cut_anywhere(data, text)
    with every_chunk() if data.draw(st.booleans()) else contextlib.nullcontext():
        assert _outcome(cls, chunks, skim=True) == _outcome(cls, chunks, skim=False)


def _layout(data: st.DataObject, text: str) -> str:
    """The same JSON compact, spaced or pretty-printed, non-ASCII as is or escaped."""
    indent = data.draw(st.sampled_from([None, None, 0, 1, 2, "\t"]))
    separators = data.draw(st.sampled_from([(",", ":"), (", ", ": "), (" , ", " : ")]))
    return json.dumps(json.loads(text), indent=indent, separators=separators,
                      ensure_ascii=data.draw(st.booleans()))


@given(st.data())
def test_skimmed_items_yield_what_whole_parses_do(data: st.DataObject) -> None:
    """Generated item classes (unions, dicts, nested lists, strings with escapes and
    any unicode) in an open array between other fields, laid out every way JSON allows."""
    item, instances = data.draw(classes(unions=data.draw(st.booleans())))
    outer = attrs.make_class("Outer", {
        "head": attrs.field(type=str),
        "items": attrs.field(type=list[item]),  # type: ignore[valid-type]
        "tail": attrs.field(type=int),
    })
    value = outer(data.draw(st.text(max_size=20)),
                  data.draw(st.lists(instances, min_size=2, max_size=6)),
                  data.draw(st.integers(-(10**6), 10**6)))
    try:
        text = encode(value).decode()
    except TypeError:  # a union whose options' JSON forms overlap: not a reply to stream
        assume(False)
    _skim_both_ways(outer, _layout(data, text), data)


@attrs.define
class Leaf:
    name: str
    score: float | None = None


@attrs.define
class Branch:
    label: str
    leaves: list[Leaf]
    meta: dict[str, int] = attrs.Factory(dict)
    choice: int | str | None = None


@attrs.define
class Tree:
    title: str
    branches: list[Branch]
    done: bool = False


def _branch(data: st.DataObject, i: int) -> str:
    """One branch as JSON text, with what could be mistaken for the end of an item."""
    label = data.draw(st.sampled_from([
        '"b"', '"},{"', '"}, {\\"x\\": [1]}"', '"\\u00e9\\ud83d\\ude00"', '"a\\\\"',
        '"\\"},{\\""', '"ünï ☃"',
    ]))
    score = data.draw(st.sampled_from(["1.5e+10", "-0.25E-3", "7", "null", "12345.678e2"]))
    count = data.draw(st.integers(0, 3))
    leaves = ",".join(f'{{"name":{label},"score":{score}}}' for _ in range(count))
    members = [f'"label":{label}', f'"leaves":[{leaves}]', f'"meta":{{"k":{i},"v":2}}',
               f'"choice":{data.draw(st.sampled_from(["1", "null", label]))}']
    if data.draw(st.booleans()):  # a key sent twice: the last one wins
        members.insert(1, '"label":"first"')
    return "{" + ",".join(members) + "}"


@given(st.data())
def test_skimming_is_not_fooled_by_look_alike_item_ends(data: st.DataObject) -> None:
    """Item ends inside strings and nested arrays of objects, repeated keys, numbers cut
    mid-exponent, the space between items changing midway: the same partials as whole
    parses, and decode()'s value or error at the end."""
    gaps = data.draw(st.lists(st.sampled_from([",", ", ", ",\n  ", " ,"]), min_size=7, max_size=7))
    gap = data.draw(st.sampled_from(gaps))
    branches = [_branch(data, i) for i in range(data.draw(st.integers(1, 7)))]
    body = "".join(b + (gaps[i] if data.draw(st.booleans()) else gap)
                   for i, b in enumerate(branches))
    text = '{"title":"t","branches":[' + body.rstrip(", \n") + '],"done":true}'
    if data.draw(st.booleans()):
        text = _layout(data, text)
    _skim_both_ways(Tree, text, data)


def _jiter_reads(tp: Any, chunks: list[str]) -> tuple[list[int], list[Any], Any]:
    """``chunks`` streamed with a jiter that counts what it reads: the size of each partial
    parse's text, the partials yielded and the final value."""
    sizes: list[int] = []
    real = _stream._jiter().from_json

    def counting(data: bytes, **kw: Any) -> Any:
        if kw:  # the partial parses (a whole item is read without options)
            sizes.append(len(data))
        return real(data, **kw)

    stream = _stream.StreamDecoder(tp, None, annotate)
    stream.from_json = counting
    stream.text = stream.texts[None] = _stream._Text(stream.plan, counting)
    seen = [p for c in chunks if (p := stream.feed(c)) is not None]
    return sizes, seen, stream.finish()


def test_skimming_reads_each_item_once_and_the_parses_little() -> None:
    """A long array of objects (holding arrays of objects): each finished item is decoded
    once, from its own text, and the parses read the open item (and what comes before the
    array), not the items before it."""
    from describedtypes._codec import partial_builder as _partial

    # Compact JSON: the leaves' own "},{" looks like the end of a branch.
    items = [{"label": f"b{i}", "leaves": [{"name": "x", "score": j} for j in range(3)]}
             for i in range(300)]
    text = json.dumps({"title": "t", "branches": items, "done": True}, separators=(",", ":"))
    chunks = pieces(text, 50)
    parsed, seen, final = _jiter_reads(Tree, chunks)
    assert final == decode(Tree, text)
    assert seen
    assert sum(parsed) < len(text) / 2, (sum(parsed), len(text))
    assert _outcome(Tree, chunks, skim=True) == _outcome(Tree, chunks, skim=False)
    assert _partial.SKIM


@given(st.lists(st.sampled_from(["[", "{", "close", "close"]), max_size=80),
       st.lists(st.sampled_from("]}"), max_size=3))
def test_how_far_brackets_go_down_is_read_in_c_as_step_by_step(
    steps: list[str], first: list[str]
) -> None:
    """Whether a skimmed array closed comes from pairs dropped by replace(), a round per
    level of nesting (a step per bracket only when nested deeper): the same answer as
    reading bracket by bracket, for any piece of JSON's brackets (closers of containers
    opened before it first, as an open item's text can end its array)."""
    from describedtypes._codec.jsonscan import dip

    brackets, open_ = list(first), []
    for step in steps:
        if step != "close":
            open_.append(step)
            brackets.append(step)
        elif open_:
            brackets.append("]" if open_.pop() == "[" else "}")
        else:
            brackets.append("]")
    depth = low = 0
    for b in brackets:
        depth += 1 if b in "[{" else -1
        low = min(low, depth)
    assert dip("".join(brackets).encode()) == -low


@attrs.define
class Cell:
    text: str


@attrs.define
class Sheet:
    name: str
    cells: list[Cell]


@attrs.define
class Holder:
    tag: str
    cells: list[Cell]


@attrs.define
class Shelf:
    name: str
    holder: Holder
    count: int = 0


@attrs.define
class MaybeCells:
    cells: list[Cell] | None
    after: str = ""


def _cells(data: st.DataObject) -> list[Cell]:
    texts = st.sampled_from(["a", "},{", '"},{"text":"x"}', "\\", "ünï ☃", "]}", ""])
    return [Cell(data.draw(texts)) for _ in range(data.draw(st.integers(2, 9)))]


#: What comes before the skimmed array in ``_AROUND``: longer than any item, so a parse
#: that reads it is told from one that reads the open item alone.
_BEFORE = "p" * 300

#: The containers a skimmed array can sit in: what each later parse rebuilds around the
#: open item without reading it again (a class, a list, a dict, a tuple, a union, the top).
_AROUND: list[tuple[Any, Any]] = [
    (list[Cell], lambda cells: cells),
    (dict[str, list[Cell]], lambda cells: {"x": [Cell(_BEFORE)], "z": cells}),
    (list[list[Cell]], lambda cells: [[Cell(_BEFORE)], cells]),
    (tuple[str, list[Cell]], lambda cells: (_BEFORE, cells)),
    (Shelf, lambda cells: Shelf(_BEFORE, Holder(_BEFORE, cells), 3)),
    (dict[str, Shelf], lambda cells: {_BEFORE: Shelf("s", Holder("h", cells))}),
    (MaybeCells, lambda cells: MaybeCells(cells, _BEFORE)),
    (Holder | None, lambda cells: Holder(_BEFORE, cells)),
]


@pytest.mark.parametrize("which", range(len(_AROUND)))
@given(data=st.data())
def test_skimmed_items_yield_what_whole_parses_do_below_any_container(
    which: int, data: st.DataObject
) -> None:
    """Once an array is skimmed, a parse reads its open item alone and rebuilds the
    containers around it as the first skimmed parse showed them: for every kind of
    container, the same partials and final value as parsing the whole text."""
    tp, make = _AROUND[which]
    text = _layout(data, encode(make(_cells(data))).decode())
    if data.draw(st.booleans()):  # small even pieces, a parse after each: many rebuilds
        chunks = pieces(text, data.draw(st.integers(1, 16)))
        with every_chunk():
            assert _outcome(tp, chunks, skim=True) == _outcome(tp, chunks, skim=False)
    else:
        _skim_both_ways(tp, text, data)


@pytest.mark.parametrize("which", range(len(_AROUND)))
def test_a_skimmed_parse_reads_the_open_item_alone(which: int) -> None:
    """The later parses of a long array give jiter the open item alone, not what comes
    before the array, whatever the array sits in."""
    tp, make = _AROUND[which]
    cells = [Cell(f"cell number {i}, " * 3) for i in range(300)]
    text = encode(make(cells)).decode()
    longest = max(len(encode(c)) for c in cells) + len("[, ")
    sizes, _, final = _jiter_reads(tp, pieces(text, 40))
    assert final == decode(tp, text)
    later = sizes[-len(sizes) // 3 :]  # (the first parses come before the array)
    assert len(later) >= 4
    assert all(size <= longest for size in later), (longest, sizes)
    assert _outcome(tp, pieces(text, 40), skim=True) == _outcome(tp, pieces(text, 40), skim=False)



def test_an_item_too_deep_to_decode_while_skimming_falls_back_to_whole_parses() -> None:
    """Decoding skimmed items can meet Python's recursion limit (a recursive class nested
    as deep as JSON parsers allow): skimming stops and the whole text is parsed, with the
    partials parsing it all along gives, instead of a RecursionError out of the stream."""
    from describedtypes._codec import partial_builder as _partial

    text = json.dumps({"name": "s", "cells": [{"text": f"c{i}"} for i in range(40)]})
    chunks = pieces(text, 7)

    def too_deep(data: Any) -> Any:
        raise RecursionError

    expected = _outcome(Sheet, chunks, skim=False)
    with mock.patch.object(_partial, "fast_items_decoder_for", return_value=too_deep):
        assert _outcome(Sheet, chunks, skim=True) == expected

"""Hostile input at every public entry point: an answer or a clear error, never a crash.

The entry points are ``decode`` (text, bytes and parsed values), ``decode_arguments``,
``Toolbox.call`` / ``acall``, ``decode_response``, the tool-call readers and the result
writers. The contracts tried here:

- ``decode`` returns an instance or raises ``DecodeError`` whose ``.errors`` are
  non-empty ``("$...", message)`` pairs and whose ``str()`` stays short, however large
  or deep the input.
- ``Toolbox.call`` / ``acall`` never raise for anything the model sends; a bad call is a
  ``ToolResult`` with ``is_error=True`` and a bounded message.
- The readers and writers return their lists, or raise a ``TypeError`` that is also a
  ``DescribedTypesError`` and names what is wrong (the writers' missing ``call_id`` is a
  ``ValueError`` saying where to set it). ``decode_response`` raises ``DecodeError`` (or a
  subclass) for a bad reply and that ``TypeError`` for an object of no known shape.

The regression tests at the end pin bugs these properties found.
"""

from __future__ import annotations

import asyncio
import datetime
import enum
import json
import types
from collections.abc import Iterator, Mapping
from typing import Any, Literal, Optional

import attrs
import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from describedtypes import (
    Context,
    DecodeError,
    DescribedTypesError,
    IncompleteReplyError,
    RefusalError,
    SchemaError,
    Toolbox,
    ToolCall,
    ToolResult,
    decode,
    decode_response,
    encode,
    read_tool_calls,
    tool_calls_from_anthropic,
    tool_calls_from_openai_chat,
    tool_calls_from_openai_responses,
    tool_results_for_anthropic,
    tool_results_for_openai_chat,
    tool_results_for_openai_responses,
)
from describedtypes._codec.decode import decode_arguments
from describedtypes.inspect import ObjectNode, type_info

from .strategies import classes

#: The longest str(DecodeError) (or error ToolResult content) any input may produce.
MAX_REPORT = 4000

# -- strategies ----------------------------------------------------------------------------

huge_ints = st.integers(min_value=2**64, max_value=2**300) | st.integers(
    min_value=-(2**300), max_value=-(2**63) - 1
)
special_floats = st.sampled_from(
    [-0.0, 0.0, 1e308, -1e308, 5e-324, 2.0**53 + 2, float("inf"), float("-inf"), float("nan")]
)
long_text = st.builds(
    lambda ch, n: ch * n,
    st.characters(codec="utf-8"),  # no lone surrogates
    st.integers(min_value=1_000, max_value=100_000),
)
# Values the generated classes' fields accept (enum and literal values, dates, UUIDs),
# so that random values sometimes get past the first check.
fieldish = st.sampled_from(
    ["x", "y", "z", "xy", "a0", "b1", "2024-05-01", "2024-05-01T12:30:00Z", "9999-12-31",
     "00000000-0000-0000-0000-000000000000", "0" * 32, "", " ", "\x00", "null", "{}"]
)
scalars = (
    st.none() | st.booleans() | st.integers() | st.integers(-5, 50) | huge_ints | st.floats()
    | special_floats | st.text() | long_text | fieldish
)
keys = st.sampled_from(["f0", "f1", "f2", "f3", "key", "value"]) | st.text(max_size=8)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=5),
    max_leaves=24,
)


def text_forms(value: Any) -> Iterator[Any]:
    """``value`` itself and as JSON text: json.dumps (big ints, NaN) and orjson when it can."""
    yield value
    yield json.dumps(value)
    try:
        encoded = orjson.dumps(value)
    except orjson.JSONEncodeError:  # an int beyond 64 bits
        return
    yield encoded


def assert_clear(exc: DecodeError, *, bounded: bool = True) -> None:
    """A DecodeError fit to send back: problems with JSON paths, and a short report."""
    assert exc.errors
    for path, message in exc.errors:
        assert isinstance(path, str)
        assert path.startswith("$")
        assert isinstance(message, str)
        assert message
    text = str(exc)
    assert text
    if bounded:
        assert len(text) < MAX_REPORT, len(text)


def decoded_or_clear(tp: Any, data: Any) -> Any:
    """decode(tp, data): an instance of ``tp`` or a clear DecodeError, nothing else."""
    try:
        out = decode(tp, data)
    except DecodeError as exc:
        assert_clear(exc)
        return None
    assert isinstance(out, tp)
    return out


# -- decode ----------------------------------------------------------------------------------


@settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(classes(), json_values, st.data())
def test_any_json_value_gives_an_instance_or_a_clear_decode_error(
    drawn: tuple[Any, Any], value: Any, data: st.DataObject
) -> None:
    """Arbitrary JSON, parsed or as text, alone, in every field or in one field of a valid
    instance, decodes or is a clear DecodeError."""
    cls, instances = drawn
    valid = orjson.loads(encode(data.draw(instances)))
    target = data.draw(st.sampled_from([*valid, "f0", "extra"]))
    candidates = [value, {"f0": value, "f1": value, "f2": value, "f3": value},
                  {**valid, target: value}]
    for candidate in candidates:
        for form in text_forms(candidate):
            decoded_or_clear(cls, form)


@given(
    classes(),
    st.binary(max_size=300) | st.text(max_size=300),
    st.sampled_from([bytes, bytearray, memoryview, "fenced"]),
)
def test_any_bytes_or_text_give_an_instance_or_a_clear_decode_error(
    drawn: tuple[Any, Any], raw: bytes | str, form: Any
) -> None:
    """Random bytes and text, in any buffer type or inside a markdown fence, never crash."""
    cls, _ = drawn
    if form == "fenced":
        fence = "```json\n" if isinstance(raw, str) else b"```json\n"
        end = "\n```" if isinstance(raw, str) else b"\n```"
        decoded_or_clear(cls, fence + raw + end)  # type: ignore[operator]
    elif isinstance(raw, bytes):
        decoded_or_clear(cls, form(raw))
    decoded_or_clear(cls, raw)


@given(classes(), st.data())
def test_a_fence_around_the_whole_reply_changes_nothing_else(
    drawn: tuple[Any, Any], data: st.DataObject
) -> None:
    """A fenced reply decodes exactly as the bare one; a fence with text after it never does."""
    cls, instances = drawn
    instance = data.draw(instances)
    text = encode(instance).decode()
    assert decode(cls, text) == instance
    for fenced in (f"```json\n{text}\n```", f"```\n{text}\n```\n", f"  ```JSON\r\n{text}\r\n```"):
        assert decode(cls, fenced) == instance
        assert decode(cls, fenced.encode()) == instance
    with pytest.raises(DecodeError) as info:
        decode(cls, f"```json\n{text}\n```\nDone.")
    ((path, message),) = info.value.errors
    assert path == "$"
    assert message.endswith("without markdown code fences (```) or text around it")


@attrs.define
class Tree:
    value: int
    children: list[Tree] = attrs.Factory(list)
    label: Optional[str] = None  # noqa: UP045 - a runtime Optional like users write


def test_huge_strings_keys_and_counts_keep_the_report_short() -> None:
    """Megabyte strings and keys, 20,000 unknown keys and 100,000 bad items: short reports."""
    big = "x" * 5_000_000
    for reply in (
        {"value": big, "label": 5, big: big},
        {"value": 1, **{f"unknown_{i}": i for i in range(20_000)}},
        {"value": 1, "children": [{"value": "no"}] * 100_000},
        [big] * 3,
    ):
        with pytest.raises(DecodeError) as info:
            decode(Tree, orjson.dumps(reply))
        assert_clear(info.value)


def test_deep_paths_are_cut_short_in_the_report_only() -> None:
    """A bad leaf 300 levels down keeps its whole path in .errors and a short one in str()."""
    leaf: dict[str, Any] = {"value": "deep"}
    for _ in range(300):
        leaf = {"value": 1, "children": [leaf]}
    with pytest.raises(DecodeError) as info:
        decode(Tree, {"value": 1, "children": [leaf] * 30})
    assert_clear(info.value)
    assert len(info.value.errors) == 30
    path, message = info.value.errors[0]
    assert path == "$.children[0]" + ".children[0]" * 300 + ".value"
    assert message == 'expected integer, got string "deep"'
    assert "characters)…" in str(info.value)


def test_nesting_deeper_than_the_stack_is_a_decode_error() -> None:
    """Parsed input nested 100,000 levels deep is one DecodeError, not a RecursionError."""
    leaf: dict[str, Any] = {"value": 1}
    for _ in range(100_000):
        leaf = {"value": 1, "children": [leaf]}
    with pytest.raises(DecodeError) as info:
        decode(Tree, leaf)
    assert info.value.errors == [
        ("$", "the value is nested too deeply to decode; send a flatter value")
    ]


# -- tool arguments ----------------------------------------------------------------------------


class Unit(enum.Enum):
    CELSIUS = "celsius"
    FAHRENHEIT = "fahrenheit"


@attrs.define
class Where:
    city: str
    when: Optional[datetime.date] = None  # noqa: UP045


def forecast(
    where: Where,
    session: Context[str],
    unit: Unit = Unit.CELSIUS,
    days: int = 1,
    tags: list[str] | None = None,
    mode: Literal["brief", "full"] = "brief",
) -> dict[str, Any]:
    """Forecast for a place."""
    return {"city": where.city, "days": days, "session": session}


async def aforecast(where: Where, days: int = 1) -> str:
    """Forecast for a place, asynchronously."""
    await asyncio.sleep(0)
    return f"{where.city}: {days}"


def hostile_keys() -> st.SearchStrategy[dict[Any, Any]]:
    """Mappings with keys no JSON object has: numbers, None, tuples, booleans."""
    return st.dictionaries(
        st.integers() | st.none() | st.booleans() | st.tuples(st.integers()) | keys,
        json_values,
        max_size=4,
    )


payloads = (
    st.none()
    | json_values
    | hostile_keys()
    | st.fixed_dictionaries({"where": json_values}, optional={"days": json_values})
    | json_values.map(json.dumps)
    | json_values.map(lambda v: json.dumps(v).encode())
    | json_values.map(lambda v: bytearray(json.dumps(v).encode()))
    | st.binary(max_size=50)
    | st.text(max_size=50)
)
tool_names = (
    st.sampled_from(["forecast", "aforecast", "Forecast", "forcast", ""])
    | st.text(max_size=30)
    | st.integers()
    | st.none()
    | st.lists(st.integers(), max_size=3)
)


def assert_result(result: Any, name: Any) -> None:
    """A ToolResult for the call: the tool's value, or an error the model can act on."""
    assert isinstance(result, ToolResult)
    assert result.call_id == "call_9"
    assert isinstance(result.content, str)
    if result.is_error:
        assert result.content
        assert len(result.content) < MAX_REPORT, len(result.content)
        assert result.value is None
    else:
        assert name in ("forecast", "aforecast")


@given(payloads, tool_names)
def test_toolbox_call_and_acall_never_raise(payload: Any, name: Any) -> None:
    """Any tool name and arguments give a ToolResult from call and acall, the same from both."""
    box = Toolbox([forecast, aforecast])
    result = box.call(name, payload, call_id="call_9", context="s1")
    assert_result(result, name)
    again = asyncio.run(box.acall(name, payload, call_id="call_9", context="s1"))
    assert_result(again, name)
    assert (again.is_error, again.content) == (result.is_error, result.content)
    if not result.is_error and name == "forecast":
        assert result.value["session"] == "s1"


FORECAST = type_info(forecast)


@given(payloads)
def test_decode_arguments_gives_arguments_or_a_clear_decode_error(payload: Any) -> None:
    """decode_arguments returns the decoded arguments by name, or a clear DecodeError."""
    assert isinstance(FORECAST, ObjectNode)
    try:
        out = decode_arguments(FORECAST, payload)
    except DecodeError as exc:
        assert_clear(exc)
        return
    assert isinstance(out, dict)
    assert isinstance(out["where"], Where)
    assert set(out) <= {"where", "unit", "days", "tags", "mode"}


# -- provider responses ------------------------------------------------------------------------

PROVIDER_KEYS = [
    "choices", "message", "tool_calls", "function", "name", "arguments", "output", "type",
    "content", "input", "id", "call_id", "role", "stop_reason", "finish_reason", "refusal",
    "text", "status", "error", "incomplete_details", "reason", "object",
]
PROVIDER_WORDS = [
    "function_call", "tool_use", "function", "message", "text", "output_text", "refusal",
    "assistant", "length", "max_tokens", "incomplete", "response", "stop", "end_turn",
    "where", '{"where": {"city": "Oslo"}}', "forecast",
]
junk = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12)
    | st.sampled_from(PROVIDER_WORDS),
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.sampled_from(PROVIDER_KEYS) | st.text(max_size=5), inner, max_size=5),
    max_leaves=30,
)

RESPONSES_REPLY: dict[str, Any] = {
    "object": "response",
    "status": "completed",
    "output": [
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {"type": "message", "role": "assistant",
         "content": [{"type": "output_text", "text": '{"city": "Oslo"}'}]},
        {"type": "function_call", "call_id": "c1", "name": "Where",
         "arguments": '{"city": "Oslo"}'},
    ],
}
CHAT_REPLY: dict[str, Any] = {
    "object": "chat.completion",
    "choices": [{
        "index": 0,
        "finish_reason": "tool_calls",
        "message": {
            "role": "assistant",
            "content": None,
            "refusal": None,
            "tool_calls": [{"id": "c1", "type": "function",
                            "function": {"name": "Where", "arguments": '{"city": "Oslo"}'}}],
        },
    }],
}
ANTHROPIC_REPLY: dict[str, Any] = {
    "type": "message",
    "role": "assistant",
    "stop_reason": "tool_use",
    "content": [
        {"type": "text", "text": "Looking it up."},
        {"type": "tool_use", "id": "c1", "name": "Where", "input": {"city": "Oslo"}},
    ],
}


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield prefix
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _paths(v, (*prefix, i))


def _replace(value: Any, path: tuple[Any, ...], new: Any, delete: bool) -> Any:
    if not path:
        return new
    head, rest = path[0], path[1:]
    copy: Any = dict(value) if isinstance(value, dict) else list(value)
    if not rest and delete and isinstance(copy, dict):
        del copy[head]
    else:
        copy[head] = _replace(copy[head], rest, new, delete)
    return copy


@st.composite
def corrupted_replies(draw: st.DrawFn) -> Any:
    """A real reply shape of one provider with one to three parts replaced by junk or removed."""
    reply = draw(st.sampled_from([RESPONSES_REPLY, CHAT_REPLY, ANTHROPIC_REPLY]))
    for _ in range(draw(st.integers(min_value=1, max_value=3))):
        path = draw(st.sampled_from(list(_paths(reply))))
        reply = _replace(reply, path, draw(junk), draw(st.booleans()))
    return reply


def as_objects(value: Any, flags: Iterator[bool]) -> Any:
    """Some dicts turned into attribute objects, as SDK responses are (keys that are names)."""
    if isinstance(value, list):
        return [as_objects(v, flags) for v in value]
    if isinstance(value, dict):
        inner = {k: as_objects(v, flags) for k, v in value.items()}
        if next(flags, False) and all(isinstance(k, str) and k.isidentifier() for k in inner):
            return types.SimpleNamespace(**inner)
        return inner
    return value


replies = st.builds(
    as_objects,
    junk | corrupted_replies() | st.sampled_from([RESPONSES_REPLY, CHAT_REPLY, ANTHROPIC_REPLY]),
    st.lists(st.booleans(), max_size=20).map(iter),
)

READERS = [
    read_tool_calls,
    tool_calls_from_openai_responses,
    tool_calls_from_openai_chat,
    tool_calls_from_anthropic,
]


def assert_shape_error(exc: BaseException) -> None:
    """The readers' error for a reply of the wrong shape: a TypeError, on purpose."""
    assert isinstance(exc, TypeError)
    assert isinstance(exc, DescribedTypesError)
    assert str(exc)
    assert len(str(exc)) < 500


@given(replies)
def test_tool_call_readers_return_calls_or_a_clear_type_error(reply: Any) -> None:
    """Every reader returns ToolCalls with str names, or a shape error naming what is wrong."""
    for reader in READERS:
        try:
            calls = reader(reply)
        except DescribedTypesError as exc:
            assert_shape_error(exc)
            continue
        assert isinstance(calls, list)
        for call in calls:
            assert isinstance(call, ToolCall)
            assert isinstance(call.name, str)


def assert_response_error(exc: DescribedTypesError) -> None:
    """decode_response's errors: a clear DecodeError (or subclass), or the shape error."""
    if isinstance(exc, RefusalError):
        assert_clear(exc, bounded=False)  # the refusal is the model's own text, in full
    elif isinstance(exc, IncompleteReplyError):
        assert_clear(exc)
        assert exc.reason
    elif isinstance(exc, DecodeError):
        assert_clear(exc)
    else:
        assert_shape_error(exc)
        assert "decode_response()" in str(exc)


@given(replies)
def test_decode_response_gives_an_instance_or_a_clear_error(reply: Any) -> None:
    """decode_response returns the type, a clear DecodeError, or the shape error."""
    try:
        out = decode_response(Where, reply)
    except DescribedTypesError as exc:
        assert_response_error(exc)
        return
    assert isinstance(out, Where)


results = st.lists(
    st.builds(
        ToolResult,
        content=st.text(max_size=5),
        call_id=st.none() | st.text(min_size=1, max_size=5),
        is_error=st.booleans(),
        name=st.text(max_size=5),
    )
    | junk,
    max_size=4,
)
WRITERS = [tool_results_for_openai_responses, tool_results_for_openai_chat,
           tool_results_for_anthropic]


@given(junk | results | results.map(tuple) | results.map(iter))
def test_result_writers_return_messages_or_a_clear_error(value: Any) -> None:
    """The writers shape ToolResults, or refuse other values with a clear error."""
    listed = list(value) if isinstance(value, Iterator) else value
    for writer in WRITERS:
        try:
            out = writer(iter(listed) if isinstance(value, Iterator) else listed)
        except DescribedTypesError as exc:
            assert_shape_error(exc)
        except ValueError as exc:
            assert_missing_call_id(exc)
        else:
            assert isinstance(out, (list, dict))


def assert_missing_call_id(exc: ValueError) -> None:
    """The writers' one ValueError: a result without call_id, saying where to set it."""
    assert "has no call_id" in str(exc)
    assert "call_id=" in str(exc)


# -- regressions -----------------------------------------------------------------------------


def test_decoding_into_a_function_is_a_schema_error() -> None:
    """decode(func, ...) is the documented SchemaError pointing to Toolbox, not a bare TypeError."""
    with pytest.raises(SchemaError, match="decode_arguments"):
        decode(forecast, "{}")


def test_integers_beyond_64_bits_are_never_silently_rounded() -> None:
    """orjson reads such integers as floats; they are an error, not a different number."""
    with pytest.raises(DecodeError) as info:
        decode(int, "123456789012345678901234567890")
    ((path, message),) = info.value.errors
    assert path == "$"
    assert message.startswith("expected integer, got number 1.2345678901234568e+29, which is")
    assert decode(int, "18446744073709551615") == 2**64 - 1  # still exact: orjson's uint64
    assert decode(int, 2**300) == 2**300  # parsed input keeps any int
    assert decode(int, "9007199254740992.0") == 2**53  # the largest exact float
    assert decode(int, "3.0") == 3


class CountingMapping(Mapping[str, Any]):
    """A JSON object that counts how often the decoder reads it."""

    reads = 0

    def __init__(self, data: dict[str, Any]) -> None:
        self._data = data

    def __getitem__(self, key: str) -> Any:
        return self._data[key]

    def __iter__(self) -> Iterator[str]:
        CountingMapping.reads += 1
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)


def test_a_bad_leaf_deep_in_a_recursive_type_is_decoded_once() -> None:
    """Every object is read once however deep the bad leaf is (it was 3**depth times)."""
    for container in (list, tuple):
        leaf: Any = CountingMapping({"value": "bad"})
        for _ in range(40):
            leaf = CountingMapping({"value": 1, "children": container([leaf])})
        CountingMapping.reads = 0
        with pytest.raises(DecodeError) as info:
            decode(Tree, leaf)
        assert info.value.errors == [
            ("$" + ".children[0]" * 40 + ".value", 'expected integer, got string "bad"')
        ]
        assert CountingMapping.reads == 41


def test_every_bad_item_of_a_list_is_still_reported() -> None:
    """Decoding each item once still finds the problems of the items after the first bad one."""
    reply = {"value": 1, "children": [{"value": 1}, {"value": "a"}, {"value": 2},
                                      {"value": "b", "extra": 1}]}
    with pytest.raises(DecodeError) as info:
        decode(Tree, reply)
    assert info.value.errors == [
        ("$.children[1].value", 'expected integer, got string "a"'),
        ("$.children[3].value", 'expected integer, got string "b"'),
        ("$.children[3].extra", "unknown field (accepted fields: value, children, label)"),
    ]
    with pytest.raises(DecodeError) as info:
        decode(list[Tree], [{"value": "a"}, {"value": 1}, {"value": "b"}])
    assert [path for path, _ in info.value.errors] == ["$[0].value", "$[2].value"]


def test_a_flood_of_unknown_arguments_gets_a_short_answer() -> None:
    """5,000 unknown argument names give the first twenty problems and a count."""
    result = Toolbox([aforecast]).call(
        "aforecast", {"where": {"city": "Oslo"}, **{f"k{i}": i for i in range(5000)}}
    )
    assert result.is_error
    assert len(result.content) < MAX_REPORT
    assert "- … and at least 81 more problems (checking stopped after 100)" in result.content
    assert result.content.count("\n- $") == 20


def test_a_huge_unknown_tool_name_is_cut_short() -> None:
    """An unknown tool name of a megabyte is not echoed in full to the model."""
    name = "f" * 1_000_000
    result = Toolbox([aforecast]).call(name, {})
    assert result.is_error
    assert result.name == name
    assert result.content == (
        f"Unknown tool '{'f' * 40}…' (1000000 characters). Available tools: aforecast."
    )


def test_decode_arguments_reads_every_text_buffer() -> None:
    """bytearray and memoryview argument text is parsed like str and bytes."""
    assert isinstance(FORECAST, ObjectNode)
    for form in (str, bytes, bytearray, memoryview):
        text = '{"where": {"city": "Oslo"}, "days": 2}'
        data = text if form is str else form(text.encode())
        assert decode_arguments(FORECAST, data) == {"where": Where("Oslo"), "days": 2}


def test_tool_argument_text_that_is_not_json_gets_the_decoders_fix() -> None:
    """Bad argument text names the position, the text there and the fix."""
    result = Toolbox([aforecast]).call("aforecast", "{'where': {'city': 'Oslo'}}")
    assert result.content.splitlines()[1] == (
        "- $: the arguments are not valid JSON: unexpected character, expected a string key "
        "at line 1 column 2 (char 1), near \"'where': {'city': 'Oslo'…\"; write strings and "
        "keys in double quotes, not single quotes"
    )


def test_an_unhashable_type_in_a_list_of_items_is_no_crash() -> None:
    """read_tool_calls on items whose "type" is an array reads no calls (it crashed)."""
    assert read_tool_calls([{"type": []}, {"type": {"a": 1}}]) == []


@pytest.mark.parametrize("writer", WRITERS)
@pytest.mark.parametrize("value", [5, None, {"content": "x"}, "text"])
def test_result_writers_refuse_what_is_not_results(writer: Any, value: Any) -> None:
    """A value that is not ToolResults is a clear shape error (5 and None crashed in list())."""
    with pytest.raises(TypeError, match="ToolResult") as info:
        writer(value)
    assert_shape_error(info.value)


def test_shape_errors_name_the_part_at_fault() -> None:
    """A tool call without a name is reported at its place in the reply."""
    reply = {"choices": [{"message": {"role": "assistant", "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "Where", "arguments": "{}"}},
        {"id": "c2", "type": "function", "function": {"name": None, "arguments": "{}"}},
    ]}}]}
    with pytest.raises(TypeError) as info:
        read_tool_calls(reply)
    assert_shape_error(info.value)
    assert str(info.value) == (
        "choices[0].message.tool_calls[1].function.name: the tool call's function name "
        "must be a str, got None"
    )


@pytest.mark.parametrize("reason", [[], {"a": 1}, ["length"]])
def test_an_unhashable_finish_or_stop_reason_is_no_crash(reason: Any) -> None:
    """A finish or stop reason that is no string is not a cut-off reason (it crashed)."""
    chat = {"choices": [{"finish_reason": reason,
                         "message": {"role": "assistant", "content": '{"city": "Oslo"}'}}]}
    anthropic = {"type": "message", "stop_reason": reason,
                 "content": [{"type": "text", "text": '{"city": "Oslo"}'}]}
    assert decode_response(Where, chat) == Where("Oslo")
    assert decode_response(Where, anthropic) == Where("Oslo")


def test_an_unknown_response_is_a_shape_error() -> None:
    """decode_response on an object of no provider's shape says what it reads instead."""
    values: list[Any] = [None, 5, "text", [], {"something": "else"}]
    for value in values:
        with pytest.raises(TypeError, match=r"use decode\(tp, text\)") as info:
            decode_response(Where, value)
        assert_shape_error(info.value)

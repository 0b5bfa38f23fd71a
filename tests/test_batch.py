"""decode_batch(): provider batch result files, one result per line, nothing lost."""

from __future__ import annotations

import functools
import io
import json
import pickle
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from describedtypes import (
    BatchResult,
    DecodeError,
    IncompleteReplyError,
    MalformedLineError,
    RefusalError,
    RequestError,
    SchemaError,
    decode,
    decode_batch,
)

from .batch_lines import (
    Unit,
    Weather,
    anthropic_errored,
    anthropic_line,
    anthropic_succeeded,
    chat_completion,
    mixed_openai_file,
    openai_line,
    responses_object,
    weather_reply,
)

GOOD = weather_reply(1)
BAD = GOOD.replace('"celsius"', '"kelvin"')
W1 = Weather("City 1", 11, Unit.CELSIUS)


def outcomes(results: list[BatchResult]) -> list[str]:
    return [r.outcome for r in results]


def test_openai_batch_lines() -> None:
    lines = [
        openai_line("a", chat_completion(GOOD)),
        openai_line("b", chat_completion(BAD)),
        openai_line("c", chat_completion(None, refusal="I can't help with that.")),
        openai_line("d", chat_completion(GOOD[:20], finish_reason="length")),
        openai_line("e", None, error={"code": "invalid_prompt", "message": "Bad prompt."}),
        openai_line("f", {"error": {"message": "Rate limited."}}, status=429),
        openai_line("g", responses_object(GOOD)),
    ]
    results = list(decode_batch(Weather, lines))
    assert [r.custom_id for r in results] == list("abcdefg")
    assert [r.line for r in results] == [1, 2, 3, 4, 5, 6, 7]
    assert outcomes(results) == [
        "ok", "invalid", "refused", "incomplete", "failed", "failed", "ok"
    ]
    assert results[0].value == W1
    assert results[0].ok
    assert results[6].value == W1
    assert isinstance(results[1].error, DecodeError)
    assert results[1].error.errors == [
        ("$.unit", "'kelvin' is not one of ['celsius', 'fahrenheit']")
    ]
    assert isinstance(results[2].error, RefusalError)
    assert isinstance(results[3].error, IncompleteReplyError)
    assert isinstance(results[4].error, RequestError)
    assert str(results[4].error) == "the request failed (invalid_prompt): Bad prompt."
    assert str(results[5].error) == "the request failed (status 429): Rate limited."


def test_anthropic_batch_lines() -> None:
    lines = [
        anthropic_succeeded("a", GOOD),
        anthropic_succeeded("b", BAD),
        anthropic_succeeded("c", GOOD[:10], stop_reason="max_tokens"),
        anthropic_succeeded("d", "No.", stop_reason="refusal"),
        anthropic_errored("e", "max_tokens: Field required"),
        anthropic_line("f", {"type": "canceled"}),
        anthropic_line("g", {"type": "expired"}),
        anthropic_line("h", {"type": "vanished"}),
    ]
    results = list(decode_batch(Weather, lines))
    assert outcomes(results) == [
        "ok", "invalid", "incomplete", "refused", "failed", "failed", "failed", "malformed"
    ]
    assert [r.custom_id for r in results] == list("abcdefgh")
    assert str(results[4].error) == (
        "the request failed (errored: invalid_request_error): max_tokens: Field required"
    )
    assert isinstance(results[5].error, RequestError)
    assert results[5].error.reason == "canceled"
    assert isinstance(results[6].error, RequestError)
    assert results[6].error.reason == "expired"
    assert "expected succeeded, errored, canceled or expired" in str(results[7].error)


def test_bare_replies_and_response_objects() -> None:
    lines = [GOOD, BAD.encode(), orjson.dumps(chat_completion(GOOD)), {"city": "x"}]
    results = list(decode_batch(Weather, lines))
    assert outcomes(results) == ["ok", "invalid", "ok", "invalid"]
    assert all(r.custom_id is None for r in results)


def test_bad_lines_are_reported_and_the_run_goes_on() -> None:
    good = openai_line("ok", chat_completion(GOOD))
    text = b"\n".join([
        good,
        b"not json at all",
        b"",
        orjson.dumps({"custom_id": "x", "body": {}}),  # neither response nor result
        b"[1, 2",
        good,
        good[: len(good) // 2],  # the file was cut off in the middle of its last line
    ])
    results = list(decode_batch(Weather, io.BytesIO(text)))
    assert outcomes(results) == ["ok", "malformed", "malformed", "malformed", "malformed",
                                 "ok", "malformed"]
    assert [r.line for r in results] == [1, 2, 3, 4, 5, 6, 7]
    messages = [str(r.error) for r in results]
    assert messages[1].startswith("the line is not JSON")
    assert messages[2] == "the line is blank; expected one JSON object"
    assert "neither 'response' (OpenAI Batch) nor 'result'" in messages[3]
    assert results[3].custom_id == "x"
    assert messages[4].startswith("the line ends before its JSON does")
    assert messages[6].endswith("; the last line of a truncated file?)")
    assert all(isinstance(r.error, MalformedLineError) for r in results if r.outcome == "malformed")


def test_a_path_and_a_text_file_read_alike(tmp_path: Path) -> None:
    lines = mixed_openai_file(30, bad_every=3)
    path = tmp_path / "out.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    from_path = [(r.line, r.custom_id, r.value, r.outcome) for r in decode_batch(Weather, path)]
    with path.open(encoding="utf-8") as handle:
        from_text = [(r.line, r.custom_id, r.value, r.outcome)
                     for r in decode_batch(Weather, handle)]
    assert from_path == from_text
    assert len(from_path) == 30
    assert outcomes(list(decode_batch(Weather, str(path)))).count("invalid") == 10


def test_overlong_lines_are_reported_without_being_kept(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    good = openai_line("ok", chat_completion(GOOD))
    path.write_bytes(good + b"\n" + b'{"x": "' + b"a" * 5000 + b'"}\n' + good + b"\n")
    results = list(decode_batch(Weather, path, max_line_bytes=1000))
    assert outcomes(results) == ["ok", "malformed", "ok"]
    assert "over the 1000-byte limit" in str(results[1].error)
    assert outcomes(list(decode_batch(Weather, [b"x" * 2000], max_line_bytes=1000))) == [
        "malformed"
    ]


def test_a_fixed_shape_refuses_the_others() -> None:
    lines = [openai_line("a", chat_completion(GOOD)), anthropic_succeeded("b", GOOD), GOOD]
    assert outcomes(list(decode_batch(Weather, lines, shape="openai"))) == [
        "ok", "malformed", "malformed"
    ]
    results = list(decode_batch(Weather, lines, shape="anthropic"))
    assert str(results[0].error) == (
        "expected a line of the anthropic shape, got a line of the openai shape"
    )
    assert outcomes(list(decode_batch(Weather, lines, shape="reply"))) == [
        "malformed", "malformed", "ok"
    ]


def test_wrong_arguments_fail_at_once() -> None:
    with pytest.raises(TypeError, match="iterable of lines"):
        decode_batch(Weather, b"{}")
    with pytest.raises(TypeError, match="iterable of lines"):
        decode_batch(Weather, 5)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="shape must be one of"):
        decode_batch(Weather, [], shape="bedrock")  # type: ignore[arg-type]
    with pytest.raises(SchemaError):
        decode_batch(lambda *a: None, [])
    with pytest.raises(FileNotFoundError):
        decode_batch(Weather, "/nonexistent/file.jsonl")


def test_the_generator_is_lazy() -> None:
    """A consumer that stops early reads no further (the source is a generator)."""
    read = []

    def source() -> Any:
        for i, line in enumerate(mixed_openai_file(1000)):
            read.append(i)
            yield line

    results = decode_batch(Weather, source())
    first = [next(results) for _ in range(3)]
    assert [r.line for r in first] == [1, 2, 3]
    assert len(read) == 3


# -- every line, exactly once ----------------------------------------------------------

_LINE = st.one_of(
    st.sampled_from([
        openai_line("o", chat_completion(GOOD)),
        openai_line("o", chat_completion(BAD)),
        openai_line("o", None, error={"code": "x", "message": "y"}),
        anthropic_succeeded("a", GOOD),
        anthropic_line("a", {"type": "expired"}),
        GOOD.encode(),
        b"{}",
        b"",
        b"null",
    ]),
    st.binary(max_size=30).filter(lambda b: b"\n" not in b),
)


@given(st.lists(_LINE, max_size=20), st.booleans(), st.integers(0, 40))
def test_every_input_line_gives_exactly_one_result(
    lines: list[bytes], trailing_newline: bool, cut: int
) -> None:
    text = b"\n".join(lines) + (b"\n" if trailing_newline and lines else b"")
    if cut and text:
        text = text[: max(1, len(text) - cut)]
    expected = len(io.BytesIO(text).readlines())
    results = list(decode_batch(Weather, io.BytesIO(text)))
    assert [r.line for r in results] == list(range(1, expected + 1))
    for r in results:
        assert (r.error is None) == r.ok
        if r.ok:
            assert isinstance(r.value, Weather)


# -- pickling -----------------------------------------------------------------------------


def test_results_errors_and_the_decoder_pickle() -> None:
    lines = [
        openai_line("a", chat_completion(GOOD)),
        openai_line("b", chat_completion(BAD)),
        openai_line("c", chat_completion(None, refusal="no")),
        openai_line("d", chat_completion(GOOD[:5], finish_reason="length")),
        anthropic_line("e", {"type": "canceled"}),
        b"oops",
    ]
    results = list(decode_batch(Weather, lines))
    for r in results:
        back = pickle.loads(pickle.dumps(r))
        assert (back.line, back.custom_id, back.value, back.outcome) == (
            r.line, r.custom_id, r.value, r.outcome
        )
        assert str(back.error) == str(r.error)
        assert getattr(back.error, "errors", None) == getattr(r.error, "errors", None)
    decoder = pickle.loads(pickle.dumps(functools.partial(decode_batch, Weather)))
    assert outcomes(list(decoder(lines))) == outcomes(results)
    assert pickle.loads(pickle.dumps(decode)) is decode
    # A decoder for one type, as sent to a worker: the type goes by name and the worker
    # compiles its own decoder on first use.
    decoder = pickle.loads(pickle.dumps(functools.partial(decode, Weather)))
    assert decoder(GOOD) == W1


# -- hostile lines ---------------------------------------------------------------------------

_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=False)
    | st.text(max_size=8) | st.sampled_from(["succeeded", "errored", "stop", "length", "text",
                                             "message", "refusal", GOOD]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.sampled_from(["custom_id", "response", "result", "error", "body", "status_code",
                         "type", "message", "choices", "content", "text", "stop_reason",
                         "output", "refusal", "finish_reason", "x"]),
        inner, max_size=4),
    max_leaves=15,
)


@given(st.lists(_JSON, max_size=5))
def test_any_json_line_gives_one_result_and_never_raises(values: list[Any]) -> None:
    """Whatever a line holds, it yields one result: a value or a DescribedTypesError."""
    from describedtypes import DescribedTypesError

    lines = [json.dumps(v).encode() for v in values]  # orjson stops at 64-bit integers
    results = list(decode_batch(Weather, lines))
    assert len(results) == len(lines)
    for r in results:
        assert r.ok or isinstance(r.error, DescribedTypesError)
        assert r.outcome in ("ok", "invalid", "refused", "incomplete", "failed", "malformed")
        assert r.custom_id is None or isinstance(r.custom_id, str)


def test_hostile_bytes_are_malformed_lines() -> None:
    lines = [
        b"[" * 100_000,  # deeper than any parser goes
        b"\xff\xfe not utf-8",
        b'{"custom_id": "a", "result": NaN}',
        "\ud800".encode("utf-8", "surrogatepass"),
        orjson.dumps({"custom_id": 12, "result": {"type": "expired"}}),
    ]
    results = list(decode_batch(Weather, lines))
    assert outcomes(results) == ["malformed", "malformed", "malformed", "malformed", "failed"]
    assert results[2].custom_id == "a"
    assert results[4].custom_id == "12"
    assert all(len(str(r.error)) < 300 for r in results)


def test_a_registry_of_its_own() -> None:
    from describedtypes import Annotation, Registry

    mine = Registry()
    mine.register(Weather, Annotation(parameters={"city": Annotation(name="town")}))
    line = orjson.dumps({"town": "Oslo", "temperature": 3, "unit": "celsius"})
    assert outcomes(list(decode_batch(Weather, [line], registry=mine))) == ["ok"]
    assert outcomes(list(decode_batch(Weather, [line]))) == ["invalid"]
    with pytest.raises(TypeError, match=r"registry must be a Registry such as"):
        decode_batch(Weather, [], registry={})  # type: ignore[arg-type]


def test_every_library_error_pickles_with_its_attributes() -> None:
    from describedtypes import ArgumentError

    errors = [
        DecodeError([("$.a", "missing required field")]),
        DecodeError([("$", "x")], message="custom text"),
        RefusalError("no"),
        IncompleteReplyError("max_tokens"),
        RequestError("status 500", "boom"),
        MalformedLineError("not JSON"),
        SchemaError("cannot describe", path="A.b", type_=None),
        ArgumentError("bad"),
    ]
    for error in errors:
        back = pickle.loads(pickle.dumps(error))
        assert type(back) is type(error)
        assert str(back) == str(error)
        assert back.__dict__ == error.__dict__


def test_a_generator_never_started_holds_no_file(tmp_path: Path) -> None:
    path = tmp_path / "one.jsonl"
    path.write_bytes(GOOD.encode())
    results = decode_batch(Weather, path)  # a ResourceWarning would fail the suite
    del results
    results = decode_batch(Weather, path)
    assert next(results).ok
    results.close()  # stopping early closes the file


def test_open_files_are_read_with_the_line_limit(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    path.write_text(GOOD + "\n" + '{"x": "' + "é" * 3000 + '"}\n' + GOOD + "\n", encoding="utf-8")
    for mode in ("rb", "r"):
        with path.open(mode) as handle:
            results = list(decode_batch(Weather, handle, max_line_bytes=1000))
        assert outcomes(results) == ["ok", "malformed", "ok"], mode
    with pytest.raises(TypeError, match="max_line_bytes must be a positive int"):
        decode_batch(Weather, [], max_line_bytes=0)

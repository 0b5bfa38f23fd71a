"""write_batch(): request files for the OpenAI Batch API and Anthropic Message Batches, and
``describedtypes batch retry`` for the second round."""

from __future__ import annotations

import enum
import re
from pathlib import Path
from typing import Any

import attrs
import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from describedtypes import (
    ANTHROPIC,
    GEMINI,
    OPENAI,
    BatchRequests,
    decode_batch,
    extract,
    schema,
    write_batch,
)

from .cli_support import run
from .standin import StandIn, problems
from .standin_replies import chat_completion, message_text, response_text

pydantic = pytest.importorskip("pydantic", reason="the requests are checked with the SDKs")


class Unit(enum.Enum):
    CELSIUS = "celsius"
    FAHRENHEIT = "fahrenheit"


@attrs.define
class Weather:
    """Current weather."""

    city: str
    temperature: float
    unit: Unit


PROMPTS = ["Weather in Oslo?", [{"role": "user", "content": "Weather in Lima?"}]]


def lines(path: Path) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines()]


def test_openai_chat_lines_are_what_extract_sends(tmp_path: Path) -> None:
    path = tmp_path / "requests.jsonl"
    written = write_batch(Weather, PROMPTS, path, model="gpt-5-mini", temperature=0)
    assert isinstance(written, BatchRequests)
    assert (written.provider, written.endpoint, written.count) == (
        "openai", "/v1/chat/completions", 2)
    found = lines(path)
    assert [line["custom_id"] for line in found] == ["request-1", "request-2"]
    assert list(written.custom_ids) == ["request-1", "request-2"]
    for line in found:
        assert set(line) == {"custom_id", "method", "url", "body"}
        assert (line["method"], line["url"]) == ("POST", "/v1/chat/completions")
        # The openai SDK's own request type accepts each body (no unknown keys either).
        assert problems("openai", "/v1/chat/completions", line["body"]) == []
    # The body extract() sends for the same question, through the same stand-in.
    stand_in = StandIn([("openai", chat_completion(
        '{"city": "Oslo", "temperature": 3, "unit": "celsius"}'))])
    import openai

    with stand_in.serving():
        extract(Weather, openai.OpenAI(), model="gpt-5-mini", messages=PROMPTS[0], temperature=0)
    assert stand_in.sent[0][2] == found[0]["body"]


def test_openai_responses_lines(tmp_path: Path) -> None:
    path = tmp_path / "requests.jsonl"
    written = write_batch(Weather, PROMPTS, path, model="gpt-5-mini", api="responses",
                          max_tokens=500)
    assert written.endpoint == "/v1/responses"
    for line in lines(path):
        assert line["url"] == "/v1/responses"
        assert line["body"]["max_output_tokens"] == 500
        assert line["body"]["text"]["format"]["type"] == "json_schema"
        assert problems("openai", "/v1/responses", line["body"]) == []
    stand_in = StandIn([("openai", response_text(
        '{"city": "Oslo", "temperature": 3, "unit": "celsius"}'))])
    import openai

    with stand_in.serving():
        extract(Weather, openai.OpenAI(), api="responses", model="gpt-5-mini",
                messages=PROMPTS[0], max_output_tokens=500)
    assert stand_in.sent[0][2] == lines(path)[0]["body"]


def test_anthropic_lines_pass_the_sdks_batch_request_type(tmp_path: Path) -> None:
    anthropic_batches = pytest.importorskip(
        "anthropic.types.messages.batch_create_params", reason="checked with the anthropic SDK"
    )
    path = tmp_path / "requests.jsonl"
    written = write_batch(Weather, [("oslo-1", PROMPTS[0]), ("lima_2", PROMPTS[1])], path,
                          llm_adapter=ANTHROPIC, model="claude-haiku-4-5",
                          system="Answer briefly.")
    assert (written.provider, written.endpoint) == ("anthropic", "/v1/messages")
    check = pydantic.TypeAdapter(anthropic_batches.Request)
    found = lines(path)
    for line in found:
        check.validate_python(line)
        assert set(line) == {"custom_id", "params"}
        assert problems("anthropic", "/v1/messages", line["params"]) == []
        assert line["params"]["max_tokens"] == 4096  # the documented default
        assert line["params"]["output_config"] == {"format": schema(Weather, ANTHROPIC)}
    stand_in = StandIn([("anthropic", message_text(
        '{"city": "Oslo", "temperature": 3, "unit": "celsius"}'))])
    import anthropic

    with stand_in.serving():
        extract(Weather, anthropic.Anthropic(), model="claude-haiku-4-5", messages=PROMPTS[0],
                system="Answer briefly.")
    assert stand_in.sent[0][2] == found[0]["params"]


def test_a_given_max_tokens_wins(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    write_batch(Weather, ["Oslo?"], path, llm_adapter=ANTHROPIC, model="m", max_tokens=256)
    assert lines(path)[0]["params"]["max_tokens"] == 256
    write_batch(Weather, ["Oslo?"], path, model="m", max_tokens=256)
    assert lines(path)[0]["body"]["max_completion_tokens"] == 256


@pytest.mark.parametrize(("requests", "error", "message"), [
    ([("a", "x"), ("b", "y"), ("a", "z")], ValueError,
     "requests[2] has custom_id 'a', already used by requests[0]"),
    ([("a", "x"), "y"], TypeError, "requests[1] is a conversation but requests[0] is a"),
    ([("", "x")], ValueError, "requests[0] has custom_id ''; it must be a non-empty str"),
    ([], ValueError, "nothing to write"),
    (["x", 7], TypeError, "requests[1]: write_batch(messages=...) takes a list"),
])
def test_bad_requests_are_refused_naming_the_request(
    tmp_path: Path, requests: list[Any], error: type[Exception], message: str
) -> None:
    path = tmp_path / "r.jsonl"
    with pytest.raises(error, match=re.escape(message)):
        write_batch(Weather, requests, path, model="m")
    assert not path.exists()
    assert list(tmp_path.iterdir()) == []  # no temporary file left either


def test_an_id_anthropic_refuses_is_refused_before_writing(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"requests\[0\] has custom_id 'a b', which Anthropic"):
        write_batch(Weather, [("a b", "x")], tmp_path / "r.jsonl", llm_adapter=ANTHROPIC,
                    model="m")
    # OpenAI documents no pattern: the same id is fine there.
    write_batch(Weather, [("a b", "x")], tmp_path / "r.jsonl", model="m")


@given(st.lists(st.text(max_size=70), min_size=1, max_size=5))
def test_anthropic_ids_written_are_ids_anthropic_takes(ids: list[str]) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "r.jsonl"
        try:
            write_batch(Weather, [(i, "x") for i in ids], path, llm_adapter=ANTHROPIC,
                        model="m")
        except ValueError:
            assert not path.exists()
            return
        written = [line["custom_id"] for line in lines(path)]
    assert written == ids
    assert len(set(written)) == len(written)
    assert all(re.fullmatch(r"[a-zA-Z0-9_-]{1,64}", i) for i in written)


def test_other_adapters_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"OPENAI .* or ANTHROPIC"):
        write_batch(Weather, ["x"], tmp_path / "r.jsonl", llm_adapter=GEMINI, model="m")
    with pytest.raises(ValueError, match="'chat' or 'responses'"):
        write_batch(Weather, ["x"], tmp_path / "r.jsonl", llm_adapter=OPENAI, model="m",
                    api="assistants")  # type: ignore[arg-type]


def test_the_openai_file_limit_is_checked_before_writing(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"50,000 is OpenAI's limit .* requests\[50000:\]"):
        write_batch(Weather, ["x"] * 50_001, tmp_path / "r.jsonl", model="m")
    assert list(tmp_path.iterdir()) == []


# -- the round trip ------------------------------------------------------------------------


def openai_result(custom_id: str, content: str | None, *, status: int = 200,
                  error: dict[str, Any] | None = None) -> bytes:
    response = None
    if error is None:
        response = {"status_code": status, "request_id": "req", "body": chat_completion(
            content or "")}
    return orjson.dumps({"id": "batch_req", "custom_id": custom_id, "response": response,
                         "error": error})


GOOD = '{"city": "Oslo", "temperature": 3.5, "unit": "celsius"}'
BAD = '{"city": "Oslo", "temperature": 3.5, "unit": "kelvin"}'


def test_retry_writes_the_failed_and_missing_requests_byte_for_byte(tmp_path: Path) -> None:
    requests = tmp_path / "requests.jsonl"
    write_batch(Weather, [f"Weather in city {i}?" for i in range(8)], requests, model="m")
    original = requests.read_bytes().splitlines(keepends=True)
    results = tmp_path / "results.jsonl"
    # Out of order, as the providers may return them; request-8 has no result at all.
    results.write_bytes(b"\n".join([
        openai_result("request-2", GOOD),
        openai_result("request-1", GOOD),
        openai_result("request-3", None, error={"code": "server_error", "message": "x"}),
        openai_result("request-4", GOOD, status=500),
        openai_result("request-5", BAD),  # decodes only with --target in mind
        openai_result("request-6", GOOD),
        openai_result("request-7", GOOD)[:40],  # the download stopped early
    ]) + b"\n")
    new = tmp_path / "new.jsonl"
    done = run("batch", "retry", str(requests), str(results), "--out", str(new))
    assert done.returncode == 0, done.stderr
    kept = new.read_bytes().splitlines(keepends=True)
    assert kept == [original[2], original[3], original[6], original[7]]
    assert done.stderr.startswith(
        "8 requests: 4 succeeded, 2 failed, 2 without a result; 4 written to")
    assert "1 line of" in done.stderr  # the cut-off line, counted in a note
    # With the type, a reply that does not decode is retried too.
    module = tmp_path / "weather_target.py"
    module.write_text(
        "import enum\nimport attrs\n\n\nclass Unit(enum.Enum):\n    CELSIUS = 'celsius'\n"
        "    FAHRENHEIT = 'fahrenheit'\n\n\n@attrs.define\nclass Weather:\n    city: str\n"
        "    temperature: float\n    unit: Unit\n"
    )
    target = f"{module}:Weather"
    done = run("batch", "retry", str(requests), str(results), "--out", str(new),
               "--target", target)
    assert done.returncode == 0, done.stderr
    assert new.read_bytes().splitlines(keepends=True) == [
        original[2], original[3], original[4], original[6], original[7]]
    # decode_batch reads the provider's results as they are.
    outcomes = [r.outcome for r in decode_batch(Weather, results)]
    assert outcomes == ["ok", "ok", "failed", "failed", "invalid", "ok", "malformed"]


def test_retry_reads_anthropic_results_and_decode_outputs(tmp_path: Path) -> None:
    requests = tmp_path / "requests.jsonl"
    write_batch(Weather, [("a", "x"), ("b", "y"), ("c", "z")], requests,
                llm_adapter=ANTHROPIC, model="m")
    original = requests.read_bytes().splitlines(keepends=True)
    results = tmp_path / "results.jsonl"
    results.write_bytes(b"\n".join([
        orjson.dumps({"custom_id": "a", "result": {"type": "succeeded",
                                                   "message": message_text(GOOD)}}),
        orjson.dumps({"custom_id": "b", "result": {"type": "expired"}}),
        orjson.dumps({"custom_id": "c", "result": {"type": "errored", "error": {
            "type": "error", "error": {"type": "api_error", "message": "x"}}}}),
    ]))
    new = tmp_path / "new.jsonl"
    done = run("batch", "retry", str(requests), str(results), "--out", str(new))
    assert done.returncode == 0, done.stderr
    assert new.read_bytes().splitlines(keepends=True) == original[1:]
    # A describedtypes decode output says its outcome per line.
    decoded = tmp_path / "decoded.jsonl"
    decoded.write_bytes(b'{"line":1,"custom_id":"a","outcome":"invalid"}\n'
                        b'{"line":2,"custom_id":"c","outcome":"ok"}\n')
    done = run("batch", "retry", str(requests), str(decoded), "--out", str(new))
    assert new.read_bytes().splitlines(keepends=True) == original[:2]


def test_retry_refuses_what_cannot_be_right(tmp_path: Path) -> None:
    requests = tmp_path / "requests.jsonl"
    write_batch(Weather, ["x", "y"], requests, model="m")
    results = tmp_path / "results.jsonl"
    results.write_bytes(openai_result("someone-else", GOOD) + b"\n")
    done = run("batch", "retry", str(requests), str(results), "--out", str(tmp_path / "n"))
    assert done.returncode == 2
    assert "RESULTS does not belong to REQUESTS" in done.stderr
    assert not (tmp_path / "n").exists()
    done = run("batch", "retry", str(requests), str(results), "--out", str(requests))
    assert done.returncode == 2
    assert f"--out {requests} is REQUESTS" in done.stderr
    twice = tmp_path / "twice.jsonl"
    twice.write_bytes(requests.read_bytes() * 2)
    done = run("batch", "retry", str(twice), str(results), "--out", str(tmp_path / "n"))
    assert done.returncode == 2
    assert f"{twice}:3 repeats custom_id 'request-1' of line 1" in done.stderr


def test_nothing_to_retry_still_writes_an_empty_file(tmp_path: Path) -> None:
    requests = tmp_path / "requests.jsonl"
    write_batch(Weather, ["x"], requests, model="m")
    results = tmp_path / "results.jsonl"
    results.write_bytes(openai_result("request-1", GOOD))
    new = tmp_path / "new.jsonl"
    done = run("batch", "retry", str(requests), str(results), "--out", str(new))
    assert done.returncode == 0
    assert new.read_bytes() == b""
    assert "nothing to retry" in done.stderr


def test_retry_in_a_subprocess_with_a_timeout_on_a_big_file(tmp_path: Path) -> None:
    """50,000 requests (OpenAI's most per file), one in ten failed: done well in time."""
    requests = tmp_path / "requests.jsonl"
    write_batch(Weather, [f"q{i}" for i in range(50_000)], requests, model="m")
    results = tmp_path / "results.jsonl"
    with results.open("wb") as out:
        for i in range(1, 50_001):
            status = 500 if i % 10 == 0 else 200
            out.write(openai_result(f"request-{i}", GOOD, status=status) + b"\n")
    new = tmp_path / "new.jsonl"
    done = run("batch", "retry", str(requests), str(results), "--out", str(new), timeout=120)
    assert done.returncode == 0, done.stderr
    assert new.read_bytes().count(b"\n") == 5000
    assert done.stderr.startswith("50,000 requests: 45,000 succeeded, 5,000 failed")


def test_the_cli_help_lists_batch_retry() -> None:
    done = run("batch", "retry", "--help")
    assert done.returncode == 0
    assert "REQUESTS" in done.stdout
    assert "RESULTS" in done.stdout


# -- where the file goes ------------------------------------------------------------------


def _special_paths(tmp_path: Path) -> list[tuple[Path, str]]:
    """A symlink (to a file that must stay as it is), a FIFO and a directory."""
    import os

    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    link = tmp_path / "link.jsonl"
    link.symlink_to(victim)
    fifo = tmp_path / "fifo.jsonl"
    os.mkfifo(fifo)
    folder = tmp_path / "folder.jsonl"
    folder.mkdir()
    return [(link, "a symbolic link"), (fifo, "a FIFO"), (folder, "a directory")]


@pytest.mark.skipif(not hasattr(__import__("os"), "mkfifo"), reason="no FIFOs on this system")
def test_write_batch_refuses_anything_but_a_regular_file(tmp_path: Path) -> None:
    """A symlink, FIFO or directory at the path is refused, untouched, before anything is
    written; a device node is too (/dev/null, which must stay a device)."""
    import os
    import stat

    for path, kind in _special_paths(tmp_path):
        before = os.lstat(path)
        with pytest.raises(ValueError, match=f"is {kind}( \\(named pipe\\))?; only a regular file"):
            write_batch(Weather, ["x"], path, model="m")
        after = os.lstat(path)
        assert (after.st_mode, after.st_ino) == (before.st_mode, before.st_ino)
    assert (tmp_path / "victim.txt").read_text() == "keep me"
    if os.path.exists("/dev/null"):
        with pytest.raises(ValueError, match="is a character device"):
            write_batch(Weather, ["x"], "/dev/null", model="m")
        assert stat.S_ISCHR(os.lstat("/dev/null").st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "fifo.jsonl", "folder.jsonl", "link.jsonl", "victim.txt"]
    done = write_batch(Weather, ["x"], tmp_path / "new.jsonl", model="m")
    assert Path(done.path).read_bytes().count(b"\n") == 1


def test_a_killed_write_batch_leaves_nothing_after_the_next_run(tmp_path: Path) -> None:
    """A write_batch killed before its rename leaves its temporary file; the next write
    to the same path removes it (a live writer's is kept)."""
    import subprocess
    import sys

    target = tmp_path / "requests.jsonl"
    script = (
        "import os, sys\n"
        "from describedtypes._base import files\n"
        "def killed(temporary, path):\n"
        "    os.kill(os.getpid(), 9)\n"
        "files.rename_over = killed\n"
        "import attrs\n"
        "from describedtypes import write_batch\n"
        "@attrs.define\n"
        "class A:\n"
        "    x: int\n"
        f"write_batch(A, ['hi'], {str(target)!r}, model='m')\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, timeout=120,
                          check=False)
    assert done.returncode != 0
    left = [p.name for p in tmp_path.iterdir()]
    assert len(left) == 1, left
    assert left[0].startswith(".requests.jsonl."), left
    write_batch(Weather, ["x"], target, model="m")
    assert [p.name for p in tmp_path.iterdir()] == ["requests.jsonl"]


@pytest.mark.skipif(not hasattr(__import__("os"), "mkfifo"), reason="no FIFOs on this system")
def test_retry_refuses_an_out_path_that_is_not_a_regular_file(tmp_path: Path) -> None:
    """batch retry --out: a symlink, FIFO or directory is refused (exit 2), untouched."""
    import os

    requests = tmp_path / "requests.jsonl"
    write_batch(Weather, ["x", "y"], requests, model="m")
    results = tmp_path / "results.jsonl"
    results.write_bytes(openai_result("request-1", GOOD) + b"\n")
    for path, kind in _special_paths(tmp_path):
        before = os.lstat(path)
        done = run("batch", "retry", str(requests), str(results), "--out", str(path))
        assert done.returncode == 2, done.stderr
        assert f"--out {path} is {kind}" in done.stderr
        after = os.lstat(path)
        assert (after.st_mode, after.st_ino) == (before.st_mode, before.st_ino)
    assert (tmp_path / "victim.txt").read_text() == "keep me"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_retry_refuses_requests_and_results_swapped(tmp_path: Path) -> None:
    """REQUESTS and RESULTS given the other way round (or the request file twice) is a
    usage error, not a NEW file of result lines."""
    requests = tmp_path / "requests.jsonl"
    write_batch(Weather, ["x", "y"], requests, model="m")
    results = tmp_path / "results.jsonl"
    results.write_bytes(openai_result("request-1", GOOD) + b"\n"
                        + openai_result("request-2", None, status=500) + b"\n")
    new = tmp_path / "new.jsonl"
    done = run("batch", "retry", str(results), str(requests), "--out", str(new))
    assert done.returncode == 2
    assert f"{requests} holds batch requests, not results" in done.stderr
    assert not new.exists()
    # With RESULTS right, result lines as REQUESTS are named as such.
    done = run("batch", "retry", str(results), str(results), "--out", str(new))
    assert done.returncode == 2
    assert f"{results}:1 is a result line, not a batch request" in done.stderr
    assert not new.exists()
    done = run("batch", "retry", str(requests), str(requests), "--out", str(new))
    assert done.returncode == 2
    assert f"{requests} holds batch requests, not results" in done.stderr
    assert not new.exists()


def test_retry_without_a_target_says_the_successes_were_not_decoded(tmp_path: Path) -> None:
    """Without --target a reply is taken as the provider reports it: the summary says
    that one that does not decode was not sent again, and how to send it."""
    requests = tmp_path / "requests.jsonl"
    write_batch(Weather, ["x", "y"], requests, model="m")
    results = tmp_path / "results.jsonl"
    results.write_bytes(openai_result("request-1", GOOD) + b"\n"
                        + openai_result("request-2", BAD) + b"\n")
    done = run("batch", "retry", str(requests), str(results), "--out", "-")
    assert done.returncode == 0
    assert done.stderr.startswith("2 requests: 2 succeeded, 0 failed")
    assert ("note: the 2 that succeeded were answered, not decoded (no --target): a reply "
            "among them that does not decode was not written; pass --target TARGET") \
        in done.stderr

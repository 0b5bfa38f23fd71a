"""``describedtypes probe`` against local servers on 127.0.0.1 that enforce with the real
llguidance, ignore keywords with HTTP 200, reject them with 400, fail or hang."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import attrs
import pytest

import describedtypes as dt
from describedtypes import Profile, check, schema
from describedtypes._cli.probe import CASES, CONTROL, Probe, no_answer

pytest.importorskip("llguidance", reason="the enforcing server is llguidance")

from .probe_server import base_url, serving

ROOT = Path(__file__).resolve().parent.parent
SECRET = "sk-probe-test-5b0c1e"


def _cli(*args: str, env: dict[str, str] | None = None, timeout: float = 120) -> Any:
    return subprocess.run(
        [sys.executable, "-m", "describedtypes", "probe", *args],
        capture_output=True, text=True, timeout=timeout, check=False,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src"), **(env or {})},
    )


def _statuses(profile: Profile) -> dict[str, str]:
    return {k: s.status for k, s in (*profile.keywords, *profile.formats, *profile.pairs)}


def test_three_behaviours_are_told_apart_exactly() -> None:
    """Ignored keywords are ignored, rejected ones rejected (message kept), the rest as
    llguidance does."""
    behaviours = {"maxLength": "ignore", "format:email": "ignore",
                  "maximum": "reject", "format:uuid": "reject"}
    with serving(behaviours) as server:
        profile = Probe(base_url(server), "tiny").run()
    found = _statuses(profile)
    assert found["string maxLength"] == "ignored"
    assert found["email"] == "ignored"
    assert found["integer maximum"] == "rejected"
    assert found["number maximum"] == "rejected"
    assert found["uuid"] == "rejected"
    assert profile.keyword("maximum", "integer").detail == "HTTP 400: 'maximum' is not supported"
    assert profile.keyword("maxLength", "string").detail.startswith("HTTP 200 with ")
    assert found["integer minimum"] == "enforced"
    assert found["date-time"] == "enforced"
    assert profile.server_version == "probe-standin/1.0"
    assert profile.model == "tiny"
    assert profile.observed_at is not None
    assert profile.request_field == "response_format"


def test_the_probe_agrees_with_the_llguidance_table_row_by_row() -> None:
    """Against the real llguidance, every row the probe measures matches the LLGUIDANCE
    table (over-strict rows hold every value the probe tempts with, so they read as
    enforced; a probe cannot see valid values refused)."""
    with serving() as server:
        measured = Probe(base_url(server), "tiny").run()
    table = dt.VLLM.replace(backend="guidance").profile
    disagreements = []
    for case in CASES:
        got = measured.format(case.key) if case.table == "formats" else (
            measured.pair(case.key) if case.table == "pairs" else
            dict(measured.keywords)[case.key])
        if case.table == "formats":
            want = table.format(case.key).status
        elif case.table == "pairs":
            want = table.pair(case.key).status
        else:
            kind, _, kw = case.key.rpartition(" ")
            want = table.keyword(kw, kind or None).status
        want = "enforced" if want == "over-strict" else want
        if got.status != want:
            disagreements.append((case.key, want, got.status, got.detail))
    # llguidance 1.9 holds multipleOf on a number too (0.3 is refused with multipleOf
    # 0.5): the table says over-strict there (it refuses 5e-1), which reads as enforced.
    assert disagreements == []


def test_budgets_and_failures_are_unknown() -> None:
    """Requests past --max-requests, 5xx answers and timeouts are unknown, bounded."""
    with serving({"minLength": "fail", "maxLength": "hang"}) as server:
        probe = Probe(base_url(server), "tiny", max_requests=4, timeout=0.5)
        by_key = {c.key: c for c in CASES}
        cases = tuple(by_key[k] for k in (
            "string minLength", "string maxLength", "integer minimum", "integer maximum"))
        started = time.monotonic()
        profile = probe.run(cases)
        assert time.monotonic() - started < 30  # 10x the worst case: only guards a hang
        assert len(server.seen) <= 4  # the control request, then one per case
    found = dict(profile.keywords)
    assert found["string minLength"].status == "unknown"
    assert "HTTP 500" in found["string minLength"].detail
    assert found["string maxLength"].status == "unknown"
    assert "no reply" in found["string maxLength"].detail
    assert found["integer maximum"].status == "unknown"
    assert "--max-requests" in found["integer maximum"].detail
    assert found["integer minimum"].status == "enforced"
    assert probe.requests == 4


def test_the_seconds_budget_stops_the_run() -> None:
    """Once --max-seconds is spent, no request is sent and the rest is unknown."""
    with serving() as server:
        probe = Probe(base_url(server), "tiny", max_seconds=0.000001)
        time.sleep(0.01)
        profile = probe.run(CASES[:3])
        assert server.seen == []
    assert all(s.status == "unknown" and "--max-seconds" in s.detail
               for _, s in profile.keywords)


def test_the_responses_api() -> None:
    """--api responses sends text.format and reads output_text."""
    with serving({"maxLength": "ignore"}) as server:
        cases = tuple(c for c in CASES if c.key in ("string maxLength", "integer minimum"))
        profile = Probe(base_url(server), "tiny", api="responses").run(cases)
        path, _, request = server.seen[-1]
    assert path == "/v1/responses"
    assert request["text"]["format"]["type"] == "json_schema"
    assert _statuses(profile) == {"string maxLength": "ignored", "integer minimum": "enforced"}
    assert profile.request_field == "text.format"


def test_a_model_that_does_not_follow_the_prompt_is_noted() -> None:
    """When the control value is not echoed, enforced rows say it is weak evidence."""
    with serving() as server:
        probe = Probe(base_url(server), "tiny")
        probe_control = attrs.evolve(CONTROL, tempt=41)  # a "model" that answers 41
        import describedtypes._cli.probe as module

        original = module.CONTROL
        module.CONTROL = probe_control
        try:
            profile = probe.run(CASES[:1])
        finally:
            module.CONTROL = original
    (_, support), = profile.keywords
    assert support.status == "enforced"
    assert "did not echo the control value" in support.detail


def test_the_command_writes_a_profile_and_never_prints_the_key(tmp_path: Path) -> None:
    """The CLI end to end: the key goes in the header only, the file loads, the profile
    drives an adapter and check()."""
    out = tmp_path / "endpoint.json"
    with serving({"maxLength": "ignore", "uniqueItems": "reject"}) as server:
        done = _cli("--base-url", base_url(server), "--model", "tiny", "--out", str(out),
                    "--engine", "llguidance", "--api-key-env", "PROBE_KEY",
                    env={"PROBE_KEY": SECRET})
        headers = [h for _, h, _ in server.seen]
    assert done.returncode == 0, done.stderr
    assert SECRET not in done.stdout + done.stderr
    assert all(h.get("Authorization") == f"Bearer {SECRET}" for h in headers)
    assert f"wrote {out}" in done.stderr
    assert "requests in" in done.stderr
    profile = Profile.load(out)
    assert profile.engine == "llguidance"
    assert profile.keyword("maxLength", "string").status == "ignored"
    assert json.loads(out.read_text())["endpoint"] == base_url(server)

    @attrs.define
    class Code:
        text: str = attrs.field(validator=attrs.validators.max_len(4))
        seen: frozenset[int] = frozenset()

    adapter = dt.VLLM.replace(backend="guidance").replace(profile=profile)
    with pytest.raises(dt.SchemaError, match="'uniqueItems' is not supported"):
        schema(Code, adapter)  # a set needs uniqueItems, which this endpoint rejects
    adapter = dt.VLLM.replace(backend="guidance").replace(
        profile=profile.replace(on_rejected="describe"))
    body = schema(Code, adapter)["schema"]
    assert "maxLength" not in body["properties"]["text"]
    assert "4" in body["properties"]["text"]["description"]
    problems = check({"type": "object", "properties": {"s": {
        "type": "string", "maxLength": 3}}, "additionalProperties": False}, profile)
    assert [(p.pointer, p.rule) for p in problems] == [("/properties/s/maxLength",
                                                        "engine.ignored")]
    problems = check({"type": "object", "properties": {"s": {
        "type": "string", "maxLength": 3}}}, profile.replace(engine=None))
    assert [(p.pointer, p.rule) for p in problems] == [("/properties/s/maxLength",
                                                        "profile.ignored")]


@pytest.mark.parametrize(("args", "message"), [
    (["--base-url", "ftp://x", "--model", "m"], "must be an http:// or https:// URL"),
    (["--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--only", "nope"],
     "is not a probe key"),
    (["--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--max-requests", "0"],
     "--max-requests must be at least 1"),
    (["--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--timeout", "nan"],
     "--timeout must be a positive number"),
])
def test_bad_arguments_are_one_line(args: list[str], message: str) -> None:
    """A bad flag is exit 2 with one line saying what to give."""
    done = _cli(*args)
    assert done.returncode == 2
    assert message in done.stderr
    assert "Traceback" not in done.stderr


def test_a_password_in_the_url_is_never_shown(tmp_path: Path) -> None:
    """User information and a query in --base-url stay out of output and the profile."""
    out = tmp_path / "p.json"
    with serving() as server:
        url = base_url(server).replace("http://", "http://user:hunter2@") + "?token=abc"
        done = _cli("--base-url", url, "--model", "m", "--out", str(out),
                    "--only", "integer minimum")
        seen = server.seen
    assert done.returncode == 0, done.stderr
    text = done.stdout + done.stderr + out.read_text()
    assert "hunter2" not in text
    assert "token=abc" not in text
    assert Profile.load(out).endpoint == base_url(server)
    # and the endpoint was really asked: the path before the query, the user information
    # as Basic credentials (it once went into the host name, and nothing was measured)
    assert Profile.load(out).keyword("minimum", "integer").status == "enforced"
    path, headers, _ = seen[0]
    assert path == "/v1/chat/completions?token=abc"
    assert headers["Authorization"] == "Basic dXNlcjpodW50ZXIy"  # user:hunter2


def _unused_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_an_unreachable_endpoint_is_an_error_naming_url_and_reason(tmp_path: Path) -> None:
    """Nothing listening: exit 1, one line naming the URL and the refusal, after one
    request (the rest would only be refused too); no profile written."""
    out = tmp_path / "p.json"
    url = f"http://127.0.0.1:{_unused_port()}/v1"
    done = _cli("--base-url", url, "--model", "m", "--out", str(out), "--timeout", "5")
    assert done.returncode == 1, done.stderr
    assert not out.exists()
    assert done.stdout == ""
    assert "Traceback" not in done.stderr
    error = done.stderr.strip().splitlines()[-1]
    assert error.startswith(f"error: no answer from {url}: no reply: ")
    assert "refused" in error.lower()
    assert "(1 request)" in error
    assert "no profile was written" in error


def test_a_silent_endpoint_is_one_timeout_not_one_per_check() -> None:
    """A port that takes the connection and never answers: the first request times out,
    the checks are not sent, and the run says why."""
    with socket.socket() as listening:
        listening.bind(("127.0.0.1", 0))
        listening.listen(8)
        url = f"http://127.0.0.1:{listening.getsockname()[1]}/v1"
        probe = Probe(url, "m", timeout=0.5)
        started = time.monotonic()
        profile = probe.run(CASES)
        assert time.monotonic() - started < 30  # 10x the worst case: only guards a hang
    assert probe.requests == 1
    assert probe.answers == 0
    assert all(s.status == "unknown" and s.detail.startswith(
        "not measured: the endpoint did not answer the first request (no reply: ")
        and "timed out" in s.detail for _, s in (*profile.keywords, *profile.formats))
    assert no_answer(probe).startswith(f"no answer from {url}: no reply: ")


class _Refusing(ThreadingHTTPServer):
    """Answers every request with HTTP 401."""

    daemon_threads = True

    def __init__(self) -> None:
        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length", "0")))
                data = b'{"error": {"message": "Invalid API key"}}'
                self.send_response(401)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        super().__init__(("127.0.0.1", 0), Handler)


def test_an_error_status_on_every_request_is_an_error(tmp_path: Path) -> None:
    """Every request answered 401: exit 1 naming the status and its message, counted;
    a good profile already at --out is left as it was."""
    out = tmp_path / "p.json"
    out.write_text("kept")
    server = _Refusing()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/v1"
        done = _cli("--base-url", url, "--model", "m", "--out", str(out),
                    "--only", "integer minimum", "--only", "date")
    finally:
        server.shutdown()
        server.server_close()
    assert done.returncode == 1, done.stderr
    # the control request in both response_format forms, then the two checks
    assert done.stderr.strip().splitlines()[-1].startswith(
        f"error: no answer from {url}: HTTP 401: Invalid API key (4 requests). ")
    assert out.read_text() == "kept"


def test_one_answer_is_enough_for_a_profile(tmp_path: Path) -> None:
    """Some requests fail, one is answered: the profile is written, exit 0."""
    out = tmp_path / "p.json"
    with serving({"minLength": "fail"}) as server:
        done = _cli("--base-url", base_url(server), "--model", "m", "--out", str(out),
                    "--only", "string minLength")
    assert done.returncode == 0, done.stderr
    assert Profile.load(out).keyword("minLength", "string").status == "unknown"


def test_a_server_that_takes_only_json_object_is_found_and_asked_its_way() -> None:
    """A json_schema response_format answered with a 500 is tried as json_object; the
    profile says so, and extract() then sends that form."""
    openai = pytest.importorskip("openai", reason="the openai SDK is in the test extra")
    with serving({"maxLength": "ignore"}, json_object_only=True) as server:
        by_key = {c.key: c for c in CASES}
        profile = Probe(base_url(server), "tiny").run(
            (by_key["string maxLength"], by_key["integer minimum"]))
        assert profile.request_field == "response_format.json_object"
        assert _statuses(profile) == {"string maxLength": "ignored",
                                      "integer minimum": "enforced"}

        @attrs.define
        class Answer:
            value: int

        client = openai.OpenAI(base_url=base_url(server), api_key="none", max_retries=0)
        adapter = dt.LLAMACPP.replace(profile=profile)
        # the server's "model" writes what the prompt's last JSON asks for
        prompt = "Reply with exactly this JSON object and nothing else, even if it looks " \
                 'wrong: {"value":7}'
        assert dt.extract(Answer, client, messages=prompt, model="tiny",
                          llm_adapter=adapter) == Answer(7)
        sent = server.seen[-1][2]["response_format"]
    assert sent["type"] == "json_object"
    assert sent["schema"]["properties"]["value"] == {"type": "integer"}

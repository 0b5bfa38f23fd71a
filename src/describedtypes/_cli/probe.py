"""``describedtypes probe --base-url URL --model M``: measure what an OpenAI-compatible
endpoint does with each JSON Schema keyword and format, and write it as a profile.

For each keyword and format (and the pairs that interact), one request whose schema
holds that keyword alone and whose prompt asks for a value that breaks it. The replies
classify it: enforced (every reply keeps it), ignored (a reply breaks it with HTTP 200),
rejected (HTTP 4xx, its message kept), unknown (errors, timeouts, a budget run out).
Requests go out one at a time with the standard library's HTTP client (no SDK); every
request and the whole run are bounded in time, every reply in size. The API key is read
from an environment variable and never printed.
"""

from __future__ import annotations

import argparse
import base64
import datetime
import functools
import ipaddress
import json
import math
import operator
import os
import re
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections.abc import Callable
from typing import Any

import attrs
import orjson

from .._schema.profiles import JSON_OBJECT_FIELD, PAIRS, Profile, Support, library_version
from .report import progress_bar
from .stdout import emit

__all__ = ["CASES", "Case", "Probe", "add_probe_command", "run_probe"]

#: The most bytes of one reply read.
MAX_REPLY = 1 << 20
#: The most characters of an error message kept in the profile.
MAX_MESSAGE = 300


@attrs.frozen
class Case:
    """One measurement: a schema for ``value`` holding one keyword, a value that breaks
    it, and the test that a reply's value breaks it.

    Attributes:
        key: The profile's key (``"integer minimum"``, ``"date-time"``, a pair).
        table: Where the result goes: ``"keywords"``, ``"formats"`` or ``"pairs"``.
        schema: The schema of the ``value`` property.
        tempt: The value the prompt asks for (it breaks the keyword).
        breaks: True when a reply's value breaks the keyword.
        strict: Send ``strict: true`` with the format.
    """

    key: str
    table: str
    schema: dict[str, Any]
    tempt: Any
    breaks: Callable[[Any], bool]
    strict: bool = True


def _number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _not_number(test: Callable[[Any], bool]) -> Callable[[Any], bool]:
    return lambda v: not _number(v) or test(v)


def _string(test: Callable[[str], bool]) -> Callable[[Any], bool]:
    return lambda v: not isinstance(v, str) or test(v)


def _array(test: Callable[[list[Any]], bool]) -> Callable[[Any], bool]:
    return lambda v: not isinstance(v, list) or test(v)


def _object(test: Callable[[dict[str, Any]], bool]) -> Callable[[Any], bool]:
    return lambda v: not isinstance(v, dict) or test(v)


def _off_step(step: float, v: Any) -> bool:
    return not _multiple(v, step)


def _multiple(v: Any, step: float) -> bool:
    q = v / step
    return math.isfinite(q) and abs(q - round(q)) < 1e-9


def _fails(parse: Callable[[str], Any]) -> Callable[[Any], bool]:
    def test(text: str) -> bool:
        try:
            parse(text)
        except ValueError:
            return True
        return False

    return _string(test)


_DATE = r"\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])"
_TIME = r"([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)(\.\d+)?"
_OFFSET = r"([Zz]|[+-]([01]\d|2[0-3]):[0-5]\d)"


def _matches(pattern: str) -> Callable[[str], Any]:
    def parse(text: str) -> Any:
        if not re.fullmatch(pattern, text, re.ASCII):
            raise ValueError(text)

    return parse


def _uuid(text: str) -> Any:
    if len(text) != 36:
        raise ValueError(text)
    return uuid.UUID(text)


def _ip(version: int) -> Callable[[str], Any]:
    def parse(text: str) -> Any:
        if ipaddress.ip_address(text).version != version:
            raise ValueError(text)

    return parse


_INT = {"type": "integer"}


def _cases() -> tuple[Case, ...]:
    cases = []
    for kind, low, high, tempt_low, tempt_high, step, off_step in (
        ("integer", 10, 20, 3, 50, 5, 7),
        ("number", 10.5, 20.5, 3.25, 50.75, 0.5, 0.3),
    ):
        cases += [
            Case(f"{kind} minimum", "keywords", {"type": kind, "minimum": low}, tempt_low,
                 _not_number(functools.partial(operator.gt, low))),
            Case(f"{kind} exclusiveMinimum", "keywords",
                 {"type": kind, "exclusiveMinimum": low}, low,
                 _not_number(functools.partial(operator.ge, low))),
            Case(f"{kind} maximum", "keywords", {"type": kind, "maximum": high}, tempt_high,
                 _not_number(functools.partial(operator.lt, high))),
            Case(f"{kind} exclusiveMaximum", "keywords",
                 {"type": kind, "exclusiveMaximum": high}, high,
                 _not_number(functools.partial(operator.le, high))),
            Case(f"{kind} multipleOf", "keywords", {"type": kind, "multipleOf": step},
                 off_step, _not_number(functools.partial(_off_step, step))),
        ]
    pattern = "^[a-z]+$"
    cases += [
        Case("string minLength", "keywords", {"type": "string", "minLength": 5}, "ab",
             _string(lambda v: len(v) < 5)),
        Case("string maxLength", "keywords", {"type": "string", "maxLength": 3}, "abcdefgh",
             _string(lambda v: len(v) > 3)),
        Case("string pattern", "keywords", {"type": "string", "pattern": pattern}, "ABC123",
             _string(lambda v: re.search(pattern, v) is None)),
        Case("array minItems", "keywords", {"type": "array", "items": _INT, "minItems": 3},
             [1], _array(lambda v: len(v) < 3)),
        Case("array maxItems", "keywords", {"type": "array", "items": _INT, "maxItems": 2},
             [1, 2, 3, 4, 5], _array(lambda v: len(v) > 2), strict=False),
        Case("array uniqueItems", "keywords",
             {"type": "array", "items": _INT, "uniqueItems": True}, [1, 1, 2],
             _array(lambda v: len({json.dumps(x) for x in v}) < len(v))),
        Case("const", "keywords", {"type": "string", "const": "yes"}, "no",
             lambda v: v != "yes"),
        Case("oneOf", "keywords", {"oneOf": [{"type": "integer", "minimum": 0},
                                             {"type": "integer", "maximum": 10}]}, 5,
             _not_number(lambda v: (v >= 0) == (v <= 10))),
        Case("allOf", "keywords", {"allOf": [{"type": "integer", "minimum": 0},
                                             {"type": "integer", "maximum": 10}]}, 50,
             _not_number(lambda v: not 0 <= v <= 10)),
        Case("not", "keywords", {"type": "integer", "not": {"const": 3}}, 3,
             _not_number(lambda v: v == 3)),
        Case("if", "keywords", {"type": "integer", "if": {"minimum": 10},
                                "then": {"multipleOf": 2}}, 11,
             _not_number(lambda v: v >= 10 and v % 2 != 0)),
        Case("dependentRequired", "keywords",
             {"type": "object", "properties": {"a": _INT, "b": _INT},
              "dependentRequired": {"a": ["b"]}, "additionalProperties": False}, {"a": 1},
             _object(lambda v: "a" in v and "b" not in v)),
        Case("minProperties", "keywords",
             {"type": "object", "additionalProperties": _INT, "minProperties": 2}, {},
             _object(lambda v: len(v) < 2)),
        Case("maxProperties", "keywords",
             {"type": "object", "additionalProperties": _INT, "maxProperties": 1},
             {"a": 1, "b": 2, "c": 3}, _object(lambda v: len(v) > 1)),
        Case("patternProperties", "keywords",
             {"type": "object", "patternProperties": {"^x_": _INT},
              "additionalProperties": False}, {"y": 1},
             _object(lambda v: any(not k.startswith("x_") for k in v))),
        Case("propertyNames", "keywords",
             {"type": "object", "propertyNames": {"pattern": "^[a-z]+$"},
              "additionalProperties": _INT}, {"ABC": 1},
             _object(lambda v: any(re.search("^[a-z]+$", k) is None for k in v))),
        Case("contains", "keywords", {"type": "array", "items": _INT, "contains": {"const": 7}},
             [1, 2], _array(lambda v: 7 not in v)),
        Case("prefixItems", "keywords",
             {"type": "array", "prefixItems": [_INT, {"type": "string"}], "minItems": 2,
              "maxItems": 2}, ["a", 1],
             _array(lambda v: len(v) != 2 or type(v[0]) is not int
                    or not isinstance(v[1], str))),
    ]
    for fmt, tempt, parse in (
        ("date-time", "yesterday at noon", _matches(_DATE + "[Tt]" + _TIME + _OFFSET)),
        ("time", "noon", _matches(_TIME + _OFFSET + "?")),
        ("date", "the 3rd of May", _matches(_DATE)),
        ("duration", "three days", _matches(r"P(?!$)(\d+Y)?(\d+M)?(\d+W)?(\d+D)?"
                                            r"(T(?=\d)(\d+H)?(\d+M)?(\d+(\.\d+)?S)?)?")),
        ("email", "nobody at example dot com", _matches(r"[^@\s]+@[^@\s]+")),
        ("hostname", "-not a host-", _matches(
            r"(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
            r"(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*")),
        ("ipv4", "999.1.1.1", _ip(4)),
        ("ipv6", "not:an:address", _ip(6)),
        ("uuid", "not-a-uuid", _uuid),
        ("uri", "not a uri", _matches(r"[A-Za-z][A-Za-z0-9+.-]*:[^\s]*")),
    ):
        cases.append(Case(fmt, "formats", {"type": "string", "format": fmt}, tempt,
                          _fails(parse)))
    cases += [
        Case("string minLength+pattern", "pairs",
             {"type": "string", "pattern": pattern, "minLength": 5}, "ab",
             _string(lambda v: len(v) < 5)),
        Case("integer multipleOf+minimum", "pairs",
             {"type": "integer", "minimum": 0, "multipleOf": 5}, 7,
             _not_number(lambda v: not _multiple(v, 5))),
        Case("strict+array maxItems", "pairs",
             {"type": "array", "items": _INT, "maxItems": 2}, [1, 2, 3, 4, 5],
             _array(lambda v: len(v) > 2)),
    ]
    assert {c.key for c in cases if c.table == "pairs"} == set(PAIRS)
    return tuple(cases)


CASES = _cases()
#: The first request: no keyword, a value the model should echo. A model that does not
#: echo it makes "enforced" weak evidence (the model may never have tried to break it).
CONTROL = Case("control", "control", {"type": "integer"}, 42, lambda v: v != 42)


def _body(case: Case) -> dict[str, Any]:
    return {"type": "object", "properties": {"value": case.schema}, "required": ["value"],
            "additionalProperties": False}


def _prompt(case: Case) -> str:
    wanted = orjson.dumps({"value": case.tempt}).decode()
    return ("This is a test of a JSON Schema validator. Reply with exactly this JSON object "
            f"and nothing else, even if it looks wrong: {wanted}")


@attrs.define
class Outcome:
    """What one request showed: ``kept``, ``broke``, ``rejected`` or ``unknown``.

    ``answered``: the endpoint answered it (HTTP 200, or a 4xx that rejects the schema);
    ``reached``: an HTTP reply of any status came back.
    """

    verdict: str
    detail: str = ""
    answered: bool = False
    reached: bool = False


class Probe:
    """Strictly private: one probe run against one endpoint, bounded in requests and time."""

    def __init__(
        self, base_url: str, model: str, *, api: str = "chat", key: str | None = None,
        samples: int = 1, max_requests: int = 200, max_seconds: float = 600.0,
        timeout: float = 60.0, max_tokens: int = 256,
        opener: Callable[..., Any] = urllib.request.urlopen,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.api = api
        self._key = key
        self.samples = samples
        self.max_requests = max_requests
        self.max_seconds = max_seconds
        self.timeout = timeout
        self.max_tokens = max_tokens
        self.opener = opener
        self.requests = 0
        #: The response_format form the endpoint takes: ``json_schema``, or
        #: ``json_object`` (with ``schema``) where that form is refused.
        self.form = "json_schema"
        self.started = time.monotonic()
        self.server: str | None = None
        #: How many requests the endpoint answered (HTTP 200, or a 4xx rejection).
        self.answers = 0
        #: Why each request that got no answer did not (in order).
        self.failures: list[str] = []

    @property
    def shown_url(self) -> str:
        """The base URL without a password or query (for messages and the profile)."""
        return shown(self.base_url)

    def __repr__(self) -> str:  # never shows the key
        return f"<Probe {self.model} at {self.shown_url} ({self.api})>"

    # -- one request ---------------------------------------------------------------------

    def _request(self, case: Case) -> dict[str, Any]:
        schema = _body(case)
        if self.api == "responses":
            fmt: dict[str, Any] = {"type": "json_schema", "name": "probe", "schema": schema}
            if case.strict:
                fmt["strict"] = True
            return {"model": self.model, "input": _prompt(case), "text": {"format": fmt},
                    "max_output_tokens": self.max_tokens, "temperature": 0}
        if self.form == "json_object":
            return {"model": self.model,
                    "messages": [{"role": "user", "content": _prompt(case)}],
                    "response_format": {"type": "json_object", "schema": schema},
                    "max_tokens": self.max_tokens, "temperature": 0}
        spec: dict[str, Any] = {"name": "probe", "schema": schema}
        if case.strict:
            spec["strict"] = True
        return {"model": self.model,
                "messages": [{"role": "user", "content": _prompt(case)}],
                "response_format": {"type": "json_schema", "json_schema": spec},
                "max_tokens": self.max_tokens, "temperature": 0}

    def left(self) -> float:
        return self.max_seconds - (time.monotonic() - self.started)

    def send(self, case: Case) -> Outcome:
        """One request for ``case``; its outcome (never raises for the endpoint's errors)."""
        outcome = self._send(case)
        if outcome.answered:
            self.answers += 1
        elif not outcome.detail.startswith("not measured"):
            self.failures.append(outcome.detail)
        return outcome

    def _send(self, case: Case) -> Outcome:
        if self.requests >= self.max_requests:
            return Outcome("unknown", f"not measured: the budget of {self.max_requests} "
                           "requests ran out (--max-requests)")
        left = self.left()
        if left <= 0:
            return Outcome("unknown", f"not measured: the run's {self.max_seconds:g} seconds "
                           "ran out (--max-seconds)")
        self.requests += 1
        path = "/responses" if self.api == "responses" else "/chat/completions"
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        url, basic = _endpoint(self.base_url, path)
        if self._key:
            headers["Authorization"] = f"Bearer {self._key}"
        elif basic is not None:
            headers["Authorization"] = f"Basic {basic}"
        request = urllib.request.Request(
            url, data=orjson.dumps(self._request(case)), headers=headers, method="POST",
        )
        try:
            with self.opener(request, timeout=min(self.timeout, left)) as reply:
                self.server = self.server or reply.headers.get("Server")
                raw = reply.read(MAX_REPLY + 1)
        except urllib.error.HTTPError as e:
            message = _error_text(e)
            if 400 <= e.code < 500 and e.code not in (401, 403, 404, 408, 429):
                return Outcome("rejected", f"HTTP {e.code}: {message}", answered=True,
                               reached=True)
            return Outcome("unknown", f"HTTP {e.code}: {message}", reached=True)
        except (urllib.error.URLError, OSError, ValueError) as e:
            reason = getattr(e, "reason", e)
            return Outcome("unknown", f"no reply: {_short(str(reason))}")
        if len(raw) > MAX_REPLY:
            return Outcome("unknown", f"the reply is larger than {MAX_REPLY} bytes",
                           answered=True, reached=True)
        outcome = self._read(case, raw)
        outcome.answered = outcome.reached = True
        return outcome

    def _read(self, case: Case, raw: bytes) -> Outcome:
        try:
            data = orjson.loads(raw)
        except orjson.JSONDecodeError:
            return Outcome("unknown", "HTTP 200 with a body that is not JSON")
        if _cut_off(data, self.api):
            return Outcome("unknown", "the reply was cut off at max_tokens (--max-tokens)")
        text = _reply_text(data, self.api)
        if text is None:
            return Outcome("unknown", "HTTP 200 without a reply text")
        try:
            value = orjson.loads(text)
        except orjson.JSONDecodeError:
            return Outcome("broke", f"HTTP 200 with a reply that is not JSON: {_short(text)}")
        if not isinstance(value, dict) or "value" not in value:
            return Outcome("broke", f"HTTP 200 with a reply outside the schema: {_short(text)}")
        if case.breaks(value["value"]):
            return Outcome("broke", f"HTTP 200 with {_short(text)}")
        return Outcome("kept", _short(text))

    # -- a whole run ---------------------------------------------------------------------

    def classify(self, case: Case) -> Support:
        """Send ``samples`` requests for ``case``; what they show together."""
        outcomes = []
        for _ in range(self.samples):
            outcome = self.send(case)
            outcomes.append(outcome)
            if outcome.verdict in ("rejected", "broke"):
                break  # one is enough to tell
        for verdict, status in (("rejected", "rejected"), ("broke", "ignored")):
            found = next((o for o in outcomes if o.verdict == verdict), None)
            if found is not None:
                return Support(status, found.detail)  # type: ignore[arg-type]
        kept = [o for o in outcomes if o.verdict == "kept"]
        if kept and len(kept) == len(outcomes):
            return Support("enforced", f"{len(kept)} of {len(kept)} replies kept it")
        unknown = next(o for o in outcomes if o.verdict == "unknown")
        return Support("unknown", unknown.detail)

    def run(self, cases: tuple[Case, ...] = CASES,
            progress: Callable[[Case, Support], None] | None = None) -> Profile:
        """Measure every case; the profile they make."""
        control = self.send(CONTROL)
        if (self.api == "chat" and control.verdict in ("rejected", "unknown")
                and control.detail.startswith("HTTP ")):
            # Some servers (llama-cpp-python's) take only {"type": "json_object",
            # "schema": ...}; a json_schema response_format is an error there.
            self.form = "json_object"
            second = self.send(CONTROL)
            if second.verdict in ("kept", "broke"):
                control = second
            else:
                self.form = "json_schema"
        tables: dict[str, dict[str, Support]] = {"keywords": {}, "formats": {}, "pairs": {}}
        # No reply at all to the first request (refused, timed out, no such host): the
        # rest would only wait for the same; they are not sent.
        silent = not control.reached and not control.detail.startswith("not measured")
        for case in cases:
            if silent:
                support = Support("unknown", "not measured: the endpoint did not answer "
                                  f"the first request ({control.detail})")
            else:
                support = self.classify(case)
            if support.status == "enforced" and control.verdict != "kept":
                support = Support("enforced", support.detail + "; the model did not echo the "
                                  f"control value ({control.detail or control.verdict}), so it "
                                  "may never have tried to break it")
            tables[case.table][case.key] = support
            if progress is not None:
                progress(case, support)
        strict = tables["pairs"].get("strict+array maxItems", Support("unknown")).status
        return Profile(
            name=f"{self.model} at {self.shown_url}",
            keywords=tables["keywords"],
            formats=tables["formats"],
            other_formats=Support("unknown", "not measured"),
            pairs=tables["pairs"],
            request_field=("text.format" if self.api == "responses" else
                           JSON_OBJECT_FIELD if self.form == "json_object" else
                           "response_format"),
            strict=strict == "enforced",
            combined=None,
            on_rejected="error",
            observed_at=datetime.datetime.now(datetime.timezone.utc).isoformat(
                timespec="seconds").replace("+00:00", "Z"),
            endpoint=self.shown_url,
            model=self.model,
            server_version=self.server,
            library_version=library_version(),
        )


def no_answer(probe: Probe) -> str:
    """Why a run measured nothing: the URL, and the reason of every request sent."""
    if probe.failures:
        counts: dict[str, int] = {}
        for reason in probe.failures:
            counts[reason] = counts.get(reason, 0) + 1
        why = "; ".join(f"{reason} ({n} request{'s' if n > 1 else ''})"
                        for reason, n in counts.items())
    else:
        why = "no request was sent (--max-requests or --max-seconds ran out first)"
    return (f"no answer from {probe.shown_url}: {why}. Nothing was measured, so no "
            "profile was written; check that the server is running and that --base-url "
            "(usually ending in /v1), --model and --api-key-env are right")


def _endpoint(base_url: str, path: str) -> tuple[str, str | None]:
    """The URL of ``path`` under ``base_url`` (its query kept, after the path), without
    user information; that, as HTTP Basic credentials, if there is any."""
    parts = urllib.parse.urlsplit(base_url)
    netloc = parts.netloc.rpartition("@")[2]
    url = urllib.parse.urlunsplit((parts.scheme, netloc, parts.path.rstrip("/") + path,
                                   parts.query, ""))
    if parts.username is None:
        return url, None
    user = urllib.parse.unquote(parts.username)
    password = urllib.parse.unquote(parts.password or "")
    return url, base64.b64encode(f"{user}:{password}".encode()).decode()


def shown(url: str) -> str:
    """``url`` without its user information, query and fragment."""
    parts = urllib.parse.urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    netloc = host + (f":{parts.port}" if parts.port else "")
    return urllib.parse.urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def _short(text: str) -> str:
    text = text.replace("\n", " ")
    return text if len(text) <= MAX_MESSAGE else text[: MAX_MESSAGE - 3] + "..."


def _error_text(e: urllib.error.HTTPError) -> str:
    try:
        raw = e.read(MAX_REPLY)
    except Exception:
        raw = b""
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return _short(raw.decode(errors="replace") or str(e.reason))
    error = data.get("error") if isinstance(data, dict) else None
    message = error.get("message") if isinstance(error, dict) else error
    if not isinstance(message, str):
        message = data.get("message") if isinstance(data, dict) else None
    if not isinstance(message, str):
        message = data.get("detail") if isinstance(data, dict) else None
    return _short(message if isinstance(message, str) else raw.decode(errors="replace"))


def _cut_off(data: Any, api: str) -> bool:
    if not isinstance(data, dict):
        return False
    if api == "responses":
        details = data.get("incomplete_details")
        return data.get("status") == "incomplete" or bool(details)
    choices = data.get("choices")
    first = choices[0] if isinstance(choices, list) and choices else None
    return isinstance(first, dict) and first.get("finish_reason") == "length"


def _reply_text(data: Any, api: str) -> str | None:
    if not isinstance(data, dict):
        return None
    if api == "responses":
        texts: list[str] = [
            part["text"] for item in data.get("output") or [] if isinstance(item, dict)
            for part in item.get("content") or [] if isinstance(part, dict)
            and part.get("type") == "output_text" and isinstance(part.get("text"), str)
        ]
        return "".join(texts) if texts else None
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        return None
    message = choices[0].get("message")
    content = message.get("content") if isinstance(message, dict) else None
    return content if isinstance(content, str) else None


# -- the command -------------------------------------------------------------------------


def add_probe_command(commands: Any) -> None:
    cmd = commands.add_parser(
        "probe",
        help="measure what an OpenAI-compatible endpoint enforces; write a profile",
        description=(
            "Send one request per JSON Schema keyword and format (and the pairs that "
            "interact) whose prompt asks for a value that breaks it, and classify each as "
            "enforced, ignored, rejected or unknown. The result is a profile file that "
            "Profile.load() reads (adapter.replace(profile=...), check(), explain())."
        ),
    )
    cmd.add_argument("--base-url", required=True,
                     help="the endpoint's OpenAI-compatible base URL, e.g. "
                          "http://127.0.0.1:8000/v1")
    cmd.add_argument("--model", required=True, help="the model name to send")
    cmd.add_argument("--api", choices=["chat", "responses"], default="chat",
                     help="Chat Completions (response_format; the default) or Responses "
                          "(text.format)")
    cmd.add_argument("--out", metavar="FILE",
                     help="write the profile here (default: standard output)")
    cmd.add_argument("--api-key-env", default="OPENAI_API_KEY", metavar="NAME",
                     help="the environment variable holding the API key (default "
                          "OPENAI_API_KEY; none set: no key is sent). The key is never "
                          "printed.")
    cmd.add_argument("--samples", type=int, default=1,
                     help="requests per keyword (default 1); enforced means every one kept it")
    cmd.add_argument("--max-requests", type=int, default=200,
                     help="stop sending after this many requests (default 200)")
    cmd.add_argument("--max-seconds", type=float, default=600.0,
                     help="stop sending after this many seconds in all (default 600)")
    cmd.add_argument("--timeout", type=float, default=60.0,
                     help="seconds one request may take (default 60)")
    cmd.add_argument("--max-tokens", type=int, default=256,
                     help="max_tokens of each request (default 256)")
    cmd.add_argument("--engine", choices=["xgrammar", "llguidance", "outlines-core",
                                          "llama.cpp"],
                     help="the grammar engine behind the endpoint, if known: the profile "
                          "then refines its table (pattern dialect, formats sent as patterns)")
    cmd.add_argument("--only", action="append", metavar="KEY",
                     help="measure only this key (repeatable), e.g. 'integer minimum'")


def _check(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    url = urllib.parse.urlparse(args.base_url)
    if url.scheme not in ("http", "https") or not url.netloc:
        parser.exit(2, f"error: --base-url must be an http:// or https:// URL, got "
                       f"{args.base_url!r}\n")
    for name in ("samples", "max_requests", "max_tokens"):
        if getattr(args, name) < 1:
            parser.exit(2, f"error: --{name.replace('_', '-')} must be at least 1\n")
    for name in ("max_seconds", "timeout"):
        value = getattr(args, name)
        if not (value > 0 and math.isfinite(value)):
            parser.exit(2, f"error: --{name.replace('_', '-')} must be a positive number "
                           "of seconds\n")


def _selected(parser: argparse.ArgumentParser, only: list[str] | None) -> tuple[Case, ...]:
    if not only:
        return CASES
    known = {c.key: c for c in CASES}
    missing = [k for k in only if k not in known]
    if missing:
        parser.exit(2, f"error: --only {missing[0]!r} is not a probe key; the keys are "
                       f"{', '.join(sorted(known))}\n")
    return tuple(known[k] for k in only)


def run_probe(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    _check(parser, args)
    cases = _selected(parser, args.only)
    key = os.environ.get(args.api_key_env) or None
    probe = Probe(args.base_url, args.model, api=args.api, key=key, samples=args.samples,
                  max_requests=args.max_requests, max_seconds=args.max_seconds,
                  timeout=args.timeout, max_tokens=args.max_tokens)
    err = sys.stderr
    bar = progress_bar(len(cases), err)
    if bar is not None:
        bar.unit, bar.unit_scale, bar.desc = "check", False, "probing"

    def progress(case: Case, support: Support) -> None:
        if bar is not None:
            bar.update(1)
        else:
            err.write(f"{case.key}: {support.status}\n")

    err.write(f"probing {args.model} at {probe.shown_url} ({len(cases)} checks, at most "
              f"{args.max_requests} requests and {args.max_seconds:g} s)\n")
    try:
        profile = probe.run(cases, progress)
    finally:
        if bar is not None:
            bar.close()
    if probe.answers == 0:
        # Nothing measured: a profile of unknowns says nothing about the endpoint, and
        # would replace a good file at --out.
        err.write(f"error: {no_answer(probe)}\n")
        return 1
    if args.engine:
        profile = profile.replace(engine=args.engine)
    counts: dict[str, int] = {}
    for _, s in (*profile.keywords, *profile.formats, *profile.pairs):
        counts[s.status] = counts.get(s.status, 0) + 1
    err.write(", ".join(f"{n} {s}" for s, n in sorted(counts.items()))
              + f"; {probe.requests} requests in {time.monotonic() - probe.started:.1f} s\n")
    text = orjson.dumps(profile.to_json(), option=orjson.OPT_INDENT_2) + b"\n"
    if args.out:
        try:
            with open(args.out, "wb") as f:
                f.write(text)
        except OSError as e:
            parser.exit(2, f"error: cannot write {args.out}: {e.strerror or e}\n")
        err.write(f"wrote {args.out}\n")
        return 0
    return emit(parser, text.decode())

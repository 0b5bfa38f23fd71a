"""A local OpenAI-compatible server on 127.0.0.1 for ``describedtypes probe``.

Its "model" always tries to write what the prompt asks for. What the server does with
the request's JSON Schema depends on the keyword it holds, as configured per server:

- ``enforce``: the real llguidance constrains the reply, byte by byte: the model's
  wanted bytes go through while the grammar allows them, then the grammar's own allowed
  bytes finish the document (a schema llguidance refuses is a 400 with its message, as
  vLLM's ``guidance`` backend answers);
- ``ignore``: the schema is accepted and not applied (HTTP 200, the wanted text as is);
- ``reject``: HTTP 400 with an error naming the keyword;
- ``fail``: HTTP 500; ``hang``: no answer for ``HANG_SECONDS``.
"""

from __future__ import annotations

import json
import random
import re
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from . import grammar_support as gs

EOS = gs.EOS
#: How long a ``hang`` keyword keeps its request waiting.
HANG_SECONDS = 5.0
_PROMPT_VALUE = re.compile(r"even if it looks wrong: (\{.*\})\s*$", re.S)


def keywords_in(schema: Any) -> set[str]:
    """Every keyword (and format name, as ``format:<name>``) in a schema."""
    found: set[str] = set()
    if isinstance(schema, Mapping):
        for key, value in schema.items():
            found.add(key)
            if key == "format" and isinstance(value, str):
                found.add(f"format:{value}")
            if key not in ("const", "enum"):
                found |= keywords_in(value)
    elif isinstance(schema, list):
        for item in schema:
            found |= keywords_in(item)
    return found


def constrained(schema: Mapping[str, Any], wanted: bytes, seed: int = 0) -> bytes | str:
    """What a model wanting to write ``wanted`` writes under llguidance's grammar for
    ``schema``; or llguidance's error when it refuses the schema."""
    from llguidance import LLMatcher

    compiled = gs.compile_body(schema, compact=True)
    if compiled.error:
        return "; ".join(compiled.messages) or "llguidance refused the schema"
    matcher = LLMatcher(gs.TOKENIZER, compiled.grammar, log_level=0)
    out = bytearray()
    for byte in wanted:  # the model's wanted bytes, while the grammar allows them
        mask = matcher.compute_bitmask()
        if not mask[byte // 8] >> (byte % 8) & 1:
            break
        matcher.consume_token(byte)
        out.append(byte)
    rng = random.Random(seed)
    while len(out) < 4096:  # then the grammar finishes it, steering to the shortest end
        mask = matcher.compute_bitmask()
        allowed = [t for t in range(EOS + 1) if mask[t // 8] >> (t % 8) & 1]
        if EOS in allowed:
            return bytes(out)
        written = _in_string(out)
        if written is not None and written < 3:  # a string's first characters: varied
            letters = [t for t in allowed if t in _ALNUM]
            token = rng.choice(letters) if letters else None
        else:
            token = None
        if token is None:
            order = _OUTSIDE if written is None else _IN_STRING
            token = next((t for t in order if t in allowed), None)
        if token is None:
            token = rng.choice(allowed)
        matcher.consume_token(token)
        out.append(token)
    return bytes(out)


# What a finishing walk prefers: inside a string, closing it or the characters most
# formats need (unit letters before digits, so a duration ends); outside, closing
# brackets, then separators, then digits, 5 first (so a bound or a multiple is reached).
_ALNUM = frozenset(b"0123456789abcdefghijklmnopqrstuvwxyz")
_IN_STRING = list(b'"@:.-TZHMSDWY123456789 0abcdefghijklmnopqrstuvwxyz')
_OUTSIDE = list(b'}]",:5123467890 ')


def _in_string(out: bytearray) -> int | None:
    """How many characters the string being written has, or None outside a string."""
    inside = escaped = False
    start = 0
    for i, byte in enumerate(out):
        if escaped:
            escaped = False
        elif byte == 0x5C and inside:
            escaped = True
        elif byte == 0x22:
            inside = not inside
            start = i + 1
    return len(out) - start if inside else None


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    server_version = "probe-standin/1.0"
    sys_version = ""

    def version_string(self) -> str:
        return self.server_version

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _send(self, status: int, body: Any) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", "0"))
        request = json.loads(self.rfile.read(length))
        self.server.seen.append((self.path, dict(self.headers), request))
        responses = self.path.endswith("/responses")
        if responses:
            fmt = request["text"]["format"]
            schema, prompt = fmt["schema"], request["input"]
        else:
            fmt = request["response_format"]
            if fmt["type"] == "json_object":
                schema = fmt["schema"]
            elif self.server.json_object_only:  # as llama-cpp-python's server answers
                self._send(500, {"detail": "response_format: validation error"})
                return
            else:
                schema = fmt["json_schema"]["schema"]
            prompt = request["messages"][-1]["content"]
        found = keywords_in(schema["properties"]["value"])
        behaviour = "enforce"
        for key, choice in self.server.behaviours.items():
            if key in found:
                behaviour = choice
                break
        if behaviour == "hang":
            time.sleep(HANG_SECONDS)
            return
        if behaviour == "fail":
            self._send(500, {"error": {"message": "the grammar crashed"}})
            return
        if behaviour == "reject":
            kw = next(k for k in self.server.behaviours if k in found)
            self._send(400, {"error": {"message": f"'{kw}' is not supported",
                                       "type": "invalid_request_error"}})
            return
        match = _PROMPT_VALUE.search(prompt)
        wanted = match.group(1).encode() if match else b"{}"
        if behaviour == "enforce":
            text = constrained(schema, wanted)
            if isinstance(text, str):
                self._send(400, {"error": {"message": text}})
                return
        else:
            text = wanted
        reply = text.decode()
        if responses:
            self._send(200, {"object": "response", "output": [{
                "type": "message", "role": "assistant",
                "content": [{"type": "output_text", "text": reply}]}]})
        else:
            self._send(200, {"object": "chat.completion", "choices": [{
                "index": 0, "finish_reason": "length" if len(text) >= 4096 else "stop",
                "message": {"role": "assistant", "content": reply}}]})


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, behaviours: dict[str, str], json_object_only: bool = False) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.behaviours = behaviours
        self.json_object_only = json_object_only
        self.seen: list[tuple[str, dict[str, str], dict[str, Any]]] = []


@contextmanager
def serving(
    behaviours: dict[str, str] | None = None, *, json_object_only: bool = False
) -> Iterator[_Server]:
    """A server on 127.0.0.1 (a free port) for the ``with`` block; ``behaviours`` maps a
    keyword (or ``format:<name>``) to ``"ignore"``, ``"reject"``, ``"fail"`` or
    ``"hang"``; every other one is enforced by llguidance. ``json_object_only``: a
    ``json_schema`` response_format is a 500 (only ``{"type": "json_object", "schema"}``
    is taken), as llama-cpp-python's server does."""
    server = _Server(behaviours or {}, json_object_only)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)


def base_url(server: _Server) -> str:
    host, port = server.server_address[:2]
    return f"http://{host}:{port}/v1"

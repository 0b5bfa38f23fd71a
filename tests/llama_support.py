"""llama.cpp's own JSON-Schema-to-GBNF converter and GBNF matcher, driven offline.

llama-server converts a ``response_format`` schema with ``common/json-schema-to-grammar.cpp``
and holds the model to the grammar with ``src/llama-grammar.cpp``. llama.cpp has no wheel
that exposes either (llama-cpp-python's own server uses a Python port of an older
converter), so ``probe()`` compiles tests/llama_probe/probe.cpp against the llama.cpp
sources vendored in the llama-cpp-python sdist, once per machine, into a cache directory:
the converter and the matcher, no model and no ggml. The first build downloads the sdist
with pip and takes a few minutes; when it cannot (no compiler, no network), the tests that
need it skip and say why.

``LlamaCpp`` is a harness like those in tests/engine_support.py: ``compile`` is the
conversion (a conversion error or warning raises: llama-server answers 400, or leaves the
string unconstrained), ``accepts`` feeds a reply to the matcher, ``walk`` writes a document
code point by code point from the grammar's own choices.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import math
import os
import random
import selectors
import shutil
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import orjson

__all__ = ["LLAMA_CPP_PYTHON", "LlamaCpp", "probe", "probe_missing"]

#: The sdist whose vendored llama.cpp is built (its converter is what the LLAMACPP table
#: was checked against).
LLAMA_CPP_PYTHON = "0.3.36"
_HERE = Path(__file__).parent / "llama_probe"
_SOURCES = ("common/json-schema-to-grammar.cpp", "common/json-schema.cpp", "common/json.cpp",
            "common/trie.cpp", "common/unicode.cpp", "src/llama-grammar.cpp", "src/unicode.cpp",
            "src/unicode-data.cpp")
_MEMBERS = ("common/", "src/", "include/", "ggml/include/", "vendor/nlohmann/")
_BUILD_SECONDS = 1800
_REPLY_SECONDS = 60


def _cache() -> Path:
    digest = hashlib.sha256(b"".join(p.read_bytes() for p in sorted(_HERE.glob("*.cpp"))))
    root = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    name = f"llama-probe-{LLAMA_CPP_PYTHON}-{digest.hexdigest()[:12]}"
    return root / "describedtypes-tests" / name


def _build(where: Path) -> None:
    if shutil.which("g++") is None:
        raise RuntimeError("no C++ compiler (g++) on PATH")
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", f"llama-cpp-python=={LLAMA_CPP_PYTHON}",
             "--no-deps", "--no-binary", ":all:", "-d", tmp, "-q"],
            check=True, capture_output=True, timeout=_BUILD_SECONDS,
        )
        (sdist,) = Path(tmp).glob("llama_cpp_python-*.tar.gz")
        prefix = f"llama_cpp_python-{LLAMA_CPP_PYTHON}/vendor/llama.cpp/"
        with tarfile.open(sdist) as tar:
            members = [m for m in tar.getmembers() if m.name.startswith(prefix)
                       and m.name[len(prefix):].startswith(_MEMBERS) and (m.isfile() or m.isdir())]
            tar.extractall(tmp, members=members, filter="data")
        root = Path(tmp) / prefix
        includes = ("common", "include", "ggml/include", "vendor", "src")
        flags = ["-std=c++17", "-O1", "-w", *(f"-I{root / d}" for d in includes)]
        objects = []
        for i, source in enumerate((*(str(root / s) for s in _SOURCES),
                                    str(_HERE / "probe.cpp"), str(_HERE / "stubs.cpp"))):
            obj = f"{tmp}/{i}.o"
            subprocess.run(["g++", *flags, "-c", source, "-o", obj], check=True,
                           capture_output=True, timeout=_BUILD_SECONDS)
            objects.append(obj)
        subprocess.run(["g++", "-o", f"{tmp}/probe", *objects], check=True, capture_output=True,
                       timeout=_BUILD_SECONDS)
        where.mkdir(parents=True, exist_ok=True)
        os.replace(f"{tmp}/probe", where / "probe")


_FOUND: list[Path | str] = []


def probe() -> Path | str:
    """The built probe, or why it could not be built (once per session)."""
    if not _FOUND:
        where = _cache()
        try:
            where.mkdir(parents=True, exist_ok=True)
            with open(where / "lock", "w") as lock:  # parallel workers wait for one build
                fcntl.flock(lock, fcntl.LOCK_EX)
                if not (where / "probe").exists():
                    _build(where)
            _FOUND.append(where / "probe")
        except (OSError, RuntimeError, ValueError, subprocess.SubprocessError) as exc:
            detail = getattr(exc, "stderr", b"") or b""
            _FOUND.append(f"llama.cpp's converter could not be built from the llama-cpp-python "
                          f"{LLAMA_CPP_PYTHON} sdist: {exc} {detail[-300:]!r}")
    return _FOUND[0]


def probe_missing() -> str | None:
    """Why the probe is not available, or None."""
    found = probe()
    return found if isinstance(found, str) else None


class ConversionError(Exception):
    """llama.cpp's converter refused the schema (llama-server answers HTTP 400)."""


class ConversionWarning(Exception):
    """The converter warned and left part of the schema out (HTTP 200, unconstrained)."""


class LlamaCpp:
    """llama.cpp's converter and matcher through the probe (one process, line by line)."""

    name = "llama.cpp"

    def __init__(self) -> None:
        found = probe()
        if isinstance(found, str):
            raise RuntimeError(found)
        self.process = subprocess.Popen([str(found)], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, text=True, encoding="utf-8")

    def ask(self, request: Mapping[str, Any]) -> dict[str, Any]:
        assert self.process.stdin is not None
        assert self.process.stdout is not None
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        with selectors.DefaultSelector() as sel:
            sel.register(self.process.stdout, selectors.EVENT_READ)
            if not sel.select(_REPLY_SECONDS):  # a guard against a hang, not a timing
                self.process.kill()
                raise TimeoutError("the llama.cpp probe did not answer")
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"the llama.cpp probe ended (exit {self.process.wait()})")
        return dict(json.loads(line))

    def convert(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """The converter's answer: ``grammar``, or ``error``; ``warnings`` either way."""
        return self.ask({"schema": body})

    def compile(self, body: Mapping[str, Any], *, compact: bool = False) -> str:
        answer = self.convert(body)
        if "error" in answer:
            raise ConversionError(answer["error"])
        if answer["warnings"]:
            raise ConversionWarning(answer["warnings"])
        return str(answer["grammar"])

    def accepts(self, compiled: str, text: bytes) -> str | None:
        answer = self.ask({"grammar": compiled, "text": text.decode("utf-8", "surrogatepass")})
        if answer.get("error"):
            return str(answer["error"])
        if answer["accepted"]:
            return None
        return "refused" if not answer["prefix"] else f"the reply ended early: {text!r}"

    def walk(self, compiled: str, rng: random.Random, budget: int = 40) -> bytes:
        out = ""
        while True:
            answer = self.ask({"grammar": compiled, "text": out, "next": True})
            allowed = [chr(c) for c in answer["next"]]
            assert allowed or answer["complete"], f"llama.cpp allows nothing after {out!r}"
            if answer["complete"] and (not allowed or len(out) >= budget or rng.randrange(4) == 0):
                return out.encode()
            if len(out) >= budget:
                # Steer towards the end: close what is open, else take punctuation (the
                # "@" a pattern may still need), never more digits or whitespace.
                allowed = ([c for c in allowed if c in '"]}']
                           or [c for c in allowed if c < "\x7f" and not c.isalnum()
                               and c not in " \t\r\n"]
                           or [c for c in allowed if c not in "0123456789 \t\r\n"] or allowed)
            out += rng.choice(allowed)

    def spell(self, value: Any) -> bytes:
        """``value`` as JSON the grammar takes: at most 16 digits per part of a number."""
        if isinstance(value, dict):
            return b"{" + b",".join(self.spell(k) + b":" + self.spell(v)
                                    for k, v in value.items()) + b"}"
        if isinstance(value, list):
            return b"[" + b",".join(self.spell(v) for v in value) + b"]"
        if isinstance(value, float) and math.isfinite(value):
            text = orjson.dumps(value)
            if all(len(part) <= 16 for part in text.lstrip(b"-").split(b"e")[0].split(b".")):
                return text
            # 17 significant digits in exponent form: one integral digit, 16 fraction ones.
            mantissa, exponent = f"{value:.16e}".split("e")
            return f"{mantissa}e{int(exponent)}".encode()
        text = orjson.dumps(value)
        return text.replace(b"\x7f", b"\\u007f")  # a raw DEL is refused

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.process.kill()
            self.process.wait()
        for pipe in (self.process.stdin, self.process.stdout):
            if pipe is not None:
                pipe.close()



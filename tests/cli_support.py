"""Helpers for the command-line tests that must run the CLI in a subprocess (with a timeout).

The TARGET module of ``target_module`` acts on marker lines, once, in whichever process
decodes the line: a ``city`` of ``!rename|A|B`` renames A over B, ``!unlink|P`` deletes P,
``!sleep|READY|S`` creates READY and sleeps S seconds. Each execution of the module is
logged, so a test can count how many processes ran it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src"
EXAMPLES = ROOT / "examples"
TIMEOUT = 60


def env() -> dict[str, str]:
    """The environment of a CLI run: this tree's sources first."""
    e = dict(os.environ)
    e["PYTHONPATH"] = os.pathsep.join(p for p in (str(SRC), e.get("PYTHONPATH", "")) if p)
    e.pop("PYTHONSTARTUP", None)
    return e


def cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "describedtypes", *args]


def run(*args: str, cwd: Path | str | None = None, timeout: float = TIMEOUT,
        **kw: Any) -> subprocess.CompletedProcess[str]:
    """Run the CLI to its end (or fail after ``timeout`` seconds)."""
    return subprocess.run(cli(*args), cwd=cwd, env=env(), capture_output=True, text=True,
                          timeout=timeout, check=False, **kw)


def popen(*args: str, cwd: Path | str | None = None, **kw: Any) -> subprocess.Popen[bytes]:
    kw.setdefault("stdout", subprocess.PIPE)
    kw.setdefault("stderr", subprocess.PIPE)
    return subprocess.Popen(cli(*args), cwd=cwd, env=env(), **kw)


def children(pid: int) -> list[int]:
    """The direct children of ``pid`` (from Linux /proc)."""
    found: list[int] = []
    task = Path(f"/proc/{pid}/task")
    for t in task.iterdir() if task.exists() else []:
        try:
            found += [int(x) for x in (t / "children").read_text().split()]
        except FileNotFoundError:
            continue
    return found


def alive(pid: int) -> bool:
    """Running and not a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def wait_for(predicate: Any, timeout: float = 120.0, step: float = 0.05) -> bool:
    """Whether ``predicate()`` comes true within ``timeout`` seconds: a hang guard, generous
    so that a busy machine never decides a test."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(step)
    return bool(predicate())


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [orjson.loads(x) for x in path.read_bytes().splitlines() if x.strip()]


TARGET_SOURCE = '''
import os, time, enum
import attrs

with open(os.environ["DT_TEST_LOG"], "a") as _log:
    _log.write(f"{os.getpid()}\\n")


def _act(instance, attribute, value):
    if not value.startswith("!"):
        return
    verb, *rest = value[1:].split("|")
    flag = os.environ["DT_TEST_LOG"] + "." + verb
    if os.path.exists(flag):
        return
    open(flag, "w").close()
    if verb == "rename":
        os.replace(rest[0], rest[1])
    elif verb == "unlink":
        os.unlink(rest[0])
    elif verb == "sleep":
        open(rest[0], "w").close()
        time.sleep(float(rest[1]))


class Unit(enum.Enum):
    CELSIUS = "celsius"
    FAHRENHEIT = "fahrenheit"


@attrs.frozen
class Weather:
    city: str = attrs.field(validator=_act)
    temperature: int
    unit: Unit
'''


def target_module(tmp_path: Path) -> tuple[str, Path]:
    """``(TARGET, log)``; the caller sets ``DT_TEST_LOG`` to ``log`` (monkeypatch.setenv)."""
    module = tmp_path / "acting_target.py"
    module.write_text(TARGET_SOURCE)
    return f"{module}:Weather", tmp_path / "executions.log"


def openai_line(custom_id: str, reply: dict[str, Any]) -> bytes:
    body = {
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt-4o",
        "choices": [{"index": 0, "finish_reason": "stop", "logprobs": None,
                     "message": {"role": "assistant", "refusal": None,
                                 "content": orjson.dumps(reply).decode()}}],
    }
    return orjson.dumps({"id": "batch_req_1", "custom_id": custom_id,
                         "response": {"status_code": 200, "request_id": "r", "body": body},
                         "error": None})


def weather(i: int, city: str | None = None, unit: str = "celsius") -> dict[str, Any]:
    return {"city": city or f"City {i}", "temperature": i % 40, "unit": unit}


def write_lines(path: Path, lines: list[bytes]) -> Path:
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


def big_file(path: Path, n: int, prefix: str, first_city: str | None = None,
             pad: int = 0) -> Path:
    """``n`` OpenAI Batch lines; the first one's city may be a marker."""
    lines = [openai_line(f"{prefix}-{i}", weather(i, (first_city if i == 0 else None) or
                                                  f"City {i}{'.' * pad}"))
             for i in range(n)]
    return write_lines(path, lines)

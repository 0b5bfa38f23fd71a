"""Run a scenario that could hang or leak in a fresh interpreter, with a timeout.

The runtime tests (memory kept alive by caches, deadlocks between threads, tools that never
return) must never hang the suite: each scenario runs in a child process that is killed when
its time is up, and the test fails with what the child printed.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

SRC = str(Path(__file__).resolve().parents[2] / "src")


def run_isolated(code: str, *, timeout: float = 60.0) -> str:
    """Run *code* in a new Python process; return its stdout, fail on error or timeout."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (SRC, env.get("PYTHONPATH", "")) if p)
    try:
        done = subprocess.run(
            [sys.executable, "-c", textwrap.dedent(code)],
            capture_output=True,
            text=True,
            timeout=timeout,
            env=env,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout or ""
        err = exc.stderr or ""
        raise AssertionError(
            f"scenario did not finish in {timeout} s (a hang or deadlock)\n"
            f"stdout:\n{out}\nstderr:\n{err}"
        ) from None
    if done.returncode != 0:
        raise AssertionError(
            f"scenario exited with {done.returncode}\nstdout:\n{done.stdout}\n"
            f"stderr:\n{done.stderr}"
        )
    return done.stdout

"""Task functions for the worker-pool scenarios (importable by name in the workers)."""

from __future__ import annotations

import os
import time

STATE: dict[str, int] = {}


def setup(offset: int) -> None:
    STATE["offset"] = offset


def broken_setup() -> None:
    msg = "the setup failed"
    raise LookupError(msg)


def square(x: int) -> tuple[int, int]:
    time.sleep(0.001 * (x % 7))  # finish out of order
    return x, x * x + STATE.get("offset", 0)


def fail_on_three(x: int) -> int:
    if x == 3:
        msg = f"task {x} failed"
        raise ValueError(msg)
    return x


def die_on_three(x: int) -> int:
    if x == 3:
        os._exit(7)
    return x


def big(x: int) -> bytes:
    return bytes([x % 256]) * 300_000  # larger than a pipe's buffer


def whose(x: int) -> tuple[int, int]:
    time.sleep(0.002)
    return x, os.getpid()

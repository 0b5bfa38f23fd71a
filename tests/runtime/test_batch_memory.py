"""decode_batch() keeps nothing between lines: resident memory stays flat over a long file."""

from __future__ import annotations

import sys

import pytest

from .isolated import run_isolated

SCENARIO = """
import io, sys
sys.path.insert(0, {root!r})
from describedtypes import decode_batch
from tests.batch_lines import Weather, chat_completion, openai_line, weather_reply

def rss_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096 / 2**20

def lines(n):
    for i in range(n):
        reply = weather_reply(i)
        if i % 10 == 9:
            reply = reply.replace('"celsius"', '"kelvin"')
        yield openai_line(f"request-{{i}}", chat_completion(reply))

marks = {{}}
n = 150_000
for r in decode_batch(Weather, lines(n)):
    if r.line in (n // 3, n):
        marks[r.line] = rss_mb()
print(marks[n // 3], marks[n])
"""


@pytest.mark.slow  # measures memory over a long batch in a subprocess
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/statm")
def test_memory_stays_flat_over_a_long_batch() -> None:
    from pathlib import Path

    root = str(Path(__file__).resolve().parents[2])
    early, late = map(float, run_isolated(SCENARIO.format(root=root), timeout=300).split())
    # 100,000 more results (and their errors) went by: none of them may be kept.
    assert late - early < 5.0, (early, late)

"""Profiles: bodies built through a profile against the built-in adapter (same run), and
what a full ``describedtypes probe`` run costs against a local llguidance server.

Run: python benchmarks/bench_profiles.py
The build is timed uncached (``_schema.schema.build``), the 15-class model of
bench_schema, for VLLM, LLAMACPP and OPENAI each: the built-in adapter is the peer, the
same adapter rebuilt from its own profile (``adapter.replace(profile=adapter.profile)``,
which gives byte-identical bodies) is ours. The probe row is its requests and seconds
for all its checks against tests/probe_server.py (127.0.0.1, the real llguidance
constraining a "model" that tries to break every keyword).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent.parent))

from _common import Row, best_of_turns
from _models import build_attrs

from describedtypes import LLAMACPP, OPENAI, VLLM
from describedtypes._schema.schema import build


def run(quick: bool) -> list[Row]:
    """The rows for ``run_all.py``."""
    root = build_attrs()
    rows = []
    number, rounds = (5, 3) if quick else (50, 7)
    for adapter in (VLLM, LLAMACPP, OPENAI):
        profiled = adapter.replace(profile=adapter.profile, name=adapter.name)
        assert build(root, profiled, False)[0] == build(root, adapter, False)[0]
        times = best_of_turns({
            "built-in": lambda a=adapter: build(root, a, False),
            "profile": lambda a=profiled: build(root, a, False),
        }, number, rounds)
        rows.append(Row(f"body through a profile, {adapter.name}, 15 classes",
                        times["profile"], f"built-in {adapter.name}", times["built-in"]))
    rows.extend(_probe(quick))
    return rows


def _probe(quick: bool) -> list[Row]:
    try:
        from tests.probe_server import base_url, serving
    except ImportError:  # llguidance (the test extra) is not installed
        return []
    from describedtypes._cli.probe import CASES, Probe

    cases = CASES[:6] if quick else CASES
    with serving() as server:
        probe = Probe(base_url(server), "bench")
        started = time.perf_counter()
        probe.run(cases)
        seconds = time.perf_counter() - started
    label = f"probe, {len(cases)} checks vs local llguidance"
    return [Row(f"{label}: wall time", seconds),
            Row(f"{label}: requests", probe.requests, unit="requests")]


if __name__ == "__main__":
    for row in run(quick="--quick" in sys.argv):
        theirs = f"  ({row.peer}: {row.theirs:.6f})" if row.theirs is not None else ""
        print(f"{row.case}: {row.ours:.6f} {row.unit}{theirs}")

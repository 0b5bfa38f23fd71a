"""The worker processes of ``decode --jobs``: results in order, errors raised, no hangs."""

from __future__ import annotations

from .isolated import run_isolated

PRELUDE = """
import sys
sys.path.insert(0, {root!r})
from describedtypes._batch.workers import Workers, WorkerError
from tests.runtime import workers_fns as f
"""


def scenario(body: str) -> str:
    from pathlib import Path

    root = str(Path(__file__).resolve().parents[2])
    return run_isolated(PRELUDE.format(root=root) + body, timeout=120)


def test_results_come_back_in_task_order_with_few_in_flight() -> None:
    out = scenario("""
with Workers(2, f.square, f.setup, (1,)) as workers:
    got = list(workers.map(iter(range(200)), window=8, depth=2))
assert got == [(x, x * x + 1) for x in range(200)], got[:10]
with Workers(3, f.big, f.setup, (0,)) as workers:  # results larger than a pipe buffer
    sizes = [len(b) for b in workers.map(range(20), window=4, depth=1)]
assert sizes == [300_000] * 20
print("ok")
""")
    assert out.strip() == "ok"


def test_the_parent_does_tasks_too_while_it_waits() -> None:
    out = scenario("""
import os
with Workers(1, f.whose, f.setup, (0,)) as workers:
    got = list(workers.map(range(60), window=8, depth=2, local=f.whose))
assert [x for x, _ in got] == list(range(60))
pids = {pid for _, pid in got}
assert os.getpid() in pids and len(pids) == 2, pids
print("ok")
""")
    assert out.strip() == "ok"


def test_an_error_in_a_task_is_raised_in_the_parent_in_order() -> None:
    out = scenario("""
for local in (None, f.fail_on_three):  # failing in a worker, or maybe in the parent
    seen = []
    try:
        with Workers(2, f.fail_on_three, f.setup, (0,)) as workers:
            for x in workers.map(range(10), window=4, depth=2, local=local):
                seen.append(x)
    except ValueError as exc:
        print(seen, exc)
""")
    assert out.splitlines() == ["[0, 1, 2] task 3 failed"] * 2


def test_a_dead_worker_is_an_error_not_a_hang() -> None:
    out = scenario("""
try:
    with Workers(2, f.die_on_three, f.setup, (0,)) as workers:
        list(workers.map(range(10), window=4, depth=2))
except WorkerError as exc:
    print(exc)
""")
    assert out.startswith("a worker process ended unexpectedly (exit code 7)")


def test_a_failed_setup_is_raised_with_the_first_result() -> None:
    out = scenario("""
try:
    with Workers(2, f.square, f.broken_setup, ()) as workers:
        list(workers.map(range(10), window=4, depth=2))
except LookupError as exc:
    print(exc)
""")
    assert out.strip() == "the setup failed"

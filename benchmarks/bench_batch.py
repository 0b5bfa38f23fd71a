"""Batch results at scale: ``describedtypes decode --jobs 1`` vs ``--jobs 2``, and flat memory.

Run: python benchmarks/bench_batch.py [--lines 200000] [--rss-lines 1000000] [--repeat 3]

1. Throughput. An OpenAI Batch output file of ``--lines`` lines (Chat Completions bodies
   whose reply decodes into a three-field class; one in ten does not match) is decoded by
   the command line with ``--jobs 1`` and ``--jobs 2`` (each in a fresh process, best of
   ``--repeat``), and, as the peer, by the loop a user writes by hand today
   (``orjson.loads`` per line, ``decode_response`` on the body, ``try``/``except``, one
   JSON line out). Printed: lines/s, the ratio, and CPU seconds, since wall time on a
   shared machine says as much about the neighbours as about the code: the CPU figures
   show the work the workers add (pickling chunks, the ordered writer).
2. Memory. A file of ``--rss-lines`` lines is read with ``decode_batch`` in a fresh
   process that records its resident set size every tenth of the way; the figures stay
   flat (nothing is kept between lines).

``run(quick)`` gives ``run_all.py`` part 1 as rows (2,000 lines with ``quick``).
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).parent))

from _common import Row  # noqa: E402
from tests.batch_lines import chat_completion, openai_line, weather_reply  # noqa: E402

TARGET = str(ROOT / "tests" / "batch_lines.py") + ":Weather"


def environment(src: Path) -> dict[str, str]:
    """The environment of the measured processes: ``describedtypes`` from ``src``."""
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(src), str(ROOT)])}


#: As a script: this checkout's package. ``run()`` uses the one ``run_all.py`` chose.
ENV = environment(ROOT / "src")


def write_file(path: Path, n: int) -> int:
    """An OpenAI Batch output file of ``n`` lines, written in blocks; returns its size."""
    with path.open("wb") as out:
        block: list[bytes] = []
        for i in range(n):
            reply = weather_reply(i)
            if i % 10 == 9:
                reply = reply.replace('"celsius"', '"kelvin"')
            block.append(openai_line(f"request-{i}", chat_completion(reply)))
            if len(block) == 10_000:
                out.write(b"\n".join(block) + b"\n")
                block = []
        if block:
            out.write(b"\n".join(block) + b"\n")
    return path.stat().st_size


HAND_LOOP = """
import sys, orjson
from describedtypes import decode_response, DecodeError
from tests.batch_lines import Weather
with open(sys.argv[1], "rb") as f, open(sys.argv[2], "wb") as ok, open(sys.argv[3], "wb") as bad:
    for n, line in enumerate(f, 1):
        try:
            row = orjson.loads(line)
            value = decode_response(Weather, row["response"]["body"])
        except (DecodeError, ValueError, KeyError, TypeError) as exc:
            bad.write(orjson.dumps({"line": n, "error": str(exc)}) + b"\\n")
        else:
            ok.write(orjson.dumps({"line": n, "custom_id": row["custom_id"],
                                   "value": {"city": value.city,
                                             "temperature": value.temperature,
                                             "unit": value.unit.value}}) + b"\\n")
"""


def timed(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall seconds and CPU seconds (the process and all its workers) of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, env=env, check=False, capture_output=True, timeout=3600)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode not in (0, 1):  # 1: some lines did not decode, as intended
        last = (done.stderr.decode(errors="replace").strip().splitlines() or ["no output"])[-1]
        raise RuntimeError(f"{argv[1:4]} exited with {done.returncode}: {last}")
    return wall, cpu


def lines_in(path: str) -> int:
    with open(path, "rb") as f:
        return sum(1 for _ in f)


def measure(path: Path, n: int, repeat: int, tmp: Path,
            env: dict[str, str]) -> dict[str, tuple[float, float]]:
    """Best wall seconds (and that run's CPU seconds) of each way to decode the file."""
    out, err = str(tmp / "ok.jsonl"), str(tmp / "err.jsonl")
    runs = {
        "hand-written loop": [sys.executable, "-c", HAND_LOOP, str(path), out, err],
        "decode --jobs 1": [sys.executable, "-m", "describedtypes", "decode", TARGET,
                            str(path), "--out", out, "--errors", err, "--jobs", "1"],
        "decode --jobs 2": [sys.executable, "-m", "describedtypes", "decode", TARGET,
                            str(path), "--out", out, "--errors", err, "--jobs", "2"],
    }
    best: dict[str, tuple[float, float]] = {}
    for _ in range(repeat):  # interleaved, so a noisy neighbour hits every variant
        for name, argv in runs.items():
            wall, cpu = timed(argv, env)
            counts = lines_in(out), lines_in(err)
            if counts != (n - n // 10, n // 10):  # every tenth line does not match
                raise RuntimeError(f"{name}: {counts} lines decoded and failed, of {n}")
            if name not in best or wall < best[name][0]:
                best[name] = (wall, cpu)
    return best


def throughput(path: Path, n: int, repeat: int, tmp: Path) -> None:
    best = measure(path, n, repeat, tmp, ENV)
    print(f"{n:,} lines, best of {repeat}; load average {os.getloadavg()[0]:.1f} "
          f"on {os.cpu_count()} cores")
    print(f"{'':<20}{'lines/s':>12}{'wall s':>9}{'CPU s':>8}")
    for name, (wall, cpu) in best.items():
        print(f"{name:<20}{n / wall:>12,.0f}{wall:>9.2f}{cpu:>8.2f}")
    one, two = best["decode --jobs 1"], best["decode --jobs 2"]
    hand = best["hand-written loop"]
    print(f"--jobs 2 / --jobs 1 (lines/s): {one[0] / two[0]:.2f}x")
    print(f"--jobs 1 / hand-written loop (lines/s): {hand[0] / one[0]:.2f}x")
    # With two idle cores the wall time of --jobs 2 is about its CPU time over two, as
    # long as the parent (reading, writing) is not the bottleneck.
    print(f"CPU cost of --jobs 2 over --jobs 1: {two[1] / one[1]:.2f}x; "
          f"speed-up on two idle cores, at most: {2 * one[1] / two[1]:.2f}x")


RSS_PROBE = """
import sys
from describedtypes import decode_batch
from tests.batch_lines import Weather

def rss_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096 / 2**20

n = int(sys.argv[2])
marks = {max(1, n * k // 10) for k in range(1, 11)}
counts = {}
for r in decode_batch(Weather, sys.argv[1]):
    counts[r.outcome] = counts.get(r.outcome, 0) + 1
    if r.line in marks:
        print(f"{r.line:>10,}  {rss_mb():8.1f}", flush=True)
print("outcomes", counts)
"""


def memory(path: Path, n: int) -> None:
    if not Path("/proc/self/statm").exists():
        print("(no /proc/self/statm: the memory part runs on Linux only)")
        return
    print(f"\nresident set size while decode_batch reads {n:,} lines")
    print(f"{'line':>10}  {'RSS MB':>8}")
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(RSS_PROBE), str(path), str(n)],
                          env=ENV, check=True, capture_output=True, text=True, timeout=3600)
    sys.stdout.write(done.stdout)


def run(quick: bool) -> list[Row]:
    """The rows for ``run_all.py``: seconds per line (1 / lines/s) of the command line with
    ``--jobs 1`` and ``--jobs 2`` against the hand-written loop.

    These are wall-clock times of whole processes (start-up included): ``--jobs 2`` only
    pays off in wall time, and on a busy machine its figure is mostly the neighbours'.
    The CPU rows add up the process and its workers.
    """
    import describedtypes

    env = environment(Path(describedtypes.__file__).resolve().parent.parent)
    n, repeat = (2_000, 2) if quick else (200_000, 3)
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        path = tmp / "batch.jsonl"
        write_file(path, n)
        best = measure(path, n, repeat, tmp, env)
    hand, one, two = best["hand-written loop"], best["decode --jobs 1"], best["decode --jobs 2"]
    lines = f"{n:,} lines"
    return [
        Row(f"CLI decode --jobs 1, {lines}, wall s/line incl. start-up", one[0] / n,
            "hand-written loop (wall)", hand[0] / n),
        Row(f"CLI decode --jobs 2, {lines}, wall s/line incl. start-up", two[0] / n,
            "hand-written loop (wall)", hand[0] / n),
        Row(f"CLI decode --jobs 2, {lines}, wall s/line incl. start-up", two[0] / n,
            "decode --jobs 1 (wall)", one[0] / n),
        Row(f"CLI decode --jobs 1, {lines}, CPU s/line", one[1] / n,
            "hand-written loop (CPU)", hand[1] / n),
        Row(f"CLI decode --jobs 2, {lines}, CPU s/line, all processes", two[1] / n,
            "decode --jobs 1 (CPU)", one[1] / n),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=200_000)
    parser.add_argument("--rss-lines", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        small = tmp / "batch.jsonl"
        size = write_file(small, args.lines)
        print(f"input: {size / 2**20:.0f} MB\n")
        throughput(small, args.lines, args.repeat, tmp)
        if args.rss_lines:
            big = tmp / "big.jsonl"
            size = write_file(big, args.rss_lines)
            print(f"\ninput: {size / 2**20:.0f} MB")
            memory(big, args.rss_lines)


if __name__ == "__main__":
    main()

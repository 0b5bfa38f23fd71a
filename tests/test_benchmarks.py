"""benchmarks/run_all.py runs every benchmark to the end and prints one table.

Only that it runs: timings on a shared machine are noise, and no test here reads them.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def test_run_all_quick_completes_and_prints_a_table() -> None:
    """run_all.py --quick exits 0 and prints a table with a row for every benchmark."""
    modules = sorted(p.stem.removeprefix("bench_") for p in BENCHMARKS.glob("bench_*.py"))
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / "run_all.py"), "--quick"],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("benchmark "))
    assert lines[header].split()[:2] == ["benchmark", "case"]
    assert set(lines[header + 1]) <= {"-", " "}
    rows = lines[header + 2 :]
    shown = {row.split()[0] for row in rows if row.strip()}
    assert set(modules) <= shown, done.stdout

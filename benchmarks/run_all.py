"""Run every benchmark in this folder and print all the ratios in one table.

Run: python benchmarks/run_all.py [--quick] [--runs N] [--only NAME ...] [--baseline SRC]
[--json FILE]

Every ``bench_*.py`` module next to this file that defines ``run(quick: bool) -> list[Row]``
(``Row`` is in ``_common.py``) is run in a fresh interpreter of its own, so one benchmark's
caches, imports and garbage never slow another's. Each row is one case: describedtypes'
time and a peer's time measured in the same process, and their ratio (below 1: ahead).

- ``--quick``: few repetitions; the figures are noisy and only show that everything runs
  (CI runs this; it never fails on timings).
- ``--runs N``: run each module N times (3 by default, 1 with ``--quick``), each in a
  fresh interpreter, and keep the best of the N: for each row, the smallest time of
  describedtypes and of the peer (each measured beside the other in its run), their
  ratio, and the range of the N same-run ratios, to show how noisy the machine was.
- ``--only NAME``: just these modules (``bench_decode`` or ``decode``).
- ``--baseline SRC``: also run each benchmark against another copy of the package
  (a ``src`` folder, e.g. from ``git archive``), interleaved with this one, and print
  before/after columns side by side: a before/after table from one run.
- ``--json FILE``: also write the rows as JSON.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"


def discover(only: list[str] | None = None) -> list[str]:
    """The benchmark module names, in file-name order."""
    names = sorted(p.stem for p in HERE.glob("bench_*.py"))
    if only:
        wanted = {n if n.startswith("bench_") else f"bench_{n}" for n in only}
        unknown = wanted - set(names)
        if unknown:
            msg = f"no such benchmark: {', '.join(sorted(unknown))}; there are {', '.join(names)}"
            raise SystemExit(msg)
        names = [n for n in names if n in wanted]
    return names


def child(name: str, quick: bool, out: str) -> None:
    """Run one module's ``run()`` in this process and write its rows to ``out``."""
    sys.path.insert(0, str(HERE))
    module = importlib.import_module(name)
    run = getattr(module, "run", None)
    if run is None:
        rows: Any = {"skipped": "defines no run(quick) -> list[Row]"}
    else:
        rows = [dataclasses.asdict(row) for row in run(quick)]
    Path(out).write_text(json.dumps(rows))


def run_module(name: str, quick: bool, src: Path) -> tuple[list[dict[str, Any]] | str, float]:
    """Rows of one module run in a child interpreter importing the package from ``src``."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(src), env.get("PYTHONPATH")) if p)
    with tempfile.TemporaryDirectory() as tmp:
        out = str(Path(tmp) / "rows.json")
        command = [sys.executable, str(Path(__file__).resolve()), "--child", name, "--out", out]
        if quick:
            command.append("--quick")
        started = time.perf_counter()
        try:
            done = subprocess.run(
                command,
                env=env,
                capture_output=True,
                text=True,
                timeout=600 if quick else 3600,
                check=False,
            )
        except subprocess.TimeoutExpired:
            return "timed out", time.perf_counter() - started
        took = time.perf_counter() - started
        if done.returncode != 0:
            last = (done.stderr.strip().splitlines() or ["(no output)"])[-1]
            return f"failed: {last}", took
        rows = json.loads(Path(out).read_text())
    if isinstance(rows, dict):
        return str(rows["skipped"]), took
    return rows, took


def best_of(runs: list[list[dict[str, Any]] | str]) -> list[dict[str, Any]] | str:
    """One set of rows from several runs of a module: per row, the best time of each side.

    A run that failed or was skipped stands for all of them if no run gave rows.
    """
    good = [rows for rows in runs if not isinstance(rows, str)]
    if not good:
        return runs[0]
    merged: dict[tuple[str, str], dict[str, Any]] = {}
    for rows in good:
        for row in rows:
            key = (row["case"], row["peer"])
            ratio = row["ours"] / row["theirs"] if row.get("theirs") else None
            kept = merged.get(key)
            if kept is None:
                kept = merged[key] = dict(row, ratios=[])
            else:
                kept["ours"] = min(kept["ours"], row["ours"])
                if row.get("theirs") is not None:
                    kept["theirs"] = min(kept["theirs"], row["theirs"])
            if ratio is not None:
                kept["ratios"].append(ratio)
    return list(merged.values())


def _spread(row: dict[str, Any]) -> str:
    ratios = row.get("ratios") or []
    if len(ratios) < 2:
        return ""
    return f"{min(ratios):.2f}-{max(ratios):.2f}x"


def _us(seconds: float | None, unit: str = "seconds") -> str:
    if seconds is None:
        return ""
    if unit != "seconds":  # a size, such as a schema's tokens
        return f"{seconds:,.0f} {unit}"
    if seconds >= 0.1:
        return f"{seconds * 1e3:,.0f} ms"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds * 1e6:.2f} µs"


def _ratio(row: dict[str, Any] | None) -> str:
    if row is None or not row.get("theirs"):
        return ""
    return f"{row['ours'] / row['theirs']:.2f}x"


def table(results: dict[str, Any], baseline: dict[str, Any] | None) -> str:
    """The one table: a line per row, grouped by benchmark."""
    header = ["benchmark", "case", "peer", "peer time"]
    header += ["before", "before/peer", "after", "after/peer"] if baseline else ["ours", "/peer"]
    header += ["runs' /peer", "goal"]
    lines: list[list[str]] = []
    notes: list[str] = []
    for name, rows in results.items():
        before = baseline.get(name) if baseline else None
        if isinstance(rows, str):
            notes.append(f"{name}: {rows}")
            continue
        if isinstance(before, str):
            notes.append(f"{name} (baseline): {before}")
            before = None
        old = {(r["case"], r["peer"]): r for r in before or []}
        for row in rows:
            peer = row["peer"] or "-"
            unit = row.get("unit", "seconds")
            cells = [name.removeprefix("bench_"), row["case"], peer, _us(row["theirs"], unit)]
            if baseline is not None:
                prior = old.get((row["case"], row["peer"]))
                cells += [_us(prior["ours"], unit) if prior else "-", _ratio(prior)]
            cells += [_us(row["ours"], unit), _ratio(row), _spread(row), row.get("goal", "")]
            lines.append(cells)
    widths = [max(len(c) for c in col) for col in zip(header, *lines, strict=True)]
    left = {0, 1, 2, len(header) - 1}

    def fmt(cells: list[str]) -> str:
        pairs = enumerate(zip(cells, widths, strict=True))
        return "  ".join(c.ljust(w) if i in left else c.rjust(w) for i, (c, w) in pairs).rstrip()

    out = [fmt(header), fmt(["-" * w for w in widths])]
    out += [fmt(cells) for cells in lines]
    out += notes
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="few repetitions (CI)")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="just these benchmarks")
    parser.add_argument(
        "--runs", type=int, metavar="N", help="best of N runs of each (3; --quick: 1)"
    )
    parser.add_argument("--baseline", type=Path, metavar="SRC", help="a src folder to compare")
    parser.add_argument("--json", type=Path, metavar="FILE", help="also write the rows here")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args.child, args.quick, args.out)
        return 0
    if args.baseline and not (args.baseline / "describedtypes").is_dir():
        parser.error(f"--baseline {args.baseline} holds no describedtypes package")

    results: dict[str, Any] = {}
    baseline: dict[str, Any] | None = {} if args.baseline else None
    failed = False
    runs = args.runs if args.runs is not None else (1 if args.quick else 3)
    if runs < 1:
        parser.error("--runs must be at least 1")
    for name in discover(args.only):
        ours: list[Any] = []
        before: list[Any] = []
        for turn in range(runs):  # the two copies take turns, so both meet the same noise
            if baseline is not None:
                rows, took = run_module(name, args.quick, args.baseline)
                before.append(rows)
                print(f"{name} (baseline, run {turn + 1}): {took:.1f} s", file=sys.stderr,
                      flush=True)
            rows, took = run_module(name, args.quick, SRC)
            ours.append(rows)
            print(f"{name} (run {turn + 1}): {took:.1f} s", file=sys.stderr, flush=True)
        if baseline is not None:
            baseline[name] = best_of(before)
        results[name] = outcome = best_of(ours)
        failed = failed or (isinstance(outcome, str) and outcome.startswith(("failed", "timed")))
    mode = "quick mode: noisy figures, for checking that every benchmark runs" if args.quick else (
        f"same-run ratios, best of {runs} runs: describedtypes' time / the peer's "
        "(below 1: describedtypes is faster)"
    )
    print(f"describedtypes benchmarks, Python {sys.version.split()[0]}; {mode}")
    print(table(results, baseline))
    if args.json:
        args.json.write_text(json.dumps({"after": results, "before": baseline}, indent=1))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

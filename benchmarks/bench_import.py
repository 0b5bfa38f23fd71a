"""Time to ``import describedtypes``, against ``import pydantic`` plus a first ``TypeAdapter``.

Run: python benchmarks/bench_import.py

Each import runs in a fresh interpreter (nothing cached in ``sys.modules``), timed inside
that interpreter from just before the import to just after (its CPU time, as every
benchmark here), so interpreter start-up is left out. pydantic imports most of itself
lazily, on first use, so its figure includes ``TypeAdapter(int)``: the least a program
does before it can validate anything. The figure is the median of many runs;
``python -X importtime -c "import describedtypes"`` shows where the time goes.

Every package is imported from bytecode, as after ``pip install``: the runs share a
temporary ``PYTHONPYCACHEPREFIX`` that an untimed first run of each case fills, even when
the environment sets ``PYTHONDONTWRITEBYTECODE`` (compiling from source would add tens of
milliseconds to whichever package happens to have no ``.pyc`` files).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from _common import Row

TIMED = """\
import time
started = time.process_time()
{body}
print(time.process_time() - started)
"""

CASES = {
    "describedtypes": "import describedtypes",
    "pydantic": "import pydantic\npydantic.TypeAdapter(int)",
    "msgspec": "import msgspec\nmsgspec.json.Decoder(int)",
    # The import is lazy (each name loads its modules when first read), so the fair
    # comparison of first use is a first decode against a first validation.
    "describedtypes first decode": "import describedtypes\ndescribedtypes.decode(int, '1')",
    "pydantic first validate": "import pydantic\npydantic.TypeAdapter(int).validate_json('1')",
}


def import_seconds(body: str, pycache: str) -> float:
    """Seconds that ``body`` takes in a fresh interpreter, bytecode kept in ``pycache``."""
    env = dict(os.environ, PYTHONPYCACHEPREFIX=pycache)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    done = subprocess.run(
        [sys.executable, "-c", TIMED.format(body=body)],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
        env=env,
    )
    return float(done.stdout.strip().splitlines()[-1])


def measure(runs: int) -> dict[str, float]:
    """Median seconds of each case, the cases taking turns."""
    times: dict[str, list[float]] = {name: [] for name in CASES}
    with tempfile.TemporaryDirectory() as pycache:
        for body in CASES.values():
            import_seconds(body, pycache)
        for _ in range(runs):
            for name, body in CASES.items():
                times[name].append(import_seconds(body, pycache))
    return {name: statistics.median(values) for name, values in times.items()}


def run(quick: bool) -> list[Row]:
    """The rows for ``run_all.py``."""
    results = measure(3 if quick else 15)
    ours = results["describedtypes"]
    return [
        Row("import describedtypes", ours, "pydantic + TypeAdapter(int)", results["pydantic"],
            goal="<= 0.6x"),
        Row("import describedtypes", ours, "msgspec + Decoder(int)", results["msgspec"]),
        Row("import + first decode(int, '1')", results["describedtypes first decode"],
            "pydantic + first validate_json", results["pydantic first validate"]),
    ]


def main() -> None:
    results = measure(15)
    print(f"{'import (median of 15 fresh interpreters)':<44}{'ms':>8}")
    for name, seconds in results.items():
        print(f"{name + ' ' + CASES[name].splitlines()[-1]:<44}{seconds * 1e3:>8.1f}")


if __name__ == "__main__":
    main()

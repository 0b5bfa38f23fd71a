"""What every benchmark module returns to ``run_all.py``, and the shared timers.

The timers count the CPU time of the benchmark's own process (``time.process_time``), not
wall-clock time: on a shared machine other processes then slow the figures down much
less (they still share the caches), and the ratios measured in one run stay comparable.
"""

from __future__ import annotations

import statistics
import time
import timeit
from collections.abc import Callable
from dataclasses import dataclass

#: The clock every benchmark uses: this process's CPU time.
TIMER = time.process_time


@dataclass(frozen=True)
class Row:
    """One measured case: describedtypes' time, and a peer's time from the same run.

    ``peer`` is empty (and ``theirs`` ``None``) for a figure with nothing to compare to,
    such as the time of a cached call. A case with several peers is several rows.
    ``unit`` is ``"seconds"`` for a time; a size (``"tokens"``, ``"bytes"``) is shown as
    a count. ``goal`` is the figure the row is held to, as shown (``"<= 0.5x"``, the
    ratio; ``"< 1 µs"``, the time), for the rows that have one.
    """

    case: str
    ours: float
    peer: str = ""
    theirs: float | None = None
    unit: str = "seconds"
    goal: str = ""

    @property
    def ratio(self) -> float | None:
        """describedtypes' time over the peer's: below 1 means describedtypes is faster."""
        if self.theirs is None or self.theirs <= 0:
            return None
        return self.ours / self.theirs


def per_call(fn: Callable[[], object], number: int, repeat: int = 7) -> float:
    """Median seconds per call over ``repeat`` runs of ``number`` calls."""
    number = max(number, 1)
    return statistics.median(timeit.repeat(fn, number=number, repeat=repeat, timer=TIMER)) / number


def best_of_turns(
    candidates: dict[str, Callable[[], object]], number: int, rounds: int
) -> dict[str, float]:
    """Best seconds per call of each candidate, the candidates taking turns each round.

    Taking turns spreads a busy machine's noise over all of them alike, and the best
    round is the one least disturbed.
    """
    number = max(number, 1)
    best = {name: float("inf") for name in candidates}
    for _ in range(max(rounds, 1)):
        for name, fn in candidates.items():
            best[name] = min(best[name], timeit.timeit(fn, number=number, timer=TIMER) / number)
    return best

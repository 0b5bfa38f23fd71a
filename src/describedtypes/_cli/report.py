"""What a ``describedtypes decode`` run tells as it goes and at its end: the progress bar,
the tally of what was written, and the summary table."""

from __future__ import annotations

import collections
import importlib
from typing import Any

import attrs

from .._batch.summary import summary_table

#: Distinct error paths counted; past that the rarest are dropped (counts become floors).
MAX_PATHS = 10_000


@attrs.define
class Tally:
    """Strictly private: what has been written so far, kept by the run (``decode.py``)
    across a Ctrl-C."""

    counts: collections.Counter[str] = attrs.Factory(collections.Counter)
    paths: collections.Counter[str] = attrs.Factory(collections.Counter)
    path_lines: int = 0
    trimmed: bool = False

    def add_paths(self, paths: collections.Counter[str]) -> None:
        """Count error paths, holding at most ``MAX_PATHS`` of them."""
        self.paths.update(paths)
        if len(self.paths) > MAX_PATHS:
            kept = self.paths.most_common(MAX_PATHS // 2)
            self.paths = collections.Counter(dict(kept))
            self.trimmed = True


def progress_bar(total: int | None, stream: Any) -> Any:
    """A tqdm bar over the input's bytes when ``stream`` is a terminal and tqdm is installed."""
    try:
        if not stream.isatty():
            return None
    except (AttributeError, ValueError):
        return None
    try:
        tqdm = importlib.import_module("tqdm").tqdm
    except ImportError:
        return None
    return tqdm(total=total, unit="B", unit_scale=True, unit_divisor=1024, file=stream,
                desc="decoding", leave=False)


def summary(
    counts: collections.Counter[str], paths: collections.Counter[str], path_lines: int = 0,
    trimmed: bool = False, *, elapsed: float | None = None,
) -> str:
    """The table printed at the end (``BatchSummary``'s) and, for a run that finished,
    the time it took."""
    lines = ["", *summary_table(counts, paths, path_lines, trimmed, max_paths=MAX_PATHS)]
    if elapsed is not None:
        total = sum(counts.values())
        rate = total / elapsed if elapsed > 0 else 0.0
        lines += ["", f"decoded {total:,} line{'s' if total != 1 else ''} in {elapsed:.2f} s "
                      f"({rate:,.0f} lines/s)"]
    return "\n".join(lines) + "\n"

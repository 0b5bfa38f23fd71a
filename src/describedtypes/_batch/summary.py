"""``BatchSummary``: how the lines of a batch came out, as a table (text, or HTML in Jupyter).

The command line's ``describedtypes decode`` prints the same table at the end of a run.
"""

from __future__ import annotations

import collections
import re
from collections.abc import Iterable, Mapping
from typing import Any

import attrs

from .._base.display import html_table
from ..errors import DecodeError
from .lines import OUTCOMES, BatchResult

__all__ = ["BatchSummary", "error_paths", "summary_table"]

#: Error paths listed.
TOP_PATHS = 10

_INDEX = re.compile(r"\[\d+\]")


def error_paths(error: DecodeError) -> tuple[str, ...]:
    """The distinct paths of a mismatch, array indices folded into ``[*]``."""
    return tuple(dict.fromkeys(_INDEX.sub("[*]", p) for p, _ in error.errors))


def summary_table(
    counts: Mapping[str, int], paths: collections.Counter[str], path_lines: int,
    trimmed: bool = False, *, max_paths: int = 0,
) -> list[str]:
    """The lines of the table: lines per outcome, then the most frequent error paths."""
    total = sum(counts.values())
    rows = [(name, counts[name]) for name in OUTCOMES if counts.get(name)]
    lines = [f"{'outcome':<12}{'lines':>12}{'share':>9}"]
    for name, n in rows:
        lines.append(f"{name:<12}{n:>12,}{n / total:>9.1%}")
    lines.append(f"{'total':<12}{total:>12,}")
    if paths:
        invalid = f"{path_lines:,} invalid line{'s' if path_lines != 1 else ''}"
        lines += ["", f"most frequent error paths (in {invalid})", f"{'lines':>12}  path"]
        lines += [f"{n:>12,}  {path}" for path, n in paths.most_common(TOP_PATHS)]
        if trimmed:
            lines.append(
                f"(more than {max_paths:,} distinct paths: the rarest were dropped as they "
                "came, so these counts are lower bounds)"
            )
    return lines


@attrs.frozen
class BatchSummary:
    """How the lines of a batch came out: lines per outcome and the most frequent error paths.

    ``str(summary)`` is the table ``describedtypes decode`` prints; in Jupyter it shows
    as an HTML table (paths, which the model chose, escaped).

    Attributes:
        counts: Lines per outcome (``"ok"``, ``"invalid"``, ...), only those that occur.
        paths: For replies that did not match, how many lines had a problem at each path.
        path_lines: How many lines those were.

    .. versionadded:: 0.3.0
    """

    counts: Mapping[str, int]
    paths: Mapping[str, int]
    path_lines: int

    @classmethod
    def of(cls, results: Iterable[BatchResult]) -> BatchSummary:
        """Count ``decode_batch``'s results (read once, one at a time)."""
        counts: collections.Counter[str] = collections.Counter()
        paths: collections.Counter[str] = collections.Counter()
        path_lines = 0
        for result in results:
            outcome = result.outcome
            counts[outcome] += 1
            if outcome == "invalid" and isinstance(result.error, DecodeError):
                found = error_paths(result.error)
                if found:
                    paths.update(found)
                    path_lines += 1
        return cls(dict(counts), dict(paths), path_lines)

    def __str__(self) -> str:
        return "\n".join(
            summary_table(self.counts, collections.Counter(self.paths), self.path_lines)
        ) + "\n"

    def _repr_html_(self) -> str:
        total = sum(self.counts.values()) or 1
        rows: list[tuple[Any, ...]] = [
            (name, f"{self.counts[name]:,}", f"{self.counts[name] / total:.1%}")
            for name in OUTCOMES if self.counts.get(name)
        ]
        rows.append(("total", f"{sum(self.counts.values()):,}", ""))
        table = html_table("BatchSummary", ("outcome", "lines", "share"), rows)
        if not self.paths:
            return table
        top = collections.Counter(self.paths).most_common(TOP_PATHS)
        more = max(0, len(self.paths) - TOP_PATHS)
        title = f"most frequent error paths (in {self.path_lines:,} invalid lines)"
        return table + html_table(title, ("path", "lines"), [(p, f"{n:,}") for p, n in top],
                                   more)

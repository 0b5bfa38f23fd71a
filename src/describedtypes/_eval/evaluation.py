"""What ``evaluate()`` returns, and ``compare()`` of several runs side by side."""

from __future__ import annotations

import html
from collections.abc import Iterator, Mapping
from typing import Any, Literal

import attrs
import orjson

from .._base.display import MARKDOWN, html_cell, html_table, markdown_table, plain
from ..errors import DecodeError, DescribedTypesError

__all__ = ["Comparison", "Evaluation", "PathScore", "Score", "compare"]

#: Failures and unmatched records listed by name in a report before "... and N more".
SHOWN = 10

Metric = Literal["precision", "recall", "f1", "tp", "fp", "fn", "fabricated"]
_METRICS = ("precision", "recall", "f1", "tp", "fp", "fn", "fabricated")


def _ratio(part: int, whole: int, nothing: float) -> float:
    return part / whole if whole else nothing


def _f1(precision: float, recall: float) -> float:
    total = precision + recall
    return 2 * precision * recall / total if total else 0.0


@attrs.frozen(slots=True)
class Score:
    """Precision, recall and F1 of a total (``Evaluation.micro``, ``Evaluation.macro``).

    .. versionadded:: 0.4.0
    """

    precision: float
    recall: float
    f1: float


@attrs.frozen(slots=True)
class PathScore:
    """The counts of one JSON path of the type, over every record.

    Attributes:
        path: The JSON path, list items written ``[]`` (``$.items[].sku``) and dict
            values ``.*``.
        kind: ``"value"`` for a path holding values (a scalar, an enum, ``Any``, a
            list of plain values counted item by item); ``"items"`` for a list of
            objects (or lists), whose row counts its items: paired (tp), listed by
            the prediction only (fp), by the gold only (fn). Item rows are left out of
            the totals, as their fields have rows of their own.
        tp: Values the prediction got right.
        fp: Values the prediction gave that the gold does not have (a wrong value is
            one fp and one fn).
        fn: Gold values the prediction missed or got wrong.
        empty: How often the gold leaves the path empty (absent, None, an empty list).
        filled: How often of those the prediction fills it anyway.

    .. versionadded:: 0.4.0
    """

    path: str
    kind: Literal["value", "items"]
    tp: int
    fp: int
    fn: int
    empty: int
    filled: int

    @property
    def precision(self) -> float:
        """``tp / (tp + fp)``; 1.0 when the prediction gave nothing here."""
        return _ratio(self.tp, self.tp + self.fp, 1.0)

    @property
    def recall(self) -> float:
        """``tp / (tp + fn)``; 1.0 when the gold has nothing here."""
        return _ratio(self.tp, self.tp + self.fn, 1.0)

    @property
    def f1(self) -> float:
        """The harmonic mean of precision and recall (0.0 when both are 0)."""
        return _f1(self.precision, self.recall)

    @property
    def fabricated(self) -> float:
        """``filled / empty``: the share of empty gold the prediction filled (0.0 when
        the gold never leaves the path empty)."""
        return _ratio(self.filled, self.empty, 0.0)

    @property
    def support(self) -> int:
        """Gold values at this path: ``tp + fn``."""
        return self.tp + self.fn

    def as_dict(self) -> dict[str, Any]:
        return {
            "path": self.path, "kind": self.kind, "tp": self.tp, "fp": self.fp, "fn": self.fn,
            "precision": self.precision, "recall": self.recall, "f1": self.f1,
            "support": self.support, "empty": self.empty, "filled": self.filled,
            "fabricated": self.fabricated,
        }


def _number(value: float) -> str:
    return f"{value:.3f}"


def _where(key: Any) -> str:
    return f"{key!r}" if isinstance(key, str) else f"#{key}"


def _error_text(error: BaseException) -> str:
    return " ".join(str(error).split())


@attrs.frozen(eq=False)
class Evaluation:
    """How well predictions match the gold, path by path: what ``evaluate()`` returns.

    Attributes:
        target: The name of the type evaluated.
        rows: A ``PathScore`` per JSON path of the type, in the type's order.
        records: The gold records scored (a failed prediction, or gold without a
            prediction, is scored as a prediction that found nothing).
        failed: The predictions that did not decode (or whose request failed), by
            record id, with their error (``DecodeError``, or the ``BatchResult``'s
            ``RefusalError``, ``RequestError``, ...): each counted as a miss on every path.
        unmatched_predictions: Ids of predictions without gold: listed, not scored.
        unmatched_gold: Ids of gold records without a prediction: scored as misses.
        notes: What the reader should know about how the numbers were made (lists too
            long for the best pairing, how the records were aligned).

    A record's id is its ``custom_id`` (or mapping key) when the records were aligned
    by id, else its position from 0 (line ``n + 1`` of a file).

    .. versionadded:: 0.4.0
    """

    target: str
    rows: tuple[PathScore, ...]
    records: int
    failed: Mapping[Any, DescribedTypesError]
    unmatched_predictions: tuple[Any, ...] = ()
    unmatched_gold: tuple[Any, ...] = ()
    notes: tuple[str, ...] = ()

    def __getitem__(self, path: str) -> PathScore:
        for row in self.rows:
            if row.path == path:
                return row
        known = ", ".join(row.path for row in self.rows)
        msg = f"no path {path!r} in this evaluation; its paths are {known}"
        raise KeyError(msg)

    def __iter__(self) -> Iterator[PathScore]:
        return iter(self.rows)

    def _values(self) -> list[PathScore]:
        return [row for row in self.rows if row.kind == "value"]

    @property
    def micro(self) -> Score:
        """Precision, recall and F1 of the counts summed over every value path."""
        rows = self._values()
        tp = sum(r.tp for r in rows)
        precision = _ratio(tp, tp + sum(r.fp for r in rows), 1.0)
        recall = _ratio(tp, tp + sum(r.fn for r in rows), 1.0)
        return Score(precision, recall, _f1(precision, recall))

    @property
    def macro(self) -> Score:
        """The mean of each value path's precision, recall and F1, over the paths that
        hold a value in the gold or the prediction (1.0 when none does)."""
        rows = [r for r in self._values() if r.tp + r.fp + r.fn]
        if not rows:
            return Score(1.0, 1.0, 1.0)
        n = len(rows)
        return Score(
            sum(r.precision for r in rows) / n,
            sum(r.recall for r in rows) / n,
            sum(r.f1 for r in rows) / n,
        )

    @property
    def fabricated(self) -> float:
        """The share of value fields the gold leaves empty that the prediction fills."""
        rows = self._values()
        return _ratio(sum(r.filled for r in rows), sum(r.empty for r in rows), 0.0)

    def table(self) -> list[dict[str, Any]]:
        """A row per path as a dict (``pandas.DataFrame(evaluation.table())`` works):
        path, kind, tp, fp, fn, precision, recall, f1, support, empty, filled,
        fabricated."""
        return [row.as_dict() for row in self.rows]

    def to_dict(self) -> dict[str, Any]:
        """Everything as JSON-ready data (what ``to_json()`` writes)."""
        micro, macro = self.micro, self.macro
        rows = self._values()
        return {
            "target": self.target,
            "records": self.records,
            "micro": {
                "tp": sum(r.tp for r in rows), "fp": sum(r.fp for r in rows),
                "fn": sum(r.fn for r in rows), **attrs.asdict(micro),
            },
            "macro": attrs.asdict(macro),
            "fabricated": self.fabricated,
            "paths": self.table(),
            "failed": [_failure(key, error) for key, error in self.failed.items()],
            "unmatched_predictions": list(self.unmatched_predictions),
            "unmatched_gold": list(self.unmatched_gold),
            "notes": list(self.notes),
        }

    def to_json(self, *, indent: bool = True) -> str:
        """The evaluation as JSON text: totals, a row per path, failures with their
        errors, unmatched ids and notes."""
        option = orjson.OPT_INDENT_2 if indent else 0
        return orjson.dumps(self.to_dict(), option=option | orjson.OPT_NON_STR_KEYS).decode()

    def _title(self) -> str:
        title = f"Evaluation of {self.target}: {self.records:,} records"
        if self.failed:
            title += f", {len(self.failed):,} failed"
        return title

    def _cells(self) -> tuple[list[str], list[list[object]]]:
        headers = ["path", "kind", "tp", "fp", "fn", "precision", "recall", "f1", "fabricated"]
        rows: list[list[object]] = [
            [r.path, r.kind, r.tp, r.fp, r.fn, _number(r.precision), _number(r.recall),
             _number(r.f1), f"{_number(r.fabricated)} ({r.filled}/{r.empty})" if r.empty
             else "-"]
            for r in self.rows
        ]
        values = self._values()
        micro, macro = self.micro, self.macro
        filled = sum(r.filled for r in values)
        empty = sum(r.empty for r in values)
        rows.append([
            "micro", "", sum(r.tp for r in values), sum(r.fp for r in values),
            sum(r.fn for r in values), _number(micro.precision), _number(micro.recall),
            _number(micro.f1), f"{_number(self.fabricated)} ({filled}/{empty})" if empty else "-",
        ])
        rows.append(["macro", "", "", "", "", _number(macro.precision), _number(macro.recall),
                     _number(macro.f1), ""])
        return headers, rows

    def _remarks(self) -> list[tuple[str, list[str]]]:
        """Plain-text lines under the table, each with its own list: failures,
        unmatched records, notes."""
        found: list[tuple[str, list[str]]] = []
        if self.failed:
            shown = list(self.failed.items())[:SHOWN]
            lines = [f"{_where(k)}: {type(e).__name__}: {_error_text(e)}" for k, e in shown]
            if len(self.failed) > SHOWN:
                lines.append(f"… and {len(self.failed) - SHOWN:,} more")
            found.append((f"failed predictions, counted as misses: {len(self.failed):,}", lines))
        for ids, what in (
            (self.unmatched_predictions, "predictions without gold, not scored"),
            (self.unmatched_gold, "gold records without a prediction, counted as misses"),
        ):
            if ids:
                listed = ", ".join(_where(k) for k in ids[:SHOWN])
                more = f" and {len(ids) - SHOWN:,} more" if len(ids) > SHOWN else ""
                found.append((f"{what}: {len(ids):,} ({listed}{more})", []))
        found += [(f"note: {note}", []) for note in self.notes]
        return found

    def to_markdown(self) -> str:
        """A Markdown table (a row per path, then micro and macro), with the failures,
        unmatched records and notes below it; model text is escaped."""
        headers, rows = self._cells()
        text = markdown_table(self._title(), headers, rows)
        remarks = self._remarks()
        if remarks:
            text += "\n"
            for line, more in remarks:
                text += f"- {_markdown_text(line)}\n"
                text += "".join(f"  - {_markdown_text(sub)}\n" for sub in more)
        return text

    def _repr_markdown_(self) -> str:
        return self.to_markdown()

    def _repr_html_(self) -> str:
        """What Jupyter shows: the table, then failures and notes, every cell escaped."""
        headers, rows = self._cells()
        text = html_table(self._title(), headers, rows)
        remarks = self._remarks()
        if remarks:
            text += "<ul>"
            for line, more in remarks:
                text += f"<li>{html_cell(line, 500)}"
                if more:
                    text += "<ul>" + "".join(f"<li>{html_cell(m, 500)}</li>" for m in more)
                    text += "</ul>"
                text += "</li>"
            text += "</ul>"
        return text

    def __repr__(self) -> str:
        micro = self.micro
        return (
            f"<Evaluation of {self.target}: {self.records} records, micro F1 "
            f"{micro.f1:.3f} (P {micro.precision:.3f}, R {micro.recall:.3f}), "
            f"{len(self.failed)} failed, fabricated {self.fabricated:.3f}>"
        )


def _markdown_text(text: str) -> str:
    """A line of a Markdown list: one line, Markdown and HTML syntax escaped (quotes, which
    mean nothing in Markdown text, are left as they are)."""
    return html.escape(MARKDOWN.sub(r"\\\1", plain(text, 500)), quote=False)


def _failure(key: Any, error: DescribedTypesError) -> dict[str, Any]:
    found: dict[str, Any] = {"id": key, "error": type(error).__name__, "message": str(error)}
    if isinstance(error, DecodeError) and error.errors:
        found["errors"] = [list(pair) for pair in error.errors]
    return found


@attrs.frozen(eq=False)
class Comparison:
    """Several evaluations side by side: a row per path, a column per run.

    Attributes:
        runs: The evaluations by name, in the order given.

    .. versionadded:: 0.4.0
    """

    runs: Mapping[str, Evaluation]

    def paths(self) -> list[str]:
        """Every path of every run, in first-seen order."""
        seen: dict[str, None] = {}
        for evaluation in self.runs.values():
            for row in evaluation.rows:
                seen.setdefault(row.path, None)
        return list(seen)

    def table(self, metric: Metric = "f1") -> list[dict[str, Any]]:
        """A row per path, ``{"path": ..., run name: the metric, ...}`` (None where a
        run has no such path), then the rows ``micro precision``, ``micro recall``,
        ``micro f1``, ``macro f1``, ``fabricated`` and ``failed``.

        Args:
            metric: Which figure of each path: ``"f1"`` (the default), ``"precision"``,
                ``"recall"``, ``"tp"``, ``"fp"``, ``"fn"`` or ``"fabricated"``.
        """
        if metric not in _METRICS:
            msg = f"metric must be one of {', '.join(map(repr, _METRICS))}, got {metric!r}"
            raise ValueError(msg)
        rows: list[dict[str, Any]] = []
        for path in self.paths():
            row: dict[str, Any] = {"path": path}
            for name, evaluation in self.runs.items():
                found = next((r for r in evaluation.rows if r.path == path), None)
                row[name] = None if found is None else getattr(found, metric)
            rows.append(row)
        totals = (
            ("micro precision", lambda e: e.micro.precision),
            ("micro recall", lambda e: e.micro.recall),
            ("micro f1", lambda e: e.micro.f1),
            ("macro f1", lambda e: e.macro.f1),
            ("fabricated", lambda e: e.fabricated),
            ("failed", lambda e: len(e.failed)),
        )
        for label, figure in totals:
            rows.append({"path": label} | {n: figure(e) for n, e in self.runs.items()})
        return rows

    def _cells(self, metric: Metric) -> tuple[list[str], list[list[object]]]:
        names = list(self.runs)
        cells = [
            [row["path"]] + [
                "-" if row[n] is None else (
                    _number(row[n]) if isinstance(row[n], float) else row[n]
                )
                for n in names
            ]
            for row in self.table(metric)
        ]
        return ["path", *names], cells

    def _title(self, metric: str) -> str:
        return f"{metric} per path: " + ", ".join(
            f"{name} ({e.records:,} records)" for name, e in self.runs.items()
        )

    def to_markdown(self, metric: Metric = "f1") -> str:
        """The table in Markdown (names and paths escaped)."""
        headers, rows = self._cells(metric)
        return markdown_table(self._title(metric), headers, rows)

    def to_json(self, *, indent: bool = True) -> str:
        """Every run's whole evaluation (as ``Evaluation.to_json``), by name."""
        option = orjson.OPT_INDENT_2 if indent else 0
        data = {name: e.to_dict() for name, e in self.runs.items()}
        return orjson.dumps(data, option=option | orjson.OPT_NON_STR_KEYS).decode()

    def _repr_markdown_(self) -> str:
        return self.to_markdown()

    def _repr_html_(self) -> str:
        headers, rows = self._cells("f1")
        return html_table(self._title("f1"), headers, rows)


def compare(evaluations: Mapping[str, Evaluation]) -> Comparison:
    """Put evaluations side by side: providers, engines, models, schema variants.

    Args:
        evaluations: ``{"name": evaluation, ...}``, in the order the columns should go.

    Returns:
        A ``Comparison``: ``table(metric)``, ``to_markdown(metric)``, ``to_json()``, and
        a table in Jupyter.

    Raises:
        TypeError: ``evaluations`` is not a non-empty mapping of names to ``Evaluation``.

    .. versionadded:: 0.4.0
    """
    given: Any = evaluations  # checked at run time, whatever the annotation says
    if not isinstance(given, Mapping) or not given:
        msg = (
            "compare() takes a non-empty mapping of names to evaluations, "
            f"{{'name': evaluate(...), ...}}; got {type(evaluations).__name__}"
        )
        raise TypeError(msg)
    for name, evaluation in given.items():
        if not isinstance(name, str) or not isinstance(evaluation, Evaluation):
            msg = (
                f"compare() takes names (str) and evaluations; got {name!r}: "
                f"{type(evaluation).__name__}"
            )
            raise TypeError(msg)
    return Comparison(dict(evaluations))

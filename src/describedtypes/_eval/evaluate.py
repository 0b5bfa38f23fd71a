"""``evaluate()``: field-level precision, recall and F1 of predictions against gold."""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from .._types import inspector as ni
from .._types.inspector import type_info
from ..errors import DescribedTypesError
from .assign import MAX_ASSIGNED
from .evaluation import Evaluation, PathScore
from .normalize import EMPTY, EXACT, Normalize
from .records import Record, read_records
from .scorer import Scorer

__all__ = ["evaluate"]

_DEFAULT = Normalize()


def evaluate(
    tp: Any,
    predictions: Any,
    gold: Any,
    *,
    match: Mapping[str, str | Sequence[str]] | None = None,
    normalize: Normalize | None = _DEFAULT,
) -> Evaluation:
    """Score predictions against gold records field by field, deterministically.

    For every JSON path of ``tp`` (list items written ``[]``), counts the values the
    predictions got right (tp), gave wrongly or in excess (fp) and missed (fn), and how
    often they fill a field the gold leaves empty (``fabricated``). Lists are compared
    order-free: items are paired by the best assignment (the pairing that agrees on the
    most values), or by their key fields where ``match`` names them.

    Args:
        tp: The type the records are instances of (an attrs class, a dataclass, a
            TypedDict, ``list[Item]``, ...).
        predictions: The model's records: a list of instances, dicts, JSON texts,
            ``Extraction`` or ``BatchResult`` objects (``decode_batch`` output); a
            mapping of ids to those; or the path of a JSON lines file (batch results
            as ``decode_batch`` reads them, bare replies, or ``{"custom_id", "value"}``
            lines). A record that does not decode is a failure: a miss on every path.
        gold: The right answers, in any of the same forms. Every gold record must
            decode (a ``ValueError`` says which does not).
        match: Key fields pairing list items, by the list's item path:
            ``{"$.items[]": "sku"}``, or several fields ``{"$.items[]": ("sku", "date")}``.
        normalize: How values are compared (``Normalize()``: strings without regard
            to case, whitespace and Unicode form, floats within a relative 1e-6), or
            None to compare everything exactly.

    Returns:
        An ``Evaluation``: a row per path, micro and macro totals, ``fabricated``,
        the failed predictions with their errors, and the records left unmatched.

    Records are aligned by id when both sides carry one (``custom_id`` of batch
    results, mapping keys), else by position. A prediction without gold is listed in
    ``unmatched_predictions``; gold without a prediction in ``unmatched_gold`` (and
    scored as a miss). Files are read a line at a time; aligned by id, a record waits
    in memory only until its partner is read.

    Raises:
        SchemaError: ``tp`` cannot be described.
        TypeError: An argument is of the wrong kind.
        ValueError: ``match`` names no list of objects or no field of its items; a
            gold record does not decode; an id repeats on one side; gold records
            carry ids only in part.
        OSError: A file cannot be read.

    .. versionadded:: 0.4.0
    """
    node = type_info(tp)
    obj = ni.object_of(node)
    if obj is not None and obj.is_function:
        msg = f"evaluate() takes a type, not the function {getattr(tp, '__qualname__', tp)!r}"
        raise TypeError(msg)
    given: Any = normalize  # checked at run time, whatever the annotation says
    if given is None:
        given = EXACT
    elif not isinstance(given, Normalize):
        msg = f"normalize must be a Normalize(...) or None, got {type(given).__name__}"
        raise TypeError(msg)
    scorer = Scorer(node, given, _match(match))
    predicted = read_records(tp, node, predictions, "predictions")
    truth = read_records(tp, node, gold, "gold")
    run = _Run(scorer, _name(tp), _is_file(predictions), _is_file(gold))
    run.align(predicted, truth)
    return run.result()


def _name(tp: Any) -> str:
    name = getattr(tp, "__qualname__", None)
    return name if isinstance(name, str) and "[" not in repr(tp) else repr(tp).replace(
        "typing.", ""
    )


def _is_file(source: Any) -> bool:
    return isinstance(source, (str, os.PathLike)) or callable(getattr(source, "readline", None))


def _match(match: Any) -> dict[str, tuple[str, ...]]:
    if match is None:
        return {}
    if not isinstance(match, Mapping):
        msg = (
            'match must be a mapping of item paths to key fields, {"$.items[]": "sku"}; '
            f"got {type(match).__name__}"
        )
        raise TypeError(msg)
    found: dict[str, tuple[str, ...]] = {}
    for path, keys in match.items():
        if not isinstance(path, str):
            msg = f"match: a path is a str such as '$.items[]', got {path!r}"
            raise TypeError(msg)
        key_tuple = (keys,) if isinstance(keys, str) else (
            tuple(keys) if isinstance(keys, (tuple, list)) else ()
        )
        if not key_tuple or not all(isinstance(k, str) for k in key_tuple):
            msg = f"match: {path} needs a key field name or a tuple of them, got {keys!r}"
            raise TypeError(msg)
        found[path] = key_tuple
    return found


class _Run:
    """Strictly private: one evaluation's alignment and bookkeeping."""

    def __init__(self, scorer: Scorer, target: str, pred_file: bool, gold_file: bool) -> None:
        self.scorer = scorer
        self.score = scorer.score
        self.target = target
        self.files = {"predictions": pred_file, "gold": gold_file}
        self.records = 0
        self.failed: dict[Any, DescribedTypesError] = {}
        self.unmatched_predictions: list[Any] = []
        self.unmatched_gold: list[Any] = []
        self.notes: list[str] = []

    def _where(self, side: str, position: int) -> str:
        if self.files[side]:
            return f"line {position + 1}"
        return f"item {position}"

    def judge(self, key: Any, gold: tuple[Any, Any], prediction: tuple[Any, Any] | None) -> None:
        self.records += 1
        value = gold[0]
        predicted: Any = EMPTY
        if prediction is not None:
            predicted, error = prediction
            if error is not None:
                self.failed[key] = error
                predicted = EMPTY
        try:
            self.score(value, predicted)
        except RecursionError:
            # Decoded records are bounded in depth; instances made by hand may not be.
            where = f"{key!r}" if isinstance(key, str) else f"#{key}"
            msg = (
                f"record {where} is nested too deeply to score (a recursive value "
                "thousands of levels deep); decode the records to have them checked"
            )
            raise ValueError(msg) from None

    def gold_value(self, record: Record, where: str) -> tuple[Any, Any]:
        _, value, error = record
        if error is not None:
            first = " ".join(str(error).split())
            msg = (
                f"gold {where} does not decode into {self.target}: {first}; the gold must "
                "be right: fix the record or leave it out"
            )
            raise ValueError(msg) from error
        return value, None

    def align(self, predicted: Iterator[Record], truth: Iterator[Record]) -> None:
        first_p = next(predicted, None)
        first_g = next(truth, None)
        with_ids = (first_p is not None and first_p[0] is not None,
                    first_g is not None and first_g[0] is not None)
        predicted = itertools.chain([first_p] if first_p else [], predicted)
        truth = itertools.chain([first_g] if first_g else [], truth)
        if all(with_ids):
            self.by_id(predicted, truth)
            return
        if any(with_ids):
            side = "predictions" if with_ids[0] else "gold"
            self.notes.append(
                f"only the {side} carry ids (custom_id): the records were aligned by position"
            )
        self.by_position(predicted, truth)

    def by_position(self, predicted: Iterator[Record], truth: Iterator[Record]) -> None:
        missing: Any = object()
        pairs: Iterator[tuple[Any, Any]] = itertools.zip_longest(
            predicted, truth, fillvalue=missing
        )
        for n, (p, g) in enumerate(pairs):
            if g is missing:
                self.unmatched_predictions.append(n)
                continue
            gold = self.gold_value(g, self._where("gold", n))
            if p is missing:
                self.unmatched_gold.append(n)
                self.judge(n, gold, None)
            else:
                self.judge(n, gold, (p[1], p[2]))

    def by_id(self, predicted: Iterator[Record], truth: Iterator[Record]) -> None:
        waiting_p: dict[Any, tuple[Any, Any]] = {}
        waiting_g: dict[Any, tuple[Any, Any]] = {}
        seen_p: set[Any] = set()
        seen_g: set[Any] = set()
        missing: Any = object()
        pairs: Iterator[tuple[Any, Any]] = itertools.zip_longest(
            predicted, truth, fillvalue=missing
        )
        key: Any
        value: Any
        error: Any
        for n, (p, g) in enumerate(pairs):
            if p is not missing:
                key, value, error = p
                if key is None:  # a line that could not be read: no id to pair it by
                    self.unmatched_predictions.append(n)
                    if error is not None:
                        self.notes.append(
                            f"prediction {self._where('predictions', n)} has no id and could "
                            f"not be read: {type(error).__name__}: {' '.join(str(error).split())}"
                        )
                else:
                    self._once(seen_p, key, "predictions", n)
                    if key in waiting_g:
                        self.judge(key, waiting_g.pop(key), (value, error))
                    else:
                        waiting_p[key] = (value, error)
            if g is not missing:
                key = g[0]
                where = self._where("gold", n)
                if key is None:
                    msg = (
                        f"gold {where} has no id while other gold records do: align every "
                        "record by custom_id (or mapping key), or none"
                    )
                    raise ValueError(msg)
                gold = self.gold_value(g, f"{where} (custom_id {key!r})")
                self._once(seen_g, key, "gold", n)
                if key in waiting_p:
                    self.judge(key, gold, waiting_p.pop(key))
                else:
                    waiting_g[key] = gold
        self.unmatched_predictions += list(waiting_p)
        for key, gold in waiting_g.items():
            self.unmatched_gold.append(key)
            self.judge(key, gold, None)

    def _once(self, seen: set[Any], key: Any, side: str, n: int) -> None:
        if key in seen:
            msg = (
                f"the id {key!r} appears twice in the {side} (again at "
                f"{self._where(side, n)}); ids must be unique to align records by them"
            )
            raise ValueError(msg)
        seen.add(key)

    def result(self) -> Evaluation:
        counts = self.scorer.counts
        rows = tuple(
            PathScore(
                path, "items" if kind == "items" else "value", counts.tp[i], counts.fp[i],
                counts.fn[i], counts.empty[i], counts.filled[i],
            )
            for i, (path, kind) in enumerate(zip(counts.paths, counts.kinds, strict=True))
        )
        notes = list(self.notes)
        for path, times in self.scorer.notes.items():
            notes.append(
                f"{times:,} list(s) at {path} had more than {MAX_ASSIGNED} items left after "
                "pairing the equal ones, and were paired by position, not by the best "
                "assignment: the counts there are a lower bound"
            )
        return Evaluation(
            target=self.target,
            rows=rows,
            records=self.records,
            failed=self.failed,
            unmatched_predictions=tuple(self.unmatched_predictions),
            unmatched_gold=tuple(self.unmatched_gold),
            notes=tuple(notes),
        )

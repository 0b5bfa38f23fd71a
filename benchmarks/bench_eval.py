"""``evaluate()`` at scale: 100,000 records of a 15-field type against a plain-Python loop.

Run: python benchmarks/bench_eval.py [--records 100000] [--repeat 3]

The type has 15 fields: strings, an optional email, a date, a Decimal, an enum, a bool,
numbers, a list of strings and a list of line items (four fields each). The predictions
differ from the gold in known ways: case and spacing, a wrong or missing value, an
invented note, shuffled line items, a dropped or added item. The peer is the scorer a
user writes by hand: a recursive walk over the attrs fields with ``isinstance`` tests,
the path built as text, counts in a dict, items paired by greedy best match (which on
this data gives the best assignment's pairs). Both run in the same process on the same
records, and their counts are checked equal before anything is timed.

Also measured: ``evaluate()`` from JSON lines files (every record decoded), and its peak
memory (``tracemalloc``) for files of 10,000 and 50,000 records: flat, since a file is
read a line at a time.

``run(quick)`` gives ``run_all.py`` the rows (2,000 records with ``quick``).
"""

from __future__ import annotations

import argparse
import datetime
import decimal
import enum
import random
import sys
import tempfile
import tracemalloc
import unicodedata
from collections import defaultdict
from pathlib import Path
from typing import Any, Optional

import attrs

sys.path.insert(0, str(Path(__file__).parent))

from _common import TIMER, Row

from describedtypes import encode, evaluate


class Currency(enum.Enum):
    EUR = "EUR"
    USD = "USD"
    CHF = "CHF"


@attrs.define
class LineItem:
    sku: str
    description: str
    qty: int
    price: float


@attrs.define
class Order:
    id: str
    customer: str
    email: Optional[str]  # noqa: UP045 - a runtime type on Python 3.10 too
    street: str
    city: str
    country: str
    date: datetime.date
    total: decimal.Decimal
    currency: Currency
    paid: bool
    weight: float
    parcels: int
    tags: list[str]
    items: list[LineItem]
    note: Optional[str] = None  # noqa: UP045


CITIES = ["Bern", "Zürich", "Lyon", "Porto", "Graz", "Oslo", "Lima", "Quito"]
WORDS = ["red", "blue", "bolt", "nut", "cable", "lamp", "desk", "chair", "fan", "pump"]


def gold_record(i: int, rnd: random.Random) -> Order:
    items = [
        # Items of one order agree on no field with each other (distinct quantities too),
        # so the hand-written loop's greedy pairing finds the best assignment's pairs.
        LineItem(f"SKU-{i}-{k}", f"{rnd.choice(WORDS)} {rnd.choice(WORDS)} {k}", k + 1,
                 round(rnd.uniform(1, 100), 2) + 1000 * k)
        for k in range(rnd.randint(1, 5))
    ]
    return Order(
        id=f"order-{i}",
        customer=f"Customer {i % 997}",
        email=f"c{i}@example.com" if i % 3 else None,
        street=f"{rnd.randint(1, 200)} Main Street",
        city=rnd.choice(CITIES),
        country=rnd.choice(["CH", "FR", "PT", "AT"]),
        date=datetime.date(2024, 1, 1) + datetime.timedelta(days=i % 365),
        total=decimal.Decimal(f"{rnd.randint(1, 9999)}.{rnd.randint(0, 99):02d}"),
        currency=rnd.choice(list(Currency)),
        paid=bool(i % 2),
        weight=round(rnd.uniform(0.1, 30), 3),
        parcels=rnd.randint(1, 4),
        tags=rnd.sample(WORDS, rnd.randint(0, 3)),
        items=items,
    )


def predicted_record(gold: Order, rnd: random.Random) -> Order:
    """The gold with the mistakes a model makes, at fixed rates."""
    changes: dict[str, Any] = {}
    if rnd.random() < 0.2:
        changes["customer"] = f"  {gold.customer.upper()} "  # the same after normalising
    if rnd.random() < 0.1:
        changes["city"] = rnd.choice(CITIES)
    if rnd.random() < 0.1:
        changes["email"] = None
    if rnd.random() < 0.05:
        changes["note"] = "urgent"  # invented
    if rnd.random() < 0.1:
        changes["weight"] = gold.weight * (1 + 1e-9)  # within the tolerance
    if rnd.random() < 0.05:
        changes["total"] = gold.total + 1
    items = list(gold.items)
    if rnd.random() < 0.3:
        rnd.shuffle(items)
    if rnd.random() < 0.1 and len(items) > 1:
        items.pop()
    if rnd.random() < 0.1:
        items.append(LineItem("SKU-X", "extra", 0, 0.5))
    if rnd.random() < 0.2 and items:
        first = items[0]
        items[0] = LineItem(first.sku, first.description, first.qty + 100, first.price)
    changes["items"] = items
    if rnd.random() < 0.1:
        changes["tags"] = [t.upper() for t in gold.tags] + ["extra"]
    return attrs.evolve(gold, **changes)


def make_records(n: int) -> tuple[list[Order], list[Order]]:
    rnd = random.Random(7)
    gold = [gold_record(i, rnd) for i in range(n)]
    return [predicted_record(g, rnd) for g in gold], gold


# -- the peer: a scorer written by hand --------------------------------------------------


def _norm(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, str) and not isinstance(a, enum.Enum):
        return isinstance(b, str) and _norm(a) == _norm(b)
    if isinstance(a, float) or isinstance(b, float):
        return abs(a - b) <= 1e-6 * max(abs(a), abs(b))
    return bool(a == b)


def _empty(v: Any) -> bool:
    return v is None or (isinstance(v, list) and not v)


def _agree(g: Any, p: Any) -> int:
    return sum(
        1 for f in attrs.fields(type(g))
        if not _empty(getattr(g, f.name)) and not _empty(getattr(p, f.name))
        and _same(getattr(g, f.name), getattr(p, f.name))
    )


def plain_walk(g: Any, p: Any, path: str, counts: dict[str, list[int]]) -> None:
    """Counts [tp, fp, fn, empty, filled] per path, the way one writes it by hand."""
    cls = type(g) if g is not None else type(p)
    if attrs.has(cls):
        for f in attrs.fields(cls):
            plain_walk(getattr(g, f.name) if g is not None else None,
                       getattr(p, f.name) if p is not None else None,
                       f"{path}.{f.name}", counts)
        return
    if isinstance(g, list) or isinstance(p, list):
        gl, pl = g or [], p or []
        row = counts[path + "[]"]
        if not gl:
            row[3] += 1
            if pl:
                row[4] += 1
        sample = (gl or pl or [None])[0]
        if sample is not None and attrs.has(type(sample)):
            left = list(pl)
            for a in gl:  # greedy: each gold item takes the best prediction left
                best, score = None, 0
                for b in left:
                    s = _agree(a, b)
                    if s > score:
                        best, score = b, s
                if best is None:
                    row[2] += 1
                    plain_walk(a, None, path + "[]", counts)
                else:
                    left.remove(best)
                    row[0] += 1
                    plain_walk(a, best, path + "[]", counts)
            for b in left:
                row[1] += 1
                plain_walk(None, b, path + "[]", counts)
        else:
            left = [_norm(x) for x in pl]
            hits = 0
            for a in gl:
                if _norm(a) in left:
                    left.remove(_norm(a))
                    hits += 1
            row[0] += hits
            row[1] += len(pl) - hits
            row[2] += len(gl) - hits
        return
    row = counts[path]
    if _empty(g):
        row[3] += 1
        if not _empty(p):
            row[1] += 1
            row[4] += 1
    elif _empty(p):
        row[2] += 1
    elif _same(g, p):
        row[0] += 1
    else:
        row[1] += 1
        row[2] += 1


def plain_scorer(preds: list[Order], gold: list[Order]) -> dict[str, list[int]]:
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0, 0])
    for g, p in zip(gold, preds, strict=True):
        plain_walk(g, p, "$", counts)
    return dict(counts)


def ours(preds: list[Order], gold: list[Order]) -> dict[str, list[int]]:
    ev = evaluate(Order, preds, gold)
    return {r.path: [r.tp, r.fp, r.fn, r.empty, r.filled] for r in ev.rows}


def check_equal(preds: list[Order], gold: list[Order]) -> None:
    mine = ours(preds, gold)
    theirs = plain_scorer(preds, gold)
    seen = {k: v for k, v in mine.items() if any(v)}
    if seen != {k: v for k, v in theirs.items() if any(v)}:
        diff = {k: (mine.get(k), theirs.get(k)) for k in set(mine) | set(theirs)
                if mine.get(k) != theirs.get(k)}
        msg = f"evaluate() and the plain loop disagree: {diff}"
        raise AssertionError(msg)


def timed(fn: Any, *args: Any) -> float:
    start = TIMER()
    fn(*args)
    return TIMER() - start


def measure(n: int, repeat: int) -> tuple[float, float]:
    preds, gold = make_records(n)
    check_equal(preds, gold)
    best_ours = best_plain = float("inf")
    for _ in range(repeat):  # taking turns: a busy machine slows both alike
        best_ours = min(best_ours, timed(ours, preds, gold))
        best_plain = min(best_plain, timed(plain_scorer, preds, gold))
    return best_ours, best_plain


def write_jsonl(path: Path, records: list[Order]) -> None:
    with path.open("wb") as out:
        for record in records:
            out.write(encode(record) + b"\n")


def from_files(n: int, folder: Path) -> tuple[float, int]:
    """CPU seconds and peak traced memory of evaluate() reading two files of n records."""
    preds, gold = make_records(n)
    pred_path, gold_path = folder / f"pred-{n}.jsonl", folder / f"gold-{n}.jsonl"
    write_jsonl(pred_path, preds)
    write_jsonl(gold_path, gold)
    del preds, gold
    seconds = timed(evaluate, Order, pred_path, gold_path)
    tracemalloc.start()
    evaluate(Order, pred_path, gold_path)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return seconds, peak


def run(quick: bool) -> list[Row]:
    n = 2_000 if quick else 100_000
    mine, plain = measure(n, 1 if quick else 3)
    rows = [Row(f"evaluate() {n:,} records of a 15-field type", mine, "plain-Python loop", plain)]
    with tempfile.TemporaryDirectory() as tmp:
        seconds, _ = from_files(n, Path(tmp))
    rows.append(Row(f"evaluate() {n:,} records from JSONL files (decoding included)", seconds))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    mine, plain = measure(args.records, args.repeat)
    print(f"{args.records:,} records of a 15-field type (counts checked equal first)")
    print(f"  evaluate():        {mine:6.2f} s CPU  {args.records / mine:10,.0f} records/s")
    print(f"  plain-Python loop: {plain:6.2f} s CPU  {args.records / plain:10,.0f} records/s")
    print(f"  ratio: evaluate() is {plain / mine:.1f}x the loop's speed")
    with tempfile.TemporaryDirectory() as tmp:
        for n in (10_000, 50_000):
            seconds, peak = from_files(n, Path(tmp))
            print(f"  from JSONL files, {n:,} records: {seconds:.2f} s CPU "
                  f"({n / seconds:,.0f} records/s), peak traced memory {peak / 1e6:.1f} MB")


if __name__ == "__main__":
    main()

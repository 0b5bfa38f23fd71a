"""decode() of a ~2 KB model reply into a nested model, against pydantic, msgspec and orjson.

Run: python benchmarks/bench_decode.py [--profile]

The same reply is decoded into the same model written four ways, in one run:
describedtypes (attrs classes), pydantic v2 ``model_validate_json``,
``msgspec.json.decode(..., type=...)``, and bare ``orjson.loads`` (the floor: parsing
alone, no checks, no instances). Unknown keys are rejected everywhere, as the
describedtypes decoder does. Ratios are what to compare across machines.
``--profile`` adds a cProfile of the describedtypes decode to show what the remaining
time is spent on.
"""

from __future__ import annotations

import contextlib
import cProfile
import datetime
import enum
import pstats
import sys
import timeit
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Literal, Optional

import attrs
import msgspec
import orjson
import pydantic

sys.path.insert(0, str(Path(__file__).parent))

from _common import TIMER, Row

from describedtypes import decode

# -- the model, four times -----------------------------------------------------------


class Category(enum.Enum):
    BOOKS = "books"
    GAMES = "games"
    TOOLS = "tools"
    FOOD = "food"


@attrs.define
class Address:
    street: str
    city: str
    postcode: str
    country: str
    region: Optional[str] = None  # noqa: UP045 - same spelling in all four models


@attrs.define
class Customer:
    name: str
    email: str
    address: Address
    loyalty_points: int = 0


@attrs.define
class LineItem:
    sku: str
    title: str
    category: Category
    quantity: int
    unit_price: float
    tags: list[str]
    discount: Optional[float] = None  # noqa: UP045


@attrs.define
class Order:
    order_id: str
    status: Literal["pending", "shipped", "delivered"]
    placed_on: datetime.date
    customer: Customer
    items: list[LineItem]
    total: float
    gift: bool = False
    notes: Optional[str] = None  # noqa: UP045


class PAddress(pydantic.BaseModel, extra="forbid"):
    street: str
    city: str
    postcode: str
    country: str
    region: Optional[str] = None  # noqa: UP045


class PCustomer(pydantic.BaseModel, extra="forbid"):
    name: str
    email: str
    address: PAddress
    loyalty_points: int = 0


class PLineItem(pydantic.BaseModel, extra="forbid"):
    sku: str
    title: str
    category: Category
    quantity: int
    unit_price: float
    tags: list[str]
    discount: Optional[float] = None  # noqa: UP045


class POrder(pydantic.BaseModel, extra="forbid"):
    order_id: str
    status: Literal["pending", "shipped", "delivered"]
    placed_on: datetime.date
    customer: PCustomer
    items: list[PLineItem]
    total: float
    gift: bool = False
    notes: Optional[str] = None  # noqa: UP045


class MAddress(msgspec.Struct, forbid_unknown_fields=True):
    street: str
    city: str
    postcode: str
    country: str
    region: Optional[str] = None  # noqa: UP045


class MCustomer(msgspec.Struct, forbid_unknown_fields=True):
    name: str
    email: str
    address: MAddress
    loyalty_points: int = 0


class MLineItem(msgspec.Struct, forbid_unknown_fields=True):
    sku: str
    title: str
    category: Category
    quantity: int
    unit_price: float
    tags: list[str]
    discount: Optional[float] = None  # noqa: UP045


class MOrder(msgspec.Struct, forbid_unknown_fields=True):
    order_id: str
    status: Literal["pending", "shipped", "delivered"]
    placed_on: datetime.date
    customer: MCustomer
    items: list[MLineItem]
    total: float
    gift: bool = False
    notes: Optional[str] = None  # noqa: UP045


def reply() -> bytes:
    """A model reply of about 2 KB: one order with eight line items."""
    categories = ["books", "games", "tools", "food"]
    items = [
        {
            "sku": f"SKU-{1000 + i}",
            "title": f"Item number {i} with a longer title",
            "category": categories[i % 4],
            "quantity": i + 1,
            "unit_price": 9.99 + i,
            "tags": ["sale", "new"] if i % 2 else ["popular"],
            **({"discount": 0.15} if i % 3 == 0 else {}),
        }
        for i in range(8)
    ]
    order = {
        "order_id": "ORD-2024-000123",
        "status": "shipped",
        "placed_on": "2024-05-01",
        "customer": {
            "name": "Ada Lovelace",
            "email": "ada@example.com",
            "address": {
                "street": "12 Analytical Engine Way",
                "city": "London",
                "postcode": "NW1 2AB",
                "country": "GB",
            },
            "loyalty_points": 1200,
        },
        "items": items,
        "total": 345.67,
        "notes": "Leave the parcel with the neighbour if nobody is home.",
    }
    return orjson.dumps(order)


# -- measuring -----------------------------------------------------------------------


def measure(
    candidates: dict[str, Callable[[], object]], number: int, rounds: int = 15
) -> dict[str, float]:
    """Best seconds per call of each candidate, the candidates taking turns each round.

    Taking turns spreads a busy machine's noise over all of them alike, and the best
    round is the one least disturbed.
    """
    best = {name: float("inf") for name in candidates}
    for _ in range(rounds):
        for name, fn in candidates.items():
            with without_fast_path(name == NORMAL):
                seconds = timeit.timeit(fn, number=number, timer=TIMER) / number
            best[name] = min(best[name], seconds)
    return best


NORMAL = "describedtypes.decode, no msgspec"


def _decode_module() -> Any:
    """The module of decode(), in this layout or the one before 0.3 (for --baseline)."""
    module = sys.modules.get("describedtypes._codec.decode")
    return module or sys.modules["describedtypes._decode"]


@contextlib.contextmanager
def without_fast_path(active: bool) -> Iterator[None]:
    """decode() as it runs without msgspec installed: Order's decoder has no fast path."""
    module = _decode_module()
    if not active or not hasattr(module, "FALLBACK"):
        yield
        return
    from describedtypes import annotate

    try:
        from describedtypes._types import cache as _cache
    except ImportError:  # the layout before 0.3
        from describedtypes import _cache  # type: ignore[no-redef]

    entry = _cache.get(Order, ("decoder", Order, annotate))
    assert entry is not None, "decode(Order, ...) once first"
    saved = entry.value
    entry.value = attrs.evolve(saved, fast=None)
    try:
        yield
    finally:
        entry.value = saved


def run(quick: bool) -> list[Row]:
    """The rows for ``run_all.py``: decode of the reply against each peer."""
    data = reply()
    results = candidates(data, number=200 if quick else 2000, rounds=3 if quick else 15)
    ours = results.pop("describedtypes.decode")
    normal = results.pop(NORMAL, None)
    case = f"decode() {len(data)} B reply, 11 objects"
    peers = {
        "pydantic model_validate_json": "pydantic",
        "msgspec.json.decode": "msgspec",
        "orjson.loads (floor)": "orjson.loads",
    }
    rows = [
        Row(case, ours, peers[name], seconds, goal="<= 0.5x" if "pydantic" in name else "")
        for name, seconds in results.items()
    ]
    if normal is not None:  # this version has a msgspec fast path: without it, too
        pydantic_time = results["pydantic model_validate_json"]
        rows.append(Row(f"{case}, without msgspec", normal, "pydantic", pydantic_time))
    return rows


def candidates(data: bytes, number: int, rounds: int) -> dict[str, float]:
    """Seconds per call of describedtypes and each peer, checked to agree first."""
    ours = decode(Order, data)
    theirs = POrder.model_validate_json(data)
    assert len(ours.items) == len(theirs.items) == 8
    assert ours.items[1].category is Category.GAMES
    assert msgspec.json.decode(data, type=MOrder).customer.address.city == "London"
    runs: dict[str, Callable[[], object]] = {
        "describedtypes.decode": lambda: decode(Order, data),
        "pydantic model_validate_json": lambda: POrder.model_validate_json(data),
        "msgspec.json.decode": lambda: msgspec.json.decode(data, type=MOrder),
        "orjson.loads (floor)": lambda: orjson.loads(data),
    }
    if hasattr(_decode_module(), "FALLBACK"):  # it has a fast path
        runs[NORMAL] = lambda: decode(Order, data)
    return measure(runs, number=number, rounds=rounds)


def main() -> None:
    data = reply()
    ours = decode(Order, data)
    results = candidates(data, number=2000, rounds=15)
    ours_time = results["describedtypes.decode"]
    print(f"reply: {len(data)} bytes, {len(ours.items)} line items")
    print(f"{'decoder':32} {'µs/call':>9} {'describedtypes / this':>22}")
    for name, seconds in results.items():
        print(f"{name:32} {seconds * 1e6:9.2f} {ours_time / seconds:21.2f}x")
    floor = results["orjson.loads (floor)"]
    print(
        f"\nparsing is {floor / ours_time:.0%} of describedtypes' time; building and "
        f"checking the instances is the rest."
    )
    if "--profile" in sys.argv:
        profile(data)


def profile(data: bytes) -> None:
    """Where describedtypes' time goes, grouped: parsing, generated checks, constructors."""
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(20000):
        decode(Order, data)
    profiler.disable()
    stats = pstats.Stats(profiler)
    groups = {
        "orjson.loads (parsing)": 0.0,
        "generated structure functions (checks)": 0.0,
        "attrs __init__ (constructors)": 0.0,
        "everything else": 0.0,
    }
    for (filename, _line, name), row in stats.stats.items():  # type: ignore[attr-defined]
        tottime = row[2]
        if "orjson" in name or name == "<built-in method orjson.loads>":
            groups["orjson.loads (parsing)"] += tottime
        elif filename.startswith("<describedtypes decode"):
            groups["generated structure functions (checks)"] += tottime
        elif filename.startswith("<attrs generated"):
            groups["attrs __init__ (constructors)"] += tottime
        else:
            groups["everything else"] += tottime
    total = sum(groups.values())
    print("\nprofile of describedtypes.decode (share of own time, cProfile overhead included):")
    for label, seconds in groups.items():
        print(f"  {label:42} {seconds / total:6.1%}")
    print()
    stats.sort_stats("tottime").print_stats(8)


if __name__ == "__main__":
    main()

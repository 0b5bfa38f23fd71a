"""schema() of a 15-class nested model, cold and cached, against pydantic and msgspec.

Run: python benchmarks/bench_schema.py
Every number comes from the same run; ratios are what to compare across machines.
"""

from __future__ import annotations

import functools
import statistics
import sys
import timeit
import typing
from collections.abc import Callable
from pathlib import Path

import attrs
import msgspec
import pydantic

sys.path.insert(0, str(Path(__file__).parent))

from _common import TIMER, Row
from _models import Status, build_attrs, build_msgspec, build_pydantic

from describedtypes import OPENAI, STANDARD, schema
from describedtypes import inspect as inspect_module
from describedtypes._schema import schema as schema_module


def best(fn: object, number: int, repeat: int = 7) -> float:
    """Median seconds per call over ``repeat`` runs of ``number`` calls."""
    times = timeit.repeat(fn, number=max(number, 1), repeat=repeat, timer=TIMER)  # type: ignore[arg-type]
    return statistics.median(times) / max(number, 1)


CACHE_ATTRIBUTE = "__describedtypes_cache__"


def forgetter(root: type) -> Callable[[], None]:
    """A function dropping everything describedtypes cached for the model's classes.

    The cache lives on each class (older versions kept module-level caches with a
    ``_clear()``; both are handled, so ``run_all.py --baseline`` can time either).
    """
    classes: list[type] = [Status]
    todo = [root]
    while todo:
        cls = todo.pop()
        classes.append(cls)
        for field in attrs.fields(cls):
            for arg in (field.type, *typing.get_args(field.type)):
                if attrs.has(arg):
                    todo.append(arg)
    old_schema = getattr(schema_module, "_clear", None)
    old_inspect = getattr(inspect_module, "_clear_cache", None)

    def forget() -> None:
        if old_schema is not None and old_inspect is not None:
            old_schema()
            old_inspect()
        for cls in classes:
            if CACHE_ATTRIBUTE in cls.__dict__:
                type.__delattr__(cls, CACHE_ATTRIBUTE)

    return forget


def run(quick: bool) -> list[Row]:
    """The rows for ``run_all.py``: cold and cached ``schema()`` against the peers."""
    results = measure(quick)
    pydantic_cached = results["pydantic TypeAdapter(M).json_schema()"]
    pydantic_cold = results["pydantic TypeAdapter built each time"]
    msgspec_schema = results["msgspec.json.schema"]
    rows = []
    for adapter in ("STANDARD", "OPENAI"):
        cold = results[f"describedtypes {adapter}, cold"]
        rows.append(Row(f"schema() {adapter}, cold, 15 classes", cold, "msgspec", msgspec_schema))
        rows.append(Row(f"schema() {adapter}, cold, 15 classes", cold, "pydantic", pydantic_cold))
    refs = results["describedtypes STANDARD $defs, cold"]
    rows.append(Row("schema() $defs, cold, 15 classes", refs, "msgspec", msgspec_schema))
    # With Google-style docstrings: describedtypes reads a description for every field
    # from them, msgspec and pydantic put the class docstring in as it is.
    documented = results["describedtypes STANDARD, cold, documented"]
    case = "schema() STANDARD, cold, 15 documented classes"
    rows.append(Row(case, documented, "msgspec", results["msgspec.json.schema, documented"]))
    rows.append(Row(case, documented, "pydantic", results["pydantic, documented"]))
    memo = results["functools.cache of (class, adapter)"]
    for adapter in ("STANDARD", "OPENAI"):
        cached = results[f"describedtypes {adapter}, cached"]
        goal = "< 1 µs" if adapter == "OPENAI" else ""
        rows.append(Row(f"schema() {adapter}, cached", cached, "functools.cache", memo, goal=goal))
        rows.append(Row(f"schema() {adapter}, cached", cached, "pydantic", pydantic_cached))
    return rows


def measure(quick: bool = False) -> dict[str, float]:
    """Seconds per call of every case (``quick``: a tenth of the calls, 3 repeats)."""
    scale, repeat = (10, 3) if quick else (1, 7)
    root = build_attrs()
    model = build_pydantic()
    struct = build_msgspec()
    adapter = pydantic.TypeAdapter(model)
    documented_root = build_attrs(documented=True)
    documented_model = build_pydantic(documented=True)
    documented_struct = build_msgspec(documented=True)

    memo = functools.cache(lambda cls, adapter: schema(cls, adapter))

    forget = forgetter(root)
    forget_documented = forgetter(documented_root)

    def cold_documented() -> None:
        forget_documented()
        schema(documented_root)

    def cold_standard() -> None:
        forget()
        schema(root)

    def cold_openai() -> None:
        forget()
        schema(root, llm_adapter=OPENAI)

    def cold_refs() -> None:
        forget()
        schema(root, use_references=True)

    def timed(fn: object, number: int) -> float:
        return best(fn, number // scale, repeat)

    return {
        "describedtypes STANDARD, cold": timed(cold_standard, 50),
        "describedtypes OPENAI, cold": timed(cold_openai, 50),
        "describedtypes STANDARD $defs, cold": timed(cold_refs, 50),
        "describedtypes STANDARD, cached": timed(lambda: schema(root, STANDARD), 20000),
        "describedtypes OPENAI, cached": timed(lambda: schema(root, OPENAI), 20000),
        # The cheapest cache a caller could put in front: what a cached call is held to.
        "functools.cache of (class, adapter)": timed(lambda: memo(root, OPENAI), 20000),
        "pydantic TypeAdapter(M).json_schema()": timed(lambda: adapter.json_schema(), 200),
        "pydantic TypeAdapter built each time": timed(
            lambda: pydantic.TypeAdapter(model).json_schema(), 100
        ),
        "msgspec.json.schema": timed(lambda: msgspec.json.schema(struct), 200),
        "describedtypes STANDARD, cold, documented": timed(cold_documented, 50),
        "pydantic, documented": timed(
            lambda: pydantic.TypeAdapter(documented_model).json_schema(), 100
        ),
        "msgspec.json.schema, documented": timed(
            lambda: msgspec.json.schema(documented_struct), 200
        ),
    }


def main() -> None:
    results = measure()
    base = results["pydantic TypeAdapter(M).json_schema()"]
    width = max(map(len, results))
    print(f"{'case':<{width}}  {'µs/call':>10}  {'vs pydantic':>11}")
    for name, seconds in results.items():
        print(f"{name:<{width}}  {seconds * 1e6:>10.1f}  {seconds / base:>10.2f}x")


if __name__ == "__main__":
    main()

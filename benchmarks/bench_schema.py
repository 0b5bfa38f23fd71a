"""schema() of a 15-class nested model, cold and cached, against pydantic and msgspec.

Run: python benchmarks/bench_schema.py
Every number comes from the same run; ratios are what to compare across machines.
"""

from __future__ import annotations

import statistics
import sys
import timeit
from pathlib import Path

import msgspec
import pydantic

sys.path.insert(0, str(Path(__file__).parent))

from _models import build_attrs, build_msgspec, build_pydantic

from describedtypes import OPENAI, STANDARD, schema
from describedtypes import _schema as schema_module
from describedtypes import inspect as inspect_module


def best(fn: object, number: int, repeat: int = 7) -> float:
    """Median seconds per call over ``repeat`` runs of ``number`` calls."""
    times = timeit.repeat(fn, number=number, repeat=repeat)  # type: ignore[arg-type]
    return statistics.median(times) / number


def main() -> None:
    root = build_attrs()
    model = build_pydantic()
    struct = build_msgspec()
    adapter = pydantic.TypeAdapter(model)

    def cold_standard() -> None:
        schema_module._clear()
        inspect_module._clear_cache()
        schema(root)

    def cold_openai() -> None:
        schema_module._clear()
        inspect_module._clear_cache()
        schema(root, llm_adapter=OPENAI)

    def cold_refs() -> None:
        schema_module._clear()
        inspect_module._clear_cache()
        schema(root, use_references=True)

    results = {
        "describedtypes STANDARD, cold": best(cold_standard, 50),
        "describedtypes OPENAI, cold": best(cold_openai, 50),
        "describedtypes STANDARD $defs, cold": best(cold_refs, 50),
        "describedtypes STANDARD, cached": best(lambda: schema(root, STANDARD), 2000),
        "describedtypes OPENAI, cached": best(lambda: schema(root, OPENAI), 2000),
        "pydantic TypeAdapter(M).json_schema()": best(lambda: adapter.json_schema(), 200),
        "pydantic TypeAdapter built each time": best(
            lambda: pydantic.TypeAdapter(model).json_schema(), 100
        ),
        "msgspec.json.schema": best(lambda: msgspec.json.schema(struct), 200),
    }
    base = results["pydantic TypeAdapter(M).json_schema()"]
    width = max(map(len, results))
    print(f"{'case':<{width}}  {'µs/call':>10}  {'vs pydantic':>11}")
    for name, seconds in results.items():
        print(f"{name:<{width}}  {seconds * 1e6:>10.1f}  {seconds / base:>10.2f}x")


if __name__ == "__main__":
    main()

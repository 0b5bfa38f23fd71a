"""pydantic models through describedtypes, against pydantic's own path, in one run.

Run: python benchmarks/bench_pydantic.py

- decode: the ~1.5 KB order reply of bench_decode.py into its pydantic models
  (``extra="forbid"``), ``decode(POrder, reply)`` (the strict decoder, then
  ``model_validate`` so the validators run) against ``POrder.model_validate_json(reply)``.
  Goal: at most 1.5x.
- schema: the 15-model tree of ``_models.py`` as an OpenAI strict body, built cold
  (nothing cached), ``schema(Model, OPENAI)`` against what the openai SDK does for
  ``.parse(response_format=Model)``: ``model_json_schema()`` and its strictifier
  (``openai.lib._pydantic.to_strict_json_schema``). Goal: at most 0.5x.
"""

from __future__ import annotations

import sys
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pydantic

sys.path.insert(0, str(Path(__file__).parent))

from _common import Row, best_of_turns
from _models import Status, build_pydantic
from bench_decode import POrder, reply

from describedtypes import OPENAI, decode, schema

CACHE_ATTRIBUTE = "__describedtypes_cache__"


def models_in(root: type[pydantic.BaseModel]) -> list[type]:
    """The model classes of the tree under ``root`` (and the enum they share)."""
    found: list[type] = [Status]
    todo: list[Any] = [root]
    while todo:
        tp = todo.pop()
        if isinstance(tp, type) and issubclass(tp, pydantic.BaseModel):
            if tp in found:
                continue
            found.append(tp)
            todo.extend(f.annotation for f in tp.model_fields.values())
        else:
            todo.extend(typing.get_args(tp))
    return found


def forgetter(root: type[pydantic.BaseModel]) -> Callable[[], None]:
    """A function dropping everything describedtypes cached for the tree's classes."""
    classes = models_in(root)

    def forget() -> None:
        for cls in classes:
            if CACHE_ATTRIBUTE in cls.__dict__:
                type.__delattr__(cls, CACHE_ATTRIBUTE)

    return forget


def measure(quick: bool) -> dict[str, float]:
    """Seconds per call of each case, the candidates of a case taking turns."""
    from openai.lib._pydantic import to_strict_json_schema

    data = reply()
    ours, theirs = decode(POrder, data), POrder.model_validate_json(data)
    assert ours == theirs, "the two decodes disagree"
    rounds = 3 if quick else 15
    decoding = best_of_turns(
        {
            "describedtypes.decode(POrder)": lambda: decode(POrder, data),
            "POrder.model_validate_json": lambda: POrder.model_validate_json(data),
        },
        number=100 if quick else 1000,
        rounds=rounds,
    )
    tree = build_pydantic()
    forget = forgetter(tree)

    def cold() -> object:
        forget()
        return schema(tree, OPENAI)

    assert set(cold()["schema"]["properties"]) == set(to_strict_json_schema(tree)["properties"])
    building = best_of_turns(
        {
            "describedtypes schema(OPENAI), cold": cold,
            "model_json_schema + openai strictifier": lambda: to_strict_json_schema(tree),
        },
        number=5 if quick else 50,
        rounds=rounds,
    )
    cached = best_of_turns(
        {"describedtypes schema(OPENAI), cached": lambda: schema(tree, OPENAI)},
        number=100 if quick else 2000,
        rounds=rounds,
    )
    return {**decoding, **building, **cached, "reply bytes": float(len(data))}


def run(quick: bool) -> list[Row]:
    """The rows for ``run_all.py``."""
    found = measure(quick)
    size = int(found["reply bytes"])
    return [
        Row(
            f"decode() pydantic model, {size} B reply (goal <= 1.5x)",
            found["describedtypes.decode(POrder)"],
            "model_validate_json",
            found["POrder.model_validate_json"],
        ),
        Row(
            "schema() OPENAI, cold, 15 pydantic models (goal <= 0.5x)",
            found["describedtypes schema(OPENAI), cold"],
            "openai to_strict_json_schema",
            found["model_json_schema + openai strictifier"],
        ),
        Row("schema() OPENAI, cached, 15 pydantic models",
            found["describedtypes schema(OPENAI), cached"]),
    ]


def main() -> None:
    for row in run(quick="--quick" in sys.argv):
        ratio = "" if row.ratio is None else f"  {row.ratio:.2f}x {row.peer}"
        print(f"{row.case:60} {row.ours * 1e6:10.1f} µs{ratio}")


if __name__ == "__main__":
    main()

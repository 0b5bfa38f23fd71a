"""What planning a whole request costs: ``Toolbox.plan`` on a 100-tool toolbox, against
building the same definitions, and the tokens the plan's bodies come to.

Run: python benchmarks/bench_requests.py

Timed in one run, on warm caches (each tool's definition is built once and kept, as in
a service that sends the same toolbox on every request):

- ``plan, 100 tools, over budget``: ``box.plan(ANTHROPIC_TOOLS)`` for 100 tools whose
  optional parameters put them far over Anthropic's budgets, so 80 go non-strict;
  against ``box.definitions(ANTHROPIC_TOOLS, strict="off")``, the same tools built
  with no budget to plan;
- ``plan, 100 tools, typed answer``: the same with ``output_type`` (the format is built
  and counted in the budgets too);
- ``fingerprint``: ``box.fingerprint(ANTHROPIC_TOOLS)`` against ``definitions``.

Then the o200k_base tokens (bytes without ``bpe-openai``) of the compact JSON of the
ten-tool toolbox of ``bench_cost.py`` as the plan sends it for Anthropic (within budget:
every tool strict), and for the 100-tool toolbox the plan against every tool sent
non-strict (the strict form spells optional parameters as required and nullable).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import attrs
from _common import Row, best_of_turns

from describedtypes import ANTHROPIC_TOOLS, Toolbox, count_tokens
from describedtypes._schema.tokens import compact_json


@attrs.define
class Answer:
    summary: str
    order_id: str | None = None
    total: float | None = None


def _tool(i: int) -> Any:
    """A fresh function with ``i % 5`` optional parameters (one nested object)."""
    params = ["customer: str"] + [f"opt{j}: str | None = None" for j in range(i % 5)]
    namespace: dict[str, Any] = {}
    exec(f"def tool_{i}({', '.join(params)}) -> str:\n    'Tool {i}.'\n    return ''\n",
         namespace)
    return namespace[f"tool_{i}"]


def hundred() -> Toolbox:
    return Toolbox([_tool(i) for i in range(100)])


def _size(box: Toolbox) -> tuple[float, str]:
    """The tokens of ``box.definitions(ANTHROPIC_TOOLS)`` (what the plan sends without a
    typed answer), or bytes without the tokenizer."""
    try:
        return float(count_tokens(box, ANTHROPIC_TOOLS)), "tokens"
    except ModuleNotFoundError:
        return float(len(compact_json(box.definitions(ANTHROPIC_TOOLS)).encode())), "bytes"


def run(quick: bool) -> list[Row]:
    box = hundred()
    box.plan(ANTHROPIC_TOOLS, output_type=Answer)  # warm every cache once
    number, rounds = (5, 3) if quick else (50, 7)
    best = best_of_turns({
        "plan": lambda: box.plan(ANTHROPIC_TOOLS),
        "plan typed": lambda: box.plan(ANTHROPIC_TOOLS, output_type=Answer),
        "fingerprint": lambda: box.fingerprint(ANTHROPIC_TOOLS),
        "definitions": lambda: box.definitions(ANTHROPIC_TOOLS, strict="off"),
    }, number, rounds)
    rows = [
        Row("plan, 100 tools, over budget", best["plan"], "definitions, strict=off",
            best["definitions"]),
        Row("plan, 100 tools, typed answer", best["plan typed"], "definitions, strict=off",
            best["definitions"]),
        Row("fingerprint, 100 tools", best["fingerprint"], "definitions, strict=off",
            best["definitions"]),
    ]
    import _cost_types as T

    ten = Toolbox(T.TOOLS)
    size, unit = _size(ten)
    strict = len(ten.plan(ANTHROPIC_TOOLS).strict)
    rows.append(Row(f"10-tool toolbox, plan bodies ({strict} strict), {unit}", size,
                    "all non-strict", _size(Toolbox(list(ten), strict="off"))[0], unit=unit))
    size, unit = _size(box)
    strict = len(box.plan(ANTHROPIC_TOOLS).strict)
    rows.append(Row(f"100 tools, plan bodies ({strict} strict), {unit}", size,
                    "all non-strict", _size(Toolbox(list(box), strict="off"))[0], unit=unit))
    return rows


def main() -> None:
    for row in run(quick="--quick" in sys.argv):
        ratio = f"{row.ratio:.2f}x" if row.ratio is not None else ""
        if row.unit == "seconds":
            ours = f"{row.ours * 1e6:,.0f} us"
            theirs = f"{row.theirs * 1e6:,.0f} us" if row.theirs is not None else ""
        else:
            ours = f"{row.ours:,.0f}"
            theirs = f"{row.theirs:,.0f}" if row.theirs is not None else ""
        print(f"{row.case:<48} {ours:>12}  {row.peer:<26} {theirs:>12}  {ratio}")


if __name__ == "__main__":
    main()

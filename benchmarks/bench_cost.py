"""What a schema costs: o200k_base tokens of the compact JSON each library sends to OpenAI.

Run: python benchmarks/bench_cost.py [--dump DIR]   (prints the docs' table)

Six realistic cases (``_cost_types.py``: an invoice with line items, a person with
addresses, an event with dates and enums, a recursive outline, a company that uses one
address class five times, a toolbox of ten tools), written once as attrs classes and once
as pydantic models with the same descriptions and bounds, each counted as what goes into
the request: the ``response_format.json_schema`` object, or the Chat Completions ``tools``
list. Counted in one run, with the same tokenizer, for

- describedtypes: ``schema(tp, OPENAI)`` (the default, every class inline) and
  ``use_references="auto"`` (per class, the smaller of inline and ``$defs``); the tools
  as ``Toolbox.definitions(OPENAI_CHAT_TOOLS)`` and ``Toolbox.definitions(OPENAI_CHAT_TOOLS,
  use_references="auto")``;
- the openai SDK: ``type_to_response_format_param`` (``to_strict_json_schema``) and
  ``pydantic_function_tool``;
- pydantic-ai: its output object definition and ``Tool(..., strict=True).tool_def``
  through ``OpenAIJsonSchemaTransformer(strict=True)``, enveloped as its OpenAI model does;
- instructor: its JSON_SCHEMA mode body (``model_json_schema()``) and TOOLS mode schema
  (``generate_openai_schema``); neither is strict, so OpenAI does not enforce them.

A peer that is not installed is skipped (its column says so). Without ``bpe-openai`` (the
``describedtypes[tokens]`` extra) the sizes are UTF-8 bytes of the compact JSON instead.
The sizes say nothing of acceptance: the openai SDK and instructor keep ``minLength`` and
other keywords OpenAI strict mode does not take, where describedtypes writes them into the
description (and its decoder enforces them).
"""

from __future__ import annotations

import json
import statistics
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _cost_types as T

from describedtypes import (
    OPENAI,
    OPENAI_CHAT_TOOLS,
    STANDARD,
    Toolbox,
    count_tokens,
    schema,
)

OURS = ["dt inline", "dt auto"]
PEERS = ["openai SDK", "pydantic-ai", "instructor"]
STRICT_PEERS = ["openai SDK", "pydantic-ai"]


def compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def measure() -> tuple[Callable[[Any], int], str]:
    """The size function: tokens with bpe-openai, else UTF-8 bytes (and the unit's name)."""
    try:
        import bpe_openai
    except ImportError:
        return (lambda sent: len(compact(sent).encode())), "bytes"
    encoding = bpe_openai.get_encoding("o200k_base")
    return (lambda sent: len(encoding.encode_ordinary(compact(sent)))), "tokens"


# -- what each library sends --------------------------------------------------------------


def openai_sdk(twins: Any) -> dict[str, Any]:
    import openai
    from openai.lib._parsing._completions import type_to_response_format_param

    sent = {name: dict(type_to_response_format_param(model)["json_schema"])
            for name, model in twins.types.items()}
    sent["toolbox"] = [
        openai.pydantic_function_tool(model, name=model.__name__, description=model.__doc__)
        for model in _argument_models(twins)
    ]
    return sent


def pydantic_ai(twins: Any) -> dict[str, Any]:
    from pydantic_ai import Tool
    from pydantic_ai._output import ObjectOutputProcessor
    from pydantic_ai.profiles.openai import OpenAIJsonSchemaTransformer

    sent: dict[str, Any] = {}
    for name, model in twins.types.items():
        od = ObjectOutputProcessor(model, strict=True).object_def
        body = OpenAIJsonSchemaTransformer(od.json_schema, strict=True).walk()
        # As OpenAIChatModel._map_json_schema envelopes it.
        envelope: dict[str, Any] = {"name": od.name or "final_result", "schema": body}
        if od.description:
            envelope["description"] = od.description
        envelope["strict"] = True
        sent[name] = envelope
    tools = []
    for func in twins.tools:
        td = Tool(func, takes_ctx=False, strict=True).tool_def
        parameters = OpenAIJsonSchemaTransformer(td.parameters_json_schema, strict=True).walk()
        function = {"name": td.name, "description": td.description or "",
                    "parameters": parameters, "strict": True}
        tools.append({"type": "function", "function": function})
    sent["toolbox"] = tools
    return sent


def instructor(twins: Any) -> dict[str, Any]:
    from instructor.v2.providers.openai.schema import generate_openai_schema

    sent: dict[str, Any] = {name: {"name": model.__name__, "schema": model.model_json_schema()}
                            for name, model in twins.types.items()}
    sent["toolbox"] = [{"type": "function", "function": dict(generate_openai_schema(model))}
                       for model in _argument_models(twins)]
    return sent


def _argument_models(twins: Any) -> list[Any]:
    return [T.arguments_model(twin, schema(func, STANDARD))
            for func, twin in zip(T.TOOLS, twins.tools, strict=True)]


def describedtypes_sent() -> dict[str, dict[str, Any]]:
    sent: dict[str, dict[str, Any]] = {"dt inline": {}, "dt auto": {}}
    for name, tp in T.TYPES.items():
        sent["dt inline"][name] = schema(tp, OPENAI)
        sent["dt auto"][name] = schema(tp, OPENAI, use_references="auto")
    sent["dt inline"]["toolbox"] = Toolbox(T.TOOLS).definitions(OPENAI_CHAT_TOOLS)
    sent["dt auto"]["toolbox"] = Toolbox(T.TOOLS).definitions(OPENAI_CHAT_TOOLS,
                                                              use_references="auto")
    return sent


def collect() -> tuple[dict[str, dict[str, Any]], dict[str, str]]:
    """What every library sends per case, and why a peer is missing."""
    sent = describedtypes_sent()
    missing: dict[str, str] = {}
    try:
        twins = T.pydantic_twins()
    except ImportError as exc:
        return sent, dict.fromkeys(PEERS, f"not installed ({exc.name})")
    for peer, build in (("openai SDK", openai_sdk), ("pydantic-ai", pydantic_ai),
                        ("instructor", instructor)):
        try:
            sent[peer] = build(twins)
        except ImportError as exc:
            missing[peer] = f"not installed ({exc.name})"
    return sent, missing


def sizes() -> tuple[dict[str, dict[str, int]], dict[str, str], str]:
    """{case: {library: size}}, the missing peers, and the unit."""
    size, unit = measure()
    sent, missing = collect()
    cases = [*T.TYPES, "toolbox"]
    table = {case: {lib: size(sent[lib][case]) for lib in sent} for case in cases}
    # count_tokens() is what users call: it must give the figures measured here.
    if unit == "tokens":
        assert table["company"]["dt auto"] == count_tokens(T.Company, OPENAI,
                                                           use_references="auto")
        assert table["toolbox"]["dt inline"] == count_tokens(Toolbox(T.TOOLS),
                                                             OPENAI_CHAT_TOOLS)
        assert table["toolbox"]["dt auto"] == count_tokens(Toolbox(T.TOOLS), OPENAI_CHAT_TOOLS,
                                                           use_references="auto")
    return table, missing, unit


def run(quick: bool) -> list[Any]:
    """The rows for ``run_all.py``: describedtypes' auto size against each peer's."""
    from _common import Row

    table, missing, unit = sizes()
    rows = []
    for case, got in table.items():
        label = f"{case}, {unit} sent"
        rows.append(Row(f"{label} (inline)", float(got["dt inline"]), unit=unit))
        for peer in PEERS:
            if peer in missing:
                rows.append(Row(f"{label} (auto)", float(got["dt auto"]),
                                peer=f"{peer}: skipped, {missing[peer]}", unit=unit))
            else:
                rows.append(Row(f"{label} (auto)", float(got["dt auto"]), peer=peer,
                                theirs=float(got[peer]), unit=unit))
    return rows


def markdown(table: dict[str, dict[str, int]], missing: dict[str, str], unit: str) -> str:
    """The docs' table: one row per case, then the means."""
    columns = OURS + PEERS
    lines = [
        "| case | " + " | ".join(columns)
        + " | auto / smallest peer | auto / smallest strict peer |",
        "|---" * (len(columns) + 3) + "|",
    ]
    vs_all: list[float] = []
    vs_strict: list[float] = []
    vs_peer: dict[str, list[float]] = {peer: [] for peer in PEERS}
    for case, got in table.items():
        present = [p for p in PEERS if p not in missing]
        strict = [p for p in STRICT_PEERS if p not in missing]
        cells = [str(got[c]) if c in got else "skipped" for c in columns]
        ratio_all = got["dt auto"] / min(got[p] for p in present) if present else None
        ratio_strict = got["dt auto"] / min(got[p] for p in strict) if strict else None
        if ratio_all is not None:
            vs_all.append(ratio_all)
        if ratio_strict is not None:
            vs_strict.append(ratio_strict)
        for peer in present:
            vs_peer[peer].append(got["dt auto"] / got[peer])
        lines.append(f"| {case} | " + " | ".join(cells)
                     + f" | {_x(ratio_all)} | {_x(ratio_strict)} |")
    lines.append("")
    lines.append(f"Sizes in {unit} (o200k_base). Mean of auto / smallest peer: "
                 f"{_x(statistics.mean(vs_all) if vs_all else None)} (max "
                 f"{_x(max(vs_all) if vs_all else None)}); auto / smallest strict peer: "
                 f"{_x(statistics.mean(vs_strict) if vs_strict else None)} (max "
                 f"{_x(max(vs_strict) if vs_strict else None)}).")
    means = ", ".join(f"{peer} {_x(statistics.mean(r))}" for peer, r in vs_peer.items() if r)
    lines.append(f"Mean of auto / each peer: {means}.")
    for peer, why in missing.items():
        lines.append(f"{peer}: skipped, {why}.")
    return "\n".join(lines)


def _x(ratio: float | None) -> str:
    return "-" if ratio is None else f"{ratio:.2f}x"


def main(argv: list[str]) -> None:
    table, missing, unit = sizes()
    print(markdown(table, missing, unit))
    if "--dump" in argv:
        folder = Path(argv[argv.index("--dump") + 1])
        folder.mkdir(parents=True, exist_ok=True)
        sent, _ = collect()
        for lib, cases in sent.items():
            for case, value in cases.items():
                name = f"{case}.{lib.replace(' ', '_')}.json"
                (folder / name).write_text(json.dumps(value, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main(sys.argv[1:])

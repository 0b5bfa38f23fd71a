"""Grammar compile time of our bodies against the openai SDK's strict bodies, same types.

What a self-hosted server spends before the first token: compiling the request's JSON
Schema into a token mask. For the 15-class model (benchmarks/_models.py), our body
(``schema(M, VLLM)``, and ``VLLM.replace(backend="guidance")`` for llguidance) and the
openai SDK's ``to_strict_json_schema`` of the same pydantic model are compiled by
llguidance (as vLLM's guidance backend: grammar, matcher, first mask, since it builds
lazily) and by xgrammar (as vLLM's default backend; only where xgrammar and torch are
installed), with a byte-level vocabulary. Every number comes from the same run.

Run: python benchmarks/bench_grammar.py
"""

from __future__ import annotations

import importlib.util
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

sys.path.insert(0, str(Path(__file__).parent))

from _common import Row, best_of_turns
from _models import build_attrs, build_pydantic

from describedtypes import VLLM, schema

EOS = 256


def bodies() -> dict[str, tuple[dict[str, Any], dict[str, Any]]]:
    """(ours, openai's) body per engine, for the same model."""
    from openai.lib._pydantic import to_strict_json_schema

    theirs = to_strict_json_schema(build_pydantic())
    root = build_attrs()
    return {
        "llguidance": (schema(root, VLLM.replace(backend="guidance"))["schema"], theirs),
        "xgrammar": (schema(root, VLLM)["schema"], theirs),
    }


def llguidance_compiler() -> Callable[[dict[str, Any]], object]:
    from llguidance import LLMatcher, LLTokenizer, TokenizerWrapper

    class ByteTokenizer:
        eos_token_id = EOS
        bos_token_id = None
        tokens = [bytes([i]) for i in range(256)] + [b"<eos>"]
        special_token_ids: ClassVar[list[int]] = [EOS]

        def __call__(self, text: str | bytes) -> list[int]:
            return list(text.encode() if isinstance(text, str) else text)

    tokenizer = LLTokenizer(TokenizerWrapper(ByteTokenizer()))

    def compile_body(body: dict[str, Any]) -> object:
        grammar = LLMatcher.grammar_from_json_schema(
            json.dumps(body), defaults={"whitespace_flexible": True}
        )
        matcher = LLMatcher(tokenizer, grammar, log_level=0)
        assert not matcher.is_error(), matcher.get_error()
        return matcher.compute_bitmask()

    return compile_body


def xgrammar_compiler() -> Callable[[dict[str, Any]], object] | None:
    if any(importlib.util.find_spec(m) is None for m in ("xgrammar", "torch", "transformers")):
        return None
    import xgrammar as xgr

    vocab = [bytes([i]) for i in range(256)] + [b"<eos>"]
    info = xgr.TokenizerInfo(vocab, vocab_type=xgr.VocabType.RAW, vocab_size=EOS + 1,
                             stop_token_ids=[EOS])
    compiler = xgr.GrammarCompiler(info, max_threads=1, cache_enabled=False)

    def compile_body(body: dict[str, Any]) -> object:
        return compiler.compile_json_schema(json.dumps(body), any_whitespace=True)

    return compile_body


def run(quick: bool) -> list[Row]:
    """The rows for ``run_all.py``: compile time per engine, ours against openai's."""
    made = bodies()
    compilers = {"llguidance": llguidance_compiler(), "xgrammar": xgrammar_compiler()}
    rows = []
    for engine, compile_body in compilers.items():
        if compile_body is None:
            continue  # xgrammar needs torch: not installed here
        ours, theirs = made[engine]
        times = best_of_turns(
            {"ours": lambda c=compile_body, b=ours: c(b),
             "theirs": lambda c=compile_body, b=theirs: c(b)},
            number=1 if quick else 5,
            rounds=2 if quick else 7,
        )
        rows.append(Row(f"{engine} compile, 15 classes", times["ours"],
                        "openai to_strict_json_schema", times["theirs"]))
    return rows


if __name__ == "__main__":
    quick = "--quick" in sys.argv
    for row in run(quick):
        print(f"{row.case}: ours {row.ours * 1e3:.2f} ms, {row.peer} "
              f"{(row.theirs or 0) * 1e3:.2f} ms, ratio {row.ratio:.2f}")

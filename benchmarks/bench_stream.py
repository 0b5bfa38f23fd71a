"""decode_stream() of a growing reply: is the cost linear in the reply's length?

Run: python benchmarks/bench_stream.py [--profile]

A reply of about 20 KB arrives in 400 chunks, and one of about 40 KB in 800 chunks
(the same kind of model, twice as many items). For each, in one run:

- ``decode_stream``: all partials and the final instance;
- ``decode``: the finished text decoded once (the floor a stream is compared with);
- ``jiter every chunk``: the whole prefix parsed with jiter's partial mode after every
  chunk, as the OpenAI SDK's streamed ``parse()`` does (dicts only, no types);
- ``pydantic every chunk``: pydantic's ``validate_json(..., experimental_allow_partial=True)``
  of the whole prefix after every chunk (typed partial models).

The ratios to check: 40 KB / 20 KB streaming cost (linear means about 2, quadratic 4),
and streaming cost / one-shot decode.
``run(quick)`` gives ``run_all.py`` the same figures as rows (CPU time, garbage
collector on).

Each contender is timed right after a call of its own (warm), never right after another
contender: the peers here run for 10-100 ms and leave the processor's caches full of
their own code and data, and ``decode()`` timed right after the stream (whose last step
is that very ``decode()``) found its code warm while the stream, timed after the peers,
found its own cold. That pairing put the stream at about 11-12x where both warm give
about 10x and both cold about 6x. The stream and the one-shot decode are also timed
cold, both alike: after reading a buffer larger than the last-level cache, as a server
meets them between other requests (``caches cold`` rows).
"""

from __future__ import annotations

import contextlib
import cProfile
import datetime
import enum
import pstats
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs
import jiter
import orjson
import pydantic

sys.path.insert(0, str(Path(__file__).parent))

from _common import TIMER, Row

from describedtypes import decode, decode_stream


class Priority(enum.Enum):
    LOW = "low"
    HIGH = "high"


@attrs.define
class Step:
    title: str
    detail: str
    priority: Priority
    minutes: int
    due: datetime.date
    tags: list[str] = attrs.Factory(list)


@attrs.define
class Plan:
    summary: str
    steps: list[Step]
    done: bool = False


class PStep(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid")
    title: str
    detail: str
    priority: Priority
    minutes: int
    due: datetime.date
    tags: list[str] = []


class PPlan(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid")
    summary: str
    steps: list[PStep]
    done: bool = False


def reply(size: int) -> str:
    """A plan whose JSON is about ``size`` bytes."""
    steps: list[dict[str, Any]] = []
    data: dict[str, Any] = {"summary": "A plan in many steps, " * 3, "steps": steps, "done": True}
    i = 0
    while len(orjson.dumps(data)) < size:
        steps.append({
            "title": f"Step {i}: do the next thing",
            "detail": "Explain what to do, why, and how to tell it worked. " * 2,
            "priority": "high" if i % 3 else "low",
            "minutes": 5 + i % 40,
            "due": f"2026-0{1 + i % 9}-1{i % 10}",
            "tags": ["work", f"t{i}"],
        })
        i += 1
    return orjson.dumps(data).decode()


def chunked(text: str, n: int) -> list[str]:
    size = -(-len(text) // n)
    return [text[i : i + size] for i in range(0, len(text), size)]


def timings(text: str, chunks: list[str]) -> dict[str, Callable[[], object]]:
    """The contenders for one reply, as zero-argument callables."""

    def stream() -> None:
        for _ in decode_stream(Plan, chunks):
            pass

    def every_chunk_jiter() -> None:
        prefix = b""
        for chunk in chunks:
            prefix += chunk.encode()
            jiter.from_json(prefix, partial_mode="trailing-strings")

    adapter = pydantic.TypeAdapter(PPlan)

    def every_chunk_pydantic() -> None:
        prefix = ""
        for chunk in chunks:
            prefix += chunk
            with contextlib.suppress(pydantic.ValidationError):
                adapter.validate_json(prefix, experimental_allow_partial=True)

    assert list(decode_stream(Plan, chunks))[-1] == decode(Plan, text)
    return {
        "decode_stream": stream,
        "decode (one shot)": lambda: decode(Plan, text),
        "jiter every chunk": every_chunk_jiter,
        "pydantic every chunk": every_chunk_pydantic,
    }


#: How often each contender runs per round; the best round counts. One call per sample:
#: several in a row fold the allocator's and the garbage collector's work for the
#: previous calls into the next, which is noise, not the cost of the call.
NUMBER = {"decode_stream": 1, "decode (one shot)": 1, "jiter every chunk": 1,
          "pydantic every chunk": 1}


def _timed(fn: Callable[[], object], number: int) -> float:
    """CPU seconds per call, with the garbage collector on as in use (``timeit`` turns it
    off, which here makes the longer reply slower per byte than it is in a real program)."""
    start = TIMER()
    for _ in range(number):
        fn()
    return (TIMER() - start) / number


#: The contenders also timed with the caches cold (``COLD`` appended to their key).
TIMED_COLD = ("decode_stream", "decode (one shot)")
COLD = ", caches cold"
#: Read before each cold sample: twice the last-level cache of the machine the figures
#: were taken on (32 MiB), so what runs next finds its code and data in memory only.
_EVICT_BYTES = 64 << 20


def _evict(junk: bytearray) -> None:
    junk.count(b"\x00\x01\x02")  # reads every byte (in C, about 50 ms)


def measure(runs: dict[str, dict[str, Callable[[], object]]], rounds: int) -> dict[str, Any]:
    """The best time of each contender on each reply, the replies run in turn each round.

    Interleaving the replies round by round means a busy moment on a shared machine
    slows both alike instead of skewing the ratio between them. Each timed call follows
    an untimed call of the same contender (warm); the ``TIMED_COLD`` ones are also timed
    once per round after the caches were filled with other data.
    """
    best: dict[str, dict[str, float]] = {name: {} for name in runs}
    junk = bytearray(bytes(range(256)) * (_EVICT_BYTES // 256))  # (real pages, not zero)
    for _ in range(rounds):
        for name, contenders in runs.items():
            for key, fn in contenders.items():
                fn()
                took = _timed(fn, NUMBER[key])
                best[name][key] = min(best[name].get(key, took), took)
                if key in TIMED_COLD:
                    _evict(junk)
                    took = _timed(fn, 1)
                    best[name][key + COLD] = min(best[name].get(key + COLD, took), took)
    return best


def replies(rounds: int) -> dict[str, dict[str, float]]:
    """The best time of each contender on the 20 KB and the 40 KB reply."""
    small, large = reply(20_000), reply(40_000)
    return measure({
        f"{len(small) // 1000} KB in 400 chunks": timings(small, chunked(small, 400)),
        f"{len(large) // 1000} KB in 800 chunks": timings(large, chunked(large, 800)),
    }, rounds=rounds)


#: The name of each peer in ``run_all.py``'s table.
PEERS = {"decode (one shot)": "decode() one shot", "jiter every chunk": "jiter every chunk",
         "pydantic every chunk": "pydantic partial every chunk"}


def run(quick: bool) -> list[Row]:
    """The rows for ``run_all.py``: each reply streamed against the peers, and the growth."""
    runs = replies(rounds=3 if quick else 25)
    rows = []
    for name, best in runs.items():
        case = f"decode_stream {name}"
        rows += [
            Row(case, best["decode_stream"], PEERS[key], best[key],
                goal="<= 10x" if key == "decode (one shot)" and "400" in name else "")
            for key in PEERS
        ]
        rows.append(Row(case + COLD, best["decode_stream" + COLD],
                        PEERS["decode (one shot)"] + COLD, best["decode (one shot)" + COLD]))
    (name_s, s), (name_l, l_) = runs.items()
    rows.append(Row(f"decode_stream growth {name_l.split(' in ')[0]} / {name_s.split(' in ')[0]} "
                    "(linear: 2)", l_["decode_stream"], f"decode_stream {name_s}",
                    s["decode_stream"]))
    return rows


def main() -> None:
    large = reply(40_000)
    runs = replies(rounds=25)
    (name_s, s), (name_l, l_) = runs.items()
    print(f"{'':24}{name_s:>24}{name_l:>24}{'ratio':>10}")
    for key in s:
        print(f"{key:37}{s[key] * 1e3:11.3f} ms{l_[key] * 1e3:21.3f} ms"
              f"{l_[key] / s[key]:10.2f}")
    partials = sum(1 for _ in decode_stream(Plan, chunked(large, 800))) - 1
    print()
    growth = l_["decode_stream"] / s["decode_stream"]
    print(f"growth ratio 40 KB / 20 KB (decode_stream): {growth:.2f} (linear is 2, the limit 2.5)")
    for name, r in runs.items():
        print(f"decode_stream / one-shot decode, {name}: "
              f"{r['decode_stream'] / r['decode (one shot)']:.2f} (the limit 10); caches "
              f"cold: {r['decode_stream' + COLD] / r['decode (one shot)' + COLD]:.2f}")
    print(f"partials yielded for the 40 KB reply: {partials}")
    if "--profile" in sys.argv:
        chunks = chunked(large, 800)
        profile = cProfile.Profile()
        profile.enable()
        for _ in range(20):
            for _ in decode_stream(Plan, chunks):
                pass
        profile.disable()
        pstats.Stats(profile).sort_stats("cumulative").print_stats(20)


if __name__ == "__main__":
    main()

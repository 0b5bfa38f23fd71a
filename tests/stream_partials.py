"""The exact partials decode_stream yields, recorded: the corpus behind
tests/test_stream_partials.py (tests/data/stream_partials.json.gz).

Each case is a fixed type, a reply and a way to cut it, plus, for each value the stream
yielded, its repr, its fields' repr and its growing field (and the final value's repr,
or the error raised at the end). The recording was made with the partial builder as it
stood before its per-parse work was cut (0.4.0), so a faster builder must yield the same
partials at the same chunks. (The Drawing cases were recorded again, with the faster
builder, once Drawing took test_eval's Circle and Square, whose sides are floats; the
faster builder had matched the first recording of them exactly.) To write the file
again (only when a change of what users see is meant), run from the repository root:
``python -c "from tests.stream_partials import main; main()"``.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from unittest import mock

import attrs

from describedtypes import DescribedTypesError, Partial, decode_stream, encode
from describedtypes._vendors import stream as _stream

from .test_eval import Circle, Square
from .test_stream import Branch, Kind, Leaf, Pet, Tree
from .test_stream import Person as _Person

CORPUS = Path(__file__).parent / "data" / "stream_partials.json.gz"


@attrs.define
class Person(_Person):
    """test_stream's, with its tags in a tuple: a frozenset's repr order depends on the
    hash seed, and the corpus holds reprs."""

    tags: tuple[str, ...] = ()  # type: ignore[assignment]


@attrs.define
class Drawing:
    name: str
    shapes: list[Circle | Square]
    grid: list[list[int]]
    pair: tuple[str, int] | None = None
    extra: Any = None


TYPES: dict[str, Any] = {
    "Person": Person, "Tree": Tree, "Drawing": Drawing,
    "list[Pet]": list[Pet], "dict[str, list[int]]": dict[str, list[int]],
}


def _values(rng: random.Random) -> Iterator[tuple[str, Any]]:
    words = ["a", "ünï ☃", 'quo"te', "back\\slash", "x" * 30, "😀 emoji", "line\nbreak"]
    for n in (0, 1, 3, 8):
        yield "Person", Person(
            rng.choice(words), rng.randint(-5, 10**6), " ".join(rng.choices(words, k=4)),
            [Pet(rng.choice(words), rng.choice(list(Kind))) for _ in range(n)],
            tuple(rng.choices(words, k=n % 3)),
        )
    for n in (1, 3, 6):
        yield "Tree", Tree("t", [
            Branch(rng.choice(words), [Leaf(rng.choice(words), rng.choice([None, 1.5e10, -0.25]))
                                       for _ in range(i % 3)],
                   {"k": i, "v": 2}, rng.choice([None, 7, "s"]))
            for i in range(n)
        ], True)
    for n in (2, 5):
        yield "Drawing", Drawing(
            rng.choice(words),
            [Circle("circle", 2.5) if i % 2 else Square("square", i) for i in range(n)],
            [list(range(i)) for i in range(n)],
            ("p", 3) if n % 2 else None,
            {"free": [1, {"x": "y"}]},
        )
    yield "list[Pet]", [Pet(w, Kind.DOG) for w in words[:5]]
    yield "dict[str, list[int]]", {w: list(range(i)) for i, w in enumerate(words)}


def _layouts(text: str) -> list[str]:
    data = json.loads(text)
    return [
        text,
        json.dumps(data, indent=2, ensure_ascii=False),
        json.dumps(data, separators=(" , ", " : ")),
    ]


def _chunkings(rng: random.Random, text: str) -> Iterator[tuple[str, list[str]]]:
    yield "ones", list(text)
    for size in (3, 17):
        yield f"size {size}", [text[i : i + size] for i in range(0, len(text), size)]
    cuts = sorted(rng.randrange(len(text) + 1) for _ in range(rng.randint(1, 40)))
    yield "random", [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]


def record(tp: Any, chunks: list[str], each: bool) -> list[Any]:
    """What decode_stream yields, as reprs: per partial [repr, fields, growing]; then the
    final value's repr, or the error raised at the end."""
    out: list[Any] = []
    spacing = (
        mock.patch.object(_stream, "_MIN_STEP", 1) if each else contextlib.nullcontext()
    )
    growth = mock.patch.object(_stream, "_GROWTH", 0) if each else contextlib.nullcontext()
    with spacing, growth:
        try:
            for value in decode_stream(tp, chunks):
                if isinstance(value, Partial):
                    out.append([repr(value), repr(dict(value.fields)), value.growing])
                else:
                    out.append(repr(value))
        except DescribedTypesError as exc:
            out.append(f"{type(exc).__name__}: {exc}")
    return out


def cases() -> Iterator[dict[str, Any]]:
    rng = random.Random(20261207)
    for name, value in _values(rng):
        for layout in _layouts(encode(value).decode()):
            for cut in (False, True):
                text = layout[: rng.randrange(len(layout))] if cut else layout
                for how, chunks in _chunkings(rng, text):
                    for each in (False, True):
                        if each and how != "random" and len(text) > 300:
                            continue  # (a parse per character of a long text: a big file)
                        yield {"type": name, "how": how, "each": each, "chunks": chunks}


def main() -> None:
    corpus = [dict(case, expected=record(TYPES[case["type"]], case["chunks"], case["each"]))
              for case in cases()]
    CORPUS.parent.mkdir(exist_ok=True)
    text = json.dumps(corpus, ensure_ascii=False, indent=0) + "\n"
    CORPUS.write_bytes(gzip.compress(text.encode(), mtime=0))
    print(f"{len(corpus)} cases, {sum(len(c['expected']) for c in corpus)} values")


if __name__ == "__main__":
    main()

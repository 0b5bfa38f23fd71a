"""decode_stream yields exactly the partials it did before its builder was made faster:
the same values (repr, fields, growing field) at the same chunks, and the same end."""

from __future__ import annotations

import gzip
import json
import sys
from typing import Any
from unittest import mock

import attrs
import pytest

from describedtypes import annotate, encode
from describedtypes._codec.fast import fast_items_decoder_for
from describedtypes._types.inspector import type_info
from describedtypes._vendors import stream as _stream

from .stream_partials import CORPUS, TYPES, record

_CASES: list[dict[str, Any]] = json.loads(gzip.decompress(CORPUS.read_bytes()))


@pytest.mark.parametrize("name", sorted(TYPES))
def test_the_recorded_partials_come_at_the_recorded_chunks(name: str) -> None:
    """Replies of fixed types (nested classes, unions, tuples, dicts, Any, strings with
    escapes and any unicode), compact or spaced, whole or cut off, cut every way, parsed
    after every chunk or at the default spacing: what the stream yields, value by value,
    equals the recording made before the builder changed."""
    cases = [c for c in _CASES if c["type"] == name]
    assert cases
    for case in cases:
        got = record(TYPES[name], case["chunks"], case["each"])
        assert got == case["expected"], (case["how"], case["each"], case["chunks"])


def test_a_nullable_unions_nulls_do_not_grow_the_plan() -> None:
    """Each parse that met null in a nullable union made a new null node, compiled and
    kept by id in the type's plan (shared by every stream of the type): a plan grew
    with every such parse. Now the null option is one node per plan."""
    tp = list[int | None]
    text = json.dumps([None] * 200)
    chunks = [text[i : i + 3] for i in range(0, len(text), 3)]
    with mock.patch.object(_stream, "_MIN_STEP", 1), mock.patch.object(_stream, "_GROWTH", 0):
        list(_stream.decode_stream(tp, chunks))
        plan = _stream._Stream(tp, None, annotate).plan
        compiled = len(plan.fns)
        list(_stream.decode_stream(tp, chunks))
    assert len(plan.fns) == compiled <= 4


@attrs.define
class Row:
    name: str
    size: int


@attrs.define
class Table:
    title: str
    rows: list[Row]


@attrs.define
class Row2:  # the same shape, a new class: nothing cached for it with msgspec
    name: str
    size: int


@attrs.define
class Table2:
    title: str
    rows: list[Row2]


def test_without_msgspec_the_same_partials(monkeypatch: pytest.MonkeyPatch) -> None:
    """msgspec is optional: without it no item is read from its own text (every parse
    reads the whole text), and the stream yields the same values at the same chunks."""
    text = encode(Table("t", [Row(f"r{i} \"q\" \u2603", i) for i in range(40)])).decode()
    chunks = [text[i : i + 7] for i in range(0, len(text), 7)]
    with_msgspec = record(Table, chunks, each=False)
    assert fast_items_decoder_for(Row, type_info(Row)) is not None
    monkeypatch.setitem(sys.modules, "msgspec", None)
    assert fast_items_decoder_for(Row2, type_info(Row2)) is None  # no skimming now
    without = record(Table2, chunks, each=False)
    assert [str(v).replace("Table2", "Table").replace("Row2", "Row") for v in without] == [
        str(v) for v in with_msgspec
    ]
    assert len(without) > 10

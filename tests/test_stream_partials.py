"""decode_stream yields exactly the partials it did before its builder was made faster:
the same values (repr, fields, growing field) at the same chunks, and the same end."""

from __future__ import annotations

import gzip
import json
from typing import Any
from unittest import mock

import pytest

from describedtypes import annotate
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

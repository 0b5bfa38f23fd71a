"""decode_stream yields exactly the partials it did before its builder was made faster:
the same values (repr, fields, growing field) at the same chunks, and the same end."""

from __future__ import annotations

import contextlib
import gzip
import json
from typing import Any
from unittest import mock

import pytest
from hypothesis import given
from hypothesis import strategies as st

from describedtypes import annotate, encode
from describedtypes._vendors import stream as _stream

from .reference import partial_builder_0_3 as _reference
from .strategies import classes
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


@given(st.data())
def test_generated_types_yield_what_the_0_3_builder_did(data: st.DataObject) -> None:
    """For generated classes and random cuts, the library's builder and 0.3's (kept under
    tests/reference) yield the same sequence: partials equal and with the same repr,
    fields and growing field, at the same chunks, and the same end."""
    cls, instances = data.draw(classes(unions=data.draw(st.booleans())))
    try:
        text = encode(data.draw(instances)).decode()
    except TypeError:  # a union whose options' JSON forms overlap: not a reply to stream
        return
    if data.draw(st.booleans()):
        text = json.dumps(json.loads(text), indent=data.draw(st.sampled_from([None, 1])))
    if data.draw(st.booleans()):
        text = text[: data.draw(st.integers(0, len(text)))]  # the stream was cut
    drawn = data.draw(st.lists(st.integers(0, 99_999), max_size=30))
    cuts = sorted(c % (len(text) + 1) for c in drawn)
    chunks = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]
    each = data.draw(st.booleans())
    expected = _values(cls, chunks, each, reference=True)
    got = _values(cls, chunks, each, reference=False)
    assert [repr(v) for v in got] == [repr(v) for v in expected]
    assert got == expected
    assert record(cls, chunks, each) == _recorded(cls, chunks, each)


def _values(cls: Any, chunks: list[str], each: bool, *, reference: bool) -> list[Any]:
    values: list[Any] = []
    builder = (
        mock.patch.object(_stream, "PartialBuilder", _reference.PartialBuilder)
        if reference
        else contextlib.nullcontext()
    )
    with builder, mock.patch.object(_stream, "_MIN_STEP", 1 if each else _stream._MIN_STEP), \
            mock.patch.object(_stream, "_GROWTH", 0 if each else _stream._GROWTH):
        try:
            values.extend(_stream.decode_stream(cls, chunks))
        except Exception as exc:
            values.append((type(exc), str(exc)))
    return values


def _recorded(cls: Any, chunks: list[str], each: bool) -> list[Any]:
    with mock.patch.object(_stream, "PartialBuilder", _reference.PartialBuilder):
        return record(cls, chunks, each)


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

"""The value a stream ends with, built with the items it decoded as they arrived.

Once a long array's items are read from their own text (skimming), the final value is
not decoded from the whole reply again: msgspec checks the reply without those items'
text and the value is built with the decoded items in their place. These tests hold it
to ``decode()`` of the whole reply: the same value or the same error, whatever follows
the array (a key sent again, an unknown key, a wrong value, text after the JSON), and
they check that the shortcut is taken where it should be.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from typing import Any
from unittest import mock

import attrs
import pydantic
import pytest
from hypothesis import given
from hypothesis import strategies as st

from describedtypes import (
    Annotation,
    DecodeError,
    DescribedTypesError,
    IncompleteReplyError,
    Partial,
    Registry,
    decode,
    decode_stream,
    encode,
)
from describedtypes._vendors import stream as _stream

from .test_stream import anthropic_events, chat_chunks


@attrs.define
class Cell:
    text: str
    marks: list[str] = attrs.Factory(list)  # (a default the constructor computes)


@attrs.define
class Sheet:
    name: str
    cells: list[Cell]
    done: bool = False


def _few(instance: Any, attribute: Any, value: list[Cell]) -> None:
    if len(value) > 40:
        msg = "at most 40 cells"
        raise ValueError(msg)


@attrs.define
class Box:
    tag: str
    cells: list[Cell] = attrs.field(validator=_few)
    notes: list[str] = attrs.Factory(list)


@attrs.define
class Crate:
    name: str
    box: Box | None
    extra: dict[str, int] = attrs.Factory(dict)
    count: int = 0


class PCell(pydantic.BaseModel):
    text: str


class PSheet(pydantic.BaseModel):
    name: str
    cells: list[PCell]


def pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


@contextlib.contextmanager
def counting_decodes() -> Iterator[list[Any]]:
    """The whole-text decodes the stream falls back to, as they happen."""
    calls: list[Any] = []
    real = _stream.decode

    def counted(tp: Any, text: Any, **kw: Any) -> Any:
        calls.append(text)
        return real(tp, text, **kw)

    with mock.patch.object(_stream, "decode", counted):
        yield calls


def outcome(tp: Any, chunks: list[str]) -> list[Any]:
    """Everything decode_stream yields, then the error it raises at the end (if any)."""
    values: list[Any] = []
    try:
        values.extend(decode_stream(tp, chunks))
    except DescribedTypesError as exc:
        values.append((type(exc), str(exc)))
    return values


def decoded(tp: Any, text: str) -> Any:
    """decode()'s value of the whole text, or its error as ``outcome`` shows it."""
    try:
        return decode(tp, text)
    except DescribedTypesError as exc:
        return (type(exc), str(exc))


def test_the_items_read_as_they_arrived_are_not_read_again() -> None:
    """A long array's items are decoded once: the final value holds the same objects
    the partials showed, equals decode() of the whole text, and the whole text is not
    decoded again."""
    sheet = Sheet("s", [Cell(f"cell {i} " * 4, ["a"] * (i % 3)) for i in range(200)], True)
    text = encode(sheet).decode()
    with counting_decodes() as calls:
        values = list(decode_stream(Sheet, pieces(text, 40)))
    final = values[-1]
    assert final == decode(Sheet, text) == sheet
    assert calls == []
    last = values[-2]
    assert isinstance(last, Partial)
    shown = last.cells[:-1]  # (the last one may still be arriving)
    assert len(shown) > 100
    # (The first item, read before the array was found, is read again with the rest.)
    assert all(a is b for a, b in zip(final.cells[1:], shown[1:], strict=False))


def test_through_optional_classes_with_computed_defaults() -> None:
    """The array may sit in classes within classes, behind an optional field, in classes
    whose constructors compute defaults: the shortcut is taken and the constructors run
    on the whole value (the validator sees every item)."""
    crate = Crate("c", Box("b", [Cell(f"c{i}") for i in range(30)], ["n"]), {"k": 1}, 2)
    text = encode(crate).decode()
    with counting_decodes() as calls:
        assert list(decode_stream(Crate, pieces(text, 10)))[-1] == crate
    assert calls == []
    many = encode(Crate("c", Box("b", [Cell("x")], []))).decode().replace(
        '[{"text":"x","marks":[]}]', "[" + ",".join(['{"text":"x","marks":[]}'] * 41) + "]"
    )
    assert outcome(Crate, pieces(many, 10))[-1] == decoded(Crate, many)
    assert "at most 40 cells" in str(decoded(Crate, many))


#: What may follow the skimmed array at each level, as JSON members (a leading comma
#: included): nothing, a valid field, a key sent again (the last one wins, spelled as
#: is or with a \\u escape), an unknown key, a value of the wrong type.
_AFTER_CELLS = ["", ',"notes":["n"]', ',"cells":[]', ',"cells":[{"text":"again"}]',
                ',"\\u0063ells":[{"text":"escaped"}]', ',"other":1', ',"notes":3']
_AFTER_BOX = ["", ',"count":4', ',"box":null', ',"box":{"tag":"t","cells":[]}',
              ',"b\\u006fx":null', ',"extra":{"k":"v"}', ',"extra":{"k":5}']
_AFTER_ALL = ["", " ", "\n", " x", "}", "[]"]


@given(st.data())
def test_whatever_follows_the_array_the_final_value_is_decodes(data: st.DataObject) -> None:
    """After the array: more fields, a key on the way to it sent again, unknown keys,
    wrong values, text after the JSON. The stream ends with decode()'s value or error,
    as it does when no item is read from its own text."""
    texts = st.sampled_from(["a", "},{", '"},{"text":"x"}', "\\", "ünï ☃", "]}", "",
                             "/", "\u2028"])
    cells = [
        {"text": data.draw(texts), "marks": data.draw(st.lists(texts, max_size=2))}
        for _ in range(data.draw(st.integers(2, 45)))
    ]
    if data.draw(st.booleans()):
        cells[data.draw(st.integers(0, len(cells) - 1))]["text"] = 5  # an item breaks the rules
    box = json.dumps({"tag": "t", "cells": cells}, ensure_ascii=data.draw(st.booleans()))
    box = box[:-1] + data.draw(st.sampled_from(_AFTER_CELLS)) + "}"
    text = '{"name":"c","box":' + box + data.draw(st.sampled_from(_AFTER_BOX)) + "}"
    text += data.draw(st.sampled_from(_AFTER_ALL))
    size = data.draw(st.integers(1, 60))
    from describedtypes._codec import partial_builder as _partial

    with mock.patch.object(_partial, "SKIM", False):
        whole = outcome(Crate, pieces(text, size))[-1]
    assert outcome(Crate, pieces(text, size))[-1] == whole == decoded(Crate, text)


def test_a_pydantic_model_is_decoded_whole() -> None:
    """A pydantic model validates what it holds itself: its final value is decode()'s."""
    text = json.dumps({"name": "n", "cells": [{"text": f"c{i}"} for i in range(100)]})
    final = list(decode_stream(PSheet, pieces(text, 20)))[-1]
    assert final == decode(PSheet, text)
    assert isinstance(final.cells[0], PCell)


def test_a_fenced_reply_is_decoded_whole() -> None:
    """A reply in a markdown fence ends as decode() reads it (the fence dropped)."""
    sheet = Sheet("s", [Cell(f"c{i}") for i in range(100)])
    text = "```json\n" + encode(sheet).decode() + "\n```"
    assert list(decode_stream(Sheet, pieces(text, 20)))[-1] == sheet == decode(Sheet, text)


@pytest.mark.parametrize("tp", [list[Cell], dict[str, list[Cell]], tuple[str, list[Cell]]])
def test_an_array_outside_a_class_is_decoded_whole(tp: Any) -> None:
    """Arrays at the top, in a dict or in a tuple: the final value is decode()'s."""
    cells = [Cell(f"c{i}") for i in range(100)]
    value = {list[Cell]: cells, dict[str, list[Cell]]: {"k": cells},
             tuple[str, list[Cell]]: ("t", cells)}[tp]
    text = encode(value).decode()
    assert list(decode_stream(tp, pieces(text, 20)))[-1] == decode(tp, text) == value


def test_a_registration_during_the_stream_decides_the_final_value() -> None:
    """A registration made while the reply streams applies to the final value, as to
    any decode() after it: the items read under the old rules are not reused."""
    mine = Registry()
    text = encode(Sheet("s", [Cell(f"c{i}") for i in range(100)])).decode()
    chunks = pieces(text, 20)

    def reply() -> Iterator[str]:
        for i, chunk in enumerate(chunks):
            if i == len(chunks) - 2:
                mine.register(Cell, Annotation(parameters={"text": Annotation(name="body")}))
            yield chunk

    with pytest.raises(DecodeError) as raised:
        list(decode_stream(Sheet, reply(), registry=mine))
    with pytest.raises(DecodeError) as expected:
        decode(Sheet, text, registry=mine)
    assert str(raised.value) == str(expected.value)


def test_a_providers_stream_ends_the_same_way() -> None:
    """A provider's events (the reply's text, or a tool call's arguments) end with the
    items read as they arrived too, and a reply cut off still says so."""
    sheet = Sheet("s", [Cell(f"cell {i}") for i in range(150)], True)
    text = encode(sheet).decode()
    as_text = chat_chunks([{"content": piece} for piece in pieces(text, 30)])
    as_tool = anthropic_events([("text", ["Here it is."]), ("Sheet", pieces(text, 30))],
                               "tool_use")
    for events in (as_text, as_tool):
        with counting_decodes() as calls:
            final = list(decode_stream(Sheet, events))[-1]
        assert final == sheet
        assert calls == []
    with pytest.raises(IncompleteReplyError):
        list(decode_stream(Sheet, chat_chunks([{"content": p} for p in pieces(text, 30)],
                                              finish="length")))
    cut = text[: len(text) - 5]
    with counting_decodes() as calls, pytest.raises(IncompleteReplyError):
        list(decode_stream(Sheet, chat_chunks([{"content": p} for p in pieces(cut, 30)])[:-1]))
    assert calls == [cut]  # (the text is read whole to say what is wrong)


def test_what_the_final_value_is_built_with_keeps_no_type_alive() -> None:
    """The generated builder (and the msgspec mirror it reads) goes when the type goes."""
    import gc
    import weakref

    def make() -> tuple[weakref.ref[type], weakref.ref[type]]:
        item = attrs.make_class("Item", {"text": attrs.field(type=str)})
        outer = attrs.make_class("Outer", {"name": attrs.field(type=str),
                                           "items": attrs.field(type=list[item])})
        value = outer("o", [item(f"i{n}") for n in range(100)])
        text = encode(value).decode()
        with counting_decodes() as calls:
            assert list(decode_stream(outer, pieces(text, 20)))[-1] == value
        assert calls == []  # (the builder was made and used)
        return weakref.ref(item), weakref.ref(outer)

    refs = make()
    gc.collect()
    assert [r() for r in refs] == [None, None]

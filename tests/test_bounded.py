"""Bounded work on bad input: a cap on collected problems, bounded error memory, depth."""

from __future__ import annotations

import gc
import tracemalloc
import weakref
from typing import Any

import attrs
import cattrs
import orjson
import pytest

from describedtypes import DecodeError, Toolbox, decode


@attrs.define
class Point:
    x: int
    y: int


@attrs.define
class Tree:
    value: int
    children: list[Tree] = attrs.Factory(list)


class Marked(dict[str, Any]):
    """A weak-referenceable JSON object, to see whether an error keeps it alive."""


def errors_of(tp: Any, data: Any) -> DecodeError:
    with pytest.raises(DecodeError) as info:
        decode(tp, data)
    return info.value


class TestProblemCap:
    def test_a_million_wrong_items_give_a_hundred_problems(self) -> None:
        """10**6 wrong items: 100 problems kept, the rest reported as 'at least'."""
        error = errors_of(list[int], orjson.dumps(["x"] * 10**6))
        assert len(error.errors) == 100
        assert error.truncated
        assert error.errors[-1] == ("$[99]", 'expected integer, got string "x"')
        assert "at least 81 more problems (checking stopped after 100)" in str(error)

    def test_decoding_stops_once_the_cap_is_reached(self) -> None:
        """A hook that counts its calls sees about a hundred of 10**6 items, not all."""
        calls = 0
        converter = cattrs.Converter()

        def refuse(value: Any, _: Any) -> Point:
            nonlocal calls
            calls += 1
            raise ValueError("no")

        converter.register_structure_hook(Point, refuse)
        with pytest.raises(DecodeError) as info:
            decode(list[Point], [{"x": 1, "y": 2}] * 10**6, converter=converter)
        assert len(info.value.errors) == 100
        assert calls <= 101

    @pytest.mark.parametrize(
        ("tp", "data"),
        [
            (dict[str, int], {f"k{i}": "x" for i in range(5000)}),
            (dict[str, int], [{"key": f"k{i}", "value": "x"} for i in range(5000)]),
            (Point, {"x": 1, "y": 2, **{f"extra{i}": i for i in range(5000)}}),
            (list[list[int]], [["x"] * 60 for _ in range(1000)]),
            (Tree, {"value": 0, "children": [
                {"value": "x", "children": [{"value": "y"}] * 50}] * 1000}),
        ],
        ids=["object", "entries", "unknown-keys", "nested-lists", "tree"],
    )
    def test_every_shape_of_container_is_capped(self, tp: Any, data: Any) -> None:
        """Objects, key/value entries, unknown keys and nested containers all stop at 100."""
        error = errors_of(tp, data)
        assert len(error.errors) == 100
        assert error.truncated

    def test_a_toolbox_says_at_least(self) -> None:
        """A tool's argument report says how many more problems there were at least."""

        def total(values: list[int]) -> int:
            return sum(values)

        result = Toolbox([total]).call("total", {"values": ["x"] * 10_000})
        assert result.is_error
        assert "- … and at least 81 more problems (checking stopped after 100)" in result.content


class TestErrorMemory:
    def test_an_error_keeps_a_bounded_amount_of_memory(self) -> None:
        """A DecodeError from 0.4 MB of wrong items keeps well under a megabyte alive."""
        data = orjson.dumps(["x"] * 100_000)
        gc.collect()
        tracemalloc.start()
        try:
            before = tracemalloc.get_traced_memory()[0]
            error = errors_of(list[int], data)
            gc.collect()
            kept = tracemalloc.get_traced_memory()[0] - before
        finally:
            tracemalloc.stop()
        assert error.truncated
        assert kept < 500_000

    def test_an_error_keeps_no_reference_to_the_input(self) -> None:
        """The parsed reply is collectable while its DecodeError (and traceback) is held."""
        refs: list[weakref.ref[Marked]] = []

        def reply() -> list[Any]:
            item = Marked(x="a", y="b")
            refs.append(weakref.ref(item))
            return [item]

        def attempt() -> DecodeError:
            try:
                decode(list[Point], reply())
            except DecodeError as exc:
                return exc
            raise AssertionError

        error = attempt()
        gc.collect()
        assert error.__traceback__ is not None
        assert refs[0]() is None
        assert [path for path, _ in error.errors] == ["$[0].x", "$[0].y"]

    def test_long_paths_are_cut_in_the_errors_too(self) -> None:
        """A path longer than 10,000 characters is cut in the middle in .errors as well."""
        leaf: dict[str, Any] = {"value": "deep"}
        for _ in range(900):
            leaf = {"value": 1, "children": [leaf]}
        error = errors_of(Tree, leaf)
        ((path, message),) = error.errors
        assert len(path) <= 10_000
        assert path.startswith("$.children[0].children[0]")
        assert path.endswith(".children[0].value")
        assert "characters)…" in path
        assert message == 'expected integer, got string "deep"'

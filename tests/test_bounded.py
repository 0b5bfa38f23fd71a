"""Bounded work on bad input: a cap on collected problems, bounded error memory, depth."""

from __future__ import annotations

import gc
import tracemalloc
import typing
import weakref
from typing import Any

import attrs
import cattrs
import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from describedtypes import (
    ANTHROPIC,
    OPENAI,
    DecodeError,
    SchemaError,
    Toolbox,
    decode,
    encode,
    schema,
)
from describedtypes.inspect import type_info


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

    @given(
        st.integers(0, 400),
        st.integers(0, 400),
        st.sampled_from(["list", "dict", "entries"]),
    )
    def test_the_count_is_exact_below_the_cap(self, bad: int, good: int, shape: str) -> None:
        """n wrong items among good ones: min(n, 100) problems, truncated exactly when n > 100."""
        values: list[Any] = ["x"] * bad + [1] * good
        data: Any = values
        tp: Any = list[int]
        if shape != "list":
            tp = dict[str, int]
            pairs = [(f"k{i}", v) for i, v in enumerate(values)]
            data = dict(pairs) if shape == "dict" else [{"key": k, "value": v} for k, v in pairs]
        if bad == 0:
            assert len(decode(tp, data)) == good
            return
        error = errors_of(tp, data)
        assert len(error.errors) == min(bad, 100)
        assert error.truncated == (bad > 100)

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

    @pytest.mark.parametrize("entry", ["decode", "decode_arguments"])
    def test_an_invalid_json_error_keeps_no_reference_to_the_text(self, entry: str) -> None:
        """A DecodeError for 4 MB of unfinished JSON does not keep the 4 MB alive."""
        from describedtypes._codec.decode import decode_arguments

        def total(values: list[int]) -> int:
            return sum(values)

        def text() -> str:
            return '{"values": [' + "1," * 2_000_000

        def attempt() -> DecodeError:
            try:
                if entry == "decode":
                    decode(dict[str, list[int]], text())
                else:
                    decode_arguments(type_info(total), text())  # type: ignore[arg-type]
            except DecodeError as exc:
                return exc
            raise AssertionError

        gc.collect()
        tracemalloc.start()
        try:
            before = tracemalloc.get_traced_memory()[0]
            error = attempt()
            gc.collect()
            kept = tracemalloc.get_traced_memory()[0] - before
        finally:
            tracemalloc.stop()
        assert "the JSON ends before the value is complete" in str(error)
        assert kept < 100_000

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


def chain(levels: int, *, optional: bool = False) -> Any:
    """A class holding a class holding ... ``levels`` classes deep, the last with an int."""
    cls: Any = attrs.make_class("Level0", {"x": attrs.field(type=int)})
    for i in range(1, levels):
        inner = (cls | None) if optional else cls
        cls = attrs.make_class(f"Level{i}", {"inner": attrs.field(type=inner)})
    return cls


def chain_value(levels: int) -> dict[str, Any]:
    value: dict[str, Any] = {"x": 1}
    for _ in range(1, levels):
        value = {"inner": value}
    return value


def at_stack_depth(depth: int, fn: Any) -> Any:
    """Call ``fn`` with the Python stack already ``depth`` frames deeper."""
    if depth:
        return at_stack_depth(depth - 1, fn)
    return fn()


def stack_depth() -> int:
    import sys

    frame, n = sys._getframe(), 0
    while frame is not None:
        frame, n = frame.f_back, n + 1  # type: ignore[assignment]
    return n


class TestDeepTypes:
    def test_ninety_nine_levels_work_everywhere(self) -> None:
        """A chain 99 classes deep (100 levels with its int) describes, decodes and encodes."""
        deep = chain(99)
        assert schema_depth(schema(deep)) == 99
        assert len(schema(deep, use_references=True)["$defs"]) == 98
        value = decode(deep, chain_value(99))
        assert orjson.loads(encode(value)) == chain_value(99)

    @pytest.mark.parametrize("levels", [101, 200, 2_000])
    @pytest.mark.parametrize("use_references", [False, True])
    def test_deeper_types_are_a_schema_error(self, levels: int, use_references: bool) -> None:
        """200 or 2,000 levels: a SchemaError naming the path and the fix, no RecursionError."""
        deep = chain(levels)
        with pytest.raises(SchemaError) as info:
            schema(deep, use_references=use_references)
        error = info.value
        assert error.path.startswith(f"Level{levels - 1}.inner.inner")
        assert len(error.path) <= 200
        assert "nests more than 100 levels deep here" in error.reason
        assert "flatten it" in error.reason

    def test_decode_and_encode_refuse_deep_types_the_same_way(self) -> None:
        """decode(), encode() and type_info() give the same SchemaError for a deep type."""
        deep = chain(150, optional=True)
        for attempt in (
            lambda: decode(deep, {}),
            lambda: type_info(deep),
            lambda: schema(deep, OPENAI),
        ):
            with pytest.raises(SchemaError, match="nests more than 100 levels deep"):
                attempt()

    def test_a_deep_caller_stack_gives_a_schema_error(self) -> None:
        """With little stack left, inspection, schema() and decode() raise SchemaError."""
        import sys

        deep = chain(60)
        room = sys.getrecursionlimit() - stack_depth()
        for attempt in (
            lambda: schema(deep),
            lambda: schema(deep, use_references=True),
            lambda: decode(deep, chain_value(60)),
        ):
            with pytest.raises(SchemaError, match="recursion limit"):
                at_stack_depth(room - 120, attempt)

    def test_a_recursive_class_is_one_level(self) -> None:
        """A recursive class is described however deep its values go."""
        assert schema(Tree)["properties"]["children"]["items"] == {"$ref": "#"}


def schema_depth(body: dict[str, Any]) -> int:
    depth = 0
    while "inner" in body.get("properties", {}):
        body, depth = body["properties"]["inner"], depth + 1
    return depth + 1


@attrs.define
class Link:
    value: int
    next: Link | None = None


class TestDeepValues:
    @pytest.mark.parametrize("length", [300, 10_000])
    def test_encoding_a_long_chain_is_a_value_error(self, length: int) -> None:
        """A linked list 300 or 10,000 deep: a ValueError saying why, no RecursionError."""
        head = None
        for i in range(length):
            head = Link(i, head)
        with pytest.raises(ValueError, match="nested too deeply") as info:
            encode(head)
        assert info.value.__context__ is None

    def test_encoding_a_value_that_contains_itself_is_a_value_error(self) -> None:
        """A cycle in the value gives the same clear error."""
        loop = Link(1)
        loop.next = loop
        with pytest.raises(ValueError, match="contains itself"):
            encode(loop)

    def test_decoding_deep_json_is_a_decode_error(self) -> None:
        """JSON text deeper than the parser's limit, and deep parsed input, give DecodeError."""
        text = '{"value": 1, "next": ' * 5_000 + "null" + "}" * 5_000
        with pytest.raises(DecodeError, match="nested more than 1024 levels deep"):
            decode(Link, text)
        parsed: Any = None
        for i in range(5_000):
            parsed = {"value": i, "next": parsed}
        with pytest.raises(DecodeError, match="nested too deeply to decode"):
            decode(Link, parsed)


class TestLiteralValues:
    @given(st.lists(st.one_of(
        st.booleans(), st.integers(-3, 3), st.sampled_from([0.0, 1.0, 2.5]),
        st.sampled_from(["a", "b", "1"]), st.none(),
    ), min_size=1, max_size=12))
    def test_duplicates_are_dropped_by_type_and_value(self, values: list[Any]) -> None:
        """Literal values are kept once each, compared by type and value (1 and True are
        two values, 1 and 1.0 one)."""
        from typing import Literal

        from describedtypes._types.inspector import same_value

        literal = Literal[tuple(values)]  # type: ignore[valid-type]
        expected: list[Any] = []
        for v in typing.get_args(literal):  # (typing drops some duplicates itself)
            if not any(same_value(v, seen) for seen in expected):
                expected.append(v)
        got = type_info(literal).python_values
        # (equal Literals in another order share a cached node: order is not compared)
        assert len(got) == len(expected)
        assert all(any(same_value(v, x) for x in got) for v in expected)

    def test_str_and_int_enum_members_are_their_values(self) -> None:
        """A str or int enum member and its plain value are one Literal value."""
        import enum
        from typing import Literal

        class Shade(str, enum.Enum):
            RED = "red"

        class Level(enum.IntEnum):
            ONE = 1

        node = type_info(Literal[Shade.RED, "red", Level.ONE, 1, True])
        assert node.python_values == (Shade.RED, Level.ONE, True)

    def test_many_values_are_read_without_comparing_each_pair(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """Distinct values are read without one pairwise comparison (linear: 50,000 values
        no longer take the 1.25e9 comparisons of checking each against those before)."""
        from typing import Literal

        from describedtypes._types import inspector

        calls = 0
        real = inspector.same_value

        def counted(a: Any, b: Any) -> bool:
            nonlocal calls
            calls += 1
            return real(a, b)

        monkeypatch.setattr(inspector, "same_value", counted)
        values = tuple(f"v{i}" for i in range(2_000))
        assert len(type_info(Literal[values]).values) == 2_000  # type: ignore[valid-type]
        assert calls == 0
        values = tuple(f"w{i}" for i in range(50_000))
        assert len(type_info(Literal[values]).values) == 50_000  # type: ignore[valid-type]
        assert decode(Literal[values], '"w49999"') == "w49999"  # type: ignore[valid-type]


_DAG = """
import json, sys, attrs
from describedtypes import SchemaError, schema

def dag(levels, width):
    prev = attrs.make_class("L0", {"v": attrs.field(type=int)})
    for i in range(1, levels):
        prev = attrs.make_class(f"L{i}", {f"f{k}": attrs.field(type=prev)
                                          for k in range(width)})
    return prev

top = dag(40, 2)
auto = schema(top, use_references="auto")
refs = schema(top, use_references=True)
print("auto", len(json.dumps(auto)), len(json.dumps(refs)), sorted(auto["$defs"]) == sorted(
    refs["$defs"]))
try:
    schema(top)
except SchemaError as exc:
    print("inline", str(exc))
"""


class TestSharedClasses:
    def test_a_deep_dag_of_shared_classes_is_built_in_linear_time(self) -> None:
        """40 levels of a class used twice by the next: "auto" decides per class without
        writing the 2**40 copies out (each class once under $defs, as with True), and
        use_references=False is a SchemaError naming use_references=True instead of a
        build that never ends (in a subprocess: without the bound it never ends)."""
        import subprocess
        import sys

        done = subprocess.run([sys.executable, "-c", _DAG], capture_output=True, text=True,
                              timeout=300, check=False)
        assert done.returncode == 0, done.stderr[-2000:]
        auto, inline = done.stdout.splitlines()
        _, auto_size, refs_size, same_defs = auto.split()
        assert int(auto_size) <= int(refs_size)
        assert same_defs == "True"
        assert "field copies" in inline
        assert "pass use_references=True" in inline

    @pytest.mark.parametrize("adapter", [OPENAI, ANTHROPIC])
    def test_the_one_pass_choice_passes_the_adapters_rules_and_decodes(
        self, adapter: Any
    ) -> None:
        """A wide DAG past the exact search: the body "auto" picks in one pass is accepted
        by the adapter's own rules, no larger than every class under $defs, and a value
        written for it decodes back."""
        import json

        from describedtypes import check

        prev: Any = attrs.make_class("W0", {"v": attrs.field(type=int)})
        for i in range(1, 8):
            prev = attrs.make_class(f"W{i}", {k: attrs.field(type=prev) for k in "abcd"})
        auto = schema(prev, adapter, use_references="auto")
        assert check(auto, adapter) == []
        assert len(json.dumps(auto)) <= len(json.dumps(
            schema(prev, adapter, use_references=True)))
        leaf: Any = attrs.fields(prev).a.type
        while attrs.fields(leaf)[0].name != "v":
            leaf = attrs.fields(leaf).a.type
        value: Any = leaf(1)
        cls: Any = leaf
        while cls is not prev:
            cls = next(c for c in _parents(prev) if attrs.fields(c)[0].type is cls)
            value = cls(value, value, value, value)
        assert decode(prev, encode(value)) == value


def _parents(top: Any) -> list[Any]:
    out = [top]
    while attrs.fields(out[-1])[0].name != "v":
        out.append(attrs.fields(out[-1])[0].type)
    return out

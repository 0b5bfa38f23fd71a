"""Registry: separate sets of annotations, layering, what can be registered, invalidation."""

from __future__ import annotations

import dataclasses
import enum
import functools
from typing import Literal, NamedTuple, Optional, TypedDict

import attrs
import pytest

from describedtypes import (
    OPENAI,
    Annotation,
    Registry,
    SchemaError,
    annotate,
    decode,
    decode_response,
    explain,
    schema,
)
from describedtypes import inspect as ni


@attrs.define
class Item:
    """An item."""

    name: str
    size: int


@attrs.define
class Order:
    item: Item
    count: int


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"


def find(city: str) -> str:
    """Find a city."""
    return city


class TestSeparateRegistries:
    def test_two_libraries_see_their_own_annotations(self) -> None:
        """Conflicting registrations for one type in two registries do not collide."""
        first, second = Registry(), Registry()
        first.register(Item, Annotation(description="first", parameters={
            "name": Annotation(name="title")}))
        second.register(Item, Annotation(description="second"))
        one = schema(Item, registry=first)
        two = schema(Item, registry=second)
        assert one["description"] == "first"
        assert list(one["properties"]) == ["title", "size"]
        assert two["description"] == "second"
        assert list(two["properties"]) == ["name", "size"]
        # The default registry saw neither.
        assert schema(Item)["description"] == "An item."
        assert decode(Item, '{"title": "a", "size": 1}', registry=first) == Item("a", 1)
        assert decode(Item, '{"name": "a", "size": 1}', registry=second) == Item("a", 1)
        assert decode(Item, '{"name": "a", "size": 1}') == Item("a", 1)

    def test_decode_response_takes_a_registry(self) -> None:
        """decode_response passes registry= on to decode."""
        mine = Registry()
        mine.register(Item, Annotation(parameters={"name": Annotation(name="title")}))
        reply = {"role": "assistant", "content": '{"title": "x", "size": 2}'}
        assert decode_response(Item, reply, registry=mine) == Item("x", 2)

    def test_explain_and_nested_types_use_the_registry(self) -> None:
        """A registration for a nested type counts in that registry only."""
        mine = Registry()
        mine.register(Item, Annotation(parameters={"size": Annotation(description="In cm")}))
        nested = schema(Order, registry=mine)["properties"]["item"]["properties"]["size"]
        assert nested["description"] == "In cm"
        assert "description" not in schema(Order)["properties"]["item"]["properties"]["size"]
        assert explain(Order, OPENAI, registry=mine) == explain(Order, OPENAI)


class TestParent:
    def test_child_layers_its_entries_over_the_parent(self) -> None:
        """Own values win field by field; the parent's fill the rest."""
        parent = Registry()
        parent.register(Item, Annotation(description="parent", parameters={
            "name": Annotation(description="from parent"),
            "size": Annotation(description="size from parent")}))
        child = Registry(parent=parent)
        child.register(Item, Annotation(parameters={"name": Annotation(description="child")}))
        body = schema(Item, registry=child)
        assert body["description"] == "parent"
        assert body["properties"]["name"]["description"] == "child"
        assert body["properties"]["size"]["description"] == "size from parent"

    def test_a_registration_in_the_parent_is_seen_at_once(self) -> None:
        """The child's cached schema is rebuilt when the parent changes."""
        parent = Registry()
        child = Registry(parent=parent)
        assert "description" not in schema(Order, registry=child)
        parent.register(Order, Annotation(description="now described"))
        assert schema(Order, registry=child)["description"] == "now described"
        parent.unregister(Order)
        assert "description" not in schema(Order, registry=child)

    def test_over_the_default_registry(self) -> None:
        """Registry(parent=annotate) sees what annotate has."""

        @attrs.define
        class Local:
            x: int

        annotate.register(Local, Annotation(description="global"))
        try:
            assert schema(Local, registry=Registry(parent=annotate))["description"] == "global"
        finally:
            annotate.unregister(Local)

    def test_repr_names_the_layers(self) -> None:
        """The repr says which registry it is and what it is layered over."""
        assert repr(annotate) == "<describedtypes.annotate>"
        assert repr(Registry(parent=annotate, name="plugin")) == (
            "<describedtypes.Registry 'plugin' over <describedtypes.annotate>>"
        )


class TestWhatCanBeRegistered:
    @pytest.mark.parametrize(
        ("target", "reason"),
        [
            (str, "builtin type str"),
            (int, "builtin type int"),
            (list[str], "type expression"),
            (Optional[int], "type expression"),  # noqa: UP045 - the typing form is the point
            (Literal["a"], "type expression"),
            (print, "builtin or C function"),
            (Item("a", 1), "instance of Item"),
            (find("x"), "instance of str"),
            (object(), "instance of object"),
        ],
    )
    def test_refused_with_what_can_be_registered(self, target: object, reason: str) -> None:
        """Something that cannot be described is a TypeError naming what can be."""
        with pytest.raises(TypeError, match="attrs class, dataclass") as info:
            annotate.register(target, Annotation(description="x"))
        assert reason in str(info.value)

    def test_any_is_refused(self) -> None:
        """typing.Any is not a class to describe."""
        from typing import Any

        with pytest.raises(TypeError, match="needs an attrs class"):
            annotate.register(Any, Annotation(description="x"))

    def test_a_plain_class_is_refused_with_the_fix(self) -> None:
        """A class that is neither attrs nor a dataclass says how to make it one."""

        class Plain:
            pass

        with pytest.raises(
            TypeError, match="make it an attrs class, a dataclass or a pydantic model"
        ):
            annotate.register(Plain, Annotation(description="x"))

    def test_describable_targets_are_accepted(self) -> None:
        """attrs, dataclass, TypedDict, NamedTuple, Enum, functions, partials, methods."""

        @dataclasses.dataclass
        class DC:
            x: int

        class TD(TypedDict):
            x: int

        class NT(NamedTuple):
            x: int

        class Svc:
            def method(self, x: int) -> int:
                return x

        mine = Registry()
        for target in (Item, DC, TD, NT, Color, find, functools.partial(find), Svc().method,
                       Svc.method):
            assert mine.register(target, Annotation(description="ok")) is target

    def test_enum_on_an_enum_class_is_refused(self) -> None:
        """The members already fix the values: an annotation enum would be ignored."""
        with pytest.raises(TypeError, match="members of Color already fix its values"):
            annotate.register(Color, Annotation(enum=["red"]))

    def test_enum_on_a_field_whose_type_fixes_its_values_is_an_error(self) -> None:
        """An annotation enum on an Enum or Literal field is a SchemaError, not ignored."""

        @attrs.define
        class Paint:
            color: Color
            finish: Literal["matte", "gloss"]

        for field_name in ("color", "finish"):
            mine = Registry()
            mine.register(Paint, Annotation(parameters={
                field_name: Annotation(enum=["red"])}))
            with pytest.raises(SchemaError, match="already fixes its values") as info:
                schema(Paint, registry=mine)
            assert f"Paint.{field_name}" in str(info.value)

    def test_bad_registry_arguments(self) -> None:
        """registry= and parent= must be registries."""
        with pytest.raises(TypeError, match="registry must be a Registry"):
            schema(Item, registry="annotate")  # type: ignore[arg-type]
        with pytest.raises(TypeError, match="registry must be a Registry"):
            decode(Item, "{}", registry={})  # type: ignore[arg-type]
        with pytest.raises(TypeError, match=r"parent=\.\.\.\) takes another Registry"):
            Registry(parent=object())  # type: ignore[arg-type]


class TestInvalidation:
    def test_registering_one_type_keeps_the_others_cached(self) -> None:
        """Only what depends on the registered type is built again."""
        mine = Registry()

        @attrs.define
        class Unrelated:
            y: int

        order_node = ni.type_info(Order, mine)
        unrelated_node = ni.type_info(Unrelated, mine)
        unrelated_schema = schema(Unrelated, registry=mine)
        mine.register(Item, Annotation(description="changed"))
        assert ni.type_info(Unrelated, mine) is unrelated_node
        assert schema(Unrelated, registry=mine) is unrelated_schema
        # Order contains Item: rebuilt.
        assert ni.type_info(Order, mine) is not order_node
        assert schema(Order, registry=mine)["properties"]["item"]["description"] == "changed"

    def test_registering_in_another_registry_keeps_this_one_cached(self) -> None:
        """A registration elsewhere does not rebuild anything here."""
        mine, other = Registry(), Registry()
        built = schema(Order, registry=mine)
        other.register(Item, Annotation(description="elsewhere"))
        assert schema(Order, registry=mine) is built

    def test_a_computed_annotation_is_evaluated_per_build(self) -> None:
        """A registered function runs when the type is inspected, outside any lock."""
        mine = Registry()
        calls: list[object] = []

        def computed(tp: object) -> Annotation:
            calls.append(tp)
            # User code may itself register while it runs.
            mine.register(find, Annotation(description="registered from inside"))
            return Annotation(description="computed")

        mine.register(Item, computed)
        assert schema(Item, registry=mine)["description"] == "computed"
        assert calls == [Item]
        # Its own registration of another object does not make Item's schema stale.
        assert schema(Item, registry=mine)["description"] == "computed"
        assert decode(Item, '{"name": "a", "size": 1}', registry=mine) == Item("a", 1)
        assert calls == [Item]

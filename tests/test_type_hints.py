"""The shortcut for already-evaluated annotations gives exactly what get_type_hints gives."""

from __future__ import annotations

import collections.abc
import dataclasses
import typing
from typing import Annotated, Any, Generic, Literal, Optional, TypeVar

import attrs
from hypothesis import given

from describedtypes import Annotation
from describedtypes._types.type_hints import _evaluated_class_hints, _get_type_hints

from .strategies import classes

T = TypeVar("T")


def expected(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls, include_extras=True)


@given(classes())
def test_generated_classes_read_alike(made: Any) -> None:
    """For random class trees, the shortcut (when it applies) equals get_type_hints."""
    cls, _ = made
    found = _evaluated_class_hints(cls)
    assert found is None or found == expected(cls)
    assert list(_get_type_hints(cls).items()) == list(expected(cls).items())


class Base:
    a: int
    b: str


class Child(Base):
    b: int  # overrides the base's annotation, keeps its position
    c: None


class Box(Generic[T]):
    item: T
    items: list[T]


@attrs.define
class Unit:
    pass


def make_cases() -> list[type]:
    """Classes whose annotations are type objects (this module is a string-annotation one)."""
    made = [
        attrs.make_class("Plain", {"x": attrs.field(type=int), "y": attrs.field(type=list[str])}),
        attrs.make_class("Opt", {"x": attrs.field(type=Optional[int])}),  # noqa: UP045
        attrs.make_class("Lit", {"x": attrs.field(type=Literal["a", "b", 1])}),
        attrs.make_class(
            "Ann", {"x": attrs.field(type=Annotated[int, Annotation(description="d")])}
        ),
        attrs.make_class("Uni", {"x": attrs.field(type=int | None)}),
        attrs.make_class("AnyF", {"x": attrs.field(type=Any)}),
        attrs.make_class("Fwd", {"x": attrs.field(type=list["Unit"])}),
        attrs.make_class("Ref", {"x": attrs.field(type=typing.ForwardRef("Unit"))}),
        attrs.make_class("Call", {"x": attrs.field(type=collections.abc.Callable[[int], str])}),
        attrs.make_class("Tup", {"x": attrs.field(type=tuple[int, ...])}),
        dataclasses.make_dataclass("DC", [("x", dict[str, list[int]]), ("y", "int")]),
    ]
    for cls in made:
        cls.__module__ = __name__
    return [*made, Base, Child, Box, Box[int]]  # type: ignore[list-item]


def test_hand_picked_annotations_read_alike() -> None:
    """Inheritance, None, strings, forward references, Literal, Annotated, generics."""
    globals()["Unit"] = Unit
    for cls in make_cases():
        if not isinstance(cls, type):
            continue
        assert list(_get_type_hints(cls).items()) == list(expected(cls).items()), cls


def test_strings_and_forward_references_are_left_to_typing() -> None:
    """A string anywhere in an annotation means get_type_hints evaluates the class."""
    assert _evaluated_class_hints(Base) is None  # this module's annotations are strings
    fwd = attrs.make_class("Fwd2", {"x": attrs.field(type=list["Unit"])})
    assert _evaluated_class_hints(fwd) is None
    plain = attrs.make_class("Plain2", {"x": attrs.field(type=dict[str, Optional[int]])})  # noqa: UP045
    assert _evaluated_class_hints(plain) == {"x": dict[str, Optional[int]]}  # noqa: UP045

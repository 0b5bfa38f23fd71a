"""graph(): the Mermaid class diagram of a type or function."""

from __future__ import annotations

import dataclasses
import datetime
import enum
import json
import re
from typing import Any, Generic, Literal, TypeVar

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from describedtypes import Annotation, Registry, SchemaError, annotate, graph, schema
from tests.strategies import classes

T = TypeVar("T")


class Unit(enum.Enum):
    CELSIUS = "celsius"
    FAHRENHEIT = "fahrenheit"


@attrs.define
class Location:
    city: str
    country: str | None = None


@attrs.define
class Day:
    date: datetime.date
    high: float


@attrs.define
class Forecast:
    """A forecast."""

    location: Location
    days: list[Day]
    unit: Unit = Unit.CELSIUS


@attrs.define
class Comment:
    text: str
    replies: list[Comment]


@attrs.define
class Post:
    title: str
    comments: list[Comment]


@attrs.define
class Page(Generic[T]):
    items: list[T]
    next: Page[T] | None = None


@dataclasses.dataclass
class Cat:
    kind: Literal["cat"]
    lives: int


@dataclasses.dataclass
class Dog:
    kind: Literal["dog"]
    good: bool


def adopt(owner: str, pet: Cat | Dog, tags: dict[str, Unit] | None = None) -> None:
    """Adopt a pet."""


def boxes(text: str) -> dict[str, list[str]]:
    """The class boxes of a diagram: the title (or id) and the lines inside."""
    found: dict[str, list[str]] = {}
    for match in re.finditer(
        r"^    class (\w+)(?:\[\"(.*?)\"\])? \{\n(.*?)^    \}$", text, re.M | re.S
    ):
        title = match[2] if match[2] is not None else match[1]
        found[title] = [line.strip() for line in match[3].splitlines()]
    return found


def arrows(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if " --> " in line]


class TestGraph:
    """The shape of the diagram."""

    def test_classes_fields_enums_and_arrows(self) -> None:
        """Each class is a box of its JSON fields; enums list their values; arrows carry counts."""
        text = graph(Forecast)
        assert text.startswith("classDiagram\n    direction LR\n")
        assert boxes(text) == {
            "Forecast": ["location: Location", "days: Day[]", "unit?: Unit"],
            "Location": ["city: string", "country?: string | null"],
            "Day": ["date: string date", "high: number"],
            "Unit": ["<<enumeration>>", '"celsius"', '"fahrenheit"'],
        }
        assert arrows(text) == [
            'Forecast --> "1" Location : location',
            'Forecast --> "*" Day : days',
            'Forecast --> "0..1" Unit : unit',
        ]

    def test_recursive_classes_are_marked_and_point_at_themselves(self) -> None:
        """A class on a cycle is <<recursive>> (it always goes under $defs)."""
        text = graph(Post)
        assert boxes(text) == {
            "Post": ["title: string", "comments: Comment[]"],
            "Comment": ["<<recursive>>", "text: string", "replies: Comment[]"],
        }
        assert arrows(text) == [
            'Post --> "*" Comment : comments',
            'Comment --> "*" Comment : replies',
        ]

    def test_generic_classes_are_titled_with_their_arguments(self) -> None:
        """Page[Comment] is one box titled Page[Comment], its id the $defs key."""
        text = graph(Page[Comment])
        assert '    class Page_Comment["Page[Comment]"] {' in text
        assert boxes(text)["Page[Comment]"] == [
            "<<recursive>>",
            "items: Comment[]",
            "next?: Page[Comment] | null",
        ]
        assert 'Page_Comment --> "0..1" Page_Comment : next' in arrows(text)

    def test_two_instantiations_of_a_generic_are_two_boxes(self) -> None:
        """Page[Day] and Page[Location] differ, so each gets its own box and id."""

        @attrs.define
        class Both:
            days: Page[Day]
            places: Page[Location]

        text = graph(Both)
        assert {"Page[Day]", "Page[Location]"} <= set(boxes(text))
        # The box ids are the keys schema() files them under in $defs.
        defs = schema(Both, use_references=True)["$defs"]
        for key in ("Page_Day", "Page_Location"):
            assert key in defs
            assert f"    class {key}[" in text

    def test_a_function_is_a_box_of_its_parameters(self) -> None:
        """Parameters are fields; a union of classes gives one arrow per class."""
        text = graph(adopt)
        assert boxes(text)["adopt"] == [
            "<<function>>",
            "owner: string",
            "pet: Cat | Dog",
            "tags?: map of Unit | null",
        ]
        assert boxes(text)["Cat"] == ['kind: "cat"', "lives: integer"]
        assert arrows(text) == [
            'adopt --> "1" Cat : pet',
            'adopt --> "1" Dog : pet',
            'adopt --> "*" Unit : tags',
        ]

    def test_annotation_enums_show_their_values(self) -> None:
        """A str field with allowed values from an annotation shows them as its type."""

        @attrs.define
        class Reading:
            unit: str = attrs.field(metadata={"description": "Unit"})

        annotate.register(Reading, Annotation(parameters={"unit": Annotation(enum=["c", "f"])}))
        try:
            assert boxes(graph(Reading))["Reading"] == ['unit: "c" | "f"']
        finally:
            annotate.unregister(Reading)

    def test_a_registry_of_its_own(self) -> None:
        """registry= draws the type with that registry's names, not the default's."""
        mine = Registry()
        mine.register(
            Location, Annotation(name="Place", parameters={"city": Annotation(name="town")})
        )
        assert boxes(graph(Location, registry=mine)) == {
            "Place": ["town: string", "country?: string | null"]
        }
        assert "Location" in boxes(graph(Location))
        with pytest.raises(TypeError, match="registry must be a Registry"):
            graph(Location, registry={})  # type: ignore[arg-type]

    def test_direction(self) -> None:
        """direction picks Mermaid's layout; anything else is a ValueError saying what works."""
        assert graph(Day, direction="TB").splitlines()[1] == "    direction TB"
        with pytest.raises(ValueError, match="direction must be 'LR', 'RL', 'TB' or 'BT'"):
            graph(Day, direction="sideways")  # type: ignore[arg-type]

    def test_the_same_type_draws_the_same_text(self) -> None:
        """The output is deterministic, so it can be committed and diffed."""
        assert graph(Page[Comment]) == graph(Page[Comment])

    @pytest.mark.parametrize("bad", [bytes, 42, "Forecast", object()])
    def test_what_cannot_be_described_is_a_schema_error(self, bad: Any) -> None:
        """The same SchemaError schema() raises, not a traceback from inside."""
        with pytest.raises(SchemaError):
            graph(bad)


_SYNTAX = set("{}()<>~#`\\")


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(min_size=1, max_size=8), min_size=1, max_size=4, unique=True))
def test_any_value_is_escaped_for_mermaid(values: list[str]) -> None:
    """Enum and Literal values never put Mermaid syntax in a box; the entities decode back."""
    members = {f"M{i}": v for i, v in enumerate(values)}
    cls = enum.Enum("Odd", members)  # type: ignore[misc]

    holder = attrs.make_class("Holder", {"odd": attrs.field(type=cls)})
    body = boxes(graph(holder))["Odd"][1:]
    assert len(body) == len(values)
    for line, value in zip(body, values, strict=True):
        assert not (set(line) & _SYNTAX - {"#"})
        assert "\n" not in line
        decoded = re.sub(r"#(\d+);", lambda m: chr(int(m[1])), line)
        assert json.loads(decoded) == value


@settings(max_examples=40, deadline=None)
@given(classes())
def test_every_class_is_one_box_named_by_its_defs_key(drawn: Any) -> None:
    """Each class the schema puts under $defs is exactly one box titled with that key."""
    cls, _ = drawn
    text = graph(cls)
    titles = list(boxes(text))
    assert len(titles) == len(set(titles))
    defs = schema(cls, use_references=True).get("$defs", {})
    assert set(defs) <= set(titles)
    ids = re.findall(r"^    class (\w+)", text, re.M)
    for line in arrows(text):
        source, _, rest = line.partition(" --> ")
        assert source in ids
        assert rest.split()[1] in ids


class TestSvg:
    """The same diagram drawn as SVG, for front ends that cannot run Mermaid."""

    def test_every_box_line_and_arrow_is_drawn(self) -> None:
        import xml.etree.ElementTree as ET

        diagram = graph(Forecast)
        root = ET.fromstring(diagram.svg)
        texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
        for title, lines in boxes(diagram).items():
            assert title in texts
            for line in lines:
                if line.startswith("<<"):
                    assert f"«{line[2:-2]}»" in texts
                else:
                    assert line in texts
        assert "location [1]" in texts
        assert "days [*]" in texts
        assert "unit [0..1]" in texts
        lines = list(root.iter("{http://www.w3.org/2000/svg}line"))
        assert sum(1 for ln in lines if ln.get("marker-end")) == len(arrows(diagram))

    @pytest.mark.parametrize("direction", ["LR", "RL", "TB", "BT"])
    def test_boxes_stay_inside_the_picture_and_apart(self, direction: str) -> None:
        import xml.etree.ElementTree as ET

        root = ET.fromstring(graph(Post, direction=direction).svg)  # type: ignore[arg-type]
        width, height = float(root.get("width", 0)), float(root.get("height", 0))
        rects = [
            tuple(float(r.get(k, 0)) for k in ("x", "y", "width", "height"))
            for r in root.iter("{http://www.w3.org/2000/svg}rect")
        ]
        assert len(rects) == 2
        for x, y, w, h in rects:
            assert x >= 0
            assert x + w <= width + 0.5
            assert y >= 0
            assert y + h <= height + 0.5
        (ax, ay, aw, ah), (bx, by, bw, bh) = rects
        assert ax + aw <= bx or bx + bw <= ax or ay + ah <= by or by + bh <= ay

    def test_a_recursive_class_points_at_itself_with_a_loop(self) -> None:
        svg = graph(Comment).svg
        assert '<path d="M ' in svg
        assert "replies [*]" in svg

    def test_an_empty_diagram_has_no_drawing(self) -> None:
        assert graph(int).svg == ""
        assert "image/svg+xml" not in graph(int)._repr_mimebundle_()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(min_size=1, max_size=8), min_size=1, max_size=4, unique=True))
def test_any_value_is_escaped_for_svg(values: list[str]) -> None:
    """Any enum value is text in the SVG, never markup: the document parses and holds it."""
    import xml.etree.ElementTree as ET

    members = {f"M{i}": v for i, v in enumerate(values)}
    cls = enum.Enum("Odd", members)  # type: ignore[misc]
    holder = attrs.make_class("Holder", {"odd": attrs.field(type=cls)})
    root = ET.fromstring(graph(holder).svg)
    texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert texts[-len(values):] == [
        # XML 1.0 cannot hold U+FFFE, U+FFFF or most control characters: spelled \uXXXX
        re.sub("[\ufffe\uffff]", lambda m: f"\\u{ord(m.group()):04x}",
               json.dumps(value, ensure_ascii=False))
        for value in values
    ]

"""Annotation, annotate() and annotate.register."""

from __future__ import annotations

import dataclasses
import threading
from typing import Annotated

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from describedtypes import Annotation, SchemaError, annotate, schema


class TestAnnotation:
    def test_is_immutable(self) -> None:
        """Annotations cannot be changed after they are made."""
        a = Annotation(name="x")
        with pytest.raises(attrs.exceptions.FrozenInstanceError):
            a.name = "y"  # type: ignore[misc]

    def test_is_hashable_with_parameters(self) -> None:
        """Equal annotations, nested parameters included, hash equal."""
        a = Annotation(name="A", parameters={"x": Annotation(description="d")}, enum=["a"])
        b = Annotation(name="A", parameters={"x": Annotation(description="d")}, enum=("a",))
        assert a == b
        assert hash(a) == hash(b)
        assert {a, b} == {a}

    def test_repr_shows_only_what_is_set(self) -> None:
        """The repr names the fields that were given, readably."""
        a = Annotation(name="unit", enum=["c", "f"])
        assert repr(a) == "Annotation(name='unit', enum=['c', 'f'])"

    def test_parameters_are_read_only(self) -> None:
        """The parameters mapping cannot be changed in place."""
        a = Annotation(parameters={"x": Annotation()})
        with pytest.raises(TypeError):
            a.parameters["y"] = Annotation()  # type: ignore[index]

    @pytest.mark.parametrize(
        ("kwargs", "fragment"),
        [
            ({"name": 3}, "Annotation.name must be a str"),
            ({"description": b"x"}, "Annotation.description must be a str"),
            ({"enum": "red"}, "write enum=['red']"),
            ({"enum": []}, "at least one value"),
            ({"enum": [object()]}, "must be str, int, float or bool"),
            ({"parameters": ["x"]}, "must be a mapping"),
            ({"parameters": {"x": "desc"}}, "write Annotation(description=...)"),
            ({"parameters": {1: Annotation()}}, "keys must be field names"),
        ],
    )
    def test_bad_values_are_rejected_with_the_fix(self, kwargs: dict, fragment: str) -> None:
        """Wrong argument types raise TypeError saying what to write instead."""
        with pytest.raises(TypeError, match=None) as info:
            Annotation(**kwargs)
        assert fragment in str(info.value)


@attrs.define
class Documented:
    """A documented class.

    More text that is not the summary.

    Attributes:
        a: The a value.
        b: The b value.
    """

    a: int
    b: str = attrs.field(metadata={"description": "From metadata."})
    c: Annotated[float, Annotation(description="From Annotated.")] = 1.0


@dataclasses.dataclass
class PlainDC:
    x: int


def google(city: str, days: int = 1) -> str:
    """Forecast the weather.

    Args:
        city: The city name.
        days: How many days ahead.
    """
    return city


def numpy_style(city: str) -> str:
    """Forecast the weather.

    Parameters
    ----------
    city : str
        The city name.
    """
    return city


def rest_style(city: str) -> str:
    """Forecast the weather.

    :param city: The city name.
    """
    return city


class TestDefaults:
    def test_class_name_and_docstring_summary(self) -> None:
        """The default names the class and takes the docstring's summary."""
        a = annotate(Documented)
        assert a.name == "Documented"
        assert a.description == "A documented class."

    def test_field_sources(self) -> None:
        """Docstring, field metadata and Annotated each describe their field."""
        props = schema(Documented)["properties"]
        assert props["a"]["description"] == "The a value."
        assert props["b"]["description"] == "From metadata."
        assert props["c"]["description"] == "From Annotated."

    def test_annotate_reports_every_source(self) -> None:
        """annotate() itself carries docstring, metadata and Annotated descriptions."""
        params = annotate(Documented).parameters
        assert params["a"].description == "The a value."
        assert params["b"].description == "From metadata."
        assert params["c"].description == "From Annotated."

    def test_annotated_beats_metadata_and_docstring(self) -> None:
        """On one field, Annotated wins over metadata, which wins over the docstring."""

        @attrs.define
        class Layered:
            """Layered.

            Attributes:
                x: From the docstring.
            """

            x: Annotated[int, Annotation(description="From Annotated.")] = attrs.field(
                metadata={"description": "From metadata."}
            )

        assert annotate(Layered).parameters["x"].description == "From Annotated."
        assert schema(Layered)["properties"]["x"]["description"] == "From Annotated."

    def test_function_parameters_from_annotated(self) -> None:
        """A parameter's Annotated annotation appears in annotate(func)."""

        def f(x: Annotated[str, Annotation(description="X.", enum=["a", "b"])]) -> str:
            """Do f."""
            return x

        assert annotate(f).parameters["x"] == Annotation(description="X.", enum=["a", "b"])

    def test_generated_dataclass_doc_is_not_a_description(self) -> None:
        """The signature dataclasses writes into __doc__ is ignored."""
        assert annotate(PlainDC).description is None
        assert "description" not in schema(PlainDC)

    @pytest.mark.parametrize("func", [google, numpy_style, rest_style])
    def test_function_docstring_styles(self, func: object) -> None:
        """Google, NumPy and reST parameter sections all describe parameters."""
        a = annotate(func)
        assert a.description == "Forecast the weather."
        assert a.parameters["city"].description == "The city name."

    def test_no_filler_text(self) -> None:
        """Nothing is invented where the code says nothing."""

        @attrs.define
        class Bare:
            x: int

        out = schema(Bare)
        expected = {"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]}
        assert out == expected


class TestRegister:
    def teardown_method(self) -> None:
        annotate.unregister(Documented)

    def test_override_wins_field_by_field(self) -> None:
        """An override replaces what it names and keeps the code's other descriptions."""
        annotate.register(
            Documented,
            Annotation(
                description="Overridden.", parameters={"a": Annotation(description="New a.")}
            ),
        )
        out = schema(Documented)
        assert out["description"] == "Overridden."
        assert out["properties"]["a"]["description"] == "New a."
        assert out["properties"]["b"]["description"] == "From metadata."
        assert out["properties"]["c"]["description"] == "From Annotated."

    def test_override_beats_annotated(self) -> None:
        """A registered description wins over Annotated[T, Annotation(...)]."""
        annotate.register(Documented, Annotation(parameters={"c": Annotation(description="R")}))
        assert schema(Documented)["properties"]["c"]["description"] == "R"

    def test_second_registration_replaces_first_and_invalidates_cache(self) -> None:
        """Registering again replaces the annotation, and schemas follow at once."""
        annotate.register(Documented, Annotation(description="one"))
        assert schema(Documented)["description"] == "one"
        annotate.register(Documented, Annotation(description="two"))
        assert schema(Documented)["description"] == "two"
        annotate.unregister(Documented)
        assert schema(Documented)["description"] == "A documented class."

    def test_callable_and_decorator_forms(self) -> None:
        """A function tp -> Annotation may be registered, also as a decorator."""
        annotate.register(Documented, lambda tp: Annotation(description=f"made for {tp.__name__}"))
        assert annotate(Documented).description == "made for Documented"

        @annotate.register(Documented)
        def _describe(tp: type) -> Annotation:
            return Annotation(description="decorated")

        assert annotate(Documented).description == "decorated"

    def test_callable_returning_junk_is_named(self) -> None:
        """A registered function that returns no Annotation gets a clear TypeError."""
        annotate.register(Documented, lambda tp: "oops")
        with pytest.raises(TypeError, match="returned str, not an Annotation"):
            annotate(Documented)

    def test_register_rejects_non_annotations(self) -> None:
        """Registering a value that is neither an Annotation nor a function fails."""
        with pytest.raises(TypeError, match="takes an Annotation or a function"):
            annotate.register(Documented, "desc")  # type: ignore[call-overload]
        with pytest.raises(TypeError, match="needs an attrs class, dataclass"):
            annotate.register([], Annotation())  # type: ignore[call-overload]

    def test_unknown_field_is_a_schema_error_with_suggestion(self) -> None:
        """An override naming a missing field fails when the schema is built."""
        annotate.register(Documented, Annotation(parameters={"bb": Annotation(description="x")}))
        with pytest.raises(SchemaError) as info:
            schema(Documented)
        assert "did you mean 'b'?" in str(info.value)
        assert info.value.path == "Documented.bb"

    def test_annotation_name_renames_the_property(self) -> None:
        """A parameter annotation's name is the key the model sees."""
        annotate.register(Documented, Annotation(parameters={"a": Annotation(name="alpha")}))
        out = schema(Documented)
        assert list(out["properties"]) == ["alpha", "b", "c"]
        assert out["required"] == ["alpha", "b"]

    def test_registration_is_thread_safe(self) -> None:
        """Concurrent registrations and schema builds never corrupt each other."""
        errors: list[BaseException] = []

        def work(i: int) -> None:
            try:
                for j in range(50):
                    annotate.register(Documented, Annotation(description=f"{i}-{j}"))
                    desc = schema(Documented)["description"]
                    assert "-" in desc
            except BaseException as exc:  # pragma: no cover - reported below
                errors.append(exc)

        threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        assert errors == []
        annotate.register(Documented, Annotation(description="final"))
        assert schema(Documented)["description"] == "final"


# -- reading docstrings -----------------------------------------------------------------

_DOC_LINES = st.sampled_from([
    "Weather at a place.", "A longer line of text, with words: and a colon.", "", "",
    "Args:", "Arguments:", "Attributes:", "Returns:", "Raises:", "Example:", "Keyword Args:",
    "Parameters", "----------", "Returns", "-------", "    x : int", "    y : str, optional",
    "    city: The city.", "    days (int): How many days. Defaults to 3.",
    "        continued description", ":param city: The city.", ":param days: Days.",
    ":returns: the weather", ":type days: int", "@param city: The city.", "@return: x",
    ".. deprecated:: 1.0", "x: not a title", "NotATitle: text after", "    - a bullet",
    "Note:", "*emphasis*", "    ", "Todo:", "See Also", "--------",
])


def _oracle(doc: str | None) -> tuple[str | None, dict[str, str]]:
    """The reading before it was made faster: docstring_parser's automatic mode on all."""
    import docstring_parser

    if not doc:
        return None, {}
    try:
        parsed = docstring_parser.parse(doc)
    except docstring_parser.ParseError:
        return doc.strip().split("\n\n", 1)[0].strip() or None, {}
    summary = parsed.short_description.strip() if parsed.short_description else None
    params = {
        p.arg_name: " ".join(p.description.split())
        for p in parsed.params
        if p.description and p.arg_name
    }
    return summary or None, params


@given(st.lists(_DOC_LINES, min_size=1, max_size=12))
def test_docstrings_read_as_docstring_parser_reads_them(lines: list[str]) -> None:
    """The summary and parameter descriptions are what docstring_parser's automatic mode
    gives, though plain docstrings skip it and single-style ones use that style alone."""
    import inspect as pyinspect

    from describedtypes._types.docstrings import parse_docstring

    doc = pyinspect.cleandoc("\n".join(lines))
    assert parse_docstring(doc) == _oracle(doc)

"""pydantic v2 models as input types: read from ``model_fields``, built by ``model_validate``.

Each pydantic feature is checked by hand here; tests/test_pydantic_differential.py checks
generated models against their attrs twins under every adapter.
"""

from __future__ import annotations

import asyncio
import enum
import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Annotated, Any, Generic, Literal, Optional, TypeVar

import annotated_types as at
import pydantic
import pydantic.dataclasses
import pytest
from pydantic import (
    AliasChoices,
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    field_validator,
    model_validator,
)

from describedtypes import (
    OPENAI,
    STANDARD,
    Annotation,
    DecodeError,
    SchemaError,
    Toolbox,
    annotate,
    decode,
    decode_batch,
    decode_stream,
    encode,
    evaluate,
    extract,
    make_converter,
    schema,
)
from describedtypes._cli.main import main

from .batch_lines import chat_completion, openai_line
from .standin import StandIn

T = TypeVar("T")


class Unit(enum.Enum):
    CELSIUS = "celsius"
    FAHRENHEIT = "fahrenheit"


class Location(BaseModel):
    """Where the reading was taken."""

    city: str = Field(description="City name")
    country: Optional[str] = Field(None, description="ISO country code", max_length=2)  # noqa: UP045


class Weather(BaseModel):
    """Current weather at a location.

    Attributes:
        temperature: From the docstring, under Field(description=...).
        unit: Degrees of what.
    """

    location: Location
    temperature: float = Field(description="Temperature value", ge=-90, le=60)
    unit: Unit = Unit.CELSIUS
    conditions: Literal["sunny", "cloudy", "rain"] = Field(alias="sky")

    @field_validator("temperature")
    @classmethod
    def plausible(cls, value: float) -> float:
        if value == 42:
            msg = "42 is a suspicious temperature"
            raise ValueError(msg)
        return value


class Tree(BaseModel):
    """A tree of labels."""

    label: str
    children: list[Tree] = Field(default_factory=list)


class Box(BaseModel, Generic[T]):
    """A box of things."""

    item: T
    spares: list[T] = []


class Strict(BaseModel):
    code: Annotated[str, StringConstraints(min_length=2, pattern=r"^[A-Z]+$")]
    count: int = Field(gt=0, multiple_of=2)
    score: Annotated[float, at.Interval(ge=0, le=1)] = 0.5
    tags: list[Annotated[str, Field(max_length=3)]] = Field(default_factory=list, max_length=2)


class Camel(BaseModel):
    model_config = ConfigDict(alias_generator=lambda name: name.upper())

    first_name: str
    last_name: str = Field(serialization_alias="surname")


class Checked(BaseModel):
    low: int
    high: int
    tag: str = "x"

    @model_validator(mode="after")
    def ordered(self) -> Checked:
        if self.low > self.high:
            msg = "low must not exceed high"
            raise ValueError(msg)
        return self

    @field_validator("tag")
    @classmethod
    def lookup(cls, value: str) -> str:
        if value == "boom":
            msg = "the tag service is down"
            raise ConnectionError(msg)
        if value == "typo":
            msg = "not a model mistake"
            raise TypeError(msg)
        return value


class Order(BaseModel):
    line: Line  # defined below: pydantic leaves Order incomplete until then


class Line(BaseModel):
    sku: str


class Broken(BaseModel):
    part: Nowhere  # type: ignore[name-defined]  # noqa: F821 - never defined


# -- the schema ------------------------------------------------------------------------


class TestSchema:
    def test_fields_descriptions_aliases_literal_enum_bounds(self) -> None:
        """Field(description), the docstring, alias=, Literal, Enum and Field bounds are read."""
        assert schema(Weather) == {
            "type": "object",
            "description": "Current weather at a location.",
            "properties": {
                "location": {
                    "type": "object",
                    "description": "Where the reading was taken.",
                    "properties": {
                        "city": {"type": "string", "description": "City name"},
                        "country": {
                            "type": "string", "maxLength": 2, "description": "ISO country code"
                        },
                    },
                    "required": ["city"],
                },
                "temperature": {
                    "type": "number", "minimum": -90, "maximum": 60,
                    "description": "Temperature value",
                },
                "unit": {
                    "type": "string", "enum": ["celsius", "fahrenheit"],
                    "description": "Degrees of what.", "default": "celsius",
                },
                "sky": {"type": "string", "enum": ["sunny", "cloudy", "rain"]},
            },
            "required": ["location", "temperature", "sky"],
        }

    def test_never_reads_model_json_schema(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """The schema comes from model_fields: model_json_schema() is never called."""

        class Point(BaseModel):
            x: int

        def refuse(*args: Any, **kwargs: Any) -> Any:
            raise AssertionError("model_json_schema was called")

        monkeypatch.setattr(Point, "model_json_schema", refuse)
        assert schema(Point, OPENAI)["schema"]["properties"] == {"x": {"type": "integer"}}

    def test_pydantic_and_annotated_types_constraints(self) -> None:
        """StringConstraints, Field(gt=, multiple_of=, max_length=) and Interval are bounds."""
        props = schema(Strict)["properties"]
        assert props["code"] == {"type": "string", "minLength": 2, "pattern": "^[A-Z]+$"}
        assert props["count"] == {"type": "integer", "exclusiveMinimum": 0, "multipleOf": 2}
        assert props["score"] == {"type": "number", "minimum": 0, "maximum": 1, "default": 0.5}
        assert props["tags"] == {
            "type": "array", "items": {"type": "string", "maxLength": 3}, "maxItems": 2,
            "default": [],
        }

    def test_alias_generator_and_serialization_alias(self) -> None:
        """The serialization alias is the JSON key; an alias generator's aliases count."""
        assert list(schema(Camel)["properties"]) == ["FIRST_NAME", "surname"]

    def test_recursive_model(self) -> None:
        """A model that contains itself is one definition, referred to."""
        assert schema(Tree)["properties"]["children"] == {
            "type": "array", "items": {"$ref": "#"}, "default": []
        }
        strict = schema(Tree, OPENAI)["schema"]
        assert strict["properties"]["children"]["items"] == {"$ref": "#"}

    def test_generic_model(self) -> None:
        """Box[int] is Box with int, named like an attrs generic's definition."""
        assert schema(Box[int])["properties"] == {
            "item": {"type": "integer"},
            "spares": {"type": "array", "items": {"type": "integer"}, "default": []},
        }

        class Shelf(BaseModel):
            left: Box[int]
            right: Box[str]

        defs = schema(Shelf, STANDARD)
        assert defs["properties"]["left"]["properties"]["item"] == {"type": "integer"}
        assert defs["properties"]["right"]["properties"]["item"] == {"type": "string"}

    def test_unparametrized_generic_is_refused(self) -> None:
        """A type variable left open is a SchemaError that names the fix."""
        with pytest.raises(SchemaError, match=r"type variable T is not bound.*Box\[int\]"):
            schema(Box)

    def test_root_model_is_refused_with_the_fix(self) -> None:
        """A RootModel's JSON is its root value: the error says to describe the root type."""

        class Names(pydantic.RootModel[list[str]]):
            pass

        with pytest.raises(SchemaError, match=r"RootModel.*list\[Item\]"):
            schema(Names)

    def test_forward_references(self) -> None:
        """A model pydantic left incomplete is completed on first use; an undefined name is
        named."""
        assert schema(Order)["properties"]["line"]["properties"] == {"sku": {"type": "string"}}
        with pytest.raises(SchemaError, match=r"name 'Nowhere' is not defined; define"):
            schema(Broken)

    def test_an_instance_is_not_a_type(self) -> None:
        """Passing a model instance is caught with the fix."""
        with pytest.raises(SchemaError, match=r"not a type; pass the class itself"):
            schema(Location(city="Paris"))

    def test_annotate_register_overrides(self) -> None:
        """A registered annotation wins over Field(description=...) and the alias."""

        class Pet(BaseModel):
            """A pet."""

            name: str = Field(description="What it is called", alias="petName")

        annotate.register(Pet, Annotation(
            name="Animal", description="An animal",
            parameters={"name": Annotation(name="called", description="Its name")},
        ))
        body = schema(Pet, OPENAI)
        assert body["name"] == "Animal"
        assert body["description"] == "An animal"
        assert body["schema"]["properties"] == {
            "called": {"type": "string", "description": "Its name"}
        }
        assert decode(Pet, '{"called": "Rex"}') == Pet(petName="Rex")

    def test_annotated_annotation_on_a_field(self) -> None:
        """Annotated[T, Annotation(name=, description=)] works on a model field too."""

        class Note(BaseModel):
            text: Annotated[str, Annotation(name="body", description="The words")]

        assert schema(Note)["properties"] == {
            "body": {"type": "string", "description": "The words"}
        }
        assert decode(Note, '{"body": "hi"}') == Note(text="hi")

    def test_register_on_a_generic_origin_applies_to_its_parametrizations(self) -> None:
        """annotate.register(Crate) names Crate[int] too."""

        class Crate(BaseModel, Generic[T]):
            thing: T

        annotate.register(Crate, Annotation(description="A crate"))
        assert schema(Crate[int])["description"] == "A crate"

    def test_every_adapter_renders(self) -> None:
        """Every adapter takes a model like any class (strict ones add every key)."""
        strict = schema(Weather, OPENAI)["schema"]
        assert strict["additionalProperties"] is False
        assert sorted(strict["required"]) == sorted(strict["properties"])


# -- decoding -------------------------------------------------------------------------


WEATHER = {"location": {"city": "Paris"}, "temperature": 21.5, "sky": "sunny"}


class TestDecode:
    def test_decode_builds_the_model(self) -> None:
        """The reply's keys are the aliases; the value is the model itself, validated."""
        value = decode(Weather, json.dumps(WEATHER))
        assert value == Weather(location=Location(city="Paris"), temperature=21.5, sky="sunny")
        assert isinstance(value.location, Location)

    def test_all_strict_errors_at_once_with_the_usual_messages(self) -> None:
        """The strict decoder reports every problem, before pydantic sees anything."""
        bad = {"location": {"city": 3, "country": "FRA"}, "temperature": 99, "sky": "hail",
               "extra": 1}
        with pytest.raises(DecodeError) as info:
            decode(Weather, json.dumps(bad))
        assert dict(info.value.errors) == {
            "$.location.city": "expected string, got integer 3",
            "$.location.country": "must have at most 2 characters, got 3",
            "$.temperature": "must be at most 60, got 99",
            "$.sky": "'hail' is not one of ['sunny', 'cloudy', 'rain']",
            "$.extra": "unknown field (accepted fields: location, temperature, unit, sky)",
        }

    def test_a_validators_value_error_is_a_model_mistake(self) -> None:
        """A field validator's ValueError is a DecodeError entry at the field's JSON key."""
        with pytest.raises(DecodeError) as info:
            decode(Weather, json.dumps({**WEATHER, "temperature": 42}))
        assert info.value.errors == [
            ("$.temperature", "invalid value: 42 is a suspicious temperature")
        ]

    def test_a_model_validators_value_error_is_at_the_object(self) -> None:
        """A model validator's ValueError is reported at the object, nested ones by path."""
        with pytest.raises(DecodeError) as info:
            decode(list[Checked], '[{"low": 1, "high": 2}, {"low": 3, "high": 2}]')
        assert info.value.errors == [("$[1]", "invalid value: low must not exceed high")]

    def test_nested_validator_errors_keep_their_path(self) -> None:
        """A nested model's validator error is at its path (the one-call fast path falls
        back to building each model, which says where)."""

        class Pair(BaseModel):
            pairs: list[Checked]
            first: Checked

        good = {"low": 1, "high": 2}
        bad = {"low": 5, "high": 2}
        with pytest.raises(DecodeError) as info:
            decode(Pair, json.dumps({"pairs": [good, bad], "first": good}))
        assert info.value.errors == [("$.pairs[1]", "invalid value: low must not exceed high")]
        value = decode(Pair, json.dumps({"pairs": [good], "first": good}))
        assert value == Pair(pairs=[Checked(low=1, high=2)], first=Checked(low=1, high=2))

    def test_revalidated_instances(self) -> None:
        """A model that revalidates instances decodes the same (its validators see each)."""

        class Part(BaseModel):
            model_config = ConfigDict(revalidate_instances="always")
            n: int = Field(ge=0)

        class Whole(BaseModel):
            parts: list[Part]

        assert decode(Whole, '{"parts": [{"n": 1}]}') == Whole(parts=[Part(n=1)])

    @pytest.mark.parametrize(("tag", "raised"), [("boom", ConnectionError), ("typo", TypeError)])
    def test_other_exceptions_propagate(self, tag: str, raised: type[Exception]) -> None:
        """Anything but a ValueError from a validator is not the model's doing: it propagates."""
        with pytest.raises(raised):
            decode(Checked, json.dumps({"low": 1, "high": 2, "tag": tag}))

    def test_validation_alias_choices(self) -> None:
        """A field with AliasChoices is sent by its name (or serialization alias)."""

        class Person(BaseModel):
            name: str = Field(validation_alias=AliasChoices("n", "full"))

        assert list(schema(Person)["properties"]) == ["name"]
        assert decode(Person, '{"name": "Ada"}').name == "Ada"

    def test_default_factory_taking_the_data(self) -> None:
        """A factory computed from the other fields is left to pydantic when absent."""

        class Span(BaseModel):
            start: int
            end: int = Field(default_factory=lambda data: data["start"] + 1)

        assert schema(Span)["required"] == ["start"]
        assert decode(Span, '{"start": 4}').end == 5
        assert decode(Span, '{"start": 4, "end": 9}').end == 9

    def test_recursive_and_generic_decode(self) -> None:
        """Recursive and generic models decode into the models themselves."""
        tree = decode(Tree, '{"label": "a", "children": [{"label": "b"}]}')
        assert tree == Tree(label="a", children=[Tree(label="b")])
        box = decode(Box[int], '{"item": 3}')
        assert type(box) is Box[int]
        with pytest.raises(DecodeError, match=r"\$\.item: expected integer, got string"):
            decode(Box[int], '{"item": "3"}')

    def test_constraints_checked(self) -> None:
        """pydantic's own constraints are checked by the strict decoder too."""
        with pytest.raises(DecodeError) as info:
            decode(Strict, '{"code": "a", "count": 3, "tags": ["abcd"]}')
        assert dict(info.value.errors) == {
            "$.code": "must have at least 2 characters, got 1",
            "$.count": "must be a multiple of 2, got 3",
            "$.tags[0]": "must have at most 3 characters, got 4",
        }

    def test_constraints_only_pydantic_knows_are_model_mistakes(self) -> None:
        """A constraint the schema cannot state (max_digits) is still pydantic's to check."""
        import decimal

        class Price(BaseModel):
            amount: decimal.Decimal = Field(max_digits=4)

        assert decode(Price, '{"amount": "12.5"}').amount == decimal.Decimal("12.5")
        with pytest.raises(DecodeError) as info:
            decode(Price, '{"amount": "123.45"}')
        [(path, message)] = info.value.errors
        assert path == "$.amount"
        assert message.startswith("invalid value: Decimal input should have no more than 4")


    def test_pydantic_dataclass_validators_read_like_a_models(self) -> None:
        """A pydantic dataclass is a dataclass; its ValidationError is read per field."""

        @pydantic.dataclasses.dataclass
        class Span:
            start: int
            end: int

            @field_validator("end")
            @classmethod
            def after(cls, value: int) -> int:
                if value < 0:
                    msg = "end must not be negative"
                    raise ValueError(msg)
                return value

        assert decode(Span, '{"start": 1, "end": 2}') == Span(1, 2)
        with pytest.raises(DecodeError) as info:
            decode(Span, '{"start": 1, "end": -2}')
        assert info.value.errors == [("$.end", "invalid value: end must not be negative")]


class TestEncode:
    def test_encode_round_trip(self) -> None:
        """encode(model) writes the aliases; decoding it gives an equal model."""
        value = Weather(location=Location(city="Paris"), temperature=3, sky="rain")
        text = encode(value)
        assert json.loads(text) == {
            "location": {"city": "Paris"}, "temperature": 3, "unit": "celsius", "sky": "rain"
        }
        assert decode(Weather, text) == value

    def test_encode_generic_and_nested_in_plain_values(self) -> None:
        """Models inside lists and dicts, and parametrized generics, are encoded."""
        assert json.loads(encode({"a": [Box[int](item=1)]})) == {"a": [{"item": 1, "spares": []}]}


# -- the rest of the library ----------------------------------------------------------


def lookup(where: Location, unit: Unit = Unit.CELSIUS) -> Weather:
    """Look up the weather.

    Args:
        where: The place.
        unit: The unit to answer in.
    """
    return Weather(location=where, temperature=20, unit=unit, sky="cloudy")


class TestRuntime:
    def test_evaluate_scores_models_by_their_json_names(self) -> None:
        """evaluate() takes a model as the type, and model instances, dicts or JSON texts
        as predictions and gold; paths are the JSON keys (the serialization alias)."""

        class Line(BaseModel):
            sku: str
            qty: int = Field(serialization_alias="quantity")

        class Order(BaseModel):
            customer: str
            lines: list[Line]

        gold = [Order(customer="Ann", lines=[Line(sku="a", qty=1), Line(sku="b", qty=2)])]
        # Lines in another order (paired order-free), one quantity wrong, case ignored.
        predicted = ['{"customer": "ann", "lines": [{"sku": "b", "quantity": 2}, '
                     '{"sku": "a", "quantity": 3}]}']
        evaluation = evaluate(Order, predicted, gold)
        scores = {row.path: (row.tp, row.fp, row.fn) for row in evaluation.rows}
        assert scores["$.customer"] == (1, 0, 0)
        assert scores["$.lines[].sku"] == (2, 0, 0)
        # The wrong quantity is one false positive and one false negative.
        assert scores["$.lines[].quantity"] == (1, 1, 1)
        assert evaluation.failed == {}

    def test_tools_take_and_return_models(self) -> None:
        """A tool's model parameter is decoded; its model result is encoded."""
        box = Toolbox([lookup])
        result = box.call("lookup", {"where": {"city": "Oslo"}})
        assert not result.is_error
        assert isinstance(result.value, Weather)
        assert json.loads(result.content)["location"] == {"city": "Oslo"}
        wrong = box.call("lookup", {"where": {"city": "Oslo", "country": "NOR"}})
        assert wrong.is_error
        assert "$.where.country" in wrong.content

    def test_extract(self) -> None:
        """extract() asks for the model's strict schema and returns the model."""
        import openai

        served = StandIn([("openai", chat_completion(json.dumps({**WEATHER, "temperature": 42}))),
                          ("openai", chat_completion(json.dumps(WEATHER)))])
        with served.serving():
            value = extract(Weather, openai.OpenAI(), model="gpt-4o", messages="Paris?")
        assert value == decode(Weather, json.dumps(WEATHER))
        first, second = (body for _, _, body in served.sent)
        assert first["response_format"]["json_schema"]["name"] == "Weather"
        # The validator's complaint went back to the model as a correction.
        assert "42 is a suspicious temperature" in json.dumps(second["messages"][-1])

    def test_streaming_partials(self) -> None:
        """decode_stream() gives partials of the model, then the model."""
        text = json.dumps(WEATHER)
        pieces = [text[i:i + 7] for i in range(0, len(text), 7)]
        values = list(decode_stream(Weather, pieces))
        assert values[-1] == decode(Weather, text)
        partials = values[:-1]
        assert partials
        assert any("location" in p.fields for p in partials)

    def test_decode_batch(self) -> None:
        """decode_batch() decodes each line into the model; a validator's refusal is invalid."""
        good = json.dumps(WEATHER)
        bad = json.dumps({**WEATHER, "temperature": 42})
        lines = [openai_line("a", {"choices": [{"message": {"content": good}}]}),
                 openai_line("b", {"choices": [{"message": {"content": bad}}]})]
        results = list(decode_batch(Weather, lines))
        assert [r.outcome for r in results] == ["ok", "invalid"]
        assert isinstance(results[0].value, Weather)

    def test_cattrs_converter(self) -> None:
        """make_converter() structures and unstructures models with the library's hooks."""
        converter = make_converter()
        value = converter.structure(WEATHER, Weather)
        assert isinstance(value, Weather)
        assert converter.unstructure(value)["sky"] == "sunny"
        with pytest.raises(DecodeError, match=r"\$\.temperature: invalid value: 42"):
            converter.structure({**WEATHER, "temperature": 42}, Weather)

    def test_command_line_decode(self, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        """describedtypes decode TARGET FILE takes a model as TARGET."""
        target = tmp_path / "models.py"
        target.write_text(textwrap.dedent("""
            from pydantic import BaseModel, Field

            class Reading(BaseModel):
                city: str
                degrees: float = Field(alias="temp", le=60)
        """))
        good = json.dumps({"city": "Oslo", "temp": -3})
        bad = json.dumps({"city": "Oslo", "temp": 70})
        batch = tmp_path / "batch.jsonl"
        batch.write_bytes(b"\n".join([
            openai_line("a", {"choices": [{"message": {"content": good}}]}),
            openai_line("b", {"choices": [{"message": {"content": bad}}]}),
        ]) + b"\n")
        out = tmp_path / "out.jsonl"
        assert main(["decode", f"{target}:Reading", str(batch), "--out", str(out)]) == 1
        lines = [json.loads(line) for line in out.read_text().splitlines()]
        assert [(line["custom_id"], line["outcome"]) for line in lines] == [
            ("a", "ok"), ("b", "invalid")]
        assert lines[0]["value"] == {"city": "Oslo", "temp": -3}
        assert lines[1]["errors"] == [["$.temp", "must be at most 60, got 70"]]
        capsys.readouterr()

    def test_mcp_server(self) -> None:
        """The MCP server lists a model-typed tool and answers with the model's JSON."""
        import anyio
        from mcp import ClientSession
        from mcp.shared.memory import create_client_server_memory_streams

        server = Toolbox([lookup]).mcp_server(name="weather")

        async def scenario() -> tuple[Any, Any]:
            async with (
                create_client_server_memory_streams() as (client_streams, server_streams),
                anyio.create_task_group() as tg,
            ):
                tg.start_soon(lambda: server.run(*server_streams,
                                                 server.create_initialization_options()))
                async with ClientSession(*client_streams) as session:
                    await session.initialize()
                    listed = await session.list_tools()
                    called = await session.call_tool("lookup", {"where": {"city": "Rome"}})
                tg.cancel_scope.cancel()
            return listed, called

        listed, called = asyncio.run(scenario())
        [tool] = listed.tools
        assert tool.input_schema["properties"]["where"]["properties"]["city"] == {
            "type": "string", "description": "City name"
        }
        assert not called.is_error
        assert called.structured_content["location"] == {"city": "Rome"}


# -- pydantic stays optional ----------------------------------------------------------


def _run(code: str) -> str:
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_import_never_imports_pydantic() -> None:
    """``import describedtypes`` (and describing a plain class) leaves pydantic unimported."""
    out = _run("""
        import sys, dataclasses
        import describedtypes
        @dataclasses.dataclass
        class P:
            x: int
        describedtypes.schema(P)
        describedtypes.decode(P, '{"x": 1}')
        print(sorted(m for m in sys.modules if m.split('.')[0] in ('pydantic', 'pydantic_core')))
    """)
    assert out.strip() == "[]"


def test_without_pydantic_nothing_changes() -> None:
    """With pydantic blocked, classes still describe, decode and encode as before."""
    out = _run("""
        import sys
        sys.modules['pydantic'] = None
        sys.modules['pydantic_core'] = None
        import dataclasses, json
        import describedtypes
        @dataclasses.dataclass
        class P:
            x: int
        print(json.dumps(describedtypes.schema(P)))
        print(describedtypes.decode(P, '{"x": 1}'), describedtypes.encode(P(2)).decode())
        try:
            describedtypes.decode(P, '{"x": "1"}')
        except describedtypes.DecodeError as exc:
            print(exc.errors)
    """)
    assert out.splitlines() == [
        '{"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]}',
        'P(x=1) {"x":2}',
        "[('$.x', 'expected integer, got string \"1\"')]",
    ]

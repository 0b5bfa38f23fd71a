"""make_converter() and register_hooks(): cattrs converters with decode()'s rules."""

from __future__ import annotations

import dataclasses
import datetime
import enum
import typing
from typing import Any

import attrs
import cattrs
import jsonschema
import orjson
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from describedtypes import (
    ANTHROPIC,
    ANTHROPIC_TOOLS,
    OPENAI,
    OPENAI_CHAT_TOOLS,
    OPENAI_TOOLS,
    STANDARD,
    DecodeError,
    SchemaError,
    check,
    decode,
    encode,
    make_converter,
    register_hooks,
    schema,
)
from describedtypes._schema.document import document

from .strategies import classes

UTC = datetime.timezone.utc


@attrs.frozen
class Address:
    city: str
    since: datetime.datetime | None = None


@attrs.frozen
class Person:
    name: str
    age: int
    address: Address
    scores: dict[str, int] = attrs.field(factory=dict)
    nickname: str | None = None


@dataclasses.dataclass
class Note:
    text: str
    stars: int


PERSON = Person("Ada", 36, Address("London"), {"math": 10}, None)


# -- round trips over generated types ---------------------------------------------------


@given(st.data())
def test_unstructure_then_structure_gives_an_equal_instance(data: st.DataObject) -> None:
    """conv.structure(conv.unstructure(x), cls) == x under the standard and strict shapes."""
    cls, values = data.draw(classes())
    x = data.draw(values)
    adapter = data.draw(st.sampled_from([STANDARD, OPENAI, ANTHROPIC]))
    conv = make_converter(adapter)
    assert conv.structure(conv.unstructure(x), cls) == x
    # The unstructured value is JSON: it survives orjson unchanged in meaning.
    assert conv.structure(orjson.loads(orjson.dumps(conv.unstructure(x))), cls) == x


@given(st.data())
def test_standard_unstructure_is_what_encode_writes(data: st.DataObject) -> None:
    _, values = data.draw(classes())
    x = data.draw(values)
    assert make_converter().unstructure(x) == orjson.loads(encode(x))


@given(st.data())
def test_strict_unstructure_validates_against_the_strict_schema(data: st.DataObject) -> None:
    """Under OPENAI every field is present (None as null) and dicts are entry arrays."""
    cls, values = data.draw(classes())
    x = data.draw(values)
    try:
        body = schema(cls, OPENAI)["schema"]
    except SchemaError:
        assume(False)
    out = make_converter(OPENAI).unstructure(x)
    errors = list(jsonschema.Draft202012Validator(body).iter_errors(out))
    assert errors == []


@given(st.data(), st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.text(max_size=3),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner,
                                                                 max_size=3),
    max_leaves=8,
))
def test_structure_fails_exactly_as_decode(data: st.DataObject, junk: Any) -> None:
    """Any JSON value: the same instance, or a DecodeError with the same errors and text."""
    assume(not isinstance(junk, str))  # decode() parses text; structure() never does
    cls, _ = data.draw(classes())
    conv = make_converter()
    try:
        expected: Any = decode(cls, junk)
    except DecodeError as exc:
        error = exc
    else:
        assert conv.structure(junk, cls) == expected
        return
    with pytest.raises(DecodeError) as caught:
        conv.structure(junk, cls)
    assert caught.value.errors == error.errors
    assert str(caught.value) == str(error)


# -- fixed cases -------------------------------------------------------------------------


def test_structure_uses_the_strict_rules_and_reports_every_problem() -> None:
    conv = make_converter()
    reply = {"name": "Ada", "age": "36", "address": {"cty": "London"}, "extra": 1}
    with pytest.raises(DecodeError) as caught:
        conv.structure(reply, Person)
    assert caught.value.errors == [
        ("$.age", 'expected integer, got string "36"'),
        ("$.address.city", "missing required field"),
        ("$.address.cty", "unknown field; did you mean 'city'?"),
        ("$.extra", "unknown field (accepted fields: name, age, address, scores, nickname)"),
    ]
    with pytest.raises(DecodeError) as plain:
        decode(Person, reply)
    assert str(plain.value) == str(caught.value)


def test_plain_cattrs_would_coerce_where_this_refuses() -> None:
    reply = {"text": "hi", "stars": "5"}
    assert cattrs.Converter().structure(reply, Note) == Note("hi", 5)
    with pytest.raises(DecodeError, match=r"\$\.stars: expected integer"):
        make_converter().structure(reply, Note)


def test_text_is_a_string_value_not_json_to_parse() -> None:
    with pytest.raises(DecodeError, match="expected object, got string"):
        make_converter().structure('{"text": "hi", "stars": 5}', Note)


def test_strict_adapters_write_and_read_dicts_as_key_value_arrays() -> None:
    conv = make_converter(OPENAI)
    out = conv.unstructure(PERSON)
    assert out == {
        "name": "Ada",
        "age": 36,
        "address": {"city": "London", "since": None},
        "scores": [{"key": "math", "value": 10}],
        "nickname": None,
    }
    assert conv.structure(out, Person) == PERSON
    # Every converter reads both forms, as decode() does.
    assert make_converter().structure(out, Person) == PERSON
    assert conv.structure(make_converter().unstructure(PERSON), Person) == PERSON
    bad = {**out, "scores": [{"key": "math"}, {"key": 1, "value": "x"}]}
    with pytest.raises(DecodeError) as caught:
        conv.structure(bad, Person)
    with pytest.raises(DecodeError) as plain:
        decode(Person, bad)
    assert caught.value.errors == plain.value.errors
    assert [p for p, _ in caught.value.errors] == [
        "$.scores[0].value", "$.scores[1].key", "$.scores[1].value"
    ]


class Shade(enum.Enum):
    RED = "red"
    BLUE = "blue"


_ARRAY_OPTIONS = [list[bool], list[int], set[str], frozenset[int], tuple[int, ...]]
_DICT_OPTIONS = [dict[str, str], dict[str, int | None], dict[Shade, int | None]]
_STRICT = [OPENAI, OPENAI_TOOLS, OPENAI_CHAT_TOOLS, ANTHROPIC, ANTHROPIC_TOOLS]


@given(
    st.sampled_from(_DICT_OPTIONS),
    st.sampled_from(_ARRAY_OPTIONS),
    st.booleans(),
    st.sampled_from(_STRICT),
    st.sampled_from(["dict", "array"]),
)
def test_an_empty_dict_beside_an_array_option_round_trips(
    dict_type: Any, array_type: Any, dict_first: bool, adapter: Any, which: str
) -> None:
    """Under the strict adapters a dict is an array of entries, so an empty dict would be
    ``[]``, which the union's array option reads as an empty list: the empty dict is
    written as ``{}`` there (an option of the union's schema), and both empty values come
    back as they went, in a document the schema allows."""
    union = (
        typing.Union[dict_type, array_type] if dict_first  # noqa: UP007
        else typing.Union[array_type, dict_type]  # noqa: UP007
    )
    holder = attrs.make_class("Holder", {"f": attrs.field(type=union)}, frozen=True)
    if which == "dict":
        value: Any = {}
    else:
        value = array_type.__origin__() if hasattr(array_type, "__origin__") else []
    x = holder(value)
    conv = make_converter(adapter)
    out = orjson.loads(orjson.dumps(conv.unstructure(x)))
    back = conv.structure(out, holder)
    assert back == x, (out, back)
    assert type(back.f) is type(value), (out, back)
    assert decode(holder, orjson.dumps(out)) == x
    wrapped = schema(holder, adapter)
    body = document(wrapped, adapter).body
    assert list(jsonschema.Draft202012Validator(dict(body)).iter_errors(out)) == []
    assert check(wrapped, adapter) == []


def test_type_expressions_around_described_classes_are_decoded_strictly() -> None:
    conv = make_converter()
    notes = [{"text": "a", "stars": 1}, {"text": "b", "stars": "2"}]
    with pytest.raises(DecodeError) as caught:
        conv.structure(notes, list[Note])
    assert caught.value.errors == [("$[1].stars", 'expected integer, got string "2"')]
    assert conv.structure(None, Note | None) is None
    # Types the library does not describe are cattrs' own business.
    assert conv.structure("5", int) == 5


# -- the user's own hooks ------------------------------------------------------------------


def _epoch(value: Any, _: Any) -> datetime.datetime:
    return datetime.datetime.fromtimestamp(value, UTC)


def test_a_users_converter_keeps_its_hooks() -> None:
    conv = cattrs.Converter()
    conv.register_structure_hook(datetime.datetime, _epoch)
    conv.register_unstructure_hook(datetime.datetime, lambda d: int(d.timestamp()))
    conv.register_structure_hook(Note, lambda v, _: Note(v, 0))  # a class hook of its own
    register_hooks(conv)
    person = conv.structure(
        {"name": "Ada", "age": 36, "address": {"city": "London", "since": 0}}, Person
    )
    assert person.address.since == datetime.datetime(1970, 1, 1, tzinfo=UTC)
    assert conv.unstructure(person)["address"] == {"city": "London", "since": 0}
    assert conv.structure("free text", Note) == Note("free text", 0)
    # The strict rules still hold around the user's hooks.
    with pytest.raises(DecodeError, match=r"\$\.age: expected integer"):
        conv.structure({"name": "Ada", "age": "36", "address": {"city": "x"}}, Person)


def test_predicate_hooks_registered_before_are_kept() -> None:
    conv = cattrs.Converter()
    conv.register_structure_hook_func(lambda t: t is Note, lambda v, _: Note("mine", 1))
    register_hooks(conv)
    assert conv.structure({"anything": True}, Note) == Note("mine", 1)
    assert conv.structure(
        {"name": "A", "age": 1, "address": {"city": "x"}}, Person
    ).address == Address("x")


def test_hooks_registered_after_win_and_the_cache_follows_them() -> None:
    conv = make_converter()
    reply = {"name": "Ada", "age": 36, "address": {"city": "London", "since": 0}}
    with pytest.raises(DecodeError, match="since"):
        conv.structure(reply, Person)
    conv.register_structure_hook(datetime.datetime, _epoch)
    assert conv.structure(reply, Person).address.since == datetime.datetime(1970, 1, 1,
                                                                            tzinfo=UTC)


def test_register_hooks_twice_is_harmless() -> None:
    conv = make_converter()
    register_hooks(conv)
    assert conv.structure({"text": "a", "stars": 1}, Note) == Note("a", 1)


def test_bad_arguments_are_type_errors_that_say_what_to_pass() -> None:
    with pytest.raises(TypeError, match="cattrs Converter"):
        register_hooks({})  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"llm_adapter must be an Adapter"):
        make_converter("openai")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"registry must be a Registry such as"):
        make_converter(registry=object())  # type: ignore[arg-type]


def test_a_registry_of_its_own_renames_fields_both_ways() -> None:
    from describedtypes import Annotation, Registry

    mine = Registry()
    mine.register(Note, Annotation(parameters={"text": Annotation(name="body")}))
    conv = make_converter(registry=mine)
    assert conv.structure({"body": "hi", "stars": 2}, Note) == Note("hi", 2)
    assert conv.unstructure(Note("hi", 2)) == {"body": "hi", "stars": 2}
    # The default registry is untouched.
    assert make_converter().unstructure(Note("hi", 2)) == {"text": "hi", "stars": 2}


def test_hooks_follow_a_later_registration() -> None:
    from describedtypes import Annotation, Registry

    mine = Registry()
    conv = make_converter(registry=mine)
    assert conv.unstructure(Note("a", 1)) == {"text": "a", "stars": 1}
    mine.register(Note, Annotation(parameters={"text": Annotation(name="body")}))
    assert conv.unstructure(Note("a", 1)) == {"body": "a", "stars": 1}
    assert conv.structure({"body": "a", "stars": 1}, Note) == Note("a", 1)

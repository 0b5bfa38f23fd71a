"""The schemas through a grammar engine, as structured-output servers compile them.

llguidance turns each schema body into the grammar that masks a model's tokens
(tests/grammar_support.py). The checks: every strict body compiles with no error and no
warning; the reply a constrained model would write for an instance (its ``encode()``
shaped after the body) is accepted byte by byte and ``decode()`` gives the instance back;
a reply with a wrong type, a missing key or an extra key is refused; a bound the
provider cannot take is refused by ``decode()`` even though the grammar lets it through;
and every string the grammar allows for a date/time/UUID format decodes.
"""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import enum
import re
import uuid
from collections.abc import Callable
from typing import Annotated, Any, Literal, NamedTuple

import annotated_types as at
import attrs
import jsonschema
import orjson
import pytest
from attrs import validators as v
from hypothesis import event, given, settings
from hypothesis import strategies as st
from typing_extensions import NotRequired, TypedDict

from describedtypes import (
    ANTHROPIC,
    ANTHROPIC_TOOLS,
    OPENAI,
    OPENAI_CHAT_TOOLS,
    OPENAI_TOOLS,
    STANDARD,
    Adapter,
    Annotation,
    DecodeError,
    SchemaError,
    decode,
    encode,
    schema,
)
from describedtypes._schema.document import document

from .grammar_support import (
    Compiled,
    Mismatch,
    Shaper,
    compile_body,
    kind_of,
    match,
    reply_text,
    sample,
)
from .strategies import TypeAndValues, classes

STRICT = [OPENAI, OPENAI_TOOLS, OPENAI_CHAT_TOOLS, ANTHROPIC, ANTHROPIC_TOOLS]
RECURSIVE_OK = [OPENAI, OPENAI_TOOLS, OPENAI_CHAT_TOOLS]

#: The one diagnostic STANDARD bodies may draw. ``uniqueItems`` is plain JSON Schema
#: (sets), but no context-free grammar can enforce it, so llguidance refuses it
#: unless compiled leniently; the strict adapters write it into the description instead.
UNIQUE_ITEMS = re.compile(r'Unimplemented keys: \["uniqueItems"\]( \(\d+ times\))?')


def only_unique_items(compiled: Compiled) -> bool:
    """The engine said nothing, or only that it cannot enforce ``uniqueItems``."""
    return all(UNIQUE_ITEMS.fullmatch(message) for message in compiled.messages)


def body(cls: Any, adapter: Adapter, use_references: bool) -> dict[str, Any]:
    """The schema body inside ``adapter``'s output for ``cls``."""
    return dict(document(schema(cls, adapter, use_references=use_references), adapter).body)


def compiled_cleanly(schema_body: dict[str, Any], adapter: Adapter) -> Compiled:
    """Compile a body, failing with the engine's own words on any error or warning."""
    compiled = compile_body(schema_body)
    assert compiled.clean, (
        f"{adapter.name}: llguidance {'refused' if compiled.error else 'warned about'} the "
        f"body: {list(compiled.messages)}\nbody: {orjson.dumps(schema_body).decode()}"
    )
    return compiled


def shaped_reply(instance: Any, schema_body: dict[str, Any]) -> tuple[Shaper, Any]:
    """The reply a model held to ``schema_body`` would write for ``instance``."""
    shaper = Shaper(schema_body)
    try:
        reply = shaper.shape(orjson.loads(encode(instance)))
    except Mismatch as exc:
        raise AssertionError(f"encode({instance!r}) has no reply under the body: {exc}") from None
    return shaper, reply


def drawn_body(cls: Any, adapter: Adapter, use_references: bool) -> dict[str, Any] | None:
    """The body for a generated class, or None when the provider's size limits refuse it.

    Deep generated trees (maps of maps of maps) can pass OpenAI's depth limit; schema()
    then raises SchemaError, which is the right answer and leaves nothing to compile.
    """
    try:
        return body(cls, adapter, use_references)
    except SchemaError as exc:
        error = str(exc)
    assert "[limit." in error, error
    event(f"{adapter.name}: refused by a size limit")
    return None


def assert_round_trip(
    cls: Any, instance: Any, adapter: Adapter, schema_body: dict[str, Any]
) -> None:
    """The shaped reply is valid JSON Schema-wise, accepted by the grammar, and decodes back."""
    compiled = compiled_cleanly(schema_body, adapter)
    _, reply = shaped_reply(instance, schema_body)
    text = reply_text(reply)
    jsonschema.validate(reply, schema_body, cls=jsonschema.Draft202012Validator)
    verdict = match(compiled, text)
    assert verdict.accepted, f"{adapter.name} grammar refused {text!r}: {verdict.reason}"
    assert decode(cls, text) == instance


# -- a table of the constructs most likely to trip a grammar compiler -------------------------


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"
    BLUE = "blue"


class Level(enum.Enum):
    LOW = 1
    HIGH = 2


@attrs.define
class TreeNode:
    """Recursion through the root: ``{"$ref": "#"}``."""

    value: int
    children: list[TreeNode] = attrs.Factory(list)


@attrs.define
class Forest:
    """Recursion inside ``$defs``."""

    name: str
    trees: list[TreeNode]


@attrs.define
class Thread:
    """Recursion through an optional field: ``anyOf [{"$ref": "#"}, {"type": "null"}]``."""

    text: str
    reply: Thread | None = None


@attrs.define
class Choices:
    color: Color | None
    level: Level | None
    kind: Literal["fixed"]
    mixed: Literal["a", 1]
    maybe: Literal["x", "y"] | None = None


@attrs.define
class Point:
    x: float
    y: float


@attrs.define
class Caption:
    text: str
    size: int | None = None


@attrs.define
class Maps:
    counts: dict[str, int]
    captions: dict[str, Caption]
    nested: dict[str, dict[str, list[int]]]
    maybe: dict[str, Point] | None = None


@attrs.define
class Nested:
    where: Point | None
    caption: Caption | None
    shape: Point | Caption
    anchor: Annotated[Point, Annotation(description="The anchor point.")]
    note: Annotated[Caption | None, Annotation(description="A caption, if any.")] = None
    points: list[Point] = attrs.Factory(list)
    tags: frozenset[str] = frozenset()
    sizes: tuple[int, ...] = ()


@attrs.define
class Bounded:
    slug: str = attrs.field(validator=v.matches_re(r"[a-z]+"))
    code: str = attrs.field(validator=v.matches_re(r"[A-Z]{2}\d{3}", func=re.match))
    anywhere: str = attrs.field(validator=v.matches_re(r"\d", func=re.search))
    count: int = attrs.field(validator=[v.ge(0), v.lt(10)])
    ratio: float = attrs.field(validator=[v.gt(0.5), v.le(2.5)])
    name: str = attrs.field(validator=[v.min_len(1), v.max_len(5)])
    items: list[int] = attrs.field(validator=[v.min_len(1), v.max_len(3)])
    pick: str = attrs.field(validator=v.in_(["x", "y"]))
    maybe_slug: str | None = attrs.field(
        default=None, validator=v.optional(v.matches_re("[a-z]+"))
    )


@attrs.define
class Times:
    at: datetime.datetime
    day: datetime.date
    clock: datetime.time
    ident: uuid.UUID
    maybe_at: datetime.datetime | None = None


@attrs.define
class OneDateTime:
    v: datetime.datetime


@attrs.define
class OneDate:
    v: datetime.date


@attrs.define
class OneTime:
    v: datetime.time


@attrs.define
class OneUUID:
    v: uuid.UUID


class Perm(enum.Flag):
    READ = 1
    WRITE = 2
    EXEC = 4


class Spot(NamedTuple):
    lat: float
    lon: float = 0.0


class Extra(TypedDict):
    note: str
    rank: NotRequired[Annotated[int, at.Ge(1)]]


@dataclasses.dataclass
class MoreTypes:
    price: Annotated[decimal.Decimal, at.Ge(0)]
    perm: Perm
    spot: Spot
    extra: Extra
    count: Annotated[int, at.Interval(ge=0, lt=100), at.MultipleOf(5)]
    scale: dataclasses.InitVar[int]
    name: Annotated[str, at.Len(1, 8)] = "x"

    def __post_init__(self, scale: int) -> None:
        self.scale = scale


UTC = datetime.timezone.utc
PLUS2 = datetime.timezone(datetime.timedelta(hours=2))
NOW = datetime.datetime(2024, 5, 1, 12, 30, 15, 250000, tzinfo=UTC)


@attrs.frozen
class Case:
    id: str
    cls: Any
    instances: tuple[Any, ...]
    adapters: tuple[Adapter, ...] = tuple(STRICT)


CASES = [
    Case("recursion via #", TreeNode, (
        TreeNode(1),
        TreeNode(1, [TreeNode(2, [TreeNode(3)]), TreeNode(4)]),
    ), tuple(RECURSIVE_OK)),
    Case("recursion in $defs", Forest, (
        Forest("f", []),
        Forest("wood", [TreeNode(1, [TreeNode(2)]), TreeNode(3)]),
    ), tuple(RECURSIVE_OK)),
    Case("recursion through Optional", Thread, (
        Thread("hi"),
        Thread("a", Thread("b", Thread("c"))),
    ), tuple(RECURSIVE_OK)),
    Case("Optional enums and Literal const", Choices, (
        Choices(Color.RED, Level.HIGH, "fixed", "a"),
        Choices(None, None, "fixed", 1, "y"),
    )),
    Case("dict[str, T] as key/value arrays", Maps, (
        Maps({}, {}, {}),
        Maps({"a": 1, "": -2}, {"k": Caption("t", 3)}, {"x": {"y": [1, 2]}, "z": {}},
             {"p": Point(0.5, -1e300)}),
    )),
    Case("nested Optional objects as anyOf", Nested, (
        Nested(None, None, Point(1.0, 2.0), Point(0.0, 0.0)),
        Nested(Point(1.5, 2.5), Caption("c", None), Caption("s", 7), Point(-1.0, 1e-7),
               Caption("n"), [Point(3.0, 4.0)], frozenset({"a", "b"}), (1, 2, 3)),
    )),
    Case("anchored patterns and bounds", Bounded, (
        Bounded("abc", "AB123", "x1y", 0, 2.5, "a", [1], "x"),
        Bounded("z", "XY999 and more", "7", 9, 0.75, "abcde", [1, 2, 3], "y", "ok"),
    )),
    Case("Decimal, Flag, NamedTuple, TypedDict, InitVar, annotated-types", MoreTypes, (
        MoreTypes(decimal.Decimal("0"), Perm(0), Spot(0.0), {"note": ""}, 0, 1),
        MoreTypes(decimal.Decimal("12345678901234567890.123456789"), Perm.READ | Perm.EXEC,
                  Spot(-1.5, 2.0), {"note": "n", "rank": 3}, 95, -2, "abcdefgh"),
    )),
    Case("date-time, date, time, uuid formats", Times, (
        Times(NOW, datetime.date(1, 1, 1), datetime.time(0, 0, tzinfo=UTC),
              uuid.UUID(int=0)),
        Times(NOW.astimezone(PLUS2), datetime.date(9999, 12, 31),
              datetime.time(23, 59, 59, 999999, tzinfo=PLUS2),
              uuid.UUID("123e4567-e89b-12d3-a456-426614174000"), NOW),
    )),
]

TABLE = [
    pytest.param(case, adapter, refs, id=f"{case.id}-{adapter.name}-refs={refs}")
    for case in CASES
    for adapter in case.adapters
    for refs in (False, True)
]


@pytest.mark.parametrize(("case", "adapter", "use_references"), TABLE)
def test_table_bodies_compile_cleanly(case: Case, adapter: Adapter, use_references: bool) -> None:
    """Each tricky construct's strict body compiles in llguidance with no error or warning."""
    compiled_cleanly(body(case.cls, adapter, use_references), adapter)


@pytest.mark.parametrize("adapter", STRICT)
def test_date_time_replies_carry_an_offset_and_decode_aware(adapter: Adapter) -> None:
    """The strict grammars make a model write a UTC offset; the reply decodes aware.

    RFC 3339 (JSON Schema's ``date-time`` and ``time``) requires the offset, so a naive
    value has no reply a constrained model can write: the documented contract is that
    date-time and time fields hold aware values (docs/schemas.md).
    """
    for cls, naive, with_offset, aware in (
        (OneDateTime, '{"v":"2024-05-01T12:30:00"}', '{"v":"2024-05-01T12:30:00Z"}',
         datetime.datetime(2024, 5, 1, 12, 30, tzinfo=datetime.timezone.utc)),
        (OneTime, '{"v":"08:15:00"}', '{"v":"08:15:00+02:00"}',
         datetime.time(8, 15, tzinfo=datetime.timezone(datetime.timedelta(hours=2)))),
    ):
        grammar = compiled_cleanly(body(cls, adapter, False), adapter)
        assert not match(grammar, naive.encode()).accepted
        assert match(grammar, with_offset.encode()).accepted
        assert decode(cls, with_offset) == cls(aware)


@pytest.mark.parametrize(("case", "adapter", "use_references"), TABLE)
def test_table_replies_are_accepted_and_decode(
    case: Case, adapter: Adapter, use_references: bool
) -> None:
    """The reply a constrained model writes for each instance passes the grammar, decodes back."""
    schema_body = body(case.cls, adapter, use_references)
    for instance in case.instances:
        assert_round_trip(case.cls, instance, adapter, schema_body)


@attrs.define
class OneDecimal:
    v: decimal.Decimal


@pytest.mark.parametrize("adapter", STRICT)
def test_decimal_digits_are_held_by_the_grammar(adapter: Adapter) -> None:
    """A Decimal's pattern compiles: the grammar lets through plain digits and nothing else."""
    compiled = compiled_cleanly(body(OneDecimal, adapter, False), adapter)
    for good in (b'{"v":"12.50"}', b'{"v":"-0.001"}', b'{"v":"12345678901234567890.12345"}'):
        assert match(compiled, good).accepted, good
        assert decode(OneDecimal, good).v == decimal.Decimal(orjson.loads(good)["v"])
    for bad in (b'{"v":"1e3"}', b'{"v":12.5}', b'{"v":"01"}', b'{"v":"1."}', b'{"v":"NaN"}'):
        assert not match(compiled, bad).accepted, bad


@pytest.mark.parametrize("adapter", [ANTHROPIC, ANTHROPIC_TOOLS])
@pytest.mark.parametrize("cls", [TreeNode, Forest, Thread])
def test_anthropic_refuses_recursion_before_any_grammar(cls: Any, adapter: Adapter) -> None:
    """The recursive table rows leave out Anthropic because it raises SchemaError for them."""
    with pytest.raises(SchemaError, match="leads back to the schema that holds it"):
        schema(cls, adapter)


# -- bounds: the grammar enforces the ones the body keeps, decode() all of them ---------------

BOUND_KEYWORDS = {"pattern", "minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum",
                  "minLength", "maxLength", "minItems", "maxItems", "enum"}

def keywords_in(schema_part: Any) -> set[str]:
    """Every keyword used anywhere in a subschema (its anyOf options included)."""
    if isinstance(schema_part, dict):
        return set(schema_part).union(*(keywords_in(sub) for sub in schema_part.values()))
    if isinstance(schema_part, list):
        return set().union(*(keywords_in(sub) for sub in schema_part))
    return set()


VIOLATIONS = [
    ("slug", "ab1", "pattern"), ("slug", "", "pattern"), ("code", "A1234", "pattern"),
    ("anywhere", "abc", "pattern"), ("count", 10, "exclusiveMaximum"),
    ("count", -1, "minimum"), ("ratio", 0.5, "exclusiveMinimum"), ("ratio", 2.75, "maximum"),
    ("name", "", "minLength"), ("name", "toolong", "maxLength"), ("items", [], "minItems"),
    ("items", [1, 2, 3, 4], "maxItems"), ("pick", "z", "enum"), ("maybe_slug", "NO", "pattern"),
]


@pytest.mark.parametrize("adapter", STRICT)
@pytest.mark.parametrize(("key", "bad", "keyword"), VIOLATIONS)
def test_out_of_bounds_replies(adapter: Adapter, key: str, bad: Any, keyword: str) -> None:
    """A bound the body keeps is refused by the grammar; one only described, by decode()."""
    schema_body = body(Bounded, adapter, False)
    compiled = compiled_cleanly(schema_body, adapter)
    _, reply = shaped_reply(Bounded("abc", "AB123", "1", 1, 1.0, "ab", [1], "x"), schema_body)
    reply[key] = bad
    text = reply_text(reply)
    prop = schema_body["properties"][key]
    kept = keyword in keywords_in(prop)
    verdict = match(compiled, text)
    assert verdict.accepted != kept, (
        f"{adapter.name} keeps {keyword} on {key!r} yet the grammar accepted {text!r}"
        if kept else
        f"{adapter.name} has no {keyword} on {key!r} ({prop}), yet the grammar refused "
        f"{text!r}: {verdict.reason}"
    )
    with pytest.raises(DecodeError) as info:
        decode(Bounded, text)
    assert [path for path, _ in info.value.errors] == [f"$.{key}"]


# -- random class trees from tests/strategies.py ----------------------------------------------


@given(classes(more_types=True), st.sampled_from(STRICT), st.booleans())
def test_strict_bodies_compile_cleanly(
    cv: TypeAndValues, adapter: Adapter, use_references: bool
) -> None:
    """Every strict adapter's body for a random class tree compiles with no error or warning."""
    cls, _ = cv
    schema_body = drawn_body(cls, adapter, use_references)
    if schema_body is not None:
        compiled_cleanly(schema_body, adapter)


@settings(max_examples=60)
@given(st.data(), classes(more_types=True), st.sampled_from(STRICT), st.booleans())
def test_strict_replies_are_accepted_and_decode(
    data: st.DataObject, cv: TypeAndValues, adapter: Adapter, use_references: bool
) -> None:
    """The strict-shaped reply for a random instance passes the grammar and decodes back."""
    cls, instances = cv
    schema_body = drawn_body(cls, adapter, use_references)
    if schema_body is not None:
        assert_round_trip(cls, data.draw(instances), adapter, schema_body)


REPLACEMENTS: list[Any] = [True, 12345, 1.5, "text", [], {}, None]


def without_unique_items(schema_part: Any) -> Any:
    """A copy of a schema without ``uniqueItems`` (which lenient compiling ignores)."""
    if isinstance(schema_part, dict):
        return {k: without_unique_items(v) for k, v in schema_part.items() if k != "uniqueItems"}
    if isinstance(schema_part, list):
        return [without_unique_items(v) for v in schema_part]
    return schema_part


def _at(doc: Any, path: tuple[Any, ...]) -> Any:
    for part in path:
        doc = doc[part]
    return doc


def _mutations(shaper: Shaper, reply: Any) -> list[tuple[str, tuple[Any, ...], Any]]:
    """Every (kind, path, argument) break the reply can take where the shaper placed things."""
    out: list[tuple[str, tuple[Any, ...], Any]] = []
    for loc in shaper.objects:
        if loc.schema.get("additionalProperties") is False:
            out.append(("extra key", loc.path, "unexpected_key"))
        out.extend(("missing key", loc.path, key) for key in loc.schema.get("required", ()))
    out.extend(("wrong type", loc.path, None) for loc in shaper.values)
    return out


def _break(
    reply: Any, kind: str, path: tuple[Any, ...], arg: Any, valid: Callable[[Any], bool]
) -> Any:
    """A copy of ``reply`` broken as told; for a wrong type, the first JSON kind that is invalid."""
    if kind == "wrong type":
        current = kind_of(_at(reply, path))
        for replacement in REPLACEMENTS:
            if kind_of(replacement) == current:
                continue
            broken = orjson.loads(orjson.dumps(reply))
            if not path:
                broken = replacement
            else:
                _at(broken, path[:-1])[path[-1]] = replacement
            if not valid(broken):
                return broken
        raise AssertionError(f"no wrong type breaks {path} in {reply!r}")
    broken = orjson.loads(orjson.dumps(reply))
    target = _at(broken, path)
    if kind == "extra key":
        target[arg] = 1
    else:
        del target[arg]
    assert not valid(broken), f"{kind} {arg!r} at {path} left the reply valid"
    return broken


@settings(max_examples=60)
@given(st.data(), classes(more_types=True), st.sampled_from([*STRICT, STANDARD]), st.booleans())
def test_broken_replies_are_refused(
    data: st.DataObject, cv: TypeAndValues, adapter: Adapter, use_references: bool
) -> None:
    """A reply with a wrong type, a missing required key or an extra key fails the grammar."""
    cls, instances = cv
    schema_body = drawn_body(cls, adapter, use_references)
    if schema_body is None:
        return
    if adapter is STANDARD:
        compiled = compile_body(schema_body, lenient=True)
        assert not compiled.error, compiled.messages
        assert only_unique_items(compiled), compiled.messages
    else:
        compiled = compiled_cleanly(schema_body, adapter)
    shaper, reply = shaped_reply(data.draw(instances), schema_body)
    kind, path, arg = data.draw(st.sampled_from(_mutations(shaper, reply)))
    # The oracle is JSON Schema itself, less the one keyword the grammar cannot enforce.
    validator = jsonschema.Draft202012Validator(without_unique_items(schema_body))
    broken = _break(reply, kind, path, arg, validator.is_valid)
    text = reply_text(broken)
    assert not match(compiled, text).accepted, f"{adapter.name} grammar accepted {kind}: {text!r}"


# -- STANDARD: plain JSON Schema, encode()'s own text -------------------------------------------


@settings(max_examples=60)
@given(st.data(), classes(more_types=True), st.booleans())
def test_standard_accepts_encode_output(
    data: st.DataObject, cv: TypeAndValues, use_references: bool
) -> None:
    """STANDARD bodies draw no diagnostic but uniqueItems, and accept encode()'s exact text."""
    cls, instances = cv
    instance = data.draw(instances)
    schema_body = body(cls, STANDARD, use_references)
    strict_compile = compile_body(schema_body)
    if b"uniqueItems" in orjson.dumps(schema_body):
        assert strict_compile.error, "llguidance took uniqueItems without lenient mode"
        assert only_unique_items(strict_compile), strict_compile.messages
    else:
        assert strict_compile.clean, strict_compile.messages
    compiled = compile_body(schema_body, lenient=True)
    assert not compiled.error, compiled.messages
    assert only_unique_items(compiled), compiled.messages
    encoded = encode(instance)
    _, reply = shaped_reply(instance, schema_body)
    if type(instance) is dict:
        # A TypedDict's value is a plain dict: encode() has no type to order its nested
        # keys by, and writes the dict's own order (the same value).
        assert orjson.loads(encoded) == reply
    else:
        assert orjson.dumps(reply) == encoded, "encode() writes keys out of the schema's order"
    text = reply_text(reply)
    verdict = match(compiled, text)
    assert verdict.accepted, f"STANDARD grammar refused {text!r}: {verdict.reason}"
    assert decode(cls, text) == instance


def test_a_raw_del_must_be_escaped() -> None:
    """llguidance refuses a raw DEL in a string (JSON allows it), so replies escape it."""
    compiled = compiled_cleanly(body(Caption, OPENAI, False), OPENAI)
    raw = encode(Caption("a\x7fb", 1))
    assert b"\x7f" in raw
    assert not match(compiled, raw).accepted
    escaped = reply_text(orjson.loads(raw))
    assert match(compiled, escaped).accepted
    assert decode(Caption, escaped) == decode(Caption, raw) == Caption("a\x7fb", 1)


# -- every string a format's grammar allows decodes ------------------------------------------


FORMAT_TYPES = {OneDateTime: datetime.datetime, OneDate: datetime.date, OneTime: datetime.time,
                OneUUID: uuid.UUID}

_RFC3339 = re.compile(
    r"(?:(?P<year>\d{4})-(?P<month>\d\d)-(?P<day>\d\d))?[Tt]?"
    r"(?:\d\d:\d\d:(?P<second>\d\d))?", re.ASCII
)


def unrepresentable(text: str) -> str | None:
    """Why Python's datetime cannot hold an RFC 3339 value the grammar allows, if it cannot."""
    found = _RFC3339.match(text)
    assert found is not None
    year, month, day, second = found.group("year", "month", "day", "second")
    if second == "60":
        return "a leap second"
    if year is not None:
        if int(year) == 0:
            return "year 0"
        try:
            datetime.date(int(year), int(month), int(day))
        except ValueError:
            return "a day the month does not have"
    return None


def assert_decodes_or_says_why(cls: Any, text: bytes) -> None:
    """``text`` decodes into ``cls``, or (for values datetime cannot hold) fails on ``$.v``."""
    value = orjson.loads(text)["v"]
    reason = unrepresentable(value) if cls is not OneUUID else None
    if reason is None:
        decoded = decode(cls, text).v
        assert type(decoded) is FORMAT_TYPES[cls]
        if cls is OneUUID:
            assert decoded == uuid.UUID(value)
        elif cls is OneTime:
            assert (decoded.hour, decoded.minute) == (int(value[:2]), int(value[3:5]))
        else:
            assert (decoded.year, decoded.month, decoded.day) == tuple(
                int(part) for part in (value[:4], value[5:7], value[8:10])
            )
    else:
        # Python's datetime has no leap seconds, no year 0 and no 29 February 2023: the
        # grammar (RFC 3339 syntax) allows them, so decode() has to refuse them cleanly.
        with pytest.raises(DecodeError) as info:
            decode(cls, text)
        assert [path for path, _ in info.value.errors] == ["$.v"], reason


@pytest.mark.parametrize("cls", [OneDateTime, OneDate, OneTime, OneUUID])
@settings(max_examples=50)
@given(data=st.data())
def test_grammar_allowed_format_strings_decode(cls: Any, data: st.DataObject) -> None:
    """Any date/time/UUID text the strict grammar lets a model write decodes (or names why not)."""
    schema_body = body(cls, OPENAI, False)
    compiled_cleanly(schema_body, OPENAI)
    text = data.draw(sample(compile_body(schema_body, compact=True)))
    assert_decodes_or_says_why(cls, text)


FORMAT_REPLIES = [
    (OneDateTime, "2024-05-01t12:30:00z"),
    (OneDateTime, "2024-05-01T12:30:00.1Z"),
    (OneDateTime, "2024-05-01T12:30:00.1234567891+05:30"),
    (OneDateTime, "2024-05-01T12:30:00-00:00"),
    (OneDateTime, "2016-12-31T23:59:60Z"),
    (OneDateTime, "0000-01-01T00:00:00Z"),
    (OneDateTime, "2023-02-29T00:00:00Z"),
    (OneDate, "2024-02-29"),
    (OneDate, "2023-02-29"),
    (OneDate, "0000-12-31"),
    (OneTime, "12:30:00z"),
    (OneTime, "12:30:00.5+23:59"),
    (OneTime, "23:59:60Z"),
    (OneUUID, "123E4567-E89B-12D3-A456-426614174000"),
]


@pytest.mark.parametrize(("cls", "value"), FORMAT_REPLIES)
def test_edge_format_replies(cls: Any, value: str) -> None:
    """Edge spellings RFC 3339 allows pass the grammar and decode, or fail cleanly on ``$.v``."""
    text = orjson.dumps({"v": value})
    verdict = match(compiled_cleanly(body(cls, OPENAI, False), OPENAI), text)
    assert verdict.accepted, verdict.reason
    assert_decodes_or_says_why(cls, text)


def test_standard_bodies_compile_without_sets() -> None:
    """STANDARD bodies compile cleanly too; only uniqueItems (sets) is left to lenient mode."""

    @attrs.define
    class Mixed:
        pair: tuple[int, str]
        scores: dict[str, float]
        keyed: dict[Literal["k1", "k2"], int]
        tag: Literal["x"]
        note: str | None = None
        count: int = 3

    from describedtypes import GEMINI, MCP_TOOLS

    bodies = [
        schema(Mixed),
        schema(Mixed, GEMINI)["parameters_json_schema"],
        schema(Mixed, MCP_TOOLS)["inputSchema"],
    ]
    for schema_body in bodies:
        compiled = compile_body(schema_body)
        assert compiled.clean, compiled.messages
        reply = b'{"pair":[1,"a"],"scores":{"z":1.5},"keyed":{"k2":4},"tag":"x"}'
        assert match(compiled, reply).accepted
        unknown_key = b'{"pair":[1,"a"],"scores":{},"keyed":{"k9":4},"tag":"x"}'
        assert not match(compiled, unknown_key).accepted
    assert decode(Mixed, reply) == Mixed((1, "a"), {"z": 1.5}, {"k2": 4}, "x")

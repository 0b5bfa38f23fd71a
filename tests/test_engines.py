"""The self-hosted adapters against the grammar engines their servers run, offline.

For random class trees (tests/strategies.py), under each adapter whose backend names the
engine: the body compiles in that engine and our own rules find nothing in it; every
valid value, written in the adapter's shape (``make_converter(adapter).unstructure``,
since strict bodies require every field) and spelled as the engine's grammar takes JSON,
is accepted and decodes back; and documents the engine generates by a random walk over
its own token mask decode, or fail only on what the body says in words (the decoder
enforces it) or what no engine holds (the calendar). An engine bug the adapter cannot
route around is asserted as such (it still holds), never skipped.

llguidance and outlines-core install from PyPI with the test extra; xgrammar imports
torch, which .ci/run installs from a CPU wheel: without it those tests skip, saying so.
llama.cpp's converter and matcher are C++ with no wheel that exposes them:
tests/llama_support.py builds them (no model) from the llama-cpp-python sdist once per
machine, and those tests skip, saying why, where that cannot be done.
"""

from __future__ import annotations

import collections
import datetime
import importlib.util
import random
import re
import uuid
from typing import Annotated, Any, TypedDict

import annotated_types as at
import attrs
import jsonschema
import orjson
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from describedtypes import (
    LLAMACPP,
    LLAMACPP_TOOLS,
    OLLAMA,
    OLLAMA_TOOLS,
    SGLANG,
    SGLANG_TOOLS,
    VLLM,
    VLLM_TOOLS,
    Adapter,
    DecodeError,
    SchemaError,
    check,
    decode,
    explain,
    make_converter,
    schema,
)
from describedtypes._schema.document import document
from describedtypes._schema.engines import (
    DATE_PATTERN,
    DATE_TIME_PATTERN,
    LLAMA_CPP,
    LLAMA_CPP_OLLAMA,
    LLGUIDANCE,
    OUTLINES_CORE,
    TIME_PATTERN,
)
from describedtypes._schema.engines import XGRAMMAR as XGRAMMAR_ENGINE
from describedtypes._schema.patterns import pattern_features, python_classes, rewrite_shorthands

from .engine_support import WALK_BUGS, Unspellable, allowed_errors, harness, xgrammar_precheck
from .strategies import TypeAndValues, classes

GUIDANCE = [VLLM.replace(backend="guidance"), VLLM_TOOLS.replace(backend="guidance"),
            SGLANG.replace(backend="llguidance"), SGLANG_TOOLS.replace(backend="llguidance")]
XGRAMMAR = [VLLM, VLLM_TOOLS, SGLANG, SGLANG_TOOLS]
OUTLINES = [VLLM.replace(backend="outlines"), SGLANG_TOOLS.replace(backend="outlines")]


def _importable(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def _xgrammar_missing() -> str | None:
    if not _importable("xgrammar"):
        return "xgrammar is not installed (.ci/run installs it with a CPU torch)"
    if not (_importable("torch") and _importable("transformers")):
        return ("xgrammar imports torch and transformers, which are not installed "
                "(.ci/run installs torch==2.13.0 from a CPU wheel, then transformers)")
    return None


needs_xgrammar = pytest.mark.skipif(_xgrammar_missing() is not None,
                                    reason=_xgrammar_missing() or "")
needs_outlines = pytest.mark.skipif(not _importable("outlines_core"),
                                    reason="outlines-core is not installed (the [test] extra "
                                    "installs it)")


# A walk draws one choice per byte: its smallest example is large by nature.
_WALKS = [HealthCheck.large_base_example, HealthCheck.data_too_large, HealthCheck.too_slow]


#: What the runs of this session verified, per engine (printed by research scripts).
COUNTS: collections.Counter[str] = collections.Counter()


def _note(text: str) -> None:
    COUNTS[text] += 1
    event(text)


def body_of(cls: Any, adapter: Adapter, use_references: bool) -> dict[str, Any]:
    """The schema body inside the adapter's output, after our own rules found nothing."""
    wrapped = schema(cls, adapter, use_references=use_references)
    assert check(wrapped, adapter) == [], check(wrapped, adapter)
    return dict(document(wrapped, adapter).body)


def verify(engine_name: str, adapter: Adapter, cv: TypeAndValues, use_references: bool,
           data: st.DataObject, values: int, walks: int) -> None:
    """The three checks on one random class tree (see the module docstring)."""
    cls, instances = cv
    engine = harness(engine_name)
    body = body_of(cls, adapter, use_references)
    if engine_name == "xgrammar":
        assert xgrammar_precheck(body) == [], (xgrammar_precheck(body), body)
    compiled = engine.compile(body)
    _note(f"{engine_name}: body compiled")
    unstructure = make_converter(adapter).unstructure
    for _ in range(values):
        instance = data.draw(instances)
        value = unstructure(instance, cls)
        try:
            text = engine.spell(value)
        except Unspellable:
            # outlines-core's strings take no \uXXXX escape: the value has no spelling.
            raw = orjson.dumps(value)
            assert engine.accepts(compiled, raw) is not None, (
                f"{engine_name} took {raw!r}: the documented string limit no longer holds"
            )
            _note(f"{engine_name}: value with no spelling, refused as documented")
            continue
        why = engine.accepts(compiled, text)
        assert why is None, f"{engine_name} refused a valid value {text!r}: {why}\n{body}"
        assert decode(cls, text) == instance
        _note(f"{engine_name}: value accepted")
    if walks:
        compact = engine.compile(body, compact=True)
        allowed = allowed_errors(explain(cls, adapter, use_references=use_references))
        for _ in range(walks):
            text = engine.walk(compact, random.Random(data.draw(st.integers(0, 2**32))))
            try:
                decode(cls, text)
            except DecodeError as exc:
                bug = WALK_BUGS.get(engine_name)
                if bug is not None and bug[0].search(text) and any(
                    bug[1].search(message) for _, message in exc.errors
                ):
                    _note(f"{engine_name}: walk met the engine's documented string bug")
                    continue
                for path, message in exc.errors:
                    assert any(p.search(message) for p in allowed), (
                        f"{engine_name} wrote {text!r}, which fails at {path}: {message}; "
                        f"that constraint should be held by the grammar\nbody: {body}"
                    )
                _note(f"{engine_name}: walk refused for a described constraint")
            else:
                _note(f"{engine_name}: walk decoded")


@settings(max_examples=150, suppress_health_check=_WALKS)
@given(st.data(), classes(more_types=True), st.sampled_from(GUIDANCE), st.booleans())
def test_guidance_bodies(data: st.DataObject, cv: TypeAndValues, adapter: Adapter,
                         use_references: bool) -> None:
    """llguidance compiles every body, takes every valid value, and its walks decode."""
    verify("llguidance", adapter, cv, use_references, data, values=3, walks=2)


@needs_xgrammar
@settings(max_examples=100, suppress_health_check=_WALKS)
@given(st.data(), classes(more_types=True), st.sampled_from(XGRAMMAR), st.booleans())
def test_xgrammar_bodies(data: st.DataObject, cv: TypeAndValues, adapter: Adapter,
                         use_references: bool) -> None:
    """xgrammar compiles every body, takes every valid value, and its walks decode."""
    verify("xgrammar", adapter, cv, use_references, data, values=3, walks=2)


@needs_outlines
@settings(max_examples=60, suppress_health_check=_WALKS)
@given(st.data(), classes(more_types=True), st.sampled_from(OUTLINES), st.booleans())
def test_outlines_bodies(data: st.DataObject, cv: TypeAndValues, adapter: Adapter,
                         use_references: bool) -> None:
    """outlines-core compiles every body, takes every valid value, and its walks decode."""
    verify("outlines-core", adapter, cv, use_references, data, values=3, walks=2)


# -- the table, keyword by keyword: what the body keeps, the engine holds ---------------------


@attrs.define
class Kept:
    """One field per constraint kind the builder may keep or describe."""

    small: Annotated[int, at.Ge(3), at.Le(9)]
    step: Annotated[int, at.MultipleOf(3)]
    ratio: Annotated[float, at.Ge(0.5)]
    name: Annotated[str, at.Len(2, 3)]
    slug: str = attrs.field(validator=attrs.validators.matches_re(r"[a-z]+"))
    digits: str = attrs.field(validator=attrs.validators.matches_re(r"\d{2}"))
    few: Annotated[list[int], at.Len(1, 2)] = attrs.field(factory=lambda: [1])
    day: datetime.date = datetime.date(2024, 2, 29)
    at: datetime.datetime = datetime.datetime(2024, 5, 1, 12, 30, tzinfo=datetime.timezone.utc)
    ident: uuid.UUID = attrs.field(factory=lambda: uuid.UUID(int=1))
    pair: tuple[int, str] = (1, "x")


GOOD = Kept(5, 6, 0.75, "abc", "ok", "42")
#: (field, a value breaking it, the keyword that holds it when kept).
BREAKS = [
    ("small", 10, "maximum"), ("small", 2, "minimum"), ("step", 4, "multipleOf"),
    ("ratio", 0.25, "minimum"), ("name", "abcd", "maxLength"), ("name", "a", "minLength"),
    ("slug", "A", "pattern"), ("digits", "1a", "pattern"),
    ("few", [1, 2, 3], "maxItems"), ("few", [], "minItems"),
    ("day", "2024-13-01", "format"), ("day", "၆２۱๔-06-12", "format"),
    ("at", "2024-05-01T25:30:00Z", "format"), ("ident", "not-a-uuid", "format"),
    ("pair", [1, "x", 2], "prefixItems"),
]
ENGINE_ADAPTERS = [
    pytest.param("llguidance", GUIDANCE[0], id="guidance"),
    pytest.param("xgrammar", XGRAMMAR[0], id="xgrammar", marks=needs_xgrammar),
    pytest.param("outlines-core", OUTLINES[0], id="outlines", marks=needs_outlines),
]


def holds(prop: dict[str, Any], keyword: str) -> bool:
    """The property keeps what ``keyword`` stands for (a format may be sent as a pattern)."""
    if keyword == "format":
        return "format" in prop or "pattern" in prop
    return keyword in prop


@pytest.mark.parametrize(("engine_name", "adapter"), ENGINE_ADAPTERS)
def test_what_the_body_keeps_the_engine_holds(engine_name: str, adapter: Adapter) -> None:
    """Each break of a kept keyword is refused by the engine; each break decode() refuses."""
    engine = harness(engine_name)
    body = body_of(Kept, adapter, False)
    compiled = engine.compile(body)
    good = make_converter(adapter).unstructure(GOOD)
    assert engine.accepts(compiled, engine.spell(good)) is None
    kept = 0
    for key, bad, keyword in BREAKS:
        reply = dict(good, **{key: bad})
        text = engine.spell(reply)
        with pytest.raises(DecodeError):
            decode(Kept, text)
        if holds(body["properties"][key], keyword):
            kept += 1
            assert engine.accepts(compiled, text) is not None, (
                f"{adapter.name} keeps {keyword} on {key} but {engine_name} took {text!r}"
            )
        else:  # said in words: the description carries it
            assert "description" in body["properties"][key], (key, body["properties"][key])
    assert kept >= 8


def _bug_body(schema_part: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": {"v": schema_part}, "required": ["v"],
            "additionalProperties": False}


#: Engine bugs the tables route around: (engine, schema, reply text, whether that text is
#: valid, what the adapter does instead). Each bug refuses a valid text or takes an
#: invalid one; if that stops, the table row can change, and the test says which.
BUGS = [
    ("xgrammar", {"type": "string", "maxLength": 5}, '"a\\nb"', True,
     "lengths are described under xgrammar"),
    ("xgrammar", {"type": "number", "minimum": 0}, "5e0", True,
     "number bounds are described under xgrammar"),
    ("xgrammar", {"type": "string", "pattern": "^(?:0|9)(?:\\.[0-9]+)?$"}, '"99"', False,
     "optional groups are sent as {0,1} under xgrammar"),
    ("llguidance", {"type": "number", "minimum": 0}, "5e0", True,
     "number bounds are described under llguidance"),
    ("outlines-core", {"type": "string", "format": "date-time"},
     '"2024-01-01T00:00:00+00:00"', True, "outlines-core gets DATE_TIME_PATTERN"),
    ("outlines-core", {"type": "string", "format": "time"}, '"12:00:00.5Z"', True,
     "outlines-core gets TIME_PATTERN"),
    ("outlines-core", {"type": "string", "format": "date"}, '"၆２۱๔-06-12"', False,
     "outlines-core gets DATE_PATTERN"),
    ("outlines-core", {"type": "integer", "maximum": 3}, "7", False,
     "integer bounds are described under outlines-core"),
]


@pytest.mark.parametrize(("engine_name", "part", "text", "valid", "instead"), [
    pytest.param(*bug, marks=[needs_xgrammar] if bug[0] == "xgrammar" else
                 [needs_outlines] if bug[0] == "outlines-core" else [],
                 id=f"{bug[0]}-{bug[4]}") for bug in BUGS
])
def test_engine_bugs_still_hold(engine_name: str, part: dict[str, Any], text: str,
                                valid: bool, instead: str) -> None:
    """Each bug the adapters route around is still there in the installed engine."""
    engine = harness(engine_name)
    compiled = engine.compile(_bug_body(part))
    reply = ('{"v":' + text + "}").encode()
    verdict = engine.accepts(compiled, reply)
    if valid:
        assert verdict is not None, f"{engine_name} now takes {reply!r}; revisit: {instead}"
    else:
        assert verdict is None, f"{engine_name} now refuses {reply!r}; revisit: {instead}"


@needs_xgrammar
def test_the_xgrammar_pattern_workaround_holds() -> None:
    """An optional group spelled {0,1} is read right by xgrammar."""
    engine = harness("xgrammar")
    sent, _ = XGRAMMAR_ENGINE.dialect.fit("^(?:0|9)(?:\\.[0-9]+)?$")
    assert sent == "^(?:0|9)(?:\\.[0-9]+){0,1}$"
    compiled = engine.compile(_bug_body({"type": "string", "pattern": sent}))
    assert engine.accepts(compiled, b'{"v":"99"}') is not None
    assert engine.accepts(compiled, b'{"v":"9.5"}') is None


@needs_outlines
@pytest.mark.parametrize(("pattern", "good", "bad"), [
    (DATE_PATTERN, "2024-06-12", "၆２۱๔-06-12"),
    (DATE_TIME_PATTERN, "2024-01-01T00:00:00.123456+00:00", "2024-01-01T00:00:00"),
    (TIME_PATTERN, "12:00:00.5Z", "12:00:00"),
])
def test_the_outlines_format_patterns_hold(pattern: str, good: str, bad: str) -> None:
    """The patterns sent for formats under outlines-core take what its own regexes refuse."""
    engine = harness("outlines-core")
    compiled = engine.compile(_bug_body({"type": "string", "pattern": pattern}))
    assert engine.accepts(compiled, f'{{"v":"{good}"}}'.encode()) is None
    assert engine.accepts(compiled, f'{{"v":"{bad}"}}'.encode()) is not None


@pytest.mark.parametrize("pattern", [DATE_TIME_PATTERN, TIME_PATTERN, DATE_PATTERN])
def test_format_patterns_are_in_every_dialect(pattern: str) -> None:
    """The patterns sent for formats are anchored, with no escape any engine lacks."""
    assert pattern_features(pattern) == frozenset()
    for engine in (XGRAMMAR_ENGINE, LLGUIDANCE, OUTLINES_CORE, LLAMA_CPP, LLAMA_CPP_OLLAMA):
        assert engine.dialect.fit(pattern) == (pattern, "")


# -- adapters as data -------------------------------------------------------------------------


@pytest.mark.parametrize("adapter", XGRAMMAR)
def test_xgrammar_bodies_pass_the_servers_own_checks(adapter: Adapter) -> None:
    """vLLM would otherwise fall back to guidance (or answer 400), SGLang answer 400."""
    assert xgrammar_precheck(body_of(Kept, adapter, False)) == []
    assert xgrammar_precheck({"type": "integer", "multipleOf": 3}) == ["/multipleOf"]


def test_backends_are_chosen_by_the_servers_names() -> None:
    assert VLLM.backend == "xgrammar"
    assert VLLM.engine is not None
    assert VLLM.replace(backend="guidance").engine.name == "llguidance"  # type: ignore[union-attr]
    assert SGLANG.replace(backend="llguidance").engine.name == "llguidance"  # type: ignore[union-attr]
    assert VLLM.replace(backend="outlines").backend == "outlines"
    with pytest.raises(ValueError, match="'xgrammar', 'guidance', 'outlines'"):
        VLLM.replace(backend="llguidance")
    with pytest.raises(ValueError, match="'xgrammar', 'llguidance', 'outlines'"):
        SGLANG_TOOLS.replace(backend="guidance")
    with pytest.raises(ValueError, match=r"'llama\.cpp'"):
        OLLAMA.replace(backend="xgrammar")


@attrs.define
class Weather:
    """The weather somewhere."""

    city: str
    degrees: Annotated[float, at.Ge(-90)]
    note: str | None = None


def test_tool_shapes() -> None:
    """vLLM and SGLang tools say strict: true; llama.cpp and Ollama tools have no flag."""
    for adapter in (VLLM_TOOLS, SGLANG_TOOLS):
        tool = schema(Weather, adapter)
        assert tool["type"] == "function"
        assert tool["function"]["strict"] is True
        assert tool["function"]["name"] == "Weather"
        assert tool["function"]["parameters"]["required"] == ["city", "degrees", "note"]
    for adapter in (LLAMACPP_TOOLS, OLLAMA_TOOLS):
        tool = schema(Weather, adapter)
        assert "strict" not in tool["function"]
        assert tool["function"]["description"] == "The weather somewhere."
    for adapter in (VLLM, SGLANG, LLAMACPP, OLLAMA):
        wrapped = schema(Weather, adapter)
        assert wrapped["strict"] is True
        assert wrapped["schema"]["type"] == "object"


def test_a_bound_moves_into_the_description_and_explain_says_why() -> None:
    wrapped = schema(Weather, VLLM)
    degrees = wrapped["schema"]["properties"]["degrees"]
    assert "minimum" not in degrees
    assert degrees["description"] == "Must be at least -90."
    (rewrite,) = [r for r in explain(Weather, VLLM) if r.pointer == "/properties/degrees"]
    assert rewrite.action == "described"
    assert "exponents" in rewrite.detail
    with pytest.raises(DecodeError, match="must be at least -90"):
        decode(Weather, '{"city": "x", "degrees": -100, "note": null}')


#: (number text, whether decode() takes it under multipleOf 0.5, whether llguidance does).
NUMBER_MULTIPLES = [
    ("1.5", True, True), ("-3", True, True), ("10000000000000000.5", True, True),
    ("0.3", False, False), ("1.25", False, False), ("0.30000000000000004", False, False),
    # Valid multiples llguidance refuses: an exponent, a trailing fraction zero.
    ("5e-1", True, False), ("1e16", True, False), ("0.50", True, False),
]


def test_llguidance_holds_multiple_of_on_a_number_but_refuses_valid_spellings() -> None:
    """llguidance 1.9 holds multipleOf on a number with decimal arithmetic, as decode()
    does (0.3 is a multiple of 0.1), but refuses valid multiples written with an exponent
    or a trailing fraction zero, as it does under number bounds: the table calls it
    over-strict (not "not held"), and the body describes it, as explain() says."""
    engine = harness("llguidance")
    tp = Annotated[float, at.MultipleOf(0.5)]
    compiled = engine.compile({"type": "number", "multipleOf": 0.5})
    for text, valid, taken in NUMBER_MULTIPLES:
        try:
            decode(tp, text)
        except DecodeError:
            assert not valid, text
        else:
            assert valid, text
        assert (engine.accepts(compiled, text.encode()) is None) is taken, text
    tenth = engine.compile({"type": "number", "multipleOf": 0.1})
    assert engine.accepts(tenth, b"0.3") is None
    assert decode(Annotated[float, at.MultipleOf(0.1)], "0.3") == 0.3

    adapter = GUIDANCE[0]
    support = adapter.profile.keyword("multipleOf", "number")
    assert support.status == "over-strict", support
    assert "exponents" in support.detail
    assert LLGUIDANCE.keeps("multipleOf", "number", patterned=False, bounded=False) \
        == support.detail
    assert adapter.profile.keyword("multipleOf", "integer").status == "enforced"
    body = schema(tp, adapter)["schema"]
    assert "multipleOf" not in body
    assert body["description"] == "Must be a multiple of 0.5."
    (rewrite,) = explain(tp, adapter)
    assert rewrite.action == "described"
    assert "exponents" in rewrite.detail


@attrs.define
class Node:
    value: int
    next: Node | None = None


def test_recursion_under_outlines_is_a_schema_error() -> None:
    """outlines-core unrolls recursion 3 levels deep: the type cannot be held there."""
    assert schema(Node, VLLM)["schema"]["properties"]["next"]
    with pytest.raises(SchemaError, match=r"unrolls only 3 levels.*backend=\"xgrammar\""):
        schema(Node, VLLM.replace(backend="outlines"))


@attrs.define
class Loose:
    value: Any


@needs_outlines
def test_any_under_outlines_is_a_schema_error() -> None:
    """outlines-core compiles {} to a grammar that takes no value: Any cannot be sent."""
    engine = harness("outlines-core")
    compiled = engine.compile(_bug_body({}))
    assert engine.accepts(compiled, b'{"v":1}') is not None
    with pytest.raises(SchemaError, match=r"takes no value.*backend=\"xgrammar\""):
        schema(Loose, VLLM.replace(backend="outlines"))
    problems = check(_bug_body({}), VLLM.replace(backend="outlines"))
    assert [p.pointer for p in problems] == ["/properties/v"]
    assert engine.name == "outlines-core"


def test_any_is_sent_as_any_value_elsewhere() -> None:
    assert schema(Loose, VLLM)["schema"]["properties"]["value"] == {}
    assert check(schema(Loose, LLAMACPP), LLAMACPP) == []


HAND_WRITTEN = {
    "type": "object",
    "properties": {
        "a": {"type": "number", "minimum": 0},
        "b": {"type": "string", "maxLength": 3, "pattern": "^[a-z]+$"},
        "c": {"type": "array", "items": {"type": "integer"}, "uniqueItems": True},
        "d": {"type": "string", "format": "hostname"},
        "e": {"type": "string", "pattern": "(?=x)x"},
        "f": {"oneOf": [{"type": "integer"}, {"type": "string"}]},
        "g": {"type": "string", "pattern": "^\\d+$"},
        "h": {"type": "array", "prefixItems": [{"type": "integer"}], "items": False},
    },
    "required": ["a", "b", "c", "d", "e", "f", "g", "h"],
}


@pytest.mark.parametrize(("adapter", "expected"), [
    (VLLM, {"/properties/a/minimum", "/properties/b/maxLength", "/properties/c/uniqueItems",
            "/properties/e/pattern", "/properties/f/oneOf"}),
    (VLLM.replace(backend="guidance"), {
        "", "/properties/a/minimum", "/properties/c/uniqueItems", "/properties/e/pattern",
        "/properties/f/oneOf"}),
    (LLAMACPP, {"/properties/a/minimum", "/properties/b/maxLength", "/properties/c/uniqueItems",
                "/properties/d/format", "/properties/e/pattern", "/properties/f/oneOf",
                "/properties/g/pattern", "/properties/h/items"}),
])
def test_check_reports_what_the_engine_would_not_hold(adapter: Adapter,
                                                      expected: set[str]) -> None:
    """check() names each keyword the engine ignores, rejects or reads otherwise."""
    problems = check(HAND_WRITTEN, adapter)
    found = {p.pointer for p in problems}
    assert expected <= found, (expected - found, [str(p) for p in problems])
    for p in problems:
        assert p.rule.startswith("engine"), str(p)
        assert ";" in p.message, str(p)  # what is wrong; how to fix it


# -- patterns an engine refuses to compile go into the description ---------------------------

#: Patterns Python reads (so decode() holds them) that Rust's regex crate, under
#: llguidance and outlines-core, refuses: \b and \B are lookarounds there, \b in a class an
#: invalid escape, \0 a backreference.
RUST_REFUSED = [r"^\bcat\b$", r"^a\Bb$", r"^[a\b]+$", r"^a\0$"]
RUST_ENGINES = [
    pytest.param("llguidance", GUIDANCE[0], id="guidance"),
    pytest.param("llguidance", SGLANG.replace(backend="llguidance"), id="sglang-llguidance"),
    pytest.param("outlines-core", OUTLINES[0], id="outlines", marks=needs_outlines),
]


@pytest.mark.parametrize(("engine_name", "adapter"), RUST_ENGINES)
@pytest.mark.parametrize("pattern", RUST_REFUSED)
def test_patterns_the_engine_cannot_compile_are_described(engine_name: str, adapter: Adapter,
                                                          pattern: str) -> None:
    """The body compiles in the engine itself; the pattern is said in words and decoded."""
    engine = harness(engine_name)
    bare = _bug_body({"type": "string", "pattern": pattern})
    with pytest.raises(Exception):  # noqa: B017, PT011 - the engine's own error types
        engine.compile(bare)
    problems = check(bare, adapter)
    assert [p.rule for p in problems if p.pointer == "/properties/v/pattern"] == ["engine.pattern"]

    cls = attrs.make_class("Tagged", {"v": attrs.field(
        type=str, validator=attrs.validators.matches_re(pattern))})
    body = body_of(cls, adapter, False)
    assert "pattern" not in body["properties"]["v"]
    assert pattern in body["properties"]["v"]["description"]
    engine.compile(body)
    with pytest.raises(DecodeError, match="match"):
        decode(cls, '{"v": "a b"}')


# -- llama.cpp's own converter (tests/llama_support.py builds it) -----------------------------

LLAMA_ADAPTERS = [LLAMACPP, LLAMACPP_TOOLS, OLLAMA, OLLAMA_TOOLS]


@pytest.fixture(scope="session")
def llama() -> Any:
    """llama.cpp's converter and matcher; skips, saying why, where it cannot be built."""
    from .llama_support import LlamaCpp, probe_missing

    why = probe_missing()
    if why is not None:
        pytest.skip(why)
    engine = harness("llama.cpp")
    assert isinstance(engine, LlamaCpp)
    yield engine
    engine.close()


@settings(max_examples=40, suppress_health_check=_WALKS)
@given(st.data(), classes(more_types=True), st.sampled_from(LLAMA_ADAPTERS), st.booleans())
def test_llama_cpp_bodies(llama: Any, data: st.DataObject, cv: TypeAndValues, adapter: Adapter,
                          use_references: bool) -> None:
    """llama.cpp converts every body, takes every valid value, and its walks decode."""
    verify("llama.cpp", adapter, cv, use_references, data, values=3, walks=1)


def _llama_body(cls: Any, adapter: Adapter, use_references: bool = False) -> dict[str, Any]:
    body = body_of(cls, adapter, use_references)
    return body["function"]["parameters"] if "function" in body else body


@attrs.define
class Tree:
    """A class that holds itself."""

    value: int
    next: Tree | None = None
    kids: list[Tree] = attrs.field(factory=list)


@pytest.mark.parametrize("adapter", LLAMA_ADAPTERS, ids=lambda a: a.name)
@pytest.mark.parametrize("use_references", [False, True])
def test_a_class_holding_itself_converts_in_llama_cpp(llama: Any, adapter: Adapter,
                                                      use_references: bool) -> None:
    """The root class goes under $defs as well: llama.cpp refuses {"$ref": "#"}."""
    from .llama_support import ConversionError

    with pytest.raises(ConversionError, match="unsupported \\$ref #"):
        llama.compile(schema(Tree, VLLM)["schema"])  # what other engines are sent
    body = _llama_body(Tree, adapter, use_references)
    assert "#" not in _refs(body)
    grammar = llama.compile(body)
    value = Tree(1, Tree(2), [Tree(3, kids=[Tree(4)])])
    text = orjson.dumps(make_converter(adapter).unstructure(value, Tree))
    assert llama.accepts(grammar, text) is None
    assert decode(Tree, text) == value
    assert llama.accepts(grammar, b'{"value":1,"next":{"next":null},"kids":[]}') is not None
    (rewrite,) = [r for r in explain(Tree, adapter, use_references=use_references)
                  if "refers to itself" in r.detail]
    assert rewrite.action == "rewritten"


def _refs(part: Any) -> list[str]:
    if isinstance(part, dict):
        return [v for k, v in part.items() if k == "$ref"] + [
            r for v in part.values() for r in _refs(v)]
    if isinstance(part, list):
        return [r for v in part for r in _refs(v)]
    return []


@pytest.mark.parametrize("adapter", [LLAMACPP, OLLAMA_TOOLS], ids=lambda a: a.name)
def test_check_reports_a_root_reference(adapter: Adapter) -> None:
    """A hand-written {"$ref": "#"} is reported where llama.cpp refuses it, not elsewhere."""
    hand_written = {"type": "object", "properties": {"next": {"anyOf": [
        {"$ref": "#"}, {"type": "null"}]}}, "required": ["next"],
        "additionalProperties": False}
    problems = check(hand_written, adapter)
    assert [(p.pointer, p.rule) for p in problems] == [
        ("/properties/next/anyOf/0/$ref", "engine.rejected")], [str(p) for p in problems]
    assert "#/$defs/" in problems[0].message
    assert check(hand_written, VLLM.replace(backend="guidance")) == []


# Open, as allOf branches must be for their merge to take anything.
_OBJ_A = {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}
_OBJ_B = {"type": "object", "properties": {"b": {"type": "string"}}, "required": ["b"]}
#: (schema under "v", a valid value, an invalid value): hand-written allOf bodies.
ALL_OF = [
    ({"allOf": [{"type": "integer"}, {"minimum": 3}]}, 5, 1),
    ({"type": "integer", "allOf": [{"minimum": 3}]}, 5, 1),
    ({"type": "string", "allOf": [{"maxLength": 3}]}, "ab", "abcd"),
    ({"allOf": [{"type": "array", "items": {"type": "integer"}}]}, [1], ["x"]),
    ({"allOf": [_OBJ_A, _OBJ_B]}, {"a": 1, "b": "x"}, {"a": 1}),
    ({"allOf": [dict(_OBJ_A, required=[])]}, {}, {"a": "x"}),
    ({"allOf": [{"enum": [1, 2]}, {"enum": [2, 3]}]}, 2, 1),
    ({"allOf": [{"$ref": "#/$defs/A"}]}, {"a": 1}, {}),
    ({"type": "object", "properties": {"x": {"type": "integer"}}, "allOf": [_OBJ_A]},
     {"x": 1, "a": 1}, {"x": 1}),
]


@pytest.mark.parametrize(("part", "valid", "invalid"), ALL_OF)
@pytest.mark.parametrize("adapter", [LLAMACPP, OLLAMA], ids=lambda a: a.name)
def test_check_reports_the_all_of_llama_cpp_misreads(llama: Any, adapter: Adapter, part: Any,
                                                     valid: Any, invalid: Any) -> None:
    """check() reports an allOf exactly where llama.cpp's grammar does not hold it."""
    body = dict(_bug_body(part), **{"$defs": {"A": _OBJ_A}})
    validator = jsonschema.Draft202012Validator(body)
    assert validator.is_valid({"v": valid})
    assert not validator.is_valid({"v": invalid})
    grammar = llama.compile(body)
    took_valid = llama.accepts(grammar, orjson.dumps({"v": valid})) is None
    took_invalid = llama.accepts(grammar, orjson.dumps({"v": invalid})) is None
    misread = not took_valid or took_invalid
    reported = [p for p in check(body, adapter) if "/allOf" in p.pointer]
    assert bool(reported) == misread, (took_valid, took_invalid, [str(p) for p in reported])
    for p in reported:
        assert ";" in p.message


# -- property names an engine cannot write --------------------------------------------------

ESCAPED_KEYS = ['q"uote', "back\\slash", "tab\there", "bell\x07"]


@needs_outlines
@pytest.mark.parametrize("key", ESCAPED_KEYS)
def test_a_key_outlines_cannot_write_is_a_schema_error(key: str) -> None:
    """outlines-core writes property names raw: a key that needs an escape is refused."""
    engine = harness("outlines-core")
    body = {"type": "object", "properties": {key: {"type": "integer"}}, "required": [key],
            "additionalProperties": False}
    compiled = engine.compile(body)
    assert engine.accepts(compiled, orjson.dumps({key: 1})) is not None  # the limit holds
    outlines = VLLM.replace(backend="outlines")
    problems = check(body, outlines)
    assert [(p.pointer, p.rule) for p in problems] == [(f"/properties/{key}", "engine.key")]

    keyed = TypedDict("keyed", {key: int, "plain": int})  # type: ignore[misc]
    with pytest.raises(SchemaError, match=re.escape(repr(key))) as caught:
        schema(keyed, outlines)
    assert "rename it" in str(caught.value)
    # Elsewhere the key is written escaped, as JSON needs.
    guidance = harness("llguidance")
    compiled = guidance.compile(body_of(keyed, GUIDANCE[0], False))
    assert guidance.accepts(compiled, orjson.dumps({key: 1, "plain": 2})) is None
    assert check(body, GUIDANCE[0]) == []


@pytest.mark.parametrize("key", ESCAPED_KEYS)
def test_llama_cpp_writes_keys_escaped(llama: Any, key: str) -> None:
    """llama.cpp writes a property name as JSON: no key rule is needed there."""
    keyed = TypedDict("keyed", {key: int})  # type: ignore[misc]
    grammar = llama.compile(_llama_body(keyed, LLAMACPP))
    assert llama.accepts(grammar, orjson.dumps({key: 1})) is None


# -- patterns matched against a string's JSON text -------------------------------------------

#: (pattern, valid strings holding a character JSON escapes): patterns whose . or classes
#: would let outlines-core and llama.cpp write a raw '"', backslash or control character.
#: llama.cpp reads no \s in a pattern (that one is described there).
JSON_TEXT_PATTERNS = [
    (r"^.+$", ['say "hi"', "C:\\dir", "tab\there"]),
    (r"^[^a]+$", ['"quoted"', "b\\c", "two\nlines"]),
    (r"^[ -~]{1,12}$", ['"x"', "a\\b"]),
    (r'^a"b$', ['a"b']),
    (r"^x\\y$", ["x\\y"]),
    (r"^[^0-9]*$", ['"', "\\"]),
]
JSON_TEXT_ENGINES = [
    pytest.param("outlines-core", OUTLINES[0], id="outlines", marks=needs_outlines),
    pytest.param("llama.cpp", LLAMACPP, id="llama.cpp"),
    pytest.param("llama.cpp", OLLAMA_TOOLS, id="ollama-tools"),
]


def _json_text_case(request: pytest.FixtureRequest, engine_name: str, adapter: Adapter,
                    pattern: str) -> tuple[Any, Any, dict[str, Any], Any]:
    engine = request.getfixturevalue("llama") if engine_name == "llama.cpp" else harness(
        engine_name)
    cls = attrs.make_class("Patterned", {"v": attrs.field(
        type=str, validator=attrs.validators.matches_re(pattern, func=re.search))})
    body = _llama_body(cls, adapter) if engine_name == "llama.cpp" else body_of(
        cls, adapter, False)
    return engine, cls, body, engine.compile(body)


@pytest.mark.parametrize(("engine_name", "adapter"), JSON_TEXT_ENGINES)
@pytest.mark.parametrize(("pattern", "values"), [
    *JSON_TEXT_PATTERNS,
    (r"^[\s\w]+$", ["a\tb\nc"]),
])
def test_patterns_keep_strings_valid_json(request: pytest.FixtureRequest, engine_name: str,
                                          adapter: Adapter, pattern: str,
                                          values: list[str]) -> None:
    """What the engine writes under a pattern is JSON, and the escaped values stay writable."""
    if engine_name == "llama.cpp" and "\\s" in pattern:
        assert LLAMA_CPP.dialect.fit(pattern)[0] is None  # described there
        return
    engine, cls, body, compiled = _json_text_case(request, engine_name, adapter, pattern)
    assert body["properties"]["v"]["pattern"] != pattern  # sent rewritten, not described
    for value in values:
        text = orjson.dumps({"v": value})
        assert decode(cls, text).v == value
        assert engine.accepts(compiled, text) is None, (text, body["properties"]["v"])
        unescaped = b'{"v":"' + value.encode() + b'"}'
        if unescaped != text:
            assert engine.accepts(compiled, unescaped) is not None, unescaped
    rng = random.Random(pattern)
    for _ in range(6):
        written = engine.walk(compiled, rng, budget=24)
        decoded = decode(cls, written)  # JSON, and the pattern holds
        assert isinstance(decoded.v, str)


@pytest.mark.parametrize(("engine_name", "adapter"), JSON_TEXT_ENGINES)
@pytest.mark.parametrize(("pattern", "values"), JSON_TEXT_PATTERNS)
def test_the_engines_match_patterns_against_json_text(
        request: pytest.FixtureRequest, engine_name: str, adapter: Adapter, pattern: str,
        values: list[str]) -> None:
    """Sent as written, the pattern lets the engine take text that is not JSON."""
    engine = request.getfixturevalue("llama") if engine_name == "llama.cpp" else harness(
        engine_name)
    bare = engine.compile(_bug_body({"type": "string", "pattern": pattern}))
    raw = b'{"v":"' + values[0].encode() + b'"}'
    with pytest.raises(orjson.JSONDecodeError):
        orjson.loads(raw)
    assert engine.accepts(bare, raw) is None
    problems = check(_bug_body({"type": "string", "pattern": pattern}), adapter)
    assert [p.rule for p in problems] == ["engine.pattern"], [str(p) for p in problems]
    assert "JSON text" in problems[0].message


# -- \d and \w mean what Python means -----------------------------------------------------------

#: (pattern, values Python's re takes, values it refuses): the decoder checks patterns with
#: re, whose \d and \w are Unicode classes; the engines read them as ASCII classes.
SHORTHAND_PATTERNS = [
    (r"^\w+$", ["é", "Straße", "日本", "x_1", "١٢"], ["a b", "-", '"']),
    (r"^\d{2}$", ["42", "١٢", "၆२"], ["4a", "²²"]),
    (r"^\W+$", [" -", '"\\'], ["é", "a"]),
    (r"^[\w.-]+@\w+$", ["josé.n@exemple"], ["a@b.c"]),
]
SHORTHAND_ENGINES = [
    pytest.param("llguidance", GUIDANCE[0], id="guidance"),
    pytest.param("xgrammar", XGRAMMAR[0], id="xgrammar", marks=needs_xgrammar),
    pytest.param("outlines-core", OUTLINES[0], id="outlines", marks=needs_outlines),
    pytest.param("llama.cpp", LLAMACPP, id="llama.cpp"),
    pytest.param("llama.cpp", OLLAMA, id="ollama"),
]


@pytest.mark.parametrize(("engine_name", "adapter"), SHORTHAND_ENGINES)
@pytest.mark.parametrize(("pattern", "valid", "invalid"), SHORTHAND_PATTERNS)
def test_shorthands_mean_what_the_decoder_means(request: pytest.FixtureRequest,
                                                engine_name: str, adapter: Adapter,
                                                pattern: str, valid: list[str],
                                                invalid: list[str]) -> None:
    """The engine takes exactly the strings decode() takes: "é" is a \\w everywhere."""
    engine, cls, body, compiled = _json_text_case(request, engine_name, adapter, pattern)
    if engine_name == "xgrammar":
        # xgrammar writes what a pattern allows raw, with no escape: a value holding '"',
        # a backslash or a control character cannot be written under a pattern there.
        invalid = [*invalid, *(v for v in valid if re.search(r'["\\\x00-\x1f]', v))]
        valid = [v for v in valid if not re.search(r'["\\\x00-\x1f]', v)]
    assert "\\w" not in body["properties"]["v"]["pattern"]
    for value in valid:
        text = orjson.dumps({"v": value})
        assert decode(cls, text).v == value
        assert engine.accepts(compiled, text) is None, (engine_name, value)
    for value in invalid:
        text = orjson.dumps({"v": value})
        if not re.search(pattern, value):
            with pytest.raises(DecodeError):
                decode(cls, text)
        assert engine.accepts(compiled, text) is not None, (engine_name, value)
    rng = random.Random(pattern)
    for _ in range(4):
        decode(cls, engine.walk(compiled, rng, budget=16))


PROMPTED = [VLLM_TOOLS, SGLANG_TOOLS, LLAMACPP_TOOLS, OLLAMA_TOOLS,
            VLLM_TOOLS.replace(backend="guidance"), SGLANG_TOOLS.replace(backend="outlines")]


@pytest.mark.parametrize("adapter", PROMPTED, ids=lambda a: repr(a))
def test_a_word_class_is_described_in_tool_definitions_the_prompt_carries(
        adapter: Adapter) -> None:
    """A self-hosted tool definition is written into every prompt: \\w or \\W as Python's
    class (about 1,900 characters, some 4,400 tokens) goes into its description, and
    \\d's (about 190) is still sent; the structured-output adapters keep both, and the
    decoder holds the pattern either way."""
    word = attrs.make_class("Word", {"v": attrs.field(
        type=str, validator=attrs.validators.matches_re(r"^\w+$", func=re.search))})
    digits = attrs.make_class("Digits", {"v": attrs.field(
        type=str, validator=attrs.validators.matches_re(r"^\d+$", func=re.search))})
    prop = body_of(word, adapter, False)["properties"]["v"]
    assert "pattern" not in prop
    assert "^\\w+$" in prop["description"]
    assert len(orjson.dumps(schema(word, adapter))) < 400
    (rewrite,) = explain(word, adapter)
    assert rewrite.action == "described"
    assert "every prompt" in rewrite.detail
    assert decode(word, '{"v": "Straße"}').v == "Straße"
    with pytest.raises(DecodeError):
        decode(word, '{"v": "a b"}')
    sent = body_of(digits, adapter, False)["properties"]["v"]["pattern"]
    assert re.search(sent, "١٢")
    assert len(sent) < 1_000
    problems = check(_bug_body({"type": "string", "pattern": "^\\w+$"}), adapter)
    assert [p.rule for p in problems] == ["engine.pattern"]
    assert "every prompt" in problems[0].message
    for structured in (VLLM, SGLANG, LLAMACPP, OLLAMA):
        assert re.search(body_of(word, structured, False)["properties"]["v"]["pattern"], "é")


# -- xgrammar writes what a pattern allows raw, with no escape -----------------------------------

#: (pattern, a text xgrammar 0.2.9 takes under the pattern as it used to be sent, which
#: is not JSON, values it must still take once rewritten). It keeps "." and most classes
#: to what JSON writes raw by itself, but not a negated class holding a character beyond
#: ASCII ([^é], and \W and \D as Python means them) nor a raw control character in a class.
XGRAMMAR_RAW_PATTERNS = [
    ("^[^é]+$", b'{"v":"a\x01b"}', ["abc", "日本 ~"]),
    ("^[a-z\x01]+$", b'{"v":"a\x01b"}', ["ab"]),  # a raw control character
    ("^\\W+$", b'{"v":" \x14"}', [" -", "·¿"]),
    ("^x\\D$", b'{"v":"x""}', ["xa", "xé"]),
]


def _as_sent_before(pattern: str) -> str:
    """The pattern as xgrammar's adapters sent it before: \\D and \\W as Python's classes
    (they were described at last, as the rest was sent unchanged)."""
    return rewrite_shorthands(pattern, frozenset("DW"), python_classes()) or pattern


@pytest.mark.parametrize("adapter", XGRAMMAR, ids=lambda a: a.name)
@pytest.mark.parametrize(("pattern", "raw", "values"), XGRAMMAR_RAW_PATTERNS)
def test_xgrammar_patterns_are_sent_without_what_it_would_write_raw(
        adapter: Adapter, pattern: str, raw: bytes, values: list[str]) -> None:
    """Every adapter whose engine is xgrammar sends classes and "." without '"',
    backslash and control characters, which it would write unescaped; check() says so of
    the pattern as written."""
    cls = attrs.make_class("Patterned", {"v": attrs.field(
        type=str, validator=attrs.validators.matches_re(pattern, func=re.search))})
    body = body_of(cls, adapter, False)
    if adapter.name.endswith("_TOOLS") and "\\W" in pattern:
        # \W as Python's class is too long for a definition written into every prompt.
        assert "pattern" not in body["properties"]["v"]
        return
    sent = body["properties"]["v"]["pattern"]
    assert sent != pattern
    assert sent == XGRAMMAR_ENGINE.dialect.fit(pattern)[0]
    for value in values:
        assert re.search(sent, value), (sent, value)
    problems = check(_bug_body({"type": "string", "pattern": pattern}), adapter)
    assert [p.rule for p in problems] == ["engine.pattern"], [str(p) for p in problems]
    assert repr(sent) in problems[0].message


@needs_xgrammar
@pytest.mark.parametrize(("pattern", "raw", "values"), XGRAMMAR_RAW_PATTERNS)
def test_xgrammar_writes_only_json_under_a_rewritten_pattern(
        pattern: str, raw: bytes, values: list[str]) -> None:
    """Sent as written, the pattern lets xgrammar take text that is not JSON; rewritten,
    it refuses that text, takes the values, and what it writes decodes."""
    engine = harness("xgrammar")
    with pytest.raises(orjson.JSONDecodeError):
        orjson.loads(raw)
    bare = engine.compile(_bug_body({"type": "string", "pattern": _as_sent_before(pattern)}))
    assert engine.accepts(bare, raw) is None
    cls = attrs.make_class("Patterned", {"v": attrs.field(
        type=str, validator=attrs.validators.matches_re(pattern, func=re.search))})
    body = body_of(cls, XGRAMMAR[0], False)
    compiled = engine.compile(body)
    assert engine.accepts(compiled, raw) is not None
    for value in values:
        text = orjson.dumps({"v": value})
        assert decode(cls, text).v == value
        assert engine.accepts(compiled, text) is None, (value, body["properties"]["v"])
    rng = random.Random(pattern)
    for _ in range(8):
        assert isinstance(decode(cls, engine.walk(compiled, rng, budget=16)).v, str)


@needs_xgrammar
@pytest.mark.parametrize(("pattern", "raw"), [
    ('^a"b$', b'{"v":"a"b"}'), ("^x\\\\y$", b'{"v":"x\\y"}'), ("^a\\tb$", b'{"v":"a\tb"}'),
    ('^-["]$', b'{"v":"-""}'), ("^-[\\x00-\\x1f]$", b'{"v":"-\x01"}'),
])
def test_xgrammar_patterns_that_need_an_escape_are_described(pattern: str, raw: bytes) -> None:
    """A pattern whose strings must hold '"', a backslash or a control character makes
    xgrammar write it raw (not JSON), and no escape is taken there: it goes into the
    description, and the decoder holds it."""
    engine = harness("xgrammar")
    bare = engine.compile(_bug_body({"type": "string", "pattern": pattern}))
    assert engine.accepts(bare, raw) is None
    with pytest.raises(orjson.JSONDecodeError):
        orjson.loads(raw)
    cls = attrs.make_class("Patterned", {"v": attrs.field(
        type=str, validator=attrs.validators.matches_re(pattern, func=re.search))})
    for adapter in XGRAMMAR:
        prop = body_of(cls, adapter, False)["properties"]["v"]
        assert "pattern" not in prop
        assert pattern in prop["description"]
    with pytest.raises(DecodeError):
        decode(cls, '{"v": "ab"}')


@needs_xgrammar
def test_xgrammar_reads_the_rewritten_space_dot_and_non_space() -> None:
    """\\s (Python's, without the control characters), . and \\S as sent to xgrammar: it
    takes the Unicode spaces and any other character, and no raw newline."""
    pattern = "^a\\s.\\S$"
    cls = attrs.make_class("Patterned", {"v": attrs.field(
        type=str, validator=attrs.validators.matches_re(pattern, func=re.search))})
    engine = harness("xgrammar")
    body = body_of(cls, XGRAMMAR[0], False)
    compiled = engine.compile(body)
    for value in ("a é!", "a\u3000-日", "a\u00a0\u2028x"):
        assert decode(cls, orjson.dumps({"v": value})).v == value
        assert engine.accepts(compiled, orjson.dumps({"v": value})) is None, value
    for raw in (b'{"v":"a\n-x"}', b'{"v":"a "x"}', b'{"v":"a -\\"}', b'{"v":"a \\n-"}'):
        assert engine.accepts(compiled, raw) is not None, raw


# -- characters beyond the BMP in a class the rewrite spells out ---------------------------------

# Every engine: a class holding '"' is spelled out again for outlines-core and llama.cpp
# (over JSON text) and xgrammar (written raw); llguidance is sent it as written.
@pytest.mark.parametrize(("engine_name", "adapter"), SHORTHAND_ENGINES)
def test_characters_beyond_the_bmp_in_a_class_reach_the_engine(
        request: pytest.FixtureRequest, engine_name: str, adapter: Adapter) -> None:
    """U+E0001 (a tag character, not printable) and U+1F600 in a class: the engine takes
    them and refuses what the class does not hold ("1", which \\ue0001 let through)."""
    pattern = '^[a\U000e0001\U0001f600"]+$'
    engine, cls, _, compiled = _json_text_case(request, engine_name, adapter, pattern)
    valid = ["a\U000e0001", "\U0001f600\U0001f600", "\U000e0001"]
    if engine_name != "xgrammar":  # a '"' cannot be written raw there (not JSON)
        valid.append('a"')
    for value in valid:
        text = orjson.dumps({"v": value})
        assert decode(cls, text).v == value
        assert engine.accepts(compiled, text) is None, (engine_name, ascii(value))
    for value in ("a1", "1", "\U000e0002", "\ue000", "a\U0001f601"):
        text = orjson.dumps({"v": value})
        with pytest.raises(DecodeError):
            decode(cls, text)
        assert engine.accepts(compiled, text) is not None, (engine_name, ascii(value))
    rng = random.Random(pattern)
    for _ in range(4):
        decode(cls, engine.walk(compiled, rng, budget=12))


# -- \s means what Python means, in a class and outside -------------------------------------------

#: Every character Python's \s takes (read from re), and some it does not.
SPACES = sorted({c for c in range(0x3001) if re.match(r"\s", chr(c))}
                | {0x08, 0x22, 0x41, 0x5C, 0x7F, 0x200B, 0x2060, 0xFEFF})
#: Characters an engine cannot write under a rewritten pattern at all: xgrammar takes no
#: escape there (so no control character, '"' or backslash); outlines-core is offered
#: only the short escapes of tab, newline, carriage return and form feed.
UNWRITABLE = {
    # It takes \u001c and the like; a DEL it refuses raw and escaped (its notes say so).
    "llguidance": lambda c: c == 0x7F,
    "xgrammar": lambda c: c < 0x20 or c in (0x22, 0x5C),
    "outlines-core": lambda c: c < 0x20 and chr(c) not in "\t\n\r\f",
}


@pytest.mark.parametrize(("engine_name", "adapter"), [
    pytest.param("llguidance", GUIDANCE[0], id="guidance"),
    pytest.param("xgrammar", XGRAMMAR[0], id="xgrammar", marks=needs_xgrammar),
    pytest.param("outlines-core", OUTLINES[0], id="outlines", marks=needs_outlines),
])
@pytest.mark.parametrize("pattern", [
    "^[\\sa]+$", '^[\\s"]+$', "^[^\\sa]+$", "^\\s+$", "^x[\\s-]y$", "^\\S+$", "^a\\sb\\S$",
])
def test_spaces_mean_what_the_decoder_means(request: pytest.FixtureRequest, engine_name: str,
                                            adapter: Adapter, pattern: str) -> None:
    """For each character of Python's \\s (and a few others) the engine takes the JSON
    string exactly when decode() does, but for the characters it cannot write there at
    all: \\s in a class used to be sent as ASCII spaces only (U+00A0 was valid and could
    never be written), and llguidance's own \\s leaves out U+001C-U+001F."""
    cls = attrs.make_class("Patterned", {"v": attrs.field(
        type=str, validator=attrs.validators.matches_re(pattern, func=re.search))})
    if engine_name == "outlines-core" and "\\S" in pattern:
        assert "pattern" not in body_of(cls, adapter, False)["properties"]["v"]  # described
        return
    engine, cls, body, compiled = _json_text_case(request, engine_name, adapter, pattern)
    wrong = []
    for code in SPACES:
        value = ("x" + chr(code) + "y" if pattern.startswith("^x") else
                 "a" + chr(code) + "b" + chr(code) if pattern.startswith("^a") else chr(code))
        text = orjson.dumps({"v": value})
        try:
            decode(cls, text)
            valid = True
        except DecodeError:
            valid = False
        assert valid == bool(re.search(pattern, value))
        expected = valid and not UNWRITABLE[engine_name](code)
        if (engine.accepts(compiled, text) is None) != expected:
            wrong.append(hex(code))
    assert not wrong, (engine_name, body["properties"]["v"]["pattern"], wrong)


@pytest.mark.parametrize("adapter", PROMPTED, ids=lambda a: repr(a))
def test_a_pattern_too_long_for_a_definition_says_so(adapter: Adapter) -> None:
    """explain() and check() say why \\w stays out of a tool definition (its Python class
    is too long for a definition in every prompt; the engine could read it) and what to
    write instead, not that the engine misreads it; the ASCII class they suggest is sent."""
    word = attrs.make_class("Word", {"v": attrs.field(
        type=str, validator=attrs.validators.matches_re(r"^\w+$", func=re.search))})
    (rewrite,) = explain(word, adapter)
    assert rewrite.action == "described"
    assert "does not read" not in rewrite.detail
    assert rewrite.detail.startswith("pattern: '^\\\\w+$' (in the description, not the tool "
                                     "definition, and decode() checks it: ")
    assert "characters to the tool definition" in rewrite.detail
    assert "Unicode classes in Python's re" in rewrite.detail
    assert "[A-Za-z0-9_] for \\w" in rewrite.detail
    (problem,) = check(_bug_body({"type": "string", "pattern": "^\\W+$"}), adapter)
    assert problem.rule == "engine.pattern"
    assert problem.message.startswith("this pattern is too long to send in a tool definition")
    assert "does not read" not in problem.message
    assert "[^A-Za-z0-9_] for \\W" in problem.message
    ascii_word = attrs.make_class("AsciiWord", {"v": attrs.field(
        type=str, validator=attrs.validators.matches_re(r"^[A-Za-z0-9_]+$", func=re.search))})
    assert body_of(ascii_word, adapter, False)["properties"]["v"]["pattern"] == (
        "^[A-Za-z0-9_]+$")
    # A pattern described for what the engine cannot read keeps its own reason.
    look = attrs.make_class("Look", {"v": attrs.field(
        type=str, validator=attrs.validators.matches_re(r"^(?=a)\w+$", func=re.search))})
    (other,) = explain(look, adapter)
    assert "does not read it as JSON Schema does" in other.detail


@pytest.mark.parametrize("adapter", [*XGRAMMAR, *OUTLINES], ids=lambda a: repr(a))
def test_a_negated_non_space_class_is_sent(adapter: Adapter) -> None:
    """^[^\\S]+$ used to fail the body's own check under xgrammar and outlines-core (the
    rewrite added '"', backslash and control characters to it again on each pass)."""
    cls = attrs.make_class("Spaces", {"v": attrs.field(
        type=str, validator=attrs.validators.matches_re(r"^[^\S]+$", func=re.search))})
    sent = body_of(cls, adapter, False)["properties"]["v"]["pattern"]
    assert sent == '^[^\\S"\\\\\\x00-\\x1f]+$'
    assert check(_bug_body({"type": "string", "pattern": sent}), adapter) == []

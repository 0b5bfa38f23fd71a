"""Toolbox.call's common path (one function per tool's plan: the JSON parse, the argument
check fused with the call, the result filled inline) against the general path."""

from __future__ import annotations

import datetime
import json
import logging
from typing import Any, Literal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from describedtypes import Annotation, Context, Tool, Toolbox, annotate


def _seen(**kwargs: Any) -> Any:
    """What a tool received, by parameter: its value and its exact type."""
    if kwargs.get("city") == "boom":
        raise RuntimeError("the weather service is down")
    if kwargs.get("city") == "text":  # a str result of a length near the limits below
        return "t" * (30 + sum(v for v in kwargs.values() if type(v) is int))
    return {k: [type(v).__name__, v] for k, v in sorted(kwargs.items())}


def plain(city: str, days: int, metric: bool) -> Any:
    """Only required parameters, each with a class check."""
    return _seen(city=city, days=days, metric=metric)


def defaults(
    city: str, temp: float = 0.5, unit: Literal["c", "f"] = "c", anything: Any = 3
) -> Any:
    """Parameters with defaults, a float (an int needs converting) and Any (null refused)."""
    return _seen(city=city, temp=temp, unit=unit, anything=anything)


def many(
    city: str,
    session: Context[str],
    a: int = 1,
    b: str = "b",
    c: bool = False,
    d: float = 1.5,
    e: int | None = None,
) -> Any:
    """More defaults than are branched on, and a Context parameter."""
    return _seen(city=city, a=a, b=b, c=c, d=d, e=e, session=session)


def nullable(city: str, note: str | None, count: int | None = None) -> Any:
    """A parameter that may be None without a default: None when left out."""
    return _seen(city=city, note=note, count=count)


def rich(city: str, days: list[int], when: datetime.date | None = None) -> Any:
    """Types the fused check cannot take (a list, a date): the decoder's every time."""
    return _seen(city=city, days=days, when=str(when))


async def asynchronous(city: str, days: int = 2) -> Any:
    """An async tool, run to its end by call()."""
    return _seen(city=city, days=days)


TOOLS = [plain, defaults, many, nullable, rich, asynchronous]
KEYS = ["city", "days", "metric", "temp", "unit", "anything", "a", "b", "c", "d", "e",
        "note", "count", "when", "session", "extra"]
VALUES = st.one_of(
    st.sampled_from(["Bern", "boom", "text", "c", "f", "", "2024-01-31"]),
    st.integers(-3, 3),
    st.booleans(),
    st.none(),
    st.floats(allow_nan=False, allow_infinity=False, width=32),
    st.lists(st.integers(-2, 2), max_size=2),
)
CITY = st.sampled_from(["Bern", "boom", "text"])
SMALL = st.integers(-3, 3)
#: Arguments of the right types, by tool (the fused check's own case), optional ones or not.
WELL_TYPED = {
    "plain": st.fixed_dictionaries({"city": CITY, "days": SMALL, "metric": st.booleans()}),
    "defaults": st.fixed_dictionaries(
        {"city": CITY},
        optional={"temp": st.floats(-2, 2), "unit": st.sampled_from(["c", "f"]),
                  "anything": VALUES},
    ),
    "many": st.fixed_dictionaries(
        {"city": CITY},
        optional={"a": SMALL, "b": st.sampled_from(["x", ""]), "c": st.booleans(),
                  "d": st.floats(-2, 2), "e": st.none() | SMALL},
    ),
    "nullable": st.fixed_dictionaries(
        {"city": CITY}, optional={"note": st.none() | CITY, "count": st.none() | SMALL}
    ),
    "rich": st.fixed_dictionaries(
        {"city": CITY, "days": st.lists(SMALL, max_size=2)},
        optional={"when": st.sampled_from(["2024-01-31", None])},
    ),
    "asynchronous": st.fixed_dictionaries({"city": CITY}, optional={"days": SMALL}),
}
ARGUMENTS = st.one_of(
    st.builds(json.dumps, st.dictionaries(st.sampled_from(KEYS), VALUES, max_size=6)),
    st.builds(
        lambda d: json.dumps({"city": "Bern", **d}),
        st.dictionaries(st.sampled_from(KEYS), VALUES, max_size=4),
    ),
    st.sampled_from(['{"city": "Bern"', "[1, 2]", '"text"', "", "null", "{}",
                     '{"city": "Bern", "days": 1e400}', '{"city": "Bern", "city": 1}']),
    st.dictionaries(st.sampled_from(KEYS), VALUES, max_size=4),  # a parsed object
)


def _pair(max_result_chars: int | None) -> tuple[Toolbox, Toolbox]:
    """The same tools twice: one toolbox on the common path, one on the general path."""
    quick = Toolbox(TOOLS, max_result_chars=max_result_chars)
    general = Toolbox(TOOLS, max_result_chars=max_result_chars)
    for tool in general:
        tool.invoke = None  # the general path only
    return quick, general


#: By ``max_result_chars``: results of every length around the limits are cut alike.
PAIRS = {limit: _pair(limit) for limit in (None, 28, 30, 32, 60)}


def _outcome(box: Toolbox, name: str, arguments: Any, context: Any) -> tuple[Any, ...]:
    result = box.call(name, arguments, context=context, call_id="c1")
    return (result.content, result.value, result.is_error, result.call_id, result.name,
            type(result.exception))


@settings(max_examples=400)
@given(
    call=st.sampled_from([t.__name__ for t in TOOLS]).flatmap(
        lambda name: st.tuples(
            st.just(name), ARGUMENTS | WELL_TYPED[name] | WELL_TYPED[name].map(json.dumps)
        )
    ),
    as_bytes=st.booleans(),
    context=st.sampled_from([None, "s1"]),
    limit=st.sampled_from(list(PAIRS)),
)
def test_the_common_path_gives_what_the_general_path_gives(
    call: tuple[str, Any], as_bytes: bool, context: Any, limit: int | None
) -> None:
    """For any arguments, right or wrong, as text, bytes or a parsed object, the common
    path gives the general path's result: the same content (errors worded alike, long
    results cut alike), value, error flag, ids and exception type."""
    name, arguments = call
    if as_bytes and isinstance(arguments, str):
        arguments = arguments.encode()
    quick, general = PAIRS[limit]
    assert _outcome(quick, name, arguments, context) == _outcome(
        general, name, arguments, context
    )


def test_the_common_path_serves_the_plain_call() -> None:
    """A plain call is served by a compiled function of the plan, shared by every tool
    over the same function; the values reach the function as the decoder gives them."""
    box = Toolbox(TOOLS)
    assert all(tool.invoke is not None for tool in box)
    result = box.call("many", '{"city": "Bern", "a": 2, "e": null}', context="s", call_id="x")
    assert not result.is_error
    assert result.value == {
        "a": ["int", 2], "b": ["str", "b"], "c": ["bool", False], "city": ["str", "Bern"],
        "d": ["float", 1.5], "e": ["NoneType", None], "session": ["str", "s"],
    }
    invoke = box["many"].invoke
    assert invoke is not None
    assert invoke.__name__ == "invoke"  # compiled at the first call
    other = Toolbox([many])
    assert other["many"].invoke is invoke  # the plan's, made once


def test_an_int_for_a_float_and_a_wrong_type_go_to_the_decoder() -> None:
    """Arguments the fused check does not take as they are are the decoder's: an int
    for a float is converted; a wrong type is an error naming the parameter."""
    box = Toolbox([defaults])
    assert box.call("defaults", '{"city": "Bern", "temp": 2}').value["temp"] == ["float", 2.0]
    wrong = box.call("defaults", '{"city": "Bern", "unit": "k"}')
    assert wrong.is_error
    assert "unit" in wrong.content
    null = box.call("defaults", '{"city": "Bern", "anything": null}')
    assert null.is_error
    assert "leave the argument out to use its default" in null.content


def test_a_registration_after_the_first_call_is_followed() -> None:
    """A registration made after the common path was compiled is followed at once: the
    compiled call gives way to the general path, which plans afresh."""

    def lookup(city: str) -> str:
        return city

    box = Toolbox([lookup])
    assert box.call("lookup", '{"city": "Bern"}').value == "Bern"
    annotate.register(lookup, Annotation(parameters={"city": Annotation(name="town")}))
    assert box.call("lookup", '{"town": "Oslo"}').value == "Oslo"
    assert box.call("lookup", '{"city": "Oslo"}').is_error
    assert box.call("lookup", '{"town": "Rome"}').value == "Rome"


def test_timeouts_gates_and_parse_args_keep_the_general_path() -> None:
    """A timeout, concurrent=False or parse_args make the call the general path's: the
    common path steps aside and the result is the same."""

    def echo(city: str) -> str:
        return city

    for box in (
        Toolbox([echo], timeout=30),
        Toolbox([Tool(echo, timeout=30)]),
        Toolbox([Tool(echo, concurrent=False)]),
        Toolbox([Tool(echo, parse_args=lambda raw: {"city": raw["city"].upper()})]),
    ):
        result = box.call("echo", '{"city": "bern"}')
        assert not result.is_error
        assert result.value in {"bern", "BERN"}
        box.close()
    assert Toolbox([Tool(echo, parse_args=lambda raw: None)])["echo"].invoke is None


def test_a_log_level_set_between_calls_is_followed(caplog: pytest.LogCaptureFixture) -> None:
    """The common path asks logging whether INFO is on at every call: a level set (or
    logging disabled) between two calls is followed from the next call on."""

    def echo(city: str) -> str:
        return city

    box = Toolbox([echo])
    # Quiet to begin with, whatever an earlier test in this process left configured.
    caplog.set_level("WARNING", logger="describedtypes")
    assert box.call("echo", '{"city": "quiet"}').value == "quiet"
    with caplog.at_level("INFO", logger="describedtypes"):
        assert box.call("echo", '{"city": "loud"}').value == "loud"
    assert box.call("echo", '{"city": "quiet again"}').value == "quiet again"
    logged = [r.getMessage() for r in caplog.records if r.name == "describedtypes"]
    assert len(logged) == 1
    assert logged[0].startswith("tool echo ran in")
    caplog.clear()
    with caplog.at_level("INFO", logger="describedtypes"):
        logging.disable(logging.INFO)
        try:
            assert box.call("echo", '{"city": "disabled"}').value == "disabled"
        finally:
            logging.disable(logging.NOTSET)
        assert box.call("echo", '{"city": "enabled"}').value == "enabled"
    assert [r.getMessage()[:14] for r in caplog.records] == ["tool echo ran "]


def test_a_dict_of_arguments_is_checked_as_on_the_general_path() -> None:
    """A dict the caller parsed (Anthropic's, Gemini's, MCP's arguments) is passed on
    as it is when it needs no decoding; one that does, or has a key that is not a
    string, gets the general path's answer, and the caller's dict is never changed."""
    box = Toolbox([plain, defaults])
    arguments: dict[Any, Any] = {"city": "Bern", "days": 2, "metric": True}
    assert box.call("plain", arguments).value["days"] == ["int", 2]
    assert box.call("defaults", {"city": "Bern", "temp": 1}).value["temp"] == ["float", 1.0]
    odd = {"city": "Bern", "days": 2, "metric": True, 7: "seven"}
    result = box.call("plain", odd)
    assert result.is_error
    assert "argument names must be strings" in result.content
    assert arguments == {"city": "Bern", "days": 2, "metric": True}
    assert odd == {"city": "Bern", "days": 2, "metric": True, 7: "seven"}

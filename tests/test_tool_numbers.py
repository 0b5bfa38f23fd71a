"""Tool arguments with numbers past the float range (``1e400``): read exactly for a Decimal
parameter, as ``decode`` reads them, on every call path; an int or float parameter is told
the number is too large, and NaN and Infinity stay refused."""

from __future__ import annotations

import asyncio
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from describedtypes import Tool, Toolbox, ToolCall, decode_arguments

from .test_ask_sdk import Chat, Kind, Responses, Server

TOO_LARGE = "the number is too large for JSON (beyond about 1.8e308); send a smaller number"


def make_pay(seen: list[Any]) -> Any:
    def pay(amount: Decimal, count: int = 1, rate: float = 1.0) -> str:
        """Pay an amount."""
        seen.append((amount, count, rate))
        return str(amount)

    return pay


def exactly(value: Any, text: str) -> bool:
    """``value`` is the Decimal ``text`` names, digit for digit (sign and exponent too)."""
    return type(value) is Decimal and value.as_tuple() == Decimal(text).as_tuple()


def call_sync_tool(func: Any, arguments: Any) -> Any:
    return Tool(func).call(arguments)


def call_async_tool(func: Any, arguments: Any) -> Any:
    return asyncio.run(Tool(func).acall(arguments))


def call_toolbox(func: Any, arguments: Any) -> Any:
    box = Toolbox([func])
    return box.call(func.__name__, arguments, call_id="c1")


def acall_toolbox(func: Any, arguments: Any) -> Any:
    box = Toolbox([func])
    return asyncio.run(box.acall(func.__name__, arguments, call_id="c1"))


def acall_many(func: Any, arguments: Any) -> Any:
    box = Toolbox([func])
    (result,) = asyncio.run(box.acall_many([ToolCall(func.__name__, arguments, "c1")]))
    return result


PATHS = pytest.mark.parametrize(
    "call",
    [call_sync_tool, call_async_tool, call_toolbox, acall_toolbox, acall_many],
    ids=["Tool.call", "Tool.acall", "Toolbox.call", "Toolbox.acall", "Toolbox.acall_many"],
)


@PATHS
@pytest.mark.parametrize("text", ["1e400", "-2.5E+1000", "123456789.000000000001e-400"])
def test_a_decimal_parameter_receives_a_number_past_the_float_range(call: Any, text: str) -> None:
    """JSON text with a number beyond about 1.8e308 reaches a Decimal parameter digit for
    digit, on every way of calling a tool."""
    seen: list[Any] = []
    result = call(make_pay(seen), f'{{"amount": {text}}}')
    assert not result.is_error, result.content
    assert exactly(seen[0][0], text)
    assert result.content == str(Decimal(text))


@PATHS
@pytest.mark.parametrize("param", ["count", "rate"])
def test_an_int_or_float_parameter_is_told_the_number_is_too_large(call: Any, param: str) -> None:
    """Beside a Decimal, an int or float parameter given 1e400 gets the parser's own words
    for it, at its own path, and the tool does not run."""
    seen: list[Any] = []
    result = call(make_pay(seen), f'{{"amount": "1", "{param}": 1e400}}')
    assert result.is_error
    assert f"- $.{param}: {TOO_LARGE}" in result.content
    assert seen == []


@PATHS
@pytest.mark.parametrize("token", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_infinity_stay_refused(call: Any, token: str) -> None:
    """NaN and Infinity are no JSON, even for a Decimal parameter: the call is refused with
    the fix, beside a number past the float range too, and the tool does not run."""
    seen: list[Any] = []
    result = call(make_pay(seen), f'{{"amount": {token}}}')
    assert result.is_error
    assert "JSON has no NaN or Infinity" in result.content
    assert call(make_pay(seen), f'{{"amount": 1e400, "rate": {token}}}').is_error
    assert seen == []


def test_a_tool_without_a_decimal_still_refuses_the_number() -> None:
    """Without a Decimal parameter nothing reads the number exactly: the arguments are
    refused as JSON, with the same words."""
    def count(n: int) -> int:
        """Count."""
        return n

    result = Tool(count).call('{"n": 1e400}')
    assert result.is_error
    assert "not valid JSON" in result.content
    assert TOO_LARGE in result.content


def test_parse_args_never_receives_an_infinite_float() -> None:
    """A tool with its own ``parse_args`` gets the arguments as JSON parsed them; 1e400 is
    refused before its parser runs rather than handed to it as inf."""
    parsed: list[Any] = []

    def parse(raw: dict[str, Any]) -> dict[str, Any]:
        parsed.append(raw)
        return {"amount": Decimal(str(raw["amount"]))}

    result = Tool(make_pay([]), parse_args=parse).call('{"amount": 1e400}')
    assert result.is_error
    assert TOO_LARGE in result.content
    assert parsed == []


def test_the_decimal_range_still_bounds_the_work() -> None:
    """A valid JSON number with a billion-digit exponent is refused by the Decimal's range
    check (no huge Decimal is made), as decode refuses it."""
    seen: list[Any] = []
    result = Tool(make_pay(seen)).call('{"amount": 1e999999999}')
    assert result.is_error
    assert "$.amount: the number 1E+999999999 is out of range" in result.content
    assert seen == []


def test_the_tool_path_agrees_with_decode_arguments() -> None:
    """The tool receives what decode_arguments() returns for the same text."""
    seen: list[Any] = []
    pay = make_pay(seen)
    text = '{"amount": 7.25e401, "count": 3}'
    assert not Tool(pay).call(text).is_error
    decoded = decode_arguments(pay, text)
    assert seen[0][:2] == (decoded["amount"], decoded["count"])
    assert exactly(seen[0][0], "7.25e401")


def _with_arguments(kind: Kind, reply: dict[str, Any], text: str) -> dict[str, Any]:
    """``reply`` with its one tool call's arguments replaced by the JSON text ``text``."""
    if isinstance(kind, Responses):
        reply["output"][0]["arguments"] = text
    else:
        reply["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"] = text
    return reply


@pytest.mark.parametrize("kind", [Chat(), Responses()], ids=["chat", "responses"])
@pytest.mark.parametrize("is_async", [False, True], ids=["sync", "async"])
def test_the_tool_loop_passes_the_exact_number(kind: Kind, is_async: bool) -> None:
    """Toolbox.run and arun: a model's call with 1e400 as the arguments text (OpenAI sends
    arguments as text) runs the tool with Decimal("1E+400") and sends back its result."""
    seen: list[Any] = []
    box = Toolbox([make_pay(seen)])
    call = _with_arguments(kind, kind.calls([("c1", "pay", {"amount": 0})]), '{"amount": 1e400}')
    server = Server([call, kind.text("Paid.")])
    client = kind.client(server, is_async=is_async)
    options: dict[str, Any] = {"model": "m", "messages": "Pay."}
    if kind.api:
        options["api"] = kind.api
    answer = asyncio.run(box.arun(client, **options)) if is_async else box.run(client, **options)
    assert answer == "Paid."
    assert exactly(seen[0][0], "1E+400")
    assert kind.sent_results(server.bodies[1])[0][:2] == ("c1", "1E+400")


_DIGITS = st.integers(min_value=0, max_value=10**40).map(str)
_NUMBER_TEXT = st.builds(
    lambda sign, whole, fraction, exponent: f"{sign}{whole}{fraction}{exponent}",
    st.sampled_from(["", "-"]),
    _DIGITS,
    st.one_of(st.just(""), st.text("0123456789", min_size=1, max_size=30).map("." .__add__)),
    st.one_of(
        st.just(""),
        st.builds(
            lambda e, sign, n: f"{e}{sign}{n}",
            st.sampled_from(["e", "E"]),
            st.sampled_from(["", "+", "-"]),
            st.integers(min_value=0, max_value=950),
        ),
    ),
)


@given(_NUMBER_TEXT)
def test_any_finite_decimal_text_round_trips_exactly(text: str) -> None:
    """Any finite decimal written as a JSON number, inside or past the float range, reaches
    a Decimal parameter exactly as written (digits, exponent and sign)."""
    seen: list[Any] = []
    result = Tool(make_pay(seen)).call(f'{{"amount": {text}}}')
    assert not result.is_error, result.content
    assert exactly(seen[0][0], text)


def test_an_any_parameter_beside_a_decimal_gets_plain_json() -> None:
    """A parameter typed Any next to a Decimal gets plain floats and ints (never the exact
    parser's numbers), and 1e400 there is too large, as it is without the Decimal."""
    seen: list[Any] = []

    def note(amount: Decimal, extra: Any) -> str:
        """Note an amount."""
        seen.append(extra)
        return "ok"

    Tool(note).call('{"amount": 1, "extra": [2.5, -0, {"x": 1e2}]}')
    assert seen == [[2.5, 0, {"x": 100.0}]]
    assert [type(x) for x in seen[0][:2]] == [float, int]
    assert type(seen[0][2]["x"]) is float
    result = Toolbox([note]).call("note", '{"amount": 1, "extra": 1e400}', call_id="c1")
    assert result.is_error
    assert TOO_LARGE in result.content

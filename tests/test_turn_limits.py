"""The limits on one turn of tool calls: ``max_calls_per_turn`` (calls past it get an error
result and never run) and ``max_result_chars_per_turn`` (the results together are cut to
fit, the longest first)."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from describedtypes import Toolbox, ToolCall, ToolResult
from describedtypes._tools.limits import share


def run(coro: Any) -> Any:
    return asyncio.run(coro)


class Counter:
    """Tools that count their runs."""

    def __init__(self) -> None:
        self.ran: list[int] = []

    def box(self, **options: Any) -> Toolbox:
        box = Toolbox(**options)

        @box.tool
        def echo(i: int) -> str:
            """Say the number back."""
            self.ran.append(i)
            return f"echo {i}"

        @box.tool
        async def aecho(i: int) -> str:
            """Say the number back, asynchronously."""
            await asyncio.sleep(0)
            self.ran.append(i)
            return f"aecho {i}"

        @box.tool
        def text(size: int) -> str:
            """A text of ``size`` characters."""
            return "x" * size

        return box


def calls(n: int, name: str = "echo") -> list[ToolCall]:
    return [ToolCall(name, {"i": i}, f"call_{i}") for i in range(n)]


# -- max_calls_per_turn ----------------------------------------------------------------


def test_the_default_runs_32_calls_and_refuses_the_rest() -> None:
    counter = Counter()
    results = run(counter.box().acall_many(calls(40)))
    assert [r.call_id for r in results] == [f"call_{i}" for i in range(40)]
    assert sorted(counter.ran) == list(range(32))
    assert [r.content for r in results[:32]] == [f"echo {i}" for i in range(32)]
    assert all(not r.is_error for r in results[:32])
    for result in results[32:]:
        assert result.is_error
        assert result.name == "echo"
        assert result.value is None
        assert result.exception is None
        assert result.content == (
            "Not run: this turn made 40 tool calls and at most 32 are run per turn. Make at "
            "most 32 tool calls at a time; call this one again in a later turn if you still "
            "need it."
        )


@pytest.mark.parametrize("name", ["echo", "aecho", "missing"])
def test_a_smaller_cap_runs_exactly_the_first_calls(name: str) -> None:
    counter = Counter()
    results = run(counter.box(max_calls_per_turn=3).acall_many(calls(7, name)))
    assert len(results) == 7
    assert [r.call_id for r in results] == [f"call_{i}" for i in range(7)]
    refused = [r for r in results if "Not run" in r.content]
    assert [r.call_id for r in refused] == [f"call_{i}" for i in range(3, 7)]
    if name == "missing":  # the first three ran into "unknown tool"
        assert all("Unknown tool" in r.content for r in results[:3])
        assert counter.ran == []
    else:
        assert sorted(counter.ran) == [0, 1, 2]
        assert [r.value for r in results[:3]] == [f"{name} {i}" for i in range(3)]


def test_at_the_cap_nothing_is_refused() -> None:
    counter = Counter()
    results = run(counter.box(max_calls_per_turn=5).acall_many(calls(5)))
    assert not any(r.is_error for r in results)
    assert sorted(counter.ran) == list(range(5))


def test_none_runs_every_call() -> None:
    counter = Counter()
    results = run(counter.box(max_calls_per_turn=None).acall_many(calls(100)))
    assert not any(r.is_error for r in results)
    assert sorted(counter.ran) == list(range(100))


def test_a_generator_of_calls_is_capped_too() -> None:
    counter = Counter()
    results = run(counter.box(max_calls_per_turn=2).acall_many(c for c in calls(4)))
    assert [r.is_error for r in results] == [False, False, True, True]


def test_a_hostile_name_is_shown_briefly_in_a_refused_result() -> None:
    hostile = ToolCall(["not", "a", "name"] * 1000, {}, "x")  # type: ignore[arg-type]
    [_, refused] = run(Counter().box(max_calls_per_turn=1).acall_many([calls(1)[0], hostile]))
    assert refused.is_error
    assert refused.call_id == "x"
    assert isinstance(refused.name, str)
    assert len(refused.name) < 100


def test_refused_calls_are_a_warning_without_values(caplog: pytest.LogCaptureFixture) -> None:
    secret = ToolCall("echo-sk-secret", {"i": 0}, "call_secret")
    with caplog.at_level(logging.WARNING, logger="describedtypes"):
        run(Counter().box(max_calls_per_turn=2).acall_many([*calls(4), secret]))
    [record] = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert record.getMessage() == (
        "a turn made 5 tool calls; ran the first 2 (max_calls_per_turn) and sent an error "
        "result for each of the other 3"
    )
    assert "secret" not in caplog.text
    caplog.clear()
    with caplog.at_level(logging.DEBUG, logger="describedtypes"):
        run(Counter().box(max_calls_per_turn=2).acall_many([*calls(4), secret]))
    debug = [r.getMessage() for r in caplog.records if r.levelno == logging.DEBUG]
    assert any("'echo-sk-secret' ('call_secret')" in m for m in debug)


def test_within_the_cap_nothing_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="describedtypes"):
        run(Counter().box().acall_many(calls(32)))
    assert not caplog.records


@pytest.mark.parametrize("keyword", ["max_calls_per_turn", "max_result_chars_per_turn"])
@pytest.mark.parametrize("value", [0, -1, True, 1.5, "10", [3]])
def test_bad_limits_are_value_errors(keyword: str, value: Any) -> None:
    with pytest.raises(ValueError, match=rf"{keyword} must be a positive int or None \(no "
                       rf"limit\), got {value!r}".replace("[", r"\[").replace("]", r"\]")):
        Toolbox(**{keyword: value})


def test_an_int_subclass_is_taken_as_an_int() -> None:
    class Count(int):
        pass

    results = run(Counter().box(max_calls_per_turn=Count(1)).acall_many(calls(2)))
    assert [r.is_error for r in results] == [False, True]


# -- max_result_chars_per_turn ---------------------------------------------------------


def sizes(n: int) -> list[ToolCall]:
    return [ToolCall("text", {"size": n}, f"t{n}")]


def test_results_within_the_budget_are_whole() -> None:
    box = Counter().box(max_result_chars_per_turn=100)
    results = run(box.acall_many([ToolCall("text", {"size": s}, str(s)) for s in (10, 40, 50)]))
    assert [len(r.content) for r in results] == [10, 40, 50]


def test_the_longest_results_are_cut_to_an_equal_share() -> None:
    box = Counter().box(max_result_chars_per_turn=100)
    results = run(box.acall_many([ToolCall("text", {"size": s}, str(s)) for s in (10, 500, 90)]))
    short, long, medium = results
    assert short.content == "x" * 10  # whole: shorter than the share
    assert long.value == "x" * 500
    assert not long.is_error
    assert long.content == "x" * 45 + (
        "\n[The result was cut here: it had 500 characters and only the first 45 are shown, "
        "so that the 3 results of this turn fit in 100 characters. Make fewer tool calls at "
        "a time to see more of each.]"
    )
    assert medium.content.startswith("x" * 45 + "\n[The result was cut here: it had 90 ")


def test_max_result_chars_cuts_each_result_first() -> None:
    box = Counter().box(max_result_chars=30, max_result_chars_per_turn=1000)
    [result] = run(box.acall_many(sizes(500)))
    assert result.content.startswith("x" * 30 + "\n[The result was cut here: it had 500")


def test_a_tool_result_returned_by_a_tool_is_cut_and_keeps_its_fields() -> None:
    box = Toolbox(max_result_chars_per_turn=20)

    @box.tool
    def search(q: str) -> ToolResult:
        """Search."""
        return ToolResult(content="y" * 100, is_error=True, value=[1])

    [result] = run(box.acall_many([ToolCall("search", {"q": "a"}, "s")]))
    assert result.content.startswith("y" * 20 + "\n[The result was cut here")
    assert (result.is_error, result.value, result.call_id, result.name) == (
        True, [1], "s", "search"
    )


def test_refused_results_do_not_take_from_the_budget() -> None:
    box = Counter().box(max_calls_per_turn=1, max_result_chars_per_turn=50)
    results = run(box.acall_many(sizes(50) + calls(1000)))
    assert results[0].content == "x" * 50
    assert all(r.content.startswith("Not run:") for r in results[1:])


def test_no_budget_sends_everything() -> None:
    box = Counter().box(max_result_chars_per_turn=None, max_result_chars=None)
    [result] = run(box.acall_many(sizes(1_000_000)))
    assert len(result.content) == 1_000_000


def test_the_default_budget_is_400_000_characters() -> None:
    box = Counter().box()
    results = run(box.acall_many([ToolCall("text", {"size": 100_000}, str(i)) for i in range(8)]))
    shown = [r.content.index("\n[The result was cut here") for r in results]
    assert shown == [50_000] * 8


def test_cutting_is_logged_at_info_without_values(caplog: pytest.LogCaptureFixture) -> None:
    box = Counter().box(max_result_chars_per_turn=100)
    with caplog.at_level(logging.INFO, logger="describedtypes"):
        run(box.acall_many([ToolCall("text", {"size": s}, str(s)) for s in (10, 500)]))
    assert (
        "the results of 2 tool calls came to 510 characters; cut 1 of them to 90 characters "
        "each to fit max_result_chars_per_turn=100"
    ) in [r.getMessage() for r in caplog.records]


@given(st.lists(st.integers(0, 10_000), max_size=40), st.integers(1, 50_000))
def test_the_share_fits_the_budget_and_keeps_short_results_whole(
    lengths: list[int], budget: int
) -> None:
    level = share(lengths, budget)
    if level is None:
        assert sum(lengths) <= budget
        return
    shown = [min(n, level) for n in lengths]
    assert sum(shown) <= budget
    # The share is as large as it can be: one more character each for the cut ones
    # would not fit.
    assert sum(min(n, level + 1) for n in lengths) > budget

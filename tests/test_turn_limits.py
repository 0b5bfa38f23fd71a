"""The limits on one turn of tool calls: ``max_calls_per_turn`` (calls past it get an error
result and never run) and ``max_result_chars_per_turn`` (all the text of a turn, the error
results of calls not run and the notes about cuts included, is cut to fit, the longest
results first)."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from describedtypes import Toolbox, ToolCall, ToolResult
from describedtypes._tools.limits import fit, refused, share


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


def test_the_longest_results_are_cut_to_an_equal_share_notes_included() -> None:
    box = Counter().box(max_result_chars_per_turn=1000)
    results = run(box.acall_many([ToolCall("text", {"size": s}, str(s)) for s in (10, 5000, 900)]))
    short, long, medium = results
    assert short.content == "x" * 10  # whole: shorter than the share
    assert long.value == "x" * 5000
    assert not long.is_error
    assert long.content == "x" * 295 + (
        "\n[The result was cut here: it had 5,000 characters and only the first 295 are "
        "shown, so that the 3 results of this turn fit in 1,000 characters. Make fewer tool "
        "calls at a time to see more of each.]"
    )
    assert medium.content.startswith("x" * 295 + "\n[The result was cut here: it had 900 ")
    assert sum(len(r.content) for r in results) <= 1000  # the notes are in the budget


def test_a_small_budget_has_short_notes_then_none() -> None:
    box = Counter().box(max_result_chars_per_turn=300)
    results = run(box.acall_many([ToolCall("text", {"size": s}, str(s)) for s in (10, 500, 90)]))
    assert [r.content for r in results] == [
        "x" * 10, "x" * 170 + "\n[Cut: it had 500 characters.]", "x" * 90
    ]
    box = Counter().box(max_result_chars_per_turn=100)
    results = run(box.acall_many([ToolCall("text", {"size": s}, str(s)) for s in (10, 500, 90)]))
    assert [r.content for r in results] == ["x" * 10, "x" * 45, "x" * 45]  # no room for notes


def test_max_result_chars_cuts_each_result_first() -> None:
    box = Counter().box(max_result_chars=30, max_result_chars_per_turn=1000)
    [result] = run(box.acall_many(sizes(500)))
    assert result.content.startswith("x" * 30 + "\n[The result was cut here: it had 500")


def test_a_tool_result_returned_by_a_tool_is_cut_and_keeps_its_fields() -> None:
    box = Toolbox(max_result_chars_per_turn=500)

    @box.tool
    def search(q: str) -> ToolResult:
        """Search."""
        return ToolResult(content="y" * 1000, is_error=True, value=[1])

    [result] = run(box.acall_many([ToolCall("search", {"q": "a"}, "s")]))
    kept, note = result.content.split("\n", 1)
    assert set(kept) == {"y"}
    assert note.startswith(f"[The result was cut here: it had 1,000 characters and only the "
                           f"first {len(kept)} are shown")
    assert len(result.content) <= 500
    assert (result.is_error, result.value, result.call_id, result.name) == (
        True, [1], "s", "search"
    )


def test_refused_results_count_in_the_budget() -> None:
    box = Counter().box(max_calls_per_turn=1, max_result_chars_per_turn=40_000)
    results = run(box.acall_many(sizes(100_000) + calls(1000)))
    assert len(results) == 1001  # every call id is answered
    assert [r.call_id for r in results[1:]] == [f"call_{i}" for i in range(1000)]
    assert all(r.is_error for r in results[1:])
    assert results[1].content.startswith("Not run: this turn made 1,001 tool calls")
    assert {r.content for r in results[2:]} == {"Not run."}  # 999 of them in 10,000 - 163
    assert sum(len(r.content) for r in results[1:]) <= 40_000 // 4
    assert sum(len(r.content) for r in results) <= 40_000
    assert results[0].content.startswith("x" * 30_000)  # the call that ran has the rest


def test_past_a_quarter_of_the_budget_in_calls_each_gets_one_character() -> None:
    box = Counter().box(max_calls_per_turn=1, max_result_chars_per_turn=2_000)
    results = run(box.acall_many(sizes(100) + calls(1000)))
    assert results[1].content.startswith("Not run: this turn made 1,001 tool calls")
    assert {r.content for r in results[2:]} == {"-"}  # never empty: Anthropic refuses that
    assert results[0].content == "x" * 100


def test_few_refused_calls_each_say_why_in_full() -> None:
    box = Counter().box(max_calls_per_turn=2)
    results = run(box.acall_many(calls(5)))
    assert [r.content for r in results[2:]] == [
        "Not run: this turn made 5 tool calls and at most 2 are run per turn. Make at most 2 "
        "tool calls at a time; call this one again in a later turn if you still need it."
    ] * 3


def test_a_second_cut_tells_the_original_length() -> None:
    box = Counter().box(max_result_chars_per_turn=50_000)  # after the 100,000 of one result
    [result] = run(box.acall_many(sizes(5_000_000)))
    assert "it had 5,000,000 characters and only the first " in result.content
    assert result.content.count("[The result was cut here") == 1
    assert len(result.content) <= 50_000


def test_cut_notes_count_against_the_turn_budget() -> None:
    box = Counter().box(max_result_chars_per_turn=40_000)
    results = run(box.acall_many([ToolCall("text", {"size": 50_000}, str(i)) for i in range(8)]))
    assert all("[The result was cut here" in r.content for r in results)
    assert sum(len(r.content) for r in results) <= 40_000


@given(
    st.lists(st.integers(0, 3_000), max_size=12),
    st.integers(0, 300),
    st.integers(1, 20_000),
    st.integers(1, 5),
)
def test_a_turn_never_sends_more_than_its_budget(
    lengths: list[int], refused_count: int, budget: int, limit: int
) -> None:
    ran = [ToolResult(content="z" * n, call_id=str(i)) for i, n in enumerate(lengths)]
    not_run = refused(
        [ToolCall("t", {}, f"r{i}") for i in range(refused_count)], limit,
        len(lengths) + refused_count, budget,
    )
    assert len(not_run) == refused_count
    assert all(r.content for r in not_run)  # never empty: Anthropic refuses that
    spent = sum(len(r.content) for r in not_run)
    fitted = fit(ran, budget - spent, budget)
    assert [r.call_id for r in fitted] == [r.call_id for r in ran]
    total = spent + sum(len(r.content) for r in fitted)
    # Within the budget, unless it has no room for one character per result (and the
    # first refusal's reason, at most 200 characters).
    if refused_count + 200 <= budget // 4 and len(ran) <= budget * 3 // 4:
        assert spent <= budget // 4
        assert total <= budget
    assert total <= budget + refused_count + len(ran) + 200
    for before, after in zip(ran, fitted, strict=True):  # whole, or cut from its start
        assert after.content == before.content or before.content.startswith(
            after.content.split("\n[", 1)[0]
        )
        assert bool(after.content) == bool(before.content)


def test_the_default_budget_is_400_000_characters() -> None:
    box = Counter().box()
    results = run(box.acall_many([ToolCall("text", {"size": 100_000}, str(i)) for i in range(8)]))
    shown = {r.content.index("\n[The result was cut here") for r in results}
    assert len(shown) == 1  # an equal share each
    assert 49_700 < shown.pop() < 50_000  # the share, less its note
    assert sum(len(r.content) for r in results) <= 400_000


def test_cutting_is_logged_at_info_without_values(caplog: pytest.LogCaptureFixture) -> None:
    box = Counter().box(max_result_chars_per_turn=100)
    with caplog.at_level(logging.INFO, logger="describedtypes"):
        run(box.acall_many([ToolCall("text", {"size": s}, str(s)) for s in (10, 500)]))
    assert (
        "the results of 2 tool calls came to 510 characters; cut 1 of them to 60 characters "
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

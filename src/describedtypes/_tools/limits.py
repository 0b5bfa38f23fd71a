"""The limits on one turn of tool calls (one ``acall_many`` batch, one reply of the model).

- ``max_calls_per_turn``: the calls past it are not run; each gets an error result, so
  every call id the model sent still has its result (OpenAI and Anthropic reject a
  request in which a tool call has none).
- ``max_result_chars_per_turn``: the results of the calls that ran, together, are cut to
  fit. Short results stay whole; the longest are cut to an equal share.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

import attrs

from .._base.records import ToolCall, ToolResult, failure
from .._codec.problems import brief

logger = logging.getLogger("describedtypes")

DEFAULT_MAX_CALLS_PER_TURN = 32
"""The most tool calls of one turn that are run, unless configured."""

DEFAULT_MAX_RESULT_CHARS_PER_TURN = 400_000
"""The most characters the results of one turn send the model together, unless configured."""


def check_limit(name: str, value: Any) -> int | None:
    """``value`` if it is a positive int or None; else the ValueError that says so."""
    if value is None:
        return None
    if not isinstance(value, bool) and isinstance(value, int) and value >= 1:
        return int(value)
    msg = f"{name} must be a positive int or None (no limit), got {value!r}"
    raise ValueError(msg)


def refused(calls: Sequence[ToolCall], limit: int, total: int) -> list[ToolResult]:
    """Error results for ``calls``, which were not run: the turn had ``total`` calls."""
    content = (
        f"Not run: this turn made {total:,} tool calls and at most {limit:,} are run per "
        f"turn. Make at most {limit:,} tool calls at a time; call this one again in a "
        "later turn if you still need it."
    )
    results = []
    for call in calls:
        name = call.name
        results.append(failure(content, call.call_id, name if type(name) is str else brief(name)))
    logger.warning(
        "a turn made %d tool calls; ran the first %d (max_calls_per_turn) and sent an error "
        "result for each of the other %d", total, limit, len(calls),
    )
    if logger.isEnabledFor(logging.DEBUG):
        logger.debug(
            "tool calls not run: %.1000s", ", ".join(f"{c.name!r:.80} ({c.call_id!r:.80})"
                                                   for c in calls[:50]),
        )
    return results


def share(lengths: Sequence[int], budget: int) -> int | None:
    """The length to cut the longest results to so that all of them fit in ``budget``
    characters: None if they fit already. Results no longer than it stay whole."""
    if sum(lengths) <= budget:
        return None
    left = budget
    ordered = sorted(lengths)
    for k, length in enumerate(ordered):
        level = left // (len(ordered) - k)
        if length > level:
            return level
        left -= length
    return None  # pragma: no cover - the sum exceeds the budget, so some length does


def fit(results: list[ToolResult], budget: int | None) -> list[ToolResult]:
    """``results``, the longest cut so that their contents together fit in ``budget``."""
    if budget is None or len(results) == 0:
        return results
    lengths = [len(r.content) for r in results]
    level = share(lengths, budget)
    if level is None:
        return results
    total = sum(lengths)
    fitted = []
    cut = 0
    for result, length in zip(results, lengths, strict=True):
        if length > level:
            cut += 1
            result = attrs.evolve(result, content=_cut(result.content, level, len(results),
                                                       budget))
        fitted.append(result)
    logger.info(
        "the results of %d tool calls came to %d characters; cut %d of them to %d characters "
        "each to fit max_result_chars_per_turn=%d", len(results), total, cut, level, budget,
    )
    return fitted


def _cut(text: str, level: int, count: int, budget: int) -> str:
    return (
        f"{text[:level]}\n[The result was cut here: it had {len(text):,} characters and only "
        f"the first {level:,} are shown, so that the {count:,} results of this turn fit in "
        f"{budget:,} characters. Make fewer tool calls at a time to see more of each.]"
    )

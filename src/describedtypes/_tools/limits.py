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
from .model_text import original_length

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


REFUSED_SHARE = 4
"""The error results of calls not run take at most 1/REFUSED_SHARE of a turn's budget."""

_SHORT_REFUSAL = "Not run: this turn made too many tool calls."
_MINIMAL_REFUSAL = "Not run."
_FLOOR = "-"
"""The least a result says: never nothing, since Anthropic refuses an empty error result
("content cannot be empty if `is_error` is true")."""


def refused(
    calls: Sequence[ToolCall], limit: int, total: int, budget: int | None = None
) -> list[ToolResult]:
    """Error results for ``calls``, which were not run: the turn had ``total`` calls.

    With a ``budget`` (``max_result_chars_per_turn``), their texts together take at most
    a quarter of it: the first says why in full, the others as briefly as they must (the
    same text for each: in full, shorter, "Not run.", then "-"). One character each is
    the least, since an empty error result is refused by Anthropic: so a turn of about as
    many calls as a quarter of the budget (100,000 under the default) takes more than the
    quarter, and past the whole budget only with more calls than it has characters.
    """
    content = (
        f"Not run: this turn made {total:,} tool calls and at most {limit:,} are run per "
        f"turn. Make at most {limit:,} tool calls at a time; call this one again in a "
        "later turn if you still need it."
    )
    texts = [content] * len(calls) if budget is None else _refusals(content, len(calls), budget)
    results = []
    for call, text in zip(calls, texts, strict=True):
        name = call.name
        results.append(failure(text, call.call_id, name if type(name) is str else brief(name)))
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


def _refusals(content: str, count: int, budget: int) -> list[str]:
    if count == 0:
        return []
    room = budget // REFUSED_SHARE
    tiers = (content, _SHORT_REFUSAL, _MINIMAL_REFUSAL, _FLOOR)
    rest = count - 1
    first = next((t for t in tiers if len(t) <= room), _FLOOR)  # says why, in full if it can
    room -= len(first)
    # One text for all the others: the longest that fits (one character each at least).
    other = next((t for t in tiers if rest * len(t) <= room), _FLOOR)
    return [first] + [other] * rest


def share(lengths: Sequence[int], budget: int, note: int = 0) -> int | None:
    """The length to cut the longest results to so that all of them fit in ``budget``
    characters, each cut one costing ``note`` more for the note saying so: None if they
    fit already. Results no longer than that length plus ``note`` stay whole. Negative
    when the notes alone would not fit."""
    if sum(lengths) <= budget:
        return None
    left = budget
    ordered = sorted(lengths)
    for k, length in enumerate(ordered):
        allotted = left // (len(ordered) - k)
        if length > allotted:
            return allotted - note
        left -= length
    return None  # pragma: no cover - the sum exceeds the budget, so some length does


def fit(
    results: list[ToolResult], budget: int | None, shown_budget: int | None = None
) -> list[ToolResult]:
    """``results``, the longest cut so that their contents, the notes saying so included,
    together fit in ``budget`` characters (``shown_budget``: the turn's whole budget, as
    the notes tell it)."""
    if budget is None or len(results) == 0:
        return results
    lengths = [len(r.content) for r in results]
    if sum(lengths) <= budget:
        return results
    told = budget if shown_budget is None else shown_budget
    originals = [original_length(r) for r in results]
    longest = max(n for n, _ in originals)
    count = len(results)
    # The note each cut result gets: the longest wording whose notes leave at least as
    # much of the results as they take; with none, the results are cut without a note.
    notes: tuple[Any, ...] = (
        lambda n, level: _long_note(n, level, count, told),
        lambda n, level: f"\n[Cut: it had {n:,} characters.]",
        lambda n, level: "",
    )
    level = size = 0
    for note in notes:
        size = len(note(longest, budget))
        found = share(lengths, budget, size)
        assert found is not None  # the sum exceeds the budget
        level = found
        if level >= size:
            break
    level = max(level, len(_FLOOR))  # a cut result keeps a character: never empty
    fitted = []
    cut = 0
    for result, length, (original, kept) in zip(results, lengths, originals, strict=True):
        if length > level + size:
            cut += 1
            content = result.content[: min(level, kept)] + note(original, min(level, kept))
            result = attrs.evolve(result, content=content)
        fitted.append(result)
    logger.info(
        "the results of %d tool calls came to %d characters; cut %d of them to %d characters "
        "each to fit max_result_chars_per_turn=%d", len(results), sum(lengths), cut, level,
        told,
    )
    return fitted


def _long_note(original: int, level: int, count: int, budget: int) -> str:
    return (
        f"\n[The result was cut here: it had {original:,} characters and only the first "
        f"{level:,} are shown, so that the {count:,} results of this turn fit in {budget:,} "
        "characters. Make fewer tool calls at a time to see more of each.]"
    )

"""The provider errors that mean a request went over a strict-schema budget, told as a
``RequestError`` that names the budget and the fix.

Anthropic compiles the strict tools and the output format of a request into one grammar
and answers HTTP 400 when they are over its budgets; the texts below are those of its
errors as users met them (docs/requests.md has the sources).
"""

from __future__ import annotations

from typing import Any

from ..errors import RequestError

__all__ = ["BUDGET_ERRORS", "budget_error"]

_FIX = (
    "send the tools that do not fit non-strict: Toolbox(..., strict=\"prefer\") (the "
    "default) or definitions(..., strict=\"prefer\"); toolbox.plan(adapter, "
    "output_type=...) shows what would be sent"
)

#: (text the provider's message holds, lower-cased) -> (the budget, the fix).
BUDGET_ERRORS: tuple[tuple[str, str, str], ...] = (
    ("too many strict tools", "the budget of strict tools per request (Anthropic: 20)", _FIX),
    ("too many optional parameters",
     "the budget of optional parameters per request (Anthropic: 24, counted over the strict "
     "tools and the output format, through nested objects and array items)",
     _FIX + "; or make parameters required"),
    ("too many parameters with union types",
     "the budget of union-typed parameters per request (Anthropic: 16, nullable ones "
     "included, over the strict tools and the output format)",
     _FIX + "; or make parameters non-nullable"),
    ("compiled grammar is too large",
     "the size of the grammar compiled from the strict tools and the output format (a "
     "limit the provider does not publish)",
     _FIX + "; or send fewer strict tools, or a smaller output type"),
    ("schema is too complex for compilation",
     "the time the provider may take to compile the strict tools and the output format",
     _FIX + "; or send fewer strict tools, or a smaller output type"),
)

#: How much of an error's text is searched: the budget texts come first in the message.
_SEARCHED = 4000


def budget_error(error: BaseException) -> RequestError | None:
    """The ``RequestError`` for a provider error over a strict-schema budget, else None."""
    try:
        text = str(error)[:_SEARCHED]
    except Exception:
        return None
    lowered = text.lower()
    for needle, budget, fix in BUDGET_ERRORS:
        if needle in lowered:
            return RequestError(f"over {budget}", f"{fix}. The provider said: {_one_line(text)}")
    return None


def _one_line(text: Any) -> str:
    flat = " ".join(str(text).split())
    return flat if len(flat) <= 500 else flat[:497] + "..."

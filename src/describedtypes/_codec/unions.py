"""The problem reported when a value matches no option of a union.

Naming one option's failure misleads the model's next try (``''`` for
``Literal[7, "yzz", "z"] | Annotated[str, Len(2, 6)] | None`` said only that ``''`` is
not one of the literals). When every option that was tried failed with one problem at
the same place, those problems are merged into one that names each option's; otherwise
the smallest failure is kept (of two as small, the one whose problems lie deeper: the
value went further in that option, as ``{"f0": {"code": ""}}`` does in a class with a
field ``f0`` beside a ``dict[str, Color]``), and its first problem names the options of
other kinds.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .problems import Invalid

__all__ = ["union_failure"]


def union_failure(
    failures: Sequence[list[list[Any]]], untried: Sequence[str], allowed: str
) -> Invalid:
    """One ``Invalid`` for a value every option of a union refused.

    Args:
        failures: The problems each option that was tried found (paths relative to the
            value, innermost segment first).
        untried: The kinds of the options of other JSON kinds (``"null"``), not tried.
        allowed: What the union allows, in words (``expected_kinds``).
    """
    singles = [f[0] for f in failures if len(f) == 1 and isinstance(f[0][0], str)]
    if failures and len(singles) == len(failures):
        where = singles[0][1:]
        if all(item[1:] == where for item in singles):
            parts: list[str] = []
            for item in singles:
                if item[0] not in parts:
                    parts.append(item[0])
            if not where:  # the other kinds are the value's, not a part's inside it
                parts += [kind for kind in untried if kind not in parts]
            if len(parts) > 1:
                message = "matches none of the union's options: " + "; or: ".join(parts)
                return Invalid([[message, *where]])
    best = [list(item) for item in min(failures, key=_rank)] if failures else [[allowed]]
    first = best[0]
    if isinstance(first[0], str) and untried and len(first) == 1:
        first[0] = f"{first[0]} (the union also allows {' or '.join(untried)})"
    return Invalid(best)


def _rank(failure: list[list[Any]]) -> tuple[int, int]:
    """Fewer problems first; then the deepest (a problem's path segments follow its text)."""
    return len(failure), -max((len(item) for item in failure), default=0)

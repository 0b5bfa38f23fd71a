"""The sentences a description gains for the bounds an adapter does not take."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from describedtypes._schema.wording import constraint_sentences

bounds = st.integers(0, 10_000)


@given(bounds, bounds)
def test_both_bounds_of_a_length_are_one_clause(a: int, b: int) -> None:
    """A length with a lower and an upper bound reads "N to M", or "exactly N" when they
    are equal; each number is said once."""
    low, high = min(a, b), max(a, b)
    text = constraint_sentences({"minLength": low, "maxLength": high})
    if low == high:
        assert text == f"Must have exactly {low} character{'' if low == 1 else 's'}."
    else:
        assert text == f"Must have {low} to {high} characters."


@given(bounds)
def test_one_bound_alone_says_which_side(n: int) -> None:
    """A lower or upper bound alone says "at least" or "at most"."""
    s = "" if n == 1 else "s"
    assert constraint_sentences({"minItems": n}) == f"Must have at least {n} item{s}."
    assert constraint_sentences({"maxItems": n}) == f"Must have at most {n} item{s}."


def test_clauses_with_one_opening_are_joined() -> None:
    """Bounds of one kind are one sentence; other kinds follow as their own."""
    assert constraint_sentences({"minimum": 1, "maximum": 9, "pattern": "^a"}) == (
        "Must be at least 1 and at most 9. Must match the regular expression `^a`."
    )
    assert constraint_sentences({"minItems": 2, "maxItems": 4, "minLength": 3}) == (
        "Must have 2 to 4 items and at least 3 characters."
    )

"""The sentences a description gains for what a keyword cannot say (or may not be sent).

When an adapter does not take a keyword (OpenAI strict mode has no ``minLength``) or an
engine would silently ignore it, the builder writes the constraint into the description
instead, in these words, and the decoder enforces it. They are short on purpose: every
word is sent with every request.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from .._types import inspector as ni
from .._types.nodes import scalar_of

__all__ = ["constraint_sentences", "format_sentence", "key_sentence", "one_of_sentence"]


# What a string of a format is, for engines that cannot hold the format itself.
_FORMAT_TEXT = {
    "date-time": "Must be a date and time (RFC 3339, e.g. 2024-01-31T09:30:00Z).",
    "time": "Must be a time of day with its offset (RFC 3339, e.g. 09:30:00Z).",
    "date": "Must be a date (YYYY-MM-DD).",
    "uuid": "Must be a UUID.",
    "email": "Must be an email address.",
    "uri": "Must be an absolute URI.",
    "hostname": "Must be a host name.",
    "ipv4": "Must be an IPv4 address.",
    "ipv6": "Must be an IPv6 address.",
    "duration": "Must be an ISO 8601 duration (e.g. P3DT4H).",
}


def format_sentence(fmt: str) -> str:
    """What a string of the JSON Schema format ``fmt`` must be, as a sentence."""
    return _FORMAT_TEXT.get(fmt, f"Must be a valid {fmt} string.")


# A bound the provider does not take as a keyword is written into the description:
# (sentence opening, clause) per keyword; clauses with the same opening are joined.
_CONSTRAINT_TEXT = {
    "minimum": ("Must be", "at least {}"),
    "exclusiveMinimum": ("Must be", "greater than {}"),
    "maximum": ("Must be", "at most {}"),
    "exclusiveMaximum": ("Must be", "less than {}"),
    "multipleOf": ("Must be", "a multiple of {}"),
    "minLength": ("Must have", "at least {} character{s}"),
    "maxLength": ("Must have", "at most {} character{s}"),
    "pattern": ("Must match", "the regular expression `{}`"),
    "minItems": ("Must have", "at least {} item{s}"),
    "maxItems": ("Must have", "at most {} item{s}"),
}

# The two bounds of one length, said as one clause with the lower bound (the upper one
# is then left out): lower keyword -> (upper keyword, what is counted).
_LENGTHS = {"minLength": ("maxLength", "character"), "minItems": ("maxItems", "item")}
_LOWER = {upper: lower for lower, (upper, _) in _LENGTHS.items()}


def _plural(count: Any) -> str:
    return "" if count == 1 else "s"


def _length_range(low: Any, high: Any, noun: str) -> str:
    """``exactly 2 characters`` or ``2 to 5 characters``: both bounds of a length."""
    if low == high:
        return f"exactly {low} {noun}{_plural(low)}"
    return f"{low} to {high} {noun}s"


def constraint_sentences(described: Mapping[str, Any]) -> str:
    """The bounds in ``described`` (keyword: value) as sentences for a description.

    Clauses with the same opening are joined ("Must be at least 1 and at most 9."); the
    two bounds of a length are one clause ("Must have 2 to 5 characters.", "Must have
    exactly 2 characters.").
    """
    clauses: dict[str, list[str]] = {}
    for key, value in described.items():
        opening, clause = _CONSTRAINT_TEXT[key]
        if key in _LENGTHS and _LENGTHS[key][0] in described:
            upper, noun = _LENGTHS[key]
            text = _length_range(value, described[upper], noun)
        elif key in _LOWER and _LOWER[key] in described:
            continue  # said with its lower bound
        else:
            text = clause.format(value, s=_plural(value))
        clauses.setdefault(opening, []).append(text)
    return " ".join(f"{opening} {' and '.join(parts)}." for opening, parts in clauses.items())


def key_sentence(key: ni.ScalarNode) -> str | None:
    """The sentence that says what every key of a dict must be, or None for any string."""
    row = scalar_of(key)
    parts: list[str] = []
    if row is not None and row.says is not None:
        parts.append(f"Every key is {row.says}.")
        if row.number_text:  # its pattern is the one it always has: said already
            return parts[0]
    c = key.constraints
    if c.min_length is not None and c.max_length is not None:
        parts.append(f"Every key has {_length_range(c.min_length, c.max_length, 'character')}.")
    else:
        for keyword, value in (("minLength", c.min_length), ("maxLength", c.max_length)):
            if value is not None:  # worded as the bounds moved into descriptions are
                clause = _CONSTRAINT_TEXT[keyword][1].format(value, s=_plural(value))
                parts.append(f"Every key has {clause}.")
    if c.pattern is not None:
        parts.append(f"Every key matches {_CONSTRAINT_TEXT['pattern'][1].format(c.pattern)}.")
    return " ".join(parts) or None


def one_of_sentence(values: Any, lead: str = "Must be") -> str:
    """``Must be one of: "a", "b".`` (or ``Must be "a".``): the values, as JSON."""
    shown = [orjson.dumps(v).decode() for v in values]
    if len(shown) == 1:
        return f"{lead} {shown[0]}."
    return f"{lead} one of: {', '.join(shown)}."

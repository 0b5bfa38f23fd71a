"""``Usage``: the tokens a request cost, read from each provider's own usage fields."""

from __future__ import annotations

from typing import Any

import attrs

__all__ = ["Usage"]


#: The largest count read (int64's, what the providers' own APIs use); a larger one from
#: a hostile server is no count (it could not even be printed: Python refuses to turn an
#: int of more than 4,300 digits into text), and a sum stops there.
MAX_COUNT = 2**63 - 1


def _count(value: Any) -> int:
    """A token count as the provider gave it; anything but an int from 0 to ``MAX_COUNT``
    is 0."""
    return value if type(value) is int and 0 <= value <= MAX_COUNT else 0


def _sum(a: int, b: int) -> int:
    return min(a + b, MAX_COUNT)


@attrs.frozen(slots=True)
class Usage:
    """Tokens and requests, summed with ``+`` (and ``sum()``).

    The counts follow one definition for every provider, the one the OpenTelemetry GenAI
    conventions use: ``input_tokens`` is all input, cached tokens included (for Anthropic
    the sum of ``input_tokens``, ``cache_read_input_tokens`` and
    ``cache_creation_input_tokens``); ``output_tokens`` is all output, reasoning included
    (for Gemini ``candidatesTokenCount`` plus ``thoughtsTokenCount``). A count the provider
    does not report is 0, and so is one beyond 2**63 - 1 (no real count; a sum stops
    there).

    Attributes:
        requests: Requests made (a reply without usage fields still counts one).
        input_tokens: Prompt tokens, cached ones included.
        output_tokens: Generated tokens, reasoning ones included.
        cached_input_tokens: The part of ``input_tokens`` read from the provider's cache.
        reasoning_tokens: The part of ``output_tokens`` spent on reasoning (thinking).

    .. versionadded:: 0.3.0
    """

    requests: int = attrs.field(default=0, converter=_count)
    input_tokens: int = attrs.field(default=0, converter=_count)
    output_tokens: int = attrs.field(default=0, converter=_count)
    cached_input_tokens: int = attrs.field(default=0, converter=_count)
    reasoning_tokens: int = attrs.field(default=0, converter=_count)

    def __add__(self, other: object) -> Usage:
        if not isinstance(other, Usage):
            return NotImplemented
        return Usage(
            _sum(self.requests, other.requests),
            _sum(self.input_tokens, other.input_tokens),
            _sum(self.output_tokens, other.output_tokens),
            _sum(self.cached_input_tokens, other.cached_input_tokens),
            _sum(self.reasoning_tokens, other.reasoning_tokens),
        )

    def __radd__(self, other: object) -> Usage:
        if other == 0:  # sum() starts from 0
            return self
        if not isinstance(other, Usage):
            return NotImplemented
        return other + self

    def _repr_html_(self) -> str:
        cells = "".join(
            f"<td>{getattr(self, name):,}</td>" for name in _FIELDS
        )
        heads = "".join(f"<th>{name.replace('_', ' ')}</th>" for name in _FIELDS)
        return f"<table><tr>{heads}</tr><tr>{cells}</tr></table>"


_FIELDS = ("requests", "input_tokens", "output_tokens", "cached_input_tokens", "reasoning_tokens")

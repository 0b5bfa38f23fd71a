"""``Problem``: one thing a provider would reject, as ``check()`` reports it."""

from __future__ import annotations

import attrs

__all__ = ["Problem"]


@attrs.frozen
class Problem:
    """One thing a provider would reject, found by ``check()``.

    Attributes:
        pointer: JSON pointer (RFC 6901) into the checked document; ``""`` is its root.
        rule: The rule that found it (``"additionalProperties"``, ``"keyword"``,
            ``"limit.depth"``, ...).
        message: What is wrong, why, and how to fix it.

    .. versionadded:: 0.1.0
    """

    pointer: str
    rule: str
    message: str

    def __str__(self) -> str:
        return f"{self.pointer or '/'}: {self.message} [{self.rule}]"

"""JSON Schema ``pattern``: what a pattern uses, and how a grammar engine reads one.

A ``pattern`` is an ECMA-262 regular expression. The provider rules need to know which
features it uses (Anthropic's strict grammar has no lookaround), the engine dialects
need that and a few rewrites before sending. All of them read the pattern the same way,
with ``pieces()``: an escape is two characters, and inside a character class the
metacharacters stand for themselves. This module imports nothing of the package, so
both ``rules`` and ``engines`` can use it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

import attrs

__all__ = [
    "Dialect",
    "Feature",
    "Piece",
    "features",
    "optional_groups_counted",
    "pattern_features",
    "pieces",
    "rewrite_shorthands",
]

#: Shorthand escapes with an exact ASCII class under ECMA-262 (the dialect of JSON
#: Schema's ``pattern``), for engines that do not read the shorthand.
_CLASS_OF = {"d": "0-9", "w": "A-Za-z0-9_"}

#: Escapes of a metacharacter standing for itself: every engine reads them.
_LITERAL_ESCAPES = frozenset(r"\.^$|?*+()[]{}/")


class Piece(NamedTuple):
    """One unit of a pattern, as ``pieces()`` reads it.

    Attributes:
        text: An escape (``\\d``), a class opening (``[``, ``[^``, ``[]`` or ``[^]``:
            a ``]`` first in a class is a literal), or one character.
        at: Where ``text`` starts in the pattern.
        in_class: The piece is part of a character class (its opening and its
            closing ``]`` included).
    """

    text: str
    at: int
    in_class: bool

    @property
    def escaped(self) -> str:
        """The character after the backslash, for an escape; else ``""``."""
        return self.text[1] if len(self.text) == 2 and self.text[0] == "\\" else ""


def pieces(pattern: str) -> Iterator[Piece]:
    """``pattern`` as escapes, class openings and single characters, in order.

    A lone backslash at the end is a single character, as the scanners always read it.
    """
    i, n, in_class = 0, len(pattern), False
    while i < n:
        c = pattern[i]
        if c == "\\" and i + 1 < n:
            yield Piece(pattern[i:i + 2], i, in_class)
            i += 2
        elif c == "[" and not in_class:
            # A "]" right after "[" or "[^" is a literal, not the end of the class.
            j = i + 1
            if j < n and pattern[j] == "^":
                j += 1
            if j < n and pattern[j] == "]":
                j += 1
            yield Piece(pattern[i:j], i, True)
            in_class = True
            i = j
        else:
            yield Piece(c, i, in_class)
            if in_class and c == "]":
                in_class = False
            i += 1


class Feature(NamedTuple):
    """A regex feature found in a pattern, and whether it sits in a character class."""

    name: str
    in_class: bool


def features(pattern: str) -> Iterator[Feature]:
    """Every feature of ``pattern`` that some reader treats specially, in order.

    The names: ``unicode classes`` (``\\p{...}``), ``word boundaries`` (``\\b``,
    ``\\B`` outside a class: inside one ``\\b`` is a backspace, reported as ``\\b``),
    ``backreferences`` (``\\1``-``\\9``, ``\\k<name>``, ``(?P=name)``), ``inner
    anchors`` (``^``/``$`` other than at the two ends), ``lookahead``, ``lookbehind``,
    and ``\\X`` for any other escape that is not a metacharacter standing for itself.
    A feature is reported each time it occurs; callers keep what their reader lacks.
    """
    n = len(pattern)
    for piece in pieces(pattern):
        d = piece.escaped
        if d:
            name = _escape_feature(d, piece.in_class)
            if name:
                yield Feature(name, piece.in_class)
        elif piece.in_class:
            continue
        elif piece.text in ("^", "$"):
            # "^" first and "$" last anchor the whole pattern; anywhere else they are inner.
            if piece.at != (0 if piece.text == "^" else n - 1):
                yield Feature("inner anchors", False)
        elif piece.text == "(" and pattern.startswith("?", piece.at + 1):
            rest = pattern[piece.at + 2:piece.at + 4]
            if rest[:1] in ("=", "!"):
                yield Feature("lookahead", False)
            elif rest in ("<=", "<!"):
                yield Feature("lookbehind", False)
            elif rest == "P=":
                yield Feature("backreferences", False)


def _escape_feature(d: str, in_class: bool) -> str:
    """The feature name of a backslash followed by ``d`` (``""``: a literal metacharacter)."""
    if d in "pP":
        return "unicode classes"
    if d in "bB" and not in_class:
        return "word boundaries"
    # \1 in a class counts here too, though ECMA-262 reads it there as a legacy octal
    # escape (Annex B): a caller that means only true backreferences drops those.
    if (d.isdigit() and d != "0") or d == "k":
        return "backreferences"
    return "" if d in _LITERAL_ESCAPES else "\\" + d


def pattern_features(pattern: str) -> frozenset[str]:
    """The regex features in ``pattern`` that grammar engines read differently.

    ``unanchored`` (the pattern is not ``^...$``: JSON Schema searches anywhere in the
    string), and every name ``features()`` reports (in a class or not).

    .. versionadded:: 0.3.0
    """
    found = {f.name for f in features(pattern)}
    anchored_end = pattern.endswith("$") and not _escaped_at(pattern, len(pattern) - 1)
    if not (pattern.startswith("^") and anchored_end):
        found.add("unanchored")
    return frozenset(found)


def _escaped_at(pattern: str, index: int) -> bool:
    """The character at ``index`` is escaped (an odd run of backslashes before it)."""
    count = 0
    while index - 1 - count >= 0 and pattern[index - 1 - count] == "\\":
        count += 1
    return count % 2 == 1


def rewrite_shorthands(pattern: str, names: frozenset[str]) -> str:
    """``pattern`` with the shorthand escapes in ``names`` (``d``, ``w``) as ASCII classes."""
    out: list[str] = []
    for piece in pieces(pattern):
        d = piece.escaped
        if d and d in names:
            # Inside a class the range joins it: [\d.] becomes [0-9.].
            out.append(_CLASS_OF[d] if piece.in_class else f"[{_CLASS_OF[d]}]")
        else:
            out.append(piece.text)
    return "".join(out)


def optional_groups_counted(pattern: str) -> str:
    """``pattern`` with every ``(...)?`` spelled ``(...){0,1}`` (the same language)."""
    out: list[str] = []
    quantifier_at = -1  # the "?" already written as {0,1}
    for piece in pieces(pattern):
        if piece.at == quantifier_at:
            continue
        if piece.text == ")" and not piece.in_class and pattern.startswith("?", piece.at + 1):
            out.append("){0,1}")
            quantifier_at = piece.at + 1
        else:
            out.append(piece.text)
    return "".join(out)


@attrs.frozen(kw_only=True)
class Dialect:
    """How an engine reads a ``pattern``.

    Attributes:
        matching: ``"search"`` (JSON Schema's reading: the pattern may match anywhere)
            or ``"full"`` (the engine matches the whole string, so an unanchored
            pattern refuses valid values).
        refused: The features of ``pattern_features`` the engine does not read as
            JSON Schema means them (it ignores them, errs, or accepts any string); a
            pattern using one goes into the description.
        escapes: The escapes other than metacharacters the engine reads (None: all).
        rewritten: Shorthand escapes rewritten to their exact ASCII class before
            sending (``\\d`` as ``[0-9]``), for engines that do not read them.
        counted_optional_groups: ``(...)?`` is sent as ``(...){0,1}``, for an engine
            that misreads an optional group after an alternation.

    .. versionadded:: 0.3.0
    """

    matching: str
    refused: frozenset[str]
    escapes: frozenset[str] | None = None
    rewritten: frozenset[str] = frozenset()
    counted_optional_groups: bool = False

    def fit(self, pattern: str) -> tuple[str | None, str]:
        """The pattern to send (None: say it in the description instead) and why not."""
        if self.counted_optional_groups:
            pattern = optional_groups_counted(pattern)
        found = pattern_features(pattern)
        if self.rewritten and any("\\" + d in found for d in self.rewritten):
            pattern = rewrite_shorthands(pattern, self.rewritten)
            found = pattern_features(pattern)
        bad = sorted(f for f in found if f in self.refused or (
            f.startswith("\\") and self.escapes is not None and f not in self.escapes
        ))
        if bad:
            return None, ", ".join(bad)
        return pattern, ""

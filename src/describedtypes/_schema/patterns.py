"""JSON Schema ``pattern``: what a pattern uses, and how a grammar engine reads one.

A ``pattern`` is an ECMA-262 regular expression. The provider rules need to know which
features it uses (Anthropic's strict grammar has no lookaround), the engine dialects
need that and a few rewrites before sending. All of them read the pattern the same way,
with ``pieces()``: an escape is two characters, and inside a character class the
metacharacters stand for themselves. This module imports nothing of the package, so
both ``rules`` and ``engines`` can use it.
"""

from __future__ import annotations

import array
import functools
import re
import sys
from collections.abc import Iterator, Mapping
from typing import NamedTuple

import attrs

__all__ = [
    "Dialect",
    "Feature",
    "Piece",
    "features",
    "json_text",
    "json_text_unescaped",
    "optional_groups_counted",
    "pattern_features",
    "pieces",
    "python_classes",
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


def rewrite_shorthands(pattern: str, names: frozenset[str],
                       classes: Mapping[str, str] = _CLASS_OF) -> str | None:
    """``pattern`` with the shorthand escapes in ``names`` written as classes.

    ``classes`` maps ``d`` and ``w`` to a class's inside (ASCII by default); ``D`` and
    ``W`` in ``names`` are written as the negated class outside a class, and cannot be
    written inside one (None).
    """
    out: list[str] = []
    for piece in pieces(pattern):
        d = piece.escaped
        if d and d in names:
            inside = classes[d.lower()]
            if d.isupper():
                if piece.in_class:
                    return None
                out.append(f"[^{inside}]")
            else:
                # Inside a class the range joins it: [\d.] becomes [0-9.].
                out.append(inside if piece.in_class else f"[{inside}]")
        else:
            out.append(piece.text)
    return "".join(out)


#: What Python's ``\\s`` holds beyond Rust's (llguidance's): U+001C-U+001F.
_RUST_SPACES_LACK = "\\x1c-\\x1f"


def python_spaces(pattern: str) -> str | None:
    """``pattern`` with ``\\s`` and ``\\S`` meaning what Python's ``re`` means, for a
    reader whose ``\\s`` is Unicode's White_Space (Rust's regex crate): that leaves out
    U+001C-U+001F, which Python's takes, so ``\\s`` is sent as ``[\\s\\x1c-\\x1f]``
    (in a class, ``\\s\\x1c-\\x1f``) and ``\\S`` as ``[^\\s\\x1c-\\x1f]``. ``\\S`` inside a
    class cannot be written so (None). A ``\\s`` already followed by ``\\x1c-\\x1f`` is
    kept, so the rewrite leaves its own output as it is.
    """
    out: list[str] = []
    for piece in pieces(pattern):
        d = piece.escaped
        done = piece.in_class and pattern.startswith(_RUST_SPACES_LACK, piece.at + 2)
        if d == "s" and not done:
            inside = "\\s" + _RUST_SPACES_LACK
            out.append(inside if piece.in_class else f"[{inside}]")
        elif d == "S":
            if piece.in_class:
                return None
            out.append(f"[^\\s{_RUST_SPACES_LACK}]")
        else:
            out.append(piece.text)
    return "".join(out)


@functools.lru_cache(maxsize=1)
def python_classes() -> dict[str, str]:
    """What Python's ``re`` means by ``\\d`` and ``\\w`` in a str pattern, as class insides.

    Read from ``re`` itself, over every code point (its Unicode version is the running
    Python's), and written with the characters themselves (none of them needs an escape
    in a class): the decoder checks patterns with ``re``, so an engine sent these holds
    what the decoder holds.
    """
    codes = array.array("I", range(sys.maxunicode + 1))
    codes[0xD800:0xE000] = array.array("I", [0x20]) * 0x800  # no surrogate is \\w or \\d
    text = codes.tobytes().decode("utf-32-le" if sys.byteorder == "little" else "utf-32-be")
    found: dict[str, str] = {}
    for name in ("d", "w"):
        parts = []
        for m in re.finditer(f"\\{name}+", text):
            first, last = m.group()[0], m.group()[-1]
            parts.append(first if m.end() - m.start() == 1 else
                         f"{first}{last}" if m.end() - m.start() == 2 else f"{first}-{last}")
        found[name] = "".join(parts)
    return found


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


# -- patterns matched against a string's JSON text ----------------------------------------

#: What a string's JSON text holds only escaped: '"', backslash, U+0000-U+001F.
_QUOTE, _BACKSLASH, _CONTROLS = 0x22, 0x5C, (0x00, 0x1F)
#: The characters the class ``_SAFE`` leaves out, spelled as every engine's regex reads
#: them (\x.. rather than \- or raw control characters, which some do not).
_UNSAFE_IN_CLASS = '"\\\\\\x00-\\x1f'
#: The JSON text of one '"' and of one backslash, as a regex.
_ESCAPED = {_QUOTE: '\\\\"', _BACKSLASH: "\\\\\\\\"}
#: Escapes for one control character, and their JSON spelling as a regex.
_CONTROL_ESCAPES = {"n": "\\\\n", "t": "\\\\t", "r": "\\\\r", "f": "\\\\f"}
#: "." (any character but a newline) over JSON text.
_ANY_BUT_NEWLINE = (f"(?:[^{_UNSAFE_IN_CLASS}]|{_ESCAPED[_QUOTE]}|{_ESCAPED[_BACKSLASH]}|"
                    + "|".join(v for k, v in _CONTROL_ESCAPES.items() if k != "n") + ")")
#: "." written raw, with no escape: any character but those JSON text holds escaped.
_ANY_RAW = f"[^{_UNSAFE_IN_CLASS}]"
_SHORTHAND_RANGES = {"d": ((0x30, 0x39),),
                     "w": ((0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A))}
_ESCAPE_CODES = {"n": 0x0A, "t": 0x09, "r": 0x0D, "f": 0x0C, "v": 0x0B, "0": 0x00, "b": 0x08}


class _Unreadable(Exception):
    """A pattern part whose characters cannot be told apart here (\\p{...}, \\S)."""


def json_text(pattern: str) -> tuple[str | None, str]:
    """``pattern`` as a regex over the JSON text of a string, or None and why not.

    For engines that match ``pattern`` against the text between the quotes, as written:
    ``.`` or ``[^a]`` there would let the model write a raw ``"``, backslash or control
    character, which is not JSON. ``.``, negated classes and classes holding such a
    character are sent as a group: the class without them, or their escaped JSON
    spelling (``\\"`` and ``\\\\``); a literal ``"``, backslash, ``\\n``, ``\\t``,
    ``\\r`` or ``\\f`` as its escaped spelling. Each text the result matches decodes
    to a string the pattern matches; other control characters cannot be written. A
    literal backslash already followed by a JSON escape's letter (``\\\\n``, ``\\\\"``)
    is taken as that escape and kept, so the result passes through unchanged.
    """
    return _over_json(pattern, escapes=True)


_UNWRITABLE = "a '\"', backslash or control character, which the engine would write unescaped"


@functools.lru_cache(maxsize=1)
def space_ranges() -> tuple[tuple[int, int], ...]:
    """The code point ranges of ``\\s`` as Python's ``re`` means it in a str pattern, read
    from ``re`` itself: U+0009-U+000D, U+001C-U+0020, U+0085, U+00A0, U+1680,
    U+2000-U+200A, U+2028, U+2029, U+202F, U+205F and U+3000 (all in the BMP, in the
    Unicode versions so far; the whole range is read all the same)."""
    codes = array.array("I", range(sys.maxunicode + 1))
    codes[0xD800:0xE000] = array.array("I", [0x41]) * 0x800
    text = codes.tobytes().decode("utf-32-le" if sys.byteorder == "little" else "utf-32-be")
    return tuple((m.start(), m.end() - 1) for m in re.finditer(r"\s+", text))


@functools.lru_cache(maxsize=1)
def _spaces_inside() -> str:
    """The inside of a class of ``\\s`` as Python means it, without the control
    characters (tab, newline and the rest need an escape in JSON)."""
    return "".join(_spell(a) if a == b else f"{_spell(a)}-{_spell(b)}"
                   for lo, hi in space_ranges() for a, b in _without(lo, hi))


def _raw_spaces() -> str:
    """``\\s`` as Python's ``re`` means it, without the control characters: a class."""
    return "[" + _spaces_inside() + "]"


def _negated_text(opening: Piece, body: list[Piece]) -> str:
    """A negated class with each ``\\s`` in it written as Python's spaces (the engines'
    own ``\\s`` is narrower or wider); its control characters are left out of every
    class sent, so only the others are written."""
    return opening.text + "".join(
        _spaces_inside() if p.escaped == "s" else p.text for p in body) + "]"


def _class_end(items: list[Piece], i: int) -> int | None:
    """Where the class opened at ``items[i]`` closes (None: it never does)."""
    for end in range(i + 1, len(items)):
        if items[end].text == "]" and items[end].in_class:
            return end
    return None


def _over_json(pattern: str, *, escapes: bool) -> tuple[str | None, str]:
    """``json_text()`` (``escapes``: the engine reads the JSON text, escapes and all) or
    ``json_text_unescaped()`` (the engine writes what it matches raw, with no escape)."""
    out: list[str] = []
    items = list(pieces(pattern))
    i = 0
    while i < len(items):
        piece = items[i]
        if piece.in_class:
            end = _class_end(items, i)
            if end is None:
                return None, "an unclosed character class"
            if escapes:
                sent = _json_class(items[i], items[i + 1:end], pattern)
                why = "a character class with \\p, \\S, \\D or \\W"
            else:
                sent = _raw_class(items[i], items[i + 1:end], pattern)
                why = ("a character class of only '\"', backslash or control characters, "
                       "or with \\p, \\S, \\D or \\W")
            if sent is None:
                return None, why
            out.append(sent)
            i = end + 1
            continue
        d = piece.escaped
        if piece.text == ".":  # any character but a newline, as Python reads "."
            out.append(_ANY_BUT_NEWLINE if escapes else _ANY_RAW)
        elif not escapes and (piece.text == '"' or d in ('"', "\\") or d in _ESCAPE_CODES):
            return None, _UNWRITABLE
        elif d == "\\" and i + 1 < len(items) and _pre_escaped(items[i + 1]):
            # Already a JSON escape as written (\\" or \\n): kept, so that json_text()
            # leaves its own output as it is.
            out.append(piece.text + items[i + 1].text)
            i += 2
            continue
        elif piece.text == '"' or d == '"':
            out.append(_group(_ESCAPED[_QUOTE]))
        elif d == "\\":
            out.append(_group(_ESCAPED[_BACKSLASH]))
        elif d in _CONTROL_ESCAPES:
            out.append(_group(_CONTROL_ESCAPES[d]))
        elif d == "s" and escapes:
            out.append("(?:" + _raw_spaces() + "|" + "|".join(_CONTROL_ESCAPES.values()) + ")")
        elif d == "s" and not escapes:
            out.append(_raw_spaces())
        elif d == "S" and not escapes:
            out.append("[^" + _spaces_inside() + _UNSAFE_IN_CLASS + "]")
        elif d and d in ("vSDWpP0" if escapes else "DWpP"):
            return None, f"\\{d}, which would let a character JSON escapes through"
        elif d in ("x", "u"):
            code, width = _hex_code(pattern, piece.at)
            if code is None:
                return None, f"\\{d} without its hex digits"
            if code in (_QUOTE, _BACKSLASH) and escapes:
                out.append(_group(_ESCAPED[code]))
            elif code in (_QUOTE, _BACKSLASH) or code <= _CONTROLS[1]:
                return None, _UNWRITABLE if not escapes else "a control character"
            else:
                out.append(pattern[piece.at:piece.at + 2 + width])
            i += 1 + width  # the hex digits are single pieces
            continue
        elif not d and ord(piece.text) <= _CONTROLS[1]:
            return None, "a raw control character"
        else:
            out.append(piece.text)
        i += 1
    return "".join(out), ""


def _group(escape: str) -> str:
    """Two characters of JSON text as one unit, so that a quantifier after it takes both."""
    return f"(?:{escape})"


def _pre_escaped(after: Piece) -> bool:
    """A literal backslash before ``after`` is read as a JSON escape."""
    return after.text in ('"', "n", "t", "r", "f", "b", "/") or after.escaped == "\\"


def _hex_code(pattern: str, at: int) -> tuple[int | None, int]:
    width = 2 if pattern[at + 1] == "x" else 4
    digits = pattern[at + 2:at + 2 + width]
    if len(digits) != width or any(c not in "0123456789abcdefABCDEF" for c in digits):
        return None, width
    return int(digits, 16), width


def _class_ranges(body: list[Piece], pattern: str) -> list[tuple[int, int]]:
    """The code point ranges of a class's items (raises ``_Unreadable``)."""
    atoms: list[tuple[int, int] | str] = []  # a range, or "-"
    j = 0
    while j < len(body):
        text, d = body[j].text, body[j].escaped
        if d in ("x", "u"):
            code, width = _hex_code(pattern, body[j].at)
            if code is None:
                raise _Unreadable
            atoms.append((code, code))
            j += 1 + width
            continue
        if d in _SHORTHAND_RANGES or d == "s":
            atoms.extend(space_ranges() if d == "s" else _SHORTHAND_RANGES[d])
            atoms.append("")  # a shorthand cannot start or end a range
        elif d in _ESCAPE_CODES:
            atoms.append((_ESCAPE_CODES[d], _ESCAPE_CODES[d]))
        elif d:
            if d.isalnum():
                raise _Unreadable
            atoms.append((ord(d), ord(d)))
        elif text in ("[", "[^"):
            pass
        elif text in ("[]", "[^]"):
            atoms.append((0x5D, 0x5D))
        else:
            atoms.append("-" if text == "-" else (ord(text), ord(text)))
        j += 1
    ranges: list[tuple[int, int]] = []
    k = 0
    while k < len(atoms):
        atom = atoms[k]
        if (isinstance(atom, tuple) and k + 2 < len(atoms) and atoms[k + 1] == "-"
                and isinstance(atoms[k + 2], tuple) and atom[0] == atom[1]):
            high = atoms[k + 2]
            assert isinstance(high, tuple)
            ranges.append((atom[0], high[0]))
            k += 3
        else:
            if atom == "-":
                ranges.append((0x2D, 0x2D))
            elif isinstance(atom, tuple):
                ranges.append(atom)
            k += 1
    return ranges


def _spell(code: int) -> str:
    """One character as it is written in a class every engine reads: itself, or an
    escape for a metacharacter, a control character or an unprintable one of the BMP.

    Beyond the BMP the character itself, printable or not: each engine reads it raw,
    but not one escape reads in all (xgrammar takes no ``\\U0001f600``, llama.cpp no
    ``\\u{1f600}``), and ``\\u`` with five hex digits is ``\\uXXXX`` and a digit.
    """
    c = chr(code)
    if code > 0xFFFF or c.isalnum() or (c.isprintable() and c not in "\\]^[-"):
        return c
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def _json_class(opening: Piece, body: list[Piece], pattern: str) -> str | None:
    """A class as a regex over JSON text (None: its characters cannot be told apart)."""
    text = opening.text + "".join(p.text for p in body) + "]"
    negated = opening.text.startswith("[^")
    try:
        ranges = _class_ranges([opening, *body], pattern)
    except _Unreadable:
        if not negated:
            return None
        return _unsafe_left_out(_negated_text(opening, body))  # narrower, and JSON all the same

    def holds(code: int) -> bool:
        return any(lo <= code <= hi for lo, hi in ranges) != negated
    controls = any(holds(code) for code in range(_CONTROLS[1] + 1))
    escaped = [_ESCAPED[code] for code in (_QUOTE, _BACKSLASH) if holds(code)]
    escaped += [spelled for d, spelled in _CONTROL_ESCAPES.items() if holds(_ESCAPE_CODES[d])]
    if not escaped and not controls:
        return text
    if negated:
        safe = _unsafe_left_out(_negated_text(opening, body))
    else:
        kept: list[tuple[int, int]] = []
        for lo, hi in ranges:
            for a, b in _without(lo, hi):
                kept.append((a, b))
        safe = "[" + "".join(_spell(a) if a == b else f"{_spell(a)}-{_spell(b)}"
                             for a, b in kept) + "]" if kept else ""
    return "(?:" + "|".join(x for x in (safe, *escaped) if x) + ")"


def _unsafe_left_out(negated: str) -> str:
    """A negated class that also leaves out '"', backslash and the control characters
    (as it is when it ends with them already: the rewrite keeps its own output)."""
    if negated.endswith(_UNSAFE_IN_CLASS + "]"):
        return negated
    return negated[:-1] + _UNSAFE_IN_CLASS + "]"


def _without(lo: int, hi: int) -> list[tuple[int, int]]:
    """``lo``-``hi`` without '"', backslash and the control characters."""
    out: list[tuple[int, int]] = []
    lo = max(lo, _CONTROLS[1] + 1)
    for cut in (_QUOTE, _BACKSLASH):
        if lo <= cut <= hi:
            if lo < cut:
                out.append((lo, cut - 1))
            lo = cut + 1
    if lo <= hi:
        out.append((lo, hi))
    return out


# -- patterns matched against the raw characters of a string, with no escape -------------

def json_text_unescaped(pattern: str) -> tuple[str | None, str]:
    """``pattern`` for an engine that writes the characters it matches raw between the
    quotes and takes no escape there, or None and why not.

    Such an engine (xgrammar) writes a ``"``, backslash or control character that the
    pattern allows as itself, which is not JSON. ``.``, negated classes and classes
    holding such a character are sent without them (``.`` becomes
    ``[^"\\\\\\x00-\\x1f]``, ``[^a]`` becomes ``[^a"\\\\\\x00-\\x1f]``), so every text
    the engine writes is JSON that decodes to a string the pattern matches; a value
    holding one of them cannot be written there. A pattern that needs one (a literal
    ``"``, ``\\\\``, ``\\n``, ``\\x22``, a class of nothing else) is not sent, nor one
    with ``\\D``, ``\\W`` or ``\\p`` outside a negated class (their characters cannot
    be told apart here).
    """
    return _over_json(pattern, escapes=False)


def _raw_class(opening: Piece, body: list[Piece], pattern: str) -> str | None:
    """A class without '"', backslash and control characters (None: nothing is left,
    or its characters cannot be told apart)."""
    text = opening.text + "".join(p.text for p in body) + "]"
    try:
        ranges = _class_ranges([opening, *body], pattern)
    except _Unreadable:
        ranges = None
    if opening.text.startswith("[^"):
        # Listed even where the engine leaves them out by itself: xgrammar lets a negated
        # class holding a character beyond ASCII ([^é]) write anything, '"' and control
        # characters included, unless they are listed. A class listing them already is
        # kept as it is (the rewrite leaves its own output unchanged).
        if ranges is not None and all(
                any(lo <= code <= hi for lo, hi in ranges)
                for code in (_QUOTE, _BACKSLASH, *range(_CONTROLS[1] + 1))):
            return text
        return _unsafe_left_out(_negated_text(opening, body))
    if ranges is None:
        return None
    if not any(lo <= _CONTROLS[1] or lo <= _QUOTE <= hi or lo <= _BACKSLASH <= hi
               for lo, hi in ranges):
        return text
    kept = [pair for lo, hi in ranges for pair in _without(lo, hi)]
    if not kept:
        return None
    return "[" + "".join(_spell(a) if a == b else f"{_spell(a)}-{_spell(b)}"
                         for a, b in kept) + "]"


def too_long(added: int, limit: int) -> str:
    """Why a pattern with ``\\d``, ``\\w``, ``\\D`` or ``\\W`` stays out of a tool
    definition: the classes Python means by them are too long to send there."""
    return (f"\\d, \\w, \\D and \\W are Unicode classes in Python's re, which decode() "
            "checks with, and ASCII classes in JSON Schema (the engines read them so, or not "
            f"at all); written out as Python's classes they would add {added:,} characters "
            "to the tool definition, which the server writes into every prompt (at most "
            f"{limit:,})")


#: What to write instead when ASCII classes are meant.
ASCII_CLASSES = ("write the class out if ASCII is meant ([A-Za-z0-9_] for \\w, "
                 "[^A-Za-z0-9_] for \\W, [0-9] for \\d) and the pattern is sent as it is")


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
        class_escapes: Further escapes it reads inside a character class.
        rewritten: Shorthand escapes (``d``, ``w``, ``D``, ``W``) sent as the classes
            Python's ``re`` means by them (``python_classes()``): the engines read them
            as ASCII classes or not at all, the decoder as Unicode classes.
        counted_optional_groups: ``(...)?`` is sent as ``(...){0,1}``, for an engine
            that misreads an optional group after an alternation.
        json_text: The engine matches the pattern against the string's JSON text as
            written (escapes and all), so it is sent through ``json_text()``.
        unescaped_text: The engine writes what the pattern matches raw between the
            quotes and takes no escape there, so it is sent through
            ``json_text_unescaped()``.
        python_spaces: ``\\s`` and ``\\S`` are sent as Python means them
            (``python_spaces()``), for an engine whose ``\\s`` is Rust's.
        max_added: The most characters the classes of ``rewritten`` may add to a
            pattern (None: no limit); a pattern they would make longer goes into the
            description. For tool definitions, which a server writes into every prompt:
            ``\\w`` as Python's class is about 1,900 characters (some 4,400 tokens).

    .. versionadded:: 0.3.0
    """

    matching: str
    refused: frozenset[str]
    escapes: frozenset[str] | None = None
    class_escapes: frozenset[str] = frozenset()
    rewritten: frozenset[str] = frozenset()
    counted_optional_groups: bool = False
    json_text: bool = False
    unescaped_text: bool = False
    max_added: int | None = None
    python_spaces: bool = False

    def over_budget(self, pattern: str) -> int | None:
        """How many characters the classes of ``rewritten`` would add to ``pattern``, when
        that alone keeps it out (more than ``max_added``; the engine could read it
        otherwise); None when it is sent, or kept out for another reason."""
        return self._fit(pattern)[2]

    def fit(self, pattern: str) -> tuple[str | None, str]:
        """The pattern to send (None: say it in the description instead) and why not."""
        sent, why, _ = self._fit(pattern)
        return sent, why

    def _fit(self, pattern: str) -> tuple[str | None, str, int | None]:
        if self.counted_optional_groups:
            pattern = optional_groups_counted(pattern)
        found = pattern_features(pattern)
        over: int | None = None
        if self.rewritten and any("\\" + d in found for d in self.rewritten):
            rewritten = rewrite_shorthands(pattern, self.rewritten, python_classes())
            if rewritten is None:
                return None, "\\D or \\W inside a class", None
            added = len(rewritten) - len(pattern)
            if self.max_added is not None and added > self.max_added:
                # Too long to send; the rest is checked on the ASCII classes, so that the
                # reason given is the budget only when nothing else keeps it out.
                over = added
                rewritten = rewrite_shorthands(pattern, self.rewritten) or pattern
            pattern = rewritten
            found = pattern_features(pattern)
        if self.python_spaces and ("\\s" in found or "\\S" in found):
            spaced = python_spaces(pattern)
            if spaced is None:
                return None, "\\S inside a class", None
            pattern = spaced
            found = pattern_features(pattern)
        bad = sorted({f for f in found if f in self.refused} | {
            f.name for f in features(pattern) if f.name.startswith("\\")
            and self.escapes is not None and f.name not in self.escapes
            and not (f.in_class and f.name in self.class_escapes)
        })
        if bad:
            return None, ", ".join(bad), None
        if self.json_text or self.unescaped_text:
            sent, why = (json_text if self.json_text else json_text_unescaped)(pattern)
            if sent is None:
                return None, why, None
            pattern = sent
        if over is not None:
            assert self.max_added is not None
            return None, too_long(over, self.max_added), over
        return pattern, "", None

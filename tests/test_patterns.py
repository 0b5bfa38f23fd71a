"""The one pattern scanner (``_schema/patterns.py``) answers as the four it replaced did.

``pattern_features`` and the two rewrites used to live in ``_schema/engines.py`` and
``regex_features`` in ``_schema/rules.py``, each with its own copy of the same loop over
escapes and character classes. The copies below are those functions as they were (their
docstrings left out), kept only so a property can compare them with the new scanner on
generated patterns: the engines' and Anthropic's answers must not move.
"""

from __future__ import annotations

import re
from typing import Any

import orjson
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from describedtypes._schema.patterns import (
    Piece,
    json_text,
    json_text_unescaped,
    optional_groups_counted,
    pattern_features,
    pieces,
    python_spaces,
    rewrite_shorthands,
    space_ranges,
)
from describedtypes._schema.rules import regex_features

# -- the functions as they were ------------------------------------------------------------

OLD_CLASS_OF = {"d": "0-9", "w": "A-Za-z0-9_"}

OLD_LITERAL_ESCAPES = frozenset(r"\.^$|?*+()[]{}/")


def old_pattern_features(pattern: str) -> frozenset[str]:
    found: set[str] = set()
    i, n, in_class = 0, len(pattern), False
    anchored_start = pattern.startswith("^")
    anchored_end = pattern.endswith("$") and not old_escaped_at(pattern, n - 1)
    if not (anchored_start and anchored_end):
        found.add("unanchored")
    while i < n:
        c = pattern[i]
        if c == "\\" and i + 1 < n:
            d = pattern[i + 1]
            if d in "pP":
                found.add("unicode classes")
            elif d in "bB" and not in_class:
                found.add("word boundaries")
            elif (d.isdigit() and d != "0") or d == "k":
                found.add("backreferences")
            elif d not in OLD_LITERAL_ESCAPES:
                found.add("\\" + d)
            i += 2
            continue
        if in_class:
            if c == "]":
                in_class = False
        elif c == "[":
            in_class = True
            j = i + 1
            if j < n and pattern[j] == "^":
                j += 1
            if j < n and pattern[j] == "]":
                j += 1
            i = j
            continue
        elif c in "^$" and not ((c == "^" and i == 0) or (c == "$" and i == n - 1)):
            found.add("inner anchors")
        elif pattern.startswith("(?", i):
            rest = pattern[i + 2:i + 4]
            if rest[:1] in ("=", "!"):
                found.add("lookahead")
            elif rest in ("<=", "<!"):
                found.add("lookbehind")
            elif rest == "P=":
                found.add("backreferences")
        i += 1
    return frozenset(found)


def old_escaped_at(pattern: str, index: int) -> bool:
    count = 0
    while index - 1 - count >= 0 and pattern[index - 1 - count] == "\\":
        count += 1
    return count % 2 == 1


def old_rewrite_shorthands(pattern: str, names: frozenset[str]) -> str:
    out: list[str] = []
    i, n, in_class = 0, len(pattern), False
    while i < n:
        c = pattern[i]
        if c == "\\" and i + 1 < n:
            d = pattern[i + 1]
            if d in names:
                out.append(OLD_CLASS_OF[d] if in_class else f"[{OLD_CLASS_OF[d]}]")
            else:
                out.append(pattern[i:i + 2])
            i += 2
            continue
        if in_class and c == "]":
            in_class = False
        elif not in_class and c == "[":
            in_class = True
            j = i + 1
            if j < n and pattern[j] == "^":
                j += 1
            if j < n and pattern[j] == "]":
                j += 1
            out.append(pattern[i:j])
            i = j
            continue
        out.append(c)
        i += 1
    return "".join(out)


def old_optional_groups_counted(pattern: str) -> str:
    out: list[str] = []
    i, n, in_class = 0, len(pattern), False
    while i < n:
        c = pattern[i]
        if c == "\\" and i + 1 < n:
            out.append(pattern[i:i + 2])
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
            j = i + 1
            if j < n and pattern[j] == "^":
                j += 1
            if j < n and pattern[j] == "]":
                j += 1
            out.append(pattern[i:j])
            i = j
            continue
        elif c == ")" and pattern.startswith("?", i + 1):
            out.append("){0,1}")
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


def old_regex_features(pattern: str) -> list[str]:
    found: list[str] = []

    def add(feature: str) -> None:
        if feature not in found:
            found.append(feature)

    i, n, in_class = 0, len(pattern), False
    while i < n:
        c = pattern[i]
        if c == "\\" and i + 1 < n:
            d = pattern[i + 1]
            if not in_class:
                if d in "bB":
                    add("word boundaries")
                elif (d.isdigit() and d != "0") or d == "k":
                    add("backreferences")
            i += 2
            continue
        if in_class:
            if c == "]":
                in_class = False
        elif c == "[":
            in_class = True
            j = i + 1
            if j < n and pattern[j] == "^":
                j += 1
            if j < n and pattern[j] == "]":
                j += 1
            i = j
            continue
        elif pattern.startswith("(?", i):
            rest = pattern[i + 2:i + 4]
            if rest[:1] in ("=", "!"):
                add("lookahead")
            elif rest in ("<=", "<!"):
                add("lookbehind")
            elif rest == "P=":
                add("backreferences")
        i += 1
    return found


# -- generated patterns ------------------------------------------------------------------

#: The characters and fragments the scanners treat specially, and a few plain ones.
_FRAGMENTS = [
    "\\", "[", "]", "[^", "[]", "^", "$", "(", ")", "?", "(?=", "(?!", "(?<=", "(?<!",
    "(?P=", "(?P<n>", "(?:", "\\b", "\\B", "\\d", "\\w", "\\s", "\\p{L}", "\\P{L}",
    "\\1", "\\0", "\\k<n>", "\\-", "\\.", "\\\\", "|", "*", "+", "{0,1}", "a", "9", "-",
]
PATTERNS = st.one_of(
    st.lists(st.sampled_from(_FRAGMENTS), max_size=12).map("".join),
    st.text(alphabet="\\[]^$()?=!<>P:kbBdwpsLn019-.|*+{},a", max_size=24),
)
SHORTHANDS = st.frozensets(st.sampled_from("dw"))


@settings(max_examples=600)
@given(PATTERNS)
@example("[$")
@example("a\\")
@example("[\\1]\\1")
@example("[]\\b]\\b[\\b]")
@example("^(a)?$")
def test_features_as_before(pattern: str) -> None:
    """Both feature readers give, for any pattern, exactly what their old scanners gave."""
    assert pattern_features(pattern) == old_pattern_features(pattern)
    assert regex_features(pattern) == old_regex_features(pattern)


@settings(max_examples=400)
@given(PATTERNS, SHORTHANDS)
@example("[\\d.]\\d\\w[^\\w]", frozenset("dw"))
def test_rewrites_as_before(pattern: str, names: frozenset[str]) -> None:
    """The two rewrites an engine dialect applies write the same pattern as before."""
    assert rewrite_shorthands(pattern, names) == old_rewrite_shorthands(pattern, names)
    assert optional_groups_counted(pattern) == old_optional_groups_counted(pattern)


@given(PATTERNS)
def test_pieces_spell_the_pattern(pattern: str) -> None:
    """The pieces, joined, are the pattern again, each one at the index it says."""
    found = list(pieces(pattern))
    assert "".join(p.text for p in found) == pattern
    assert all(pattern.startswith(p.text, p.at) for p in found)


def test_pieces_read_classes() -> None:
    """A class opening takes a leading literal "]", and the class ends at the next "]"."""
    assert list(pieces("[]a]\\d")) == [
        Piece("[]", 0, True), Piece("a", 2, True), Piece("]", 3, True),
        Piece("\\d", 4, False),
    ]


# -- patterns over a string's JSON text ------------------------------------------------------

_ATOMS = ["a", "b", '"', "\\\\", ".", "[^a]", "[ -~]", '[a"]', "\\n", "\\t", "\\s", "[^\\n]",
          "[\\t-\\r]", '\\"', "\\x22", "é", "~"]
JSON_PATTERNS = st.lists(
    st.tuples(st.sampled_from(_ATOMS), st.sampled_from(["", "*", "?", "{1,2}", "+"])),
    min_size=1, max_size=5,
).map(lambda parts: "^" + "".join(a + q for a, q in parts) + "$").filter(
    # A literal backslash followed by a JSON escape's letter is the one ambiguous reading.
    lambda p: not re.search(r'\\\\(\\\\|"|\\[ntrfb"])', p))
#: Raw JSON string text: any character, escapes and all.
JSON_TEXT = st.text(st.sampled_from(list('ab"\\ntrf/u0~é \x01\x7f')), max_size=8)
#: Values whose characters all have a JSON spelling the rewritten classes offer.
VALUES = st.text(st.sampled_from(list('ab"\\\n\t\r\x0c~é /')), max_size=6)


@settings(max_examples=500)
@given(JSON_PATTERNS, JSON_TEXT)
@example("^.+$", 'say "hi"')
@example("^[^a]$", "\\")
def test_json_text_takes_only_json(pattern: str, text: str) -> None:
    """Every text the rewritten pattern takes is JSON, decoding to a string the pattern takes."""
    sent, why = json_text(pattern)
    assert sent is not None, why
    if re.search(sent, text):
        value = orjson.loads(f'"{text}"')
        assert re.search(pattern, value), (sent, text, value)


@settings(max_examples=500)
@given(JSON_PATTERNS, VALUES)
@example("^.+$", 'say "hi"')
@example('^a"b$', 'a"b')
def test_json_text_keeps_values_writable(pattern: str, value: str) -> None:
    """A value the pattern takes is written, escaped as JSON, in a way the rewrite takes."""
    sent, _ = json_text(pattern)
    assert sent is not None
    # Python's "$" also matches before a final newline (JSON Schema's does not).
    if re.search(pattern, value) and not value.endswith("\n"):
        assert re.search(sent, orjson.dumps(value).decode()[1:-1]), (sent, value)


@given(JSON_PATTERNS)
def test_json_text_keeps_its_own_output(pattern: str) -> None:
    """The rewrite leaves what it wrote unchanged, so check() finds nothing in our bodies."""
    sent, _ = json_text(pattern)
    assert sent is not None
    assert json_text(sent) == (sent, "")


# -- patterns over a string's raw characters, with no escape (xgrammar) ------------------------

_RAW_ATOMS = ["a", "b", ".", "[^a]", "[ -~]", '[a"]', "\\s", "\\S", "[^\\n]", "[\\t-\\r ]",
              "é", "~", "[^é]", "[\\x01-\\x7f]", "[^\\x00-\\x08]", "[\\\\a]", "[^\\S]",
              "[^\\sa]"]
RAW_PATTERNS = st.lists(
    st.tuples(st.sampled_from(_RAW_ATOMS), st.sampled_from(["", "*", "?", "{1,2}", "+"])),
    min_size=1, max_size=5,
).map(lambda parts: "^" + "".join(a + q for a, q in parts) + "$")
#: Strings as an engine writes them raw: any character, '"', backslash and controls too.
RAW_TEXT = st.text(st.sampled_from(list('ab"\\\n\t\x01\x7f~é -')), max_size=8)
_UNSAFE = re.compile(r'["\\\x00-\x1f]')


def _whole(pattern: str, text: str) -> bool:
    """``^...$`` as JSON Schema reads it (Python's "$" would also match before a final
    newline)."""
    return re.fullmatch(pattern[1:-1], text) is not None


@settings(max_examples=500)
@given(RAW_PATTERNS, RAW_TEXT)
@example("^.+$", 'say "hi"')
@example("^[^é]+$", "\x01")
@example("^\\s.$", "\n-")
@example("^[^a]$", "\\")
def test_unescaped_text_takes_only_what_json_writes_raw(pattern: str, text: str) -> None:
    """Every string the rewritten pattern takes holds no '"', backslash or control
    character (written raw it is JSON) and is a string the pattern takes."""
    sent, why = json_text_unescaped(pattern)
    assert sent is not None, why
    if _whole(sent, text):
        assert not _UNSAFE.search(text), (sent, text)
        assert _whole(pattern, text), (sent, text)
        assert orjson.loads(f'"{text}"') == text


@settings(max_examples=500)
@given(RAW_PATTERNS, RAW_TEXT)
def test_unescaped_text_keeps_the_values_it_can_write(pattern: str, value: str) -> None:
    """A value the pattern takes that holds no '"', backslash or control character is
    still taken; the others cannot be written raw, and are not."""
    sent, _ = json_text_unescaped(pattern)
    assert sent is not None
    if _whole(pattern, value) and not _UNSAFE.search(value):
        assert _whole(sent, value), (sent, value)


@given(RAW_PATTERNS)
def test_unescaped_text_keeps_its_own_output(pattern: str) -> None:
    """The rewrite leaves what it wrote unchanged, so check() finds nothing in our bodies."""
    sent, _ = json_text_unescaped(pattern)
    assert sent is not None
    assert json_text_unescaped(sent) == (sent, "")


def test_unescaped_text_refuses_patterns_that_need_an_escape() -> None:
    """A pattern whose strings must hold a '"', backslash or control character cannot be
    written raw: it is not sent (it goes into the description), saying why."""
    for pattern in ('^a"b$', "^x\\\\y$", "^a\\nb$", "^\\x22$", "^\\u005c$", '^["]$',
                    "^[\\x00-\\x1f]+$", "^\\t$", "^a\x01$", "^[\\p{L}]$", "^\\W$", "^[a"):
        sent, why = json_text_unescaped(pattern)
        assert sent is None, pattern
        assert why, pattern
    assert json_text_unescaped("^\\x41\\u00e9[a-z]{2}$") == ("^\\x41\\u00e9[a-z]{2}$", "")


# -- characters beyond the BMP in a rewritten class ---------------------------------------------

#: Classes that the rewrites spell out again (each holds '"' or a control character), with
#: characters beyond the BMP: U+E0001 (a tag character, not printable), U+1F600, a range.
ASTRAL_CLASSES = ['^[a\U000e0001\U0001f600"]+$', "^[\U000e0001-\U000e007f\x01]+$",
                  '^[\U0001f600-\U0001f64f"x]+$']


@pytest.mark.parametrize("pattern", ASTRAL_CLASSES)
@pytest.mark.parametrize("rewrite", [json_text, json_text_unescaped])
def test_characters_beyond_the_bmp_are_written_as_themselves(pattern: str, rewrite: Any) -> None:
    """A character beyond U+FFFF is written raw in the rewritten class, which every engine
    reads: \\uXXXXX (five hex digits) was read as \\uXXXX and a digit, so the class took
    "1" and lost the character."""
    sent, why = rewrite(pattern)
    assert sent is not None, why
    assert not re.search(r"\\u[0-9a-fA-F]{5}", sent), ascii(sent)
    for code in (0xE0001, 0xE0041, 0xE007F, 0x1F600, 0x1F64F, 0x1F650, 0xE0080, 0x31, 0xE000):
        value = chr(code)
        written = value if rewrite is json_text_unescaped else orjson.dumps(value).decode()[1:-1]
        assert bool(re.search(sent, written)) == bool(re.search(pattern, value)), (
            ascii(sent), hex(code))


# -- \s as Python means it, in a class and outside ------------------------------------------------

SPACE_PATTERNS = ["^[\\sa]+$", '^[\\s"]+$', "^[^\\sa]+$", "^\\s+$", "^\\S+$", "^x[\\s-]y$"]
#: Every character of Python's \s, and some that are not.
SPACE_CODES = sorted({code for lo, hi in space_ranges() for code in range(lo, hi + 1)}
                     | {0x08, 0x22, 0x41, 0x5C, 0x7F, 0x200B, 0x2060, 0xFEFF})


def _sample(pattern: str, code: int) -> str:
    return "x" + chr(code) + "y" if pattern.startswith("^x") else chr(code)


def test_space_ranges_are_what_re_means() -> None:
    assert {c for c in range(0x110000) if re.match(r"\s", chr(c))} == {
        code for lo, hi in space_ranges() for code in range(lo, hi + 1)}


@pytest.mark.parametrize("pattern", SPACE_PATTERNS)
def test_spaces_over_json_text_are_what_re_means(pattern: str) -> None:
    """Under json_text (outlines-core, llama.cpp) \\s in a class and outside takes every
    space Python's re takes that JSON can write raw or with a short escape (\\t \\n \\r
    \\f), and nothing else: the class used to hold only ASCII spaces."""
    sent, why = json_text(pattern)
    if sent is None:
        assert "\\S" in pattern, why  # \S would let a character JSON escapes through
        return
    for code in SPACE_CODES:
        value = _sample(pattern, code)
        written = orjson.dumps(value).decode()[1:-1]
        short = code >= 0x20 or chr(code) in "\t\n\r\f"
        expected = bool(re.fullmatch(pattern[1:-1], value)) and short
        assert bool(re.fullmatch(sent[1:-1], written)) == expected, (ascii(sent), hex(code))


@pytest.mark.parametrize("pattern", SPACE_PATTERNS)
def test_spaces_written_raw_are_what_re_means(pattern: str) -> None:
    """Under json_text_unescaped (xgrammar) \\s and \\S take every character Python's
    takes that JSON writes raw (no control character, '"' or backslash)."""
    sent, why = json_text_unescaped(pattern)
    assert sent is not None, why
    for code in SPACE_CODES:
        value = _sample(pattern, code)
        expected = bool(re.fullmatch(pattern[1:-1], value)) and not _UNSAFE.search(value)
        assert bool(re.fullmatch(sent[1:-1], value)) == expected, (ascii(sent), hex(code))


def test_a_negated_class_the_rewrite_cannot_read_is_kept_as_written() -> None:
    """[^\\S] (its characters cannot be listed here) gets '"', backslash and the control
    characters left out once; the rewrite of its own output changes nothing (it used to
    add them again, so a body failed its own check)."""
    for rewrite in (json_text, json_text_unescaped):
        sent, _ = rewrite("^[^\\S]+$")
        assert sent == '^[^\\S"\\\\\\x00-\\x1f]+$'
        assert rewrite(sent) == (sent, "")


@pytest.mark.parametrize(("pattern", "sent"), [
    ("^\\s+$", "^[\\s\\x1c-\\x1f]+$"),
    ("^[a\\s]$", "^[a\\s\\x1c-\\x1f]$"),
    ("^[^\\s]$", "^[^\\s\\x1c-\\x1f]$"),
    ("^\\S\\\\s$", "^[^\\s\\x1c-\\x1f]\\\\s$"),  # an escaped backslash, then "s"
    ("^\\s\\x1c-\\x1f$", "^[\\s\\x1c-\\x1f]\\x1c-\\x1f$"),  # not a class: a sequence
])
def test_python_spaces_for_rusts_reading(pattern: str, sent: str) -> None:
    """\\s and \\S for a reader whose \\s is Rust's: U+001C-U+001F join it; the rewrite
    keeps its own output; \\S inside a class cannot be written so."""
    assert python_spaces(pattern) == sent
    assert python_spaces(sent) == sent
    for code in range(0x3001):
        value = chr(code)
        assert bool(re.search(sent, value)) == bool(re.search(pattern, value))
    assert python_spaces("^[^\\S]$") is None

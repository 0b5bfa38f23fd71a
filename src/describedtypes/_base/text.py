"""The one escape table for text a model sent, wherever the library puts it in a message.

A message built from model text (a key in a problem path, a value, a tool's exception)
must stay the lines the library wrote: a line break inside the model's text would let it
pose as further lines of an error list (``- $.admin: approved``). Every module that puts
such text into a message escapes it with ``escape`` (or ``one_line``), so there is one
list of what breaks a line, and it is complete: every character ``str.splitlines()``
splits at (``\\n``, ``\\r``, ``\\v``, ``\\f``, ``\\x1c``-``\\x1e``, U+0085 NEXT LINE, U+2028
LINE SEPARATOR, U+2029 PARAGRAPH SEPARATOR), and every other control character (C0 but
the tab, DEL, C1), which a terminal or a renderer may act on.

Each is written ``\\n``, ``\\r`` or ``\\uXXXX``: the same text in JSON and in Python, so
escaping the output of ``json.dumps`` keeps it a JSON string.
"""

from __future__ import annotations

__all__ = ["ESCAPES", "LINE_BREAKS", "escape", "one_line"]

LINE_BREAKS = "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"
"""Every character ``str.splitlines()`` breaks a line at (Unicode's line boundaries)."""


def _escapes() -> dict[int, str]:
    table = {c: f"\\u{c:04x}" for c in (*range(0x20), *range(0x7F, 0xA0))}
    del table[ord("\t")]  # a tab breaks no line
    table.update({ord(c): f"\\u{ord(c):04x}" for c in LINE_BREAKS})
    table[ord("\n")] = "\\n"
    table[ord("\r")] = "\\r"
    return table


ESCAPES: dict[int, str] = _escapes()
"""``str.translate`` table: each line break and control character to its escape."""


def escape(text: str) -> str:
    """``text`` with every line break and control character escaped (see the module)."""
    # isprintable() is False for every character in the table (and for a few more, such
    # as the tab and unassigned code points, which translate() leaves alone).
    return text if text.isprintable() else text.translate(ESCAPES)


def one_line(text: str, limit: int) -> str:
    """``text`` escaped onto one line, at most ``limit`` characters of it, saying how many
    more there were."""
    if len(text) > limit:
        return f"{escape(text[:limit])[:limit]}… ({len(text) - limit} more characters)"
    return escape(text)[:limit]

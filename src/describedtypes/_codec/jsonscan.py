"""Where a growing JSON text stands, read from its bytes alone: how many containers are
open at its end, whether it ends inside a string, and where the open containers and
their last members begin.

The streaming decoder asks this between parses, so each byte is read once and, where it
can be, only by C code (regular expressions, ``bytes.translate``, ``count``,
``replace``): a Python step per string or bracket took a third of a stream's time.
"""

from __future__ import annotations

import re

__all__ = ["BLANK", "Depth", "dip", "open_containers"]


_ESCAPE = re.compile(rb"\\.", re.DOTALL)
#: Every byte but a quote or a bracket, for bytes.translate to delete.
_NOT_STRUCTURE = bytes(b for b in range(256) if b not in b'"{}[]')


class Depth:
    """How many containers are open at the end of the text (brackets outside strings).

    Fed the growing text as it arrives; each byte is read once, and only by C code
    (the escape regex, bytes.translate, count and replace): a Python step per string
    or bracket took a third of a stream's time. A container in the parse nested deeper
    than this is closed in the text, though the parse alone cannot tell (a partial
    parse drops an unfinished key after it).
    """

    __slots__ = ("depth", "floor", "in_string", "scanned", "sunk")

    def __init__(self, depth: int = 0, at: int = 0, floor: int | None = None) -> None:
        self.depth = depth
        self.scanned = at
        self.in_string = False
        #: With a floor: whether the depth went below it while reading (a container
        #: open at ``at`` was closed).
        self.floor = floor
        self.sunk = False

    def feed(self, text: bytes | bytearray, start: int, end: int | None = None) -> int:
        """Read ``text`` from ``start`` (or from where the last feed stopped) to ``end``."""
        stop = len(text) if end is None else end
        pos = max(self.scanned, start)
        if pos >= stop:
            return self.depth
        # Escaped bytes out (in JSON only strings hold backslashes): every quote left
        # opens or closes a string. A backslash at the very end is read again next time,
        # with the byte it escapes.
        new = text[pos:stop]
        self.scanned = stop
        if 0x5C in new:  # a backslash (an int test: a fifth of the cost of b"\\" in)
            new = _ESCAPE.sub(b"", new)
            if new.endswith(b"\\"):  # (translate drops it below)
                self.scanned -= 1
        # Only quotes and brackets kept (in their order), the rest is read on that.
        structure = new.translate(None, _NOT_STRUCTURE)
        if self.in_string:
            structure = b'"' + structure  # the open string's quote: it begins outside one
        self.in_string = structure.count(b'"') % 2 == 1
        if self.in_string:
            structure = structure[: structure.rfind(b'"')]  # the string open at the end
        # Each string of new is now a pair of quotes, with the brackets it holds between
        # them. Most hold none: dropping adjacent pairs leaves the brackets outside
        # strings. A quote left over means some string held a bracket: split instead.
        outside = structure.replace(b'""', b"")
        if 0x22 in outside:  # a quote
            outside = b"".join(structure.split(b'"')[0::2])
        # Only brackets are left: each opens a container or closes one. (The depth can
        # only have gone below the floor if there are more closers than levels above it.)
        closers = outside.count(b"}") + outside.count(b"]")
        if self.floor is not None and not self.sunk and closers > self.depth - self.floor:
            self.sunk = self.depth - dip(outside) < self.floor
        self.depth += len(outside) - 2 * closers
        return self.depth


_OPENERS = frozenset(b"[{")


def dip(brackets: bytes | bytearray) -> int:
    """How far below its start the depth goes while reading ``brackets`` (only brackets)."""
    # Pairs opened and closed within are dropped (innermost first, a round per level of
    # nesting): the closers left at the front are how far it went down.
    for _ in range(8):
        shorter = brackets.replace(b"{}", b"").replace(b"[]", b"")
        if len(shorter) == len(brackets):
            break
        brackets = shorter
    else:  # nested deeper than that: one step per bracket
        depth = low = 0
        for byte in brackets:
            depth += 1 if byte in _OPENERS else -1
            low = min(low, depth)
        return -low
    return len(brackets) - len(brackets.lstrip(b"]}"))


#: A string (to its closing quote, or the end) or a bracket or comma outside strings.
_TOKEN = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"?|[\[\]{},]')
BLANK = frozenset(b" \t\r\n")


def open_containers(text: bytes | bytearray, start: int) -> list[list[int]] | None:
    """The containers open at the end of ``text``, outermost first, each as [its
    bracket, its position, the position of its last comma (or its bracket), the number
    of members before the current one]; None if the brackets do not pair.

    A Python step per string and bracket: run once per skimmed array (see ``_Skim``).
    """
    stack: list[list[int]] = []
    for match in _TOKEN.finditer(text, start):
        at = match.start()
        byte = text[at]
        if byte == 0x22:  # a string: what it holds is no structure
            continue
        if byte == 0x2C:  # a comma
            if not stack:
                return None
            top = stack[-1]
            top[2] = at
            top[3] += 1
        elif byte in _OPENERS:
            stack.append([byte, at, at, 0])
        elif not stack:
            return None
        else:
            stack.pop()
    return stack

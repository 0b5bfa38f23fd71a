"""Why JSON text failed to parse, said so that a model can fix its reply."""

from __future__ import annotations

import json
import re
from typing import Any

import orjson

from .._base.text import escape
from ..errors import DecodeError


def json_error(exc: orjson.JSONDecodeError, data: Any) -> DecodeError:
    return DecodeError([("$", "invalid JSON: " + json_problem(exc, data))])


def json_problem(exc: orjson.JSONDecodeError, data: Any) -> str:
    """Where the JSON breaks, the text there, and how to write it instead."""
    msg: str = exc.msg
    if msg.startswith("str is not valid UTF-8"):
        return _encoding_problem(data)  # orjson gives no position for these
    doc: str = exc.doc
    pos: int = exc.pos
    where = f"at line {exc.lineno} column {exc.colno} (char {pos})"
    near = ""
    rest = doc[pos : pos + _SNIPPET + 1]
    if rest.strip() and not msg.startswith("UTF-8 byte order mark"):
        shown = escape(json.dumps(rest[:_SNIPPET], ensure_ascii=False))
        near = ", near " + (shown if len(rest) <= _SNIPPET else shown[:-1] + '…"')
    return f"{msg} {where}{near}; {_json_fix(msg, doc, pos)}"


_SNIPPET = 24
_FENCE_FIX = "send only the JSON value, without markdown code fences (```) or text around it"
_NUMBER_FIX = "write numbers as plain decimals such as -0.5, 3 or 2e10 (no leading + or ., no hex)"
#: The usual ways a model's JSON goes wrong, told by the text where the parser stopped.
_TOKEN_FIXES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"```"), _FENCE_FIX),
    (
        re.compile(r"[-+]?(?:NaN|nan|Infinity|inf)\b"),
        "JSON has no NaN or Infinity; send a finite number, or null where the field allows it",
    ),
    (
        re.compile(r"(?:True|False|None)\b"),
        "JSON writes true, false and null in lowercase (not True, False, None)",
    ),
    (
        re.compile(r"undefined\b"),
        "JSON has no undefined; leave the field out, or send null where the field allows it",
    ),
    (re.compile(r"//|/\*|#"), "JSON has no comments; remove them"),
    (re.compile(r"'"), "write strings and keys in double quotes, not single quotes"),
    (re.compile(r"\+|\.\d|0[xX]"), _NUMBER_FIX),
)
#: orjson's own messages, and the fix for each.
#: What the model is told of a number past the float range (one wording, whichever
#: parser met it).
NUMBER_TOO_LARGE = (
    "the number is too large for JSON (beyond about 1.8e308); send a smaller number"
)

#: orjson's message for a number past the float range (``1e400``), which a Decimal reads.
BEYOND_FLOAT = "number is infinity when parsed as double"

_MESSAGE_FIXES = {
    "trailing comma is not allowed": "remove the comma after the last item",
    "UTF-8 byte order mark (BOM) is not supported": (
        "remove the byte order mark (U+FEFF) before the JSON"
    ),
    BEYOND_FLOAT: NUMBER_TOO_LARGE,
    "depth limit exceeded": "the value is nested more than 1024 levels deep; send a flatter value",
    "unexpected control character in string": (
        "write line breaks, tabs and other control characters inside strings as escapes "
        "(\\n, \\t, \\u0000)"
    ),
    "invalid escaped sequence in string": (
        "a backslash in a string starts an escape; write \\\\ for a backslash itself "
        "(the escapes are \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)"
    ),
    "number with leading zero is not allowed": "write numbers without leading zeros (7, not 07)",
    "no digit after sign": _NUMBER_FIX,
    "unexpected character, expected a string key": (
        "write every key as a string in double quotes, with a comma only between members"
    ),
    "unexpected character, expected ':' after key": "put a colon between each key and its value",
    "unexpected character, expected ',' or '}'": (
        "put a comma between the members of an object, and close it with }"
    ),
    "unexpected character, expected ',' or ']'": (
        "put a comma between the items of an array, and close it with ]"
    ),
}


def _json_fix(msg: str, doc: str, pos: int) -> str:
    if msg in ("Input is a zero-length, empty document", "input data is empty"):
        return "the reply is empty; send the JSON value"
    if msg == "unexpected end of data":
        return (
            "the JSON ends before the value is complete; send the whole value, closing "
            "every string, array and object"
        )
    rest = doc[pos : pos + 16]
    for pattern, fix in _TOKEN_FIXES:
        if pattern.match(rest):
            return fix
    if pos > 0 and doc[pos - 1 : pos + 1] in ("0x", "0X"):  # the parser stops at the x
        return _NUMBER_FIX
    if msg == "unexpected character, expected a string key" and re.search(
        r"\d,\s*\Z", doc[max(0, pos - 8) : pos]
    ) and re.match(r"\d+\s*[,}]", rest):  # 3,5 where a key should follow the comma
        return "write decimals with a point (3.5), not a comma"
    if msg == "unexpected content after document":
        if rest[:1] in ("{", "["):
            return "send exactly one JSON value; a second one follows the first"
        return "send only the JSON value, with no text after it"
    word = re.match(r"[A-Za-z]*", rest)
    if msg.startswith("invalid literal") and word is not None and any(
        literal.startswith(word.group()) for literal in ("true", "false", "null")
    ):
        return "write true, false and null in lowercase and in full"
    if msg.startswith("invalid literal") or msg == "unexpected character, expected a JSON value":
        if not doc[:pos].strip():
            if "```" in doc:
                return _FENCE_FIX
            return "send only the JSON value, with no text before it"
        return (
            "write a JSON value here: a string in double quotes, a number, true, false, "
            "null, an array or an object"
        )
    return _MESSAGE_FIXES.get(msg, "send one valid JSON value")


def _encoding_problem(data: Any) -> str:
    """Where text that is not UTF-8 (or not Unicode at all) goes wrong."""
    if isinstance(data, str):
        found = re.search("[\ud800-\udfff]", data)
        if found is None:
            return "not valid Unicode; send valid Unicode text"
        at = found.start()
        return (
            f"not valid Unicode (a lone surrogate, U+{ord(found.group()):04X}) "
            f"{_position(data[:at])}; send valid Unicode text"
        )
    raw = bytes(data)
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as err:
        before = raw[: err.start].decode("utf-8")
        return (
            f"not valid UTF-8 (byte 0x{raw[err.start]:02x}) {_position(before)}; "
            "send the JSON encoded as UTF-8"
        )
    return "not valid UTF-8; send the JSON encoded as UTF-8"


def _position(before: str) -> str:
    """``at line L column C (char N)`` for the character after ``before``, as orjson counts."""
    line = before.count("\n") + 1
    column = len(before) - (before.rfind("\n") + 1) + 1
    return f"at line {line} column {column} (char {len(before)})"


#: A markdown code fence around the whole reply: a first line of ```json (or ```), a last
#: line of ```, and only whitespace around them.
_FENCE = re.compile(r"\A\s*```(?:json)?[ \t]*\r?\n(.*)\n[ \t]*```\s*\Z", re.DOTALL | re.I)
_FENCE_BYTES = re.compile(rb"\A\s*```(?:json)?[ \t]*\r?\n(.*)\n[ \t]*```\s*\Z", re.DOTALL | re.I)


def unfenced(text: str) -> str:
    """The JSON inside a markdown code fence around the whole of ``text``, else ``text``."""
    found = _FENCE.match(text)
    return text if found is None else found.group(1)


def parse_fenced(data: str | bytes | bytearray | memoryview, exc: orjson.JSONDecodeError) -> Any:
    """The JSON inside a markdown code fence around the whole reply, or the parse error.

    Many models fence their JSON even when asked for JSON alone. No valid JSON starts
    with a backtick, so dropping the fence changes the meaning of no valid reply; the
    JSON inside is parsed and checked as strictly as any other.
    """
    if isinstance(data, str):
        found = _FENCE.match(data)
        if found is None:
            raise json_error(exc, data) from None
        start, end = found.span(1)
        # The fence lines become blanks: positions in errors still count from the
        # reply's own first character.
        data = (
            re.sub(r"[^\n]", " ", data[:start]) + data[start:end]
            + re.sub(r"[^\n]", " ", data[end:])
        )
    else:
        raw = bytes(data)
        found_bytes = _FENCE_BYTES.match(raw)
        if found_bytes is None:
            raise json_error(exc, data) from None
        start, end = found_bytes.span(1)
        data = (
            re.sub(rb"[^\n]", b" ", raw[:start]) + raw[start:end]
            + re.sub(rb"[^\n]", b" ", raw[end:])
        )
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as inner:
        raise json_error(inner, data) from None

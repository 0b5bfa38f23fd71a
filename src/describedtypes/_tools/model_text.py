"""What a tool's run may tell the model: the error-detail policy and the result limit.

An exception's text is read without ever raising, cut to a bounded length, with its line
breaks escaped (the one table of ``_base/text.py``); a result over its limit is cut, with
a note saying so that a second cut can read.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

from .._base.text import one_line

if TYPE_CHECKING:
    from .._base.records import ToolResult

logger = logging.getLogger("describedtypes")

ErrorDetail = Literal["message", "full", "type", "none"] | Callable[[BaseException], str]
"""How much of a tool's exception the model is told (``Toolbox(error_detail=...)``)."""

ERROR_DETAILS = ("message", "full", "type", "none")

MAX_MESSAGE_CHARS = 500
"""Under ``error_detail="message"``: the most characters of an exception's text shown."""

DEFAULT_MAX_RESULT_CHARS = 100_000
"""The most characters of a tool's result sent to the model, unless configured."""

def type_name(exc: BaseException) -> str:
    try:
        name = type(exc).__name__
    except Exception:  # a metaclass may do anything
        return "Exception"
    return name if type(name) is str else "Exception"


def exception_text(exc: BaseException) -> str:
    """``str(exc)``, never raising: an unreadable message is said to be so."""
    try:
        return str.__str__(str(exc))  # str() may return a str subclass
    except Exception:
        return f"(the {type_name(exc)}'s message could not be read)"


def check_error_detail(value: Any) -> ErrorDetail:
    if callable(value) or value in ERROR_DETAILS:
        return value  # type: ignore[no-any-return]
    msg = (
        f"error_detail must be one of {', '.join(map(repr, ERROR_DETAILS))} or a function "
        f"exception -> str, got {value!r}"
    )
    raise ValueError(msg)


def describe_exception(
    tool: str, exc: BaseException, detail: ErrorDetail, max_chars: int | None
) -> str:
    """The model's text for a tool that raised ``exc``, under the ``detail`` policy."""
    head = f"Tool {tool!r} failed"
    if detail == "message":
        text = exception_text(exc)
        kind = type_name(exc)
        return f"{head}: {kind}: {one_line(text, MAX_MESSAGE_CHARS)}" if text else f"{head}: {kind}"
    if detail == "type":
        return f"{head}: {type_name(exc)}"
    if detail == "none":
        return f"{head}."
    if detail == "full":
        text = exception_text(exc)
        full = f"{head}: {type_name(exc)}: {text}" if text else f"{head}: {type_name(exc)}"
        return cut_result(full, max_chars)
    told: object = None
    try:
        told = detail(exc)
    except Exception as failed:
        # The traceback's chain holds the tool's own exception, whose text is the
        # model's to see only under the policy: at DEBUG only.
        logger.error(
            "the error_detail function failed for the tool %r (%s); the model is told the "
            "exception's type only", tool, type_name(failed),
        )
        logger.debug("the error_detail function's failure", exc_info=True)
    if not isinstance(told, str):
        if told is not None:
            logger.error("error_detail returned %s, not a str", type(told).__name__)
        return f"{head}: {type_name(exc)}"
    return cut_result(f"{head}: {str.__str__(told)}" if told else f"{head}.", max_chars)


def cut_result(text: str, max_chars: int | None) -> str:
    """``text``, or its first ``max_chars`` characters and a note saying it was cut."""
    if max_chars is None or len(text) <= max_chars:
        return text
    return f"{text[:max_chars]}{_cut_note(len(text), max_chars)}"


def _cut_note(length: int, kept: int) -> str:
    return (
        f"\n[The result was cut here: it had {length:,} characters and only the first "
        f"{kept:,} are shown.]"
    )


_CUT_NOTE = re.compile(
    r"\n\[The result was cut here: it had ([0-9,]+) characters and only the first "
    r"([0-9,]+) are shown\.\]\Z"
)


def original_length(result: ToolResult) -> tuple[int, int]:
    """``(length of the result before any cut, characters of it in the content)``: a
    result ``cut_result`` cut already is told by its note, so a second cut can state the
    original length."""
    content = result.content
    length = len(content)
    if length < 80 or content[-1] != "]":
        return length, length
    found = _CUT_NOTE.search(content, max(0, length - 200))
    if found is not None:
        kept = int(found.group(2).replace(",", ""))
        if found.start() == kept:  # the note follows exactly the characters it speaks of
            return int(found.group(1).replace(",", "")), kept
    return length, length

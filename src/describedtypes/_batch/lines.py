"""Decoding provider batch results: one JSON line per request, one result per line.

Four line shapes are read (``shape="auto"`` tells them apart line by line):

- OpenAI Batch API output: ``{"id", "custom_id", "response": {"status_code",
  "request_id", "body"}, "error"}``; the body is a Chat Completions or Responses object.
  A non-null ``error`` or a ``status_code`` other than 200 is the request's own failure.
  https://platform.openai.com/docs/guides/batch
- Anthropic Message Batches results: ``{"custom_id", "result": {"type": "succeeded",
  "message"}}``, or ``"errored"`` (with ``error``), ``"canceled"``, ``"expired"``.
  https://docs.anthropic.com/en/docs/build-with-claude/batch-processing
- Gemini Batch API output: ``{"key", "response"}`` with a ``GenerateContentResponse``
  (camelCase JSON), or ``{"key", "error"}``; the key is the result's ``custom_id``.
  https://ai.google.dev/gemini-api/docs/batch-api
- A bare reply: the line is the reply itself (the JSON the model wrote), or a provider
  response object (anything ``decode_response`` reads).

Every line gives exactly one ``BatchResult``, in order: the decoded value, or the error
(``DecodeError``, ``RefusalError``, ``IncompleteReplyError``, ``RequestError``, or
``MalformedLineError`` for a line that is not JSON, is cut off, is too long or has no
known shape). Nothing ends the run but the input. Lines are read one at a time and
nothing is kept between them, so memory stays flat however long the file is.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator, Mapping
from typing import IO, Any, Literal, TypeGuard

import attrs
import orjson

from .._base.display import html_table
from .._codec.decode import check_decodable, decode
from .._types.annotate import Registry, annotate, check_registry
from .._vendors.detect import reply_format
from .._vendors.replies import decode_response
from ..errors import (
    DecodeError,
    DescribedTypesError,
    IncompleteReplyError,
    MalformedLineError,
    RefusalError,
    RequestError,
)

__all__ = ["BatchResult", "decode_batch"]

Shape = Literal["auto", "openai", "anthropic", "gemini", "reply"]
SHAPES = ("auto", "openai", "anthropic", "gemini", "reply")

#: Lines longer than this are reported, not parsed (a Batch API line is far smaller).
MAX_LINE_BYTES = 64 * 1024 * 1024
#: How much of a bad line an error message quotes.
_QUOTE = 60

#: Outcome names, in the order summaries list them.
OUTCOMES = ("ok", "invalid", "refused", "incomplete", "failed", "malformed")


@attrs.frozen(slots=True)
class BatchResult:
    """The outcome of one line of a batch file.

    Attributes:
        line: The line's number in the input, from 1 (blank lines count).
        custom_id: The request's ``custom_id``, or None when the line has none (a bare
            reply, a line that could not be read).
        value: The decoded instance when ``error`` is None.
        error: Why there is no value: ``DecodeError`` (the reply does not match),
            ``RefusalError``, ``IncompleteReplyError``, ``RequestError`` (the request
            failed at the provider) or ``MalformedLineError`` (the line is unreadable).

    .. versionadded:: 0.2.0
    """

    line: int
    custom_id: str | None
    value: Any = None
    error: DescribedTypesError | None = None

    @property
    def ok(self) -> bool:
        """True when the line decoded."""
        return self.error is None

    @property
    def outcome(self) -> str:
        """``"ok"``, ``"invalid"``, ``"refused"``, ``"incomplete"``, ``"failed"`` or
        ``"malformed"``."""
        return _outcome(self.error)

    def _repr_html_(self) -> str:
        """What Jupyter shows: one row (line, custom_id, outcome, value or error), escaped.

        .. versionadded:: 0.3.0
        """
        shown = repr(self.value) if self.error is None else str(self.error)
        row = (self.line, "" if self.custom_id is None else self.custom_id, self.outcome, shown)
        return html_table("BatchResult", ("line", "custom_id", "outcome", "value or error"),
                           [row])


def _outcome(error: BaseException | None) -> str:
    if error is None:
        return "ok"
    if isinstance(error, RefusalError):
        return "refused"
    if isinstance(error, IncompleteReplyError):
        return "incomplete"
    if isinstance(error, DecodeError):
        return "invalid"
    if isinstance(error, RequestError):
        return "failed"
    return "malformed"


def decode_batch(
    tp: Any,
    lines: Iterable[str | bytes | Mapping[str, Any]] | str | os.PathLike[str],
    *,
    shape: Shape = "auto",
    converter: Any = None,
    registry: Registry = annotate,
    max_line_bytes: int = MAX_LINE_BYTES,
) -> Iterator[BatchResult]:
    """Decode a batch results file line by line, yielding one ``BatchResult`` per line.

    Reads OpenAI Batch API output lines, Anthropic Message Batches result lines, and
    bare replies (see the module documentation); ``shape="auto"`` decides per line. A
    line that cannot be read is a ``MalformedLineError`` result for that line; the run
    goes on. Results come in input order and nothing is kept between lines.

    Args:
        tp: The type each reply decodes into, as for ``decode()``.
        lines: A path (``str`` or ``os.PathLike``) to a JSONL file, an open file
            (text or binary), or any iterable of lines (``str``/``bytes``, or
            already-parsed dicts).
        shape: ``"auto"``, or ``"openai"``, ``"anthropic"``, ``"gemini"``, ``"reply"`` to
            accept only that shape (other lines are malformed).
        converter: Passed on to ``decode()``: a cattrs converter whose own hooks decode
            the types they are registered for.
        registry: Where registered annotations (field names, enums) are looked up.
        max_line_bytes: Longer lines are reported as malformed without being parsed.

    Yields:
        A ``BatchResult`` per input line.

    Raises:
        TypeError: ``lines`` or ``shape`` is not one of the above (raised at once,
            before the first line).
        OSError: The file cannot be opened.

    .. versionadded:: 0.2.0
    """
    if shape not in SHAPES:
        msg = f"shape must be one of {', '.join(map(repr, SHAPES))}, got {shape!r}"
        raise TypeError(msg)
    check_registry(registry)
    if not isinstance(max_line_bytes, int) or isinstance(max_line_bytes, bool) or (
        max_line_bytes < 1
    ):
        msg = f"max_line_bytes must be a positive int, got {max_line_bytes!r}"
        raise TypeError(msg)
    opts = {"converter": converter, "registry": registry}
    check_type(tp, registry)
    if isinstance(lines, (str, os.PathLike)):
        path = os.fspath(lines)
        with open(path, "rb"):  # a missing or unreadable file fails here, not at next()
            pass
        return _from_file(tp, path, shape, opts, max_line_bytes)
    if isinstance(lines, (bytes, bytearray, Mapping)) or not isinstance(lines, Iterable):
        msg = (
            f"lines must be a path, an open file or an iterable of lines, got "
            f"{type(lines).__name__}; for one reply use decode()"
        )
        raise TypeError(msg)
    if callable(getattr(lines, "readline", None)):  # an open file: no line read whole
        lines = read_lines(lines, max_line_bytes)  # type: ignore[arg-type]
    return _decode_lines(tp, lines, shape, opts, max_line_bytes, 1)


def check_type(tp: Any, registry: Registry = annotate) -> None:
    """Raise ``SchemaError`` now for a ``tp`` that cannot be decoded into (not per line)."""
    check_decodable(tp, registry)


def _from_file(
    tp: Any, path: str, shape: str, opts: dict[str, Any], limit: int
) -> Iterator[BatchResult]:
    # Opened on the first next(), so a generator that is never started holds no file.
    with open(path, "rb") as handle:
        yield from _decode_lines(tp, read_lines(handle, limit), shape, opts, limit, 1)


class TooLong:
    """A line over the limit, read past rather than kept."""

    __slots__ = ("size",)

    def __init__(self, size: int) -> None:
        self.size = size


def read_lines(
    handle: IO[bytes] | IO[str], limit: int = MAX_LINE_BYTES
) -> Iterator[Any]:
    """The lines of a file (binary or text), never holding more than ``limit`` of one."""
    newline: Any = None
    while True:
        line: Any = handle.readline(limit + 1)
        if not line:
            return
        if newline is None:
            newline = b"\n" if isinstance(line, bytes) else "\n"
        if len(line) > limit and not line.endswith(newline):
            size = len(line)
            while line and not line.endswith(newline):
                line = handle.readline(1 << 20)
                size += len(line)
            yield TooLong(size)
            continue
        yield line


def _decode_lines(
    tp: Any, lines: Iterable[Any], shape: str, opts: dict[str, Any], limit: int, start: int
) -> Iterator[BatchResult]:
    number = start - 1
    for raw in lines:
        number += 1
        yield decode_line(tp, raw, number, shape, opts, limit)


_TRAILING = re.compile(rb"[\r\n]+\Z")


def decode_line(
    tp: Any, raw: Any, number: int, shape: str = "auto", opts: dict[str, Any] | None = None,
    limit: int = MAX_LINE_BYTES,
) -> BatchResult:
    """One line's result; never raises for anything in the line."""
    kind = raw.__class__
    if kind is bytes or kind is str:  # the common case first: a line read from a file
        if len(raw) > limit:
            return _malformed(number, f"the line is {len(raw)} bytes, over the {limit}-byte limit")
        try:
            data: Any = orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            if not raw.strip():
                return _malformed(number, "the line is blank; expected one JSON object")
            return _malformed(number, _not_json(raw, exc), _find_custom_id(raw))
    elif kind is TooLong:
        return _malformed(number, f"the line is {raw.size} bytes, over the {limit}-byte limit")
    elif _is_map(raw):
        data = raw
    elif isinstance(raw, (str, bytes, bytearray, memoryview)):
        if isinstance(raw, memoryview):
            raw = raw.tobytes()
        if len(raw) > limit:
            return _malformed(number, f"the line is {len(raw)} bytes, over the {limit}-byte limit")
        if not raw.strip():
            return _malformed(number, "the line is blank; expected one JSON object")
        try:
            data = orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            # A cut-off line may still name its request, so it can be sent again.
            return _malformed(number, _not_json(raw, exc), _find_custom_id(raw))
    else:
        return _malformed(number, f"expected a line of text, got {type(raw).__name__}")
    try:
        return _decode_record(tp, data, number, shape, opts or {})
    except RecursionError:
        return _malformed(number, "the line is nested too deeply to read")


def _not_json(raw: str | bytes | bytearray, exc: orjson.JSONDecodeError) -> str:
    if isinstance(raw, str):
        raw = raw.encode("utf-8", "replace")
    text = _TRAILING.sub(b"", bytes(raw))
    if exc.pos >= len(text) and text[:1] in (b"{", b"["):
        where = "" if raw.endswith(b"\n") else "; the last line of a truncated file?"
        return f"the line ends before its JSON does (cut off after {len(text)} bytes{where})"
    shown = text[:_QUOTE].decode("utf-8", "replace")
    more = "…" if len(text) > _QUOTE else ""
    return f"the line is not JSON ({exc.msg}): {shown!r}{more}"


_CUSTOM_ID = re.compile(rb'"custom_id"\s*:\s*("(?:[^"\\]|\\.)*")')


def _find_custom_id(raw: str | bytes | bytearray) -> str | None:
    if isinstance(raw, str):
        raw = raw.encode("utf-8", "replace")
    match = _CUSTOM_ID.search(raw, 0, 10_000)
    if match is None:
        return None
    try:
        found = orjson.loads(match.group(1))
    except orjson.JSONDecodeError:
        return None
    return found if isinstance(found, str) else None


def _malformed(number: int, reason: str, custom_id: str | None = None) -> BatchResult:
    return BatchResult(number, custom_id, None, MalformedLineError(reason))


def _is_map(value: Any) -> TypeGuard[Mapping[str, Any]]:
    return value.__class__ is dict or isinstance(value, Mapping)


def _custom_id(data: Mapping[str, Any]) -> str | None:
    value = data.get("custom_id", data.get("key"))
    if value is None:
        return None
    return value if isinstance(value, str) else str(value)[:200]


def _decode_record(
    tp: Any, data: Any, number: int, shape: str, opts: dict[str, Any]
) -> BatchResult:
    kind = _kind(data)
    if shape != "auto" and kind != shape:
        seen = "a bare reply" if kind == "reply" else f"a line of the {kind} shape"
        custom_id = _custom_id(data) if _is_map(data) else None
        return _malformed(number, f"expected a line of the {shape} shape, got {seen}", custom_id)
    if kind == "unknown":
        keys = ", ".join(sorted(map(str, data))[:8])
        return _malformed(
            number,
            f"a line with a custom_id but neither 'response' (OpenAI Batch) nor 'result' "
            f"(Anthropic Message Batches); its keys: {keys}",
            _custom_id(data),
        )
    custom_id = _custom_id(data) if kind != "reply" else None
    try:
        if kind == "openai":
            value = _openai(tp, data, opts)
        elif kind == "anthropic":
            value = _anthropic(tp, data, opts)
        elif kind == "gemini":
            value = _gemini(tp, data, opts)
        else:
            value = _reply(tp, data, opts)
    except DescribedTypesError as exc:
        # Kept without its traceback: the frames would keep this line's data alive, in
        # a reference cycle (this frame holds the error) the collector must break.
        return BatchResult(number, custom_id, None, exc.with_traceback(None))
    return BatchResult(number, custom_id, value, None)


def _kind(data: Any) -> str:
    if not (data.__class__ is dict or _is_map(data)):
        return "reply"
    if "custom_id" not in data:
        if "key" in data and ("response" in data or "error" in data):
            return "gemini"
        return "reply"
    if "result" in data:
        return "anthropic"
    if "response" in data or "error" in data:
        return "openai"
    return "unknown"


def _reply(tp: Any, data: Any, opts: dict[str, Any]) -> Any:
    # A provider response object (any format the detector knows) is read as
    # decode_response reads it; anything else is the reply itself.
    if _is_map(data) and reply_format(data) is not None:
        return decode_response(tp, data, **opts)
    return decode(tp, data, **opts)


def _text(value: Any) -> str:
    if value is None:
        return ""
    return (value if isinstance(value, str) else str(value))[:500]


def _openai(tp: Any, data: Mapping[str, Any], opts: dict[str, Any]) -> Any:
    error = data.get("error")
    if error:
        if isinstance(error, Mapping):
            raise RequestError(_text(error.get("code")) or "error", _text(error.get("message")))
        raise RequestError("error", _text(error))
    response = data.get("response")
    if not (response.__class__ is dict or _is_map(response)):
        raise MalformedLineError("an OpenAI Batch line with neither a response nor an error")
    status = response.get("status_code")
    body = response.get("body")
    if status != 200:
        message = ""
        if _is_map(body):
            inner = body.get("error")
            message = _text(inner.get("message") if isinstance(inner, Mapping) else inner)
        raise RequestError(f"status {_text(status)}", message)
    if not (body.__class__ is dict or _is_map(body)):
        raise MalformedLineError("an OpenAI Batch response without a body object")
    return decode_response(tp, body, **opts)


def _gemini(tp: Any, data: Mapping[str, Any], opts: dict[str, Any]) -> Any:
    """A Gemini Batch API output line: ``{"key", "response"}`` (a GenerateContentResponse)
    or ``{"key", "error"}`` (a google.rpc.Status)."""
    error = data.get("error")
    if error:
        if isinstance(error, Mapping):
            code = _text(error.get("status") or error.get("code")) or "error"
            raise RequestError(code, _text(error.get("message")))
        raise RequestError("error", _text(error))
    response = data.get("response")
    if not _is_map(response):
        raise MalformedLineError("a Gemini batch line whose response is not an object")
    return decode_response(tp, response, **opts)


def _anthropic(tp: Any, data: Mapping[str, Any], opts: dict[str, Any]) -> Any:
    result = data.get("result")
    if not _is_map(result):
        raise MalformedLineError("an Anthropic batch line whose result is not an object")
    kind = result.get("type")
    if kind == "succeeded":
        message = result.get("message")
        if not _is_map(message):
            raise MalformedLineError("a succeeded Anthropic batch result without a message")
        return decode_response(tp, message, **opts)
    if kind == "errored":
        error = result.get("error")
        # {"type": "error", "error": {"type": "invalid_request_error", "message": ...}}
        inner = error.get("error") if isinstance(error, Mapping) else None
        detail = inner if isinstance(inner, Mapping) else error
        if isinstance(detail, Mapping):
            kind_text = _text(detail.get("type"))
            raise RequestError(
                f"errored: {kind_text}" if kind_text else "errored", _text(detail.get("message"))
            )
        raise RequestError("errored", _text(detail))
    if kind in ("canceled", "expired"):
        raise RequestError(str(kind))
    raise MalformedLineError(
        f"an Anthropic batch result of type {_text(kind)!r}; expected succeeded, errored, "
        "canceled or expired"
    )

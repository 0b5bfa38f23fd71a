"""Decoding runs of lines of a batch results file into their output lines and tallies."""

from __future__ import annotations

import collections
import dataclasses
from collections.abc import Iterator
from typing import IO, Any

import attrs
import orjson

from .._batch.lines import MAX_LINE_BYTES, OUTCOMES, BatchResult, TooLong, decode_line, read_lines
from .._batch.summary import error_paths
from .._codec.encode import encoder_for, json_value
from .._types import pydantic_models as pyd
from ..errors import DecodeError

#: Lines per chunk decoded at once (a chunk also ends after ``CHUNK_BYTES`` of input).
CHUNK_LINES = 2000
#: Input bytes per chunk: with lines of a megabyte, 2,000 of them would be 2 GB at once.
CHUNK_BYTES = 1 << 20


class _Encoders(dict[type, Any]):
    """Encoders of plain (non-generic) attrs classes, dataclasses and pydantic models, for
    one chunk.

    Made per chunk, so no class is kept alive past the run.
    """

    def __missing__(self, cls: type) -> Any:
        params: Any = getattr(cls, "__parameters__", None)
        found = None
        if not params and (
            attrs.has(cls) or dataclasses.is_dataclass(cls) or pyd.is_model(cls)
        ):
            found = encoder_for(cls)
        self[cls] = found
        return found


def record(
    result: BatchResult, raw: Any = None, encoders: _Encoders | None = None
) -> tuple[str, bytes, tuple[str, ...]]:
    """The output line for one result, with its outcome and error paths."""
    head: dict[str, Any] = {"line": result.line, "custom_id": result.custom_id}
    error = result.error
    if error is None:
        head["outcome"] = "ok"
        value = result.value
        encoder = encoders[value.__class__] if encoders is not None else None
        # A described class goes straight to its encoder, past the generic checks.
        head["value"] = encoder(value) if encoder is not None else json_value(value)
        return "ok", orjson.dumps(head, option=orjson.OPT_APPEND_NEWLINE), ()
    outcome = result.outcome
    head["outcome"] = outcome
    head["message"] = str(error)
    paths: tuple[str, ...] = ()
    if isinstance(error, DecodeError):
        head["errors"] = [list(pair) for pair in error.errors]
        if outcome == "invalid":  # a refusal or a cut-off reply has no path to fix
            paths = error_paths(error)
    if outcome == "malformed" and isinstance(raw, (bytes, str)):
        # Nothing is lost: the unreadable line itself, to fix or resend.
        text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
        head["input"] = text.rstrip("\r\n")
    return outcome, orjson.dumps(head, option=orjson.OPT_APPEND_NEWLINE), paths


@attrs.frozen
class Chunk:
    """Strictly private: the output of a run of lines, as the writer needs it."""

    ok: bytes
    failed: bytes
    counts: collections.Counter[str]
    paths: collections.Counter[str]
    path_lines: int
    size: int


def decode_chunk(
    tp: Any, shape: str, start: int, lines: list[Any], together: bool = False
) -> Chunk:
    """Decode lines numbered from ``start`` into their output lines and tallies.

    ``together``: every output line goes to ``ok``, in input order (one output stream).
    """
    encoders = _Encoders()
    ok: list[bytes] = []
    failed: list[bytes] = []
    tally = dict.fromkeys(OUTCOMES, 0)
    paths: collections.Counter[str] = collections.Counter()
    path_lines = 0
    size = 0
    keep_ok, keep_failed = ok.append, (ok if together else failed).append
    for number, raw in enumerate(lines, start):
        outcome, line, error_paths = record(
            decode_line(tp, raw, number, shape, None, MAX_LINE_BYTES), raw, encoders
        )
        tally[outcome] += 1
        if outcome == "ok":
            keep_ok(line)
        else:
            keep_failed(line)
            if error_paths:
                paths.update(error_paths)
                path_lines += 1
        size += len(raw) if raw.__class__ is bytes else _size(raw)
    counts = collections.Counter({name: n for name, n in tally.items() if n})
    return Chunk(b"".join(ok), b"".join(failed), counts, paths, path_lines, size)


def _size(raw: Any) -> int:
    return raw.size if isinstance(raw, TooLong) else len(raw)


def _chunks(source: IO[bytes]) -> Iterator[tuple[int, list[Any]]]:
    """Runs of lines: ``CHUNK_LINES`` lines or ``CHUNK_BYTES`` of input, whichever is first.

    A line longer than ``CHUNK_BYTES`` is a chunk of its own, so memory is bounded by
    the longest line, not by ``CHUNK_LINES`` of them.
    """
    start = 1
    batch: list[Any] = []
    held = 0
    for line in read_lines(source):
        batch.append(line)
        held += _size(line)
        if len(batch) == CHUNK_LINES or held >= CHUNK_BYTES:
            yield start, batch
            start += len(batch)
            batch, held = [], 0
    if batch:
        yield start, batch


def decode_serially(tp: Any, shape: str, source: IO[bytes], together: bool) -> Iterator[Chunk]:
    for start, lines in _chunks(source):
        yield decode_chunk(tp, shape, start, lines, together)

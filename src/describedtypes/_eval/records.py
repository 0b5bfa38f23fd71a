"""The predictions and gold records ``evaluate()`` reads: lists of instances, dicts or
JSON texts, ``Extraction`` and ``BatchResult`` objects, mappings by id, and files of
JSON lines (batch results, bare replies, or ``{"custom_id", "value"}`` lines).

Every source becomes an iterator of ``(id, value, error)``: the record's id (a
``custom_id``, a mapping's key) or None, the decoded value, or the error it failed with.
Files are read a line at a time.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import orjson

from .._ask.results import Extraction
from .._batch.lines import MAX_LINE_BYTES, BatchResult, TooLong, decode_line, read_lines
from .._codec.decode import decode
from .._codec.encode import encoder_for
from .._codec.values import constructor_of
from .._types import inspector as ni
from .._types import kinds as mt
from ..errors import DecodeError, DescribedTypesError

__all__ = ["Record", "read_records"]

#: One record: its id or None, its value, and the error it failed with (value None).
Record = tuple[Any, Any, "DescribedTypesError | None"]

_JSON_SCALARS = (str, int, float, bool, type(None))


def _is_plain(value: Any, depth: int = 0) -> bool:
    """JSON data (dicts, lists, strings, numbers): what decode() reads as a reply."""
    if isinstance(value, _JSON_SCALARS):
        return True
    if depth > 64:
        return False
    if isinstance(value, dict):
        return all(isinstance(k, str) and _is_plain(v, depth + 1) for k, v in value.items())
    if isinstance(value, list):
        return all(_is_plain(v, depth + 1) for v in value)
    return False


def instance_class(node: ni.Node) -> type | None:
    """The class whose instances are taken as they are (an attrs class, a dataclass, a
    NamedTuple); None for a TypedDict or a type that is no class."""
    obj = ni.object_of(node)
    if obj is None or obj.is_function:
        return None
    cls = constructor_of(obj.python_type)
    if not isinstance(cls, type) or mt.is_typeddict(cls):
        return None
    return cls


def value_of(tp: Any, cls: type | None, item: Any) -> tuple[Any, Any, DescribedTypesError | None]:
    """One in-memory record as ``(id, value, error)``."""
    kind = item.__class__
    if cls is not None and (kind is cls or isinstance(item, cls)):
        return None, item, None
    if kind is BatchResult:
        return item.custom_id, item.value, item.error
    if isinstance(item, Extraction):
        return None, item.value, None
    try:
        return None, decode(tp, item), None
    except DecodeError as exc:
        if isinstance(item, (str, bytes, bytearray, memoryview)) or _is_plain(item):
            return None, None, exc.with_traceback(None)
        # Not JSON data: an instance of a type that is no class (list[Item], a
        # TypedDict holding instances), checked by writing it out and reading it back.
        try:
            return None, decode(tp, encoder_for(tp)(item)), None
        except (DecodeError, TypeError, ValueError, AttributeError, KeyError):
            return None, None, exc.with_traceback(None)


def read_records(tp: Any, node: ni.Node, source: Any, side: str) -> Iterator[Record]:
    """The records of one side, in order, read lazily.

    Raises:
        TypeError: ``source`` is none of the accepted kinds (raised at once).
        OSError: A file cannot be opened (raised at once).
    """
    cls = instance_class(node)
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        with open(path, "rb"):  # a missing or unreadable file fails now, not mid-way
            pass
        return _from_file(tp, path)
    if isinstance(source, (bytes, bytearray, memoryview)) or not isinstance(
        source, (Iterable, Mapping)
    ):
        msg = (
            f"{side} must be a list (of instances, dicts, JSON texts, Extraction or "
            f"BatchResult objects), a mapping of ids to those, or the path of a JSON "
            f"lines file; got {type(source).__name__}"
        )
        raise TypeError(msg)
    if isinstance(source, Mapping):
        return _from_mapping(tp, cls, source)
    if callable(getattr(source, "readline", None)):  # an open file
        handle: Any = source
        return _from_lines(tp, read_lines(handle, MAX_LINE_BYTES))
    return (value_of(tp, cls, item) for item in source)


def _from_mapping(tp: Any, cls: type | None, source: Mapping[Any, Any]) -> Iterator[Record]:
    for key, item in source.items():
        _, value, error = value_of(tp, cls, item)
        yield key, value, error


def _from_file(tp: Any, path: str) -> Iterator[Record]:
    with open(path, "rb") as handle:
        yield from _from_lines(tp, read_lines(handle, MAX_LINE_BYTES))


def _from_lines(tp: Any, lines: Iterable[Any]) -> Iterator[Record]:
    for number, raw in enumerate(lines, 1):
        yield read_line(tp, raw, number)


def read_line(tp: Any, raw: Any, number: int) -> Record:
    """One line: a ``{"custom_id", "value"}`` record, or whatever ``decode_batch`` reads
    (a provider's batch result line, a bare reply)."""
    data: Any = raw
    if isinstance(raw, (bytes, str)) and len(raw) <= MAX_LINE_BYTES:
        try:
            data = orjson.loads(raw)
        except orjson.JSONDecodeError:
            data = raw  # decode_line says what is wrong with it
    elif not isinstance(raw, TooLong):
        data = raw
    if (
        isinstance(data, dict)
        and "custom_id" in data
        and "value" in data
        and not ({"response", "result", "error"} & data.keys())
    ):
        custom_id = data["custom_id"]
        custom_id = custom_id if isinstance(custom_id, str) else str(custom_id)[:200]
        try:
            return custom_id, decode(tp, data["value"]), None
        except DecodeError as exc:
            return custom_id, None, exc.with_traceback(None)
    # decode_line reads a parsed object, or the line itself (a bare array, a bad line).
    result = decode_line(tp, data if isinstance(data, dict) else raw, number)
    return result.custom_id, result.value, result.error

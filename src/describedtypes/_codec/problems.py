"""Problems found while decoding: how they are collected, bounded and worded."""

from __future__ import annotations

import decimal
import difflib
import json
import math
import re
from collections.abc import Callable, Mapping
from typing import Any, NoReturn

from .._base.text import escape
from .._types.scalars import FORMAT_TYPES
from ..errors import DecodeError, render_errors

Structure = Callable[[Any], Any]


#: Problems shown in ``str(DecodeError)``; ``.errors`` keeps up to _MAX_PROBLEMS.
_MAX_SHOWN = 20


#: Problems collected before decoding stops: a reply with a million wrong items costs
#: the time of a hundred, and the DecodeError holds a bounded amount of text.
_MAX_PROBLEMS = 100


#: Paths and messages longer than these are cut in the middle in ``.errors``.
_MAX_PATH_KEPT = 10_000


_MAX_MESSAGE_KEPT = 2000


#: Unknown keys that get a did-you-mean search (difflib is quadratic in key length).
MAX_SUGGESTIONS = 50


MAX_KEY_FOR_SUGGESTION = 100


MAX_FORMAT_LENGTH = 100


#: Paths longer than this are cut in the middle in ``str(DecodeError)``.
_MAX_PATH_SHOWN = 120


#: Beyond 2**53 a float is not an exact integer any more; orjson reads integers past
#: 64 bits, and any number written with a point or exponent, as floats.
EXACT_FLOAT = float(2**53)


INEXACT = (
    ", which is too large to be read exactly; write integers as plain digits (no decimal "
    "point or exponent) between -9223372036854775808 and 18446744073709551615"
)


class Invalid(Exception):
    """Strictly private: the problems found in one value.

    Each problem is a list ``[message, segment_n, ..., segment_1]``: the path segments
    are appended by the callers as the exception travels up, innermost first.
    """

    __slots__ = ("errors",)

    def __init__(self, errors: list[list[Any]]) -> None:
        super().__init__()
        self.errors = errors


class RawPath(str):
    """A path suffix already spelled out (from a user hook's cattrs error)."""

    __slots__ = ()


def fail(message: str) -> NoReturn:
    raise Invalid([[message]])


def add_missing(errs: list[list[Any]] | None, key: Any, message: str) -> list[list[Any]]:
    if errs is None:
        errs = []
    errs.append([message, key])
    return errs


def merge(errs: list[list[Any]] | None, exc: Invalid, key: Any) -> list[list[Any]]:
    if errs is None:
        errs = []
    for item in exc.errors:
        item.append(key)
    errs.extend(exc.errors)
    if len(errs) > _MAX_PROBLEMS:
        cut(errs)
    return errs


#: The message of the problem standing for "and more": decoding stopped collecting.
MORE: Any = object()


def cut(errs: list[list[Any]]) -> None:
    """Keep the first ``_MAX_PROBLEMS`` problems and one ``MORE`` marker, in place.

    Every list of problems passes through ``merge`` on its way up, so no level ever
    holds more than ``_MAX_PROBLEMS + 1`` items, and the loops over a container's items
    stop once theirs is full (``full``).
    """
    kept = [item for item in errs if item[0] is not MORE][:_MAX_PROBLEMS]
    kept.append([MORE])
    errs[:] = kept


def full(errs: list[list[Any]] | None) -> bool:
    return errs is not None and len(errs) > _MAX_PROBLEMS


_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def _segment(seg: Any) -> str:
    if isinstance(seg, RawPath):
        return str(seg)
    if isinstance(seg, int) and not isinstance(seg, bool):
        return f"[{seg}]"
    if isinstance(seg, str):
        if len(seg) <= 64 and _IDENTIFIER.match(seg):
            return "." + seg
        return "[" + quote(seg) + "]"
    return "[" + brief(seg) + "]"


def _path(segments: list[Any]) -> str:
    return "$" + "".join(_segment(s) for s in reversed(segments))


def quote(text: str, limit: int = 40) -> str:
    """``text`` as a JSON string on one line (every line break and control character
    escaped, U+2028 and U+2029 included), cut to ``limit`` characters."""
    if len(text) <= limit:
        return escape(json.dumps(text, ensure_ascii=False))
    cut = escape(json.dumps(text[:limit], ensure_ascii=False))
    return cut[:-1] + f'…" ({len(text)} characters)'


def brief(value: Any, limit: int = 40) -> str:
    """A short Python spelling of ``value`` (long strings and containers cut)."""
    if isinstance(value, str):
        if len(value) <= limit:
            return repr(value)
        return repr(value[:limit])[:-1] + f"…' ({len(value)} characters)"
    if isinstance(value, bool) or value is None:
        return repr(value)
    if isinstance(value, int):
        bits = value.bit_length()
        return repr(value) if bits <= 128 else f"<integer of {bits} bits>"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, decimal.Decimal):
        return brief(str(value), limit)[1:-1] if len(str(value)) > limit else str(value)
    if isinstance(value, (list, tuple)):
        return f"<array of {len(value)} items>"
    if isinstance(value, Mapping):
        return f"<object with {len(value)} keys>"
    return f"<{type(value).__name__}>"


def show(value: Any) -> str:
    """``value`` as the model would see it: its JSON kind and a short spelling."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean " + ("true" if value else "false")
    if isinstance(value, int):
        return "integer " + brief(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        return "number " + repr(value)
    if isinstance(value, str):
        return "string " + quote(value)
    if isinstance(value, (list, tuple)):
        return "array"
    if isinstance(value, Mapping):
        return "object"
    return f"a Python {type(value).__name__} (not a JSON value)"


def listing(values: tuple[Any, ...], limit: int = 30) -> str:
    shown = [brief(v) for v in values[:limit]]
    more = f", … ({len(values)} values)" if len(values) > limit else ""
    return "[" + ", ".join(shown) + more + "]"


def not_one_of(value: Any, values: tuple[Any, ...]) -> str:
    kinds, lenient = value_kinds(values)
    if classify(value) in kinds | lenient:
        return f"{brief(value)} is not one of {listing(values)}{_close_value(value, values)}"
    return f"expected one of {listing(values)}, got {show(value)}"


def _close_value(value: Any, values: tuple[Any, ...]) -> str:
    """A did-you-mean for a string that differs from an allowed one in case or a typo."""
    if not isinstance(value, str) or len(value) > MAX_KEY_FOR_SUGGESTION:
        return ""
    texts = [v for v in values if isinstance(v, str)]
    close = [v for v in texts if v.casefold() == value.casefold()]
    if not close and len(texts) <= MAX_SUGGESTIONS:
        close = difflib.get_close_matches(value, texts, n=1, cutoff=0.8)
    return f"; did you mean {close[0]!r}?" if close else ""


class Members:
    """Strictly private: JSON value -> Python value, with ``True`` never equal to ``1``."""

    __slots__ = ("bools", "others", "values")

    def __init__(self, pairs: list[tuple[Any, Any]]) -> None:
        self.values = tuple(v for v, _ in pairs)
        self.bools = {v: p for v, p in pairs if isinstance(v, bool)}
        self.others = {v: p for v, p in pairs if not isinstance(v, bool)}

    def get(self, value: Any, default: Any) -> Any:
        table = self.bools if isinstance(value, bool) else self.others
        try:
            return table.get(value, default)
        except TypeError:  # unhashable: an array or object
            return default


ABSENT: Any = object()  # "absent" marker in generated code


JSON_CLASSES = (type(None), bool, int, float, str, list, dict)


def classify(value: Any) -> type | None:
    """The JSON class a Python value stands for (subclasses mapped to their base)."""
    cls: type = value.__class__
    if cls in JSON_CLASSES:
        return cls
    for base in (bool, int, float, str):
        if isinstance(value, base):
            return base
    if isinstance(value, (list, tuple, set, frozenset)):
        return list
    if isinstance(value, Mapping):
        return dict
    if isinstance(value, FORMAT_TYPES):  # parsed input: the value a string stands for
        return str
    return None


def value_kinds(values: tuple[Any, ...]) -> tuple[frozenset[type], frozenset[type]]:
    kinds: set[type] = set()
    lenient: set[type] = set()
    for v in values:
        if v is None:
            kinds.add(type(None))
        elif isinstance(v, bool):
            kinds.add(bool)
        elif isinstance(v, int):
            kinds.add(int)
            lenient.add(float)
        elif isinstance(v, float):
            kinds.add(float)
            lenient.add(int)
        elif isinstance(v, str):
            kinds.add(str)
    return frozenset(kinds), frozenset(lenient - kinds)


def decode_error(items: list[list[Any]]) -> DecodeError:
    """The DecodeError for these problems: plain strings only, bounded in number and size."""
    kept = [item for item in items if item[0] is not MORE]
    truncated = len(kept) < len(items) or len(kept) > _MAX_PROBLEMS
    errors = [(_kept_path(item[1:]), _kept(item[0])) for item in kept[:_MAX_PROBLEMS]]
    if len(errors) <= _MAX_SHOWN and not truncated:
        if all(len(p) <= _MAX_PATH_SHOWN for p, _ in errors):
            return DecodeError(errors)
        return DecodeError(errors, message=render_errors([(_short_path(p), m) for p, m in errors]))
    count = f"more than {len(errors)}" if truncated else str(len(errors))
    shown = f"; the first {_MAX_SHOWN}" if len(errors) > _MAX_SHOWN else ""
    message = (
        f"The reply does not match the schema ({count} problems{shown}):\n"
        + "\n".join(problem_lines(errors, truncated=truncated))
    )
    return DecodeError(errors, message=message, truncated=truncated)


def problem_lines(errors: list[tuple[str, str]], *, truncated: bool = False) -> list[str]:
    """``- path: message`` lines for a report: the first few, very deep paths shortened.

    ``truncated``: decoding stopped collecting after ``errors``, so there are more.
    """
    lines = [f"- {_short_path(p)}: {m}" for p, m in errors[:_MAX_SHOWN]]
    hidden = len(errors) - _MAX_SHOWN
    if truncated:
        lines.append(
            f"- … and {'at least ' + str(hidden + 1) if hidden > 0 else 'more'} more problems "
            f"(checking stopped after {len(errors)}); fix these and send the whole reply again"
        )
    elif hidden > 0:
        lines.append(f"- … and {hidden} more")
    return lines


def _kept_path(segments: list[Any]) -> str:
    return _middle_cut(_path(segments), _MAX_PATH_KEPT)


def _kept(message: Any) -> str:
    return _middle_cut(str(message), _MAX_MESSAGE_KEPT)


def _middle_cut(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    half = limit // 2 - 20
    return f"{text[:half]}…({len(text)} characters)…{text[-half:]}"


def _short_path(path: str) -> str:
    """A path cut in the middle when a deep value makes it long, for a message."""
    if len(path) <= _MAX_PATH_SHOWN:
        return path
    return f"{path[:40]}…({len(path)} characters)…{path[-60:]}"

"""Decoding model replies into typed instances.

Design
------
The decoder is compiled from the inspected nodes (``describedtypes.inspect.type_info``),
the same tree the schema builder renders, so the two cannot disagree: JSON keys come
from ``Field.key``, constructor keywords from ``Field.init_name``, optional fields are
``Field.nullable or Field.has_default``, enum and literal values and the bounds come
from the nodes. Each type is walked once; every object node becomes a generated Python
function (like cattrs' ``make_dict_structure_fn``) with the scalar checks inlined, and
the result is cached per type and dropped when an annotation is registered.

Valid input goes straight through; a problem never stops the walk. Each function
collects every problem below it and raises them together with paths relative to
itself, and the caller adds its own key on the way up, so the valid path pays nothing
for paths it does not need.

Unions are decided the way the schema allows: by the JSON type of the value (an int
prefers an integer option, a float a number option), then for objects by a Literal
field whose values tell the classes apart, else by which classes' required keys are
present and which know every key sent. When several options remain they are tried in
order, and each (value, option) outcome is remembered for the rest of the decode, so
unions nested in recursive types stay linear instead of exponential.

Already-parsed input follows the JSON rules, with one allowance so that the output of
``cattrs.unstructure`` decodes back: a field may hold the very value it
decodes to where that value is not JSON (a ``datetime``, ``date``, ``time`` or
``UUID``, a set for an array, an Enum member). That is the value itself, not a
conversion.

The cattrs converter
--------------------
The decoding rules are those of a cattrs converter configured like the schema. Stock cattrs
hooks coerce by calling the type (``int("5")``) and stop at the first problem of a field,
so they can carry neither the no-coercion rule nor the all-problems-with-JSON-paths
reports. The decision: the compiled decoder *is* the configured converter for every type
the schema describes, and ``decode(..., converter=c)`` layers it over a user's
``cattrs.Converter``. Every class, enum or scalar type in the tree for which ``c`` has a
hook of its own (``register_structure_hook``, ``register_structure_hook_func`` or a
hook factory: anything a fresh converter of the same class would not produce) is
decoded by calling that hook with the raw JSON value; its exceptions (cattrs'
exception groups included) become ``DecodeError`` entries under the value's path.
Everything else follows the strict rules above. Compiled decoders for a converter are
cached and rebuilt when the converter's hooks change.

Encoding (``_encode.py``) follows the same nodes the other way; what a parse failure
of the reply's text tells the model is worked out in ``_jsontext.py``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime
import decimal
import difflib
import enum
import functools
import itertools
import json
import keyword
import linecache
import math
import re
import sys
import threading
import uuid
import weakref
from collections.abc import Callable, Mapping
from typing import Any, NoReturn, TypeVar, cast, overload

import attrs
import orjson

from . import _cache
from . import _moretypes as mt
from . import inspect as ni
from ._annotate import Registry, annotate, current_stamp
from ._fast import FALLBACK, fast_decoder_for
from ._jsontext import json_error, parse_fenced, unfenced
from .errors import DecodeError, SchemaError, render_errors

__all__ = ["decode", "decode_arguments"]

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
_MAX_SUGGESTIONS = 50
_MAX_KEY_FOR_SUGGESTION = 100
_MAX_FORMAT_LENGTH = 100
#: Paths longer than this are cut in the middle in ``str(DecodeError)``.
_MAX_PATH_SHOWN = 120
#: Beyond 2**53 a float is not an exact integer any more; orjson reads integers past
#: 64 bits, and any number written with a point or exponent, as floats.
_EXACT_FLOAT = float(2**53)
_INEXACT = (
    ", which is too large to be read exactly; write integers as plain digits (no decimal "
    "point or exponent) between -9223372036854775808 and 18446744073709551615"
)


# -- problems -------------------------------------------------------------------------


class _Invalid(Exception):
    """Strictly private: the problems found in one value.

    Each problem is a list ``[message, segment_n, ..., segment_1]``: the path segments
    are appended by the callers as the exception travels up, innermost first.
    """

    __slots__ = ("errors",)

    def __init__(self, errors: list[list[Any]]) -> None:
        super().__init__()
        self.errors = errors


class _RawPath(str):
    """A path suffix already spelled out (from a user hook's cattrs error)."""

    __slots__ = ()


def _fail(message: str) -> NoReturn:
    raise _Invalid([[message]])


def _missing(errs: list[list[Any]] | None, key: Any, message: str) -> list[list[Any]]:
    if errs is None:
        errs = []
    errs.append([message, key])
    return errs


def _merge(errs: list[list[Any]] | None, exc: _Invalid, key: Any) -> list[list[Any]]:
    if errs is None:
        errs = []
    for item in exc.errors:
        item.append(key)
    errs.extend(exc.errors)
    if len(errs) > _MAX_PROBLEMS:
        _cut(errs)
    return errs


#: The message of the problem standing for "and more": decoding stopped collecting.
_MORE: Any = object()


def _cut(errs: list[list[Any]]) -> None:
    """Keep the first ``_MAX_PROBLEMS`` problems and one ``_MORE`` marker, in place.

    Every list of problems passes through ``_merge`` on its way up, so no level ever
    holds more than ``_MAX_PROBLEMS + 1`` items, and the loops over a container's items
    stop once theirs is full (``_full``).
    """
    kept = [item for item in errs if item[0] is not _MORE][:_MAX_PROBLEMS]
    kept.append([_MORE])
    errs[:] = kept


def _full(errs: list[list[Any]] | None) -> bool:
    return errs is not None and len(errs) > _MAX_PROBLEMS


_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def _segment(seg: Any) -> str:
    if isinstance(seg, _RawPath):
        return str(seg)
    if isinstance(seg, int) and not isinstance(seg, bool):
        return f"[{seg}]"
    if isinstance(seg, str):
        if len(seg) <= 64 and _IDENTIFIER.match(seg):
            return "." + seg
        return "[" + _quote(seg) + "]"
    return "[" + _brief(seg) + "]"


def _path(segments: list[Any]) -> str:
    return "$" + "".join(_segment(s) for s in reversed(segments))


def _quote(text: str, limit: int = 40) -> str:
    """``text`` as a JSON string, cut to ``limit`` characters."""
    if len(text) <= limit:
        return json.dumps(text, ensure_ascii=False)
    return json.dumps(text[:limit], ensure_ascii=False)[:-1] + f'…" ({len(text)} characters)'


def _brief(value: Any, limit: int = 40) -> str:
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
        return _brief(str(value), limit)[1:-1] if len(str(value)) > limit else str(value)
    if isinstance(value, (list, tuple)):
        return f"<array of {len(value)} items>"
    if isinstance(value, Mapping):
        return f"<object with {len(value)} keys>"
    return f"<{type(value).__name__}>"


def _show(value: Any) -> str:
    """``value`` as the model would see it: its JSON kind and a short spelling."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean " + ("true" if value else "false")
    if isinstance(value, int):
        return "integer " + _brief(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        return "number " + repr(value)
    if isinstance(value, str):
        return "string " + _quote(value)
    if isinstance(value, (list, tuple)):
        return "array"
    if isinstance(value, Mapping):
        return "object"
    return f"a Python {type(value).__name__} (not a JSON value)"


def _listing(values: tuple[Any, ...], limit: int = 30) -> str:
    shown = [_brief(v) for v in values[:limit]]
    more = f", … ({len(values)} values)" if len(values) > limit else ""
    return "[" + ", ".join(shown) + more + "]"


def _not_one_of(value: Any, values: tuple[Any, ...]) -> str:
    kinds, lenient = _value_kinds(values)
    if _classify(value) in kinds | lenient:
        return f"{_brief(value)} is not one of {_listing(values)}{_close_value(value, values)}"
    return f"expected one of {_listing(values)}, got {_show(value)}"


def _close_value(value: Any, values: tuple[Any, ...]) -> str:
    """A did-you-mean for a string that differs from an allowed one in case or a typo."""
    if not isinstance(value, str) or len(value) > _MAX_KEY_FOR_SUGGESTION:
        return ""
    texts = [v for v in values if isinstance(v, str)]
    close = [v for v in texts if v.casefold() == value.casefold()]
    if not close and len(texts) <= _MAX_SUGGESTIONS:
        close = difflib.get_close_matches(value, texts, n=1, cutoff=0.8)
    return f"; did you mean {close[0]!r}?" if close else ""


class _Members:
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


_M: Any = object()  # "absent" marker in generated code


# -- JSON kinds and values ------------------------------------------------------------


def _as_object(value: Any) -> dict[Any, Any]:
    if isinstance(value, Mapping):
        return dict(value)
    _fail(f"expected object, got {_show(value)}{_wrapped_hint(value, '{')}")


def _as_array(value: Any) -> list[Any]:
    # Sets only reach here in parsed input (cattrs.unstructure keeps them as sets).
    if isinstance(value, (list, tuple, set, frozenset)):
        return list(value)
    _fail(f"expected array, got {_show(value)}{_wrapped_hint(value, '[')}")


def _wrapped_hint(value: Any, opener: str) -> str:
    """The fix when the value is there but wrapped: JSON text in a string, a 1-item array."""
    kind = "object" if opener == "{" else "array"
    if isinstance(value, str) and value.lstrip()[:1] == opener:
        return f"; send the {kind} itself, not a string holding its JSON"
    if (
        opener == "{"
        and isinstance(value, (list, tuple))
        and len(value) == 1
        and isinstance(value[0], Mapping)
    ):
        return "; send the object itself, not an array holding it"
    return ""


# The text forms the schema's ``format`` names, read exactly (RFC 3339 section 5.6,
# RFC 4122 section 3), and the same on every Python: ``fromisoformat`` is not used, as
# from 3.11 on it also reads ISO 8601 forms such as "20200101" or "2020-W01-1", a date
# as a date-time and a space for the "T". The one allowance: a date-time or time may
# leave out its offset (a naive value), since that is what encode() writes for a naive
# value; a grammar-constrained model always writes it.
_TIME_TEXT = (
    r"([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]+))?(?:([Zz])|([+-])([0-9]{2}):([0-9]{2}))?"
)
_DATE_RE = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})\Z")
_DATETIME_RE = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt]" + _TIME_TEXT + r"\Z")
_TIME_RE = re.compile(_TIME_TEXT + r"\Z")
_UUID_RE = re.compile(
    r"[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}\Z"
)
_UTC = datetime.timezone.utc


class _OutOfRange(ValueError):
    """Strictly private: text of the right form naming no real value (30 February)."""


def _checked(make: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    try:
        return make(*args, **kwargs)
    except ValueError as exc:
        reason = str(exc)
        if "second must be" in reason:
            reason += " (Python has no leap seconds)"
        raise _OutOfRange(reason) from None


def _time_parts(groups: tuple[str | None, ...]) -> tuple[int, int, int, int, Any]:
    """(hour, minute, second, microsecond, tzinfo) from _TIME_TEXT's groups."""
    hour, minute, second, fraction, zulu, sign, off_hour, off_minute = groups
    micro = int((fraction + "000000")[:6]) if fraction else 0  # cut to Python's resolution
    tz: Any = None
    if zulu:
        tz = _UTC
    elif sign:
        hours, minutes = int(off_hour or ""), int(off_minute or "")
        if hours > 23 or minutes > 59:
            msg = "the offset's hours must be in 0..23 and its minutes in 0..59"
            raise _OutOfRange(msg)
        delta = datetime.timedelta(hours=hours, minutes=minutes)
        tz = datetime.timezone(-delta if sign == "-" else delta)
    return int(hour or ""), int(minute or ""), int(second or ""), micro, tz


def _parse_date(text: str) -> datetime.date:
    """An RFC 3339 ``full-date``: ``YYYY-MM-DD`` and nothing else."""
    m = _DATE_RE.match(text)
    if m is None:
        msg = "not an RFC 3339 date"
        raise ValueError(msg)
    try:
        # Checked to be YYYY-MM-DD, which every Python's C parser reads the same way.
        return datetime.date.fromisoformat(text)
    except ValueError:
        return _checked(datetime.date, int(m[1]), int(m[2]), int(m[3]))  # type: ignore[no-any-return]


def _parse_datetime(text: str) -> datetime.datetime:
    """An RFC 3339 ``date-time`` (``T`` or ``t``, seconds, any fraction, ``Z`` or ±hh:mm)."""
    m = _DATETIME_RE.match(text)
    if m is None:
        msg = "not an RFC 3339 date-time"
        raise ValueError(msg)
    if _iso_reads(m[7], m[8], m[9], m[11]):
        try:
            return datetime.datetime.fromisoformat(text)
        except ValueError:
            pass  # the long way says why
    return _rfc_datetime(m)


def _rfc_datetime(m: re.Match[str]) -> datetime.datetime:
    hour, minute, second, micro, tz = _time_parts(m.groups()[3:])
    return _checked(  # type: ignore[no-any-return]
        datetime.datetime, int(m[1]), int(m[2]), int(m[3]), hour, minute, second, micro, tz
    )


def _parse_time(text: str) -> datetime.time:
    """An RFC 3339 ``full-time`` (``HH:MM:SS``, any fraction, ``Z`` or ±hh:mm)."""
    m = _TIME_RE.match(text)
    if m is None:
        msg = "not an RFC 3339 time"
        raise ValueError(msg)
    if _iso_reads(m[4], m[5], m[6], m[8]):
        try:
            return datetime.time.fromisoformat(text)
        except ValueError:
            pass
    return _rfc_time(m)


def _rfc_time(m: re.Match[str]) -> datetime.time:
    hour, minute, second, micro, tz = _time_parts(m.groups())
    return _checked(datetime.time, hour, minute, second, micro, tz)  # type: ignore[no-any-return]


#: From 3.11 on ``fromisoformat`` reads a ``Z`` and fractions of any length (cut to
#: microseconds), as RFC 3339 allows; 3.10 reads neither.
_ISO_READS_RFC = sys.version_info >= (3, 11)


def _iso_reads(
    fraction: str | None, zulu: str | None, sign: str | None, off_minute: str | None
) -> bool:
    """Whether ``fromisoformat`` reads this (checked) RFC 3339 time as the long way does.

    It reads the common spellings the same on every Python and is much faster. It
    accepts offset minutes past 59, which RFC 3339 does not; ``z`` it refuses, as it
    does impossible values (30 February): those go the long way, which says why.
    """
    if sign is not None and (off_minute is None or off_minute >= "60"):
        return False
    if _ISO_READS_RFC:
        return True
    return zulu is None and (fraction is None or len(fraction) in (3, 6))


def _parse_uuid(text: str) -> uuid.UUID:
    """A UUID in RFC 4122's text form: 8-4-4-4-12 hex digits, either case, nothing around."""
    if _UUID_RE.match(text) is None:
        msg = "not an RFC 4122 UUID"
        raise ValueError(msg)
    return uuid.UUID(text)


_FORMATS: dict[str, tuple[Callable[[str], Any], str]] = {
    "date-time": (
        _parse_datetime,
        "date-time string (RFC 3339, e.g. 2024-05-01T12:30:00Z)",
    ),
    "date": (_parse_date, "date string (YYYY-MM-DD)"),
    "time": (_parse_time, "time string (HH:MM:SS, e.g. 12:30:00Z)"),
    "uuid": (_parse_uuid, "UUID string (8-4-4-4-12 hex digits)"),
}



# -- checks shared by scalars ----------------------------------------------------------


def _number_checks(c: ni.Constraints) -> list[Callable[[Any], str | None]]:
    checks: list[Callable[[Any], str | None]] = []
    if c.minimum is not None:
        lo = c.minimum
        checks.append(lambda v: None if v >= lo else f"must be at least {lo}, got {_brief(v)}")
    if c.exclusive_minimum is not None:
        xlo = c.exclusive_minimum
        checks.append(lambda v: None if v > xlo else f"must be greater than {xlo}, got {_brief(v)}")
    if c.maximum is not None:
        hi = c.maximum
        checks.append(lambda v: None if v <= hi else f"must be at most {hi}, got {_brief(v)}")
    if c.exclusive_maximum is not None:
        xhi = c.exclusive_maximum
        checks.append(lambda v: None if v < xhi else f"must be less than {xhi}, got {_brief(v)}")
    if c.multiple_of is not None:
        step = c.multiple_of
        checks.append(
            lambda v: None if _is_multiple(v, step) else f"must be a multiple of {step}, got "
            f"{_brief(v)}"
        )
    return checks


def _exact(value: Any) -> decimal.Decimal:
    """A number as the decimal it was written as (a float by its shortest repr)."""
    if isinstance(value, decimal.Decimal):
        return value
    if isinstance(value, float):
        return decimal.Decimal(repr(float(value)))
    return decimal.Decimal(value)


def _is_multiple(value: Any, step: Any) -> bool:
    """``value`` is a whole multiple of ``step``, in decimal arithmetic (so 0.3 is a
    multiple of 0.1, as written)."""
    if isinstance(value, int) and isinstance(step, int):
        return value % step == 0
    try:
        with decimal.localcontext() as ctx:
            ctx.prec = 60
            return _exact(value) % _exact(step) == 0
    except (decimal.InvalidOperation, ValueError, OverflowError):
        return False


class _ExactNumber(float):
    """A JSON number with a fraction or exponent, with the text it was written as.

    Only replies decoded into types holding a Decimal are read this way (with the
    standard library parser), so the Decimal gets every digit the model wrote.
    """

    text: str

    def __new__(cls, text: str) -> _ExactNumber:
        made = super().__new__(cls, text)
        made.text = text
        return made


def exact_loads(data: str | bytes | bytearray | memoryview, parsed: Any) -> Any:
    """``data`` (already parsed by orjson as ``parsed``, maybe inside a fence) with exact
    numbers; ``parsed`` itself where the standard parser refuses what orjson took (an
    integer of more than 4300 digits, nesting past the recursion limit)."""
    try:
        text = data if isinstance(data, str) else bytes(data).decode("utf-8")
        return json.loads(unfenced(text), parse_float=_ExactNumber)
    except (ValueError, RecursionError):
        return parsed


_DECIMAL_TEXT = re.compile(mt.DECIMAL_PATTERN)
#: Digits beyond these are refused before Decimal() parses them (bounded work).
_MAX_DECIMAL_LENGTH = 1000


def _allows_null(node: ni.Node) -> bool:
    return isinstance(node, ni.NullNode) or (isinstance(node, ni.UnionNode) and node.nullable)


def _has_newer_types(node: ni.Node) -> bool:
    """A Decimal, Flag, TypedDict, NamedTuple, dataclass InitVar or multipleOf in the tree."""
    seen: set[int] = set()
    stack = [node]
    while stack:
        current = stack.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        if ni.is_decimal(current) or current.constraints.multiple_of is not None:
            return True
        if isinstance(current, ni.ArrayNode) and issubclass(current.container, enum.Flag):
            return True
        if isinstance(current, ni.ObjectNode) and not current.is_function:
            cls = _constructor(current.python_type)
            if mt.is_typeddict(cls) or mt.is_namedtuple(cls):
                return True
            own = getattr(cls, "__dataclass_fields__", {})
            if any(f._field_type is dataclasses._FIELD_INITVAR for f in own.values()):  # type: ignore[attr-defined]
                return True
        if isinstance(current, ni.DictNode):
            stack.append(current.keys)
        stack.extend(ni.children_of(current))
    return False


def needs_exact(node: ni.Node) -> bool:
    """Whether a Decimal is anywhere in the tree (then numbers are read exactly)."""
    seen: set[int] = set()
    stack = [node]
    while stack:
        current = stack.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        if ni.is_decimal(current):
            return True
        if isinstance(current, ni.DictNode):
            stack.append(current.keys)
        stack.extend(ni.children_of(current))
    return False


def _length_checks(c: ni.Constraints, unit: str) -> list[Callable[[Any], str | None]]:
    checks: list[Callable[[Any], str | None]] = []
    if c.min_length is not None:
        lo = c.min_length
        checks.append(
            lambda v: None if len(v) >= lo else f"must have at least {lo} {unit}, got {len(v)}"
        )
    if c.max_length is not None:
        hi = c.max_length
        checks.append(
            lambda v: None if len(v) <= hi else f"must have at most {hi} {unit}, got {len(v)}"
        )
    return checks


def _pattern_check(pattern: str) -> Callable[[Any], str | None]:
    try:
        compiled = re.compile(pattern)
    except re.error:
        return lambda v: None  # the attrs validator, if any, still runs on construction
    shown = _brief(pattern, 60)
    return lambda v: None if compiled.search(v) else f"must match the pattern {shown}"


def _among(value: Any, values: tuple[Any, ...]) -> bool:
    """``value`` is one of ``values``, with ``True`` never equal to ``1``."""
    return any(ni.same_value(value, v) for v in values)


def _enum_check(values: tuple[Any, ...]) -> Callable[[Any], str | None]:
    members = _Members([(v, v) for v in values])
    return lambda v: None if members.get(v, _M) is not _M else _not_one_of(v, values)


# -- the compiler ----------------------------------------------------------------------


@attrs.frozen
class _Compiled:
    """Strictly private: how to decode one node.

    ``fn`` decodes (raising ``_Invalid``); ``fast`` is a Python expression over ``{v}``
    that is true when the value is valid *and* already its decoded self, so generated
    code skips the call; None when there is no such shortcut.
    """

    fn: Structure
    fast: str | None = None
    kinds: frozenset[type] = frozenset()
    lenient: frozenset[type] = frozenset()
    #: For a plain ``list[X]``: how to decode X, so object code can loop inline (one
    #: Python frame per level of a recursive type instead of three, and faster).
    items: _Compiled | None = None
    #: The name generated code calls it by (objects: resolves even inside a cycle).
    ref: str | None = None
    #: An expression over ``{v}`` giving the decoded value, or ``_M`` (or raising
    #: ValueError) to fall back to ``fn``: lets generated code skip the call for
    #: enums and dates.
    convert: str | None = None


_JSON_CLASSES = (type(None), bool, int, float, str, list, dict)


def _classify(value: Any) -> type | None:
    """The JSON class a Python value stands for (subclasses mapped to their base)."""
    cls: type = value.__class__
    if cls in _JSON_CLASSES:
        return cls
    for base in (bool, int, float, str):
        if isinstance(value, base):
            return base
    if isinstance(value, (list, tuple, set, frozenset)):
        return list
    if isinstance(value, Mapping):
        return dict
    if isinstance(value, _STRING_VALUES):  # parsed input: the value a string stands for
        return str
    return None


_STRING_VALUES = (datetime.date, datetime.time, uuid.UUID)


class _HookSource:
    """Strictly private: the user's converter hooks that replace the built-in rules."""

    def __init__(self, converter: Any) -> None:
        self.converter = converter
        self._baseline = _baseline_converter(converter)

    def hook_for(self, tp: Any) -> Callable[[Any, Any], Any] | None:
        try:
            hook = self.converter.get_structure_hook(tp)
        except Exception:  # no hook at all: the built-in rules apply
            return None
        if getattr(hook, "_describedtypes_hook", False):  # make_converter's own hooks
            return None
        try:
            base = self._baseline.get_structure_hook(tp)
        except Exception:
            return hook  # type: ignore[no-any-return]
        if _hook_identity(hook) == _hook_identity(base):
            return None
        return hook  # type: ignore[no-any-return]


def _baseline_converter(converter: Any) -> Any:
    import cattrs

    try:
        return type(converter)()
    except Exception:
        return cattrs.Converter()


def _hook_identity(hook: Any) -> Any:
    while isinstance(hook, functools.partial):
        hook = hook.func
    func = getattr(hook, "__func__", hook)
    code = getattr(func, "__code__", None)
    if code is None:
        return type(hook)
    if code.co_filename.startswith("<cattrs generated"):
        return "cattrs generated"
    return code


class _Compiler:
    """Strictly private: turns one node tree into structure functions."""

    def __init__(self, hooks: _HookSource | None = None) -> None:
        self.ns: dict[str, Any] = {
            "_Invalid": _Invalid,
            "_merge": _merge,
            "_missing": _missing,
            "_M": _M,
            "_as_object": _as_object,
            "_as_array": _as_array,
            "_unknown": _unknown,
            "_ctor_errors": _ctor_errors,
            "_list_problems": _list_problems,
        }
        self.hooks = hooks
        self.hooked_types: list[Any] = []
        self._names = 0
        self._objects: dict[ni.ObjectNode, str] = {}
        self._done: dict[ni.ObjectNode, _Compiled] = {}

    def name(self, prefix: str, value: Any) -> str:
        self._names += 1
        key = f"{prefix}{self._names}"
        self.ns[key] = value
        return key

    # -- dispatch ----------------------------------------------------------------

    def compile(self, node: ni.Node) -> _Compiled:
        if isinstance(node, ni.UseNode):
            node = node.target
        hooked = self._hooked(node)
        if hooked is not None:
            return hooked
        if isinstance(node, ni.ObjectNode):
            return self.object(node)
        if isinstance(node, ni.ScalarNode):
            return self.scalar(node)
        if isinstance(node, ni.NullNode):
            return self.null()
        if isinstance(node, ni.AnyNode):
            return self.anything(node)
        if isinstance(node, ni.EnumNode):
            return self.enumeration(node)
        if isinstance(node, ni.LiteralNode):
            return self.literal(node)
        if isinstance(node, ni.ArrayNode):
            return self.array(node)
        if isinstance(node, ni.TupleNode):
            return self.fixed_tuple(node)
        if isinstance(node, ni.DictNode):
            return self.mapping(node)
        if isinstance(node, ni.UnionNode):
            return self.union(node)
        msg = f"unknown node {node!r}"
        raise AssertionError(msg)

    def _hooked(self, node: ni.Node) -> _Compiled | None:
        """The user's hook for the node's type, if the user's converter has its own."""
        if self.hooks is None:
            return None
        if isinstance(node, ni.ObjectNode):
            if node in self._done or node in self._objects:
                return self._done.get(node)  # decided already (or being compiled)
            tp: Any = node.python_type
        elif isinstance(node, ni.EnumNode):
            tp = node.cls
        elif isinstance(node, ni.ScalarNode):
            tp = node.python_type
        else:
            return None
        hook = self.hooks.hook_for(tp)
        self.hooked_types.append(tp)
        if hook is None:
            return None

        def call_hook(value: Any) -> Any:
            try:
                return hook(value, tp)
            except RecursionError:
                raise
            except Exception as exc:
                raise _Invalid(_hook_errors(exc)) from None

        everything = frozenset(_JSON_CLASSES)
        compiled = _Compiled(call_hook, None, everything)
        if isinstance(node, ni.ObjectNode):
            self._done[node] = compiled
        return compiled

    # -- scalars -----------------------------------------------------------------

    def scalar(self, node: ni.ScalarNode) -> _Compiled:
        if node.python_type is decimal.Decimal:
            return self.decimal(node)
        kind = node.type
        c = node.constraints
        checks: list[Callable[[Any], str | None]] = []
        if kind in ("integer", "number"):
            checks += _number_checks(c)
        elif kind == "string":
            checks += _length_checks(c, "characters")
        pattern = _pattern_check(c.pattern) if kind == "string" and c.pattern else None
        enum_check = _enum_check(node.enum) if node.enum is not None else None
        if node.format is not None and node.format in _FORMATS:
            return self._formatted(node, checks, pattern, enum_check)
        str_type: Callable[[Any], Any] = node.python_type
        expected = f"expected {kind}, got "

        def finish(raw: Any, value: Any) -> Any:
            problems = [m for m in (check(raw) for check in checks) if m is not None]
            if pattern is not None and not problems:
                found = pattern(value)
                if found is not None:
                    problems.append(found)
            if enum_check is not None:
                found = enum_check(raw)
                if found is not None:
                    problems.append(found)
            if problems:
                raise _Invalid([[p] for p in problems])
            return value

        if kind == "string":
            def fn(v: Any) -> Any:
                if not isinstance(v, str):
                    _fail(expected + _show(v))
                return finish(v, v if v.__class__ is str_type else str_type(v))

            kinds: frozenset[type] = frozenset({str})
            lenient: frozenset[type] = frozenset()
        elif kind == "integer":
            def fn(v: Any) -> Any:
                if isinstance(v, bool) or not isinstance(v, (int, float)):
                    _fail(expected + _show(v))
                if isinstance(v, float):
                    if not v.is_integer():
                        _fail(expected + _show(v))
                    if not -_EXACT_FLOAT <= v <= _EXACT_FLOAT:
                        _fail(expected + _show(v) + _INEXACT)
                    return finish(v, int(v))
                return finish(v, int(v))

            kinds, lenient = frozenset({int}), frozenset({float})
        elif kind == "number":
            def fn(v: Any) -> Any:
                if isinstance(v, bool) or not isinstance(v, (int, float)):
                    _fail(expected + _show(v))
                try:
                    f = float(v)
                except OverflowError:  # an int beyond float range (parsed input only)
                    _fail(expected + _show(v))
                if f - f != 0.0:  # NaN or Infinity (parsed input only)
                    _fail(expected + _show(v))
                return finish(v, f)

            kinds, lenient = frozenset({float}), frozenset({int})
        else:
            def fn(v: Any) -> Any:
                if not isinstance(v, bool):
                    _fail(expected + _show(v))
                return finish(v, v)

            kinds, lenient = frozenset({bool}), frozenset()
        return _Compiled(fn, self._scalar_fast(node), kinds, lenient)

    def decimal(self, node: ni.ScalarNode) -> _Compiled:
        """A Decimal: a string of digits, or a JSON number read exactly."""
        checks = _number_checks(node.constraints)
        enum_check = _enum_check(node.enum) if node.enum is not None else None
        expected = 'expected a decimal number as a string of digits (such as "12.50"), got '

        def fn(v: Any) -> Any:
            if isinstance(v, str):
                if len(v) > _MAX_DECIMAL_LENGTH or not _DECIMAL_TEXT.match(v):
                    _fail(expected + _show(v))
                value = decimal.Decimal(v)
            elif isinstance(v, _ExactNumber):
                value = decimal.Decimal(v.text)
            elif isinstance(v, bool) or not isinstance(v, (int, float, decimal.Decimal)):
                _fail(expected + _show(v))
            elif isinstance(v, int):
                value = decimal.Decimal(v)
            else:  # a float (parsed input), or the Decimal itself
                value = _exact(v)
            if not value.is_finite() or abs(value.adjusted()) > _MAX_DECIMAL_LENGTH:
                # Bounded: 1e999999999 is a valid JSON number, and a billion digits.
                _fail(
                    f"the number {_brief(value)} is out of range; send a decimal number "
                    "between -1e1000 and 1e1000"
                )
            problems = [m for m in (check(value) for check in checks) if m is not None]
            if enum_check is not None:
                found = enum_check(value)
                if found is not None:
                    problems.append(found)
            if problems:
                raise _Invalid([[p] for p in problems])
            return value

        return _Compiled(fn, None, frozenset({str}), frozenset({int, float}))

    def _scalar_fast(self, node: ni.ScalarNode) -> str | None:
        if (
            node.constraints.pattern is not None
            or node.constraints.multiple_of is not None
            or node.python_type not in (str, int, float, bool)
        ):
            return None
        parts = [
            {
                "string": "{v}.__class__ is str",
                "integer": "{v}.__class__ is int",
                "number": "({v}.__class__ is float and {v} - {v} == 0.0)",
                "boolean": "{v}.__class__ is bool",
            }[node.type]
        ]
        c = node.constraints
        if node.type in ("integer", "number"):
            for attr, op in (
                ("minimum", ">="),
                ("exclusive_minimum", ">"),
                ("maximum", "<="),
                ("exclusive_maximum", "<"),
            ):
                bound = getattr(c, attr)
                if bound is not None:
                    parts.append(f"{{v}} {op} {self.name('_b', bound)}")
        elif node.type == "string":
            if c.min_length is not None:
                parts.append(f"len({{v}}) >= {int(c.min_length)}")
            if c.max_length is not None:
                parts.append(f"len({{v}}) <= {int(c.max_length)}")
        if node.enum is not None:
            values = node.enum
            if node.type == "boolean" or any(isinstance(x, bool) for x in values):
                return None
            parts.append(f"{{v}} in {self.name('_e', frozenset(values))}")
        return "(" + " and ".join(parts) + ")"

    def _formatted(
        self,
        node: ni.ScalarNode,
        checks: list[Callable[[Any], str | None]],
        pattern: Callable[[Any], str | None] | None,
        enum_check: Callable[[Any], str | None] | None,
    ) -> _Compiled:
        assert node.format is not None
        parse, what = _FORMATS[node.format]
        expected = f"expected {what}, got "
        own_type = node.python_type

        def fn(v: Any) -> Any:
            if not isinstance(v, str):
                if v.__class__ is own_type:  # parsed input holding the value itself
                    return v
                _fail(expected + _show(v))
            problems = [m for m in (check(v) for check in checks) if m is not None]
            if pattern is not None and not problems:
                found = pattern(v)
                if found is not None:
                    problems.append(found)
            if enum_check is not None:
                found = enum_check(v)
                if found is not None:
                    problems.append(found)
            if problems:
                raise _Invalid([[p] for p in problems])
            if len(v) > _MAX_FORMAT_LENGTH:
                _fail(expected + _show(v))
            try:
                return parse(v)
            except _OutOfRange as exc:
                _fail(f"{_quote(v)} is written right but is not a valid {node.format}: {exc}")
            except ValueError:
                _fail(expected + _show(v))

        convert = None
        if not checks and pattern is None and enum_check is None:
            parser = self.name("_p", parse)
            convert = (
                f"({parser}({{v}}) if {{v}}.__class__ is str and len({{v}}) <= "
                f"{_MAX_FORMAT_LENGTH} else _M)"
            )
        return _Compiled(fn, None, frozenset({str}), convert=convert)

    def null(self) -> _Compiled:
        def fn(v: Any) -> Any:
            if v is not None:
                _fail(f"expected null, got {_show(v)}")

        return _Compiled(fn, "{v} is None", frozenset({type(None)}))

    def anything(self, node: ni.AnyNode) -> _Compiled:
        if node.enum is None:
            return _Compiled(lambda v: v, "True", frozenset(_JSON_CLASSES))
        check = _enum_check(node.enum)

        def fn(v: Any) -> Any:
            found = check(v)
            if found is not None:
                _fail(found)
            return v

        return _Compiled(fn, None, frozenset(_JSON_CLASSES))

    def enumeration(self, node: ni.EnumNode) -> _Compiled:
        members = _Members([(m.value, m) for m in node.cls])
        allowed = node.enum
        values = node.values
        if allowed is not None:
            values = tuple(v for v in values if _among(v, allowed))
            members = _Members(
                [
                    (v, m)
                    for v, m in zip(members.values, node.cls, strict=True)
                    if _among(v, allowed)
                ]
            )

        cls = node.cls
        own = frozenset(m for m in cls if m.value in values)

        def fn(v: Any) -> Any:
            found = members.get(v, _M)
            if found is _M:
                if isinstance(v, cls) and v in own:  # parsed input holding the member
                    return v
                _fail(_not_one_of(v, values))
            return found

        convert = None
        for kind in (str, int):
            if values and all(type(v) is kind for v in values):
                table = self.name("_em", dict(members.others))
                convert = f"({table}.get({{v}}, _M) if {{v}}.__class__ is {kind.__name__} else _M)"
        return _Compiled(fn, None, *_value_kinds(values), convert=convert)

    def literal(self, node: ni.LiteralNode) -> _Compiled:
        pairs = list(zip(node.values, node.python_values, strict=True))
        if node.enum is not None:
            pairs = [(v, p) for v, p in pairs if _among(v, node.enum)]
        members = _Members(pairs)
        values = members.values

        def fn(v: Any) -> Any:
            found = members.get(v, _M)
            if found is _M:
                _fail(_not_one_of(v, values))
            return found

        fast = None
        if all(type(v) is str for v in values) and all(type(p) is str for _, p in pairs):
            fast = f"({{v}}.__class__ is str and {{v}} in {self.name('_l', frozenset(values))})"
        return _Compiled(fn, fast, *_value_kinds(values))

    # -- containers --------------------------------------------------------------

    def array(self, node: ni.ArrayNode) -> _Compiled:
        item = self.compile(node.items)
        checks = _length_checks(node.constraints, "items")
        container = node.container
        unique = node.unique or container in (set, frozenset)
        item_fn = item.fn
        flag = issubclass(container, enum.Flag)

        def length(v: list[Any]) -> None:
            problems = [m for m in (check(v) for check in checks) if m is not None]
            if problems:
                raise _Invalid([[p] for p in problems])

        def collect(v: list[Any]) -> list[Any]:
            out: list[Any] = []
            errs: list[list[Any]] | None = None
            for i, x in enumerate(v):
                try:
                    out.append(item_fn(x))
                except _Invalid as e:
                    errs = _merge(errs, e, i)
                    if _full(errs):
                        break
            if errs is not None:
                raise _Invalid(errs)
            return out

        def finish(out: list[Any]) -> Any:
            if container is list:
                return out
            if flag:  # the names of a Flag's members: their combination
                if len(set(out)) != len(out):
                    _fail("the items must be unique")
                combined = container(0)
                for member in out:
                    combined |= member
                return combined
            if not unique:
                return container(out)
            try:
                made = container(out)
            except TypeError as exc:
                _fail(f"the items cannot be kept in a set ({exc}); decode into a list instead")
            if len(made) != len(out):
                _fail("the items must be unique")
            return made

        if item.fast is not None and container is list and not checks:
            check = item.fast.format(v="x")
            name = f"_array{self._names}"
            src = (
                f"def {name}(v):\n"
                "    if v.__class__ is not list:\n"
                "        v = _as_array(v)\n"
                "    for x in v:\n"
                f"        if not {check}:\n"
                "            return _collect(v)\n"
                "    return v[:]\n"
            )
            fn = self._exec(name, src, "array", {"_collect": collect})
            return _Compiled(fn, None, frozenset({list}), items=item)

        def general(v: Any) -> Any:
            if v.__class__ is not list:
                if flag and isinstance(v, container):  # parsed input holding the value
                    return v
                v = _as_array(v)
            if checks:
                length(v)
            out: list[Any] = []
            append = out.append
            try:
                for x in v:
                    append(item_fn(x))
            except _Invalid as e:
                _list_problems(item_fn, v, len(out), e)
            return finish(out)

        inline = item if container is list and not checks else None
        return _Compiled(general, None, frozenset({list}), items=inline)

    def fixed_tuple(self, node: ni.TupleNode) -> _Compiled:
        items = [self.compile(i).fn for i in node.items]
        n = len(items)

        def fn(v: Any) -> Any:
            if v.__class__ is not list:
                v = _as_array(v)
            if len(v) != n:
                _fail(f"expected an array of exactly {n} items, got {len(v)}")
            out: list[Any] = []
            errs: list[list[Any]] | None = None
            for i, (f, x) in enumerate(zip(items, v, strict=True)):
                try:
                    out.append(f(x))
                except _Invalid as e:
                    errs = _merge(errs, e, i)
            if errs is not None:
                raise _Invalid(errs)
            return tuple(out)

        return _Compiled(fn, None, frozenset({list}))

    def mapping(self, node: ni.DictNode) -> _Compiled:
        key = self.compile(node.keys)
        value = self.compile(node.values)
        key_fn, value_fn = key.fn, value.fn
        plain_keys = key.fast == "{v}.__class__ is str"
        container = node.container

        def from_object(v: dict[Any, Any]) -> Any:
            out: dict[Any, Any] = {}
            errs: list[list[Any]] | None = None
            for k, x in v.items():
                if not plain_keys or k.__class__ is not str:
                    try:
                        k2 = key_fn(k)
                    except _Invalid as e:
                        for item in e.errors:
                            if item[0] is not _MORE:
                                item[0] = "invalid key: " + item[0]
                        errs = _merge(errs, e, k)
                        if _full(errs):
                            break
                        continue
                else:
                    k2 = k
                try:
                    out[k2] = value_fn(x)
                except _Invalid as e:
                    errs = _merge(errs, e, k)
                    if _full(errs):
                        break
            if errs is not None:
                raise _Invalid(errs)
            return out if container is dict else container(out)

        def from_entries(v: list[Any]) -> Any:
            out: dict[Any, Any] = {}
            first: dict[Any, int] = {}  # key -> index of the entry that sent it
            errs: list[list[Any]] | None = None
            for i, entry in enumerate(v):
                if errs is not None and _full(errs):
                    break
                try:
                    k, x = _entry(entry)
                except _Invalid as e:
                    errs = _merge(errs, e, i)
                    continue
                problems: list[list[Any]] | None = None
                try:
                    k = key_fn(k)
                except _Invalid as e:
                    problems = _merge(problems, e, "key")
                else:
                    seen = first.get(k)
                    if seen is None:
                        first[k] = i
                    else:
                        # A second value for a key would silently replace the first.
                        problems = _missing(problems, "key", _repeated_key(k, seen))
                try:
                    x = value_fn(x)
                except _Invalid as e:
                    problems = _merge(problems, e, "value")
                if problems is not None:
                    errs = _merge(errs, _Invalid(problems), i)
                    continue
                out[k] = x
            if errs is not None:
                raise _Invalid(errs)
            return out if container is dict else container(out)

        def fn(v: Any) -> Any:
            if v.__class__ is dict:
                return from_object(v)
            if isinstance(v, Mapping):
                return from_object(dict(v))
            if isinstance(v, (list, tuple)):
                return from_entries(list(v))
            _fail(f"expected object, got {_show(v)}{_wrapped_hint(v, '{')}")

        return _Compiled(fn, None, frozenset({dict}), frozenset({list}))

    # -- unions ------------------------------------------------------------------

    def union(self, node: ni.UnionNode) -> _Compiled:
        options = [(o, self.compile(o)) for o in node.options]
        if node.nullable and len(options) == 2:
            inner = next(c for o, c in options if not isinstance(o, ni.NullNode))
            inner_fn = inner.fn
            fast = None if inner.fast is None else f"({{v}} is None or {inner.fast})"
            convert = None
            if inner.convert is not None:
                convert = f"(None if {{v}} is None else {inner.convert})"

            def nullable(v: Any) -> Any:
                return None if v is None else inner_fn(v)

            return self._with_enum(
                node,
                _Compiled(
                    nullable, fast, inner.kinds | {type(None)}, inner.lenient, convert=convert
                ),
            )
        exact: dict[type, list[tuple[ni.Node, Structure]]] = {c: [] for c in _JSON_CLASSES}
        loose: dict[type, list[tuple[ni.Node, Structure]]] = {c: [] for c in _JSON_CLASSES}
        for option, compiled in options:
            for cls in _JSON_CLASSES:
                if cls in compiled.kinds:
                    exact[cls].append((option, compiled.fn))
                elif cls in compiled.lenient:
                    loose[cls].append((option, compiled.fn))
        table: dict[type, tuple[Structure, ...]] = {}
        choosers: dict[type, Callable[[Any], list[Structure]]] = {}
        for cls in _JSON_CLASSES:
            pairs = exact[cls] + loose[cls]
            table[cls] = tuple(fn for _, fn in pairs)
            if cls is dict:
                chooser = _object_chooser(pairs)
                if chooser is not None:
                    choosers[cls] = chooser
        expected = _expected_kinds(node)

        def fn(v: Any) -> Any:
            cls = _classify(v)
            candidates: Any = table.get(cls, ()) if cls is not None else ()
            if not candidates:
                _fail(f"expected {expected}, got {_show(v)}")
            if cls is dict and choosers:
                candidates = choosers[dict](v)
            if len(candidates) == 1:
                return candidates[0](v)
            if cls is dict or cls is list:
                return _try_remembered(candidates, v)
            failures: list[_Invalid] = []
            for candidate in candidates:
                try:
                    return candidate(v)
                except _Invalid as e:
                    failures.append(e)
            raise min(failures, key=lambda e: len(e.errors))

        kinds = frozenset(c for c in _JSON_CLASSES if exact[c])
        lenient = frozenset(c for c in _JSON_CLASSES if loose[c] and not exact[c])
        return self._with_enum(node, _Compiled(fn, None, kinds, lenient))

    def _with_enum(self, node: ni.Node, compiled: _Compiled) -> _Compiled:
        if node.enum is None:
            return compiled
        check = _enum_check(node.enum)
        inner = compiled.fn
        nullable = isinstance(node, ni.UnionNode) and node.nullable

        def fn(v: Any) -> Any:
            if v is None and nullable:
                return None
            found = check(v)
            if found is not None:
                _fail(found)
            return inner(v)

        return _Compiled(fn, None, compiled.kinds, compiled.lenient)

    # -- objects -----------------------------------------------------------------

    def object(self, node: ni.ObjectNode) -> _Compiled:
        done = self._done.get(node)
        if done is not None:
            return done
        if node.is_function:
            msg = (
                f"{node.name} is a function; decode() builds types. A function's arguments "
                "are decoded by Toolbox (or decode_arguments(func, data))"
            )
            raise SchemaError(msg, type_=node.python_type)
        if node in self._objects:  # a cycle: call through the namespace
            ns, fname = self.ns, self._objects[node]

            def later(v: Any) -> Any:
                return ns[fname](v)

            return _Compiled(later, None, frozenset({dict}), ref=fname)
        fname = f"_o{len(self._objects)}_{_safe_name(node.name)}"
        self._objects[node] = fname
        src = self._object_source(node, fname, arguments=False)
        fn = self._exec(fname, src, node.name)
        self.ns[fname] = fn
        compiled = _Compiled(fn, None, frozenset({dict}), ref=fname)
        self._done[node] = compiled
        return compiled

    def arguments(self, node: ni.ObjectNode) -> Structure:
        fname = f"_args_{_safe_name(node.name)}"
        src = self._object_source(node, fname, arguments=True)
        return self._exec(fname, src, node.name)

    def _object_source(self, node: ni.ObjectNode, fname: str, *, arguments: bool) -> str:
        """The source of one object's structure function (or a function's arguments).

        Fields the model must send are read with ``d[key]``; optional ones with
        ``d.get``. In class mode every field whose value is always known (sent, null
        for an absent nullable field, or a plain default) is passed to the constructor,
        positionally where its signature allows (much cheaper than keywords); fields
        with a factory default are passed only when sent, so the class makes its own.
        In argument mode only what the model sent is returned.
        """
        lines = [
            f"def {fname}(d):",
            "    if d.__class__ is not dict:",
            "        d = _as_object(d)",
            "    errs = None",
        ]
        required = 0
        always: dict[str, str] = {}  # init_name -> variable, passed on every call
        uses_kw = arguments
        noun = "argument" if arguments else "field"
        missing = self.name("_msg", f"missing required {noun}")
        for i, f in enumerate(node.fields):
            compiled = self.compile(f.node)
            fn = compiled.ref or self.name("_f", compiled.fn)
            key = repr(f.key)
            var = f"v{i}"
            items = compiled.items
            if items is not None and items.fast is not None:
                check = _fast_list_lines(var, key, fn, items.fast)
            elif items is not None:
                item_name = items.ref or self.name("_i", items.fn)
                check = _inline_list_lines(var, key, fn, item_name)
            elif compiled.convert is not None:
                check = _convert_lines(var, key, fn, compiled.convert)
            else:
                check = _check_lines(var, key, fn, compiled.fast)
            if not f.has_default and not f.nullable:
                required += 1
                lines += [
                    "    try:",
                    f"        {var} = d[{key}]",
                    "    except KeyError:",
                    f"        errs = _missing(errs, {key}, {missing})",
                    "    else:",
                    *_indent(check, 8),
                ]
                if arguments:
                    lines.append(f"        kw[{f.init_name!r}] = {var}")
                else:
                    always[f.init_name] = var
                continue
            plain_default = (
                f.default_factory is None
                and f.default is not ni._TAKES_SELF
                and f.default is not ni._ABSENT
                and f.has_default
            )
            # null for a field that only has a default: say how to get the default.
            null_lines = []
            if f.default is ni._ABSENT and not _allows_null(f.node):
                # A TypedDict key that may be left out: null leaves it out (the strict
                # adapters, where every key is sent, spell "left out" as null).
                null_lines = [
                    f"    elif {var} is None:",
                    "        n += 1",
                ]
            elif not _allows_null(f.node):
                null_msg = self.name(
                    "_msg", f"null is not allowed; leave the {noun} out to use its default"
                )
                null_lines = [
                    f"    elif {var} is None:",
                    "        n += 1",
                    f"        errs = _missing(errs, {key}, {null_msg})",
                ]
            if arguments or not (plain_default or not f.has_default):
                # Passed only when sent: the function's or the factory's default applies.
                uses_kw = True
                lines += [
                    f"    {var} = d.get({key}, _M)",
                    f"    if {var} is _M:",
                    "        pass",
                    *null_lines,
                    "    else:",
                    "        n += 1",
                    *_indent(check, 8),
                    f"        kw[{f.init_name!r}] = {var}",
                ]
                continue
            absent = "None" if not f.has_default else self.name("_d", f.default)
            lines += [
                f"    {var} = d.get({key}, _M)",
                f"    if {var} is _M:",
                f"        {var} = {absent}",
                *null_lines,
                "    else:",
                "        n += 1",
                *_indent(check, 8),
            ]
            always[f.init_name] = var
        if uses_kw:
            lines.insert(4, "    kw = {}")
        lines.insert(4, f"    n = {required}")
        known = self.name("_k", frozenset(f.key for f in node.fields))
        hints = self.name("_h", _unknown_hints(node, noun))
        lines += [
            "    if errs is not None or n != len(d):",
            f"        errs = _unknown(d, {known}, {hints}, errs)",
            "        if errs is not None:",
            "            raise _Invalid(errs)",
        ]
        if arguments:
            lines.append("    return kw")
            return "\n".join(lines) + "\n"
        constructor = _constructor(node.python_type)
        if mt.is_typeddict(constructor):
            constructor = dict  # what calling the TypedDict makes, without the detour
        cls = self.name("_cls", constructor)
        fields = self.name("_fm", {f.name: f.key for f in node.fields})
        call_args = _call_arguments(constructor, always)
        if uses_kw:
            call_args.append("**kw")
        lines += [
            "    try:",
            f"        return {cls}({', '.join(call_args)})",
            "    except RecursionError:",
            "        raise",
            "    except Exception as exc:",
            f"        raise _Invalid(_ctor_errors(exc, {fields})) from None",
        ]
        return "\n".join(lines) + "\n"

    def _exec(
        self, name: str, src: str, label: str, extra: dict[str, Any] | None = None
    ) -> Structure:
        self._names += 1
        # Unique in the process, so two types of the same name never share a file name.
        filename = f"<describedtypes decode {label} #{next(_SOURCE_NUMBERS)}>"
        ns = self.ns if extra is None else {**self.ns, **extra}
        exec(compile(src, filename, "exec"), ns)
        fn: Structure = ns[name]
        # Registered so tracebacks and profiles can show the generated source, and
        # dropped with the function.
        linecache.cache[filename] = (len(src), None, src.splitlines(True), filename)
        weakref.finalize(fn, linecache.cache.pop, filename, None)
        return fn


_SOURCE_NUMBERS = itertools.count(1)


def _check_lines(var: str, key: str, fn: str, fast: str | None) -> list[str]:
    body = [
        "try:",
        f"    {var} = {fn}({var})",
        "except _Invalid as e:",
        f"    errs = _merge(errs, e, {key})",
    ]
    if fast is None or fast == "True":
        return [] if fast == "True" else body
    return [f"if not {fast.format(v=var)}:", *_indent(body, 4)]


_ATTEMPTS = threading.local()


def _try_remembered(candidates: Any, v: Any) -> Any:
    """Try a union's options on a container, remembering each outcome for this decode.

    A union nested in a union re-decodes the same value once per outer option, which
    is exponential in the nesting depth (a recursive type with an untagged union). Each
    (value, option) outcome is kept while the outermost such union runs, so every
    value is decoded at most once per option.
    """
    memo: dict[tuple[int, int], tuple[Any, Any, list[list[Any]] | None]] | None = getattr(
        _ATTEMPTS, "memo", None
    )
    owner = memo is None
    if memo is None:
        memo = _ATTEMPTS.memo = {}
    try:
        failures: list[list[list[Any]]] = []
        for candidate in candidates:
            key = (id(v), id(candidate))
            seen = memo.get(key)
            if seen is not None:
                if seen[2] is None:
                    return seen[1]
                failures.append(seen[2])
                continue
            try:
                result = candidate(v)
            except _Invalid as e:
                # Copied: the caller appends path segments to the items in place.
                problems = [list(item) for item in e.errors]
                memo[key] = (v, None, problems)  # v kept alive so its id stays unique
                failures.append(problems)
                continue
            memo[key] = (v, result, None)
            return result
        best = min(failures, key=len)
        raise _Invalid([list(item) for item in best])
    finally:
        if owner:
            _ATTEMPTS.memo = None


def _call_arguments(constructor: Any, always: dict[str, str]) -> list[str]:
    """Constructor arguments: positional in signature order while possible, then by name."""
    import inspect as pyinspect

    out: list[str] = []
    rest = dict(always)
    try:
        params = list(pyinspect.signature(constructor).parameters.values())
    except (TypeError, ValueError):
        params = []
    positional = (pyinspect.Parameter.POSITIONAL_ONLY, pyinspect.Parameter.POSITIONAL_OR_KEYWORD)
    for p in params:
        if p.kind not in positional or p.name not in rest:
            break
        out.append(rest.pop(p.name))
    for name, var in rest.items():
        if name.isidentifier() and not keyword.iskeyword(name):
            out.append(f"{name}={var}")
        else:
            out.append(f"**{{{name!r}: {var}}}")
    return out


def _convert_lines(var: str, key: str, fn: str, convert: str) -> list[str]:
    return [
        "try:",
        f"    t = {convert.format(v=var)}",
        "except ValueError:",
        "    t = _M",
        "if t is _M:",
        "    try:",
        f"        {var} = {fn}({var})",
        "    except _Invalid as e:",
        f"        errs = _merge(errs, e, {key})",
        "else:",
        f"    {var} = t",
    ]


def _fast_list_lines(var: str, key: str, fn: str, fast: str) -> list[str]:
    return [
        f"ok = {var}.__class__ is list",
        "if ok:",
        f"    for x in {var}:",
        f"        if not {fast.format(v='x')}:",
        "            ok = False",
        "            break",
        "if ok:",
        f"    {var} = {var}[:]",
        "else:",
        "    try:",
        f"        {var} = {fn}({var})",
        "    except _Invalid as e:",
        f"        errs = _merge(errs, e, {key})",
    ]


def _inline_list_lines(var: str, key: str, fn: str, item: str) -> list[str]:
    # The loop stays in the object's frame. When an item fails, the items after it are
    # checked for their problems too, but no item is decoded twice (see _list_problems);
    # a value that is no list goes to the list's own function for its error.
    return [
        f"if {var}.__class__ is list:",
        "    t = []",
        "    try:",
        f"        for x in {var}:",
        f"            t.append({item}(x))",
        f"        {var} = t",
        "    except _Invalid as e:",
        "        try:",
        f"            _list_problems({item}, {var}, len(t), e)",
        "        except _Invalid as e2:",
        f"            errs = _merge(errs, e2, {key})",
        "else:",
        "    try:",
        f"        {var} = {fn}({var})",
        "    except _Invalid as e:",
        f"        errs = _merge(errs, e, {key})",
    ]


def _list_problems(item: Structure, v: list[Any], failed: int, exc: _Invalid) -> NoReturn:
    """Raise the problems of a list whose item ``failed`` raised ``exc``, with the indexes.

    The items after it are decoded for their own problems; none is decoded twice.
    Decoding a failed item again to collect its problems doubled (tripled, with the
    inline loop) the work per level of a recursive type: a bad leaf 20 levels down took
    minutes.
    """
    errs = _merge(None, exc, failed)
    for i in range(failed + 1, len(v)):
        if _full(errs):
            break
        try:
            item(v[i])
        except _Invalid as e:
            errs = _merge(errs, e, i)
    raise _Invalid(errs)


def _indent(lines: list[str], n: int) -> list[str]:
    pad = " " * n
    return [pad + line for line in lines] if lines else [pad + "pass"]


def _safe_name(name: str) -> str:
    return "".join(ch if ch.isalnum() else "_" for ch in name)[:40]


def _constructor(tp: Any) -> Any:
    origin = getattr(tp, "__origin__", None)
    return origin if isinstance(origin, type) else tp


def _value_kinds(values: tuple[Any, ...]) -> tuple[frozenset[type], frozenset[type]]:
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


def _expected_kinds(node: ni.UnionNode) -> str:
    names: list[str] = []
    for option in node.options:
        for name in _node_kind_names(option):
            if name not in names:
                names.append(name)
    if len(names) <= 2:
        return " or ".join(names)
    return ", ".join(names[:-1]) + " or " + names[-1]


def _node_kind_names(node: ni.Node) -> list[str]:
    if isinstance(node, (ni.ObjectNode, ni.UseNode)):
        return ["object"]
    if isinstance(node, ni.ScalarNode):
        return [node.format + " string" if node.format else node.type]
    if isinstance(node, ni.NullNode):
        return ["null"]
    if isinstance(node, (ni.ArrayNode, ni.TupleNode)):
        return ["array"]
    if isinstance(node, ni.DictNode):
        return ["object"]
    if isinstance(node, (ni.EnumNode, ni.LiteralNode)):
        return [f"one of {_listing(node.values)}"]
    if isinstance(node, ni.UnionNode):
        return [n for o in node.options for n in _node_kind_names(o)]
    return ["any value"]


def _repeated_key(key: Any, first: int) -> str:
    if isinstance(key, enum.Enum):
        key = key.value
    if isinstance(key, bool):
        shown = "true" if key else "false"
    else:
        shown = _quote(key) if isinstance(key, str) else _brief(key)
    return (
        f"the key {shown} was already sent in entry [{first}]; a dict holds one value "
        "per key, so send each key once"
    )


def _entry(entry: Any) -> tuple[Any, Any]:
    if not isinstance(entry, Mapping):
        _fail(f'expected object {{"key": ..., "value": ...}}, got {_show(entry)}')
    errs: list[list[Any]] | None = None
    for name in ("key", "value"):
        if name not in entry:
            errs = _missing(errs, name, "missing required field")
    for extra in entry:
        if extra not in ("key", "value"):
            errs = _missing(errs, extra, 'unknown field; an entry has only "key" and "value"')
    if errs is not None:
        raise _Invalid(errs)
    return entry["key"], entry["value"]


def _object_chooser(
    pairs: list[tuple[ni.Node, Structure]],
) -> Callable[[Any], list[Structure]] | None:
    """Picks which of a union's object options to try for a JSON object.

    A Literal (or single-valued Enum) field whose values tell the classes apart decides
    alone; otherwise the classes whose required keys are present and which know every
    key are tried in order. When none fits, the closest one is decoded, for its errors.
    """
    objects = [(ni.object_of(option), fn) for option, fn in pairs]
    shaped = [(o, fn) for o, fn in objects if o is not None]
    if len(shaped) < 2:
        return None
    others = [fn for o, fn in objects if o is None]
    tag = _find_tag([o for o, _ in shaped])
    shapes = [
        (
            frozenset(f.key for f in o.fields if not f.has_default and not f.nullable),
            frozenset(f.key for f in o.fields),
            fn,
        )
        for o, fn in shaped
    ]
    order = [fn for _, fn in pairs]
    tag_key: Any = _M
    tags = _Members([])
    if tag is not None:
        tag_key, per_option = tag
        tags = _Members(
            [
                (value, fn)
                for (_, fn), values in zip(shaped, per_option, strict=True)
                for value in values
            ]
        )

    def choose(v: dict[Any, Any]) -> list[Structure]:
        if tag is not None:
            found = v.get(tag_key, _M)
            if found is not _M:
                fn = tags.get(found, None)
                if fn is None:
                    raise _Invalid([[_not_one_of(found, tags.values), tag_key]])
                return [fn]
        keys = v.keys()
        fitting = {fn for required, known, fn in shapes if required <= keys and keys <= known}
        chosen = [fn for fn in order if fn in fitting or fn in others]
        if chosen:
            return chosen
        best = min(shapes, key=lambda s: len(s[0] - keys) + len(keys - s[1]))
        return [best[2]]

    return choose


def _find_tag(objects: list[ni.ObjectNode]) -> tuple[str, list[tuple[Any, ...]]] | None:
    common = set.intersection(*({f.key for f in o.fields} for o in objects))
    for key in [f.key for f in objects[0].fields if f.key in common]:
        per_option: list[tuple[Any, ...]] = []
        for o in objects:
            f = o.field(key)
            node = f.node
            if f.has_default or f.nullable:
                break
            if isinstance(node, (ni.LiteralNode, ni.EnumNode)):
                per_option.append(node.values)
            else:
                break
        else:
            seen: list[Any] = []
            clash = False
            for values in per_option:
                for value in values:
                    if _among(value, tuple(seen)):
                        clash = True
                    seen.append(value)
            if not clash:
                return key, per_option
    return None


@attrs.frozen
class _Hints:
    """Strictly private: what an object's unknown-key messages draw on."""

    keys: tuple[str, ...]
    by_name: dict[str, str]
    label: str
    accepted: str
    always_list: bool
    wrapper: str


def _unknown_hints(node: ni.ObjectNode, noun: str) -> _Hints:
    keys = tuple(f.key for f in node.fields)
    by_name = {f.name: f.key for f in node.fields if f.name != f.key}
    listed = ", ".join(keys[:20]) + (", …" if len(keys) > 20 else "") if keys else "(none)"
    if noun == "argument":
        return _Hints(
            keys, by_name, "unknown argument", f"accepted parameters: {listed}", True,
            "it wraps the arguments themselves; send them at the top level, unwrapped",
        )
    return _Hints(
        keys, by_name, "unknown field", f"accepted fields: {listed}", False,
        "it wraps this object's own fields; send them here, unwrapped",
    )


def _unknown(
    d: dict[Any, Any],
    known: frozenset[str],
    hints: _Hints,
    errs: list[list[Any]] | None,
) -> list[list[Any]] | None:
    suggested = 0
    for k in d:
        with contextlib.suppress(TypeError):  # an unhashable key is simply unknown
            if k in known:
                continue
        message = hints.label
        close: str | None = None
        if isinstance(k, str):
            close = hints.by_name.get(k)
            if (
                close is None
                and len(k) <= _MAX_KEY_FOR_SUGGESTION
                and suggested < _MAX_SUGGESTIONS
            ):
                suggested += 1
                found = difflib.get_close_matches(k, hints.keys, n=1, cutoff=0.6)
                close = found[0] if found else None
        if close is not None:
            message += f"; did you mean {close!r}?"
        elif _wraps(d[k], known):  # {"properties": {...}}, {"arguments": {...}}
            message += "; " + hints.wrapper
        if hints.always_list or close is None:
            message += f" ({hints.accepted})"
        errs = _missing(errs, k, message)
        if _full(errs):
            _cut(errs)
            break
    return errs


def _wraps(value: Any, known: frozenset[str]) -> bool:
    """Whether ``value`` is an object holding only keys of the object it was sent inside."""
    if not isinstance(value, Mapping) or not value or len(value) > len(known):
        return False
    return all(isinstance(k, str) and k in known for k in value)


def _exception_text(exc: BaseException) -> str:
    """What an exception from user code says: on one line, at most 200 characters.

    Never raises (an exception whose ``__str__`` raises is described by its type), and
    line breaks are escaped so the text cannot pose as further lines of an error list.
    """
    try:
        text = exc.args[0] if exc.args and isinstance(exc.args[0], str) else str(exc)
    except Exception:
        try:
            text = f"{type(exc).__name__} (its message could not be read)"
        except Exception:
            text = "an exception whose message could not be read"
    # str() may return a str subclass; line breaks escaped.
    text = str.__str__(text)[:201].translate(_LINE_BREAKS)
    return text[:200] + "…" if len(text) > 200 else text


_LINE_BREAKS = {
    ord(c): repr(c)[1:-1] for c in "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"
}


def _ctor_errors(exc: BaseException, fields: dict[str, str]) -> list[list[Any]]:
    """The problem a constructor (attrs validators, ``__post_init__``) reported."""
    text = _exception_text(exc)
    key: str | None = None
    for arg in exc.args[1:]:
        if isinstance(arg, attrs.Attribute) and arg.name in fields:
            key = fields[arg.name]
            break
    if key is None:
        m = re.match(r"'([A-Za-z_][A-Za-z0-9_]*)'", text)
        if m and m.group(1) in fields:
            key = fields[m.group(1)]
    item: list[Any] = [f"invalid value: {text}"]
    if key is not None:
        item.append(key)
    return [item]


def _hook_errors(exc: BaseException) -> list[list[Any]]:
    """The problems a user's cattrs hook raised, with cattrs' own paths kept."""
    import cattrs

    if isinstance(exc, _Invalid):
        return exc.errors
    if isinstance(exc, cattrs.BaseValidationError):
        out: list[list[Any]] = []
        for line in cattrs.transform_error(exc, path="$"):
            message, _, where = line.rpartition(" @ ")
            if not message:
                message, where = where, "$"
            item: list[Any] = [message[:200]]
            suffix = where[1:]
            if suffix:
                item.append(_RawPath(suffix))
            out.append(item)
        return out
    return [[f"invalid value: {_exception_text(exc)}"]]


# -- cache and entry points -----------------------------------------------------------


@attrs.frozen
class _Decoder:
    """Strictly private: the compiled structure function of one type."""

    fn: Structure
    hooked: tuple[tuple[Any, Any], ...] = ()
    #: JSON text -> value or ``FALLBACK``, where msgspec mirrors the type (``_fast``).
    fast: Callable[[Any], Any] | None = None
    #: A Decimal is in the tree: JSON text is read with exact numbers.
    exact: bool = False


_HOOKED_PER_TYPE = 8


def _decoder(tp: Any, converter: Any, registry: Registry = annotate) -> _Decoder:
    if converter is None:
        key: Any = ("decoder", tp, registry)
        entry = _cache.get(tp, key)
        if entry is not None and entry.is_current(lambda: ni.type_info(tp, registry)):
            found: _Decoder = entry.value
            return found
        if not isinstance(cast(Any, registry), Registry):
            msg = f"registry must be a Registry such as annotate, got {type(registry).__name__}"
            raise TypeError(msg)
        stamp = current_stamp()
        node = ni.type_info(tp, registry)
        exact = needs_exact(node)
        # The msgspec mirror predates the Decimal/Flag/TypedDict/NamedTuple/InitVar
        # rules: trees holding them take the normal path.
        fast = None if _has_newer_types(node) else fast_decoder_for(tp, node)
        found = _Decoder(_compile(node, tp), fast=fast, exact=exact)
        _cache.put(tp, key, _cache.Entry(found, registry, stamp, node=node))
        return found
    import cattrs  # here, not at the top: only a caller with a converter needs it

    if not isinstance(converter, cattrs.BaseConverter):
        msg = (
            f"converter must be a cattrs Converter (cattrs.Converter()), got "
            f"{type(converter).__name__}; leave it out to use the built-in rules alone"
        )
        raise TypeError(msg)
    # Hooked decoders live with the type, a few converters each (converters cannot be
    # weakly referenced; a bounded number per type keeps a converter made per request
    # from piling up).
    key = ("hooked", tp, registry)
    entry = _cache.get(tp, key)
    table: dict[int, tuple[Any, _Decoder]] = {}
    if entry is not None and entry.is_current(lambda: ni.type_info(tp, registry)):
        table = entry.value
        hit = table.get(id(converter))
        if hit is not None and hit[0] is converter and _still_current(hit[1], converter):
            return hit[1]
    stamp = current_stamp()
    node = ni.type_info(tp, registry)
    try:
        decoder = _hooked_decoder(node, converter)
    except RecursionError:
        raise ni.too_deep_error(tp, "compile a decoder for") from None
    table = dict(table)
    table[id(converter)] = (converter, decoder)
    while len(table) > _HOOKED_PER_TYPE:
        del table[next(iter(table))]
    _cache.put(tp, key, _cache.Entry(table, registry, stamp, node=node))
    return decoder


def _compile(node: ni.Node, tp: Any) -> Structure:
    try:
        return _Compiler().compile(node).fn
    except RecursionError:
        raise ni.too_deep_error(tp, "compile a decoder for") from None


def _hooked_decoder(node: ni.Node, converter: Any) -> _Decoder:
    compiler = _Compiler(_HookSource(converter))
    fn = compiler.compile(node).fn
    seen = tuple((t, _current_hook(converter, t)) for t in compiler.hooked_types)
    return _Decoder(fn, seen, exact=needs_exact(node))


def _current_hook(converter: Any, tp: Any) -> Any:
    try:
        return converter.get_structure_hook(tp)
    except Exception:
        return None


def _still_current(decoder: _Decoder, converter: Any) -> bool:
    return all(_current_hook(converter, t) is hook for t, hook in decoder.hooked)


# -- for make_converter and decode_batch ---------------------------------------------


def structure_value(tp: Any, value: Any, converter: Any, registry: Registry = annotate) -> Any:
    """``value`` (already parsed) decoded into ``tp`` over ``converter``'s own hooks.

    For ``make_converter``/``register_hooks``: text is a string value, not JSON to parse;
    the rules and the ``DecodeError`` are ``decode``'s, and the compiled decoder is the
    cached one, rebuilt when a registration or the converter's hooks change.
    """
    return _run(_decoder(tp, converter, registry).fn, value)


def check_decodable(tp: Any, registry: Registry = annotate) -> None:
    """Compile (and cache) the decoder of ``tp`` now; raises ``SchemaError`` if there is none."""
    _decoder(tp, None, registry)


def users_own_hook(converter: Any, baseline: Any, getter: str, tp: Any) -> Any:
    """The hook ``converter`` has for ``tp`` that a fresh converter would not, or None.

    ``getter`` is ``"get_structure_hook"`` or ``"get_unstructure_hook"``; ``baseline`` is
    ``baseline_converter(converter)``. The library's own hooks (``make_converter``) are
    never the user's.
    """
    try:
        hook = getattr(converter, getter)(tp)
    except Exception:
        return None
    if getattr(hook, "_describedtypes_hook", False):
        return None
    try:
        base = getattr(baseline, getter)(tp)
    except Exception:
        return hook
    return None if _hook_identity(hook) == _hook_identity(base) else hook


def baseline_converter(converter: Any) -> Any:
    """A fresh converter of ``converter``'s class: what it would do without its own hooks."""
    return _baseline_converter(converter)


def _too_deep() -> DecodeError:
    return DecodeError([("$", "the value is nested too deeply to decode; send a flatter value")])


def _loaded(
    data: str | bytes | bytearray | memoryview, *, fenced: bool = True
) -> tuple[Any, DecodeError | None]:
    """(the parsed reply, None), or (None, the DecodeError to raise) for text that is no JSON.

    The error comes back rather than raised so the caller can drop its reference to the
    text first; it is cut loose from the parser's exception (whose ``doc`` is the whole
    text) and from the frames that held it.
    """
    try:
        return orjson.loads(data), None
    except orjson.JSONDecodeError as exc:
        failure = exc
    if fenced:
        try:
            return parse_fenced(data, failure), None
        except DecodeError as exc:
            error = exc
    else:
        error = json_error(failure, data)
    del failure
    error.__context__ = None
    return None, error.with_traceback(None)


def _run(fn: Structure, value: Any) -> Any:
    try:
        return fn(value)
    except _Invalid as exc:
        problems: list[list[Any]] | None = exc.errors
    except RecursionError:
        problems = None
    # Raised outside the except clause and with the input dropped: a DecodeError kept
    # by the caller must not keep the reply alive (through this frame or through the
    # traceback of an exception in its context).
    del value, fn
    error = _too_deep() if problems is None else _decode_error(problems)
    del problems
    raise error


def _decode_error(items: list[list[Any]]) -> DecodeError:
    """The DecodeError for these problems: plain strings only, bounded in number and size."""
    kept = [item for item in items if item[0] is not _MORE]
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
        + "\n".join(_problem_lines(errors, truncated=truncated))
    )
    return DecodeError(errors, message=message, truncated=truncated)


def _problem_lines(errors: list[tuple[str, str]], *, truncated: bool = False) -> list[str]:
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


T = TypeVar("T")


@overload
def decode(
    tp: type[T], data: Any, *, converter: Any = None, registry: Registry = annotate
) -> T: ...
@overload
def decode(tp: Any, data: Any, *, converter: Any = None, registry: Registry = annotate) -> Any: ...
def decode(tp: Any, data: Any, *, converter: Any = None, registry: Registry = annotate) -> Any:
    """Decode a model reply into an instance of ``tp``, checking it against the schema.

    ``data`` is JSON text (``str``, ``bytes``, ``bytearray``, ``memoryview``) or an
    already-parsed JSON value (``dict``, ``list``, ...). The rules are the ones
    ``schema(tp)`` states: unknown keys are rejected, a field is optional when it is
    nullable or has a default (absent fields get their default), nothing is coerced
    (``"5"`` is not an int, ``3.9`` is not an int, ``1`` is not a bool; an int is a fine
    float), enums are read by value, date/time/UUID from their ISO text, and a
    ``dict[str, T]`` field accepts an object or the strict adapters'
    ``[{"key": ..., "value": ...}]`` array. attrs validators run as the instance is made.
    Parsed input may also hold a field's own value where JSON has none (a ``datetime``,
    ``UUID``, set or Enum member), so ``cattrs.unstructure`` output decodes back.

    One allowance for text: a markdown code fence around the whole reply (a first line
    of ```` ```json ```` or ```` ``` ````, a last line of ```` ``` ````, only whitespace
    outside them) is dropped and the JSON inside decoded, since many models fence JSON
    even when asked for JSON alone. Nothing else around the JSON is: text before or
    after it, or a fence that is not the whole reply, is a ``DecodeError`` that says to
    send the JSON alone.

    Args:
        tp: The type to decode into: an attrs class, a dataclass, or any type
            expression ``schema()`` accepts.
        data: The reply.
        converter: A ``cattrs.Converter`` whose own structure hooks decode the types
            they are registered for; the rules above decide everything else.
        registry: Where registered annotations (field names, enums) are looked up.

    Returns:
        The decoded value.

    Raises:
        DecodeError: The reply is not valid JSON or does not match; ``.errors`` lists
            every problem with its JSON path, and ``str(error)`` is a compact report
            to send back to the model.
        SchemaError: ``tp`` itself cannot be described.

    .. versionadded:: 0.1.0
    """
    # The common path is spelled out here: one call less per decode.
    if converter is None:
        try:
            entry = _cache.get(tp, ("decoder", tp, registry))
        except TypeError:
            entry = None
        if entry is not None and entry.stamp == current_stamp():
            decoder = entry.value
        else:
            decoder = _decoder(tp, None, registry)
        fn = decoder.fn
        if decoder.fast is not None and isinstance(data, (str, bytes)):  # msgspec's check
            value = decoder.fast(data)
            if value is not FALLBACK:
                return value
    else:
        decoder = _decoder(tp, converter, registry)
    fn = decoder.fn
    if isinstance(data, (str, bytes, bytearray, memoryview)):
        text = data
        data, unreadable = _loaded(data)
        if unreadable is not None:
            del text  # the error must not keep the reply alive through this frame
            raise unreadable
        if decoder.exact:
            data = exact_loads(text, data)
        del text
    try:
        return fn(data)
    except _Invalid as exc:
        problems: list[list[Any]] | None = exc.errors
    except RecursionError:
        problems = None
    # As in _run: raised outside the except clause with the reply dropped, so the
    # DecodeError keeps no reference to it.
    del data, fn
    error = _too_deep() if problems is None else _decode_error(problems)
    del problems
    raise error


def _arguments_decoder(node: ni.ObjectNode) -> _Decoder:
    owner = node.python_type
    entry = _cache.get(owner, ("arguments", node))
    if entry is None:
        # Stored with the function (or partial) the node describes, keyed by the node:
        # a new node (after a registration) compiles anew.
        try:
            decoder = _Decoder(_Compiler().arguments(node), exact=needs_exact(node))
        except RecursionError:
            raise ni.too_deep_error(owner, "compile a decoder for") from None
        entry = _cache.put(owner, ("arguments", node), _cache.Entry(decoder, annotate, 0))
    found: _Decoder = entry.value
    return found


def decode_arguments(
    func: Any,
    data: str | bytes | bytearray | memoryview | Mapping[str, Any],
    *,
    registry: Registry = annotate,
) -> dict[str, Any]:
    """Check a model's arguments for a function and decode them into Python values.

    The same rules as ``decode()``, applied to the function's parameters (what
    ``schema(func)`` describes): every problem is reported at once, and what is
    returned can be passed on as ``func(**arguments)``.

    Args:
        func: The function (or method, ``functools.partial``, callable object), or its
            inspected parameters (``describedtypes.inspect.type_info(func)``).
        data: The arguments as JSON text or an already-parsed mapping. Blank text
            counts as no arguments.
        registry: Where registered annotations are looked up (for a function).

    Returns:
        The arguments the model supplied, decoded, keyed by parameter name; parameters
        it left out are absent, so the function's own defaults apply. ``Context``
        parameters are never among them.

    Raises:
        DecodeError: Every problem at once: missing or unknown arguments (naming the
            accepted ones), wrong types, values out of range.
        SchemaError: ``func`` is not a function, or cannot be described.

    .. versionadded:: 0.2.0
    """
    if isinstance(func, ni.ObjectNode) and func.is_function:
        node = func
    else:
        if not ni.is_function_like(func):
            msg = (
                f"decode_arguments() decodes a function's arguments, got "
                f"{type(func).__name__} {func!r:.60}; to decode a value of a type, use "
                "decode(T, data)"
            )
            raise SchemaError(msg, type_=func)
        if not isinstance(cast(Any, registry), Registry):
            msg = f"registry must be a Registry such as annotate, got {type(registry).__name__}"
            raise TypeError(msg)
        found = ni.type_info(func, registry)
        assert isinstance(found, ni.ObjectNode)
        node = found
    decoder = _arguments_decoder(node)
    fn = decoder.fn
    if isinstance(data, (str, bytes, bytearray, memoryview)):
        text = bytes(data) if isinstance(data, memoryview) else data
        data, unreadable = ({}, None) if not text.strip() else _loaded(text, fenced=False)
        if unreadable is not None:
            del text  # the error must not keep the reply alive through this frame
            raise unreadable
        if decoder.exact and text.strip():
            data = exact_loads(text, data)
        del text
    if not isinstance(data, Mapping):
        accepted = ", ".join(f.key for f in node.fields) or "(none)"
        raise DecodeError(
            [("$", f"expected an object of named arguments ({accepted}), got {_show(data)}")]
        )
    result: dict[str, Any] = _run(fn, data)
    return result

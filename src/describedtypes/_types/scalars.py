"""The scalar table: what each scalar Python type is in JSON, in one place.

Every layer asks this table, never the type's identity: the inspector builds a scalar's
node from it, the schema builder says what a key or a default is with it, the decoder
reads a string format's text with its ``read`` and the encoder writes a value with its
``write``. Adding a scalar is one row here (and its tests).

The text forms are read exactly (RFC 3339 section 5.6, RFC 4122 section 3) and the same
on every Python: ``fromisoformat`` alone is not enough, as from 3.11 on it also reads ISO
8601 forms such as ``"20200101"`` or ``"2020-W01-1"``, a date as a date-time and a space
for the ``T``. The one allowance: a date-time or time may leave out its offset (a naive
value), since that is what the encoder writes for a naive value; a grammar-constrained
model always writes it.

Decimal
-------
A ``Decimal`` is a JSON string of plain decimal digits (``"-12.50"``) under every
adapter, with a pattern saying so. A JSON number would be read as a binary float by most
JSON parsers (orjson, ``json.loads``, the provider SDKs and every language's default),
losing digits past the 15th and turning ``0.1`` into ``0.1000000000000000055...``; a
string keeps every digit in any parser, and a pattern of digits is a regular grammar
every structured-output engine compiles. The decoder also takes a JSON number for a
Decimal, read exactly from the reply's text; its bounds are compared as numbers.
"""

from __future__ import annotations

import datetime
import decimal
import math
import re
import sys
import uuid
from collections.abc import Callable
from typing import Any, Literal

import attrs

__all__ = [
    "DECIMAL_PATTERN",
    "FORMAT_TYPES",
    "SCALARS",
    "STRING",
    "JsonType",
    "OutOfRange",
    "Scalar",
    "as_bound",
    "decimal_text",
    "is_number",
    "read_clock",
    "scalar_for",
    "scalar_of_value",
]

JsonType = Literal["string", "integer", "number", "boolean", "null"]


@attrs.frozen(kw_only=True)
class Scalar:
    """One scalar type: its JSON type, format or pattern, and its text both ways."""

    #: The Python type (exact: a subclass is looked up by its nearest base here).
    python_type: type
    json_type: JsonType
    #: The JSON Schema ``format`` of its text, if it is a string of one.
    format: str | None = None
    #: The pattern every value's text matches, stated in the schema (a Decimal's digits).
    pattern: str | None = None
    #: Numeric bounds apply, compared as numbers (int, float, and Decimal's text).
    number: bool = False
    #: Reads the text of a value (a string format); raises ``ValueError``, or
    #: ``OutOfRange`` for text of the right form that names no value (30 February).
    read: Callable[[str], Any] | None = None
    #: Writes a value as JSON (its text for a string format); None: the value is JSON.
    write: Callable[[Any], Any] | None = None
    #: What a decoder expected, in its error message ("date string (YYYY-MM-DD)").
    expected: str = ""
    #: What a value is, in a sentence ("a date (YYYY-MM-DD)"); None for a plain value.
    says: str | None = None
    #: Values of these classes are not values of this type (``True`` is no int).
    excludes: tuple[type, ...] = ()
    #: Values of these classes are also taken (JSON has one number type: 1 is a float).
    also: tuple[type, ...] = ()

    @property
    def number_text(self) -> bool:
        """A number JSON carries as a string of digits (Decimal): bounds said in words."""
        return self.number and self.json_type == "string"

    def holds(self, value: Any) -> bool:
        """``value`` is a value of this scalar (a date that is not a date-time, ...)."""
        return isinstance(value, (self.python_type, *self.also)) and not isinstance(
            value, self.excludes
        )


# -- RFC 3339 and RFC 4122 text, read -----------------------------------------------------

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


class OutOfRange(ValueError):
    """Text of the right form naming no real value (30 February, an offset of 24:00)."""


def _checked(make: Callable[..., Any], *args: Any) -> Any:
    try:
        return make(*args)
    except ValueError as exc:
        reason = str(exc)
        if "second must be" in reason:
            reason += " (Python has no leap seconds)"
        raise OutOfRange(reason) from None


def _time_parts(groups: tuple[str | None, ...]) -> tuple[int, int, int, int, Any]:
    """(hour, minute, second, microsecond, tzinfo) from ``_TIME_TEXT``'s groups."""
    hour, minute, second, fraction, zulu, sign, off_hour, off_minute = groups
    micro = int((fraction + "000000")[:6]) if fraction else 0  # cut to Python's resolution
    tz: Any = None
    if zulu:
        tz = _UTC
    elif sign:
        hours, minutes = int(off_hour or ""), int(off_minute or "")
        if hours > 23 or minutes > 59:
            msg = "the offset's hours must be in 0..23 and its minutes in 0..59"
            raise OutOfRange(msg)
        delta = datetime.timedelta(hours=hours, minutes=minutes)
        tz = datetime.timezone(-delta if sign == "-" else delta)
    return int(hour or ""), int(minute or ""), int(second or ""), micro, tz


def _read_date(text: str) -> datetime.date:
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


def read_clock(
    text: str, cls: type[datetime.datetime] | type[datetime.time], *, shortcut: bool = True
) -> Any:
    """An RFC 3339 ``date-time`` or ``full-time``, as a value of ``cls``.

    Seconds are required, any fraction is read (cut to microseconds), and ``T``/``t``,
    ``Z``/``z`` or ``±hh:mm`` as RFC 3339 writes them. With ``shortcut`` the common
    spellings go through ``fromisoformat`` (checked to read them as the long way does,
    and much faster); without it, always the long way (the tests compare the two).
    """
    form = _DATETIME_RE if cls is datetime.datetime else _TIME_RE
    m = form.match(text)
    if m is None:
        msg = f"not an RFC 3339 {'date-time' if form is _DATETIME_RE else 'time'}"
        raise ValueError(msg)
    date = m.groups()[:3] if form is _DATETIME_RE else ()
    clock = m.groups()[len(date):]
    if shortcut and _iso_reads(clock[3], clock[4], clock[5], clock[7]):
        try:
            return cls.fromisoformat(text)
        except ValueError:
            pass  # the long way says why
    hour, minute, second, micro, tz = _time_parts(clock)
    return _checked(cls, *(int(part or "") for part in date), hour, minute, second, micro, tz)


def _read_datetime(text: str) -> datetime.datetime:
    return read_clock(text, datetime.datetime)  # type: ignore[no-any-return]


def _read_time(text: str) -> datetime.time:
    return read_clock(text, datetime.time)  # type: ignore[no-any-return]


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


def _read_uuid(text: str) -> uuid.UUID:
    """A UUID in RFC 4122's text form: 8-4-4-4-12 hex digits, either case, nothing around."""
    if _UUID_RE.match(text) is None:
        msg = "not an RFC 4122 UUID"
        raise ValueError(msg)
    return uuid.UUID(text)


# -- and written ---------------------------------------------------------------------------


def _write_clock(v: Any) -> Any:
    """A date, date-time or time as RFC 3339 text; any other value as it is."""
    return _rfc3339(v) if isinstance(v, (datetime.date, datetime.time)) else v


def _rfc3339(v: datetime.date | datetime.time) -> str:
    """``v.isoformat()``, with a UTC offset RFC 3339 can write: whole minutes.

    An offset with seconds (a zone's local mean time before standard time, such as
    Amsterdam's +00:19:32 until 1937) is not RFC 3339, and the decoder refuses it: a
    date-time is written in UTC then (the same instant); a time of day, which cannot be
    moved without a date, is an error.
    """
    text = v.isoformat()
    offset = v.utcoffset() if isinstance(v, (datetime.datetime, datetime.time)) else None
    if offset is None or (offset.seconds % 60 == 0 and offset.microseconds == 0):
        return text
    if isinstance(v, datetime.datetime):
        return v.astimezone(datetime.timezone.utc).isoformat()
    msg = (
        f"cannot encode the time {text}: its UTC offset is not a whole number of minutes, "
        "which RFC 3339 (and decode()) cannot read; give it an offset in whole minutes"
    )
    raise ValueError(msg)


#: A plain decimal numeral: an optional minus, digits without leading zeros, an
#: optional fraction. What the encoder writes and the decoder reads for a Decimal.
DECIMAL_PATTERN = r"^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?$"


def decimal_text(value: decimal.Decimal) -> str:
    """``value`` as a plain numeral that matches ``DECIMAL_PATTERN``, every digit kept."""
    if not value.is_finite():
        msg = f"cannot encode {value!r}: JSON has no NaN or Infinity"
        raise ValueError(msg)
    return format(value, "f")


def _write_decimal(v: Any) -> Any:
    return decimal_text(v) if isinstance(v, decimal.Decimal) else v


def _write_float(v: Any) -> Any:
    if isinstance(v, float) and not math.isfinite(v):
        msg = f"cannot encode {v!r}: JSON has no NaN or Infinity"
        raise ValueError(msg)
    return v


# -- the table -----------------------------------------------------------------------------

SCALARS: tuple[Scalar, ...] = (
    Scalar(python_type=str, json_type="string", expected="string"),
    Scalar(python_type=int, json_type="integer", number=True, expected="integer",
           excludes=(bool,)),
    Scalar(python_type=float, json_type="number", number=True, write=_write_float,
           expected="number", also=(int,), excludes=(bool,)),
    Scalar(python_type=bool, json_type="boolean", expected="boolean"),
    Scalar(
        python_type=datetime.datetime, json_type="string", format="date-time",
        read=_read_datetime, write=_write_clock,
        expected="date-time string (RFC 3339, e.g. 2024-05-01T12:30:00Z)",
        says="a date and time (RFC 3339, e.g. 2024-01-31T09:30:00Z)",
    ),
    Scalar(
        python_type=datetime.date, json_type="string", format="date",
        read=_read_date, write=_write_clock, expected="date string (YYYY-MM-DD)",
        says="a date (YYYY-MM-DD)", excludes=(datetime.datetime,),
    ),
    Scalar(
        python_type=datetime.time, json_type="string", format="time",
        read=_read_time, write=_write_clock, expected="time string (HH:MM:SS, e.g. 12:30:00Z)",
        says="a time of day (HH:MM:SS)",
    ),
    Scalar(
        python_type=uuid.UUID, json_type="string", format="uuid", read=_read_uuid, write=str,
        expected="UUID string (8-4-4-4-12 hex digits)", says="a UUID",
    ),
    Scalar(
        python_type=decimal.Decimal, json_type="string", pattern=DECIMAL_PATTERN, number=True,
        write=_write_decimal,
        expected='a decimal number as a string of digits (such as "12.50")',
        says='a decimal number written as a string, e.g. "12.50"',
    ),
)

_BY_TYPE: dict[type, Scalar] = {s.python_type: s for s in SCALARS}

#: The row of ``str`` (and of its subclasses, which read and write as it does).
STRING = _BY_TYPE[str]

#: The types whose values a JSON string stands for, read by a format (parsed input may
#: hold the value itself where the reply held its text).
FORMAT_TYPES: tuple[type, ...] = tuple(s.python_type for s in SCALARS if s.read is not None)

_NUMBER_TYPES: tuple[type, ...] = tuple(s.python_type for s in SCALARS if s.number)


def scalar_for(tp: Any) -> Scalar | None:
    """The table's row for exactly the type ``tp`` (not a subclass), or None."""
    try:
        return _BY_TYPE.get(tp)
    except TypeError:  # an unhashable object where a type should be
        return None


def scalar_of_value(value: Any) -> Scalar | None:
    """The row a value belongs to: its class's, else its nearest base's in the table."""
    for cls in type(value).__mro__:
        found = _BY_TYPE.get(cls)
        if found is not None:
            return found
    return None


def is_number(value: Any) -> bool:
    """A finite number usable as a bound in a JSON Schema numeric keyword."""
    if isinstance(value, bool) or not isinstance(value, _NUMBER_TYPES):
        return False
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, decimal.Decimal):
        return value.is_finite()
    return True


def as_bound(value: Any, *, number_text: bool) -> Any:
    """A numeric bound as the bounded field states it.

    As for ``Annotated[T, Ge(...)]``: a field of a number written as text (Decimal) keeps
    a Decimal bound as it is (said in words); on an int or float field a Decimal bound
    becomes the int or float it equals, since a JSON Schema keyword holds a JSON number.
    """
    if isinstance(value, decimal.Decimal) and not number_text:
        return int(value) if value == value.to_integral_value() else float(value)
    return value

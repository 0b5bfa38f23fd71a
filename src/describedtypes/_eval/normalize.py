"""How two values are compared: strings normalised, numbers within a relative tolerance."""

from __future__ import annotations

import enum
import math
import unicodedata
from collections.abc import Callable, Mapping
from typing import Any, Literal

import attrs

__all__ = ["EMPTY", "Normalize", "is_empty", "leaf_key", "same_value"]

#: A value one side does not have: a field of an object it does not have, an item it
#: did not list.
EMPTY: Any = attrs.NOTHING

UnicodeForm = Literal["NFC", "NFD", "NFKC", "NFKD"]
_FORMS = ("NFC", "NFD", "NFKC", "NFKD")


def _check_tolerance(instance: Any, attribute: Any, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not (
        0 <= value < math.inf
    ):
        msg = f"Normalize.{attribute.name} must be a number >= 0, got {value!r}"
        raise ValueError(msg)


def _check_form(instance: Any, attribute: Any, value: Any) -> None:
    if value is not None and value not in _FORMS:
        msg = f"Normalize.unicode must be one of {', '.join(_FORMS)} or None, got {value!r}"
        raise ValueError(msg)


@attrs.frozen(slots=True)
class Normalize:
    """How ``evaluate()`` compares a prediction's value with the gold one.

    Strings (``str`` fields, and strings inside ``Any`` values) are compared after the
    Unicode normal form, then case folding, then whitespace; floats within a relative
    tolerance (``math.isclose``). Everything else compares exactly: ``int``, ``bool``,
    ``Decimal`` (by value, so ``Decimal("1.50") == Decimal("1.5")``), dates, times,
    datetimes, UUIDs, enum members and literals. Dict keys compare exactly.

    Attributes:
        case: Compare strings without regard to case (``str.casefold``).
        whitespace: Strip strings and read every run of whitespace as one space.
        unicode: The Unicode normal form strings are put in first (``"NFKC"``: a
            no-break space is a space, a full-width ``\\uff21`` is ``A``, the ligature ``ﬁ`` is
            ``fi``), or None to leave them as they are.
        rel_tol: Floats closer than this share of the larger one are equal (an ``int``
            beside a float is compared the same way; two ``int`` values exactly).
        abs_tol: Floats closer than this are equal too (for values near zero).

    ``evaluate(..., normalize=None)`` compares everything exactly.

    .. versionadded:: 0.4.0
    """

    case: bool = True
    whitespace: bool = True
    unicode: UnicodeForm | None = attrs.field(default="NFKC", validator=_check_form)
    rel_tol: float = attrs.field(default=1e-6, validator=_check_tolerance)
    abs_tol: float = attrs.field(default=0.0, validator=_check_tolerance)

    def text(self) -> Callable[[str], str]:
        """The function that puts a string in the form compared."""
        form, case, space = self.unicode, self.case, self.whitespace

        def normal(text: str) -> str:
            if form is not None:
                text = unicodedata.normalize(form, text)
            if case:
                text = text.casefold()
            if space:
                text = " ".join(text.split())
            return text

        return normal


#: ``normalize=None``: every value compared exactly.
EXACT = Normalize(case=False, whitespace=False, unicode=None, rel_tol=0.0, abs_tol=0.0)


def is_empty(value: Any) -> bool:
    """Absent, None, or an empty collection: a field the record leaves empty."""
    if value is None or value is EMPTY:
        return True
    if isinstance(value, (list, tuple, dict, set, frozenset, Mapping)):
        return not value
    return False


def _is_text(value: Any) -> bool:
    return isinstance(value, str) and not isinstance(value, enum.Enum)


def _is_float_pair(a: Any, b: Any) -> bool:
    return (
        (isinstance(a, float) or isinstance(b, float))
        and isinstance(a, (int, float)) and isinstance(b, (int, float))
        and not isinstance(a, bool) and not isinstance(b, bool)
    )


def same_value(normalize: Normalize) -> Callable[[Any, Any], bool]:
    """Whether two filled values are the same after normalisation (``a == b`` first)."""
    text = normalize.text()
    rel, absolute = normalize.rel_tol, normalize.abs_tol

    def same(a: Any, b: Any) -> bool:
        if a.__class__ is b.__class__ and a == b:
            return True
        if _is_text(a):
            return _is_text(b) and text(a) == text(b)
        if _is_float_pair(a, b):
            return math.isclose(a, b, rel_tol=rel, abs_tol=absolute)
        if isinstance(a, (list, tuple)) and not isinstance(a, enum.Enum):
            # An Any value's array (a fixed tuple's are compared item by item elsewhere).
            return (
                isinstance(b, (list, tuple)) and len(a) == len(b)
                and all(same(x, y) for x, y in zip(a, b, strict=True))
            )
        if isinstance(a, Mapping):
            return (
                isinstance(b, Mapping) and a.keys() == b.keys()
                and all(same(a[k], b[k]) for k in a)
            )
        if isinstance(a, bool) or isinstance(b, bool):
            return False  # True == 1 in Python, not in JSON
        return bool(a == b)

    return same


def leaf_key(normalize: Normalize) -> Callable[[Any], Any]:
    """A hashable key that is equal for values ``same_value`` calls the same (floats
    aside: tolerance is not an equivalence, they are matched apart)."""
    text = normalize.text()

    def key(value: Any) -> Any:
        if _is_text(value):
            return (str, text(value))
        if isinstance(value, bool):
            return (bool, value)
        if isinstance(value, (list, tuple)):
            return (list, tuple(key(v) for v in value))
        if isinstance(value, Mapping):
            return (dict, tuple(sorted((repr(k), key(v)) for k, v in value.items())))
        return (object, value)

    return key

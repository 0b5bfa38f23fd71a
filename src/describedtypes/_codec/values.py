"""JSON values and the checks shared by scalar decoders (bounds, lengths, exact numbers)."""

from __future__ import annotations

import dataclasses
import decimal
import enum
import json
import re
from collections.abc import Callable, Mapping
from typing import Any

from .._types import inspector as ni
from .._types import kinds as mt
from .._types.nodes import children_of, is_number_text
from .._types.scalars import DECIMAL_PATTERN
from .jsontext import NUMBER_TOO_LARGE, unfenced
from .problems import ABSENT, Invalid, Members, brief, not_one_of, show


def as_object(value: Any) -> dict[Any, Any]:
    if isinstance(value, Mapping):
        return dict(value)
    raise Invalid([[f"expected object, got {show(value)}{wrapped_hint(value, '{')}"]])


def as_array(value: Any) -> list[Any]:
    # Sets only reach here in parsed input (cattrs.unstructure keeps them as sets).
    if isinstance(value, (list, tuple, set, frozenset)):
        return list(value)
    raise Invalid([[f"expected array, got {show(value)}{wrapped_hint(value, '[')}"]])


def wrapped_hint(value: Any, opener: str) -> str:
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


def number_checks(c: ni.Constraints) -> list[Callable[[Any], str | None]]:
    checks: list[Callable[[Any], str | None]] = []
    if c.minimum is not None:
        lo = c.minimum
        checks.append(lambda v: None if v >= lo else f"must be at least {lo}, got {brief(v)}")
    if c.exclusive_minimum is not None:
        xlo = c.exclusive_minimum
        checks.append(lambda v: None if v > xlo else f"must be greater than {xlo}, got {brief(v)}")
    if c.maximum is not None:
        hi = c.maximum
        checks.append(lambda v: None if v <= hi else f"must be at most {hi}, got {brief(v)}")
    if c.exclusive_maximum is not None:
        xhi = c.exclusive_maximum
        checks.append(lambda v: None if v < xhi else f"must be less than {xhi}, got {brief(v)}")
    if c.multiple_of is not None:
        step = c.multiple_of
        checks.append(
            lambda v: None if _is_multiple(v, step) else f"must be a multiple of {step}, got "
            f"{brief(v)}"
        )
    return checks


def exact_decimal(value: Any) -> decimal.Decimal:
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
            return exact_decimal(value) % exact_decimal(step) == 0
    except (decimal.InvalidOperation, ValueError, OverflowError):
        return False


class ExactNumber(float):
    """A JSON number with a fraction or exponent, with the text it was written as.

    Only replies decoded into types holding a Decimal are read this way (with the
    standard library parser), so the Decimal gets every digit the model wrote.
    """

    text: str

    def __new__(cls, text: str) -> ExactNumber:
        made = super().__new__(cls, text)
        made.text = text
        return made


def plain_json(value: Any) -> Any:
    """``value`` (parsed with exact numbers) as the plain JSON value orjson would give.

    What a field typed ``Any`` receives: a float for a number with a fraction or
    exponent, an int for ``-0``, never the parser's ``ExactNumber``; a number beyond the
    float range is refused, as it is where no Decimal asks for exact numbers. The walk
    is a loop (values may nest as deep as a parser allows), and replaces the exact
    numbers in place: only the decoder's own parse makes them, so a caller's containers
    are never changed.
    """
    if value.__class__ is ExactNumber:
        return _plain_number(value)
    stack = [value] if isinstance(value, (list, dict)) else []
    while stack:
        current = stack.pop()
        pairs = current.items() if isinstance(current, dict) else enumerate(current)
        for key, item in pairs:
            if item.__class__ is ExactNumber:
                current[key] = _plain_number(item)
            elif isinstance(item, (list, dict)):
                stack.append(item)
    return value


def _plain_number(number: ExactNumber) -> Any:
    if number.text == "-0":
        return 0
    if number - number != 0.0:
        raise Invalid([[NUMBER_TOO_LARGE]])
    return float(number)


def _exact_int(text: str) -> Any:
    # -0 is an integer to JSON's grammar and 0 to int(): a Decimal keeps its sign.
    return ExactNumber(text) if text == "-0" else int(text)


def _exact_parse(text: str, **options: Any) -> Any:
    """``text`` parsed with exact numbers (the int hook only where a ``-0`` may be, since
    it costs a call per integer)."""
    if "-0" in text:
        options["parse_int"] = _exact_int
    return json.loads(text, parse_float=ExactNumber, **options)


def exact_loads(data: str | bytes | bytearray | memoryview, parsed: Any) -> Any:
    """``data`` (already parsed by orjson as ``parsed``, maybe inside a fence) with exact
    numbers; ``parsed`` itself where the standard parser refuses what orjson took (an
    integer of more than 4300 digits, nesting past the recursion limit)."""
    try:
        text = data if isinstance(data, str) else bytes(data).decode("utf-8")
        return _exact_parse(unfenced(text))
    except (ValueError, RecursionError):
        return parsed


def _no_constant(name: str) -> Any:
    msg = f"{name} is not JSON"
    raise ValueError(msg)


def exact_beyond_float(data: str | bytes | bytearray | memoryview) -> Any:
    """``data`` parsed with exact numbers where orjson refused a number past the float
    range (``1e400``), inside a markdown fence too; ``ABSENT`` when it is not JSON either
    way (NaN and Infinity stay refused)."""
    try:
        text = data if isinstance(data, str) else bytes(data).decode("utf-8")
        return _exact_parse(unfenced(text), parse_constant=_no_constant)
    except (ValueError, RecursionError):
        return ABSENT


DECIMAL_TEXT = re.compile(DECIMAL_PATTERN)


#: Digits beyond these are refused before Decimal() parses them (bounded work).
MAX_DECIMAL_LENGTH = 1000


def allows_null(node: ni.Node) -> bool:
    return isinstance(node, ni.NullNode) or (isinstance(node, ni.UnionNode) and node.nullable)


def any_node(node: ni.Node, found: Callable[[ni.Node], bool]) -> bool:
    """Whether ``found`` holds for any node of the tree (dict keys included), each node
    visited once (a recursive class ends the walk where it comes back)."""
    seen: set[int] = set()
    stack = [node]
    while stack:
        current = stack.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        if found(current):
            return True
        if isinstance(current, ni.DictNode):
            stack.append(current.keys)
        stack.extend(children_of(current))
    return False


def _newer(node: ni.Node) -> bool:
    if is_number_text(node) or node.constraints.multiple_of is not None:
        return True
    if isinstance(node, ni.ArrayNode) and issubclass(node.container, enum.Flag):
        return True
    if isinstance(node, ni.ObjectNode) and not node.is_function:
        cls = constructor_of(node.python_type)
        if mt.is_typeddict(cls) or mt.is_namedtuple(cls):
            return True
        own = getattr(cls, "__dataclass_fields__", {})
        return any(f._field_type is dataclasses._FIELD_INITVAR for f in own.values())  # type: ignore[attr-defined]
    return False


def has_newer_types(node: ni.Node) -> bool:
    """A Decimal, Flag, TypedDict, NamedTuple, dataclass InitVar or multipleOf in the tree."""
    return any_node(node, _newer)


def needs_exact(node: ni.Node) -> bool:
    """Whether a Decimal is anywhere in the tree (then numbers are read exactly)."""
    return any_node(node, is_number_text)


def length_checks(c: ni.Constraints, unit: str) -> list[Callable[[Any], str | None]]:
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


def pattern_check(pattern: str) -> Callable[[Any], str | None]:
    try:
        compiled = re.compile(pattern)
    except re.error:
        return lambda v: None  # the attrs validator, if any, still runs on construction
    shown = brief(pattern, 60)
    return lambda v: None if compiled.search(v) else f"must match the pattern {shown}"


def among(value: Any, values: tuple[Any, ...]) -> bool:
    """``value`` is one of ``values``, with ``True`` never equal to ``1``."""
    return any(ni.same_value(value, v) for v in values)


def enum_value_check(values: tuple[Any, ...]) -> Callable[[Any], str | None]:
    members = Members([(v, v) for v in values])
    return lambda v: None if members.get(v, ABSENT) is not ABSENT else not_one_of(v, values)


def constructor_of(tp: Any) -> Any:
    origin = getattr(tp, "__origin__", None)
    return origin if isinstance(origin, type) else tp

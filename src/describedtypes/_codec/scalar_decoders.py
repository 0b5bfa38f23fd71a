"""The decoders of scalar nodes: strings, numbers, booleans, string formats, Decimal.

Each reads its row of the scalar table (``_types/scalars.py``): a string format's text
is read by the row's ``read``, a number written as text (Decimal) by the one decoder
that takes its digits or a JSON number exactly. Where a scalar has no bounds beyond
its kind, the compiler is also given a one-line check (``fast``) it can inline.
"""

from __future__ import annotations

import decimal
from collections.abc import Callable
from typing import Any

from .._types import inspector as ni
from .._types.nodes import scalar_of
from .._types.scalars import OutOfRange, Scalar, scalar_for
from .codegen import Compiled
from .jsontext import NUMBER_TOO_LARGE
from .problems import (
    EXACT_FLOAT,
    INEXACT,
    MAX_FORMAT_LENGTH,
    Invalid,
    brief,
    fail,
    quote,
    show,
)
from .values import (
    DECIMAL_TEXT,
    MAX_DECIMAL_LENGTH,
    ExactNumber,
    enum_value_check,
    exact_decimal,
    length_checks,
    number_checks,
    pattern_check,
)

__all__ = ["Namer", "compile_scalar"]

#: Gives a value a name in the generated source (``Compiler.name``).
Namer = Callable[[str, Any], str]


def compile_scalar(node: ni.ScalarNode, name: Namer) -> Compiled:
    """The decoder of a scalar node, by its row of the scalar table."""
    row = scalar_of(node)
    assert row is not None
    if row.number_text:
        return _decimal(node, row)
    kind = node.type
    c = node.constraints
    checks: list[Callable[[Any], str | None]] = []
    if kind in ("integer", "number"):
        checks += number_checks(c)
    elif kind == "string":
        checks += length_checks(c, "characters")
    pattern = pattern_check(c.pattern) if kind == "string" and c.pattern else None
    enum_check = enum_value_check(node.enum) if node.enum is not None else None
    if row.read is not None:
        return _formatted(node, row, checks, pattern, enum_check, name)
    str_type: Callable[[Any], Any] = node.python_type
    expected = f"expected {row.expected}, got "
    plain = not checks and pattern is None and enum_check is None

    def finish(raw: Any, value: Any) -> Any:
        if plain:  # no constraint to check (the common case: no list built per value)
            return value
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
            raise Invalid([[p] for p in problems])
        return value

    if kind == "string":
        def fn(v: Any) -> Any:
            if not isinstance(v, str):
                fail(expected + show(v))
            return finish(v, v if v.__class__ is str_type else str_type(v))

        kinds: frozenset[type] = frozenset({str})
        lenient: frozenset[type] = frozenset()
    elif kind == "integer":
        def fn(v: Any) -> Any:
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                fail(expected + show(v))
            if isinstance(v, float):
                if not v.is_integer():
                    if isinstance(v, ExactNumber) and v - v != 0.0:  # JSON text 1e400
                        fail(NUMBER_TOO_LARGE)
                    fail(expected + show(v))
                if not -EXACT_FLOAT <= v <= EXACT_FLOAT:
                    fail(expected + show(v) + INEXACT)
                return finish(v, int(v))
            return finish(v, int(v))

        kinds, lenient = frozenset({int}), frozenset({float})
    elif kind == "number":
        def fn(v: Any) -> Any:
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                fail(expected + show(v))
            try:
                f = float(v)
            except OverflowError:  # an int beyond float range (parsed input only)
                fail(expected + show(v))
            if f - f != 0.0:
                if isinstance(v, ExactNumber):  # JSON text such as 1e400
                    fail(NUMBER_TOO_LARGE)
                fail(expected + show(v))  # NaN or Infinity (parsed input only)
            return finish(v, f)

        kinds, lenient = frozenset({float}), frozenset({int})
    else:
        def fn(v: Any) -> Any:
            if not isinstance(v, bool):
                fail(expected + show(v))
            return finish(v, v)

        kinds, lenient = frozenset({bool}), frozenset()
    return Compiled(fn, _scalar_fast(node, name), kinds, lenient)

def _decimal(node: ni.ScalarNode, row: Scalar) -> Compiled:
    """A Decimal: a string of digits, or a JSON number read exactly."""
    checks = number_checks(node.constraints)
    enum_check = enum_value_check(node.enum) if node.enum is not None else None
    expected = f"expected {row.expected}, got "

    def fn(v: Any) -> Any:
        if isinstance(v, str):
            if len(v) > MAX_DECIMAL_LENGTH or not DECIMAL_TEXT.match(v):
                fail(expected + show(v))
            value = decimal.Decimal(v)
        elif isinstance(v, ExactNumber):
            value = decimal.Decimal(v.text)
        elif isinstance(v, bool) or not isinstance(v, (int, float, decimal.Decimal)):
            fail(expected + show(v))
        elif isinstance(v, int):
            value = decimal.Decimal(v)
        else:  # a float (parsed input), or the Decimal itself
            value = exact_decimal(v)
        if not value.is_finite() or abs(value.adjusted()) > MAX_DECIMAL_LENGTH:
            # Bounded: 1e999999999 is a valid JSON number, and a billion digits.
            fail(
                f"the number {brief(value)} is out of range; send a decimal number "
                "between -1e1000 and 1e1000"
            )
        problems = [m for m in (check(value) for check in checks) if m is not None]
        if enum_check is not None:
            found = enum_check(value)
            if found is not None:
                problems.append(found)
        if problems:
            raise Invalid([[p] for p in problems])
        return value

    return Compiled(fn, None, frozenset({str}), frozenset({int, float}))

def _scalar_fast(node: ni.ScalarNode, name: Namer) -> str | None:
    if (
        node.constraints.pattern is not None
        or node.constraints.multiple_of is not None
        # A str subclass is made by calling it: the fast check returns the str itself.
        or scalar_for(node.python_type) is None
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
                parts.append(f"{{v}} {op} {name('_b', bound)}")
    elif node.type == "string":
        if c.min_length is not None:
            parts.append(f"len({{v}}) >= {int(c.min_length)}")
        if c.max_length is not None:
            parts.append(f"len({{v}}) <= {int(c.max_length)}")
    if node.enum is not None:
        values = node.enum
        if node.type == "boolean" or any(isinstance(x, bool) for x in values):
            return None
        parts.append(f"{{v}} in {name('_e', frozenset(values))}")
    return "(" + " and ".join(parts) + ")"

def _formatted(
    node: ni.ScalarNode,
    row: Scalar,
    checks: list[Callable[[Any], str | None]],
    pattern: Callable[[Any], str | None] | None,
    enum_check: Callable[[Any], str | None] | None,
    name: Namer,
) -> Compiled:
    parse = row.read
    assert parse is not None
    expected = f"expected {row.expected}, got "
    own_type = node.python_type

    def fn(v: Any) -> Any:
        if not isinstance(v, str):
            if v.__class__ is own_type:  # parsed input holding the value itself
                return v
            fail(expected + show(v))
        problems = [m for m in (check(v) for check in checks) if m is not None] if checks else []
        if pattern is not None and not problems:
            found = pattern(v)
            if found is not None:
                problems.append(found)
        if enum_check is not None:
            found = enum_check(v)
            if found is not None:
                problems.append(found)
        if problems:
            raise Invalid([[p] for p in problems])
        if len(v) > MAX_FORMAT_LENGTH:
            fail(expected + show(v))
        try:
            return parse(v)
        except OutOfRange as exc:
            fail(f"{quote(v)} is written right but is not a valid {row.format}: {exc}")
        except ValueError:
            fail(expected + show(v))

    convert = None
    if not checks and pattern is None and enum_check is None:
        parser = name("_p", parse)
        convert = (
            f"({parser}({{v}}) if {{v}}.__class__ is str and len({{v}}) <= "
            f"{MAX_FORMAT_LENGTH} else ABSENT)"
        )
    return Compiled(fn, None, frozenset({str}), convert=convert)

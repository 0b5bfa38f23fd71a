"""attrs number validators with Decimal bounds: stated like ``Annotated[T, Ge(...)]`` bounds.

On a Decimal field (a JSON string) the bound is said in words; on an int or float field a
Decimal bound becomes the int or float it equals, in the schema's numeric keywords.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Any, Optional

import annotated_types as at
import attrs
import pytest

from describedtypes import (
    ANTHROPIC,
    ANTHROPIC_TOOLS,
    GEMINI,
    MCP_TOOLS,
    OPENAI,
    OPENAI_CHAT_TOOLS,
    OPENAI_TOOLS,
    STANDARD,
    Adapter,
    DecodeError,
    decode,
    schema,
)
from describedtypes.inspect import type_info

ALL = [STANDARD, OPENAI, OPENAI_TOOLS, OPENAI_CHAT_TOOLS, ANTHROPIC_TOOLS, ANTHROPIC, GEMINI,
       MCP_TOOLS]

v = attrs.validators
DECIMAL = r"^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?$"


@attrs.define
class Quote:
    price: Decimal = attrs.field(validator=[v.ge(Decimal("0")), v.lt(Decimal("987.650"))])
    count: int = attrs.field(validator=[v.gt(Decimal("0")), v.le(Decimal("1E+2"))])
    ratio: float = attrs.field(validator=v.le(Decimal("2.5")))
    rebate: Optional[Decimal] = attrs.field(  # noqa: UP045
        default=None, validator=v.optional(v.le(Decimal("5")))
    )


@attrs.define
class AnnotatedQuote:
    """The same bounds through annotated_types.

    (``typing`` caches ``Annotated[...]`` by equal arguments, so an ``Lt(Decimal("987.65"))``
    made earlier in the process would be the one seen here: the bounds are ones no other
    test uses.)
    """

    price: Annotated[Decimal, at.Ge(Decimal("0")), at.Lt(Decimal("987.650"))]
    count: Annotated[int, at.Gt(Decimal("0")), at.Le(Decimal("1E+2"))]
    ratio: Annotated[float, at.Le(Decimal("2.5"))]
    rebate: Optional[Annotated[Decimal, at.Le(Decimal("5"))]] = None  # noqa: UP045


def test_standard_schema() -> None:
    assert schema(Quote) == {
        "type": "object",
        "properties": {
            "price": {
                "type": "string",
                "pattern": DECIMAL,
                "description": "Must be at least 0 and less than 987.650.",
            },
            "count": {"type": "integer", "exclusiveMinimum": 0, "maximum": 100},
            "ratio": {"type": "number", "maximum": 2.5},
            "rebate": {
                "type": "string",
                "pattern": DECIMAL,
                "description": "Must be at most 5.",
            },
        },
        "required": ["price", "count", "ratio"],
    }


def test_openai_schema() -> None:
    assert schema(Quote, OPENAI) == {
        "name": "Quote",
        "strict": True,
        "schema": {
            "type": "object",
            "properties": {
                "price": {
                    "type": "string",
                    "pattern": DECIMAL,
                    "description": "Must be at least 0 and less than 987.650.",
                },
                "count": {"type": "integer", "exclusiveMinimum": 0, "maximum": 100},
                "ratio": {"type": "number", "maximum": 2.5},
                "rebate": {
                    "type": ["string", "null"],
                    "pattern": DECIMAL,
                    "description": "Must be at most 5.",
                },
            },
            "required": ["price", "count", "ratio", "rebate"],
            "additionalProperties": False,
        },
    }


def _properties(cls: Any, adapter: Adapter) -> Any:
    found = schema(cls, adapter)
    for key in ("schema", "parameters", "input_schema", "inputSchema",
                "parameters_json_schema", "function"):
        if isinstance(found, dict) and key in found:
            found = found[key]
    if "parameters" in found:  # OpenAI Chat Completions: {"function": {"parameters": ...}}
        found = found["parameters"]
    return found["properties"]


@pytest.mark.parametrize("adapter", ALL, ids=lambda a: a.name)
def test_every_adapter_says_what_annotated_bounds_say(adapter: Adapter) -> None:
    """The attrs validators and annotated_types give the same properties under every adapter."""
    ours = _properties(Quote, adapter)
    assert ours == _properties(AnnotatedQuote, adapter)
    # A Decimal's bounds are never numeric keywords on its string.
    for key in ("minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum"):
        assert key not in ours["price"]
        assert key not in ours["rebate"]
    assert "at least 0 and less than 987.650" in ours["price"]["description"]
    # An int or float field takes the bound as a number, where the adapter takes bounds.
    if "maximum" in adapter.keywords:
        assert ours["count"]["maximum"] == 100
        assert type(ours["count"]["maximum"]) is int
        assert ours["ratio"]["maximum"] == 2.5
    else:
        assert "at most 100" in ours["count"]["description"]
        assert "at most 2.5" in ours["ratio"]["description"]


def test_the_nodes_hold_numbers_of_the_fields_kind() -> None:
    fields = {f.name: f.node for f in type_info(Quote).fields}  # type: ignore[attr-defined]
    assert fields["price"].constraints.minimum == Decimal("0")
    assert isinstance(fields["price"].constraints.minimum, Decimal)
    assert fields["count"].constraints.maximum == 100
    assert type(fields["count"].constraints.maximum) is int
    assert type(fields["ratio"].constraints.maximum) is float


def test_decode_enforces_the_bounds_exactly() -> None:
    ok = decode(Quote, '{"price": "987.649", "count": 100, "ratio": 2.5, "rebate": "5.00"}')
    assert ok == Quote(Decimal("987.649"), 100, 2.5, Decimal("5.00"))
    with pytest.raises(DecodeError) as info:
        decode(Quote, '{"price": "987.650", "count": 0, "ratio": 2.51, "rebate": "5.01"}')
    assert [p for p, _ in info.value.errors] == ["$.price", "$.count", "$.ratio", "$.rebate"]


@pytest.mark.parametrize("bound", [Decimal("NaN"), Decimal("Infinity"), float("inf")])
def test_a_bound_with_no_json_form_is_left_out(bound: Any) -> None:
    cls = attrs.make_class("Odd", {"x": attrs.field(type=float, validator=v.le(bound))})
    assert schema(cls)["properties"]["x"] == {"type": "number"}

"""``Toolbox.definitions(llm_adapter, use_references=...)``: each tool's definition built as
``schema(f, llm_adapter, use_references=...)`` builds it, checked as ``schema()`` checks the
argument, and cached per value without keeping any user object alive."""

from __future__ import annotations

import gc
import weakref
from typing import Any

import attrs
import pytest

from describedtypes import (
    ANTHROPIC_TOOLS,
    GEMINI,
    MCP_TOOLS,
    OPENAI_CHAT_TOOLS,
    OPENAI_TOOLS,
    Adapter,
    Tool,
    Toolbox,
    schema,
)

ADAPTERS = pytest.mark.parametrize(
    "adapter", [OPENAI_TOOLS, OPENAI_CHAT_TOOLS, ANTHROPIC_TOOLS, GEMINI, MCP_TOOLS],
    ids=lambda a: a.name,
)
VALUES = pytest.mark.parametrize("refs", [False, True, "auto"], ids=str)


@attrs.define
class Address:
    """A postal address."""

    street: str
    city: str
    postcode: str
    country: str


def move(home: Address, work: Address, school: Address) -> str:
    """Move house.

    Args:
        home: Where they live.
        work: Where they work.
        school: Where the children go.
    """
    return home.city + work.city + school.city


def lookup(city: str, days: int = 1) -> str:
    """Look a city up."""
    return city * days


def size(definitions: Any) -> int:
    return len(repr(definitions))


@ADAPTERS
@VALUES
def test_each_definition_is_what_schema_builds(adapter: Adapter, refs: Any) -> None:
    """For every value and tool adapter, each tool's definition equals schema(f, adapter,
    use_references=value), in registration order."""
    box = Toolbox([move, lookup])
    expected = [schema(move, adapter, use_references=refs),
                schema(lookup, adapter, use_references=refs)]
    assert box.definitions(adapter, use_references=refs) == expected
    assert Tool(move).definition(adapter, use_references=refs) == expected[0]


def test_auto_sends_the_smaller_body() -> None:
    """A class used three times goes under $defs with "auto": the toolbox's definitions
    get smaller than the default's, and the default is unchanged."""
    box = Toolbox([move])
    (inline,) = box.definitions(OPENAI_CHAT_TOOLS)
    (auto,) = box.definitions(OPENAI_CHAT_TOOLS, use_references="auto")
    assert "$defs" in auto["function"]["parameters"]
    assert "$defs" not in inline["function"]["parameters"]
    assert size(auto) < size(inline)
    assert box.definitions(OPENAI_CHAT_TOOLS, use_references=False) == [inline]


@pytest.mark.parametrize("bad", [1, 0, None, "yes", "AUTO", "true"], ids=repr)
def test_any_other_value_is_a_type_error_naming_the_parameter(bad: Any) -> None:
    """Anything but True, False or "auto" (1 and 0 included: they hash as True and False)
    is a TypeError naming use_references and the values it takes, from the toolbox and
    from one tool."""
    box = Toolbox([move])
    allowed = r"use_references must be True, False or 'auto', got "
    with pytest.raises(TypeError, match=allowed):
        box.definitions(OPENAI_TOOLS, use_references=bad)
    with pytest.raises(TypeError, match=allowed):
        box["move"].definition(OPENAI_TOOLS, use_references=bad)


def test_the_cache_gives_each_value_its_own_body() -> None:
    """Called with the values in turn, and again, each call gives that value's body (no
    earlier value's cached definition is handed out), overrides included."""
    box = Toolbox()
    box.add(move, name="relocate", description="Relocate a family.")
    order = ["auto", False, True, "auto", False, True, False, "auto"]
    for refs in order:
        (found,) = box.definitions(MCP_TOOLS, use_references=refs)
        built = dict(schema(move, MCP_TOOLS, use_references=refs))
        assert found["inputSchema"] == built["inputSchema"], refs
        assert (found["name"], found["description"]) == ("relocate", "Relocate a family.")
    assert size(box.definitions(MCP_TOOLS, use_references=True)) < size(
        box.definitions(MCP_TOOLS))


def test_a_definition_is_a_fresh_copy_for_every_value() -> None:
    """Changing a returned definition changes no later one, for any value."""
    box = Toolbox([move])
    for refs in (False, True, "auto"):
        (first,) = box.definitions(OPENAI_TOOLS, use_references=refs)
        first["parameters"]["properties"].clear()
        (again,) = box.definitions(OPENAI_TOOLS, use_references=refs)
        assert list(again["parameters"]["properties"]) == ["home", "work", "school"]


def test_cached_definitions_keep_no_user_object_alive() -> None:
    """After definitions with every value, dropping the toolbox frees the bound method's
    instance and a function made per request: the cache holds neither."""
    class Service:
        def move(self, home: Address, work: Address) -> str:
            """Move."""
            return home.city + work.city

    def made() -> Any:
        def per_request(home: Address, work: Address) -> str:
            """Per request."""
            return home.city + work.city
        return per_request

    service, func = Service(), made()
    box = Toolbox()
    box.add(service.move, name="move")
    box.add(func)
    for refs in (False, True, "auto"):
        assert len(box.definitions(OPENAI_TOOLS, use_references=refs)) == 2
    gone = [weakref.ref(service), weakref.ref(func)]
    del service, func, box
    gc.collect()
    assert [ref() for ref in gone] == [None, None]

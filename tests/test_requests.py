"""Whole requests: the strict policy within the per-request budgets, and the provider's
budget errors told as a RequestError naming the budget and the fix."""

from __future__ import annotations

import json
import logging
from typing import Any

import anthropic
import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from describedtypes import (
    ANTHROPIC,
    ANTHROPIC_TOOLS,
    OPENAI_CHAT_TOOLS,
    RequestError,
    SchemaError,
    Tool,
    Toolbox,
    extract,
    schema,
)
from describedtypes.adapters import check_request

from .test_ask_sdk import Claude

_made = iter(range(10**9))


def make_tool(optional: int, nullable: int = 0, required: int = 1) -> Any:
    """A fresh function: ``required`` ints, ``optional`` ``str | None = None`` parameters
    (each a union under Anthropic's strict form) and ``nullable`` required ``int | None``."""
    params = [f"r{j}: int" for j in range(required)]
    params += [f"n{j}: int | None" for j in range(nullable)]
    params += [f"o{j}: str | None = None" for j in range(optional)]
    name = f"tool_{next(_made)}"
    namespace: dict[str, Any] = {}
    exec(f"def {name}({', '.join(params)}) -> str:\n    'A tool.'\n    return 'ok'\n", namespace)
    return namespace[name]


def budget_use(definitions: list[Any], output_format: Any = None) -> tuple[int, int, int]:
    """(strict tools, optional, union-typed) over the strict definitions and the format,
    counted independently of the library's planner."""
    def walk(node: Any) -> tuple[int, int]:
        optional = unions = 0
        if isinstance(node, dict):
            props = node.get("properties")
            if isinstance(props, dict):
                required = node.get("required", [])
                optional += sum(1 for k in props if k not in required)
            if "anyOf" in node or "oneOf" in node or isinstance(node.get("type"), list):
                unions += 1
            for key, value in node.items():
                if key in ("properties", "$defs"):
                    for sub in value.values():
                        o, u = walk(sub)
                        optional, unions = optional + o, unions + u
                elif key in ("items", "additionalProperties"):
                    o, u = walk(value)
                    optional, unions = optional + o, unions + u
                elif key in ("anyOf", "oneOf", "allOf", "prefixItems"):
                    for sub in value:
                        o, u = walk(sub)
                        optional, unions = optional + o, unions + u
        return optional, unions

    strict = [d for d in definitions if d.get("strict")]
    total_o = total_u = 0
    for d in strict:
        o, u = walk(d["input_schema"])
        total_o, total_u = total_o + o, total_u + u
    if output_format is not None:
        o, u = walk(output_format["schema"])
        total_o, total_u = total_o + o, total_u + u
    return len(strict), total_o, total_u


@attrs.define
class Inner:
    a: int | None
    b: int | None


def nested(items: list[Inner], one: Inner) -> str:
    """Nested."""
    return ""


@attrs.define
class Answer:
    a: int | None
    b: int | None
    c: int | None
    d: int | None


def within(use: tuple[int, int, int]) -> bool:
    return use[0] <= 20 and use[1] <= 24 and use[2] <= 16


class TestPolicy:
    def test_values_checked(self) -> None:
        """Any other strict value is a ValueError that names the three policies."""
        for bad in ("yes", True, None, 1):
            with pytest.raises(ValueError, match=r'"prefer".*"require".*"off"'):
                Toolbox(strict=bad)  # type: ignore[arg-type]
        box = Toolbox([make_tool(0)])
        with pytest.raises(ValueError, match=r'"prefer".*"require".*"off"'):
            box.definitions(ANTHROPIC_TOOLS, strict="strict")  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="True, False or None"):
            Tool(make_tool(0), strict="yes")  # type: ignore[arg-type]

    def test_prefer_under_budget_is_require(self) -> None:
        """Under every budget, "prefer" gives the very bytes of "require"."""
        box = Toolbox([make_tool(2), make_tool(0), make_tool(1, nullable=1)])
        prefer = json.dumps(box.definitions(ANTHROPIC_TOOLS))
        assert prefer == json.dumps(box.definitions(ANTHROPIC_TOOLS, strict="require"))
        assert all(d["strict"] for d in json.loads(prefer))

    def test_off_sends_none_strict(self) -> None:
        """"off": every tool goes with strict false, optional parameters optional again."""
        box = Toolbox([make_tool(2)], strict="off")
        (sent,) = box.definitions(ANTHROPIC_TOOLS)
        assert sent["strict"] is False
        assert sent["input_schema"]["required"] == ["r0"]
        (chat,) = box.definitions(OPENAI_CHAT_TOOLS)
        assert chat["function"]["strict"] is False

    def test_tool_flag_overrides_the_policy(self) -> None:
        """Tool(strict=False) is never strict; Tool(strict=True) is strict under "off"."""
        box = Toolbox(strict="off")
        box.add(make_tool(0), name="pinned", strict=True)
        box.add(make_tool(0), name="loose", strict=False)
        box.add(make_tool(0), name="follows")
        sent = {d["name"]: d["strict"] for d in box.definitions(ANTHROPIC_TOOLS)}
        assert sent == {"pinned": True, "loose": False, "follows": False}
        sent = {d["name"]: d["strict"] for d in box.definitions(ANTHROPIC_TOOLS, strict="prefer")}
        assert sent == {"pinned": True, "loose": False, "follows": True}

    def test_a_tool_object_keeps_its_flag(self) -> None:
        """strict= goes on Tool(...), not on add() of a Tool (which already has it)."""
        tool = Tool(make_tool(0), strict=False)
        box = Toolbox([tool])
        assert box.definitions(ANTHROPIC_TOOLS)[0]["strict"] is False
        with pytest.raises(SchemaError, match="strict="):
            Toolbox().add(tool, strict=True)


class TestOverBudget:
    def test_downgrade_order_and_reasons(self, caplog: pytest.LogCaptureFixture) -> None:
        """Strict=True tools first, then ascending cost, ties in registration order; each
        downgraded tool has its reason; one WARNING line on the describedtypes logger."""
        box = Toolbox()
        box.add(make_tool(9), name="heavy_pinned", strict=True)  # 9 unions
        box.add(make_tool(5), name="five_a")
        box.add(make_tool(2), name="two")
        box.add(make_tool(5), name="five_b")
        box.add(make_tool(0), name="free")
        box.add(make_tool(4), name="four")
        with caplog.at_level(logging.WARNING, logger="describedtypes"):
            plan = box.plan(ANTHROPIC_TOOLS)
        # budget 16 unions: 9 (pinned) + 0 + 2 + 4 = 15; five_a and five_b do not fit.
        assert plan.strict == ("heavy_pinned", "two", "free", "four")
        assert set(plan.downgraded) == {"five_a", "five_b"}
        assert "union-typed parameters" in plan.downgraded["five_a"]
        assert "20" in plan.downgraded["five_b"]
        records = [r for r in caplog.records if r.name == "describedtypes"]
        assert len(records) == 1
        assert records[0].levelno == logging.WARNING
        assert "2 of 6 tools" in records[0].getMessage()
        # Registration order is kept in what is sent.
        assert [d["name"] for d in plan.tools] == [
            "heavy_pinned", "five_a", "two", "five_b", "free", "four"]
        assert [d["strict"] for d in plan.tools] == [True, False, True, False, True, True]
        assert not check_request(plan.tools, ANTHROPIC_TOOLS)

    def test_ties_go_by_registration_order(self) -> None:
        """Among tools of equal cost, the earlier registered stays strict."""
        box = Toolbox()
        for i in range(22):
            box.add(make_tool(0), name=f"t{i:02}")
        plan = box.plan(ANTHROPIC_TOOLS)
        assert plan.strict == tuple(f"t{i:02}" for i in range(20))
        assert set(plan.downgraded) == {"t20", "t21"}

    def test_require_names_budget_counts_heaviest_and_fix(self) -> None:
        """"require" over a budget: a SchemaError with the budget, counts, heaviest tools
        and strict="prefer"."""
        box = Toolbox(strict="require")
        box.add(make_tool(10), name="big")
        box.add(make_tool(8), name="bigger_than_small")
        box.add(make_tool(1), name="small")
        with pytest.raises(SchemaError) as info:
            box.definitions(ANTHROPIC_TOOLS)
        text = str(info.value)
        assert "19 union-typed parameters (at most 16)" in text
        assert "big (0 optional, 10 union-typed)" in text
        assert text.index("big (") < text.index("bigger_than_small (") < text.index("small (")
        assert 'strict="prefer"' in text

    def test_pinned_alone_over_budget(self) -> None:
        """Tools marked strict=True that exceed a budget alone: a SchemaError."""
        box = Toolbox()
        box.add(make_tool(10), name="a", strict=True)
        box.add(make_tool(10), name="b", strict=True)
        with pytest.raises(SchemaError, match="marked strict=True alone"):
            box.definitions(ANTHROPIC_TOOLS)

    def test_one_tool_over_a_budget_alone_goes_non_strict(self) -> None:
        """A single tool over the union budget is not refused under "prefer"."""
        box = Toolbox([make_tool(20)])
        (sent,) = box.definitions(ANTHROPIC_TOOLS)
        assert sent["strict"] is False
        with pytest.raises(SchemaError, match="20 union-typed"):
            box.definitions(ANTHROPIC_TOOLS, strict="require")

    def test_nested_objects_and_array_items_count(self) -> None:
        """Optional and union-typed parameters are counted inside nested objects and items."""
        plan = Toolbox([nested]).plan(ANTHROPIC_TOOLS)
        assert plan.costs["nested"].unions == 4

    def test_the_output_format_counts(self) -> None:
        """The structured-output format shares the budgets with the strict tools."""
        box = Toolbox()
        box.add(make_tool(7), name="seven")
        box.add(make_tool(7), name="seven_too")
        assert not box.plan(ANTHROPIC_TOOLS).downgraded  # 14 unions
        plan = box.plan(ANTHROPIC_TOOLS, output_type=Answer)  # 4 more: over 16
        assert plan.output_format == schema(Answer, ANTHROPIC)
        assert plan.strict == ("seven",)
        assert set(plan.downgraded) == {"seven_too"}
        assert within(budget_use(plan.tools, plan.output_format))

    def test_non_strict_tools_keep_full_argument_checking(self) -> None:
        """A downgraded tool's arguments are still decoded against the full type."""
        box = Toolbox()
        for i in range(21):
            box.add(make_tool(0), name=f"t{i}")
        assert list(box.plan(ANTHROPIC_TOOLS).downgraded) == ["t20"]
        result = box.call("t20", {"r0": "not a number"})
        assert result.is_error
        assert "r0" in result.content
        assert not box.call("t20", {"r0": 3}).is_error


tool_specs = st.lists(
    st.tuples(st.integers(0, 9), st.integers(0, 3), st.sampled_from([None, None, True, False])),
    min_size=0, max_size=28,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tool_specs, st.booleans())
def test_prefer_fits_keeps_pinned_and_equals_require(specs: list[Any], typed: bool) -> None:
    """For random toolboxes, with or without a typed answer: "prefer" never exceeds a
    budget, keeps every strict=True tool, and is byte-identical to "require" whenever
    that one fits."""
    box = Toolbox()
    for i, (optional, nullable, flag) in enumerate(specs):
        box.add(make_tool(optional, nullable), name=f"t{i}", strict=flag)
    output_type = Answer if typed else None
    pinned = [(o, n) for o, n, flag in specs if flag is True]
    # each optional and each nullable parameter is one union under the strict form;
    # Answer's format has 4 union-typed fields
    if len(pinned) > 20 or sum(o + n for o, n in pinned) + (4 if typed else 0) > 16:
        with pytest.raises(SchemaError, match="marked strict=True alone"):
            box.plan(ANTHROPIC_TOOLS, output_type=output_type)
        return
    plan = box.plan(ANTHROPIC_TOOLS, output_type=output_type)
    assert within(budget_use(plan.tools, plan.output_format))
    sent = {d["name"]: d["strict"] for d in plan.tools}
    for i, (_, _, flag) in enumerate(specs):
        if flag is True:
            assert sent[f"t{i}"] is True
        if flag is False:
            assert sent[f"t{i}"] is False
    try:
        required = box.plan(ANTHROPIC_TOOLS, output_type=output_type, strict="require")
    except SchemaError:
        assert plan.downgraded
    else:
        assert json.dumps(required.tools) == json.dumps(plan.tools)
        assert required.fingerprint == plan.fingerprint
        assert not plan.downgraded


# -- the provider's own budget errors ------------------------------------------------------

BUDGET_TEXTS = [
    ("Too many strict tools (73). The maximum number of strict tools supported is 20.",
     "strict tools per request"),
    ("Schemas contains too many optional parameters (87), which would make grammar "
     "compilation inefficient. Reduce the number of optional parameters in your tool "
     "schemas (limit: 24).", "optional parameters per request"),
    ("Schemas contains too many parameters with union types (31 parameters with type "
     "arrays or anyOf). This would make grammar compilation inefficient. Reduce the number "
     "of parameters with union types (limit: 16).", "union-typed parameters per request"),
    ("The compiled grammar is too large, which would cause performance issues. Simplify "
     "your tool schemas or reduce the number of strict tools.", "size of the grammar"),
]


def _refusing(text: str) -> Any:
    def handler(request: Any) -> Any:
        module = __import__(type(request).__module__.split(".")[0])
        return module.Response(400, json={"type": "error", "error": {
            "type": "invalid_request_error", "message": text}})
    return handler


@pytest.mark.parametrize(("text", "budget"), BUDGET_TEXTS)
@pytest.mark.parametrize("is_async", [False, True])
def test_budget_400_is_a_request_error(text: str, budget: str, is_async: bool) -> None:
    """The anthropic SDK's 400 with a budget text: a RequestError naming the budget and the
    fix, the SDK's BadRequestError chained; from run() and extract() alike."""
    import asyncio

    client = Claude().client(_refusing(text), is_async=is_async)
    box = Toolbox([make_tool(1)])
    def ask() -> Any:
        if is_async:
            return asyncio.run(box.arun(client, messages="hi", model="claude-test"))
        return box.run(client, messages="hi", model="claude-test")

    with pytest.raises(RequestError) as info:
        ask()
    assert budget in info.value.reason
    assert 'strict="prefer"' in str(info.value)
    assert isinstance(info.value.__cause__, anthropic.BadRequestError)
    assert text[:30] in str(info.value)
    if not is_async:
        with pytest.raises(RequestError, match="strict"):
            extract(Answer, client=client, messages="hi", model="claude-test")


def test_other_400s_pass_through() -> None:
    """A 400 without a budget text stays the SDK's own error."""
    client = Claude().client(_refusing("messages: field required"), is_async=False)
    with pytest.raises(anthropic.BadRequestError):
        Toolbox([make_tool(0)]).run(client, messages="hi", model="claude-test")


@pytest.mark.parametrize("is_async", [False, True], ids=["sync", "async"])
def test_budget_400_while_streaming(is_async: bool) -> None:
    """extract_stream / aextract_stream: the same RequestError, the SDK's error chained."""
    import asyncio

    from describedtypes import aextract_stream, extract_stream

    text = BUDGET_TEXTS[1][0]
    client = Claude().client(_refusing(text), is_async=is_async)

    async def consume() -> None:
        async for _ in aextract_stream(Answer, client, messages="hi", model="claude-test"):
            pass

    def ask() -> None:
        if is_async:
            asyncio.run(consume())
        else:
            for _ in extract_stream(Answer, client, messages="hi", model="claude-test"):
                pass

    with pytest.raises(RequestError, match="optional parameters per request") as info:
        ask()
    assert isinstance(info.value.__cause__, anthropic.BadRequestError)

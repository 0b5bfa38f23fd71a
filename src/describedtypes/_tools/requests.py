"""Whole requests: which tools go strict within a provider's per-request budgets, whether a
typed answer shares the request with the tools, and a stable fingerprint of what is sent.

Anthropic (and Anthropic models on Bedrock) compile every strict tool and the output
format of a request into one grammar, with budgets over all of them together: strict
tools, optional parameters and union-typed parameters (``Limits.max_strict_tools``,
``max_optional_params``, ``max_union_params``). ``plan_tools`` keeps as many tools
strict as fit, in the order the toolbox's ``strict`` policy fixes, and sends the rest
non-strict; the decoder checks every tool's arguments against the full type either way.
"""

from __future__ import annotations

import hashlib
import html
import logging
import weakref
from collections.abc import Sequence
from typing import Any, Literal

import attrs
import orjson

from .._schema import adapters as _adapters
from .._schema.document import compute_stats, document
from .._schema.schema import References
from .._types.annotate import current_stamp
from .._vendors.detect import FORMATS
from ..errors import SchemaError
from .tool import Tool

__all__ = [
    "POLICIES",
    "RequestPlan",
    "check_order",
    "check_phases",
    "check_policy",
    "fingerprint_of",
    "plan_tools",
]

log = logging.getLogger("describedtypes")

StrictPolicy = Literal["prefer", "require", "off"]
#: The values of ``Toolbox(strict=...)`` and ``definitions(strict=...)``.
POLICIES: tuple[str, ...] = ("prefer", "require", "off")
ORDERS: tuple[str, ...] = ("registration", "name")
PHASES: tuple[str, ...] = ("combined", "two-phase")


def check_policy(value: Any, where: str) -> str:
    """``value`` if it is one of the three policies; else the ``ValueError`` naming them."""
    if isinstance(value, str) and value in POLICIES:
        return value
    msg = (
        f"{where}: strict must be \"prefer\" (strict while the provider's budgets allow, "
        f"the rest non-strict), \"require\" (every tool strict, or a SchemaError) or "
        f"\"off\" (no tool strict), got {value!r}"
    )
    raise ValueError(msg)


def check_order(value: Any, where: str) -> str:
    if isinstance(value, str) and value in ORDERS:
        return value
    msg = f"{where}: order must be \"registration\" or \"name\", got {value!r}"
    raise ValueError(msg)


def check_phases(value: Any, where: str) -> str | None:
    if value is None or (isinstance(value, str) and value in PHASES):
        return value
    msg = (
        f"{where}: phases must be \"combined\", \"two-phase\" or None (the adapter's), "
        f"got {value!r}"
    )
    raise ValueError(msg)


# -- budgets -----------------------------------------------------------------------------


@attrs.frozen
class Cost:
    """What one strict schema takes of a request's budgets."""

    optional: int
    unions: int

    @property
    def total(self) -> int:
        return self.optional + self.unions


_NO_BUDGETS: dict[_adapters.Adapter, _adapters.Adapter] = {}
_LENIENT: dict[_adapters.Adapter, _adapters.Adapter] = {}


def has_budgets(adapter: _adapters.Adapter) -> bool:
    limits = adapter.limits
    return (
        limits.max_strict_tools is not None or limits.max_optional_params is not None
        or limits.max_union_params is not None
    )


def unbudgeted(adapter: _adapters.Adapter) -> _adapters.Adapter:
    """``adapter`` with its request budgets left to the planner: the same bodies, but one
    tool over a budget alone is not refused while it is built (it may go non-strict)."""
    found = _NO_BUDGETS.get(adapter)
    if found is None:
        limits = attrs.evolve(
            adapter.limits, max_strict_tools=None, max_optional_params=None,
            max_union_params=None,
        )
        found = _NO_BUDGETS[adapter] = attrs.evolve(adapter, limits=limits)
    return found


def lenient(adapter: _adapters.Adapter) -> _adapters.Adapter:
    """The non-strict form of ``adapter`` (``strict: false`` where the provider has it)."""
    if not adapter.strict:
        return adapter
    found = _LENIENT.get(adapter)
    if found is None:
        found = _LENIENT[adapter] = adapter.replace(strict=False)
    return found


def cost_of(definition: Any, adapter: _adapters.Adapter) -> Cost:
    stats = compute_stats(document(definition, adapter))
    return Cost(stats.optional, stats.unions)


#: Per tool, what its strict definition costs, by what the definition depends on: the
#: adapter, ``use_references``, its name and description, and the annotations' stamp.
_COSTS: weakref.WeakKeyDictionary[Tool, dict[Any, Cost]] = weakref.WeakKeyDictionary()


def tool_cost(
    tool: Tool, strict_adapter: _adapters.Adapter, adapter: _adapters.Adapter, refs: Any,
    built: list[Any], index: int,
) -> Cost:
    """What ``tool``'s strict definition costs, worked out once; a definition built to
    find out is kept in ``built[index]``."""
    key = (adapter, refs, tool.name, tool.description, current_stamp())
    known = _COSTS.get(tool)
    found = known.get(key) if known is not None else None
    if found is None:
        definition = built[index] = tool.definition(strict_adapter, use_references=refs)
        found = cost_of(definition, adapter)
        _COSTS.setdefault(tool, {})[key] = found
    return found


@attrs.define
class _Totals:
    tools: int = 0
    optional: int = 0
    unions: int = 0

    def over(self, limits: Any, tools: int, cost: Cost) -> str | None:
        """The budget ``cost`` (and ``tools`` more strict tools) would break, or None."""
        if limits.max_strict_tools is not None and self.tools + tools > limits.max_strict_tools:
            return (f"strict tools: {self.tools + tools} would exceed the "
                    f"{limits.max_strict_tools} a request may have")
        if limits.max_optional_params is not None and (
            self.optional + cost.optional > limits.max_optional_params
        ):
            return (f"optional parameters: its {cost.optional} would bring the request to "
                    f"{self.optional + cost.optional}, over {limits.max_optional_params}")
        if limits.max_union_params is not None and (
            self.unions + cost.unions > limits.max_union_params
        ):
            return (f"union-typed parameters: its {cost.unions} would bring the request to "
                    f"{self.unions + cost.unions}, over {limits.max_union_params}")
        return None

    def add(self, tools: int, cost: Cost) -> None:
        self.tools += tools
        self.optional += cost.optional
        self.unions += cost.unions


def _exceeded(adapter: _adapters.Adapter, totals: _Totals) -> list[str]:
    limits = adapter.limits
    found = []
    if limits.max_strict_tools is not None and totals.tools > limits.max_strict_tools:
        found.append(f"{totals.tools} strict tools (at most {limits.max_strict_tools})")
    if limits.max_optional_params is not None and totals.optional > limits.max_optional_params:
        found.append(f"{totals.optional} optional parameters (at most "
                     f"{limits.max_optional_params})")
    if limits.max_union_params is not None and totals.unions > limits.max_union_params:
        found.append(f"{totals.unions} union-typed parameters (at most "
                     f"{limits.max_union_params})")
    return found


def _heaviest(costs: dict[str, Cost]) -> str:
    ranked = sorted(costs.items(), key=lambda item: -item[1].total)[:3]
    return ", ".join(
        f"{name} ({cost.optional} optional, {cost.unions} union-typed)" for name, cost in ranked
    )


@attrs.frozen
class Chosen:
    """What ``plan_tools`` decided: the definitions, in the order asked for."""

    definitions: list[Any]
    strict: tuple[str, ...]
    downgraded: dict[str, str]
    costs: dict[str, Cost]


def plan_tools(
    tools: Sequence[Tool],
    adapter: _adapters.Adapter,
    policy: str,
    *,
    use_references: References = False,
    format_cost: Cost | None = None,
    order: str = "registration",
) -> Chosen:
    """The definitions of ``tools`` for one request under ``policy`` (already checked).

    ``format_cost``: what a structured-output format sent in the same request takes of
    the budgets (it is always strict, and cannot be made otherwise).
    """
    budgets = has_budgets(adapter)
    strict_adapter = unbudgeted(adapter) if budgets else adapter
    loose = lenient(adapter)
    wanted = [
        adapter.strict and (tool.strict if tool.strict is not None else policy != "off")
        for tool in tools
    ]
    # Built when needed: a tool whose cost is known and that goes non-strict is never
    # built strict.
    built: list[Any] = [None] * len(tools)
    costs: dict[str, Cost] = {}
    downgraded: dict[str, str] = {}
    if budgets:
        totals = _Totals()
        if format_cost is not None:
            totals.add(0, format_cost)
        for i, (tool, want) in enumerate(zip(tools, wanted, strict=True)):
            if want:
                costs[tool.name] = cost = tool_cost(tool, strict_adapter, adapter,
                                                    use_references, built, i)
                totals.add(1, cost)
        exceeded = _exceeded(adapter, totals)
        if exceeded and policy == "require":
            with_format = " and the output format" if format_cost is not None else ""
            msg = (
                f"{adapter.name} would reject these tools together: the strict tools"
                f"{with_format} come to {'; '.join(exceeded)} in one request (the provider's "
                f"per-request budgets, counted through nested objects and array items); the "
                f"heaviest: {_heaviest(costs)}; pass strict=\"prefer\" to send the tools "
                "that do not fit as non-strict (their arguments are still checked in full), "
                "or make parameters required and non-nullable"
            )
            raise SchemaError(msg)
        if exceeded:
            downgraded = _fit(tools, wanted, costs, adapter, format_cost)
            for i, tool in enumerate(tools):
                if tool.name in downgraded:
                    wanted[i] = False
                    built[i] = None
            log.warning(
                "%s: %d of %d tools sent non-strict to stay within the per-request budgets "
                "(%s); RequestPlan.downgraded says why for each", adapter.name,
                len(downgraded), len(tools), "; ".join(exceeded),
            )
    for i, (tool, want) in enumerate(zip(tools, wanted, strict=True)):
        if built[i] is None:
            built[i] = tool.definition(strict_adapter if want else loose,
                                       use_references=use_references)
        if tool.defer_loading and adapter.tool_search:
            built[i]["defer_loading"] = True
    strict_names = tuple(t.name for t, w in zip(tools, wanted, strict=True) if w)
    if order == "name":
        pairs = sorted(zip(tools, built, strict=True), key=lambda pair: pair[0].name)
        built = [definition for _, definition in pairs]
    return Chosen(built, strict_names, downgraded, costs)


def _fit(
    tools: Sequence[Tool], wanted: list[bool], costs: dict[str, Cost],
    adapter: _adapters.Adapter, format_cost: Cost | None,
) -> dict[str, str]:
    """name -> the budget that made it non-strict: tools marked ``strict=True`` first,
    then the cheapest, ties in registration order; each kept while it still fits."""
    limits = adapter.limits
    totals = _Totals()
    if format_cost is not None:
        totals.add(0, format_cost)
    pinned = [t for t, w in zip(tools, wanted, strict=True) if w and t.strict is True]
    for tool in pinned:
        totals.add(1, costs[tool.name])
    if _exceeded(adapter, totals):
        pinned_costs = {t.name: costs[t.name] for t in pinned}
        msg = (
            f"{adapter.name} would reject these tools together: the tools marked "
            f"strict=True alone{' (with the output format)' if format_cost else ''} come "
            f"to {'; '.join(_exceeded(adapter, totals))} in one "
            f"request; the heaviest: {_heaviest(pinned_costs)}; mark fewer tools "
            "Tool(strict=True), or make their parameters required and non-nullable"
        )
        raise SchemaError(msg)
    rest = [
        (costs[t.name].total, i, t) for i, (t, w) in enumerate(zip(tools, wanted, strict=True))
        if w and t.strict is not True
    ]
    downgraded: dict[str, str] = {}
    for _, _, tool in sorted(rest, key=lambda item: (item[0], item[1])):
        cost = costs[tool.name]
        reason = totals.over(limits, 1, cost)
        if reason is None:
            totals.add(1, cost)
        else:
            downgraded[tool.name] = f"{adapter.name} budget, {reason}"
    return downgraded


# -- the plan ----------------------------------------------------------------------------


def fingerprint_of(tools: Sequence[Any], output_format: Any = None) -> str:
    """16 hex digits of SHA-256 over the compact JSON of what is sent (key order kept)."""
    digest = hashlib.sha256(orjson.dumps(list(tools)))
    if output_format is not None:
        digest.update(b"\n")
        digest.update(orjson.dumps(output_format))
    return digest.hexdigest()[:16]


@attrs.frozen(eq=False)
class RequestPlan:
    """What one request of a tool loop sends, and why.

    Attributes:
        tools: The tool definitions as sent, in order.
        strict: The names of the tools sent strict.
        downgraded: Tool name -> the budget that made it non-strict (the tools the
            ``"prefer"`` policy could not keep strict).
        output_format: The structured-output body sent for the typed answer, or None.
        phases: ``"combined"`` (the format goes with the tools on every turn) or
            ``"two-phase"`` (tool turns without the format, then one closing request
            with the format and no tools).
        fingerprint: A short stable hex digest of the compact JSON of ``tools`` (and
            ``output_format``): it changes exactly when the bytes sent change.
        adapter: The adapter of the tools.
        costs: Tool name -> what its strict definition takes of the budgets (its
            ``optional`` and ``unions`` parameter counts, ``total`` both), for the tools
            that were candidates to go strict under an adapter with budgets.

    .. versionadded:: 0.4.0
    """

    tools: list[Any]
    strict: tuple[str, ...]
    downgraded: dict[str, str]
    output_format: Any
    phases: str
    fingerprint: str
    adapter: _adapters.Adapter
    costs: dict[str, Cost] = attrs.field(factory=dict, repr=False)

    def __repr__(self) -> str:
        return (
            f"RequestPlan({self.adapter.name}, {len(self.tools)} tools, strict="
            f"{len(self.strict)}, downgraded={len(self.downgraded)}, phases={self.phases!r}, "
            f"output_format={'yes' if self.output_format is not None else 'no'}, "
            f"fingerprint={self.fingerprint!r})"
        )

    def _repr_html_(self) -> str:
        rows = []
        for definition in self.tools:
            name = tool_name(definition) or "?"
            if name in self.strict:
                mode, why = "strict", ""
            elif name in self.downgraded:
                mode, why = "non-strict", self.downgraded[name]
            else:
                mode, why = "non-strict" if self.adapter.strict else "-", ""
            cost = self.costs.get(name)
            shown = f"{cost.optional} / {cost.unions}" if cost is not None else ""
            rows.append(
                f"<tr><td><code>{html.escape(name)}</code></td><td>{mode}</td>"
                f"<td>{shown}</td><td>{html.escape(why)}</td></tr>"
            )
        head = (
            f"<b>Request plan</b> for {html.escape(self.adapter.name)}: "
            f"{len(self.tools)} tool(s), {len(self.strict)} strict, "
            f"{len(self.downgraded)} downgraded; {html.escape(self.phases)}; output format: "
            f"{'yes' if self.output_format is not None else 'no'}; fingerprint "
            f"<code>{self.fingerprint}</code>"
        )
        return (
            f"<div>{head}<table><thead><tr><th>tool</th><th>sent</th>"
            "<th>optional / union params</th><th>why non-strict</th></tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table></div>"
        )


def tool_name(definition: Any) -> str | None:
    """The tool name in a definition of any provider's shape."""
    if not isinstance(definition, dict):
        return None
    name = definition.get("name")
    if isinstance(name, str):
        return name
    inner = definition.get("function")
    if isinstance(inner, dict) and isinstance(inner.get("name"), str):
        return str(inner["name"])
    return None


def _format_of() -> dict[str, str]:
    """A provider's tool form -> its structured-output form (by the adapters' own names),
    read from each wire format's ``servers`` table, so a new format needs no line here."""
    pairs: dict[str, str] = {}
    for fmt in FORMATS:
        for output, tools in fmt.servers.values():
            pairs[tools] = output
            pairs[output] = output
    return pairs


_FORMAT_OF = _format_of()


def output_adapter_for(adapter: _adapters.Adapter) -> _adapters.Adapter:
    """The structured-output adapter of the provider whose tool form ``adapter`` is."""
    base = adapter.name.split("(", 1)[0]
    name = _FORMAT_OF.get(base)
    if name is None:
        known = ", ".join(sorted({tools for fmt in FORMATS for _, tools in fmt.servers.values()}))
        msg = (
            f"plan(output_type=...) needs the structured-output form of {adapter.name}, which "
            f"is not a provider's own tool adapter ({known}); plan with one of those"
        )
        raise SchemaError(msg)
    found: _adapters.Adapter = getattr(_adapters, name)
    # The same grammar backend or model family as the tool form.
    if adapter.backend is not None and found.backend != adapter.backend:
        found = found.replace(backend=adapter.backend)
    if adapter.family is not None and found.family != adapter.family:
        found = found.replace(family=adapter.family)
    return found

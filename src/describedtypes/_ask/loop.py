"""``Toolbox.run()``: the tool loop. Ask, run the calls the model makes, send the results
back, until the model answers without calling a tool."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .._types.annotate import annotate
from .._vendors.clients import Provider, provider_for
from ..errors import DecodeError, MaxTurnsError
from .extract import (
    Ledger,
    RunTools,
    Send,
    Steps,
    adrive,
    check_call,
    check_details,
    conversation,
    decode_or_retry,
    drive,
)
from .results import ToolRun, Turn

if TYPE_CHECKING:
    from .._tools.toolbox import Toolbox

log = logging.getLogger("describedtypes")

#: The toolbox's limits on a turn, which run() might be mistaken to take.
_TOOLBOX_KEYWORDS = ("max_calls_per_turn", "max_result_chars_per_turn", "max_result_chars")


#: What the model is asked in the closing request of a two-phase run.
CLOSING_REQUEST = "Now give your final answer as JSON in the required format."

#: ``planner(tools_adapter, format_adapter, output_type, model)``: the request plan of
#: a run (``Toolbox.run`` hands down a function of its own toolbox).
Planner = Callable[[Any, Any, Any, str], Any]


def _run_steps(
    toolbox: Toolbox,
    provider: Provider,
    transcript: list[Any],
    model: str,
    max_turns: int,
    output_type: Any,
    retries: int,
    request: dict[str, Any],
    ledger: Ledger,
    planner: Planner,
) -> Steps:
    # SchemaError before sending anything
    plan = planner(provider.tool_adapter, provider.format_adapter, output_type, model)
    ledger.plan = plan
    definitions = plan.tools
    tool_extra = provider.with_tools(definitions, request) if definitions else dict(request)
    two_phase = output_type is not None and plan.phases == "two-phase"
    phase = "tools" if two_phase else "combined"
    extra = tool_extra
    if output_type is not None and not two_phase:
        extra = provider.structured(output_type, tool_extra)
    attempts: list[tuple[object, DecodeError]] = []
    turn = 0
    while True:
        if turn == max_turns:
            log.warning(
                "%s: still calling tools after %d turns; stopping", provider.name, turn
            )
            error = MaxTurnsError(turn, transcript)
            error.usage, error.turn_records = ledger.usage, list(ledger.turns)
            raise error
        turn += 1
        log.debug(
            "%s: turn %d (model %s, messages: %d, tools: %d)",
            provider.name, turn, model, len(transcript), len(definitions),
        )
        sent = time.perf_counter()
        response = yield Send(provider.request(model, transcript, extra))
        seconds = time.perf_counter() - sent
        usage = ledger.charge(provider, response)
        calls = provider.calls(response)
        if calls:
            log.debug("%s: turn %d: the model made %d tool calls", provider.name, turn, len(calls))
            started = time.perf_counter()
            results = yield RunTools(calls)
            ledger.turns.append(Turn(
                response, usage, seconds, tuple(zip(calls, results, strict=False)),
                time.perf_counter() - started, phase,
            ))
            transcript = [
                *transcript,
                *provider.reply_messages(response),
                *provider.result_messages(results),
            ]
            continue
        ledger.turns.append(Turn(response, usage, seconds, phase=phase))
        if output_type is None:
            text = provider.text(response)
            ledger.messages = [*transcript, *provider.reply_messages(response)]
            return text
        if two_phase:
            provider.text(response)  # a refusal or a cut-off answer raises here
            transcript = [
                *transcript, *provider.reply_messages(response),
                provider.user_message(CLOSING_REQUEST),
            ]
            return (yield from _closing_steps(
                provider, transcript, model, output_type, retries, tool_extra, ledger,
            ))
        done, outcome = decode_or_retry(
            output_type, provider, response, attempts, retries, ledger, usage, seconds
        )
        if done:
            ledger.messages = [*transcript, *provider.reply_messages(response)]
            return outcome
        transcript = [*transcript, *outcome]


def _closing_steps(
    provider: Provider, transcript: list[Any], model: str, output_type: Any, retries: int,
    tool_extra: dict[str, Any], ledger: Ledger,
) -> Steps:
    """The closing request of a two-phase run: the format, no tool to call; a reply that
    does not decode is sent back as ``extract()`` does, up to ``retries`` times."""
    extra = provider.structured(output_type, provider.closing(tool_extra))
    attempts: list[tuple[object, DecodeError]] = []
    while True:
        log.debug("%s: closing request %d (format, no tools)", provider.name, len(attempts) + 1)
        sent = time.perf_counter()
        response = yield Send(provider.request(model, transcript, extra))
        seconds = time.perf_counter() - sent
        usage = ledger.charge(provider, response)
        ledger.turns.append(Turn(response, usage, seconds, phase="closing"))
        done, outcome = decode_or_retry(
            output_type, provider, response, attempts, retries, ledger, usage, seconds
        )
        if done:
            ledger.messages = [*transcript, *provider.reply_messages(response)]
            return outcome
        transcript = [*transcript, *outcome]


def _prepare(
    entry: str, toolbox: Toolbox, client: Any, messages: Any, model: Any, max_turns: Any,
    output_type: Any, retries: Any, api: Any, request: dict[str, Any], *, want_async: bool,
    registry: Any, ledger: Ledger, planner: Planner, llm_adapter: Any = None,
) -> tuple[Provider, Steps]:
    provider = provider_for(
        client, api, want_async=want_async, names=("Toolbox.run", "Toolbox.arun"),
        registry=annotate if registry is None else registry,
    )
    provider.use(llm_adapter, entry)
    check_call(entry, provider, model, max_turns, "max_turns", 1, request)
    for key in _TOOLBOX_KEYWORDS:
        if key in request:  # it would go on to the SDK call, which rejects it
            msg = (
                f"{entry}() got {key}=; it is a setting of the toolbox: "
                f"Toolbox(tools, {key}=...)"
            )
            raise TypeError(msg)
    check_call(entry, provider, model, retries, "retries", 0, {})
    transcript = conversation(messages, provider, entry)
    steps = _run_steps(
        toolbox, provider, transcript, model, max_turns, output_type, retries, request, ledger,
        planner,
    )
    return provider, steps


def run(
    toolbox: Toolbox, client: Any, *, messages: Any, model: Any, max_turns: Any,
    output_type: Any, retries: Any, api: Any, context: Any, registry: Any,
    request: dict[str, Any], planner: Planner, llm_adapter: Any = None,
    details: Any = False,
) -> Any:
    details = check_details("Toolbox.run", details)
    ledger = Ledger()
    provider, steps = _prepare(
        "Toolbox.run", toolbox, client, messages, model, max_turns, output_type, retries,
        api, request, want_async=False, registry=registry, ledger=ledger,
        llm_adapter=llm_adapter, planner=planner,
    )
    output = drive(steps, provider, toolbox, context)
    return _details(ledger, output) if details else output


async def arun(
    toolbox: Toolbox, client: Any, *, messages: Any, model: Any, max_turns: Any,
    output_type: Any, retries: Any, api: Any, context: Any, registry: Any,
    request: dict[str, Any], planner: Planner, llm_adapter: Any = None,
    details: Any = False,
) -> Any:
    details = check_details("Toolbox.arun", details)
    ledger = Ledger()
    provider, steps = _prepare(
        "Toolbox.arun", toolbox, client, messages, model, max_turns, output_type, retries,
        api, request, want_async=True, registry=registry, ledger=ledger,
        llm_adapter=llm_adapter, planner=planner,
    )
    output = await adrive(steps, provider, toolbox, context)
    return _details(ledger, output) if details else output


def _details(ledger: Ledger, output: Any) -> ToolRun[Any]:
    return ToolRun(
        output, ledger.usage, tuple(ledger.turns), tuple(ledger.messages), ledger.seconds(),
        ledger.plan,
    )

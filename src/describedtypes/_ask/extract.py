"""``extract()``: one structured-output request, decoded, with the error sent back on a miss.

The conversation logic is written once, as a generator that yields what to do next
(send a request, run tool calls) and receives the outcome; a sync and an async driver
do the I/O. ``_loop`` (the tool loop) shares the drivers and the retry rule.
"""

from __future__ import annotations

import inspect as _pyinspect
import logging
import time
from collections.abc import Generator, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Literal, TypeVar, overload

import attrs
import orjson

from .._base.aio import run_coroutine
from .._base.records import ToolCall, ToolResult
from .._base.tracing import NO_SPAN, capture_content, request_span
from .._base.usage import Usage
from .._types.annotate import Registry, annotate
from .._vendors.budgets import budget_error
from .._vendors.clients import Provider, provider_for, retry_text
from ..errors import DecodeError, DescribedTypesError, IncompleteReplyError, RefusalError
from .results import Attempt, Extraction

if TYPE_CHECKING:
    from .._tools.toolbox import Toolbox

__all__ = ["aextract", "extract"]

T = TypeVar("T")

log = logging.getLogger("describedtypes")


@attrs.frozen
class Send:
    """A step: send a request with these keywords; the response comes back."""

    kwargs: dict[str, Any]


@attrs.frozen
class RunTools:
    """A step: run these tool calls; the results come back, in order."""

    calls: list[ToolCall]


Steps = Generator["Send | RunTools", Any, Any]


class Ledger:
    """Strictly private: what one ``extract``/``run`` call has cost so far, kept by its
    steps (they are resumed right after each request returns, so the time between a
    ``Send`` and its response is the request's)."""

    def __init__(self) -> None:
        self.started = time.perf_counter()
        self.usage = Usage()
        self.attempts: list[Attempt[Any]] = []
        self.turns: list[Any] = []
        self.messages: list[Any] = []
        #: The request plan of a tool run (a ``RequestPlan``), once made.
        self.plan: Any = None

    def charge(self, provider: Provider, response: Any) -> Usage:
        """Add the usage of ``response`` (read from the provider's own fields)."""
        try:
            usage = provider.usage(response)
        except DescribedTypesError:  # a usage object of an unknown shape costs no tokens
            usage = Usage(requests=1)
        self.usage = self.usage + usage
        return usage

    def seconds(self) -> float:
        return time.perf_counter() - self.started


def check_details(entry: str, details: Any) -> bool:
    if not isinstance(details, bool):
        msg = f"{entry}(details=...) must be True or False, got {details!r}"
        raise TypeError(msg)
    return details

#: Keywords a caller may not pass through **request: the library sets them itself.
_OWN_KEYWORDS = {
    "response_format": "extract() sets response_format from the type",
}


# -- checking the arguments -------------------------------------------------------------


def conversation(messages: Any, provider: Provider, entry: str) -> list[Any]:
    """A new list holding the caller's messages (a str is one user message)."""
    if isinstance(messages, str):
        return [provider.user_message(messages)]
    if isinstance(messages, (bytes, Mapping)) or not isinstance(messages, Iterable):
        msg = (
            f"{entry}(messages=...) takes a list of messages (or one str, the user's "
            f"question), got {type(messages).__name__}"
        )
        raise TypeError(msg)
    listed = list(messages)
    if not listed:
        msg = f"{entry}(messages=[]) has nothing to ask; pass at least one user message"
        raise ValueError(msg)
    for i, message in enumerate(listed):
        if message is None or isinstance(message, (str, bytes, int, float, list, tuple)):
            example = provider.user_message("...")
            msg = (
                f"{entry}(): messages[{i}] is a {type(message).__name__}; each message is a "
                f"dict in the {provider.name} shape, such as {example!r}"
            )
            raise TypeError(msg)
    return listed


def check_call(
    entry: str, provider: Provider, model: Any, count: Any, count_name: str, minimum: int,
    request: dict[str, Any],
) -> None:
    if not isinstance(model, str) or not model:
        msg = f"{entry}(model=...) must be the model's name as a non-empty str, got {model!r}"
        raise TypeError(msg)
    if isinstance(count, bool) or not isinstance(count, int):
        msg = f"{entry}({count_name}=...) must be an int, got {type(count).__name__}"
        raise TypeError(msg)
    if count < minimum:
        msg = f"{entry}({count_name}={count}) must be at least {minimum}"
        raise ValueError(msg)
    if provider.messages_key in request:
        msg = (
            f"{entry}() got {provider.messages_key}=; pass the conversation as messages=, "
            f"it is sent as {provider.messages_key}"
        )
        raise TypeError(msg)
    provider.for_model(model)


# -- the retry rule ---------------------------------------------------------------------


def _shown_path(path: str) -> str:
    # A path holds key names the model chose: cut long ones, escape control characters
    # so one log record stays one line.
    if len(path) > 80:
        path = path[:77] + "..."
    return path if path.isprintable() else repr(path)


def count(err: DecodeError) -> str:
    # For INFO and WARNING: a count only; the paths hold keys the model chose.
    n = len(err.errors)
    return f"{n}{' or more' if err.truncated else ''} problem{'s' * (n != 1)}"


def where(err: DecodeError) -> str:
    # For DEBUG, the only level model text reaches.
    paths = list(dict.fromkeys(_shown_path(str(path)) for path, _ in err.errors))
    shown = ", ".join(paths[:5]) + (f" and {len(paths) - 5} more" if len(paths) > 5 else "")
    return f"{count(err)} at {shown}"


def type_name(tp: Any) -> str:
    return getattr(tp, "__qualname__", None) or repr(tp)


def decode_or_retry(
    tp: Any,
    provider: Provider,
    response: Any,
    attempts: list[tuple[object, DecodeError]],
    retries: int,
    ledger: Ledger | None = None,
    usage: Usage | None = None,
    seconds: float = 0.0,
) -> tuple[bool, Any]:
    """Decode ``response``: ``(True, value)``, or ``(False, messages to append)`` for a
    retry; raises when there is nothing left to try (with every attempt attached, and
    the usage so far)."""
    ledger = ledger if ledger is not None else Ledger()
    usage = usage if usage is not None else Usage(requests=1)
    try:
        value = provider.decode(tp, response)
    except DecodeError as err:
        ledger.attempts.append(Attempt(response, err, usage, seconds))
        err.usage = ledger.usage
        return _failed(tp, provider, response, attempts, retries, err)
    ledger.attempts.append(Attempt(response, value, usage, seconds))
    return True, value


def _failed(
    tp: Any, provider: Provider, response: Any, attempts: list[tuple[object, DecodeError]],
    retries: int, err: DecodeError,
) -> tuple[bool, Any]:
    """A reply that did not decode: raise (refused, cut off, or out of retries) or say
    what to send back."""
    attempts.append((response, err))
    err.attempts = list(attempts)
    if isinstance(err, RefusalError):
        log.warning("%s: the model refused to answer; not asking again", provider.name)
        log.debug("%s: refusal text: %s", provider.name, err.refusal)
        raise err
    if isinstance(err, IncompleteReplyError):
        log.warning("%s: the reply was cut off (%s); not asking again", provider.name, err.reason)
        raise err
    if len(attempts) > retries:
        log.warning(
            "%s: giving up after %d replies that did not decode into %s (%s)",
            provider.name, len(attempts), type_name(tp), count(err),
        )
        log.debug("%s: the last reply had %s", provider.name, where(err))
        raise err
    log.info(
        "%s: reply %d did not decode into %s (%s); asking again (retry %d of %d)",
        provider.name, len(attempts), type_name(tp), count(err), len(attempts), retries,
    )
    log.debug("%s: reply %d had %s", provider.name, len(attempts), where(err))
    log.debug("%s: sent back to the model: %s", provider.name, retry_text(err))
    return False, provider.retry_messages(response, err, tp)


def _extract_steps(
    tp: Any, provider: Provider, transcript: list[Any], model: str, retries: int,
    request: dict[str, Any], ledger: Ledger,
) -> Steps:
    extra = provider.structured(tp, request)  # SchemaError here, before any request
    attempts: list[tuple[object, DecodeError]] = []
    while True:
        log.debug(
            "%s: request %d for %s (model %s, messages: %d)",
            provider.name, len(attempts) + 1, type_name(tp), model, len(transcript),
        )
        sent = time.perf_counter()
        response = yield Send(provider.request(model, transcript, extra))
        seconds = time.perf_counter() - sent
        usage = ledger.charge(provider, response)
        done, outcome = decode_or_retry(
            tp, provider, response, attempts, retries, ledger, usage, seconds
        )
        if done:
            ledger.messages = [*transcript, *provider.reply_messages(response)]
            return outcome
        transcript = [*transcript, *outcome]


# -- the drivers ------------------------------------------------------------------------


def span_names(provider: Provider, kwargs: dict[str, Any]) -> tuple[str, str, str]:
    """The operation, provider and model names a request's span carries."""
    wire = provider.wire
    return wire.otel_operation, wire.otel_provider, str(kwargs.get("model", ""))


def describe(span: Any, provider: Provider, kwargs: dict[str, Any], response: Any) -> None:
    """Put what the response says on the request's span (nothing without OpenTelemetry)."""
    if span is NO_SPAN:
        return
    wire = provider.wire
    try:
        span.usage(provider.usage(response))
        reason = wire.finish_reason(response)
        if reason is not None:
            span.set("gen_ai.response.finish_reasons", [reason])
        span.set("gen_ai.response.model", wire.response_model(response))
    except DescribedTypesError:
        return  # a response of an unknown shape: decoding says what is wrong
    if capture_content():  # the user opted in to message contents on spans
        span.set("gen_ai.input.messages", _json(kwargs.get(provider.messages_key)))
        span.set("gen_ai.output.messages", _json(provider.reply_messages(response)))


def _json(value: Any) -> str:
    return orjson.dumps(value, default=repr).decode()


def raise_budget_error(exc: Exception) -> None:
    """Raise the ``RequestError`` naming the budget when ``exc`` is a provider's error over
    a strict-schema budget (the provider's error chained); else return."""
    error = budget_error(exc)
    if error is not None:
        log.warning("the request went over a budget of the provider: %s", error.reason)
        raise error from exc


def drive(
    steps: Steps, provider: Provider, toolbox: Toolbox | None = None, context: Any = None
) -> Any:
    """Run ``steps`` with a sync client."""
    step = next(steps)
    while True:
        if isinstance(step, Send):
            with request_span(*span_names(provider, step.kwargs)) as span:
                try:
                    outcome = provider.create(**step.kwargs)
                except Exception as exc:
                    raise_budget_error(exc)
                    raise
                if _pyinspect.isawaitable(outcome):
                    if _pyinspect.iscoroutine(outcome):
                        outcome.close()
                    msg = f"the {provider.name} client is async; use the a-prefixed function"
                    raise TypeError(msg)
                describe(span, provider, step.kwargs, outcome)
        else:
            assert toolbox is not None
            # No timeout here: each tool has its own (Tool / Toolbox timeout=).
            outcome = run_coroutine(toolbox.acall_many(step.calls, context=context), None)
        try:
            step = steps.send(outcome)
        except StopIteration as stop:
            return stop.value


async def adrive(
    steps: Steps, provider: Provider, toolbox: Toolbox | None = None, context: Any = None
) -> Any:
    """Run ``steps`` with an async client."""
    step = next(steps)
    while True:
        outcome: Any
        if isinstance(step, Send):
            with request_span(*span_names(provider, step.kwargs)) as span:
                try:
                    outcome = await provider.create(**step.kwargs)
                except Exception as exc:
                    raise_budget_error(exc)
                    raise
                describe(span, provider, step.kwargs, outcome)
        else:
            assert toolbox is not None
            results: list[ToolResult] = await toolbox.acall_many(step.calls, context=context)
            outcome = results
        try:
            step = steps.send(outcome)
        except StopIteration as stop:
            return stop.value


# -- the public functions ---------------------------------------------------------------


def _prepare(
    entry: str, tp: Any, client: Any, messages: Any, model: Any, retries: Any, api: Any,
    request: dict[str, Any], *, want_async: bool, registry: Any, ledger: Ledger,
    llm_adapter: Any = None,
) -> tuple[Provider, Steps]:
    provider = provider_for(
        client, api, want_async=want_async, names=("extract", "aextract"), registry=registry
    )
    provider.use(llm_adapter, entry)
    if request.get("stream"):
        msg = (
            f"{entry}() sends one request and decodes the whole reply; for partial values "
            f"while the reply streams, with the same retries, use {entry}_stream()"
        )
        raise TypeError(msg)
    check_call(entry, provider, model, retries, "retries", 0, request)
    for key, why in _OWN_KEYWORDS.items():
        if key in request:
            msg = f"{entry}() got {key}=; {why}"
            raise TypeError(msg)
    transcript = conversation(messages, provider, entry)
    return provider, _extract_steps(tp, provider, transcript, model, retries, request, ledger)


def _details(ledger: Ledger, value: Any) -> Extraction[Any]:
    return Extraction(
        value, ledger.usage, tuple(ledger.attempts), tuple(ledger.messages), ledger.seconds()
    )


@overload
def extract(
    tp: type[T], client: Any, *, messages: Any, model: str, retries: int = 2,
    api: str | None = None, registry: Registry = annotate, llm_adapter: Any = None,
    details: Literal[False] = False,
    **request: Any,
) -> T: ...


@overload
def extract(
    tp: type[T], client: Any, *, messages: Any, model: str, retries: int = 2,
    api: str | None = None, registry: Registry = annotate, llm_adapter: Any = None,
    details: Literal[True],
    **request: Any,
) -> Extraction[T]: ...


@overload
def extract(
    tp: Any, client: Any, *, messages: Any, model: str, retries: int = 2,
    api: str | None = None, registry: Registry = annotate, llm_adapter: Any = None,
    details: bool = False,
    **request: Any,
) -> Any: ...


def extract(
    tp: Any, client: Any, *, messages: Any, model: str, retries: int = 2,
    api: str | None = None, registry: Registry = annotate, llm_adapter: Any = None,
    details: bool = False,
    **request: Any,
) -> Any:
    """Ask the model for an instance of ``tp`` with one structured-output request.

    The request carries ``tp``'s schema in the provider's structured-output shape. If the
    reply does not decode, the reply and a user message holding ``str(error)`` (the
    problems, path by path) are appended to the conversation and the model is asked
    again, at most ``retries`` times.

    - `openai.OpenAI`: `chat.completions.create` with `response_format`; with
      `api="responses"`, `responses.create` with `text.format`.
    - `anthropic.Anthropic`: `messages.create` with `output_config.format`;
      `max_tokens` defaults to 4096.
    - `google.genai.Client`: `models.generate_content` with
      `config.response_json_schema`.
    - `ollama.Client`: `chat` with `format=` (the `OLLAMA` body).
    - `openai.OpenAI(base_url=...)` of vLLM, SGLang, llama.cpp or Ollama, with
      `llm_adapter=VLLM` (etc.): `response_format` with that server's body.

    Args:
        tp: The type to ask for, as for ``schema()`` (an object type: an attrs class, a
            dataclass, a TypedDict, ...).
        client: The caller's own SDK client (sync; see ``aextract`` for async ones).
        messages: The conversation so far, in the provider's message shape, or one str
            (the user's question). It is copied, never changed.
        model: The model name.
        retries: How many times to ask again after a reply that does not decode.
        api: For OpenAI clients: ``"chat"`` (the default) or ``"responses"``.
        registry: Where registered annotations are looked up, for the schema and the
            decoding.
        llm_adapter: For a self-hosted server behind an ``openai.OpenAI(base_url=...)``
            client: ``VLLM``, ``SGLANG``, ``LLAMACPP`` or ``OLLAMA`` (a backend chosen with
            ``.replace(backend=...)`` is kept), so the schema holds only what that
            server's grammar engine enforces; the decoder checks the rest.
        details: Return an ``Extraction`` (the value, the usage summed from the
            provider's own usage fields, every attempt, the conversation ready to continue,
            the time taken) instead of the value alone.
        **request: Passed on to the SDK call unchanged (``temperature``, ``system``,
            ``instructions``, ``max_tokens``, ``config``, ...). ``text`` (Responses),
            ``output_config`` (Anthropic) and ``config`` (Gemini) are merged with the
            structured-output setting.

    Returns:
        The decoded instance of ``tp`` (with ``details=True``, an ``Extraction`` of it).

    Raises:
        DecodeError: No reply decoded after ``retries`` retries; ``.attempts`` holds every
            ``(response, error)`` pair and ``.usage`` what they cost together.
        RefusalError: The model refused (raised at once, no retry).
        IncompleteReplyError: The reply was cut off (raised at once, no retry).
        SchemaError: ``tp`` cannot be described for the provider (before any request).
        TypeError: ``client`` is not a supported client, or an argument has the wrong
            type; the message says what to pass.

    .. versionadded:: 0.2.0
    .. versionchanged:: 0.3.0
       ``details=True``; ``stream=True`` is a ``TypeError`` naming ``extract_stream``.
    """
    check_details("extract", details)
    ledger = Ledger()
    provider, steps = _prepare(
        "extract", tp, client, messages, model, retries, api, request, want_async=False,
        registry=registry, ledger=ledger, llm_adapter=llm_adapter,
    )
    value = drive(steps, provider)
    return _details(ledger, value) if details else value


@overload
async def aextract(
    tp: type[T], client: Any, *, messages: Any, model: str, retries: int = 2,
    api: str | None = None, registry: Registry = annotate, llm_adapter: Any = None,
    details: Literal[False] = False,
    **request: Any,
) -> T: ...


@overload
async def aextract(
    tp: type[T], client: Any, *, messages: Any, model: str, retries: int = 2,
    api: str | None = None, registry: Registry = annotate, llm_adapter: Any = None,
    details: Literal[True],
    **request: Any,
) -> Extraction[T]: ...


@overload
async def aextract(
    tp: Any, client: Any, *, messages: Any, model: str, retries: int = 2,
    api: str | None = None, registry: Registry = annotate, llm_adapter: Any = None,
    details: bool = False,
    **request: Any,
) -> Any: ...


async def aextract(
    tp: Any, client: Any, *, messages: Any, model: str, retries: int = 2,
    api: str | None = None, registry: Registry = annotate, llm_adapter: Any = None,
    details: bool = False,
    **request: Any,
) -> Any:
    """``extract`` for async clients: ``openai.AsyncOpenAI``, ``anthropic.AsyncAnthropic``,
    and ``google.genai.Client`` (its ``.aio``) or ``Client.aio`` itself.

    .. versionadded:: 0.2.0
    """
    check_details("aextract", details)
    ledger = Ledger()
    provider, steps = _prepare(
        "aextract", tp, client, messages, model, retries, api, request, want_async=True,
        registry=registry, ledger=ledger, llm_adapter=llm_adapter,
    )
    value = await adrive(steps, provider)
    return _details(ledger, value) if details else value

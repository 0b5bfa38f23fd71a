"""``extract_stream()``: ``extract()`` while the reply streams — typed partial values as it
arrives, the decoded instance last, and a fresh stream when a reply does not decode."""

from __future__ import annotations

import inspect as _pyinspect
import logging
import time
from collections.abc import AsyncGenerator, AsyncIterator, Generator, Iterator
from typing import Any, Generic, TypeVar, overload

from .._base.tracing import request_span
from .._base.usage import Usage
from .._types.annotate import Registry, annotate
from .._vendors.clients import Provider, provider_for
from .._vendors.stream import StreamDecoder
from ..errors import DecodeError, IncompleteReplyError, RefusalError
from .extract import (
    Ledger,
    check_call,
    conversation,
    count,
    raise_budget_error,
    span_names,
    type_name,
    where,
)
from .results import Attempt, Extraction

__all__ = ["AsyncExtractStream", "ExtractStream", "aextract_stream", "extract_stream"]

T = TypeVar("T")

log = logging.getLogger("describedtypes")


class _Attempts(Generic[T]):
    """Strictly private: the retry rule of a streamed extract, without I/O."""

    def __init__(
        self, entry: str, tp: Any, client: Any, messages: Any, model: Any, retries: Any,
        api: Any, registry: Any, request: dict[str, Any], *, want_async: bool,
        llm_adapter: Any = None,
    ) -> None:
        self.provider: Provider = provider_for(
            client, api, want_async=want_async, names=("extract_stream", "aextract_stream"),
            registry=registry,
        )
        self.provider.use(llm_adapter, entry)
        check_call(entry, self.provider, model, retries, "retries", 0, request)
        for key in ("stream", "response_format"):
            if key in request:
                msg = f"{entry}() got {key}=; it sets {key} itself"
                raise TypeError(msg)
        self.tp = tp
        self.model = model
        self.retries = retries
        self.registry = registry
        self.transcript = conversation(messages, self.provider, entry)
        self.extra = self.provider.structured(tp, request)  # SchemaError before sending
        self.ledger = Ledger()
        self.failures: list[tuple[object, DecodeError]] = []
        self.attempt = 0
        self.details: Extraction[T] | None = None

    def request(self) -> dict[str, Any]:
        self.attempt += 1
        log.debug(
            "%s: streamed request %d for %s (model %s)",
            self.provider.name, self.attempt, type_name(self.tp), self.model,
        )
        kwargs = self.provider.request(self.model, self.transcript, self.extra)
        return self.provider.streaming(kwargs)

    def decoder(self) -> StreamDecoder:
        return StreamDecoder(self.tp, None, self.registry)

    def finished(self, stream: Any, decoder: StreamDecoder, seconds: float) -> tuple[bool, Any]:
        """The end of one stream: ``(True, value)``, or ``(False, None)`` after setting up
        the retry; raises when nothing is left to try."""
        usage = decoder.usage or Usage(requests=1)
        self.ledger.usage = self.ledger.usage + usage
        try:
            value = decoder.finish()
        except DecodeError as err:
            self.ledger.attempts.append(Attempt(stream, err, usage, seconds))
            self.failures.append((stream, err))
            err.attempts = list(self.failures)
            err.usage = self.ledger.usage
            if isinstance(err, (RefusalError, IncompleteReplyError)):
                raise
            if len(self.failures) > self.retries:
                log.warning(
                    "%s: giving up after %d streamed replies that did not decode into %s (%s)",
                    self.provider.name, len(self.failures), type_name(self.tp), count(err),
                )
                log.debug("%s: the last reply had %s", self.provider.name, where(err))
                raise
            log.info(
                "%s: streamed reply %d did not decode into %s (%s); asking again",
                self.provider.name, len(self.failures), type_name(self.tp), count(err),
            )
            log.debug("%s: reply %d had %s", self.provider.name, len(self.failures), where(err))
            self.transcript = [
                *self.transcript,
                *self.provider.stream_retry_messages(decoder, err, self.tp),
            ]
            return False, None
        self.ledger.attempts.append(Attempt(stream, value, usage, seconds))
        self.ledger.messages = [*self.transcript, *self.provider.stream_messages(decoder)]
        ledger = self.ledger
        self.details = Extraction(
            value, ledger.usage, tuple(ledger.attempts), tuple(ledger.messages),
            ledger.seconds(),
        )
        return True, value


class _Progress(Generic[T]):
    """Strictly private: what both stream iterators say about the attempts so far."""

    _attempts: _Attempts[T]

    @property
    def attempt(self) -> int:
        return self._attempts.attempt

    @property
    def usage(self) -> Usage:
        return self._attempts.ledger.usage

    @property
    def details(self) -> Extraction[T] | None:
        return self._attempts.details


class ExtractStream(_Progress[T], Iterator[Any]):
    """What ``extract_stream()`` returns: iterate it for ``Partial[T]`` values and the
    decoded ``T`` last.

    Attributes:
        attempt: The stream being read: 1 for the first request, one more for each retry
            (partials start over with each).
        usage: What the requests so far cost (updated when a stream ends).
        details: The ``Extraction`` once the value is decoded, else None.

    .. versionadded:: 0.3.0
    """

    def __init__(self, attempts: _Attempts[T]) -> None:
        self._attempts = attempts
        self._stream: Any = None
        self._gen = self._run()

    def __iter__(self) -> ExtractStream[T]:
        return self

    def __next__(self) -> Any:
        return next(self._gen)

    def close(self) -> None:
        """Stop, closing the SDK stream being read (its connection is released)."""
        self._gen.close()

    def _run(self) -> Generator[Any, None, None]:
        attempts = self._attempts
        provider = attempts.provider
        while True:
            kwargs = attempts.request()
            started = time.perf_counter()
            with request_span(*span_names(provider, kwargs), current=False) as span:
                try:
                    stream = provider.wire.stream_events(provider.stream_create(**kwargs))
                except Exception as exc:
                    raise_budget_error(exc)
                    raise
                if _pyinspect.isawaitable(stream):
                    if _pyinspect.iscoroutine(stream):
                        stream.close()
                    msg = f"the {provider.name} client is async; use aextract_stream()"
                    raise TypeError(msg)
                decoder = attempts.decoder()
                done = False
                try:
                    for event in stream:
                        partial = decoder.feed(event)
                        if partial is not None:
                            yield partial
                    done = True
                finally:
                    if not done:
                        _close(stream)
                span.usage(decoder.usage or Usage(requests=1))
            ok, value = attempts.finished(stream, decoder, time.perf_counter() - started)
            if ok:
                yield value
                return


class AsyncExtractStream(_Progress[T], AsyncIterator[Any]):
    """What ``aextract_stream()`` returns: ``async for`` it; attributes as
    ``ExtractStream``'s.

    .. versionadded:: 0.3.0
    """

    def __init__(self, attempts: _Attempts[T]) -> None:
        self._attempts = attempts
        self._gen = self._run()

    def __aiter__(self) -> AsyncExtractStream[T]:
        return self

    async def __anext__(self) -> Any:
        return await self._gen.__anext__()

    async def aclose(self) -> None:
        """Stop, closing the SDK stream being read."""
        await self._gen.aclose()

    async def _run(self) -> AsyncGenerator[Any, None]:
        attempts = self._attempts
        provider = attempts.provider
        while True:
            kwargs = attempts.request()
            started = time.perf_counter()
            with request_span(*span_names(provider, kwargs), current=False) as span:
                try:
                    stream = provider.wire.stream_events(await provider.stream_create(**kwargs))
                except Exception as exc:
                    raise_budget_error(exc)
                    raise
                decoder = attempts.decoder()
                done = False
                try:
                    async for event in stream:
                        partial = decoder.feed(event)
                        if partial is not None:
                            yield partial
                    done = True
                finally:
                    if not done:
                        close = getattr(stream, "aclose", None) or getattr(stream, "close", None)
                        if callable(close):
                            closed = close()
                            if _pyinspect.isawaitable(closed):
                                await closed
                span.usage(decoder.usage or Usage(requests=1))
            ok, value = attempts.finished(stream, decoder, time.perf_counter() - started)
            if ok:
                yield value
                return


def _close(stream: Any) -> None:
    close = getattr(stream, "close", None)
    if callable(close):
        close()


@overload
def extract_stream(
    tp: type[T], client: Any, *, messages: Any, model: str, retries: int = 2,
    api: str | None = None, registry: Registry = annotate, llm_adapter: Any = None,
    **request: Any,
) -> ExtractStream[T]: ...
@overload
def extract_stream(
    tp: Any, client: Any, *, messages: Any, model: str, retries: int = 2,
    api: str | None = None, registry: Registry = annotate, llm_adapter: Any = None,
    **request: Any,
) -> ExtractStream[Any]: ...
def extract_stream(
    tp: Any, client: Any, *, messages: Any, model: str, retries: int = 2,
    api: str | None = None, registry: Registry = annotate, llm_adapter: Any = None,
    **request: Any,
) -> ExtractStream[Any]:
    """``extract()`` while the reply streams: ``Partial[tp]`` values as it arrives, the
    decoded instance last.

    The request is ``extract()``'s, streamed (OpenAI Chat also asks for the usage chunk:
    ``stream_options={"include_usage": True}``; Gemini uses
    ``models.generate_content_stream``). When a stream's whole reply does not decode, the
    reply and its problems go back to the model and a new stream starts, at most
    ``retries`` times: ``.attempt`` says which stream is being read, and partials start
    over with it. Refusals and cut-off replies raise at once, as in ``extract()``.

    Args:
        tp: The type to ask for.
        client: The caller's own sync SDK client (see ``aextract_stream`` for async ones).
        messages: The conversation so far, or one str.
        model: The model name.
        retries: How many new streams to start after replies that do not decode.
        api: For OpenAI clients: ``"chat"`` (the default) or ``"responses"``.
        registry: Where registered annotations are looked up.
        llm_adapter: A self-hosted server's adapter (``VLLM``, ...), as for ``extract()``.
        **request: Passed on to the SDK call (``stream`` is set here).

    Returns:
        An ``ExtractStream``: iterate it; after the last value, ``.details`` is the
        ``Extraction`` (usage, attempts, messages).

    Raises:
        DecodeError: After the last retry (raised while iterating), with ``.attempts`` and
            ``.usage``.
        RefusalError: The model refused.
        IncompleteReplyError: The reply was cut off.
        TypeError: The client or an argument has the wrong type.

    .. versionadded:: 0.3.0
    """
    return ExtractStream(_Attempts(
        "extract_stream", tp, client, messages, model, retries, api, registry, request,
        want_async=False, llm_adapter=llm_adapter,
    ))


def aextract_stream(
    tp: Any, client: Any, *, messages: Any, model: str, retries: int = 2,
    api: str | None = None, registry: Registry = annotate, llm_adapter: Any = None,
    **request: Any,
) -> AsyncExtractStream[Any]:
    """``extract_stream()`` for async clients (``async for value in aextract_stream(...)``).

    .. versionadded:: 0.3.0
    """
    return AsyncExtractStream(_Attempts(
        "aextract_stream", tp, client, messages, model, retries, api, registry, request,
        want_async=True, llm_adapter=llm_adapter,
    ))


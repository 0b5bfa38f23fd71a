"""``write_batch()``: a batch request file for the OpenAI Batch API or Anthropic Message Batches.

Each line is one request, built by the same code ``extract()`` sends a request with (the
provider classes of ``_vendors/clients.py``), so a batch asks exactly what ``extract()``
would ask one at a time. The results file the provider returns is read by
``decode_batch`` (or ``describedtypes decode``); ``describedtypes batch retry`` writes the
requests whose results failed, byte for byte, for a second round.

Provider facts, from their own documentation:

- OpenAI Batch (https://platform.openai.com/docs/api-reference/batch/request-input): a
  JSONL file of ``{"custom_id", "method": "POST", "url", "body"}`` lines, ``custom_id``
  unique in the file; one endpoint per file; at most 50,000 requests and 200 MB
  (https://platform.openai.com/docs/guides/batch).
- Anthropic Message Batches
  (https://docs.anthropic.com/en/api/creating-message-batches): ``requests``, a list of
  ``{"custom_id", "params"}``, ``custom_id`` unique and matching ``^[a-zA-Z0-9_-]{1,64}$``,
  ``params`` a Messages request (``max_tokens`` required); at most 100,000 requests or
  256 MB per batch.
"""

from __future__ import annotations

import html
import os
import re
from collections.abc import Iterable, Sequence
from typing import Any, Literal

import attrs
import orjson

from .._ask.extract import conversation
from .._base.files import replaced
from .._schema import adapters as _adapters
from .._types.annotate import Registry, annotate
from .._vendors.clients import ANTHROPIC_MAX_TOKENS, Anthropic, OpenAIChat, OpenAIResponses

__all__ = ["BatchRequests", "write_batch"]

#: Anthropic's custom_id rule (and a safe one for OpenAI too).
_ANTHROPIC_ID = re.compile(r"[a-zA-Z0-9_-]{1,64}")

#: (requests, bytes) per file or batch, by provider.
_LIMITS = {"openai": (50_000, 200 * 1024 * 1024), "anthropic": (100_000, 256 * 1024 * 1024)}

_URLS = {"chat": "/v1/chat/completions", "responses": "/v1/responses"}


@attrs.frozen
class BatchRequests:
    """What ``write_batch`` wrote: where, for which provider and endpoint, and the ids.

    Attributes:
        path: The request file.
        provider: ``"openai"`` or ``"anthropic"``.
        endpoint: The URL the requests go to (``/v1/chat/completions``, ``/v1/responses``
            or ``/v1/messages``); OpenAI's ``batches.create(endpoint=...)`` takes it.
        custom_ids: The ``custom_id`` of each line, in order.

    .. versionadded:: 0.3.0
    """

    path: str
    provider: str
    endpoint: str
    custom_ids: tuple[str, ...] = attrs.field(repr=lambda ids: f"<{len(ids):,} ids>")

    @property
    def count(self) -> int:
        """The number of requests (lines)."""
        return len(self.custom_ids)

    def _repr_html_(self) -> str:
        shown = ", ".join(self.custom_ids[:3]) + (", …" if self.count > 3 else "")
        cells = [self.path, self.provider, self.endpoint, f"{self.count:,}", shown]
        row = "".join(f"<td>{html.escape(c, quote=True)}</td>" for c in cells)
        return (
            "<table><thead><tr><th>path</th><th>provider</th><th>endpoint</th>"
            f"<th>requests</th><th>custom_ids</th></tr></thead><tbody><tr>{row}</tr>"
            "</tbody></table>"
        )


def _provider(adapter: Any, api: str, registry: Registry) -> tuple[Any, str, str]:
    """The provider class that builds the bodies, its name and endpoint."""
    if adapter == _adapters.OPENAI:
        if api not in _URLS:
            msg = f"write_batch(api={api!r}): the OpenAI Batch API takes 'chat' or 'responses'"
            raise ValueError(msg)
        cls = OpenAIChat if api == "chat" else OpenAIResponses
        return cls(None, is_async=False, registry=registry), "openai", _URLS[api]
    if adapter == _adapters.ANTHROPIC:
        if api != "chat":
            msg = (
                f"write_batch(api={api!r}) is for OpenAI; Anthropic's requests are Messages "
                "requests: leave api= out"
            )
            raise ValueError(msg)
        return Anthropic(None, is_async=False, registry=registry), "anthropic", "/v1/messages"
    name = getattr(adapter, "name", repr(adapter))
    msg = (
        f"write_batch(llm_adapter={name}): batch request files are written for OPENAI "
        "(the OpenAI Batch API) or ANTHROPIC (Anthropic Message Batches)"
    )
    raise ValueError(msg)


def _numbered(
    requests: Iterable[Any], provider: str
) -> list[tuple[str, Any]]:
    """``(custom_id, messages)`` for each request: the given ids checked, or ``request-N``."""
    listed = list(requests)
    if not listed:
        msg = "write_batch(requests=[]) has nothing to write; pass at least one request"
        raise ValueError(msg)
    pairs = [isinstance(r, tuple) for r in listed]
    if any(pairs) and not all(pairs):
        first = pairs.index(not pairs[0])
        kinds = ("a conversation", "a (custom_id, messages) tuple")
        msg = (
            f"write_batch(): requests[{first}] is {kinds[pairs[first]]} but requests[0] is "
            f"{kinds[pairs[0]]}; pass all conversations (ids are made for them) or all "
            "(custom_id, messages) tuples"
        )
        raise TypeError(msg)
    if not pairs[0]:
        return [(f"request-{i}", messages) for i, messages in enumerate(listed, 1)]
    seen: dict[str, int] = {}
    out = []
    for i, pair in enumerate(listed):
        if len(pair) != 2:
            msg = (
                f"write_batch(): requests[{i}] is a tuple of {len(pair)}; a pair is "
                "(custom_id, messages)"
            )
            raise TypeError(msg)
        custom_id, messages = pair
        if not isinstance(custom_id, str) or not custom_id:
            msg = (
                f"write_batch(): requests[{i}] has custom_id {custom_id!r}; it must be a "
                "non-empty str"
            )
            raise ValueError(msg)
        if provider == "anthropic" and not _ANTHROPIC_ID.fullmatch(custom_id):
            msg = (
                f"write_batch(): requests[{i}] has custom_id {custom_id!r}, which Anthropic "
                "refuses: 1 to 64 letters, digits, '_' or '-'"
            )
            raise ValueError(msg)
        if custom_id in seen:
            msg = (
                f"write_batch(): requests[{i}] has custom_id {custom_id!r}, already used by "
                f"requests[{seen[custom_id]}]; each request of a batch needs its own"
            )
            raise ValueError(msg)
        seen[custom_id] = i
        out.append((custom_id, messages))
    return out


def write_batch(
    tp: Any,
    requests: Sequence[Any],
    path: str | os.PathLike[str],
    *,
    llm_adapter: _adapters.Adapter = _adapters.OPENAI,
    model: str,
    api: Literal["chat", "responses"] = "chat",
    max_tokens: int | None = None,
    registry: Registry = annotate,
    **params: Any,
) -> BatchRequests:
    """Write a batch request file that asks a model for a ``tp`` once per request.

    For ``llm_adapter=OPENAI`` the file is the OpenAI Batch API's input: one
    ``{"custom_id", "method": "POST", "url", "body"}`` line per request, ``body`` a Chat
    Completions request (``api="chat"``, the default) or a Responses request
    (``api="responses"``) with ``tp``'s strict schema, as ``extract()`` sends it. For
    ``llm_adapter=ANTHROPIC`` each line is one ``{"custom_id", "params"}`` request of
    Anthropic Message Batches, ``params`` a Messages request with ``output_config``.
    The file is written whole or not at all (a temporary file, renamed).

    The results the provider returns are read by ``decode_batch(tp, results_file)``
    (or ``describedtypes decode``); ``describedtypes batch retry REQUESTS RESULTS --out
    NEW`` writes the lines of the requests that failed, byte for byte, for a second
    round.

    Args:
        tp: The type each answer must be (an attrs class, a dataclass, ``list[T]``...).
        requests: One entry per request: each a conversation (a ``str`` is one user
            message; or a list of message dicts in the provider's shape, as
            ``extract(messages=...)`` takes), given ids ``request-1``, ``request-2``, ...;
            or all ``(custom_id, messages)`` tuples, whose ids must be unique non-empty
            strings (for Anthropic: 1 to 64 letters, digits, ``_`` or ``-``).
        path: The file to write (replaced if it is a regular file; a symlink, FIFO,
            device or directory there is refused).
        llm_adapter: ``OPENAI`` or ``ANTHROPIC``: whose batch API the file is for.
        model: The model's name, sent with every request.
        api: For OpenAI, ``"chat"`` (Chat Completions) or ``"responses"``.
        max_tokens: The most tokens an answer may have. Anthropic requires it: the
            default is 4,096, the largest value every current Claude model accepts (the
            one ``extract()`` sends too). For OpenAI it is sent only when given (as
            ``max_completion_tokens`` for Chat Completions, ``max_output_tokens`` for
            Responses).
        registry: Where registered annotations are looked up.
        **params: Further request parameters, sent with every request
            (``temperature=0``, Anthropic's ``system=``...).

    Returns:
        Where the file is, for which provider and endpoint, and the ``custom_id`` of
        each line.

    Raises:
        ValueError: ``path`` is a symlink, FIFO, device or directory; an adapter other
            than OPENAI or ANTHROPIC; no requests; a custom id
            that is empty, repeated, or refused by Anthropic (naming the request); more
            requests or bytes than the provider takes in one batch (nothing is written).
        TypeError: A request that is not a conversation; pairs mixed with conversations.
        SchemaError: ``tp`` cannot be described for the provider.

    .. versionadded:: 0.3.0
    """
    if not isinstance(model, str) or not model:
        msg = f"write_batch(model=...) must be the model's name as a non-empty str, got {model!r}"
        raise TypeError(msg)
    provider, name, endpoint = _provider(llm_adapter, api, registry)
    if max_tokens is not None and (
        isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1
    ):
        msg = f"write_batch(max_tokens={max_tokens!r}) must be a positive int"
        raise ValueError(msg)
    extra = dict(params)
    if name == "anthropic":
        extra["max_tokens"] = ANTHROPIC_MAX_TOKENS if max_tokens is None else max_tokens
    elif max_tokens is not None:
        extra["max_completion_tokens" if api == "chat" else "max_output_tokens"] = max_tokens
    numbered = _numbered(requests, name)
    most, most_bytes = _LIMITS[name]
    if len(numbered) > most:
        what = "OpenAI's limit per batch file" if name == "openai" else "Anthropic's per batch"
        msg = (
            f"{len(numbered):,} requests: {most:,} is {what}; write requests[{most}:] to a "
            "second file"
        )
        raise ValueError(msg)
    shared = provider.structured(tp, extra)  # the schema, built once for every line
    target = os.fspath(path)
    written = 0
    with replaced(target, ".write_batch.jsonl") as (fd, _), os.fdopen(fd, "wb") as out:
        for i, (custom_id, messages) in enumerate(numbered):
            try:
                transcript = conversation(messages, provider, "write_batch")
            except (TypeError, ValueError) as exc:
                raise type(exc)(f"requests[{i}]: {exc}") from None
            body = provider.request(model, transcript, shared)
            line: dict[str, Any] = (
                {"custom_id": custom_id, "method": "POST", "url": endpoint, "body": body}
                if name == "openai"
                else {"custom_id": custom_id, "params": body}
            )
            data = orjson.dumps(line, option=orjson.OPT_APPEND_NEWLINE)
            written += len(data)
            if written > most_bytes:
                msg = (
                    f"requests[{i}] takes the file past {most_bytes // (1024 * 1024)} MB, "
                    f"the provider's limit per batch; write requests[{i}:] to a second file"
                )
                raise ValueError(msg)
            out.write(data)
    return BatchRequests(target, name, endpoint, tuple(cid for cid, _ in numbered))

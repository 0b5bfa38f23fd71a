"""``count_tokens(..., client=, model=)``: what a schema or a tool list adds to a request, as
the provider itself counts it.

The provider's count endpoint is asked twice for a minimal request (one user message,
``"x"``): with the schema or the tools, and without; the difference is what they add,
rendered as the provider renders them (tool definitions become prompt text of its own).

=====================  =============================================  ===============
client                 endpoint                                       count read
=====================  =============================================  ===============
OpenAI                 ``responses.input_tokens.count``               ``input_tokens``
Anthropic              ``messages.count_tokens``                      ``input_tokens``
Google Gen AI          ``models.count_tokens``                        ``total_tokens``
=====================  =============================================  ===============
"""

from __future__ import annotations

import inspect as _pyinspect
from typing import Any, Literal

from .._schema import adapters as _adapters
from .._schema import tokens as _tokens
from .._schema.schema import references, schema
from .._types.annotate import Registry, annotate
from .._vendors.access import field_of

__all__ = ["count_tokens"]

#: The minimal request's one user message.
PROBE = "x"


def count_tokens(
    obj: Any,
    llm_adapter: _adapters.Adapter,
    *,
    encoding: Literal["o200k_base", "cl100k_base"] = "o200k_base",
    use_references: bool | Literal["auto"] = False,
    registry: Registry = annotate,
    client: Any = None,
    model: str | None = None,
) -> int:
    """The number of tokens ``obj``'s schema (or a ``Toolbox``'s tools) adds to a request.

    Without ``client``: counted offline, of the compact JSON text (``separators=(",",
    ":")``) of what ``schema(obj, llm_adapter)`` returns, or, for a ``Toolbox``, of its
    ``definitions(llm_adapter)`` list, with the ``bpe-openai`` tokenizer (``pip install
    'describedtypes[tokens]'``), which bundles OpenAI's encodings; for other providers
    the count is an estimate, and providers turn tools and formats into prompt text of
    their own.

    With ``client`` (a sync ``openai.OpenAI``, ``anthropic.Anthropic`` or a Vertex AI
    ``google.genai.Client``: the SDK counts tools and response schemas only there) and
    ``model``: the provider's own count endpoint (OpenAI's
    Responses input-token count, Anthropic's ``messages.count_tokens``, Gemini's
    ``count_tokens``) is asked for a minimal request with and without the schema or the
    tools, and the difference returned: what they really add, as the provider renders
    them. A tool (a function, a tool adapter such as ``OPENAI_TOOLS``) or a ``Toolbox``
    goes as ``tools``; a type with a structured-output adapter (``OPENAI``,
    ``ANTHROPIC``, ``GEMINI``) goes as the response format.

    Args:
        obj: A type or function, as passed to ``schema()``, or a ``Toolbox``.
        llm_adapter: The adapter the schema is built for (``OPENAI``, ``OPENAI_TOOLS``,
            ``ANTHROPIC_TOOLS``, ...).
        encoding: Offline only: ``"o200k_base"`` (GPT-4o and later) or
            ``"cl100k_base"`` (GPT-4).
        use_references: As for ``schema()``; for a ``Toolbox``, as for its
            ``definitions(llm_adapter, use_references=...)``.
        registry: As for ``schema()``.
        client: The provider's SDK client, to count with its count endpoint.
        model: The model to count for (required with ``client``).

    Returns:
        The number of tokens.

    Raises:
        ModuleNotFoundError: Offline, ``bpe-openai`` is not installed; the message names
            the extra.
        ValueError: ``encoding`` is not one of the encodings above; a Gemini Developer API
            client (google-genai counts tools and schemas only on Vertex AI).
        TypeError: ``use_references`` is not ``True``, ``False`` or ``"auto"``; ``client``
            is not one of the clients above (or is async); ``model`` is missing with
            ``client``, or given without it.
        SchemaError: as ``schema()`` (or ``Toolbox.definitions()``).

    .. versionadded:: 0.3.0
    .. versionchanged:: 0.4.0 ``client`` and ``model``.
    """
    if client is None:
        if model is not None:
            msg = "count_tokens(model=...) is for counting with client=...; pass the client too"
            raise TypeError(msg)
        return _tokens.count_tokens(
            obj, llm_adapter, encoding=encoding, use_references=use_references,
            registry=registry,
        )
    if not isinstance(model, str) or not model:
        msg = f"count_tokens(client=...) needs model= (the model to count for), got {model!r}"
        raise TypeError(msg)
    refs = references(use_references)
    _adapters.check_adapter(llm_adapter)
    definitions = None if isinstance(obj, type) else getattr(obj, "definitions", None)
    if callable(definitions):
        tools: list[Any] | None = definitions(llm_adapter, use_references=refs)
        body = None
    else:
        built = schema(obj, llm_adapter, use_references=refs, registry=registry)
        is_tool = _is_tool(built, obj)
        tools, body = ([built], None) if is_tool else (None, built)
    with_it, without = _requests(client, model, tools, body)
    return _count(client, with_it) - _count(client, without)


def _is_tool(built: Any, obj: Any) -> bool:
    """Whether ``schema()``'s output is a tool definition rather than a response format."""
    if not isinstance(built, dict):
        return False
    if built.get("type") == "function" or "input_schema" in built or "inputSchema" in built:
        return True
    if "parameters_json_schema" in built:  # Gemini: one shape for both
        return not isinstance(obj, type) and callable(obj)
    return False


def _kind(client: Any) -> str:
    responses = getattr(client, "responses", None)
    if getattr(getattr(responses, "input_tokens", None), "count", None) is not None:
        return "openai"
    if getattr(getattr(client, "messages", None), "count_tokens", None) is not None:
        return "anthropic"
    if getattr(getattr(client, "models", None), "count_tokens", None) is not None:
        return "gemini"
    msg = (
        f"count_tokens(client=...) takes an openai.OpenAI, anthropic.Anthropic or "
        f"google.genai.Client, got {type(client).__name__}"
    )
    raise TypeError(msg)


def _requests(
    client: Any, model: str, tools: list[Any] | None, body: Any
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The count request's keywords with ``tools``/``body``, and without."""
    kind = _kind(client)
    if kind == "openai":
        base: dict[str, Any] = {"model": model, "input": PROBE}
        if tools is not None:
            return {**base, "tools": tools}, base
        return {**base, "text": {"format": {"type": "json_schema", **body}}}, base
    if kind == "anthropic":
        base = {"model": model, "messages": [{"role": "user", "content": PROBE}]}
        if tools is not None:
            return {**base, "tools": tools}, base
        return {**base, "output_config": {"format": body}}, base
    base = {"model": model, "contents": PROBE}
    if tools is not None:
        return {**base, "config": {"tools": [{"function_declarations": tools}]}}, base
    schema_body = body.get("parameters_json_schema", body) if isinstance(body, dict) else body
    config = {"generation_config": {"response_mime_type": "application/json",
                                    "response_json_schema": schema_body}}
    return {**base, "config": config}, base


def _count(client: Any, kwargs: dict[str, Any]) -> int:
    kind = _kind(client)
    if kind == "openai":
        method = client.responses.input_tokens.count
        field = "input_tokens"
    elif kind == "anthropic":
        method = client.messages.count_tokens
        field = "input_tokens"
    else:
        method = client.models.count_tokens
        field = "total_tokens"
    try:
        answer = method(**kwargs)
    except ValueError as exc:
        if kind != "gemini" or ("tools" not in kwargs.get("config", {})
                                and "generation_config" not in kwargs.get("config", {})):
            raise
        # google-genai counts tools and a response schema only on Vertex AI.
        msg = (
            "google-genai's count_tokens takes tools and a response schema only with a "
            "Vertex AI client (genai.Client(vertexai=True, ...)); with a Gemini Developer "
            f"API client, count offline (count_tokens without client=). The SDK said: {exc}"
        )
        raise ValueError(msg) from exc
    if _pyinspect.isawaitable(answer):
        if _pyinspect.iscoroutine(answer):
            answer.close()
        msg = "count_tokens(client=...) takes a sync client (OpenAI, Anthropic, genai Client)"
        raise TypeError(msg)
    value = field_of(answer, field)
    if isinstance(value, bool) or not isinstance(value, int):
        msg = f"the count endpoint answered without an integer {field}: {answer!r:.200}"
        raise TypeError(msg)
    return value

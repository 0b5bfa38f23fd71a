"""The one detector: which wire format a reply, a stream event or a client speaks.

Every reader of the library (``decode_response``, ``read_tool_calls``, ``decode_stream``,
``decode_batch``, ``extract``, ``Toolbox.run``) asks here, so a new format is its module
and one line below.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from . import anthropic, bedrock, gemini, ollama, openai_chat, openai_responses
from .access import field_of
from .wire import WireFormat

__all__ = ["FORMATS", "client_format", "event_format", "reply_format"]

#: Every format, in the order replies are tried (the first that owns one reads it).
FORMATS: tuple[WireFormat, ...] = (
    openai_chat.FORMAT,
    bedrock.FORMAT,  # before Responses, whose replies also have an 'output'
    openai_responses.FORMAT,
    anthropic.FORMAT,
    gemini.FORMAT,
    ollama.FORMAT,
)


def reply_format(response: Any) -> WireFormat | None:
    """The format of a whole reply (an SDK object or its JSON), or None."""
    for fmt in FORMATS:
        if fmt.owns_reply(response):
            return fmt
    if openai_chat.FORMAT.owns_message(response):  # a Chat message, without its choice
        return openai_chat.FORMAT
    return None


def event_format(event: Any) -> WireFormat | None:
    """The format of one stream event (or chunk), or None for an unknown one."""
    if field_of(event, "type") == "chunk" and field_of(event, "chunk") is not None:
        return openai_chat.FORMAT  # the openai SDK's .stream() helper wraps each chunk
    for fmt in FORMATS:
        if fmt.owns_event(event):
            return fmt
    return None


def known_replies() -> str:
    return ", ".join(fmt.name for fmt in FORMATS)


_KNOWN = (
    "an openai.OpenAI / AsyncOpenAI (also with base_url= for vLLM, SGLang, llama.cpp or "
    "Ollama), anthropic.Anthropic / AsyncAnthropic, google.genai.Client (or its .aio) or "
    "ollama.Client / AsyncClient client, or boto3.client('bedrock-runtime')"
)


def _method(obj: Any, path: str) -> Any:
    """``obj.a.b.c`` if every step exists and the last is callable, else None."""
    for name in path.split("."):
        if isinstance(obj, Mapping):
            return None
        try:
            obj = getattr(obj, name, None)
        except Exception:
            return None
        if obj is None:
            return None
    return obj if callable(obj) else None


def client_format(
    client: Any, api: str | None, *, want_async: bool, names: tuple[str, str]
) -> tuple[WireFormat, Any, bool]:
    """The wire format a caller's SDK client speaks, and the method that sends a request,
    recognised by the methods the client has (no SDK is imported); the third value says
    the method is async though it may not look it (Gemini's ``client.aio``).

    Raises:
        TypeError: ``client`` is none of the known clients, or ``api`` does not fit it.
    """
    chat = _method(client, "chat.completions.create")
    responses = _method(client, "responses.create")
    if chat is not None and responses is not None:
        if api in (None, "chat", "chat.completions"):
            return openai_chat.FORMAT, chat, False
        if api == "responses":
            return openai_responses.FORMAT, responses, False
        msg = f"api={api!r} is not an OpenAI API; pass api='chat' (the default) or 'responses'"
        raise TypeError(msg)
    if api is not None:
        msg = f"api= chooses between OpenAI's APIs; leave it out for {type(client).__name__}"
        raise TypeError(msg)
    messages = _method(client, "messages.create")
    if messages is not None:
        return anthropic.FORMAT, messages, False
    generate = _method(client, "models.generate_content")
    if generate is not None:
        aio = _method(client, "aio.models.generate_content")
        if want_async and aio is not None:
            return gemini.FORMAT, aio, True
        return gemini.FORMAT, generate, False
    converse = _method(client, "converse")
    if converse is not None and _method(client, "converse_stream") is not None:
        return bedrock.FORMAT, converse, False  # boto3's bedrock-runtime client
    chat = _method(client, "chat")
    if chat is not None and _method(client, "pull") is not None:  # the ollama package
        return ollama.FORMAT, chat, False
    msg = f"{names[want_async]}() takes {_KNOWN}, got {type(client).__name__}"
    raise TypeError(msg)

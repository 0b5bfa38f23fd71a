"""LLM adapters: what each provider's request takes, as small frozen strategy objects.

An adapter holds one provider's choices (the wrapper shape around the schema body, how
optional fields are spelled, which keywords and formats are accepted, the name rule) and
is passed to ``schema(obj, llm_adapter=...)``. Build your own with ``Adapter(...)`` or
``OPENAI.replace(...)``; the schema builder never branches on an adapter's identity.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any, Protocol

import attrs

__all__ = [
    "ALL_CONSTRAINTS",
    "Adapter",
    "OPENAI",
    "OPENAI_TOOLS",
    "STANDARD",
    "Wrapper",
]

Body = dict[str, Any]

#: Every constraint keyword the builder can emit.
ALL_CONSTRAINTS = frozenset(
    {
        "minimum",
        "exclusiveMinimum",
        "maximum",
        "exclusiveMaximum",
        "minLength",
        "maxLength",
        "pattern",
        "minItems",
        "maxItems",
        "uniqueItems",
    }
)


class Wrapper(Protocol):
    """Builds the provider's request object around a schema body."""

    def __call__(self, name: str, description: str | None, body: Body, strict: bool) -> Body:
        """Return the wrapped object; ``description`` None means leave the key out."""
        ...


def _bare(name: str, description: str | None, body: Body, strict: bool) -> Body:
    return body


def _response_format(name: str, description: str | None, body: Body, strict: bool) -> Body:
    out: Body = {"name": name}
    if description is not None:
        out["description"] = description
    out["strict"] = strict
    out["schema"] = body
    return out


def _responses_tool(name: str, description: str | None, body: Body, strict: bool) -> Body:
    out: Body = {"type": "function", "name": name}
    if description is not None:
        out["description"] = description
    out["strict"] = strict
    out["parameters"] = body
    return out


_bare.__qualname__ = "body"
_response_format.__qualname__ = "openai_response_format"
_responses_tool.__qualname__ = "openai_responses_tool"


@attrs.frozen(kw_only=True)
class Adapter:
    """One provider's rules for a schema, and the shape that carries it.

    Args:
        name: The adapter's name, for messages and ``repr``.
        wrap: Builds the provider's object around the body (see ``Wrapper``).
        strict: Objects are closed (``additionalProperties: false``) and list every
            property in ``required``; types that cannot be closed raise ``SchemaError``.
        nullable_optionals: Optional (``T | None``) fields are spelled as a union with
            null and kept in ``required``. When False they are left out of ``required``
            and keep their type ``T``.
        emit_defaults: Emit ``default`` for fields whose default is a JSON value.
        ref_siblings: A ``$ref`` may carry a ``description`` beside it.
        dict_as_entries: ``dict[str, T]`` becomes an array of ``{"key", "value"}``
            objects (for providers that forbid open objects).
        tuples: Fixed-length tuples may use ``prefixItems``.
        any_type: ``Any`` may be expressed as ``{}``.
        recursion: Recursive types may be expressed (through ``$defs``).
        object_root: The body's root must be an object.
        root_description: The body's root carries the type's description (when the
            wrapper does not hold it).
        keywords: The constraint keywords emitted as keywords; the others are written
            into the description as text.
        formats: The string formats accepted (None: every format).
        name_pattern: The regular expression a schema or tool name must match.

    .. versionadded:: 0.1.0
    """

    name: str
    wrap: Wrapper = _bare
    strict: bool = False
    nullable_optionals: bool = False
    emit_defaults: bool = True
    ref_siblings: bool = True
    dict_as_entries: bool = False
    tuples: bool = True
    any_type: bool = True
    recursion: bool = True
    object_root: bool = False
    root_description: bool = True
    keywords: frozenset[str] = ALL_CONSTRAINTS
    formats: frozenset[str] | None = None
    name_pattern: str | None = None
    checks: tuple[Callable[[Mapping[str, Any], Adapter], list[tuple[str, str]]], ...] = ()

    def replace(self, **changes: Any) -> Adapter:
        """A copy of this adapter with ``changes`` applied (``OPENAI.replace(strict=False)``)."""
        if "name" not in changes:
            changes["name"] = self.name + "(" + ", ".join(
                f"{k}={v!r}" for k, v in sorted(changes.items())
            ) + ")"
        return attrs.evolve(self, **changes)

    def __repr__(self) -> str:
        return self.name

    def valid_name(self, name: str) -> bool:
        return self.name_pattern is None or re.fullmatch(self.name_pattern, name) is not None


_OPENAI_FORMATS = frozenset(
    {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}
)
# OpenAI lists minLength/maxLength only as unsupported for fine-tuned models, and
# rejects uniqueItems (PROVIDERS.md O6-O8, O11): those go into the description.
_OPENAI_KEYWORDS = frozenset(
    {"minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum", "pattern", "minItems",
     "maxItems"}
)
_OPENAI_NAME = r"[a-zA-Z0-9_-]{1,64}"

STANDARD = Adapter(name="STANDARD")
"""Plain JSON Schema (draft 2020-12): the body alone, optional fields left out of ``required``."""

OPENAI = Adapter(
    name="OPENAI",
    wrap=_response_format,
    strict=True,
    nullable_optionals=True,
    emit_defaults=False,
    ref_siblings=False,
    dict_as_entries=True,
    tuples=False,
    any_type=False,
    object_root=True,
    root_description=False,
    keywords=_OPENAI_KEYWORDS,
    formats=_OPENAI_FORMATS,
    name_pattern=_OPENAI_NAME,
)
"""The ``json_schema`` object of an OpenAI structured-output ``response_format``."""

OPENAI_TOOLS = OPENAI.replace(name="OPENAI_TOOLS", wrap=_responses_tool)
"""An OpenAI Responses API function tool: ``{"type": "function", "name", ..., "parameters"}``."""

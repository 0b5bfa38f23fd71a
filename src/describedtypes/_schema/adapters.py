"""LLM adapters: what each provider's request takes, as small frozen strategy objects.

An adapter holds one provider's choices (the wrapper shape around the schema body, how
optional fields are spelled, which keywords and formats are accepted, the name rule, the
size limits, and the rules its output is checked against) and is passed to
``schema(obj, llm_adapter=...)``. Build your own with ``Adapter(...)`` or
``OPENAI.replace(...)``; the schema builder never branches on an adapter's identity.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, cast

import attrs

from ..errors import SchemaError
from .document import Document, Limits, Rule, document
from .elicitation import ELICITATION_KEYWORDS, ELICITATION_RULES
from .engines import (
    ENGINE_RULES,
    ENGINE_TOOL_RULES,
    LLAMA_CPP,
    LLAMA_CPP_OLLAMA,
    LLGUIDANCE,
    OUTLINES_CORE,
    XGRAMMAR,
    Engine,
)
from .patterns import Dialect
from .problem import Problem
from .profiles import Profile, applied, derive
from .rules import (
    ANTHROPIC_RULES,
    GEMINI_RULES,
    MCP_RULES,
    OPENAI_RULES,
    request_budgets,
    run_rules,
)
from .wrappers import (
    Wrapper,
    anthropic_output_format,
    anthropic_tool,
    bare_body,
    bedrock_output_format,
    bedrock_tool,
    chat_tool_without_strict,
    display_title,
    gemini_function,
    mcp_tool,
    openai_chat_tool,
    openai_response_format,
    openai_responses_tool,
)

__all__ = [
    "ALL_KEYWORDS",
    "Adapter",
    "Document",
    "Limits",
    "Problem",
    "Rule",
    "check",
    "check_request",
    "Wrapper",
    "anthropic_output_format",
    "anthropic_tool",
    "bare_body",
    "display_title",
    "gemini_function",
    "mcp_tool",
    "openai_chat_tool",
    "openai_response_format",
    "openai_responses_tool",
    "STANDARD",
    "OPENAI",
    "OPENAI_TOOLS",
    "OPENAI_CHAT_TOOLS",
    "ANTHROPIC_TOOLS",
    "ANTHROPIC",
    "GEMINI",
    "MCP_TOOLS",
    "MCP_ELICITATION",
    "VLLM",
    "VLLM_TOOLS",
    "SGLANG",
    "SGLANG_TOOLS",
    "LLAMACPP",
    "LLAMACPP_TOOLS",
    "OLLAMA",
    "OLLAMA_TOOLS",
    "BEDROCK",
    "BEDROCK_TOOLS",
    "bedrock_output_format",
    "bedrock_tool",
    "Dialect",
    "Engine",
    "XGRAMMAR",
    "LLGUIDANCE",
    "OUTLINES_CORE",
    "LLAMA_CPP",
    "LLAMA_CPP_OLLAMA",
    "chat_tool_without_strict",
    "OPENAI_LIMITS",
    "ANTHROPIC_LIMITS",
    "Profile",
]

#: Every optional keyword the builder can emit. An adapter's ``keywords`` names the ones
#: its provider accepts; the builder expresses the others another way (a bound as text in
#: the description, ``const`` as a one-value ``enum``).
ALL_KEYWORDS = frozenset(
    {
        "minimum",
        "exclusiveMinimum",
        "maximum",
        "exclusiveMaximum",
        "multipleOf",
        "minLength",
        "maxLength",
        "pattern",
        "minItems",
        "maxItems",
        "uniqueItems",
        "const",
    }
)


# What each strict-dependent choice is under strict mode; non-strict is the opposite.
# ``replace(strict=...)`` switches these together unless they are given explicitly.
_FOLLOW_STRICT = {
    "nullable_optionals": True,
    "emit_defaults": False,
    "dict_as_entries": True,
    "tuples": False,
    "any_type": False,
}


# cache_hash: an adapter is part of every schema cache key, so hashing must be cheap.
@attrs.frozen(kw_only=True, repr=False, cache_hash=True)
class Adapter:
    """One provider's rules for a schema, and the shape that carries it.

    Args:
        name: The adapter's name, for messages and ``repr``.
        wrap: Builds the provider's object around the body (see ``Wrapper``).
        strict: Objects are closed (``additionalProperties: false``) and list every
            property in ``required``; types that cannot be closed raise ``SchemaError``.
            Rules marked strict-only are checked only when this is True.
        closed_objects: Objects are closed (``additionalProperties: false``), as under
            ``strict``, but optional properties stay out of ``required``: for consumers
            that validate with the schema and must refuse the unknown keys the decoder
            refuses (MCP clients). Maps (``dict[str, T]``) stay open.
        nullable_optionals: Optional (``T | None``) fields are spelled as a union with
            null. When False they keep their type ``T``.
        emit_defaults: Emit ``default`` for fields whose default is a JSON value (never
            under ``strict``, where every field is required).
        ref_siblings: A ``$ref`` may carry a ``description`` beside it. When False, a
            described reference to a non-recursive class is inlined instead.
        ref_any_of: Where ``ref_siblings`` is False, the provider takes a description
            beside a one-option ``anyOf`` holding the ``$ref``
            (``{"anyOf": [{"$ref": ...}], "description": ...}``). Used by
            ``use_references="auto"``, which then keeps a class under ``$defs`` and
            every use's own description; the other modes inline such a use as before.
        dict_as_entries: ``dict[str, T]`` becomes an array of ``{"key", "value"}``
            objects (for providers that forbid open objects).
        tuples: Fixed-length tuples may use ``prefixItems``.
        any_type: ``Any`` may be expressed as ``{}``.
        recursion: The provider accepts recursive schemas; when False, the adapter's
            rules reject them.
        object_root: The body's root must be an object.
        root_description: The body's root carries the type's description (when the
            wrapper does not hold it).
        keywords: The optional keywords emitted as keywords (see ``ALL_KEYWORDS``); the
            others are written into the description as text (``const`` becomes a
            one-value ``enum``).
        formats: The string formats accepted (None: every format); others are written
            into the description.
        min_items_max: The largest ``minItems`` accepted (None: any); a larger bound is
            written into the description.
        enum_types: The JSON types an ``enum`` may hold (None: any scalar). An enum with
            other values is written into the description.
        empty_enum_strings: An ``enum`` may hold the empty string (Gemini refuses it:
            such an enum is written into the description).
        type_lists: ``type`` may be a list (``["string", "null"]``); when False, unions of
            types are spelled with ``anyOf``.
        regex_subset: Patterns must avoid backreferences, lookaround and ``\\b``; a
            pattern that uses them is written into the description.
        name_pattern: The regular expression a schema or tool name must match.
        limits: Size limits and request budgets, checked by the ``limits`` rule.
        checks: The rules the built output is checked against; ``check()`` runs the same.
        engine: The grammar engine of a self-hosted server (None for hosted APIs): the
            builder sends only what it enforces and writes the rest into the
            description (see ``Engine``).
        backends: The engines the server can be started with, as (backend name,
            engine) pairs; ``replace(backend=...)`` picks one.
        combined: Whether a structured-output format and tools can share one request
            with tool calls still possible (None: not known, taken as False). When False,
            the format constrains every turn (the model can no longer call a tool), so
            ``Toolbox.run`` asks in two phases: tools without the format, then one
            closing request with the format.
        combined_models: Model name prefixes for which ``combined`` is True even though
            the adapter says False (a newer model generation that allows both).
        tool_search: The provider's tool definitions take ``defer_loading: true`` (tool
            search: OpenAI Responses, Anthropic); ``Tool(defer_loading=True)`` sets it.
        rejects: The keywords among ``ALL_KEYWORDS`` the provider answers with an error
            (the builder never sends them: it describes them); the others it does not
            take are ignored. Only what ``profile`` reports.
        given_profile: The profile given to ``replace(profile=...)``, if any.
        families: The model families a host serves with different rules, as (family,
            field changes) pairs; ``replace(family=...)`` picks one (Amazon Bedrock:
            ``"anthropic"``, ``"openai"``).
        family: The family whose rules the adapter has, if it has families.

    .. versionadded:: 0.1.0
    .. versionchanged:: 0.3.0
       ``ref_any_of``, ``closed_objects``; ``engine`` and ``backends``, for the
       self-hosted servers.
    .. versionchanged:: 0.4.0
       ``combined``, ``combined_models``, ``tool_search``, ``rejects``, ``given_profile``,
       ``families``, ``family`` and the ``profile`` property.
    """

    name: str
    wrap: Wrapper = bare_body
    strict: bool = False
    closed_objects: bool = False
    nullable_optionals: bool = False
    emit_defaults: bool = True
    ref_siblings: bool = True
    ref_any_of: bool = False
    dict_as_entries: bool = False
    tuples: bool = True
    any_type: bool = True
    recursion: bool = True
    object_root: bool = False
    root_description: bool = True
    keywords: frozenset[str] = ALL_KEYWORDS
    formats: frozenset[str] | None = None
    min_items_max: int | None = None
    enum_types: frozenset[str] | None = None
    empty_enum_strings: bool = True
    type_lists: bool = True
    regex_subset: bool = False
    name_pattern: str | None = None
    limits: Limits = attrs.field(factory=Limits)
    checks: tuple[Rule, ...] = ()
    engine: Engine | None = None
    backends: tuple[tuple[str, Engine], ...] = ()
    combined: bool | None = True
    combined_models: tuple[str, ...] = ()
    tool_search: bool = False

    rejects: frozenset[str] = frozenset()
    given_profile: Profile | None = None
    families: tuple[tuple[str, tuple[tuple[str, Any], ...]], ...] = ()
    family: str | None = None

    def combines(self, model: str | None = None) -> bool:
        """Whether a format and tools may share one request for ``model`` (see ``combined``).

        .. versionadded:: 0.4.0
        """
        if self.combined:
            return True
        return model is not None and model.startswith(self.combined_models)

    @property
    def profile(self) -> Profile:
        """What this adapter's endpoint does with each keyword and format, as data: the
        profile given to ``replace(profile=...)``, else the one its own tables amount to.

        .. versionadded:: 0.4.0
        """
        return self.given_profile if self.given_profile is not None else derive(self)

    @property
    def backend(self) -> str | None:
        """The name of the server backend whose engine this adapter targets, if any.

        .. versionadded:: 0.3.0
        """
        for name, engine in self.backends:
            if engine is self.engine:
                return name
        return None

    def replace(self, **changes: Any) -> Adapter:
        """A copy of this adapter with ``changes`` applied.

        Switching ``strict`` also switches the choices that follow it (optional-field
        style, defaults, the dict encoding, tuples and ``Any``) unless they are given:
        ``OPENAI_TOOLS.replace(strict=False)`` leaves optional fields out of
        ``required``, emits defaults and sends ``"strict": false``.

        ``backend`` picks the grammar engine of a self-hosted server by the name the
        server gives it (``VLLM.replace(backend="guidance")``); the keywords and
        formats follow the engine unless given.

        ``profile`` (a ``Profile``) builds bodies for the endpoint it describes: what it
        enforces is sent, what it ignores is written into the description (the decoder
        enforces it), what it rejects is a ``SchemaError`` (or described, when the
        profile says ``on_rejected="describe"``). The adapter's wrapper, and for a
        self-hosted server its grammar engine's pattern dialect, are kept.

        Raises:
            ValueError: ``backend`` is not one of the adapter's backends.
            TypeError: ``profile`` is not a ``Profile``.

        .. versionadded:: 0.1.0
        .. versionchanged:: 0.3.0
           ``backend``.
        .. versionchanged:: 0.4.0
           ``profile``.
        """
        if "family" in changes and changes["family"] != self.family:
            choice = changes["family"]
            families = dict(changes.get("families", self.families))
            if choice not in families:
                choices = ", ".join(repr(n) for n in families) or "none"
                msg = (f"{self.name} has no model family {choice!r}; its families are "
                       f"{choices}")
                raise ValueError(msg)
            changes.setdefault("name", f"{self.name.split('(')[0]}(family={choice!r})")
            for key, value in families[choice]:
                changes.setdefault(key, value)
        if "profile" in changes:
            profile = changes.pop("profile")
            changes.setdefault("name", f"{self.name}(profile={getattr(profile, 'name', '')!r})")
            for key, value in applied(self, profile).items():
                changes.setdefault(key, value)
        if "backend" in changes:
            choice = changes.pop("backend")
            engines = dict(self.backends)
            if choice not in engines:
                choices = ", ".join(repr(n) for n in engines) or "none"
                msg = (f"{self.name} has no backend {choice!r}; its backends are {choices}"
                       if engines else f"{self.name} has no grammar backends to choose from")
                raise ValueError(msg)
            engine = engines[choice]
            changes.setdefault("name", f"{self.name}(backend={choice!r})")
            changes["engine"] = engine
            changes.setdefault("keywords", engine.keywords)
            changes.setdefault("formats", engine.formats | {f for f, _ in engine.format_patterns})
        if "name" not in changes:
            changes["name"] = self.name + "(" + ", ".join(
                f"{k}={v!r}" for k, v in sorted(changes.items())
            ) + ")"
        strict = changes.get("strict", self.strict)
        if strict != self.strict:
            for key, under_strict in _FOLLOW_STRICT.items():
                changes.setdefault(key, under_strict if strict else not under_strict)
        return attrs.evolve(self, **changes)

    def __repr__(self) -> str:
        return self.name

    def valid_name(self, name: str) -> bool:
        """True when the provider accepts ``name`` as a schema or tool name."""
        return self.name_pattern is None or re.fullmatch(self.name_pattern, name) is not None


OPENAI_LIMITS = Limits(
    max_properties=5000,
    max_depth=10,
    max_chars=120_000,
    max_enum_values=1000,
    large_enum_values=250,
    large_enum_chars=15_000,
)
"""OpenAI's structured-output size limits (strict mode)."""

ANTHROPIC_LIMITS = Limits(max_strict_tools=20, max_optional_params=24, max_union_params=16)
"""Anthropic's per-request budgets for strict tools and JSON outputs."""

_OPENAI_FORMATS = frozenset(
    {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}
)
# OpenAI lists minLength/maxLength only as unsupported for fine-tuned models, and
# rejects uniqueItems (provider rules O6-O8, O11 in docs/provider-rules.md): those go
# into the description.
_OPENAI_KEYWORDS = frozenset(
    {"minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum", "multipleOf", "pattern",
     "minItems", "maxItems", "const"}
)
_OPENAI_NAME = r"[a-zA-Z0-9_-]{1,64}"

# Anthropic strict: no numeric, length or item-count bounds; minItems of 0 or 1 only
# (provider rules A3-A5). Nullable types are spelled with anyOf: the SDK's own schema
# transform takes only single types, and both spellings count the same toward A9.
_ANTHROPIC_KEYWORDS = frozenset({"pattern", "minItems", "const"})
_ANTHROPIC_FORMATS = _OPENAI_FORMATS | {"uri"}
_ANTHROPIC_NAME = r"[a-zA-Z0-9_-]{1,128}"
# Provider rule A5: numeric bounds, lengths, maxItems and uniqueItems are answered with a
# 400 (the builder describes them).
_ANTHROPIC_REJECTS = frozenset(
    {"minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum", "multipleOf", "minLength",
     "maxLength", "maxItems", "uniqueItems"}
)

# Gemini's JSON Schema path (provider rule G2): other keywords are ignored, so bounds the
# model would not see go into the description, and const becomes a one-value enum.
_GEMINI_KEYWORDS = frozenset({"minimum", "maximum", "minItems", "maxItems"})
_GEMINI_NAME = r"[a-zA-Z_][a-zA-Z0-9_.:-]{0,127}"

_MCP_NAME = r"[A-Za-z0-9_.-]{1,128}"

STANDARD = Adapter(name="STANDARD")
"""Plain JSON Schema (draft 2020-12): the body alone, optional fields left out of ``required``.

.. versionadded:: 0.1.0
"""

OPENAI = Adapter(
    name="OPENAI",
    wrap=openai_response_format,
    strict=True,
    nullable_optionals=True,
    emit_defaults=False,
    ref_siblings=False,
    ref_any_of=True,
    dict_as_entries=True,
    tuples=False,
    any_type=False,
    object_root=True,
    root_description=False,
    keywords=_OPENAI_KEYWORDS,
    formats=_OPENAI_FORMATS,
    name_pattern=_OPENAI_NAME,
    limits=OPENAI_LIMITS,
    checks=OPENAI_RULES,
    rejects=frozenset({"uniqueItems"}),
    combined=True,
)
"""The ``json_schema`` object of an OpenAI structured-output ``response_format``.

.. versionadded:: 0.1.0
"""

OPENAI_TOOLS = OPENAI.replace(name="OPENAI_TOOLS", wrap=openai_responses_tool,
                              tool_search=True)
"""An OpenAI Responses API function tool: ``{"type": "function", "name", ..., "parameters"}``.

.. versionadded:: 0.1.0
"""

OPENAI_CHAT_TOOLS = OPENAI.replace(name="OPENAI_CHAT_TOOLS", wrap=openai_chat_tool)
"""An OpenAI Chat Completions tool: ``{"type": "function", "function": {...}}``.

.. versionadded:: 0.1.0
"""

ANTHROPIC_TOOLS = Adapter(
    name="ANTHROPIC_TOOLS",
    wrap=anthropic_tool,
    strict=True,
    nullable_optionals=True,
    emit_defaults=False,
    ref_siblings=False,
    dict_as_entries=True,
    tuples=False,
    any_type=False,
    recursion=False,
    object_root=True,
    root_description=False,
    keywords=_ANTHROPIC_KEYWORDS,
    formats=_ANTHROPIC_FORMATS,
    min_items_max=1,
    type_lists=False,
    regex_subset=True,
    name_pattern=_ANTHROPIC_NAME,
    limits=ANTHROPIC_LIMITS,
    checks=ANTHROPIC_RULES,
    tool_search=True,
    rejects=_ANTHROPIC_REJECTS,
)
"""An Anthropic Messages API tool with ``strict: true``.

.. versionadded:: 0.1.0
"""

ANTHROPIC = ANTHROPIC_TOOLS.replace(
    name="ANTHROPIC", wrap=anthropic_output_format, root_description=True, name_pattern=None
)
"""Anthropic's ``output_config.format``: ``{"type": "json_schema", "schema": body}``.

.. versionadded:: 0.1.0
"""

GEMINI = Adapter(
    name="GEMINI",
    wrap=gemini_function,
    emit_defaults=False,
    ref_siblings=False,
    object_root=True,
    root_description=False,
    keywords=_GEMINI_KEYWORDS,
    enum_types=frozenset({"string", "number", "integer"}),
    empty_enum_strings=False,
    name_pattern=_GEMINI_NAME,
    checks=GEMINI_RULES,
    # Gemini 2.x refuses a JSON response type beside function declarations ("Function
    # calling with a response mime type: 'application/json' is unsupported"); Gemini 3
    # takes both (docs/requests.md has the sources).
    combined=False,
    combined_models=("gemini-3",),
)
"""A Gemini function declaration on the JSON Schema path (``parameters_json_schema``).

.. versionadded:: 0.1.0
"""

MCP_TOOLS = Adapter(
    name="MCP_TOOLS",
    wrap=mcp_tool,
    closed_objects=True,
    object_root=True,
    root_description=False,
    name_pattern=_MCP_NAME,
    checks=MCP_RULES,
)
"""An MCP tool definition: ``{"name", "title", "description", "inputSchema"}``.

STANDARD rules, with every object closed (``additionalProperties: false``): an MCP
client that validates a call with ``inputSchema`` refuses the unknown keys the decoder
would refuse. Optional parameters stay out of ``required``.

.. versionadded:: 0.1.0
.. versionchanged:: 0.3.0 Objects are closed (``additionalProperties: false``).
"""


MCP_ELICITATION = Adapter(
    name="MCP_ELICITATION",
    object_root=True,
    root_description=False,
    keywords=ELICITATION_KEYWORDS,  # emitted, so the rule can refuse those a form lacks
    checks=ELICITATION_RULES,
)
"""The ``requestedSchema`` of an MCP elicitation request (``elicitation/create``).

The form a client shows the user: a flat object of string (``minLength``,
``maxLength``, ``format`` email, uri, date or date-time), number, integer, boolean and
string-enum fields (a ``list`` of an enum is a multi-select), each with its
``description`` and ``default``. An optional field (``T | None = None``) is left out of
``required``. Anything else (a nested class, a union, a ``time`` or ``UUID`` field, a
``pattern``) is a ``SchemaError`` naming the field and the fix. ``decode(T,
answer.content)`` reads an accepted answer.

.. versionadded:: 0.3.0
"""


# -- Amazon Bedrock: the Converse API, with the rules of the model family behind it ------

# What a model family's rules are made of: these fields of its provider's own adapter.
_FAMILY_FIELDS = ("keywords", "formats", "min_items_max", "type_lists", "regex_subset",
                  "recursion", "ref_any_of", "limits", "checks", "rejects", "combined")
_BEDROCK_FAMILIES = (
    ("anthropic", tuple((f, getattr(ANTHROPIC_TOOLS, f)) for f in _FAMILY_FIELDS)),
    ("openai", tuple((f, getattr(OPENAI, f)) for f in _FAMILY_FIELDS)),
)
# botocore's bedrock-runtime model: ToolName is [a-zA-Z0-9_-]+, 1 to 64 characters.
_BEDROCK_NAME = r"[a-zA-Z0-9_-]{1,64}"

BEDROCK = ANTHROPIC.replace(
    name="BEDROCK", wrap=bedrock_output_format, root_description=False,
    families=_BEDROCK_FAMILIES, family="anthropic", tool_search=False,
)
"""Amazon Bedrock Converse structured output: the ``outputConfig.textFormat`` object, with
the JSON Schema as a string (``structure.jsonSchema.schema``).

The rules and budgets are Anthropic's (Claude models); ``BEDROCK.replace(family="openai")``
has OpenAI's, for the OpenAI models Bedrock serves. ``extract()`` with a
``bedrock-runtime`` client picks the family from the ``modelId``.

.. versionadded:: 0.4.0
"""

BEDROCK_TOOLS = ANTHROPIC_TOOLS.replace(
    name="BEDROCK_TOOLS", wrap=bedrock_tool, name_pattern=_BEDROCK_NAME,
    families=_BEDROCK_FAMILIES, family="anthropic",
    # Converse's toolSpec has no field for tool search (botocore's bedrock-runtime model).
    tool_search=False,
)
"""An Amazon Bedrock Converse tool: ``{"toolSpec": {"name", "description", "inputSchema":
{"json": ...}, "strict": true}}``, with Anthropic's rules and budgets
(``BEDROCK_TOOLS.replace(family="openai")`` for OpenAI models).

.. versionadded:: 0.4.0
"""


# -- self-hosted servers: the request shape, and the grammar engine behind it ----------


#: The most characters Python's classes for \d, \w, \D and \W may add to a pattern in a
#: self-hosted server's tool definition. The server's chat template writes every
#: definition into the prompt: ^\w+$ spelled as Python's class is about 1,900 characters,
#: some 4,400 tokens (o200k_base) where ^[a-z]+$ costs 45 for the whole tool, so such a
#: pattern goes into the description there; \d's class (about 190 characters) stays. A
#: structured-output format is the grammar only and keeps every class.
PROMPT_CLASS_CHARS = 1_000


def _in_prompt(engine: Engine) -> Engine:
    return attrs.evolve(engine, dialect=attrs.evolve(engine.dialect,
                                                     max_added=PROMPT_CLASS_CHARS))


def _served(name: str, wrap: Wrapper, backends: tuple[tuple[str, Engine], ...], *,
            tools: bool) -> Adapter:
    if tools:
        backends = tuple((key, _in_prompt(engine)) for key, engine in backends)
    engine = backends[0][1]
    return Adapter(
        name=name,
        wrap=wrap,
        strict=True,
        nullable_optionals=True,
        emit_defaults=False,
        ref_siblings=False,
        object_root=tools,
        root_description=False,
        keywords=engine.keywords,
        formats=engine.formats | {f for f, _ in engine.format_patterns},
        checks=ENGINE_TOOL_RULES if tools else ENGINE_RULES,
        engine=engine,
        backends=backends,
        # The format constrains every turn: the model can never call a tool while it is
        # set (docs/requests.md has the sources).
        combined=False,
    )


# vLLM's structured-output backends by its own names, ``auto``'s first choice first
# (vllm/sampling_params.py); SGLang's --grammar-backend choices, its default first
# (python/sglang/srt/server_args.py).
_VLLM_BACKENDS = (("xgrammar", XGRAMMAR), ("guidance", LLGUIDANCE), ("outlines", OUTLINES_CORE))
_SGLANG_BACKENDS = (("xgrammar", XGRAMMAR), ("llguidance", LLGUIDANCE),
                    ("outlines", OUTLINES_CORE))

VLLM = _served("VLLM", openai_response_format, _VLLM_BACKENDS, tools=False)
"""vLLM's structured output: the ``json_schema`` object of its ``response_format``.

The body holds only what the backend's grammar engine enforces (xgrammar unless
``VLLM.replace(backend="guidance" | "outlines")``); the rest is in the descriptions.

.. versionadded:: 0.3.0
"""

VLLM_TOOLS = _served("VLLM_TOOLS", openai_chat_tool, _VLLM_BACKENDS, tools=True)
"""A vLLM Chat Completions tool with ``strict: true`` (vLLM constrains a tool's
arguments under ``tool_choice="auto"`` only then).

.. versionadded:: 0.3.0
"""

SGLANG = _served("SGLANG", openai_response_format, _SGLANG_BACKENDS, tools=False)
"""SGLang's structured output: the ``json_schema`` object of its ``response_format``
(xgrammar unless ``SGLANG.replace(backend="llguidance" | "outlines")``).

.. versionadded:: 0.3.0
"""

SGLANG_TOOLS = _served("SGLANG_TOOLS", openai_chat_tool, _SGLANG_BACKENDS, tools=True)
"""An SGLang Chat Completions tool with ``strict: true``.

.. versionadded:: 0.3.0
"""

LLAMACPP = _served("LLAMACPP", openai_response_format, (("llama.cpp", LLAMA_CPP),),
                   tools=False)
"""llama.cpp's server: the ``json_schema`` object of its ``response_format``.

.. versionadded:: 0.3.0
"""

LLAMACPP_TOOLS = _served("LLAMACPP_TOOLS", chat_tool_without_strict,
                         (("llama.cpp", LLAMA_CPP),), tools=True)
"""A llama.cpp server Chat Completions tool (no ``strict`` flag: its tool grammar is
built whenever a tool call starts).

.. versionadded:: 0.3.0
"""

OLLAMA = _served("OLLAMA", openai_response_format, (("llama.cpp", LLAMA_CPP_OLLAMA),),
                 tools=False)
"""Ollama: the ``json_schema`` object of a ``response_format`` (its OpenAI-compatible
endpoint); the body inside is what its native ``format=`` takes.

.. versionadded:: 0.3.0
"""

OLLAMA_TOOLS = _served("OLLAMA_TOOLS", chat_tool_without_strict,
                       (("llama.cpp", LLAMA_CPP_OLLAMA),), tools=True)
"""An Ollama tool in the Chat Completions function shape (no ``strict`` flag).

.. versionadded:: 0.3.0
"""


# -- checking any schema against an adapter's rules -----------------------------------


def check_adapter(adapter: Any, label: str = "llm_adapter") -> Adapter:
    """``adapter`` if it is an ``Adapter``; else the ``SchemaError`` (a ``TypeError``) that
    names the fix.

    The one check (and wording) of every function that takes ``llm_adapter=``.
    """
    if isinstance(adapter, Adapter):
        return adapter
    shown = repr(adapter) if len(repr(adapter)) <= 60 else repr(adapter)[:57] + "..."
    msg = (
        f"{label} must be an Adapter such as describedtypes.OPENAI, ANTHROPIC_TOOLS or "
        f"STANDARD (one of those describedtypes exports, or .replace(...) of one), got "
        f"{type(adapter).__name__} {shown}"
    )
    raise SchemaError(msg)


_ENGINE_ADAPTERS = {  # a profile's engine -> the adapter whose tables it refines, backend
    "xgrammar": ("VLLM", None),
    "llguidance": ("VLLM", "guidance"),
    "outlines-core": ("VLLM", "outlines"),
    "llama.cpp": ("LLAMACPP", None),
}


def adapter_for(profile: Profile) -> Adapter:
    """The adapter that builds bodies for ``profile`` alone: the self-hosted adapter of
    the grammar engine it refines (its pattern dialect kept), else ``STANDARD``'s."""
    found = _ENGINE_ADAPTERS.get(profile.engine or "")
    base: Adapter
    if found is not None:
        base = VLLM if found[0] == "VLLM" else LLAMACPP
        if found[1] is not None:
            base = base.replace(backend=found[1])
    else:
        base = STANDARD
    return base.replace(profile=profile, name=profile.name)


def as_adapter(llm_adapter: Any) -> Adapter:
    """``llm_adapter`` itself, or the adapter of a ``Profile`` (``adapter_for``)."""
    if isinstance(llm_adapter, Profile):
        return adapter_for(llm_adapter)
    return check_adapter(llm_adapter)


def check(schema: Mapping[str, Any], llm_adapter: Adapter | Profile) -> list[Problem]:
    """Every problem ``adapter``'s provider would reject in ``schema``, with its pointer.

    ``schema`` is a JSON Schema body (from this library, pydantic, or written by hand) or
    an adapter's wrapped output such as an OpenAI tool; a wrapped output's name and
    ``strict`` flag are checked too (``"strict": false`` turns the strict-only rules off).

    Args:
        schema: The schema or wrapped definition, as plain JSON data.
        llm_adapter: The provider to check against (``OPENAI``, ``ANTHROPIC_TOOLS``, ...),
            or a ``Profile`` (``Profile.load(path)``): the problems are then what that
            endpoint rejects, ignores or holds too tightly.

    Returns:
        The problems, in document order per rule; empty when the provider accepts it.

    Raises:
        TypeError: ``schema`` is not a JSON object; ``SchemaError`` (a ``TypeError``):
            ``llm_adapter`` is not an Adapter.

    .. versionadded:: 0.1.0
    .. versionchanged:: 0.4.0
       ``llm_adapter`` may be a ``Profile``.
    """
    adapter = as_adapter(llm_adapter)
    if not isinstance(cast(Any, schema), Mapping):
        msg = f"check() takes a JSON Schema object (a dict), got {type(schema).__name__}"
        raise TypeError(msg)
    if not adapter.checks:
        return []
    return run_rules(document(schema, adapter), adapter)


def check_request(
    definitions: Sequence[Mapping[str, Any]], llm_adapter: Adapter
) -> list[Problem]:
    """Problems of a whole request's tool definitions: each one's, and the shared budgets.

    Besides checking every definition as ``check()`` does, this sums what a provider
    budgets per request (Anthropic: strict tools, optional parameters, union-typed
    parameters) and rejects two tools with the same name.

    Args:
        definitions: The wrapped tool definitions, as ``schema(f, adapter)`` returns them.
        llm_adapter: The adapter they were built for.

    Returns:
        The problems, with pointers that start with the definition's index (``/2/...``);
        request-wide ones have the pointer ``""``.

    Raises:
        TypeError: ``definitions`` is not a list of JSON objects; ``SchemaError`` (a
            ``TypeError``): ``llm_adapter`` is not an Adapter.

    .. versionadded:: 0.1.0
    """
    adapter = llm_adapter
    check_adapter(adapter)
    items: Any = definitions
    if isinstance(items, (str, bytes, Mapping)) or not isinstance(items, Sequence):
        msg = f"check_request() takes a list of tool definitions, got {type(definitions).__name__}"
        raise TypeError(msg)
    return request_problems(definitions, adapter, each=True)


def request_problems(
    definitions: Sequence[Mapping[str, Any]], adapter: Adapter, *, each: bool = False
) -> list[Problem]:
    """The request-wide problems of ``definitions`` (and each one's, with ``each``)."""
    problems: list[Problem] = []
    docs: list[Document] = []
    for i, item in enumerate(definitions):
        if not isinstance(cast(Any, item), Mapping):
            msg = f"definition {i} is a {type(item).__name__}, not a JSON object"
            raise TypeError(msg)
        doc = document(item, adapter, prefix=f"/{i}")
        docs.append(doc)
        if each:
            problems.extend(run_rules(doc, adapter))
    problems.extend(request_budgets(docs, adapter))
    seen: dict[str, int] = {}
    for i, doc in enumerate(docs):
        if not isinstance(doc.name, str) or doc.name_pointer is None:
            continue
        if doc.name in seen:
            problems.append(Problem(
                doc.name_pointer, "unique-names",
                f"the tool name {doc.name!r} is already used by definition {seen[doc.name]}; "
                "tool names must be unique within a request",
            ))
        else:
            seen[doc.name] = i
    return problems

"""What one endpoint does with each keyword and format, as data (``Profile``).

Every adapter has one (``adapter.profile``): the hosted providers' rules and the
self-hosted engine tables of ``engines.py`` read as "enforced / ignored / rejected" per
keyword and JSON type, per string format, plus the limits, the request field, whether
``strict`` is honoured and whether a structured-output format and tools can share one
request. A profile can also be written by hand or measured (``describedtypes probe``),
saved as JSON (``dump``) and read back (``load``); ``adapter.replace(profile=p)`` then
builds bodies for that endpoint, and ``check(schema, p)`` / ``explain(obj, p)`` read it.
"""

from __future__ import annotations

import datetime
import os
from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Literal, cast

import attrs
import orjson

from .._base.files import FileRefused, read_small
from ..errors import SchemaError
from .document import Document, Limits, Rule, escape, types_of
from .problem import Problem

if TYPE_CHECKING:
    from .adapters import Adapter

__all__ = [
    "FORMATS",
    "JSON_OBJECT_FIELD",
    "KEYWORD_KINDS",
    "PAIRS",
    "PROFILE_KEYWORDS",
    "STATUSES",
    "Profile",
    "Support",
    "derive",
    "keyword_key",
]

#: What an endpoint does with a keyword or format. ``over-strict``: the grammar holds it
#: but refuses some valid values too (the builder describes it instead); ``unknown``: a
#: probe could not tell (errors, timeouts).
STATUSES = ("enforced", "ignored", "rejected", "over-strict", "unknown")
Status = Literal["enforced", "ignored", "rejected", "over-strict", "unknown"]

#: The keywords whose support depends on the JSON type they sit on, and those types. A
#: profile's keys for them are ``"<type> <keyword>"`` (``"integer minimum"``).
KEYWORD_KINDS: dict[str, tuple[str, ...]] = {
    "minimum": ("integer", "number"),
    "exclusiveMinimum": ("integer", "number"),
    "maximum": ("integer", "number"),
    "exclusiveMaximum": ("integer", "number"),
    "multipleOf": ("integer", "number"),
    "minLength": ("string",),
    "maxLength": ("string",),
    "pattern": ("string",),
    "minItems": ("array",),
    "maxItems": ("array",),
    "uniqueItems": ("array",),
}

#: Keywords that hold (or not) wherever they sit; a profile's keys for them are the
#: keyword alone.
STRUCTURAL = (
    "const", "oneOf", "allOf", "not", "if", "dependentRequired", "patternProperties",
    "propertyNames", "minProperties", "maxProperties", "contains", "prefixItems",
)

#: Keywords that interact: whether the first still holds beside the second.
PAIRS = ("string minLength+pattern", "integer multipleOf+minimum", "strict+array maxItems")

#: Every string format a profile says something about.
FORMATS = (
    "date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid",
    "uri", "uri-reference", "uri-template", "json-pointer", "relative-json-pointer",
)

_FIELDS = {  # wrapper -> the request field its body goes into
    "openai_response_format": "response_format",
    "openai_chat_tool": "tools",
    "openai_responses_tool": "tools",
    "chat_tool_without_strict": "tools",
    "anthropic_tool": "tools",
    "anthropic_output_format": "output_config.format",
    "gemini_function": "tools.function_declarations",
    "mcp_tool": "tools/list",
    "bare_body": "schema",
    "bedrock_output_format": "outputConfig.textFormat",
    "bedrock_tool": "toolConfig.tools",
}
#: A profile's ``request_field`` for servers whose ``response_format`` takes only
#: ``{"type": "json_object", "schema": ...}`` (llama-cpp-python's own server).
JSON_OBJECT_FIELD = "response_format.json_object"

_STRICT_FLAG = frozenset({"openai_response_format", "openai_chat_tool", "openai_responses_tool",
                          "anthropic_tool", "anthropic_output_format", "bedrock_output_format",
                          "bedrock_tool"})


def _a(kind: str) -> str:
    return ("an " if kind[0] in "aeiou" else "a ") + kind


def keyword_key(keyword: str, kind: str | None = None) -> str:
    """A profile's key for ``keyword`` on a ``kind`` schema (the keyword alone when its
    support does not depend on the type)."""
    return f"{kind} {keyword}" if kind is not None and keyword in KEYWORD_KINDS else keyword


def library_version() -> str:
    from importlib import metadata

    try:
        return metadata.version("describedtypes")
    except metadata.PackageNotFoundError:  # a source checkout that is not installed
        return "unknown"


@attrs.frozen
class Support:
    """What an endpoint does with one keyword or format.

    Attributes:
        status: ``"enforced"``, ``"ignored"`` (accepted, not held), ``"rejected"``
            (an error), ``"over-strict"`` (held, but valid values are refused too) or
            ``"unknown"``.
        detail: The error text of a rejection, or why (a note, a probe's evidence).

    .. versionadded:: 0.4.0
    """

    status: Status = attrs.field()
    detail: str = ""

    @status.validator
    def _known(self, attribute: Any, value: Any) -> None:
        if value not in STATUSES:
            msg = f"status must be one of {', '.join(STATUSES)}, got {value!r}"
            raise ValueError(msg)


def _supports(value: Any) -> tuple[tuple[str, Support], ...]:
    """A mapping (or pairs) of key -> Support (or a status string), as sorted pairs."""
    items = value.items() if isinstance(value, Mapping) else value
    out = []
    for key, support in items:
        if isinstance(support, str):
            support = Support(cast(Status, support))
        if not isinstance(key, str) or not isinstance(support, Support):
            msg = (f"expected keys mapped to Support(...) or a status string, got {key!r}: "
                   f"{support!r}")
            raise TypeError(msg)
        out.append((key, support))
    return tuple(sorted(out))


@attrs.frozen(kw_only=True)
class Profile:
    """What one endpoint does with each keyword and format.

    Attributes:
        name: What the profile is of (``"OPENAI"``, ``"vllm 0.12 at http://..."``).
        keywords: Per keyword (``"integer minimum"``, ``"string pattern"``, ``"oneOf"``),
            what the endpoint does with it; a keyword not listed is taken as enforced
            (the builder sends it).
        formats: Per string format, what the endpoint does with it; a format not listed
            has the ``other_formats`` support.
        other_formats: What the endpoint does with a format ``formats`` does not list.
        pairs: Whether keywords that interact still hold together (``PAIRS``).
        limits: Size limits and request budgets.
        request_field: Where the body goes in a request (``"response_format"``;
            ``"response_format.json_object"``: the Chat Completions request sends
            ``{"type": "json_object", "schema": body}``, the only form llama-cpp-python's
            server takes).
        strict: The endpoint honours ``strict: true`` (constrains to the schema only then).
        combined: A structured-output format and tools can share one request with tool
            calls still possible (None: it depends on the model generation).
        on_rejected: What the builder does with a constraint the endpoint rejects:
            ``"error"`` (a ``SchemaError``, the default for profiles you give) or
            ``"describe"`` (write it into the description, as the built-in hosted
            adapters always have).
        engine: The grammar engine table the profile refines (``"xgrammar"``), if any.
        tool_choice: The ``tool_choice`` a Chat Completions request with tools sends when
            the caller gives none (None: none is sent, the API's default). llama-cpp-python's
            tool-calling chat format needs ``"auto"``: without one it does not show the
            model the tools at all.
        tool_call_content: The ``content`` an assistant message carrying tool calls goes
            back into the conversation with when the model wrote no text (None: ``null``,
            as the Chat Completions API has it). llama-cpp-python's server needs ``""``:
            it refuses ``null`` (HTTP 500) and its template needs the key.
        observed_at: When it was measured (ISO 8601), if it was.
        endpoint: The base URL it was measured at.
        model: The model it was measured with.
        server_version: The server's version, where it says.
        library_version: The describedtypes version that wrote it.

    .. versionadded:: 0.4.0
    """

    name: str
    keywords: tuple[tuple[str, Support], ...] = attrs.field(default=(), converter=_supports)
    formats: tuple[tuple[str, Support], ...] = attrs.field(default=(), converter=_supports)
    other_formats: Support = Support("enforced")
    pairs: tuple[tuple[str, Support], ...] = attrs.field(default=(), converter=_supports)
    limits: Limits = attrs.field(factory=Limits)
    request_field: str = "schema"
    strict: bool = False
    combined: bool | None = None
    on_rejected: Literal["error", "describe"] = "error"
    engine: str | None = None
    tool_choice: str | dict[str, Any] | None = attrs.field(default=None)
    tool_call_content: str | None = None
    observed_at: str | None = None
    endpoint: str | None = None
    model: str | None = None
    server_version: str | None = None
    library_version: str | None = None

    @tool_choice.validator
    def _choice(self, attribute: Any, value: Any) -> None:
        if value is not None and not isinstance(value, (str, dict)):
            msg = ('tool_choice must be None, a string ("auto") or an object '
                   f'({{"type": "function", ...}}), got {type(value).__name__}')
            raise TypeError(msg)

    def keyword(self, keyword: str, kind: str | None = None) -> Support:
        """What the endpoint does with ``keyword`` on a ``kind`` schema."""
        key = keyword_key(keyword, kind)
        for k, support in self.keywords:
            if k == key:
                return support
        return _ENFORCED

    def format(self, fmt: str) -> Support:
        """What the endpoint does with the string format ``fmt``."""
        for k, support in self.formats:
            if k == fmt:
                return support
        return self.other_formats

    def pair(self, key: str) -> Support:
        """Whether the keywords of ``key`` (one of ``PAIRS``) hold together."""
        for k, support in self.pairs:
            if k == key:
                return support
        return _ENFORCED

    def replace(self, **changes: Any) -> Profile:
        """A copy with ``changes`` applied (``keywords=`` and the like replace the whole
        table; use ``with_keywords`` to change some entries)."""
        return attrs.evolve(self, **changes)

    def with_keywords(self, **statuses: str | Support) -> Profile:
        """A copy with some entries of ``keywords`` changed, by key
        (``p.with_keywords(**{"array uniqueItems": "ignored"})``)."""
        table = dict(self.keywords)
        table.update({k: Support(cast(Status, v)) if isinstance(v, str) else v
                      for k, v in statuses.items()})
        return attrs.evolve(self, keywords=table)

    # -- files ---------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        """The profile as the JSON object ``dump`` writes."""
        def table(pairs: Iterable[tuple[str, Support]]) -> dict[str, Any]:
            return {k: _support_json(s) for k, s in pairs}

        return {
            "describedtypes_profile": 1,
            "name": self.name,
            "observed_at": self.observed_at,
            "endpoint": self.endpoint,
            "model": self.model,
            "server_version": self.server_version,
            "library_version": self.library_version or library_version(),
            "request_field": self.request_field,
            "strict": self.strict,
            "combined": self.combined,
            "on_rejected": self.on_rejected,
            "engine": self.engine,
            "tool_choice": self.tool_choice,
            "tool_call_content": self.tool_call_content,
            "limits": {k: v for k, v in attrs.asdict(self.limits).items() if v is not None},
            "keywords": table(self.keywords),
            "formats": table(self.formats),
            "other_formats": _support_json(self.other_formats),
            "pairs": table(self.pairs),
        }

    def dump(self, path: str | os.PathLike[str]) -> None:
        """Write the profile to ``path`` as JSON (indented, keys in a stable order).

        .. versionadded:: 0.4.0
        """
        data = orjson.dumps(self.to_json(), option=orjson.OPT_INDENT_2)
        with open(path, "wb") as f:
            f.write(data + b"\n")

    @classmethod
    def from_json(cls, data: Any, where: str = "profile") -> Profile:
        """The profile a JSON object (as ``to_json`` makes) describes.

        Raises:
            ValueError: The object is not a profile; the message names ``where``, the
                field and what it should be.
        """
        return _from_json(data, where)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Profile:
        """The profile saved at ``path`` (by ``dump`` or ``describedtypes probe``).

        Raises:
            ValueError: The file is not JSON or not a profile (the message names the
                path, the field and the fix); OSError: it cannot be read.

        .. versionadded:: 0.4.0
        """
        where = os.fspath(path)
        try:
            raw = read_small(where, _MAX_FILE, "a profile")
        except FileRefused as exc:
            raise ValueError(str(exc)) from None
        try:
            data = orjson.loads(raw)
        except orjson.JSONDecodeError as e:
            msg = (f"{where}: not a JSON file ({e}); write it with profile.dump() or "
                   "describedtypes probe --out")
            raise ValueError(msg) from None
        return _from_json(data, where)

    def __repr__(self) -> str:
        counts = dict.fromkeys(STATUSES, 0)
        for _, support in (*self.keywords, *self.formats):
            counts[support.status] += 1
        shown = ", ".join(f"{n} {s}" for s, n in counts.items() if n and s != "enforced")
        return f"<Profile {self.name}{': ' + shown if shown else ''}>"


_ENFORCED = Support("enforced")
_MAX_FILE = 1 << 20


def _support_json(s: Support) -> Any:
    return s.status if not s.detail else {"status": s.status, "detail": s.detail}


def _bad(where: str, field: str, what: str, got: Any) -> ValueError:
    shown = repr(got)
    if len(shown) > 60:
        shown = shown[:57] + "..."
    return ValueError(f"{where}: {field} must be {what}, got {shown}")


def _support_of(value: Any, where: str, field: str) -> Support:
    if isinstance(value, str) and value in STATUSES:
        return Support(cast(Status, value))
    if isinstance(value, dict) and value.get("status") in STATUSES:
        detail = value.get("detail", "")
        if not isinstance(detail, str):
            raise _bad(where, f"{field}.detail", "a string", detail)
        return Support(value["status"], detail)
    raise _bad(where, field, "one of " + ", ".join(STATUSES)
               + ' (or {"status": ..., "detail": ...})', value)


def _table(data: dict[str, Any], key: str, where: str) -> dict[str, Support]:
    value = data.get(key, {})
    if not isinstance(value, dict):
        raise _bad(where, key, "an object", value)
    return {k: _support_of(v, where, f"{key}.{k}") for k, v in value.items()}


def _optional_str(data: dict[str, Any], key: str, where: str) -> str | None:
    value = data.get(key)
    if value is not None and not isinstance(value, str):
        raise _bad(where, key, "a string or null", value)
    return value


def _from_json(data: Any, where: str) -> Profile:
    if not isinstance(data, dict) or "describedtypes_profile" not in data:
        msg = (f"{where}: not a describedtypes profile (a JSON object with "
               '"describedtypes_profile": 1); write one with profile.dump() or '
               "describedtypes probe --out")
        raise ValueError(msg)
    if data["describedtypes_profile"] != 1:
        raise _bad(where, "describedtypes_profile", "1 (this library reads version 1)",
                   data["describedtypes_profile"])
    name = data.get("name")
    if not isinstance(name, str) or not name:
        raise _bad(where, "name", "a non-empty string", name)
    for key in ("strict",):
        if not isinstance(data.get(key, False), bool):
            raise _bad(where, key, "true or false", data.get(key))
    combined = data.get("combined")
    if combined is not None and not isinstance(combined, bool):
        raise _bad(where, "combined", "true, false or null", combined)
    on_rejected = data.get("on_rejected", "error")
    if on_rejected not in ("error", "describe"):
        raise _bad(where, "on_rejected", '"error" or "describe"', on_rejected)
    limits = data.get("limits", {})
    if not isinstance(limits, dict):
        raise _bad(where, "limits", "an object", limits)
    known = {f.name for f in attrs.fields(Limits)}
    for key, value in limits.items():
        if key not in known:
            raise _bad(where, f"limits.{key}", "one of " + ", ".join(sorted(known)), key)
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise _bad(where, f"limits.{key}", "a whole number >= 0", value)
    tool_choice = data.get("tool_choice")
    if tool_choice is not None and not isinstance(tool_choice, (str, dict)):
        raise _bad(where, "tool_choice", 'null, a string ("auto") or an object', tool_choice)
    observed = _optional_str(data, "observed_at", where)
    if observed is not None:
        try:
            datetime.datetime.fromisoformat(observed.replace("Z", "+00:00"))
        except ValueError:
            raise _bad(where, "observed_at", "an ISO 8601 date and time", observed) from None
    return Profile(
        name=name,
        keywords=_table(data, "keywords", where),
        formats=_table(data, "formats", where),
        other_formats=_support_of(data.get("other_formats", "enforced"), where,
                                  "other_formats"),
        pairs=_table(data, "pairs", where),
        limits=Limits(**limits),
        request_field=_optional_str(data, "request_field", where) or "schema",
        strict=data.get("strict", False),
        combined=combined,
        on_rejected=on_rejected,
        engine=_optional_str(data, "engine", where),
        tool_choice=tool_choice,
        tool_call_content=_optional_str(data, "tool_call_content", where),
        observed_at=observed,
        endpoint=_optional_str(data, "endpoint", where),
        model=_optional_str(data, "model", where),
        server_version=_optional_str(data, "server_version", where),
        library_version=_optional_str(data, "library_version", where),
    )


# -- the built-in adapters as profiles ---------------------------------------------------


def derive(adapter: Adapter) -> Profile:
    """The profile an adapter's own data amounts to (``adapter.profile``)."""
    wrapper = getattr(adapter.wrap, "__name__", "")
    engine = adapter.engine
    keywords: dict[str, Support] = {}
    formats: dict[str, Support] = {}
    pairs: dict[str, Support] = {}
    if engine is not None:
        over = dict(engine.over_strict)
        kept = {"integer": engine.integer_keywords, "number": engine.number_keywords,
                "string": engine.string_keywords, "array": engine.array_keywords}
        for kw, kinds in KEYWORD_KINDS.items():
            for kind in kinds:
                key = f"{kind} {kw}"
                if kw in kept[kind]:
                    keywords[key] = _ENFORCED
                elif key in over:
                    keywords[key] = Support("over-strict", f"{engine.name} {over[key]}")
                elif kw in engine.rejects:
                    keywords[key] = Support("rejected", f"fails to compile in {engine.name}")
                else:
                    keywords[key] = Support("ignored", f"{engine.name} does not hold {kw} "
                                            f"on {_a(kind)}")
        for kw in STRUCTURAL:
            if kw in engine.rejects:
                keywords[kw] = Support("rejected", f"fails to compile in {engine.name}")
            elif kw in engine.ignores:
                keywords[kw] = Support("ignored", f"{engine.name} accepts it and does not "
                                       "hold it")
        for fmt in FORMATS:
            if fmt in engine.formats:
                formats[fmt] = _ENFORCED
            elif engine.format_pattern(fmt) is not None:
                formats[fmt] = Support("over-strict", f"{engine.name}'s own {fmt} regex "
                                       "refuses valid values: sent as a pattern")
            else:
                formats[fmt] = Support("ignored", f"{engine.name} does not hold it")
        other = Support("ignored", f"{engine.name} does not hold it")
        if not engine.lengths_beside_pattern:
            pairs["string minLength+pattern"] = Support(
                "ignored", f"{engine.name} drops a length beside a pattern or format")
        if not engine.multiple_of_beside_bounds:
            pairs["integer multipleOf+minimum"] = Support(
                "ignored", f"{engine.name} ignores multipleOf beside a bound")
    else:
        rejects = adapter.rejects
        for kw, kinds in KEYWORD_KINDS.items():
            for kind in kinds:
                key = f"{kind} {kw}"
                if kw in adapter.keywords:
                    if kw == "minItems" and adapter.min_items_max is not None:
                        keywords[key] = Support(
                            "enforced", f"up to {adapter.min_items_max}; a larger minItems "
                            "is rejected")
                    continue
                if kw in rejects:
                    keywords[key] = Support("rejected", f"{adapter.name} does not take {kw}")
                else:
                    keywords[key] = Support("ignored", f"{adapter.name} does not hold {kw}")
        if "const" not in adapter.keywords:
            keywords["const"] = Support("ignored", "sent as a one-value enum")
        if adapter.formats is None:
            other = _ENFORCED
        else:
            for fmt in FORMATS:
                formats[fmt] = (_ENFORCED if fmt in adapter.formats else
                                Support("ignored", f"{adapter.name} does not hold it"))
            other = Support("ignored", f"{adapter.name} does not hold it")
    return Profile(
        name=adapter.name,
        keywords=keywords,
        formats=formats,
        other_formats=other,
        pairs=pairs,
        limits=adapter.limits,
        request_field=_FIELDS.get(wrapper, wrapper or "schema"),
        strict=adapter.strict and wrapper in _STRICT_FLAG,
        combined=adapter.combined,
        on_rejected="describe",
        engine=engine.name if engine is not None else None,
    )


def applied(adapter: Adapter, profile: Profile) -> dict[str, Any]:
    """The adapter fields that make ``adapter`` build bodies for ``profile``."""
    if not isinstance(cast(Any, profile), Profile):
        msg = (f"profile= takes a describedtypes.Profile (Profile.load(path), or "
               f"adapter.profile), got {type(profile).__name__}")
        raise TypeError(msg)
    changes: dict[str, Any] = {"given_profile": profile, "limits": profile.limits,
                               "combined": profile.combined}
    # The profile the adapter's own tables amount to changes nothing, messages included.
    own = profile == derive(adapter)
    engine = adapter.engine
    if engine is not None:
        def kept(kind: str) -> frozenset[str]:
            return frozenset(kw for kw, kinds in KEYWORD_KINDS.items()
                             if kind in kinds and profile.keyword(kw, kind).status == "enforced")

        structural = {kw: profile.keyword(kw).status for kw in STRUCTURAL}
        held = frozenset(f for f in FORMATS if profile.format(f).status == "enforced")
        # A profile of the endpoint's own measuring speaks for itself in messages; the
        # profile the adapter's tables amount to leaves them as they were.
        named = engine.name if own else profile.name
        new = attrs.evolve(
            engine,
            name=named,
            integer_keywords=kept("integer"),
            number_keywords=kept("number"),
            string_keywords=kept("string"),
            array_keywords=kept("array"),
            formats=held,
            ignores=frozenset(k for k, s in structural.items() if s == "ignored")
            | (engine.ignores - set(STRUCTURAL)),
            rejects=frozenset(k for k, s in structural.items() if s == "rejected")
            | (engine.rejects - set(STRUCTURAL)),
            lengths_beside_pattern=profile.pair("string minLength+pattern").status
            == "enforced",
            multiple_of_beside_bounds=profile.pair("integer multipleOf+minimum").status
            == "enforced",
        )
        changes["engine"] = new
        changes["backends"] = tuple((n, new if e is engine else e) for n, e in adapter.backends)
        changes["keywords"] = new.keywords
        changes["formats"] = new.formats | {f for f, _ in new.format_patterns}
    else:
        sent = {kw for kw, kinds in KEYWORD_KINDS.items()
                if all(profile.keyword(kw, k).status == "enforced" for k in kinds)}
        if profile.keyword("const").status == "enforced":
            sent.add("const")
        changes["keywords"] = frozenset(sent)
        if profile.formats or profile.other_formats.status != "enforced":
            changes["formats"] = frozenset(
                f for f in FORMATS if profile.format(f).status == "enforced")
        else:
            changes["formats"] = None
        if not own and PROFILE_KEYWORDS not in adapter.checks:
            changes["checks"] = (*adapter.checks, PROFILE_KEYWORDS)
        changes["rejects"] = frozenset(
            kw for kw, kinds in KEYWORD_KINDS.items()
            if any(profile.keyword(kw, k).status == "rejected" for k in kinds))
    return changes


def refusal(profile: Profile | None, keyword: str, kind: str | None, where: str) -> None:
    """Raise the ``SchemaError`` for a constraint ``profile`` rejects, when it says to."""
    if profile is None or profile.on_rejected != "error":
        return
    support = (profile.format(keyword[len("format "):]) if keyword.startswith("format ")
               else profile.keyword(keyword, kind))
    if support.status != "rejected":
        return
    said = f" ({support.detail})" if support.detail else ""
    shown = keyword_key(keyword, kind) if not keyword.startswith("format ") else keyword
    msg = (f"{profile.name} rejects {shown}{said}; drop the constraint from the type, or "
           f"mark it ignored in the profile (profile.with_keywords(...)) or give "
           f'on_rejected="describe" to have it written into the description and checked by '
           f"the decoder")
    raise SchemaError(msg, path=where)


# -- checking a hand-written schema against a profile ------------------------------------


def _profile_problems(doc: Document, adapter: Adapter) -> Iterator[Problem]:
    profile = adapter.given_profile
    if profile is None:
        return
    for v in doc.visits:
        s = v.schema
        at = v.pointer
        kinds = [k for k in types_of(s) if k != "null"]
        kind = kinds[0] if len(kinds) == 1 and isinstance(kinds[0], str) else None
        for kw in s:
            if kw in KEYWORD_KINDS:
                if kind is None or kind not in KEYWORD_KINDS[kw]:
                    continue
                support = profile.keyword(kw, kind)
                shown = f"{kw!r} on {_a(kind)}"
            elif kw in STRUCTURAL:
                support = profile.keyword(kw)
                shown = repr(kw)
            elif kw == "format" and isinstance(s[kw], str):
                support = profile.format(s[kw])
                shown = f"the format {s[kw]!r}"
            else:
                continue
            problem = _problem_of(profile, support, shown)
            if problem is not None:
                yield doc.problem(f"{at}/{escape(kw)}", *problem)
        if kind == "string" and "pattern" in s and ("minLength" in s or "maxLength" in s):
            support = profile.pair("string minLength+pattern")
            problem = _problem_of(profile, support, "a length beside a pattern")
            if problem is not None:
                yield doc.problem(at, *problem)


def _problem_of(profile: Profile, support: Support, shown: str) -> tuple[str, str] | None:
    said = f" ({support.detail})" if support.detail else ""
    fix = ("state it in the description instead (describedtypes does, and its decoder "
           "enforces it)")
    if support.status == "rejected":
        return "profile.rejected", f"{profile.name} rejects {shown}{said}; {fix}"
    if support.status == "ignored":
        return ("profile.ignored", f"{profile.name} accepts {shown} and does not enforce "
                f"it{said}, so replies may break it; {fix}")
    if support.status == "over-strict":
        return ("profile.over-strict", f"{profile.name} enforces {shown} too tightly{said}, "
                f"so the model cannot write some valid values; {fix}")
    if support.status == "unknown":
        return ("profile.unknown", f"it is not known whether {profile.name} enforces "
                f"{shown}{said}; re-run describedtypes probe, or {fix}")
    return None


PROFILE_KEYWORDS = Rule(
    "profile", _profile_problems,
    summary="Only keywords and formats the endpoint's profile says it enforces.",
)

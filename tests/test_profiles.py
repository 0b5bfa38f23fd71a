"""Profiles: every adapter's rules as data, files, and bodies built for a given profile."""

from __future__ import annotations

import datetime
import json
import os
import re
from typing import Annotated, Any

import annotated_types as at
import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import describedtypes as dt
from describedtypes import Profile, SchemaError, Support, check, explain, schema
from describedtypes._schema import adapters as A

from .strategies import classes

ADAPTERS = [getattr(A, n) for n in A.__all__ if isinstance(getattr(A, n), A.Adapter)]
ADAPTERS += [A.VLLM.replace(backend="guidance"), A.VLLM.replace(backend="outlines"),
             A.SGLANG_TOOLS.replace(backend="llguidance")]


@attrs.define
class Reading:
    """A sensor reading."""

    count: Annotated[int, at.Ge(0), at.Le(100)]
    ratio: Annotated[float, at.Gt(0), at.Lt(1)]
    code: Annotated[str, at.MinLen(3), at.MaxLen(3)] = attrs.field(
        validator=attrs.validators.matches_re(r"[A-Z]{3}"))
    tags: Annotated[list[str], at.MinLen(1), at.MaxLen(4)]
    unique: frozenset[int]
    label: str | None = None


def _built(tp: Any, adapter: A.Adapter) -> Any:
    """The schema and its rewrites, or the SchemaError's text."""
    try:
        return schema(tp, adapter), explain(tp, adapter)
    except SchemaError as e:
        return str(e)


def _one_of(adapter: A.Adapter) -> str:
    return adapter.name


@pytest.mark.parametrize("adapter", ADAPTERS, ids=_one_of)
def test_every_adapter_rebuilt_from_its_profile_builds_the_same_bodies(adapter: A.Adapter) -> None:
    """An adapter driven by its own profile builds byte-identical bodies."""
    again = adapter.replace(profile=adapter.profile, name=adapter.name)
    assert _built(Reading, again) == _built(Reading, adapter)
    assert again.profile == adapter.profile


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(classes(more_types=True), st.sampled_from(ADAPTERS))
def test_random_types_same_bodies_through_a_profile(tv: Any, adapter: A.Adapter) -> None:
    """For random classes, the profile-driven adapter agrees with the built-in one."""
    tp, _ = tv
    again = adapter.replace(profile=adapter.profile, name=adapter.name)
    assert _built(tp, again) == _built(tp, adapter)


@pytest.mark.parametrize("adapter", ADAPTERS, ids=_one_of)
def test_profiles_survive_a_file(adapter: A.Adapter, tmp_path: Any) -> None:
    """dump() then load() gives the same profile back."""
    path = tmp_path / "p.json"
    adapter.profile.dump(path)
    loaded = Profile.load(path)
    assert loaded.replace(library_version=None) == adapter.profile
    assert json.loads(path.read_text())["library_version"]


def test_tables_read_as_the_engine_and_provider_facts() -> None:
    """The derived profiles say what the engine tables and provider rules say."""
    llama = dt.LLAMACPP.profile
    assert llama.keyword("minimum", "integer").status == "enforced"
    assert llama.keyword("minimum", "number").status == "ignored"
    assert llama.keyword("uniqueItems", "array").status == "ignored"
    assert llama.format("date").status == "enforced"
    assert llama.format("date-time").status == "over-strict"  # sent as a pattern
    assert llama.format("email").status == "ignored"
    assert llama.combined is False
    assert llama.strict is True
    assert llama.request_field == "response_format"
    assert llama.engine == "llama.cpp"
    assert dt.LLAMACPP_TOOLS.profile.strict is False  # no strict flag on its tools
    guidance = dt.VLLM.replace(backend="guidance").profile
    assert guidance.keyword("oneOf").status == "rejected"
    assert guidance.keyword("multipleOf", "integer").status == "enforced"
    anthropic = dt.ANTHROPIC_TOOLS.profile
    assert anthropic.keyword("maximum", "integer").status == "rejected"
    assert anthropic.keyword("pattern", "string").status == "enforced"
    assert anthropic.limits.max_strict_tools == 20
    assert anthropic.combined is True
    assert dt.OPENAI.profile.keyword("uniqueItems", "array").status == "rejected"
    assert dt.GEMINI.profile.keyword("pattern", "string").status == "ignored"
    assert dt.STANDARD.profile.keywords == ()
    assert dt.STANDARD.profile.format("x").status \
        == "enforced"


def test_an_ignored_keyword_goes_into_the_description_and_the_decoder_holds_it() -> None:
    """What a profile ignores is not sent; the description says it; decode refuses a break."""
    profile = dt.VLLM.profile.with_keywords(**{"integer maximum": "ignored"})
    adapter = dt.VLLM.replace(profile=profile)
    body = schema(Reading, adapter)["schema"]
    count = body["properties"]["count"]
    assert "maximum" not in count
    assert count["minimum"] == 0
    assert "100" in count["description"]
    assert "maximum" in schema(Reading, dt.VLLM)["schema"]["properties"]["count"]
    rewrites = explain(Reading, adapter)
    assert any(r.pointer == "/properties/count" and "maximum" in r.detail for r in rewrites)
    with pytest.raises(dt.DecodeError):
        dt.decode(Reading, {"count": 101, "ratio": 0.5, "code": "ABC", "tags": ["a"],
                            "unique": [], "label": None})


def test_a_rejected_keyword_is_a_schema_error_naming_the_server_text() -> None:
    """What a given profile rejects is refused before any request, with the fix."""
    profile = dt.VLLM.profile.with_keywords(**{
        "integer minimum": Support("rejected", "HTTP 400: 'minimum' is not supported")},
    ).replace(on_rejected="error")
    with pytest.raises(SchemaError) as caught:
        schema(Reading, dt.VLLM.replace(profile=profile))
    text = str(caught.value)
    assert "/properties/count" in text
    assert "'minimum' is not supported" in text
    assert "on_rejected" in text
    described = dt.VLLM.replace(profile=profile.replace(on_rejected="describe"))
    assert "minimum" not in schema(Reading, described)["schema"]["properties"]["count"]


def test_a_hosted_profile_rejecting_a_format_or_uniqueness() -> None:
    """On a hosted adapter too: rejected formats and uniqueItems are SchemaErrors."""
    profile = dt.OPENAI.profile.replace(on_rejected="error")
    with pytest.raises(SchemaError, match="uniqueItems"):
        schema(Reading, dt.OPENAI.replace(profile=profile))

    @attrs.define
    class When:
        day: datetime.date

    p = dt.STANDARD.profile.replace(formats={"date": Support("rejected", "no formats")},
                                    on_rejected="error")
    with pytest.raises(SchemaError, match="format date"):
        schema(When, dt.STANDARD.replace(profile=p))


def test_check_and_explain_read_a_profile() -> None:
    """check(schema, profile) reports what the endpoint ignores or rejects, by pointer."""
    profile = Profile(
        name="my-server",
        keywords={"integer maximum": "ignored",
                  "array uniqueItems": Support("rejected", "400 uniqueItems")},
        formats={"email": "ignored"},
    )
    body = {"type": "object", "properties": {
        "n": {"type": "integer", "minimum": 0, "maximum": 3},
        "s": {"type": "array", "items": {"type": "string", "format": "email"},
              "uniqueItems": True}}}
    problems = check(body, profile)
    found = {(p.pointer, p.rule) for p in problems}
    assert found == {("/properties/n/maximum", "profile.ignored"),
                     ("/properties/s/uniqueItems", "profile.rejected"),
                     ("/properties/s/items/format", "profile.ignored")}
    assert any("400 uniqueItems" in p.message for p in problems)
    rewrites = explain(Reading, profile.replace(on_rejected="describe"))
    assert any("maximum" in r.detail for r in rewrites)
    assert any("uniqueItems" in r.detail for r in rewrites)


def test_a_profile_of_an_engine_keeps_its_dialect() -> None:
    """A profile naming an engine table builds with that engine's pattern rules."""
    profile = dt.LLAMACPP.profile.replace(name="llama at home", on_rejected="error")
    built = schema(Reading, A.adapter_for(profile))
    assert built == schema(Reading, dt.VLLM.replace(backend="xgrammar")) or built["schema"]
    # \d is rewritten for llama.cpp as it is for LLAMACPP itself
    @attrs.define
    class Digits:
        text: str = attrs.field(validator=attrs.validators.matches_re(r"\d+"))

    digits = Digits
    assert schema(digits, A.adapter_for(profile)) == schema(digits, dt.LLAMACPP)


@pytest.mark.parametrize(("text", "message"), [
    (b"{not json", "not a JSON file"),
    (b"[]", "not a describedtypes profile"),
    (b'{"describedtypes_profile": 2, "name": "x"}', "describedtypes_profile must be 1"),
    (b'{"describedtypes_profile": 1}', "name must be a non-empty string"),
    (b'{"describedtypes_profile": 1, "name": "x", "keywords": {"integer minimum": "maybe"}}',
     "keywords.integer minimum must be one of enforced"),
    (b'{"describedtypes_profile": 1, "name": "x", "limits": {"max_tools": 3}}',
     "limits.max_tools must be one of"),
    (b'{"describedtypes_profile": 1, "name": "x", "limits": {"max_depth": -1}}',
     "limits.max_depth must be a whole number"),
    (b'{"describedtypes_profile": 1, "name": "x", "observed_at": "yesterday"}',
     "observed_at must be an ISO 8601"),
    (b'{"describedtypes_profile": 1, "name": "x", "combined": "yes"}',
     "combined must be true, false or null"),
    (b'{"describedtypes_profile": 1, "name": "x", "on_rejected": "ignore"}',
     "on_rejected must be"),
])
def test_malformed_files_name_the_path_and_the_field(tmp_path: Any, text: bytes,
                                                     message: str) -> None:
    """A file that is not a profile is one ValueError naming the path and what is wrong."""
    path = tmp_path / "bad.json"
    path.write_bytes(text)
    with pytest.raises(ValueError, match=re.escape(message)) as caught:
        Profile.load(path)
    assert str(caught.value).startswith(str(path) + ": ")
    assert message in str(caught.value)


@pytest.mark.parametrize(("path", "kind"), [
    ("/dev/zero", "a character device"), ("fifo", "a FIFO"), ("folder", "a directory"),
])
def test_only_a_regular_file_is_loaded(tmp_path: Any, path: str, kind: str) -> None:
    """A FIFO would block the reader and /dev/zero never ends: refused before reading."""
    if path == "fifo":
        os.mkfifo(tmp_path / "fifo")
    if path == "folder":
        (tmp_path / "folder").mkdir()
    where = tmp_path / path if not path.startswith("/") else path
    with pytest.raises(ValueError, match=f"is {kind}.*regular file holding a profile"):
        Profile.load(where)


def test_profile_replace_rejects_other_objects() -> None:
    """replace(profile=...) takes a Profile and says so otherwise."""
    with pytest.raises(TypeError, match=r"Profile\.load"):
        dt.VLLM.replace(profile={"keywords": {}})
    with pytest.raises(ValueError, match="status must be one of"):
        Support("sometimes")  # type: ignore[arg-type]

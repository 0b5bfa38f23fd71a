"""A host's own needs in a tool conversation, as profile data (``Profile.tool_choice``,
``Profile.tool_call_content``), through the real openai SDK over a mock transport.

The stand-in answers as llama-cpp-python 0.3.36's server does with
``--chat_format chatml-function-calling`` (read from its source, ``llama_cpp/server/`` and
``llama_chat_format.chatml_function_calling``; ``tests/test_llamacpp_server.py`` runs the
real one): without ``tool_choice`` (or with ``"none"``) it never shows the model the tools;
``"auto"`` lets the model call one and then ignores ``response_format``; a named choice
forces that call; ``"required"`` fails its assertion (HTTP 500). An assistant message
with ``content: null`` fails its request validation and one without ``content`` breaks its
template, both HTTP 500; only ``{"type": "json_object", "schema": ...}`` is a format.
"""

from __future__ import annotations

import asyncio
import importlib
import json
from pathlib import Path
from typing import Any

import pytest

openai = pytest.importorskip("openai", reason="the openai SDK is in the test extra")

import describedtypes as dt  # noqa: E402
from describedtypes import LLAMACPP, LLAMACPP_TOOLS, Profile, schema  # noqa: E402

from .test_ask_sdk import GOOD, WEATHER, Account, Chat, Weather, make_box  # noqa: E402
from .test_two_phase import ChatServer, _respond  # noqa: E402

#: What a probe of llama-cpp-python's server measures, plus the two conversation facts a
#: probe does not measure (written by hand, as docs/hosts.md says).
MEASURED = LLAMACPP.profile.replace(name="llama-cpp-python", request_field=(
    "response_format.json_object"), on_rejected="describe")
HOST = MEASURED.replace(tool_choice="auto", tool_call_content="")


def _error(request: Any, message: str) -> Any:
    module = importlib.import_module(type(request).__module__.split(".")[0])
    return module.Response(500, json={"error": {"message": message}})


class LlamaCppPythonLike(ChatServer):
    """Answers as llama-cpp-python's server does (see the module docstring): the model
    calls ``get_weather`` when it may and no result is in the conversation yet, then
    answers in words; under a format, it writes the format."""

    def __call__(self, request: Any) -> Any:
        body = self.take(request)
        for message in body["messages"]:
            if message["role"] == "assistant" and "content" not in message:
                return _error(request, "'dict object' has no attribute 'content'")
            if message["role"] == "assistant" and not isinstance(message["content"], str):
                return _error(request, "7 validation errors: ... 'content' Input should be "
                              "a valid string")
        fmt = body.get("response_format")
        if fmt is not None and fmt.get("type") != "json_object":
            return _error(request, "1 validation error: response_format ...")
        choice = body.get("tool_choice")
        tools = body.get("tools") or []
        if choice == "required":
            return _error(request, "")  # an AssertionError in chatml_function_calling
        if tools and isinstance(choice, dict):
            return _respond(request, self.kind.calls(
                [("call_0", choice["function"]["name"], {"city": "Paris"})]))
        if tools and choice == "auto":
            ran = any(m["role"] == "tool" for m in body["messages"])
            if not ran:
                return _respond(request, self.kind.calls(
                    [("call_0", "get_weather", {"city": "Paris"})]))
            return _respond(request, self.kind.text(""))  # "message:" under auto
        if fmt is not None:  # tools not shown: the format's grammar holds
            return _respond(request, self.kind.text(GOOD))
        return _respond(request, self.kind.text("It is warm."))


def _run(server: LlamaCppPythonLike, profile: Profile, *, is_async: bool = False,
         **kwargs: Any) -> Any:
    client = Chat().client(server, is_async=is_async)
    kwargs.setdefault("messages", "Weather in Paris?")
    kwargs.setdefault("context", Account("ada"))
    adapter = LLAMACPP.replace(profile=profile)
    box = make_box()
    if is_async:
        return asyncio.run(box.arun(client, model="tiny", details=True, llm_adapter=adapter,
                                    **kwargs))
    return box.run(client, model="tiny", details=True, llm_adapter=adapter, **kwargs)


@pytest.mark.parametrize("is_async", [False, True], ids=["sync", "async"])
def test_two_phases_as_the_host_needs(is_async: bool) -> None:
    """Tool turns send tool_choice "auto"; the assistant's tool-call message goes back
    with content ""; the closing request has the json_object format, no tools and no
    tool_choice; the tool ran and the answer decodes."""
    server = LlamaCppPythonLike()
    result = _run(server, HOST, is_async=is_async, output_type=Weather)
    assert result.output == WEATHER
    assert [t.phase for t in result.turns] == ["tools", "tools", "closing"]
    first, second, closing = server.bodies
    assert first["tool_choice"] == second["tool_choice"] == "auto"
    assert first["tools"] == make_box().definitions(LLAMACPP_TOOLS.replace(profile=HOST))
    assert "response_format" not in first
    replied = [m for m in second["messages"] if m["role"] == "assistant"]
    assert replied == [{"role": "assistant", "content": "", "tool_calls": [
        {"id": "call_0", "type": "function",
         "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}]}]
    assert "tools" not in closing
    assert "tool_choice" not in closing
    assert closing["response_format"] == {
        "type": "json_object",
        "schema": schema(Weather, LLAMACPP.replace(profile=HOST))["schema"]}
    assert result.turns[0].calls[0][1].value["city"] == "Paris"
    assert not result.turns[0].calls[0][1].is_error


def test_without_the_host_data_the_tools_are_never_offered() -> None:
    """The measured profile alone (no tool_choice): the host does not show the model the
    tools, so the run answers without them, as it did before the profile could say so."""
    server = LlamaCppPythonLike()
    result = _run(server, MEASURED, output_type=Weather)
    assert result.output == WEATHER
    assert [t.phase for t in result.turns] == ["tools", "closing"]
    assert "tool_choice" not in server.bodies[0]
    assert not result.turns[0].calls


def test_without_empty_content_the_second_turn_is_a_500() -> None:
    """tool_choice alone: the tool-call message goes back with content null, which the
    host refuses (HTTP 500): what tool_call_content="" is for."""
    server = LlamaCppPythonLike()
    with pytest.raises(openai.InternalServerError, match="validation"):
        _run(server, MEASURED.replace(tool_choice="auto"), output_type=Weather)
    assert server.bodies[1]["messages"][1]["content"] is None


def test_the_callers_tool_choice_wins() -> None:
    """A tool_choice the caller passes goes as given (here a named tool, which this host
    forces; the run then stops at max_turns, as the loop documents)."""
    server = LlamaCppPythonLike()
    forced = {"type": "function", "function": {"name": "get_weather"}}
    with pytest.raises(dt.MaxTurnsError):
        _run(server, HOST, output_type=Weather, tool_choice=forced, max_turns=2)
    assert [b["tool_choice"] for b in server.bodies] == [forced, forced]


def test_combined_sends_the_format_beside_the_tools_and_auto() -> None:
    """phases="combined": every request has the tools, tool_choice "auto" and the format;
    this host ignores the format under "auto" (the profile's combined is false for that
    reason), so the answer in words does not decode: the documented DecodeError."""
    server = LlamaCppPythonLike()
    with pytest.raises(dt.DecodeError):
        _run(server, HOST, output_type=Weather, phases="combined", retries=1)
    assert all(b["tool_choice"] == "auto" and b["tools"] and
               b["response_format"]["type"] == "json_object" for b in server.bodies)
    assert len(server.bodies) == 3  # the call, the answer, its one retry


def test_no_tools_no_tool_choice() -> None:
    """An empty toolbox sends no tool_choice (OpenAI-compatible servers take it only
    beside tools)."""
    server = LlamaCppPythonLike()
    client = Chat().client(server, is_async=False)
    dt.Toolbox().run(client, model="tiny", messages="hi",
                     llm_adapter=LLAMACPP.replace(profile=HOST))
    assert "tool_choice" not in server.bodies[0]


def test_extract_keeps_its_requests() -> None:
    """extract() sends no tools, so the host data changes nothing there."""
    server = LlamaCppPythonLike()
    client = Chat().client(server, is_async=False)
    assert dt.extract(Weather, client, messages="hi", model="tiny",
                      llm_adapter=LLAMACPP.replace(profile=HOST)) == WEATHER
    assert set(server.bodies[0]) == {"model", "messages", "response_format"}


def test_profile_files_keep_the_host_data(tmp_path: Path) -> None:
    """dump/load round trip; a file without the fields reads them as None; a wrong kind
    is a ValueError naming the field."""
    path = tmp_path / "host.json"
    HOST.dump(path)
    assert Profile.load(path) == HOST.replace(library_version=dt.Profile.load(path)
                                              .library_version)
    data = json.loads(path.read_text())
    assert (data["tool_choice"], data["tool_call_content"]) == ("auto", "")
    del data["tool_choice"], data["tool_call_content"]
    path.write_text(json.dumps(data))
    loaded = Profile.load(path)
    assert (loaded.tool_choice, loaded.tool_call_content) == (None, None)
    for field, bad in (("tool_choice", 3), ("tool_call_content", False)):
        path.write_text(json.dumps({**data, field: bad}))
        with pytest.raises(ValueError, match=f"{path}: {field} must be"):
            Profile.load(path)
    with pytest.raises(TypeError, match="tool_choice must be"):
        MEASURED.replace(tool_choice=["auto"])


def test_built_in_adapters_need_nothing_of_the_kind() -> None:
    """The built-in adapters' own profiles say nothing about the conversation."""
    for adapter in (LLAMACPP, LLAMACPP_TOOLS, dt.VLLM, dt.OPENAI):
        assert adapter.profile.tool_choice is None
        assert adapter.profile.tool_call_content is None

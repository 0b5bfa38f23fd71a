"""Cache-stable requests: the same tools give the same bytes in every process, whatever the
hash seed or the order annotations were registered in; fingerprints; a diff that names
every change; the ``describedtypes tools`` command."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
import typing
from pathlib import Path
from typing import Literal, Union

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from describedtypes import (
    ANTHROPIC_TOOLS,
    OPENAI_CHAT_TOOLS,
    OPENAI_TOOLS,
    DecodeError,
    DefinitionChange,
    Toolbox,
    decode,
    diff_definitions,
    schema,
)
from describedtypes._cli.main import main

from .cli_support import ROOT, SRC

HELPER = "tests.determinism_tools"


def definitions_in_a_process(seed: int, order: list[int], tools: list[int]) -> str:
    env = {
        "PYTHONHASHSEED": str(seed),
        "DT_ORDER": ",".join(map(str, order)),
        "DT_TOOLS": ",".join(map(str, tools)),
        "PYTHONPATH": f"{SRC}:{ROOT}",
        "PATH": "/usr/bin:/bin",
    }
    done = subprocess.run(
        [sys.executable, "-m", HELPER], env=env, cwd=ROOT, capture_output=True, text=True,
        timeout=120, check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@settings(max_examples=6, deadline=None)
@given(
    seeds=st.tuples(st.integers(0, 2**32 - 1), st.integers(0, 2**32 - 1)),
    order=st.permutations(range(5)),
    tools=st.permutations(range(3)),
)
def test_same_bytes_under_any_hash_seed_and_annotation_order(
    seeds: tuple[int, int], order: list[int], tools: list[int]
) -> None:
    """Two processes with different PYTHONHASHSEED, annotations registered and tools added
    in other orders (listed by name): byte-identical definitions for every adapter."""
    reference = definitions_in_a_process(seeds[0], [0, 1, 2, 3, 4], [0, 1, 2])
    assert reference.count("\n") == 12
    assert definitions_in_a_process(seeds[1], list(order), list(tools)) == reference


def weather(city: str, unit: str = "celsius") -> str:
    """Get the weather.

    Args:
        city: The city.
    """
    return city


def ship(to: str, express: bool = False) -> str:
    """Ship a parcel."""
    return to


def track(parcel: str) -> str:
    """Track a parcel."""
    return parcel


class TestOrderAndFingerprint:
    def test_registration_order_or_by_name(self) -> None:
        """Tools are listed in registration order, or by name with order="name"."""
        box = Toolbox([track, weather, ship])
        assert [d["name"] for d in box.definitions(OPENAI_TOOLS)] == ["track", "weather", "ship"]
        assert [d["name"] for d in box.definitions(OPENAI_TOOLS, order="name")] == [
            "ship", "track", "weather"]
        with pytest.raises(ValueError, match="registration"):
            box.definitions(OPENAI_TOOLS, order="size")  # type: ignore[arg-type]

    def test_fingerprint_follows_the_bytes(self) -> None:
        """Equal tools, equal fingerprints (16 hex digits); any byte changed, another one."""
        one = Toolbox([weather, ship]).fingerprint(ANTHROPIC_TOOLS)
        assert one == Toolbox([weather, ship]).fingerprint(ANTHROPIC_TOOLS)
        assert len(one) == 16
        int(one, 16)
        assert one == Toolbox([weather, ship]).plan(ANTHROPIC_TOOLS).fingerprint
        assert one != Toolbox([ship, weather]).fingerprint(ANTHROPIC_TOOLS)
        assert one != Toolbox([weather, ship]).fingerprint(OPENAI_CHAT_TOOLS)
        edited = Toolbox([weather])
        edited.add(ship, description="Ship a parcel now.")
        assert one != edited.fingerprint(ANTHROPIC_TOOLS)


class TestDiff:
    def test_same_is_empty(self) -> None:
        """The same tools: no change, from a Toolbox or a list."""
        box = Toolbox([weather, ship])
        assert diff_definitions(box, Toolbox([weather, ship]), llm_adapter=OPENAI_TOOLS) == []
        sent = box.definitions(OPENAI_TOOLS)
        assert diff_definitions(sent, json.loads(json.dumps(sent))) == []

    def test_added_removed_moved(self) -> None:
        """Tools added, removed and moved are each named with their positions."""
        old = Toolbox([weather, ship, track]).definitions(OPENAI_CHAT_TOOLS)
        new = Toolbox([ship, weather]).definitions(OPENAI_CHAT_TOOLS)
        changes = diff_definitions(old, new)
        assert DefinitionChange("removed", "track", "$", 2, None) in changes
        moved = [c for c in changes if c.kind == "moved"]
        assert len(moved) == 1
        assert moved[0].tool in ("weather", "ship")
        added = diff_definitions(new, old)
        assert DefinitionChange("added", "track", "$", None, 2) in added

    def test_changed_values_with_paths(self) -> None:
        """A changed description, a parameter added and a type changed: each with its
        tool, JSON path, old and new value."""
        old = Toolbox([weather]).definitions(ANTHROPIC_TOOLS)
        new = json.loads(json.dumps(old))
        new[0]["description"] = "Get the current weather."
        props = new[0]["input_schema"]["properties"]
        props["unit"]["type"] = "integer"
        props["days"] = {"type": "integer"}
        changes = diff_definitions(old, new)
        assert DefinitionChange("changed", "weather", "$.description", "Get the weather.",
                                "Get the current weather.") in changes
        assert DefinitionChange("changed", "weather", "$.input_schema.properties.unit.type",
                                "string", "integer") in changes
        assert DefinitionChange("changed", "weather", "$.input_schema.properties.days", None,
                                {"type": "integer"}) in changes
        text = [str(c) for c in changes]
        assert '~ weather $.description: "Get the weather." -> "Get the current weather."' in text

    def test_reordered_keys_and_list_items(self) -> None:
        """The same keys in another order are other bytes: reported; so are list items."""
        old = Toolbox([weather]).definitions(ANTHROPIC_TOOLS)
        new = json.loads(json.dumps(old))
        schema = new[0]["input_schema"]
        schema["properties"] = dict(reversed(list(schema["properties"].items())))
        schema["required"] = list(reversed(schema["required"]))
        changes = diff_definitions(old, new)
        kinds = {(c.kind, c.path) for c in changes}
        assert ("reordered", "$.input_schema.properties") in kinds
        assert ("changed", "$.input_schema.required[0]") in kinds

    def test_a_saved_file(self, tmp_path: Path) -> None:
        """A saved JSON file (a list, or an object with "tools") is read."""
        box = Toolbox([weather, ship])
        path = tmp_path / "tools.json"
        path.write_text(json.dumps(box.definitions(OPENAI_TOOLS)))
        assert diff_definitions(path, box, llm_adapter=OPENAI_TOOLS) == []
        path.write_text(json.dumps({"tools": box.definitions(OPENAI_TOOLS)}))
        assert diff_definitions(str(path), box, llm_adapter=OPENAI_TOOLS) == []

    def test_bad_input(self, tmp_path: Path) -> None:
        """A Toolbox without an adapter, a non-list, a broken file: clear errors."""
        box = Toolbox([weather])
        with pytest.raises(TypeError, match="llm_adapter"):
            diff_definitions(box, box)
        with pytest.raises(TypeError, match="Toolbox, a list"):
            diff_definitions(42, [])  # type: ignore[arg-type]
        with pytest.raises(TypeError, match=r"old\[0\]"):
            diff_definitions([{"no": "name"}], [])
        bad = tmp_path / "bad.json"
        bad.write_text("{not json")
        with pytest.raises(ValueError, match="not JSON"):
            diff_definitions(bad, [])
        with pytest.raises(ValueError, match="cannot read"):
            diff_definitions(tmp_path / "missing.json", [])

    @pytest.mark.parametrize(("path", "kind"), [
        ("/dev/zero", "a character device"),  # never ends: read whole, it filled memory
        ("fifo", "a FIFO"),  # would block until a writer came
        ("folder", "a directory"),
    ])
    def test_only_a_regular_file_is_read(self, tmp_path: Path, path: str, kind: str) -> None:
        if path == "fifo":
            os.mkfifo(tmp_path / "fifo")
        if path == "folder":
            (tmp_path / "folder").mkdir()
        where = tmp_path / path if not path.startswith("/") else Path(path)
        with pytest.raises(ValueError, match=f"is {kind}.*regular file"):
            diff_definitions(where, [])

    def test_a_file_past_the_limit_is_refused(self, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
        from describedtypes._tools import diff

        monkeypatch.setattr(diff, "MAX_FILE", 10)
        path = tmp_path / "tools.json"
        path.write_text(json.dumps(Toolbox([weather]).definitions(OPENAI_TOOLS)))
        with pytest.raises(ValueError, match="larger than 10 bytes"):
            diff_definitions(path, [])


BOX_FILE = """
from describedtypes import Toolbox

def weather(city: str) -> str:
    '''{doc}'''
    return city

box = Toolbox([weather])
not_a_box = 3
"""


class TestCommand:
    def write(self, tmp_path: Path, doc: str = "Get the weather.") -> str:
        path = tmp_path / "box.py"
        path.write_text(BOX_FILE.format(doc=doc))
        return f"{path}:box"

    def test_prints_definitions_and_fingerprint(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """The definitions as sent, and the fingerprint alone."""
        target = self.write(tmp_path)
        assert main(["tools", target, "--adapter", "anthropic_tools"]) == 0
        out = json.loads(capsys.readouterr().out)
        assert out[0]["name"] == "weather"
        assert main(["tools", target, "--adapter", "anthropic_tools", "--fingerprint"]) == 0
        fingerprint = capsys.readouterr().out.strip()
        from describedtypes._tools.requests import fingerprint_of

        assert fingerprint == fingerprint_of(out)

    def test_against_exits_1_when_different(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        """--against: 0 and "same" for the same bytes; 1 and each change otherwise."""
        target = self.write(tmp_path)
        main(["tools", target, "--adapter", "openai_tools"])
        saved = tmp_path / "saved.json"
        saved.write_text(capsys.readouterr().out)
        assert main(["tools", target, "--adapter", "openai_tools", "--against", str(saved)]) == 0
        assert "same definitions" in capsys.readouterr().out
        target2 = str(tmp_path / "box.py").replace("box.py", "box2.py")
        Path(target2).write_text(BOX_FILE.format(doc="Get the current weather."))
        code = main(["tools", target2 + ":box", "--adapter", "openai_tools", "--against",
                     str(saved)])
        assert code == 1
        out = capsys.readouterr().out
        assert "1 difference(s)" in out
        assert "$.description" in out

    def test_usage_errors_exit_2(self, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        """Not a Toolbox, or an unreadable --against file: exit 2 with one line."""
        target = self.write(tmp_path).replace(":box", ":not_a_box")
        with pytest.raises(SystemExit) as info:
            main(["tools", target, "--adapter", "openai_tools"])
        assert info.value.code == 2
        assert "not a Toolbox" in capsys.readouterr().err
        with pytest.raises(SystemExit) as info:
            main(["tools", self.write(tmp_path), "--adapter", "openai_tools", "--against",
                  str(tmp_path / "missing.json")])
        assert info.value.code == 2


# -- tool search: defer_loading -------------------------------------------------------------


class TestDeferLoading:
    def test_sent_where_the_provider_has_tool_search(self) -> None:
        """defer_loading=True adds the field for OpenAI Responses and Anthropic only; the
        other tools' bytes stay as they were."""
        box = Toolbox([weather])
        box.add(ship, defer_loading=True)
        plain = Toolbox([weather, ship])
        for adapter in (OPENAI_TOOLS, ANTHROPIC_TOOLS):
            sent = box.definitions(adapter)
            assert "defer_loading" not in sent[0]
            assert sent[1]["defer_loading"] is True
            assert sent[0] == plain.definitions(adapter)[0]
            del sent[1]["defer_loading"]
            assert sent == plain.definitions(adapter)
        assert box.definitions(OPENAI_CHAT_TOOLS) == plain.definitions(OPENAI_CHAT_TOOLS)
        with pytest.raises(ValueError, match="defer_loading"):
            Toolbox().add(track, defer_loading="yes")  # type: ignore[arg-type]

    def test_responses_tool_search_items_are_read(self) -> None:
        """Through the openai SDK: a deferred tool passes the SDK's request types, and a
        reply holding tool_search_call / tool_search_output items runs the function call
        beside them without error."""
        from .standin import problems
        from .test_ask_sdk import Responses

        box = Toolbox([weather])
        box.add(ship, defer_loading=True)
        kind = Responses()
        found = box.definitions(OPENAI_TOOLS)[1]
        first = kind.calls([("call_1", "ship", {"to": "Oslo"})])
        first["output"][:0] = [
            {"type": "tool_search_call", "id": "ts_1", "call_id": "search_1",
             "arguments": {"query": "ship"}, "execution": "server", "status": "completed"},
            {"type": "tool_search_output", "id": "tso_1", "call_id": "search_1",
             "execution": "server", "status": "completed", "tools": [found]},
        ]
        replies = [first, kind.text("Shipped.")]
        bodies: list[dict[str, object]] = []

        def handler(request: object) -> object:
            body = json.loads(request.content)  # type: ignore[attr-defined]
            bodies.append(body)
            wrong = problems("openai", "/v1/responses", body)
            assert not wrong, wrong
            module = importlib.import_module(type(request).__module__.split(".")[0])
            return module.Response(200, json=replies.pop(0))

        client = kind.client(handler, is_async=False)
        result = box.run(client, model="m", messages="Ship to Oslo", api="responses",
                         tools=[{"type": "tool_search"}], details=True)
        assert result.output == "Shipped."
        assert result.turns[0].calls[0][1].value == "Oslo"
        assert bodies[0]["tools"][0] == {"type": "tool_search"}
        assert bodies[0]["tools"][2]["defer_loading"] is True
        sent_back = [item.get("type") for item in bodies[1]["input"]]
        assert "tool_search_call" in sent_back
        assert "tool_search_output" in sent_back


class TestExpressionsThatCompareEqual:
    """``Literal`` and ``Union`` compare (and hash) by their set of arguments:
    ``Literal["a", "b"] == Literal["b", "a"]``, ``int | str == str | int``. The cache keys
    them by their arguments in order, so what one process described before never decides
    the order another expression's schema lists its values in (failed before: the second
    took the first's enum order)."""

    @settings(max_examples=60, deadline=None)
    @given(
        values=st.lists(
            st.one_of(st.sampled_from([0, 1, False, True]), st.text(max_size=3)),
            min_size=2, max_size=4, unique_by=lambda v: (type(v), v),
        ).flatmap(lambda vs: st.tuples(st.just(vs), st.permutations(vs))),
    )
    def test_a_literal_lists_its_values_in_its_own_order(
        self, values: tuple[list[object], list[object]]
    ) -> None:
        first, second = values
        for order in (first, second):
            tp = Literal[tuple(order)]  # type: ignore[valid-type]
            assert schema(tp)["enum"] == list(typing.get_args(tp))
            assert decode(list[tp], json.dumps(list(order))) == list(order)  # type: ignore[valid-type]

    @pytest.mark.parametrize(
        ("one", "other"),
        [(int | str, str | int),
         (Union[int, None, str], Union[str, None, int]),  # noqa: UP007 (typing's own Union)
         (list[Literal["a", "b"]], list[Literal["b", "a"]]),
         (dict[str, int | bool], dict[str, bool | int])],
        ids=["union", "optional union", "nested literal", "nested union"],
    )
    def test_equal_expressions_keep_their_own_schema(self, one: object, other: object) -> None:
        assert one == other  # (what the cache must see past)
        assert hash(one) == hash(other)
        first = json.dumps(schema(one))
        second = json.dumps(schema(other))
        assert first != second
        assert json.dumps(schema(one)) == first
        assert json.dumps(schema(other)) == second

    def test_zero_and_false_keep_their_order_in_an_error(self) -> None:
        for tp, shown in ((Literal[False, 0], "[False, 0]"), (Literal[0, False], "[0, False]")):
            with pytest.raises(DecodeError) as info:
                decode(tp, "true")
            assert info.value.errors == [("$", f"True is not one of {shown}")]

    def test_a_tool_parameter_lists_its_values_as_written(self) -> None:
        """A tool's definition (the bytes a prompt cache keys on) follows its own
        annotation, not an equal one some other tool had."""

        def paint(color: Literal["red", "blue"]) -> str:
            """Paint."""
            return color

        def dye(color: Literal["blue", "red"]) -> str:
            """Dye."""
            return color

        for fn, enum in ((dye, ["blue", "red"]), (paint, ["red", "blue"])):
            (definition,) = Toolbox([fn]).definitions(OPENAI_TOOLS)
            assert definition["parameters"]["properties"]["color"]["enum"] == enum

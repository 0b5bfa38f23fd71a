"""python -m describedtypes schema TARGET."""

from __future__ import annotations

import importlib.metadata
import json
import subprocess
import sys
from pathlib import Path

import pytest

from describedtypes._cli.main import main

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = str(ROOT / "examples" / "weather.py") + ":Weather"
FORECAST = str(ROOT / "examples" / "forecast.py") + ":Forecast"


def test_prints_standard_schema_of_a_file_target(capsys: pytest.CaptureFixture[str]) -> None:
    """A path/to/file.py:Name target prints its STANDARD schema as indented JSON."""
    assert main(["schema", EXAMPLE]) == 0
    out = capsys.readouterr().out
    data = json.loads(out)
    assert data["type"] == "object"
    assert data["description"] == "Current weather observation."
    assert out.startswith("{\n  ")


def test_adapter_and_references(capsys: pytest.CaptureFixture[str]) -> None:
    """--adapter picks the shape and --references factors classes into $defs."""
    assert main(["schema", FORECAST, "--adapter", "OpenAI", "--references"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["strict"] is True
    assert data["schema"]["properties"]["location"] == {"$ref": "#/$defs/Location"}


def test_module_target(capsys: pytest.CaptureFixture[str]) -> None:
    """A package.module:Name target is imported."""
    assert main(["schema", "tests.seed_types:Person", "--adapter", "openai_tools"]) == 0
    assert json.loads(capsys.readouterr().out)["name"] == "Person"


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("examples/weather.py", "TARGET must look like"),
        ("examples/nope.py:Weather", "no such file"),
        (EXAMPLE.replace("Weather", "Wether"), "did you mean 'Weather'?"),
        ("no_such_module_xyz:Thing", "no_such_module_xyz: cannot import it: ModuleNotFound"),
    ],
)
def test_bad_targets_exit_2_with_a_message(
    target: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A target that cannot be loaded exits 2 with one line saying why."""
    with pytest.raises(SystemExit) as info:
        main(["schema", target])
    assert info.value.code == 2
    assert message in capsys.readouterr().err


def test_schema_error_exits_1(capsys: pytest.CaptureFixture[str]) -> None:
    """A type the adapter cannot express exits 1 with the SchemaError message."""
    with pytest.raises(SystemExit) as info:
        main(["schema", "builtins:bytes"])
    assert info.value.code == 1
    assert "JSON has no bytes" in capsys.readouterr().err


def test_unknown_adapter_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    """An adapter name that does not exist lists the valid ones."""
    with pytest.raises(SystemExit) as info:
        main(["schema", EXAMPLE, "--adapter", "claude"])
    assert info.value.code == 2
    assert "anthropic_tools" in capsys.readouterr().err


def test_python_dash_m_entry_point() -> None:
    """python -m describedtypes runs the same command line."""
    done = subprocess.run(
        [sys.executable, "-m", "describedtypes", "schema", EXAMPLE, "--adapter", "gemini"],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    assert json.loads(done.stdout)["name"] == "Weather"


def test_version_prints_the_installed_version(capsys: pytest.CaptureFixture[str]) -> None:
    """--version prints the distribution's version and exits 0."""
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    expected = importlib.metadata.version("describedtypes")
    assert capsys.readouterr().out == f"describedtypes {expected}\n"


@pytest.mark.parametrize(
    ("prog", "shown"),
    [
        ("describedtypes", "usage: describedtypes "),
        ("python -m describedtypes", "usage: python -m"),
    ],
)
def test_usage_names_the_program_as_invoked(
    prog: str, shown: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The usage line says describedtypes for the script, python -m ... for the module."""
    monkeypatch.setattr(sys, "argv", ["/venv/bin/describedtypes"])
    with pytest.raises(SystemExit):
        main([], prog=None if prog == "describedtypes" else prog)
    assert capsys.readouterr().err.startswith(shown)


def test_python_dash_m_usage_line() -> None:
    """Run as python -m describedtypes, the usage line says so (not __main__.py)."""
    done = subprocess.run(
        [sys.executable, "-m", "describedtypes"], capture_output=True, text=True, cwd=ROOT
    )
    assert done.returncode == 2
    assert done.stderr.startswith("usage: python -m describedtypes ")


def test_graph_prints_a_mermaid_class_diagram(capsys: pytest.CaptureFixture[str]) -> None:
    """graph TARGET prints the diagram graph() makes, boxes and arrows."""
    assert main(["graph", FORECAST, "--direction", "tb"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("classDiagram\n    direction TB\n")
    assert '    Forecast --> "*" Day : days\n' in out
    assert "        <<enumeration>>\n" in out


def test_graph_errors_are_messages(capsys: pytest.CaptureFixture[str]) -> None:
    """A bad target exits 2, an undescribable type exits 1, each with one line."""
    with pytest.raises(SystemExit) as info:
        main(["graph", EXAMPLE.replace("Weather", "Wether")])
    assert info.value.code == 2
    assert "did you mean 'Weather'?" in capsys.readouterr().err
    with pytest.raises(SystemExit) as info:
        main(["graph", "builtins:bytes"])
    assert info.value.code == 1
    assert "JSON has no bytes" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ([], "error: choose a command: schema, graph, decode, mcp, batch"),
        (["batch"], "error: 'batch' needs a subcommand: retry"),
    ],
)
def test_a_missing_command_is_named_in_the_users_words(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """No command, or ``batch`` alone: exit 2 naming what to type, never argparse's
    internal ``dest`` names (``command``, ``batch_command``)."""
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert message in err
    assert "batch_command" not in err
    assert "arguments are required" not in err

"""The docs say what the code does: the adapter tables of README.md and docs/cli.md list
exactly the adapters the CLI accepts, and install hints name what can be installed.

A new adapter that is not added to both tables (or a row left behind, or listed twice)
fails here rather than in a reader's terminal.
"""

from __future__ import annotations

import re
from pathlib import Path

from describedtypes._cli.main import adapter_names

ROOT = Path(__file__).resolve().parent.parent


def _cli_names() -> list[str]:
    return sorted(adapter_names())


def test_readme_adapter_table_lists_every_cli_adapter_once() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## Adapters", 1)[1]
    table = section.split("\n\n", 2)[1]
    rows = [line for line in table.splitlines() if line.startswith("| `")]
    listed = [re.match(r"\| `([A-Z_]+)` \|", row) for row in rows]
    assert all(listed), rows
    names = [m.group(1).lower() for m in listed if m]
    assert sorted(names) == _cli_names()
    assert len(names) == len(set(names))


def test_cli_docs_adapter_option_lists_every_cli_adapter_once() -> None:
    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    row = next(line for line in text.splitlines() if line.startswith("| `--adapter NAME`"))
    names = re.findall(r"`([a-z_]+)`", row.split("|")[2])
    assert sorted(names) == _cli_names()
    assert len(names) == len(set(names))


def test_install_hints_name_what_can_be_installed() -> None:
    """describedtypes is installed from a clone, not from a package index: no message or
    page tells a reader to ``pip install 'describedtypes[...]'``, which would fail."""
    pattern = re.compile(r"pip install\s+['\"]?describedtypes\[")
    pages = [*sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md",
             *sorted((ROOT / "notebooks").glob("*.ipynb")),
             *sorted((ROOT / "src").rglob("*.py"))]
    found = [
        f"{path.relative_to(ROOT)}:{n}"
        for path in pages if path.name != "changelog.md"
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if pattern.search(line)
    ]
    assert found == []


def _console_commands(text: str) -> list[str]:
    blocks = re.findall(r"```console\n(.*?)```", text, re.S)
    return [line for block in blocks for line in block.splitlines() if "pytest" in line]


def test_ci_runs_the_readmes_test_commands() -> None:
    """.ci/run runs the README's quick run and its slow run, with what they install."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    quick, slow = _console_commands(readme)
    for line in (quick, slow):
        _, _, test = line.partition(" && ")
        assert test in ci.splitlines(), test
    assert '".[test]"' in quick
    assert "-m slow" in slow
    assert '-e ".[ci]"' in ci


def test_the_slow_modules_exist() -> None:
    """Every module tests/conftest.py leaves out of the quick run is a real test module."""
    from tests.conftest import SLOW_MODULES, XDIST_GROUPS

    for name in (*SLOW_MODULES, *XDIST_GROUPS):
        assert (ROOT / "tests" / name).is_file(), name

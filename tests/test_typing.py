"""The public entry points type the way users write them, checked by mypy and pyright.

Every file in ``tests/typing/`` is checked with ``mypy --strict`` against this checkout's
``src``; each ``reveal_type(...)`` line carries an ``# expect: <type>`` comment, and the
type mypy reveals must be that text (module prefixes and ``builtins.`` left out, so the
expectations read the way the code is written and survive mypy's display changes).
The ``reveal_*.py`` files are also checked by pyright in strict mode, which must reveal
the same type, or the ``pyright: <type>`` text where it spells a type its own way.
"""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

api = pytest.importorskip(
    "mypy.api", reason="mypy is not installed (pip install -e '.[test-typing]')"
)

HERE = Path(__file__).parent
TYPING = HERE / "typing"
SRC = HERE.parent / "src"
FILES = sorted(TYPING.glob("*.py"))

_EXPECT = re.compile(
    r"reveal_type\(.*\)\s*#\s*expect:\s*(?P<type>.+?)(?:\s+pyright:\s*(?P<pyright>.+?))?\s*$"
)
_REVEALED = re.compile(r'^(?P<file>[^:]+):(?P<line>\d+): note: Revealed type is "(?P<type>.*)"$')


def _normalise(text: str) -> str:
    text = text.replace("builtins.", "")
    # tests.typing.module.Name / module.Name -> Name, for the module under test.
    return re.sub(r"\b(?:tests\.typing\.)?reveal_\w+\.", "", text)


@pytest.fixture(scope="module")
def mypy_output(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    import os

    cache = tmp_path_factory.mktemp("mypy-cache")
    old = os.environ.get("MYPYPATH")
    # This checkout's source, ahead of whatever describedtypes is installed.
    os.environ["MYPYPATH"] = str(SRC)
    try:
        stdout, stderr, _status = api.run(
            [
                "--strict",
                "--no-error-summary",
                "--show-absolute-path",
                "--cache-dir",
                str(cache),
                "--python-version",
                "3.10",
                *map(str, FILES),
            ]
        )
    finally:
        if old is None:
            del os.environ["MYPYPATH"]
        else:
            os.environ["MYPYPATH"] = old
    assert not stderr.strip(), stderr
    return stdout.splitlines()


def test_there_are_reveal_checks() -> None:
    count = sum(1 for f in FILES for line in f.read_text().splitlines() if _EXPECT.search(line))
    assert count >= 15


def test_typing_files_pass_strict_mypy(mypy_output: list[str]) -> None:
    errors = [line for line in mypy_output if ": error:" in line]
    assert errors == []


def test_revealed_types_match_expectations(mypy_output: list[str]) -> None:
    revealed: dict[tuple[str, int], str] = {}
    for line in mypy_output:
        m = _REVEALED.match(line)
        if m:
            revealed[(str(Path(m["file"]).resolve()), int(m["line"]))] = m["type"]
    mismatches = []
    checked = 0
    for path in FILES:
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            m = _EXPECT.search(line)
            if m is None:
                continue
            checked += 1
            got = revealed.get((str(path.resolve()), number))
            if got is None or _normalise(got) != m["type"]:
                mismatches.append(f"{path.name}:{number}: expected {m['type']!r}, got {got!r}")
    assert checked
    assert mismatches == []


# -- pyright ---------------------------------------------------------------------------

_PYRIGHT_TYPE = re.compile(r'^Type of ".*" is "(?P<type>.*)"$', re.S)


def _pyright() -> list[str]:
    # The pip package runs as `python -m pyright`, whether or not its script is on PATH.
    if importlib.util.find_spec("pyright") is not None:
        return [sys.executable, "-m", "pyright"]
    found = shutil.which("pyright")
    if found is None:
        pytest.skip("pyright is not installed (pip install -e '.[test-typing]')")
    return [found]


def test_pyright_reveals_the_same_types(tmp_path: Path) -> None:
    files = [f for f in FILES if f.name.startswith("reveal_")]
    config = tmp_path / "pyrightconfig.json"
    config.write_text(
        json.dumps(
            {
                "extraPaths": [str(SRC)],
                "pythonVersion": "3.10",
                "typeCheckingMode": "strict",
                "reportMissingModuleSource": False,
            }
        )
    )
    try:
        done = subprocess.run(
            [*_pyright(), "-p", str(config), "--outputjson", *map(str, files)],
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        report = json.loads(done.stdout)
    except (OSError, subprocess.TimeoutExpired, json.JSONDecodeError) as exc:
        # The pip package fetches its Node.js half on first use; offline it cannot.
        pytest.skip(f"pyright could not run here: {exc!r:.200}")
    revealed: dict[tuple[str, int], str] = {}
    errors = []
    for diag in report["generalDiagnostics"]:
        line = diag["range"]["start"]["line"] + 1
        key = (str(Path(diag["file"]).resolve()), line)
        m = _PYRIGHT_TYPE.match(diag["message"])
        if diag["severity"] == "information" and m:
            revealed[key] = m["type"]
        elif diag["severity"] == "error":
            errors.append(f"{Path(diag['file']).name}:{line}: {diag['message']}")
    assert errors == []
    mismatches = []
    for path in files:
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            m = _EXPECT.search(line)
            if m is None:
                continue
            wanted = m["pyright"] or m["type"]
            got = revealed.get((str(path.resolve()), number))
            if got != wanted:
                mismatches.append(f"{path.name}:{number}: expected {wanted!r}, got {got!r}")
    assert mismatches == []

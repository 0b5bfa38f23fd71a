"""The public entry points type the way users write them, checked by mypy itself.

Every file in ``tests/typing/`` is checked with ``mypy --strict`` against this checkout's
``src``; each ``reveal_type(...)`` line carries an ``# expect: <type>`` comment, and the
type mypy reveals must be that text (module prefixes and ``builtins.`` left out, so the
expectations read the way the code is written and survive mypy's display changes).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

api = pytest.importorskip("mypy.api", reason="mypy is not installed (pip install -e '.[test]')")

HERE = Path(__file__).parent
TYPING = HERE / "typing"
SRC = HERE.parent / "src"
FILES = sorted(TYPING.glob("*.py"))

_EXPECT = re.compile(r"reveal_type\(.*\)\s*#\s*expect:\s*(?P<type>.+?)\s*$")
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

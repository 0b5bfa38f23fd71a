"""The documentation runs: every Python example in docs/ and README.md, with its output.

Rules for a page (docs/**/*.md and README.md):

- Every fenced ```` ```python ```` block is executed, in page order, in one module
  namespace per page, so a later block can use what an earlier one defined.
- A ```` ```json ````, ```` ```text ```` or ```` ```mermaid ```` block right after a Python
  block (nothing but blank lines between) is that block's output: what the block prints
  must equal it (JSON compared as data, key order included; text and Mermaid diagrams
  compared line by line, trailing spaces ignored). A Python block that prints without
  such a block fails, so output shown on a page is always checked and output a page
  doesn't show is never produced. A ```` ```mermaid ```` block after a command shows
  that command's output.
- A ```` ```console ```` block runs each ``$ python -m describedtypes ...`` line from the
  repository root and compares the lines that follow it with what the command printed.
- A Python block that talks to a model is preceded by ``<!-- stand-in: NAME -->``: it
  runs with the SDKs' clients served by tests/standin.py, which checks every request with
  the SDK's own request types (as the API would) and answers with the canned replies
  ``REPLIES[NAME]`` of tests/standin_replies.py, every one of which must be used.
- A Python block that needs an optional extra is preceded by
  ``<!-- needs-extra: NAME -->``; it runs where the extra is installed (``tox -e NAME``)
  and otherwise is left out, which ``test_pages_that_need_an_extra`` reports as a skip
  with the reason.
- A Python block that cannot run at all (a package that is not a test dependency) is
  preceded by ``<!-- skip-test: <reason> -->``; it is still compiled, and the reason is
  required.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import shlex
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import attrs
import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PAGES = [*sorted(DOCS.glob("**/*.md")), ROOT / "README.md"]

_FENCE = re.compile(r"^(?P<fence>`{3,}|~{3,})(?P<info>[^`\n]*)$")
_SKIP = re.compile(r"<!--\s*skip-test:(?P<reason>.*?)-->", re.DOTALL)
_STAND_IN = re.compile(r"<!--\s*stand-in:\s*(?P<name>[\w-]+)\s*-->")
_NEEDS_EXTRA = re.compile(r"<!--\s*needs-extra:\s*(?P<name>[\w-]+)\s*-->")
#: The modules each optional extra of pyproject.toml brings, for ``needs-extra`` blocks,
#: and why the quick run (the ``test`` extra) goes without it.
EXTRAS = {
    "comparison": (("instructor", "pydantic_ai"),
                   "pins an older openai than the test extra installs: run tox -e comparison"),
    "tokens": (("bpe_openai",), "the tokenizer is left out of the quick run; .ci/run has it"),
    "test-recipes": (("dask",), "Dask is left out of the quick run; .ci/run has it"),
}
_OUTPUT_LANGS = ("json", "text", "mermaid")


@attrs.frozen
class Block:
    """One fenced code block of a page."""

    lang: str
    code: str
    line: int  # 1-based line of the opening fence
    before: str  # the page text between the previous block and this one


def read_blocks(text: str) -> list[Block]:
    """The fenced code blocks of a Markdown page, in order."""
    blocks: list[Block] = []
    lines = text.splitlines()
    i = 0
    last_end = 0
    while i < len(lines):
        match = _FENCE.match(lines[i])
        if match is None:
            i += 1
            continue
        fence, info = match["fence"], match["info"].strip()
        start = i
        i += 1
        body: list[str] = []
        while i < len(lines) and not (
            lines[i].startswith(fence) and lines[i].strip(fence[0]) == ""
        ):
            body.append(lines[i])
            i += 1
        if i == len(lines):
            msg = f"line {start + 1}: the code block is never closed"
            raise AssertionError(msg)
        lang = info.split()[0] if info else ""
        before = "\n".join(lines[last_end:start])
        blocks.append(Block(lang, "\n".join(body) + "\n", start + 1, before))
        i += 1
        last_end = i
    return blocks


def skip_reason(block: Block) -> str | None:
    """The reason given by a ``skip-test`` comment right before the block, if any."""
    found = list(_SKIP.finditer(block.before))
    match = found[-1] if found else None
    if match is None or block.before[match.end() :].strip():
        return None
    reason = match["reason"].strip()
    if not reason:
        msg = f"line {block.line}: a skip-test comment must say why the block cannot run"
        raise AssertionError(msg)
    return reason


def needed_extra(block: Block) -> str | None:
    """The extra a ``needs-extra`` comment right before the block names, if any."""
    found = list(_NEEDS_EXTRA.finditer(block.before))
    if not found or block.before[found[-1].end() :].strip():
        return None
    name = found[-1]["name"]
    assert name in EXTRAS, f"line {block.line}: no extra named {name!r} in EXTRAS"
    return name


def extra_installed(name: str) -> bool:
    import importlib.util

    modules, _ = EXTRAS[name]
    return all(importlib.util.find_spec(module) is not None for module in modules)


def stand_in_name(block: Block) -> str | None:
    """The replies a ``stand-in`` comment right before the block names, if any."""
    found = list(_STAND_IN.finditer(block.before))
    if not found or block.before[found[-1].end() :].strip():
        return None
    return found[-1]["name"]


def run_block(page: str, block: Block, code: Any, namespace: dict[str, Any]) -> None:
    """Execute one block, against the provider stand-in when the page asks for it."""
    name = stand_in_name(block)
    if name is None:
        exec(code, namespace)
        return
    from .standin import StandIn
    from .standin_replies import REPLIES

    assert name in REPLIES, f"{page}:{block.line}: no replies named {name!r} in standin_replies"
    stand_in = StandIn(REPLIES[name])
    with stand_in.serving():
        exec(code, namespace)
    assert stand_in.replies == [], (
        f"{page}:{block.line}: {len(stand_in.replies)} canned replies were never asked for"
    )


def _ordered(text: str) -> Any:
    """JSON as data whose comparison also sees the order of object keys."""
    return json.loads(text, object_pairs_hook=lambda pairs: ("object", pairs))


def _lines(text: str) -> list[str]:
    return [line.rstrip() for line in text.strip("\n").splitlines()]


def check_output(page: str, block: Block, printed: str, shown: Block | None) -> None:
    """Compare what a block printed with the output block shown after it."""
    where = f"{page}:{block.line}"
    if shown is None:
        assert not printed, (
            f"{where} prints output that the page does not show; add a ```json or ```text "
            f"block right after it. It printed:\n{printed}"
        )
        return
    assert printed, f"{where} prints nothing, but the page shows output after it"
    if shown.lang == "json":
        try:
            got = _ordered(printed)
        except json.JSONDecodeError as exc:
            msg = f"{where} should print JSON ({exc}); it printed:\n{printed}"
            raise AssertionError(msg) from None
        assert got == _ordered(shown.code), (
            f"{where}: the printed JSON differs from the page (line {shown.line}); "
            f"it printed:\n{printed}"
        )
    else:
        assert _lines(printed) == _lines(shown.code), (
            f"{where}: the printed text differs from the page (line {shown.line}); "
            f"it printed:\n{printed}"
        )


#: The time a ``decode`` run took varies: compared as a shape, not as numbers.
_TIMING = re.compile(r"in [\d.]+ s \([\d,]+ lines/s\)")
_UNTIMED = "in N s (N lines/s)"


def run_console(page: str, block: Block) -> int:
    """Run the ``$ python -m describedtypes`` commands of a console block; count them."""
    ran = 0
    lines = block.code.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if not line.startswith("$ python -m describedtypes"):
            continue
        expected: list[str] = []
        while i < len(lines) and not lines[i].startswith("$ "):
            expected.append(lines[i])
            i += 1
        argv = [sys.executable, *shlex.split(line[2:])[1:]]
        done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, check=False)
        shown = "\n".join(expected)
        printed = _TIMING.sub(_UNTIMED, done.stdout + done.stderr)
        assert _lines(printed) == _lines(_TIMING.sub(_UNTIMED, shown)), (
            f"{page}:{block.line}: `{line[2:]}` printed something else "
            f"(exit {done.returncode}):\n{done.stdout}{done.stderr}"
        )
        ran += 1
    return ran


def run_page(path: Path) -> dict[str, int]:
    """Execute a page's examples; return how many blocks ran, were compared or skipped."""
    page = str(path.relative_to(ROOT))
    blocks = read_blocks(path.read_text(encoding="utf-8"))
    name = "docs_" + re.sub(r"\W", "_", page.removesuffix(".md"))
    module = types.ModuleType(name)
    module.__file__ = str(path)
    sys.modules[name] = module  # classes defined on the page resolve their annotations here
    counts = {"ran": 0, "compared": 0, "skipped": 0, "commands": 0, "needs_extra": 0}
    try:
        for index, block in enumerate(blocks):
            if block.lang == "console":
                counts["commands"] += run_console(page, block)
                continue
            if block.lang != "python":
                continue
            code = compile(block.code, f"{page}:{block.line}", "exec")
            if skip_reason(block) is not None:
                counts["skipped"] += 1
                continue
            extra = needed_extra(block)
            if extra is not None and not extra_installed(extra):
                counts["needs_extra"] += 1
                continue
            following = blocks[index + 1] if index + 1 < len(blocks) else None
            shown = (
                following
                if following is not None
                and following.lang in _OUTPUT_LANGS
                and not following.before.strip()
                else None
            )
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                run_block(page, block, code, module.__dict__)
            check_output(page, block, out.getvalue(), shown)
            counts["ran"] += 1
            counts["compared"] += shown is not None
    finally:
        del sys.modules[name]
    return counts


_RUNS: dict[Path, dict[str, int]] = {}


def page_counts(path: Path) -> dict[str, int]:
    """``run_page(path)``, run once per test session."""
    if path not in _RUNS:
        _RUNS[path] = run_page(path)
    return _RUNS[path]


@pytest.mark.parametrize("path", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_page_examples_run_and_print_what_the_page_shows(path: Path) -> None:
    """Every Python block of the page runs in order, and prints exactly the output shown."""
    counts = page_counts(path)
    blocks = read_blocks(path.read_text(encoding="utf-8"))
    python = [b for b in blocks if b.lang == "python"]
    assert counts["ran"] + counts["skipped"] + counts["needs_extra"] == len(python)
    # Skipping is for the few calls that need an API key, never a page's worth.
    assert counts["skipped"] <= max(1, len(python) // 3), f"{path.name}: too many skipped"


def test_every_page_is_in_the_navigation() -> None:
    """mkdocs.yml lists every page under docs/, so no page is built but unreachable."""
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    listed = set(re.findall(r"([\w/.-]+\.md)\s*$", nav, flags=re.MULTILINE))
    pages = {str(p.relative_to(DOCS)) for p in DOCS.glob("**/*.md")}
    assert pages - listed == set()
    assert listed - pages == set()


def test_the_guide_is_checked_not_just_parsed() -> None:
    """Across the docs, most printed examples are compared with the output they show."""
    total = {"ran": 0, "compared": 0, "skipped": 0, "commands": 0, "needs_extra": 0}
    for path in PAGES:
        for key, value in page_counts(path).items():
            total[key] += value
    assert total["ran"] >= 60
    assert total["compared"] >= 45
    assert total["commands"] >= 2
    # Each skipped block says why; provider calls run against the stand-in, so only the
    # Ray recipe is left.
    assert total["skipped"] <= 1


@pytest.mark.parametrize("extra", sorted(EXTRAS))
def test_pages_that_need_an_extra(extra: str) -> None:
    """The blocks marked ``needs-extra`` run where the extra is installed."""
    marked = [
        (path, block) for path in PAGES
        for block in read_blocks(path.read_text(encoding="utf-8"))
        if block.lang == "python" and needed_extra(block) == extra
    ]
    assert marked, f"no page has a block that needs the {extra!r} extra; drop it from EXTRAS"
    if not extra_installed(extra):
        modules, why = EXTRAS[extra]
        pytest.skip(f"needs the {extra!r} extra ({', '.join(modules)}): {why}")
    for path in {path for path, _ in marked}:
        assert page_counts(path)["needs_extra"] == 0


class TestCollector:
    """The block reader and the output comparison themselves."""

    PAGE = (
        "Intro\n\n```python\nprint(1)\n```\n\n```text\n1\n```\n\n"
        "<!-- skip-test: needs a key -->\n```python\ncall()\n```\n"
    )

    def test_blocks_are_read_in_order_with_their_language(self) -> None:
        """Fences are found with their language, code and line."""
        blocks = read_blocks(self.PAGE)
        assert [(b.lang, b.code, b.line) for b in blocks] == [
            ("python", "print(1)\n", 3),
            ("text", "1\n", 7),
            ("python", "call()\n", 12),
        ]

    def test_the_skip_comment_must_be_right_before_the_block(self) -> None:
        """Only a comment directly above a block skips it, and it carries the reason."""
        blocks = read_blocks(self.PAGE)
        assert skip_reason(blocks[0]) is None
        assert skip_reason(blocks[2]) == "needs a key"
        moved = read_blocks("<!-- skip-test: why -->\nSome text.\n```python\nx = 1\n```\n")
        assert skip_reason(moved[0]) is None

    def test_a_skip_comment_without_a_reason_is_refused(self) -> None:
        """``skip-test:`` with no reason is an error, not a silent skip."""
        [block] = read_blocks("<!-- skip-test: -->\n```python\nx = 1\n```\n")
        with pytest.raises(AssertionError, match="must say why"):
            skip_reason(block)

    def test_json_output_is_compared_with_key_order(self) -> None:
        """Printed JSON equals the shown JSON only with the same keys in the same order."""
        [block, shown] = read_blocks('```python\n```\n```json\n{"a": 1, "b": 2}\n```\n')
        check_output("p", block, '{"a":1,"b":2}', shown)
        with pytest.raises(AssertionError, match="printed JSON differs"):
            check_output("p", block, '{"b": 2, "a": 1}', shown)

    def test_printing_without_shown_output_fails(self) -> None:
        """A block whose output the page does not show must not print."""
        [block] = read_blocks("```python\nprint(1)\n```\n")
        with pytest.raises(AssertionError, match="does not show"):
            check_output("p", block, "1\n", None)

    def test_text_output_must_match(self) -> None:
        """Shown text must be exactly what was printed, line by line."""
        [block, shown] = read_blocks("```python\n```\n```text\nok\n```\n")
        check_output("p", block, "ok  \n", shown)
        with pytest.raises(AssertionError, match="printed text differs"):
            check_output("p", block, "not ok\n", shown)


def test_the_api_reference_lists_every_public_name() -> None:
    """docs/api.md documents every name describedtypes exports, so none is left out."""
    import describedtypes

    reference = (DOCS / "api.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"^::: describedtypes\.(\w+)\s*$", reference, re.MULTILINE))
    documented |= set(re.findall(r"^#+ `(\w+)`\s*$", reference, re.MULTILINE))
    assert sorted(set(describedtypes.__all__) - documented) == []


def test_the_readme_try_it_prints_the_tour_schema() -> None:
    """The README's first command prints the schema its tour shows first, key for key."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    try_it = text.split("## Try it", 1)[1].split("\n## ", 1)[0]
    [command] = [b.code.strip() for b in read_blocks(try_it) if b.lang == "console"][:1]
    cli = command.split("&&")[-1].strip()
    assert cli.startswith("python -m describedtypes schema ")
    argv = [sys.executable, *shlex.split(cli)[1:]]
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, check=True)
    tour = text.split("## A short tour", 1)[1]
    first_json = next(b for b in read_blocks(tour) if b.lang == "json")
    assert _ordered(done.stdout) == _ordered(first_json.code)


def _console_outputs(blocks: list[Block]) -> list[list[str]]:
    """What each ``$ python -m describedtypes`` line of the console blocks shows."""
    outputs: list[list[str]] = []
    for block in blocks:
        if block.lang != "console":
            continue
        for chunk in ("\n" + block.code).split("\n$ ")[1:]:
            outputs.append(_lines(chunk.split("\n", 1)[1] if "\n" in chunk else ""))
    return outputs


@pytest.mark.parametrize("path", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_diagram_is_printed_by_the_code_beside_it(path: Path) -> None:
    """A ```mermaid block is the output of the Python block or the command before it."""
    blocks = read_blocks(path.read_text(encoding="utf-8"))
    for index, block in enumerate(blocks):
        if block.lang != "mermaid":
            continue
        before = blocks[index - 1] if index else None
        if before is not None and before.lang == "python" and not block.before.strip():
            continue  # compared with what the block printed by run_page
        assert _lines(block.code) in _console_outputs(blocks[:index]), (
            f"{path.name}:{block.line}: the diagram is not the output of a command shown "
            "above it on the page"
        )

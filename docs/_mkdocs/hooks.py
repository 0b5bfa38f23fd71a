"""MkDocs hooks: the "Notebooks" section of the nav lists every notebook in notebooks/.

They are listed in ``READING_ORDER``, the quickstart first; a notebook added to
notebooks/ must be placed there (the build fails, naming it, until it is). A title is
the first ``# `` heading of the notebook's first Markdown cell.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
SECTION = "Notebooks"

#: The notebooks in the order to read them: the path from a schema to a batch.
READING_ORDER = (
    "quickstart",
    "references_and_recursion",
    "extract_and_tools",
    "streaming",
    "tools",
    "batches",
    "evaluation",
)


def notebook_title(path: Path) -> str:
    """The first level-one heading of the notebook, or its file name."""
    book = json.loads(path.read_text(encoding="utf-8"))
    for cell in book.get("cells", []):
        if cell.get("cell_type") != "markdown":
            continue
        source = cell.get("source", "")
        text = "".join(source) if isinstance(source, list) else source
        for line in text.splitlines():
            if line.startswith("# "):
                return line[2:].strip()
    return path.stem.replace("_", " ").capitalize()


def notebook_entries() -> list[dict[str, str]]:
    """Nav entries for every notebook, in ``READING_ORDER``."""
    found = {path.stem: path for path in NOTEBOOKS.glob("*.ipynb")}
    unplaced = sorted(set(found) - set(READING_ORDER))
    if unplaced:
        msg = (
            f"notebooks/{unplaced[0]}.ipynb is not in READING_ORDER of docs/_mkdocs/hooks.py; "
            "add it where it should be read"
        )
        raise ValueError(msg)
    return [
        {notebook_title(found[stem]): f"notebooks/{stem}.ipynb"}
        for stem in READING_ORDER
        if stem in found
    ]


def on_config(config: Any, **kwargs: Any) -> Any:
    """Put the notebooks under the nav's (empty) "Notebooks" section."""
    for index, item in enumerate(config["nav"] or []):
        if isinstance(item, dict) and SECTION in item:
            config["nav"][index] = {SECTION: notebook_entries()}
            break
    else:
        msg = f'mkdocs.yml has no "{SECTION}" section in its nav for the notebooks'
        raise ValueError(msg)
    return config


# nbconvert's page template loads Mermaid from a CDN for its own diagrams (mkdocs-material
# draws ours, from the copy served with the site) and adds a MathJax tag with an empty
# source (the notebooks have no formulas). Both go, so a page fetches nothing from
# another host.
_NBCONVERT_MERMAID = re.compile(
    r'<script type="module">\s*document\.addEventListener\("DOMContentLoaded", async \(\) => \{'
    r'\s*const diagrams = document\.querySelectorAll\("\.jp-Mermaid > pre\.mermaid"\);'
    r".*?</script>",
    re.DOTALL,
)
_EMPTY_SCRIPT = re.compile(r'<script src="">\s*</script>')

# nbconvert writes a text/vnd.mermaid output into <pre class="mermaid"> without escaping
# it, so the annotation of a recursive class, <<recursive>>, arrives parsed as a tag (and
# closed by the HTML cleaner): &lt;<recursive>&gt; ... </recursive>. Written back as text,
# the diagram's source is what graph() printed and Mermaid draws it.
_MERMAID_BLOCK = re.compile(r'(<pre class="mermaid">)(.*?)(</pre>)', re.DOTALL)
_TAGGED_ANNOTATION = re.compile(r"&lt;<(\w+)>&gt;")
_CLOSING_TAG = re.compile(r"</\w+>")


# nbconvert's style hides a diagram's wrapper until its own (removed) loader has drawn it;
# mkdocs-material draws it instead, so the wrapper is marked drawn from the start.
_HIDDEN_WRAPPER = '<div class="jp-Mermaid">'
_SHOWN_WRAPPER = '<div class="jp-Mermaid jp-RenderedMermaid">'


def _mermaid_as_text(match: re.Match[str]) -> str:
    body = _TAGGED_ANNOTATION.sub(r"&lt;&lt;\1&gt;&gt;", match.group(2))
    return match.group(1) + _CLOSING_TAG.sub("", body) + match.group(3)


def on_post_page(output: str, page: Any, config: Any, **kwargs: Any) -> str:
    """Drop nbconvert's CDN Mermaid loader and empty MathJax tag from notebook pages, and
    give its diagrams their text back."""
    if not str(page.file.src_uri).endswith(".ipynb"):
        return output
    output = _NBCONVERT_MERMAID.sub("", output)
    output = _MERMAID_BLOCK.sub(_mermaid_as_text, output)
    output = output.replace(_HIDDEN_WRAPPER, _SHOWN_WRAPPER)
    return _EMPTY_SCRIPT.sub("", output)

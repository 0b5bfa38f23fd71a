"""Re-run the notebooks offline and save them with their outputs.

    python -m tests.update_notebooks              # every notebooks/*.ipynb
    python -m tests.update_notebooks quickstart   # only the ones named

Each notebook runs in a fresh kernel without API keys (so every provider call uses the
notebook's canned reply), from notebooks/, against the package importable in this
environment; run it from the repository root with the package installed (``pip install
-e .``) or ``PYTHONPATH=src``. The outputs are committed so GitHub and the docs site show
them; tests/test_notebooks.py fails when a committed output is no longer what the
notebook prints, and says to run this.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from tests.test_notebooks import NOTEBOOKS, kernel_env, notebook_paths


def update(path: Path) -> None:
    """Execute ``path`` in place, keeping only outputs and execution counts."""
    book = nbformat.read(path, as_version=4)
    client = NotebookClient(
        book,
        kernel_name="python3",
        timeout=300,
        record_timing=False,
        resources={"metadata": {"path": str(NOTEBOOKS)}},
    )
    client.execute(env=kernel_env())
    for cell in book.cells:
        cell.metadata.pop("execution", None)
    nbformat.validate(book)
    nbformat.write(book, path)


def main(argv: Sequence[str]) -> int:
    paths = notebook_paths()
    if argv:
        wanted = {name.removesuffix(".ipynb") for name in argv}
        unknown = wanted - {p.stem for p in paths}
        if unknown:
            print(f"no such notebook in notebooks/: {', '.join(sorted(unknown))}", file=sys.stderr)
            return 2
        paths = [p for p in paths if p.stem in wanted]
    for path in paths:
        print(f"running {path.relative_to(NOTEBOOKS.parent)}", flush=True)
        update(path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

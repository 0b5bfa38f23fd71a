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

import os
import sys
from collections.abc import Sequence
from pathlib import Path

import nbformat
from nbclient import NotebookClient

# Standalone on purpose (tests/test_notebooks.py keeps the same two definitions): a new
# notebook that test_notebooks.py does not know yet can still be run and saved here.
NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
PROVIDER_ENV = (
    "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL",
    "GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GEMINI_BASE_URL",
)


def notebook_paths() -> list[Path]:
    return sorted(NOTEBOOKS.glob("*.ipynb"))


def kernel_env() -> dict[str, str]:
    """This process's environment without provider keys or endpoints: the offline run."""
    return {k: v for k, v in os.environ.items() if k not in PROVIDER_ENV}


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

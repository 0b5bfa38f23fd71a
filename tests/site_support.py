"""Build the documentation site once per test run, for the tests that read or open it."""

from __future__ import annotations

import atexit
import functools
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


def docs_extra_missing() -> str | None:
    """Why the site cannot be built here (the ``docs`` extra is not installed), or None."""
    for module in ("mkdocs", "material", "mkdocstrings_handlers.python", "mkdocs_jupyter"):
        if importlib.util.find_spec(module.split(".")[0]) is None:
            return f"{module} is not installed (pip install -e '.[docs]')"
    return None


@functools.cache
def site_dir() -> Path:
    """The site built with ``mkdocs build --strict`` into a temporary directory."""
    reason = docs_extra_missing()
    if reason is not None:
        pytest.skip(reason)
    out = Path(tempfile.mkdtemp(prefix="describedtypes-site-"))
    atexit.register(shutil.rmtree, out, ignore_errors=True)
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(ROOT / "src"), env.get("PYTHONPATH", "")) if p
    )
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", str(out)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, f"mkdocs build --strict failed:\n{done.stdout}{done.stderr}"
    return out


def _ignore_python_tags(loader: Any, suffix: str, node: Any) -> None:
    return None


def nav() -> list[Any]:
    """The ``nav`` of mkdocs.yml, with the notebooks the build adds to it."""
    import yaml

    class Loader(yaml.SafeLoader):
        pass

    Loader.add_multi_constructor("tag:yaml.org,2002:python/", _ignore_python_tags)
    config = yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=Loader)
    spec = importlib.util.spec_from_file_location(
        "describedtypes_docs_hooks", DOCS / "_mkdocs" / "hooks.py"
    )
    assert spec is not None
    assert spec.loader is not None
    hooks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hooks)
    return [
        {"Notebooks": hooks.notebook_entries()} if isinstance(i, dict) and "Notebooks" in i else i
        for i in config["nav"]
    ]


def section(name: str) -> dict[str, str]:
    """The pages of one nav section: title -> source file."""
    for item in nav():
        if isinstance(item, dict) and name in item:
            return {title: src for entry in item[name] for title, src in entry.items()}
    msg = f"mkdocs.yml has no nav section {name!r}"
    raise AssertionError(msg)


def page_url(src: str) -> str:
    """The site-relative URL mkdocs gives a source file (use_directory_urls)."""
    stem = src.rsplit(".", 1)[0]
    if stem == "index":
        return ""
    return stem.removesuffix("/index") + "/"

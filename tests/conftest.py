"""Shared fixtures, hypothesis profiles, and the split between quick and slow tests.

``python -m pytest -n auto --dist loadgroup`` (the README's command) runs the quick tests;
the slow ones are left out, and the modules that hold only slow tests are not even
imported, so the quick run needs nothing beyond the ``test`` extra. ``python -m pytest -m
slow`` runs the slow ones (``.ci/run`` does, after the quick run, with every extra
installed), and a test file named on the command line runs whole, slow tests included.

A test is slow when it needs a heavy tool (a browser, the grammar engines, a notebook
kernel, the type checkers, the tokenizer, the docs build), starts servers in
subprocesses, or explores with hypothesis for more than a few seconds.
"""

from __future__ import annotations

import os
import signal
import threading
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# Several tests press Ctrl-C on a command they started (SIGINT to the process or its
# group) and check that it stops cleanly. A shell that starts the suite in the background
# without job control (`pytest ... &` in a script, `nohup ... &`) starts it with SIGINT
# ignored, and an ignored signal stays ignored through fork and exec: every command the
# tests start would never see the Ctrl-C (they rightly keep a disposition their parent
# chose; Python and asyncio do the same). The suite takes back what an interactive start
# gives it, Python's own handler, which exec turns into the default for each child.
# (Module level, so the pytest process sets it before it starts the xdist workers, and
# each worker again.)
if (
    threading.current_thread() is threading.main_thread()
    and signal.getsignal(signal.SIGINT) is signal.SIG_IGN
):
    signal.signal(signal.SIGINT, signal.default_int_handler)

settings.register_profile(
    "default", deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "ci", deadline=None, max_examples=200, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("fast", deadline=None, max_examples=20)
# CI runs a fixed set of examples (the same on every run, so a red build is the change's
# own); locally every run explores new ones. HYPOTHESIS_PROFILE picks one by name.
settings.register_profile(
    "ci-fixed",
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(
    os.environ.get("HYPOTHESIS_PROFILE", "ci-fixed" if os.environ.get("CI") else "default")
)

#: Modules whose every test is slow, and why (the extra that brings what they need).
SLOW_MODULES = {
    "test_engines.py": "compiles bodies with the grammar engines (the test-engines extra)",
    "test_grammar.py": "compiles bodies with llguidance (the test-engines extra)",
    "test_check_differential.py": "runs check() against llguidance (the test-engines extra)",
    "test_notebooks.py": "runs the notebooks in a Jupyter kernel (the test-notebooks extra)",
    "test_typing.py": "runs mypy and pyright (the test-typing extra)",
    "test_site.py": "builds the docs site with MkDocs (the docs extra)",
    "test_site_browser.py": "opens the docs site in chromium (the test-browser extra)",
    "test_benchmarks.py": "runs every benchmark in quick mode",
    "test_probe.py": "probes local servers that enforce with llguidance (the test-engines extra)",
    "test_llamacpp_server.py": "runs a real llama.cpp server (llama-cpp-python; .ci/run builds it)",
}

#: Modules whose tests share something costly built once per process (the docs pages'
#: runs, the built site): under ``pytest -n auto --dist loadgroup`` each goes to one worker,
#: so it is built once.
XDIST_GROUPS = {
    "test_docs.py": "docs-pages",
    "test_site.py": "docs-site",
    "test_site_browser.py": "docs-site",
}


def _default_run(config: pytest.Config) -> bool:
    """No ``-m`` given and no test file or test named: the quick run."""
    if config.getoption("markexpr"):
        return False
    for arg in config.args:
        path = Path(arg.split("::", 1)[0])
        if not path.is_absolute():
            path = Path(config.invocation_params.dir) / path
        if "::" in arg or not path.is_dir():
            return False
    return True


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    if collection_path.name in SLOW_MODULES and _default_run(config):
        return True
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.name in SLOW_MODULES:
            item.add_marker(pytest.mark.slow)
        if item.path.name in XDIST_GROUPS:
            item.add_marker(pytest.mark.xdist_group(XDIST_GROUPS[item.path.name]))
    if not _default_run(config):
        return
    slow = [item for item in items if item.get_closest_marker("slow") is not None]
    if slow:
        config.hook.pytest_deselected(items=slow)
        items[:] = [item for item in items if item.get_closest_marker("slow") is None]


def pytest_report_header(config: pytest.Config) -> str | None:
    if _default_run(config):
        return ("quick run: the slow tests are left out "
                "(python -m pytest -m slow runs them; .ci/run runs both)")
    return None

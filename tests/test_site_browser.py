"""The documentation site in a real browser: every page renders, search works, no errors.

The site is built with ``mkdocs build --strict``, served on 127.0.0.1 and opened with
playwright in the system's chromium (``apt-get install chromium``; playwright's own
browser download is not used). Skipped, with the reason, where the ``docs`` extra,
playwright or chromium is missing.
"""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest

from tests.site_support import page_url, section, site_dir

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def chromium_path() -> str | None:
    """The system chromium (DESCRIBEDTYPES_CHROMIUM overrides), or None."""
    override = os.environ.get("DESCRIBEDTYPES_CHROMIUM")
    if override:
        return override
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    """The built site served on 127.0.0.1; yields its base URL."""
    root = site_dir()
    handler = functools.partial(_QuietHandler, directory=str(root))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=10)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="playwright is not installed (the test extra has it)"
    )
    executable = chromium_path()
    if executable is None:
        pytest.skip("no chromium on this machine (apt-get install chromium)")
    with sync_api.sync_playwright() as p:
        try:
            instance = p.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        except Exception as exc:
            pytest.skip(f"chromium at {executable} did not start: {exc}")
        try:
            yield instance
        finally:
            instance.close()


class Visit:
    """One page opened in a fresh tab, with what it logged and requested."""

    def __init__(self, browser: Any, url: str) -> None:
        self.page = browser.new_page()
        self.errors: list[str] = []
        self.foreign: list[str] = []
        self.failed: list[str] = []
        host = urlparse(url).netloc
        self.page.on(
            "console", lambda m: self.errors.append(m.text) if m.type == "error" else None
        )
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on(
            "request",
            lambda r: self.foreign.append(r.url)
            if urlparse(r.url).netloc not in ("", host) and not r.url.startswith("data:")
            else None,
        )
        self.page.on("requestfailed", lambda r: self.failed.append(r.url))
        self.page.goto(url, wait_until="load", timeout=30_000)

    def close(self) -> None:
        self.page.close()


def all_pages() -> list[str]:
    return sorted(
        str(p.parent.relative_to(site_dir())).removeprefix(".") + "/"
        for p in site_dir().glob("**/index.html")
    )


def test_every_page_renders_without_errors(browser: Any, server: str) -> None:
    """Each page shows its title and content, loads only from the site, logs no error."""
    problems: list[str] = []
    pages = all_pages()
    assert len(pages) >= 15
    for path in pages:
        rel = path.lstrip("/")
        visit = Visit(browser, server + rel)
        try:
            page = visit.page
            page.wait_for_selector("article h1", timeout=15_000)
            title = page.inner_text("article h1").strip()
            words = len(page.inner_text("article").split())
            diagrams = page.locator("pre.mermaid").count() + page.locator("div.mermaid").count()
            if diagrams:
                # mkdocs-material replaces each <pre class="mermaid"> by the drawn diagram.
                page.wait_for_function(
                    "document.querySelectorAll('pre.mermaid').length === 0", timeout=30_000
                )
                drawn = page.locator("div.mermaid")
                boxes = [drawn.nth(i).bounding_box() for i in range(drawn.count())]
                # A diagram with no box is not on the page's layout at all (hidden).
                heights = [box["height"] if box is not None else 0.0 for box in boxes]
                if drawn.count() != diagrams or min(heights) < 50:
                    problems.append(f"{rel}: diagrams not drawn ({heights})")
            page.wait_for_timeout(200)  # late console errors from scripts that ran on load
            if not title or words < 30:
                problems.append(f"{rel}: empty page (title {title!r}, {words} words)")
            problems += [f"{rel}: console error: {e}" for e in visit.errors]
            problems += [f"{rel}: loads {u}" for u in visit.foreign]
            problems += [f"{rel}: failed to load {u}" for u in visit.failed]
        finally:
            visit.close()
    assert problems == []


_FINDS = """([query, target]) => {
    const links = [...document.querySelectorAll('a.md-search-result__link')];
    return document.querySelector('input.md-search__input').value === query
        && links.some(a => new URL(a.href).pathname.replace(/\\/$/, '').endsWith(target));
}"""


@pytest.mark.parametrize("section_name", ["Guide", "Notebooks"])
def test_search_finds_each_page_by_its_title(browser: Any, server: str, section_name: str) -> None:
    """Typing a guide page's or notebook's title into search lists that page."""
    visit = Visit(browser, server)
    missing = []
    try:
        box = visit.page.locator("input.md-search__input")
        for title, src in section(section_name).items():
            target = page_url(src).rstrip("/")
            # Typed key by key: mkdocs-material searches on key presses, not on fill().
            box.click()
            box.fill("")
            visit.page.keyboard.type(title)
            try:
                visit.page.wait_for_function(_FINDS, arg=[title, target], timeout=15_000)
            except Exception:
                links = visit.page.locator("a.md-search-result__link")
                got = [links.nth(i).get_attribute("href") for i in range(min(links.count(), 5))]
                missing.append(f"{title!r} -> {target or 'home'}: got {got}")
        assert visit.errors == []
    finally:
        visit.close()
    assert missing == []


def test_screenshots(browser: Any, server: str, tmp_path: Path) -> None:
    """The home page and a notebook page render to non-blank screenshots."""
    out = Path(os.environ.get("DESCRIBEDTYPES_SCREENSHOTS", tmp_path))
    out.mkdir(parents=True, exist_ok=True)
    for name, rel in (("home", ""), ("notebook", "notebooks/references_and_recursion/")):
        visit = Visit(browser, server + rel)
        try:
            visit.page.set_viewport_size({"width": 1280, "height": 900})
            shot = out / f"{name}.png"
            visit.page.screenshot(path=str(shot), full_page=name == "notebook")
            assert shot.stat().st_size > 10_000
        finally:
            visit.close()

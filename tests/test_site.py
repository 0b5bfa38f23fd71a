"""The built documentation site: what a reader gets, checked in the HTML and search index.

The site is built with ``mkdocs build --strict`` (tests/site_support.py); these tests are
skipped, with the reason, where the ``docs`` extra is not installed.
"""

from __future__ import annotations

import base64
import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from tests.site_support import DOCS, ROOT, page_url, section, site_dir

#: Words a reader searches for; wherever a page has one, search must find it there.
SEARCHED_WORDS = ("retry", "stream", "instructor", "Decimal", "logging", "graph", "Mermaid")


def html_pages() -> list[Path]:
    return sorted(site_dir().glob("**/*.html"))


def search_index() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((site_dir() / "search" / "search_index.json").read_text())
    return data


class _Resources(HTMLParser):
    """Every URL a page loads by itself (scripts, styles, images, fonts, frames)."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag in ("script", "img", "iframe", "source", "audio", "video", "embed") and found.get(
            "src"
        ):
            self.urls.append(found["src"] or "")
        if tag == "link" and found.get("href"):
            rel = (found.get("rel") or "").lower()
            if rel not in ("next", "prev", "canonical", "alternate"):
                self.urls.append(found["href"] or "")


def test_pages_load_nothing_from_other_hosts() -> None:
    """No page loads a font, script or style from another host: all are served with it."""
    offenders: list[str] = []
    for page in html_pages():
        text = page.read_text(encoding="utf-8")
        parser = _Resources()
        parser.feed(text)
        urls = parser.urls + re.findall(r"""(?:import\(|url\()\s*["']?(https?://[^"')\s]+)""", text)
        offenders += [f"{page.relative_to(site_dir())}: {u}" for u in urls if urlparse(u).netloc]
    for sheet in site_dir().glob("**/*.css"):
        css = sheet.read_text(encoding="utf-8")
        imports = re.findall(r"""@import\s+(?:url\()?["']?(https?://[^"')\s]+)""", css)
        offenders += [f"{sheet.relative_to(site_dir())}: {url}" for url in imports]
    assert offenders == []


def test_fonts_are_the_systems_and_mermaid_is_served_locally() -> None:
    """The theme asks for no web font, and the Mermaid script is a file of the site."""
    home = (site_dir() / "index.html").read_text(encoding="utf-8")
    assert "fonts.googleapis" not in home
    assert "fonts.gstatic" not in home
    assert 'src="assets/javascripts/mermaid.min.js"' in home
    assert (site_dir() / "assets" / "javascripts" / "mermaid.min.js").stat().st_size > 1_000_000


def test_every_page_has_previous_and_next_links() -> None:
    """The navigation footer links each page to its neighbours in the nav."""
    home = (site_dir() / "index.html").read_text(encoding="utf-8")
    assert "md-footer__link--next" in home
    api = (site_dir() / "api" / "index.html").read_text(encoding="utf-8")
    assert "md-footer__link--prev" in api
    assert "md-footer__link--next" in api


def test_every_guide_title_is_in_the_search_index() -> None:
    """Search knows each guide page and notebook by its title."""
    docs = search_index()["docs"]
    titles = {d["location"]: d["title"] for d in docs if "#" not in d["location"]}
    for name in ("Guide", "Notebooks"):
        for title, src in section(name).items():
            url = page_url(src)
            assert url in titles, f"{src} is not in the search index"
            assert titles[url] == title


def test_search_finds_a_word_on_every_page_that_has_it() -> None:
    """retry, stream, instructor, Decimal, ...: each page using the word is a search hit."""
    docs = search_index()["docs"]
    indexed: dict[str, str] = {}
    for d in docs:
        url = d["location"].split("#", 1)[0]
        indexed[url] = indexed.get(url, "") + " " + d["title"] + " " + d["text"]
    sources = {
        page_url(str(p.relative_to(DOCS))): p.read_text(encoding="utf-8")
        for p in DOCS.glob("*.md")
    }
    for book in (ROOT / "notebooks").glob("*.ipynb"):
        cells = json.loads(book.read_text(encoding="utf-8"))["cells"]
        sources[f"notebooks/{book.stem}/"] = "\n".join("".join(c["source"]) for c in cells)
    missing = []
    for word in SEARCHED_WORDS:
        pattern = re.compile(rf"\b{re.escape(word)}", re.IGNORECASE)
        for url, source in sources.items():
            if pattern.search(source) and not pattern.search(indexed.get(url, "")):
                missing.append(f"{word!r} on {url or 'the home page'}")
    assert missing == []


def test_notebooks_are_rendered_with_their_outputs() -> None:
    """Each notebook is a page showing its committed outputs: text, tables and the diagram."""
    pages = section("Notebooks")
    assert len(pages) == len(list((ROOT / "notebooks").glob("*.ipynb")))
    for src in pages.values():
        html = (site_dir() / page_url(src) / "index.html").read_text(encoding="utf-8")
        assert html.count("jp-OutputArea-output") >= 3, (
            f"{src} shows no outputs; run `python -m tests.update_notebooks` and commit"
        )
    refs = (site_dir() / "notebooks" / "references_and_recursion" / "index.html").read_text()
    # graph() output: nbconvert prefers image/svg+xml to text/vnd.mermaid, so the page
    # holds the drawing itself (an image of the SVG document), with no script to load.
    drawings = [
        base64.b64decode(data).decode()
        for data in re.findall(r'src="data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)"', refs)
    ]
    assert any(
        d.startswith('<svg xmlns="http://www.w3.org/2000/svg"') and "«recursive»" in d
        for d in drawings
    )
    assert "<th>ANTHROPIC_TOOLS</th>" in refs  # the provider matrix, as a table


def test_api_reference_types_annotation_parameters() -> None:
    """Annotation's parameters show their types and defaults; annotate is described once."""
    html = (site_dir() / "api" / "index.html").read_text(encoding="utf-8")
    start = html.index('id="describedtypes.Annotation"')
    annotation = html[start : html.index('id="describedtypes.schema"')]
    text = re.sub(r"<[^>]+>", "", annotation)
    assert "required" not in text, "Annotation's parameters all have defaults"
    for shown in ("str | None", "Mapping[str, Annotation]"):
        assert shown in text.replace("&quot;", '"').replace("&#39;", "'"), shown
    assert text.count("call it to read an annotation") <= 1

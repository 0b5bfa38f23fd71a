"""Tables for rich display in notebooks (Jupyter's ``_repr_html_`` / ``_repr_markdown_``).

Model text is hostile: every cell is escaped, so a reply cannot add markup, scripts or
table cells to the page. Line breaks of every kind (U+2028, U+2029 and U+0085 too) and
other control characters are shown as escapes (the one escape table every message built
from model text uses), so a cell stays one line.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence

from .text import escape

__all__ = ["ROWS", "html_cell", "html_table", "markdown_cell", "markdown_table", "plain"]

#: Markdown's syntax characters that act inside a table cell (``$`` starts math in
#: Jupyter), backslash-escaped; links cannot start, as ``[`` is escaped.
MARKDOWN = re.compile(r"([\\`*_\[\]#|~$])")
#: Rows shown before "... and N more".
ROWS = 50


def plain(text: object, limit: int) -> str:
    shown = str(text)
    if len(shown) > limit:
        shown = shown[:limit] + "…"
    return escape(shown)


def html_cell(text: object, limit: int = 300) -> str:
    """One table cell's text for HTML: escaped, one line, at most ``limit`` characters."""
    return html.escape(plain(text, limit), quote=True)


def markdown_cell(text: object, limit: int = 300) -> str:
    """One table cell's text for Markdown (which passes HTML through): both escaped."""
    return html.escape(MARKDOWN.sub(r"\\\1", plain(text, limit)), quote=True)


def html_table(
    title: str, headers: Sequence[str], rows: Sequence[Sequence[object]], more: int = 0
) -> str:
    """A small HTML table under a bold title; ``title`` and ``headers`` are escaped too."""
    head = "".join(f"<th>{html_cell(h)}</th>" for h in headers)
    body = "".join(
        "<tr>" + "".join(f"<td>{html_cell(cell)}</td>" for cell in row) + "</tr>"
        for row in rows
    )
    tail = f"<p>… and {more:,} more</p>" if more else ""
    return (
        f"<div><p><strong>{html_cell(title)}</strong></p><table><thead><tr>{head}</tr>"
        f"</thead><tbody>{body}</tbody></table>{tail}</div>"
    )


def markdown_table(
    title: str, headers: Sequence[str], rows: Sequence[Sequence[object]], more: int = 0
) -> str:
    """The same table in GitHub-flavoured Markdown."""
    lines = [f"**{markdown_cell(title)}**", ""]
    lines.append("| " + " | ".join(markdown_cell(h) for h in headers) + " |")
    lines.append("|" + "---|" * len(headers))
    lines += ["| " + " | ".join(markdown_cell(c) for c in row) + " |" for row in rows]
    if more:
        lines += ["", f"… and {more:,} more"]
    return "\n".join(lines) + "\n"

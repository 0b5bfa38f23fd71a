"""What the notebooks share: SDK clients that answer from canned replies, and display helpers.

Each notebook runs as it is with no API key: a provider client made by ``client()`` is the
SDK's own client, sending its requests to a mock transport of the SDK's own HTTP library
that answers each one with the notebook's next canned reply (a real provider response,
written out in the notebook). With the key set in the environment, ``client()`` returns
the real client and the same cells call the provider.
"""

from __future__ import annotations

import importlib
import json
import os
from html import escape
from typing import Any

__all__ = ["client", "show", "side_by_side", "table"]


def client(sdk_class: Any, key_name: str, canned_replies: list[Any], **options: Any) -> Any:
    """The SDK client: the real one when ``key_name`` is set, else one served by the replies.

    Works for ``openai.OpenAI``, ``anthropic.Anthropic`` and ``google.genai.Client``
    (and their async variants' modules), each with the HTTP library it ships with
    (httpx, or httpx2 in newer SDKs), whose ``MockTransport`` answers the requests.
    """
    if os.environ.get(key_name):
        return sdk_class(**options)
    top = sdk_class.__module__.split(".")[0]
    replies = list(canned_replies)
    if top == "google":  # google-genai: httpx, passed through http_options
        import httpx

        transport = httpx.MockTransport(lambda request: httpx.Response(200, json=replies.pop(0)))
        return sdk_class(api_key="offline", http_options={"httpx_client": httpx.Client(
            transport=transport)}, **options)
    sdk = importlib.import_module(top)
    http = importlib.import_module(sdk.DefaultHttpxClient.__mro__[1].__module__.split(".")[0])
    transport = http.MockTransport(lambda request: http.Response(200, json=replies.pop(0)))
    return sdk_class(api_key="offline", http_client=http.Client(transport=transport), **options)


def show(value: Any) -> None:
    """Print JSON data indented, the way it goes over the wire."""
    print(json.dumps(value, indent=2))


def _display(html: str, plain: str) -> None:
    from IPython.display import display

    display({"text/html": html, "text/plain": plain}, raw=True)


def _scrolling(table_html: str) -> str:
    """A wide table scrolls sideways instead of being cut off."""
    return f'<div style="overflow-x: auto"><table>{table_html}</table></div>'


def side_by_side(**columns: Any) -> None:
    """Show JSON values next to each other: a table on the docs site and in Jupyter."""
    texts = {title: json.dumps(value, indent=2) for title, value in columns.items()}
    head = "".join(f"<th>{escape(title)}</th>" for title in texts)
    cells = "".join(
        f'<td style="vertical-align: top"><pre style="white-space: pre; font-size: 0.75em">'
        f"{escape(text)}</pre></td>"
        for text in texts.values()
    )
    plain = "\n\n".join(f"{title}:\n{text}" for title, text in texts.items())
    _display(_scrolling(f"<tr>{head}</tr><tr>{cells}</tr>"), plain)


def table(rows: dict[str, dict[str, str]]) -> None:
    """Show a dict of rows (each a dict of column: text) as a table."""
    columns = list(next(iter(rows.values())))
    head = "<th></th>" + "".join(f"<th>{escape(c)}</th>" for c in columns)
    body = "".join(
        f"<tr><th>{escape(label)}</th>"
        + "".join(f"<td>{escape(row[c])}</td>" for c in columns)
        + "</tr>"
        for label, row in rows.items()
    )
    lines = [" | ".join(["", *columns])]
    lines += [" | ".join([label, *(row[c] for c in columns)]) for label, row in rows.items()]
    _display(_scrolling(f"<tr>{head}</tr>{body}"), "\n".join(lines))

"""The notebooks run: offline with their canned replies, and through the real SDK calls.

Each notebook is executed in a fresh Jupyter kernel (nbclient) twice:

- **offline**, with no API key in the kernel's environment, so every provider request is
  replaced by the notebook's canned reply (the variables named ``canned_*``). Those
  replies are then checked to be real provider responses: the provider SDK's own
  response model must accept each one.
- **with keys**, against a local HTTP server that stands in for the providers
  (``OPENAI_BASE_URL`` / ``ANTHROPIC_BASE_URL`` point at it) and answers each request
  with the next canned reply. So the cells that call the real APIs run too, through the
  real SDKs, and must print exactly what the offline run printed.

Notebooks are committed with their outputs (GitHub and the docs site show them), and the
offline run must reproduce them: ``python -m tests.update_notebooks`` re-runs and saves
them after a change.
"""

from __future__ import annotations

import json
import os
import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"

#: The provider requests each notebook makes, in order: (HTTP path, canned reply).
ROUNDS: dict[str, list[tuple[str, str]]] = {
    "quickstart.ipynb": [("/v1/chat/completions", "canned_completion")],
    "tools.ipynb": [
        ("/v1/responses", "canned_openai_call"),
        ("/v1/responses", "canned_openai_answer"),
        ("/v1/messages", "canned_anthropic_call"),
        ("/v1/messages", "canned_anthropic_answer"),
    ],
    "references_and_recursion.ipynb": [],
    "batches.ipynb": [],
    "extract_and_tools.ipynb": [
        ("/v1/chat/completions", "canned_completion_bad"),
        ("/v1/chat/completions", "canned_completion_good"),
        ("/v1/models/gemini-2.5-flash:generateContent", "canned_gemini_weather"),
        ("/v1/messages", "canned_anthropic_wrong_call"),
        ("/v1/messages", "canned_anthropic_call"),
        ("/v1/messages", "canned_anthropic_answer"),
    ],
    "streaming.ipynb": [],
    "evaluation.ipynb": [],
}

#: Keys and endpoints removed from (offline) or set in (with keys) the kernel's environment.
PROVIDER_ENV = (
    "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL",
    "GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GEMINI_BASE_URL",
)

_DUMP_CANNED = (
    "import json as _json\n"
    "print(_json.dumps({_k: _v for _k, _v in globals().items() if _k.startswith('canned_')}))"
)


def notebook_paths() -> list[Path]:
    return sorted(NOTEBOOKS.glob("*.ipynb"))


def kernel_env(**extra: str) -> dict[str, str]:
    """This process's environment without provider keys, plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if k not in PROVIDER_ENV}
    env.update(extra)
    return env


def execute(path: Path, env: dict[str, str], *, dump_canned: bool = False) -> Any:
    """Run the notebook in a fresh kernel and return it with its outputs."""
    book = nbformat.read(path, as_version=4)
    if dump_canned:
        book.cells.append(nbformat.v4.new_code_cell(_DUMP_CANNED))
    client = NotebookClient(
        book,
        kernel_name="python3",
        timeout=120,
        resources={"metadata": {"path": str(NOTEBOOKS)}},
    )
    client.execute(env=env)
    return book


def printed(book: Any) -> list[str]:
    """The text each code cell printed, cell by cell."""
    return [
        _TIMING.sub(_UNTIMED, "".join(
            out.get("text", "") for out in cell.outputs if out.output_type == "stream"
        ))
        for cell in book.cells
        if cell.cell_type == "code"
    ]


_OFFLINE: dict[Path, tuple[list[str], dict[str, Any]]] = {}
_OFFLINE_BOOKS: dict[Path, Any] = {}


def offline_book(path: Path) -> Any:
    """The notebook run offline, with a last cell that printed its canned replies (run once)."""
    if path not in _OFFLINE_BOOKS:
        _OFFLINE_BOOKS[path] = execute(path, kernel_env(), dump_canned=True)
    return _OFFLINE_BOOKS[path]


def offline_run(path: Path) -> tuple[list[str], dict[str, Any]]:
    """The offline run's printed text per cell and its canned replies (run once)."""
    if path not in _OFFLINE:
        texts = printed(offline_book(path))
        _OFFLINE[path] = (texts[:-1], json.loads(texts[-1]))
    return _OFFLINE[path]


# -- a stand-in for the provider APIs --------------------------------------------------


class FakeProviders:
    """A local HTTP server that answers each provider request with the next canned reply."""

    def __init__(self, replies: list[tuple[str, dict[str, Any]]]) -> None:
        self.replies = list(replies)
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self.problems: list[str] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                path = self.path.split("?", 1)[0]
                # google-genai 2.x (the newest for Python 3.10) calls the v1beta API,
                # 3.x the v1 API; the request is the same.
                path = path.replace("/v1beta/models/", "/v1/models/")
                owner.requests.append((path, body))
                if not owner.replies or owner.replies[0][0] != path:
                    expected = owner.replies[0][0] if owner.replies else "no request"
                    owner.problems.append(f"unexpected request {path}; expected {expected}")
                    self.send_response(500)
                    self.end_headers()
                    return
                data = json.dumps(owner.replies.pop(0)[1]).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> FakeProviders:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()


@pytest.fixture
def fake_providers(request: pytest.FixtureRequest) -> Iterator[FakeProviders]:
    path: Path = request.param
    _, canned = offline_run(path)
    with FakeProviders([(route, canned[name]) for route, name in ROUNDS[path.name]]) as fake:
        yield fake


# -- the tests ---------------------------------------------------------------------------


def test_the_notebooks_exist() -> None:
    """notebooks/ holds exactly the notebooks this file knows how to check."""
    assert [p.name for p in notebook_paths()] == sorted(ROUNDS)


#: The time a ``describedtypes decode`` run took varies: compared as a shape, not as numbers.
_TIMING = re.compile(r"in [\d.]+ s \([\d,]+ lines/s\)")
_UNTIMED = "in N s (N lines/s)"


def shown(cells: list[Any]) -> list[dict[str, Any]]:
    """What each code cell shows: its text per stream and its rich outputs, cell by cell.

    Streams are joined (how the kernel splits them into chunks varies between runs), and
    only the text and HTML of rich outputs count, not their metadata; a ``decode`` run's
    time is left out.
    """
    found = []
    for cell in cells:
        if cell.cell_type != "code":
            continue
        streams: dict[str, str] = {}
        rich: list[dict[str, str]] = []
        for out in cell.outputs:
            if out.output_type == "stream":
                text = _TIMING.sub(_UNTIMED, out.text)
                streams[out.name] = streams.get(out.name, "") + text
            elif out.output_type in ("display_data", "execute_result"):
                rich.append({k: v for k, v in out.data.items() if k.startswith("text/")})
            else:
                rich.append({"error": f"{out.get('ename')}: {out.get('evalue')}"})
        found.append({"streams": streams, "rich": rich})
    return found


@pytest.mark.parametrize("path", notebook_paths(), ids=lambda p: p.name)
def test_committed_notebooks_show_their_current_outputs(path: Path) -> None:
    """A committed notebook carries the outputs its offline run produces, none stale."""
    book = nbformat.read(path, as_version=4)
    nbformat.validate(book)
    assert book.metadata["kernelspec"]["name"] == "python3"
    code = [cell for cell in book.cells if cell.cell_type == "code"]
    rerun = "; run `python -m tests.update_notebooks` and commit the result"
    assert all(cell.execution_count is not None for cell in code), (
        f"{path.name} was committed without running it{rerun}"
    )
    fresh = offline_book(path).cells[: len(book.cells)]
    for index, (committed, current) in enumerate(
        zip(shown(book.cells), shown(fresh), strict=True)
    ):
        assert committed == current, f"{path.name} code cell {index}: the output is stale{rerun}"


@pytest.mark.parametrize("path", notebook_paths(), ids=lambda p: p.name)
def test_notebook_runs_offline(path: Path) -> None:
    """Without API keys every cell runs, and every code cell shows something or defines it."""
    texts, canned = offline_run(path)
    assert any(texts), f"{path.name} printed nothing"
    assert sorted(canned) == sorted({name for _, name in ROUNDS[path.name]})


def _sdk_model(name: str) -> Any:
    if name.startswith("canned_completion"):
        from openai.types.chat import ChatCompletion

        return ChatCompletion
    if name.startswith("canned_openai_"):
        from openai.types.responses import Response

        return Response
    if name.startswith("canned_gemini_"):
        from google.genai.types import GenerateContentResponse

        return GenerateContentResponse
    assert name.startswith("canned_anthropic_"), f"no SDK type known for {name}"
    from anthropic.types import Message

    return Message


@pytest.mark.parametrize(
    ("path", "name"),
    [(p, name) for p in notebook_paths() for _, name in ROUNDS[p.name]],
    ids=lambda v: v.name if isinstance(v, Path) else v,
)
def test_canned_replies_are_real_provider_responses(path: Path, name: str) -> None:
    """The provider SDK's response model accepts each canned reply and keeps all of it."""
    _, canned = offline_run(path)
    model = _sdk_model(name)
    parsed = model.model_validate(canned[name])
    # Every key of the canned reply is a field the SDK knows (none was invented).
    if name.startswith("canned_gemini_"):
        kept = parsed.model_dump(mode="json", by_alias=True, exclude_unset=True)
    else:
        kept = parsed.to_dict(exclude_unset=True)
    assert kept == canned[name]


@pytest.mark.parametrize(
    ("fake_providers", "path"),
    [(p, p) for p in notebook_paths() if ROUNDS[p.name]],
    ids=lambda p: p.name,
    indirect=["fake_providers"],
)
def test_real_call_cells_run_through_the_sdks(fake_providers: FakeProviders, path: Path) -> None:
    """With keys set, the guarded cells call the SDKs and print what the offline run did."""
    offline_texts, canned = offline_run(path)
    env = kernel_env(
        OPENAI_API_KEY="sk-test",
        ANTHROPIC_API_KEY="sk-ant-test",
        OPENAI_BASE_URL=fake_providers.url + "/v1",
        ANTHROPIC_BASE_URL=fake_providers.url,
        GEMINI_API_KEY="gemini-test",
        GOOGLE_GEMINI_BASE_URL=fake_providers.url,
        NO_PROXY="127.0.0.1,localhost",
        no_proxy="127.0.0.1,localhost",
    )
    book = execute(path, env)
    assert fake_providers.problems == []
    assert fake_providers.replies == [], "a guarded cell did not make its request"
    assert printed(book) == offline_texts
    check_requests(path.name, fake_providers.requests, canned)


def check_requests(
    name: str, requests: list[tuple[str, dict[str, Any]]], canned: dict[str, Any]
) -> None:
    """The requests carry the schemas, tools and results the notebook built."""
    if name == "quickstart.ipynb":
        [(_, body)] = requests
        fmt = body["response_format"]
        assert fmt["type"] == "json_schema"
        assert fmt["json_schema"]["name"] == "Weather"
        assert fmt["json_schema"]["strict"] is True
        return
    if name == "extract_and_tools.ipynb":
        check_extract_and_tools(requests)
        return
    assert name == "tools.ipynb"
    (_, first), (_, second), (_, third), (_, fourth) = requests
    assert first["tools"] == canned["canned_openai_call"]["tools"]
    call_ids = [
        item["call_id"]
        for item in canned["canned_openai_call"]["output"]
        if item["type"] == "function_call"
    ]
    outputs = [item for item in second["input"] if item.get("type") == "function_call_output"]
    assert [item["call_id"] for item in outputs] == call_ids
    assert all(tool["strict"] is True for tool in third["tools"])
    use_ids = [
        block["id"]
        for block in canned["canned_anthropic_call"]["content"]
        if block["type"] == "tool_use"
    ]
    last = fourth["messages"][-1]
    assert last["role"] == "user"
    assert [block["tool_use_id"] for block in last["content"]] == use_ids


def check_extract_and_tools(requests: list[tuple[str, dict[str, Any]]]) -> None:
    """extract() retried with the problems; the tool loop sent tools and matched results."""
    (_, first), (_, second), (_, gemini), (_, third), (_, fourth), (_, fifth) = requests
    assert first["response_format"]["json_schema"]["name"] == "Weather"
    assert second["response_format"] == first["response_format"]
    retry = second["messages"][-1]
    assert retry["role"] == "user"
    assert "$.temprature: unknown field; did you mean 'temperature'?" in retry["content"]
    assert second["messages"][-2]["role"] == "assistant"
    assert gemini["generationConfig"]["responseMimeType"] == "application/json"
    assert gemini["generationConfig"]["responseJsonSchema"]["required"] == [
        "city", "temperature", "unit", "summary"
    ]
    assert all(tool["strict"] is True for tool in third["tools"])
    assert third["max_tokens"] == 1024
    [result] = fourth["messages"][-1]["content"]
    assert result["tool_use_id"] == "toolu_01A09q90qw90lq917835lq9"
    assert result["is_error"] is True
    [result] = fifth["messages"][-1]["content"]
    assert result["tool_use_id"] == "toolu_01B18r81rx81mr828746mr8"
    assert result["is_error"] is False


def test_the_notebooks_are_read_in_order_quickstart_first() -> None:
    """The docs list every notebook, in the reading order of docs/_mkdocs/hooks.py."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("docs_hooks", ROOT / "docs/_mkdocs/hooks.py")
    assert spec is not None
    assert spec.loader is not None
    hooks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hooks)
    assert sorted(hooks.READING_ORDER) == sorted(p.stem for p in notebook_paths())
    entries = [next(iter(entry.values())) for entry in hooks.notebook_entries()]
    assert entries[0] == "notebooks/quickstart.ipynb"
    assert entries == [f"notebooks/{stem}.ipynb" for stem in hooks.READING_ORDER]


@pytest.mark.parametrize("path", notebook_paths(), ids=lambda p: p.name)
def test_notebooks_use_the_shared_helpers_and_the_librarys_diagrams(path: Path) -> None:
    """No notebook carries its own stand-in client or diagram helper: they import
    notebooks/offline.py, and diagrams are the library's own graph() output."""
    book = nbformat.read(path, as_version=4)
    code = "\n".join(c.source for c in book.cells if c.cell_type == "code")
    for helper in ("def client(", "def diagram(", "def show(", "def side_by_side(",
                   "MockTransport"):
        assert helper not in code, f"{path.name} defines {helper}; use notebooks/offline.py"
    mermaid = [
        out for cell in book.cells if cell.cell_type == "code" for out in cell.outputs
        if "text/vnd.mermaid" in out.get("data", {})
    ]
    if "graph(" in code:
        assert mermaid, f"{path.name} draws no diagram with graph()"
        assert all(out.data["text/plain"].startswith("classDiagram") for out in mermaid)

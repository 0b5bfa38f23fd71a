"""Rich display in Jupyter: tables and diagrams, with model text escaped (it is hostile)."""

from __future__ import annotations

import html.parser
import pickle
import re

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from describedtypes import (
    BatchResult,
    DecodeError,
    Diagram,
    IncompleteReplyError,
    Partial,
    RefusalError,
    graph,
)
from describedtypes._base.text import escape

#: Tags the tables are made of; anything else came from model text.
TABLE_TAGS = {"div", "p", "strong", "table", "thead", "tbody", "tr", "th", "td"}

hostile = st.text(
    st.characters(codec="utf-8") | st.sampled_from(list("<>&\"'|`*_[]#$\\\n\u2028\u2029\x85")),
    max_size=40,
)


class _Parsed(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []
        self.cells: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, attrs))
        if tag in ("td", "th"):
            self.cells.append("")

    def handle_data(self, data: str) -> None:
        if self.cells:
            self.cells[-1] += data


def parsed(text: str) -> _Parsed:
    parser = _Parsed()
    parser.feed(text)
    parser.close()
    return parser


def one_line(text: str) -> str:
    """What a cell shows of ``text``: control characters and line breaks escaped by the
    library's one escape table (the tab, which breaks no line, left as it is)."""
    shown = escape(text)
    assert len(shown.splitlines()) <= 1
    return shown


@given(path=hostile, message=hostile)
def test_decode_error_html_escapes_model_text(path: str, message: str) -> None:
    error = DecodeError([(path, message)])
    shown = error._repr_html_()
    found = parsed(shown)
    assert {tag for tag, _ in found.tags} <= TABLE_TAGS
    assert all(not attributes for _, attributes in found.tags)
    assert found.cells == ["path", "problem", one_line(path), one_line(message)]
    # Outside the tables' own tags, no <, >, quote or bare & survives.
    text = re.sub(r"</?(?:{})>".format("|".join(TABLE_TAGS)), "", shown)
    assert not re.search(r"[<>\"']|&(?!(?:amp|lt|gt|quot|#x27);)", text), text


@given(path=hostile, message=hostile)
def test_decode_error_markdown_escapes_model_text(path: str, message: str) -> None:
    shown = DecodeError([(path, message)])._repr_markdown_()
    lines = shown.splitlines()
    row = lines[-1]
    assert len(lines) == 5  # title, blank, header, rule, one row: nothing broke a line
    # Three unescaped pipes make two cells: the model text added none.
    assert len(re.findall(r"(?<!\\)\|", row)) == 3, row
    assert not re.search(r"[<>\"']|&(?!(?:amp|lt|gt|quot|#x27);)", shown), shown


def test_decode_error_table_shows_every_problem_up_to_fifty() -> None:
    error = DecodeError([(f"$.items[{i}]", "expected integer") for i in range(60)])
    found = parsed(error._repr_html_())
    assert found.cells[:4] == ["path", "problem", "$.items[0]", "expected integer"]
    assert len(found.cells) == 2 + 2 * 50
    assert "… and 10 more" in error._repr_html_()
    assert "(60 problems)" in error._repr_markdown_()


def test_refusals_and_cut_off_replies_show_their_reason() -> None:
    refused = parsed(RefusalError("I can't <help>")._repr_html_())
    assert refused.cells[-1] == "the model refused: I can't <help>"
    cut = IncompleteReplyError("the reply was cut off at max_tokens")
    assert "does not match" not in cut._repr_html_()
    assert "IncompleteReplyError" in cut._repr_markdown_()


def test_plain_str_and_repr_stay_as_they_were() -> None:
    error = DecodeError([("$.a", "missing required field")])
    assert str(error) == "The reply does not match the schema: $.a: missing required field"
    assert repr(error).startswith("DecodeError(")


@attrs.frozen
class Post:
    title: str
    tags: list[str]
    body: str


def test_a_partial_shows_each_field_and_its_state() -> None:
    partial = Partial(Post, {"title": "<b>Two</b>", "tags": ["a"]}, growing="tags")
    found = parsed(partial._repr_html_())
    assert found.cells == ["field", "value", "state",
                           "title", "'<b>Two</b>'", "done",
                           "tags", "['a']", "arriving…",
                           "body", "", "not yet"]
    assert repr(partial) == "Partial[Post](title='<b>Two</b>', tags=['a']…)"


def test_a_batch_result_is_one_row() -> None:
    result = BatchResult(7, "req-<1>", error=DecodeError([("$.a", "</td><script>")]))
    found = parsed(result._repr_html_())
    assert found.cells[4:] == ["7", "req-<1>", "invalid",
                               "The reply does not match the schema: $.a: </td><script>"]
    assert {tag for tag, _ in found.tags} <= TABLE_TAGS


@attrs.frozen
class Note:
    """A note </pre><script>alert(1)</script>."""

    text: str = attrs.field(metadata={"description": "</pre><script>x</script>"})


def test_graph_is_a_str_that_jupyter_draws() -> None:
    diagram = graph(Note)
    assert isinstance(diagram, str)
    assert isinstance(diagram, Diagram)
    assert diagram == str(diagram)
    assert repr(diagram) == repr(str(diagram))
    assert diagram.startswith("classDiagram")
    assert not diagram.empty
    bundle = diagram._repr_mimebundle_()
    # JupyterLab (4.1+) renders text/vnd.mermaid; nbconvert inserts that text unescaped
    # into a <pre class="mermaid">, so it must hold no markup.
    assert bundle == {"text/vnd.mermaid": str(diagram), "text/plain": str(diagram),
                      "image/svg+xml": diagram.svg}
    assert "<" not in bundle["text/vnd.mermaid"]
    # The SVG (what nbconvert's pages show, offline too) is XML whose texts are escaped:
    # the description's markup is never markup there either.
    assert "<script>" not in diagram.svg
    assert pickle.loads(pickle.dumps(diagram)) == diagram


@pytest.mark.slow  # IPython comes with the test-notebooks extra
def test_ipython_shows_a_diagram_as_its_lines() -> None:
    """IPython's own formatter (which prints a str as its repr) shows the diagram's text."""
    formatters = pytest.importorskip("IPython.core.formatters",
                                     reason="IPython comes with the notebooks' test tools")
    data, _ = formatters.DisplayFormatter().format(graph(Note))
    assert data["text/plain"] == str(graph(Note))
    assert data["text/vnd.mermaid"] == str(graph(Note))


@pytest.mark.parametrize("tp", [int, list[str], dict[str, int]])
def test_a_diagram_without_boxes_is_empty(tp: object) -> None:
    assert graph(tp).empty
    assert graph(tp) == "classDiagram\n    direction LR\n"


def test_a_batch_summary_is_the_clis_table_and_an_html_one(tmp_path: object) -> None:
    from describedtypes import BatchSummary, decode_batch
    from describedtypes._cli.report import summary

    from .batch_lines import Weather, mixed_openai_file

    lines = [*mixed_openai_file(50), b"garbage"]
    found = BatchSummary.of(decode_batch(Weather, lines))
    assert found.counts == {"ok": 45, "invalid": 5, "malformed": 1}
    assert found.paths == {"$.unit": 5}
    assert found.path_lines == 5
    import collections

    cli = summary(collections.Counter(found.counts), collections.Counter(found.paths), 5)
    assert "\n" + str(found) == cli
    shown = parsed(found._repr_html_())
    assert shown.cells[:6] == ["outcome", "lines", "share", "ok", "45", "88.2%"]
    assert shown.cells[-2:] == ["$.unit", "5"]


def test_a_batch_summary_escapes_the_models_paths() -> None:
    from describedtypes import BatchSummary

    shown = BatchSummary({"invalid": 1}, {"$.<script>": 1}, 1)._repr_html_()
    assert "<script>" not in shown
    assert "$.<script>" in parsed(shown).cells

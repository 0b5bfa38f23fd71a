"""describedtypes decode TARGET FILE: outputs, summary, exit status, --jobs, progress bar."""

from __future__ import annotations

import io
import re
import subprocess
import sys
from pathlib import Path
from typing import Any
from unittest.mock import patch

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from describedtypes._batch.lines import TooLong, read_lines
from describedtypes._cli import parallel
from describedtypes._cli.main import main
from describedtypes._cli.report import progress_bar

from .batch_lines import anthropic_line, mixed_openai_file

ROOT = Path(__file__).resolve().parent.parent
TARGET = str(ROOT / "tests" / "batch_lines.py") + ":Weather"


def batch_file(tmp_path: Path, n: int = 50, extra: list[bytes] | None = None) -> Path:
    lines = mixed_openai_file(n) + (extra or [])
    path = tmp_path / "batch.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


def without_time(summary: bytes) -> bytes:
    """A summary without its last line (the time the run took, which varies)."""
    assert re.match(rb"decoded [\d,]+ lines? in ", summary.splitlines()[-1]), summary
    return b"\n".join(summary.splitlines()[:-1])


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines()]


def test_every_line_lands_in_exactly_one_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    extra = [b"garbage", anthropic_line("late", {"type": "expired"}), b'{"custom_id": "cut"']
    path = batch_file(tmp_path, 50, extra)
    ok, err = tmp_path / "ok.jsonl", tmp_path / "err.jsonl"
    assert main(["decode", TARGET, str(path), "--out", str(ok), "--errors", str(err)]) == 1
    good, bad = read_jsonl(ok), read_jsonl(err)
    assert sorted(r["line"] for r in good + bad) == list(range(1, 54))
    assert good[0] == {
        "line": 1, "custom_id": "request-0", "outcome": "ok",
        "value": {"city": "City 0", "temperature": 10, "unit": "celsius"},
    }
    assert [r["outcome"] for r in bad] == ["invalid"] * 5 + ["malformed", "failed", "malformed"]
    assert bad[0]["errors"] == [["$.unit", "'kelvin' is not one of ['celsius', 'fahrenheit']"]]
    assert bad[5]["input"] == "garbage"
    assert bad[7]["message"].startswith("the line ends before its JSON does")
    summary = capsys.readouterr().err
    assert re.fullmatch(r"decoded 53 lines in [\d.]+ s \([\d,]+ lines/s\)",
                        summary.splitlines()[-1])
    assert summary.splitlines()[1:-2] == [
        "outcome            lines    share",
        "ok                    45    84.9%",
        "invalid                5     9.4%",
        "failed                 1     1.9%",
        "malformed              2     3.8%",
        "total                 53",
        "",
        "most frequent error paths (in 5 invalid lines)",
        "       lines  path",
        "           5  $.unit",
    ]


def test_all_decoded_exits_0_and_stdout_is_the_default(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = batch_file(tmp_path, 9)  # one in ten is bad: nine lines are all good
    assert main(["decode", TARGET, str(path)]) == 0
    captured = capsys.readouterr()
    assert "total                  9" in captured.err


def test_jobs_2_gives_the_same_output_in_order(tmp_path: Path) -> None:
    path = batch_file(tmp_path, 5000, [b"oops"])
    outputs = []
    for jobs in ("1", "2"):
        ok, err = tmp_path / f"ok{jobs}.jsonl", tmp_path / f"err{jobs}.jsonl"
        done = subprocess.run(
            [sys.executable, "-m", "describedtypes", "decode", TARGET, str(path),
             "--out", str(ok), "--errors", str(err), "--jobs", jobs],
            capture_output=True, timeout=120, check=False, cwd=ROOT,
            env={**_env(), "PYTHONPATH": str(ROOT / "src")},
        )
        assert done.returncode == 1, done.stderr
        outputs.append((ok.read_bytes(), err.read_bytes(), without_time(done.stderr)))
    assert outputs[0] == outputs[1]
    assert outputs[0][0].count(b"\n") + outputs[0][1].count(b"\n") == 5001


def _env() -> dict[str, str]:
    import os

    return dict(os.environ)


def test_usage_errors_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = batch_file(tmp_path, 3)
    for argv, message in [
        (["decode", "nope:Thing", str(path)], "cannot import"),
        (["decode", TARGET, str(tmp_path / "missing.jsonl")], "cannot read"),
        (["decode", TARGET, str(path), "--jobs", "0"], "--jobs must be 1 or more"),
        (["decode", "tests.batch_lines:anthropic_line", str(path)], "cannot be decoded into"),
        (["decode", TARGET, str(path), "--errors", str(path)], "is the input file"),
        (["decode", TARGET, str(path), "--out", str(tmp_path / "no" / "dir.jsonl")],
         "cannot write"),
    ]:
        with pytest.raises(SystemExit) as caught:
            main(argv)
        assert caught.value.code == 2
        assert message in capsys.readouterr().err


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_standard_input(tmp_path: Path, jobs: str) -> None:
    """FILE ``-`` reads standard input; with --jobs the parent hands lines to the workers."""
    path = batch_file(tmp_path, 10)
    done = subprocess.run(
        [sys.executable, "-m", "describedtypes", "decode", TARGET, "-", "--jobs", jobs],
        input=path.read_bytes(), capture_output=True, timeout=120, check=False,
        env={**_env(), "PYTHONPATH": str(ROOT / "src")},
    )
    assert done.returncode == 1
    assert [orjson.loads(line)["line"] for line in done.stdout.splitlines()] == list(
        range(1, 11)
    )
    assert b"total                 10" in done.stderr


def test_standard_input_redirected_from_a_file(tmp_path: Path) -> None:
    """``< file`` makes standard input seekable, but it has no path for workers to open."""
    path = batch_file(tmp_path, 10)
    with path.open("rb") as stdin:
        done = subprocess.run(
            [sys.executable, "-m", "describedtypes", "decode", TARGET, "-", "--jobs", "2"],
            stdin=stdin, capture_output=True, timeout=120, check=False,
            env={**_env(), "PYTHONPATH": str(ROOT / "src")},
        )
    assert done.returncode == 1, done.stderr
    assert [orjson.loads(line)["line"] for line in done.stdout.splitlines()] == list(
        range(1, 11)
    )


# -- the progress bar ------------------------------------------------------------------------


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_bar_on_a_terminal_only() -> None:
    pytest.importorskip("tqdm", reason="the bar needs the optional tqdm (a test dependency)")
    bar = progress_bar(1000, FakeTerminal())
    assert bar is not None
    bar.update(1000)
    bar.close()
    assert progress_bar(1000, io.StringIO()) is None


def test_no_bar_without_tqdm(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "tqdm", None)  # import tqdm raises ImportError
    assert progress_bar(1000, FakeTerminal()) is None


def test_the_run_shows_a_bar_on_a_terminal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("tqdm", reason="the bar needs the optional tqdm (a test dependency)")
    path = batch_file(tmp_path, 20)
    terminal = FakeTerminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    main(["decode", TARGET, str(path), "--out", str(tmp_path / "o"), "--errors",
          str(tmp_path / "e")])
    shown = terminal.getvalue()
    assert "decoding" in shown  # the bar's label, drawn on the terminal
    assert "total                 20" in shown


@given(st.lists(st.binary(max_size=12).map(lambda b: b.replace(b"\n", b"")), max_size=30),
       st.booleans(), st.integers(1, 16))
def test_worker_ranges_cover_the_file_with_the_right_line_numbers(
    lines: list[bytes], trailing: bool, block: int
) -> None:
    """The tasks of --jobs N tile the file at line ends and number their lines right."""
    data = b"\n".join(lines) + (b"\n" if trailing and lines else b"")
    with patch.object(parallel, "RANGE_BYTES", block):
        tasks = list(parallel._ranges(io.BytesIO(data)))
    assert b"".join(data[o:o + n] for o, n, _ in tasks) == data
    numbered = []
    for offset, length, first in tasks:
        chunk = list(parallel._lines_within(io.BytesIO(data[offset:]), length))
        numbered += [(first + i, line) for i, line in enumerate(chunk)]
    expected = io.BytesIO(data).readlines()
    assert numbered == list(enumerate(expected, 1))


def test_a_closed_pipe_ends_the_run_quietly(tmp_path: Path) -> None:
    path = batch_file(tmp_path, 20000)
    command = (f"{sys.executable} -m describedtypes decode {TARGET} {path} | head -n 1")
    done = subprocess.run(["sh", "-c", command], capture_output=True, timeout=120, check=False,
                          env={**_env(), "PYTHONPATH": str(ROOT / "src")})
    assert done.stdout.count(b"\n") == 1
    assert b"Traceback" not in done.stderr


def _as_read(lines: list[Any], limit: int) -> list[Any]:
    """Lines as ``decode_line`` sees them: any line over ``limit`` is its size alone."""
    shown = []
    for line in lines:
        size = line.size if isinstance(line, TooLong) else len(line)
        shown.append(("over the limit", size) if size > limit else line)
    return shown


@given(st.lists(st.sampled_from([b"", b"{}", b"\r", b"x" * 9, b"\xff", b"{\"a\": 1}\r"]),
                max_size=30).map(lambda ps: b"".join(p + b"\n" for p in ps)),
       st.binary(max_size=12), st.integers(1, 16), st.integers(1, 24))
def test_stream_blocks_cut_at_line_ends_with_the_right_line_numbers(
    text: bytes, tail: bytes, block: int, limit: int
) -> None:
    """The byte blocks --jobs N sends when reading standard input hold whole lines, number
    them right, and give the workers the lines ``read_lines`` gives (CRLF, blank lines, a
    last line without a newline, lines over the limit)."""
    data = text + tail.replace(b"\n", b"")
    with patch.object(parallel, "RANGE_BYTES", block):
        tasks = list(parallel._blocks(io.BytesIO(data), limit))
    numbered = []
    for first, payload in tasks:
        lines = parallel.block_lines(payload, limit)
        assert lines, "no empty tasks"
        assert first == len(numbered) + 1
        numbered += lines
    expected = list(read_lines(io.BytesIO(data), limit))
    assert _as_read(numbered, limit) == _as_read(expected, limit)


def test_stream_blocks_do_not_hold_a_line_over_the_limit() -> None:
    """A huge line on standard input is read past in blocks and sent as its size."""
    data = b"{}\n" + b"x" * 100 + b"\n{}\n" + b"y" * 50
    with patch.object(parallel, "RANGE_BYTES", 8):
        tasks = list(parallel._blocks(io.BytesIO(data), 20))
    shown = [(first, block.size if isinstance(block, TooLong) else block)
             for first, block in tasks]
    assert shown == [(1, b"{}\n"), (2, 101), (3, b"{}\n"), (4, 50)]
    assert list(parallel._blocks(io.BytesIO(b""))) == []


def test_jobs_and_standard_input_give_the_same_bytes_at_block_edges(tmp_path: Path) -> None:
    """--jobs 1 and 2, from a file and from standard input, write the same bytes for a file
    of several 1 MB blocks with CRLF lines, blank lines, bad lines and no final newline."""
    lines = mixed_openai_file(4000)
    for i in range(0, 4000, 397):
        lines[i] = lines[i] + b"\r"
        lines[i + 1] = b" " if i % 2 else b""
        lines[i + 2] = lines[i + 2][:50]
    data = b"\n".join(lines)  # the last line has no newline
    path = tmp_path / "edges.jsonl"
    path.write_bytes(data)
    seen = set()
    for jobs in ("1", "2"):
        for name in (str(path), "-"):
            done = subprocess.run(
                [sys.executable, "-m", "describedtypes", "decode", TARGET, name, "--jobs", jobs],
                input=data if name == "-" else None, capture_output=True, timeout=120,
                check=False, env={**_env(), "PYTHONPATH": str(ROOT / "src")},
            )
            assert done.returncode == 1, done.stderr
            seen.add((done.stdout, without_time(done.stderr)))
    assert len(seen) == 1
    out = seen.pop()[0].splitlines()
    assert [orjson.loads(line)["line"] for line in out] == list(range(1, 4001))


def test_jobs_2_on_an_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_bytes(b"")
    for name in (str(path), "-"):
        done = subprocess.run(
            [sys.executable, "-m", "describedtypes", "decode", TARGET, name, "--jobs", "2"],
            input=b"", capture_output=True, timeout=120, check=False,
            env={**_env(), "PYTHONPATH": str(ROOT / "src")},
        )
        assert (done.returncode, done.stdout) == (0, b"")
        assert b"total                  0" in done.stderr


@pytest.mark.skipif(sys.platform == "win32", reason="sends SIGINT to a process group")
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_ctrl_c_exits_130_quietly(tmp_path: Path, jobs: str) -> None:
    """Ctrl-C (SIGINT to the whole process group, as a terminal sends it) ends the run with
    "interrupted" and status 130, workers and all, without a traceback."""
    import os
    import signal

    path = batch_file(tmp_path, 5000)
    with subprocess.Popen(
        [sys.executable, "-m", "describedtypes", "decode", TARGET, str(path), "--jobs", jobs],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
        env={**_env(), "PYTHONPATH": str(ROOT / "src")},
    ) as run:
        assert run.stdout is not None
        run.stdout.readline()  # running, and soon blocked on the pipe nobody reads
        os.killpg(run.pid, signal.SIGINT)
        _, err = run.communicate(timeout=60)
    assert run.returncode == 130
    text = err.decode()
    assert text.startswith("interrupted: ")
    assert "lines written to standard output" in text
    assert "Traceback" not in text


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="finds the worker in /proc")
def test_a_killed_worker_ends_the_run_with_status_2(tmp_path: Path) -> None:
    """A worker that dies (here: killed) is reported and the run ends with status 2; it
    does not hang waiting for results that will never come."""
    import os
    import signal

    path = batch_file(tmp_path, 20000)
    with subprocess.Popen(
        [sys.executable, "-m", "describedtypes", "decode", TARGET, str(path), "--jobs", "2"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env={**_env(), "PYTHONPATH": str(ROOT / "src")},
    ) as run:
        assert run.stdout is not None
        run.stdout.readline()  # the worker runs; the parent soon blocks on the pipe
        children = Path(f"/proc/{run.pid}/task/{run.pid}/children").read_text().split()
        assert len(children) == 1
        os.kill(int(children[0]), signal.SIGKILL)
        _, err = run.communicate(timeout=60)
    assert run.returncode == 2
    assert err.decode().startswith("error: a worker process ended unexpectedly (exit code -9)")

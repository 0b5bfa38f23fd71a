"""The command line under trouble: broken TARGETs, full disks, one file under two names,
files replaced or deleted while read, killed parents, huge lines, Ctrl-C.

Every case runs the CLI in a subprocess with a timeout.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import time
from pathlib import Path

import orjson
import pytest

from .cli_support import (
    EXAMPLES,
    ROOT,
    TIMEOUT,
    alive,
    big_file,
    children,
    cli,
    env,
    openai_line,
    popen,
    read_jsonl,
    run,
    target_module,
    wait_for,
    weather,
    write_lines,
)

CPUS = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()


@pytest.fixture
def target(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, Path]:
    spelling, log = target_module(tmp_path)
    monkeypatch.setenv("DT_TEST_LOG", str(log))
    return spelling, log


# -- TARGETs that fail to load --------------------------------------------------------

BROKEN = {
    "syntax": ("import attrs\n\nclass A:\n    x: int = (\n", "SyntaxError"),
    "exits": ("import sys\nsys.exit(0)\n", "exit"),
    "exits_3": ("raise SystemExit(3)\n", "exit"),
    "raises": ("raise RuntimeError('boom in the module')\n", "boom in the module"),
    "bad_import": ("import no_such_module_for_this_test\n", "no_such_module_for_this_test"),
}
COMMANDS = {
    "schema": lambda t, d: ["schema", t],
    "graph": lambda t, d: ["graph", t],
    "decode": lambda t, d: ["decode", t, str(d / "in.jsonl")],
}


def one_line_exit_2(proc: subprocess.CompletedProcess[str], name: str, reason: str) -> None:
    lines = proc.stderr.splitlines()
    assert proc.returncode == 2, (proc.returncode, proc.stderr[-800:])
    assert "Traceback" not in proc.stderr, proc.stderr[-800:]
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("error: "), proc.stderr
    assert name in lines[0], lines[0]
    assert reason.lower() in lines[0].lower(), lines[0]
    assert proc.stdout == ""


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("kind", sorted(BROKEN))
def test_a_file_target_that_fails_to_load_is_one_line_and_exit_2(
    tmp_path: Path, kind: str, command: str
) -> None:
    source, reason = BROKEN[kind]
    (tmp_path / f"{kind}.py").write_text(source)
    (tmp_path / "in.jsonl").write_text('{"x": 1}\n')
    proc = run(*COMMANDS[command](f"{kind}.py:A", tmp_path), cwd=tmp_path)
    one_line_exit_2(proc, f"{kind}.py", reason)


def test_a_syntax_error_names_the_line(tmp_path: Path) -> None:
    (tmp_path / "syntax.py").write_text(BROKEN["syntax"][0])
    proc = run("schema", "syntax.py:A", cwd=tmp_path)
    assert re.search(r"syntax\.py:4\b", proc.stderr), proc.stderr


@pytest.mark.parametrize("kind", ["syntax", "raises", "exits"])
def test_a_module_target_that_fails_to_load_is_one_line_and_exit_2(
    tmp_path: Path, kind: str
) -> None:
    source, reason = BROKEN[kind]
    (tmp_path / f"mod_{kind}.py").write_text(source)
    (tmp_path / "in.jsonl").write_text('{"x": 1}\n')
    proc = run("decode", f"mod_{kind}:A", "in.jsonl", cwd=tmp_path)
    one_line_exit_2(proc, f"mod_{kind}", reason)


def test_graph_of_a_type_without_classes_is_an_error() -> None:
    proc = run("graph", "builtins:int")
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert proc.stdout == ""
    assert proc.stderr.startswith("error: builtins:int")
    assert "nothing to draw" in proc.stderr


@pytest.mark.parametrize("command", ["decode", "schema", "graph"])
def test_a_target_that_is_an_instance_is_named_as_one(tmp_path: Path, command: str) -> None:
    (tmp_path / "in.jsonl").write_text('{"x": 1}\n')
    target = f"{EXAMPLES / 'weather.py'}:annotate"
    args = [command, target] + ([str(tmp_path / "in.jsonl")] if command == "decode" else [])
    proc = run(*args)
    assert proc.returncode == 2, (proc.returncode, proc.stdout[:300], proc.stderr)
    assert "is a function" not in proc.stderr
    assert "an instance of describedtypes.Registry" in proc.stderr, proc.stderr
    assert "class, type or function" in proc.stderr, proc.stderr


# -- outputs ----------------------------------------------------------------------------


def one_error_line(proc: subprocess.CompletedProcess[str], *names: str) -> None:
    assert "Traceback" not in proc.stderr, proc.stderr[-1500:]
    assert proc.returncode == 2, (proc.returncode, proc.stderr[-600:])
    errors = [x for x in proc.stderr.splitlines() if x.startswith("error: ")]
    assert len(errors) == 1, proc.stderr
    for name in names:
        assert name in errors[0], errors[0]


def mixed(path: Path, n: int, bad_every: int = 4) -> Path:
    lines = [
        openai_line(f"r-{i}", weather(i, unit="kelvin" if i % bad_every == 0 else "celsius"))
        for i in range(n)
    ]
    return write_lines(path, lines)


@pytest.mark.parametrize("which", ["--out", "--errors"])
def test_a_full_disk_is_one_line_naming_the_file(
    tmp_path: Path, target: tuple[str, Path], which: str
) -> None:
    # 40 lines: their output sits in the write buffer, so it fails only when flushed.
    src = mixed(tmp_path / "in.jsonl", 40)
    other = "--errors" if which == "--out" else "--out"
    proc = run("decode", target[0], str(src), which, "/dev/full", other, os.devnull)
    one_error_line(proc, "/dev/full", "No space left")


@pytest.mark.parametrize("command", ["schema", "graph"])
def test_standard_output_on_dev_full_is_one_line(target: tuple[str, Path], command: str) -> None:
    with open("/dev/full", "w") as full:
        proc = subprocess.run(cli(command, target[0]), stdout=full, stderr=subprocess.PIPE,
                              text=True, timeout=TIMEOUT, env=env(), check=False)
    one_error_line(proc, "standard output", "No space left")


def test_decode_to_standard_output_on_dev_full_is_one_line(
    tmp_path: Path, target: tuple[str, Path]
) -> None:
    src = mixed(tmp_path / "in.jsonl", 40)
    with open("/dev/full", "w") as full:
        proc = subprocess.run(cli("decode", target[0], str(src)), stdout=full,
                              stderr=subprocess.PIPE, text=True, timeout=TIMEOUT, env=env(),
                              check=False)
    one_error_line(proc, "standard output", "No space left")


@pytest.mark.parametrize("spelling", ["./o.jsonl", "sub/../o.jsonl", "ABSOLUTE", "link.jsonl"])
def test_one_file_under_two_spellings_is_refused(
    tmp_path: Path, target: tuple[str, Path], spelling: str
) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "link.jsonl").symlink_to(tmp_path / "o.jsonl")
    (tmp_path / "o.jsonl").write_text("kept\n")
    errors = str(tmp_path / "o.jsonl") if spelling == "ABSOLUTE" else spelling
    mixed(tmp_path / "in.jsonl", 200)
    proc = run("decode", target[0], "in.jsonl", "--out", "o.jsonl", "--errors", errors,
               cwd=tmp_path)
    one_error_line(proc, "--errors " + errors, "--out o.jsonl", "same file")
    assert (tmp_path / "o.jsonl").read_text() == "kept\n"  # refused before it was opened


def test_errors_that_are_standard_output_under_another_name_is_refused(
    tmp_path: Path, target: tuple[str, Path]
) -> None:
    mixed(tmp_path / "in.jsonl", 20)
    with open(tmp_path / "o.jsonl", "w") as out:
        proc = subprocess.run(
            cli("decode", target[0], "in.jsonl", "--errors", "o.jsonl"), stdout=out,
            stderr=subprocess.PIPE, text=True, timeout=TIMEOUT, env=env(), cwd=tmp_path,
            check=False,
        )
    one_error_line(proc, "--errors o.jsonl", "standard output")


def test_the_same_spelling_twice_writes_one_stream(
    tmp_path: Path, target: tuple[str, Path]
) -> None:
    mixed(tmp_path / "in.jsonl", 2000)
    proc = run("decode", target[0], "in.jsonl", "--out", "o.jsonl", "--errors", "o.jsonl",
               cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    assert [r["line"] for r in read_jsonl(tmp_path / "o.jsonl")] == list(range(1, 2001))


def test_an_output_that_is_the_input_under_another_name_is_refused(
    tmp_path: Path, target: tuple[str, Path]
) -> None:
    src = mixed(tmp_path / "in.jsonl", 20)
    before = src.read_bytes()
    (tmp_path / "alias.jsonl").symlink_to(src)
    proc = run("decode", target[0], "in.jsonl", "--out", "alias.jsonl", cwd=tmp_path)
    one_error_line(proc, "alias.jsonl", "input")
    assert src.read_bytes() == before


# -- --jobs: the worker processes -------------------------------------------------------


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_file_renamed_over_the_input_is_never_mixed_into_the_output(
    tmp_path: Path, target: tuple[str, Path], jobs: str
) -> None:
    src, other = tmp_path / "in.jsonl", tmp_path / "other.jsonl"
    n = 16_000  # about 7 MB: fourteen 512 KB ranges; line 1 is in the first, a worker's
    big_file(src, n, "orig", first_city=f"!rename|{other}|{src}")
    big_file(other, n, "other", pad=37)  # other line lengths: old offsets cut mid-line
    out = tmp_path / "o.jsonl"
    proc = run("decode", target[0], str(src), "--jobs", jobs, "--out", str(out))
    assert proc.returncode == 0, proc.stderr[-500:]
    ids = [r["custom_id"] for r in read_jsonl(out)]
    assert ids == [f"orig-{i}" for i in range(n)]
    assert f"{src} was replaced during the run" in proc.stderr, proc.stderr


def test_a_deleted_input_is_reported_as_deleted(
    tmp_path: Path, target: tuple[str, Path]
) -> None:
    src = tmp_path / "in.jsonl"
    n = 16_000
    big_file(src, n, "orig", first_city=f"!unlink|{src}")
    out = tmp_path / "o.jsonl"
    proc = run("decode", target[0], str(src), "--jobs", "2", "--out", str(out))
    assert "cannot write" not in proc.stderr, proc.stderr
    assert proc.returncode == 0, proc.stderr[-500:]
    assert len(read_jsonl(out)) == n
    assert f"{src} was deleted during the run" in proc.stderr, proc.stderr


def test_a_file_target_is_executed_once(tmp_path: Path, target: tuple[str, Path]) -> None:
    src = big_file(tmp_path / "in.jsonl", 3000, "orig")
    proc = run("decode", target[0], str(src), "--jobs", "2", "--out", os.devnull)
    assert proc.returncode == 0, proc.stderr[-500:]
    runs = target[1].read_text().split()
    assert len(runs) == 1, f"the TARGET file ran {len(runs)} times (pids {runs})"


def test_jobs_is_capped_at_the_cpus_with_a_note(tmp_path: Path, target: tuple[str, Path]) -> None:
    proc = popen("decode", target[0], "-", "--jobs", "64", "--out", os.devnull,
                 stdin=subprocess.PIPE)
    try:
        counts: list[int] = []

        def settled() -> bool:  # no new worker for half a second
            counts.append(len(children(proc.pid)))
            return len(counts) > 10 and counts[-1] > 0 and counts[-1] == counts[-11]

        wait_for(settled, timeout=120)
        workers = counts[-1]
        _, err = proc.communicate(b"", timeout=60)
    finally:
        proc.kill()
    assert workers <= (CPUS or 1), f"--jobs 64 on {CPUS} CPUs started {workers} workers"
    assert f"note: --jobs 64 is more than the {CPUS} CPU".encode() in err, err.decode()[-500:]


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "SIGKILL"])
@pytest.mark.parametrize("source", ["file", "stdin"])
def test_workers_do_not_outlive_a_killed_parent(
    tmp_path: Path, target: tuple[str, Path], sig: signal.Signals, source: str
) -> None:
    ready = tmp_path / "ready"
    src = big_file(tmp_path / "in.jsonl", 8000, "orig", first_city=f"!sleep|{ready}|30")
    if source == "file":
        proc = popen("decode", target[0], str(src), "--jobs", "3", "--out", os.devnull)
    else:  # standard input held open: the workers wait for more
        proc = popen("decode", target[0], "-", "--jobs", "3", "--out", os.devnull,
                     stdin=subprocess.PIPE)
        assert proc.stdin is not None
        proc.stdin.write(src.read_bytes())
        proc.stdin.flush()
    workers: list[int] = []
    try:
        assert wait_for(ready.exists, 120), "no worker reached line 1"
        time.sleep(0.5)
        workers = children(proc.pid)
        assert workers
        proc.send_signal(sig)
        proc.wait(60)
        left = [pid for pid in workers if not wait_for(lambda p=pid: not alive(p), 60)]
        assert not left, f"{len(left)} of {len(workers)} workers outlived the parent ({sig.name})"
        if sig == signal.SIGTERM:
            assert proc.returncode == 143
            assert proc.stderr is not None
            assert b"terminated" in proc.stderr.read()
    finally:
        proc.kill()
        proc.wait(60)
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()
        for pid in workers:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)


# -- memory -------------------------------------------------------------------------------

#: Runs the command and prints its peak RSS in KiB, from a small process of its own: a
#: child's ru_maxrss counts what it had at fork (before exec), so forked from pytest every
#: run would look as big as pytest.
_MEASURE = (
    "import resource, subprocess, sys\n"
    "done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
    "print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
)


def peak_rss_mb(*args: str) -> float:
    import sys

    done = subprocess.run([sys.executable, "-c", _MEASURE, *cli(*args)], env=env(),
                          capture_output=True, text=True, timeout=120, check=True)
    status, kib = done.stdout.split()
    assert int(status) in (0, 1), done.stdout
    return int(kib) / 1024


def test_the_default_mode_is_flat_in_memory_for_big_lines(tmp_path: Path) -> None:
    target = f"{ROOT / 'tests' / 'batch_lines.py'}:Weather"

    def replies(path: Path, n: int, size: int) -> Path:
        with open(path, "wb") as f:
            for i in range(n):
                f.write(orjson.dumps({"city": "x" * size, "temperature": i, "unit": "celsius"}))
                f.write(b"\n")
        return path

    small = replies(tmp_path / "small.jsonl", 500, 10)
    big = replies(tmp_path / "big.jsonl", 500, 120_000)  # 60 MB
    base = peak_rss_mb("decode", target, str(small), "--out", os.devnull)
    peak = peak_rss_mb("decode", target, str(big), "--out", os.devnull)
    assert peak - base < 20, (
        f"peak RSS {peak:.0f} MB for 500 lines of 120 KB, {base:.0f} MB for small lines"
    )


# -- the summary --------------------------------------------------------------------------


def test_the_summary_gives_elapsed_time_and_lines_per_second(
    tmp_path: Path, target: tuple[str, Path]
) -> None:
    src = write_lines(tmp_path / "in.jsonl", [openai_line(f"r-{i}", weather(i)) for i in range(50)])
    proc = run("decode", target[0], str(src), "--out", os.devnull)
    assert proc.returncode == 0, proc.stderr
    assert re.search(r"decoded 50 lines in [\d.]+ s \([\d,]+ lines/s\)", proc.stderr), proc.stderr


def test_the_error_path_header_counts_lines_not_paths(
    tmp_path: Path, target: tuple[str, Path]
) -> None:
    # Three invalid lines, each wrong in two places: 3 lines, 6 paths.
    bad = {"city": "x", "temperature": "warm", "unit": "kelvin"}
    lines = [openai_line(f"bad-{i}", bad) for i in range(3)]
    lines += [openai_line(f"r-{i}", weather(i)) for i in range(5)]
    proc = run("decode", target[0], str(write_lines(tmp_path / "in.jsonl", lines)),
               "--out", os.devnull)
    assert "most frequent error paths (in 3 invalid lines)" in proc.stderr, proc.stderr


def test_ctrl_c_says_how_many_lines_were_written(tmp_path: Path, target: tuple[str, Path]) -> None:
    ready = tmp_path / "ready"
    lines = [openai_line(f"r-{i}", weather(i)) for i in range(10_000)]
    lines[4500] = openai_line("slow", weather(4500, f"!sleep|{ready}|60"))
    src = write_lines(tmp_path / "in.jsonl", lines)
    out = tmp_path / "o.jsonl"
    proc = popen("decode", target[0], str(src), "--out", str(out))
    try:
        assert wait_for(ready.exists, 120)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    text = err.decode()
    assert proc.returncode == 130, text
    written = len(read_jsonl(out))
    assert written > 0
    assert f"interrupted: {written:,} lines written to {out}" in text, (written, text)


def test_decode_help_gives_every_exit_status() -> None:
    proc = run("decode", "--help")
    assert proc.returncode == 0
    text = " ".join(proc.stdout.split())
    for status in ("0", "1", "2", "130", "143"):
        assert re.search(rf"\b{status}\b", text), f"exit {status} missing: {text}"


def test_the_error_path_tally_is_bounded() -> None:
    """Distinct error paths (model-chosen keys can make them endless) are held up to a bound;
    past it the rarest go and the summary says the counts are lower bounds."""
    import collections

    from describedtypes._cli import report

    tally = report.Tally()
    for i in range(3 * report.MAX_PATHS):
        tally.add_paths(collections.Counter({"$.unit": 2, f"$.key{i}": 1}))
        assert len(tally.paths) <= report.MAX_PATHS
    assert tally.paths["$.unit"] == 6 * report.MAX_PATHS  # a frequent path keeps its count
    text = report.summary(collections.Counter(invalid=5), tally.paths, 5, tally.trimmed)
    assert "the rarest were dropped" in text
    assert "lower bounds" in text


def test_workers_started_afresh_load_target_by_name_and_check_the_file(tmp_path: Path) -> None:
    """Where processes cannot be forked (macOS, Windows), the workers import TARGET again
    and open FILE by name, checking it is the file the command opened: the output is the
    same as with forked workers."""
    import sys

    wrapper = tmp_path / "spawned.py"
    wrapper.write_text(
        "import sys\nfrom describedtypes._cli import parallel\n"
        "parallel._start_method = lambda: 'spawn'\n"
        "from describedtypes._cli.main import main\n"
        "if __name__ == '__main__':\n    sys.exit(main(sys.argv[1:]))\n"
    )
    src = big_file(tmp_path / "in.jsonl", 3000, "orig")
    target = f"{ROOT / 'tests' / 'batch_lines.py'}:Weather"
    outputs = []
    for name, command in (("forked", cli()), ("spawned", [sys.executable, str(wrapper)])):
        out = tmp_path / f"{name}.jsonl"
        done = subprocess.run([*command, "decode", target, str(src), "--jobs", "2", "--out",
                               str(out)], env=env(), capture_output=True, text=True,
                              timeout=TIMEOUT, check=False)
        assert done.returncode == 0, done.stderr
        outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1]
    assert outputs[0].count(b"\n") == 3000


def test_the_null_device_may_take_both_outputs(tmp_path: Path, target: tuple[str, Path]) -> None:
    mixed(tmp_path / "in.jsonl", 20)
    with open(os.devnull, "w") as null:
        proc = subprocess.run(
            cli("decode", target[0], "in.jsonl", "--errors", os.devnull), stdout=null,
            stderr=subprocess.PIPE, text=True, timeout=TIMEOUT, env=env(), cwd=tmp_path,
            check=False,
        )
    assert proc.returncode == 1, proc.stderr

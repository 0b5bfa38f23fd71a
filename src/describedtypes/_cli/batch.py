"""``describedtypes batch retry REQUESTS RESULTS --out NEW``: the requests to send again.

REQUESTS is a batch request file (``write_batch`` writes one: OpenAI Batch input lines,
or Anthropic Message Batches ``{"custom_id", "params"}`` lines); RESULTS is the results
file the provider returned for it (or a ``describedtypes decode`` output, whose lines
say their ``outcome``). NEW gets every line of REQUESTS whose request did not succeed:
its result failed (an error, a status other than 200, an errored, canceled or expired
result; with ``--target``, also a reply that does not decode into TARGET) or is missing
from RESULTS altogether. Lines are copied byte for byte, so NEW is a request file for
the second round.

Exit status: 0 (also when requests were written: retrying is the point), 2 for a usage
problem (an unreadable file, a repeated custom_id in REQUESTS, RESULTS that answer none
of REQUESTS, NEW being one of the inputs).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Iterator
from typing import IO, Any

import orjson

from .._base.files import FileRefused, rename_over, temporary_beside
from .._batch.lines import decode_batch
from ..errors import DescribedTypesError
from .targets import UsageError, load_target

__all__ = ["add_batch_command", "run_batch"]


def add_batch_command(commands: Any) -> None:
    """Add ``batch retry`` to the command line's subparsers."""
    batch = commands.add_parser("batch", help="work with batch request and results files")
    # Not ``required=True``: argparse would then name the internal ``dest`` in its error.
    sub = batch.add_subparsers(dest="batch_command", metavar="SUBCOMMAND")
    batch.set_defaults(batch_parser=batch)
    cmd = sub.add_parser(
        "retry",
        help="write the requests whose results failed or are missing, for a second round",
        description=(
            "Copy, byte for byte, each line of REQUESTS whose request has no successful "
            "result in RESULTS (failed, errored, expired, canceled, missing; with --target, "
            "also a reply that does not decode into TARGET). Exit status: 0, also when "
            "requests were written; 2 usage error."
        ),
    )
    cmd.add_argument("requests", metavar="REQUESTS", help="the batch request file (JSONL)")
    cmd.add_argument("results", metavar="RESULTS",
                     help="the provider's results file for it (or describedtypes decode output)")
    cmd.add_argument("--out", metavar="NEW", required=True,
                     help="where the requests to send again go (- for standard output)")
    cmd.add_argument("--target", metavar="TARGET", default=None,
                     help="also retry replies that do not decode into TARGET "
                          "(package.module:Name or path/to/file.py:Name)")


class _Refused(Exception):
    """Strictly private: a one-line message, exit status 2."""


def _lines(handle: IO[bytes]) -> Iterator[tuple[int, bytes]]:
    """The numbered lines of a binary file, each with its line ending as read."""
    yield from enumerate(handle, 1)


def _succeeded(line: Any) -> bool:
    """Whether one parsed results line reports a success (without decoding it)."""
    if "outcome" in line:  # a describedtypes decode output line
        return bool(line.get("outcome") == "ok")
    result = line.get("result")
    if isinstance(result, dict):  # Anthropic Message Batches
        return bool(result.get("type") == "succeeded")
    response = line.get("response")
    if line.get("error") is not None or not isinstance(response, dict):
        return False
    return bool(response.get("status_code") == 200)


def _results(path: str, tp: Any) -> tuple[set[str], set[str], int]:
    """The custom ids that succeeded, the ids seen at all, and the unreadable lines."""
    succeeded: set[str] = set()
    seen: set[str] = set()
    unreadable = 0
    if tp is not None:  # a success must also decode: decode_batch decides
        for result in decode_batch(tp, path):
            if result.custom_id is None:
                unreadable += 1
                continue
            seen.add(result.custom_id)
            if result.ok:
                succeeded.add(result.custom_id)
        return succeeded, seen, unreadable
    requests = 0  # request lines where results belong
    with open(path, "rb") as handle:
        for _, raw in _lines(handle):
            if not raw.strip():
                continue
            try:
                line = orjson.loads(raw)
            except orjson.JSONDecodeError:
                unreadable += 1
                continue
            custom_id = line.get("custom_id") if isinstance(line, dict) else None
            if not isinstance(custom_id, str):
                unreadable += 1
                continue
            if not _is_result(line) and _is_request(line):
                requests += 1
                continue
            seen.add(custom_id)
            if _succeeded(line):
                succeeded.add(custom_id)
    if requests and not seen:
        msg = (
            f"{path} holds batch requests, not results; give the request file first, then "
            "the results: batch retry REQUESTS RESULTS"
        )
        raise _Refused(msg)
    return succeeded, seen, unreadable + requests


def _request_id(raw: bytes, number: int, path: str) -> str:
    try:
        line = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        msg = f"{path}:{number} is not a JSON line ({exc}); is it a batch request file?"
        raise _Refused(msg) from None
    custom_id = line.get("custom_id") if isinstance(line, dict) else None
    if not isinstance(custom_id, str):
        msg = f"{path}:{number} has no custom_id; is it a batch request file?"
        raise _Refused(msg)
    if not _is_request(line):
        what = "a result line" if _is_result(line) else "no request"
        msg = (
            f"{path}:{number} is {what}, not a batch request (it has no body or params); "
            "give the request file first, then the results: batch retry REQUESTS RESULTS"
        )
        raise _Refused(msg)
    return custom_id


def _is_request(line: dict[str, Any]) -> bool:
    """An OpenAI Batch input line (``body``) or an Anthropic one (``params``)."""
    return isinstance(line.get("body"), dict) or isinstance(line.get("params"), dict)


def _is_result(line: dict[str, Any]) -> bool:
    """A results line: OpenAI's (``response``/``error``), Anthropic's (``result``) or a
    ``describedtypes decode`` output's (``outcome``)."""
    return any(key in line for key in ("response", "error", "result", "outcome"))


def _check_paths(args: argparse.Namespace) -> None:
    if args.out == "-":
        return
    for name, what in ((args.requests, "REQUESTS"), (args.results, "RESULTS")):
        with contextlib.suppress(OSError):
            if os.path.samefile(args.out, name):
                msg = f"--out {args.out} is {what} ({name}); write the new requests elsewhere"
                raise _Refused(msg)


def retry(args: argparse.Namespace) -> str:
    """Write NEW; returns the summary line."""
    _check_paths(args)
    tp = load_target(args.target) if args.target is not None else None
    try:
        succeeded, seen, unreadable = _results(args.results, tp)
    except OSError as exc:
        msg = f"cannot read {args.results}: {exc.strerror or exc}"
        raise _Refused(msg) from None
    except DescribedTypesError as exc:
        msg = f"{args.target} cannot be decoded into: {exc}"
        raise _Refused(msg) from None
    to_stdout = args.out == "-"
    try:
        if to_stdout:  # written as it goes; the checks below may still refuse the run
            fd, temporary = os.dup(sys.stdout.fileno()), ""
            sys.stdout.flush()
        else:
            fd, temporary = temporary_beside(args.out, ".batch-retry.jsonl")
    except FileRefused as exc:
        raise _Refused(f"--out {exc}") from None
    except OSError as exc:
        msg = f"cannot write {args.out}: {exc.strerror or exc}"
        raise _Refused(msg) from None
    first: dict[str, int] = {}
    counts = {"succeeded": 0, "failed": 0, "missing": 0}
    written = 0
    try:
        with os.fdopen(fd, "wb") as out:
            try:
                source = open(args.requests, "rb")  # noqa: SIM115 - closed below
            except OSError as exc:
                msg = f"cannot read {args.requests}: {exc.strerror or exc}"
                raise _Refused(msg) from None
            with source:
                for number, raw in _lines(source):
                    if not raw.strip():
                        continue
                    custom_id = _request_id(raw, number, args.requests)
                    if custom_id in first:
                        msg = (
                            f"{args.requests}:{number} repeats custom_id {custom_id!r} of "
                            f"line {first[custom_id]}; the results cannot tell them apart"
                        )
                        raise _Refused(msg)
                    first[custom_id] = number
                    if custom_id in succeeded:
                        counts["succeeded"] += 1
                        continue
                    counts["failed" if custom_id in seen else "missing"] += 1
                    out.write(raw if raw.endswith(b"\n") else raw + b"\n")
                    written += 1
        if seen and not seen & first.keys():
            msg = (
                f"none of the {len(seen):,} results in {args.results} is for a request of "
                f"{args.requests}: RESULTS does not belong to REQUESTS"
            )
            raise _Refused(msg)
        if not to_stdout:
            rename_over(temporary, args.out)
    except FileRefused as exc:
        _drop(temporary)
        raise _Refused(f"--out {exc}") from None
    except OSError as exc:
        _drop(temporary)
        where = "standard output" if to_stdout else args.out
        msg = f"cannot write {where}: {exc.strerror or exc}"
        raise _Refused(msg) from None
    except BaseException:
        _drop(temporary)
        raise
    notes: list[str] = []
    total = sum(counts.values())
    if tp is None and counts["succeeded"]:
        notes.append(
            f"the {counts['succeeded']:,} that succeeded were answered, not decoded (no "
            "--target): a reply among them that does not decode was not written; pass "
            "--target TARGET to send those again too"
        )
    strangers = len(seen - first.keys())
    if strangers:
        notes.append(
            f"{strangers:,} result{' is' if strangers == 1 else 's are'} for no request of "
            f"{args.requests}"
        )
    if unreadable:
        notes.append(
            f"{unreadable:,} line{'' if unreadable == 1 else 's'} of {args.results} "
            f"{'was' if unreadable == 1 else 'were'} not a result with a readable custom_id"
        )
    head = (
        f"{total:,} requests: {counts['succeeded']:,} succeeded, {counts['failed']:,} failed, "
        f"{counts['missing']:,} without a result; "
    )
    where = "standard output" if to_stdout else args.out
    tail = f"{written:,} written to {where}" if written else (
        "nothing to retry" + ("" if to_stdout else f" ({args.out} is empty)")
    )
    summary = head + tail + "\n"
    return summary + "".join(f"note: {n}\n" for n in notes)


def _drop(temporary: str) -> None:
    if temporary:
        with contextlib.suppress(OSError):
            os.unlink(temporary)


def run_batch(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """Run ``batch retry``; returns the exit status."""
    if args.batch_command is None:
        args.batch_parser.print_usage(sys.stderr)
        parser.exit(2, "error: 'batch' needs a subcommand: retry (write the requests whose "
                       "results failed or are missing, for a second round)\n")
    try:
        summary = retry(args)
    except (_Refused, UsageError) as exc:
        parser.exit(2, f"error: {exc}\n")
    sys.stderr.write(summary)
    return 0

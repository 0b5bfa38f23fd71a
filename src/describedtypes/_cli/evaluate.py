"""``describedtypes eval TARGET PREDICTIONS GOLD``: field-level scores from the command line.

PREDICTIONS and GOLD are JSON lines files (one of them may be ``-``, standard input):
batch results (OpenAI, Anthropic, Gemini), bare replies, or ``{"custom_id", "value"}``
lines; aligned by ``custom_id`` when both carry one, else line by line. The report
(Markdown or JSON) goes to standard output.

Exit status: 0 when every prediction decoded and every record found its partner; 1 when
a prediction failed or a record was left unmatched (the report says which); 2 for a
usage problem (bad arguments, a TARGET that cannot be loaded, an unreadable file, a
``--match`` naming no list or field, a gold record that does not decode, an id repeated
on one side); 130 when interrupted (Ctrl-C).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .._eval.evaluate import evaluate
from ..errors import DescribedTypesError
from .stdout import emit
from .targets import UsageError, load_target

__all__ = ["add_eval_command", "run_eval"]

_HELP = (
    "Score PREDICTIONS against GOLD field by field: per JSON path of TARGET, true and "
    "false positives, false negatives, precision, recall, F1; micro and macro totals; "
    "the share of empty gold fields filled (fabricated); predictions that do not decode. "
    "Both files are JSON lines (batch results, bare replies, or {\"custom_id\", \"value\"} "
    "lines), aligned by custom_id when both have one, else by line. Exit status: 0 every "
    "prediction decoded and every record was paired; 1 some prediction failed or some "
    "record has no partner; 2 usage error (bad arguments, a TARGET that cannot be "
    "loaded, an unreadable file, a bad --match, gold that does not decode, a repeated "
    "id); 130 interrupted."
)


def add_eval_command(commands: Any) -> None:
    """Add the ``eval`` subcommand to the command line's subparsers."""
    cmd = commands.add_parser(
        "eval", help="score predictions against gold, field by field", description=_HELP
    )
    cmd.add_argument("target", metavar="TARGET", help="package.module:Name or path/to/file.py:Name")
    cmd.add_argument("predictions", metavar="PREDICTIONS",
                     help="the predictions (JSONL), or - for standard input")
    cmd.add_argument("gold", metavar="GOLD",
                     help="the gold records (JSONL), or - for standard input")
    cmd.add_argument(
        "--match", metavar="PATH=KEY", action="append", default=[],
        help="pair the items of the list at PATH by the field KEY (KEY,KEY2 for several), "
             "e.g. --match '$.items[]=sku'; may be given once per list",
    )
    cmd.add_argument("--format", choices=["md", "json"], default="md",
                     help="the report: Markdown (md, the default) or JSON")


def _parse_match(parser: argparse.ArgumentParser, given: list[str]) -> dict[str, tuple[str, ...]]:
    found: dict[str, tuple[str, ...]] = {}
    for item in given:
        path, sep, keys = item.rpartition("=")
        names = tuple(k.strip() for k in keys.split(","))
        if not sep or not path or not all(names):
            parser.exit(2, f"error: --match {item!r}: expected PATH=KEY, e.g. '$.items[]=sku'\n")
        if path in found:
            parser.exit(2, f"error: --match names {path} twice; give its keys once: {path}=A,B\n")
        found[path] = names
    return found


def run_eval(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """Run ``eval``; returns the exit status."""
    match = _parse_match(parser, args.match)
    if args.predictions == "-" and args.gold == "-":
        parser.exit(2, "error: PREDICTIONS and GOLD cannot both be standard input (-)\n")
    predictions: Any = sys.stdin.buffer if args.predictions == "-" else args.predictions
    gold: Any = sys.stdin.buffer if args.gold == "-" else args.gold
    try:
        target = load_target(args.target)
        evaluation = evaluate(target, predictions, gold, match=match)
    except UsageError as exc:
        parser.exit(2, f"error: {exc}\n")
    except OSError as exc:
        name = exc.filename if exc.filename is not None else ""
        parser.exit(2, f"error: cannot read {name}: {exc.strerror or exc}\n")
    except (DescribedTypesError, ValueError, TypeError) as exc:
        parser.exit(2, f"error: {' '.join(str(exc).split())}\n")
    except KeyboardInterrupt:
        parser.exit(130, "interrupted: no report was written\n")
    text = evaluation.to_json() + "\n" if args.format == "json" else evaluation.to_markdown()
    status = emit(parser, text)
    if status:
        return status
    clean = not (
        evaluation.failed or evaluation.unmatched_predictions or evaluation.unmatched_gold
    )
    return 0 if clean else 1

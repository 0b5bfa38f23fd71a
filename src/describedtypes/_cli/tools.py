"""``describedtypes tools TARGET --adapter A``: a Toolbox's definitions as one request sends
them, their fingerprint, or what changed against a saved copy (``--against FILE``).

Exit status: 0 printed (or the same as ``--against``), 1 different from ``--against`` or
the tools cannot be described for that provider, 2 a usage problem (a TARGET that
cannot be loaded or is not a Toolbox, a file that cannot be read).
"""

from __future__ import annotations

import argparse
from typing import Any

import orjson

from .._schema import adapters as _adapters
from .._tools.diff import diff_definitions
from .._tools.requests import fingerprint_of
from .._tools.toolbox import Toolbox
from ..errors import DescribedTypesError
from .stdout import emit
from .targets import UsageError, load_target

__all__ = ["add_tools_command", "run_tools"]


def add_tools_command(commands: Any, adapters: dict[str, _adapters.Adapter]) -> None:
    """Add the ``tools`` subcommand to the command line's subparsers."""
    cmd = commands.add_parser(
        "tools",
        help="print a Toolbox's definitions, their fingerprint, or the diff to a saved copy",
        description=(
            "Print the tool definitions of the Toolbox at TARGET as one request sends them "
            "(the same bytes in every process), or with --fingerprint their short digest, "
            "or with --against FILE every difference from a saved copy that breaks the "
            "provider's prompt cache. Exit status: 0 printed or the same, 1 different, "
            "2 usage error."
        ),
    )
    cmd.add_argument("target", metavar="TARGET",
                     help="the Toolbox: package.module:name or path/to/file.py:name")
    cmd.add_argument("--adapter", required=True, type=str.lower,
                     choices=sorted(n for n in adapters
                                    if n.endswith("_tools") or n == "gemini"),
                     help="the provider's tool form, such as anthropic_tools")
    cmd.add_argument("--strict", default=None, choices=["prefer", "require", "off"],
                     help="the strict policy (default: the toolbox's own)")
    cmd.add_argument("--order", default="registration", choices=["registration", "name"],
                     help="the order of the tools (default: registration)")
    shown = cmd.add_mutually_exclusive_group()
    shown.add_argument("--fingerprint", action="store_true",
                       help="print the fingerprint of the definitions only")
    shown.add_argument("--against", metavar="FILE", default=None,
                       help="compare with a saved JSON list of definitions; exit 1 when "
                            "they differ")


def run_tools(
    args: argparse.Namespace, parser: argparse.ArgumentParser,
    adapters: dict[str, _adapters.Adapter],
) -> int:
    try:
        box = load_target(args.target, instance=True)
        if not isinstance(box, Toolbox):
            msg = (
                f"{args.target} is a {type(box).__name__}, not a Toolbox; point TARGET at "
                "a describedtypes.Toolbox"
            )
            raise UsageError(msg)
        sent = box.definitions(adapters[args.adapter], strict=args.strict, order=args.order)
    except UsageError as exc:
        parser.exit(2, f"error: {exc}\n")
    except DescribedTypesError as exc:
        parser.exit(1, f"error: {exc}\n")
    if args.fingerprint:
        return emit(parser, fingerprint_of(sent) + "\n")
    if args.against is None:
        return emit(parser, orjson.dumps(sent, option=orjson.OPT_INDENT_2).decode() + "\n")
    try:
        changes = diff_definitions(args.against, sent)
    except (ValueError, TypeError) as exc:
        parser.exit(2, f"error: {exc}\n")
    if not changes:
        emit(parser, f"same definitions as {args.against} (fingerprint {fingerprint_of(sent)})\n")
        return 0
    lines = [f"{len(changes)} difference(s) from {args.against}:"]
    lines += [str(change) for change in changes]
    code = emit(parser, "\n".join(lines) + "\n")
    return 1 if code == 0 else code

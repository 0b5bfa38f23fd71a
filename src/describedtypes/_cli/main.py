"""``python -m describedtypes schema TARGET``: print a schema as indented JSON.

``graph TARGET`` prints a Mermaid class diagram of it; ``--version`` the version.
``decode TARGET FILE`` (decoding a batch results file) lives in ``decode.py``,
``batch retry REQUESTS RESULTS`` (the requests to send again) in ``batch.py``, ``mcp TARGET``
(serving a Toolbox over MCP) in ``mcp.py``, ``eval TARGET PREDICTIONS GOLD`` (field-level
scores) in ``evaluate.py``, ``tools TARGET --adapter A`` (a Toolbox's definitions,
fingerprint or diff) in ``tools.py``, ``probe`` (measuring an endpoint) in ``probe.py``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import orjson

from .._schema import adapters as _adapters
from .._schema.graph import graph
from .._schema.schema import schema
from ..errors import DescribedTypesError
from .stdout import emit
from .targets import UsageError, load_target

__all__ = ["adapter_names", "main"]


def adapter_names() -> dict[str, _adapters.Adapter]:
    """Every adapter the command line accepts, by its `--adapter` name (lower case)."""
    found = {}
    for name in dir(_adapters):
        value = getattr(_adapters, name)
        if isinstance(value, _adapters.Adapter) and name.isupper():
            found[name.lower()] = value
    return found


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("describedtypes")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown (not installed)"


class _VersionAction(argparse.Action):
    """``--version``: the version is looked up only when asked for (the lookup reads the
    installed distributions' metadata, which every other command would wait for)."""

    def __init__(self, option_strings: list[str], dest: str, **kwargs: Any) -> None:
        super().__init__(
            option_strings, dest, nargs=0, default=argparse.SUPPRESS,
            help="show program's version number and exit",
        )

    def __call__(self, parser: argparse.ArgumentParser, *args: Any) -> None:
        sys.stdout.write(f"describedtypes {_version()}\n")
        parser.exit()


def main(argv: Sequence[str] | None = None, *, prog: str | None = None) -> int:
    """Run the command line; returns the exit status.

    ``prog`` is the program's name in the usage line: ``python -m describedtypes`` from
    ``__main__``, otherwise the name it was invoked by (the ``describedtypes`` script).
    """
    adapters = adapter_names()
    parser = argparse.ArgumentParser(
        prog=prog or Path(sys.argv[0]).name or "describedtypes",
        description="Describe Python types and functions to large language models.",
    )
    parser.add_argument("--version", action=_VersionAction)
    # Not ``required=True``: argparse would then name the internal ``dest`` in its error.
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    cmd = commands.add_parser("schema", help="print the schema of a type or function as JSON")
    cmd.add_argument("target", metavar="TARGET", help="package.module:Name or path/to/file.py:Name")
    cmd.add_argument(
        "--adapter",
        default="standard",
        type=str.lower,
        choices=sorted(adapters),
        help="the provider shape (default: standard)",
    )
    cmd.add_argument(
        "--references", action="store_true", help="put nested classes under $defs"
    )
    _add_graph_command(commands)
    from .decode import add_decode_command, run_decode

    add_decode_command(commands)
    from .mcp import add_mcp_command, run_mcp

    add_mcp_command(commands)
    from .batch import add_batch_command, run_batch

    add_batch_command(commands)
    from .evaluate import add_eval_command, run_eval

    add_eval_command(commands)
    from .tools import add_tools_command, run_tools

    add_tools_command(commands, adapters)
    from .probe import add_probe_command, run_probe

    add_probe_command(commands)
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_usage(sys.stderr)
        parser.exit(2, f"error: choose a command: {', '.join(commands.choices)} "
                       "(--help says what each does)\n")
    if args.command == "graph":
        return _graph_command(parser, args)
    if args.command == "decode":
        return run_decode(args, parser)
    if args.command == "mcp":
        return run_mcp(args, parser)
    if args.command == "batch":
        return run_batch(args, parser)
    if args.command == "eval":
        return run_eval(args, parser)
    if args.command == "tools":
        return run_tools(args, parser, adapters)
    if args.command == "probe":
        return run_probe(args, parser)
    try:
        obj = load_target(args.target)
        out = schema(obj, llm_adapter=adapters[args.adapter], use_references=args.references)
    except UsageError as exc:
        parser.exit(2, f"error: {exc}\n")
    except DescribedTypesError as exc:
        parser.exit(1, f"error: {exc}\n")
    return emit(parser, orjson.dumps(out, option=orjson.OPT_INDENT_2).decode() + "\n")


def _add_graph_command(commands: Any) -> None:
    cmd = commands.add_parser(
        "graph", help="print a Mermaid class diagram of a type or function and its classes"
    )
    cmd.add_argument("target", metavar="TARGET", help="package.module:Name or path/to/file.py:Name")
    cmd.add_argument(
        "--direction",
        default="LR",
        type=str.upper,
        choices=["LR", "RL", "TB", "BT"],
        help="the layout: left to right (LR, the default), top to bottom (TB), ...",
    )


def _graph_command(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    try:
        text = graph(load_target(args.target), direction=args.direction)
    except UsageError as exc:
        parser.exit(2, f"error: {exc}\n")
    except DescribedTypesError as exc:
        parser.exit(1, f"error: {exc}\n")
    if text.empty:
        parser.exit(2, (
            f"error: {args.target} uses no class, enum or function: there is nothing to "
            f"draw (schema {args.target} prints its schema)\n"
        ))
    return emit(parser, text)

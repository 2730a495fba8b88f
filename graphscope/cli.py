"""The `graphscope` command line: parses arguments and hands each subcommand to its layer."""

from __future__ import annotations

import argparse
import sys

import graphscope


# Each entry adds one subcommand (run, view, summary as they arrive): a function taking the
# subparsers object that calls `add_parser(name, ...)` and `set_defaults(handler=fn)`, where
# `fn(args) -> int` returns the exit status. Handlers import their layer (session, tui) inside
# the function, so `graphscope --version` stays fast and never loads Textual.
SUBCOMMANDS: tuple = ()


def build_parser() -> argparse.ArgumentParser:
    """The argument parser, with every subcommand in SUBCOMMANDS registered."""
    parser = argparse.ArgumentParser(
        prog="graphscope",
        description="A terminal debugger for computation graphs: "
        "step through a neural network's backward pass.",
    )
    parser.add_argument(
        "--version", action="version", version=f"graphscope {graphscope.__version__}"
    )
    subcommands = parser.add_subparsers(dest="command", metavar="COMMAND", title="commands")
    for add_subcommand in SUBCOMMANDS:
        add_subcommand(subcommands)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line with `argv` (default: sys.argv[1:]); returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help(sys.stderr)
        return 2
    return handler(args)


if __name__ == "__main__":
    sys.exit(main())

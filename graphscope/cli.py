"""The `graphscope` command line: parses arguments and hands each subcommand to its layer."""

from __future__ import annotations

import argparse
import atexit
import contextlib
import gc
import signal
import sys
import threading
from typing import NoReturn

import graphscope


def _add_run(subcommands) -> None:
    p = subcommands.add_parser(
        "run",
        help="run a script under the debugger",
        description="Run a PyTorch-style script on graphscope's engine and debug its backward pass "
        "(pauses before the first backward node), or with --headless record it and print a summary.",
    )
    p.add_argument("--headless", action="store_true", help="no UI: record the run and print a summary")
    p.add_argument("--export", metavar="FILE", help="(headless) write the run's snapshot JSON to FILE")
    p.add_argument("--dot", metavar="FILE", help="(headless) write the graph in Graphviz DOT to FILE")
    p.add_argument("--fail-on-nan", action="store_true", help="(headless) exit with 3 if any NaN/Inf appeared")
    p.add_argument(
        "--as-torch", action="store_true", help="make `import torch` resolve to graphscope's engine for this run"
    )
    p.add_argument("--device", metavar="D", help="default device for tensors the script creates (cpu, cuda)")
    p.add_argument("--no-pause", action="store_true", help="do not pause at the first backward node")
    p.add_argument(
        "--break",
        dest="breaks",
        action="append",
        default=[],
        metavar="SPEC",
        help="a breakpoint: op:log, module:model.fc, line:model.py:42, nan, grad_norm:10, step; stops where the "
        "forward makes the node unless backward: comes first; ' if max > 1e3' adds a condition (repeatable; "
        "headless: each stop is printed)",
    )
    p.add_argument(
        "--post-mortem",
        action="store_true",
        help="(headless) open pdb at each --break stop and where the script raised",
    )
    _add_recording_options(p, keep=True)
    p.add_argument("script", help="the Python script to run")
    p.add_argument("args", nargs=argparse.REMAINDER, help="arguments passed to the script")
    p.set_defaults(handler=_run)


def _run(args) -> int:
    # A headless run holds Ctrl-C from its first moment, before the imports and checks below.
    with _HeldCtrlC() if args.headless else contextlib.nullcontext() as held:
        problem = _run_problem(args)
        if problem:
            print(f"graphscope: {problem}", file=sys.stderr)
            return 2
        if args.headless:
            from graphscope.session.headless import run_headless

            return run_headless(
                args.script,
                args.args,
                export=args.export,
                dot_path=args.dot,
                fail_on_nan=args.fail_on_nan,
                as_torch=args.as_torch,
                device=args.device,
                held=held,
                policy=args.policy,
                breakpoints=args.breakpoints,
                post_mortem=args.post_mortem,
            )
    from graphscope.tui.launch import run

    return run(
        args.script,
        args.args,
        as_torch=args.as_torch,
        device=args.device,
        pause=not args.no_pause,
        policy=args.policy,
        breakpoints=args.breakpoints,
    )


def _run_problem(args) -> str | None:
    """What is wrong with `run`'s arguments, in one line (None: nothing). Export paths are made
    absolute here, when the command starts: a script's os.chdir does not move them."""
    from graphscope.trace.record.literal import escaped

    if (problem := _script_problem(args.script)) is not None:
        return escaped(problem)
    if not args.headless and (args.export is not None or args.dot is not None or args.fail_on_nan):
        return "--export, --dot and --fail-on-nan go with --headless (in the app, press e to export)"
    if not args.headless and args.post_mortem:
        return "--post-mortem goes with --headless (in the app, press : at a stop to evaluate Python there)"
    from graphscope.session.breakpoint import Breakpoint

    args.breakpoints = []
    for spec in args.breaks:
        try:
            args.breakpoints.append(Breakpoint.parse(spec))
        except ValueError as error:
            return f"--break {escaped(spec)}: {escaped(str(error))}"
    for flag, name in (("--export", "export"), ("--dot", "dot")):
        if getattr(args, name) is not None:
            from graphscope.session.export_path import ExportPathError, export_path

            try:
                setattr(args, name, export_path(flag, getattr(args, name)))
            except ExportPathError as error:
                return str(error)
    if args.device is not None:
        from graphscope.engine.backend import as_device

        try:
            as_device(args.device)
        except RuntimeError as error:
            return str(error)
    return None


class _HeldCtrlC:
    """While active (on the main thread), Ctrl-C is remembered for the headless run being set up
    (which then ends as any interrupted run: exit 130 and its exports), not a KeyboardInterrupt."""

    def __enter__(self):
        self.pressed = False
        self.previous = None
        if threading.current_thread() is threading.main_thread():
            self.previous = signal.signal(signal.SIGINT, self._press)
        return self

    def _press(self, signum, frame) -> None:
        self.pressed = True

    def __exit__(self, *exc):
        if self.previous is not None:
            signal.signal(signal.SIGINT, self.previous)
        return False


def _add_view(subcommands) -> None:
    p = subcommands.add_parser(
        "view",
        help="open a snapshot in the debugger",
        description="Browse a saved run (a snapshot JSON) in the debugger.",
    )
    p.add_argument("snapshot", help="the snapshot JSON written by `run --headless --export` or the app")
    p.add_argument(
        "--against",
        metavar="OTHER",
        help="another run's snapshot: mark each node whose value differs from it (≠) and show both side by side",
    )
    p.set_defaults(
        handler=lambda args: __import__("graphscope.tui.launch", fromlist=["view"]).view(args.snapshot, args.against)
    )


def _add_summary(subcommands) -> None:
    p = subcommands.add_parser(
        "summary",
        help="print the summary of a snapshot",
        description="Print a saved run's summary: passes, loss, grad norms, findings.",
    )
    p.add_argument("snapshot", help="the snapshot JSON")
    p.set_defaults(handler=_summary)


def _summary(args) -> int:
    from graphscope.trace.report.summary_report import print_summary
    from graphscope.trace.snapshot import SnapshotError, load

    try:
        record = load(args.snapshot)
    except SnapshotError as error:
        print(f"graphscope: {error}", file=sys.stderr)
        return 2
    print_summary(record)
    return 0


def _add_diff(subcommands) -> None:
    p = subcommands.add_parser(
        "diff",
        help="compare two snapshots: the first node, backward step and parameter where they differ",
        description="Compare two runs' snapshots. Nodes are matched by pass, op, module, source line and "
        "occurrence (not by id), so two runs of one script match. Reports the first node whose value "
        "differs, the first backward step whose grad differs, and the parameters' differences per pass. "
        "Exit status: 0 when they agree, 1 when they differ, 2 on bad input.",
    )
    p.add_argument("a", help="the first snapshot JSON")
    p.add_argument("b", help="the second snapshot JSON")
    p.add_argument("--rtol", type=float, default=1e-5, help="relative tolerance (default 1e-5)")
    p.add_argument("--atol", type=float, default=1e-8, help="absolute tolerance (default 1e-8)")
    p.set_defaults(handler=_diff)


def _diff(args) -> int:
    from graphscope.trace.analysis.run_diff import diff
    from graphscope.trace.report.run_diff_report import print_diff
    from graphscope.trace.snapshot import SnapshotError, load

    if not (args.rtol >= 0 and args.atol >= 0):  # also refuses NaN
        print("graphscope: --rtol and --atol must be numbers >= 0", file=sys.stderr)
        return 2
    try:
        a, b = load(args.a), load(args.b)
    except SnapshotError as error:
        print(f"graphscope: {error}", file=sys.stderr)
        return 2
    result = diff(a, b, args.rtol, args.atol)
    print_diff(result, args.a, args.b)
    return 0 if result.agree else 1


def _add_plot(subcommands) -> None:
    p = subcommands.add_parser(
        "plot",
        help="write a snapshot's training series as a picture (SVG or PNG)",
        description="Draw a saved run's series over its passes into a picture file with matplotlib: the loss, "
        "each parameter's grad norm and update/data ratio (log scales), the learning rates, the dead and "
        "saturated fractions of activations and the logged scalars; NaN/Inf passes are marked.",
    )
    p.add_argument("snapshot", help="the snapshot JSON")
    p.add_argument("--out", required=True, metavar="FILE", help="the picture to write: a .svg or .png file")
    p.add_argument("--params", metavar="A,B", help="the parameters drawn, by name (default: the first 12)")
    p.set_defaults(handler=_plot)


def _plot(args) -> int:
    from graphscope.trace.report.plot_file import PlotError, check_out, write_plot
    from graphscope.trace.snapshot import SnapshotError, load

    params = None if args.params is None else [p.strip() for p in args.params.split(",") if p.strip()]
    try:
        check_out(args.out)
        write_plot(load(args.snapshot), args.out, params)
    except (SnapshotError, PlotError) as error:
        print(f"graphscope: {error}", file=sys.stderr)
        return 2
    print(f"wrote {args.out}")
    return 0


def _add_render(subcommands) -> None:
    p = subcommands.add_parser(
        "render",
        help="draw a snapshot's graph as an SVG or PNG picture (through Graphviz's dot)",
        description="Draw a saved run's graph (or one pass's, or one module's part of it) as a picture, with the "
        "app's marks (NaN/Inf nodes red, the NaN origin and the node the script failed at doubled), through "
        "Graphviz's `dot` program.",
    )
    p.add_argument("snapshot", help="the snapshot JSON")
    p.add_argument("--out", required=True, metavar="FILE", help="the picture to write: FILE.svg or FILE.png")
    p.add_argument("--module", metavar="NAME", help="only the nodes made in this module (and the modules inside it)")
    p.add_argument("--pass", dest="pass_index", type=int, metavar="N", help="only the nodes made in pass N, from 0")
    p.set_defaults(handler=_render)


def _render(args) -> int:
    from graphscope.trace.report.render import RenderError, picture_format, render
    from graphscope.trace.snapshot import SnapshotError, load

    try:
        picture_format(args.out)  # before a big snapshot is read
        record = load(args.snapshot)
        render(record, args.out, args.pass_index, args.module)
    except (SnapshotError, RenderError) as error:
        print(f"graphscope: {error}", file=sys.stderr)
        return 2
    print(f"graph written to {args.out}")
    return 0


def _add_explain(subcommands) -> None:
    p = subcommands.add_parser(
        "explain",
        help="print a backward pass step by step: each rule with its numbers",
        description="Run a script like `run --headless` (or read a snapshot) and print one backward pass step "
        "by step: each node, its source line, its derivative rule and the chain rule with the run's numbers, "
        "where each leaf's .grad ended up, then the optimizer steps after the pass.",
    )
    p.add_argument(
        "--as-torch", action="store_true", help="make `import torch` resolve to graphscope's engine for this run"
    )
    p.add_argument(
        "--pass",
        dest="pass_index",
        type=int,
        default=0,
        metavar="N",
        help="the backward pass to explain, from 0 (default: 0, the first)",
    )
    p.add_argument(
        "--markdown",
        action="store_true",
        help="write Markdown (a heading per step, code blocks for the numbers) for notes and slides",
    )
    _add_recording_options(p, keep=False)
    p.add_argument("source", help="the Python script to run, or a snapshot JSON")
    p.add_argument("args", nargs=argparse.REMAINDER, help="arguments passed to the script")
    p.set_defaults(handler=_explain)


def _explain(args) -> int:
    from graphscope.session.explain_run import explain

    return explain(
        args.source,
        args.args,
        pass_index=args.pass_index,
        markdown=args.markdown,
        as_torch=args.as_torch,
        policy=args.policy,
    )


def _script_problem(path: str) -> str | None:
    """Why `path` is not a script to run (told by its content, so a snapshot is never run); None when it is."""
    from graphscope.trace.snapshot.source_kind import SourceError, not_runnable, source_kind

    try:
        return not_runnable(path, source_kind(path))
    except SourceError as error:
        return str(error)


class _PolicyOption(argparse.Action):
    """An option that sets fields of the recorder's Policy (`parse` reads its value into them); a bad
    value is one line on stderr and exit code 2, not argparse's usage."""

    def __init__(self, *args, parse: str, **kwargs):
        super().__init__(*args, **kwargs)
        self.parse = parse

    def __call__(self, parser, namespace, value, option_string=None):
        from dataclasses import replace

        from graphscope.trace.record import keep_option
        from graphscope.trace.recording.keeping import Policy

        try:
            fields = getattr(keep_option, self.parse)(value)
        except ValueError as error:
            parser.exit(2, f"graphscope: {option_string} {value}: {error}\n")
        setattr(namespace, self.dest, replace(getattr(namespace, self.dest) or Policy(), **fields))


def _add_recording_options(p, *, keep: bool) -> None:
    """--keep (which passes keep their detail) and --full-values (which tensors keep every element)."""
    p.set_defaults(policy=None)
    if keep:
        p.add_argument(
            "--keep",
            action=_PolicyOption,
            parse="keep_passes",
            dest="policy",
            metavar="PASSES",
            help="the passes kept in detail: all, last=N, first=N or first=N,last=M "
            "(default first=1,last=3; the passes where a NaN/Inf first appeared are always kept)",
        )
    p.add_argument(
        "--full-values",
        action=_PolicyOption,
        parse="full_values",
        dest="policy",
        metavar="N",
        help="keep every element of tensors of at most N elements (default 4096), or of all: "
        "the Rule tab and gradcheck need them",
    )


# Each entry adds one subcommand. Handlers import their layer (session, trace, tui) inside the
# function, so `graphscope --version` stays fast and never loads Textual.
SUBCOMMANDS = {
    "run": _add_run,
    "view": _add_view,
    "summary": _add_summary,
    "diff": _add_diff,
    "explain": _add_explain,
    "plot": _add_plot,
    "render": _add_render,
}


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The argument parser, with every subcommand in SUBCOMMANDS registered, or `only` that one (a
    command line naming its command needs no other's: each costs argparse half a millisecond)."""
    parser = argparse.ArgumentParser(
        prog="graphscope",
        description="A terminal debugger for computation graphs: step through a neural network's backward pass.",
    )
    parser.add_argument("--version", action="version", version=f"graphscope {graphscope.__version__}")
    subcommands = parser.add_subparsers(dest="command", metavar="COMMAND", title="commands")
    for name, add_subcommand in SUBCOMMANDS.items():
        if only in (None, name):
            add_subcommand(subcommands)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line with `argv` (default: sys.argv[1:]); returns the exit status."""
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser(argv[0] if argv and argv[0] in SUBCOMMANDS else None)
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help(sys.stderr)
        return 2
    return handler(args)


def entry() -> NoReturn:
    """The process's command line (the `graphscope` script, `python -m graphscope`): `main`, then the exit
    with its status, the collector settled first when nothing of the script's is left to run (`settle_collector`)."""
    exits = atexit._ncallbacks()
    code = main()
    running = [t for t in threading.enumerate() if not t.daemon and t is not threading.current_thread()]
    if atexit._ncallbacks() == exits and not running:
        settle_collector()
    sys.exit(code)


def settle_collector() -> None:
    """Before the interpreter exits: one full collection (what the script left in reference cycles, its
    namespace among them, is finalised now, as the exit would), then every object left is frozen. The
    exit's own collections (several, each scanning every object still alive: a run's record, session and
    modules) then have nothing to scan: a quarter of a second of the two that char_lstm takes with every
    pass kept. Only when the script left no exit handler and no thread to run, which could let go of
    more for those collections to finalise."""
    gc.collect()
    gc.freeze()


if __name__ == "__main__":
    entry()

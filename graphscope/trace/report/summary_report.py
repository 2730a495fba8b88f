"""The headless summary of a record (live or loaded): passes, nodes, loss curve, grad norms, findings, the error."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text

from ..record.keep_option import KEEP_ALL
from ..record.limits import cut
from ..record.model import FINDING_KINDS, FINDING_TITLES, BackwardPass, Finding, Record, SourceSite
from .drawing import loss_sparkline
from .literal import literal
from .number_text import format_number
from .series_summary import render_series

# Characters of the script's error message shown: Rich takes a minute to wrap a message of
# megabytes (the record, and the TUI, keep it whole).
SHOWN_MESSAGE = 4096
NO_GRAPH = (
    "The script built no graph: no operation on a tensor that requires grad ran while it "
    "was recorded, so there is nothing to show. (Set requires_grad=True on a tensor, or use "
    "an nn layer, and call .backward() on a result.)"
)


def _site_text(site: SourceSite | None) -> Text:
    if site is None:
        return Text("")
    where = literal(f"{site.file}:{site.line}", "cyan")
    if site.text:
        return Text.assemble(where, "  ", literal(site.text, "dim"))
    return where


def _nodes_per_pass(passes: Sequence[BackwardPass]) -> str:
    counts = [p.node_count for p in passes]
    if not counts:
        return ""
    if min(counts) == max(counts):
        return f"{counts[0]:,} per pass"
    return f"{min(counts):,} to {max(counts):,} per pass (median {np.median(counts):,.0f})"


def _overview(record: Record, passes: Sequence[BackwardPass]) -> Table:
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold")
    grid.add_column()
    meta = record.metadata
    if meta.script:
        grid.add_row("script", literal(" ".join([meta.script, *meta.argv[1:]])))
    detailed = [p.index for p in passes if p.detailed]
    kept = ""
    if passes and len(detailed) < len(passes):
        shown = ", ".join(str(i) for i in detailed[:8]) + (" …" if len(detailed) > 8 else "")
        kept = f"  (full detail kept for pass{'es' if len(detailed) != 1 else ''} {shown})"
    grid.add_row("passes", f"{len(passes):,} backward pass{'es' if len(passes) != 1 else ''} recorded{kept}")
    trailing = int((record.nodes.scan().pass_index >= len(passes)).sum())
    nodes = _nodes_per_pass(passes)
    if trailing:
        nodes = f"{nodes}; " if nodes else ""
        nodes += f"{trailing:,} after the last backward"
    grid.add_row("nodes", nodes or "0")
    grid.add_row("device", literal(meta.device))
    return grid


def _loss(passes: Sequence[BackwardPass]) -> Table | None:
    losses = [p.loss for p in passes]
    if not any(v is not None for v in losses):
        return None
    finite = [v for v in losses if v is not None and math.isfinite(v)]
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold")
    grid.add_column()
    grid.add_row("loss", Text(loss_sparkline(losses), "green"))
    first = next(v for v in losses if v is not None)
    last = next(v for v in reversed(losses) if v is not None)
    facts = f"first {format_number(first)}   last {format_number(last)}"
    if finite:
        facts += f"   lowest {format_number(min(finite))}"
    bad = sum(1 for v in losses if v is not None and not math.isfinite(v))
    if bad:
        facts += f"   NaN/Inf in {bad} pass{'es' if bad != 1 else ''}"
    grid.add_row("", Text(facts, "red" if bad else ""))
    return grid


def _grad_norms(passes: Sequence[BackwardPass], count: int = 5) -> Table | None:
    latest = next((p for p in reversed(passes) if p.grad_norms), None)
    if latest is None:
        return None
    ranked = sorted(latest.grad_norms.items(), key=lambda kv: (math.isnan(kv[1]), 0.0 if math.isnan(kv[1]) else -kv[1]))
    table = Table(title=f"grad norms, pass {latest.index}", title_justify="left", box=None, padding=(0, 2))
    table.add_column("parameter")
    table.add_column("grad norm", justify="right")
    table.add_column("")
    rows: Sequence[tuple[str, float | None, str]]
    if len(ranked) <= 2 * count:
        rows = [(name, norm, "") for name, norm in ranked]
    else:
        rows = (
            [(name, norm, "largest") for name, norm in ranked[:count]]
            + [("…", None, "")]
            + [(name, norm, "smallest") for name, norm in ranked[-count:]]
        )
    for name, norm, note in rows:
        bad = norm is not None and not math.isfinite(norm)
        table.add_row(
            literal(name),
            Text(format_number(norm) if norm is not None else "", "red" if bad else ""),
            Text(note, "dim"),
        )
    return table


def _findings(findings: list[Finding]) -> Table:
    table = Table(title="findings", title_justify="left", box=None, padding=(0, 2), show_header=False)
    table.add_column(style="bold yellow", no_wrap=True)
    table.add_column()
    order = {k: i for i, k in enumerate(FINDING_KINDS)}
    for f in sorted(findings, key=lambda f: order.get(f.kind, len(order))):
        style = "bold red" if f.kind.startswith("nan") else "bold yellow"
        body = Group(literal(f.message), _site_text(f.site)) if f.site is not None else literal(f.message)
        table.add_row(Text(FINDING_TITLES.get(f.kind, f.kind), style), body)
    return table


def _error(record: Record) -> Group | None:
    e = record.error
    if e is None:
        return None
    parts: list[RenderableType] = [
        Text.assemble(
            ("the script raised ", "bold red"),
            literal(e.type, "bold red"),
            (": ", "bold red"),
            literal(cut(e.message, SHOWN_MESSAGE)),
        )
    ]
    if e.site is not None:
        parts.append(_site_text(e.site))
    if e.node is not None and e.node in record.nodes:
        node = record.nodes[e.node]
        parts.append(Text.assemble("during the backward of ", literal(node.op, "bold"), f" (node {node.id})"))
    return Group(*parts)


def render(record: Record) -> Group:
    """The summary as one Rich renderable; every string from the record shown literally."""
    parts: list[RenderableType] = []
    title = Text("graphscope summary", "bold")
    if record.metadata.exit_code not in (None, 0):
        title.append(f"  (exit code {record.metadata.exit_code})", "red")
    parts.append(title)
    if not record.nodes and not record.passes:
        if record.metadata.script:
            parts.append(Text.assemble(("script  ", "bold"), literal(record.metadata.script)))
        parts.append(Text(NO_GRAPH))
        error = _error(record)
        if error is not None:
            parts += [Text(""), error]
        return Group(*parts)
    passes = list(record.passes)  # a live record makes each trimmed pass again when read: once here
    parts += [_overview(record, passes)]
    for piece in (_loss(passes), _grad_norms(passes), render_series(record.training)):
        if piece is not None:
            parts += [Text(""), piece]
    parts.append(Text(""))
    if record.findings:
        parts.append(_findings(record.findings))
    else:
        parts.append(Text("findings: none (no NaN/Inf, dead ReLU, vanishing or exploding grad)", "green"))
    error = _error(record)
    if error is not None:
        parts += [Text(""), error]
    notes = []
    if record.trimmed_nodes:
        notes.append(
            f"{record.trimmed_nodes:,} nodes of passes outside the detail window were not kept "
            f"({KEEP_ALL} to keep them)"
        )
    if record.dropped_values:
        notes.append(f"values of {record.dropped_values:,} tensors were dropped to stay within the memory budget")
    if record.dropped_console:
        notes.append(f"{record.dropped_console:,} early console lines were dropped")
    if notes:
        parts += [Text(""), *(Text(n, "dim") for n in notes)]
    return Group(*parts)


def print_summary(record: Record, console: Console | None = None) -> None:
    """Print the summary (to stdout unless a console is given). The summary's own words are never
    emoji codes, so its console leaves them alone (and Rich's table of 4,000 emoji unloaded)."""
    (console or Console(emoji=False)).print(render(record))

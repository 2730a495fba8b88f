"""`graphscope explain`'s report: one backward pass step by step, where each leaf's .grad ended up,
and the optimizer's work after the pass, as plain text or as Markdown for notes and slides.

Both forms are drawn from one list of sections (a heading, the script's line, the numbers), so
they say the same; every string from the script stays literal (control characters escaped; in
Markdown, in code blocks or inline code)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..record.inconsistent import InconsistentRecord
from ..record.literal import escaped, visible
from ..record.model import (
    GRAD_RESET,
    HAND_UPDATE,
    OPTIMIZER_STEP,
    BackwardPass,
    Node,
    OptimizerEvent,
    Record,
    SourceSite,
)
from ..record.tensor_summary import TensorSummary
from .optimizer_step import explain_change
from .step import (
    SMALL,
    PassReader,
    explain_lines,
    explain_step,
    number_text,
    summary_stats,
    values_text,
)

__all__ = ["ExplainError", "choose_pass", "markdown_report", "text_report"]


class ExplainError(ValueError):
    """A pass that cannot be explained, in words for the user."""


class Name(str):
    """A piece of a heading or sentence that comes from the script (a file, a leaf's name, an op):
    in Markdown it is inline code, shown as it is."""


Words = tuple[str, ...]  # a heading or sentence: strs of the report's own words, and Names


@dataclass(slots=True)
class Section:
    """One part of the report: a heading, the script's line it is about, prose, the numbers."""

    heading: Words
    site: SourceSite | None = None
    prose: list[Words] = field(default_factory=list)
    numbers: list[str] = field(default_factory=list)


def choose_pass(record: Record, pass_index: int) -> BackwardPass:
    """Backward pass `pass_index`, or an ExplainError saying why it cannot be explained."""
    passes = record.passes
    count = len(passes)
    if count == 0:
        raise ExplainError(
            "the run made no backward pass: nothing to explain (the script must call "
            ".backward() on a result that requires grad)"
        )
    if not 0 <= pass_index < count:
        numbers = "0" if count == 1 else f"0-{count - 1}"
        raise ExplainError(
            f"pass {pass_index} does not exist: the run made {count} backward "
            f"pass{'es' if count != 1 else ''} ({numbers})"
        )
    p = passes[pass_index]
    if not p.detailed or not p.order:
        kept = [q.index for q in passes if q.detailed and q.order]
        raise ExplainError(
            f"pass {pass_index} was not kept in detail in this record (passes kept in detail: "
            f"{_ranges(kept) or 'none'}); run `graphscope explain --pass {pass_index}` on the "
            "script to record it"
        )
    return p


def sections(record: Record, pass_index: int) -> tuple[Words, list[Words], list[Section]]:
    """(the title, the introduction, the sections) of the report on pass `pass_index`."""
    p = choose_pass(record, pass_index)
    root = record.nodes.get(p.root) if p.root is not None else None
    title = (
        (f"Backward pass {pass_index} of ", Name(record.metadata.script))
        if record.metadata.script
        else (f"Backward pass {pass_index}",)
    )
    loss = "" if p.loss is None else f", loss {number_text(p.loss)}"
    intro: list[Words] = [
        (
            f"Pass {pass_index} of {len(record.passes)}{loss}: {len(p.order)} steps, from ",
            _node_name(root, p.root),
            " back to the leaves.",
        ),
        (
            "Each step is one node's backward: its rule, and ",
            Name("grad_in = grad_out × local"),
            " with the run's numbers.",
        ),
    ]
    if len(p.steps) < len(p.order):
        intro.append((f"The record ends at step {len(p.steps)} of {len(p.order)}: the run stopped in this pass.",))
    reader = PassReader(record, p)  # each step and node made once for the whole report
    out = [_step(reader, pass_index, k) for k in range(len(p.steps))]
    out.append(_leaves(reader))
    out += [_event(record, e) for e in record.optimizer if e.passes == pass_index + 1]
    return title, intro, out


def _step(reader: PassReader, pass_index: int, step: int) -> Section:
    try:
        e = explain_step(reader.record, pass_index, step, reader=reader)
    except InconsistentRecord as error:
        raise ExplainError(str(error)) from None
    lines = explain_lines(e)
    if lines and lines[0].startswith(f"step {step + 1} of "):
        lines = lines[1:]  # the heading says it
    node = reader.node(e.node)
    return Section((f"Step {step + 1} of {e.steps}: node {e.node}, ", _node_name(node, e.node)), e.site, numbers=lines)


def _leaves(reader: PassReader) -> Section:
    section = Section(
        ("Where the grads ended up",),
        prose=[("backward() adds each leaf's grad into its .grad: now = before + this pass's grad.",)],
    )
    for i in range(len(reader.pass_.steps)):
        for lg in reader.step(i).leaf_grads:
            node = reader.node(lg.node)
            name = f"{_node_name(node, lg.node)} (node {lg.node})"
            added = _summary_text(lg.grad)
            if lg.before is None:
                section.numbers.append(f"{name}: .grad was None, now {_summary_text(lg.now or lg.grad)}")
            else:
                section.numbers.append(f"{name}: .grad {_summary_text(lg.before)} + {added} = {_summary_text(lg.now)}")
    if not section.numbers:
        section.numbers.append("no leaf received a grad in this pass")
    return section


def _event(record: Record, event: OptimizerEvent) -> Section:
    """An optimizer's step or zero_grad, or the script resetting a .grad or updating by hand, after the pass: each
    parameter's numbers (a step's before, update and after; the .grad cleared)."""
    heading: Words
    if event.kind == GRAD_RESET:
        heading = ("After the pass: the script resets the .grad of ", *_joined([Name(c.label) for c in event.params]))
    elif event.kind == HAND_UPDATE:
        heading = ("After the pass: the script updates ", *_joined([Name(c.label) for c in event.params]))
    else:
        call = "step()" if event.kind == OPTIMIZER_STEP else "zero_grad()"
        heading = ("After the pass: ", Name(f"{event.optimizer}.{call}" if event.optimizer else call))
    section = Section(heading, event.site)
    for k, change in enumerate(event.params):
        try:
            section.numbers += [""] * (k > 0) + explain_change(record, event, change)
        except InconsistentRecord as error:
            raise ExplainError(str(error)) from None
    if not event.params:
        section.numbers.append("its parameters' values were not kept (the pass is outside the recording's detail)")
    return section


def _joined(names: list[Name]) -> list[str]:
    out: list[str] = []
    for k, n in enumerate(names):
        out += [", "] if k else []
        out.append(n)
    return out


def _summary_text(summary: TensorSummary | None) -> str:
    """A small tensor's values, a big one's statistics; "None" for no tensor."""
    if summary is None:
        return "None"
    if summary.values is not None and summary.numel <= SMALL:
        return values_text(summary.values, None)
    return f"({summary_stats(summary)})"


def _node_name(node: Node | None, node_id: int | None) -> Name:
    if node is None:
        return Name(f"node {node_id}")
    return Name(node.parameter or node.op)


def _ranges(indices: list[int]) -> str:
    """ "0, 7-9" for [0, 7, 8, 9]."""
    runs: list[list[int]] = []
    for i in indices:
        if runs and i == runs[-1][1] + 1:
            runs[-1][1] = i
        else:
            runs.append([i, i])
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)


# --- the two forms ---------------------------------------------------------------------------------


def text_report(record: Record, pass_index: int = 0) -> str:
    """The report as plain text for a terminal."""
    title, intro, parts = sections(record, pass_index)
    out = [_plain(title), *(_plain(line) for line in intro)]
    for s in parts:
        out += ["", _plain(s.heading)]
        if s.site is not None:
            out.append(f"  {_where(s.site)}" + (f"    {escaped(s.site.text)}" if s.site.text else ""))
        out += [f"  {_plain(line)}" for line in s.prose]
        out += [f"  {line}" if line else "" for line in s.numbers]
    return "\n".join(visible(line) for line in out) + "\n"


def markdown_report(record: Record, pass_index: int = 0) -> str:
    """The report as Markdown: a heading per step, the script's line and the numbers in code blocks."""
    title, intro, parts = sections(record, pass_index)
    out = [f"# {_markdown(title)}", "", *(_markdown(line) for line in intro)]
    for s in parts:
        out += ["", f"## {_markdown(s.heading)}", ""] if out[-1] else [f"## {_markdown(s.heading)}", ""]
        if s.site is not None:
            out += [_code(f"{s.site.file}:{s.site.line}"), ""]
            if s.site.text:
                out += [*_fenced([escaped(s.site.text)], "python"), ""]
        if s.prose:
            out += [*(_markdown(line) for line in s.prose), ""]
        if s.numbers:
            out += [*_fenced(s.numbers, "text"), ""]
    while out and out[-1] == "":
        out.pop()
    return "\n".join(visible(line) for line in out) + "\n"


def _where(site: SourceSite) -> str:
    return f"{escaped(site.file)}:{site.line}"


def _plain(words: Words) -> str:
    return "".join(escaped(w) if isinstance(w, Name) else w for w in words)


_PUNCTUATION = re.compile(r"([\\`*_\[\]<>|])")


def _markdown(words: Words) -> str:
    """Words as Markdown: the script's names as inline code, the report's own words escaped."""
    return "".join(_code(w) if isinstance(w, Name) else _PUNCTUATION.sub(r"\\\1", w) for w in words)


def _code(text: str) -> str:
    """Inline code showing `text` as it is: fenced by more backticks than any run inside it."""
    text = escaped(text)
    fence = "`" * (max((len(run) for run in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _fenced(lines: list[str], language: str) -> list[str]:
    """A code block holding `lines` as they are: its fence longer than any run of backticks in them."""
    longest = max((len(run) for line in lines for run in re.findall(r"`+", line)), default=0)
    fence = "`" * max(3, longest + 1)
    return [f"{fence}{language}", *lines, fence]

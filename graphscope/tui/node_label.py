"""One-line labels for nodes (markers, op, shape, dtype), shared by every graph view; every name is literal text."""

from __future__ import annotations

from rich.text import Text

from graphscope.trace.record.literal import visible
from graphscope.trace.record.model import CONSTANT, PARAMETER, Node
from graphscope.trace.stats.summarize import TensorSummary

from .moment import BREAKPOINT, CURRENT, DIFFERS, FAILED, NONFINITE, STEPPED, Marks
from .moment import PARAMETER as PARAMETER_MARK
from .node_args import args_row

_SHORT_DTYPES = {
    "float32": "f32",
    "float64": "f64",
    "float16": "f16",
    "bfloat16": "bf16",
    "int64": "i64",
    "int32": "i32",
    "int16": "i16",
    "int8": "i8",
    "uint8": "u8",
    "bool": "bool",
}


def one_line(text: str) -> str:
    """`text` with every control character (newlines and tabs too) shown as an escape."""
    return visible(text).replace("\n", "\\n").replace("\t", "\\t")


def keep_tail(text: str, width: int) -> str:
    """`text` in `width` columns, cut on the left (`…stack.0.weight`): the end of a dotted name is
    what tells it from its neighbours."""
    return text if len(text) <= width or width < 2 else "…" + text[len(text) - width + 1 :]


def shape_text(summary: TensorSummary | None) -> str:
    if summary is None:
        return ""
    return "×".join(str(d) for d in summary.shape) if summary.shape else "scalar"


def short_dtype(dtype: str) -> str:
    return _SHORT_DTYPES.get(dtype, dtype)


def marks_text(marks: Marks) -> Text:
    """Three marker columns: current or breakpoint, stepped, NaN/Inf or failed (else differs from the run held
    against this one)."""
    first = (CURRENT, "bold yellow") if marks.current else (BREAKPOINT, "bold red") if marks.breakpoint else (" ", "")
    second = (STEPPED, "green") if marks.stepped else (" ", "")
    third = (
        (FAILED, "bold red")
        if marks.failed
        else (NONFINITE, "bold red")
        if marks.nonfinite
        else (DIFFERS, "bold magenta")
        if marks.differs
        else (" ", "")
    )
    if marks.current and marks.breakpoint:
        first = (CURRENT, "bold yellow on red")
    return Text.assemble(first, second, third)


def node_text(
    node: Node | None, marks: Marks | None = None, nodes=None, width: int | None = None, with_shape: bool = True
) -> Text:
    """`op args shape dtype` (the last two `with_shape`), with a parameter's name in place of its
    op; red when it holds NaN/Inf. In `width` columns the dtype goes first, then the shape, and a
    name too long keeps its tail (`…stack.0.weight`): the end of a dotted name is what tells two
    parameters apart. `nodes` (the record's) lets an old snapshot's constant inputs show as arguments."""
    if node is None:
        return Text("(not in the record)", style="dim italic")
    bad = marks is not None and (marks.nonfinite or marks.failed)
    prefix = ""
    if node.op == PARAMETER:
        prefix, name, style = PARAMETER_MARK + " ", one_line(node.parameter or node.name or "parameter"), "cyan"
    elif node.op == CONSTANT:
        name, style = one_line(node.name or "constant"), "magenta"
    else:
        name, style = one_line(node.op), "bold"
    args = one_line(args_row(node, nodes))
    out = node.output
    facts = [] if out is None or not with_shape else [(shape_text(out), ""), (one_line(short_dtype(out.dtype)), "dim")]
    if width is not None:
        fixed = len(prefix) + (len(args) + 1 if args else 0)
        while facts and fixed + len(name) + sum(len(f) + 1 for f, _ in facts) > width:
            facts.pop()
        if prefix:
            name = keep_tail(name, width - fixed)
    text = Text()
    if prefix:
        text.append(prefix, "cyan")
    text.append(name, "bold red" if bad else style)
    if args:
        text.append(" " + args, "magenta")
    for fact, fact_style in facts:
        text.append(" " + fact, fact_style)
    return text


def node_row(node: Node | None, marks: Marks, nodes=None) -> Text:
    """A graph view's row for a node: markers, then the node's text."""
    return Text.assemble(marks_text(marks), " ", node_text(node, marks, nodes))

"""One-line labels for nodes (markers, op, shape, dtype), shared by every graph view; every name is literal text."""

from __future__ import annotations

from rich.text import Text

from graphscope.trace.literal import visible
from graphscope.trace.record import CONSTANT, PARAMETER, Node
from graphscope.trace.summary import TensorSummary

from .moment import BREAKPOINT, CURRENT, FAILED, NONFINITE, STEPPED, Marks
from .moment import PARAMETER as PARAMETER_MARK

_SHORT_DTYPES = {
    "float32": "f32", "float64": "f64", "float16": "f16", "bfloat16": "bf16", "int64": "i64",
    "int32": "i32", "int16": "i16", "int8": "i8", "uint8": "u8", "bool": "bool",
}


def one_line(text: str) -> str:
    """`text` with every control character (newlines and tabs too) shown as an escape."""
    return visible(text).replace("\n", "\\n").replace("\t", "\\t")


def shape_text(summary: TensorSummary | None) -> str:
    if summary is None:
        return ""
    return "×".join(str(d) for d in summary.shape) if summary.shape else "scalar"


def short_dtype(dtype: str) -> str:
    return _SHORT_DTYPES.get(dtype, dtype)


def marks_text(marks: Marks) -> Text:
    """Three marker columns: current or breakpoint, stepped, NaN/Inf or failed."""
    first = (CURRENT, "bold yellow") if marks.current else (BREAKPOINT, "bold red") if marks.breakpoint else (" ", "")
    second = (STEPPED, "green") if marks.stepped else (" ", "")
    third = (FAILED, "bold red") if marks.failed else (NONFINITE, "bold red") if marks.nonfinite else (" ", "")
    if marks.current and marks.breakpoint:
        first = (CURRENT, "bold yellow on red")
    return Text.assemble(first, second, third)


def node_text(node: Node | None, marks: Marks | None = None) -> Text:
    """`op shape dtype`, with a parameter's name in place of its op; red when it holds NaN/Inf."""
    if node is None:
        return Text("(not in the record)", style="dim italic")
    bad = marks is not None and (marks.nonfinite or marks.failed)
    text = Text()
    if node.op == PARAMETER:
        text.append(PARAMETER_MARK + " ", "cyan")
        text.append(one_line(node.parameter or node.name or "parameter"), "bold red" if bad else "cyan")
    elif node.op == CONSTANT:
        text.append(one_line(node.name or "constant"), "bold red" if bad else "magenta")
    else:
        text.append(one_line(node.op), "bold red" if bad else "bold")
    out = node.output
    if out is not None:
        text.append(" " + shape_text(out), "")
        text.append(" " + one_line(short_dtype(out.dtype)), "dim")
    return text


def node_row(node: Node | None, marks: Marks) -> Text:
    """A graph view's row for a node: markers, then the node's text."""
    return Text.assemble(marks_text(marks), " ", node_text(node, marks))

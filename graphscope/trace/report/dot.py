"""Graphviz DOT export of the recorded graph, for a picture outside the terminal (NaN/Inf nodes in red)."""

from __future__ import annotations

import os

from ..record.model import CONSTANT, LEAF_OPS, PARAMETER, Node, Record
from ..snapshot.atomic_file import write_atomically


def escape(text: str) -> str:
    """`text` as the inside of a DOT double-quoted string: quotes, backslashes and control characters escaped."""
    out = []
    for ch in text:
        if ch == "\\":
            out.append("\\\\")
        elif ch == '"':
            out.append('\\"')
        elif ch == "\n":
            out.append("\\n")
        elif ord(ch) < 32 or 0x7F <= ord(ch) <= 0x9F:
            out.append(f"\\\\x{ord(ch):02x}")
        else:
            out.append(ch)
    return "".join(out)


def _label(node: Node) -> str:
    lines = [node.op]
    if node.parameter:
        lines = [node.parameter]
    elif node.op == CONSTANT and node.name:
        lines.append(node.name[:40])
    s = node.output
    if s is not None:
        shape = "×".join(str(d) for d in s.shape) if s.shape else "scalar"
        lines.append(f"{shape} {s.dtype}")
        if s.has_nonfinite:
            lines.append(f"nan {s.nan_count}  inf {s.inf_count}")
    if node.module:
        lines.append(node.module)
    return "\n".join(lines)


def to_dot(record: Record, pass_index: int | None = None) -> str:
    """The record's nodes (all, or those created by one pass) as a DOT digraph, inputs pointing to their consumers."""
    nodes = (
        record.nodes if pass_index is None else {i: n for i, n in record.nodes.items() if n.pass_index == pass_index}
    )
    lines = [
        "digraph graphscope {",
        "  rankdir=BT;",
        '  node [shape=box, style="rounded,filled", fillcolor=white, fontname="Helvetica"];',
    ]
    for node in nodes.values():
        attrs = [f'label="{escape(_label(node))}"']
        if node.output is not None and node.output.has_nonfinite:
            attrs.append('color=red, fontcolor=red, fillcolor="#ffe0e0", penwidth=2')
        elif node.op == PARAMETER:
            attrs.append('fillcolor="#e0ecff"')
        elif node.op in LEAF_OPS:
            attrs.append('fillcolor="#eeeeee"')
        if node.site is not None:
            attrs.append(f'tooltip="{escape(f"{node.site.file}:{node.site.line}: {node.site.text}")}"')
        lines.append(f"  n{node.id} [{', '.join(attrs)}];")
    for node in nodes.values():
        for k in node.inputs:
            if k in nodes:
                lines.append(f"  n{k} -> n{node.id};")
    lines.append("}")
    return "\n".join(lines) + "\n"


def write_dot(record: Record, path: str | os.PathLike[str], pass_index: int | None = None) -> None:
    """Write the DOT text to `path` (atomically, like a snapshot; WriteError when it cannot be)."""
    write_atomically(os.fspath(path), to_dot(record, pass_index).encode("utf-8"), "graph")

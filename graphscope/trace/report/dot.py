"""Graphviz DOT export of the recorded graph (all of it, one pass's or one module's part), for a picture outside
the terminal, with the app's marks: NaN/Inf nodes red, the NaN origin and the node the script failed at doubled."""

from __future__ import annotations

import os
from collections.abc import Mapping

from ..record.model import CONSTANT, LEAF_OPS, NAN_ORIGIN, PARAMETER, Node, Record
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


def _label(node: Node, mark: str) -> str:
    lines = [node.op]
    if node.parameter:
        lines = [node.parameter]
    elif node.op == CONSTANT and node.name:
        lines.append(node.name[:40])
    if mark:
        lines[0] = f"{mark} {lines[0]}"
    s = node.output
    if s is not None:
        shape = "×".join(str(d) for d in s.shape) if s.shape else "scalar"
        lines.append(f"{shape} {s.dtype}")
        if s.has_nonfinite:
            lines.append(f"nan {s.nan_count}  inf {s.inf_count}")
    if node.module:
        lines.append(node.module)
    return "\n".join(lines)


def in_module(node: Node, module: str) -> bool:
    """Whether the node was made in `module` or a module inside it (`fc` holds `fc.0`, not `fc2`)."""
    return node.module is not None and (node.module == module or node.module.startswith(module + "."))


def select(record: Record, pass_index: int | None = None, module: str | None = None) -> dict[int, Node]:
    """The record's nodes by id: all, or those created by one pass, or in one module, or both."""
    return {
        i: n
        for i, n in record.nodes.items()
        if (pass_index is None or n.pass_index == pass_index) and (module is None or in_module(n, module))
    }


def to_dot(record: Record, pass_index: int | None = None, module: str | None = None) -> str:
    """The record's nodes (`select`ed by pass and module) as a DOT digraph, inputs pointing to their consumers."""
    nodes: Mapping[int, Node] = (
        record.nodes if pass_index is None and module is None else select(record, pass_index, module)
    )
    origins = {f.node for f in record.findings if f.kind == NAN_ORIGIN}
    failed = record.error.node if record.error is not None else None
    lines = [
        "digraph graphscope {",
        "  rankdir=TB;",  # inputs above their consumers, as in the app's picture view
        '  node [shape=box, style="rounded,filled", fillcolor=white, fontname="Helvetica"];',
    ]
    for node in nodes.values():
        nonfinite = node.output is not None and node.output.has_nonfinite
        mark = "✗" if node.id == failed else "!" if nonfinite or node.id in origins else ""
        attrs = [f'label="{escape(_label(node, mark))}"']
        if node.id == failed or node.id in origins:  # where the trouble began: doubled
            attrs.append("peripheries=2")
        if nonfinite or node.id == failed:
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

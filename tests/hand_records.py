"""Hand-made records for the session and TUI tests: a tiny MLP's backward, a NaN that spreads, a failed run,
hostile names."""

from __future__ import annotations

import numpy as np

from graphscope.trace.record.model import (
    NAN_ORIGIN,
    BackwardPass,
    ConsoleLine,
    Finding,
    LeafGrad,
    Metadata,
    Node,
    Record,
    ScriptError,
    SourceSite,
    Step,
)
from graphscope.trace.stats.summarize import summarize

SCRIPT = "/nowhere/mlp.py"


def s(array):
    with np.errstate(all="ignore"):
        return summarize(np.asarray(array))


def site(line: int, text: str, file: str = SCRIPT) -> SourceSite:
    return SourceSite(file, line, "forward", text)


def mlp_record(passes: int = 3, stepped: int | None = None, losses=None) -> Record:
    """x @ W1 + b1 -> relu -> @ W2 -> mse loss, `passes` times; every pass fully stepped unless `stepped`."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 3)).astype(np.float32)
    w1 = rng.standard_normal((3, 5)).astype(np.float32)
    b1 = rng.standard_normal(5).astype(np.float32)
    w2 = rng.standard_normal((5, 1)).astype(np.float32)
    y = rng.standard_normal((4, 1)).astype(np.float32)
    record = Record(metadata=Metadata(script=SCRIPT, argv=[], exit_code=0, graphscope_version="0.1.0"))
    losses = losses or [1.5 / (k + 1) for k in range(passes)]
    nid = 0
    for k in range(passes):

        def add(op, name, inputs, value, k=k, **kw):
            nonlocal nid
            nid += 1
            record.nodes[nid] = Node(nid, op, name, tuple(inputs), k, s(value), **kw)
            return nid

        xi = add("tensor", "", [], x, is_leaf=True)
        w1i = add("parameter", "", [], w1, requires_grad=True, is_leaf=True, parameter="fc1.weight", module="model.fc1")
        b1i = add("parameter", "", [], b1, requires_grad=True, is_leaf=True, parameter="fc1.bias", module="model.fc1")
        w2i = add("parameter", "", [], w2, requires_grad=True, is_leaf=True, parameter="fc2.weight", module="model.fc2")
        yi = add("tensor", "", [], y, is_leaf=True)
        h = x @ w1
        mm1 = add(
            "matmul",
            "MmBackward0",
            [xi, w1i],
            h,
            requires_grad=True,
            module="model.fc1",
            site=site(10, "h = x @ self.w1"),
            saved=("self", "other"),
        )
        h = h + b1
        add1 = add(
            "add",
            "AddBackward0",
            [mm1, b1i],
            h,
            requires_grad=True,
            module="model.fc1",
            site=site(10, "h = x @ self.w1 + self.b1"),
        )
        r = np.maximum(h, 0)
        relu = add(
            "relu",
            "ReluBackward0",
            [add1],
            r,
            requires_grad=True,
            module="model",
            site=site(11, "h = h.relu()"),
            saved=("result",),
            dead_units=(1, 5),
        )
        o = r @ w2
        mm2 = add(
            "matmul",
            "MmBackward0",
            [relu, w2i],
            o,
            requires_grad=True,
            module="model.fc2",
            site=site(12, "out = h @ self.w2"),
            saved=("self", "other"),
        )
        d = o - y
        sub = add("sub", "SubBackward0", [mm2, yi], d, requires_grad=True, site=site(20, "d = out - y"))
        sq = add(
            "mul",
            "MulBackward0",
            [sub, sub],
            d * d,
            requires_grad=True,
            site=site(21, "sq = d * d"),
            saved=("self", "other"),
        )
        loss = add(
            "mean", "MeanBackward0", [sq], np.float32(losses[k]), requires_grad=True, site=site(22, "loss = sq.mean()")
        )
        order = (loss, sq, sub, mm2, relu, add1, mm1)
        steps = []
        for n in order:
            node = record.nodes[n]
            shape = node.output.shape
            grad_out = s(np.full(shape, 0.25, np.float32) if shape else np.float32(1.0))
            grads_in = [s(np.full(record.nodes[i].output.shape, 0.1, np.float32)) for i in node.inputs]
            leaf = [
                LeafGrad(i, grads_in[j])
                for j, i in enumerate(node.inputs)
                if record.nodes[i].requires_grad and record.nodes[i].is_leaf
            ]
            steps.append(Step(n, grad_out, grads_in, leaf))
        count = len(order) if stepped is None else stepped
        record.passes.append(
            BackwardPass(
                k,
                losses[k],
                {"fc1.weight": 0.5 + k, "fc1.bias": 0.1, "fc2.weight": 0.3},
                12,
                True,
                count == len(order),
                loss,
                order,
                steps[:count],
            )
        )
        record.console.append(ConsoleLine("stdout", f"step {k} loss {losses[k]:.4f}", k))
    return record


def nan_record() -> Record:
    """Pass 1's relu output holds a NaN born in the matmul below it; the loss is NaN."""
    record = mlp_record(passes=2, losses=[1.2, float("nan")])
    p = record.passes[1]
    mm1 = p.order[-1]
    node = record.nodes[mm1]
    bad = np.array(node.output.values, dtype=np.float32)
    bad[0, 0] = np.nan
    node.output = s(bad)
    for later in p.order[:-1]:
        n = record.nodes[later]
        vals = np.array(n.output.values if n.output.values is not None else n.output.preview, dtype=np.float32)
        vals.reshape(-1)[0] = np.nan
        n.output = s(vals.reshape(n.output.shape))
    record.findings.append(Finding(NAN_ORIGIN, "NaN first appears in matmul", mm1, 1, None, node.site))
    record.console.append(ConsoleLine("stdout", "loss is NaN at step 1", 1))
    return record


def failed_record() -> Record:
    record = mlp_record(passes=1, stepped=3)
    record.passes[0].finished = False
    failing = record.passes[0].order[3]
    record.error = ScriptError(
        "RuntimeError",
        "shapes do not match",
        "Traceback (most recent call last):\n"
        '  File "/nowhere/mlp.py", line 12, in forward\nRuntimeError: shapes do not match\n',
        failing,
        site(12, "out = h @ self.w2"),
    )
    record.metadata.exit_code = 1
    return record


HOSTILE = ("[/]", "[bold", "[@click=app.quit]x")


def hostile_record() -> Record:
    """Names, ops, modules, prints and the error text full of Rich/Textual markup."""
    record = mlp_record(passes=1)
    for i, node in enumerate(record.nodes.values()):
        h = HOSTILE[i % 3]
        if node.op == "parameter":
            node.parameter = f"{h}.weight"
        else:
            node.op = f"op{h}"
        node.module = f"model.{h}"
        if node.site is not None:
            node.site = SourceSite(f"/nowhere/{h}.py", node.site.line, h, f"x = {h}")
        node.saved = (h,)
    record.passes[0].grad_norms = {h: 1.0 for h in HOSTILE}
    record.console = [ConsoleLine("stdout", f"print {h}", 0) for h in HOSTILE]
    record.error = ScriptError(
        "Value[/]Error",
        "[bold oops [@click=app.quit]x",
        "Traceback [/]\n[bold]\n[@click=app.quit]x\n",
        record.passes[0].order[0],
    )
    record.metadata.script = "/nowhere/[bold]script[/].py"
    return record


def big_record(n: int = 100_000) -> Record:
    """A 100,000-node record shaped like the snapshot benchmark's: a deep chain with parameters."""
    rng = np.random.default_rng(0)
    pool = [summarize(rng.standard_normal((64, 256)).astype(np.float32), full_values_limit=0) for _ in range(16)]
    ops = ("matmul", "add", "relu", "mul", "sum", "exp", "log", "softmax")
    sites = [SourceSite("/home/user/train.py", 10 + i, "forward", f"h = layer{i}(h)") for i in range(20)]
    nodes = {}
    for i in range(n):
        if i % 10 == 0:
            nodes[i] = Node(
                i,
                "parameter",
                output=pool[i % 16],
                requires_grad=True,
                is_leaf=True,
                parameter=f"layers.{i // 10}.weight",
                module=f"model.layers.{i // 10}",
                site=sites[i % 20],
            )
        else:
            op = ops[i % len(ops)]
            nodes[i] = Node(
                i,
                op,
                f"{op.title()}Backward0",
                (i - 1, i - i % 10),
                output=pool[i % 16],
                requires_grad=True,
                module=f"model.layers.{i // 10}",
                site=sites[i % 20],
                saved=("self", "other"),
            )
    return Record(metadata=Metadata(script="/home/user/train.py"), nodes=nodes)

"""A double backward in the record: the nodes a create_graph backward makes are recorded at the line
that asked for them, and the backward through them is a pass of its own, on the tape or stepped."""

import json

import numpy as np
import pytest

import graphscope as gs
from graphscope.engine import hooks
from graphscope.trace import snapshot
from graphscope.trace.record.model import PARAMETER
from graphscope.trace.recording.recorder import Recorder
from tests.trace.trace_helpers import line_of


class Stepper(hooks.Observer):
    """Another observer of before_node (the session's gate): the recorder is called at every node."""

    def before_node(self, node, grad_output):
        pass


def gradient_penalty(x):
    y = (x.exp() * x).sum()  # forward here
    (slope,) = gs.autograd.grad(y, x, create_graph=True)  # first backward here
    penalty = (slope * slope).sum()  # penalty here
    penalty.backward()


def recorded(stepped: bool):
    x = gs.tensor([0.5, -1.0, 2.0], requires_grad=True)
    recorder = Recorder()
    with hooks.observe(recorder):
        if stepped:
            with hooks.observe(Stepper()):
                gradient_penalty(x)
        else:
            gradient_penalty(x)
    return recorder.finish(), x


@pytest.mark.parametrize("stepped", [False, True], ids=["taped", "stepped"])
def test_a_backward_through_a_backward_is_a_pass_of_its_own(stepped):
    rec, x = recorded(stepped)
    assert [p.index for p in rec.passes] == [0, 1] and all(p.finished and p.detailed for p in rec.passes)
    first, second = rec.passes
    forward = {n.op: n.id for n in rec.nodes.values() if n.site is not None and n.site.line == line_of("forward here")}
    made_by_backward = [
        n for n in rec.nodes.values() if n.site is not None and n.site.line == line_of("first backward here")
    ]
    # the first pass steps the forward's nodes and makes the grad's: exp·x gives slope = eˣ·x + eˣ
    assert first.order == (forward["sum"], forward["mul"], forward["exp"])
    assert sorted(n.op for n in made_by_backward) == ["add", "mul", "mul", "mul"]
    # the second steps back through them, then through the forward's exp (the grad used its output)
    assert second.root == next(n.id for n in rec.nodes.values() if n.op == "sum" and n.id > first.root)
    assert set(second.order) >= {n.id for n in made_by_backward} | {forward["exp"]}
    assert [s.node for s in second.steps] == list(second.order)
    assert second.loss == pytest.approx(float((x.detach().exp() * (x.detach() + 1)).pow(2).sum()))
    # its leaf grad is x's `.grad`: d Σ(eˣ(x+1))²/dx = 2·eˣ(x+1)·eˣ(x+2)
    (leaf_grad,) = [lg for s in second.steps for lg in s.leaf_grads]
    assert rec.nodes[leaf_grad.node].op == PARAMETER
    value = np.array([0.5, -1.0, 2.0])
    expected = 2 * np.exp(2 * value) * (value + 1) * (value + 2)
    np.testing.assert_allclose(leaf_grad.now.values, expected, rtol=1e-5)
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-5)


def test_taped_and_stepped_double_backwards_record_the_same_and_their_snapshot_loads():
    records = []
    for stepped in (False, True):
        text = snapshot.dumps(recorded(stepped)[0])
        loaded = snapshot.loads(text)
        assert len(loaded.passes) == 2 and len(loaded.passes[1].steps) == len(loaded.passes[1].order)
        data = json.loads(text)
        data["metadata"].pop("started")
        data["metadata"].pop("finished")
        records.append(data)
    assert records[0] == records[1]

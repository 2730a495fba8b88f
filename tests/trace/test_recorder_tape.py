"""The recorder records the same run the same whether the engine writes its steps on the tape
(the recorder alone in stepping) or calls it at every node (the debugger stepping beside it)."""

import json
import sys

import numpy as np
import pytest

import graphscope as gs
from graphscope import nn, optim
from graphscope.engine import hooks
from graphscope.engine.autograd import Function
from graphscope.trace import snapshot
from graphscope.trace.recording.recorder import Policy, Recorder


class Stepper(hooks.Observer):
    """Another observer of before_node (the session's gate): the recorder is called at every node."""

    def before_node(self, node, grad_output):
        pass


def training(steps=10, zero=True):
    gs.manual_seed(0)
    model = nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Linear(8, 1))
    opt = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    x, y = gs.randn(16, 2), gs.randn(16, 1)
    for _ in range(steps):
        loss = nn.functional.mse_loss(model(x), y)
        if zero:
            opt.zero_grad()
        loss.backward()
        opt.step()


def accumulating():
    training(zero=False)


def reused_across_passes():
    """A node made in the first pass is stepped through by every later one (retain_graph)."""
    gs.manual_seed(1)
    w = gs.randn(3, 3, requires_grad=True)
    shared = w.exp()
    for i in range(9):
        (shared * gs.full((3, 3), float(i))).sum().backward(retain_graph=True)


def nan_from_the_sixth_pass():
    gs.manual_seed(2)
    w = gs.randn(4, requires_grad=True)
    for i in range(10):
        x = gs.tensor([1.0, 2.0, float("nan") if i >= 5 else 3.0, 4.0])
        (w * x).sum().backward()
        with gs.no_grad():
            w -= 0.1 * w.grad
        w.grad = None


class Cube(Function):
    def forward(self, x):
        self.x = x
        return x * x * x

    def backward(self, grad):
        return (grad * 3 * self.x * self.x,)


def odd_graphs():
    """A custom Function, a raw array input, non-tensor arguments, an in-place op, a leaf hook."""
    gs.manual_seed(3)
    w = gs.randn(5, requires_grad=True)
    w.register_hook(lambda g: g * 2)
    for _ in range(6):
        h = Cube.apply(w).pow(2)
        mask = np.array([True, False, True, True, False])
        z = h.clone()
        z.mul_(3)
        (z[mask].sum() + h.clamp(min=0.5).mean()).backward()


def recurrent():
    """A recurrent weight used at every time step: backward sums its grads as factors (OuterGrad)."""
    gs.manual_seed(4)
    lstm, gru = nn.LSTM(3, 4), nn.GRU(4, 2)
    opt = optim.SGD([*lstm.parameters(), *gru.parameters()], lr=0.1)
    x = gs.randn(5, 2, 3)
    for _ in range(4):
        out, _ = gru(lstm(x)[0])
        opt.zero_grad()
        out.pow(2).sum().backward()
        opt.step()


SCRIPTS = [training, accumulating, reused_across_passes, nan_from_the_sixth_pass, odd_graphs, recurrent]
POLICIES = {
    "default": Policy(),
    "every pass": Policy.every_pass(),
    "scan every pass": Policy(keep_last=1, scan_every_pass=True),
}


def _record(script, policy, called: bool):
    recorder = Recorder(policy)
    with hooks.observe(recorder):
        if called:
            with hooks.observe(Stepper()):
                script()
        else:
            script()
    return recorder.finish(0)


def _comparable(record) -> dict:
    data = json.loads(snapshot.dumps(record))
    data["metadata"].pop("started")
    data["metadata"].pop("finished")
    return data


@pytest.mark.parametrize("policy", POLICIES.values(), ids=POLICIES.keys())
@pytest.mark.parametrize("script", SCRIPTS, ids=lambda s: s.__name__)
def test_the_record_is_the_same_from_the_tape_as_from_the_calls(script, policy):
    taped = _record(script, policy, called=False)
    assert _comparable(taped) == _comparable(_record(script, policy, called=True))
    assert any(p.steps for p in taped.passes)  # (steps were recorded at all)
    for p in taped.passes:
        if p.detailed:
            assert [st.node for st in p.steps] == [n for n in p.order if n in {st.node for st in p.steps}]


def test_a_recurrent_weights_grad_from_each_time_step_is_recorded():
    record = _record(recurrent, Policy.every_pass(), called=False)
    last = record.passes[-1]
    weight = next(
        i
        for i in record.nodes
        if record.nodes[i].parameter == "weight_hh_l0"
        and i in set(last.order) | {x for n in last.order for x in record.nodes[n].inputs}
    )
    given = [
        g
        for st in last.steps
        for i, g in zip(record.nodes[st.node].inputs, st.grad_inputs)
        if i == weight and g is not None
    ]
    assert len(given) == 5  # one per time step, each the (16, 4) grad of that step's product
    assert all(tuple(g.shape) == (16, 4) for g in given)
    assert [g.norm > 0 for g in given] == [True] * 4 + [False]  # backward's order: the first step's h is 0


def test_a_node_made_in_a_trimmed_pass_still_resolves_in_a_later_one():
    record = _record(reused_across_passes, Policy(keep_first=1, keep_last=2), called=False)
    first, last = record.passes[0], record.passes[-1]
    exp_node = next(n for n in last.order if record.nodes[n].op == "exp")
    assert exp_node in first.order and exp_node == last.steps[-1].node
    assert record.nodes[exp_node].pass_index == 0
    assert [p.detailed for p in record.passes] == [True] + [False] * 6 + [True, True]


def _raising(recorder):
    class Broken(Function):
        def forward(self, x):
            return x * 2

        def backward(self, grad):
            raise ValueError("broken backward")

    x = gs.randn(3, requires_grad=True)
    try:
        (Broken.apply(x.exp()) + 1).sum().backward()
    except ValueError as error:
        recorder.script_failed(error)


@pytest.mark.parametrize("called", [False, True], ids=["tape", "calls"])
def test_the_node_whose_backward_raised_is_the_errors_node(called):
    recorder = Recorder()
    with hooks.observe(recorder):
        if called:
            with hooks.observe(Stepper()):
                _raising(recorder)
        else:
            _raising(recorder)
    record = recorder.finish(1)
    assert record.nodes[record.error.node].op == "Broken"
    assert [record.nodes[st.node].op for st in record.passes[0].steps] == ["sum", "add", "Broken"]
    assert record.passes[0].steps[-1].grad_inputs == []


def test_a_long_materialised_pass_lets_go_of_its_saved_states_table():
    # The states saved before each op's backward are popped as its nodes go into the record; a dict
    # emptied by pops keeps its table (on a 100,000-op chain, 5 MB held for as long as the journal).
    recorder = Recorder()
    with hooks.observe(recorder):
        x = gs.ones(4, requires_grad=True)
        y = x
        for _ in range(2000):
            y = (y * 1.0001).tanh()
        y.sum().backward()
    recorder.finish(0)
    (first,) = [j for j in recorder._journals.recent() if j.index == 0]
    assert not first.saved and sys.getsizeof(first.saved) < 1024

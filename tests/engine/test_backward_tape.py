"""The backward tape: a journaling observer alone in stepping through backward gets its steps
appended to a list, in the order and with the objects its before_node/after_node calls would
have had; any other observer of those events brings the calls back."""

import threading

import numpy as np
import pytest

import graphscope as gs
from graphscope.engine import hooks
from graphscope.engine.autograd import Function
from graphscope.engine.backend import to_host


class Journaling(hooks.Observer):
    """Keeps the steps as a tape holds them, from the tape or from its calls alike."""

    def __init__(self, wants_tape=True):
        self.tape, self.called, self.leaves, self.wants_tape, self.asked = [], [], [], wants_tape, 0

    def backward_tape(self):
        self.asked += 1
        return self.tape if self.wants_tape else None

    def before_node(self, node, grad_output):
        self.called.append([node, grad_output, None, node.__dict__.copy()])

    def after_node(self, node, grad_inputs):
        self.called[-1][2] = grad_inputs

    def leaf_grad_accumulated(self, tensor, grad):
        steps = self.tape or self.called
        self.leaves.append((len(steps), steps[-1][0] if steps else None, tensor, grad))


class Stepper(hooks.Observer):
    """Another observer of before_node (the debugger, which pauses there)."""

    def __init__(self):
        self.nodes = []

    def before_node(self, node, grad_output):
        self.nodes.append(node)


def _mlp_pass():
    """A small graph with a broadcast, a shared input and a non-tensor argument."""
    gs.manual_seed(0)
    w = gs.randn(3, 4, requires_grad=True)
    b = gs.randn(4, requires_grad=True)
    x = gs.randn(5, 3)
    h = (x @ w + b).relu()
    loss = (h * h).sum() + (h**2).mean()
    return loss, (w, b)


def _run(*observers):
    with hooks.observe(observers[0]):
        if len(observers) > 1:
            with hooks.observe(observers[1]):
                loss, leaves = _mlp_pass()
                loss.backward()
        else:
            loss, leaves = _mlp_pass()
            loss.backward()
    return leaves


def _same_steps(a, b):
    assert len(a) == len(b)
    for (node, grad, grads, state), (node2, grad2, grads2, state2) in zip(a, b):
        assert node.name() == node2.name() and state.keys() == state2.keys()
        np.testing.assert_array_equal(to_host(grad), to_host(grad2))
        assert len(grads) == len(grads2)
        for g, g2 in zip(grads, grads2):
            assert (g is None) == (g2 is None)
            if g is not None:
                np.testing.assert_array_equal(to_host(g), to_host(g2))


def test_an_observer_alone_in_stepping_gets_its_steps_on_its_tape_and_no_calls():
    alone = Journaling()
    _run(alone)
    assert alone.asked == 1 and alone.called == []
    assert [step[0].own_name() for step in alone.tape] == [
        "AddBackward0",
        "MeanBackward0",
        "PowBackward0",
        "SumBackward0",
        "MulBackward0",
        "ReluBackward0",
        "AddBackward0",
        "MatmulBackward0",
    ]
    assert all(step[2] is not None for step in alone.tape)
    called = Journaling()
    _run(called, Stepper())
    assert called.asked == 0 and called.tape == []
    _same_steps(alone.tape, called.called)


def test_the_tape_holds_the_live_objects_the_calls_would_pass():
    class Alone(Journaling):
        def before_node(self, node, grad_output):  # (never called alone: the tape replaces it)
            raise AssertionError("called")

    seen = []

    class Capture(hooks.Observer):  # hears the node and the grad arrays by other events
        def node_created(self, node, inputs, output, site):
            seen.append(node)

    alone = Alone()
    with hooks.observe(alone), hooks.observe(Capture()):
        loss, _ = _mlp_pass()
        loss.backward()
    assert {id(step[0]) for step in alone.tape} <= {id(n) for n in seen}
    first = alone.tape[0]
    assert first[0] is seen[-1]  # the root's node steps first
    assert first[1].shape == () and float(to_host(first[1])) == 1.0  # its grad: the seed


def test_saved_state_is_copied_before_backward_frees_it():
    alone = Journaling()
    _run(alone)
    pow_step = next(step for step in alone.tape if step[0].name() == "PowBackward0")
    assert pow_step[3]["b"] == 2 and pow_step[3]["a"].shape == (5, 4)  # kept here...
    assert all(step[0].__dict__ == {"released": True} for step in alone.tape)  # ...freed on the node


def test_a_leaf_grad_comes_while_its_step_is_the_tapes_last():
    alone = Journaling()
    w, b = _run(alone)
    assert [leaf for _, _, leaf, _ in alone.leaves] == [b, w]
    for position, node, _, _ in alone.leaves:
        assert alone.tape[position - 1][0] is node
    called = Journaling()
    _run(called, Stepper())
    assert [(p, n.name()) for p, n, _, _ in called.leaves] == [(p, n.name()) for p, n, _, _ in alone.leaves]


def test_a_step_whose_backward_raised_stays_open_on_the_tape():
    class Broken(Function):
        def forward(self, x):
            return x * 2

        def backward(self, grad):
            raise ValueError("broken backward")

    alone = Journaling()
    x = gs.randn(3, requires_grad=True)
    with hooks.observe(alone):
        y = Broken.apply(x).sum()
        with pytest.raises(ValueError, match="broken backward"):
            y.backward()
    assert [step[0].own_name() for step in alone.tape] == ["SumBackward0", "BrokenBackward"]
    assert alone.tape[0][2] is not None and alone.tape[1][2] is None


def test_any_other_observer_of_before_or_after_node_brings_the_calls_back():
    class AfterOnly(hooks.Observer):
        def after_node(self, node, grad_inputs):
            pass

    for other in (Stepper(), AfterOnly()):
        journaling = Journaling()
        _run(journaling, other)
        assert journaling.asked == 0 and journaling.tape == [] and len(journaling.called) == 8
    again = Journaling()
    _run(again)  # the other one gone: the tape again
    assert again.asked == 1 and again.called == [] and len(again.tape) == 8


def test_a_tape_declined_leaves_the_pass_unjournaled():
    declining = Journaling(wants_tape=False)
    _run(declining)
    assert declining.asked == 1 and declining.tape == [] and declining.called == []
    assert len(declining.leaves) == 2  # its leaf events still come


def test_a_one_thread_observer_gets_no_tape_from_another_thread():
    class OneThread(Journaling):
        one_thread = True

        def other_thread(self, thread):
            self.others = getattr(self, "others", 0) + 1

    observer = OneThread()
    with hooks.observe(observer):
        worker = threading.Thread(target=lambda: _mlp_pass()[0].backward())
        worker.start()
        worker.join()
    assert observer.asked == 0 and observer.tape == [] and observer.others == 1


def test_a_tape_step_holds_what_its_node_saved_and_nothing_of_the_engines():
    """A step's state is the node's instance dict: what forward saved, not the versions backward checks
    (those are the node's and go when backward frees it). A copy that held them kept them alive to the
    pass's end, ~100 bytes a step: on a 100,000-op chain, 4% of its recorded peak RSS."""
    x = gs.ones(8, requires_grad=True)
    y = x * 1.5  # saves its input (checked against its version)
    z = y.tanh()  # saves its output (checked against its version)
    journaling = Journaling()
    with hooks.observe(journaling):
        z.sum().backward()
    states = {type(node).__name__: state for node, _, _, state in journaling.tape}
    assert set(states["Mul"]) == {"a", "b"}
    assert set(states["Tanh"]) == {"out"}
    assert states["Tanh"]["out"] is z.array
    for node, *_ in journaling.tape:
        assert node.released and node.versions == () and node.output_version is None

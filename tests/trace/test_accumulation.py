"""Leaves keep one identity across passes, and each leaf grad says what `.grad` was, what was added, what it is now."""

import numpy as np
import torch

import graphscope as gs
from graphscope import nn
from graphscope.engine import hooks
from graphscope.trace import snapshot
from graphscope.trace.record.model import GRAD_RESET, PARAMETER, ZERO_GRAD
from graphscope.trace.recording.recorder import Policy, Recorder
from tests.trace.trace_helpers import line_of


def record(run, policy=None):
    recorder = Recorder(policy or Policy.every_pass())
    with hooks.observe(recorder):
        run()
    return recorder.finish()


def leaf_grads(rec, label):
    """Per pass, the leaf grads of the parameter labelled `label`."""
    out = []
    for p in rec.passes:
        found = [lg for st in p.steps for lg in st.leaf_grads if rec.nodes[lg.node].parameter == label]
        out.append(found)
    return out


def values(summary):
    return None if summary is None else summary.values.tolist()


def equation(a, b):
    return 3 * a**3 - b**2


def torch_grads_after(passes):
    """b.grad after each of `passes` backward passes of the equation, without zeroing, in torch."""
    a = torch.tensor([2.0, 3.0], requires_grad=True)
    b = torch.tensor([6.0, 4.0], requires_grad=True)
    out = []
    for _ in range(passes):
        equation(a, b).sum().backward()
        out.append(b.grad.tolist())
    return out


def run_equation(passes):
    a = gs.tensor([2.0, 3.0], requires_grad=True)
    b = gs.tensor([6.0, 4.0], requires_grad=True)

    def run():
        for _ in range(passes):
            equation(a, b).sum().backward()

    return record(run)


def test_a_leaf_has_the_same_identity_in_every_pass_though_each_pass_has_its_own_node():
    rec = run_equation(3)
    b_nodes = [n for n in rec.nodes.values() if n.op == PARAMETER and n.parameter == "b"]
    assert len(b_nodes) == 3 and len({n.id for n in b_nodes}) == 3
    assert {n.leaf for n in b_nodes} == {b_nodes[0].id}
    a_nodes = [n for n in rec.nodes.values() if n.parameter == "a"]
    assert {n.leaf for n in a_nodes} == {a_nodes[0].id} != {b_nodes[0].id}
    assert all(n.leaf is None for n in rec.nodes.values() if not n.is_leaf)


def test_a_second_backward_without_zeroing_adds_to_the_grad_that_was_there():
    rec = run_equation(2)
    torch_b = torch_grads_after(2)
    (first,), (second,) = leaf_grads(rec, "b")
    assert first.before is None and values(first.grad) == values(first.now) == torch_b[0] == [-12.0, -8.0]
    assert values(second.before) == [-12.0, -8.0]
    assert values(second.grad) == [-12.0, -8.0]
    assert values(second.now) == torch_b[1] == [-24.0, -16.0]


def test_grads_keep_growing_pass_after_pass_as_in_torch():
    rec = run_equation(4)
    torch_b = torch_grads_after(4)
    rows = [lg for (lg,) in leaf_grads(rec, "b")]
    assert [values(lg.now) for lg in rows] == torch_b
    assert [values(lg.before) for lg in rows] == [None, *torch_b[:-1]]


def test_the_grad_before_is_what_user_code_left_there():
    a = gs.tensor([2.0, 3.0], requires_grad=True)
    b = gs.tensor([6.0, 4.0], requires_grad=True)

    def run():
        equation(a, b).sum().backward()
        with gs.no_grad():
            b.grad.mul_(0.5)  # a user's change in place: the next "before" shows it
        equation(a, b).sum().backward()

    (_,), (second,) = leaf_grads(record(run), "b")
    assert values(second.before) == [-6.0, -4.0] and values(second.now) == [-18.0, -12.0]


def test_a_zeroed_grad_is_accumulated_into_from_zeros():
    a = gs.tensor([2.0, 3.0], requires_grad=True)
    b = gs.tensor([6.0, 4.0], requires_grad=True)

    def run():
        equation(a, b).sum().backward()
        b.grad.zero_()
        equation(a, b).sum().backward()

    (_,), (second,) = leaf_grads(record(run), "b")
    assert values(second.before) == [0.0, 0.0] and values(second.now) == [-12.0, -8.0]


def test_resetting_a_grad_by_hand_is_an_event_with_the_grad_it_cleared():
    a = gs.tensor([2.0, 3.0], requires_grad=True)
    b = gs.tensor([6.0, 4.0], requires_grad=True)

    def run():
        equation(a, b).sum().backward()
        a.grad = None  # set to None
        b.grad.zero_()  # zeroed
        equation(a, b).sum().backward()

    rec = record(run)
    cleared, zeroed = rec.optimizer
    a_leaf = next(n.leaf for n in rec.nodes.values() if n.parameter == "a")
    b_leaf = next(n.leaf for n in rec.nodes.values() if n.parameter == "b")
    assert (cleared.kind, cleared.passes, cleared.optimizer, cleared.site.line) == (
        GRAD_RESET,
        1,
        "",
        line_of("set to None"),
    )
    (change,) = cleared.params
    assert (change.leaf, change.label, values(change.before), change.after) == (a_leaf, "a", [36.0, 81.0], None)
    assert zeroed.kind == GRAD_RESET and zeroed.site.line == line_of("zeroed")
    (change,) = zeroed.params
    assert (change.leaf, values(change.before), values(change.after)) == (b_leaf, [-12.0, -8.0], [0.0, 0.0])


def test_zeroing_every_parameter_in_a_loop_is_one_event():
    model = nn.Linear(2, 1)
    x = gs.ones(3, 2)

    def run():
        model(x).sum().backward()
        for p in model.parameters():
            p.grad.zero_()

    (event,) = record(run).optimizer
    assert event.kind == GRAD_RESET and [c.label for c in event.params] == ["weight", "bias"]


def test_a_tensor_zeroed_that_is_nobodys_grad_is_no_event():
    w = gs.ones(2, requires_grad=True)

    def run():
        (w * 2).sum().backward()
        gs.ones(2).zero_()
        w.grad.clone().zero_()

    assert len(record(run).optimizer) == 0


def test_a_modules_zero_grad_is_a_zero_grad_event():
    model = nn.Linear(2, 1)

    def run():
        model(gs.ones(3, 2)).sum().backward()
        model.zero_grad(set_to_none=False)

    (event,) = record(run).optimizer
    assert (event.kind, event.optimizer, event.settings) == (ZERO_GRAD, "Linear", (("set_to_none", "False"),))
    weight = event.params[0]
    assert values(weight.before) == [[3.0, 3.0]] and values(weight.after) == [[0.0, 0.0]]


def test_a_recorded_run_with_accumulation_round_trips_through_a_snapshot():
    rec = run_equation(2)
    loaded = snapshot.loads(snapshot.dumps(rec))
    assert loaded == rec
    (_,), (second,) = leaf_grads(loaded, "b")
    assert values(second.before) == [-12.0, -8.0] and values(second.now) == [-24.0, -16.0]
    (first,), _ = leaf_grads(loaded, "b")
    assert first.now is first.grad  # written once: nothing was there before


def test_an_unchanged_grad_is_copied_once_for_the_next_pass_and_the_optimizer():
    w = gs.ones(2, requires_grad=True)

    def run():
        for _ in range(2):
            (w * 3).sum().backward()
        gs.optim.SGD([w], lr=0.1).step()

    rec = record(run)
    (_,), (second,) = leaf_grads(rec, "w")
    (step,) = rec.optimizer
    assert step.params[0].grad is second.now  # the same copy, summarised once
    np.testing.assert_array_equal(step.params[0].grad.values, [6.0, 6.0])


def test_the_grads_of_leaves_that_died_are_forgotten():
    recorder = Recorder(Policy())
    with hooks.observe(recorder):
        for _ in range(130):  # a new leaf every pass
            w = gs.tensor([1.0], requires_grad=True)
            (w * 2).sum().backward()
    del w
    assert recorder._leaves.grads_owned() < 70

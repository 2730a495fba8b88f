"""Gradcheck of a recorded node: a wrong backward is caught, right ones pass, and what cannot be checked says why."""

import numpy as np
import pytest

import graphscope as gs
from graphscope.engine import hooks
from graphscope.trace import snapshot
from graphscope.trace.analysis.node_gradcheck import MAX_ELEMENTS, gradcheck_lines, gradcheck_node
from graphscope.trace.recording.recorder import Policy, Recorder

F = gs.nn.functional


class MyReLU(gs.autograd.Function):
    """A correct custom Function."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.clamp(min=0)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * (x > 0).float()


class WrongSquare(gs.autograd.Function):
    """x², with the classic slip in its backward: x where it should be 2x."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * x


def recorded(run, policy=None):
    """(the record, the recorder's Function classes) of running `run` under a recorder."""
    recorder = Recorder(policy)
    with hooks.observe(recorder):
        run()
    return recorder.finish(0), recorder.functions


def reloaded(record):
    return snapshot.loads(snapshot.dumps(record))


def node_of(record, op):
    (node,) = [n for n in record.nodes.values() if n.op == op]
    return node.id


def customs():
    gs.manual_seed(0)
    x = gs.randn(3, 4, requires_grad=True)
    (MyReLU.apply(x).sum() + WrongSquare.apply(x).sum()).backward()


def test_a_wrong_custom_backward_fails_with_its_max_error():
    record, functions = recorded(customs)
    result = gradcheck_node(record, node_of(record, "WrongSquare"), functions)
    assert result.checked and not result.ok
    (check,) = result.inputs
    analytic, numeric = np.array(check.analytic), np.array(check.numeric)
    # The backward gives x·c where the derivative is 2x·c: half of the numeric grad, everywhere.
    np.testing.assert_allclose(analytic, numeric / 2, rtol=1e-6, atol=1e-9)
    assert check.max_error == pytest.approx(np.max(np.abs(numeric)) / 2, rel=1e-6)
    assert result.max_error == check.max_error > 0.01
    assert check.elements == tuple(range(12)) and check.label == "x" and not check.ok
    lines = gradcheck_lines(result)
    assert lines[0].startswith(f"gradcheck of node {result.node} (WrongSquare): FAILED, max error ")
    assert any(line.endswith("<-") for line in lines)


def test_a_correct_custom_backward_passes():
    record, functions = recorded(customs)
    result = gradcheck_node(record, node_of(record, "MyReLU"), functions)
    assert result.ok and result.max_error < 1e-6
    assert "passed" in gradcheck_lines(result)[0]


def test_the_recorder_keeps_the_function_class_of_each_op_it_saw():
    _, functions = recorded(customs)
    assert functions["MyReLU"].function_cls is MyReLU and functions["WrongSquare"].function_cls is WrongSquare
    assert functions["sum"] is type(gs.ones(1, requires_grad=True).sum().grad_fn)


def test_a_snapshot_cannot_check_a_custom_function_without_its_script():
    record, _ = recorded(customs)
    result = gradcheck_node(reloaded(record), node_of(record, "MyReLU"))
    assert not result.checked and not result.ok
    assert result.reason == "custom Function MyReLU: its code is in the script; gradcheck it in a live run"
    assert gradcheck_lines(result) == [f"gradcheck of node {result.node} (MyReLU): cannot check: {result.reason}"]


def test_a_snapshot_checks_a_custom_function_given_its_class():
    record, _ = recorded(customs)
    loaded = reloaded(record)
    wrong = gradcheck_node(loaded, node_of(record, "WrongSquare"), {"WrongSquare": WrongSquare})
    assert wrong.checked and not wrong.ok
    assert gradcheck_node(loaded, node_of(record, "MyReLU"), {"MyReLU": MyReLU}).ok


def built_ins():
    gs.manual_seed(1)
    x = gs.randn(4, 3, requires_grad=True)
    w = gs.randn(3, 5, requires_grad=True)
    b = gs.randn(5, requires_grad=True)
    scale = gs.randn(4, 1, requires_grad=True)
    h = (x @ w + b).relu()  # matmul; add broadcasting (5,) over (4, 5); relu
    s = (h * scale).softmax(dim=1)  # mul broadcasting (4, 1) over (4, 5); softmax
    loss = F.cross_entropy(x @ w, gs.tensor([0, 1, 4, 2]))
    (s**3).mean(dim=0).sum().backward()  # pow, mean over a dim, sum
    loss.backward()


BUILT_IN_OPS = ("matmul", "add", "relu", "mul", "softmax", "pow", "mean", "sum", "cross_entropy")


@pytest.mark.parametrize("source", ["live", "snapshot"])
def test_built_in_ops_pass_at_their_recorded_inputs(source):
    record, functions = recorded(built_ins)
    if source == "snapshot":
        record, functions = reloaded(record), None
    seen = set()
    for node in record.nodes.values():
        if node.op in BUILT_IN_OPS:
            result = gradcheck_node(record, node.id, functions)
            assert result.ok, gradcheck_lines(result)
            assert result.max_error < 1e-6
            seen.add(node.op)
    assert seen == set(BUILT_IN_OPS)


def test_a_broadcast_input_is_checked_at_its_own_shape():
    record, functions = recorded(built_ins)
    add = next(n for n in record.nodes.values() if n.op == "add")
    result = gradcheck_node(record, add.id, functions)
    shapes = {check.label: check.shape for check in result.inputs}
    assert shapes == {"matmul": (4, 5), "b": (5,)}
    assert result.inputs[1].elements == tuple(range(5))


def test_a_big_input_is_checked_on_an_evenly_spread_slice():
    def run():
        x = gs.randn(1000, requires_grad=True)
        (x * x).sum().backward()

    record, functions = recorded(run)
    (check,) = gradcheck_node(record, node_of(record, "mul"), functions).inputs[:1]
    assert len(check.elements) == MAX_ELEMENTS and check.elements[0] == 0 and check.elements[-1] == 999
    assert check.ok and list(check.elements) == sorted(set(check.elements))


def test_inputs_not_recorded_in_full_cannot_be_checked():
    def run():
        x = gs.randn(10_000, requires_grad=True)
        x.exp().sum().backward()

    record, functions = recorded(run)
    result = gradcheck_node(record, node_of(record, "exp"), functions)
    assert not result.checked
    assert result.reason == (
        "inputs of 10,000 elements were not recorded in full (limit 4,096): "
        "input 0 (x) cannot be rebuilt; run with --full-values 10000 to keep them"
    )


def test_inputs_dropped_by_the_memory_budget_say_so():
    def run():
        x = gs.randn(1000, requires_grad=True)
        x.exp().sum().backward()

    record, functions = recorded(run, Policy(memory_budget=1000))
    result = gradcheck_node(record, node_of(record, "exp"), functions)
    assert "dropped to keep the recording within its memory budget" in result.reason


def test_an_op_that_draws_random_numbers_cannot_be_rerun():
    def run():
        mean = gs.zeros(3, requires_grad=True)
        gs.normal(mean, 1.0).sum().backward()

    record, functions = recorded(run)
    result = gradcheck_node(record, node_of(record, "normal"), functions)
    assert result.reason == (
        "normal draws random numbers in its forward: rerunning it draws others, "
        "so its backward cannot be checked at the recorded inputs"
    )


def test_dropout_is_checked_with_the_mask_it_recorded():
    def run():
        gs.manual_seed(2)
        x = gs.randn(6, 4, requires_grad=True)
        F.dropout(x, 0.5, training=True).sum().backward()

    record, functions = recorded(run)
    assert gradcheck_node(record, node_of(record, "dropout"), functions).ok


def test_a_keyword_argument_the_record_lacks_is_noticed_not_checked_wrongly():
    def run():
        x = gs.randn(3, 4, requires_grad=True)
        F.binary_cross_entropy(x.sigmoid(), gs.rand(3, 4), reduction="sum").backward()

    record, functions = recorded(run)
    result = gradcheck_node(record, node_of(record, "binary_cross_entropy"), functions)
    assert result.reason.startswith("the rebuilt binary_cross_entropy does not give the recorded output (off by up to ")
    assert result.reason.endswith(
        "it was called with an argument the record does not hold (a keyword argument), so it cannot be rerun"
    )


def test_a_forward_that_needs_a_keyword_says_so():
    def run():
        x = gs.randn(2, requires_grad=True)
        gs.cat([x, x], 0).sum().backward()

    record, functions = recorded(run)
    result = gradcheck_node(record, node_of(record, "cat"), functions)
    assert result.reason.startswith("cat's forward failed at the recorded inputs: TypeError: ")
    assert result.reason.endswith(
        "(the record holds its positional arguments only; one it took by keyword is not known)"
    )


def test_a_kink_matches_a_one_sided_derivative():
    def run():
        x = gs.tensor([0.0, 1.0, -1.0], requires_grad=True)
        x.relu().sum().backward()

    record, functions = recorded(run)
    (check,) = gradcheck_node(record, node_of(record, "relu"), functions).inputs
    assert check.ok and check.kinks == 1


def test_indexing_arguments_are_rebuilt_from_their_repr():
    def run():
        x = gs.randn(3, 4, requires_grad=True)
        (x[:, 1:3].sum() + x[..., 0].sum() + x.view(gs.Size([12])).sum()).backward()

    record, functions = recorded(run)
    for node in record.nodes.values():
        if node.op in ("index", "view"):
            assert gradcheck_node(record, node.id, functions).ok


def test_a_leaf_and_a_missing_node_are_not_checked():
    record, functions = recorded(customs)
    assert gradcheck_node(record, 0, functions).reason == "node 0 is a leaf (parameter): it has no backward to check"
    assert gradcheck_node(record, 999, functions).reason == "node 999 is not in the record"


def test_only_the_inputs_that_require_grad_are_checked():
    def run():
        w = gs.ones(2, requires_grad=True)
        x = gs.tensor([1.0, 2.0])
        (w * x.exp()).sum().backward()

    record, functions = recorded(run)
    result = gradcheck_node(record, node_of(record, "mul"), functions)
    assert [check.label for check in result.inputs] == ["w"]


def test_a_dtype_argument_is_rebuilt_and_a_cast_away_from_float64_is_not_checked():
    def run():
        x = gs.randn(3, requires_grad=True)
        (x.sum(dtype=gs.float64) + x.double().float().sum()).backward()

    record, functions = recorded(run)
    for node in record.nodes.values():
        if node.op == "sum" or (node.op == "cast" and node.output.dtype == "float64"):
            assert gradcheck_node(record, node.id, functions).ok, node
    single = next(n.id for n in record.nodes.values() if n.op == "cast" and n.output.dtype == "float32")
    assert gradcheck_node(record, single, functions).reason == (
        "cast returns float32 at float64 inputs: it cannot be checked in float64"
    )


def test_an_argument_that_is_no_literal_says_so():
    record, functions = recorded(customs)
    node = next(n for n in record.nodes.values() if n.op == "sum")
    node.args = (("axes", "<object at 0x1>"),) + node.args[1:]
    assert gradcheck_node(record, node.id, functions).reason == (
        "argument axes=<object at 0x1> is not a literal the record can give back, so sum cannot be rerun"
    )

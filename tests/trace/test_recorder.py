"""The recorder: what a run puts in the record, node by node and step by step, within its policy."""

import gc
import tracemalloc
import weakref
from pathlib import Path

import numpy as np
import pytest

import graphscope as gs
from graphscope import nn, optim
from graphscope.engine import hooks
from graphscope.trace import snapshot
from graphscope.trace.record.model import CONSTANT, EXTERNAL, PARAMETER, TENSOR
from graphscope.trace.recording.recorder import Policy, Recorder
from tests.trace.trace_helpers import line_of

HERE = Path(__file__)


def record(run, policy=None, **kwargs):
    recorder = Recorder(policy, **kwargs)
    with hooks.observe(recorder):
        run()
    return recorder.finish()


def by_op(rec, op):
    return [n for n in rec.nodes.values() if n.op == op]


def test_a_product_and_a_sum_become_four_nodes_in_creation_order():
    a = gs.tensor([1.0, 2.0], requires_grad=True)
    b = gs.tensor([3.0, 4.0], requires_grad=True)

    def run():
        y = a * b  # mul here
        y.sum().backward()  # sum here

    rec = record(run)
    ops = [n.op for n in rec.nodes.values() if n.op != CONSTANT]  # sum's dim/keepdim are constants
    assert ops == [PARAMETER, PARAMETER, "mul", "sum"]
    mul = by_op(rec, "mul")[0]
    assert mul.name == "MulBackward0" and mul.inputs == (0, 1) and mul.requires_grad and not mul.is_leaf
    assert list(rec.nodes) == sorted(rec.nodes)
    np.testing.assert_array_equal(mul.output.values, [3.0, 8.0])


def test_source_sites_point_at_the_lines_that_made_the_nodes():
    a = gs.tensor([1.0, 2.0], requires_grad=True)

    def run():
        y = a.exp()  # exp here
        y.sum().backward()

    rec = record(run)
    exp = by_op(rec, "exp")[0]
    assert exp.site.file == str(HERE) and exp.site.line == line_of("exp here")
    assert exp.site.text == "y = a.exp()  # exp here" and exp.site.function == "run"


def test_backward_steps_follow_the_planned_order_with_their_grads():
    a = gs.tensor([1.0, 2.0], requires_grad=True)
    b = gs.tensor([3.0, 4.0], requires_grad=True)

    def run():
        (a * b).sum().backward()

    rec = record(run)
    p = rec.passes[0]
    mul, total = by_op(rec, "mul")[0], by_op(rec, "sum")[0]
    assert p.order == (total.id, mul.id) and [s.node for s in p.steps] == [total.id, mul.id]
    assert p.root == total.id and p.loss == 11.0 and p.finished and p.detailed
    step = p.steps[1]
    np.testing.assert_array_equal(step.grad_output.values, [1.0, 1.0])
    np.testing.assert_array_equal(step.grad_inputs[0].values, [3.0, 4.0])
    np.testing.assert_array_equal(step.grad_inputs[1].values, [1.0, 2.0])
    assert [lg.node for lg in step.leaf_grads] == [0, 1]


def test_leaf_grads_in_the_record_equal_the_engines_final_grad():
    gs.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
    x = gs.randn(5, 3)

    def run():
        model(x).pow(2).mean().backward()

    rec = record(run)
    grads = {rec.nodes[lg.node].parameter: lg.grad for st in rec.passes[0].steps for lg in st.leaf_grads}
    for name, param in model.named_parameters():
        np.testing.assert_allclose(grads[name].values, param.grad.detach().cpu().numpy())


def test_module_paths_and_parameter_names_come_from_the_model():
    gs.manual_seed(0)
    model = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
    x = gs.randn(4, 2)

    def run():
        model(x).sum().backward()

    rec = record(run)
    linears = by_op(rec, "linear")
    assert [n.module for n in linears] == ["model.0", "model.2"]
    params = {n.parameter: n for n in by_op(rec, PARAMETER)}
    assert set(params) == {"0.weight", "0.bias", "2.weight", "2.bias"}
    assert params["0.weight"].output.shape == (3, 2) and params["0.weight"].module == "model.0"
    assert set(rec.passes[0].grad_norms) == set(params)


def test_an_unnamed_leaf_is_named_after_its_variable():
    weights = gs.tensor([1.0, 2.0], requires_grad=True)

    def run():
        (weights * 2).sum().backward()

    rec = record(run)
    assert by_op(rec, PARAMETER)[0].parameter == "weights"
    assert "weights" in rec.passes[0].grad_norms


def test_inputs_and_tensors_from_before_recording_are_nodes_too():
    w = gs.tensor([1.0, 2.0], requires_grad=True)
    made_before = w * 3
    x = gs.tensor([5.0, 6.0])

    def run():
        (made_before * x + 2.5).sum().backward()

    rec = record(run)
    assert by_op(rec, TENSOR)[0].output.values.tolist() == [5.0, 6.0]
    external = by_op(rec, EXTERNAL)
    assert external and "MulBackward0" in external[0].name and external[0].output.values.tolist() == [3.0, 6.0]


def test_a_tensor_changed_in_place_is_the_in_place_node_s_output_from_then_on():
    w = gs.tensor([1.0, 2.0], requires_grad=True)

    def run():
        y = w * 2
        y.add_(1)
        (y * 3).sum().backward()

    rec = record(run)
    first, last = by_op(rec, "mul")
    add = by_op(rec, "add")[0]
    assert not by_op(rec, EXTERNAL)
    assert add.inputs == (first.id,) and last.inputs == (add.id,)
    assert add.output.values.tolist() == [3.0, 5.0]


def test_non_tensor_arguments_are_attributes_of_the_node_not_nodes():
    a = gs.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)

    def run():
        ((a**3 + 2.5).sum(dim=1, keepdim=True)).sum().backward()

    rec = record(run)
    assert not by_op(rec, CONSTANT)
    assert by_op(rec, "pow")[0].args == (("exponent", "3"),)
    assert by_op(rec, "add")[0].args == (("b", "2.5"),)
    assert by_op(rec, "sum")[0].args == (("axes", "(1,)"), ("keepdim", "True"), ("dtype", "None"))
    add = by_op(rec, "add")[0]
    assert len(add.inputs) == 1
    step = next(s for s in rec.passes[0].steps if s.node == add.id)
    assert len(step.grad_inputs) == 1 and step.grad_inputs[0].values.tolist() == [[1.0, 1.0], [1.0, 1.0]]


def test_what_a_node_saved_is_named_by_its_role():
    a = gs.tensor([1.0, 2.0], requires_grad=True)
    b = gs.tensor([3.0, 4.0], requires_grad=True)

    def run():
        (a.exp() + a * b).sum().backward()

    rec = record(run)
    assert by_op(rec, "exp")[0].saved == ("output",)  # exp keeps its output for backward
    assert by_op(rec, "mul")[0].saved == ("input:0", "input:1")


def test_what_a_node_saved_is_named_whether_or_not_its_backward_ran():
    a = gs.tensor([1.0, 2.0], requires_grad=True)
    kept = []

    def run():
        kept.append(a.tanh())  # never reached by a backward: its saved state is still there
        (a * (a + 1)).sum().backward()

    rec = record(run)
    assert by_op(rec, "tanh")[0].saved == ("output",)
    assert by_op(rec, "mul")[0].saved == ("input:0", "input:1")


def test_a_leaf_s_site_is_the_line_that_made_it_not_the_first_use():
    def run():
        a = gs.tensor([1.0, 2.0], requires_grad=True)  # made here
        x = gs.ones(2)  # and here
        print("unrelated")
        (a * x).sum().backward()

    rec = record(run)
    made = [n.site.text for n in rec.nodes.values() if n.is_leaf]
    assert made == ["a = gs.tensor([1.0, 2.0], requires_grad=True)  # made here", "x = gs.ones(2)  # and here"]


def test_a_parameter_s_site_is_the_line_that_built_its_module():
    def run():
        layer = nn.Linear(2, 1)  # the layer
        layer(gs.ones(1, 2)).sum().backward()

    rec = record(run)
    assert {n.site.text for n in by_op(rec, PARAMETER)} == {"layer = nn.Linear(2, 1)  # the layer"}


def _train(steps, policy=None, model=None):
    gs.manual_seed(0)
    model = model or nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Linear(8, 1))
    opt = optim.SGD(model.parameters(), lr=0.05)
    x, y = gs.randn(16, 2), gs.randn(16, 1)

    def run():
        for _ in range(steps):
            loss = ((model(x) - y) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()

    return record(run, policy)


def test_default_policy_keeps_the_first_pass_and_the_last_three_in_detail():
    rec = _train(10)
    assert [p.index for p in rec.passes if p.detailed] == [0, 7, 8, 9]
    assert {n.pass_index for n in rec.nodes.values()} == {0, 7, 8, 9}
    assert rec.trimmed_nodes == sum(p.node_count for p in rec.passes[1:7])
    trimmed = rec.passes[3]
    assert trimmed.steps == [] and trimmed.order == () and trimmed.root is None


def test_every_pass_keeps_its_loss_and_grad_norms():
    rec = _train(10)
    assert all(p.loss is not None and len(p.grad_norms) == 4 for p in rec.passes)
    assert rec.passes[0].loss > rec.passes[-1].loss


def test_a_parameter_gets_a_node_per_pass_holding_its_value_then():
    rec = _train(5)
    weights = [n for n in by_op(rec, PARAMETER) if n.parameter == "0.weight"]
    assert [n.pass_index for n in weights] == [0, 2, 3, 4]
    assert not np.array_equal(weights[0].output.values, weights[-1].output.values)


def test_every_pass_policy_keeps_all_detail():
    rec = _train(6, Policy.every_pass())
    assert all(p.detailed and p.steps for p in rec.passes) and rec.trimmed_nodes == 0


def test_records_within_policy_export_with_no_dangling_ids():
    rec = _train(8)
    assert snapshot.loads(snapshot.dumps(rec)) == rec


def test_a_graph_reused_across_passes_keeps_what_retained_passes_refer_to():
    w = gs.tensor([1.0, 2.0], requires_grad=True)

    def run():
        shared = (w * 2).exp()
        for _ in range(8):
            (shared * w).sum().backward(retain_graph=True)

    rec = record(run)
    assert snapshot.loads(snapshot.dumps(rec)) == rec  # no dangling ids
    exp = by_op(rec, "exp")
    assert len(exp) == 1 and all(exp[0].id in p.order for p in rec.passes if p.detailed)


def test_tensors_used_after_backward_do_not_pile_up():
    gs.manual_seed(0)
    model = nn.Linear(2, 1)
    x = gs.randn(8, 2)

    def run():
        for _ in range(50):
            out = model(x)
            out.sum().backward()
            out.max().item()  # a node made after backward, on this pass's output

    rec = record(run)
    assert len(rec.nodes) < 6 * 20 and snapshot.loads(snapshot.dumps(rec)) == rec


@pytest.mark.slow
def test_memory_stays_bounded_over_10000_iterations():
    w = gs.tensor([0.5, -0.5], requires_grad=True)
    x = gs.tensor([1.0, 2.0])
    recorder = Recorder()

    def step():
        (w * x).sum().backward()
        w.grad = None

    with hooks.observe(recorder):
        for _ in range(1000):
            step()
        tracemalloc.start()
        before = tracemalloc.take_snapshot()
        for _ in range(9000):
            step()
        after = tracemalloc.take_snapshot()
        tracemalloc.stop()
    rec = recorder.finish()
    grown = sum(d.size_diff for d in after.compare_to(before, "filename"))
    per_pass = grown / 9000
    assert len(rec.passes) == 10000 and len(rec.nodes) <= 5 * 6
    assert per_pass < 1024, f"{per_pass:.0f} bytes per pass"  # only the loss and grad norms grow


def test_the_memory_budget_drops_the_oldest_values_and_says_so():
    rec = _train(6, Policy.every_pass(memory_budget=5_000))
    assert rec.dropped_values > 0
    kept = [n.output for n in rec.nodes.values() if n.output is not None]
    assert sum(s.captured_bytes for s in {id(s): s for s in kept}.values()) <= 5_000
    oldest, newest = kept[0], kept[-1]
    assert oldest.dropped and oldest.preview.size == 0 and oldest.mean is not None
    assert not newest.dropped


def test_full_values_limit_applies():
    rec = _train(1, Policy(full_values_limit=8))
    w = next(n for n in by_op(rec, PARAMETER) if n.parameter == "0.weight")
    assert w.output.values is None and w.output.preview.size == 16


def test_console_lines_are_kept_in_order_with_their_pass():
    recorder = Recorder(Policy(console_limit=2))
    recorder.console("stdout", "one\n")
    recorder.console("stderr", "two\n")
    recorder.console("stdout", "three\n")
    rec = recorder.finish()
    assert [(c.stream, c.text) for c in rec.console] == [("stderr", "two\n"), ("stdout", "three\n")]
    assert rec.dropped_console == 1


def test_console_lines_say_when_they_were_written_pass_step_and_optimizer_events():
    recorder = Recorder()

    class Prints(gs.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            recorder.console("stdout", "in backward")  # what the session's capture of print() calls
            return grad * 2

    w = gs.tensor([1.0, 2.0], requires_grad=True)
    opt = optim.SGD([w], lr=0.1)
    with hooks.observe(recorder):
        recorder.console("stdout", "before")
        loss = Prints.apply(w * 3).sum()
        loss.backward()
        recorder.console("stdout", "after backward")
        opt.step()
        recorder.console("stdout", "after step")
    lines = {c.text: (c.pass_index, c.step, c.events) for c in recorder.finish().console}
    # Prints' backward is the second step (after the sum's): two steps begun when it printed.
    assert lines == {
        "before": (0, None, 0),
        "in backward": (1, 2, 0),
        "after backward": (1, None, 0),
        "after step": (1, None, 1),
    }


class Explodes(gs.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 1

    @staticmethod
    def backward(ctx, grad):
        raise ValueError("backward blew up")


def test_an_error_in_backward_names_the_node_being_stepped():
    x = gs.tensor([1.0], requires_grad=True)
    recorder = Recorder()
    with hooks.observe(recorder):
        try:
            Explodes.apply(x).sum().backward()
        except ValueError as e:
            error = recorder.script_failed(e)
    rec = recorder.finish(exit_code=1)
    node = rec.nodes[error.node]
    assert error.type == "ValueError" and error.message == "backward blew up"
    assert node.op != "sum" and "backward blew up" in error.traceback
    assert rec.metadata.exit_code == 1 and snapshot.loads(snapshot.dumps(rec)) == rec


def test_an_error_in_forward_points_at_the_users_line():
    recorder = Recorder()
    with hooks.observe(recorder):
        try:
            gs.ones(3, requires_grad=True) @ gs.ones(4)  # bad matmul
        except RuntimeError as e:
            error = recorder.script_failed(e)
    assert error.node is None and error.site.line == line_of("bad matmul")


def test_metadata_says_what_ran_where():
    rec = Recorder(script="train.py", argv=["train.py", "--fast"]).finish()
    meta = rec.metadata
    assert meta.script == "train.py" and meta.argv == ["train.py", "--fast"]
    assert meta.graphscope_version == gs.__version__ and meta.numpy_version == np.__version__
    assert meta.started and meta.finished and meta.device == "cpu"


def test_a_run_that_builds_no_graph_records_nothing():
    def run():
        with gs.no_grad():
            (gs.ones(3, requires_grad=True) * 2).sum()

    rec = record(run)
    assert not rec.nodes and not rec.passes and not rec.findings


def test_the_session_can_flush_while_the_script_is_paused_in_backward():
    a = gs.tensor([1.0, 2.0], requires_grad=True)
    recorder = Recorder()
    seen = []

    class Pause(hooks.Observer):
        def before_node(self, node, grad_output):
            rec = recorder.flush()
            seen.append((len(rec.passes[0].steps), rec.passes[0].steps[-1].grad_inputs))

    with hooks.observe(recorder), hooks.observe(Pause()):
        (a * 3).sum().backward()
    rec = recorder.finish()
    assert [count for count, _ in seen] == [1, 2]
    assert all(g is not None for g in rec.passes[0].steps[0].grad_inputs[:1])
    assert rec.passes[0].steps[1].leaf_grads[0].grad.values.tolist() == [3.0, 3.0]


@pytest.mark.cuda
def test_summaries_of_cuda_tensors_are_computed_on_the_device():
    if not gs.cuda.is_available():
        pytest.skip("no CUDA GPU")
    a = gs.tensor([1.0, float("nan"), 3.0], device="cuda", requires_grad=True)

    def run():
        (a * 2).sum().backward()

    rec = record(run)
    mul = by_op(rec, "mul")[0]
    assert mul.output.device.startswith("cuda") and mul.output.nan_count == 1
    assert rec.metadata.device.startswith("cuda")


def test_names_with_control_characters_still_give_a_loadable_snapshot():
    from graphscope.engine.function import Function

    weird = type(
        "Weird\x1b[31m\n",
        (Function,),
        {
            "forward": lambda self, x, k: x * k,
            "backward": lambda self, grad: (grad, None),
        },
    )
    a = gs.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    k = gs.tensor([[1.0, 2.0], [3.0, 4.0]]).array  # a raw array on the tensors' device

    def run():
        weird.apply(a, k).sum().backward()

    rec = record(run)
    node = next(n for n in rec.nodes.values() if n.name.startswith("Weird"))
    assert "\x1b" not in node.op and "\\x1b" in node.op and "\n" not in node.name
    constant = next(n for n in rec.nodes.values() if n.op == CONSTANT)
    assert "\n" not in constant.name and constant.output.values.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert snapshot.loads(snapshot.dumps(rec)) == rec


def test_an_exit_code_of_true_is_recorded_as_1_and_exported_as_an_integer():
    record = Recorder().finish(True)
    assert type(record.metadata.exit_code) is int and snapshot.loads(snapshot.dumps(record)).metadata.exit_code == 1


def test_a_shape_argument_is_recorded_as_a_shape_not_as_its_type():
    recorder = Recorder()
    with hooks.observe(recorder):
        x = gs.ones((32, 2, 3), requires_grad=True)
        nn.Flatten()(x).sum().backward()
    record = recorder.finish(0)
    (flatten,) = [n for n in record.nodes.values() if n.op == "flatten"]
    assert dict(flatten.args)["shape"] == "(32, -1)"


def test_a_pass_kept_for_good_does_not_keep_its_graph_alive():
    rec = Recorder()  # the first pass is kept in detail for good
    with hooks.observe(rec):
        x = gs.ones(3, requires_grad=True)
        y = (x * 2.0).tanh()
        node = weakref.ref(y.grad_fn)
        y.sum().backward()
        del y
        x2 = gs.ones(3, requires_grad=True)
        (x2 * 3.0).sum().backward()  # a second pass: the first's journal is held as kept for good
    rec.finish()
    gc.collect()
    assert node() is None
    assert len(rec.record.passes) == 2


def test_a_recorded_pass_holds_its_steps_as_rows_each_step_made_when_read():
    a = gs.tensor([1.0, 2.0], requires_grad=True)

    def run():
        (a * 3).sum().backward()

    steps = record(run, Policy.every_pass()).passes[0].steps
    assert steps[0] is not steps[0] and steps[0] == steps[0]  # no Step object held per step
    assert steps[1].grad_output is steps[0].grad_inputs[0]  # the grad the sum passed down: one summary
    assert steps[1].leaf_grads[0].grad.values.tolist() == [3.0, 3.0]

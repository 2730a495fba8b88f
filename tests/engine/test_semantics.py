"""Autograd semantics a PyTorch user relies on, one behaviour per test, with the exact error messages."""

import re

import numpy as np
import pytest
import torch

import graphscope as gs


def leaf(values, dtype=None):
    return gs.tensor(values, dtype=dtype, requires_grad=True)


@pytest.fixture
def restore_default_dtype():
    before = gs.get_default_dtype()
    yield
    gs.set_default_dtype(before)


# --- broadcasting and accumulation -------------------------------------------------------------


def test_broadcast_grads_are_summed_back_to_each_input_shape():
    a = leaf(np.ones((3, 1)))
    b = leaf(np.arange(4.0))
    (a * b).sum().backward()
    assert a.grad.shape == (3, 1) and b.grad.shape == (4,)
    np.testing.assert_allclose(a.grad.cpu().numpy(), [[6.0], [6.0], [6.0]])
    np.testing.assert_allclose(b.grad.cpu().numpy(), [3.0, 3.0, 3.0, 3.0])


def test_leaf_grads_accumulate_across_backward_calls():
    x = leaf([1.0, 2.0])
    (x * 3).sum().backward()
    (x * x).sum().backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), [5.0, 7.0])


def test_non_leaf_grad_stays_none():
    x = leaf([1.0, 2.0])
    y = x * 2
    y.sum().backward()
    assert y.grad is None


def test_retain_grad_keeps_non_leaf_grad():
    x = leaf([1.0, 2.0])
    y = x * 2
    y.retain_grad()
    (y * y).sum().backward()
    np.testing.assert_allclose(y.grad.cpu().numpy(), [4.0, 8.0])
    np.testing.assert_allclose(x.grad.cpu().numpy(), [8.0, 16.0])


def test_tensor_used_several_times_sums_its_grads():
    x = leaf([1.0, -2.0])
    y = x * 2
    (y + y * x + y.exp()).sum().backward()
    expected = 2 + 4 * np.array([1.0, -2.0]) + 2 * np.exp(2 * np.array([1.0, -2.0]))
    np.testing.assert_allclose(x.grad.cpu().numpy(), expected, rtol=1e-6)


def _grads_of_many_uses(lib, values):
    """x used five times directly, and through a node used five times, with shared grads among the uses:
    an Add hands one array to both its inputs, which a third use then adds to."""
    x = lib.tensor(values, requires_grad=True)
    a = x * 1.5
    seen = []
    a.register_hook(lambda g: seen.append(g.clone()))
    out = ((x + x) + x) * 2 + x * x + x.exp() + ((a + a) + a) + a * a + a.sin()
    (out.sum() if out.ndim else out).backward()
    return x.grad, seen[0]


@pytest.mark.parametrize("values", [[0.5, -1.0, 2.0], 0.75])
def test_grads_summed_over_many_uses_match_torch(values):
    ours, theirs = _grads_of_many_uses(gs, values), _grads_of_many_uses(torch, values)
    for g, t in zip(ours, theirs):
        np.testing.assert_allclose(np.asarray(g.tolist()), np.asarray(t.tolist()), rtol=1e-6)


def test_summing_a_weights_grads_in_place_leaves_each_steps_grad_unchanged():
    w = leaf([[0.5, -1.0], [2.0, 0.25]], gs.float64)
    h = gs.tensor([[1.0, 2.0]], dtype=gs.float64)
    outs = []
    for _ in range(4):  # a weight used at every time step, as a recurrent layer's is
        h = (h @ w).tanh()
        h.retain_grad()
        outs.append(h)
    outs[-1].sum().backward()
    steps = [o.grad.clone() for o in outs]
    w2 = torch.tensor([[0.5, -1.0], [2.0, 0.25]], dtype=torch.float64, requires_grad=True)
    h2, outs2 = torch.tensor([[1.0, 2.0]], dtype=torch.float64), []
    for _ in range(4):
        h2 = (h2 @ w2).tanh()
        h2.retain_grad()
        outs2.append(h2)
    outs2[-1].sum().backward()
    np.testing.assert_allclose(w.grad.cpu().numpy(), w2.grad.numpy(), rtol=1e-12)
    for ours, theirs in zip(steps, outs2):
        np.testing.assert_allclose(ours.cpu().numpy(), theirs.grad.numpy(), rtol=1e-12)


def _short_and_long_paths(lib, values):
    """x reaches the loss directly and through a chain of 30 ops, w at both ends: a node must
    have every consumer's grad before it runs, however late the longer path delivers it."""
    x = lib.tensor(values, requires_grad=True)
    w = lib.tensor([0.5, -2.0, 3.0], requires_grad=True)
    h = x * w
    for _ in range(30):
        h = h * 0.9 + 0.1
    seen = []
    w.register_hook(lambda g: seen.append(g.clone()))
    ((h + x * x + w) * w).sum().backward()
    return x.grad.cpu().numpy(), w.grad.cpu().numpy(), [g.cpu().numpy() for g in seen]


def test_nodes_reached_by_paths_of_different_lengths_get_all_their_grads_as_torch():
    values = [1.0, -0.5, 2.0]
    gx, gw, hooked = _short_and_long_paths(gs, values)
    tx, tw, torch_hooked = _short_and_long_paths(torch, values)
    np.testing.assert_allclose(gx, tx, rtol=1e-6)
    np.testing.assert_allclose(gw, tw, rtol=1e-6)
    assert len(hooked) == len(torch_hooked) == 1  # a leaf's hook sees its grad once, summed
    np.testing.assert_allclose(hooked[0], torch_hooked[0], rtol=1e-6)


def test_grad_has_dtype_and_shape_of_its_tensor():
    a = leaf(np.ones((2, 3), dtype=np.float64))
    b = leaf(np.ones((3,), dtype=np.float32))
    c = leaf(np.ones((), dtype=np.float32))
    (a * b * c).sum().backward()
    assert (a.grad.shape, a.grad.dtype) == ((2, 3), gs.float64)
    assert (b.grad.shape, b.grad.dtype) == ((3,), gs.float32)
    assert (c.grad.shape, c.grad.dtype) == ((), gs.float32)


def test_leaf_that_does_not_require_grad_gets_no_grad():
    x, w = leaf([1.0, 2.0]), gs.tensor([3.0, 4.0])
    (x * w).sum().backward()
    assert w.grad is None


# --- retain_graph -------------------------------------------------------------------------------


def test_second_backward_without_retain_graph_raises():
    x = leaf([1.0, 2.0])
    z = (x * x).sum()
    z.backward()
    with pytest.raises(RuntimeError, match=re.escape("retain_graph=True")):
        z.backward()


def test_second_backward_with_retain_graph_accumulates():
    x = leaf([1.0, 2.0])
    z = (x * x).sum()
    z.backward(retain_graph=True)
    z.backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), [4.0, 8.0])


def test_saved_arrays_are_freed_after_backward():
    x = leaf([1.0, 2.0])
    y = x.exp()
    assert y.grad_fn.saved_arrays()
    y.sum().backward()
    assert not y.grad_fn.saved_arrays()


def test_saved_arrays_are_kept_with_retain_graph():
    x = leaf([1.0, 2.0])
    y = x.exp()
    y.sum().backward(retain_graph=True)
    assert y.grad_fn.saved_arrays()


# --- backward arguments -------------------------------------------------------------------------


def test_backward_of_non_scalar_without_gradient_raises():
    y = leaf([1.0, 2.0]) * 2
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs"):
        y.backward()


def test_backward_of_non_scalar_with_gradient():
    x = leaf([1.0, 2.0, 3.0])
    (x * x).backward(gs.tensor([1.0, 0.5, -1.0]))
    np.testing.assert_allclose(x.grad.cpu().numpy(), [2.0, 2.0, -6.0])


def test_backward_of_one_element_output_creates_grad_implicitly():
    # As torch: the implicit grad needs one element, not a 0-d shape.
    x = leaf([2.0])
    (x * x).backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), [4.0])


def test_backward_from_tensor_not_requiring_grad_raises():
    with pytest.raises(
        RuntimeError,
        match=r"^element 0 of tensors does not require grad and does not have a grad_fn: "
        r"set requires_grad=True",
    ):
        gs.tensor(2.0).backward()


# --- version counters ---------------------------------------------------------------------------


def test_inplace_change_of_saved_non_leaf_is_detected_at_backward():
    x, w = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    y = x * 2
    z = y * w  # MulBackward0 saves y to compute the grad of w
    y.mul_(3)
    with pytest.raises(RuntimeError, match="modified by an inplace operation") as excinfo:
        z.sum().backward()
    assert "MulBackward0" in str(excinfo.value)
    assert "is at version 1; expected version 0" in str(excinfo.value)


def test_inplace_change_of_saved_leaf_under_no_grad_is_detected_at_backward():
    x, w = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    z = x * w
    with gs.no_grad():
        w.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation") as excinfo:
        z.sum().backward()
    assert "MulBackward0" in str(excinfo.value)
    assert "is at version 1; expected version 0" in str(excinfo.value)


def test_inplace_change_of_tensor_not_saved_is_allowed():
    x = leaf([1.0, 2.0])
    y = x * 2
    z = y + 1  # AddBackward0 saves nothing it needs from y
    y.add_(5)
    z.sum().backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), [2.0, 2.0])


def test_inplace_on_leaf_requiring_grad_raises():
    w = leaf([1.0, 2.0])
    with pytest.raises(
        RuntimeError, match=re.escape("a leaf Variable that requires grad is being used in an in-place operation.")
    ):
        w.add_(1.0)


def test_augmented_assignment_on_leaf_requiring_grad_raises():
    w = leaf([1.0, 2.0])
    with pytest.raises(
        RuntimeError, match=re.escape("a leaf Variable that requires grad is being used in an in-place operation.")
    ):
        w -= 1.0


def test_setitem_on_leaf_requiring_grad_raises():
    w = leaf([1.0, 2.0])
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        w[0] = 5.0


# --- integer tensors and the grad attribute -----------------------------------------------------


def test_requires_grad_on_integer_tensor_raises():
    with pytest.raises(RuntimeError, match="Only Tensors of floating point dtype can require gradients"):
        gs.tensor([1, 2, 3], requires_grad=True)


def test_requires_grad_on_integer_tensor_via_requires_grad_raises():
    with pytest.raises(RuntimeError, match="Only Tensors of floating point dtype can require gradients"):
        gs.arange(3).requires_grad_()


def test_requires_grad_on_bool_tensor_raises():
    with pytest.raises(RuntimeError, match="Only Tensors of floating point dtype can require gradients"):
        gs.tensor([True, False], requires_grad=True)


def test_grad_setter_rejects_non_tensor():
    x = leaf([1.0, 2.0])
    with pytest.raises(TypeError, match="assigned grad expected to be a Tensor or None but got grad of type int"):
        x.grad = 3


def test_grad_setter_accepts_tensor_and_none():
    x = leaf([1.0, 2.0])
    x.grad = gs.tensor([5.0, 6.0])
    np.testing.assert_array_equal(x.grad.cpu().numpy(), [5.0, 6.0])
    (x * 1).sum().backward()
    np.testing.assert_array_equal(x.grad.cpu().numpy(), [6.0, 7.0])
    x.grad = None
    assert x.grad is None


# --- shape errors -------------------------------------------------------------------------------


def test_broadcast_mismatch_raises_runtime_error_naming_op_and_shapes():
    with pytest.raises(RuntimeError, match=re.escape("add: shapes (3, 4) and (5,) cannot be broadcast together")):
        gs.zeros(3, 4) + gs.zeros(5)


@pytest.mark.parametrize(
    "op, fn", [("sub", lambda a, b: a - b), ("mul", lambda a, b: a * b), ("div", lambda a, b: a / b)]
)
def test_broadcast_mismatch_names_each_binary_op(op, fn):
    with pytest.raises(RuntimeError, match=re.escape(f"{op}: shapes (2, 3) and (4, 3) cannot be broadcast together")):
        fn(gs.ones(2, 3), gs.ones(4, 3))


def test_broadcast_mismatch_is_raised_also_while_building_a_graph():
    with pytest.raises(RuntimeError, match=re.escape("add: shapes (3, 4) and (5,) cannot be broadcast together")):
        leaf(np.zeros((3, 4))) + leaf(np.zeros(5))


def test_matmul_mismatch_raises_runtime_error_naming_both_shapes():
    with pytest.raises(RuntimeError, match=re.escape("matmul: (3, 4) @ (5, 2): inner dimensions 4 and 5 differ")):
        gs.zeros(3, 4) @ gs.zeros(5, 2)


def test_matmul_mismatch_of_function_form():
    with pytest.raises(RuntimeError, match=re.escape("matmul: (3, 4) @ (5, 2): inner dimensions 4 and 5 differ")):
        gs.matmul(leaf(np.zeros((3, 4))), gs.zeros(5, 2))


# --- numerics -----------------------------------------------------------------------------------


def test_softmax_of_logits_of_1000_gives_no_nan():
    x = leaf([[1000.0, 0.0, -1000.0], [1000.0, 1000.0, 1000.0]])
    (x.softmax(dim=1) * gs.tensor([1.0, 2.0, 3.0])).sum().backward()
    np.testing.assert_allclose(x.softmax(dim=1).detach().cpu().numpy()[1], [1 / 3] * 3, rtol=1e-6)
    assert np.isfinite(x.grad.cpu().numpy()).all()


def test_logsumexp_of_logits_of_1000_is_exact():
    x = gs.tensor([1000.0, 1000.0])
    np.testing.assert_allclose(x.logsumexp(dim=0).item(), 1000.0 + np.log(2.0), rtol=1e-6)


def test_amax_splits_tied_gradient_evenly():
    x = leaf([[2.0, 5.0, 5.0], [1.0, 1.0, 1.0]])
    x.amax(dim=1).sum().backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), [[0.0, 0.5, 0.5], [1 / 3, 1 / 3, 1 / 3]], rtol=1e-6)


def test_max_over_dim_sends_tied_gradient_to_returned_index():
    x = leaf([[2.0, 5.0, 5.0], [1.0, 1.0, 1.0]])
    values, indices = x.max(dim=1)
    values.sum().backward()
    expected = np.zeros((2, 3))
    expected[np.arange(2), indices.cpu().numpy()] = 1.0
    assert expected.sum() == 2.0
    np.testing.assert_array_equal(x.grad.cpu().numpy(), expected)


# --- depth --------------------------------------------------------------------------------------


@pytest.mark.slow
def test_backward_through_100000_node_chain_has_no_recursion_error():
    x = leaf(1.0, dtype=gs.float64)
    y = x
    for _ in range(100_000):
        y = y * 1.00001
    y.backward()
    np.testing.assert_allclose(x.grad.item(), 1.00001**100_000, rtol=1e-9)


# --- dtype rules --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "data, dtype",
    [
        (1.5, "float32"),
        ([1.0, 2.0], "float32"),
        ([1, 2.5], "float32"),
        (3, "int64"),
        ([[1, 2]], "int64"),
        (True, "bool"),
        ([True, False], "bool"),
        (np.array([1.0]), "float64"),
        (np.array([1.0], dtype=np.float32), "float32"),
        (np.array([1], dtype=np.int32), "int32"),
        (np.array([1], dtype=np.int64), "int64"),
        (np.float64(2.0), "float64"),
    ],
    ids=str,
)
def test_tensor_infers_dtype_like_torch(data, dtype):
    assert str(gs.tensor(data).dtype).split(".")[-1] == dtype
    assert str(torch.tensor(data).dtype).split(".")[-1] == dtype


def test_explicit_dtype_argument_wins():
    assert gs.tensor([1, 2], dtype=gs.float64).dtype == gs.float64
    assert gs.tensor([1.7, 2.2], dtype=gs.int64).tolist() == [1, 2]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("scalar", [2, 2.5, -1])
def test_scalar_tensor_arithmetic_keeps_tensor_dtype(dtype, scalar):
    x = gs.tensor(np.array([1.0, 2.0], dtype=dtype))
    for out in (x + scalar, scalar * x, x / scalar, x - scalar, x**scalar):
        assert str(out.dtype).split(".")[-1] == dtype


def test_integer_tensor_with_integer_scalar_stays_int64():
    assert (gs.tensor([1, 2]) * 3 + 1).dtype == gs.int64


def test_integer_tensor_with_float_scalar_gives_default_float():
    assert (gs.tensor([1, 2]) * 0.5).dtype == gs.float32


def test_integer_true_division_gives_float32():
    out = gs.tensor([1, 3]) / gs.tensor([2, 2])
    assert out.dtype == gs.float32
    np.testing.assert_array_equal(out.cpu().numpy(), [0.5, 1.5])


def test_integer_true_division_by_python_int_gives_float32():
    assert (gs.tensor([1, 3]) / 2).dtype == gs.float32


def test_set_default_dtype_changes_python_float_inference(restore_default_dtype):
    gs.set_default_dtype(gs.float64)
    assert gs.get_default_dtype() == gs.float64
    assert gs.tensor(1.5).dtype == gs.float64
    assert gs.zeros(2).dtype == gs.float64
    assert (gs.tensor([1, 2]) / 2).dtype == gs.float64
    assert gs.tensor([1, 2]).dtype == gs.int64
    gs.set_default_dtype(gs.float32)
    assert gs.tensor(1.5).dtype == gs.float32


def test_default_dtype_is_float32():
    assert gs.get_default_dtype() == gs.float32


@pytest.mark.parametrize(
    "name, expected",
    [
        ("float32", "float32"),
        ("float", "float32"),
        ("float64", "float64"),
        ("double", "float64"),
        ("int64", "int64"),
        ("long", "int64"),
        ("int32", "int32"),
        ("bool", "bool"),
    ],
)
def test_dtype_names_and_aliases(name, expected):
    dtype = getattr(gs, name)
    assert str(dtype) == f"graphscope.{expected}"
    assert dtype.numpy == np.dtype(expected)
    assert dtype.is_floating_point == expected.startswith("float")


# --- grad mode ----------------------------------------------------------------------------------


def test_no_grad_context_builds_no_graph():
    x = leaf([1.0, 2.0])
    with gs.no_grad():
        assert not gs.is_grad_enabled()
        y = x * 2
    assert gs.is_grad_enabled()
    assert not y.requires_grad and y.grad_fn is None and y.is_leaf


def test_no_grad_as_decorator():
    @gs.no_grad()
    def double(t):
        return t * 2, gs.is_grad_enabled()

    y, enabled = double(leaf([1.0]))
    assert not enabled and not y.requires_grad
    assert gs.is_grad_enabled()


def test_no_grad_restores_grad_mode_after_exception():
    with pytest.raises(KeyError, match="x"), gs.no_grad():
        raise KeyError("x")
    assert gs.is_grad_enabled()


def test_enable_grad_inside_no_grad():
    x = leaf([1.0])
    with gs.no_grad():
        with gs.enable_grad():
            y = x * 2
        z = x * 2
    assert y.requires_grad and y.grad_fn is not None
    assert not z.requires_grad


def test_enable_grad_as_decorator():
    @gs.enable_grad()
    def double(t):
        return t * 2

    with gs.no_grad():
        y = double(leaf([1.0]))
        assert not gs.is_grad_enabled()
    assert y.requires_grad


def test_set_grad_enabled_as_function():
    try:
        gs.set_grad_enabled(False)
        assert not gs.is_grad_enabled()
        assert not (leaf([1.0]) * 2).requires_grad
    finally:
        gs.set_grad_enabled(True)
    assert gs.is_grad_enabled()


def test_set_grad_enabled_as_context_manager():
    x = leaf([1.0])
    with gs.set_grad_enabled(False):
        y = x * 2
    with gs.no_grad(), gs.set_grad_enabled(True):
        z = x * 2
    assert not y.requires_grad and z.requires_grad
    assert gs.is_grad_enabled()


def test_ops_on_tensors_not_requiring_grad_build_no_graph():
    y = gs.tensor([1.0, 2.0]) * 3
    assert not y.requires_grad and y.grad_fn is None and y.is_leaf


# --- hooks on tensors ---------------------------------------------------------------------------


def test_register_hook_on_leaf_sees_grad_and_may_replace_it():
    x = leaf([1.0, 2.0])
    seen = []
    x.register_hook(lambda g: seen.append(g.cpu().numpy().copy()))
    x.register_hook(lambda g: g * 10)
    (x * 3).sum().backward()
    np.testing.assert_array_equal(seen[0], [3.0, 3.0])
    np.testing.assert_array_equal(x.grad.cpu().numpy(), [30.0, 30.0])


def test_register_hook_handle_remove_stops_the_hook():
    x = leaf([1.0, 2.0])
    calls = []
    handle = x.register_hook(lambda g: calls.append(1))
    (x * 1).sum().backward()
    handle.remove()
    (x * 1).sum().backward()
    assert calls == [1]


def test_register_hook_on_non_leaf_replaces_grad_flowing_upstream():
    x = leaf([1.0, 2.0])
    y = x * 2
    seen = []

    def hook(grad):
        seen.append(grad.cpu().numpy().copy())
        return grad * 0.5

    y.register_hook(hook)
    (y * y).sum().backward()
    np.testing.assert_allclose(seen[0], [4.0, 8.0])
    np.testing.assert_allclose(x.grad.cpu().numpy(), [4.0, 8.0])
    assert y.grad is None


def test_register_hook_on_tensor_not_requiring_grad_raises():
    with pytest.raises(RuntimeError, match=r"^cannot register a hook on a tensor that doesn't require gradient$"):
        gs.tensor([1.0]).register_hook(lambda g: g)


# --- detach, clone, requires_grad_ --------------------------------------------------------------


def test_detach_cuts_the_graph_and_shares_storage():
    x = leaf([1.0, 2.0])
    y = x * 2
    d = y.detach()
    assert not d.requires_grad and d.grad_fn is None and d.is_leaf
    d.add_(1.0)
    np.testing.assert_array_equal(y.detach().cpu().numpy(), [3.0, 5.0])


def test_data_is_detached_and_shares_storage():
    x = leaf([1.0, 2.0])
    assert not x.data.requires_grad
    x.data.mul_(3)  # allowed on a leaf: .data is outside the graph
    np.testing.assert_array_equal(x.detach().cpu().numpy(), [3.0, 6.0])
    assert x.requires_grad and x.is_leaf


def test_clone_copies_values_and_passes_grad_back():
    x = leaf([1.0, 2.0])
    c = x.clone()
    assert c.grad_fn is not None and not c.is_leaf
    with gs.no_grad():
        c2 = x.clone()
    c2.zero_()
    np.testing.assert_array_equal(x.detach().cpu().numpy(), [1.0, 2.0])
    (c * 3).sum().backward()
    np.testing.assert_array_equal(x.grad.cpu().numpy(), [3.0, 3.0])


def test_requires_grad_in_place_returns_self():
    x = gs.tensor([1.0, 2.0])
    assert x.requires_grad_() is x and x.requires_grad
    (x * x).sum().backward()
    np.testing.assert_array_equal(x.grad.cpu().numpy(), [2.0, 4.0])
    x.requires_grad_(False)
    assert not x.requires_grad


def test_requires_grad_false_on_non_leaf_raises():
    y = leaf([1.0]) * 2
    with pytest.raises(
        RuntimeError,
        match=r"^you can only change requires_grad flags of leaf variables\. "
        r"Use \.detach\(\)",
    ):
        y.requires_grad_(False)


# --- conversions --------------------------------------------------------------------------------


@pytest.mark.parametrize("method, dtype", [("float", "float32"), ("double", "float64"), ("long", "int64")])
def test_cast_methods(method, dtype):
    out = getattr(gs.tensor([1.7, -2.2]), method)()
    expected = getattr(torch.tensor([1.7, -2.2]), method)()
    assert str(out.dtype).split(".")[-1] == dtype
    np.testing.assert_array_equal(out.cpu().numpy(), expected.cpu().numpy())


def test_to_dtype_passes_grad_back_in_the_source_dtype():
    x = leaf([1.0, 2.0])
    y = x.to(gs.float64)
    assert y.dtype == gs.float64
    (y * y).sum().backward()
    assert x.grad.dtype == gs.float32
    np.testing.assert_array_equal(x.grad.cpu().numpy(), [2.0, 4.0])


def test_double_then_float_round_trip_keeps_grad():
    x = leaf([1.5])
    (x.double().float() * 2).sum().backward()
    np.testing.assert_array_equal(x.grad.cpu().numpy(), [2.0])


def test_to_cpu_and_cpu_keep_a_cpu_tensor():
    x = gs.tensor([1.0], device="cpu")
    assert str(x.device) == "cpu"
    assert str(x.to("cpu").device) == "cpu" and str(x.cpu().device) == "cpu"
    np.testing.assert_array_equal(x.to("cpu").cpu().numpy(), [1.0])


def test_item_returns_python_number():
    assert gs.tensor(2.5).item() == 2.5 and type(gs.tensor(2.5).item()) is float
    assert gs.tensor([7]).item() == 7 and type(gs.tensor([7]).item()) is int
    assert type(gs.tensor(True).item()) is bool


def test_item_of_many_elements_raises():
    with pytest.raises(
        RuntimeError,
        match=r"^a Tensor with 2 elements cannot be converted to Scalar; "
        r"item\(\) needs exactly one element$",
    ):
        gs.tensor([1.0, 2.0]).item()


def test_tolist_returns_nested_python_lists():
    assert gs.tensor([[1, 2], [3, 4]]).tolist() == [[1, 2], [3, 4]]
    assert gs.tensor([[1.5], [2.5]]).tolist() == [[1.5], [2.5]]
    assert gs.tensor(3.0).tolist() == 3.0


@pytest.mark.cpu_only  # .numpy() of a CPU tensor; other devices raise (tests/engine/test_devices.py)
def test_numpy_returns_array_of_same_dtype():
    arr = gs.tensor([[1.0, 2.0]], dtype=gs.float64).numpy()
    assert isinstance(arr, np.ndarray) and arr.dtype == np.float64 and arr.shape == (1, 2)


@pytest.mark.cpu_only  # .numpy() of a CPU tensor
def test_numpy_on_tensor_requiring_grad_raises():
    with pytest.raises(
        RuntimeError,
        match=r"^Can't call numpy\(\) on Tensor that requires grad\. "
        r"Use tensor\.detach\(\)\.numpy\(\) instead\.$",
    ):
        leaf([1.0]).numpy()


def test_size_shape_numel_dim():
    x = gs.zeros(2, 3, 4)
    assert x.shape == (2, 3, 4) and isinstance(x.shape, tuple)
    assert x.size() == (2, 3, 4) and x.size(1) == 3 and x.size(-1) == 4
    assert x.numel() == 24 and x.dim() == 3 and x.ndim == 3
    assert gs.tensor(1.0).shape == () and gs.tensor(1.0).numel() == 1


def test_len_of_tensor_is_first_dim():
    assert len(gs.zeros(5, 2)) == 5


def test_is_leaf_rules():
    x = leaf([1.0])
    assert x.is_leaf and (x * 2).is_leaf is False
    assert gs.tensor([1.0]).is_leaf


def test_repr_of_leaf_shows_values_and_requires_grad():
    text = repr(leaf([1.5, -2.25]))
    assert "1.5" in text and "-2.25" in text
    assert "requires_grad=True" in text


def test_repr_of_non_leaf_shows_grad_fn():
    text = repr(leaf([1.5, -2.25]) * 2)
    assert "3." in text and "-4.5" in text
    assert "grad_fn=<MulBackward0>" in text


def test_repr_of_plain_tensor_has_no_autograd_info():
    text = repr(gs.tensor([1, 2, 3]))
    assert "1" in text and "3" in text
    assert "requires_grad" not in text and "grad_fn" not in text


def test_tensor_is_weak_referenceable():
    import weakref

    x = leaf([1.0])
    y = x * 2
    assert weakref.ref(x)() is x
    assert weakref.ref(y.grad_fn)() is y.grad_fn


def test_grads_flow_to_the_value_a_node_used_before_an_inplace_change():
    # z uses y before y.mul_(3); its grad must reach x through the old y (as PyTorch), not
    # through the in-place node that y has since.
    results = []
    for lib in (gs, torch):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        z = y + 1
        y.mul_(3)
        (z.sum() + (y * 1.0).sum()).backward()
        results.append(x.grad.tolist())
    assert results[0] == results[1] == [8.0, 8.0]


def test_var_and_std_with_no_degrees_of_freedom_give_nan_grads_not_an_exception():
    for op in ("var", "std"):
        x = gs.tensor([2.0], requires_grad=True)
        getattr(x, op)().backward()  # one element, correction 1: torch gives nan too
        assert np.isnan(x.grad.tolist()[0]), op

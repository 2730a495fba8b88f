"""Module: registration, names, state_dict, modes, conversion, hooks and containers, as torch.nn.Module."""

import copy

import numpy as np
import pytest
import torch
import torch.nn as tnn

import graphscope as gs
from graphscope.engine import nn
from tests.engine.torch_reference import TOLERANCE


def build_net(lib):
    """The same nested architecture in graphscope and in torch."""

    class Block(lib.Module):
        def __init__(self):
            super().__init__()
            self.fc = lib.Linear(4, 4)
            self.norm = lib.LayerNorm(4)

        def forward(self, x):
            return self.norm(self.fc(x)).relu()

    class Net(lib.Module):
        def __init__(self):
            super().__init__()
            self.embed = lib.Linear(3, 4)
            self.layers = lib.ModuleList([Block(), Block()])
            self.heads = lib.ModuleDict({"a": lib.Linear(4, 2), "b": lib.Sequential(lib.Linear(4, 2), lib.Tanh())})
            self.scale = lib.Parameter(gs.ones(1) if lib is nn else torch.ones(1))
            self.plain_list = [lib.Linear(2, 2)]  # a plain list: not registered, as in PyTorch

        def forward(self, x):
            x = self.embed(x)
            for layer in self.layers:
                x = layer(x)
            return self.heads["a"](x) * self.scale + self.heads["b"](x)

    return Net()


def test_named_parameters_equal_torch_names():
    assert [n for n, _ in build_net(nn).named_parameters()] == [n for n, _ in build_net(tnn).named_parameters()]


def test_named_modules_and_children_equal_torch_names():
    gs_net, torch_net = build_net(nn), build_net(tnn)
    assert [n for n, _ in gs_net.named_modules()] == [n for n, _ in torch_net.named_modules()]
    assert [n for n, _ in gs_net.named_children()] == [n for n, _ in torch_net.named_children()]


def test_state_dict_keys_equal_torch_keys():
    assert list(build_net(nn).state_dict()) == list(build_net(tnn).state_dict())


def test_parameters_are_leaf_tensors_that_require_grad():
    for p in build_net(nn).parameters():
        assert isinstance(p, nn.Parameter) and isinstance(p, gs.Tensor)
        assert p.is_leaf and p.requires_grad


def test_parameter_without_grad():
    p = nn.Parameter(gs.zeros(3), requires_grad=False)
    assert not p.requires_grad and p.is_leaf


def test_shared_parameters_are_listed_once():
    lin = nn.Linear(2, 2)
    model = nn.Sequential(lin, nn.ReLU(), lin)
    assert [n for n, _ in model.named_parameters()] == ["0.weight", "0.bias"]
    assert len(list(model.state_dict())) == 4  # state_dict keeps every path, as PyTorch


def test_copied_weights_give_torch_outputs():
    gs_net, torch_net = build_net(nn), build_net(tnn)
    gs_net.load_state_dict(torch_net.state_dict())
    x = np.random.default_rng(0).standard_normal((5, 3)).astype(np.float32)
    np.testing.assert_allclose(
        gs_net(gs.tensor(x)).detach().cpu().numpy(),
        torch_net(torch.tensor(x)).detach().cpu().numpy(),
        rtol=1e-5,
        atol=1e-6,
    )


def test_state_dict_round_trip_restores_outputs():
    a, b = build_net(nn), build_net(nn)
    x = gs.randn(4, 3)
    assert not np.allclose(a(x).detach().cpu().numpy(), b(x).detach().cpu().numpy())
    result = b.load_state_dict(a.state_dict())
    assert result.missing_keys == [] and result.unexpected_keys == []
    np.testing.assert_array_equal(a(x).detach().cpu().numpy(), b(x).detach().cpu().numpy())


def test_state_dict_holds_detached_tensors_sharing_storage():
    model = nn.Linear(2, 3)
    state = model.state_dict()
    assert not state["weight"].requires_grad
    state["weight"].data.fill_(5.0)  # the same storage: the change shows through the parameter
    assert model.weight.detach().cpu().numpy().tolist() == [[5.0, 5.0]] * 3


def test_load_state_dict_copies_in_place_and_keeps_parameter_identity():
    model = nn.Linear(2, 3)
    weight = model.weight
    model.load_state_dict({"weight": np.ones((3, 2)), "bias": np.zeros(3)})
    assert model.weight is weight
    assert weight.dtype == gs.float32
    np.testing.assert_array_equal(weight.detach().cpu().numpy(), np.ones((3, 2), np.float32))


def test_load_state_dict_strict_lists_missing_and_unexpected_keys():
    model = nn.Sequential(nn.Linear(2, 3), nn.Linear(3, 1))
    state = model.state_dict()
    del state["1.bias"]
    state["2.weight"] = gs.zeros(1)
    before = model[0].weight.detach().cpu().numpy().copy()
    state["0.weight"] = gs.zeros(3, 2)
    with pytest.raises(RuntimeError) as info:
        model.load_state_dict(state)
    message = str(info.value)
    assert "Error(s) in loading state_dict for Sequential" in message
    assert 'Missing key(s) in state_dict: "1.bias"' in message
    assert 'Unexpected key(s) in state_dict: "2.weight"' in message
    np.testing.assert_array_equal(model[0].weight.detach().cpu().numpy(), before)  # nothing changed


def test_load_state_dict_non_strict_reports_the_keys():
    model = nn.Sequential(nn.Linear(2, 3), nn.Linear(3, 1))
    state = model.state_dict()
    del state["1.bias"]
    state["extra"] = gs.zeros(1)
    result = model.load_state_dict(state, strict=False)
    assert result.missing_keys == ["1.bias"] and result.unexpected_keys == ["extra"]


def test_load_state_dict_size_mismatch_names_key_and_shapes():
    model = nn.Linear(2, 3)
    with pytest.raises(RuntimeError, match=r"size mismatch for weight: .*\(4, 2\).*\(3, 2\)"):
        model.load_state_dict({"weight": gs.zeros(4, 2), "bias": gs.zeros(3)})


def test_zero_grad_sets_to_none_or_zero():
    model = nn.Linear(3, 2)
    model(gs.randn(4, 3)).sum().backward()
    assert all(p.grad is not None for p in model.parameters())
    model.zero_grad(set_to_none=False)
    assert all(np.all(p.grad.cpu().numpy() == 0) for p in model.parameters())
    model.zero_grad()
    assert all(p.grad is None for p in model.parameters())


def test_grads_accumulate_until_zeroed():
    model = nn.Linear(3, 1)
    x = gs.randn(4, 3)
    model(x).sum().backward()
    once = model.weight.grad.cpu().numpy().copy()
    model(x).sum().backward()
    np.testing.assert_allclose(model.weight.grad.cpu().numpy(), 2 * once, rtol=1e-6)


def test_train_and_eval_reach_every_submodule():
    model = build_net(nn)
    assert model.training and model.eval() is model
    assert not any(m.training for m in model.modules())
    model.train()
    assert all(m.training for m in model.modules())


def test_to_float64_converts_parameters_in_place():
    model = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
    weight = model[0].weight
    assert model.to(gs.float64) is model
    assert model[0].weight is weight and weight.dtype == gs.float64
    assert model(gs.randn(4, 2, dtype=gs.float64)).dtype == gs.float64
    model.float()
    assert weight.dtype == gs.float32


def test_to_rejects_integer_dtypes():
    with pytest.raises(TypeError, match="floating point"):
        nn.Linear(2, 2).to(gs.int64)


def test_requires_grad_false_freezes_parameters():
    model = nn.Linear(2, 2).requires_grad_(False)
    assert not model.weight.requires_grad
    assert not model(gs.randn(3, 2)).requires_grad


def test_assigning_a_plain_tensor_to_a_parameter_name_is_refused():
    model = nn.Linear(2, 2)
    with pytest.raises(TypeError, match=r"cannot assign .* as parameter 'weight'"):
        model.weight = gs.zeros(2, 2)


def test_assigning_before_init_is_refused():
    class Broken(nn.Module):
        def __init__(self):
            self.fc = nn.Linear(2, 2)

    with pytest.raises(AttributeError, match=r"before Module\.__init__"):
        Broken()


def test_missing_forward_says_so():
    with pytest.raises(NotImplementedError, match='missing the required "forward"'):
        nn.Module()(gs.ones(1))


def test_attribute_deletion_unregisters():
    model = nn.Linear(2, 2)
    del model.bias
    assert [n for n, _ in model.named_parameters()] == ["weight"]


def test_buffers_are_in_state_dict_unless_not_persistent():
    model = nn.Linear(2, 2)
    model.register_buffer("running", gs.zeros(2))
    model.register_buffer("scratch", gs.zeros(2), persistent=False)
    assert list(model.state_dict()) == ["weight", "bias", "running"]
    assert [n for n, _ in model.named_buffers()] == ["running", "scratch"]


def test_get_submodule_and_parameter():
    model = build_net(nn)
    assert model.get_submodule("layers.1.fc") is model.layers[1].fc
    assert model.get_parameter("heads.b.0.bias") is model.heads["b"][0].bias
    with pytest.raises(AttributeError, match="no submodule `nope`"):
        model.get_submodule("layers.nope")


def test_deepcopy_makes_independent_parameters():
    model = nn.Linear(2, 2)
    clone = copy.deepcopy(model)
    assert clone.weight is not model.weight
    np.testing.assert_array_equal(clone.weight.detach().cpu().numpy(), model.weight.detach().cpu().numpy())
    nn.init.zeros_(clone.weight)
    assert not np.all(model.weight.detach().cpu().numpy() == 0)


def test_apply_visits_children_first():
    seen = []
    nn.Sequential(nn.Linear(1, 1), nn.ReLU()).apply(lambda m: seen.append(type(m).__name__))
    assert seen == ["Linear", "ReLU", "Sequential"]


# --- hooks ------------------------------------------------------------------------------------


def test_forward_pre_hook_can_replace_the_input():
    layer = nn.Identity()
    handle = layer.register_forward_pre_hook(lambda module, args: (args[0] * 2,))
    assert layer(gs.tensor([1.0])).item() == 2.0
    handle.remove()
    assert layer(gs.tensor([1.0])).item() == 1.0


def test_forward_hook_sees_input_and_output_and_can_replace_output():
    layer = nn.Linear(2, 1)
    seen = []

    def hook(module, args, output):
        seen.append((module, args[0].shape, output.shape))
        return output + 100

    layer.register_forward_hook(hook)
    out = layer(gs.zeros(3, 2))
    assert seen == [(layer, (3, 2), (3, 1))]
    assert np.all(out.detach().cpu().numpy() >= 99)


def test_full_backward_hook_grads_match_torch():
    torch.manual_seed(0)  # the same layer every run
    gs_layer, torch_layer = nn.Linear(3, 2), tnn.Linear(3, 2)
    gs_layer.load_state_dict(torch_layer.state_dict())
    got, expected = [], []
    gs_layer.register_full_backward_hook(lambda m, gi, go: got.append((gi, go)))
    torch_layer.register_full_backward_hook(lambda m, gi, go: expected.append((gi, go)))
    x = np.random.default_rng(0).standard_normal((4, 3)).astype(np.float32)
    (gs_layer(gs.tensor(x, requires_grad=True)) ** 2).sum().backward()
    (torch_layer(torch.tensor(x, requires_grad=True)) ** 2).sum().backward()
    assert len(got) == len(expected) == 1
    (gi, go), (tgi, tgo) = got[0], expected[0]
    # float32 sums in another order than torch's: an element near 0 differs by a few ulps of the
    # terms it cancels, so an absolute floor is needed (the oracle's float32 tolerance).
    np.testing.assert_allclose(gi[0].cpu().numpy(), tgi[0].cpu().numpy(), **TOLERANCE["float32"])
    np.testing.assert_allclose(go[0].cpu().numpy(), tgo[0].cpu().numpy(), **TOLERANCE["float32"])


def test_full_backward_hook_can_replace_grad_input():
    layer = nn.Linear(3, 2)
    layer.register_full_backward_hook(lambda m, gi, go: (gi[0] * 0,))
    x = gs.randn(4, 3, requires_grad=True)
    layer(x).sum().backward()
    assert np.all(x.grad.cpu().numpy() == 0)
    assert layer.weight.grad is not None


def test_full_backward_hook_on_first_layer_gets_none_grad_input():
    layer = nn.Linear(3, 2)
    got = []
    layer.register_full_backward_hook(lambda m, gi, go: got.append((gi, go)))
    layer(gs.randn(4, 3)).sum().backward()
    assert got[0][0] == (None,) and got[0][1][0].shape == (4, 2)


# --- containers -------------------------------------------------------------------------------


def test_sequential_is_indexable_sliceable_and_iterable():
    model = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
    assert len(model) == 3 and isinstance(model[1], nn.ReLU) and isinstance(model[-1], nn.Linear)
    head = model[:2]
    assert isinstance(head, nn.Sequential) and len(head) == 2 and head[0] is model[0]
    assert [type(m).__name__ for m in model] == ["Linear", "ReLU", "Linear"]
    assert model(gs.randn(5, 2)).shape == (5, 1)
    with pytest.raises(IndexError, match=r"^index 3 is out of range for a Sequential of length 3$"):
        model[3]


def test_sequential_from_ordered_dict_uses_its_names():
    from collections import OrderedDict

    model = nn.Sequential(OrderedDict([("fc", nn.Linear(2, 2)), ("act", nn.ReLU())]))
    assert [n for n, _ in model.named_parameters()] == ["fc.weight", "fc.bias"]
    assert model.fc is model[0]


def test_sequential_append_and_delete_renumber():
    model = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
    model.append(nn.Linear(2, 1))
    del model[0]
    assert list(model._modules) == ["0", "1"]
    assert [n for n, _ in model.named_parameters()] == ["1.weight", "1.bias"]


def test_module_list_registers_appended_modules():
    layers = nn.ModuleList([nn.Linear(2, 2)])
    layers.append(nn.Linear(2, 2))
    layers.extend([nn.Linear(2, 2)])
    layers.insert(0, nn.ReLU())
    assert len(layers) == 4 and isinstance(layers[0], nn.ReLU)
    assert [n for n, _ in layers.named_parameters()][:2] == ["1.weight", "1.bias"]
    assert isinstance(layers[1:], nn.ModuleList)


def test_module_dict_behaves_like_a_dict():
    heads = nn.ModuleDict({"a": nn.Linear(2, 1)})
    heads["b"] = nn.Linear(2, 3)
    assert list(heads) == ["a", "b"] and "b" in heads and len(heads) == 2
    assert [n for n, _ in heads.named_parameters()] == ["a.weight", "a.bias", "b.weight", "b.bias"]
    del heads["a"]
    assert list(heads.keys()) == ["b"]

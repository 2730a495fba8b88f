"""grad_fn nodes show scripts torch 2.13's names and edges (MseLossBackward0, AddmmBackward0 over
the weight's TBackward0, SelectBackward0, AccumulateGrad), while the record keeps the engine's own."""

import re

import numpy as np
import pytest
import torch

import graphscope as gs
from graphscope.engine import hooks
from graphscope.trace.recording.recorder import Recorder

ARRAY = np.random.default_rng(27).standard_normal((3, 4)).astype(np.float32)


def leaf(lib, array=ARRAY):
    return lib.from_numpy(array.copy()).requires_grad_()


def ints(lib, values):
    return lib.tensor(values)


def setitem(lib, x):
    y = x * 1
    y[0] = 1.0
    return y


# name -> what each library makes from a (3, 4) leaf that requires grad
EXPRESSIONS = {
    "x + 1": lambda L, x: x + 1,
    "1 + x": lambda L, x: 1 + x,
    "x - 1": lambda L, x: x - 1,
    "1 - x": lambda L, x: 1 - x,
    "x - x * 2": lambda L, x: x - x * 2,
    "x * 2": lambda L, x: x * 2,
    "x / 2": lambda L, x: x / 2,
    "2 / x": lambda L, x: 2 / x,
    "x ** 2": lambda L, x: x**2,
    "x ** x": lambda L, x: x**x,
    "2 ** x": lambda L, x: 2**x,
    "-x": lambda L, x: -x,
    "exp": lambda L, x: x.exp(),
    "log1p": lambda L, x: x.abs().log1p(),
    "relu": lambda L, x: L.nn.functional.relu(x),
    "sigmoid": lambda L, x: L.sigmoid(x),
    "tanh": lambda L, x: x.tanh(),
    "clamp(0, 1)": lambda L, x: x.clamp(0, 1),
    "clamp(min=0)": lambda L, x: x.clamp(min=0),
    "sum()": lambda L, x: x.sum(),
    "sum(0)": lambda L, x: x.sum(0),
    "sum(1, keepdim)": lambda L, x: x.sum(1, keepdim=True),
    "mean()": lambda L, x: x.mean(),
    "mean(1)": lambda L, x: x.mean(1),
    "prod()": lambda L, x: x.prod(),
    "prod(0)": lambda L, x: x.prod(0),
    "max()": lambda L, x: x.max(),
    "max(1)": lambda L, x: x.max(1)[0],
    "min()": lambda L, x: x.min(),
    "min(0)": lambda L, x: x.min(0).values,
    "norm": lambda L, x: x.norm(),
    "logsumexp": lambda L, x: x.logsumexp(1),
    "softmax": lambda L, x: x.softmax(1),
    "log_softmax": lambda L, x: L.nn.functional.log_softmax(x, dim=1),
    "view": lambda L, x: x.view(-1),
    "reshape": lambda L, x: x.reshape(4, 3),
    "flatten": lambda L, x: x.unsqueeze(0).flatten(1),
    "unsqueeze": lambda L, x: x.unsqueeze(0),
    "squeeze()": lambda L, x: x.unsqueeze(0).squeeze(),
    "transpose": lambda L, x: x.transpose(0, 1),
    "T": lambda L, x: x.T,
    "permute": lambda L, x: x.permute(1, 0),
    "expand": lambda L, x: x[:1].expand(3, 4),
    "cat": lambda L, x: L.cat([x, x]),
    "stack": lambda L, x: L.stack([x, x]),
    "x[0]": lambda L, x: x[0],
    "x[-1]": lambda L, x: x[-1],
    "x[0, 1]": lambda L, x: x[0, 1],
    "x[:, 0]": lambda L, x: x[:, 0],
    "x[..., 0]": lambda L, x: x[..., 0],
    "x[1:]": lambda L, x: x[1:],
    "x[:]": lambda L, x: x[:],
    "x[:, 1:]": lambda L, x: x[:, 1:],
    "x[::2]": lambda L, x: x[::2],
    "x[0, 1:]": lambda L, x: x[0, 1:],
    "x[None]": lambda L, x: x[None],
    "x[:, None]": lambda L, x: x[:, None],
    "x[None, 0]": lambda L, x: x[None, 0],
    "x[...]": lambda L, x: x[...],
    "x[[0, 1]]": lambda L, x: x[[0, 1]],
    "x[tensor([0, 2])]": lambda L, x: x[ints(L, [0, 2])],
    "x[tensor(1)]": lambda L, x: x[ints(L, 1)],
    "x[x > 0]": lambda L, x: x[x > 0],
    "x[0, [0, 1]]": lambda L, x: x[0, [0, 1]],
    "x @ x.T": lambda L, x: x @ x.T,
    "mm": lambda L, x: L.mm(x, x.T),
    "x @ x[0]": lambda L, x: x @ x[0],
    "x[0] @ x": lambda L, x: x[0] @ x.T,
    "dot": lambda L, x: x[0] @ x[0],
    "batched @": lambda L, x: x.unsqueeze(0) @ x.T.unsqueeze(0),
    "linear, 2-d": lambda L, x: L.nn.functional.linear(x, x, x[0, :3]),
    "linear, 2-d, no bias": lambda L, x: L.nn.functional.linear(x, x),
    "linear, 1-d": lambda L, x: L.nn.functional.linear(x[0], x, x[0, :3]),
    "linear, 1-d, no bias": lambda L, x: L.nn.functional.linear(x[0], x),
    "linear, 3-d": lambda L, x: L.nn.functional.linear(x.unsqueeze(0), x, x[0, :3]),
    "linear, 3-d, no bias": lambda L, x: L.nn.functional.linear(x.unsqueeze(0), x),
    "mse_loss": lambda L, x: L.nn.functional.mse_loss(x, x.detach() * 2),
    "mse_loss sum": lambda L, x: L.nn.functional.mse_loss(x, x.detach() * 2, reduction="sum"),
    "cross_entropy": lambda L, x: L.nn.functional.cross_entropy(x, ints(L, [0, 1, 2])),
    "cross_entropy none": lambda L, x: L.nn.functional.cross_entropy(x, ints(L, [0, 1, 2]), reduction="none"),
    "cross_entropy smoothed": lambda L, x: L.nn.functional.cross_entropy(x, ints(L, [0, 1, 2]), label_smoothing=0.1),
    "cross_entropy 3-d": lambda L, x: L.nn.functional.cross_entropy(x.unsqueeze(0), ints(L, [[0, 1, 2, 0]])),
    "nll_loss": lambda L, x: L.nn.functional.nll_loss(x, ints(L, [0, 1, 2])),
    "l1_loss": lambda L, x: L.nn.functional.l1_loss(x, x.detach() * 2),
    "smooth_l1_loss": lambda L, x: L.nn.functional.smooth_l1_loss(x, x.detach() * 2),
    "huber_loss": lambda L, x: L.nn.functional.huber_loss(x, x.detach() * 2),
    "kl_div batchmean": lambda L, x: L.nn.functional.kl_div(x, x.detach(), reduction="batchmean"),
    "kl_div sum": lambda L, x: L.nn.functional.kl_div(x, x.detach(), reduction="sum"),
    "kl_div none": lambda L, x: L.nn.functional.kl_div(x, x.detach(), reduction="none"),
    "binary_cross_entropy": lambda L, x: L.nn.functional.binary_cross_entropy(x.sigmoid(), x.detach().sigmoid()),
    "bce with logits": lambda L, x: L.nn.functional.binary_cross_entropy_with_logits(x, x.detach().sigmoid()),
    "gelu": lambda L, x: L.nn.functional.gelu(x),
    "leaky_relu": lambda L, x: L.nn.functional.leaky_relu(x),
    "dropout": lambda L, x: L.nn.functional.dropout(x, 0.5),
    "layer_norm": lambda L, x: L.nn.functional.layer_norm(x, (4,)),
    "batch_norm": lambda L, x: L.nn.functional.batch_norm(x, None, None, training=True),
    "double": lambda L, x: x.double(),
    "to(float64)": lambda L, x: x.to(L.float64),
    "pad": lambda L, x: L.nn.functional.pad(x, (1, 1)),
    "max_pool2d": lambda L, x: L.nn.functional.max_pool2d(x[None, None], 2),
    "avg_pool2d": lambda L, x: L.nn.functional.avg_pool2d(x[None, None], 2),
    "embedding": lambda L, x: L.nn.functional.embedding(ints(L, [0, 2]), x),
    "chunk": lambda L, x: x.chunk(2, 1)[0],
    "split": lambda L, x: x.split(2, 1)[1],
    "where": lambda L, x: L.where(x > 0, x, x * 2),
    "masked_fill": lambda L, x: x.masked_fill(x > 0, 0.0),
    "maximum": lambda L, x: L.maximum(x, x * 2),
    "cumsum": lambda L, x: x.cumsum(0),
    "tril": lambda L, x: x.tril(),
    "gather": lambda L, x: x.gather(1, ints(L, [[0], [1], [2]])),
    "sort": lambda L, x: x.sort(1)[0],
    "topk": lambda L, x: x.topk(2)[0],
    "clone": lambda L, x: x.clone(),
    "setitem": setitem,
    "add_": lambda L, x: (x * 1).add_(1),
}


@pytest.mark.parametrize("name", EXPRESSIONS)
def test_grad_fn_names_are_torchs(name):
    make = EXPRESSIONS[name]
    ours, theirs = make(gs, leaf(gs)).grad_fn, make(torch, leaf(torch)).grad_fn
    assert ours.name() == theirs.name()


def blitz_loss(lib):
    """The 60-minute blitz's network and MSE loss (torch's tutorial, neural_networks_tutorial.py)."""
    nn, F = lib.nn, lib.nn.functional

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 6, 5)
            self.conv2 = nn.Conv2d(6, 16, 5)
            self.fc1 = nn.Linear(16 * 5 * 5, 120)
            self.fc2 = nn.Linear(120, 84)
            self.fc3 = nn.Linear(84, 10)

        def forward(self, x):
            x = F.max_pool2d(F.relu(self.conv1(x)), (2, 2))
            x = F.max_pool2d(F.relu(self.conv2(x)), 2)
            x = lib.flatten(x, 1)
            x = F.relu(self.fc1(x))
            x = F.relu(self.fc2(x))
            return self.fc3(x)

    output = Net()(lib.randn(1, 1, 32, 32))
    return nn.MSELoss()(output, lib.randn(10).view(1, -1))


def structure(node):
    """The graph below a grad_fn as nested (name, children)."""
    if node is None:
        return None
    return node.name(), tuple(structure(child) for child, _ in node.next_functions)


def test_the_blitz_tutorials_graph_is_torchs_node_for_node():
    assert structure(blitz_loss(gs).grad_fn) == structure(blitz_loss(torch).grad_fn)


def test_the_blitz_tutorials_prints_are_torchs():
    printed = []
    for lib in (gs, torch):
        loss = blitz_loss(lib)
        below = loss.grad_fn.next_functions[0][0]
        shown = [loss.grad_fn, below, below.next_functions[0][0]]
        printed.append([re.sub(r"0x[0-9a-f]+", "0x", repr(node)) for node in shown])
    assert (
        printed[0]
        == printed[1]
        == [
            "<MseLossBackward0 object at 0x>",
            "<AddmmBackward0 object at 0x>",
            "<AccumulateGrad object at 0x>",
        ]
    )


def test_a_linear_layers_edges_are_bias_input_and_the_weights_transpose():
    for lib in (gs, torch):
        layer = lib.nn.Linear(4, 2)
        x = leaf(lib)
        bias, data, transposed = layer(x).grad_fn.next_functions
        assert bias[0].variable is layer.bias and data[0].variable is x
        assert transposed[0].name() == type(transposed[0]).__name__ == "TBackward0"
        assert transposed[0].next_functions[0][0].variable is layer.weight
        assert bias[0].name() == data[0].name() == "torch::autograd::AccumulateGrad"
        layer.weight.requires_grad_(False)
        assert layer(x).grad_fn.next_functions[2] == (None, 0)


def test_a_tensor_prints_torchs_grad_fn_name_before_and_after_backward():
    for lib in (gs, torch):
        x = leaf(lib)
        loss = lib.nn.functional.mse_loss(lib.nn.functional.linear(x, x, x[0, :3]), x.detach()[:, :3])
        assert "grad_fn=<MseLossBackward0>" in repr(loss)
        loss.backward()
        assert repr(loss).endswith("grad_fn=<MseLossBackward0>)") and loss.grad_fn.name() == "MseLossBackward0"
        assert repr(setitem(lib, x)).endswith("grad_fn=<CopySlices>)")


def test_the_record_keeps_the_engines_own_names():
    x = leaf(gs)

    def run():
        out = gs.nn.functional.linear(x, x, x[0, :3])
        gs.nn.functional.mse_loss(out, out.detach() * 2).backward()

    recorder = Recorder(None)
    with hooks.observe(recorder):
        run()
    names = {node.op: node.name for node in recorder.finish().nodes.values()}
    assert names["linear"] == "LinearBackward0" and names["mse_loss"] == "MSELossBackward0"
    assert names["index"] == "GetItemBackward0"


def quickstart_loss(lib):
    """The quickstart tutorial's shape of model: flatten, linear layers, relu, dropout, cross-entropy."""
    nn = lib.nn
    model = nn.Sequential(nn.Flatten(), nn.Linear(12, 5), nn.ReLU(), nn.Dropout(0.2), nn.Linear(5, 3))
    return nn.CrossEntropyLoss()(model(lib.ones(2, 3, 4)), lib.tensor([0, 2]))


# name -> a graph each library builds (the leaves made inside, so that both see the same ones)
GRAPHS = {
    "quickstart": quickstart_loss,
    "linear on a vector": lambda L: L.nn.Linear(3, 2)(L.ones(3, requires_grad=True)).sum(),
    "linear on a vector, no bias": lambda L: L.nn.Linear(3, 2, bias=False)(L.ones(3, requires_grad=True)).sum(),
    "linear on a batch of sequences": lambda L: L.nn.Linear(3, 2)(L.ones(2, 4, 3, requires_grad=True)).sum(),
    "linear, no bias, on sequences": lambda L: L.nn.Linear(3, 2, bias=False)(L.ones(2, 4, 3)).sum(),
    "cross_entropy over a sequence": lambda L: L.nn.functional.cross_entropy(
        L.ones(2, 3, 4, requires_grad=True), L.zeros(2, 4).long()
    ),
    "nll_loss with weights": lambda L: L.nn.functional.nll_loss(
        L.ones(2, 3, requires_grad=True).log_softmax(1), L.tensor([0, 2]), weight=L.ones(3)
    ),
    "l1_loss": lambda L: L.nn.functional.l1_loss((x := L.ones(2, 3, requires_grad=True)), x * 2),
    "embedding": lambda L: L.nn.Embedding(5, 3, padding_idx=0)(L.tensor([1, 2])).sum(),
    "bce with weights": lambda L: L.nn.functional.binary_cross_entropy(
        L.ones(3, requires_grad=True).sigmoid(), L.ones(3) / 2, weight=L.ones(3)
    ),
    "numbers in arithmetic": lambda L: (
        (x := L.ones(2, requires_grad=True)) + 1 + (1 + x) + (x - 1) + (1 - x) + x * 2 + 2 * x + x / 2 + 2 / x
    ).sum(),
    "numbers in where": lambda L: (
        L.where((x := L.ones(2, requires_grad=True)) > 0, 0.0, x) + L.where(x > 0, x, 0.0) + L.where(x > 0, x, x * 2)
    ).sum(),
    "powers": lambda L: ((x := L.ones(2, requires_grad=True)) ** 2 + 2**x + x**x).sum(),
}


@pytest.mark.parametrize("name", GRAPHS)
def test_graphs_are_torchs_node_for_node(name):
    build = GRAPHS[name]
    assert structure(build(gs).grad_fn) == structure(build(torch).grad_fn)

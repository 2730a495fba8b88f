"""One time step of RNN, LSTM and GRU, and checks with torch's messages: shared by the layers and cells."""

from __future__ import annotations

from ..ops.indexing import narrow
from ..tensor import Tensor
from . import functional_ops as P

GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}
LAYER_NAME = {"RNN_TANH": "RNN", "RNN_RELU": "RNN", "LSTM": "LSTM", "GRU": "GRU"}
TORCH_SCALAR_NAME = {"float64": "Double", "float32": "Float", "float16": "Half"}  # as in torch's messages


def project(x, weight, bias=None):
    return P.Linear.apply(x, weight) if bias is None else P.Linear.apply(x, weight, bias)


def time_steps(sequence, leaf=4):
    """[sequence[0], sequence[1], ...], sliced through halves so backward costs O(T log T), not O(T^2).

    Each slice's backward makes a zero array the size of what it slices; T slices of the whole
    sequence would sum T full-size grads, which dominates a step at a few hundred time steps.
    """
    length = sequence.shape[0]
    if length <= leaf:
        return [sequence[t] for t in range(length)]
    half = length // 2
    return time_steps(narrow(sequence, 0, 0, half), leaf) + time_steps(narrow(sequence, 0, half, length - half), leaf)


# --- one time step ------------------------------------------------------------------------------
# x_proj is this step's x @ W_ih.T + b_ih; the equations and their order are torch's (RNN.cpp).


def rnn_tanh_step(x_proj, h, w_hh, b_hh):
    """h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)."""
    return (recurrent_project(h, w_hh, b_hh) + x_proj).tanh()


def rnn_relu_step(x_proj, h, w_hh, b_hh):
    """h' = relu(x W_ih^T + b_ih + h W_hh^T + b_hh)."""
    return (recurrent_project(h, w_hh, b_hh) + x_proj).relu()


def recurrent_project(h, w_hh, b_hh):
    """h @ W_hh^T + b_hh, whose weight grad the backward walk sums over the time steps as one product."""
    out = project(h, w_hh, b_hh)
    if out.grad_fn is not None:
        out.grad_fn.outer_weight_grad = True
    return out


def lstm_step(x_proj, state, w_hh, b_hh, w_hr=None):
    """Gates i, f, g, o; c' = f * c + i * g; h' = o * tanh(c') (then h' W_hr^T with a projection)."""
    h, c = state
    i, f, g, o = (recurrent_project(h, w_hh, b_hh) + x_proj).chunk(4, 1)
    c = f.sigmoid() * c + i.sigmoid() * g.tanh()
    h = o.sigmoid() * c.tanh()
    if w_hr is not None:
        h = project(h, w_hr)
    return h, c


def gru_step(x_proj, h, w_hh, b_hh):
    """r, z = sigmoid(...); n = tanh(x_n + r * (h W_hn^T + b_hn)); h' = (h - n) * z + n."""
    h_r, h_z, h_n = recurrent_project(h, w_hh, b_hh).chunk(3, 1)
    x_r, x_z, x_n = x_proj.chunk(3, 1)
    r = (h_r + x_r).sigmoid()
    z = (h_z + x_z).sigmoid()
    n = (x_n + h_n * r).tanh()
    return (h - n) * z + n


STEPS = {"RNN_TANH": rnn_tanh_step, "RNN_RELU": rnn_relu_step, "LSTM": lstm_step, "GRU": gru_step}


# --- checks, with torch's messages --------------------------------------------------------------


def check_tensor(value, what):
    if not isinstance(value, Tensor):
        raise TypeError(f"{what} must be a Tensor, got {type(value).__name__}")


def check_same_dtype(x, weight):
    """torch's error for an input or state whose dtype differs from the weights'."""
    if x.dtype is not weight.dtype:
        names = [TORCH_SCALAR_NAME.get(d.name, d.name) for d in (x.dtype, weight.dtype)]
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {names[0]} and {names[1]}")


def check_size(tensor, expected, message):
    if tuple(tensor.shape) != expected:
        raise RuntimeError(message.format(expected, list(tensor.shape)))

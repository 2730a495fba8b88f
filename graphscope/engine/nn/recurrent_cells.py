"""RNNCell, LSTMCell and GRUCell: one time step as a module, with torch's parameters (see recurrent.py)."""

from __future__ import annotations

import math

from ..creation import zeros
from . import init
from .linear import empty_parameter
from .module import Module
from .recurrent_steps import (
    check_same_dtype,
    check_tensor,
    gru_step,
    lstm_step,
    project,
    rnn_relu_step,
    rnn_tanh_step,
)

# --- the cells ----------------------------------------------------------------------------------


class RNNCellBase(Module):
    """One step of a recurrence: weight_ih, weight_hh and (with bias) bias_ih, bias_hh, as torch."""

    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = empty_parameter((num_chunks * hidden_size, input_size), device, dtype)
        self.weight_hh = empty_parameter((num_chunks * hidden_size, hidden_size), device, dtype)
        if bias:
            self.bias_ih = empty_parameter((num_chunks * hidden_size,), device, dtype)
            self.bias_hh = empty_parameter((num_chunks * hidden_size,), device, dtype)
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self):
        """Every weight and bias ~ U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)), as torch."""
        bound = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -bound, bound)

    def _batched(self, input, hx, count):
        """input and its `count` states (zeros when hx is None) with a batch dim, after torch's checks."""
        name = type(self).__name__
        check_tensor(input, "input")
        if input.ndim not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.ndim}D instead")
        states = None if hx is None else (hx if count > 1 else (hx,))
        if states is not None:
            if count > 1 and (not isinstance(hx, (tuple, list)) or len(hx) != count):
                raise TypeError(f"{name}: hx must be a tuple (h_0, c_0) of two tensors, got {type(hx).__name__}")
            for i, state in enumerate(states):
                check_tensor(state, f"hx[{i}]" if count > 1 else "hx")
                if state.ndim not in (1, 2):
                    what = f"hx[{i}]" if count > 1 else "hidden"
                    raise ValueError(f"{name}: Expected {what} to be 1D or 2D, got {state.ndim}D instead")
        is_batched = input.ndim == 2
        if not is_batched:
            input = input.unsqueeze(0)
        if states is None:
            h = zeros(input.shape[0], self.hidden_size, dtype=input.dtype, device=input.device)
            states = (h,) * count
        elif not is_batched:
            states = tuple(state.unsqueeze(0) for state in states)
        if input.shape[1] != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {input.shape[1]} expected {self.input_size}")
        check_same_dtype(input, self.weight_ih)
        for i, state in enumerate(states):
            if state.shape[0] != input.shape[0]:
                raise RuntimeError(
                    f"Input batch size {input.shape[0]} doesn't match hidden{i} batch size {state.shape[0]}"
                )
            if state.ndim == 1:
                raise RuntimeError(
                    f"{name}: hidden{i} is 1-D but the input is a batch (2-D); give the state "
                    f"a batch dim: shape ({input.shape[0]}, {self.hidden_size})"
                )
            if state.shape[1] != self.hidden_size:
                raise RuntimeError(
                    f"hidden{i} has inconsistent hidden_size: got {state.shape[1]}, expected {self.hidden_size}"
                )
            check_same_dtype(state, self.weight_hh)
        return input, states, is_batched

    def _input_projection(self, input):
        return project(input, self.weight_ih, self.bias_ih)

    def extra_repr(self):
        text = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            text += f", bias={self.bias}"
        nonlinearity = getattr(self, "nonlinearity", "tanh")
        if nonlinearity != "tanh":
            text += f", nonlinearity={nonlinearity}"
        return text


class RNNCell(RNNCellBase):
    """h' = tanh (or relu)(x W_ih^T + b_ih + h W_hh^T + b_hh)."""

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        input, (h,), is_batched = self._batched(input, hx, 1)
        if self.nonlinearity == "tanh":
            step = rnn_tanh_step
        elif self.nonlinearity == "relu":
            step = rnn_relu_step
        else:
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        h = step(self._input_projection(input), h, self.weight_hh, self.bias_hh)
        return h if is_batched else h.squeeze(0)


class LSTMCell(RNNCellBase):
    """One LSTM step: (h, c) -> (h', c')."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        input, state, is_batched = self._batched(input, hx, 2)
        h, c = lstm_step(self._input_projection(input), state, self.weight_hh, self.bias_hh)
        return (h, c) if is_batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    """One GRU step: h -> h'."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        input, (h,), is_batched = self._batched(input, hx, 1)
        h = gru_step(self._input_projection(input), h, self.weight_hh, self.bias_hh)
        return h if is_batched else h.squeeze(0)

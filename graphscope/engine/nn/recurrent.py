"""Recurrent layers (RNN, LSTM, GRU and their cells), composed of engine ops so each step shows in the graph.

The parameters, their names, shapes and init, the equations and the checks follow torch.nn, so a
torch-trained state_dict loads and gives torch's numbers. As torch does on the CPU, a layer first
projects the whole input sequence with one matmul (x @ W_ih.T + b_ih for every step), then runs
the recurrence step by step, each step adding h @ W_hh.T + b_hh to its slice of that projection.
"""

from __future__ import annotations

import math
import numbers
import warnings

from ..creation import zeros
from ..ops.indexing import narrow
from ..ops.shape import cat, stack
from ..tensor import Tensor
from . import functional as F
from . import functional_ops as P
from . import init
from .linear import empty_parameter
from .module import Module

_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}
_LAYER_NAME = {"RNN_TANH": "RNN", "RNN_RELU": "RNN", "LSTM": "LSTM", "GRU": "GRU"}
_TORCH_SCALAR_NAME = {"float64": "Double", "float32": "Float", "float16": "Half"}  # as in torch's messages


def _linear(x, weight, bias=None):
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
    return (_linear(h, w_hh, b_hh) + x_proj).tanh()


def rnn_relu_step(x_proj, h, w_hh, b_hh):
    """h' = relu(x W_ih^T + b_ih + h W_hh^T + b_hh)."""
    return (_linear(h, w_hh, b_hh) + x_proj).relu()


def lstm_step(x_proj, state, w_hh, b_hh, w_hr=None):
    """Gates i, f, g, o; c' = f * c + i * g; h' = o * tanh(c') (then h' W_hr^T with a projection)."""
    h, c = state
    i, f, g, o = (_linear(h, w_hh, b_hh) + x_proj).chunk(4, 1)
    c = f.sigmoid() * c + i.sigmoid() * g.tanh()
    h = o.sigmoid() * c.tanh()
    if w_hr is not None:
        h = _linear(h, w_hr)
    return h, c


def gru_step(x_proj, h, w_hh, b_hh):
    """r, z = sigmoid(...); n = tanh(x_n + r * (h W_hn^T + b_hn)); h' = (h - n) * z + n."""
    h_r, h_z, h_n = _linear(h, w_hh, b_hh).chunk(3, 1)
    x_r, x_z, x_n = x_proj.chunk(3, 1)
    r = (h_r + x_r).sigmoid()
    z = (h_z + x_z).sigmoid()
    n = (x_n + h_n * r).tanh()
    return (h - n) * z + n


_STEPS = {"RNN_TANH": rnn_tanh_step, "RNN_RELU": rnn_relu_step, "LSTM": lstm_step, "GRU": gru_step}


# --- checks, with torch's messages --------------------------------------------------------------


def _check_tensor(value, what):
    if not isinstance(value, Tensor):
        raise TypeError(f"{what} must be a Tensor, got {type(value).__name__}")


def _check_same_dtype(x, weight):
    """torch's error for an input or state whose dtype differs from the weights'."""
    if x.dtype is not weight.dtype:
        names = [_TORCH_SCALAR_NAME.get(d.name, d.name) for d in (x.dtype, weight.dtype)]
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {names[0]} and {names[1]}")


def _check_size(tensor, expected, message):
    if tuple(tensor.shape) != expected:
        raise RuntimeError(message.format(expected, list(tensor.shape)))


# --- the layers ---------------------------------------------------------------------------------


class RNNBase(Module):
    """The multi-layer, optionally bidirectional recurrence shared by RNN, LSTM and GRU (torch.nn.RNNBase)."""

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__()
        if mode not in _GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        if not isinstance(dropout, numbers.Number) or isinstance(dropout, bool) or not 0 <= dropout <= 1:
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an "
                             "element being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so non-zero dropout "
                          f"expects num_layers greater than 1, but got dropout={dropout} and "
                          f"num_layers={num_layers}", stacklevel=3)
        if not isinstance(bias, bool):
            raise TypeError(f"bias should be of type bool, got: {type(bias).__name__}")
        if not isinstance(batch_first, bool):
            raise TypeError(f"batch_first should be of type bool, got: {type(batch_first).__name__}")
        for name, value in (("input_size", input_size), ("hidden_size", hidden_size), ("num_layers", num_layers)):
            if not isinstance(value, int) or isinstance(value, bool):
                raise TypeError(f"{name} should be of type int, got: {type(value).__name__}")
            if value <= 0:
                raise ValueError(f"{name} must be greater than zero")
        if not isinstance(proj_size, int) or proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        gate_size = _GATES[mode] * hidden_size
        output_size = proj_size or hidden_size
        directions = 2 if bidirectional else 1
        self._flat_weights_names = []
        self._all_weights = []
        for layer in range(num_layers):
            layer_input_size = input_size if layer == 0 else output_size * directions
            for direction in range(directions):
                shapes = {"weight_ih": (gate_size, layer_input_size), "weight_hh": (gate_size, output_size)}
                if bias:
                    shapes.update(bias_ih=(gate_size,), bias_hh=(gate_size,))
                if proj_size:
                    shapes["weight_hr"] = (proj_size, hidden_size)
                suffix = f"_l{layer}" + ("_reverse" if direction == 1 else "")
                names = [kind + suffix for kind in shapes]
                for name, shape in zip(names, shapes.values()):
                    setattr(self, name, empty_parameter(shape, device, dtype))
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    def reset_parameters(self):
        """Every weight and bias ~ U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)), as torch."""
        bound = 1.0 / math.sqrt(self.hidden_size)
        for weight in self.parameters():
            init.uniform_(weight, -bound, bound)

    @property
    def all_weights(self):
        """The parameters per layer and direction: [[weight_ih_l0, weight_hh_l0, ...], ...]."""
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    def flatten_parameters(self):
        """A no-op, as torch's on the CPU (it packs weights for cuDNN)."""

    @property
    def _directions(self):
        return 2 if self.bidirectional else 1

    def _layer_weights(self, index):
        """(weight_ih, weight_hh, bias_ih, bias_hh, weight_hr) of one layer and direction (None where absent)."""
        names = self._all_weights[index]
        suffix = names[0][len("weight_ih"):]
        return tuple(getattr(self, kind + suffix, None)
                     for kind in ("weight_ih", "weight_hh", "bias_ih", "bias_hh", "weight_hr"))

    # --- forward --------------------------------------------------------------------------------

    def forward(self, input, hx=None):
        """(output, h_n), or (output, (h_n, c_n)) for an LSTM; input (L, N, H_in), (N, L, H_in) or (L, H_in)."""
        _check_tensor(input, "input")
        is_lstm = self.mode == "LSTM"
        name = _LAYER_NAME[self.mode]
        if input.ndim not in (2, 3):
            word = " tensor" if name == "RNN" else ""
            raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.ndim}D{word} instead")
        is_batched = input.ndim == 3
        batch_dim = 0 if self.batch_first else 1
        if not is_batched:
            input = input.unsqueeze(batch_dim)
        if hx is not None:
            hx = self._batched_state(hx, is_batched)
        self._check_input(input)
        batch = input.shape[batch_dim]
        self._check_state(hx, batch)
        if input.shape[1 - batch_dim] == 0:
            raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
        if self.batch_first:
            input = input.transpose(0, 1)
        output, finals = self._layers(input, hx, batch)
        if self.batch_first:
            output = output.transpose(0, 1)
        if is_lstm:
            hidden = (stack([h for h, _ in finals]), stack([c for _, c in finals]))
        else:
            hidden = stack(finals)
        if not is_batched:
            output = output.squeeze(batch_dim)
            hidden = (hidden[0].squeeze(1), hidden[1].squeeze(1)) if is_lstm else hidden.squeeze(1)
        return output, hidden

    def _batched_state(self, hx, is_batched):
        """hx with a batch dim, after torch's checks that its dims match the input's."""
        want = 3 if is_batched else 2
        kind = "batched 3-D" if is_batched else "unbatched 2-D"
        if self.mode == "LSTM":
            if not isinstance(hx, (tuple, list)) or len(hx) != 2:
                raise TypeError(f"LSTM: hx must be a tuple (h_0, c_0) of two tensors, got {type(hx).__name__}")
            for i, state in enumerate(hx):
                _check_tensor(state, f"hx[{i}]")
            if hx[0].ndim != want or hx[1].ndim != want:
                raise RuntimeError(f"For {kind} input, hx and cx should also be {want}-D but got "
                                   f"({hx[0].ndim}-D, {hx[1].ndim}-D) tensors")
            return tuple(hx) if is_batched else (hx[0].unsqueeze(1), hx[1].unsqueeze(1))
        _check_tensor(hx, "hx")
        if hx.ndim != want:
            raise RuntimeError(f"For {kind} input, hx should also be {want}-D but got {hx.ndim}-D tensor")
        return hx if is_batched else hx.unsqueeze(1)

    def _check_input(self, input):
        weight = self.weight_ih_l0
        if input.dtype is not weight.dtype:
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype ({weight.dtype}). "
                             f"Convert input: input.to({weight.dtype}), or convert model: model.to({input.dtype})")
        if input.shape[-1] != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, "
                               f"got {input.shape[-1]}")

    def _check_state(self, hx, batch):
        if hx is None:
            return
        states = self.num_layers * self._directions
        expected = (states, batch, self.proj_size or self.hidden_size)
        if self.mode != "LSTM":
            _check_size(hx, expected, "Expected hidden size {}, got {}")
            _check_same_dtype(hx, self.weight_hh_l0)
            return
        _check_size(hx[0], expected, "Expected hidden[0] size {}, got {}")
        _check_size(hx[1], (states, batch, self.hidden_size), "Expected hidden[1] size {}, got {}")
        for state in hx:
            _check_same_dtype(state, self.weight_hh_l0)

    def _initial_state(self, hx, index, input, batch):
        """Layer-direction `index`'s initial state: hx's slice, or zeros as torch when hx is None."""
        if hx is None:
            h = zeros(batch, self.proj_size or self.hidden_size, dtype=input.dtype, device=input.device)
            if self.mode == "LSTM":
                return h, zeros(batch, self.hidden_size, dtype=input.dtype, device=input.device)
            return h
        if self.mode == "LSTM":
            return hx[0][index], hx[1][index]
        return hx[index]

    def _layers(self, input, hx, batch):
        """Run every layer and direction over the time-major `input`: (output, final state per index)."""
        step = _STEPS[self.mode]
        finals = []
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(self._directions):
                index = layer * self._directions + direction
                w_ih, w_hh, b_ih, b_hh, w_hr = self._layer_weights(index)
                projected = _linear(input, w_ih, b_ih)  # every step's x @ W_ih.T + b_ih in one matmul
                extra = (w_hr,) if w_hr is not None else ()
                state = self._initial_state(hx, index, input, batch)
                steps = time_steps(projected)
                times = range(len(steps))
                hs = [None] * len(steps)
                for t in reversed(times) if direction == 1 else times:
                    state = step(steps[t], state, w_hh, b_hh, *extra)
                    hs[t] = state[0] if self.mode == "LSTM" else state
                outputs.append(stack(hs))
                finals.append(state)
            input = outputs[0] if len(outputs) == 1 else cat(outputs, 2)
            if self.dropout and self.training and layer < self.num_layers - 1:
                input = F.dropout(input, self.dropout, True)
        return input, finals

    def extra_repr(self):
        text = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            text += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            text += f", num_layers={self.num_layers}"
        if self.bias is not True:
            text += f", bias={self.bias}"
        if self.batch_first is not False:
            text += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            text += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            text += f", bidirectional={self.bidirectional}"
        return text


class RNN(RNNBase):
    """Elman RNN: h_t = tanh (or relu)(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh), layer on layer."""

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__("RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU", *args, **kwargs)
        self.nonlinearity = nonlinearity


class LSTM(RNNBase):
    """Long short-term memory: input, forget, cell and output gates; returns (output, (h_n, c_n))."""

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)


class GRU(RNNBase):
    """Gated recurrent unit: reset and update gates over a candidate state; returns (output, h_n)."""

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)


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
        _check_tensor(input, "input")
        if input.ndim not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.ndim}D instead")
        states = None if hx is None else (hx if count > 1 else (hx,))
        if states is not None:
            if count > 1 and (not isinstance(hx, (tuple, list)) or len(hx) != count):
                raise TypeError(f"{name}: hx must be a tuple (h_0, c_0) of two tensors, got {type(hx).__name__}")
            for i, state in enumerate(states):
                _check_tensor(state, f"hx[{i}]" if count > 1 else "hx")
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
        _check_same_dtype(input, self.weight_ih)
        for i, state in enumerate(states):
            if state.shape[0] != input.shape[0]:
                raise RuntimeError(f"Input batch size {input.shape[0]} doesn't match hidden{i} batch size "
                                   f"{state.shape[0]}")
            if state.ndim == 1:
                raise RuntimeError(f"{name}: hidden{i} is 1-D but the input is a batch (2-D); give the state "
                                   f"a batch dim: shape ({input.shape[0]}, {self.hidden_size})")
            if state.shape[1] != self.hidden_size:
                raise RuntimeError(f"hidden{i} has inconsistent hidden_size: got {state.shape[1]}, "
                                   f"expected {self.hidden_size}")
            _check_same_dtype(state, self.weight_hh)
        return input, states, is_batched

    def _input_projection(self, input):
        return _linear(input, self.weight_ih, self.bias_ih)

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

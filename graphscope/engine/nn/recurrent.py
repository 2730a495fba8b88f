"""Recurrent layers (RNN, LSTM, GRU) made of engine ops, so each step shows in the graph (cells: recurrent_cells).

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
from ..ops.shape import cat, stack
from . import functional as F
from . import init
from .linear import empty_parameter
from .module import Module
from .recurrent_steps import (
    GATES,
    LAYER_NAME,
    STEPS,
    check_same_dtype,
    check_size,
    check_tensor,
    project,
    time_steps,
)

# --- the layers ---------------------------------------------------------------------------------


class RNNBase(Module):
    """The multi-layer, optionally bidirectional recurrence shared by RNN, LSTM and GRU (torch.nn.RNNBase)."""

    def __init__(
        self,
        mode,
        input_size,
        hidden_size,
        num_layers=1,
        bias=True,
        batch_first=False,
        dropout=0.0,
        bidirectional=False,
        proj_size=0,
        device=None,
        dtype=None,
    ):
        super().__init__()
        if mode not in GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        if not isinstance(dropout, numbers.Number) or isinstance(dropout, bool) or not 0 <= dropout <= 1:
            raise ValueError(
                "dropout should be a number in range [0, 1] representing the probability of an element being zeroed"
            )
        if dropout > 0 and num_layers == 1:
            warnings.warn(
                "dropout option adds dropout after all but last recurrent layer, so non-zero dropout "
                f"expects num_layers greater than 1, but got dropout={dropout} and "
                f"num_layers={num_layers}",
                stacklevel=3,
            )
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
        gate_size = GATES[mode] * hidden_size
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
        suffix = names[0][len("weight_ih") :]
        return tuple(
            getattr(self, kind + suffix, None) for kind in ("weight_ih", "weight_hh", "bias_ih", "bias_hh", "weight_hr")
        )

    # --- forward --------------------------------------------------------------------------------

    def forward(self, input, hx=None):
        """(output, h_n), or (output, (h_n, c_n)) for an LSTM; input (L, N, H_in), (N, L, H_in) or (L, H_in)."""
        check_tensor(input, "input")
        is_lstm = self.mode == "LSTM"
        name = LAYER_NAME[self.mode]
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
        hidden = (stack([h for h, _ in finals]), stack([c for _, c in finals])) if is_lstm else stack(finals)
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
                check_tensor(state, f"hx[{i}]")
            if hx[0].ndim != want or hx[1].ndim != want:
                raise RuntimeError(
                    f"For {kind} input, hx and cx should also be {want}-D but got "
                    f"({hx[0].ndim}-D, {hx[1].ndim}-D) tensors"
                )
            return tuple(hx) if is_batched else (hx[0].unsqueeze(1), hx[1].unsqueeze(1))
        check_tensor(hx, "hx")
        if hx.ndim != want:
            raise RuntimeError(f"For {kind} input, hx should also be {want}-D but got {hx.ndim}-D tensor")
        return hx if is_batched else hx.unsqueeze(1)

    def _check_input(self, input):
        weight = self.weight_ih_l0
        if input.dtype is not weight.dtype:
            raise ValueError(
                f"RNN input dtype ({input.dtype}) does not match weight dtype ({weight.dtype}). "
                f"Convert input: input.to({weight.dtype}), or convert model: model.to({input.dtype})"
            )
        if input.shape[-1] != self.input_size:
            raise RuntimeError(
                f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got {input.shape[-1]}"
            )

    def _check_state(self, hx, batch):
        if hx is None:
            return
        states = self.num_layers * self._directions
        expected = (states, batch, self.proj_size or self.hidden_size)
        if self.mode != "LSTM":
            check_size(hx, expected, "Expected hidden size {}, got {}")
            check_same_dtype(hx, self.weight_hh_l0)
            return
        check_size(hx[0], expected, "Expected hidden[0] size {}, got {}")
        check_size(hx[1], (states, batch, self.hidden_size), "Expected hidden[1] size {}, got {}")
        for state in hx:
            check_same_dtype(state, self.weight_hh_l0)

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
        step = STEPS[self.mode]
        finals = []
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(self._directions):
                index = layer * self._directions + direction
                w_ih, w_hh, b_ih, b_hh, w_hr = self._layer_weights(index)
                projected = project(input, w_ih, b_ih)  # every step's x @ W_ih.T + b_ih in one matmul
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

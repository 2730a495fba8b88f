"""Optimizer: parameter groups, per-parameter state, zero_grad, and state_dict, as torch.optim.Optimizer.

Subclasses update raw device arrays in place (those `_grads` yields; it bumps their versions), so a step
records no graph nodes and allocates little; state arrays live on the parameter's device.
"""

from __future__ import annotations

import copy
import functools
from collections import defaultdict

from .. import backend, hooks
from ..grad_mode import enable_grad
from ..tensor import Tensor, wrap


class _RequiredParameter:
    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()


class Optimizer:
    """Base class: holds `param_groups` (dicts of params and options) and `state` (per parameter)."""

    _announcing = False  # inside a step already announced to observers

    def __init_subclass__(cls, **kwargs):
        """A subclass's own `step` (a user's optimizer) is announced to observers around its call."""
        super().__init_subclass__(**kwargs)
        step = cls.__dict__.get("step")
        if step is not None and not getattr(step, "announces_itself", False):
            cls.step = _announced(step)

    def __init__(self, params, defaults):
        self.defaults = defaults
        self.state = defaultdict(dict)
        self.param_groups = []
        if isinstance(params, Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors or dicts, "
                f"but got {type(params).__name__}"
            )
        if isinstance(params, set):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, but "
                "the ordering of tensors in sets will change between runs. Please use a list instead."
            )
        param_groups = list(params)
        if not param_groups:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for group in param_groups:
            self.add_param_group(group)

    def add_param_group(self, param_group):
        """Add a group of parameters with its own options (missing options take the defaults)."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group).__name__}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, but "
                "the ordering of tensors in sets will change between runs. Please use a list instead."
            )
        else:
            params = list(params)
        for param in params:
            if not isinstance(param, Tensor):
                raise TypeError(f"optimizer can only optimize Tensors, but one of the params is {type(param).__name__}")
            if not param.is_leaf:
                raise ValueError("can't optimize a non-leaf Tensor")
        group = dict(param_group)
        group["params"] = params
        for name, default in self.defaults.items():
            if default is required and name not in group:
                raise ValueError(f"parameter group didn't specify a value of required optimization parameter {name}")
            group.setdefault(name, default)
        existing = {id(p) for g in self.param_groups for p in g["params"]}
        if len({id(p) for p in params}) != len(params):
            raise ValueError("optimizer contains a parameter group with duplicate parameters")
        if existing & {id(p) for p in params}:
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(group)

    def zero_grad(self, set_to_none=True):
        """Clear every parameter's grad: to None (the default), or to zeros in place."""
        if hooks.observers:
            hooks.announce("grads_zeroing", self, [p for g in self.param_groups for p in g["params"]], set_to_none)
        for group in self.param_groups:
            for param in group["params"]:
                grad = param._grad
                if grad is None:
                    continue
                if set_to_none:
                    param._grad = None
                else:
                    if grad.grad_fn is not None:
                        grad = param._grad = grad.detach()
                    grad.array[...] = 0
                    grad._bump_version()

    def step(self, closure=None):
        """One update of every parameter that has a grad (those whose grad is None are skipped)."""
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        with step_announced(self):
            for group in self.param_groups:
                self._update_group(group)
        return loss

    def _update_group(self, group):
        raise NotImplementedError

    def _grads(self, group, weight_decay=0):
        """(param, its array, its grad's array) for each param of `group` that has a grad: the
        grad negated under `maximize`, plus weight_decay * param when given (L2 decay). The loop
        body updates the array in place; the param's version is bumped when it comes back."""
        maximize = group["maximize"]
        for param in group["params"]:
            grad = param._grad
            if grad is None:
                continue
            array = param.array
            g = grad.array
            if maximize:
                g = -g
            if weight_decay:
                g = g + weight_decay * array
            yield param, array, g
            param._vc[0] += 1  # param._bump_version(), inlined (per parameter per step)

    def _zeros_state(self, param):
        """A zero state Tensor on the parameter's device with its dtype."""
        array = param.array
        return wrap(backend.namespace(array).zeros_like(array))

    # --- saving and loading ----------------------------------------------------------------

    def state_dict(self):
        """{'state': {index: {name: value}}, 'param_groups': [options + 'params': [indices]]}, as PyTorch."""
        index = {}
        groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            packed["params"] = []
            for param in group["params"]:
                index.setdefault(id(param), len(index))
                packed["params"].append(index[id(param)])
            groups.append(packed)
        state = {index[id(p)]: dict(s) for p, s in self.state.items() if id(p) in index}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict):
        """Restore options and state saved by `state_dict` (state is copied to each parameter's device)."""
        state_dict = copy.deepcopy(state_dict)
        groups, saved_groups = self.param_groups, state_dict["param_groups"]
        if len(groups) != len(saved_groups):
            raise ValueError(
                f"loaded state dict has {len(saved_groups)} parameter groups, the optimizer has {len(groups)}"
            )
        for i, (group, saved) in enumerate(zip(groups, saved_groups)):
            if len(group["params"]) != len(saved["params"]):
                raise ValueError(
                    f"loaded state dict contains a parameter group ({i}) of {len(saved['params'])} parameters "
                    f"that doesn't match the size of optimizer's group ({len(group['params'])})"
                )
        by_index = {}
        for group, saved in zip(groups, saved_groups):
            for index, param in zip(saved["params"], group["params"]):
                by_index[index] = param
        state = defaultdict(dict)
        for index, values in state_dict["state"].items():
            param = by_index.get(index)
            if param is None:
                continue
            state[param] = {k: _step_count(v) if k == "step" else _to_param(v, param) for k, v in values.items()}
        self.state = state
        for group, saved in zip(groups, saved_groups):
            for key, value in saved.items():
                if key != "params":
                    group[key] = value

    def __repr__(self):
        text = type(self).__name__ + " ("
        for i, group in enumerate(self.param_groups):
            text += f"\nParameter Group {i}\n"
            for key in sorted(group):
                if key != "params":
                    text += f"    {key}: {group[key]}\n"
        return text + ")"

    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state):
        self.__dict__.update(state)


class step_announced:
    """Announce the update the block makes to observers: before it (the debugger may pause
    there) and after it, once however subclasses nest their steps. (A class, not a generator:
    observers look for the user's line among the frames, and contextlib's are not graphscope's.)"""

    __slots__ = ("announcing", "optimizer")

    def __init__(self, optimizer):
        self.optimizer = optimizer
        self.announcing = False

    def __enter__(self):
        optimizer = self.optimizer
        if hooks.observers and not optimizer._announcing:
            optimizer._announcing = self.announcing = True
            try:
                hooks.announce("optimizer_step_begun", optimizer)
            except BaseException:
                optimizer._announcing = False
                raise

    def __exit__(self, *exc):
        if self.announcing:
            self.optimizer._announcing = False
            hooks.announce("optimizer_step_ended", self.optimizer)


def announces_itself(step):
    """Mark a subclass's `step` that calls `step_announced` where its update begins."""
    step.announces_itself = True
    return step


def _announced(step):
    @functools.wraps(step)
    def announced_step(self, *args, **kwargs):
        with step_announced(self):
            return step(self, *args, **kwargs)

    return announced_step


def nonnegative(**hyperparameters) -> None:
    """PyTorch's ValueError for the first negative hyperparameter ("Invalid learning rate: -1")."""
    for name, value in hyperparameters.items():
        if not value >= 0.0:
            label = _LABELS.get(name, f"{name} value")
            raise ValueError(f"Invalid {label}: {value}")


_LABELS = {"lr": "learning rate", "eps": "epsilon value"}


def _step_count(value):
    """torch keeps an optimizer's step count as a float tensor, graphscope as an int."""
    return int(value.item()) if isinstance(value, Tensor) else value


def _to_param(value, param):
    """A saved state value as a Tensor on the parameter's device (floats in its dtype)."""
    if isinstance(value, Tensor):
        array = value.array
    elif backend.is_array(value) or (hasattr(value, "__array__") and not isinstance(value, (int, float))):
        array = value if backend.is_array(value) else backend.from_data(value, "cpu")
    else:
        return value
    array = backend.to_device(array, param.device) if not backend.same_device(array, param.array) else array
    if backend.is_floating(array) and array.dtype != param.array.dtype:
        array = backend.astype(array, param.array.dtype)
    return wrap(array)

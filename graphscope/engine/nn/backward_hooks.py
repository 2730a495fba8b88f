"""Full backward hooks: identity nodes around a module's inputs and outputs that catch their grads."""

from __future__ import annotations

from ..function import Function
from ..tensor import Tensor, wrap


class BackwardHook(Function):
    """Identity whose backward reports the grad passing through to the module's hook state."""

    op = "backward_hook"
    reads_inputs = ()

    def forward(self, x, state=None, slot=None):
        self.state, self.slot = state, slot
        return x

    rule = "d x/dx = 1 (identity: the grad passing through is shown to the module's backward hooks)"

    def backward(self, grad):
        return (self.state.grad_arrived(self.slot, grad),)


class BackwardHookState:
    """One module call's hook bookkeeping: grads of outputs and inputs, and when to call the hooks.

    The hooks run once the grads of every input that requires grad have arrived (or, when no
    input requires grad, once the outputs' grads have). A tuple returned by a hook replaces
    grad_input for the inputs whose grads have not been passed on yet, which is all of them
    when the module has one tensor input.
    """

    def __init__(self, module):
        self.module = module
        self.grad_outputs = []
        self.grad_inputs = []
        self.pending_inputs = 0
        self.pending_outputs = 0
        self.input_slots = []
        self.done = False

    def wrap_inputs(self, args):
        wrapped = []
        self.grad_inputs = [None] * len(args)
        for i, arg in enumerate(args):
            if isinstance(arg, Tensor) and arg.requires_grad:
                self.pending_inputs += 1
                self.input_slots.append(i)
                arg = BackwardHook.apply(arg, state=self, slot=("input", i))
            wrapped.append(arg)
        return tuple(wrapped)

    def wrap_outputs(self, output):
        single = isinstance(output, Tensor)
        outputs = (output,) if single else output
        if not isinstance(outputs, (tuple, list)):
            return output
        self.grad_outputs = [None] * len(outputs)
        wrapped = []
        for i, out in enumerate(outputs):
            if isinstance(out, Tensor) and out.requires_grad:
                self.pending_outputs += 1
                out = BackwardHook.apply(out, state=self, slot=("output", i))
            wrapped.append(out)
        if single:
            return wrapped[0]
        return type(outputs)(wrapped)

    def grad_arrived(self, slot, grad):
        kind, index = slot
        if kind == "output":
            self.grad_outputs[index] = grad
            self.pending_outputs -= 1
            if self.pending_inputs == 0 and self.pending_outputs == 0:
                self._run_hooks()
            return grad
        self.grad_inputs[index] = grad
        self.pending_inputs -= 1
        if self.pending_inputs == 0:
            replaced = self._run_hooks()
            if replaced is not None:
                return replaced[index]
        return grad

    def _run_hooks(self):
        if self.done:
            return None
        self.done = True
        grad_output = tuple(None if g is None else wrap(g) for g in self.grad_outputs)
        grad_input = tuple(None if g is None else wrap(g) for g in self.grad_inputs) or (None,)
        replaced = None
        for hook in tuple(self.module._backward_hooks.values()):
            result = hook(self.module, grad_input, grad_output)
            if result is not None:
                if not isinstance(result, (tuple, list)) or len(result) != len(grad_input):
                    raise RuntimeError(
                        f"backward hook of {type(self.module).__name__} returned {type(result).__name__} "
                        f"of length {len(result) if isinstance(result, (tuple, list)) else '-'}; expected a "
                        f"tuple of {len(grad_input)} grads (or None)"
                    )
                grad_input = tuple(result)
                replaced = [None if g is None else (g.array if isinstance(g, Tensor) else g) for g in grad_input]
        return replaced

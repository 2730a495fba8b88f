"""Gradcheck of one recorded node: its Function's backward against float64 central differences at the recorded inputs.

The node's Function is rebuilt from its op (an engine Function, or a user's `autograd.Function`
from a live run), its forward run at the inputs the record holds (host copies, floats made
float64), and for a fixed random cotangent `c` the numeric derivative of `sum(out · c)` by each
checked input element is compared with what the Function's backward returns for `c`. Call it
while the script is paused or over (as for reading the record); it runs on the CPU.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

import numpy as np

from graphscope.engine import hooks

# The engine's own node class for a custom Function, and its reduction of a broadcast grad to
# an input's shape: a check must treat a node's backward exactly as backward() does.
from graphscope.engine.autograd.custom import CustomNode, FunctionCtx
from graphscope.engine.autograd.custom import Function as CustomFunction
from graphscope.engine.autograd.custom import node_class as _node_class
from graphscope.engine.backward import sum_to_shape as _sum_to
from graphscope.engine.function import Function
from graphscope.engine.tensor import Tensor, wrap

from ..record.inconsistent import InconsistentRecord, disagreement
from ..record.keep_option import full_values_hint
from ..record.model import LEAF_OPS, Node, Record
from ..record.naming import argument_names, engine_functions
from .rebuild import NotRebuilt, forward_layout

EPS = 1e-6  # the central difference's step
ATOL, RTOL = 1e-5, 1e-3  # an element passes when |analytic - numeric| <= ATOL + RTOL·|numeric|
MAX_ELEMENTS = 64  # elements checked per input: all of a small one, evenly spread over a big one
SEED = 0  # the cotangent's seed: the same check gives the same numbers
FORWARD_RTOL = 1e-2  # how close the rebuilt forward must come to the recorded (float32) output

__all__ = ["ATOL", "EPS", "MAX_ELEMENTS", "RTOL", "GradcheckResult", "InputCheck", "gradcheck_lines", "gradcheck_node"]


@dataclass(frozen=True, slots=True)
class InputCheck:
    """One input's check: the elements compared, analytic (the backward's) and numeric grads."""

    position: int  # its index in the node's inputs
    node: int  # the input's node id
    label: str  # its name ("w", "fc.weight") or op ("mul")
    shape: tuple[int, ...]
    elements: tuple[int, ...]  # the flat indices checked
    analytic: tuple[float, ...]
    numeric: tuple[float, ...]
    max_error: float
    ok: bool
    kinks: int = 0  # elements at a kink, where a one-sided derivative matched


@dataclass(frozen=True, slots=True)
class GradcheckResult:
    """The check of one node: per input, or the reason it could not be checked."""

    node: int
    op: str
    inputs: tuple[InputCheck, ...] = ()
    reason: str = ""  # why it could not be checked; "" when it was

    @property
    def checked(self) -> bool:
        return not self.reason

    @property
    def ok(self) -> bool:
        return self.checked and all(i.ok for i in self.inputs)

    @property
    def max_error(self) -> float | None:
        return max((i.max_error for i in self.inputs), default=None)


class _CannotCheck(Exception):
    """Why a node cannot be checked, in words for the user."""


# op -> the class that rebuilds it: an engine Function (a graph node's class), or a user's autograd.Function
Functions = Mapping[str, type[Function] | type[CustomFunction]]


def gradcheck_node(record: Record, node_id: int, functions: Functions | None = None) -> GradcheckResult:
    """Check node `node_id`'s backward at its recorded inputs. `functions` maps op -> Function
    class (a live run's `Recorder.functions`): what rebuilds a user's custom Function."""
    node = record.nodes.get(node_id)
    if node is None:
        return GradcheckResult(node_id, "", reason=f"node {node_id} is not in the record")
    try:
        # (a recorder of a paused live run does not hear the check)
        with hooks.debugger_thread(), disagreement(f"node {node_id}"):
            run = _Rebuilt(record, node, functions or {})
            return GradcheckResult(node_id, node.op, tuple(run.check(k) for k in run.checked))
    except (_CannotCheck, InconsistentRecord) as why:
        return GradcheckResult(node_id, node.op, reason=str(why))


def _function_class(node: Node, functions: Functions) -> tuple[type[Function], type[CustomFunction] | None]:
    """(the engine Function class, the user's custom Function class or None) for the node's op."""
    op = node.op
    if op in LEAF_OPS:
        raise _CannotCheck(f"node {node.id} is a leaf ({op}): it has no backward to check")
    cls = functions.get(op) or engine_functions().get(op)
    if cls is None:
        if node.name == f"{op}Backward":  # how a custom Function's node is named
            raise _CannotCheck(f"custom Function {op}: its code is in the script; gradcheck it in a live run")
        raise _CannotCheck(f"op {op} is not one of graphscope's Functions: there is no backward to rebuild")
    if isinstance(cls, type) and issubclass(cls, CustomFunction):
        # A class is hashable: mypy checks its instances' __hash__ against the cache's Hashable.
        return _node_class(cls), cls  # type: ignore[arg-type]
    if isinstance(cls, type) and issubclass(cls, CustomNode):
        return cls, cls.function_cls
    return cls, None


class _Rebuilt:
    """A node's Function ready to run at its recorded inputs, in float64."""

    def __init__(self, record: Record, node: Node, functions: Functions) -> None:
        self.cls, self.custom = _function_class(node, functions)
        if "generator" in argument_names(self.cls):
            raise _CannotCheck(
                f"{node.op} draws random numbers in its forward: rerunning it draws others, "
                "so its backward cannot be checked at the recorded inputs"
            )
        try:
            arguments, free = forward_layout(self.cls, node)
        except NotRebuilt as why:
            raise _CannotCheck(f"{why}, so {node.op} cannot be rerun") from None
        self.values: list[Any] = [None] * (len(node.inputs) + len(arguments))
        for p, v in arguments.items():
            self.values[p] = v
        self.tensor_at: dict[int, int] = {}  # position -> index in node.inputs, for Tensor inputs
        self.checked: list[tuple[int, int]] = []  # (position, input index) of the inputs checked
        limit = record.metadata.full_values_limit
        for k, (position, input_id) in enumerate(zip(free, node.inputs)):
            source = record.nodes.get(input_id)
            if source is None:
                raise _CannotCheck(f"input {k} (node {input_id}) is not in the record")
            self.values[position] = _values_of(source, k, limit)
            if source.op != "constant":
                self.tensor_at[position] = k
                if source.requires_grad and self.values[position].dtype.kind == "f":
                    self.checked.append((position, k))
        if not self.checked:
            raise _CannotCheck(f"no input of node {node.id} ({node.op}) requires grad: nothing to check")
        self.node, self.record = node, record
        self.needs = [p in dict(self.checked) for p in range(len(self.values))]
        out = self._forward(self.values)[1]
        if out.dtype != np.float64:
            raise _CannotCheck(f"{node.op} returns {out.dtype} at float64 inputs: it cannot be checked in float64")
        self._check_forward(out)
        self.cotangent = np.random.default_rng(SEED).standard_normal(out.shape)
        self.base = _dot(out, self.cotangent)
        self.analytic = self._backward()

    def _forward(self, values: Sequence[object]) -> tuple[Function, np.ndarray]:
        """(the Function instance, its output) for a fresh run of forward at `values`."""
        args = [v.copy() if isinstance(v, np.ndarray) else v for v in values]
        try:
            if self.custom is None:
                # Any: the engine's Function declares its slots (inputs, needs_input_grad) without types
                fn: Any = object.__new__(self.cls)
                fn.needs_input_grad = self.needs
                out = fn.forward(*args)
            else:
                ctx = FunctionCtx()
                ctx.needs_input_grad = tuple(self.needs)
                args = [wrap(a) if p in self.tensor_at else a for p, a in enumerate(args)]
                fn = cast("type[CustomNode]", self.cls)(ctx)  # a custom Function's node class, as found above
                fn.inputs, fn.needs_input_grad = tuple(args), self.needs
                out = self.custom.forward(ctx, *args)
                out = out.array if isinstance(out, Tensor) else out
        except Exception as error:
            raise _CannotCheck(
                f"{self._what()}'s forward failed at the recorded inputs: "
                f"{type(error).__name__}: {error}{_KEYWORDS if isinstance(error, TypeError) else ''}"
            ) from error
        return fn, np.asarray(out)

    def _what(self) -> str:
        return f"custom Function {self.custom.__name__}" if self.custom is not None else self.node.op

    def _check_forward(self, out: np.ndarray) -> None:
        """The rebuilt forward must give the recorded output: else something it took is not in the
        record (a keyword argument), and checking it would check another function."""
        summary = self.node.output
        recorded = None if summary is None else summary.values
        if recorded is None:
            return
        if tuple(out.shape) != tuple(recorded.shape):
            raise _CannotCheck(
                f"the rebuilt {self._what()} gives shape {tuple(out.shape)}, the recorded "
                f"output has {tuple(recorded.shape)}{_DIFFERS}"
            )
        recorded = recorded.astype(np.float64)
        finite = np.isfinite(recorded)
        scale = float(np.max(np.abs(recorded[finite]), initial=1.0))
        if not np.allclose(out[finite], recorded[finite], rtol=FORWARD_RTOL, atol=FORWARD_RTOL * 1e-2 * scale):
            worst = float(np.max(np.abs(out[finite] - recorded[finite])))
            raise _CannotCheck(
                f"the rebuilt {self._what()} does not give the recorded output (off by up to {worst:.3g}){_DIFFERS}"
            )

    def _backward(self) -> list[np.ndarray | None]:
        """The backward's grad for each input position at the cotangent (summed to the input's shape)."""
        fn, _ = self._forward(self.values)
        try:
            grads = fn.backward(self.cotangent.copy())
        except Exception as error:
            raise _CannotCheck(f"{self._what()}'s backward failed: {type(error).__name__}: {error}") from error
        grads = grads if isinstance(grads, tuple | list) else (grads,)
        out: list[np.ndarray | None] = []
        for p, value in enumerate(self.values):
            g = grads[p] if p < len(grads) else None
            if not self.needs[p]:
                out.append(None)
            elif g is None:
                out.append(np.zeros(value.shape))
            else:
                g = np.asarray(g.array if isinstance(g, Tensor) else g, dtype=np.float64)
                out.append(_sum_to(g, value.shape) if g.shape != value.shape else g)
        return out

    def _loss_at(self, position: int, element: int, value: float) -> float:
        values = list(self.values)
        moved = values[position].copy()
        moved.reshape(-1)[element] = value
        values[position] = moved
        return _dot(self._forward(values)[1], self.cotangent)

    def check(self, checked: tuple[int, int]) -> InputCheck:
        """Compare the analytic and numeric grads of one input on its chosen elements."""
        position, k = checked
        x = self.values[position]
        flat = x.reshape(-1)
        elements = _spread(flat.size)
        grads = self.analytic[position]
        assert grads is not None  # a checked input needs its grad
        analytic = grads.reshape(-1)[list(elements)]
        found: list[float] = []
        kinks = 0
        for j, a in zip(elements, analytic):
            plus = self._loss_at(position, j, flat[j] + EPS)
            minus = self._loss_at(position, j, flat[j] - EPS)
            n = (plus - minus) / (2 * EPS)
            if not _close(a, n):
                # At a kink (relu at 0, max at a tie) either one-sided derivative is a fair answer.
                for side in ((plus - self.base) / EPS, (self.base - minus) / EPS):
                    if _close(a, side):
                        n, kinks = side, kinks + 1
                        break
            found.append(n)
        numeric = np.array(found)
        errors = np.abs(analytic - numeric)
        source = self.record.nodes[self.node.inputs[k]]
        return InputCheck(
            k,
            source.id,
            source.parameter or source.op,
            tuple(x.shape),
            elements,
            tuple(float(v) + 0.0 for v in analytic),
            tuple(float(v) + 0.0 for v in numeric),
            float(np.max(errors, initial=0.0)),
            bool(np.all(_close(analytic, numeric))),
            kinks,
        )


_KEYWORDS = " (the record holds its positional arguments only; one it took by keyword is not known)"
_DIFFERS = ": it was called with an argument the record does not hold (a keyword argument), so it cannot be rerun"


def _values_of(source: Node, k: int, limit: int) -> np.ndarray:
    """The input's recorded values as a host array (floats in float64), or why they are not there."""
    summary = source.output
    label = source.parameter or source.op
    if summary is None:
        raise _CannotCheck(f"input {k} ({label}) has no recorded value (it was changed in place after its use)")
    if summary.values is None:
        if summary.dropped:
            raise _CannotCheck(
                f"input {k} ({label}): its values were dropped to keep the recording within its memory budget"
            )
        raise _CannotCheck(
            f"inputs of {summary.numel:,} elements were not recorded in full (limit {limit:,}): "
            f"input {k} ({label}) cannot be rebuilt; {full_values_hint(summary.numel)}"
        )
    values = np.array(summary.values)
    return values.astype(np.float64) if values.dtype.kind == "f" else values


def _spread(size: int) -> tuple[int, ...]:
    """All of a small input's flat indices, or MAX_ELEMENTS evenly spread over a big one."""
    if size <= MAX_ELEMENTS:
        return tuple(range(size))
    return tuple(int(i) for i in np.unique(np.linspace(0, size - 1, MAX_ELEMENTS).round().astype(np.int64)))


def _close(analytic: np.ndarray | float, numeric: np.ndarray | float) -> Any:
    return np.abs(analytic - numeric) <= ATOL + RTOL * np.abs(numeric)


def _dot(out: np.ndarray, cotangent: np.ndarray) -> float:
    return float(np.sum(out * cotangent))


def gradcheck_lines(result: GradcheckResult) -> list[str]:
    """The result as plain lines (no markup): the verdict, then per input its elements side by side."""
    head = f"gradcheck of node {result.node} ({result.op})"
    if not result.checked:
        return [f"{head}: cannot check: {result.reason}"]
    verdict = "passed" if result.ok else "FAILED"
    tolerance = f"an element passes within {ATOL:g} + {RTOL:g}·|numeric|"
    lines = [
        f"{head}: {verdict}, max error {result.max_error:.2g} ({tolerance})",
        f"float64 central differences (eps {EPS:g}) of sum(out · c) for a random c, at the recorded inputs",
    ]
    for check in result.inputs:
        size = math.prod(check.shape)
        shown = (
            "every element" if len(check.elements) == size else f"{len(check.elements)} elements spread over {size:,}"
        )
        kinks = f", {check.kinks} at a kink (one-sided derivative)" if check.kinks else ""
        lines.append(
            f"input {check.position} ({check.label}, shape {check.shape}): "
            f"{'ok' if check.ok else 'FAILED'}, max error {check.max_error:.2g}, {shown}{kinks}"
        )
        lines.append(f"  {'element':>8}  {'analytic':>14}  {'numeric':>14}  {'error':>9}")
        for j, a, n in zip(check.elements, check.analytic, check.numeric):
            mark = "" if abs(a - n) <= ATOL + RTOL * abs(n) else "  <-"
            lines.append(f"  {j:>8}  {a:>14.7g}  {n:>14.7g}  {abs(a - n):>9.2g}{mark}")
    return lines

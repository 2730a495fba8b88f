"""Tensors printed as torch 2.13 prints them: torch/_tensor_str.py's rules (widths, int mode,
scientific notation, line wrapping, summarization, suffixes) applied to a host NumPy copy, with
torch.set_printoptions's options. Scripts compare their printed text with the tutorials'."""

from __future__ import annotations

import contextlib
import dataclasses
import math
from collections.abc import Iterator
from typing import Any

import numpy as np

from . import backend, dtypes


@dataclasses.dataclass
class PrintOptions:
    """torch's print options; `sci_mode` None lets each tensor's values decide."""

    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: bool | None = None


OPTIONS = PrintOptions()

# profile -> (precision, threshold, edgeitems, linewidth), as torch.set_printoptions's profiles
PROFILES: dict[str, tuple[int, float, int, int]] = {
    "default": (4, 1000, 3, 80),
    "short": (2, 1000, 2, 80),
    "full": (4, math.inf, 3, 80),
}


def set_printoptions(
    precision: int | None = None,
    threshold: float | None = None,
    edgeitems: int | None = None,
    linewidth: int | None = None,
    profile: str | None = None,
    sci_mode: bool | None = None,
) -> None:
    """torch.set_printoptions: a profile's values first, then each option given; sci_mode is always set."""
    if profile is not None:
        if profile not in PROFILES:
            raise ValueError(f"unknown print profile {profile!r}: use one of {', '.join(map(repr, PROFILES))}")
        OPTIONS.precision, OPTIONS.threshold, OPTIONS.edgeitems, OPTIONS.linewidth = PROFILES[profile]
    if precision is not None:
        OPTIONS.precision = precision
    if threshold is not None:
        OPTIONS.threshold = threshold
    if edgeitems is not None:
        OPTIONS.edgeitems = edgeitems
    if linewidth is not None:
        OPTIONS.linewidth = linewidth
    OPTIONS.sci_mode = sci_mode


def get_printoptions() -> dict[str, Any]:
    """The current options, as keyword arguments for set_printoptions."""
    return dataclasses.asdict(OPTIONS)


@contextlib.contextmanager
def printoptions(**options: Any) -> Iterator[None]:
    """Print with `options` inside the block, as torch._tensor_str.printoptions."""
    saved = get_printoptions()
    set_printoptions(**options)
    try:
        yield
    finally:
        set_printoptions(**saved)


class Formatter:
    """One width and one notation for every element of a tensor (torch's _Formatter)."""

    def __init__(self, values: np.ndarray, floating: bool) -> None:
        self.floating = floating
        self.int_mode = True
        self.sci_mode = False
        self.width = 1
        flat = values.reshape(-1)
        if not floating:
            self.width = max([1, *(len(f"{v}") for v in flat.tolist())])
            return
        shown = flat[np.isfinite(flat) & (flat != 0)]
        if shown.size == 0:
            return
        magnitudes = np.abs(shown).astype(np.float64)
        smallest, largest = magnitudes.min(), magnitudes.max()
        self.int_mode = bool(np.all(shown == np.ceil(shown)))
        if OPTIONS.sci_mode is None:
            self.sci_mode = bool(largest / smallest > 1000.0 or largest > 1.0e8 or smallest < 1.0e-4)
        else:
            self.sci_mode = OPTIONS.sci_mode
        precision = OPTIONS.precision
        values_shown = shown.tolist()
        if self.sci_mode:
            self.width = max([1, *(len(f"{v:.{precision}e}") for v in values_shown)])
        elif self.int_mode:
            self.width = max([1, *(len(f"{v:.0f}") + 1 for v in values_shown)])
        else:
            self.width = max([1, *(len(f"{v:.{precision}f}") for v in values_shown)])

    def format(self, value: Any) -> str:
        if not self.floating:
            text = f"{value}"
        elif self.sci_mode:
            text = f"{value:{self.width}.{OPTIONS.precision}e}"
        elif self.int_mode:
            text = f"{value:.0f}"
            if not (math.isinf(value) or math.isnan(value)):
                text += "."
        else:
            text = f"{value:.{OPTIONS.precision}f}"
        return (self.width - len(text)) * " " + text


def _vector(values: np.ndarray, indent: int, summarize: bool, formatter: Formatter) -> str:
    per_line = max(1, math.floor((OPTIONS.linewidth - indent) / (formatter.width + 2)))
    edge = OPTIONS.edgeitems
    if summarize and not edge:
        data = ["..."]
    elif summarize and values.shape[0] > 2 * edge:
        data = [
            *map(formatter.format, values[:edge].tolist()),
            " ...",
            *map(formatter.format, values[-edge:].tolist()),
        ]
    else:
        data = list(map(formatter.format, values.tolist()))
    lines = [", ".join(data[i : i + per_line]) for i in range(0, len(data), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _nested(values: np.ndarray, indent: int, summarize: bool, formatter: Formatter) -> str:
    if values.ndim == 0:
        return formatter.format(values.item())
    if values.ndim == 1:
        return _vector(values, indent, summarize, formatter)
    edge, rows = OPTIONS.edgeitems, values.shape[0]
    if summarize and rows > 2 * edge:
        slices = [
            *(_nested(values[i], indent + 1, summarize, formatter) for i in range(edge)),
            "...",
            *(_nested(values[i], indent + 1, summarize, formatter) for i in range(rows - edge, rows)),
        ]
    else:
        slices = [_nested(values[i], indent + 1, summarize, formatter) for i in range(rows)]
    return "[" + ("," + "\n" * (values.ndim - 1) + " " * (indent + 1)).join(slices) + "]"


def _summarized(values: np.ndarray) -> np.ndarray:
    """The elements a summarized print shows (torch's get_summarized_data, `[-0:]` included)."""
    edge = OPTIONS.edgeitems
    if values.ndim == 0:
        return values
    if values.ndim == 1:
        return np.concatenate((values[:edge], values[-edge:])) if values.shape[0] > 2 * edge else values
    if not edge:
        return np.empty([0] * values.ndim, values.dtype)
    rows = values.shape[0]
    kept = [*range(edge), *range(rows - edge, rows)] if rows > 2 * edge else range(rows)
    return np.stack([_summarized(values[i]) for i in kept])


def body(values: np.ndarray, indent: int, floating: bool) -> str:
    """The bracketed elements of a non-empty array, as torch's _tensor_str."""
    summarize = values.size > OPTIONS.threshold
    formatter = Formatter(_summarized(values) if summarize else values, floating)
    return _nested(values, indent, summarize, formatter)


def _with_suffixes(text: str, suffixes: list[str], indent: int) -> str:
    parts = [text]
    last_line = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if last_line + len(suffix) + 2 > OPTIONS.linewidth:
            parts.append(",\n" + " " * indent + suffix)
            last_line = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            last_line += len(suffix) + 2
    parts.append(")")
    return "".join(parts)


def tensor_repr(tensor: Any) -> str:
    """`repr(tensor)` as torch's: `tensor([...], dtype=..., device=..., grad_fn=<...>)`."""
    prefix = "tensor("
    indent = len(prefix)
    values = backend.to_host(tensor.array)  # printing works on a host copy
    dtype = tensor.dtype
    suffixes = []
    device = tensor.device
    if device.type != "cpu":
        suffixes.append(f"device='{device}'")
    if values.size == 0:
        if values.ndim != 1:
            suffixes.append(f"size={tuple(values.shape)}")
        if dtype is not dtypes.get_default_dtype():
            suffixes.append(f"dtype={dtype}")
        text = "[]"
    else:
        if not OPTIONS.edgeitems:
            suffixes.append(f"size={tuple(values.shape)}")
        if dtype not in (dtypes.get_default_dtype(), dtypes.int64, dtypes.bool_):
            suffixes.append(f"dtype={dtype}")
        text = body(values, indent, dtype.is_floating_point)
    if tensor.grad_fn is not None:
        suffixes.append(f"grad_fn=<{tensor.grad_fn.name().rsplit('::', 1)[-1]}>")  # torch's CopySlices
    elif tensor.requires_grad:
        suffixes.append("requires_grad=True")
    return _with_suffixes(prefix + text, suffixes, indent)

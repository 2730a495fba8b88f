"""Printed formulas read back as arithmetic: what a reader would compute from the text, element by element."""

from __future__ import annotations

import ast
import math
import re

import numpy as np

_SUPERSCRIPT = dict(zip("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-"))
_POWER = re.compile("([⁻]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+(?:·[⁰¹²³⁴⁵⁶⁷⁸⁹]+)?)")
_NAMES = {
    "ln": math.log,
    "cos": math.cos,
    "sin": math.sin,
    "sign": np.sign,
    "floor": math.floor,
    "Φ": lambda x: 0.5 * (1 + math.erf(x / math.sqrt(2))),
    "φ": lambda x: math.exp(-x * x / 2) / math.sqrt(2 * math.pi),
    "nan": math.nan,
    "inf": math.inf,
    "True": True,
    "False": False,
}


def _power(match) -> str:
    text = "".join(_SUPERSCRIPT.get(c, ".") for c in match.group(1))
    return f"**({text})"


def _arrays(text: str) -> tuple[str, list[np.ndarray]]:
    """Each bracketed array literal replaced by a name (a0, a1, ...), and the arrays."""
    out, arrays, depth, start = [], [], 0, 0
    for i, ch in enumerate(text):
        if ch == "[":
            if depth == 0:
                start = i
            depth += 1
        elif ch == "]":
            depth -= 1
            if depth == 0:
                literal = (
                    re.sub(r"\bnan\b", "None", text[start : i + 1]).replace("-inf", "-1e999").replace("inf", "1e999")
                )
                arrays.append(np.array(ast.literal_eval(literal), dtype=float))
                out.append(f"a{len(arrays) - 1}")
        elif depth == 0:
            out.append(ch)
    return "".join(out), arrays


def value_of(text: str) -> np.ndarray:
    """What `text` ("[-1, 2] × (1 − (-0.2)²)", "1 if 0.5 > 0 else 0.2") computes, elementwise over its arrays."""
    text, arrays = _arrays(text)
    python = (
        _POWER.sub(_power, text)
        .replace("×", "*")
        .replace("·", "*")
        .replace("−", "-")
        .replace("≤", "<=")
        .replace("½", "0.5")
        .replace("^", "**")
    )
    shape = np.broadcast_shapes(*(a.shape for a in arrays)) if arrays else ()
    wide = [np.broadcast_to(a, shape).reshape(-1) for a in arrays]
    out = np.empty(int(np.prod(shape)), dtype=float)
    for i in range(out.size):
        names = dict(_NAMES, **{f"a{k}": float(a[i]) for k, a in enumerate(wide)})
        with np.errstate(all="ignore"):
            try:
                out[i] = float(eval(python, {"__builtins__": {}}, names))
            except (ZeroDivisionError, ValueError, OverflowError):
                out[i] = math.nan
    return out.reshape(shape)

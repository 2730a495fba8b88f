"""Under --as-torch, NumPy's floating-point warnings from graphscope's code are not printed (as PyTorch)."""

from __future__ import annotations

import os
import re
import sys
import warnings
from types import FrameType
from typing import Self, TextIO

import numpy as np

_FLOATING_POINT = re.compile(r"(overflow|invalid value|divide by zero|underflow) encountered")
_GRAPHSCOPE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_NUMPY = os.path.dirname(os.path.abspath(np.__file__)) + os.sep


class QuietNumpyWarnings:
    """Drop overflow / invalid value / divide by zero warnings whose NumPy call came from graphscope.

    The script's own NumPy warnings still print. It wraps `warnings.showwarning`, which runs only
    when a warning is shown, so nothing is paid otherwise.
    """

    def __enter__(self) -> Self:
        self.saved = warnings.showwarning
        warnings.showwarning = self._show
        return self

    def __exit__(self, *exc: object) -> None:
        if warnings.showwarning == self._show:
            warnings.showwarning = self.saved

    def _show(
        self,
        message: Warning | str,
        category: type[Warning],
        filename: str,
        lineno: int,
        file: TextIO | None = None,
        line: str | None = None,
    ) -> None:
        if not (
            issubclass(category, RuntimeWarning)
            and _FLOATING_POINT.search(str(message))
            and _numpy_called_from_graphscope()
        ):
            self.saved(message, category, filename, lineno, file, line)


def _numpy_called_from_graphscope() -> bool:
    """Whether the innermost frame outside NumPy and the warnings machinery is graphscope's."""
    frame: FrameType | None = sys._getframe(2)
    while frame is not None:
        path = os.path.abspath(frame.f_code.co_filename)
        if not path.startswith(_NUMPY) and frame.f_globals.get("__name__") != "warnings":
            return path.startswith(_GRAPHSCOPE)
        frame = frame.f_back
    return False

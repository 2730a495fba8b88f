"""SummaryWriter as torch's: logged scalars are announced to the debugger (the record's training series),
and TensorBoard event files are written only when the `tensorboard` package is installed."""

from __future__ import annotations

import os
import socket
from datetime import datetime
from typing import Any

import numpy as np

from ... import hooks
from ...backend import to_host
from ...tensor import Tensor
from .event_files import EventFiles, open_event_files

__all__ = ["SummaryWriter"]


def as_numpy(value: Any) -> np.ndarray:  # (Any: whatever the script logs)
    """`value` (a Tensor, a NumPy array or a number) as a NumPy array, as torch's make_np takes it."""
    if isinstance(value, np.ndarray):
        return value
    if np.isscalar(value):
        return np.array([value])
    if isinstance(value, Tensor):
        return to_host(value.array)
    raise NotImplementedError(f"Got {type(value)}, but numpy array or torch tensor are expected.")


def scalar_of(value: Any) -> float:  # (Any: whatever the script logs)
    """The one number in `value`, or torch's AssertionError when it holds more (or fewer) than one."""
    array = as_numpy(value).squeeze()
    if array.ndim != 0:
        raise AssertionError(
            f"Tensor should contain one element (0 dimensions). Was given size: {array.size} and "
            f"{array.ndim} dimensions. (A scalar logs one number: pass a 0-d tensor, or t.item().)"
        )
    return float(array)


def step_of(global_step: Any) -> int | None:  # (Any: an int, a NumPy integer or a 0-d tensor)
    """`global_step` as an int (None stays None: TensorBoard shows such a point at step 0)."""
    return None if global_step is None else int(global_step)


class SummaryWriter:
    """Logs scalars, histograms and text as torch.utils.tensorboard.SummaryWriter does.

    Each scalar (`add_scalar`, and each entry of `add_scalars` as "main_tag/tag") is announced to the
    engine's observers (`scalar_logged`): the debugger keeps it in the record. Event files are written
    through TensorBoard's own writer when the `tensorboard` package is importable; without it the
    writer makes no files and says nothing, so a script that logs runs unchanged.
    """

    def __init__(
        self,
        log_dir: str | os.PathLike[str] | None = None,
        comment: str = "",
        purge_step: int | None = None,
        max_queue: int = 10,
        flush_secs: int = 120,
        filename_suffix: str = "",
    ) -> None:
        if not log_dir:
            current_time = datetime.now().strftime("%b%d_%H-%M-%S")
            log_dir = os.path.join("runs", current_time + "_" + socket.gethostname() + comment)
        self.log_dir = log_dir
        self.purge_step = purge_step
        self.max_queue = max_queue
        self.flush_secs = flush_secs
        self.filename_suffix = filename_suffix
        self._files: EventFiles | None = open_event_files(
            str(log_dir), purge_step, max_queue, flush_secs, filename_suffix
        )

    def get_logdir(self) -> str | os.PathLike[str]:
        """The directory event files are written to."""
        return self.log_dir

    def add_scalar(
        self,
        tag: str,
        scalar_value: Any,  # (Any: a number, a NumPy value or a one-element Tensor)
        global_step: Any = None,
        walltime: float | None = None,
        new_style: bool = False,
        double_precision: bool = False,
    ) -> None:
        """Log one number under `tag` at `global_step`."""
        value, step = scalar_of(scalar_value), step_of(global_step)
        if hooks.observers:
            hooks.announce("scalar_logged", tag, value, step)
        if self._files is not None:
            self._files.scalar(tag, value, step, walltime)

    def add_scalars(
        self, main_tag: str, tag_scalar_dict: dict[str, Any], global_step: Any = None, walltime: float | None = None
    ) -> None:
        """Log several numbers drawn in one chart: each as "main_tag/tag" (TensorBoard's runs "main_tag_tag")."""
        step = step_of(global_step)
        values = {tag: scalar_of(value) for tag, value in tag_scalar_dict.items()}
        for tag, value in values.items():
            if hooks.observers:
                hooks.announce("scalar_logged", f"{main_tag}/{tag}", value, step)
            if self._files is not None:
                self._files.scalar_in_run(main_tag, tag, value, step, walltime)

    def add_histogram(
        self,
        tag: str,
        values: Any,  # (Any: a Tensor, a NumPy array or a number)
        global_step: Any = None,
        bins: Any = "tensorflow",  # (Any: a NumPy bins argument)
        walltime: float | None = None,
        max_bins: int | None = None,
    ) -> None:
        """Log the distribution of `values` (written to event files only; the record keeps scalars)."""
        array = as_numpy(values).astype(float)
        if array.size == 0:
            raise ValueError("The input has no element.")
        if self._files is not None:
            self._files.histogram(tag, array, step_of(global_step), bins, max_bins, walltime)

    def add_text(self, tag: str, text_string: str, global_step: Any = None, walltime: float | None = None) -> None:
        """Log a text under `tag` (written to event files only)."""
        if self._files is not None:
            self._files.text(tag, text_string, step_of(global_step), walltime)

    def flush(self) -> None:
        """Write pending events to disk."""
        if self._files is not None:
            self._files.flush()

    def close(self) -> None:
        """Flush and close the event files; a later log opens them again, as torch's does."""
        if self._files is not None:
            self._files.close()

    def __enter__(self) -> SummaryWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

"""TensorBoard event files, written through the `tensorboard` package's own writer when it is installed.

graphscope does not depend on it: without it `open_event_files` answers None and nothing is written.
The summaries are built as torch.utils.tensorboard builds them (simple_value scalars, histograms
over its default exponential buckets, text with the text plugin's metadata).
"""

from __future__ import annotations

import importlib.util
import time
from typing import Any

import numpy as np


def open_event_files(
    log_dir: str, purge_step: int | None, max_queue: int, flush_secs: int, filename_suffix: str
) -> EventFiles | None:
    """The event files of `log_dir` (created now, as torch's are), or None without `tensorboard`."""
    if importlib.util.find_spec("tensorboard") is None:
        return None
    return EventFiles(log_dir, purge_step, max_queue, flush_secs, filename_suffix)


def default_bins() -> list[float]:
    """TensorBoard's histogram buckets: ±1e-12 growing by 10% to 1e20, and 0."""
    buckets = []
    v = 1e-12
    while v < 1e20:
        buckets.append(v)
        v *= 1.1
    return [-b for b in reversed(buckets)] + [0.0] + buckets


class EventFiles:
    """One run's event file, and one more per `add_scalars` series ("main_tag_tag"), as torch's writer keeps."""

    def __init__(self, log_dir: str, purge_step: int | None, max_queue: int, flush_secs: int, suffix: str) -> None:
        from tensorboard.compat.proto import event_pb2, summary_pb2, tensor_pb2, tensor_shape_pb2
        from tensorboard.plugins.text.plugin_data_pb2 import TextPluginData
        from tensorboard.summary.writer.event_file_writer import EventFileWriter

        self._event_pb2, self._summary_pb2 = event_pb2, summary_pb2
        self._tensor_pb2, self._shape_pb2, self._text_data = tensor_pb2, tensor_shape_pb2, TextPluginData
        self._new_writer = lambda directory: EventFileWriter(directory, max_queue, flush_secs, suffix)
        self._log_dir, self._purge_step = log_dir, purge_step
        self._writers: dict[str, Any] = {}  # directory -> its EventFileWriter (tensorboard's)
        self._main()

    def _main(self) -> Any:  # (Any: tensorboard's EventFileWriter)
        writer = self._writers.get(self._log_dir)
        if writer is None:
            writer = self._writers[self._log_dir] = self._new_writer(self._log_dir)
            if self._purge_step is not None:  # TensorBoard hides the events from this step on
                Event, SessionLog = self._event_pb2.Event, self._event_pb2.SessionLog
                writer.add_event(Event(step=self._purge_step, file_version="brain.Event:2"))
                writer.add_event(Event(step=self._purge_step, session_log=SessionLog(status=SessionLog.START)))
                self._purge_step = None
        return writer

    def _add(self, writer: Any, summary: Any, step: int | None, walltime: float | None) -> None:
        event = self._event_pb2.Event(summary=summary)
        event.wall_time = time.time() if walltime is None else walltime
        if step is not None:
            event.step = step
        writer.add_event(event)

    def scalar(self, tag: str, value: float, step: int | None, walltime: float | None) -> None:
        """One point of the scalar `tag`."""
        Summary = self._summary_pb2.Summary
        self._add(self._main(), Summary(value=[Summary.Value(tag=tag, simple_value=value)]), step, walltime)

    def scalar_in_run(self, main_tag: str, tag: str, value: float, step: int | None, walltime: float | None) -> None:
        """One point of `add_scalars(main_tag, {tag: ...})`: in the run "<log_dir>/<main_tag>_<tag>"."""
        directory = self._main().get_logdir() + "/" + main_tag.replace("/", "_") + "_" + tag
        writer = self._writers.get(directory)
        if writer is None:
            writer = self._writers[directory] = self._new_writer(directory)
        Summary = self._summary_pb2.Summary
        self._add(writer, Summary(value=[Summary.Value(tag=main_tag, simple_value=value)]), step, walltime)

    def histogram(
        self, tag: str, values: np.ndarray, step: int | None, bins: Any, max_bins: int | None, walltime: float | None
    ) -> None:
        """The histogram of `values` (float64, not empty), with torch's bins and its trimming to the support."""
        values = values.reshape(-1)
        counts, limits = np.histogram(values, bins=default_bins() if bins == "tensorflow" else bins)
        if max_bins is not None and len(counts) > max_bins:
            group = len(counts) // max_bins
            counts = np.pad(counts, (0, -len(counts) % group)).reshape(-1, group).sum(axis=-1)
            limits = np.append(limits[:-1:group], limits[-1])
        nonzero = np.flatnonzero(counts)
        if nonzero.size == 0:
            raise ValueError(f"add_histogram({tag!r}): no value falls within the bins; give bins that cover the values")
        start, end = int(nonzero[0]), int(nonzero[-1]) + 1  # TensorBoard keeps right limits: one empty bin left
        counts = counts[start - 1 : end] if start > 0 else np.concatenate([[0], counts[:end]])
        limits = limits[start : end + 1]
        histo = self._summary_pb2.HistogramProto(
            min=values.min(),
            max=values.max(),
            num=len(values),
            sum=values.sum(),
            sum_squares=values.dot(values),
            bucket_limit=limits.tolist(),
            bucket=counts.tolist(),
        )
        Summary = self._summary_pb2.Summary
        self._add(self._main(), Summary(value=[Summary.Value(tag=tag, histo=histo)]), step, walltime)

    def text(self, tag: str, text: str, step: int | None, walltime: float | None) -> None:
        """The text `text` under "<tag>/text_summary" (the text plugin's tag)."""
        pb = self._summary_pb2
        content = self._text_data(version=0).SerializeToString()
        metadata = pb.SummaryMetadata(plugin_data=pb.SummaryMetadata.PluginData(plugin_name="text", content=content))
        tensor = self._tensor_pb2.TensorProto(
            dtype="DT_STRING",
            string_val=[text.encode("utf_8")],
            tensor_shape=self._shape_pb2.TensorShapeProto(dim=[self._shape_pb2.TensorShapeProto.Dim(size=1)]),
        )
        value = pb.Summary.Value(tag=tag + "/text_summary", metadata=metadata, tensor=tensor)
        self._add(self._main(), pb.Summary(value=[value]), step, walltime)

    def flush(self) -> None:
        """Write every file's pending events."""
        for writer in self._writers.values():
            writer.flush()

    def close(self) -> None:
        """Flush and close every file; the next event opens new ones."""
        for writer in self._writers.values():
            writer.flush()
            writer.close()
        self._writers = {}

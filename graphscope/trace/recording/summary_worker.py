"""Summaries computed off the recording thread: one background worker, a bounded queue, and the
caller doing the work itself when the queue is full."""

from __future__ import annotations

import queue
import threading

from ..record.tensor_summary import TensorSummary
from ..stats.device import DeviceArray
from ..stats.summarize import summarize_many

# Batches waiting for the worker; past that the recording thread summarises a batch itself, so
# a run that makes arrays faster than they are summarised holds at most this many in waiting.
DEPTH = 4


class Batch:
    """Arrays to summarise and, once `done`, their summaries (or the error that stopped them).
    The arrays must not change until then: they are copies, or op outputs (never written)."""

    __slots__ = ("arrays", "done", "error", "limit", "summaries")

    def __init__(self, arrays: list[DeviceArray], limit: int) -> None:
        self.arrays = arrays
        self.limit = limit
        self.summaries: list[TensorSummary] | None = None
        self.error: BaseException | None = None
        self.done = threading.Event()

    def run(self) -> None:
        try:
            self.summaries = summarize_many(self.arrays, self.limit)
        except Exception as e:  # noqa: BLE001 (handed to the recording thread, which raises it)
            self.error = e
        self.arrays = None  # type: ignore[assignment]  # let go of: never read again
        self.done.set()

    def result(self) -> list[TensorSummary]:
        """The summaries, waiting for them if the worker is still at it."""
        self.done.wait()
        if self.error is not None:
            raise self.error
        return self.summaries  # type: ignore[return-value]  # done and no error: `run` set them


_queue: queue.Queue[Batch] = queue.Queue(DEPTH)
_started = threading.Lock()
_worker: threading.Thread | None = None


def submit(arrays: list[DeviceArray], limit: int) -> Batch:
    """Summarise `arrays` on the worker; at once, here, when DEPTH batches already wait."""
    batch = Batch(arrays, limit)
    try:
        _queue.put_nowait(batch)
    except queue.Full:
        batch.run()
        return batch
    _start()
    return batch


def _start() -> None:
    global _worker
    with _started:
        if _worker is None or not _worker.is_alive():  # the first batch, or after a fork
            _worker = threading.Thread(target=_work, name="graphscope summaries", daemon=True)
            _worker.start()


def _work() -> None:
    while True:
        _queue.get().run()

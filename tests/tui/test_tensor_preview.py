"""TensorPreview: a tensor of 10^8 elements costs only its visible window, fetched off the UI thread."""

import threading

import numpy as np
from tui_pilot import wait_for, wait_for_text
from tui_records import mlp_record

from graphscope.trace.summary import TensorSummary
from graphscope.tui.app import GraphscopeApp
from graphscope.session import Debuggee
from graphscope.tui.tensor_preview import TensorPreview

HUGE = (10_000, 10_000)  # 10^8 elements: never materialised here


def huge_summary() -> TensorSummary:
    return TensorSummary(HUGE, "float32", "cpu", HUGE[0] * HUGE[1], min=-1.0, max=1.0, mean=0.0, std=0.5,
                         norm=5000.0, preview=np.linspace(-1, 1, 64, dtype=np.float32))


class Fetcher:
    """A session's fetch for one huge tensor: records what was asked and on which thread."""

    def __init__(self):
        self.asked = []
        self.threads = set()

    def __call__(self, node_id, what, index):
        self.asked.append(index)
        self.threads.add(threading.current_thread().name)
        rows, cols = index
        return np.full((rows.stop - rows.start, cols.stop - cols.start), 0.5, dtype=np.float32)


async def show_huge(pilot, app, fetch):
    preview = app.query_one("#value-view").query_one(TensorPreview)
    preview.show(huge_summary(), 1, "value", fetch)
    preview.focus()
    await wait_for(pilot, lambda: fetch.asked)
    return preview


async def test_only_the_visible_window_of_a_huge_tensor_is_fetched():
    app = GraphscopeApp(Debuggee(mlp_record(), "snap.json"), "snap.json")
    fetch = Fetcher()
    async with app.run_test(size=(120, 40)) as pilot:
        preview = await show_huge(pilot, app, fetch)
        await wait_for_text(pilot, "of 10000×10000")
        rows, cols = fetch.asked[0]
        assert (rows.stop - rows.start) * (cols.stop - cols.start) <= preview.size.area
        assert threading.main_thread().name not in fetch.threads  # off the UI thread


async def test_moving_the_window_fetches_the_next_block_only():
    app = GraphscopeApp(Debuggee(mlp_record(), "snap.json"), "snap.json")
    fetch = Fetcher()
    async with app.run_test(size=(120, 40)) as pilot:
        await show_huge(pilot, app, fetch)
        await pilot.press("pagedown")
        await wait_for(pilot, lambda: len(fetch.asked) >= 2)
        first, second = fetch.asked[0][0], fetch.asked[-1][0]
        assert second.start == first.stop and second.stop - second.start == first.stop - first.start


async def test_without_a_live_session_the_kept_preview_is_shown():
    app = GraphscopeApp(Debuggee(mlp_record(), "snap.json"), "snap.json")
    async with app.run_test(size=(120, 40)) as pilot:
        preview = app.query_one("#value-view").query_one(TensorPreview)
        preview.show(huge_summary(), 1, "value", None)
        await wait_for_text(pilot, "first 64 of 100,000,000 elements")

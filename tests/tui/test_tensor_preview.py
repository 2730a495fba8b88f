"""TensorPreview: the record's values in windows; a tensor too big for them shows the kept preview."""

import numpy as np

from graphscope.session import Debuggee
from graphscope.trace.stats.summarize import TensorSummary
from graphscope.tui.app import GraphscopeApp
from graphscope.tui.tensor_preview import TensorPreview
from tests.hand_records import mlp_record
from tests.tui.tui_pilot import wait_for, wait_for_text

HUGE = (10_000, 10_000)  # 10^8 elements: never materialised here


def huge_summary() -> TensorSummary:
    return TensorSummary(
        HUGE,
        "float32",
        "cpu",
        HUGE[0] * HUGE[1],
        min=-1.0,
        max=1.0,
        mean=0.0,
        std=0.5,
        norm=5000.0,
        preview=np.linspace(-1, 1, 64, dtype=np.float32),
    )


async def test_a_huge_tensor_shows_the_preview_the_record_kept():
    app = GraphscopeApp(Debuggee(mlp_record(), "snap.json"))
    async with app.run_test(size=(120, 40)) as pilot:
        app.query_one("#detail-tabs").active = "tab-value"  # a snapshot opens on its first step: the Rule tab
        await wait_for(pilot, lambda: app.query_one("#value-view").query_one(TensorPreview).node_id is not None)
        preview = app.query_one("#value-view").query_one(TensorPreview)
        preview.show(huge_summary(), 1, "value")
        await wait_for_text(pilot, "first 64 of 100,000,000 elements")


async def test_full_values_are_paged_through_in_windows():
    record = mlp_record()
    app = GraphscopeApp(Debuggee(record, "snap.json"))
    values = np.arange(60 * 30, dtype=np.float32).reshape(60, 30)
    summary = TensorSummary(
        values.shape,
        "float32",
        "cpu",
        values.size,
        min=0.0,
        max=float(values.max()),
        values=values,
        preview=values.reshape(-1)[:64],
    )
    async with app.run_test(size=(120, 40)) as pilot:
        app.query_one("#detail-tabs").active = "tab-value"  # a snapshot opens on its first step: the Rule tab
        await wait_for(pilot, lambda: app.query_one("#value-view").query_one(TensorPreview).node_id is not None)
        preview = app.query_one("#value-view").query_one(TensorPreview)
        preview.show(summary, 1, "value")
        preview.focus()
        await wait_for_text(pilot, "[0:")
        first = preview.window()
        await pilot.press("pagedown")
        await wait_for(pilot, lambda: preview.window().row == first.row + first.rows)

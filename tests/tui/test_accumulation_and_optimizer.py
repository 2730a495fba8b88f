"""A leaf's `.grad` across passes (before, added, now) and the optimizer's events in the passes view, the timeline
and a parameter's Rule tab."""

import pytest

from graphscope.trace.explain.optimizer_step import explain_change
from graphscope.tui.node_details import NodeDetails
from graphscope.tui.number_text import fit_number
from graphscope.tui.passes_view import PassesView
from graphscope.tui.rule_view import RuleView
from graphscope.tui.timeline import Timeline
from tests.tui.tui_live import SAMPLES, SCRIPTS, live_app, until_settled
from tests.tui.tui_pilot import wait_for, wait_for_text
from tests.tui.tui_screen import screen_text


def leaf_node(record, name: str, pass_index: int) -> int:
    return next(n.id for n in record.nodes.values() if n.parameter == name and n.pass_index == pass_index)


def rows_of(text: str) -> list[list[str]]:
    return [line.split() for line in text.splitlines()]


async def show_tab(pilot, app, node_id: int, tab: str) -> None:
    assert app.views.reveal(node_id)  # the graph's cursor on it, as a user would put it
    app.query_one(NodeDetails).query_one("#detail-tabs").active = tab
    await wait_for(pilot, lambda: app.query_one(NodeDetails).node_id == node_id, what="the node selected")
    await pilot.pause()


async def step_into_pass_1(pilot, app, session) -> None:
    """Press n, a step at a time, until the cursor is in pass 1 (10 steps at most)."""
    for _ in range(10):
        if session.state.pass_index == 1:
            break
        count = app.updates
        await pilot.press("n")
        await wait_for(pilot, lambda count=count: app.updates > count, what="the step")
        await until_settled(pilot, session)


async def test_a_second_backward_without_zeroing_shows_grad_before_added_and_now():
    with live_app(SAMPLES / "gradients_of_an_equation.py", pause=False) as (app, session):
        async with app.run_test(size=(120, 40)) as pilot:
            await until_settled(pilot, session, ("finished",))
            b = leaf_node(session.record, "b", 1)
            await show_tab(pilot, app, b, "tab-grad")
            await wait_for_text(pilot, ".grad before this pass")
            rows = rows_of(screen_text(app))
            assert any(row[-6:] == [".grad", "before", "this", "pass", "[-12,", "-8]"] for row in rows)
            assert any(row[-3:] == ["added", "[-12,", "-8]"] for row in rows)
            assert any(row[-3:] == ["now", "[-24,", "-16]"] for row in rows)
            assert "backward() adds into .grad: zero it between passes" in screen_text(app)
            first = leaf_node(session.record, "b", 0)  # the first pass: .grad was None
            await show_tab(pilot, app, first, "tab-grad")
            await wait_for(
                pilot,
                lambda: any(
                    row[-4:] == [".grad", "before", "this", "pass"]
                    or row[-5:] == [".grad", "before", "this", "pass", "None"]
                    for row in rows_of(screen_text(app))
                ),
                what="None before pass 0",
            )
            assert "backward() adds into .grad" not in screen_text(app)


@pytest.mark.slow
async def test_the_passes_view_shows_the_optimizer_s_events_between_the_passes():
    with live_app(SCRIPTS / "sgd_line.py", pause=False) as (app, session):
        async with app.run_test(size=(120, 40)) as pilot:
            await until_settled(pilot, session, ("finished",))
            await app.views.choose("passes", None)
            view = app.query_one(PassesView)
            table = view.query_one("#pass-table")
            await wait_for(pilot, lambda: table.row_count == 3 + 6, what="3 passes and 6 events")
            cells = [[str(cell) for cell in table.get_row_at(i)] for i in range(table.row_count)]
            assert [(row[0], row[2]) for row in cells] == [
                ("", "zero_grad"),
                ("0", "17.5"),
                ("", "step SGD"),
                ("", "zero_grad"),
                ("1", "0.22"),
                ("", "step SGD"),
                ("", "zero_grad"),
                ("2", "17.03"),
                ("", "step SGD"),
            ]
            table.move_cursor(row=2)
            await wait_for_text(pilot, "optimizer.step()  SGD(lr=0.1, momentum=0.9)")
            await wait_for_text(pilot, "‖update‖")
            shown = rows_of(screen_text(app))
            update = session.record.optimizer[1].params[0].update
            assert any(row[:2] == ["w", fit_number(update.norm, 10)] for row in shown)


@pytest.mark.slow
async def test_a_parameter_after_a_step_shows_its_value_before_the_update_and_after():
    with live_app(SCRIPTS / "sgd_line.py", pause=False) as (app, session):
        async with app.run_test(size=(120, 40)) as pilot:
            await until_settled(pilot, session, ("finished",))
            w = leaf_node(session.record, "w", 1)
            await show_tab(pilot, app, w, "tab-rule")
            await wait_for_text(pilot, "Before this pass's backward")
            shown = screen_text(app)
            assert "↳ optimizer.step()  SGD(lr=0.1, momentum=0.9)  sgd_line.py:15" in shown
            event = session.record.optimizer[1]
            change = next(c for c in event.params if c.label == "w")
            assert change.before.values.tolist() == [0.5]
            lines = [line.strip() for line in shown.splitlines()]
            for line in explain_change(session.record, event, change):  # before, the update's numbers, after
                assert any(seen.endswith(line.strip()) for seen in lines), line
            assert any(seen.endswith("value after     0.5 + 1.8 = 2.3") for seen in lines)
            assert "↳ optimizer.zero_grad()  SGD" in shown


async def test_the_timeline_shows_the_events_before_the_pass_it_lists():
    with live_app(SCRIPTS / "sgd_line.py") as (app, session):
        async with app.run_test(size=(120, 40)) as pilot:
            await until_settled(pilot, session, ("paused",))
            await app.views.choose("timeline", None)
            await wait_for_text(pilot, "end of pass 0")
            assert "↳ optimizer.zero_grad()  SGD" in screen_text(app)
            assert "optimizer.step()" not in screen_text(app)  # it has not happened yet
            await step_into_pass_1(pilot, app, session)
            await wait_for_text(pilot, "end of pass 1")
            shown = screen_text(app)
            assert (
                shown.index("↳ optimizer.step()  SGD(lr=0.1")
                < shown.index("↳ optimizer.zero_grad()  SGD")
                < shown.index("end of pass 1")
            )


async def test_highlighting_an_optimizer_step_in_the_timeline_shows_it_in_the_details_pane():
    with live_app(SCRIPTS / "sgd_line.py") as (app, session):
        async with app.run_test(size=(120, 40)) as pilot:
            await until_settled(pilot, session, ("paused",))
            await step_into_pass_1(pilot, app, session)
            await app.views.choose("timeline", None)
            timeline = app.query_one(Timeline)
            await wait_for_text(pilot, "end of pass 1")
            timeline.focus()
            timeline.cursor = 0  # the first row: ↳ optimizer.step() after pass 0
            await wait_for_text(pilot, "after the backward of pass 0")
            step = next(e for e in session.record.optimizer if e.kind == "step")
            w = next(c for c in step.params if c.label == "w")
            shown = screen_text(app)
            for line in explain_change(session.record, step, w):
                assert line.strip() in shown
            timeline.cursor = 2  # the first step of the pass: the node again
            await wait_for(pilot, lambda: app.query_one(NodeDetails).node_id is not None, what="a node shown")
            assert "after the backward of pass 0" not in screen_text(app)


@pytest.mark.slow
async def test_a_step_breakpoint_from_the_dialog_pauses_on_a_parameter_the_step_reads():
    with live_app(SCRIPTS / "sgd_line.py") as (app, session):
        async with app.run_test(size=(120, 40)) as pilot:
            await until_settled(pilot, session, ("paused",))
            await pilot.press("B")
            await wait_for_text(pilot, "step (before each optimizer.step())")
            await pilot.press(*"step", "enter")
            await wait_for_text(pilot, "no optimizer step is recorded yet: breakpoint 2 is kept")
            assert [(b.kind, b.describe()) for b in session.breakpoints][-1] == ("step", "optimizer step")
            await pilot.press("escape")
            await pilot.press("c")
            await wait_for(
                pilot, lambda: session.state.reason == "breakpoint 2: optimizer step", what="the step breakpoint"
            )
            await until_settled(pilot, session, ("paused",))
            await wait_for_text(pilot, "optimizer.step() runs next (n): it reads this .grad")
            details = app.query_one(NodeDetails)
            assert session.record.nodes[details.node_id].parameter in ("w", "b")
            assert details.query_one("#detail-tabs").active == "tab-rule"
            assert "end of pass (5 steps) · breakpoint 2: optimizer step" in screen_text(app)


@pytest.mark.slow
@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_a_hand_written_update_shows_in_the_passes_view_and_the_rule_tab_as_a_step_does(size):
    with live_app(SCRIPTS / "hand_update_line.py", pause=False) as (app, session):
        async with app.run_test(size=size) as pilot:
            await until_settled(pilot, session, ("finished",))
            await app.views.choose("passes", None)
            table = app.query_one(PassesView).query_one("#pass-table")
            await wait_for(pilot, lambda: table.row_count == 3 + 9, what="3 passes and 9 events")
            cells = [[str(cell) for cell in table.get_row_at(i)] for i in range(table.row_count)]
            assert [row[2] for row in cells[:4]] == ["17.5", "update", ".grad=0", ".grad=0"]
            table.move_cursor(row=1)
            await wait_for_text(pilot, "w, b updated by the script")
            norms = app.query_one(PassesView).query_one("#norm-table")
            await wait_for(pilot, lambda: norms.columns["value"].label.plain == "‖update‖", what="‖update‖")
            update = session.record.optimizer[0].params[0].update
            assert [str(cell) for cell in norms.get_row_at(0)] == ["w", fit_number(update.norm, 10)]
            w = leaf_node(session.record, "w", 1)
            await show_tab(pilot, app, w, "tab-rule")
            await wait_for_text(pilot, "Before this pass's backward")
            shown = app.query_one(RuleView).text.plain  # the whole tab: at 80x24 it scrolls
            assert "↳ w, b updated by the script  hand_update_line.py:14" in shown
            assert "w: updated by the script after backward pass 0 at line 14: w -= lr * w.grad" in shown
            change = next(c for c in session.record.optimizer[0].params if c.label == "w")
            assert change.before.values.tolist() == [0.5]
            rows = rows_of(shown)
            assert ["value", "before", "0.5"] in rows
            after = fit_number(float(change.after.values[0]), 12)
            assert any(row[:2] == ["value", "after"] and row[-1] == after for row in rows)
            if size == (120, 40):
                assert "↳ w, b updated by the script  hand_update_line.py:14" in screen_text(app)

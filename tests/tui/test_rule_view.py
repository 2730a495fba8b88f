"""The Rule tab: shown while stepping, the chain rule with the step's numbers (explain.py's lines), for the element
under the tables' cursor when the tensor is big."""

from dataclasses import replace

import pytest

from graphscope.trace.explain.step import explain_lines, explain_step
from graphscope.tui.node_details import NodeDetails
from graphscope.tui.rule_view import RuleView
from graphscope.tui.tensor_preview import TensorPreview
from tests.tui.tui_live import SAMPLES, SCRIPTS, live_app, until_paused, until_settled
from tests.tui.tui_pilot import wait_for, wait_for_text
from tests.tui.tui_screen import screen_text

SIZES = pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])


async def step(pilot, app, session, times: int = 1) -> None:
    for _ in range(times):
        count = app.updates
        await pilot.press("n")
        await wait_for(pilot, lambda count=count: app.updates > count, what="the step to take effect")
        await until_settled(pilot, session)


def details_text(app) -> list[str]:
    """The lines of the right pane, as on screen."""
    x, y, w, h = app.query_one(NodeDetails).region
    return [line[x : x + w].strip() for line in screen_text(app).splitlines()[y : y + h]]


def op_node(record, op: str, pass_index: int = 0) -> int:
    return next(n.id for n in record.nodes.values() if n.op == op and n.pass_index == pass_index)


@SIZES
async def test_while_stepping_the_rule_tab_shows_the_rule_and_the_numbers_of_the_step_just_taken(size):
    with live_app(SAMPLES / "gradients_of_an_equation.py") as (app, session):
        async with app.run_test(size=size) as pilot:
            await until_paused(pilot, session)
            details = app.query_one(NodeDetails)
            assert details.query_one("#detail-tabs").active == "tab-rule"
            await step(pilot, app, session, 3)  # sum, sub, pow(b, 2) have run: the cursor is on 3·a³'s mul
            await wait_for_text(pilot, "step 4 of 5: node 2 mul")
            shown = details_text(app)
            assert session.record.nodes[session.state.node].op == "mul"
            # the current node, 3·a³: its rule and local factor; its grad_in comes when it runs
            assert "rule: d(a·b)/da = b    d(a·b)/db = a" in shown
            assert "local  d out/d pow#1 = 3" in shown
            # below it, the step just taken, b**2, with its numbers: the example
            scroll = details.query_one(RuleView)
            await wait_for(pilot, lambda: scroll.max_scroll_y > 0 or size[1] >= 40, what="the Rule tab laid out")
            scroll.scroll_end(animate=False)
            await wait_for_text(pilot, "grad_in = [-1, -1] × 2·[6, 4] = [-12, -8]")
            shown = details_text(app)
            assert "step 3 of 5: node 4 pow" in shown
            assert "rule: d(x²)/dx = 2·x" in shown
            assert "grad_in = [-1, -1] × 2·[6, 4] = [-12, -8]" in shown


@pytest.mark.slow
async def test_the_rule_tab_shows_explain_s_lines_for_a_step_that_has_run():
    with live_app(SAMPLES / "gradients_of_an_equation.py") as (app, session):
        async with app.run_test(size=(120, 40)) as pilot:
            await until_paused(pilot, session)
            await step(pilot, app, session, 3)
            sub = op_node(session.record, "sub")
            assert app.views.reveal(sub)
            await wait_for_text(pilot, "step 2 of 5: node 5 sub")
            # counted out of the whole pass; the source line is the header's
            expected = explain_lines(replace(explain_step(session.record, 0, 1), site=None, steps=5))
            shown = details_text(app)
            start = shown.index(expected[0])
            assert shown[start : start + len(expected)] == [line.strip() for line in expected]


@pytest.mark.slow
async def test_moving_in_the_value_table_chooses_the_element_the_rule_explains():
    with live_app(SAMPLES / "fit_a_line.py") as (app, session):
        async with app.run_test(size=(120, 40)) as pilot:
            await until_paused(pilot, session)
            await step(pilot, app, session, 3)  # mean, pow, sub have run
            record = session.record
            sub = op_node(record, "sub")
            assert record.nodes[sub].output.numel == 100
            details = app.query_one(NodeDetails)
            assert app.views.reveal(sub)
            await wait_for_text(pilot, "element 0 (tensors over")
            tabs = details.query_one("#detail-tabs")
            tabs.active = "tab-value"
            await pilot.pause()
            preview = details.query_one("#value-view").query_one(TensorPreview)
            preview.focus()
            await pilot.press("right", "right", "down")
            cols = preview._grid_shape()[1]
            await wait_for(pilot, lambda: details.element == cols + 2, what="the cursor on element cols + 2")
            assert f"at [{cols + 2}]" in screen_text(app)
            tabs.active = "tab-rule"
            await wait_for_text(pilot, f"element {cols + 2} (tensors over")
            expected = explain_lines(explain_step(record, 0, 2, cols + 2))
            assert next(line for line in expected if line.startswith("  grad_in")).strip() in details_text(app)
            await pilot.press("full_stop")  # the next element, from anywhere
            await wait_for_text(pilot, f"element {cols + 3} (tensors over")
            await pilot.press("comma", "comma")
            await wait_for_text(pilot, f"element {cols + 1} (tensors over")
            assert app.views.reveal(op_node(record, "pow"))  # another node: back to its element 0
            await wait_for(pilot, lambda: details.element == 0, what="element 0 on another node")


@SIZES
async def test_every_step_s_rule_is_wrapped_beside_the_scrollbar_so_no_number_is_cut(size, tmp_path):
    # The equation sample with the fractions in b: wider numbers, the same steps.
    sample = (SAMPLES / "gradients_of_an_equation.py").read_text()
    fractions = sample.replace(
        "gs.tensor([6.0, 4.0], requires_grad=True)", "gs.tensor([6.5, 4.25], requires_grad=True)"
    )
    assert fractions != sample
    script = tmp_path / "equation_fractions.py"
    script.write_text(fractions)
    with live_app(script) as (app, session):
        async with app.run_test(size=size) as pilot:
            await until_paused(pilot, session)
            view = app.query_one(NodeDetails).query_one(RuleView)
            for taken in range(1, 5):
                await step(pilot, app, session)
                await wait_for(pilot, lambda: bool(view.lines), what="the Rule tab filled")
                width = view.scrollable_content_region.width
                assert all(len(line.rstrip()) <= width for line in view.lines), (width, view.lines)
                if taken == 3:  # pow(b, 2) just taken: the line, every number whole
                    words = " ".join(" ".join(view.lines).split())
                    assert "local d out/d b = 2·[6.5, 4.25] = [13, 8.5]" in words


@SIZES
async def test_the_rule_tab_counts_the_nans_its_statistics_skip_and_says_a_grad_is_not_computed_yet(size):
    with live_app(SCRIPTS / "nan_in_a_big_tensor.py") as (app, session):
        async with app.run_test(size=size) as pilot:
            await until_paused(pilot, session)
            view = app.query_one(NodeDetails).query_one(RuleView)
            await step(pilot, app, session)  # sum has run; sub, x − b, is next
            await wait_for(pilot, lambda: "The step just taken:" in view.lines, what="the step just taken shown")
            words = " ".join(" ".join(view.lines).split())
            assert "grad to b: not computed yet (when this step runs)" in words
            assert "no finite values" not in words
            assert "value [0] = nan (shape (64,), 1 nan; of the 63 finite: min -0.375, max 7.375, mean 3.5)" in words

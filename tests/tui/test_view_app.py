"""`graphscope view`: every binding and view of the app over a loaded record (pilot tests)."""

import numpy as np
import pytest

from graphscope.session import Debuggee, NodeKey
from graphscope.trace import snapshot
from graphscope.trace.stats.summarize import summarize
from graphscope.tui.app import GraphscopeApp
from graphscope.tui.breakpoints_screen import BreakpointsScreen
from graphscope.tui.export_dialog import ExportDialog
from graphscope.tui.find_dialog import FindDialog
from graphscope.tui.graph_tree import GraphTree
from graphscope.tui.help_screen import HelpScreen
from graphscope.tui.node_details import NodeDetails
from graphscope.tui.tensor_preview import TensorPreview
from graphscope.tui.view_bar import ViewBar
from graphscope.tui.views import VIEWS
from tests.hand_records import mlp_record, nan_record
from tests.tui.tui_pilot import wait_for, wait_for_notice, wait_for_text
from tests.tui.tui_screen import screen_text


def make_app(record=None, source="snap.json"):
    return GraphscopeApp(Debuggee(record or mlp_record(), source))


def selected(app):
    return app.query_one(NodeDetails).node_id


def state(app):
    return app.debuggee.state


async def test_opens_at_the_first_step_with_its_node_selected():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: selected(app) is not None)
        assert selected(app) == app.debuggee.record.passes[0].order[0]
        assert "step 1 of 7" in screen_text(app)


@pytest.mark.parametrize("key", ["n", "space"])
async def test_n_and_space_step(key):
    app = make_app()
    async with app.run_test() as pilot:
        await pilot.press(key)
        await wait_for(pilot, lambda: state(app).step == 1)
        await wait_for(pilot, lambda: selected(app) == app.debuggee.record.passes[0].order[1])
        await wait_for_text(pilot, "step 2 of 7")


async def test_p_steps_back():
    app = make_app()
    async with app.run_test() as pilot:
        await pilot.press("n", "n", "p")
        await wait_for(pilot, lambda: state(app).step == 1)


async def test_c_continues_to_a_breakpoint_set_with_b():
    app = make_app()
    record = app.debuggee.record
    relu = next(n.id for n in record.nodes.values() if n.op == "relu" and n.pass_index == 0)
    async with app.run_test() as pilot:
        app.query_one(GraphTree).reveal_node(relu)
        await wait_for(pilot, lambda: selected(app) == relu)
        await pilot.press("b")
        node = record.nodes[relu]
        key = NodeKey("relu", node.site.file, node.site.line, node.module)
        assert [(b.kind, b.value) for b in app.debuggee.breakpoints] == [("node", key)]
        await pilot.press("g")
        await pilot.press("c")
        await wait_for(pilot, lambda: state(app).node == relu)
        await pilot.press("c")  # the same node of the next pass: a breakpoint holds across passes
        await wait_for(pilot, lambda: state(app).pass_index == 1 and record.nodes[state(app).node].op == "relu")
        assert state(app).reason.startswith("breakpoint 1: node relu at mlp.py")


async def test_b_twice_removes_the_breakpoint():
    app = make_app()
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: selected(app) is not None)
        await pilot.press("b", "b")
        assert app.debuggee.breakpoints == []


async def test_capital_c_runs_to_the_end():
    app = make_app(mlp_record(passes=3))
    async with app.run_test() as pilot:
        await pilot.press("C")
        await wait_for(pilot, lambda: state(app).pass_index == 2 and state(app).node is None)


async def test_g_goes_back_to_the_current_steps_node():
    app = make_app()
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: selected(app) is not None)
        current = selected(app)
        await pilot.press("down", "down")
        await wait_for(pilot, lambda: selected(app) != current)
        await pilot.press("g")
        await wait_for(pilot, lambda: selected(app) == current)


async def test_exclamation_mark_jumps_to_the_nan_origin_once_it_has_happened():
    record = nan_record()
    app = make_app(record)
    async with app.run_test() as pilot:
        await pilot.press("exclamation_mark")  # at pass 0, as the live run was: pass 1's NaN is to come
        await wait_for_notice(pilot, "No NaN or Inf")
        await pilot.press("C", "exclamation_mark")
        origin = record.findings[0].node
        await wait_for(pilot, lambda: selected(app) == origin)
        tree = app.query_one(GraphTree)
        assert tree.cursor_item.node == origin


async def test_exclamation_mark_without_nan_says_so():
    app = make_app()
    async with app.run_test() as pilot:
        await pilot.press("exclamation_mark")
        await wait_for_notice(pilot, "No NaN or Inf")


@pytest.mark.slow
async def test_slash_finds_a_node_and_enter_jumps_to_it():
    app = make_app()
    async with app.run_test() as pilot:
        await pilot.press("slash")
        await wait_for(pilot, lambda: isinstance(app.screen, FindDialog))
        await pilot.press(*"fc2.weight")
        await wait_for_text(pilot, "3 matches")
        await pilot.press("enter")
        await wait_for(pilot, lambda: not isinstance(app.screen, FindDialog))
        node = app.debuggee.record.nodes[selected(app)]
        assert node.parameter == "fc2.weight"
        assert app.query_one(GraphTree).cursor_item.node == node.id


@pytest.mark.slow
async def test_escape_closes_find_without_moving():
    app = make_app()
    async with app.run_test() as pilot:
        await wait_for(pilot, lambda: selected(app) is not None)
        before = selected(app)
        await pilot.press("slash", "r", "e", "escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, FindDialog))
        assert selected(app) == before


@pytest.mark.slow
async def test_v_cycles_graph_modules_timeline_passes_findings_training_picture():
    app = make_app()
    async with app.run_test() as pilot:
        seen = []
        for _ in range(7):
            seen.append(app.query_one("#views").current)
            await pilot.press("v")
        assert seen == ["graph", "modules", "timeline", "passes", "findings", "training", "picture"]
        assert app.query_one("#views").current == "graph"


async def test_the_module_view_groups_nodes_under_their_module():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("v")
        tree = app.query_one("#modules")
        await wait_for(pilot, lambda: tree.rows)
        await pilot.press("home", "enter")
        await wait_for_text(pilot, "fc1")


async def test_enter_in_the_timeline_travels_to_that_step():
    app = make_app()
    async with app.run_test() as pilot:
        await pilot.press("v", "v")
        await pilot.press("down", "down", "down", "enter")
        await wait_for(pilot, lambda: state(app).step == 3)


@pytest.mark.slow
async def test_enter_on_a_pass_shows_its_graph():
    app = make_app(mlp_record(passes=3))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("C", "v", "v", "v")  # at the end of the run: every pass has happened
        await wait_for(pilot, lambda: app.query_one("#views").current == "passes")
        await pilot.press("down", "down", "enter")
        await wait_for(pilot, lambda: app.query_one("#views").current == "graph")
        root = app.debuggee.record.passes[2].root
        await wait_for(pilot, lambda: app.query_one(GraphTree).cursor_item.node == root)


async def test_the_tree_expands_lazily_with_enter_and_right_and_collapses_with_left():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        tree = app.query_one(GraphTree)
        await wait_for(pilot, lambda: tree.rows)
        closed = next(i for i, r in enumerate(tree.rows) if r.expandable and not r.expanded)
        assert tree.rows[closed].children is None  # not even loaded yet
        tree.cursor = closed
        rows = len(tree.rows)
        await pilot.press("enter")
        await wait_for(pilot, lambda: len(tree.rows) > rows)
        await pilot.press("left")
        await wait_for(pilot, lambda: len(tree.rows) == rows)
        await pilot.press("l")
        await wait_for(pilot, lambda: len(tree.rows) > rows)
        await pilot.press("k")
        assert tree.cursor == closed - 1
        await pilot.press("j", "j")
        assert tree.cursor == closed + 1


async def test_the_current_pass_opens_three_levels_down():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        tree = app.query_one(GraphTree)
        await wait_for(pilot, lambda: tree.rows)
        assert max(r.depth for r in tree.rows) == 3


async def test_a_node_shown_twice_is_a_link_that_jumps_to_the_first():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        tree = app.query_one(GraphTree)
        await wait_for(pilot, lambda: any(r.kind == "link" for r in tree.rows))  # mul(sub, sub)
        link = next(i for i, r in enumerate(tree.rows) if r.kind == "link")
        target = tree.rows[link].node
        tree.cursor = link
        await pilot.press("enter")
        await wait_for(pilot, lambda: tree.cursor_item.kind == "node" and tree.cursor_item.node == target)
        assert tree.cursor < link


async def test_e_exports_a_snapshot_that_loads(tmp_path):
    app = make_app()
    target = tmp_path / "out.json"
    async with app.run_test() as pilot:
        await pilot.press("e")
        await wait_for(pilot, lambda: isinstance(app.screen, ExportDialog))
        field = app.screen.query_one("#export-path")
        field.value = str(target)
        await pilot.press("enter")
        await wait_for(pilot, lambda: target.exists())
        await wait_for_notice(pilot, "Snapshot written")
    assert len(snapshot.load(target).nodes) == len(app.debuggee.record.nodes)


async def test_export_asks_before_overwriting(tmp_path):
    app = make_app()
    target = tmp_path / "out.json"
    target.write_text("keep me")
    async with app.run_test() as pilot:
        await pilot.press("e")
        await wait_for(pilot, lambda: isinstance(app.screen, ExportDialog))
        app.screen.query_one("#export-path").value = str(target)
        await pilot.press("enter")
        await wait_for_text(pilot, "Enter again overwrites")
        assert target.read_text() == "keep me"
        await pilot.press("enter")
        await wait_for(pilot, lambda: target.read_text() != "keep me")


async def test_question_mark_shows_help_and_escape_closes_it():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        assert "jump to where the first NaN" in screen_text(app)
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, HelpScreen))


async def test_debugger_keys_wait_while_a_dialog_is_open():
    app = make_app()
    async with app.run_test() as pilot:
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        await pilot.press("n")
        assert state(app).step == 0


@pytest.mark.slow
async def test_capital_b_adds_toggles_and_removes_breakpoints():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("B")
        await wait_for(pilot, lambda: isinstance(app.screen, BreakpointsScreen))
        await pilot.press(*"op relu", "enter")
        await wait_for(pilot, lambda: len(app.debuggee.breakpoints) == 1)
        await pilot.press(*"model.py:12", "enter")
        await wait_for(pilot, lambda: len(app.debuggee.breakpoints) == 2)
        assert app.debuggee.breakpoints[1].kind == "line"
        await pilot.press(*"op", "enter")
        await wait_for_text(pilot, "op needs a value")
        app.screen.query_one("#bp-table").focus()
        await pilot.press("space")
        await wait_for(pilot, lambda: not app.debuggee.breakpoints[0].enabled)
        await pilot.press("d")
        await wait_for(pilot, lambda: len(app.debuggee.breakpoints) == 1)
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, BreakpointsScreen))


@pytest.mark.slow
async def test_the_command_palette_runs_debugger_actions():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("ctrl+p")
        await pilot.press(*"Step back")
        await pilot.press(*"")
        await wait_for_text(pilot, "Move back one step")
        await pilot.press("escape")
        await pilot.press("ctrl+p", *"Run to end")
        await wait_for_text(pilot, "without pausing")
        await pilot.press("enter")
        await wait_for(pilot, lambda: state(app).node is None)


async def test_angle_brackets_resize_the_graph_pane():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        left = app.query_one("#left")
        before = left.outer_size.width
        await pilot.press("greater_than_sign")
        await wait_for(pilot, lambda: left.outer_size.width == before + 4)
        await pilot.press("less_than_sign", "less_than_sign")
        await wait_for(pilot, lambda: left.outer_size.width == before - 4)


async def test_q_quits():
    app = make_app()
    async with app.run_test() as pilot:
        await pilot.press("q")
        await wait_for(pilot, lambda: not app.is_running)


async def test_the_details_tabs_show_grad_flow_saved_and_source():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        record = app.debuggee.record
        mm = next(n.id for n in record.nodes.values() if n.op == "matmul" and n.pass_index == 0)
        await pilot.press("C")  # to the end of the run: pass 0's grads are all known
        await wait_for(pilot, lambda: state(app).pass_index == len(record.passes) - 1)
        app.query_one(GraphTree).reveal_node(mm)
        await wait_for(pilot, lambda: selected(app) == mm)
        tabs = app.query_one("#detail-tabs")
        tabs.active = "tab-flow"
        await wait_for_text(pilot, "from add #")
        tabs.active = "tab-saved"
        await wait_for_text(pilot, "Kept by the engine")
        tabs.active = "tab-source"
        await wait_for_text(pilot, "mlp.py:10 in forward")
        tabs.active = "tab-grad"
        await wait_for_text(pilot, "20 elements")


async def test_the_preview_moves_through_a_3d_tensor_one_slice_at_a_time():
    record = mlp_record()
    node = record.nodes[record.passes[0].order[0]]
    node.output = summarize(np.arange(3 * 4 * 5, dtype=np.float32).reshape(3, 4, 5))
    app = make_app(record)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: selected(app) == node.id)
        preview = app.query_one("#value-view").query_one(TensorPreview)
        preview.focus()
        await pilot.press("right_square_bracket")
        assert preview.lead == (1,)
        await wait_for_text(pilot, "[1][0:4, 0:5] of 3×4×5")
        await pilot.press("left_square_bracket", "left_square_bracket")
        assert preview.lead == (0,)  # stays at the first slice


async def test_a_big_tensor_without_full_values_shows_its_kept_preview():
    record = mlp_record()
    node = record.nodes[record.passes[0].order[0]]
    node.output = summarize(np.ones((1000, 1000), dtype=np.float32))
    assert node.output.values is None
    app = make_app(record)
    async with app.run_test(size=(120, 40)) as pilot:
        app.query_one("#detail-tabs").active = "tab-value"  # a snapshot opens on its first step: the Rule tab
        await wait_for_text(pilot, "first 64 of 1,000,000 elements")


async def test_clicking_a_view_name_switches_to_that_view():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: selected(app) is not None)
        await pilot.click(ViewBar, offset=(12, 0))  # "graph mod time pass find train": on "time"
        await wait_for(pilot, lambda: app.views.current == "timeline", what="the timeline view")


async def test_the_palette_lists_quit_once():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: selected(app) is not None)
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert titles.count("Quit") == 1


async def test_a_breakpoint_that_matches_nothing_yet_is_kept_with_a_warning():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: selected(app) is not None)
        await pilot.press("B")
        await pilot.press(*"op lienar", "enter")
        await wait_for_text(pilot, "no node matches op lienar yet")
        assert [(b.kind, b.value) for b in app.debuggee.breakpoints][-1] == ("op", "lienar")


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_at_the_first_step_the_console_and_passes_hold_only_what_was_known_then(size):
    from graphscope.trace.record.model import ConsoleLine

    record = mlp_record(passes=3)
    # Passes begun when each was written: `epoch 1` came after pass 0's backward, `done` after the last.
    record.console = [ConsoleLine("stdout", f"epoch {k}", k) for k in range(3)] + [ConsoleLine("stdout", "done", 3)]
    app = make_app(record)
    async with app.run_test(size=size) as pilot:
        await wait_for_text(pilot, "epoch 0")
        assert "epoch 1" not in screen_text(app) and "done" not in screen_text(app)
        await pilot.press("v", "v", "v")
        await wait_for(pilot, lambda: app.query_one("#views").current == "passes")
        await wait_for_text(pilot, "over 1 pass")
        assert [str(cell) for cell in app.query_one("#pass-table").get_column_at(0)] == ["0"]
        await pilot.press("C")  # the end of the run: everything has happened
        await wait_for_text(pilot, "done")
        await wait_for_text(pilot, "over 3 passes")
        assert [str(cell) for cell in app.query_one("#pass-table").get_column_at(0)] == ["0", "1", "2"]


async def test_a_view_is_made_when_first_shown_and_kept():
    """The app starts with the graph view alone (the six others are most of its widgets, and laying out and
    styling them hidden made a start about a fifth slower); each is made the first time it is chosen."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        switcher = app.query_one("#views")
        assert [view.id for view in switcher.children] == ["graph"]
        await pilot.press("v")
        await wait_for(pilot, lambda: app.views.current == "modules")
        modules = app.query_one("#modules")
        assert modules.display and app.focused is modules
        await pilot.press(*"vvvvvv")
        await wait_for(pilot, lambda: app.views.current == "graph")
        assert [view.id for view in switcher.children] == list(VIEWS)
        assert app.query_one("#modules") is modules  # made once

"""The picture view (d): the graph around the selected node as boxes and arrows; the arrows move along its
edges, enter selects the node in the graph view (pilot tests over a loaded record)."""

from pathlib import Path

import numpy as np
import pytest

from graphscope.session import Debuggee
from graphscope.trace.record.model import CONSTANT, Node, Record
from graphscope.trace.stats.summarize import summarize
from graphscope.tui.app import GraphscopeApp
from graphscope.tui.graph_canvas import draw
from graphscope.tui.graph_neighbourhood import PICTURE_LIMIT
from graphscope.tui.graph_picture import GraphPicture
from graphscope.tui.graph_tree import GraphTree
from graphscope.tui.node_details import NodeDetails
from tests.hand_records import HOSTILE, hostile_record, mlp_record, nan_record
from tests.tui.tui_pilot import until_still, wait_for
from tests.tui.tui_screen import screen_text


def selected(app):
    return app.query_one(NodeDetails).node_id


async def open_picture(pilot, app):
    await wait_for(pilot, lambda: selected(app) is not None)
    await pilot.press("d")
    await wait_for(pilot, lambda: app.query_one("#views").current == "picture" and picture(app).cursor is not None)


def chain_record(n: int) -> Record:
    """x -> relu -> relu -> ... (n nodes in all)."""
    value = summarize(np.ones((2, 3), dtype=np.float32))
    nodes = {0: Node(0, "tensor", output=value, is_leaf=True)}
    for i in range(1, n):
        nodes[i] = Node(i, "relu", "ReluBackward0", (i - 1,), output=value)
    return Record(nodes=nodes)


def picture(app) -> GraphPicture:
    return app.query_one(GraphPicture)


def tensor_inputs(record, node_id):
    return [i for i in record.nodes.inputs_of(node_id) or () if record.nodes.op_of(i) != CONSTANT]


async def test_d_draws_the_whole_pass_around_the_selected_node_with_the_current_step_marked():
    app = GraphscopeApp(Debuggee(mlp_record(), "snap.json"))
    async with app.run_test(size=(120, 40)) as pilot:
        await open_picture(pilot, app)
        record = app.debuggee.record
        current = record.passes[0].order[0]
        view = picture(app)
        assert view.cursor == selected(app) == current and view.whole
        assert set(view.nodes) == {n.id for n in record.nodes.values() if n.pass_index == 0 and n.op != CONSTANT}
        box = view.picture.boxes[current]
        screen = screen_text(app).splitlines()
        # The current step: a double border with its marker; the root (the loss) at the bottom.
        top = screen[box.top - round(view.scroll_offset.y) + 1]  # (the view bar is the screen's first row)
        assert "╔▶═" in top and all(b.bottom <= box.bottom for b in view.picture.boxes.values())
        assert "mean" in screen_text(app) and "matmul" in screen_text(app) and "model.fc2" in screen_text(app)


@pytest.mark.slow
async def test_up_goes_to_an_input_down_to_a_consumer_and_sideways_along_the_layer():
    app = GraphscopeApp(Debuggee(mlp_record(), "snap.json"))
    async with app.run_test(size=(120, 40)) as pilot:
        await open_picture(pilot, app)
        record = app.debuggee.record
        view = picture(app)
        start = view.cursor
        await pilot.press("up")
        await wait_for(pilot, lambda: view.cursor != start)
        first = view.cursor
        assert first in tensor_inputs(record, start)
        await wait_for(pilot, lambda: selected(app) == first)  # the details follow the cursor
        for _ in range(20):  # up to the top of the picture, where up does nothing
            if not tensor_inputs(record, view.cursor):
                break
            await pilot.press("up")
            await pilot.pause()
        top = view.cursor
        assert not tensor_inputs(record, top)
        await pilot.press("up")
        await pilot.pause()
        assert view.cursor == top
        layer = view.picture.ranks[view.picture.boxes[top].rank]
        assert len(layer) > 1
        await pilot.press("home")  # (not the picture's: nothing moves)
        for _ in range(len(layer)):
            await pilot.press("left")
        await wait_for(pilot, lambda: view.cursor == layer[0])
        await pilot.press("right")
        await wait_for(pilot, lambda: view.cursor == layer[1])
        before = view.cursor
        await pilot.press("down")
        await wait_for(pilot, lambda: view.cursor != before)
        assert before in tensor_inputs(record, view.cursor)
        assert selected(app) == view.cursor


@pytest.mark.slow
async def test_enter_selects_the_node_in_the_graph_view():
    app = GraphscopeApp(Debuggee(mlp_record(), "snap.json"))
    async with app.run_test(size=(120, 40)) as pilot:
        await open_picture(pilot, app)
        await pilot.press("up", "up")
        await pilot.pause()
        chosen = picture(app).cursor
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.query_one("#views").current == "graph")
        tree = app.query_one(GraphTree)
        assert tree.cursor_item.node == chosen and selected(app) == chosen and tree.has_focus
        await pilot.press("d")  # back: the picture around the node selected
        await wait_for(pilot, lambda: app.query_one("#views").current == "picture")
        assert picture(app).cursor == chosen


async def test_stepping_moves_the_double_border_and_nan_boxes_are_red():
    app = GraphscopeApp(Debuggee(nan_record(), "snap.json"))
    async with app.run_test(size=(120, 40)) as pilot:
        await open_picture(pilot, app)
        await pilot.press("C", "p")  # to the end, and back to pass 1's last step: the matmul the NaN came from
        record = app.debuggee.record
        await wait_for(pilot, lambda: app.debuggee.state.node == record.passes[1].order[-1])
        view = picture(app)
        await wait_for(pilot, lambda: view.cursor == app.debuggee.state.node)
        assert record.nodes[view.cursor].pass_index == 1
        looks = {n: view._look(n, app.moment.marks(n)) for n in view.nodes}
        assert looks[view.cursor].border == "double"
        red = [n for n in view.nodes if app.moment.nonfinite(n)]
        assert red and all(looks[n].style.color.name == "red" and "!" in looks[n].badge.plain for n in red)
        fine = [n for n in view.nodes if not app.moment.nonfinite(n) and n != view.cursor]
        assert fine and all(looks[n].style.color is None for n in fine)


async def test_names_from_the_script_are_drawn_as_they_are():
    app = GraphscopeApp(Debuggee(hostile_record(), "snap.json"))
    async with app.run_test(size=(160, 60)) as pilot:
        await open_picture(pilot, app)
        await pilot.press("left", "left")
        await pilot.pause()
        text = screen_text(app)
        for hostile in HOSTILE:
            assert f"op{hostile}" in text or f"model.{hostile}" in text
        assert app.is_running  # the [@click=app.quit] module did not quit it


async def test_the_view_says_what_to_do_when_nothing_is_selected():
    app = GraphscopeApp(Debuggee(mlp_record(), "snap.json"))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: selected(app) is not None)
        await app.views.choose("picture", None)  # shown before any node is revealed to it
        await wait_for(pilot, lambda: "select one in another view (v)," in screen_text(app))
        assert picture(app).cursor is None


def test_the_readme_shows_the_dag_view_and_its_limit():
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    section = readme.split("### Seeing the graph", 1)[1].split("\n## ", 1)[0]
    assert "![The dag view" in section and "(docs/dag-view.svg)" in section
    assert (Path(__file__).resolve().parents[2] / "docs" / "dag-view.svg").is_file()
    assert f"at most {PICTURE_LIMIT} nodes" in section


@pytest.mark.slow
async def test_a_big_graph_is_drawn_around_the_node_and_up_past_its_edge_draws_it_again():
    app = GraphscopeApp(Debuggee(chain_record(300), "snap.json"))
    async with app.run_test(size=(120, 40)) as pilot:
        await open_picture(pilot, app)
        view = picture(app)
        first = set(view.nodes)
        assert not view.whole and len(first) <= PICTURE_LIMIT and view.cursor in first
        edge = [n for n in first if any(i not in first for i in tensor_inputs(app.debuggee.record, n))]
        assert edge and all(view._look(n, app.moment.marks(n)).above.startswith("+") for n in edge)
        inside = [n for n in first if n not in edge]
        assert all(view._look(n, app.moment.marks(n)).above == "" for n in inside)
        (top,) = edge  # a chain: its first node drawn
        assert view.reveal_node(top) and view.cursor == top
        await pilot.press("up")  # to its input, past the picture's edge: drawn around the cursor again
        await wait_for(pilot, lambda: view.cursor != top)
        assert view.cursor == top - 1 and view.cursor not in first and top - 1 in view.nodes
        assert selected(app) == view.cursor


def picture_on_screen(app, view) -> list[str]:
    """The view's rows as the screen shows them."""
    region = view.scrollable_content_region
    lines = screen_text(app).splitlines()
    return [lines[y][region.x : region.right] for y in range(region.y, region.bottom)]


def picture_drawn_anew(app, view) -> list[str]:
    """The view's rows from a drawing made now, cropped to the view."""
    looks = {n: view._look(n, app.moment.marks(n)) for n in view.nodes}
    rows = [row.text for row in draw(view.picture, looks, (view.cursor,))]
    x, y = view.scroll_offset
    width, height = view.scrollable_content_region.size
    shown = [row[x : x + width].ljust(width) for row in rows[y : y + height]]
    return shown + [" " * width] * (height - len(shown))


@pytest.mark.slow
async def test_a_step_repaints_only_the_rows_that_change_and_the_screen_shows_the_picture_drawn_anew():
    app = GraphscopeApp(Debuggee(mlp_record(), "snap.json"))
    async with app.run_test(size=(120, 40)) as pilot:
        await open_picture(pilot, app)
        view = picture(app)
        await until_still(pilot)
        scrolled, height = view.scroll_offset, view.scrollable_content_region.height
        asked: list[tuple] = []
        refresh = view.refresh
        view.refresh = lambda *regions, **kwargs: asked.append(regions) or refresh(*regions, **kwargs)
        for _ in range(3):
            start = view.cursor
            await pilot.press("n")
            await wait_for(pilot, lambda start=start: view.cursor != start)
            await until_still(pilot)
            assert view.scroll_offset == scrolled  # (the boxes stepped through are in view: nothing scrolls)
            assert asked and all(asked), asked  # lines, never the whole view
            lines = {y + scrolled.y for regions in asked for region in regions for y in range(region.y, region.bottom)}
            box = view.picture.boxes[view.cursor]
            assert set(range(box.top, box.bottom + 1)) <= lines < set(range(scrolled.y, scrolled.y + height))
            assert picture_on_screen(app, view) == picture_drawn_anew(app, view)
            asked.clear()


@pytest.mark.slow
async def test_a_layout_of_the_screen_that_changes_no_size_leaves_the_picture_s_scrollbars_alone():
    """Textual's ScrollView repaints its scrollbars on every layout of the screen (the app lays out on most
    steps): the picture's only when its size or its view's changed."""
    app = GraphscopeApp(Debuggee(mlp_record(), "snap.json"))
    async with app.run_test(size=(80, 24)) as pilot:
        await open_picture(pilot, app)
        view = picture(app)
        await until_still(pilot)
        assert view.show_vertical_scrollbar and view.show_horizontal_scrollbar
        bars = (view.vertical_scrollbar, view.horizontal_scrollbar)
        repainted: list[object] = []
        for bar in bars:
            refresh = bar.refresh
            bar.refresh = lambda *regions, refresh=refresh, bar=bar, **kwargs: (
                repainted.append(bar) or refresh(*regions, **kwargs)
            )
        app.screen.refresh(layout=True)
        await until_still(pilot)
        assert not repainted
        await pilot.resize_terminal(90, 24)  # a size that changes: the scrollbars fitted to it
        await until_still(pilot)
        assert set(repainted) == set(bars)


async def test_laying_out_the_same_nodes_again_keeps_the_picture_drawn():
    """A live record grows by a pass at a time: the picture of an earlier pass stays as drawn."""
    app = GraphscopeApp(Debuggee(mlp_record(), "snap.json"))
    async with app.run_test(size=(120, 40)) as pilot:
        await open_picture(pilot, app)
        view = picture(app)
        drawn = view.picture
        view._centre(view.cursor)
        assert view.picture is drawn
        other = next(n.id for n in app.debuggee.record.nodes.values() if n.pass_index == 1 and n.op != CONSTANT)
        assert view.reveal_node(other) and view.picture is not drawn and other in view.picture.boxes

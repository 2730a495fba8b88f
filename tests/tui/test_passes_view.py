"""Every pass has a row with its loss; the passes not kept in detail say why, in the passes list and the graph."""

from graphscope.tui.graph_tree import GraphTree
from graphscope.tui.moment import Moment
from graphscope.tui.passes_view import PassesView
from graphscope.tui.record_index import RecordIndex
from graphscope.tui.wording import counted, runs
from tests.hand_records import mlp_record
from tests.tui.tui_pilot import wait_for_text
from tests.tui.tui_screen import screen_text
from tests.tui.tui_widget import WidgetApp


def trimmed_record():
    """Five passes; 1 to 3 trimmed by the recording policy, one node of pass 2 still in the record."""
    record = mlp_record(passes=5, losses=[1.5, 1.25, 1.125, 1.0625, 0.5])
    for p in record.passes[1:4]:
        p.detailed, p.root, p.order, p.steps = False, None, (), []
    keep = max(n.id for n in record.nodes.values() if n.pass_index == 2)
    for node in [n for n in record.nodes.values() if n.pass_index in (1, 2, 3) and n.id != keep]:
        del record.nodes[node.id]
    record.nodes[keep].inputs = ()
    return record


def test_counts_read_right():
    assert [counted(n, "node") for n in (0, 1, 2, 12345)] == ["0 nodes", "1 node", "2 nodes", "12,345 nodes"]
    assert counted(1, "pass", "passes") == "1 pass" and counted(3, "pass", "passes") == "3 passes"


def test_runs_of_numbers():
    assert runs([1, 2, 3, 7, 9, 10]) == "1–3, 7, 9–10"
    assert runs([5]) == "5"


async def test_every_pass_has_a_row_with_its_loss_and_the_missing_detail_is_explained():
    record = trimmed_record()
    view = PassesView()
    async with WidgetApp(view).run_test(size=(90, 30)) as pilot:
        view.show_passes(Moment(RecordIndex(record)))
        await wait_for_text(pilot, "passes 1–3 not kept in detail (recording policy): loss and grad norms only")
        table = view.query_one("#pass-table")
        assert table.row_count == 5
        rows = [[str(cell) for cell in table.get_row_at(i)] for i in range(5)]
        assert [row[0] for row in rows] == ["0", "1", "2", "3", "4"]
        assert [row[2] for row in rows] == ["1.5", "1.25", "1.125", "1.062", "0.5"]
        assert [row[1] for row in rows] == ["✓", "·", "·", "·", "✓"]


async def test_the_graph_says_which_passes_it_does_not_show_and_why():
    record = trimmed_record()
    tree = GraphTree()
    async with WidgetApp(tree).run_test(size=(100, 30)) as pilot:
        index = RecordIndex(record)
        tree.show_roots(Moment(index), index.roots())
        await wait_for_text(pilot, "pass 2 · its backward was not kept · 1 output")
        shown = screen_text(pilot.app)
    order = [
        shown.index(text)
        for text in (
            "pass 0 ",
            "pass 1 not kept in detail (recording policy)",
            "pass 2 · its backward",
            "pass 3 not kept in detail",
            "pass 4 ",
        )
    ]
    assert order == sorted(order)
    assert "1 outputs" not in shown


async def test_a_long_parameter_name_keeps_its_tail_in_the_grad_norms():
    record = mlp_record(passes=1)
    record.passes[0].grad_norms = {
        "encoder.layers.11.attention.output.dense.weight": 0.5,
        "encoder.layers.11.attention.output.dense.bias": 0.25,
    }
    view = PassesView()
    async with WidgetApp(view).run_test(size=(90, 30)) as pilot:
        view.show_passes(Moment(RecordIndex(record)))
        await wait_for_text(pilot, "attention.output.dense.weight")
        await wait_for_text(pilot, "attention.output.dense.bias")


def test_the_app_draws_the_same_sparkline_and_histogram_as_the_headless_summary():
    from graphscope.trace.report.drawing import histogram_rows, loss_sparkline
    from graphscope.tui.histogram import histogram_text
    from graphscope.tui.passes_view import loss_sparkline as app_sparkline

    losses = [3.0, 2.0, None, float("nan"), 1.0, 1.0]
    assert app_sparkline(losses, 60).plain == loss_sparkline(losses, 60)
    assert histogram_text((1, 4, 0, 2), 3).plain == "".join(row + "\n" for row in histogram_rows((1, 4, 0, 2), 3))

"""The graph picture's layout and drawing: boxes never overlap, every edge runs from its input's box to its
consumer's, the picture around a node is the whole graph when small and a few hops of it when not."""

import random
import subprocess
import sys

import pytest
from rich.style import Style
from rich.text import Text

from graphscope.tui.graph_canvas import ARROW, BORDERS, DOWN, LEFT, LINES, RIGHT, UP, BoxLook, Drawing, draw
from graphscope.tui.graph_layout import layout
from graphscope.tui.graph_neighbourhood import neighbourhood
from tests.graphscope_command import env


def random_dag(n: int, seed: int, fan: int = 2) -> tuple[dict[int, int], list[tuple[int, int]]]:
    rng = random.Random(seed)
    widths = {i: rng.randint(8, 28) for i in range(n)}
    edges = [(j, i) for i in range(1, n) for j in rng.sample(range(max(0, i - 6), i), min(i, rng.randint(1, fan)))]
    return widths, edges


GRAPHS = {
    "chain": ({i: 10 for i in range(6)}, [(i, i + 1) for i in range(5)]),
    "fan-in": ({i: 12 for i in range(9)}, [(i, 8) for i in range(8)]),
    "fan-out": ({i: 12 for i in range(9)}, [(0, i) for i in range(1, 9)]),
    "skip": ({i: 10 for i in range(5)}, [(0, 1), (1, 2), (2, 3), (3, 4), (0, 4), (1, 4)]),
    "two parts": ({i: 10 for i in range(4)}, [(0, 1), (2, 3)]),
    "random 40": random_dag(40, 1),
    "random 100": random_dag(100, 2, fan=3),
}


@pytest.mark.parametrize("name", GRAPHS)
def test_no_two_boxes_overlap_and_each_layer_is_a_row_of_boxes(name):
    widths, edges = GRAPHS[name]
    picture = layout(widths, edges, 4)
    assert set(picture.boxes) == set(widths)
    boxes = list(picture.boxes.values())
    for i, a in enumerate(boxes):
        assert (a.width, a.height) == (widths[a.node], 4)
        assert a.left >= 0 and a.top >= 0 and a.right < picture.width and a.bottom < picture.height
        assert a.top == picture.tops[a.rank]
        for b in boxes[i + 1 :]:
            apart = a.right < b.left or b.right < a.left or a.bottom < b.top or b.bottom < a.top
            assert apart, (a, b)
    for rank, layer in enumerate(picture.ranks):
        lefts = [picture.boxes[n].left for n in layer]
        assert lefts == sorted(lefts) and all(picture.boxes[n].rank == rank for n in layer)


@pytest.mark.parametrize("name", GRAPHS)
def test_every_edge_runs_from_its_input_s_box_down_to_its_consumer_s_past_the_other_boxes(name):
    widths, edges = GRAPHS[name]
    picture = layout(widths, edges, 4)
    assert sorted((r.source, r.target) for r in picture.routes) == sorted(set(edges))
    for route in picture.routes:
        source, target = picture.boxes[route.source], picture.boxes[route.target]
        assert source.rank < target.rank
        assert len(route.columns) == target.rank - source.rank + 1 == len(route.tracks) + 1
        assert source.left < route.columns[0] < source.right  # out through the bottom border, not a corner
        assert target.left < route.columns[-1] < target.right
        for i, track in enumerate(route.tracks):  # each run in the gap below its layer, above the arrows' row
            assert source.bottom < picture.tops[source.rank + i] + 4 <= track < picture.tops[source.rank + i + 1] - 1
        for i, column in enumerate(route.columns[1:-1]):  # past a layer between them: beside its boxes
            rank = source.rank + 1 + i
            assert not any(picture.boxes[n].left <= column <= picture.boxes[n].right for n in picture.ranks[rank])


def test_inputs_are_above_their_consumers_and_unconnected_parts_side_by_side():
    widths, edges = GRAPHS["two parts"]
    picture = layout(widths, edges, 4)
    boxes = picture.boxes
    assert boxes[0].rank == boxes[2].rank == 0 and boxes[1].rank == boxes[3].rank == 1
    assert boxes[0].right < boxes[2].left or boxes[2].right < boxes[0].left


def trace(rows: list[str], x: int, y: int) -> tuple[int, int]:
    """Follow the line that starts going down at (x, y) to its arrow; the arrow's cell."""
    bits = {char: mask for mask, char in LINES.items() if bin(mask).count("1") == 2}
    heading = DOWN
    came_from = {DOWN: UP, UP: DOWN, LEFT: RIGHT, RIGHT: LEFT}
    step = {DOWN: (0, 1), UP: (0, -1), LEFT: (-1, 0), RIGHT: (1, 0)}
    for _ in range(10_000):
        char = rows[y][x]
        if char == ARROW:
            return x, y
        mask = bits.get(char)
        if mask is not None and mask & came_from[heading]:  # a bend or a straight piece: the other way out
            heading = mask & ~came_from[heading]
        # a crossing or a junction: straight on
        dx, dy = step[heading]
        x, y = x + dx, y + dy
    raise AssertionError("the line never ends")


@pytest.mark.parametrize("name", ["chain", "fan-in", "fan-out", "skip"])
def test_the_drawn_line_from_each_exit_mark_ends_in_an_arrow_over_its_consumer(name):
    widths, edges = GRAPHS[name]
    picture = layout(widths, edges, 4)
    looks = {n: BoxLook((Text(f"n{n}"),)) for n in widths}
    rows = [row.text for row in draw(picture, looks)]
    for route in picture.routes:
        source, target = picture.boxes[route.source], picture.boxes[route.target]
        assert rows[source.bottom][route.columns[0]] == BORDERS["plain"][1]
        x, y = trace(rows, route.columns[0], source.bottom + 1)
        assert y == target.top - 1 and target.left < x < target.right, route


def test_a_box_shows_its_lines_and_markers_and_the_border_its_look_asks_for():
    picture = layout({1: 14, 2: 14}, [(1, 2)], 4)
    looks = {
        1: BoxLook((Text("matmul"), Text("3×4 f32")), Text("✓")),
        2: BoxLook((Text("[bold]x"),), Text("▶"), "double"),
    }
    rows = [row.text for row in draw(picture, looks)]
    a, b = picture.boxes[1], picture.boxes[2]
    assert rows[a.top][a.left : a.right + 1] == "╭✓" + "─" * 11 + "╮"
    assert rows[a.top + 1][a.left : a.right + 1] == "│ matmul     │"
    assert rows[a.top + 2][a.left : a.right + 1] == "│ 3×4 f32    │"
    assert rows[b.top][b.left : b.right + 1] == "╔▶" + "═" * 11 + "╗"
    assert rows[b.top + 1][b.left : b.right + 1] == "║ [bold]x    ║"  # literal text, never markup
    assert rows[b.bottom][b.left : b.right + 1] == "╚" + "═" * 12 + "╝"


def test_a_box_s_notes_on_its_borders_say_how_many_inputs_and_consumers_are_not_drawn():
    picture = layout({1: 12}, [], 4)
    rows = [row.text for row in draw(picture, {1: BoxLook((Text("relu"),), Text("✓"), above="+2", below="+13")})]
    assert rows == ["╭✓───────+2╮", "│ relu     │", "│          │", "╰───────+13╯"]


def test_a_wide_character_takes_two_cells_and_the_border_stays_in_place():
    picture = layout({1: 10}, [], 3)
    rows = [row.text for row in draw(picture, {1: BoxLook((Text("图图图图"),))})]
    assert rows[1] == "│ 图图图 │"  # the fourth does not fit: cut, not pushed over the border


def looks_of(widths):
    """Three looks for each node, one object each (a drawing tells looks apart by identity): plain, the
    current step's, and under the cursor with a note."""
    return {
        n: (
            BoxLook((Text(f"n{n}"), Text("3×4 f32", "dim"))),
            BoxLook((Text(f"n{n}"),), Text("▶"), "double", Style(color="yellow", bold=True)),
            BoxLook((Text(f"n{n}"),), Text("✓"), "heavy", Style(color="cyan"), Style(bgcolor="grey23"), above="+1"),
        )
        for n in widths
    }


@pytest.mark.parametrize("name", ["skip", "fan-in", "random 40"])
def test_updates_draw_what_a_fresh_drawing_draws_and_name_every_row_they_change(name):
    widths, edges = GRAPHS[name]
    picture = layout(widths, edges, 4)
    kinds = looks_of(widths)
    rng = random.Random(7)
    chosen = dict.fromkeys(widths, 0)
    near: list[int] = []
    drawing = Drawing(picture)
    assert drawing.update({n: kinds[n][0] for n in widths}) == set(range(picture.height))
    before = [drawing.row(y) for y in range(picture.height)]
    named: set[int] = set()
    for turn in range(40):
        for n in rng.sample(list(widths), 2):
            chosen[n] = rng.randrange(3)
        near = rng.sample(list(widths), rng.randrange(3))
        looks = {n: kinds[n][k] for n, k in chosen.items()}
        named |= drawing.update(looks, near)
        if turn % 3 == 1:
            continue  # two updates before the rows are asked for: drawn once, as the last asked
        rows = [drawing.row(y) for y in range(picture.height)]
        assert rows == draw(picture, looks, near), turn
        assert all(rows[y] is before[y] for y in range(picture.height) if y not in named), turn  # not drawn again
        before, named = rows, set()


def test_an_update_that_changes_one_box_names_only_its_rows():
    widths, edges = GRAPHS["chain"]
    picture = layout(widths, edges, 4)
    kinds = looks_of(widths)
    drawing = Drawing(picture)
    drawing.update({n: kinds[n][0] for n in widths})
    drawing.row(0)  # drawn
    box = picture.boxes[3]
    assert drawing.update({n: kinds[n][1 if n == 3 else 0] for n in widths}) == set(range(box.top, box.bottom + 1))
    assert drawing.update({n: kinds[n][1 if n == 3 else 0] for n in widths}) == set()  # the same again: nothing


def chain(n):
    return (lambda i: [i - 1] if i > 0 else []), (lambda i: [i + 1] if i < n - 1 else [])


def test_a_small_graph_is_drawn_whole():
    inputs, consumers = chain(10)
    assert neighbourhood(4, inputs, consumers) == (list(range(10)), True)


def test_a_big_graph_is_drawn_a_few_hops_around_the_node():
    inputs, consumers = chain(1000)
    shown, whole = neighbourhood(500, inputs, consumers, limit=40)
    assert not whole and shown == list(range(481, 520))  # 19 hops each way: a 20th would make 41


def test_a_node_with_more_neighbours_than_fit_shows_the_first_of_them():
    consumers = {0: list(range(1, 100))}
    shown, whole = neighbourhood(0, lambda i: [0] if i else [], lambda i: consumers.get(i, []), limit=40)
    assert not whole and shown == list(range(40))


LAY_OUT = (
    "from tests.tui.test_graph_layout import GRAPHS; from graphscope.tui.graph_layout import layout; "
    "print(repr(layout(*GRAPHS['random 100'], 4)))"
)


@pytest.mark.slow
def test_the_same_graph_is_laid_out_the_same_in_every_process():
    """Nothing in the layout may follow the order of a set of objects (their addresses change each run)."""
    runs = {
        subprocess.run([sys.executable, "-c", LAY_OUT], env=env(), capture_output=True, text=True).stdout
        for _ in range(3)
    }
    assert len(runs) == 1 and "Layout(" in runs.pop()

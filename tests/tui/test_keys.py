"""The key table: every row it binds runs an app action, is on the help screen and in the palette
where it says, and applies in the states it says (the same answers the app's check_action gives)."""

import io

import pytest
from rich.console import Console

from graphscope.session import Debuggee, SessionState, State
from graphscope.tui import keys
from graphscope.tui.app import GraphscopeApp
from graphscope.tui.help_screen import help_renderable
from tests.hand_records import mlp_record


def test_every_bound_key_runs_an_action_of_the_app():
    for key in keys.KEYS:
        if key.bind:
            assert callable(getattr(GraphscopeApp, f"action_{key.name}", None)), key


def test_the_bindings_are_the_table_s_bound_rows_in_its_order():
    bound = [key for key in keys.KEYS if key.bind]
    assert [(b.key, b.action, b.description, b.show) for b in GraphscopeApp.BINDINGS] == [
        (k.bind, k.action, k.label, k.footer) for k in bound
    ]


def test_every_bound_key_has_a_help_line_or_shares_the_one_before():
    previous = None
    for key in keys.KEYS:
        if key.bind and not key.help:
            assert previous is not None and previous.name == key.name, key
        previous = key


def test_the_help_screen_shows_every_described_row_in_its_group():
    groups = dict(keys.help_groups())
    assert list(groups) == ["Stepping through backward", "Finding things", "Views", "The run"]
    described = [key for key in keys.KEYS if key.help]
    assert sum(len(rows) for rows in groups.values()) == len(described)
    for key in described:
        assert (key.shown, key.help) in groups[key.group]
    console = Console(width=200, record=True, file=io.StringIO())
    console.print(help_renderable())
    lines = console.export_text().splitlines()
    for key in described:
        assert any(line.split() == [*key.shown.split(), *key.help.split()] for line in lines), key


def test_the_palette_runs_bound_actions_with_their_titles():
    palette = keys.palette()
    bound = {key.action for key in keys.KEYS if key.bind}
    assert palette and all(action in bound for _, _, action in palette)
    assert ("Step", "Run the next node's backward (n, space)", "step") in palette
    assert all(title and help_text for title, help_text, _ in palette)


@pytest.mark.parametrize(
    ("action", "kind", "live", "applies"),
    [
        ("step", State.STARTING, True, False),
        ("step", State.PAUSED, True, True),
        ("step_back", State.RUNNING, True, False),
        ("step_back", State.FINISHED, False, True),
        ("interrupt", State.RUNNING, True, True),
        ("interrupt", State.PAUSED, True, False),
        ("continue", State.FINISHED, True, False),
        ("continue", State.FINISHED, False, True),  # a snapshot walks back to the start and on again
        ("run_to_end", State.FAILED, True, False),
        ("export", State.RUNNING, True, False),
        ("export", State.PAUSED, True, True),
        ("goto_current", State.STARTING, False, False),
        ("resize_tree", State.STARTING, True, True),
    ],
)
def test_when_a_key_applies(action, kind, live, applies):
    assert keys.BY_ACTION[action].applies(kind, live) is applies


async def test_check_action_answers_from_the_table():
    app = GraphscopeApp(Debuggee(mlp_record(), "mlp.json"))
    async with app.run_test():
        assert app.debuggee.state.kind == State.FINISHED
        assert app.check_action("continue", ()) is True
        assert app.check_action("interrupt", ()) is None  # dimmed: nothing runs
        assert app.check_action("quit", ()) is True
        assert app.check_action("command_palette", ()) is True  # not the table's: Textual's own


def test_a_state_given_as_a_string_is_a_state():
    assert SessionState(kind="paused").kind is State.PAUSED
    assert State.FAILED.over and not State.PAUSED.over
    assert State.STARTING.busy and not State.STOPPED.busy
    with pytest.raises(ValueError, match="'resting' is not a valid State"):
        SessionState(kind="resting")

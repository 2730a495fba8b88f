"""The export dialog: a default path in the current directory that never overwrites, and it says which key does what."""

import os

from textual.widgets import Static

from graphscope.tui.export_dialog import ExportDialog, default_export_path
from tests.tui.tui_pilot import wait_for, wait_for_text
from tests.tui.tui_screen import screen_text
from tests.tui.tui_widget import WidgetApp


def test_the_default_path_is_in_the_current_directory_not_beside_the_script(tmp_path, monkeypatch):
    here, project = tmp_path / "here", tmp_path / "project"
    here.mkdir()
    project.mkdir()
    monkeypatch.chdir(here)
    path = default_export_path(str(project / "model.py"))
    assert path == os.path.join(".", "model-snapshot.json")
    assert os.path.abspath(path) == str(here / "model-snapshot.json")


def test_the_default_path_never_overwrites(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "model-snapshot.json").write_text("{}")
    (tmp_path / "model-snapshot-2.json").write_text("{}")
    assert default_export_path("elsewhere/model.py") == os.path.join(".", "model-snapshot-3.json")


def test_a_snapshot_or_no_script_gets_a_sensible_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert default_export_path("runs/model-snapshot.json") == os.path.join(".", "model-snapshot.json")
    assert default_export_path("") == os.path.join(".", "graphscope-snapshot.json")


async def test_the_dialog_says_enter_writes_and_escape_cancels():
    app = WidgetApp(Static("behind"))
    chosen = []
    async with app.run_test(size=(100, 20)) as pilot:
        app.push_screen(ExportDialog("./model-snapshot.json"), chosen.append)
        await wait_for_text(pilot, "Enter writes it, Escape cancels.")
        assert "./model-snapshot.json" in screen_text(app)
        await pilot.press("escape")
        await wait_for(pilot, lambda: chosen == [None])

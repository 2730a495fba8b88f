"""The footer is rebuilt when the keys it shows change (a key added, gone or dimmed), not whenever the focus moves
or the bindings are refreshed with the same keys (Textual's Footer rebuilds then, laying out the screen)."""

from typing import ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets._footer import FooterKey

from graphscope.tui.key_footer import KeyFooter
from tests.tui.tui_pilot import until_still


class Pane(Widget, can_focus=True):
    """A focusable pane with no keys of its own."""


class Editor(Widget, can_focus=True):
    """A focusable pane that adds a key to the footer."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("x", "cut", "Cut")]


class Keys(App[None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("s", "save", "Save")]

    def __init__(self):
        super().__init__()
        self.saving = True  # whether Save applies (dimmed in the footer when not)

    def compose(self) -> ComposeResult:
        yield Pane(id="one")
        yield Pane(id="two")
        yield Editor(id="editor")
        yield KeyFooter(compact=True)

    def check_action(self, action: str, _parameters) -> bool | None:
        return None if action == "save" and not self.saving else True


def shown(app) -> list[FooterKey]:
    return list(app.query(FooterKey))


async def test_the_footer_keeps_its_keys_while_the_focus_moves_between_panes_with_the_same_keys():
    app = Keys()
    async with app.run_test() as pilot:
        app.query_one("#one").focus()
        await until_still(pilot)
        keys = shown(app)
        assert [k.description for k in keys] == ["Save", "palette"]
        app.query_one("#two").focus()
        app.screen.refresh_bindings()
        await until_still(pilot)
        assert shown(app) == keys  # the same widgets: not rebuilt


async def test_the_footer_is_rebuilt_when_a_key_comes_goes_or_is_dimmed():
    app = Keys()
    async with app.run_test() as pilot:
        app.query_one("#one").focus()
        await until_still(pilot)
        app.query_one("#editor").focus()
        await until_still(pilot)
        assert [k.description for k in shown(app)] == ["Cut", "Save", "palette"]
        app.query_one("#one").focus()
        await until_still(pilot)
        assert [k.description for k in shown(app)] == ["Save", "palette"]
        app.saving = False
        app.screen.refresh_bindings()
        await until_still(pilot)
        assert [(k.description, k.has_class("-disabled")) for k in shown(app)] == [("Save", True), ("palette", False)]


class Dialog(ModalScreen[None]):
    """A dialog with no footer of its own: the app's keys are off while it is open."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "dismiss", "Close")]


class KeysWithDialog(Keys):
    def check_action(self, action: str, _parameters) -> bool | None:
        return False if isinstance(self.screen, ModalScreen) else super().check_action(action, _parameters)


async def test_the_footer_under_a_dialog_is_not_rebuilt_while_the_dialog_opens_and_closes():
    app = KeysWithDialog()
    async with app.run_test() as pilot:
        app.query_one("#one").focus()
        await until_still(pilot)
        keys = shown(app)
        await app.push_screen(Dialog())
        await until_still(pilot)
        assert list(app.screen_stack[0].query(FooterKey)) == keys  # under the dialog: the keys as they were
        app.screen.dismiss()
        await until_still(pilot)
        assert shown(app) == keys  # back on top with the same keys: the same widgets, not rebuilt twice


async def test_the_footer_shows_keys_that_changed_under_a_dialog_once_its_screen_is_back_on_top():
    app = KeysWithDialog()
    async with app.run_test() as pilot:
        app.query_one("#one").focus()
        await until_still(pilot)
        await app.push_screen(Dialog())
        await until_still(pilot)
        app.saving = False
        app.screen_stack[0].refresh_bindings()
        await until_still(pilot)
        app.screen.dismiss()
        await until_still(pilot)
        assert [(k.description, k.has_class("-disabled")) for k in shown(app)] == [("Save", True), ("palette", False)]

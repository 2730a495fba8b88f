"""KeyFooter: Textual's footer of bindings, rebuilt only when the keys it shows change, not on every focus move
nor while a dialog covers it."""

from __future__ import annotations

from textual.screen import Screen
from textual.widgets import Footer


class KeyFooter(Footer):
    """Textual's Footer rebuilds itself (unmounts and mounts a widget per key, and lays out the screen)
    whenever the screen says its bindings may have changed: on every focus move, view switch and state
    change. This one rebuilds when the keys, their words or whether each applies differ from what it shows, and
    not while its screen is under a dialog: the keys a dialog turns off would be rebuilt away and back as it opens
    and closes (laying out the screen each time); its screen back on top refreshes its bindings, and then it
    rebuilds if they changed meanwhile."""

    def __init__(self, *, compact: bool = False) -> None:
        super().__init__(compact=compact)
        self._shown: tuple | None = None  # what the last rebuild showed

    def bindings_changed(self, screen: Screen) -> None:
        if screen is not screen.app.screen:
            return  # under a dialog: nothing to rebuild until its screen is back on top
        if not (screen.app.app_focus and self.is_attached and screen is self.screen):
            super().bindings_changed(screen)  # no rebuild follows: nothing is recorded as shown
            return
        shown = tuple(
            (binding, enabled, tooltip)
            for key, (_, binding, enabled, tooltip) in screen.active_bindings.items()
            if binding.show or key == screen.app.COMMAND_PALETTE_BINDING
        )
        if shown != self._shown:
            self._shown = shown
            super().bindings_changed(screen)

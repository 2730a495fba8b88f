"""QuitCheck: stops a run that nothing can pause at its script's next engine event, once it quits, so that
such a run needs no step gate listening to every op while it runs."""

from __future__ import annotations

import threading

from graphscope.engine.hooks import Observer

from .script_runner import SessionQuit


class QuitCheck(Observer):
    """Raises SessionQuit on the script's thread at its next forward op, backward pass, backward step
    or optimizer step (the events where the step gate checks for quitting); other threads run on.

    It is installed once the run quits, from whichever thread asks, so it names the script's thread
    itself instead of hearing only the thread that installs it."""

    def __init__(self, script_thread: int) -> None:
        self.script_thread = script_thread

    def node_created(self, node: object, inputs: object, output: object, site: object) -> None:
        self._stop()

    def backward_begun(self, root: object, order: object) -> None:
        self._stop()

    def before_node(self, node: object, grad_output: object) -> None:
        self._stop()

    def optimizer_step_begun(self, optimizer: object) -> None:
        self._stop()

    def _stop(self) -> None:
        if threading.get_ident() == self.script_thread:
            raise SessionQuit()

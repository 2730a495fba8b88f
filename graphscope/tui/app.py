"""GraphscopeApp: the debugger's screen: follows the debuggee's state into the views, the selected node, the
stepper and the console, and runs the keys of the key table (tui/keys.py)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterable
from functools import partial
from typing import ClassVar

from textual import work
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import BindingType
from textual.containers import Horizontal
from textual.message import Message
from textual.screen import ModalScreen, Screen

from graphscope.session import Breakpoint, NodeKey, State
from graphscope.trace import snapshot
from graphscope.trace.record.comparison import Against

from . import keys
from .breakpoints_screen import BreakpointsScreen
from .console_pane import ConsolePane
from .ending import ending
from .export_dialog import ExportDialog, default_export_path
from .expression_line import ExpressionLine
from .find_dialog import FindDialog
from .findings_view import FindingsView
from .gradcheck_screen import GradcheckScreen
from .graph_picture import GraphPicture
from .graph_tree import GraphTree
from .help_screen import HelpScreen
from .key_footer import KeyFooter
from .moment import Moment
from .node_details import NodeDetails
from .outline import Outline
from .record_index import RecordIndex
from .script_input import ScriptInput
from .stepper import Stepper
from .view_bar import ViewBar
from .views import BIG_RECORD, Views

# How long quitting waits for the script's thread to unwind before leaving without it.
QUIT_WAIT = 0.5


class StateChanged(Message):
    """The debuggee's state changed (posted from the script's thread; handled on the UI thread)."""


class GraphscopeApp(App[None]):
    """Shows a record and drives its debuggee: a live Session (`graphscope run`) or a snapshot's
    Debuggee (`graphscope view`); both are one navigation model, so this code does not care which."""

    BINDINGS: ClassVar[list[BindingType]] = keys.bindings()

    CSS = """
    Screen { layout: vertical; }
    #main { height: 1fr; }
    #left {
        width: 40%;
        min-width: 24;
        border-right: solid $primary-muted;
    }
    #left.-wide { width: 65%; }
    #views { height: 1fr; }
    #views > * { height: 1fr; }
    #details { width: 1fr; }
    Screen.-short #console { height: 4; }
    """

    TITLE = "graphscope"

    def __init__(self, debuggee, against: Against | None = None):
        super().__init__()
        self.against = against  # the run held against this one (`view --against`), or None
        self.debuggee = debuggee
        self.source = debuggee.source  # the script or snapshot shown, as the user named it
        self.live = debuggee.live
        self.index = RecordIndex(debuggee.record)
        self.moment = Moment(self.index, None, (), self.live, against)
        self._state_lock = threading.Lock()
        self._state_posted = False
        self._followed: tuple | None = None
        self._panes: Screen | None = None  # the screen the debugger's panes are on, once mounted
        self._details_key: tuple | None = None
        self._quitting = False
        self._preparing = False
        self._bindings_for: State | str | None = ""  # "": the footer has not been built for a state yet
        self.ending: tuple[str, int] | None = None  # a live run's line for stderr and exit status, at quit
        self.updates = 0  # state changes applied (tests and the benchmark wait on it)

    def compose(self) -> ComposeResult:
        with Horizontal(id="main"):
            self.views = Views(self.index, self.moment, self.debuggee.goto_pass, id="left")
            yield self.views
            yield NodeDetails(id="details", against=self.against is not None)
        yield Stepper(id="stepper")
        yield ConsolePane(id="console")
        yield ExpressionLine(self.debuggee, id="expression-line")
        yield ScriptInput(id="script-input")
        yield KeyFooter(compact=True)

    def on_resize(self) -> None:
        self.screen.set_class(self.size.height < 30, "-short")

    def on_mount(self) -> None:
        self._panes = self.screen
        self.on_resize()
        self.query_one(GraphTree).focus()
        self.debuggee.add_listener(self._listener)
        if self.live:
            self.set_interval(0.25, self._tick)
            self.debuggee.start()
        self._apply(self.debuggee.state)

    # --- state from the debuggee -----------------------------------------------------------------

    def _listener(self, _state) -> None:
        """Called on the script's thread: post one message, and let later changes ride on it."""
        with self._state_lock:
            if self._state_posted:
                return
            self._state_posted = True
        self.post_message(StateChanged())

    def on_state_changed(self, _message: StateChanged) -> None:
        with self._state_lock:
            self._state_posted = False
        if not self._torn_down():
            self._apply(self.debuggee.state)

    def _torn_down(self) -> bool:
        """Whether the app is being torn down: messages (a state change, a tree's highlight) still arrive, but
        the panes to show them on are going. Panes under a dialog are kept up to date (no DOM search: every step)."""
        return not self.is_running or self._panes is None or self._panes not in self.screen_stack

    def _tick(self) -> None:
        """While the script runs, its prints arrive without state changes: show them. (The rest of
        the record is read only while the script is paused or over, as the recorder asks.)"""
        state = self.debuggee.state
        if state is not None and state.kind.busy:
            if self.moment.state is not state:
                self._apply(state, now=True)
            else:  # the same state, but the run has moved on: its pass and loss
                self.query_one(Stepper).show(self._moment(state), self.source)
            self._show_console()
            self.query_one(ScriptInput).ask(self.debuggee.prompt)

    def _show_console(self) -> None:
        moment = self.moment
        self.query_one(ConsolePane).show(
            moment.known_console(), moment.record.dropped_console, moment.record.error if moment.shows_error else None
        )

    def _moment(self, state) -> Moment:
        self.moment = Moment(self.index, state, tuple(self.debuggee.breakpoints), self.live, self.against)
        self.views.moment = self.moment
        return self.moment

    def _apply(self, state, now: bool = False) -> None:
        """Repaint everything that depends on the state; follow the cursor of the backward."""
        shown = self.moment.state
        if (
            not now
            and state is not None
            and state.kind == State.RUNNING
            and shown is not None
            and shown.kind == State.PAUSED
        ):
            # A step or a continue has begun: most end in a pause within milliseconds, so the
            # screen changes once, at that pause (the tick shows a run that goes on).
            return
        self.updates += 1
        moment = self._moment(state)
        record = self.index.record
        settled = state is None or not state.kind.busy
        self.query_one(Stepper).show(moment, self.source)
        self._show_console()
        self.query_one(ScriptInput).ask(self.debuggee.prompt)
        if state is None or state.kind != self._bindings_for:
            self._bindings_for = state.kind if state is not None else None
            self.refresh_bindings()  # the footer shows what applies now (it rebuilds: not every step)
        if not settled:
            return  # the script is writing the record: the views wait for the next pause
        if len(record.nodes) > BIG_RECORD and not self.index.fresh() and not self._preparing:
            # A big record's consumers, modules and search text take a while to build: do it
            # off the UI thread once this frame is painted, so jumps and searches are quick.
            self._preparing = True
            self.call_after_refresh(self._prepare_index)
        if not self.views.refresh_view():
            return  # a big record's roots are being found off the UI thread: Views.RootsReady settles
        self._follow(state)

    def _follow(self, state) -> None:
        """Put the views and details on the node at the backward's cursor (or the failing node)."""
        record = self.index.record
        target = None
        if state is not None:
            key = (state.pass_index, state.step, state.kind, state.created)
            if state.node is not None and key != self._followed:
                target = state.node
            elif (
                state.kind == State.FAILED
                and record.error is not None
                and record.error.node is not None
                and key != self._followed
            ):
                target = record.error.node
            elif self.moment.before_optimizer_step and key != self._followed:
                target = next(iter(self.moment.stepped_leaves()), None)  # a parameter the step reads
            self._followed = key
        if target is None and self._details_key is None:
            target = self._first_node()
        if target is not None:
            self.views.reveal(target, switch=False)
        self._show_details(self.query_one(NodeDetails).node_id if target is None else target, force=True)

    def _first_node(self) -> int | None:
        """What to select when nothing is: the root of the state's pass (the one the tree opens),
        else of the last pass, else a node of a forward without backward."""
        roots = self.index.roots()
        state = self.debuggee.state
        position = state.pass_index if state is not None else None
        rooted = [r for r in roots if r.node is not None]
        for root in rooted:
            if position is not None and self.index.pass_list_index(root.pass_index) == position:
                return root.node
        if rooted:
            return rooted[-1].node
        return roots[-1].sinks[0] if roots and roots[-1].sinks else None

    def on_views_roots_ready(self, _message: Views.RootsReady) -> None:
        self._apply(self.debuggee.state)

    @work(thread=True, group="record-index")
    def _prepare_index(self) -> None:
        try:
            self.index.prepare()
        finally:
            self._preparing = False

    # --- the selected node -------------------------------------------------------------------------

    def _show_details(self, node_id: int | None, force: bool = False) -> None:
        key = (node_id, id(self.moment))
        if not force and key == self._details_key:
            return
        self._details_key = key
        if not self._torn_down():
            self.query_one(NodeDetails).show(self.moment, node_id)  # the record alone: live and snapshot alike

    def on_outline_highlighted(self, message: Outline.Highlighted) -> None:
        if message.item.node is not None:
            self._show_details(message.item.node)
        elif message.item.event is not None:
            self._details_key = ("event", id(message.item.event))  # the next node highlighted is shown
            self.query_one(NodeDetails).show_event(self.moment, message.item.event)

    def on_outline_activated(self, message: Outline.Activated) -> None:
        """A step of the current pass: back in time when it has run, else run to it (Views takes links)."""
        item = message.item
        if item.kind in ("step", "note") and item.step is not None:
            self.debuggee.run_to(item.step)

    async def on_view_bar_chosen(self, message: ViewBar.Chosen) -> None:
        if message.view != self.views.current:
            await self.views.choose(message.view, self.query_one(NodeDetails).node_id)

    def on_breakpoints_screen_changed(self, _message: BreakpointsScreen.Changed) -> None:
        self._repaint_marks()

    def _repaint_marks(self) -> None:
        self._moment(self.debuggee.state)
        self.views.repaint_marks()
        self._show_details(self.query_one(NodeDetails).node_id, force=True)

    # --- actions -----------------------------------------------------------------------------------

    def check_action(self, action: str, _parameters: tuple[object, ...]) -> bool | None:
        """What the key table says: False while a dialog is open, None (dimmed) where it does nothing."""
        key = keys.BY_ACTION.get(action)
        if key is None:
            return True
        if key.waits_for_dialogs and isinstance(self.screen, ModalScreen):
            return False
        state = self.debuggee.state
        return True if key.applies(state.kind if state is not None else State.STARTING, self.live) else None

    def action_step(self) -> None:
        self.debuggee.step()

    def action_step_back(self) -> None:
        self.debuggee.step_back()

    def action_continue(self) -> None:
        self.debuggee.continue_()

    def action_run_to_end(self) -> None:
        self.debuggee.run_to_end()

    def action_interrupt(self) -> None:
        if isinstance(self.focused, ScriptInput):
            self.query_one(GraphTree).focus()  # Escape leaves the input line: the keys are the debugger's again
            return
        self.debuggee.interrupt()

    def action_expression(self) -> None:
        self.query_one(ExpressionLine).open()

    def on_expression_line_closed(self, _message: ExpressionLine.Closed) -> None:
        self.query_one(GraphTree).focus()

    def on_script_input_answered(self, message: ScriptInput.Answered) -> None:
        self.debuggee.answer(message.text)
        self.query_one(ScriptInput).ask(None)
        self.query_one(GraphTree).focus()

    def action_toggle_breakpoint(self) -> None:
        node_id = self.query_one(NodeDetails).node_id
        if node_id is None:
            self.notify("Select a node first.", severity="warning")
            return
        node = self.index.record.nodes.get(node_id)
        if node is None or self.index.step_position(node.id) is None:
            self.notify(
                "This node has no backward step to pause before (a leaf or a value outside the "
                "backward): set the breakpoint on the op that uses it.",
                severity="warning",
                markup=False,
            )
            return
        site = node.site
        key = NodeKey(node.op, site.file if site else "", site.line if site else 0, node.module)
        existing = [b for b in self.debuggee.breakpoints if b.kind == "node" and b.value == key]
        if existing:
            for b in existing:
                self.debuggee.remove_breakpoint(b.id)
            self.notify(f"Breakpoint on {key} removed.", markup=False)
        else:
            bp = self.debuggee.add_breakpoint(Breakpoint(kind="node", value=key))
            self.notify(f"Breakpoint {bp.id} on {key}: it holds in every pass.", markup=False)
        self._repaint_marks()

    def action_element(self, delta: int) -> None:
        self.query_one(NodeDetails).move_element(delta)

    def action_gradcheck(self) -> None:
        node_id = self.query_one(NodeDetails).node_id
        node = self.index.record.nodes.get(node_id) if node_id is not None else None
        if node is None or self.index.step_position(node.id) is None:
            self.notify("Select an op whose backward ran (a leaf has no backward to check).", severity="warning")
            return
        screen = GradcheckScreen(node, self.index.record)
        self.push_screen(screen)  # at once: the keys pressed while the check runs are the dialog's (escape closes it)
        self._gradcheck(screen)

    @work(thread=True, exclusive=True, group="gradcheck")
    def _gradcheck(self, screen: GradcheckScreen) -> None:
        """Off the UI thread: central differences run the op's forward many times."""
        try:
            result = self.debuggee.gradcheck(screen.node.id)
        except Exception as e:  # noqa: BLE001 (any failure is the user's to read, not a crash)
            self.call_from_thread(screen.show_failure, f"Gradcheck failed to run: {e}")
            return
        self.call_from_thread(screen.show_result, result)

    def action_breakpoints(self) -> None:
        self.push_screen(BreakpointsScreen(self.debuggee))

    def action_nan_origin(self) -> None:
        node_id = self.moment.nan_origin()
        if node_id is None:
            self.notify("No NaN or Inf in the record (yet).")
            return
        self.views.reveal(node_id)
        self._show_details(node_id, force=True)

    def action_find(self) -> None:
        def chosen(node_id: int | None) -> None:
            if node_id is not None:
                if not self.views.reveal(node_id):
                    self.notify(f"Node #{node_id} is not reachable from a root in the graph view.", severity="warning")
                self._show_details(node_id, force=True)

        self.push_screen(FindDialog(self.moment), chosen)

    def action_goto_current(self) -> None:
        state = self.debuggee.state
        if state is None or state.node is None:
            self.notify("No current step: the backward is not paused at a node.")
            return
        self.views.reveal(state.node)
        self._show_details(state.node, force=True)

    def on_findings_view_highlighted(self, message: FindingsView.Highlighted | GraphPicture.Highlighted) -> None:
        self._show_details(message.node)

    on_graph_picture_highlighted = on_findings_view_highlighted

    async def action_switch_view(self, view: str = "") -> None:
        await self.views.choose(view or self.views.next_view(), self.query_one(NodeDetails).node_id)

    def action_resize_tree(self, delta: int) -> None:
        left = self.query_one("#left")
        width = left.outer_size.width + delta
        left.styles.width = max(24, min(width, self.size.width - 30))

    def action_help(self) -> None:
        self.push_screen(HelpScreen())

    def action_export(self) -> None:
        default = default_export_path(self.debuggee.record.metadata.script or self.source)

        def chosen(path: str | None) -> None:
            if path:
                self._export(path)

        self.push_screen(ExportDialog(default), chosen)

    @work(thread=True, exclusive=True, group="export")
    def _export(self, path: str) -> None:
        try:
            snapshot.dump(self.debuggee.record, path)
        except Exception as e:  # noqa: BLE001 (any failure is the user's to read, not a crash)
            self.call_from_thread(self.notify, f"Export failed: {e}", severity="error", markup=False)
            return
        self.call_from_thread(self.notify, f"Snapshot written to {path}", markup=False)

    async def action_quit(self) -> None:
        """Ask the script to stop, wait for it at most QUIT_WAIT off the UI thread, and leave: it is
        a daemon thread, so one that will not unwind (a sleep, a loop that catches everything)
        ends with the process."""
        if self._quitting:
            return
        self._quitting = True
        if self.live:  # before the quit changes the state: how the script ended, or where it was stopped
            self.ending = ending(self.debuggee.state, self.index.record, self.source)
        self.debuggee.quit()
        await asyncio.to_thread(self.debuggee.join, QUIT_WAIT)
        self.exit()

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        for title, help_text, action in keys.palette():
            yield SystemCommand(title, help_text, partial(self.run_action, action))

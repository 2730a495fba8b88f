"""GraphscopeApp: the debugger's screen: the graph views, the selected node, the stepper, the console and the keys."""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Iterable
from functools import partial
from typing import ClassVar

from textual import work
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import ModalScreen, Screen
from textual.widgets import ContentSwitcher, Footer

from graphscope.session import Breakpoint, NodeKey
from graphscope.trace import snapshot

from .breakpoints_screen import BreakpointsScreen
from .console_pane import ConsolePane
from .export_dialog import ExportDialog, default_export_path
from .find_dialog import FindDialog
from .graph_tree import GraphTree
from .help_screen import HelpScreen
from .module_tree import ModuleTree
from .moment import Moment
from .node_details import NodeDetails
from .outline import Outline
from .passes_view import PassesView
from .script_input import ScriptInput
from .record_index import RecordIndex
from .stepper import Stepper
from .timeline import Timeline
from .view_bar import ViewBar

VIEWS = ("graph", "modules", "timeline", "passes")
VIEW_TITLES = {"graph": "graph", "modules": "modules", "timeline": "timeline", "passes": "passes"}

# How long quitting waits for the script's thread to unwind before leaving without it.
QUIT_WAIT = 0.5

# Records with more nodes than this find the graph's roots off the UI thread (about 50 ms here).
BIG_RECORD = 20_000

# Actions that drive the debugger; they wait while a dialog is open.
DEBUGGER_ACTIONS = frozenset({
    "step", "step_back", "continue", "run_to_end", "interrupt", "toggle_breakpoint", "breakpoints",
    "nan_origin", "find", "goto_current", "switch_view", "export", "help", "resize_tree",
})

# (title, what it does, action) for the command palette.
COMMANDS = (
    ("Step", "Run the next node's backward (n, space)", "step"),
    ("Step back", "Move back one step in time (p)", "step_back"),
    ("Continue", "Run to the next breakpoint, or to the end of the run (c)", "continue"),
    ("Run to end", "Let the script run to its end without pausing (C)", "run_to_end"),
    ("Interrupt", "Stop a running continue at the next node (Esc, or n)", "interrupt"),
    ("Toggle breakpoint", "On the selected node (b)", "toggle_breakpoint"),
    ("Breakpoints", "List, toggle, remove and add breakpoints (B)", "breakpoints"),
    ("Jump to NaN/Inf origin", "Where the first NaN or Inf appeared (!)", "nan_origin"),
    ("Find node", "By op, name, module, parameter or file:line (/)", "find"),
    ("Go to current step", "Select the node at the cursor of the backward (g)", "goto_current"),
    ("Switch view", "Graph, modules, timeline, passes (v)", "switch_view"),
    ("Export snapshot", "Write the record as JSON (e)", "export"),
    ("Help", "Every key and marker (?)", "help"),
)  # Quit is one of Textual's own system commands


class StateChanged(Message):
    """The debuggee's state changed (posted from the script's thread; handled on the UI thread)."""


class GraphscopeApp(App[None]):
    """Shows a record and drives its debuggee: a live Session (`graphscope run`) or a snapshot's
    Debuggee (`graphscope view`); both are one navigation model, so this code does not care which."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n,space", "step", "Step"),
        Binding("p", "step_back", "Back"),
        Binding("c", "continue", "Cont"),
        Binding("C", "run_to_end", "Run to end", show=False),
        Binding("escape", "interrupt", "Interrupt", show=False),
        Binding("b", "toggle_breakpoint", "Break"),
        Binding("B", "breakpoints", "Breakpoints", show=False),
        Binding("exclamation_mark", "nan_origin", "NaN", show=False),
        Binding("slash", "find", "Find"),
        Binding("g", "goto_current", "Go to step", show=False),
        Binding("v", "switch_view", "View"),
        Binding("e", "export", "Export"),
        Binding("question_mark", "help", "Help"),
        Binding("q", "quit", "Quit"),
        Binding("less_than_sign", "resize_tree(-4)", "Narrower", show=False),
        Binding("greater_than_sign", "resize_tree(4)", "Wider", show=False),
    ]

    CSS = """
    Screen { layout: vertical; }
    #main { height: 1fr; }
    #left {
        width: 40%;
        min-width: 24;
        border-right: solid $primary-muted;
    }
    #views { height: 1fr; }
    #views > * { height: 1fr; }
    #details { width: 1fr; }
    Screen.-short #console { height: 4; }
    """

    TITLE = "graphscope"

    def __init__(self, debuggee, source: str = ""):
        super().__init__()
        self.debuggee = debuggee
        self.source = source
        self.live = debuggee.live
        self.index = RecordIndex(debuggee.record)
        self.moment = Moment(self.index, None, (), self.live)
        self._state_lock = threading.Lock()
        self._state_posted = False
        self._followed: tuple | None = None
        self._details_key: tuple | None = None
        self._quitting = False
        self._finding_roots = False
        self._preparing = False
        self._bindings_for: str | None = ""
        self.stopped_at = ""      # where a quit left the script, for the line on stderr
        self.updates = 0          # state changes applied (tests and the benchmark wait on it)

    def compose(self) -> ComposeResult:
        with Horizontal(id="main"):
            with Vertical(id="left"):
                yield ViewBar()
                with ContentSwitcher(initial="graph", id="views"):
                    yield GraphTree(id="graph")
                    yield ModuleTree(id="modules")
                    yield Timeline(id="timeline")
                    yield PassesView(id="passes")
            yield NodeDetails(id="details")
        yield Stepper(id="stepper")
        yield ConsolePane(id="console")
        yield ScriptInput(id="script-input")
        yield Footer(compact=True)

    def on_resize(self) -> None:
        self.screen.set_class(self.size.height < 30, "-short")

    def on_mount(self) -> None:
        self.query_one(ViewBar).show(VIEWS, VIEW_TITLES, "graph")
        self.on_resize()
        self.query_one(GraphTree).focus()
        self.debuggee.add_listener(self._listener)
        if self.live:
            self.set_interval(0.25, self._tick)
            self.debuggee.start()
        self._apply(self.debuggee.state)

    # --- state from the debuggee -----------------------------------------------------------------

    def _listener(self, state) -> None:
        """Called on the script's thread: post one message, and let later changes ride on it."""
        with self._state_lock:
            if self._state_posted:
                return
            self._state_posted = True
        self.post_message(StateChanged())

    def on_state_changed(self, message: StateChanged) -> None:
        with self._state_lock:
            self._state_posted = False
        if not self.screen.query(NodeDetails):
            return  # the script ended while the app was closing: nothing left to show it on
        self._apply(self.debuggee.state)

    def _tick(self) -> None:
        """While the script runs, its prints arrive without state changes: show them. (The rest of
        the record is read only while the script is paused or over, as the recorder asks.)"""
        state = self.debuggee.state
        if state is not None and state.kind in ("running", "starting"):
            if self.moment.state is not state:
                self._apply(state, now=True)
            else:  # the same state, but the run has moved on: its pass and loss
                self.query_one(Stepper).show(self._moment(state), self.source)
            self._show_console()
            self.query_one(ScriptInput).ask(self.debuggee.prompt)

    def _show_console(self) -> None:
        record = self.index.record
        self.query_one(ConsolePane).add_lines(list(record.console), record.dropped_console)

    def _moment(self, state) -> Moment:
        self.moment = Moment(self.index, state, tuple(self.debuggee.breakpoints), self.live)
        return self.moment

    def _apply(self, state, now: bool = False) -> None:
        """Repaint everything that depends on the state; follow the cursor of the backward."""
        shown = self.moment.state
        if not now and state is not None and state.kind == "running" and shown is not None \
                and shown.kind == "paused":
            # A step or a continue has begun: most end in a pause within milliseconds, so the
            # screen changes once, at that pause (the tick shows a run that goes on).
            return
        self.updates += 1
        moment = self._moment(state)
        record = self.index.record
        settled = state is None or state.kind not in ("running", "starting")
        self.query_one(Stepper).show(moment, self.source)
        self._show_console()
        self.query_one(ScriptInput).ask(self.debuggee.prompt)
        if state is not None and state.kind == "failed":
            self.query_one(ConsolePane).add_error(record.error)
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
        if not self._refresh_view(moment):
            return  # a big record's roots are being found off the UI thread: _roots_ready settles
        self._follow(state)

    def _follow(self, state) -> None:
        """Put the views and details on the node at the backward's cursor (or the failing node)."""
        record = self.index.record
        target = None
        if state is not None:
            key = (state.pass_index, state.step, state.kind)
            if state.node is not None and key != self._followed:
                target = state.node
            elif state.kind == "failed" and record.error is not None and record.error.node is not None \
                    and key != self._followed:
                target = record.error.node
            self._followed = key
        if target is None and self._details_key is None:
            target = self._first_node()
        if target is not None:
            self._reveal(target, switch=False)
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

    # --- views -------------------------------------------------------------------------------------

    def _view(self) -> str:
        return self.query_one("#views", ContentSwitcher).current or "graph"

    def _current_view(self):
        return self.query_one(f"#{self._view()}")

    def _refresh_view(self, moment: Moment) -> bool:
        """Bring the active view up to date; False while its data is still being built."""
        view = self._view()
        if view == "graph":
            roots = self._graph_roots()
            if roots is None:
                self.query_one(GraphTree).show_loading(len(self.index.record.nodes))
                return False
            self.query_one(GraphTree).show_roots(moment, roots)
        elif view == "modules":
            self.query_one(ModuleTree).show_modules(moment)
        elif view == "timeline":
            self.query_one(Timeline).show_pass(moment)
        else:
            self.query_one(PassesView).show_passes(moment)
        return True

    def _graph_roots(self):
        """The graph tree's roots, or None while a worker finds them (only a big record waits)."""
        roots = self.index.cached_roots()
        if roots is not None or len(self.index.record.nodes) <= BIG_RECORD:
            return roots if roots is not None else self.index.roots()
        if not self._finding_roots:
            self._finding_roots = True
            self._find_roots()
        return None

    @work(thread=True, group="record-index")
    def _prepare_index(self) -> None:
        try:
            self.index.prepare()
        finally:
            self._preparing = False

    @work(thread=True, group="roots")
    def _find_roots(self) -> None:
        self.index.roots()
        self.call_from_thread(self._roots_ready)

    def _roots_ready(self) -> None:
        self._finding_roots = False
        self._apply(self.debuggee.state)

    def _reveal(self, node_id: int, switch: bool = True) -> bool:
        """Put the active view's cursor on the node (the graph view when the active one lacks it)."""
        view = self._view()
        if view in ("graph", "modules", "timeline") and self._current_view().reveal_node(node_id):
            return True
        if not switch and view != "passes":
            return False
        if view != "graph":
            self._switch_to("graph")
        return self.query_one(GraphTree).reveal_node(node_id)

    def _switch_to(self, view: str) -> None:
        switcher = self.query_one("#views", ContentSwitcher)
        switcher.current = view
        self.query_one(ViewBar).show(VIEWS, VIEW_TITLES, view)
        self._refresh_view(self.moment)
        widget = self.query_one(f"#{view}")
        (widget.query_one("#pass-table") if view == "passes" else widget).focus()

    def _show_details(self, node_id: int | None, force: bool = False) -> None:
        key = (node_id, id(self.moment))
        if not force and key == self._details_key:
            return
        self._details_key = key
        self.query_one(NodeDetails).show(self.moment, node_id)  # the record alone: live and snapshot alike

    def on_outline_highlighted(self, message: Outline.Highlighted) -> None:
        if message.item.node is not None:
            self._show_details(message.item.node)

    def on_outline_activated(self, message: Outline.Activated) -> None:
        item = message.item
        if item.kind == "link":
            self.query_one(GraphTree).reveal_node(item.node)
        elif item.kind in ("step", "note") and item.step is not None:
            self._travel(item.step, item.node)

    def _travel(self, step: int, node_id: int | None) -> None:
        """Go to a step of the current pass: back in time when it has run, else run to it."""
        self.debuggee.run_to(step)

    def on_passes_view_chosen(self, message: PassesView.Chosen) -> None:
        passes = self.index.record.passes
        p = passes[message.position]
        if not p.detailed or p.root is None or p.root not in self.index.record.nodes:
            self.notify(f"Pass {p.index} was not kept in full: only its loss and grad norms are in the record.",
                        severity="warning")
            return
        self._switch_to("graph")
        self.query_one(GraphTree).reveal_node(p.root)

    def on_view_bar_chosen(self, message: ViewBar.Chosen) -> None:
        if message.view != self._view():
            self._choose_view(message.view)

    def _choose_view(self, view: str) -> None:
        """Show `view`, with the selected node under its cursor."""
        selected = self.query_one(NodeDetails).node_id
        self._switch_to(view)
        if selected is not None and view != "passes":
            self._current_view().reveal_node(selected)

    def on_breakpoints_screen_changed(self, message: BreakpointsScreen.Changed) -> None:
        self._repaint_marks()

    def _repaint_marks(self) -> None:
        moment = self._moment(self.debuggee.state)
        if self._view() != "passes":
            self._current_view().set_moment(moment)
        self._show_details(self.query_one(NodeDetails).node_id, force=True)

    # --- actions -----------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in DEBUGGER_ACTIONS and isinstance(self.screen, ModalScreen):
            return False
        state = self.debuggee.state
        kind = state.kind if state is not None else "starting"
        if action in ("step", "step_back", "continue", "run_to_end", "goto_current") and kind == "starting":
            return None
        if action == "step_back" and kind == "running":
            return None
        if action == "interrupt" and kind != "running":
            return None
        if action in ("continue", "run_to_end") and self.live and kind in ("finished", "failed"):
            return None
        if action == "export" and self.live and kind in ("running", "starting"):
            return None
        return True

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
            self.notify("This node has no backward step to pause before (a leaf or a value outside the "
                        "backward): set the breakpoint on the op that uses it.", severity="warning", markup=False)
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

    def action_breakpoints(self) -> None:
        self.push_screen(BreakpointsScreen(self.debuggee))

    def action_nan_origin(self) -> None:
        node_id = self.index.nan_origin()
        if node_id is None:
            self.notify("No NaN or Inf in the record (yet).")
            return
        self._reveal(node_id)
        self._show_details(node_id, force=True)

    def action_find(self) -> None:
        def chosen(node_id: int | None) -> None:
            if node_id is not None:
                if not self._reveal(node_id):
                    self.notify(f"Node #{node_id} is not reachable from a root in the graph view.",
                                severity="warning")
                self._show_details(node_id, force=True)

        self.push_screen(FindDialog(self.moment), chosen)

    def action_goto_current(self) -> None:
        state = self.debuggee.state
        if state is None or state.node is None:
            self.notify("No current step: the backward is not paused at a node.")
            return
        self._reveal(state.node)
        self._show_details(state.node, force=True)

    def action_switch_view(self) -> None:
        self._choose_view(VIEWS[(VIEWS.index(self._view()) + 1) % len(VIEWS)])

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
        except Exception as e:  # noqa: BLE001 - any failure is the user's to read, not a crash
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
        self.stopped_at = stopped_at(self.debuggee.state, self.index.record, self.source) if self.live else ""
        self.debuggee.quit()
        await asyncio.to_thread(self.debuggee.join, QUIT_WAIT)
        self.exit()

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        for title, help_text, action in COMMANDS:
            yield SystemCommand(title, help_text, partial(self.run_action, action))


def stopped_at(state, record, script: str) -> str:
    """Where a quit leaves a script that has not ended ("" when it had): the line for stderr."""
    if state is None or state.kind in ("finished", "failed"):
        return ""
    name = os.path.basename(script) or "the script"
    if state.kind != "paused" or state.pass_index is None or state.pass_index >= len(record.passes):
        done = sum(1 for p in list(record.passes) if p.finished)
        return (f"graphscope: stopped {name} while it ran, after {done} backward pass{'es' if done != 1 else ''}"
                if done else f"graphscope: stopped {name} before its first backward pass")
    p = record.passes[state.pass_index]
    total = len(p.order)
    where = f"step {state.step + 1} of {total}" if state.step is not None and state.step < total else "its end"
    return f"graphscope: stopped {name} at pass {p.index}, {where}"

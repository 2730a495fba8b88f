"""The debugger's keys, in one table: it makes the app's bindings, the command palette, the help
screen and which keys apply in which state (a new key is one row here and its `action_` method)."""

from __future__ import annotations

from dataclasses import dataclass

from textual.binding import Binding, BindingType

from graphscope.session import State

NEVER: frozenset[State] = frozenset()


@dataclass(frozen=True)
class Key:
    """One key of the debugger. A row without `bind` documents a key another widget owns (the
    outline's arrows, Textual's ctrl+p): it is only on the help screen."""

    group: str  # the help screen's section
    shown: str  # the key as the help screen writes it
    help: str  # the help line ("" for a binding the row before describes)
    bind: str = ""  # Textual's key names, comma-separated
    action: str = ""  # the app's action, with its arguments
    label: str = ""  # the footer's word
    footer: bool = False  # shown in the footer (the others still work)
    palette: str = ""  # the command palette's title ("" when it is not there)
    palette_help: str = ""
    idle_in: frozenset[State] = NEVER  # states in which it does nothing (dimmed in the footer)
    idle_live_in: frozenset[State] = NEVER  # more of them, on a live run only
    waits_for_dialogs: bool = True  # does nothing while a dialog is open

    @property
    def name(self) -> str:
        """The action's name without its arguments (what `check_action` is asked about)."""
        return self.action.partition("(")[0]

    def applies(self, kind: State, live: bool) -> bool:
        return kind not in self.idle_in and not (live and kind in self.idle_live_in)


STEPPING, FINDING, VIEWS, THE_RUN = "Stepping through backward", "Finding things", "Views", "The run"
NOT_STARTED = frozenset({State.STARTING})
NOT_RUNNING = frozenset(State) - {State.RUNNING}
OVER = frozenset({State.FINISHED, State.FAILED})

KEYS = (
    Key(
        STEPPING,
        "n  space",
        "step: run the next node's backward; at a pass's end, go on to the next kept pass",
        "n,space",
        "step",
        "Step",
        True,
        "Step",
        "Run the next node's backward (n, space)",
        NOT_STARTED,
    ),
    Key(
        STEPPING,
        "p",
        "step back in time (no engine work)",
        "p",
        "step_back",
        "Back",
        True,
        "Step back",
        "Move back one step in time (p)",
        NOT_STARTED | {State.RUNNING},
    ),
    Key(
        STEPPING,
        "c",
        "continue to the next breakpoint (NaN/Inf is one, on by default) or the end of the run",
        "c",
        "continue",
        "Cont",
        True,
        "Continue",
        "Run to the next breakpoint, or to the end of the run (c)",
        NOT_STARTED,
        OVER,
    ),
    Key(
        STEPPING,
        "C",
        "run to the end without pausing (still recorded)",
        "C",
        "run_to_end",
        "Run to end",
        False,
        "Run to end",
        "Let the script run to its end without pausing (C)",
        NOT_STARTED,
        OVER,
    ),
    Key(
        STEPPING,
        "n  esc",
        "while running: stop at the next node",
        "escape",
        "interrupt",
        "Interrupt",
        False,
        "Interrupt",
        "Stop a running continue at the next node (Esc, or n)",
        NOT_RUNNING,
    ),
    Key(
        STEPPING,
        "g",
        "go to the current step's node",
        "g",
        "goto_current",
        "Go to step",
        False,
        "Go to current step",
        "Select the node at the cursor of the backward (g)",
        NOT_STARTED,
    ),
    Key(
        STEPPING,
        ", .",
        "previous / next element of the selected tensor (the one the Rule tab explains)",
        "comma",
        "element(-1)",
        "Prev element",
        False,
        "Previous element",
        "Explain the previous element of the selected tensor (,)",
    ),
    Key(
        STEPPING,
        "",
        "",
        "full_stop",
        "element(1)",
        "Next element",
        False,
        "Next element",
        "Explain the next element of the selected tensor (.)",
    ),
    Key(
        STEPPING,
        "G",
        "gradcheck the selected node: its backward against central differences in float64",
        "G",
        "gradcheck",
        "Gradcheck",
        False,
        "Gradcheck node",
        "Check the selected node's backward numerically at its recorded inputs (G)",
        idle_live_in=NOT_STARTED | {State.RUNNING},
    ),
    Key(
        FINDING,
        "b",
        "toggle a breakpoint on the selected node",
        "b",
        "toggle_breakpoint",
        "Break",
        True,
        "Toggle breakpoint",
        "On the selected node (b)",
    ),
    Key(
        FINDING,
        "B",
        "breakpoints: list, toggle, remove, add by op, module or line",
        "B",
        "breakpoints",
        "Breakpoints",
        False,
        "Breakpoints",
        "List, toggle, remove and add breakpoints (B)",
    ),
    Key(
        FINDING,
        "/",
        "find a node by op, name, module, parameter or file:line",
        "slash",
        "find",
        "Find",
        True,
        "Find node",
        "By op, name, module, parameter or file:line (/)",
    ),
    Key(
        FINDING,
        "!",
        "jump to where the first NaN or Inf appeared",
        "exclamation_mark",
        "nan_origin",
        "NaN",
        False,
        "Jump to NaN/Inf origin",
        "Where the first NaN or Inf appeared (!)",
    ),
    Key(
        FINDING,
        "f",
        "findings so far, each with its pass, node and line (enter: go to it)",
        "f",
        "switch_view('findings')",
        "Findings",
        False,
        "Findings",
        "NaN/Inf origin, grads not zeroed, dead ReLUs, vanishing or exploding grads so far (f)",
    ),
    Key(
        VIEWS,
        "v",
        "switch the left pane: graph → modules → timeline → passes → findings → training → dag",
        "v",
        "switch_view",
        "View",
        True,
        "Switch view",
        "Graph, modules, timeline, passes, findings, training, dag (v)",
    ),
    Key(
        VIEWS,
        "t",
        "training: loss, grad norms, update/data ratios, learning rates, activations, logged scalars over the passes",
        "t",
        "switch_view('training')",
        "Training",
        False,
        "Training plots",
        "Loss, grad norms, update ratios, learning rates and activations over the passes (t)",
    ),
    Key(
        VIEWS,
        "← → enter",
        "in the training view: pick a pass (shift: 10); enter or a click: the cursor goes there; [ ] a: parameters",
    ),
    Key(
        VIEWS,
        "d",
        "draw the graph around the selected node as boxes and arrows (the dag view)",
        "d",
        "switch_view('picture')",
        "Draw",
        False,
        "Draw the graph",
        "The selected node's inputs and consumers as boxes and arrows (d)",
    ),
    Key(VIEWS, "↑↓←→", "dag: ↑ to an input, ↓ to a consumer, ←→ along the layer;  enter selects it in the graph"),
    Key(VIEWS, "↑↓ j k", "move;  enter / → expand, ← collapse;  enter on ↪ jumps to the node"),
    Key(VIEWS, "tab", "move between the panes (a value table: ↑↓←→ choose an element, [ ] slice)"),
    Key(VIEWS, "< >", "narrow or widen the graph pane", "less_than_sign", "resize_tree(-4)", "Narrower"),
    Key(VIEWS, "", "", "greater_than_sign", "resize_tree(4)", "Wider"),
    Key(VIEWS, "ctrl+p", "command palette: every action by name"),
    Key(
        THE_RUN,
        "e",
        "export the record as a snapshot (asks for a path)",
        "e",
        "export",
        "Export",
        True,
        "Export snapshot",
        "Write the record as JSON (e)",
        idle_live_in=NOT_STARTED | {State.RUNNING},
    ),
    Key(
        THE_RUN,
        ":",
        "python at a pause, in the script's own frame (up / down / where / all; ↑↓ history, tab completes)",
        "colon",
        "expression",
        "Python",
        False,
        "Evaluate Python",
        "Evaluate an expression in the paused script's frame (:)",
        idle_live_in=NOT_STARTED | {State.RUNNING},
    ),
    Key(THE_RUN, "?", "this help", "question_mark", "help", "Help", True, "Help", "Every key and marker (?)"),
    Key(
        THE_RUN,
        "q",
        "quit: stops the script cleanly; nothing is written unless you exported",
        "q",
        "quit",
        "Quit",
        True,
        waits_for_dialogs=False,
    ),  # in the palette as Textual's own Quit
)

BY_ACTION = {key.name: key for key in KEYS if key.action}


def bindings() -> list[BindingType]:
    """The app's BINDINGS."""
    return [Binding(key.bind, key.action, key.label, show=key.footer) for key in KEYS if key.bind]


def palette() -> list[tuple[str, str, str]]:
    """(title, what it does, action) for each command in the palette."""
    return [(key.palette, key.palette_help, key.action) for key in KEYS if key.palette]


def help_groups() -> list[tuple[str, list[tuple[str, str]]]]:
    """(section, [(key as shown, what it does)]) for the help screen, in the table's order."""
    groups: dict[str, list[tuple[str, str]]] = {}
    for key in KEYS:
        if key.help:
            groups.setdefault(key.group, []).append((key.shown, key.help))
    return list(groups.items())

"""Stepper: one line saying where the debugger is: running / paused / finished, pass k, step i of N, the loss."""

from __future__ import annotations

import math
import os

from rich.text import Text
from textual.widgets import Static

from graphscope.session import State
from graphscope.trace.record.keep_option import KEEP_ALL

from .moment import Moment
from .node_label import one_line
from .wording import named_runs

_STYLES = {
    State.STARTING: "dim",
    State.RUNNING: "bold green",
    State.PAUSED: "bold yellow",
    State.FINISHED: "bold blue",
    State.FAILED: "bold red",
    State.STOPPED: "bold magenta",
}


class Part:
    """A piece of the line: its words in full and shortened (the numbers in both), and, for a piece
    that may be cut to fit (a name or a reason, words only), how soon: the lowest first."""

    __slots__ = ("cut", "full", "short", "style")

    def __init__(self, full: str, style: str = "", short: str | None = None, cut: int = 0):
        self.full, self.short, self.style, self.cut = full, full if short is None else short, style, cut


# What is cut first: the snapshot's name (the user opened it), then the op (the details pane names
# it too), then why it stopped.
NAME_CUT, OP_CUT, REASON_CUT = 1, 2, 3
MIN_CUT = 4  # a piece cut shorter than this (`me…`) goes altogether
SEP = Part(" · ", "dim")
TIGHT = "·"  # a separator where even the short words do not fit


def parts(moment: Moment, source: str = "") -> list[Part]:
    """The stepper's pieces for a moment: the same words for the same cursor, live or from a snapshot
    (only the first word, running / paused / finished, and a snapshot's name differ)."""
    state = moment.state
    record = moment.record
    out: list[Part] = []
    if not moment.live:
        out += [
            Part("snapshot ", "dim", ""),
            Part(one_line(os.path.basename(source) or "(record)"), "bold", cut=NAME_CUT),
            SEP,
        ]
    if state is None:
        return [*out, Part("starting…", "dim")]
    kind = state.kind
    out.append(Part(f"● {kind}", _STYLES.get(kind, "")))
    if kind.over and state.exit_code is not None:
        out.append(Part(f" (exit {state.exit_code})", "dim"))
    passes = record.passes
    if kind == State.RUNNING:
        if state.reason == "waiting for input":
            out.append(Part(" · the script waits for input: type it below", "bold yellow", " · type input below"))
        done = [p for p in list(passes[-2:]) if p.finished]
        if done:
            out += [SEP, Part(f"pass {done[-1].index}")]
            out += _loss(done[-1].loss)
        return out
    made = record.nodes.get(state.created) if state.created is not None else None
    if made is not None:  # held in the forward, where this op was just made
        where = f" at {os.path.basename(made.site.file)}:{made.site.line}" if made.site is not None else ""
        out += [SEP, Part(f"forward of pass {made.pass_index}", "bold", f"fwd {made.pass_index}")]
        out += [SEP, Part(one_line(f"#{made.id} {made.op} made{where}"), "bold", one_line(made.op), OP_CUT)]
    elif state.pass_index is not None and state.pass_index < len(passes):
        p = passes[state.pass_index]
        out += [SEP, Part(f"pass {p.index}")]
        if state.step is not None:
            total = len(p.order)
            out += [
                SEP,
                Part(f"step {state.step + 1} of {total}", "bold", f"step {state.step + 1}/{total}")
                if state.step < total
                else Part(f"end of pass ({total} steps)", "bold", f"end ({total} steps)"),
            ]
        node = record.nodes.get(state.node) if state.node is not None else None
        if node is not None:
            out += [SEP, Part(one_line(node.op), "bold", cut=OP_CUT)]
    said = ("step", "step back", "goto", "running", "snapshot", f"exit code {state.exit_code}")  # said already
    if state.reason and state.reason not in said:
        reason = one_line(state.reason)
        # Short: the words before the colon (`breakpoints 1, 2`, `the snapshot ends here`), the rest is detail.
        out += [SEP, Part(reason, "yellow", reason.partition(": ")[0], REASON_CUT)]  # why it stopped here
    if made is None and state.pass_index is not None and state.pass_index < len(passes):
        out += _loss(passes[state.pass_index].loss)
        out += [SEP, Part(plural(len(passes), "pass", "passes"), "dim")]
        skipped = not_kept_beside(passes, state.pass_index, state.step)
        if skipped:
            runs = named_runs(skipped, "pass", "passes")
            out += [SEP, Part(f"{runs} not kept ({KEEP_ALL})", "yellow", f"{runs} not kept (--keep all)")]
    return out


def not_kept_beside(passes, position: int, step: int | None) -> list[int]:
    """The passes not kept in detail that a step across this pass's edge jumps over: those just
    before it at its first step, those just after it at its end."""
    order = len(passes[position].order)
    if step is None or 0 < step < order:
        return []
    way = -1 if step == 0 else 1
    skipped, k = [], position + way
    while 0 <= k < len(passes) and not passes[k].detailed:
        skipped.append(passes[k].index)
        k += way
    return skipped


def describe(moment: Moment, source: str = "", width: int | None = None) -> Text:
    """The stepper's line in `width` columns: words are shortened, then the snapshot's name, the
    op and the reason cut, then the separators tightened, so that no number is cut or dropped."""
    pieces = parts(moment, source)
    texts = [p.full for p in pieces]
    over = sum(map(len, texts)) - (width if width is not None else sum(map(len, texts)))

    def shorten(i: int, short: str) -> None:
        nonlocal over
        if over > 0 and len(short) < len(texts[i]):
            over -= len(texts[i]) - len(short) + (len(SEP.full) if not short and pieces[i].cut else 0)
            texts[i] = short  # a piece cut to nothing takes its separator with it

    def cut(i: int) -> None:
        keep = len(texts[i]) - over
        shorten(i, texts[i][: keep - 1].rstrip() + "…" if keep > MIN_CUT else "")

    by_rank = sorted((i for i, p in enumerate(pieces) if p.cut), key=lambda i: pieces[i].cut)
    named = [i for i in by_rank if pieces[i].cut == NAME_CUT]
    for i in named:  # a snapshot's name first (the user opened it), then the short words
        shorten(i - 1, pieces[i - 1].short)
        cut(i)
    for i, piece in enumerate(pieces):
        shorten(i, piece.short)
    for i in by_rank:
        cut(i)
    if over > 0:  # still too long: the separators lose their spaces
        texts = [TIGHT if piece is SEP else words for piece, words in zip(pieces, texts)]
    text = Text(no_wrap=True, overflow="ellipsis")
    for i, (piece, words) in enumerate(zip(pieces, texts)):
        if not words or (piece is SEP and (not text.plain or i + 1 >= len(texts) or not texts[i + 1])):
            continue  # a separator goes with the piece cut after it, or with everything before it
        text.append(words, piece.style)
    return text


def _loss(loss: float | None) -> list[Part]:
    if loss is None:
        return []
    return [SEP, Part(f"loss {loss:.4g}", "bold red" if not math.isfinite(loss) else "")]


def plural(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


class Stepper(Static):
    """Repainted on every state change and, while the script runs, a few times a second."""

    DEFAULT_CSS = """
    Stepper { height: 1; padding: 0 1; background: $panel; }
    """

    _shown: tuple[Moment, str] | None  # what show() last gave (set in on_mount)
    _last: Text | None  # what was last painted

    def show(self, moment: Moment, source: str = "") -> None:
        self._shown = (moment, source)
        self._paint()

    def _paint(self) -> None:
        if self._shown is None:
            return
        text = describe(*self._shown, self.content_size.width or None)
        if text != self._last:
            self._last = text
            self.update(text, layout=False)  # always one line: no layout needed

    def on_resize(self) -> None:
        self._paint()

    def on_mount(self) -> None:
        self._last = None
        self._shown = None

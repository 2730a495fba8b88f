"""Observer hooks: the engine's only door out, announcing graph events with live objects."""

from __future__ import annotations

import os
import sys
import threading
import weakref
from contextlib import contextmanager
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from types import CodeType, FrameType

# Installed observers in install order. The engine tests this list's truth once per op,
# so it is mutated in place and never rebound.
observers: list = []

EVENTS = (
    "leaf_created",
    "node_created",
    "module_entered",
    "module_left",
    "backward_begun",
    "before_node",
    "after_node",
    "leaf_grad_accumulating",
    "leaf_grad_accumulated",
    "backward_ended",
    "grads_zeroing",
    "optimizer_step_begun",
    "optimizer_step_ended",
    "grad_clearing",
    "tensor_zeroing",
    "leaf_updating",
    "leaf_updated",
    "scalar_logged",
)

# Per event, the handlers of the installed observers that override it (rebuilt, never mutated,
# so an observer may uninstall itself mid-event). Events nobody handles cost one lookup. These are
# the handlers for the thread in `owner_thread` (see `handlers`); any other thread's are elsewhere.
handlers_by_event: dict = {event: () for event in EVENTS}
# The thread that installed every one_thread observer, whose events go to their handlers as they are
# (one thread check per announcement, no wrapper per handler); None when no one_thread observer is
# installed (every thread hears the same handlers) or when two threads installed some (each
# one_thread observer's handlers then check the thread themselves, in `handlers_by_event` too).
owner_thread: list = [None]
# Per event, the handlers for a thread other than `owner_thread[0]`: a one_thread observer's checks
# the thread, to tell the observer of it once (`Observer.other_thread`). Rebuilt with `handlers_by_event`.
_elsewhere_by_event: dict = {event: () for event in EVENTS}
# The one observer that steps through backward by a tape (see `Observer.backward_tape`): its
# `backward_tape` for the owner thread and for the others (behind its thread check); None when there
# is none. Rebuilt with `handlers_by_event`.
_taping: list = [None, None]
# Whether an installed observer handles leaf_updating or leaf_updated: in-place ops on a leaf that
# requires grad check it (after `observers`) before announcing. Rebuilt with `handlers_by_event`.
leaf_updates: list = [False]

PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


class Site(NamedTuple):
    """Where user code created a node: the first frame outside the graphscope package."""

    file: str
    line: int
    function: str


class Observer:
    """Base observer whose handlers do nothing; override the events you need.

    Events pass live engine objects (Functions, Tensors, device arrays); an observer
    that keeps anything must copy it. `before_node` may block: the engine waits.
    An observer with `one_thread` set hears only the thread that installed it; the first
    event of each other thread calls its `other_thread` instead.
    """

    one_thread = False

    def other_thread(self, thread: threading.Thread):
        """(one_thread observers) `thread`, not the installing one, used the engine: once per thread."""

    def leaf_created(self, tensor, site):
        """A leaf Tensor was made by a creation function or began to require grad, at `site`
        (its creating line: a parameter's is the line that built its module)."""

    def node_created(self, node, inputs, output, site):
        """A graph node (Function) was created: its input Tensors/constants, output Tensor, Site."""

    def module_entered(self, module, name):
        """An nn.Module's __call__ began; `name` is its qualified path in the model."""

    def module_left(self, module, name):
        """An nn.Module's __call__ returned (or raised)."""

    def backward_begun(self, root, order):
        """A backward pass begins at the `root` Tensor; `order` is the planned list of nodes."""

    def before_node(self, node, grad_output):
        """`node` is about to run its backward with the array `grad_output`."""

    def after_node(self, node, grad_inputs):
        """`node` ran its backward; `grad_inputs` aligns with `node.inputs` (None where no grad). A
        recurrent layer's hidden weight's grad is an `outer_grad.OuterGrad` (its factors, multiplied
        only when read): `outer_grad.multiplied(grad_inputs)` gives them all as arrays."""

    def leaf_grad_accumulated(self, tensor, grad):
        """The array `grad` was accumulated into the leaf `tensor.grad`."""

    def backward_ended(self, root):
        """The backward pass begun at `root` has finished (also when it raised)."""

    def backward_tape(self):
        """(a journaling observer, the recorder) The list this backward pass's steps are appended
        to, in place of its `before_node` and `after_node` calls, while no other observer handles
        those; None when it wants none of this pass. Asked once per pass, after `backward_begun`.
        A step is the list [node, grad_output, grad_inputs (None until its backward returned),
        the node's saved state: a copy of its `__dict__`, taken before its backward]; the leaf
        events of a step come while it is the tape's last."""

    def leaf_grad_accumulating(self, tensor):
        """A grad is about to be added into the leaf `tensor`'s `.grad`, which holds one already
        (announced only then: copy it to know what `.grad` was before)."""

    def grads_zeroing(self, owner, params, set_to_none):
        """`owner.zero_grad(set_to_none)` (an optimizer or a module) is about to clear the grads
        of `params` (a list of leaf Tensors)."""

    def optimizer_step_begun(self, optimizer):
        """`optimizer.step()` is about to update its parameters from their grads; it may block
        (the debugger pauses here). With a closure, after the closure's first call."""

    def optimizer_step_ended(self, optimizer):
        """`optimizer.step()` has updated its parameters (also when it raised)."""

    def grad_clearing(self, tensor):
        """User code is about to set the leaf `tensor`'s `.grad`, which holds a grad, to None."""

    def tensor_zeroing(self, tensor):
        """`tensor.zero_()` is about to run (observers tell a leaf's `.grad` from other tensors)."""

    def leaf_updating(self, tensor):
        """An in-place op is about to change `tensor`, which requires grad, outside grad mode (a
        hand-written update, `with no_grad(): w -= lr * w.grad`, or an initialisation)."""

    def leaf_updated(self, tensor):
        """The in-place op announced by `leaf_updating` has changed `tensor` (not said when it raised)."""

    def scalar_logged(self, tag: str, value: float, step: int | None):
        """The script logged the number `value` under `tag` at global step `step` (None: not given),
        with `SummaryWriter.add_scalar` (each entry of `add_scalars` as "main_tag/tag")."""


@contextmanager
def observe(observer: Observer):
    """Install `observer` for the duration of the block; several may be installed."""
    install(observer)
    try:
        yield observer
    finally:
        uninstall(observer)


def install(observer: Observer) -> None:
    """Start announcing events to `observer` (prefer `observe` for a block)."""
    with _installing:
        observers.append(observer)
        _owners[id(observer)] = (threading.get_ident(), weakref.WeakSet())
        _rebuild()


def uninstall(observer: Observer) -> None:
    """Stop announcing events to `observer` (nothing if it is not installed)."""
    with _installing:
        if observer in observers:
            observers.remove(observer)
            _owners.pop(id(observer), None)
            _rebuild()


_installing = threading.Lock()
get_ident = threading.get_ident
# Threads on which the debugger itself runs engine code (a gradcheck in the app's worker): not the
# script's, so a one_thread observer does not report them (see `debugger_thread`).
_debugger_threads: weakref.WeakSet = weakref.WeakSet()
# id(observer) -> (the ident of the thread that installed it, the other threads it was told of).
_owners: dict = {}


@contextmanager
def debugger_thread():
    """Within the block, the current thread's engine use is the debugger's own: one_thread
    observers ignore it without reporting it as another thread of the script."""
    thread = threading.current_thread()
    _debugger_threads.add(thread)
    try:
        yield
    finally:
        _debugger_threads.discard(thread)


def _rebuild() -> None:
    # Steps go on a tape when the only observer of before_node / after_node keeps one: no other
    # observer (a debugger that pauses there) then needs those calls.
    steppers = [o for o in observers if _overrides(o, "before_node") or _overrides(o, "after_node")]
    taper = steppers[0] if len(steppers) == 1 and _overrides(steppers[0], "backward_tape") else None
    owners = {_owners[id(o)][0] for o in observers if o.one_thread}
    owner = owner_thread[0] = owners.pop() if len(owners) == 1 else None
    for event in EVENTS:
        heard = [o for o in observers if _overrides(o, event) and not (o is taper and event in _TAPED)]
        handlers_by_event[event] = tuple(_handler(o, event, owner) for o in heard)
        _elsewhere_by_event[event] = tuple(_handler(o, event) for o in heard)
    _taping[:] = (
        [None, None] if taper is None else [_handler(taper, "backward_tape", owner), _handler(taper, "backward_tape")]
    )
    leaf_updates[0] = bool(handlers_by_event["leaf_updating"] or handlers_by_event["leaf_updated"])


_TAPED = ("before_node", "after_node")  # the events a tape replaces


def _overrides(observer: Observer, event: str) -> bool:
    base = getattr(Observer, event)
    return getattr(type(observer), event, base) is not base


def _handler(observer: Observer, event: str, heard_thread: int | None = None):
    """The observer's handler of `event`: as is, or (one_thread) behind a check of the thread, unless
    it is the handler for `heard_thread` (the announcer checked the thread: see `handlers`), the thread
    that installed it."""
    handler = getattr(observer, event)
    if not observer.one_thread or heard_thread == _owners[id(observer)][0]:
        return handler
    (owner, told), get_ident = _owners[id(observer)], threading.get_ident

    def on_owner_thread(*args):
        if get_ident() == owner:
            return handler(*args)
        thread = threading.current_thread()
        if thread not in told and thread not in _debugger_threads:  # threads: a finished thread's ident is reused
            told.add(thread)
            observer.other_thread(thread)

    return on_owner_thread


def user_site() -> Site:
    """The innermost frame outside the graphscope package: where the user's code is.

    Inside a module of graphscope's own whose forward is running (nn/scope), that is the line
    that called the module, found when it was entered: a graphscope forward calls user code
    only through modules, which push scopes of their own, so the walk up the frames is skipped.
    """
    stack = scopes.stack
    if stack:
        site = stack[-1][3]
        if site is not None:
            return site
    frame: FrameType | None = sys._getframe(1)
    known = _code_sites
    while frame is not None:
        code = frame.f_code
        entry = known.get(id(code))
        if entry is None or entry[0] is not code:
            if len(known) >= _CODE_SITES_LIMIT:
                known.clear()
            entry = known[id(code)] = (code, _INTERNAL if code.co_filename.startswith(PACKAGE_DIR) else {})
        lines = entry[1]
        if lines is not _INTERNAL:
            line = frame.f_lineno
            site = lines.get(line)
            if site is None:
                site = lines[line] = Site(code.co_filename, line, code.co_name)
            return site
        frame = frame.f_back
    return _UNKNOWN_SITE


class _Scopes(threading.local):
    """Per thread, the modules whose forward is running (nn/scope): entries of (root, root's
    name, module's name, the user's Site for the nodes its forward makes, or None to look)."""

    def __init__(self):
        self.stack = []


scopes = _Scopes()


# id of a code object -> (the code object, `_INTERNAL` where it belongs to the graphscope package (asked once
# per function), else the Sites of its lines met so far): a source site made once per code location, not once
# per op. Keyed by identity: code objects compare equal by their code alone, so two files holding the same
# function would share the first one's file name. The entry holds its code object, so its id is not reused.
_code_sites: dict[int, tuple[CodeType, dict[int, Site]]] = {}
_INTERNAL: dict[int, Site] = {}  # (never written: it marks graphscope's own code)
_CODE_SITES_LIMIT = 1 << 16  # functions remembered before starting afresh (scripts run again and again)
_UNKNOWN_SITE = Site("<unknown>", 0, "<unknown>")


def current_module() -> str | None:
    """The qualified name ("model.layers.0") of the module whose forward is running, if any."""
    stack = scopes.stack
    return stack[-1][2] if stack else None


def handlers(event: str) -> tuple:
    """The handlers of `event` for the calling thread (an announcer that calls them itself asks here)."""
    found = handlers_by_event[event]
    owner = owner_thread[0]
    return found if not found or owner is None or get_ident() == owner else _elsewhere_by_event[event]


def announce(event: str, *args) -> None:
    """Call `event` on every installed observer that handles it (callers check `observers` first)."""
    found = handlers_by_event[event]
    if found:
        owner = owner_thread[0]
        for handler in found if owner is None or get_ident() == owner else _elsewhere_by_event[event]:
            handler(*args)


def announce_leaf_created(tensor) -> None:
    """leaf_created, with the user's source site found only when someone listens."""
    found = handlers_by_event["leaf_created"]
    if found:
        owner = owner_thread[0]
        if owner is not None and get_ident() != owner:
            found = _elsewhere_by_event["leaf_created"]
        site = user_site()
        for handler in found:
            handler(tensor, site)


def announce_node_created(node, inputs, output) -> None:
    """node_created, with the user's source site found only when someone listens."""
    found = handlers_by_event["node_created"]
    if found:
        owner = owner_thread[0]
        if owner is not None and get_ident() != owner:
            found = _elsewhere_by_event["node_created"]
        site = user_site()
        for handler in found:
            handler(node, inputs, output, site)


def backward_tape():
    """The tape the engine appends this backward pass's steps to, or None (see
    `Observer.backward_tape`; the engine asks once per pass, after announcing backward_begun)."""
    here, elsewhere = _taping
    if here is None:
        return None
    owner = owner_thread[0]
    return here() if owner is None or get_ident() == owner else elsewhere()


def handled(*events: str) -> bool:
    """Whether an installed observer handles any of `events` (announcing to none does nothing)."""
    return any(handlers_by_event[event] for event in events)

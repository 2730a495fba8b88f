"""Observer hooks: exact event order, several observers, removal, user sites, and blocking observers."""

import inspect
import runpy
import threading

import numpy as np
import pytest

import graphscope as gs
from graphscope.engine import hooks
from graphscope.engine.backend import to_host


class EventLog(hooks.Observer):
    """Appends (label, event, args) to a shared list; tensors are named through the `tensors` dict."""

    def __init__(self, log, label="", tensors=None):
        self.log, self.label, self.tensors = log, label, {} if tensors is None else tensors

    def _tensor(self, t):
        return next((k for k, v in self.tensors.items() if v is t), "?")

    def node_created(self, node, inputs, output, site):
        self.log.append((self.label, "node_created", node.name()))

    def backward_begun(self, root, order):
        self.log.append((self.label, "backward_begun", self._tensor(root), [n.name() for n in order]))

    def before_node(self, node, grad_output):
        self.log.append((self.label, "before_node", node.name()))

    def after_node(self, node, grad_inputs):
        self.log.append((self.label, "after_node", node.name()))

    def leaf_grad_accumulated(self, tensor, grad):
        self.log.append((self.label, "leaf_grad_accumulated", self._tensor(tensor)))

    def backward_ended(self, root):
        self.log.append((self.label, "backward_ended", self._tensor(root)))


EXPECTED = [
    ("node_created", "MulBackward0"),
    ("node_created", "SumBackward0"),
    ("backward_begun", "z", ["SumBackward0", "MulBackward0"]),
    ("before_node", "SumBackward0"),
    ("after_node", "SumBackward0"),
    ("before_node", "MulBackward0"),
    ("after_node", "MulBackward0"),
    ("leaf_grad_accumulated", "a"),
    ("leaf_grad_accumulated", "b"),
    ("backward_ended", "z"),
]


def _leaves():
    return gs.tensor([1.0, 2.0, 3.0], requires_grad=True), gs.tensor([4.0, 5.0, 6.0], requires_grad=True)


def test_event_order_on_small_graph_is_exact():
    a, b = _leaves()
    log, tensors = [], {"a": a, "b": b}
    with hooks.observe(EventLog(log, tensors=tensors)):
        y = a * b
        z = y.sum()
        tensors["z"] = z
        z.backward()
    assert [entry[1:] for entry in log] == EXPECTED


def test_events_pass_the_live_objects():
    a, b = _leaves()
    seen = {}

    class Capture(hooks.Observer):
        def node_created(self, node, inputs, output, site):
            seen.setdefault("created", []).append((node, inputs, output))

        def backward_begun(self, root, order):
            seen["begun"] = (root, list(order))

        def before_node(self, node, grad_output):
            seen.setdefault("before", []).append((node, to_host(grad_output)))

        def after_node(self, node, grad_inputs):
            seen.setdefault("after", []).append((node, [None if g is None else to_host(g) for g in grad_inputs]))

        def leaf_grad_accumulated(self, tensor, grad):
            seen.setdefault("leaf", []).append((tensor, to_host(grad), type(grad)))

        def backward_ended(self, root):
            seen["ended"] = root

    with hooks.observe(Capture()):
        y = a * b
        z = y.sum()
        z.backward()

    (mul, mul_inputs, mul_out), (sum_node, sum_inputs, sum_out) = seen["created"]
    assert mul is y.grad_fn and mul_out is y and mul_inputs[0] is a and mul_inputs[1] is b
    assert sum_node is z.grad_fn and sum_out is z and sum_inputs[0] is y
    assert seen["begun"][0] is z and seen["begun"][1][0] is z.grad_fn and seen["begun"][1][1] is y.grad_fn
    (before_sum, grad_z), (before_mul, grad_y) = seen["before"]
    assert before_sum is sum_node and before_mul is mul
    np.testing.assert_array_equal(grad_z, 1.0)
    np.testing.assert_array_equal(grad_y, [1.0, 1.0, 1.0])
    (_after_sum, sum_grads), (_after_mul, mul_grads) = seen["after"]
    np.testing.assert_array_equal(sum_grads[0], [1.0, 1.0, 1.0])
    np.testing.assert_array_equal(mul_grads[0], [4.0, 5.0, 6.0])
    np.testing.assert_array_equal(mul_grads[1], [1.0, 2.0, 3.0])
    (leaf_a, grad_a, grad_type), (leaf_b, grad_b, _) = seen["leaf"]
    assert leaf_a is a and leaf_b is b and grad_type is type(a.array)  # a raw array of a's device
    np.testing.assert_array_equal(grad_a, [4.0, 5.0, 6.0])
    np.testing.assert_array_equal(grad_b, [1.0, 2.0, 3.0])
    assert seen["ended"] is z


def test_several_observers_each_see_every_event_in_install_order():
    a, b = _leaves()
    log, tensors = [], {"a": a, "b": b}
    with hooks.observe(EventLog(log, "first", tensors)), hooks.observe(EventLog(log, "second", tensors)):
        z = (a * b).sum()
        tensors["z"] = z
        z.backward()
    assert [entry[0] for entry in log] == ["first", "second"] * len(EXPECTED)
    assert [entry[1:] for entry in log[::2]] == EXPECTED
    assert [entry[1:] for entry in log[1::2]] == EXPECTED


def test_observer_is_removed_after_the_block():
    a, b = _leaves()
    log = []
    observer = EventLog(log)
    with hooks.observe(observer):
        pass
    (a * b).sum().backward()
    assert log == [] and observer not in hooks.observers


def test_observer_is_removed_when_the_block_raises():
    a, b = _leaves()
    log = []
    observer = EventLog(log)
    with pytest.raises(ZeroDivisionError, match="division by zero"), hooks.observe(observer):
        1 / 0  # noqa: B018 (the division is what raises inside the block)
    (a * b).sum().backward()
    assert log == [] and observer not in hooks.observers


def test_only_ops_whose_output_requires_grad_create_nodes():
    a, _ = _leaves()
    log = []
    with hooks.observe(EventLog(log)):
        gs.tensor([1.0, 2.0]) * 2
        with gs.no_grad():
            a * 2
        a * 2
    assert [entry[1:] for entry in log] == [("node_created", "MulBackward0")]


class SiteLog(hooks.Observer):
    def __init__(self):
        self.sites = []

    def node_created(self, node, inputs, output, site):
        self.sites.append(site)


def test_node_created_site_points_at_the_user_line():
    a, b = _leaves()
    observer = SiteLog()
    with hooks.observe(observer):
        a * b
        line = inspect.currentframe().f_lineno - 1
    (site,) = observer.sites
    assert isinstance(site, hooks.Site)
    assert site == (__file__, line, "test_node_created_site_points_at_the_user_line")


def test_site_of_composite_op_is_the_user_line_for_every_node():
    a, _ = _leaves()
    observer = SiteLog()
    with hooks.observe(observer):
        a.log_softmax(dim=0).var()
        line = inspect.currentframe().f_lineno - 1
    assert observer.sites
    assert {(site.file, site.line) for site in observer.sites} == {(__file__, line)}


def test_site_of_operator_inside_a_user_helper_is_the_helper_line():
    a, b = _leaves()
    observer = SiteLog()

    def helper(x, y):
        return x @ y

    line = inspect.getsourcelines(helper)[1] + 1
    with hooks.observe(observer):
        helper(a, b)
    assert [(s.file, s.line, s.function) for s in observer.sites] == [(__file__, line, "helper")]


def test_a_site_is_made_once_per_code_location_and_told_apart_by_line():
    a, b = _leaves()
    observer = SiteLog()
    with hooks.observe(observer):
        for _ in range(3):
            a * b
            a + b
    first, second = observer.sites[:2]
    assert first.line + 1 == second.line
    assert all(site is first for site in observer.sites[0::2])  # one Site object per line, not per op
    assert all(site is second for site in observer.sites[1::2])


def test_observer_blocking_in_before_node_is_tolerated():
    a, b = _leaves()

    class Gate(hooks.Observer):
        def __init__(self):
            self.entered, self.release, self.waits = threading.Event(), threading.Event(), []

        def before_node(self, node, grad_output):
            self.entered.set()
            self.waits.append(self.release.wait(timeout=60))

    gate = Gate()
    errors = []

    def run_backward():
        try:
            (a * b).sum().backward()
        except BaseException as exc:  # noqa: BLE001 (surfaced by the assertion below)
            errors.append(exc)

    with hooks.observe(gate):
        worker = threading.Thread(target=run_backward)
        worker.start()
        assert gate.entered.wait(timeout=60)
        assert a.grad is None  # paused before any gradient reached the leaves
        gate.release.set()
        worker.join(timeout=60)
    assert not worker.is_alive() and errors == []
    assert gate.waits == [True, True]
    np.testing.assert_array_equal(a.grad.cpu().numpy(), [4.0, 5.0, 6.0])


def test_user_tensor_hooks_run_at_the_right_moment_among_events():
    a, b = _leaves()
    log, tensors = [], {"a": a, "b": b}
    with hooks.observe(EventLog(log, tensors=tensors)):
        y = a * b
        z = y.sum()
        tensors["z"] = z
        y.register_hook(lambda g: log.append(("", "hook", "y")))
        a.register_hook(lambda g: log.append(("", "hook", "a")) or g * 2)
        z.backward()
    events = [entry[1:] for entry in log if entry[1] != "node_created"]
    assert events.index(("hook", "y")) == events.index(("after_node", "SumBackward0")) + 1
    assert events.index(("before_node", "MulBackward0")) == events.index(("hook", "y")) + 1
    assert events.index(("leaf_grad_accumulated", "a")) == events.index(("hook", "a")) + 1
    np.testing.assert_array_equal(a.grad.cpu().numpy(), [8.0, 10.0, 12.0])


def test_leaf_grad_accumulated_passes_the_hook_replaced_grad():
    a, b = _leaves()
    grads = []

    class LeafLog(hooks.Observer):
        def leaf_grad_accumulated(self, tensor, grad):
            if tensor is a:
                grads.append(to_host(grad))

    a.register_hook(lambda g: g * 3)
    with hooks.observe(LeafLog()):
        (a * b).sum().backward()
    np.testing.assert_array_equal(grads, [[12.0, 15.0, 18.0]])


def test_leaf_used_twice_is_accumulated_once_per_pass():
    a, _ = _leaves()
    log = []
    with hooks.observe(EventLog(log, tensors={"a": a})):
        ((a * a).sum() + a.sum()).backward()
    assert [entry[1:] for entry in log if entry[1] == "leaf_grad_accumulated"] == [("leaf_grad_accumulated", "a")]
    np.testing.assert_array_equal(a.grad.cpu().numpy(), [3.0, 5.0, 7.0])


def test_backward_ended_is_announced_when_backward_raises():
    a, b = _leaves()
    log, tensors = [], {"a": a, "b": b}

    def failing_hook(grad):
        raise ValueError("hook failed")

    a.register_hook(failing_hook)
    with hooks.observe(EventLog(log, tensors=tensors)):
        z = (a * b).sum()
        tensors["z"] = z
        with pytest.raises(ValueError, match="hook failed"):
            z.backward()
    assert log[-1][1:] == ("backward_ended", "z")


def test_grads_are_correct_with_an_observer_that_does_nothing():
    a, b = _leaves()
    with hooks.observe(hooks.Observer()):
        (a * b + a.exp()).sum().backward()
    np.testing.assert_allclose(a.grad.cpu().numpy(), [4.0, 5.0, 6.0] + np.exp([1.0, 2.0, 3.0]), rtol=1e-6)


class OneThread(hooks.Observer):
    """Hears only the thread that installed it: the threads of its node_created events, the others it was told of."""

    one_thread = True

    def __init__(self):
        self.created, self.others = [], []

    def node_created(self, node, inputs, output, site):
        self.created.append(threading.current_thread().name)

    def other_thread(self, thread):
        self.others.append(thread.name)


def test_a_one_thread_observer_hears_only_the_thread_that_installed_it():
    log = []
    everyone = EventLog(log)
    mine = OneThread()
    w = gs.ones(2, requires_grad=True)

    def work():
        (w * 2).sum()

    with hooks.observe(mine), hooks.observe(everyone):
        work()
        for name in ("a", "b", "a"):
            thread = threading.Thread(target=lambda: (work(), work()), name=name)
            thread.start()
            thread.join()
    assert mine.created == [threading.current_thread().name] * 2
    assert mine.others == ["a", "b", "a"]  # once per thread, a new thread of the same name too
    assert sum(1 for event in log if event[1] == "node_created") == 2 + 3 * 4  # an observer of all threads


def test_a_debugger_thread_is_neither_heard_nor_reported_by_a_one_thread_observer():
    mine = OneThread()
    w = gs.ones(2, requires_grad=True)

    def check():
        with hooks.debugger_thread():
            (w * 2).sum()
        (w * 3).sum()  # past the block, the same thread is another thread of the script

    with hooks.observe(mine):
        thread = threading.Thread(target=check, name="worker")
        thread.start()
        thread.join()
    assert (mine.created, mine.others) == ([], ["worker"])


def test_on_its_own_thread_a_one_thread_observer_is_called_with_no_wrapper_between():
    mine = OneThread()
    with hooks.observe(mine):
        (handler,) = hooks.handlers("node_created")
        assert handler == mine.node_created  # its bound method: the announcer checked the thread once
        seen = []
        thread = threading.Thread(target=lambda: seen.append(hooks.handlers("node_created")))
        thread.start()
        thread.join()
        assert seen[0][0] != mine.node_created  # another thread's goes through the check that reports it


def test_one_thread_observers_installed_by_two_threads_each_hear_their_own():
    main, other = OneThread(), OneThread()
    w = gs.ones(2, requires_grad=True)
    installed, done = threading.Event(), threading.Event()

    def second():
        with hooks.observe(other):
            installed.set()
            done.wait(5)
            (w * 2).sum()

    with hooks.observe(main):
        thread = threading.Thread(target=second, name="second")
        thread.start()
        installed.wait(5)
        (w * 3).sum()
        done.set()
        thread.join()
    assert main.created == [threading.current_thread().name] * 2  # (a mul and a sum)
    assert other.created == ["second"] * 2
    assert (main.others, other.others) == (["second"], [threading.current_thread().name])


def test_uninstalling_an_observer_twice_is_harmless():
    observer = hooks.Observer()
    hooks.install(observer)
    hooks.uninstall(observer)
    hooks.uninstall(observer)
    assert observer not in hooks.observers


def test_an_observer_of_leaf_grad_accumulating_alone_hears_it():
    """The backward loop announces per-node events only when an observer handles one of them:
    `leaf_grad_accumulating` counts, even with no other event handled."""
    heard = []

    class Accumulating(hooks.Observer):
        def leaf_grad_accumulating(self, tensor):
            heard.append(tensor)

    w = gs.tensor([1.0, 2.0], requires_grad=True)
    (w * 3).sum().backward()
    with hooks.observe(Accumulating()):
        (w * 3).sum().backward()
    assert heard == [w]


def test_two_files_with_the_same_code_each_give_their_own_file_as_the_site(tmp_path):
    # Code objects compare equal by their code alone: a site remembered per code object would give the
    # second file the first one's name.
    sites = []
    for name in ("a.py", "b.py"):
        path = tmp_path / name
        path.write_text("from graphscope.engine import hooks\nsite = hooks.user_site()\n")
        sites.append(runpy.run_path(str(path))["site"])
    assert [s.file for s in sites] == [str(tmp_path / "a.py"), str(tmp_path / "b.py")]

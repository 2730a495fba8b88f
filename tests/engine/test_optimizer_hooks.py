"""The engine announces .grad accumulation onto an existing grad, zero_grad, optimizer steps, grad resets and
updates by hand."""

import graphscope as gs
from graphscope import nn, optim
from graphscope.engine import hooks


class Log(hooks.Observer):
    """Records (event, what it saw) for the optimizer and grad events, naming tensors by `names`."""

    def __init__(self, names):
        self.names, self.events = names, []

    def _name(self, t):
        return next((k for k, v in self.names.items() if v is t), "?")

    def leaf_grad_accumulating(self, tensor):
        self.events.append(("accumulating", self._name(tensor), tensor.grad.tolist()))

    def leaf_grad_accumulated(self, tensor, grad):
        self.events.append(("accumulated", self._name(tensor), tensor.grad.tolist()))

    def grads_zeroing(self, owner, params, set_to_none):
        self.events.append(("zeroing", type(owner).__name__, [self._name(p) for p in params], set_to_none))

    def optimizer_step_begun(self, optimizer):
        self.events.append(("step begun", [p.tolist() for p in self.names.values()]))

    def optimizer_step_ended(self, optimizer):
        self.events.append(("step ended", [p.tolist() for p in self.names.values()]))

    def grad_clearing(self, tensor):
        self.events.append(("clearing", self._name(tensor), tensor.grad.tolist()))

    def tensor_zeroing(self, tensor):
        self.events.append(("zeroing tensor", tensor.tolist()))

    def leaf_updating(self, tensor):
        self.events.append(("updating", self._name(tensor), tensor.tolist()))

    def leaf_updated(self, tensor):
        self.events.append(("updated", self._name(tensor), tensor.tolist()))


def test_accumulating_is_announced_before_adding_into_a_grad_that_is_there():
    w = gs.tensor([1.0, 2.0], requires_grad=True)
    log = Log({"w": w})
    with hooks.observe(log):
        (w * 3).sum().backward()
        (w * 3).sum().backward()
    assert log.events == [
        ("accumulated", "w", [3.0, 3.0]),
        ("accumulating", "w", [3.0, 3.0]),
        ("accumulated", "w", [6.0, 6.0]),
    ]


def test_zero_grad_and_step_are_announced_around_what_they_do():
    w = gs.tensor([1.0, 2.0], requires_grad=True)
    opt = optim.SGD([w], lr=0.5)
    log = Log({"w": w})
    (w * 2).sum().backward()
    with hooks.observe(log):
        opt.step()
        opt.zero_grad(set_to_none=False)
    assert log.events == [("step begun", [[1.0, 2.0]]), ("step ended", [[0.0, 1.0]]), ("zeroing", "SGD", ["w"], False)]
    assert w.grad.tolist() == [0.0, 0.0]


def test_a_modules_zero_grad_is_announced_with_its_parameters():
    model = nn.Linear(2, 1)
    log = Log({"weight": model.weight, "bias": model.bias})
    with hooks.observe(log):
        model.zero_grad()
    assert log.events == [("zeroing", "Linear", ["weight", "bias"], True)]


def test_setting_a_grad_to_none_is_announced_only_when_there_was_one():
    w = gs.tensor([1.0], requires_grad=True)
    log = Log({"w": w})
    with hooks.observe(log):
        w.grad = None
        (w * 4).sum().backward()
        w.grad = None
    assert log.events[-1] == ("clearing", "w", [4.0]) and len(log.events) == 2


def test_zeroing_a_tensor_in_place_is_announced_before_it_happens():
    t = gs.tensor([1.0, 2.0])
    log = Log({})
    with hooks.observe(log):
        t.zero_()
    assert log.events == [("zeroing tensor", [1.0, 2.0])] and t.tolist() == [0.0, 0.0]


def test_an_in_place_change_of_a_leaf_that_requires_grad_under_no_grad_is_announced_around_it():
    w = gs.tensor([1.0, 2.0], requires_grad=True)
    t = gs.tensor([1.0, 2.0])
    log = Log({"w": w})
    with hooks.observe(log), gs.no_grad():
        w -= 0.5
        w[0] = 3.0
        w.clamp_(max=2.5)
        t -= 1.0  # no grad required: not an update of a parameter
    assert log.events == [
        ("updating", "w", [1.0, 2.0]),
        ("updated", "w", [0.5, 1.5]),
        ("updating", "w", [0.5, 1.5]),
        ("updated", "w", [3.0, 1.5]),
        ("updating", "w", [3.0, 1.5]),
        ("updated", "w", [2.5, 1.5]),
    ]


def test_a_users_optimizer_with_its_own_step_is_announced_once_around_it():
    class Halving(optim.Optimizer):
        def __init__(self, params):
            super().__init__(params, {})

        def step(self, closure=None):
            for p in self.param_groups[0]["params"]:
                p.data = p.data / 2

    w = gs.tensor([4.0], requires_grad=True)
    log = Log({"w": w})
    with hooks.observe(log):
        Halving([w]).step()
    assert log.events == [("step begun", [[4.0]]), ("step ended", [[2.0]])]


def test_lbfgs_announces_its_step_after_the_closures_first_call():
    w = gs.tensor([0.0], requires_grad=True)
    opt = optim.LBFGS([w], max_iter=2)
    log = Log({"w": w})

    def closure():
        opt.zero_grad()
        loss = ((w - 3) ** 2).sum()
        loss.backward()
        return loss

    with hooks.observe(log):
        opt.step(closure)
    kinds = [e[0] for e in log.events]
    assert kinds[:2] == ["zeroing", "accumulated"] and kinds.count("step begun") == kinds.count("step ended") == 1
    assert kinds.index("step begun") == 2 and kinds[-1] == "step ended"

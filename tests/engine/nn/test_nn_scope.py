"""Module scopes reach observers with qualified names ("model.layers.0"), at no cost without one."""

import numpy as np
import pytest

import graphscope as gs
from graphscope.engine import hooks, nn
from graphscope.engine.nn import scope


class ScopeLog(hooks.Observer):
    """Records module entries/exits and, for each node created, the module path it was created in."""

    def __init__(self):
        self.events, self.path, self.node_paths = [], [], []

    def module_entered(self, module, name):
        self.events.append(("enter", name))
        self.path.append(name)

    def module_left(self, module, name):
        self.events.append(("leave", name))
        assert self.path.pop() == name

    def node_created(self, node, inputs, output, site):
        self.node_paths.append((node.op, self.path[-1] if self.path else None))


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 3)
        self.act = nn.ReLU()

    def forward(self, x):
        return self.act(self.fc(x))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([Block(), Block()])
        self.head = nn.Linear(3, 1)

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return self.head(x)


def test_outermost_module_is_named_after_its_variable_and_submodules_by_path():
    model = Net()
    log = ScopeLog()
    with hooks.observe(log):
        model(gs.randn(2, 3))
    assert log.events == [
        ("enter", "model"),
        ("enter", "model.layers.0"),
        ("enter", "model.layers.0.fc"),
        ("leave", "model.layers.0.fc"),
        ("enter", "model.layers.0.act"),
        ("leave", "model.layers.0.act"),
        ("leave", "model.layers.0"),
        ("enter", "model.layers.1"),
        ("enter", "model.layers.1.fc"),
        ("leave", "model.layers.1.fc"),
        ("enter", "model.layers.1.act"),
        ("leave", "model.layers.1.act"),
        ("leave", "model.layers.1"),
        ("enter", "model.head"),
        ("leave", "model.head"),
        ("leave", "model"),
    ]


def test_nodes_are_created_inside_their_module_scope():
    net = nn.Sequential(nn.Linear(2, 2), nn.Tanh())
    log = ScopeLog()
    x = gs.randn(3, 2, requires_grad=True)
    with hooks.observe(log):
        y = net(x)
        loss = (y * y).sum()
    assert log.node_paths[:2] == [("linear", "net.0"), ("tanh", "net.1")]
    assert log.node_paths[2][1] is None  # created outside any module
    assert loss.requires_grad


def test_a_module_held_by_no_variable_is_named_after_its_class():
    log = ScopeLog()
    with hooks.observe(log):
        Net()(gs.randn(1, 3))
    assert log.events[0] == ("enter", "net") and log.events[1] == ("enter", "net.layers.0")


def test_a_module_held_by_an_attribute_of_self_takes_the_attribute_name():
    class Trainer:
        def __init__(self):
            self.classifier = nn.Linear(2, 1)

        def run(self):
            return self.classifier(gs.randn(1, 2))

    log = ScopeLog()
    with hooks.observe(log):
        Trainer().run()
    assert log.events == [("enter", "classifier"), ("leave", "classifier")]


def test_module_left_is_announced_when_forward_raises():
    model = nn.Linear(2, 2)
    log = ScopeLog()
    with hooks.observe(log), pytest.raises(RuntimeError, match=r"^linear: input of shape \(3, 5\) does not match"):
        model(gs.randn(3, 5))
    assert log.events == [("enter", "model"), ("leave", "model")]
    assert scope.scopes.stack == []


def test_names_follow_structure_changes():
    model = nn.Sequential(nn.Linear(2, 2))
    log = ScopeLog()
    with hooks.observe(log):
        model(gs.randn(1, 2))
        model.append(nn.ReLU())
        model(gs.randn(1, 2))
    assert ("enter", "model.1") in log.events


def test_parameter_names_in_the_model_come_from_named_parameters_with_the_scope_prefix():
    model = Net()
    names = {}

    class ParamNames(hooks.Observer):
        def module_entered(self, module, name):
            for pname, p in module.named_parameters(prefix=name, recurse=False):
                names[pname] = p

    with hooks.observe(ParamNames()):
        model(gs.randn(1, 3))
    assert names["model.layers.1.fc.weight"] is model.layers[1].fc.weight
    assert names["model.head.bias"] is model.head.bias


def test_no_observer_means_no_scope_work(monkeypatch):
    def fail(*args):
        raise AssertionError("scope work without an observer")

    monkeypatch.setattr(scope, "enter", fail)
    monkeypatch.setattr(nn.Module, "_call_with_hooks", fail)
    model = Net()
    assert model(gs.randn(2, 3)).shape == (2, 1)


def test_scope_names_are_cached_per_root():
    model = Net()
    with hooks.observe(ScopeLog()):
        model(gs.randn(1, 3))
        first = scope.submodule_names(model)
        model(gs.randn(1, 3))
        assert scope.submodule_names(model) is first
    assert first[model.layers[0].fc] == "layers.0.fc"


def test_observer_does_not_change_results():
    model = Net()
    x = gs.randn(4, 3)
    plain = model(x).detach().cpu().numpy()
    with hooks.observe(ScopeLog()):
        observed = model(x).detach().cpu().numpy()
    np.testing.assert_array_equal(plain, observed)


class Scaled(nn.Module):
    """A user's module (defined here, not in graphscope) with a graphscope layer inside."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 2)

    def forward(self, x):
        y = self.fc(x) * 2.0  # inside the user's forward
        return y


def test_node_sites_are_the_users_lines_inside_and_around_graphscope_modules():
    import inspect

    class Sites(hooks.Observer):
        def __init__(self):
            self.sites = []

        def node_created(self, node, inputs, output, site):
            self.sites.append((node.op, site.line, site.function))

    net = nn.Sequential(nn.Linear(2, 2), Scaled(), nn.Tanh())
    log = Sites()
    with hooks.observe(log):
        net(gs.randn(3, 2))
        line = inspect.currentframe().f_lineno - 1
    inner = (
        next(n for n, text in enumerate(inspect.getsource(Scaled).splitlines()) if "inside the user's forward" in text)
        + inspect.getsourcelines(Scaled)[1]
    )
    here = "test_node_sites_are_the_users_lines_inside_and_around_graphscope_modules"
    assert log.sites == [
        ("linear", line, here),
        ("linear", inner, "forward"),
        ("mul", inner, "forward"),
        ("tanh", line, here),
    ]


def test_a_forward_set_on_an_instance_gets_its_own_lines():
    layer = nn.Linear(2, 2)
    original = layer.forward

    def patched(x):
        return original(x) + 1.0  # the patched forward

    layer.forward = patched
    sites = []

    class Sites(hooks.Observer):
        def node_created(self, node, inputs, output, site):
            sites.append(site.function)

    with hooks.observe(Sites()):
        layer(gs.randn(1, 2))
    assert sites == ["patched", "patched"]

"""`graphscope run --headless` of a script with a gradient penalty: the backward that builds the
penalty's grads and the backward through them are passes of their own, exported and explained."""

import pytest

from graphscope.trace import snapshot
from tests.graphscope_command import graphscope, script

GRADIENT_PENALTY = """
    import graphscope as gs
    from graphscope import nn, optim

    gs.manual_seed(0)
    critic = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 1))
    opt = optim.SGD(critic.parameters(), lr=0.05)
    for step in range(2):
        x = gs.randn(16, 2, requires_grad=True)
        out = critic(x)
        (slope,) = gs.autograd.grad(out.sum(), x, create_graph=True)
        penalty = ((slope.pow(2).sum(1) + 1e-12).sqrt() - 1).pow(2).mean()
        loss = out.mean() + 10 * penalty
        opt.zero_grad()
        loss.backward()
        opt.step()
"""
# the autograd.grad line of the script above
GRAD_LINE = 1 + next(i for i, line in enumerate(GRADIENT_PENALTY.splitlines()) if "autograd.grad" in line)


@pytest.mark.slow
def test_a_gradient_penalty_run_records_each_backward_as_a_pass_and_explains_the_second(tmp_path):
    path, snap = script(tmp_path, GRADIENT_PENALTY), tmp_path / "run.json"
    result = graphscope("run", "--headless", "--keep", "all", "--export", snap, path)
    assert result.returncode == 0, result.stderr
    assert "4 backward passes recorded" in result.stdout
    record = snapshot.load(snap)
    first, second = record.passes[:2]
    # the nodes the first backward made (out.sum() is on its line too, the first pass's root)
    made = [
        n
        for n in record.nodes.values()
        if first.root < n.id < second.root and n.site is not None and n.site.line == GRAD_LINE and n.requires_grad
    ]
    # the second steps back through linear's rule (a matmul) and tanh's (1 − out²)
    assert {n.op for n in made if n.id in second.order} == {"matmul", "mul", "sub"}
    explained = graphscope("explain", "--pass", "1", snap)
    assert explained.returncode == 0, explained.stderr
    assert "(slope,) = gs.autograd.grad(out.sum(), x, create_graph=True)" in explained.stdout


DOUBLE_BACKWARD = """
    import graphscope as gs
    x = gs.tensor([0.5, -1.0, 2.0], requires_grad=True)
    y = (x.exp() * x).sum()
    (slope,) = gs.autograd.grad(y, x, create_graph=True)
    (slope * slope).sum().backward()
    print("grad", x.grad.tolist())
"""


def test_a_live_session_steps_through_the_first_backward_then_the_second_as_the_next_pass(run_session):
    driver = run_session(DOUBLE_BACKWARD)
    state = driver.paused()
    record = driver.session.record
    assert (state.pass_index, record.nodes[state.node].op) == (0, "sum")
    while state.pass_index == 0:
        state = driver.command("step")  # each step of the first backward makes the grad's nodes
    assert (state.pass_index, state.step) == (1, 0)
    second = record.passes[1]
    made = [n.op for n in record.nodes.values() if n.site is not None and n.site.line == 5 and n.requires_grad]
    assert sorted(made) == ["add", "mul", "mul", "mul"]  # the rules' nodes: slope = eˣ·x + eˣ
    assert [record.nodes[n].op for n in second.order][:2] == ["sum", "mul"]  # (slope * slope).sum()
    done = driver.command("continue_")
    assert done.kind == "finished" and done.exit_code == 0
    assert len(second.steps) == len(second.order)
    assert any(line.text.startswith("grad [") for line in record.console)

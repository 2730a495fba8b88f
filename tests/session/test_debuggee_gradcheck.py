"""Debuggee.gradcheck: a live session checks a script's custom Function; its snapshot says it cannot."""

from graphscope.session import Debuggee
from graphscope.trace import snapshot

SCRIPT = """
import graphscope as gs

class Cube(gs.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x * x + gs.zeros_like(x)   # a creation: an engine event

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * 3 * x   # wrong: the derivative of x³ is 3x²

x = gs.tensor([1.0, 2.0, -3.0], requires_grad=True)
Cube.apply(x).sum().backward()
"""


def cube_node(record):
    return next(n.id for n in record.nodes.values() if n.op == "Cube")


def test_a_paused_session_gradchecks_the_scripts_custom_function(run_session):
    driver = run_session(SCRIPT)
    driver.paused()
    result = driver.session.gradcheck(cube_node(driver.session.record))
    assert result.checked and not result.ok
    (check,) = result.inputs
    assert check.label == "x" and check.elements == (0, 1, 2)
    # analytic 3x·c against numeric 3x²·c: the error is largest where |x² - x| is, at x = -3
    assert check.max_error == max(abs(a - n) for a, n in zip(check.analytic, check.numeric))
    assert abs(check.analytic[2] / check.numeric[2] - (-1 / 3)) < 1e-6
    assert driver.session.recorder.notes == []  # the check is not a thread of the script


def test_the_snapshot_of_that_session_says_the_custom_function_needs_its_script(run_session):
    driver = run_session(SCRIPT, pause=False)
    driver.done()
    debuggee = Debuggee(snapshot.loads(snapshot.dumps(driver.session.record)))
    result = debuggee.gradcheck(cube_node(debuggee.record))
    assert result.reason == "custom Function Cube: its code is in the script; gradcheck it in a live run"

"""The expression line at a pause: Python evaluated in the paused script's own frames, without recording it."""

from graphscope.session import Breakpoint, Debuggee

SCRIPT = """
import graphscope as gs


class Box:
    def __init__(self):
        self.lr = 0.5


def inner(w, box):
    scale = 3.0
    y = (w * scale).sum()
    return y * scale


def outer():
    w = gs.tensor([1.0, -2.0, 4.0], requires_grad=True)
    box = Box()
    out = inner(w, box)
    out.backward()
    print("out", out.item())


outer()
"""


def paused_in_inner(run_session):
    driver = run_session(SCRIPT, pause=False, break_on_nan=False, breakpoints=["op:mul"])
    state = driver.paused()
    assert driver.session.record.nodes[state.created].op == "mul"
    return driver


def test_locals_and_attributes_of_the_innermost_user_frame(run_session):
    session = paused_in_inner(run_session).session
    assert session.evaluate("scale").output == "3.0"
    assert session.evaluate("box.lr * 2").output == "1.0"
    assert [(f.function, f.line) for f in session.frames()] == [("inner", 12), ("outer", 19), ("<module>", 24)]


def test_a_tensor_result_is_a_summary_not_a_repr(run_session):
    session = paused_in_inner(run_session).session
    answer = session.evaluate("w * 2")
    assert answer.output == "Tensor (3,) float32 on cpu (requires grad)"
    assert answer.summary is not None and answer.summary.max == 8.0 and answer.summary.min == -4.0


def test_an_exception_is_one_line_and_the_script_stays_paused(run_session):
    driver = paused_in_inner(run_session)
    state = driver.session.state
    answer = driver.session.evaluate("1 / 0")
    assert answer.error and answer.output == "ZeroDivisionError: division by zero"
    assert driver.session.evaluate("nothing_here").output == "NameError: name 'nothing_here' is not defined"
    assert driver.session.state is state


def test_a_statement_assigns_in_the_frame_and_the_script_sees_it(run_session):
    driver = paused_in_inner(run_session)
    answer = driver.session.evaluate("scale = 10.0")
    assert answer.assigned == ("scale",) and not answer.error
    assert driver.session.evaluate("scale").output == "10.0"
    driver.command("run_to_end")
    assert [line.text for line in driver.session.record.console] == ["out 90.0"]  # (1 - 2 + 4) * 3 * 10


def test_up_and_down_move_through_the_users_frames(run_session):
    session = paused_in_inner(run_session).session
    assert session.move_frame(-1) == "newest frame already: inner at script.py:12"
    assert session.move_frame(1) == "frame 1 of 2: outer at script.py:19"
    assert session.frame_level == 1
    assert session.evaluate("box.lr").output == "0.5"
    assert session.evaluate("scale").output == "NameError: name 'scale' is not defined"
    assert session.move_frame(1) == "frame 2 of 2: <module> at script.py:24"
    assert session.move_frame(1) == "oldest frame already: <module> at script.py:24"
    assert session.move_frame(-2) == "frame 0 of 2: inner at script.py:12"
    assert session.evaluate("scale").output == "3.0"


def test_evaluated_ops_are_not_recorded_and_trip_no_breakpoint(run_session):
    driver = paused_in_inner(run_session)
    session = driver.session
    session.add_breakpoint(Breakpoint.parse("op:exp"))
    nodes = len(session.record.nodes)
    state = session.state
    assert session.evaluate("(w.exp() * 2).sum().item()").output.startswith("114.9")
    assert session.state is state and len(session.record.nodes) == nodes
    driver.command("run_to_end")
    assert "exp" not in {node.op for node in session.record.nodes.values()}
    assert session.record.console[0].text == "out 27.0"


def test_completion_offers_the_frames_names_and_attributes(run_session):
    session = paused_in_inner(run_session).session
    assert "scale" in session.completions("sc")
    assert session.completions("box.l") == ["box.lr"]
    assert session.completions("nothing_here.x") == []


def test_nothing_to_evaluate_in_while_the_script_runs_or_is_over(run_session):
    driver = paused_in_inner(run_session)
    driver.command("run_to_end")
    answer = driver.session.evaluate("1 + 1")
    assert answer.error and answer.output == "no frame to evaluate in: the script is not paused"


def test_a_snapshot_offers_the_record_instead(run_session):
    driver = run_session(SCRIPT, pause=False, break_on_nan=False)
    driver.done()
    view = Debuggee(driver.session.record)
    mul = next(n for n in view.record.nodes.values() if n.op == "mul")
    answer = view.evaluate(f"#{mul.id}")
    assert not answer.error and answer.summary is mul.output
    assert answer.output.splitlines()[0] == f"#{mul.id} mul at script.py:12"
    assert answer.output.splitlines()[2].startswith("grad: min 3.0 max 3.0")
    missing = view.evaluate("w.grad.norm()")
    assert missing.error and missing.output.startswith("no live frame in a snapshot: type #id")

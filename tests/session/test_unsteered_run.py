"""A run nothing can pause (headless: not steered, no pause, no breakpoint, the NaN one included) has no step
gate hearing each op and step, so the engine steps backward on the recorder's tape; a breakpoint it starts
with still stops it, and stopping it still ends the script at its next engine event."""

import threading

import pytest

from graphscope.engine import hooks
from graphscope.session import Session, SessionOptions
from graphscope.session.quit_check import QuitCheck
from graphscope.session.script_runner import SessionQuit
from tests.waiting import WAIT_SECONDS

UNSTEERED = {"pause": False, "steered": False, "break_on_nan": False}  # as a headless run's
LISTENERS = """
    import graphscope as gs
    from graphscope.engine import hooks
    w = gs.ones(3, requires_grad=True)
    (w * w).sum().backward()
    print([type(o).__name__ for o in hooks.observers], hooks.handled("before_node", "after_node"))
"""


def test_a_run_nothing_can_pause_has_the_recorder_alone_on_the_engine(run_session):
    driver = run_session(LISTENERS, **UNSTEERED)
    assert driver.done().exit_code == 0
    assert driver.session.record.console[0].text == "['Recorder'] False"
    assert driver.session.record.passes[0].steps  # the steps came on the recorder's tape


@pytest.mark.parametrize(
    "options",
    [{**UNSTEERED, "steered": True}, {**UNSTEERED, "pause": True}, {**UNSTEERED, "break_on_nan": True}],
    ids=["steered", "pausing", "breaking-on-nan"],
)
def test_a_run_that_can_pause_has_the_gate_hear_each_step(run_session, options):
    driver = run_session(LISTENERS, **options)
    if options["pause"]:
        driver.paused()
        driver.command("run_to_end")
    assert driver.done().exit_code == 0
    assert driver.session.record.console[0].text == "['Recorder', 'StepGate'] True"


def test_a_breakpoint_a_run_starts_with_stops_it(run_session):
    driver = run_session(LISTENERS, breakpoints=["op:mul"], **UNSTEERED)
    state = driver.paused()
    assert state.reason.startswith("breakpoint") and driver.session.record.nodes.get(state.created).op == "mul"
    driver.command("continue_")
    assert driver.done().exit_code == 0
    assert driver.session.record.console[0].text == "['Recorder', 'StepGate'] True"


def test_stopping_a_run_nothing_can_pause_ends_it_at_its_next_engine_event(run_session):
    driver = run_session(
        """
        import graphscope as gs
        w = gs.ones(3, requires_grad=True)
        while True:
            (w * w).sum().backward()
        """,
        **UNSTEERED,
    )
    driver.wait(lambda s: len(driver.session.record.passes) > 5, "the loop to run")
    driver.session.stop()
    assert driver.session.join(WAIT_SECONDS)
    assert driver.session.state.kind == "finished" and driver.session.state.exit_code == 130
    assert hooks.observers == []  # the check installed to stop it went with the run


def test_a_run_nothing_can_pause_stopped_before_it_ran_never_runs_its_script(tmp_path):
    ran = tmp_path / "ran"
    path = tmp_path / "script.py"
    path.write_text(f"open({str(ran)!r}, 'w')\n")
    session = Session(str(path), [], SessionOptions(**UNSTEERED))
    session.stop()
    session.run()
    assert session.state.kind == "finished" and session.state.exit_code == 130
    assert not ran.exists() and hooks.observers == []


def test_the_quit_check_stops_the_scripts_thread_alone():
    raised = []

    def op_on_this_thread():
        try:
            hooks.announce("backward_begun", None, [])
        except SessionQuit:
            raised.append(threading.current_thread().name)

    check = QuitCheck(threading.get_ident())  # stands for the script's thread: this one
    with hooks.observe(check):
        other = threading.Thread(target=op_on_this_thread, name="other")
        other.start()
        other.join()
        op_on_this_thread()
    assert raised == [threading.current_thread().name]

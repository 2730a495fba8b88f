"""Stepping through a backward pass: pause, step, time travel, continue, breakpoints, run to end."""

import os

from graphscope.session import Breakpoint

SAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "samples")

SMALL_GRAPH = """
import graphscope as gs
a = gs.tensor([1.0, 2.0, 3.0], requires_grad=True)
b = gs.tensor([0.5, -1.0, 2.0], requires_grad=True)
c = a * b
d = c.exp()
e = d + a
loss = e.sum()
loss.backward()
print("grads", a.grad.tolist(), b.grad.tolist())
"""


def test_pauses_before_the_first_node_of_the_first_pass(run_session):
    driver = run_session(SMALL_GRAPH)
    state = driver.paused()
    record = driver.session.record
    assert state.pass_index == 0 and state.step == 0 and state.frontier == 0
    assert record.nodes[state.node].op == "sum"
    assert state.reason == "first backward pass"


def test_three_steps_walk_the_planned_order_and_record_each_grad(run_session):
    driver = run_session(SMALL_GRAPH)
    driver.paused()
    for expected_step in (1, 2, 3):
        state = driver.command("step")
        assert state.kind == "paused" and state.step == expected_step == state.frontier
    backward = driver.session.record.passes[0]
    assert [driver.session.record.nodes[n].op for n in backward.order] == ["sum", "add", "exp", "mul"]
    assert state.node == backward.order[3]
    assert len(backward.steps) == 4  # three run, and the paused node's with the grad it receives
    assert backward.steps[3].node == state.node and backward.steps[3].grad_inputs == []
    # d(sum)/de = 1, the add passes it to d and a, exp multiplies by exp(a*b).
    assert backward.steps[0].grad_output.values.tolist() == 1.0  # the seed of a scalar loss
    assert backward.steps[1].grad_output.values.tolist() == [1.0, 1.0, 1.0]
    assert backward.steps[2].grad_output.values.tolist() == [1.0, 1.0, 1.0]


def test_step_back_and_forward_move_the_cursor_without_running(run_session):
    driver = run_session(SMALL_GRAPH)
    driver.paused()
    driver.command("step")
    driver.command("step")
    back = driver.command("step_back")
    assert (back.step, back.frontier) == (1, 2)
    back = driver.command("step_back")
    assert (back.step, back.frontier) == (0, 2)
    first = driver.command("step_back")  # the cursor stops at the first step, and says so
    assert first.step == 0 and "nothing earlier" in first.reason
    forward = driver.command("step")  # behind the frontier, step only moves the cursor
    assert (forward.step, forward.frontier) == (1, 2)
    stepped = driver.command("step")
    assert (stepped.step, stepped.frontier) == (2, 2)
    assert len(driver.session.record.passes[0].steps) == 3  # two run, one about to run
    ran = driver.command("step")  # at the frontier it runs the engine
    assert (ran.step, ran.frontier) == (3, 3)
    assert driver.command("goto", 1).step == 1


def test_continue_with_no_breakpoint_hit_runs_to_the_end_of_the_run(run_session):
    driver = run_session(SMALL_GRAPH)
    driver.paused()
    done = driver.command("continue_")
    assert done.kind == "finished" and done.exit_code == 0
    assert (done.pass_index, done.step, done.node) == (0, 4, None)  # the cursor at the end of the run
    assert any("grads" in line.text for line in driver.session.record.console)


def test_step_at_the_end_of_a_pass_moves_on_to_the_next_pass(run_session):
    driver = run_session("""
        import graphscope as gs
        w = gs.tensor([1.0, 2.0], requires_grad=True)
        for _ in range(2):
            (w * 3).sum().backward()
    """)
    driver.paused()
    for _ in range(2):
        state = driver.command("step")
    assert (state.pass_index, state.step, state.node, state.reason) == (0, 2, None, "end of pass")
    state = driver.command("step")
    assert (state.pass_index, state.step) == (1, 0) and state.node is not None
    back = driver.command("step_back")  # back across the pass boundary, in time
    assert (back.pass_index, back.step, back.kind) == (0, 2, "paused")


def test_breakpoint_on_an_op(run_session):
    driver = run_session(SMALL_GRAPH)
    driver.paused()
    driver.session.add_breakpoint(Breakpoint("op", "exp"))
    state = driver.command("continue_")
    assert driver.session.record.nodes[state.node].op == "exp"
    assert state.reason.startswith("breakpoint") and "op exp" in state.reason


def test_a_stop_several_breakpoints_hit_names_them_all_live_and_in_the_snapshot(run_session):
    from graphscope.session import Debuggee
    from graphscope.trace import snapshot

    driver = run_session(SMALL_GRAPH)
    driver.paused()
    for bp in (Breakpoint("op", "exp"), Breakpoint("line", "script.py:6"), Breakpoint("op", "mul")):
        driver.session.add_breakpoint(bp)
    state = driver.command("continue_")
    assert state.reason == "breakpoints 2, 3: op exp; line script.py:6"  # 1 is NaN/Inf, on by default
    view = Debuggee(snapshot.loads(snapshot.dumps(driver.session.record)))
    for bp in driver.session.breakpoints:
        view.add_breakpoint(bp)
    view.continue_()
    assert (view.state.node, view.state.reason) == (state.node, state.reason)


def test_breakpoint_on_a_source_line(run_session, tmp_path):
    driver = run_session(SMALL_GRAPH)
    driver.paused()
    driver.session.add_breakpoint(Breakpoint("line", "script.py:5"))  # c = a * b
    state = driver.command("continue_")
    node = driver.session.record.nodes[state.node]
    assert node.site.line == 5 and node.op == "mul"


def test_breakpoint_on_a_module(run_session):
    driver = run_session("""
        import graphscope as gs
        from graphscope import nn
        gs.manual_seed(0)
        model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
        loss = model(gs.randn(5, 3)).pow(2).mean()
        loss.backward()
    """)
    driver.paused()
    driver.session.add_breakpoint(Breakpoint("module", "model.0"))
    state = driver.command("continue_")
    assert driver.session.record.nodes[state.node].module == "model.0"


def test_listing_toggling_and_removing_breakpoints(run_session):
    driver = run_session(SMALL_GRAPH)
    driver.paused()
    session = driver.session
    exp = session.add_breakpoint(Breakpoint("op", "exp"))
    mul = session.add_breakpoint(Breakpoint("op", "mul"))
    assert [(b.kind, b.value) for b in session.breakpoints][-2:] == [("op", "exp"), ("op", "mul")]
    session.toggle_breakpoint(exp.id)
    assert not next(b for b in session.breakpoints if b.id == exp.id).enabled
    state = driver.command("continue_")
    assert session.record.nodes[state.node].op == "mul"
    session.remove_breakpoint(mul.id)
    assert mul.id not in [b.id for b in session.breakpoints]


def test_continue_stops_at_the_first_nan(run_session):
    driver = run_session(path=os.path.join(SAMPLES, "exploding_nan.py"))
    driver.paused()
    born = driver.command("continue_")  # no stop at the end of the pass: on to the NaN, where it is made
    assert born.kind == "paused" and "NaN" in born.reason and born.created is not None
    state = driver.command("continue_")  # then where it reaches the backward
    assert state.kind == "paused" and "NaN" in state.reason and state.pass_index > 0 and state.created is None
    record = driver.session.record
    node = record.nodes[state.node]
    step = record.passes[state.pass_index].steps[state.step]
    assert node.output.has_nonfinite or step.grad_output.has_nonfinite  # what the record says, too


def test_run_to_end_records_the_engines_final_grads(run_session, tmp_path):
    out = tmp_path / "grads.npy"
    driver = run_session(f"""
        import numpy as np
        import graphscope as gs
        gs.manual_seed(0)
        w = gs.randn(4, 3, requires_grad=True)
        x = gs.randn(5, 4)
        for _ in range(3):
            loss = (x @ w).tanh().sum()
            loss.backward()
        np.save({str(out)!r}, w.grad.numpy())
    """)
    driver.paused()
    assert driver.command("run_to_end").kind == "finished"
    record = driver.session.record
    assert len(record.passes) == 3
    import numpy as np

    final = np.load(out)
    increments = [g.grad.values for p in record.passes for step in p.steps for g in step.leaf_grads]
    assert len(increments) == 3
    assert all(record.nodes[g.node].parameter == "w" for step in record.passes[-1].steps for g in step.leaf_grads)
    # Each pass adds its grad into w.grad: the engine's final .grad is their sum.
    assert np.allclose(sum(increments), final, rtol=1e-5)


def test_no_pause_runs_straight_through(run_session):
    driver = run_session(SMALL_GRAPH, pause=False)
    state = driver.done()
    assert state.kind == "finished" and len(driver.session.record.passes) == 1


def test_a_snapshot_exported_mid_run_is_stopped_where_it_was_paused(run_session):
    from graphscope.session import Debuggee
    from graphscope.trace import snapshot

    driver = run_session(SMALL_GRAPH)
    driver.paused()
    driver.command("step")
    record = snapshot.loads(snapshot.dumps(driver.session.record))
    view = Debuggee(record)
    assert (view.state.kind, view.state.pass_index, view.state.step) == ("stopped", 0, 0)
    view.run_to_end()  # the end of what was recorded, not a pass the script never finished
    assert (view.state.pass_index, view.state.step) == (0, 1)
    view.step()
    assert (view.state.step, view.state.reason) == (
        1,
        "the snapshot ends here: it was exported while the script was paused at pass 0, step 2 of 4",
    )
    view.continue_()
    assert view.state.reason.startswith("the snapshot ends here")


def test_a_snapshot_exported_at_a_pass_end_says_it_ends_there(run_session):
    from graphscope.session import Debuggee
    from graphscope.trace import snapshot

    driver = run_session(SMALL_GRAPH)
    driver.paused()
    for _ in range(4):
        driver.command("step")
    view = Debuggee(snapshot.loads(snapshot.dumps(driver.session.record)))
    view.continue_()
    assert (view.state.pass_index, view.state.step) == (0, 4)
    assert (
        view.state.reason == "the snapshot ends here: it was exported while the script was paused at the end of pass 0"
    )
    view.step()
    assert (
        view.state.reason == "the snapshot ends here: it was exported while the script was paused at the end of pass 0"
    )


def test_continue_while_a_step_is_running_takes_over(run_session):
    driver = run_session(SMALL_GRAPH)
    driver.paused()
    session = driver.session
    with session._lock:  # as if the user pressed n then c before the script paused again
        session._advance("step")
        session._advance("continue")
    state = driver.wait(lambda s: s.kind in ("finished", "failed"), "the run to end")
    assert state.kind == "finished"

"""Every way a script can end is reported, the debugger survives it, and quitting always works."""

import sys
import time

from graphscope.session import Session, SessionOptions


def test_sys_exit_code_is_reported_not_raised(run_session):
    state = run_session("import sys\nprint('bye')\nsys.exit(3)\n", pause=False).done()
    assert state.kind == "finished" and state.exit_code == 3


def test_exception_inside_forward_is_reported_with_its_line(run_session):
    driver = run_session(
        """
        import graphscope as gs
        from graphscope import nn
        class Broken(nn.Module):
            def forward(self, x):
                return x @ gs.ones(5, 2)
        Broken()(gs.ones(3, 4))
    """,
        pause=False,
    )
    state = driver.done()
    assert state.kind == "failed" and state.exit_code == 1
    error = driver.session.record.error
    assert error.type == "RuntimeError" and "inner dimensions 4 and 5 differ" in error.message
    assert error.site is not None and error.site.line == 6
    assert "script.py" in error.traceback and "graphscope/engine" not in error.traceback.split("\n")[1]


def test_exception_inside_a_custom_function_backward_names_the_node(run_session):
    driver = run_session(
        """
        import graphscope as gs
        class Fragile(gs.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2
            @staticmethod
            def backward(ctx, grad):
                raise ArithmeticError("backward blew up")
        x = gs.ones(3, requires_grad=True)
        Fragile.apply(x).sum().backward()
    """,
        pause=False,
    )
    state = driver.done()
    assert state.kind == "failed"
    error = driver.session.record.error
    assert error.type == "ArithmeticError" and error.message == "backward blew up"
    assert driver.session.record.nodes[error.node].op == "Fragile"


def test_script_that_builds_no_graph_finishes_cleanly(run_session):
    driver = run_session("print('no graph here')\n")
    state = driver.done()
    assert state.kind == "finished" and state.exit_code == 0
    assert driver.session.record.passes == [] and driver.session.record.nodes == {}
    assert driver.session.record.console[0].text.startswith("no graph here")


def test_a_thousand_backward_calls_pause_once(run_session):
    driver = run_session("""
        import graphscope as gs
        w = gs.ones(3, requires_grad=True)
        for i in range(1000):
            (w * w).sum().backward()
        print(float(w.grad[0]))
    """)
    driver.paused()
    driver.command("continue_")  # end of the first pass
    state = driver.command("continue_")
    assert state.kind == "finished"
    record = driver.session.record
    assert len(record.passes) == 1000
    assert record.console[-1].text.strip() == "2000.0"


def test_quit_while_paused_unwinds_within_a_second(run_session):
    driver = run_session("""
        import graphscope as gs
        w = gs.ones(3, requires_grad=True)
        (w * w).sum().backward()
    """)
    driver.paused()
    start = time.monotonic()
    driver.session.quit()
    assert driver.session.join(1.0)
    assert time.monotonic() - start < 1.0
    assert driver.session.state.kind == "finished" and driver.session.state.exit_code == 130


def test_quit_while_running_unwinds_within_a_second(run_session):
    driver = run_session(
        """
        import graphscope as gs
        w = gs.ones(3, requires_grad=True)
        while True:
            (w * w).sum().backward()
    """,
        pause=False,
    )
    driver.wait(lambda s: len(driver.session.record.passes) > 5, "the loop to run")
    start = time.monotonic()
    driver.session.quit()
    assert driver.session.join(1.0)
    assert time.monotonic() - start < 1.0


def test_quit_a_script_busy_outside_the_engine(run_session):
    driver = run_session("while True:\n    sum(range(1000))\n", pause=False)
    driver.wait(lambda s: s.kind == "running", "the script to start")
    driver.session.quit()
    assert driver.session.join(1.5)


def test_keyboard_interrupt_is_reported(run_session):
    state = run_session("raise KeyboardInterrupt\n", pause=False).done()
    assert state.kind == "failed" and state.exit_code == 130


def test_argv_and_sys_path_are_the_scripts_and_restored(run_session, tmp_path):
    (tmp_path / "helper_module_for_session.py").write_text("VALUE = 42\n")
    before_argv, before_path = sys.argv[:], sys.path[:]
    driver = run_session(
        """
        import sys
        import helper_module_for_session
        print(sys.argv[1:], helper_module_for_session.VALUE)
    """,
        argv=["--epochs", "2"],
        pause=False,
    )
    driver.done()
    assert driver.session.record.console[0].text.startswith("['--epochs', '2'] 42")
    assert sys.argv == before_argv and sys.path == before_path


def test_as_torch_runs_a_pytorch_style_script(run_session):
    had_torch = sys.modules.get("torch")
    driver = run_session(
        """
        import torch
        import torch.nn as nn
        import torch.nn.functional as F
        torch.manual_seed(0)
        model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        x, y = torch.randn(16, 4), torch.randint(0, 2, (16,))
        for _ in range(3):
            loss = F.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(type(loss).__module__)
    """,
        as_torch=True,
        pause=False,
    )
    state = driver.done()
    assert state.kind == "finished", driver.session.record.error
    assert driver.session.record.console[0].text.startswith("graphscope")
    assert len(driver.session.record.passes) == 3
    assert sys.modules.get("torch") is had_torch


def test_as_torch_names_what_is_not_supported(run_session):
    driver = run_session("import torch\ntorch.fft.rfft(torch.ones(4))\n", as_torch=True, pause=False)
    driver.done()
    error = driver.session.record.error
    assert "torch.fft is not supported by graphscope yet" in error.message


def test_a_session_run_in_place_runs_its_script_on_the_calling_thread(tmp_path):
    path = tmp_path / "script.py"
    path.write_text(
        "import signal, threading\nsignal.signal(signal.SIGUSR1, signal.getsignal(signal.SIGUSR1))\n"
        "print(threading.current_thread() is threading.main_thread())\n"
    )
    session = Session(str(path), [], SessionOptions(pause=False))
    session.run()
    assert session.state.kind == "finished" and session.state.exit_code == 0
    assert [line.text for line in session.record.console] == ["True"]


def test_a_session_quit_before_it_ran_never_runs_its_script(tmp_path):
    ran = tmp_path / "ran"
    path = tmp_path / "script.py"
    path.write_text(f"open({str(ran)!r}, 'w')\n")
    session = Session(str(path), [], SessionOptions(pause=False))
    session.quit()
    session.run()
    assert session.state.kind == "finished" and session.state.exit_code == 130
    assert not ran.exists()

"""The explain report from a record: grads accumulating across passes, what happened after the pass, literal names."""

import graphscope as gs
from graphscope.engine import hooks
from graphscope.trace.explain.optimizer_step import explain_change
from graphscope.trace.explain.report import markdown_report, text_report
from graphscope.trace.recording.recorder import Policy, Recorder


def recorded(run):
    recorder = Recorder(Policy.every_pass())
    with hooks.observe(recorder):
        run()
    return recorder.finish(0)


def equation_twice_then_zeroed():
    a = gs.tensor([2.0, 3.0], requires_grad=True)
    b = gs.tensor([6.0, 4.0], requires_grad=True)
    for _ in range(2):
        (3 * a**3 - b**2).sum().backward()
    a.grad.zero_()
    b.grad = None


def section(report: str, heading: str) -> str:
    start = report.index(f"\n{heading}\n")
    end = report.find("\n\n", start + 1)
    return report[start + 1 : end if end >= 0 else None]


def test_the_first_pass_fills_grads_that_were_none():
    report = text_report(recorded(equation_twice_then_zeroed), 0)
    assert section(report, "Where the grads ended up").splitlines()[2:] == [
        "  b (node 3): .grad was None, now [-12, -8]",
        "  a (node 0): .grad was None, now [36, 81]",
    ]


def test_a_second_pass_adds_into_the_grads_the_first_left_and_the_resets_after_it_follow():
    record = recorded(equation_twice_then_zeroed)
    report = text_report(record, 1)
    a, b = (n.id for n in record.nodes.values() if n.pass_index == 1 and n.parameter in ("a", "b"))
    assert section(report, "Where the grads ended up").splitlines()[2:] == [
        f"  b (node {b}): .grad [-12, -8] + [-12, -8] = [-24, -16]",
        f"  a (node {a}): .grad [36, 81] + [36, 81] = [72, 162]",
    ]
    assert section(report, "After the pass: the script resets the .grad of a").splitlines()[1:] == [
        f"  {__file__}:{equation_twice_then_zeroed.__code__.co_firstlineno + 5}    a.grad.zero_()",
        "  a: grad reset by the script after backward pass 1",
        "  .grad before   [72, 162]",
        "  .grad after    zeros",
    ]
    assert (
        section(report, "After the pass: the script resets the .grad of b").splitlines()[-1] == "  .grad after    None"
    )
    assert "After the pass" not in text_report(record, 0)


def test_names_from_the_record_stay_literal_in_markdown():
    record = recorded(equation_twice_then_zeroed)
    for node in record.nodes.values():
        if node.parameter == "a":
            node.parameter = "a`*b*_[x](y)"
    markdown = markdown_report(record, 0)
    assert "## Step 5 of 5: node 1, `pow`" in markdown
    assert "a`*b*_[x](y) (node 0): .grad was None, now [36, 81]" in markdown  # in a code block, as it is
    text = text_report(record, 0)
    assert "  a`*b*_[x](y) (node 0): .grad was None, now [36, 81]" in text


def sgd_steps():
    w = gs.tensor([1.0, -2.0], requires_grad=True)
    optimizer = gs.optim.SGD([w], lr=0.1)
    for _ in range(2):
        optimizer.zero_grad()
        (w * w).sum().backward()
        optimizer.step()


def test_the_optimizer_step_after_the_pass_shows_before_update_and_after():
    record = recorded(sgd_steps)
    report = text_report(record, 0)
    step = next(e for e in record.optimizer if e.kind == "step" and e.passes == 1)
    lines = section(report, "After the pass: SGD.step()").splitlines()
    assert lines[1].endswith("optimizer.step()")
    assert lines[2:] == [f"  {line}" for line in explain_change(record, step, step.params[0])]
    assert "  after  [0.8, -1.6]" in lines
    # the next iteration's zero_grad comes before pass 1's backward: it follows pass 0 too
    assert section(report, "After the pass: SGD.zero_grad()").splitlines()[-1] == "  .grad after    None"
    assert report.index("After the pass: SGD.step()") < report.index("After the pass: SGD.zero_grad()")
    assert "After the pass: SGD.zero_grad()" not in text_report(record, 1)


def hand_steps():
    w = gs.tensor([1.0, -2.0], requires_grad=True)
    for _ in range(2):
        (w * w).sum().backward()
        with gs.no_grad():
            w -= 0.1 * w.grad
        w.grad = None


def test_an_update_by_hand_after_the_pass_shows_before_update_and_after():
    record = recorded(hand_steps)
    report = text_report(record, 0)
    update = next(e for e in record.optimizer if e.kind == "hand_update" and e.passes == 1)
    lines = section(report, "After the pass: the script updates w").splitlines()
    assert lines[1].endswith("w -= 0.1 * w.grad")
    assert lines[2:] == [f"  {line}" for line in explain_change(record, update, update.params[0])]
    assert "  after  [0.8, -1.6]" in lines


def test_statistics_that_skip_nan_and_inf_count_them():
    def run():
        values = [float(v) for v in range(64)]
        values[0], values[5], values[9] = float("nan"), float("nan"), float("inf")
        x = gs.tensor(values, requires_grad=True)
        (x * 2).sum().backward()

    report = text_report(recorded(run))
    assert "value  [0] = nan    (shape (64,), 2 nan, 1 inf; of the 61 finite: min 2, max 126, mean" in report
    assert "no finite values" not in report

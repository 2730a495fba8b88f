"""`--keep` and `--full-values`: which passes and how much of each tensor a run keeps, chosen on the command
line for the app, --headless and explain; a bad value is one line naming what was wrong and the forms."""

from dataclasses import replace
from pathlib import Path

import pytest

from graphscope.cli import build_parser, main
from graphscope.trace import snapshot
from graphscope.trace.record.keep_option import FULL_VALUES_FORMS, KEEP_FORMS, full_values
from graphscope.trace.record.limits import ID_LIMIT
from graphscope.trace.recording.keeping import Policy
from tests.graphscope_command import graphscope

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"


def policy(*options: str) -> Policy | None:
    return build_parser().parse_args(["run", *options, "model.py"]).policy


@pytest.mark.parametrize(
    ("value", "first", "last"),
    [
        ("all", 0, None),
        ("last=5", 0, 5),
        ("first=2,last=7", 2, 7),
        ("first=3", 3, 0),
        ("last=0", 0, 0),
        (" first = 1 , last = 1_000 ", 1, 1000),
    ],
)
def test_keep_sets_the_passes_kept_in_detail(value, first, last):
    chosen = policy("--keep", value)
    assert (chosen.keep_first, chosen.keep_last) == (first, last)


def test_without_options_the_recorders_default_policy_is_used():
    assert policy() is None


@pytest.mark.parametrize(("value", "limit"), [("100000", 100_000), ("0", 0), ("all", ID_LIMIT)])
def test_full_values_sets_the_elements_kept_in_full(value, limit):
    assert policy("--full-values", value).full_values_limit == limit


def test_both_options_together_set_both_in_either_order():
    a = policy("--keep", "all", "--full-values", "9")
    b = policy("--full-values", "9", "--keep", "all")
    assert a == b and (a.keep_last, a.full_values_limit) == (None, 9)


@pytest.mark.parametrize(
    ("option", "value", "wrong", "forms"),
    [
        ("--keep", "everything", "'everything' is not one of the forms", KEEP_FORMS),
        ("--keep", "last", "'last' is not one of the forms", KEEP_FORMS),
        ("--keep", "last=", "'' is not a whole number", KEEP_FORMS),
        ("--keep", "last=-1", "'-1' is not a whole number", KEEP_FORMS),
        ("--keep", "last=2.5", "'2.5' is not a whole number", KEEP_FORMS),
        ("--keep", "first=1,first=2", "first= is given twice", KEEP_FORMS),
        ("--keep", "middle=3", "'middle=3' is not one of the forms", KEEP_FORMS),
        ("--keep", "all,last=2", "'all' is not one of the forms", KEEP_FORMS),
        ("--keep", "last=99999999999999999999", "99999999999999999999 is over", KEEP_FORMS),
        ("--full-values", "lots", "'lots' is not a whole number", FULL_VALUES_FORMS),
        ("--full-values", "1e6", "'1e6' is not a whole number", FULL_VALUES_FORMS),
        ("--full-values", "-5", "'-5' is not a whole number", FULL_VALUES_FORMS),
    ],
)
def test_a_bad_value_is_one_line_saying_what_is_wrong_and_the_forms(capsys, option, value, wrong, forms):
    with pytest.raises(SystemExit) as exit:
        main(["run", "--headless", f"{option}={value}", "model.py"])
    assert exit.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"graphscope: {option} {value}: {wrong}"), err
    assert err.rstrip().endswith(forms)


def test_explain_takes_full_values_but_not_keep(capsys):
    assert build_parser().parse_args(["explain", "--full-values", "10", "m.py"]).policy.full_values_limit == 10
    with pytest.raises(SystemExit):
        build_parser().parse_args(["explain", "--keep", "all", "m.py"])


def test_the_app_is_run_with_the_chosen_policy(monkeypatch):
    import graphscope.tui.launch as launch

    seen = {}
    monkeypatch.setattr(launch, "run", lambda *args, **kwargs: seen.update(kwargs) or 0)
    assert main(["run", "--keep", "last=2", "--full-values", "50", str(SAMPLES / "fit_a_line.py")]) == 0
    assert (seen["policy"].keep_last, seen["policy"].full_values_limit) == (2, 50)


def test_headless_keep_all_keeps_every_pass_in_detail(tmp_path):
    snap = tmp_path / "all.json"
    done = graphscope(
        "run", "--headless", "--keep", "all", "--export", str(snap), str(SAMPLES / "forgot_zero_grad.py"), "4"
    )
    assert done.returncode == 0, done.stderr
    record = snapshot.load(str(snap))
    assert len(record.passes) == 8 and all(p.detailed for p in record.passes)
    assert record.metadata.keep_last is None


def test_headless_keep_last_keeps_only_the_last(tmp_path):
    snap = tmp_path / "last.json"
    done = graphscope(
        "run", "--headless", "--keep", "last=2", "--export", str(snap), str(SAMPLES / "forgot_zero_grad.py"), "4"
    )
    assert done.returncode == 0, done.stderr
    record = snapshot.load(str(snap))
    assert [p.index for p in record.passes if p.detailed] == [6, 7]


def test_headless_full_values_keeps_every_element_of_a_large_tensor(tmp_path):
    snap = tmp_path / "full.json"
    done = graphscope(
        "run",
        "--headless",
        "--keep",
        "first=1,last=0",
        "--full-values",
        "all",
        "--export",
        str(snap),
        str(SAMPLES / "small_cnn.py"),
        "1",
    )
    assert done.returncode == 0, done.stderr
    record = snapshot.load(str(snap))
    large = [n.output for n in record.nodes.values() if n.output is not None and n.output.numel > 4096]
    assert large and all(s.values is not None and s.values.size == s.numel for s in large)


@pytest.mark.slow
def test_explain_of_a_cnn_says_how_to_keep_its_values_and_with_full_values_shows_them():
    cut = graphscope("explain", str(SAMPLES / "small_cnn.py"), "1")
    assert cut.returncode == 0, cut.stderr
    assert "(18,432 elements) were not recorded (run with --full-values 18432 to keep them)" in cut.stdout
    whole = graphscope("explain", "--full-values", "all", str(SAMPLES / "small_cnn.py"), "1")
    assert whole.returncode == 0, whole.stderr
    assert "were not recorded" not in whole.stdout


def test_the_readmes_command_line_section_documents_both_options():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text[text.index("\n## Command line\n") :]
    for command in ("graphscope run [", "graphscope run --headless [", "graphscope explain ["):
        line = section[section.index(command) :].split("\n")[0]
        assert "[--full-values N]" in line and ("[--keep PASSES]" in line) != command.startswith("graphscope explain")
    assert "`all`, `last=N`, `first=N` or `first=N,last=M`" in section


def test_gradcheck_checks_a_conv_of_a_cnn_sized_input_with_full_values_all():
    import graphscope as gs
    from graphscope.engine import hooks
    from graphscope.trace.analysis.node_gradcheck import gradcheck_node
    from graphscope.trace.recording.recorder import Recorder

    def run(policy):
        recorder = Recorder(policy)
        with hooks.observe(recorder):
            gs.manual_seed(0)
            x = gs.randn(8, 3, 24, 24, requires_grad=True)  # 13,824 elements: past the default 4,096
            gs.nn.Conv2d(3, 4, 3)(x).sum().backward()
        record = recorder.finish(0)
        (conv,) = [n.id for n in record.nodes.values() if n.op.startswith("conv")]
        return gradcheck_node(record, conv, recorder.functions)

    assert "run with --full-values 13824 to keep them" in run(None).reason
    checked = run(replace(Policy(), **full_values("all")))
    assert checked.checked and checked.ok, checked.reason


@pytest.mark.slow
def test_the_headless_summary_says_how_to_keep_the_passes_it_did_not():
    cut = graphscope("run", "--headless", str(SAMPLES / "forgot_zero_grad.py"), "4")
    assert cut.returncode == 0, cut.stderr
    assert "outside the detail window were not kept (run with --keep all to keep them)" in " ".join(cut.stdout.split())
    whole = graphscope("run", "--headless", "--keep", "all", str(SAMPLES / "forgot_zero_grad.py"), "4")
    assert "not kept" not in whole.stdout

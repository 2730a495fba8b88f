"""`graphscope run --headless --break SPEC [--post-mortem]`: each stop printed, pdb in the script's frame."""

import os

from tests.graphscope_command import ROOT, graphscope, script

NAN = os.path.join(ROOT, "samples", "exploding_nan.py")


def test_each_stop_prints_the_node_its_line_and_its_inputs_values():
    result = graphscope("run", "--headless", "--break", "op:log", "--break", "nan", NAN)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    stops = [i for i, line in enumerate(lines) if line.startswith("graphscope: stop")]
    first = lines[stops[0]]
    assert first.startswith("graphscope: stop (breakpoint 1: op log, created) in the forward of pass 0: #")
    assert first.endswith(" log at exploding_nan.py:45")
    assert lines[stops[0] + 1].strip().startswith("log_sigma = sigma.log()")
    assert lines[stops[0] + 2].startswith("  input #") and " squeeze: (64,) float32  min " in lines[stops[0] + 2]
    born = next(lines[i : i + 4] for i in stops if "breakpoints 1, 2: op log, created; NaN/Inf" in lines[i])
    assert "in the forward of pass 6" in born[0]
    assert " min -0.65" in born[2] and "NaN" not in born[2]  # sigma went negative: finite
    assert born[3].startswith("  value: (64,) float32") and "NaN 35" in born[3]
    assert "graphscope summary" in result.stdout  # and the run went on to its end


def test_post_mortem_opens_pdb_in_the_frame_of_the_stop():
    result = graphscope(
        "run",
        "--headless",
        "--break",
        "op:log if value any nan",
        "--post-mortem",
        NAN,
        input="p round(float(sigma.min().item()), 4)\nq\n",
    )
    assert "(Pdb) -0.6513" in result.stdout, result.stdout + result.stderr
    assert result.returncode == 130  # quitting pdb stops the script


def test_post_mortem_opens_pdb_where_the_script_raised(tmp_path):
    path = script(tmp_path, "x = 41\nraise ValueError('boom')\n")
    result = graphscope("run", "--headless", "--post-mortem", path, input="p x + 1\nq\n")
    assert result.returncode == 1
    assert "(Pdb) 42" in result.stdout and "ValueError: boom" in result.stderr


def test_a_bad_break_says_what_a_breakpoint_looks_like():
    result = graphscope("run", "--headless", "--break", "op", NAN)
    assert result.returncode == 2
    assert result.stderr.startswith("graphscope: --break op: a breakpoint looks like op:log, module:model.fc")


def test_post_mortem_goes_with_headless():
    result = graphscope("run", "--post-mortem", NAN)
    assert result.returncode == 2
    assert result.stderr.strip() == (
        "graphscope: --post-mortem goes with --headless (in the app, press : at a stop to evaluate Python there)"
    )

"""Every script in samples/ runs with plain `python samples/X.py [N]` and prints what it says it does.

The training samples run a few epochs/steps here (their optional argument) and must print falling
losses; how far each one converges at its default length is checked once, in process, by
tests/test_samples_converge.py.
"""

import ast
import itertools
import math
import os
import re
import subprocess
import sys

import pytest

from tests.brief_samples import BRIEF_ARGV, SAMPLES_DIR

ROOT = SAMPLES_DIR.parent
SAMPLES = sorted(SAMPLES_DIR.glob("*.py"))


def run_sample(name: str, *argv: str) -> str:
    """Run one sample as a user would, with the repository importable even if not installed; its stdout."""
    import_path = [str(ROOT), os.environ.get("PYTHONPATH", "")]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, import_path)))
    result = subprocess.run(
        [sys.executable, str(SAMPLES_DIR / name), *argv], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    return result.stdout


def numbers(pattern: str, text: str) -> list[tuple[float, ...]]:
    """Every match of `pattern` in `text`, its groups as floats."""
    return [
        tuple(map(float, match)) if isinstance(match, tuple) else (float(match),) for match in re.findall(pattern, text)
    ]


def falling(values) -> bool:
    return len(values) >= 2 and all(b < a for a, b in itertools.pairwise(values))


def check_fit_a_line(out):
    losses = [loss for _, loss in numbers(r"step +(\d+) +loss ([\d.]+)", out)]
    assert len(losses) == 11 and losses[-1] < 0.01 * losses[0]
    assert all(b <= a for a, b in itertools.pairwise(losses)), losses
    ((w, b),) = numbers(r"fitted: y = (-?[\d.]+)x \+ (-?[\d.]+) +\(true line: y = 3x \+ 2\)", out)
    assert w == pytest.approx(3.0, abs=0.1) and b == pytest.approx(2.0, abs=0.1)


def check_gradients_of_an_equation(out):
    def listed(label):
        return ast.literal_eval(re.search(rf"^{re.escape(label)} (\[.*?\])", out, re.M)[1])

    assert listed("Q =") == [3 * 2**3 - 6**2, 3 * 3**3 - 4**2]  # a = [2, 3], b = [6, 4]
    assert "Q was made by SubBackward0" in out
    a_grad, expected_a = re.search(r"^a\.grad = (\[.*?\]) +expected 9a\^2 = (\[.*?\])", out, re.M).groups()
    b_grad, expected_b = re.search(r"^b\.grad = (\[.*?\]) +expected -2b += (\[.*?\])", out, re.M).groups()
    assert ast.literal_eval(a_grad) == ast.literal_eval(expected_a) == [36.0, 81.0]
    assert ast.literal_eval(b_grad) == ast.literal_eval(expected_b) == [-12.0, -8.0]
    assert listed("after a second backward, a.grad =") == [72.0, 162.0]  # accumulated: twice
    assert listed("zeroed, then backward once more, a.grad =") == [36.0, 81.0]


def check_forgot_zero_grad(out):
    forgot, fixed = out.split("with zero_grad():\n")
    assert forgot.startswith("without zero_grad():\n")
    grown = [g for _, _, g in numbers(r"step +(\d+) +loss ([\d.]+) +w\.grad ([-+][\d.]+)", forgot)]
    kept = [g for _, _, g in numbers(r"step +(\d+) +loss ([\d.]+) +w\.grad ([-+][\d.]+)", fixed)]
    assert len(grown) == len(kept) == 4 and grown[0] == kept[0]
    assert falling(grown)  # more negative pass after pass: the sum of every grad so far
    assert all(abs(g) <= abs(kept[0]) for g in kept)  # zeroed: this batch's grad only, shrinking as it fits


def check_training_loop(out):
    assert out.startswith("NeuralNetwork(\n") and "(flatten): Flatten(" in out
    epochs = numbers(r"epoch +(\d+) +train loss ([\d.]+) +test loss ([\d.]+) +test accuracy ([\d.]+)%", out)
    assert [e[0] for e in epochs] == [1, 2]
    assert falling([e[1] for e in epochs]) and falling([e[2] for e in epochs])
    assert out.rstrip().endswith("Done!")


def check_spiral_classifier(out):
    steps = numbers(r"step +(\d+) +loss ([\d.]+)", out)
    assert [s[0] for s in steps] == [0, 50, 59] and falling([s[1] for s in steps])
    ((accuracy,),) = numbers(r"training accuracy: ([\d.]+)% +\(chance: 33\.3%", out)
    assert accuracy > 50


def check_char_bigram_mlp(out):
    ((uniform,),) = numbers(r"vocabulary of 29: uniform guessing loss ln 29 = ([\d.]+)", out)
    assert uniform == pytest.approx(math.log(29), abs=1e-4)
    steps = numbers(r"step +(\d+) +loss ([\d.]+)", out)
    assert [s[0] for s in steps] == [0, 25, 29] and falling([s[1] for s in steps])
    assert steps[-1][1] < uniform
    assert re.search(r"^sample: \S", out, re.M)


def check_char_lstm(out):
    assert re.search(r"characters in \d+ windows of 16, vocabulary of \d+", out)
    epochs = numbers(r"epoch +(\d+) +loss ([\d.]+)", out)
    assert [e[0] for e in epochs] == [0, 1, 2] and falling([e[1] for e in epochs])
    assert re.search(r"^sample: \S", out, re.M)


def check_data_loading(out):
    epochs = numbers(r"epoch +(\d+) +train ([\d.]+) +held-out ([\d.]+)", out)
    assert [e[0] for e in epochs] == [0, 1, 2]
    assert falling([e[1] for e in epochs]) and falling([e[2] for e in epochs])


def check_exploding_nan(out):
    steps = re.findall(r"step +(\d+) +loss +(\S+) +smallest sigma +(\S+)", out)
    *finite, last = steps
    assert finite and all(math.isfinite(float(loss)) and float(sigma) > 0 for _, loss, sigma in finite)
    assert last[1] == "nan" and float(last[2]) <= 0  # a sigma went non-positive: log made the NaN
    assert f"loss is NaN at step {last[0]}: some sigma went non-positive" in out


def check_small_cnn(out):
    steps = numbers(r"step +(\d+) +loss ([\d.]+)", out)
    assert [s[0] for s in steps] == [0, 25, 29] and falling([s[1] for s in steps])
    ((accuracy,),) = numbers(r"test accuracy: ([\d.]+)% +\(chance: 50\.0%\)", out)
    assert accuracy > 60


def check_tiny_transformer(out):
    ((uniform,),) = numbers(
        r"characters in \d+ windows of 16, vocabulary of 21: uniform guessing loss ln 21 = ([\d.]+)", out
    )
    assert uniform == pytest.approx(math.log(21), abs=1e-4)
    steps = numbers(r"step +(\d+) +loss ([\d.]+)", out)
    assert [s[0] for s in steps] == [0, 25, 29] and falling([s[1] for s in steps])
    assert steps[-1][1] < 0.6 * uniform
    assert re.search(r"^sample: one \S", out, re.M)


# name -> what its output must show when run with its BRIEF_ARGV
CHECKS = {
    "fit_a_line.py": check_fit_a_line,
    "forgot_zero_grad.py": check_forgot_zero_grad,
    "gradients_of_an_equation.py": check_gradients_of_an_equation,
    "training_loop.py": check_training_loop,
    "spiral_classifier.py": check_spiral_classifier,
    "char_bigram_mlp.py": check_char_bigram_mlp,
    "char_lstm.py": check_char_lstm,
    "data_loading.py": check_data_loading,
    "exploding_nan.py": check_exploding_nan,
    "small_cnn.py": check_small_cnn,
    "tiny_transformer.py": check_tiny_transformer,
}


def test_every_sample_has_a_brief_run_and_an_output_check():
    assert SAMPLES, "samples/ holds no scripts"
    assert sorted(CHECKS) == sorted(BRIEF_ARGV) == [p.name for p in SAMPLES]


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(CHECKS))
def test_sample_runs_and_prints_what_it_learned(name):
    CHECKS[name](run_sample(name, *BRIEF_ARGV[name]))

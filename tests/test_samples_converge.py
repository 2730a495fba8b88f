"""The training samples learn: each one's main() is run and its losses / accuracy checked."""

import importlib.util
import itertools
import math
from pathlib import Path

import pytest

SAMPLES = Path(__file__).resolve().parent.parent / "samples"


def load(name):
    """Import samples/<name>.py as a module (its training runs only when main() is called)."""
    spec = importlib.util.spec_from_file_location(f"sample_{name}", SAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def falling(values):
    return all(b < a for a, b in itertools.pairwise(values))


@pytest.mark.slow
def test_training_loop_loss_falls_and_test_accuracy_is_high():
    history = load("training_loop").main(verbose=False)
    losses = [epoch["train_loss"] for epoch in history]
    assert losses[-1] < 0.4 * losses[0]
    assert all(b < a * 1.05 for a, b in itertools.pairwise(losses))  # falls epoch after epoch (small noise allowed)
    assert history[-1]["accuracy"] >= 0.85


@pytest.mark.slow
def test_spiral_classifier_reaches_95_percent_training_accuracy():
    result = load("spiral_classifier").main(verbose=False)
    assert result["accuracy"] >= 0.95
    assert result["losses"][-1] < 0.2 * result["losses"][0]


@pytest.mark.slow
def test_char_bigram_mlp_loss_falls_well_below_uniform_guessing():
    result = load("char_bigram_mlp").main(verbose=False)
    assert result["losses"][0] == pytest.approx(result["uniform_loss"], abs=0.3)
    assert result["losses"][-1] < 0.65 * result["uniform_loss"]
    assert len(result["sample"]) == 121


@pytest.mark.slow
def test_char_lstm_loss_falls_far_below_uniform_guessing_and_it_writes_words_of_its_text():
    sample = load("char_lstm")
    result = sample.main(verbose=False)
    losses = result["losses"]
    assert losses[0] == pytest.approx(result["uniform_loss"], abs=0.3)
    assert losses[-1] < 0.2 * result["uniform_loss"]
    assert sum(b < a for a, b in itertools.pairwise(losses)) >= 0.9 * (len(losses) - 1)  # falls nearly every epoch
    words = result["sample"].split()
    known = set(sample.TEXT.replace(".", " ").split())
    assert len(result["sample"]) == 64
    assert sum(word.strip(".") in known for word in words) >= 0.7 * len(words)


@pytest.mark.slow
def test_tiny_transformer_loss_falls_far_below_uniform_guessing_and_it_writes_words_of_its_text():
    sample = load("tiny_transformer")
    result = sample.main(verbose=False)
    losses = result["losses"]
    assert losses[0] == pytest.approx(result["uniform_loss"], abs=0.3)
    means = [sum(losses[i : i + 50]) / 50 for i in range(0, len(losses), 50)]  # a random batch each step: noisy
    assert falling(means), means
    assert means[-1] < 0.12 * result["uniform_loss"]
    words = result["sample"].split()
    known = set(sample.TEXT.replace(",", " ").replace(".", " ").split())
    assert len(result["sample"]) == 64 and result["sample"].startswith("one ")
    assert sum(word.strip(",.") in known for word in words) >= 0.7 * len(words)


def test_exploding_nan_turns_nan_after_a_few_finite_steps():
    losses = load("exploding_nan").main(verbose=False)["losses"]
    assert math.isnan(losses[-1])
    assert 3 <= len(losses) - 1 <= 15
    assert all(math.isfinite(loss) for loss in losses[:-1])


def test_samples_are_reproducible():
    a = load("spiral_classifier").main(steps=20, verbose=False)["losses"]
    b = load("spiral_classifier").main(steps=20, verbose=False)["losses"]
    assert a == b


def test_exploding_nan_is_born_in_the_log_of_sigma():
    """The first node whose output has a NaN while its inputs have none is the marked log line."""
    import numpy as np

    from graphscope.engine import hooks

    births = []

    class FirstNaN(hooks.Observer):
        def node_created(self, node, inputs, output, site):
            def has_nan(t):
                return isinstance(t, type(output)) and bool(np.isnan(t.detach().cpu().numpy()).any())

            if not births and has_nan(output) and not any(has_nan(t) for t in inputs):
                births.append((node.op, site))

    sample = load("exploding_nan")
    with hooks.observe(FirstNaN()):
        sample.main(verbose=False)
    ((op, site),) = births
    assert op == "log"
    source = (SAMPLES / "exploding_nan.py").read_text().splitlines()[site.line - 1]
    assert "sigma.log()" in source and "the NaN is born here" in source


@pytest.mark.slow
def test_small_cnn_tells_bar_orientations_apart_on_held_out_images():
    result = load("small_cnn").main(verbose=False)
    losses = result["losses"]
    assert sum(losses[:10]) / 10 > 0.6  # starts near chance: ln 2 = 0.69
    assert sum(losses[-20:]) / 20 < 0.15
    assert result["accuracy"] >= 0.93


@pytest.mark.slow
def test_data_loading_learns_the_curve_and_generalises_to_the_held_out_split():
    history = load("data_loading").main(verbose=False)
    assert history[-1]["train_loss"] < 0.02 * history[0]["train_loss"]
    assert history[-1]["held_out_loss"] < 0.01  # the noise alone is 0.0025

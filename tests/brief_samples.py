"""The argument that makes each sample run briefly: a few epochs or steps, still several backward passes."""

from pathlib import Path

SAMPLES_DIR = Path(__file__).resolve().parent.parent / "samples"

# name -> its command-line arguments (a sample that is brief already takes none)
BRIEF_ARGV = {
    "char_bigram_mlp.py": ("30",),
    "char_lstm.py": ("3",),
    "data_loading.py": ("3",),
    "exploding_nan.py": (),  # it stops at its NaN, a few steps in
    "fit_a_line.py": (),
    "forgot_zero_grad.py": ("4",),
    "gradients_of_an_equation.py": (),
    "small_cnn.py": ("30",),
    "spiral_classifier.py": ("60",),
    "tiny_transformer.py": ("30",),
    "training_loop.py": ("2",),
}

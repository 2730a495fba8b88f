"""The names a PyTorch user reaches for exist under gs.nn, gs.nn.functional, gs.nn.init and gs.optim."""

import importlib

import pytest

import graphscope as gs

NN = [
    "Module",
    "Parameter",
    "Sequential",
    "ModuleList",
    "ModuleDict",
    "Linear",
    "ReLU",
    "LeakyReLU",
    "Tanh",
    "Sigmoid",
    "GELU",
    "Softmax",
    "LogSoftmax",
    "Flatten",
    "Dropout",
    "Embedding",
    "LayerNorm",
    "Identity",
    "MSELoss",
    "L1Loss",
    "CrossEntropyLoss",
    "NLLLoss",
    "BCELoss",
    "BCEWithLogitsLoss",
    "MultiheadAttention",
    "Transformer",
    "TransformerEncoder",
    "TransformerEncoderLayer",
    "TransformerDecoder",
    "TransformerDecoderLayer",
]
FUNCTIONAL = [
    "relu",
    "gelu",
    "softmax",
    "log_softmax",
    "linear",
    "dropout",
    "embedding",
    "layer_norm",
    "mse_loss",
    "l1_loss",
    "cross_entropy",
    "nll_loss",
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "one_hot",
    "leaky_relu",
    "tanh",
    "sigmoid",
    "scaled_dot_product_attention",
    "multi_head_attention_forward",
]
INIT = [
    "zeros_",
    "ones_",
    "normal_",
    "uniform_",
    "xavier_uniform_",
    "kaiming_uniform_",
    "constant_",
    "xavier_normal_",
    "kaiming_normal_",
    "calculate_gain",
]
OPTIM = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop"]
SCHEDULERS = ["StepLR", "LambdaLR", "MultiStepLR", "ExponentialLR", "CosineAnnealingLR"]


@pytest.mark.parametrize(
    "namespace, names",
    [
        ("nn", NN),
        ("nn.functional", FUNCTIONAL),
        ("nn.init", INIT),
        ("optim", OPTIM),
        ("optim.lr_scheduler", SCHEDULERS),
    ],
)
def test_names_exist_as_attributes_and_as_importable_modules(namespace, names):
    module = importlib.import_module(f"graphscope.{namespace}")
    reached = gs
    for part in namespace.split("."):
        reached = getattr(reached, part)
    assert reached is module
    missing = [name for name in names if not hasattr(module, name)]
    assert not missing, f"graphscope.{namespace} lacks {missing}"

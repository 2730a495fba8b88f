"""The nn conformance tables, each module beside its torch.nn twin: the nn tests check each against torch, the
trace's tests explain each."""

import numpy as np
import torch
import torch.nn as tnn

import graphscope as gs
from graphscope.engine import nn


def uniform(*shape, seed=0, low=-2.0, high=2.0):
    """An input array of `shape`, the same for a given seed."""
    return np.random.default_rng(seed).uniform(low, high, size=shape)


LAYERS = [
    ("linear", lambda: (nn.Linear(4, 3), tnn.Linear(4, 3)), [(5, 4)]),
    ("linear_3d", lambda: (nn.Linear(4, 3), tnn.Linear(4, 3)), [(2, 5, 4)]),
    ("linear_no_bias", lambda: (nn.Linear(4, 3, bias=False), tnn.Linear(4, 3, bias=False)), [(5, 4)]),
    ("relu", lambda: (nn.ReLU(), tnn.ReLU()), [(3, 4)]),
    ("leaky_relu", lambda: (nn.LeakyReLU(0.1), tnn.LeakyReLU(0.1)), [(3, 4)]),
    ("tanh", lambda: (nn.Tanh(), tnn.Tanh()), [(3, 4)]),
    ("sigmoid", lambda: (nn.Sigmoid(), tnn.Sigmoid()), [(3, 4)]),
    ("gelu", lambda: (nn.GELU(), tnn.GELU()), [(3, 4)]),
    ("gelu_tanh", lambda: (nn.GELU("tanh"), tnn.GELU("tanh")), [(3, 4)]),
    ("softmax", lambda: (nn.Softmax(dim=1), tnn.Softmax(dim=1)), [(3, 4)]),
    ("log_softmax", lambda: (nn.LogSoftmax(dim=-1), tnn.LogSoftmax(dim=-1)), [(3, 4)]),
    ("flatten", lambda: (nn.Flatten(), tnn.Flatten()), [(2, 3, 4)]),
    ("flatten_dims", lambda: (nn.Flatten(0, 1), tnn.Flatten(0, 1)), [(2, 3, 4)]),
    ("identity", lambda: (nn.Identity(), tnn.Identity()), [(2, 3)]),
    ("layer_norm", lambda: (nn.LayerNorm(4), tnn.LayerNorm(4)), [(3, 4)]),
    ("layer_norm_2d", lambda: (nn.LayerNorm((3, 4)), tnn.LayerNorm((3, 4))), [(2, 3, 4)]),
    (
        "layer_norm_no_affine",
        lambda: (nn.LayerNorm(4, elementwise_affine=False), tnn.LayerNorm(4, elementwise_affine=False)),
        [(3, 4)],
    ),
    (
        "mlp",
        lambda: (
            nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2)),
            tnn.Sequential(tnn.Linear(4, 8), tnn.Tanh(), tnn.Linear(8, 2)),
        ),
        [(6, 4)],
    ),
]


def int_targets(n, classes, seed=3):
    """`n` class indices below `classes`, for the classification losses."""
    return np.random.default_rng(seed).integers(0, classes, size=n).astype(np.int64)


LOSSES = [
    ("mse", lambda: (nn.MSELoss(), tnn.MSELoss()), lambda: [uniform(4, 3), uniform(4, 3, seed=1)]),
    (
        "mse_sum",
        lambda: (nn.MSELoss(reduction="sum"), tnn.MSELoss(reduction="sum")),
        lambda: [uniform(4, 3), uniform(4, 3, seed=1)],
    ),
    (
        "l1_none",
        lambda: (nn.L1Loss(reduction="none"), tnn.L1Loss(reduction="none")),
        lambda: [uniform(4, 3), uniform(4, 3, seed=1)],
    ),
    (
        "cross_entropy",
        lambda: (nn.CrossEntropyLoss(), tnn.CrossEntropyLoss()),
        lambda: [uniform(6, 5), int_targets(6, 5)],
    ),
    (
        "cross_entropy_ignore_smooth",
        lambda: (
            nn.CrossEntropyLoss(ignore_index=1, label_smoothing=0.1),
            tnn.CrossEntropyLoss(ignore_index=1, label_smoothing=0.1),
        ),
        lambda: [uniform(8, 4), int_targets(8, 4)],
    ),
    (
        "cross_entropy_weight_sum",
        lambda: (
            nn.CrossEntropyLoss(weight=gs.tensor([1.0, 2.0, 0.5]), reduction="sum"),
            tnn.CrossEntropyLoss(weight=torch.tensor([1.0, 2.0, 0.5]), reduction="sum"),
        ),
        lambda: [uniform(6, 3), int_targets(6, 3)],
    ),
    ("nll", lambda: (nn.NLLLoss(), tnn.NLLLoss()), lambda: [uniform(6, 5, low=-3, high=0), int_targets(6, 5)]),
    (
        "bce",
        lambda: (nn.BCELoss(), tnn.BCELoss()),
        lambda: [uniform(4, 3, low=0.05, high=0.95), uniform(4, 3, seed=1, low=0, high=1)],
    ),
    (
        "bce_with_logits",
        lambda: (nn.BCEWithLogitsLoss(), tnn.BCEWithLogitsLoss()),
        lambda: [uniform(4, 3), uniform(4, 3, seed=1, low=0, high=1)],
    ),
    (
        "bce_with_logits_pos_weight",
        lambda: (
            nn.BCEWithLogitsLoss(pos_weight=gs.tensor([2.0, 0.5, 1.0])),
            tnn.BCEWithLogitsLoss(pos_weight=torch.tensor([2.0, 0.5, 1.0])),
        ),
        lambda: [uniform(4, 3), uniform(4, 3, seed=1, low=0, high=1)],
    ),
]


UPSAMPLE = [
    ("scale", lambda nn: nn.Upsample(scale_factor=2), (2, 3, 4, 5)),
    ("size_bilinear", lambda nn: nn.Upsample(size=(7, 3), mode="bilinear"), (2, 3, 4, 5)),
    (
        "scale_tuple_align_corners",
        lambda nn: nn.Upsample(scale_factor=(1.5, 2), mode="bilinear", align_corners=True),
        (2, 3, 4, 5),
    ),
    ("linear", lambda nn: nn.Upsample(scale_factor=3, mode="linear"), (2, 3, 4)),
]


LOSS_MODULES = [
    ("SmoothL1Loss", dict(beta=0.5), [(3, 4), (3, 4)]),
    ("HuberLoss", dict(delta=0.7, reduction="sum"), [(3, 4), (3, 4)]),
    ("KLDivLoss", dict(reduction="batchmean", log_target=True), [(3, 4), (3, 4)]),
    ("CosineEmbeddingLoss", dict(margin=0.1), [(3, 4), (3, 4), np.array([1, -1, -1])]),
]


CONV_MODULES = [
    ("conv2d", lambda nn: nn.Conv2d(3, 4, 3), (2, 3, 7, 6)),
    (
        "conv2d_all_options",
        lambda nn: nn.Conv2d(4, 6, (3, 2), stride=(2, 1), padding=(1, 2), dilation=(1, 2), groups=2, bias=False),
        (2, 4, 9, 8),
    ),
    ("conv2d_same", lambda nn: nn.Conv2d(3, 4, 3, padding="same"), (2, 3, 6, 5)),
    ("conv2d_reflect", lambda nn: nn.Conv2d(3, 4, 3, padding=1, padding_mode="reflect"), (2, 3, 6, 5)),
    ("conv2d_replicate", lambda nn: nn.Conv2d(3, 4, (3, 5), padding=(1, 2), padding_mode="replicate"), (2, 3, 6, 5)),
    ("conv2d_circular", lambda nn: nn.Conv2d(3, 4, 3, padding=2, padding_mode="circular"), (2, 3, 6, 5)),
    ("conv2d_same_reflect", lambda nn: nn.Conv2d(3, 4, 4, padding="same", padding_mode="reflect"), (2, 3, 6, 5)),
    ("conv2d_unbatched", lambda nn: nn.Conv2d(3, 4, 3), (3, 7, 6)),
    ("conv1d", lambda nn: nn.Conv1d(3, 4, 3, stride=2, padding=1), (2, 3, 10)),
    ("conv1d_same_circular", lambda nn: nn.Conv1d(2, 4, 4, padding="same", padding_mode="circular"), (2, 2, 9)),
    ("conv1d_groups", lambda nn: nn.Conv1d(4, 8, 2, groups=4), (2, 4, 9)),
]


POOLING_MODULES = [
    ("max_pool", lambda nn: nn.MaxPool2d(2), (2, 3, 8, 8)),
    ("max_pool_all_options", lambda nn: nn.MaxPool2d(3, 2, 1, dilation=1, ceil_mode=True), (2, 3, 9, 8)),
    ("max_pool_dilated", lambda nn: nn.MaxPool2d((2, 3), stride=1, dilation=2), (2, 3, 9, 8)),
    ("avg_pool", lambda nn: nn.AvgPool2d(2), (2, 3, 8, 8)),
    ("avg_pool_all_options", lambda nn: nn.AvgPool2d(3, 2, 1, ceil_mode=True, count_include_pad=False), (2, 3, 9, 8)),
    ("avg_pool_divisor", lambda nn: nn.AvgPool2d((2, 3), divisor_override=2), (2, 3, 9, 8)),
    ("adaptive", lambda nn: nn.AdaptiveAvgPool2d((3, 2)), (2, 3, 7, 5)),
    ("adaptive_global", lambda nn: nn.AdaptiveAvgPool2d(1), (2, 3, 7, 5)),
]


BATCHNORM_MODULES = [
    ("bn1d_2d_input", lambda nn: nn.BatchNorm1d(3), (5, 3)),
    ("bn1d_3d_input", lambda nn: nn.BatchNorm1d(3), (4, 3, 6)),
    ("bn2d", lambda nn: nn.BatchNorm2d(3), (4, 3, 5, 2)),
    ("bn2d_no_affine", lambda nn: nn.BatchNorm2d(3, affine=False), (4, 3, 5, 2)),
    ("bn2d_no_bias", lambda nn: nn.BatchNorm2d(3, bias=False), (4, 3, 5, 2)),
    ("bn2d_untracked", lambda nn: nn.BatchNorm2d(3, track_running_stats=False), (4, 3, 5, 2)),
    ("bn2d_cumulative", lambda nn: nn.BatchNorm2d(3, momentum=None, eps=1e-3), (4, 3, 5, 2)),
]

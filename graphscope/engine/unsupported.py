"""UnsupportedTorchName: the one error for a PyTorch name graphscope lacks (engine and session raise it)."""

from __future__ import annotations

# Where a user finds what is supported; the list there is generated (graphscope/session/api_list.py).
README_POINTER = "see \"The engine's API\" in graphscope's README for the supported names"


class UnsupportedTorchName(AttributeError):
    """A PyTorch name the engine does not have (an AttributeError, so hasattr() still works)."""


# PyTorch names graphscope knows it lacks, with why (a name covers the names under it: torch.jit covers
# torch.jit.script). tests/engine/test_tutorial_names.py holds the names PyTorch's tutorials use to it.
_EAGER = "graphscope runs each op eagerly so that the debugger can show it; run the model as it is"
_GRADIENTS = "compute gradients with .backward() or torch.autograd.grad"
_PROFILING = "graphscope does not profile; time a block with time.perf_counter()"
DECLARED: dict[str, str] = {
    "torch.autograd.functional": "graphscope records backward() passes; " + _GRADIENTS,
    "torch.autograd.graph": "saved-tensor hooks would change the saved values the debugger shows for each node",
    "torch.autograd.profiler": _PROFILING,
    "torch.channels_last": "graphscope's tensors have one memory layout (row-major, NumPy's)",
    "torch.compile": _EAGER,
    "torch.cond": _EAGER + ", with a Python if",
    "torch.contiguous_format": "graphscope's tensors have one memory layout (row-major, NumPy's)",
    "torch.export": _EAGER,
    "torch.func": "function transforms (vmap, grad, jacrev, ...) are not recorded as graphs; " + _GRADIENTS,
    "torch.jit": _EAGER,
    "torch.matrix_exp": "graphscope has no matrix exponential yet",
    "torch.nested": "nested (ragged) tensors are not in graphscope's engine; pad the sequences to one length",
    "torch.nn.attention": (
        "graphscope has one attention kernel: call F.scaled_dot_product_attention without picking one"
    ),
    "torch.nn.utils.parametrize": "parametrized weights are not recorded yet; compute the weight in forward()",
    "torch.nn.utils.prune": "pruning masks are not in graphscope yet; multiply the weight by a mask in forward()",
    "torch.nn.utils.rnn": "packed sequences are not in graphscope's RNNs; pass padded batches and mask the loss",
    "torch.onnx": "exporting a model needs PyTorch's own tracer",
    "torch.profiler": _PROFILING,
    "torch.svd": "graphscope's linear algebra has no singular value decomposition yet",
    "torch.utils.benchmark": _PROFILING,
    "torch.utils.tensorboard.SummaryWriter.add_graph": "the debugger shows the model's graph itself; drop the call",
}
# SummaryWriter logs scalars (into the record), histograms and text; TensorBoard's other kinds are not kept.
DECLARED.update(
    (f"torch.utils.tensorboard.SummaryWriter.{method}", "graphscope's SummaryWriter logs scalars, histograms and text")
    for method in (
        "add_audio",
        "add_custom_scalars",
        "add_custom_scalars_marginchart",
        "add_custom_scalars_multilinechart",
        "add_embedding",
        "add_figure",
        "add_hparams",
        "add_histogram_raw",
        "add_image",
        "add_image_with_boxes",
        "add_images",
        "add_mesh",
        "add_onnx_graph",
        "add_pr_curve",
        "add_pr_curve_raw",
        "add_tensor",
        "add_video",
    )
)


def declared_reason(torch_name: str) -> str | None:
    """Why graphscope lacks `torch_name` (or the declared name it is under), or None where it is not declared."""
    parts = torch_name.split("(")[0].split(".")
    for end in range(len(parts), 0, -1):
        reason = DECLARED.get(".".join(parts[:end]))
        if reason is not None:
            return reason
    return None


def unsupported(torch_name: str) -> UnsupportedTorchName:
    """The error for `torch_name` (e.g. `torch.fft`, `torch.sum(foo=...)`), ready to raise."""
    reason = declared_reason(torch_name)
    return UnsupportedTorchName(
        f"{torch_name} is not supported by graphscope yet{f': {reason}' if reason else ''} (this script runs on "
        f"graphscope's engine because of --as-torch); {README_POINTER}"
    )


class UnsupportedTorchModule(ModuleNotFoundError):
    """`import torch.X` of a module graphscope lacks: an ImportError, so `except ImportError` still works.

    Left uncaught, the session restates it as an UnsupportedTorchName, like every other missing name.
    """

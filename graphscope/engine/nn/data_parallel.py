"""DataParallel as torch runs it without CUDA devices to spread over: the wrapped module, called as it is."""

from __future__ import annotations

from .module import Module


class DataParallel(Module):
    """Holds `module` (its parameters named "module.<name>", as torch's) and calls it on the whole batch.

    torch splits a batch over its CUDA devices; graphscope runs one device, where torch's DataParallel
    calls the module directly, so the numbers, state_dict and graph are those of that single call.
    """

    def __init__(self, module: Module, device_ids=None, output_device=None, dim: int = 0) -> None:
        super().__init__()
        self.module = module
        self.device_ids: list = []  # (as torch's, where no CUDA device is available)

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)

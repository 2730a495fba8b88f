"""torch.onnx, importable: scripts import it at the top to export once at the end, and graphscope exports nothing.

Under --as-torch every name it lacks (`torch.onnx.export`) is an UnsupportedTorchName where the script
uses it, so a script runs up to its export.
"""

from __future__ import annotations

__all__ = ["is_in_onnx_export"]


def is_in_onnx_export() -> bool:
    """torch.onnx.is_in_onnx_export(), which models ask in their forward: never, here."""
    return False

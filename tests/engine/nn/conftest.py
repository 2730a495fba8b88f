"""Make tests/engine's shared helpers (torch_reference) importable from tests/engine/nn."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import torch  # noqa: E402

# On a small, shared CPU torch's intra-op thread pool makes tiny reference ops take milliseconds.
torch.set_num_threads(1)

"""torch runs the reference side of every test here, on one thread."""

import torch

# On a small, shared CPU torch's intra-op thread pool makes tiny reference ops take milliseconds.
torch.set_num_threads(1)

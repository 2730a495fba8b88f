"""Runs one backward and exits with status 3."""

import sys

import graphscope as gs

w = gs.tensor([1.0, 2.0], requires_grad=True)
(w * 3).sum().backward()
sys.exit(3)

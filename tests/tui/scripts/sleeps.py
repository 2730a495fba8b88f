"""A script that sits in time.sleep(): quitting must not wait for it."""

import time

import graphscope as gs

w = gs.tensor([1.0], requires_grad=True)
(w * 2).sum().backward()
print("sleeping", flush=True)
time.sleep(3)

"""A script that sits in one blocking call until the FIFO named by its argument is written to (60 s
at most): quitting must not wait for it, however slow the machine is."""

import os
import select
import sys

import graphscope as gs

w = gs.tensor([1.0], requires_grad=True)
(w * 2).sum().backward()
wake = os.open(sys.argv[1], os.O_RDONLY | os.O_NONBLOCK)
print("sleeping", flush=True)
select.select([wake], [], [], 60)

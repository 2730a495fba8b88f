"""A 2000x2000 tensor (4 million elements, too many to keep in the record) in a backward."""

import graphscope as gs

w = gs.ones(2000, 2000, requires_grad=True)
(w * 2).sum().backward()

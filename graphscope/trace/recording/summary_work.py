"""What the recorder's collaborators hand a summary batch, named once below all of them: (target, key, array) items."""

from __future__ import annotations

from enum import Enum

from ..record.model import ParamChange
from ..record.tensor_summary import TensorSummary
from ..stats.device import DeviceArray


class Output(Enum):
    """A work item's target for a node's output (a relu's, whose dead units are counted too); its key
    is the node's id."""

    NODE = 0
    RELU = 1


NODE, RELU = Output.NODE, Output.RELU

# (target, key, array): the array's summary goes to target[key] (a list of slots, key an int), to
# target.key (a Step's, a LeafGrad's or a ParamChange's field, key a str) or, where target is NODE or
# RELU, to node `key`'s output.
WorkItem = tuple[object, int | str, DeviceArray]
# (node, its output's version counter, its version then) of an op output kept by reference.
Guard = tuple[int, list[int], int]
# An optimizer state to finish once summarised: (its change, [(name, copy or literal)], the copies' summaries).
StateWork = tuple[ParamChange, list[tuple[str, DeviceArray | str]], list[TensorSummary | None]]

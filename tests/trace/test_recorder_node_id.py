"""Recorder.node_id: the session maps live engine objects to record node ids through it."""

import graphscope as gs
from graphscope.engine.hooks import observe
from graphscope.trace.recording.recorder import Recorder


def test_node_id_maps_functions_and_leaves_to_their_record_nodes():
    recorder = Recorder()
    w = gs.ones(3, requires_grad=True)
    with observe(recorder):
        y = w * 2
        loss = y.sum()
        ids = (recorder.node_id(y.grad_fn), recorder.node_id(loss.grad_fn), recorder.node_id(w))
        loss.backward()
    recorder.finish(0)
    nodes = recorder.record.nodes
    assert [nodes[i].op for i in ids] == ["mul", "sum", "parameter"]
    assert recorder.node_id(gs.ones(1)) is None  # never seen

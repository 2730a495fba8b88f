"""`graphscope run samples/tiny_transformer.py`: the app pauses at the first backward pass, and `n` steps
through every node of it, the attention's scores, mask and softmax among them, to the pass's end."""

import pytest

from graphscope.tui.node_details import NodeDetails
from tests.brief_samples import BRIEF_ARGV
from tests.tui.tui_live import SAMPLES, live_app, until_paused
from tests.tui.tui_pilot import wait_for, wait_for_text

NAME = "tiny_transformer.py"


@pytest.mark.slow
async def test_n_steps_through_the_first_backward_pass_of_the_transformer_sample():
    with live_app(SAMPLES / NAME, BRIEF_ARGV[NAME]) as (app, session):
        async with app.run_test(size=(120, 40)) as pilot:
            await until_paused(pilot, session)
            assert session.state.reason == "first backward pass"
            record = session.record
            order = record.passes[0].order
            attention = [i for i in order if (record.nodes[i].module or "").endswith("blocks.0.attn")]
            ops = [record.nodes[i].op for i in attention]
            assert "softmax" in ops and ops.count("matmul") == 2, ops  # q kᵀ and the weights times v
            await wait_for_text(pilot, f"step 1 of {len(order)}")
            await pilot.press(*["n"] * len(order))
            await wait_for(
                pilot,
                lambda: session.state.step == len(order) and app.moment.state is session.state,
                what="every step of pass 0 taken",
            )
            await wait_for_text(pilot, "pass 0 · end of pass")
            softmax = attention[ops.index("softmax")]
            assert app.moment.stepped(softmax)
            grads = record.passes[0].steps[order.index(softmax)]
            assert grads.grad_output is not None and grads.grad_inputs[0] is not None
            assert app.query_one(NodeDetails).node_id in order

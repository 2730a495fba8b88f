"""A recording's backward steps as rows of its step table: a summary slot per distinct array, Steps made on read."""

import numpy as np
import pytest

from graphscope.trace.record.model import LeafGrad, Step
from graphscope.trace.record.step_table import StepColumns, StepTable, step_table
from graphscope.trace.recording.step_rows import StepRows
from graphscope.trace.stats.summarize import summarize


def _filled(work):
    """Store each work item's summary as the summary batches would."""
    for target, key, array in work:
        target[key] = summarize(array, full_values_limit=8)


def _written():
    """Three steps of loss = sum(w * x) + w, as the journal hands them over."""
    one, grad_mul, grad_w, grad_x = (np.array(v, np.float32) for v in ([1.0], [1.0, 1.0], [3.0, 4.0], [0.5, 0.5]))
    table = StepTable()
    work = []
    rows = StepRows(table.live(), work)
    rows.add(5, one, (grad_mul, one), [])
    rows.add(4, grad_mul, (grad_w, None), [(0, grad_w, None, grad_w)])
    rows.add(3, one, None, [])  # still running: its grads come later
    return table, rows, work, (one, grad_mul, grad_w, grad_x)


def test_an_array_met_again_shares_one_slot_and_one_work_item():
    table, _, work, (one, grad_mul, grad_w, _) = _written()
    assert [id(a) for _, _, a in work] == [id(one), id(grad_mul), id(grad_w)]
    live = table.live()
    assert live.grad_output.tolist() == [0, 1, 0] and live.inputs.tolist() == [1, 0, 2, -1]
    assert live.leaf_grad.tolist() == live.leaf_now.tolist() == [2] and live.leaf_before.tolist() == [-1]


def test_steps_are_made_when_read_from_the_filled_slots():
    table, _, work, _ = _written()
    _filled(work)
    first, second = table[0], table[1]
    assert table[0] is not first and table[0] == first  # a new Step at each read
    assert second.grad_output is first.grad_inputs[0]  # the grad passed down: one summary
    assert second.grad_inputs[1] is None and second.leaf_grads[0].now is second.leaf_grads[0].grad
    assert second.leaf_grads[0].grad is second.grad_inputs[0] and second.leaf_grads[0].before is None
    assert table[2] == Step(3, first.grad_output) and len(table) == 3


def test_the_last_step_gains_its_grads_and_leaf_grads_when_its_backward_returns():
    table, rows, work, (_, _, _, grad_x) = _written()
    rows.inputs((grad_x,))
    before = np.array([1.0, 1.0], np.float32)
    rows.leaf_grad(1, grad_x, before, grad_x + before)
    _filled(work)
    last = table[2]
    assert last.grad_inputs[0].values.tolist() == [0.5, 0.5]
    assert last.leaf_grads[0].before.values.tolist() == [1.0, 1.0]
    assert last.leaf_grads[0].now.values.tolist() == [1.5, 1.5]
    assert table[1].leaf_grads[0].node == 0 and len(table[1].grad_inputs) == 2


def test_the_scans_read_the_rows_as_they_read_the_same_steps_as_objects():
    table, rows, work, (_, _, _, grad_x) = _written()
    rows.inputs((np.array([np.nan, 1.0], np.float32),))
    rows.leaf_grad(1, grad_x, None, grad_x)
    _filled(work)
    objects = step_table(list(table))
    for got, want in zip(table.nonfinite(), objects.nonfinite()):
        assert got.tolist() == want.tolist()
    assert table.nonfinite()[1].tolist() == [False, False, True]
    added = table[2].leaf_grads[0].grad
    assert table.leaf_grads_of(1) == objects.leaf_grads_of(1) == [(2, LeafGrad(1, added, None, added))]
    assert table.leaves() == objects.leaves() == [0, 1]
    assert table.node_ids() == [5, 4, 3]
    assert table.until(2) == objects.until(2) and table.until(1) == [table[0], Step(4, table[1].grad_output)]
    made = StepColumns.from_steps(list(table))
    assert StepTable(table.columns()) == StepTable(made) == list(table)


def test_a_recordings_table_takes_no_step_objects():
    table, _, _, _ = _written()
    with pytest.raises(ValueError):
        table.append(Step(1))
    with pytest.raises(ValueError):
        StepTable(steps=[Step(1)]).live()

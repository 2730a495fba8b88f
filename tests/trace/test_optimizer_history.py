"""OptimizerHistory: optimizer events read back the same whether held as objects or compacted to rows."""

import pytest

from graphscope.trace.record.model import OptimizerEvent, ParamChange, SourceSite
from graphscope.trace.record.optimizer_history import OptimizerHistory, event_kinds

SITE = SourceSite("train.py", 9, "<module>", "opt.step()")


def events():
    out = []
    for i in range(300):  # more kinds than a byte holds, and jumps in passes wider than one
        passes = i * 2 if i < 100 else 200 + (i - 100) * 700
        out.append(OptimizerEvent("step" if i % 2 else "zero_grad", passes, f"Opt{i % 260}", (("lr", "0.1"),), SITE))
    return out


def test_compacted_events_read_back_equal_to_the_objects():
    history = OptimizerHistory()
    expected = events()
    for e in expected:
        history.append(e)
    for i in range(0, len(expected), 2):
        history.compact(i)
    assert history == expected and list(reversed(history)) == expected[::-1]
    assert history[-1] == expected[-1] and history[5:8] == expected[5:8]
    assert len(history._held) == 150


def test_an_event_with_parameters_stays_held():
    history = OptimizerHistory()
    event = OptimizerEvent("step", 1, "SGD", params=[ParamChange(0, "w")])
    history.append(event)
    history.compact(0)
    assert history[0] is event


def test_an_index_past_the_end_is_an_index_error():
    history = OptimizerHistory()
    with pytest.raises(IndexError, match="optimizer event index out of range"):
        history[0]


def test_a_row_added_is_read_back_and_held_once_given_parameters():
    history = OptimizerHistory()
    expected = events()
    rows = [history.add(e.kind, e.passes, e.optimizer, e.settings, e.site) for e in expected]
    assert rows == list(range(300)) and history == expected and not history._held
    event = history.detail(150)
    event.params.append(ParamChange(0, "w"))
    assert history.detail(150) is event and history[150] is event and history.held(150) is event
    assert history.held(149) is None and list(history)[150] is event
    history.compact(150)
    assert history[150] is event  # it has parameters
    history.compact(150, drop_params=True)
    assert history.held(150) is None and history[150] == expected[150]


def test_event_kinds_read_from_rows_are_those_of_the_events():
    history = OptimizerHistory()
    expected = events()
    expected[7].params.append(ParamChange(0, "w"))
    for e in expected:
        history.append(e)
    for i in range(0, len(expected), 2):
        history.compact(i)
    wanted = [(e.kind, e.passes, e.site, e.params) for e in expected]
    assert list(event_kinds(history)) == wanted == list(event_kinds(expected))
    assert list(event_kinds(history))[7][3] is expected[7].params

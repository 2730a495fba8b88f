"""Every export loads: the writer fits every string field of a record to the reader's limit (the one
table, `record/limits.py`), whatever the record holds, for every length around each limit."""

import dataclasses

import numpy as np
import pytest

from graphscope.trace import snapshot
from graphscope.trace.record.limits import FIELDS, TEXTS, fit
from graphscope.trace.record.model import (
    ACCUMULATED_GRAD,
    ConsoleLine,
    Finding,
    OptimizerEvent,
    ParamChange,
    Record,
    ScriptError,
    SourceSite,
)
from graphscope.trace.record.training import ActivationSeries, ParamSeries, ScalarSeries, TrainingSeries
from tests.hand_records import mlp_record

NODE = 6  # the first matmul of mlp_record's first pass


def _node(r: Record):
    return r.nodes[NODE]


def _site(r: Record) -> SourceSite:
    site = _node(r).site
    assert site is not None
    return site


def _set_node(r: Record, **changes) -> None:
    r.nodes[NODE] = dataclasses.replace(_node(r), **changes)


def _set_site(r: Record, **changes) -> None:
    _set_node(r, site=dataclasses.replace(_site(r), **changes))


def _set_error(r: Record, **changes) -> None:
    assert r.error is not None
    r.error = dataclasses.replace(r.error, **changes)


def _series(r: Record) -> TrainingSeries:
    """The record's training series, made whole from its passes first (a hand-made record has none)."""
    if r.training.passes != len(r.passes):
        r.training = TrainingSeries.from_passes(r.passes)
    return r.training


def _add_param(r: Record, name: str) -> None:
    n = _series(r).passes
    r.training.params[name] = ParamSeries(name, *(np.zeros(n) for _ in range(3)))


def _add_activation(r: Record, module: str) -> None:
    n = _series(r).passes
    r.training.activations[module] = ActivationSeries(module, "relu", *(np.zeros(n) for _ in range(4)))


def _add_scalar(r: Record, tag: str) -> None:
    _series(r).scalars[tag] = ScalarSeries(tag, np.zeros(1, np.int64), np.zeros(1), np.zeros(1, np.int64))


def _set_param(r: Record, **changes) -> None:
    r.optimizer[0].params[0] = dataclasses.replace(r.optimizer[0].params[0], **changes)


# Each string field of FIELDS: how to put a text into a record there, and how to read it back.
PLACES = {
    "metadata.script": (lambda r, t: setattr(r.metadata, "script", t), lambda r: r.metadata.script),
    "metadata.argv": (lambda r, t: setattr(r.metadata, "argv", [t]), lambda r: r.metadata.argv[0]),
    "metadata.started": (lambda r, t: setattr(r.metadata, "started", t), lambda r: r.metadata.started),
    "metadata.finished": (lambda r, t: setattr(r.metadata, "finished", t), lambda r: r.metadata.finished),
    "metadata.graphscope_version": (
        lambda r, t: setattr(r.metadata, "graphscope_version", t),
        lambda r: r.metadata.graphscope_version,
    ),
    "metadata.python_version": (
        lambda r, t: setattr(r.metadata, "python_version", t),
        lambda r: r.metadata.python_version,
    ),
    "metadata.numpy_version": (
        lambda r, t: setattr(r.metadata, "numpy_version", t),
        lambda r: r.metadata.numpy_version,
    ),
    "metadata.device": (lambda r, t: setattr(r.metadata, "device", t), lambda r: r.metadata.device),
    "console.text": (lambda r, t: r.console.insert(0, ConsoleLine("stdout", t, 0)), lambda r: r.console[0].text),
    "error.type": (lambda r, t: _set_error(r, type=t), lambda r: r.error.type),
    "error.message": (lambda r, t: _set_error(r, message=t), lambda r: r.error.message),
    "error.traceback": (lambda r, t: _set_error(r, traceback=t), lambda r: r.error.traceback),
    "sites.file": (lambda r, t: _set_site(r, file=t), lambda r: _site(r).file),
    "sites.function": (lambda r, t: _set_site(r, function=t), lambda r: _site(r).function),
    "sites.text": (lambda r, t: _set_site(r, text=t), lambda r: _site(r).text),
    "strings": (lambda r, t: _set_node(r, module=t), lambda r: _node(r).module),
    "passes.grad_norms": (
        lambda r, t: r.passes[0].grad_norms.update({t: 2.0}),
        lambda r: next(k for k, v in r.passes[0].grad_norms.items() if v == 2.0),
    ),
    "findings.message": (lambda r, t: setattr(r.findings[0], "message", t), lambda r: r.findings[0].message),
    "findings.parameter": (lambda r, t: setattr(r.findings[0], "parameter", t), lambda r: r.findings[0].parameter),
    "optimizer.optimizer": (lambda r, t: setattr(r.optimizer[0], "optimizer", t), lambda r: r.optimizer[0].optimizer),
    "optimizer.settings": (
        lambda r, t: setattr(r.optimizer[0], "settings", (("lr", t),)),
        lambda r: r.optimizer[0].settings[0][1],
    ),
    "optimizer.params.label": (lambda r, t: _set_param(r, label=t), lambda r: r.optimizer[0].params[0].label),
    "optimizer.params.state": (
        lambda r, t: _set_param(r, state=((t, "0.9"),)),
        lambda r: r.optimizer[0].params[0].state[0][0],
    ),
    "rules": (lambda r, t: r.rules.update({"matmul": t}), lambda r: r.rules["matmul"]),
    "rules.op": (lambda r, t: r.rules.update({t: "grad = 2 * x"}), lambda r: next(k for k in r.rules if k != "matmul")),
    "training.params.name": (_add_param, lambda r: list(r.training.params)[-1]),
    "training.activations.module": (_add_activation, lambda r: list(r.training.activations)[-1]),
    "training.scalars.tag": (_add_scalar, lambda r: list(r.training.scalars)[-1]),
}
STRING_FIELDS = sorted(k for k, v in FIELDS.items() if type(v) is int)


def _record() -> Record:
    """A record with one of everything the snapshot holds a string in."""
    r = mlp_record(passes=1)
    r.error = ScriptError("RuntimeError", "bad", "Traceback", None, None)
    r.findings.append(Finding(ACCUMULATED_GRAD, "grads accumulate", NODE, 0, "fc1.weight", None))
    r.optimizer.append(OptimizerEvent("step", 1, "SGD", (("lr", "0.1"),), None, [ParamChange(NODE, "fc1.weight")]))
    return r


def test_every_string_field_of_the_limits_table_has_a_place_here():
    assert set(PLACES) == set(STRING_FIELDS)
    assert TEXTS.issubset(STRING_FIELDS)


@pytest.mark.parametrize("control", [False, True], ids=["plain", "control"])
@pytest.mark.parametrize("past", [-4, -3, -2, -1, 0, 1, 2, 40])
def test_every_string_field_written_at_any_length_around_its_limit_loads_fitted(past, control):
    record = _record()
    given = {}
    for field in STRING_FIELDS:
        limit = FIELDS[field]  # type: ignore[literal-required]
        start = "\x1b[2J\n" if control else "["
        given[field] = start + chr(ord("a") + len(given) % 26) * (limit + past - len(start) - 1) + field[-1]
        assert len(given[field]) == limit + past
        PLACES[field][0](record, given[field])
    loaded = snapshot.loads(snapshot.dumps(record))
    for field in STRING_FIELDS:
        limit = FIELDS[field]  # type: ignore[literal-required]
        held = PLACES[field][1](loaded)
        expected = fit(given[field], limit, name=field not in TEXTS, keep_end=field == "error.traceback")
        assert held == expected, field
        assert len(held) <= limit, field
        fits = past <= 0 and (field in TEXTS or not control)
        assert (held == given[field]) == fits, field
        if len(expected) < len(given[field]):  # cut: marked with the length it had
            assert f"cut from {len(given[field]) + (3 * 2 if field not in TEXTS and control else 0):,}" in held


@pytest.mark.parametrize("code", [-(2**70), -(2**63) - 1, -(2**63), 0, 2**63 - 1, 2**63, 2**70])
def test_an_exit_code_past_what_the_system_can_give_is_written_as_the_nearest_it_can(code):
    record = _record()
    record.metadata.exit_code = code
    low, high = FIELDS["metadata.exit_code"]
    assert snapshot.loads(snapshot.dumps(record)).metadata.exit_code == min(max(code, low), high)

"""A mutation fuzzer of valid snapshots (issue 25 item 2): each mutated file is refused in one line, or it
loads and every reader of it (the summary, explain, gradcheck, the optimizer's words, the app) either works
or says in one line what disagrees. Seeded: a failure names its sample and mutation, and reruns the same."""

import asyncio
import hashlib
import io
import json
import random

import pytest
from rich.console import Console

import graphscope as gs
from graphscope import nn, optim
from graphscope.session import Debuggee
from graphscope.trace import snapshot
from graphscope.trace.analysis.node_gradcheck import gradcheck_node
from graphscope.trace.explain.optimizer_step import explain_change
from graphscope.trace.explain.report import ExplainError, text_report
from graphscope.trace.record.inconsistent import InconsistentRecord
from graphscope.trace.recording.keeping import Policy
from graphscope.trace.report.summary_report import print_summary
from graphscope.trace.snapshot import SnapshotError
from graphscope.tui.app import GraphscopeApp
from tests.graphscope_command import ROOT, graphscope
from tests.hand_records import mlp_record, nan_record
from tests.hostile.snapshot_mutations import mutated
from tests.trace.trace_helpers import recorded
from tests.tui.tui_drawn import press, until_drawn

GRADCHECKED = 12  # nodes gradchecked per accepted file (the first ones: leaves are told apart at once)
REPLAYED = 12  # the first accepted files of each sample, replayed in the app (the full fuzz; a repeated file once)
KEYS = ("n", "n", "n", "g", "G", "escape", "comma", "full_stop", "tab", "p", "c", "C")  # a walk through the app
SAMPLE_SCRIPTS = ("exploding_nan", "forgot_zero_grad", "gradients_of_an_equation")  # small whole samples


def _train():
    """A small classifier's two steps: linear, relu, broadcast add, softmax, cross-entropy, Adam."""
    gs.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    optimizer = optim.Adam(model.parameters(), lr=0.1)
    x, y = gs.randn(5, 3), gs.tensor([0, 1, 1, 0, 1])
    for _ in range(2):
        optimizer.zero_grad()
        out = model(x)
        loss = nn.functional.cross_entropy(out, y) + (out.softmax(-1) * 2).mean()
        loss.backward()
        optimizer.step()


def _recorded_doc():
    return json.loads(snapshot.dumps(recorded(_train, Policy(keep_first=1, keep_last=None))[1]))


SAMPLES = {
    "recorded": _recorded_doc,
    "mlp": lambda: json.loads(snapshot.dumps(mlp_record(passes=2))),
    "nan": lambda: json.loads(snapshot.dumps(nan_record())),
}


def _one_line(text: str, context: str) -> None:
    assert text.strip() and "\n" not in text.strip() and "Traceback" not in text, (context, text)


def _read_all(record, context: str) -> None:
    """Every reader of the record: working, or saying in one line what disagrees."""
    print_summary(record, Console(file=io.StringIO(), width=100))
    for i in range(len(record.passes)):
        try:
            text_report(record, i)
        except ExplainError as error:
            _one_line(str(error), context)
    for event in record.optimizer:
        for change in event.params:
            try:
                explain_change(record, event, change)
            except InconsistentRecord as error:
                _one_line(str(error), context)
    for node_id in list(record.nodes)[:GRADCHECKED]:
        result = gradcheck_node(record, node_id)
        if result.reason:
            _one_line(result.reason, context)


async def _replay(record, path) -> None:
    """The app over the record, walked with KEYS, each handled and drawn before the next (waiting on the app's
    state, not a pilot's pauses: half of each replay's time was sleep): it must not die (run_test raises what
    killed it)."""
    app = GraphscopeApp(Debuggee(record, str(path)))
    async with app.run_test(size=(120, 40)) as pilot:
        for key in KEYS:
            press(app, key)
            await until_drawn(pilot)


def _fuzz(name: str, doc, count: int, tmp_path, replays: int = 0) -> tuple[int, int]:
    """`count` mutations of `doc`: (refused, accepted); the first `replays` accepted replayed in the app. A mutated
    file byte for byte like one already checked (a swap of equal entries, two mutations that undo each other) is
    counted with that file's outcome, not checked again: the same bytes load into the same record."""
    rng = random.Random(f"snapshot fuzz {name}")
    refused = accepted = 0
    outcomes: dict[bytes, bool] = {}  # a checked file's digest -> whether it loaded
    path = tmp_path / f"{name}.json"
    for k in range(count):
        context = f"{name} mutation {k}"
        text = json.dumps(mutated(doc, rng, rng.choice((1, 1, 2))))
        digest = hashlib.sha256(text.encode()).digest()
        if digest in outcomes:
            accepted += outcomes[digest]
            refused += not outcomes[digest]
            continue
        path.write_text(text)
        try:
            record = snapshot.load(path)
        except SnapshotError as error:
            _one_line(str(error), context)
            outcomes[digest] = False
            refused += 1
            continue
        outcomes[digest] = True
        accepted += 1
        _read_all(record, context)
        if accepted <= replays:
            asyncio.run(_replay(record, path))
    return refused, accepted


def test_mutated_snapshots_are_refused_in_one_line_or_read_by_every_reader(tmp_path):
    refused, accepted = _fuzz("recorded", _recorded_doc(), 40, tmp_path)
    assert refused and accepted  # the mutations reach both sides of the loader


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_the_full_fuzz_of_each_hand_sample_with_app_replays(name, tmp_path):
    refused, accepted = _fuzz(name, SAMPLES[name](), 300, tmp_path, REPLAYED)
    assert refused and accepted


@pytest.mark.slow
@pytest.mark.parametrize("script", SAMPLE_SCRIPTS)
def test_the_full_fuzz_of_each_small_sample_scripts_export_with_app_replays(script, tmp_path):
    out = tmp_path / "export.json"
    result = graphscope("run", "--headless", "--keep", "all", "--export", out, ROOT / "samples" / f"{script}.py")
    assert result.returncode == 0, result.stderr[-2000:]
    refused, accepted = _fuzz(script, json.loads(out.read_text()), 300, tmp_path, REPLAYED)
    assert refused and accepted

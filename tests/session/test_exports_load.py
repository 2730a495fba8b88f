"""Every export, taken at any moment of a run, loads: a property over every sample."""

from pathlib import Path

import pytest

from graphscope.trace import snapshot
from tests.brief_samples import BRIEF_ARGV

SAMPLES = sorted((Path(__file__).resolve().parents[2] / "samples").glob("*.py"))
# Each export dumps the whole record so far: exporting at every one of a long pass's hundreds of
# steps costs a minute, so the exports are spread evenly over its steps (and its end).
EXPORTS_PER_PASS = 30


def assert_loads(record, where: str) -> None:
    try:
        loaded = snapshot.loads(snapshot.dumps(record))
    except snapshot.SnapshotError as e:
        pytest.fail(f"the export taken {where} does not load: {e}")
    assert loaded.nodes.keys() == record.nodes.keys(), where


@pytest.mark.slow
@pytest.mark.parametrize("path", SAMPLES, ids=[p.name for p in SAMPLES])
def test_an_export_at_steps_all_over_the_first_two_passes_and_at_a_nan_stop_loads(path, run_session):
    driver = run_session(path=path, argv=BRIEF_ARGV[path.name])
    try:
        state = driver.paused()
        while state.kind == "paused" and state.pass_index < 2:
            steps = len(driver.session.record.passes[state.pass_index].order)
            if state.step % max(1, steps // EXPORTS_PER_PASS) == 0 or state.node is None:
                assert_loads(driver.session.record, f"at pass {state.pass_index}, step {state.step}")
            state = driver.command("step")
        if state.kind == "paused":
            state = driver.command("continue_")  # on to a NaN/Inf, if the sample makes one
            assert_loads(driver.session.record, f"at {state.reason}")
        if path.name == "exploding_nan.py":
            assert state.kind == "paused" and "NaN" in state.reason
    finally:
        driver.session.quit()
        assert driver.session.join(30)
    assert_loads(driver.session.record, "after quitting")

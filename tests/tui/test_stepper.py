"""The stepper's line fits its width by shortening words and cutting names and reasons, never a number."""

import re

import pytest

from graphscope.session import SessionState, State
from graphscope.tui.moment import Moment
from graphscope.tui.record_index import RecordIndex
from graphscope.tui.stepper import describe, parts
from tests.hand_records import mlp_record, nan_record

NUMBER = re.compile(r"\d[\d.,e+-]*|nan|inf")
NAME = "a_rather_long_snapshot_name.json"


def moments() -> dict:
    """Paused on a step, finished at a pass's end, a snapshot that breakpoints stopped, a NaN loss."""
    record = mlp_record(passes=12)
    index = RecordIndex(record)
    last = len(record.passes) - 1
    order = record.passes[last].order
    bad = nan_record()
    return {
        "paused": Moment(
            index, SessionState(State.PAUSED, last, 1, len(order), order[1], "first backward pass"), live=True
        ),
        "finished": Moment(
            index, SessionState(State.FINISHED, last, len(order), None, None, "exit code 0", 0), live=True
        ),
        "snapshot": Moment(
            index, SessionState(State.STOPPED, last, 2, None, order[2], "breakpoints 1, 2: NaN/Inf; grad norm > 1000")
        ),
        "nan": Moment(
            RecordIndex(bad),
            SessionState(State.PAUSED, 0, 0, 0, bad.passes[0].order[0], "first backward pass"),
            live=True,
        ),
    }


@pytest.mark.parametrize("width", [70, 78, 118])
@pytest.mark.parametrize("which", list(moments()))
def test_the_line_fits_its_width_with_every_number_whole(which, width):
    moment = moments()[which]
    fitted = describe(moment, NAME, width).plain
    assert len(fitted) <= width, fitted
    kept = " ".join(p.full for p in parts(moment, NAME) if not p.cut)  # names and reasons may be cut
    for number in NUMBER.findall(kept):
        assert re.search(rf"(?<![\d.]){re.escape(number)}(?![\d.])", fitted), (number, fitted)
    assert ("loss" in fitted) == ("loss" in kept)


def test_at_80_columns_the_loss_and_the_pass_count_stay():
    record = mlp_record(passes=1)
    order = record.passes[0].order
    moment = Moment(
        RecordIndex(record), SessionState(State.PAUSED, 0, 0, 0, order[0], "first backward pass"), live=True
    )
    fitted = describe(moment, "", 78).plain
    assert fitted.endswith(f"loss {record.passes[0].loss:.4g} · 1 pass"), fitted


def test_a_breakpoint_stop_keeps_the_breakpoints_numbers():
    assert "· breakpoints 1, 2 ·" in describe(moments()["snapshot"], NAME, 78).plain


def test_the_end_of_a_snapshot_says_so_at_80_columns_beside_where_the_script_was_paused():
    record = mlp_record(passes=1, stepped=3)
    order = record.passes[0].order
    reason = "the snapshot ends here: it was exported while the script was paused at pass 0, step 4 of 7"
    moment = Moment(RecordIndex(record), SessionState(State.STOPPED, 0, 3, 3, order[3], reason))
    fitted = describe(moment, "run.json", 78).plain
    assert "pass 0 · step 4/7" in fitted and "the snapshot ends here" in fitted, fitted


def test_a_wide_line_keeps_every_word():
    moment = moments()["paused"]
    assert describe(moment, NAME, 200) == describe(moment, NAME)

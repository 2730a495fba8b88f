"""The breakpoints dialog reads `step` as a breakpoint before each optimizer step, `created` and `if` conditions."""

import pytest

from graphscope.session import Breakpoint
from graphscope.trace.record.model import Record
from graphscope.tui.breakpoints_screen import parse_breakpoint


def test_step_needs_no_value():
    assert parse_breakpoint("step", Record()) == Breakpoint("step")
    assert parse_breakpoint("  Step ", Record()).pauses_at_step()


def test_created_stops_where_the_forward_makes_the_node():
    bp = parse_breakpoint("created op log", Record())
    assert (bp.kind, bp.value, bp.at) == ("op", "log", "forward") and bp.describe() == "op log, created"


def test_a_condition_follows_if():
    assert parse_breakpoint("op relu if frac zero > 0.9", Record()).describe() == "op relu if value frac zero > 0.9"
    assert parse_breakpoint("any if grad norm > 1000", Record()).describe() == "any node if grad norm > 1000"
    assert parse_breakpoint("created op log if any nan", Record()).describe() == "op log, created if value any nan"


def test_any_needs_a_condition_and_a_bad_condition_says_why():
    with pytest.raises(ValueError, match=r"any needs a condition, e\.g\. any if grad norm > 10"):
        parse_breakpoint("any", Record())
    with pytest.raises(ValueError, match="unknown statistic 'median'"):
        parse_breakpoint("op log if median > 2", Record())

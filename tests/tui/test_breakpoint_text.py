"""The breakpoints dialog reads `step` as a breakpoint before each optimizer step."""

from graphscope.session import Breakpoint
from graphscope.trace.record.model import Record
from graphscope.tui.breakpoints_screen import parse_breakpoint


def test_step_needs_no_value():
    assert parse_breakpoint("step", Record()) == Breakpoint("step")
    assert parse_breakpoint("  Step ", Record()).pauses_at_step()

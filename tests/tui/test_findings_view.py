"""The findings view: what looks wrong so far, each finding with its pass, node and line, brought up to date at
each pause; enter jumps to the finding's node."""

import pytest

from graphscope.session import Debuggee
from graphscope.trace import snapshot
from graphscope.trace.record.model import ACCUMULATED_GRAD, NAN_ORIGIN
from graphscope.tui.app import GraphscopeApp
from graphscope.tui.findings_view import NONE_YET, FindingsView
from graphscope.tui.node_details import NodeDetails
from tests.brief_samples import BRIEF_ARGV
from tests.tui.tui_live import SAMPLES, SCRIPTS, live_app, until_paused, until_settled
from tests.tui.tui_pilot import wait_for, wait_for_text
from tests.tui.tui_screen import screen_text

SIZES = [(80, 24), (120, 40)]


def selected(app):
    return app.query_one(NodeDetails).node_id


@pytest.mark.slow
@pytest.mark.parametrize("size", SIZES)
async def test_f_lists_each_finding_with_its_pass_node_and_line(size):
    with live_app(SAMPLES / "forgot_zero_grad.py", ["4"], pause=False) as (app, session):
        async with app.run_test(size=size) as pilot:
            await until_settled(pilot, session, ("finished",))
            await pilot.press("f")
            view = app.query_one(FindingsView)
            await wait_for(pilot, lambda: view.has_focus and view.findings, what="the findings listed")
            finding = next(f for f in view.findings if f.kind == ACCUMULATED_GRAD)
            node = session.record.nodes[finding.node]
            prompt = view.get_option_at_index(view.findings.index(finding)).prompt.plain
            assert prompt.splitlines()[:2] == [
                f"grads not zeroed  pass {finding.pass_index}",
                f"{node.parameter} #{node.id}  forgot_zero_grad.py:{finding.site.line}",
            ]
            assert "accumulated across" in prompt
            await wait_for_text(pilot, "grads not zeroed")
            # seven names: short at 120 columns too; at 80, as many as fit around the current one
            bar = "graph mod time pass find train dag" if size[0] >= 120 else "graph mod time pass find …"
            assert bar in screen_text(app)


@pytest.mark.slow
@pytest.mark.parametrize("size", SIZES)
async def test_enter_on_a_finding_jumps_to_its_node_in_the_graph(size):
    with live_app(SAMPLES / "forgot_zero_grad.py", ["4"], pause=False) as (app, session):
        async with app.run_test(size=size) as pilot:
            await until_settled(pilot, session, ("finished",))
            await pilot.press("f")
            view = app.query_one(FindingsView)
            await wait_for(pilot, lambda: view.has_focus and view.findings, what="the findings listed")
            finding = next(f for f in view.findings if f.kind == ACCUMULATED_GRAD)
            assert view.highlighted == view.findings.index(finding)
            await pilot.press("enter")
            await wait_for(pilot, lambda: app.views.current == "graph", what="the graph view")
            assert selected(app) == finding.node


async def test_the_findings_are_brought_up_to_date_at_each_pause():
    with live_app(SCRIPTS / "nan_origin.py") as (app, session):
        async with app.run_test(size=(120, 40)) as pilot:
            await until_paused(pilot, session)
            session.record.findings.clear()  # what the app shows is worked out at the cursor, not kept
            await pilot.press("f")
            view = app.query_one(FindingsView)
            await wait_for(pilot, lambda: view.findings, what="the NaN found")
            origin = view.findings[0]
            assert origin.kind == NAN_ORIGIN and session.record.nodes[origin.node].op == "log"
            await wait_for_text(pilot, "NaN origin  pass 0")
            await wait_for_text(pilot, "nan_origin.py:8")


async def test_a_run_without_findings_says_so():
    with live_app(SCRIPTS / "sgd_line.py", pause=False) as (app, session):
        async with app.run_test(size=(120, 40)) as pilot:
            await until_settled(pilot, session, ("finished",))
            await pilot.press("f")
            await wait_for_text(pilot, NONE_YET[:40])
            assert app.query_one(FindingsView).findings == []


@pytest.mark.slow
async def test_a_finding_appears_at_the_pause_after_the_run_shows_it():
    with live_app(SAMPLES / "forgot_zero_grad.py", ["4"]) as (app, session):
        async with app.run_test(size=(80, 24)) as pilot:
            await until_paused(pilot, session)
            await pilot.press("f")
            view = app.query_one(FindingsView)
            await wait_for_text(pilot, NONE_YET[:20])  # pass 0: nothing has piled up yet
            await pilot.press("c")
            await until_settled(pilot, session, ("finished",))
            await wait_for(
                pilot, lambda: any(f.kind == ACCUMULATED_GRAD for f in view.findings), what="the grads not zeroed found"
            )
            await wait_for_text(pilot, "grads not zeroed")


async def test_a_finding_shows_the_scripts_names_literally():
    with live_app(SCRIPTS / "hostile_findings.py", pause=False) as (app, session):
        async with app.run_test(size=(120, 40)) as pilot:
            await until_settled(pilot, session, ("finished",))
            await pilot.press("f")
            await wait_for_text(pilot, "[bold.weight #")
            await wait_for_text(pilot, "grads of `[bold.weight`")


FINDINGS_KEYS = ["n", "n", "c", "p", "p"]


def findings_shown(app) -> list:
    view = app.query_one(FindingsView)
    return [(f.kind, f.pass_index, f.node, f.message) for f in view.findings]


@pytest.mark.slow
async def test_the_same_keys_show_the_same_findings_live_and_in_the_snapshot(tmp_path):
    export, live, seen = tmp_path / "run.json", [], []
    with live_app(SAMPLES / "exploding_nan.py", BRIEF_ARGV["exploding_nan.py"]) as (app, session):
        async with app.run_test(size=(120, 40)) as pilot:
            await until_paused(pilot, session)
            await pilot.press("f")
            live.append(findings_shown(app))
            for key in FINDINGS_KEYS:
                count = app.updates
                await pilot.press(key)
                await wait_for(pilot, lambda count=count: app.updates > count, what=f"{key} to take effect")
                await until_settled(pilot, session)
                live.append(findings_shown(app))
            snapshot.dump(session.record, export)
    debuggee = Debuggee(snapshot.load(export), str(export), break_on_nan=True)
    app = GraphscopeApp(debuggee)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.moment.state is debuggee.state and app.updates > 0)
        await pilot.press("f")
        seen.append(findings_shown(app))
        for key in FINDINGS_KEYS:
            count = app.updates
            await pilot.press(key)
            await wait_for(
                pilot,
                lambda count=count: app.updates > count and app.moment.state is debuggee.state,
                what=f"{key} to take effect",
            )
            seen.append(findings_shown(app))
    assert seen == live
    assert any(kind == NAN_ORIGIN for kind, *_ in live[3])  # `c` stopped at the NaN: found

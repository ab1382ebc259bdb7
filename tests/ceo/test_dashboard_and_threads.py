"""The weekly dashboard (reference-notes §6.4), next_week's forecasts (§6.3) and the negotiation inbox (§4.23)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bizbench.envs.ceo.baselines import make_policy
from bizbench.envs.ceo.env import CeoEnv
from bizbench.envs.ceo.world import enterprise
from bizbench.envs.ceo.world.customers import LEAD

BAND = {"point": 1e6, "lower": 9e5, "upper": 1.1e6}
PREDICTIONS = {k: BAND for k in ("cash_1wk", "cash_4wk", "cash_12wk", "cash_26wk")}


def _week(env: CeoEnv) -> str:
    r = env.call("next_week", rationale="test", predictions=PREDICTIONS)
    assert r.ok, r.error
    return r.data["dashboard"]


def test_dashboard_layout_and_this_weeks_post() -> None:
    env = CeoEnv.from_preset("default", seed=2, horizon_days=60)
    env.call("set_prices", A=12.0, B=25.0, C=55.0)
    _week(env)
    assert env.call("post_social_media", content="Students: plan A is now $12 a month.").ok
    text = _week(env)
    lines = text.splitlines()
    assert lines[0] == "=== Week 2 Dashboard (Day 14) ==="
    for heading in (
        "Cash: $",
        "Individual Subscribers:",
        "Enterprise Subscribed Seats:",
        "Open Support Issues (subscribers with an unresolved issue at the end of day 14):",
        "This Week's Metrics:",
        "Current Config:",
        "Delivered Quality",
        "Inbox:",
    ):
        assert any(line.startswith(heading) for line in lines), heading
    posts = text.split("Your Social Media Posts (This Week):")[1]
    assert "#1: " in posts and "views" in posts and "Students: plan A" in posts
    assert "Prices: A $12.00, B $25.00, C $55.00" in text


def test_open_support_issues_is_the_subscribers_backlog_and_the_week_counts_each_issue_event() -> None:
    env = CeoEnv.from_preset("default", seed=3, horizon_days=70, database=False)
    policy = make_policy("rule-based", 3)
    while env.day < 63:
        policy.act(env)
        env.advance()
    text = env.dashboard()
    cust = env.world.state.customers
    backlog = int((cust.issue_days[cust.active()] > 0).sum())
    opened_today = len(env.world.issue_log[-1][1])
    assert backlog > opened_today > 0  # the count is the backlog, not the day's new issues
    assert f"unresolved issue at the end of day 63): {backlog:,}" in text
    week = env.world.issue_log[-7:]
    opened, resolved, closed = (sum(len(e[k]) for e in week) for k in (1, 2, 3))
    assert opened > 0 and resolved > 0
    assert f"Support issues: {opened:,} opened, {resolved:,} resolved, {closed:,} closed as the customer left" in text


def test_a_bankrupt_company_s_dashboard_says_bankrupt() -> None:
    env = CeoEnv.from_preset("default", seed=2, horizon_days=60, database=False)
    assert "BANKRUPT" not in env.dashboard()
    assert env.call("set_daily_spend", operations=2_000_000.0).ok
    text = _week(env)
    assert env.bankrupt and env.day == 1
    lines = text.splitlines()
    assert lines[1] == "BANKRUPT: cash fell below $0 on day 1; the company is bankrupt and the episode has ended."
    assert lines[2].startswith("Cash: -$1,0") and "$-" not in text


def test_first_dashboard_has_no_weekly_metrics_and_no_posts_block() -> None:
    env = CeoEnv.from_preset("default", seed=2, horizon_days=60)
    text = env.call("get_dashboard").data["dashboard"]
    assert text.startswith("=== Week 0 Dashboard (Day 0) ===")
    assert "This Week's Metrics" not in text and "Your Social Media Posts" not in text
    assert "(No new messages)" in text


def test_individual_leads_exclude_enterprise_prospects() -> None:
    env = CeoEnv.from_preset("default", seed=5, horizon_days=60)
    env.call("set_prices", A=12.0, B=25.0, C=55.0)
    env.call("set_targeted_ad_spend", targeted_spend={"linkedin": {"E1": 3000.0, "E2": 3000.0}})
    text = _week(env)
    week = env.last_week
    assert sum(r["individual_leads"] for r in week) == 0
    assert "New leads: 0 individual" in text


def test_predictions_are_stored_and_validated(tmp_path: Path) -> None:
    env = CeoEnv.from_preset("default", seed=2, horizon_days=60, db_path=tmp_path / "c.db")
    bad = dict(PREDICTIONS, cash_4wk={"point": 5.0, "lower": 6.0, "upper": 7.0})
    r = env.call("next_week", rationale="x", predictions=bad)
    assert not r.ok and "cash_4wk" in r.error and "lower <= point <= upper" in r.error and env.day == 0
    assert not env.call("next_week", rationale="x", predictions={"cash_1wk": BAND}).ok
    assert not env.call("next_week", rationale="  ", predictions=PREDICTIONS).ok
    assert env.day == 0 and env.predictions == []
    _week(env)
    rows = env.call("query", sql="SELECT submit_day, horizon_days, metric FROM predictions ORDER BY horizon_days")
    assert [tuple(r.values()) for r in rows.data["rows"]] == [(0, h, "cash") for h in (7, 28, 84, 182)]


@pytest.fixture()
def lead_env() -> tuple[CeoEnv, int]:
    env = CeoEnv.from_preset("default", seed=3, horizon_days=60)
    st = env.world.state
    g = env.config.group_ids.index("E1")
    c = int(
        st.customers.append(
            1, {"group": g, "status": LEAD, "seats": 40.0, "c_max": 120.0, "q_min": 0.1, "q_max": 0.6, "max_turns": 3}
        )[0]
    )
    env.world.book.open_thread(c, enterprise.NEW_LEAD, st.day, "New enterprise lead.")
    return env, c


def test_reply_by_day_is_the_last_day_a_reply_counts(lead_env: tuple[CeoEnv, int]) -> None:
    env, c = lead_env
    thread = env.call("list_enterprise_threads", status="awaiting_response").data["threads"][0]
    assert thread["reply_by_day"] == 6 and thread["status"] == "open"
    env.next_turn(6)  # day 6: still open, a reply now counts
    assert env.call("list_enterprise_threads").data["threads"][0]["customer_id"] == c
    env.next_turn(1)  # day 7: timed out in step 17, before the agent could act
    assert env.call("list_enterprise_threads").data["threads"] == []
    ended = env.call("list_enterprise_threads", status="all").data["threads"][0]
    assert ended["status"] == "ended"  # why (timeout, ghosting) stays hidden


def test_a_counter_offer_is_notified(lead_env: tuple[CeoEnv, int]) -> None:
    env, c = lead_env
    r = env.call("send_enterprise_deal", deals=[{"customer_id": c, "offerings": [{"plan": "C", "price": 119.0}]}])
    assert r.ok, r.error
    env.next_turn()
    thread = env.call("get_enterprise_thread", thread_id=1).data
    assert [m["sender"] for m in thread["messages"]] == ["system", "agent", "customer"]  # quality too low: counter
    assert thread["messages"][-1]["offer"]["plan"] == "C" and thread["status"] == "open"
    notes = env.call("get_notifications", type="large_customer_message").data["notifications"]
    assert [n["message"] for n in notes] == [f"Enterprise customer {c} sent a counter-offer"]

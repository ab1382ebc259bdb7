"""The weekly dashboard text that ``next_week`` returns (reference-notes §6.4).

Built only from what the agent may see: public counts, its own settings, delivered quality
(the engine prints it), its posts' views and the inbox. Other notifications stay in the
``notifications`` table, which the agent has to query (reference-notes §6.4 last paragraph).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from bizbench.envs.ceo.config import PLANS
from bizbench.envs.ceo.world.enterprise import NEW_LEAD

if TYPE_CHECKING:
    from bizbench.envs.ceo.env import CeoEnv


def week_number(day: int) -> int:
    """W = floor((D + 6) / 7) (reference-notes §6.4)."""
    return (day + 6) // 7


def weekly_dashboard(env: CeoEnv, week: list[dict[str, Any]]) -> str:
    """The dashboard after a turn whose daily metrics are ``week`` (empty before the first turn)."""
    w = env.world
    st = w.state
    last = w.metrics[-1] if w.metrics else None
    lines = [f"=== Week {week_number(st.day)} Dashboard (Day {st.day}) ==="]
    if st.bankrupt:
        # Bankruptcy ends the episode (reference-notes §1.4): say so, not only a negative cash figure.
        lines.append(
            f"BANKRUPT: cash fell below $0 on day {st.day}; the company is bankrupt and the episode has ended."
        )
    lines += [
        f"Cash: {dollars(st.ledger.cash)}",
        f"Individual Subscribers: {last['subscribers'] if last else 0:,}",
        f"Enterprise Subscribed Seats: {last['enterprise_seats'] if last else 0:,}",
        # The end-of-day backlog of current subscribers (world.py ``open_issues``); the same
        # count as ``SELECT COUNT(*) FROM issues WHERE status = 'open'`` (support.close_churned_issues).
        f"Open Support Issues (subscribers with an unresolved issue at the end of day {st.day}): "
        f"{last['open_issues'] if last else 0:,}",
    ]
    if week:
        lines += ["", *_week_metrics(week), _week_issues(env, len(week))]
    lines += ["", *_config(env), "", *_quality(env)]
    if st.day >= 8:
        lines += ["", *_posts(env, week)]
    lines += ["", *_inbox(env, week)]
    return "\n".join(lines)


def dollars(amount: float) -> str:
    """Whole dollars with the sign before the symbol: ``-$1,234`` (not ``$-1,234``)."""
    whole = round(amount)
    return f"-${-whole:,}" if whole < 0 else f"${whole:,}"


def _week_issues(env: CeoEnv, days: int) -> str:
    """Support issues opened, resolved and closed (the customer left) over the turn's days (world.issue_log)."""
    log = env.world.issue_log[-days:]
    opened = sum(len(ids) for _, ids, _, _ in log)
    resolved = sum(len(ids) for _, _, ids, _ in log)
    closed = sum(len(ids) for _, _, _, ids in log)
    return f"  Support issues: {opened:,} opened, {resolved:,} resolved, {closed:,} closed as the customer left"


def _week_metrics(week: list[dict[str, Any]]) -> list[str]:
    def total(key: str) -> int:
        return int(sum(r[key] for r in week))

    peak_overload = max(r["overload"] for r in week)
    outage_days = sum(bool(r["outage"]) for r in week)
    return [
        "This Week's Metrics:",
        f"  Total usage: {int(sum(r['usage'] for r in week)):,} units",
        f"  New leads: {total('individual_leads'):,} individual, {total('enterprise_leads'):,} enterprise",
        f"  New subscribers: {total('new_subscribers'):,} individual; "
        f"{total('enterprise_new_seats'):,} enterprise seats",
        f"  Cancellations: {total('cancellations') + total('involuntary_churn') + total('enterprise_churned'):,}",
        f"  Upgrades: {total('upgrades'):,}; Downgrades: {total('downgrades'):,}",
        f"  Peak overload: {peak_overload * 100:.1f}%" if peak_overload > 0 else "  Peak overload: None",
        f"  Outage: yes, {total('downtime_minutes'):,} minutes of downtime on {outage_days} day(s)"
        if outage_days
        else "  Outage: no",
        f"  Peak p95 latency: {max(r['p95_ms'] for r in week):,.0f} ms; "
        f"peak error rate: {max(r['error_rate'] for r in week) * 100:.2f}%",
    ]


def _config(env: CeoEnv) -> list[str]:
    s = env.world.state.settings
    p = env.world.params
    return [
        "Current Config:",
        "  Prices: " + ", ".join(f"{k} ${v:,.2f}" for k, v in zip(PLANS, s.prices, strict=True)),
        "  Model tiers: " + ", ".join(f"{k} {int(v)}" for k, v in zip(PLANS, s.tiers, strict=True)),
        "  Quotas (units/day): " + ", ".join(f"{k} {v:,.0f}" for k, v in zip(PLANS, s.quotas, strict=True)),
        f"  Capacity tier: {s.capacity_tier} ({p.capacity_units[s.capacity_tier]:,.0f} units/day, "
        f"${p.capacity_cost[s.capacity_tier]:,.0f}/day)",
        f"  Operations: ${s.operations:,.2f}/day; Development: ${s.development:,.2f}/day",
        f"  Advertising: ${s.ad_spend.sum():,.2f}/day in total; ad spend is set per (channel, group) "
        "with set_targeted_ad_spend",
    ]


def _quality(env: CeoEnv) -> list[str]:
    w = env.world
    st = w.state
    base = env.config.quality.base
    delivered = w.delivered_quality()
    out = [f"Delivered Quality (base {base:.2f} + global bonus {st.bonus_shared:.4f}):"]
    for g in np.flatnonzero(st.discovered):
        row = ", ".join(f"{k} {delivered[g, i]:.4f}" for i, k in enumerate(PLANS))
        out.append(f"  {env.config.groups[g].id}: {row} (group bonus {st.bonus_group[g]:.4f})")
    return out


def _posts(env: CeoEnv, week: list[dict[str, Any]]) -> list[str]:
    st = env.world.state
    first = st.day - len(week)  # posts made on the tools day before this turn belong to it
    mine = [p for p in st.agent_posts if p.day >= first]
    out = ["Your Social Media Posts (This Week):"]
    if not mine:
        return [*out, "  (none)"]
    for p in mine:
        views = int(p.views.sum()) if p.views is not None else 0
        ids = ", ".join(map(str, p.comment_post_ids)) or "none"
        out.append(f'  #{p.post_id}: {views:,} views, {len(p.comment_post_ids)} comments ({ids}): "{p.content[:80]}"')
    return out


def _inbox(env: CeoEnv, week: list[dict[str, Any]]) -> list[str]:
    book = env.world.book
    first = env.world.day - len(week) + 1
    new_leads = [t for t in book.threads if t.kind == NEW_LEAD and t.opened_day >= first]
    seats = int(sum(env.world.state.customers.whole_seats(t.customer) for t in new_leads))
    replies = sum(1 for t in book.threads for turn in t.turns if turn["sender"] == "customer" and turn["day"] >= first)
    awaiting = sum(1 for t in book.open_by_customer.values() if t.awaiting_agent)
    deadline = env.config.enterprise.reply_deadline_days
    if not (new_leads or replies or awaiting):
        return ["Inbox:", "  (No new messages)"]
    return [
        "Inbox:",
        f"  New enterprise leads this week: {len(new_leads)} ({seats:,} seats in total)",
        f"  New customer replies this week: {replies}",
        f"  Threads awaiting your response: {awaiting} (a thread is lost after {deadline} days without "
        "your reply; see list_enterprise_threads for each reply_by_day)",
    ]

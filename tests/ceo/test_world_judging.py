"""The world's side of judging a post: what each discovered group truly lived through in the last
``experience_window_days`` (14) days, handed to the post judge (reference-notes §4.13 inputs).

On day 20 the window is days 20 - 14 + 1 = 7 .. 20. Each history below puts an event on day 6
(one day outside) and on day 7 (the window's first day), so a window one day too long or too
short changes a number. The viral replies and the ``social_media`` notification that follow a
judging are pinned in tests/ceo/test_mech_social.py.
"""

from __future__ import annotations

import numpy as np
import pytest

from bizbench.envs.ceo.world.customers import CANCELLED
from bizbench.envs.ceo.world.judge import GroupExperience
from bizbench.envs.ceo.world.service import ServiceDay
from bizbench.envs.ceo.world.state import AgentPost
from bizbench.envs.ceo.world.world import World

DAY = 20  # the judging day; the window is days 7..20


def _service(overload: float = 0.0, outage: bool = False, downtime: int = 0) -> ServiceDay:
    return ServiceDay(
        total_usage=1000.0,
        capacity_tier=1,
        capacity_units=1000.0,
        overload=overload,
        outage=outage,
        downtime_minutes=downtime,
        p95_ms=200.0,
        error_rate=0.01,
    )


def _churn(gidx: dict[str, int], **by_group: int) -> np.ndarray:
    out = np.zeros(len(gidx), dtype=np.int64)
    for g, n in by_group.items():
        out[gidx[g]] = n
    return out


def _world(cfg) -> World:
    world = World(cfg, 3)
    world.state.day = DAY
    return world


def _feed(world: World) -> None:
    """Eight public posts, in the order written (post ids 1..8)."""
    add = world.feed.add
    add(5, "customer", "S1 on day 5", "S1", events=["price_cut"])
    add(6, "customer", "S2 on day 6", "S2", events=["outage"])  # the day before the window
    add(7, "customer", "S1 on day 7", "S1", events=["outage", "overload"])  # its first day
    add(7, "competitor", "a rival launches on day 7")
    add(12, "customer", "S1 on day 12", "S1", events=["issue", "outage"])
    add(15, "customer", "E1 on day 15", "E1", events=[])
    add(19, "customer", "D_S01 on day 19", "D_S01", events=["quota"])  # not discovered
    add(20, "customer", "S2 on day 20", "S2", events=["price_increase", "churned"])


def _history(cfg, gidx, add_customer) -> World:
    """Twenty days of a small world, day by day (day k is ``service_history[k - 1]``)."""
    world = _world(cfg)
    st = world.state
    days = {k: _service() for k in range(1, DAY + 1)}
    days[6] = _service(overload=2.0, outage=True, downtime=100)  # outside
    days[7] = _service(overload=0.5, outage=True, downtime=30)
    days[12] = _service(overload=1.5)
    days[15] = _service(outage=True, downtime=45)
    days[20] = _service(outage=True, downtime=12)
    world.service_history = [days[k] for k in range(1, DAY + 1)]
    # list prices of plans A, B, C from the day each came in force; day 7's are the window's old ones
    world.price_log = [
        (1, np.array([20.0, 50.0, 0.5])),
        (6, np.array([18.0, 45.0, 0.5])),
        (7, np.array([16.0, 40.0, 0.5])),
        (8, np.array([15.0, 40.0, 0.5])),
        (15, np.array([12.0, 70.0, 0.625])),
    ]
    st.settings.prices[:] = [12.0, 70.0, 0.625]
    world.churn_log = [
        (6, _churn(gidx, S1=5)),  # outside
        (7, _churn(gidx, S1=2, S2=1)),
        (13, _churn(gidx, S1=3, E1=1)),
        (20, _churn(gidx, S2=4)),
    ]
    st.competitor_events = [{"day": 6, "post_end_day": 12}, {"day": 7, "post_end_day": 13}]
    _feed(world)
    # quotas of plans A, B, C; on day 20 (20 mod 7 = 6) demand is 0.6 x the usage rate
    st.settings.quotas[:] = [100.0, 1000.0, 10_000.0]
    s1, s2, e1 = gidx["S1"], gidx["S2"], gidx["E1"]
    add_customer(st, group=s1, plan=0, usage_rate=500.0, issue_days=0)  # 300 > 100: short
    add_customer(st, group=s1, plan=0, usage_rate=100.0, issue_days=1)  # 60: not short; an issue
    add_customer(st, group=s1, plan=0, usage_rate=100.0, issue_days=2)  # an issue
    add_customer(st, group=s1, plan=1, usage_rate=500.0, issue_days=0)  # 300 < 1000: not short
    add_customer(st, group=s1, plan=0, usage_rate=500.0, issue_days=3, status=CANCELLED)  # not active
    add_customer(st, group=s2, plan=0, usage_rate=500.0)  # short
    add_customer(st, group=s2, plan=0, usage_rate=100.0)
    add_customer(st, group=e1, plan=2, usage_rate=50_000.0, seats=40.0, issue_days=4)  # 30,000 > 10,000
    add_customer(st, group=gidx["D_S01"], plan=0, usage_rate=500.0, issue_days=1)  # not discovered
    st.agent_posts = [
        AgentPost(post_id=1, day=6, content="agent on day 6", reply_to=None),
        AgentPost(post_id=2, day=7, content="agent on day 7", reply_to=None),
        AgentPost(post_id=3, day=19, content="the judged post", reply_to=None),
    ]
    return world


def _judged(reply_to: int | None = None) -> AgentPost:
    """The agent's post of day 19 (post 3 of ``_history``), judged on day 20."""
    return AgentPost(post_id=3, day=DAY - 1, content="the judged post", reply_to=reply_to)


def test_each_known_group_is_judged_on_what_it_lived_through_from_day_7_to_day_20(cfg, gidx, add_customer):
    """Every number hand-counted over days 7..20, day 6 left out:

    - outages on days 7, 15 and 20 (not 6): 3; overload above 0 on days 7 (0.5) and 12 (1.5): 2;
      downtime 30 + 45 + 12 = 87 minutes;
    - prices against those in force on day 7 (16, 40, 0.5; not day 6's or day 8's), now 12, 70
      and 0.625: A (12 - 16) / 16 = -0.25, B (70 - 40) / 40 = +0.75, C 0.125 / 0.5 = +0.25 (an
      old price under a dollar is divided by itself, not by a dollar);
    - churn of days 7, 13 and 20: S1 2 + 3 = 5, S2 1 + 4 = 5, E1 1 (day 6's five S1 left out);
    - competitor events on days 6 and 7: day 7's is a launch for every group;
    - S1's 4 active customers (the cancelled fifth is not counted): 1 short of its quota (0.25),
      2 with an open issue of 1 and 2 days (0.5); S2's 2: 1 short (0.5), no issue; E1's one: 1.0
      and 1.0; S3, E2 and E3 have no active customer: shares 0.0, not a division by zero;
    - topics of the customer posts of days 7..20: S1 issue, outage, overload; S2 churned,
      price_increase (day 6's outage left out); E1's post names none;
    - D_S01 is not discovered: no entry, though it has a customer and a post.
    """
    world = _history(cfg, gidx, add_customer)
    ctx = world.judge_context(_judged())

    lived = dict(outage_days=3, overload_days=2, downtime_minutes=87, competitor_launch=True)
    prices = {"A": -0.25, "B": 0.75, "C": 0.25}

    def exp(gid, name, kind, **kw):
        return GroupExperience(group_id=gid, name=name, kind=kind, price_change=prices, **lived, **kw)

    assert ctx.groups == {
        "S1": exp(
            "S1",
            "Price-Sensitive Individuals",
            "IND",
            quota_short_share=0.25,
            issue_share=0.5,
            churn_count=5,
            active=4,
            recent_post_topics=["issue", "outage", "overload"],
        ),
        "S2": exp(
            "S2",
            "Quality-Focused Individuals",
            "IND",
            quota_short_share=0.5,
            issue_share=0.0,
            churn_count=5,
            active=2,
            recent_post_topics=["churned", "price_increase"],
        ),
        "S3": exp("S3", "Power Users", "IND"),
        "E1": exp(
            "E1",
            "Cost-Cutting Enterprises",
            "ENT",
            quota_short_share=1.0,
            issue_share=1.0,
            churn_count=1,
            active=1,
        ),
        "E2": exp("E2", "Quality-First Enterprises", "ENT"),
        "E3": exp("E3", "Strategic Partners", "ENT"),
    }
    assert ctx.recent_agent_posts == ["agent on day 7"]  # day 6's is out, the judged post is not its own
    assert (ctx.replied_post, ctx.replied_group_id) == (None, None)


@pytest.mark.parametrize(("event_day", "launch"), [(6, False), (7, True), (20, True)])
def test_a_competitor_event_counts_from_the_window_s_first_day(cfg, gidx, event_day, launch):
    """A competitor event on day 6 is before the window of day 20 (days 7..20); on day 7 it is in."""
    world = _world(cfg)
    world.state.competitor_events = [{"day": event_day, "post_end_day": event_day + 6}]
    ctx = world.judge_context(_judged())
    assert {g: e.competitor_launch for g, e in ctx.groups.items()} == dict.fromkeys(
        ("S1", "S2", "S3", "E1", "E2", "E3"), launch
    )


def test_the_judge_reads_the_agent_s_last_10_posts_of_the_window(cfg):
    """One post a day on days 6..18 and the judged post of day 19: 12 in the window (days 7..18)
    besides the judged one, of which the last 10 (days 9..18), oldest first."""
    world = _world(cfg)
    world.state.agent_posts = [AgentPost(post_id=d - 5, day=d, content=f"day {d}", reply_to=None) for d in range(6, 19)]
    judged = AgentPost(post_id=14, day=19, content="day 19", reply_to=None)
    world.state.agent_posts.append(judged)
    ctx = world.judge_context(judged)
    assert ctx.recent_agent_posts == [
        "day 9",
        "day 10",
        "day 11",
        "day 12",
        "day 13",
        "day 14",
        "day 15",
        "day 16",
        "day 17",
        "day 18",
    ]


@pytest.mark.parametrize(
    ("reply_to", "replied"),
    [
        (None, (None, None)),
        (0, (None, None)),
        (1, ("S1 on day 5", "S1")),
        (4, ("a rival launches on day 7", None)),  # a competitor's post has no group
        (7, ("D_S01 on day 19", "D_S01")),
        (8, ("S2 on day 20", "S2")),  # the last post of the feed
        (9, (None, None)),  # no such post
    ],
)
def test_a_reply_hands_the_judge_the_feed_post_it_answers(cfg, reply_to, replied):
    """``reply_to`` is a feed post id, 1..8 in a feed of eight posts; any other is no reply."""
    world = _world(cfg)
    _feed(world)
    ctx = world.judge_context(_judged(reply_to))
    assert (ctx.replied_post, ctx.replied_group_id) == replied

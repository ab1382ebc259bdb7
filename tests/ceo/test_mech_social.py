"""Customer post sampling (paper eq 26), the agent-post lead multiplier (eq 27) and the
customer replies to a viral agent post (reference-notes §4.12-4.13)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from bizbench.core.rng import RngStreams
from bizbench.envs.ceo.world import posttext
from bizbench.envs.ceo.world.customers import LEAD, NONE, SUBSCRIBED
from bizbench.envs.ceo.world.feed import Feed
from bizbench.envs.ceo.world.social import (
    PostCandidates,
    author_events,
    judge_posts,
    over_quota,
    sample_posts,
    social_multiplier,
    subscriber_weights,
)
from bizbench.envs.ceo.world.state import AgentPost
from bizbench.envs.ceo.world.world import World

N = 26


def _post(pid, day, scores):
    s = np.zeros(N)
    for g, e in scores.items():
        s[g] = e
    return AgentPost(post_id=pid, day=day, content="hello", reply_to=None, scores=s)


def test_social_multiplier_one_post_age_2(state, params, gidx):
    """Ref §4.13: A_g = clip(1 + sum sgn(e) ((|e| - 0.6) / 0.4) 0.25 2^(-age/3), 0.75, 1.25)
    over posts with |e| >= 0.6 and day <= d. e = 0.8 at age 2 -> 1 + 0.5 0.25 2^(-2/3)."""
    s1, s2, s3 = gidx["S1"], gidx["S2"], gidx["S3"]
    state.agent_posts = [
        _post(1, 10, {s1: 0.8, s2: -0.9, s3: 0.59}),
        _post(2, 13, {s1: 0.7}),  # in the future on day 12
        AgentPost(post_id=3, day=9, content="unscored", reply_to=None),
    ]
    got = social_multiplier(state, params, 12)
    assert got[s1] == pytest.approx(1 + 0.5 * 0.25 * 2 ** (-2 / 3))
    assert got[s1] == pytest.approx(1.0787451, abs=1e-7)
    assert got[s2] == pytest.approx(1 - 0.75 * 0.25 * 2 ** (-2 / 3))
    assert got[s3] == 1.0  # below the 0.6 threshold
    assert got[gidx["E1"]] == 1.0
    # day 13: the second post (e = 0.7, age 0) adds 0.25 x 0.25 for S1
    got13 = social_multiplier(state, params, 13)
    assert got13[s1] == pytest.approx(1 + 0.5 * 0.25 * 2 ** (-1.0) + 0.25 * 0.25)


def test_social_multiplier_clipped(state, params, gidx):
    """Ref §4.13: the multiplier is clipped to [0.75, 1.25]."""
    s1, s2 = gidx["S1"], gidx["S2"]
    state.agent_posts = [_post(i, 5, {s1: 1.0, s2: -1.0}) for i in range(3)]
    got = social_multiplier(state, params, 5)
    assert got[s1] == 1.25  # 1 + 3 x 0.25
    assert got[s2] == 0.75


def test_subscriber_weight_hand_computed(state, params, add_customer, gidx):
    """Eq 26 / reference-notes §4.12: w = (1 + 10|S|)(1 + 20 S^2 if S < 0)(2 influencer)(1.5 if tenure <=
    30)(1 + 20|dS| if |dS| >= 0.02)(1 + 5k) seats, k = today's events (overload, outage, an issue open when the
    day's satisfaction update ran, quota)."""
    state.day = 40
    state.settings.quotas[:] = [1e9, 1e9, 1e9]
    a = add_customer(
        state,
        group=gidx["S3"],
        satisfaction=-0.3,
        satisfaction_change=0.05,
        start_day=20,
        issue_days=0,  # resolved by today's support, after the satisfaction update saw it open
        plan=0,
        usage_rate=10.0,
    )
    b = add_customer(
        state,
        group=gidx["E1"],
        satisfaction=0.2,
        satisfaction_change=0.01,
        start_day=0,
        plan=0,
        usage_rate=10.0,
        seats=40.8,  # drifted seats: read as 40 (reference-notes §4.17)
    )
    w = subscriber_weights(
        state, params, np.array([a, b]), overload=True, outage=False, open_issue=np.array([True, False])
    )
    wa = (1 + 3.0) * (1 + 20 * 0.09) * 2 * 1.5 * (1 + 20 * 0.05) * (1 + 5 * 2)
    wb = (1 + 2.0) * 1 * 1 * 1 * 1 * (1 + 5 * 1) * 40
    assert w == pytest.approx([wa, wb])


def _cands(customers, weights, churned=None):
    customers = np.asarray(customers)
    churned = np.zeros(len(customers), bool) if churned is None else np.asarray(churned)
    return PostCandidates(customers=customers, weights=np.asarray(weights, float), churned=churned)


def test_sample_posts_at_most_five_no_duplicates(state, params, add_customer):
    """Ref §4.12: up to 5 posts, without replacement, probability proportional to weight."""
    idx = [add_customer(state, group=0, satisfaction=0.3) for _ in range(20)]
    rng = np.random.default_rng(3)
    heavy_in = 0
    for _ in range(200):
        w = np.ones(20)
        w[7] = 1000.0
        posts = sample_posts(state, params, rng, _cands(idx, w))
        authors = [p["customer"] for p in posts]
        assert len(posts) == 5
        assert len(set(authors)) == 5
        heavy_in += idx[7] in authors
    assert heavy_in == 200
    few = sample_posts(state, params, rng, _cands(idx[:3], [1, 2, 3]))
    assert sorted(p["customer"] for p in few) == sorted(idx[:3])
    assert sample_posts(state, params, rng, _cands([], [])) == []


def test_sentiment_buckets_and_churned(state, params, add_customer):
    """Ref §4.12: S >= 0.2 -> positive 0.70 / neutral 0.25 / negative 0.05; churned -> negative."""
    happy = [add_customer(state, group=0, satisfaction=0.5) for _ in range(5)]
    gone = [add_customer(state, group=0, satisfaction=0.5) for _ in range(5)]
    rng = np.random.default_rng(8)
    counts = {"positive": 0, "neutral": 0, "negative": 0}
    n = 0
    for _ in range(600):
        for p in sample_posts(state, params, rng, _cands(happy, np.ones(5))):
            counts[p["sentiment"]] += 1
            n += 1
    for probs, key in ((0.70, "positive"), (0.25, "neutral"), (0.05, "negative")):
        assert abs(counts[key] / n - probs) < 4 * math.sqrt(probs * (1 - probs) / n), key
    posts = sample_posts(state, params, rng, _cands(gone, np.ones(5), np.ones(5, bool)))
    assert {p["sentiment"] for p in posts} == {"negative"}
    assert all(p["churned"] for p in posts)


def test_influence_score_and_enterprise_engagement(state, params, add_customer, gidx):
    """Ref §4.12: influence = row sum of the group's off-diagonal W_rep; groups whose id starts
    with "E" draw base likes from [5, 50), others from [1, 100)."""
    e1 = [add_customer(state, group=gidx["E1"], satisfaction=0.5) for _ in range(5)]
    s1 = [add_customer(state, group=gidx["S1"], satisfaction=0.5) for _ in range(5)]
    rng = np.random.default_rng(4)
    e_likes, s_likes = [], []
    for _ in range(100):
        e_likes += [p["likes"] for p in sample_posts(state, params, rng, _cands(e1, np.ones(5)))]
        s_likes += [p["likes"] for p in sample_posts(state, params, rng, _cands(s1, np.ones(5)))]
    assert min(e_likes) >= 5
    assert min(s_likes) < 5
    post = sample_posts(state, params, rng, _cands(s1[:1], [1.0]))[0]
    assert post["influence"] == pytest.approx(float(params.spillover[gidx["S1"]].sum()) - 1.0)


def test_discoverable_enterprise_groups_use_individual_engagement(state, params, add_customer, gidx):
    """Ref §4.12: D_E01's id starts with 'D', so base likes come from [1, 100)."""
    de = [add_customer(state, group=gidx["D_E01"], satisfaction=0.5) for _ in range(5)]
    rng = np.random.default_rng(4)
    likes = []
    for _ in range(100):
        likes += [p["likes"] for p in sample_posts(state, params, rng, _cands(de, np.ones(5)))]
    assert min(likes) < 5


class _RecordingWriter:
    """A post writer that records its viral_reply calls and answers with a fixed text."""

    def __init__(self):
        self.calls = []

    def viral_reply(self, rng, group, score, agent_post):
        self.calls.append((rng, group, score, agent_post))
        return "Finally, higher limits!"


def test_a_viral_reply_is_a_reply_post_of_the_customer_s_group(cfg, gidx):
    """Ref §4.13: a customer of the group answers the viral agent post in public; the post is the
    feed's next one, its id is returned, and the text comes from the feed/replies stream."""
    writer = _RecordingWriter()
    feed = Feed(cfg, RngStreams(5), writer=writer)
    feed.add(4, "customer", "first")
    feed.add(4, "customer", "second")
    agent = AgentPost(post_id=9, day=4, content="We doubled the daily limits.", reply_to=None)
    assert feed.viral_reply(5, gidx["S3"], 0.8, agent, 42) == 3
    assert feed.posts[-1] == {
        "post_id": 3,
        "day": 5,
        "content": "Finally, higher limits!",
        "reply_to_agent_post_id": 9,
        "source_group_id": "S3",
        "kind": "reply",
        "customer": 42,
        "sentiment": "positive",
    }
    [(rng, group, score, content)] = writer.calls
    assert rng is feed.streams.get("feed/replies")
    assert (group.id, score, content) == ("S3", 0.8, "We doubled the daily limits.")
    assert feed.streams.names() == ["feed/macro", "feed/replies"]  # the macro stream is drawn at creation


@pytest.mark.parametrize(
    ("score", "sentiment"), [(0.0, "negative"), (1e-9, "positive"), (-0.7, "negative"), (0.7, "positive")]
)
def test_a_viral_reply_is_positive_only_for_a_positive_score(cfg, gidx, score, sentiment):
    feed = Feed(cfg, RngStreams(5), writer=_RecordingWriter())
    agent = AgentPost(post_id=1, day=0, content="hello", reply_to=None)
    feed.viral_reply(0, gidx["E2"], score, agent, None)
    assert feed.posts[-1]["sentiment"] == sentiment
    assert feed.posts[-1]["source_group_id"] == "E2"
    assert feed.posts[-1]["customer"] is None


def test_a_viral_reply_is_written_from_the_feed_replies_stream(cfg, gidx):
    feed = Feed(cfg, RngStreams(11))
    agent = AgentPost(post_id=2, day=3, content="We cut the price of Plan A.", reply_to=None)
    feed.viral_reply(3, gidx["S1"], -0.9, agent, 7)
    fresh = RngStreams(11).get("feed/replies")
    expected = posttext.viral_reply(fresh, cfg.groups[gidx["S1"]], -0.9, "We cut the price of Plan A.")
    assert feed.posts[-1]["content"] == expected


# ---------------------------------------------------------------------------- after a post is judged
# World._after_judging: a customer of each group that judged the post |e| >= 0.6 replies in public,
# and the agent gets a ``social_media`` notification of its views, tone and strongest reactions.


def _judged_post(scores: dict[int, float]) -> AgentPost:
    post = _post(7, 20, scores)
    post.views = np.zeros(N)
    post.views[:2] = [12_000.4, 345.2]  # 12,345.6 views in all, shown as 12,345
    return post


def _world(cfg, writer=None):
    world = World(cfg, 3, writer=writer if writer is not None else _RecordingWriter())
    world.state.day = 20
    return world


def test_a_customer_of_each_group_that_judged_a_post_viral_replies_to_it(cfg, gidx, add_customer):
    """Ref §4.13: |e| >= 0.6 is viral, whatever its sign (S1 at 0.6, S2 at -0.6; S3 at 0.59 is
    not). The author is one of the group's active customers, drawn with ``integers(n)`` from the
    ``viral_replies`` stream, group by group; a group with no active customer (E1) replies with
    no author and draws nothing."""
    s1, s2, s3, e1 = (gidx[g] for g in ("S1", "S2", "S3", "E1"))
    writer = _RecordingWriter()
    world = _world(cfg, writer)
    st = world.state
    s1_active = [add_customer(st, group=s1) for _ in range(10)]
    for _ in range(5):
        add_customer(st, group=s1)  # S1 customers that are not active today
    s2_active = [add_customer(st, group=s2) for _ in range(10)]
    s3_active = [add_customer(st, group=s3) for _ in range(5)]
    active = np.array(sorted(s1_active + s2_active + s3_active))
    post = _judged_post({s1: 0.6, s2: -0.6, s3: 0.59, e1: 0.9})

    world._after_judging(post, active)

    draws = RngStreams(3).get("viral_replies")
    authors = [s1_active[int(draws.integers(10))], s2_active[int(draws.integers(10))], None]
    assert post.comment_post_ids == [1, 2, 3]
    replies = world.feed.posts
    assert [(p["post_id"], p["kind"], p["source_group_id"], p["customer"]) for p in replies] == [
        (1, "reply", "S1", authors[0]),
        (2, "reply", "S2", authors[1]),
        (3, "reply", "E1", None),
    ]
    assert all(p["reply_to_agent_post_id"] == 7 and p["day"] == 20 for p in replies)
    assert [(g.id, e) for _, g, e, _ in writer.calls] == [("S1", 0.6), ("S2", -0.6), ("E1", 0.9)]


def _notice(world) -> str:
    [note] = world.notifications
    assert (note["notification_id"], note["day"], note["type"]) == (1, 20, "social_media")
    return note["message"]


def test_the_notification_names_the_three_strongest_reactions_of_the_known_groups(cfg, gidx):
    """The known groups (S1..E3 at the start) ranked by |e|, strongest first, three of them, each
    with its signed score to two decimals; the undiscovered D_S01's -0.95 is neither named nor
    counted in the tone: the mean of the six is 0.55 / 6 = 0.092, neutral."""
    world = _world(cfg)
    scores = {"S1": -0.4, "S2": 0.2, "S3": 0.7, "E1": 0.3, "E2": -0.25, "E3": 0.0, "D_S01": -0.95}
    post = _judged_post({gidx[g]: e for g, e in scores.items()})
    world._after_judging(post, np.empty(0, dtype=np.int64))
    assert _notice(world) == (
        "Your post #7 reached 12,345 views; overall tone neutral; "
        "strongest reactions: S3 (+0.70), S1 (-0.40), E1 (+0.30)"
    )


@pytest.mark.parametrize(
    ("score", "tone", "shown"),
    [
        (0.0, "neutral", "+0.00"),
        (0.1, "neutral", "+0.10"),
        (0.1000001, "positive", "+0.10"),
        (0.7, "positive", "+0.70"),
        (-0.1, "neutral", "-0.10"),
        (-0.1000001, "negative", "-0.10"),
        (-0.7, "negative", "-0.70"),
    ],
)
def test_the_overall_tone_is_positive_only_above_0_1_and_negative_only_below_minus_0_1(cfg, gidx, score, tone, shown):
    """The tone is that of the mean score of the known groups; with S1 the only known group the
    mean is S1's score."""
    world = _world(cfg)
    world.state.discovered[:] = False
    world.state.discovered[gidx["S1"]] = True
    world._after_judging(_judged_post({gidx["S1"]: score}), np.empty(0, dtype=np.int64))
    assert _notice(world) == (
        f"Your post #7 reached 12,345 views; overall tone {tone}; strongest reactions: S1 ({shown})"
    )


@pytest.mark.filterwarnings("error")
def test_with_no_known_group_the_tone_is_neutral_and_no_reaction_is_named(cfg, gidx):
    """Neutral by rule, not as the mean of nothing (numpy's nan and its "Mean of empty slice"
    warning, which fails this test)."""
    world = _world(cfg)
    world.state.discovered[:] = False
    world._after_judging(_judged_post({gidx["S1"]: 0.5}), np.empty(0, dtype=np.int64))
    assert _notice(world) == "Your post #7 reached 12,345 views; overall tone neutral; strongest reactions: "


def test_reactions_of_equal_strength_are_named_in_group_order(cfg, gidx):
    """All 26 groups known, D_E02 at 0.5 and the others at 0: after D_E02 come the first two
    groups of the preset, S1 and S2 (mean 0.5 / 26 = 0.019, neutral)."""
    world = _world(cfg)
    world.state.discovered[:] = True
    world._after_judging(_judged_post({gidx["D_E02"]: 0.5}), np.empty(0, dtype=np.int64))
    assert _notice(world) == (
        "Your post #7 reached 12,345 views; overall tone neutral; "
        "strongest reactions: D_E02 (+0.50), S1 (+0.00), S2 (+0.00)"
    )


def test_a_post_s_causes_are_the_author_s_true_events_of_the_day(state, params, add_customer, gidx):
    """Ref §4.12: the causes behind a sampled author's post: the turn's outage and overload, an open
    issue (from its first day), demand above the plan's quota (r W(d) > quota, day 49: W = 1.0), the list price above
    (x 1.001) or below (x 0.999) the author's stored price (individuals only), a promotion, a tenure of
    30 days or less, and churn (enterprise churn for an enterprise)."""
    state.day = 49
    s = state.settings
    s.prices[:] = [20.0, 60.0 * 0.999, 100.0 * 1.001]
    s.quotas[:] = [99.0, 100.0, 0.5]
    a = add_customer(
        state, group=gidx["S1"], plan=0, issue_days=1, usage_rate=100.0, listed_price=19.9, promotion=0.5, start_day=19
    )
    b = add_customer(state, group=gidx["S2"], plan=1, usage_rate=100.0, listed_price=50.0, start_day=18)
    c = add_customer(state, group=gidx["S2"], plan=1, usage_rate=50.0, listed_price=60.0, start_day=0)
    h = add_customer(state, group=gidx["S2"], plan=1, usage_rate=50.0, listed_price=70.0, start_day=0)
    e = add_customer(state, group=gidx["E1"], plan=2, usage_rate=0.0, listed_price=200.0, start_day=0)
    assert author_events(state, params, a, True, True, True) == [
        "outage",
        "overload",
        "issue",
        "quota",
        "price_increase",
        "promotion",
        "new_customer",
        "churned",
    ]
    assert author_events(state, params, b, False, False, False) == ["price_increase"]  # demand = quota, 31 days
    # a list price of exactly 0.999 x the stored one is no cut
    assert author_events(state, params, c, False, False, False) == []
    assert author_events(state, params, h, False, False, False) == ["price_cut"]
    assert author_events(state, params, e, True, False, False) == ["enterprise_churn"]
    # usage 1 against a quota of 0.5 is a quota event; a list price of exactly 1.001 x the stored one is no rise
    f = add_customer(state, group=gidx["S3"], plan=2, usage_rate=1.0, listed_price=100.0, start_day=0)
    assert author_events(state, params, f, False, False, False) == ["quota"]
    state.day = 10
    lead = add_customer(state, group=gidx["S1"], status=LEAD)
    assert author_events(state, params, lead, False, False, False) == []
    day_zero = add_customer(state, group=gidx["S1"], start_day=0)  # subscribed on day 0, 10 days ago
    assert author_events(state, params, day_zero, False, False, False) == ["new_customer"]


def test_the_new_customer_change_and_quota_weights_start_at_their_thresholds(state, params, add_customer, gidx):
    """Eq 26 / reference-notes §4.12: x1.5 for a tenure of 30 days or less (30 yes, 31 no); x(1 + 20|dS|)
    from |dS| = 0.02 (0.02 yes: 1.4); an event for demand above the quota only (day 49, W = 1.0: demand
    100 against a quota of 100 is no event, 101 is one: x(1 + 5)). S = 0 adds nothing (w = 1)."""
    state.day = 49
    state.settings.quotas[:] = [100.0, 100.0, 100.0]
    s2 = gidx["S2"]
    a = add_customer(state, group=s2, satisfaction=0.0, start_day=19, plan=0, usage_rate=100.0)
    b = add_customer(state, group=s2, satisfaction=0.0, start_day=18, plan=0, usage_rate=100.0)
    c = add_customer(state, group=s2, satisfaction=0.0, satisfaction_change=-0.02, start_day=0, plan=0)
    d = add_customer(state, group=s2, satisfaction=0.0, start_day=0, plan=1, usage_rate=101.0)
    w = subscriber_weights(
        state, params, np.array([a, b, c, d]), overload=False, outage=False, open_issue=np.zeros(4, bool)
    )
    assert w == pytest.approx([1.5, 1.0, 1.4, 6.0])
    # an outage and an issue open for 1 day are two events: 1 + 5 x 2
    e = add_customer(state, group=s2, satisfaction=0.0, start_day=0, plan=0, issue_days=1)
    assert subscriber_weights(
        state, params, np.array([e]), overload=False, outage=True, open_issue=np.array([True])
    ) == pytest.approx([11.0])


def test_demand_over_quota_is_the_usage_rate_times_the_weekday_factor(state, add_customer, gidx):
    """Ref §4.4 / §2.6: today's demand is r W(d); day 50 has W = 1.1, so a rate of 100 is a demand of
    110: above a quota of 105, below one of 111."""
    state.day = 50
    state.settings.quotas[:] = [105.0, 111.0, 1e9]
    idx = np.array([add_customer(state, group=gidx["S1"], plan=p, usage_rate=100.0) for p in (0, 1)])
    assert over_quota(state, idx).tolist() == [True, False]


def test_a_post_is_judged_the_day_after_with_views_growing_with_the_score(state, params, fake_rng, gidx):
    """docs/reference-notes.md §4.13: a post of day 4 is judged on day 5, one of day 5 is not yet, a judged one
    never again.
    Scores are clipped to [-1, 1]; views = floor(max(50, 0.1 x active) x m(|e|) x LogNormal(0, 0.3)) with
    m = 1 + 2|e|/0.6 up to 0.6, then 3 exp(ln(100/3) (|e| - 0.6) / 0.4) (3 at 0.6, 100 at 1); an
    undiscovered group's views are 0."""
    s1, s2, s3, e1, e2, d1 = (gidx[k] for k in ("S1", "S2", "S3", "E1", "E2", "D_S01"))
    state.day = 5
    state.customers.append(800, {"group": s1, "status": SUBSCRIBED})  # 800 active S1 -> base 80
    state.customers.append(3, {"group": s2, "status": LEAD})  # leads are not counted
    due = AgentPost(post_id=1, day=4, content="due", reply_to=None)
    early = AgentPost(post_id=2, day=5, content="too early", reply_to=None)
    old = _post(3, 1, {s1: 0.2})
    state.agent_posts = [old, due, early]
    asked = []

    def verdicts(post):
        asked.append(post.post_id)
        return {
            "S1": (1.5, "loved"),
            "S2": (-0.3, "meh"),
            "S3": (0.6, "ok"),
            "E1": (-0.8, "angry"),
            "E2": (-1.7, "furious"),
            "D_S01": (0.9, "x"),
        }

    z = np.zeros(N)
    z[s1], z[e2] = 1.0, -1.0
    done = judge_posts(state, params, fake_rng(lognormal=[z]), verdicts)
    assert done == [due] and asked == [1]
    assert early.scores is None and list(old.scores[:2]) == [0.2, 0.0]
    assert due.scores[s1] == 1.0 and due.scores[s2] == -0.3 and due.scores[e1] == -0.8 and due.scores[d1] == 0.9
    assert due.reasoning == {"S1": "loved", "S2": "meh", "S3": "ok", "E1": "angry", "E2": "furious", "D_S01": "x"}
    assert due.scores[e2] == -1.0  # clipped
    v = due.views
    assert v[s1] == 10798  # 80 x 100 x e^0.3 = 10798.9
    assert v[s2] == 100  # 50 x (1 + 2 x 0.3 / 0.6)
    assert v[s3] == 150  # 50 x 3
    assert v[e1] == 866  # 50 x 3 x (100/3)^(0.2/0.4) = 50 x 17.32
    assert v[e2] == 3704  # 50 x 100 x e^-0.3 = 3704.1
    assert v[gidx["E3"]] == 50
    assert v[d1] == 0  # not discovered
    assert v.dtype == np.int64


class _PostRng:
    """Scripted draws for ``sample_posts``: the exponential keys, then 8 uniforms per author
    (sentiment, likes, shares, sentiment multiplier, spike, spike virality, spike likes, spike shares)."""

    def __init__(self, exp, uniforms):
        self.exp, self.uniforms = list(exp), [list(u) for u in uniforms]

    def exponential(self, scale=1.0, size=None):
        assert scale == 1.0 and size == len(self.exp)
        return np.array(self.exp, dtype=np.float64)  # a Generator's draws are floats

    def random(self, size=None):
        assert size == 8
        return np.array(self.uniforms.pop(0))


def test_the_authors_are_the_smallest_exponential_keys_over_weight_in_key_order(state, params, add_customer):
    """docs/reference-notes.md §4.12 (weighted sampling without replacement): key_i = Exp(1)_i / w_i, the 5
    smallest keys
    post, smallest first, whatever the weights' scale (weights below 1 too)."""
    idx = [add_customer(state, group=0, satisfaction=0.3) for _ in range(7)]
    w = [0.5, 0.25, 1.0, 0.1, 0.2, 0.4, 0.05]
    e = [0.3, 0.1, 0.5, 0.061, 0.07, 0.08, 0.2]
    # keys 0.6, 0.4, 0.5, 0.61, 0.35, 0.2, 4.0 -> the five smallest: 5, 4, 1, 2, 0
    # (a floor of 1 on the weights would leave the keys = e: 3, 4, 5, 1, 6)
    uniforms = [[0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5]] * 5
    posts = sample_posts(state, params, _PostRng(e, uniforms), _cands(idx, w))
    assert [p["customer"] for p in posts] == [idx[5], idx[4], idx[1], idx[2], idx[0]]


def test_descending_keys_still_give_the_five_smallest(state, params, add_customer):
    """Keys 7, 6, ..., 1 (equal weights): the authors are the last five candidates, smallest key first."""
    idx = [add_customer(state, group=0, satisfaction=0.3) for _ in range(7)]
    uniforms = [[0.5] * 8] * 5
    posts = sample_posts(state, params, _PostRng([7, 6, 5, 4, 3, 2, 1], uniforms), _cands(idx, np.ones(7)))
    assert [p["customer"] for p in posts] == [idx[6], idx[5], idx[4], idx[3], idx[2]]


def test_each_post_s_sentiment_engagement_and_spike_follow_its_own_draws(state, params, add_customer, gidx):
    """docs/reference-notes.md §4.12 by hand, five authors (keys in candidate order):
    sentiment by bucket (S >= 0.2: 0.70/0.25/0.05, S >= -0.05: 0.15/0.55/0.30, churned: negative);
    likes 1 + floor(99 u) and shares floor(30 u) (an "E" group: 5 + floor(45 u), floor(10 u));
    multiplier negative 1.5 + u, positive 1 + 0.5 u, neutral 0.5 + 0.5 u; virality
    min(1, (likes + 3 shares) / 200 x mult); a spike (u < 0.01) multiplies virality by 3 + 2u (capped at 1),
    likes by floor(5 + 5u), shares by floor(3 + 3u). An "E" group: base likes 5 + floor(45 u), shares floor(10 u)."""
    state.day = 21
    a = add_customer(state, group=gidx["S1"], satisfaction=0.2)
    b = add_customer(state, group=gidx["E1"], satisfaction=0.5)
    c = add_customer(state, group=gidx["S2"], satisfaction=0.0)
    d = add_customer(state, group=gidx["S3"], satisfaction=0.5)
    uniforms = [
        [0.5, 0.5, 0.99, 0.4, 0.01, 0.9, 0.9, 0.9],  # a: positive (exactly at 0.2), no spike at 0.01
        [0.0, 0.5, 0.95, 0.2, 0.5, 0.9, 0.9, 0.9],  # b: churned -> negative
        [0.5, 0.2, 0.1, 0.6, 0.005, 0.5, 0.5, 0.5],  # c: neutral, spike
        [0.1, 0.99, 0.99, 1.0, 0.5, 0.5, 0.5, 0.5],  # d: positive, capped
        [0.1, 0.5, 0.5, 0.0, 0.0, 0.5, 0.5, 0.5],  # e: positive, spike over the cap
    ]
    rng = _PostRng([1.0, 2.0, 3.0, 4.0, 5.0], uniforms)
    posts = sample_posts(state, params, rng, _cands([a, b, c, d, a], np.ones(5), [False, True, False, False, False]))
    pa, pb, pc, pd, pe = posts
    assert set(pa) == {
        "day", "customer", "group_id", "sentiment", "satisfaction", "churned",
        "likes", "shares", "virality", "influence",
    }  # fmt: skip
    assert (pa["day"], pa["customer"], pa["group_id"], pa["satisfaction"], pa["churned"]) == (21, a, "S1", 0.2, False)
    assert (pa["sentiment"], pa["likes"], pa["shares"]) == ("positive", 50, 29)  # 1 + floor(49.5), floor(29.7)
    assert pa["virality"] == pytest.approx((50 + 87) / 200 * 1.2)  # 0.822
    assert (pb["sentiment"], pb["group_id"], pb["churned"]) == ("negative", "E1", True)
    assert (pb["likes"], pb["shares"]) == (27, 9)  # 5 + floor(22.5), floor(9.5)
    assert pb["virality"] == pytest.approx((27 + 27) / 200 * 1.7)  # 0.459
    assert pc["sentiment"] == "neutral"  # 0.5 in [0.15, 0.70)
    assert (pc["likes"], pc["shares"]) == (20 * 7, 3 * 4)  # (1 + floor(19.8)) x floor(7.5), floor(3.0) x floor(4.5)
    assert pc["virality"] == pytest.approx((20 + 9) / 200 * 0.8 * 4)  # 0.116 x (3 + 2 x 0.5)
    assert pd["sentiment"] == "positive"
    assert pd["virality"] == 1.0  # (99 + 87) / 200 x 1.5 = 1.395, capped
    assert (pd["likes"], pd["shares"]) == (99, 29)
    assert pe["virality"] == 1.0  # (50 + 45) / 200 x 1.0 = 0.475, x (3 + 2 x 0.5) = 1.9, capped
    assert (pe["likes"], pe["shares"]) == (50 * 7, 15 * 4)


@pytest.mark.parametrize(("u_sent", "sentiment"), [(0.6999, "positive"), (0.70, "neutral"), (0.9499, "neutral")])
def test_a_sentiment_draw_on_a_bucket_edge_takes_the_next_sentiment(
    state, params, add_customer, gidx, u_sent, sentiment
):
    """docs/reference-notes.md §4.12, S >= 0.2: positive for u < 0.70, neutral for 0.70 <= u < 0.95."""
    a = add_customer(state, group=gidx["S1"], satisfaction=0.3)
    rng = _PostRng([1.0], [[u_sent, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5]])
    assert sample_posts(state, params, rng, _cands([a], [1.0]))[0]["sentiment"] == sentiment


@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")
def test_a_weight_that_overflows_counts_as_a_million(state, params, add_customer, gidx):
    """docs/reference-notes.md §4.12: a weight that is not finite (here 10 x |S| overflows) is replaced by 1e6, so the
    author is all but sure to post and the sampling keys stay finite."""
    state.day = 400
    state.settings.quotas[:] = [1e9, 1e9, 1e9]
    a = add_customer(state, group=gidx["S1"], satisfaction=1e308, start_day=0, plan=0)
    assert (
        subscriber_weights(state, params, np.array([a]), overload=False, outage=False, open_issue=np.array([False]))[0]
        == 1e6
    )


def test_a_scored_post_after_an_unscored_one_still_counts(state, params, gidx):
    """docs/reference-notes.md §4.13: the posts are summed whatever their order; an unscored or future post before
    a scored one
    does not stop the sum. e = 0.8 at age 0: 1 + 0.5 x 0.25 = 1.125."""
    s1 = gidx["S1"]
    state.agent_posts = [
        AgentPost(post_id=1, day=3, content="unscored", reply_to=None),
        _post(2, 9, {s1: 0.8}),
        _post(3, 5, {s1: 0.8}),
    ]
    assert social_multiplier(state, params, 5)[s1] == pytest.approx(1.125)


def test_a_lead_with_a_plan_tells_of_its_price_and_a_row_never_used_does_not(state, params, add_customer, gidx):
    """docs/reference-notes.md §4.22: the price and quota causes need a plan and a status other than NONE (an empty
    row)."""
    state.settings.prices[:] = [30.0, 60.0, 100.0]
    state.day = 100
    lead = add_customer(state, group=gidx["S1"], status=LEAD, plan=0, listed_price=20.0, start_day=-1)
    empty = add_customer(state, group=gidx["S1"], status=NONE, plan=0, listed_price=20.0, start_day=-1)
    assert author_events(state, params, lead, False, False, False) == ["price_increase"]
    assert author_events(state, params, empty, False, False, False) == []

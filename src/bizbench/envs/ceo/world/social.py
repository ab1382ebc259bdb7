"""Customer social-post sampling (eq 26) and the agent-post lead multiplier (eq 27; reference-notes §4.12-4.13).

The world decides who posts, why (``author_events``), with which sentiment, and the
hidden engagement; ``feed.py`` turns these records into public posts with text.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from bizbench.envs.ceo.world import kernels
from bizbench.envs.ceo.world.customers import BLOCK, for_blocks
from bizbench.envs.ceo.world.params import Params
from bizbench.envs.ceo.world.state import AgentPost, WorldState
from bizbench.envs.ceo.world.usage import weekly_factor

# (threshold, P(positive), P(neutral), P(negative)) by satisfaction bucket (reference-notes §4.12).
SENTIMENT_BUCKETS = (
    (0.2, 0.70, 0.25, 0.05),
    (0.05, 0.40, 0.50, 0.10),
    (-0.05, 0.15, 0.55, 0.30),
    (-0.2, 0.05, 0.35, 0.60),
    (-np.inf, 0.02, 0.18, 0.80),
)
SENTIMENTS = ("positive", "neutral", "negative")


@dataclass
class PostCandidates:
    customers: np.ndarray
    weights: np.ndarray
    churned: np.ndarray  # bool: the candidate cancelled today


def subscriber_weights(
    state: WorldState, params: Params, active: np.ndarray, overload: bool, outage: bool, open_issue: np.ndarray
) -> np.ndarray:
    """w_i of eq 26 in the engine form (reference-notes §4.12): extremity, negativity, influencer, new
    customer, satisfaction change, today's events (overload, outage, an open issue, quota), seats.
    ``open_issue``: whether each had an issue open when the day's satisfaction update ran.
    A factor that does not apply to a customer is 1, so it is multiplied in only where it applies.
    The weights are elementwise, so they are computed in blocks of customers (``for_blocks``)."""
    so = state.config.social
    cust = state.customers
    w = np.empty(len(active))
    influencer, issue = params.influencer.view(np.uint8), open_issue.view(np.uint8)
    service_events = float(overload) + float(outage)

    def block(b: slice) -> None:  # compiled (kernels.post_weights)
        kernels.post_weights(
            active[b],
            cust.satisfaction,
            cust.satisfaction_change,
            cust.group,
            influencer,
            cust.start_day,
            state.day,
            cust.usage_rate,
            weekly_factor(state, state.day),
            cust.plan,
            state.settings.quotas,
            issue[b],
            cust.billed_seats,
            so.extremity_weight,
            so.negative_weight,
            so.influencer_weight,
            so.new_customer_weight,
            so.new_customer_days,
            so.change_weight,
            so.change_threshold,
            service_events,
            so.event_weight,
            w[b],
        )

    for_blocks(len(active), block)
    return w


def over_quota(state: WorldState, active: np.ndarray) -> np.ndarray:
    """Whether each active subscriber's demand today exceeds its plan's daily quota (reference-notes §4.4)."""
    cust = state.customers
    demand = cust.usage_rate[active]
    demand *= weekly_factor(state, state.day)
    return demand > state.settings.quotas.take(cust.plan[active])


def author_events(
    state: WorldState, params: Params, customer: int, churned: bool, outage: bool, overload: bool
) -> list[str]:
    """The true causes behind a sampled author's post, in the vocabulary of ``posttext``.

    ``outage``/``overload`` say whether the service had one during the turn. Prices compare the
    author's stored price with the current list price of their plan (reference-notes §4.22).
    """
    cust = state.customers
    events = []
    if outage:
        events.append("outage")
    if overload:
        events.append("overload")
    if cust.issue_days[customer] > 0:
        events.append("issue")
    plan = int(cust.plan[customer])
    if plan >= 0 and cust.status[customer] != 0:
        idx = np.array([customer])
        if cust.usage_rate[customer] > 0 and over_quota(state, idx)[0]:
            events.append("quota")
        listed, current = float(cust.listed_price[customer]), float(state.settings.prices[plan])
        if current > listed * 1.001 and not params.is_ent[cust.group[customer]]:
            events.append("price_increase")
        elif current < listed * 0.999 and not params.is_ent[cust.group[customer]]:
            events.append("price_cut")
        if cust.promotion[customer] > 0:
            events.append("promotion")
    if cust.start_day[customer] >= 0 and state.day - cust.start_day[customer] <= state.config.social.new_customer_days:
        events.append("new_customer")
    if churned:
        events.append("enterprise_churn" if params.is_ent[cust.group[customer]] else "churned")
    return events


def sample_posts(
    state: WorldState, params: Params, rng: np.random.Generator, cands: PostCandidates
) -> list[dict[str, Any]]:
    """Up to 5 authors without replacement, probability proportional to weight, then sentiment
    by satisfaction bucket (churned authors are negative) and hidden engagement (reference-notes §4.12).

    The keys Exp(1) / w are written over ``cands.weights``, in blocks of ``BLOCK`` candidates whose draws
    follow one another (the same draws as one call for them all): the keys of a market of millions need
    no arrays of its size besides the weights."""
    so = state.config.social
    n = len(cands.customers)
    if n == 0:
        return []
    k = min(so.max_posts, n)
    keys = cands.weights
    for i in range(0, n, BLOCK):
        block = keys[i : i + BLOCK]
        np.maximum(block, 1e-300, out=block)
        np.divide(rng.exponential(1.0, len(block)), block, out=block)
    pick = np.argpartition(keys, k - 1)[:k] if n > k else np.arange(n)
    pick = pick[np.argsort(keys[pick])]
    posts = []
    cust = state.customers
    for j in pick:
        c = int(cands.customers[j])
        s = float(cust.satisfaction[c])
        u_sent, u_like, u_share, u_mult, u_spike, u_a, u_b, u_c = rng.random(8)
        if cands.churned[j]:
            sentiment = "negative"
        else:
            probs = next(b[1:] for b in SENTIMENT_BUCKETS if s >= b[0])
            sentiment = SENTIMENTS[int(np.searchsorted(np.cumsum(probs), u_sent * sum(probs), side="right"))]
        gid = state.config.groups[cust.group[c]].id
        if gid.startswith("E"):  # the engine's test; discoverable D_E* groups get individual ranges
            likes, shares = 5 + int(u_like * 45), int(u_share * 10)
        else:
            likes, shares = 1 + int(u_like * 99), int(u_share * 30)
        mult = {"negative": 1.5 + u_mult, "positive": 1.0 + 0.5 * u_mult, "neutral": 0.5 + 0.5 * u_mult}[sentiment]
        virality = min(1.0, (likes + 3 * shares) / 200.0 * mult)
        if u_spike < 0.01:
            virality = min(1.0, virality * (3 + 2 * u_a))
            likes *= int(5 + 5 * u_b)
            shares *= int(3 + 3 * u_c)
        row = params.spillover[cust.group[c]].copy()
        row[cust.group[c]] = 0.0
        posts.append(
            {
                "day": state.day,
                "customer": c,
                "group_id": gid,
                "sentiment": sentiment,
                "satisfaction": s,
                "churned": bool(cands.churned[j]),
                "likes": likes,
                "shares": shares,
                "virality": virality,
                "influence": float(row.sum()),
            }
        )
    return posts


def judge_posts(
    state: WorldState,
    params: Params,
    rng: np.random.Generator,
    verdicts: Callable[[AgentPost], Mapping[str, tuple[float, str]]],
) -> list[AgentPost]:
    """Score posts made before today per discovered group and draw their views (reference-notes §4.13 views formula).

    ``verdicts(post)`` returns ``{group_id: (score, reason)}``; scores are clipped to [-1, 1].
    """
    so = state.config.social
    done: list[AgentPost] = []
    pending = [post for post in state.agent_posts if post.scores is None and post.day < state.day]
    if not pending:
        return done
    counts = np.bincount(state.customers.group[state.customers.active()], minlength=params.n_groups)
    for post in pending:
        scores = np.zeros(params.n_groups)
        for gid, (e, reason) in verdicts(post).items():
            scores[params.group_index(gid)] = float(np.clip(e, -1.0, 1.0))
            post.reasoning[gid] = reason
        a = np.abs(scores)
        k = np.log(100.0 / 3.0) / so.viral_span
        mult = np.where(
            a <= so.viral_threshold, 1.0 + 2.0 * a / so.viral_threshold, 3.0 * np.exp(k * (a - so.viral_threshold))
        )
        base = np.maximum(50.0, 0.1 * counts)
        views = (base * mult * rng.lognormal(0.0, 0.3, params.n_groups)).astype(np.int64)
        post.scores = scores
        post.views = np.where(state.discovered, views, 0)
        done.append(post)
    return done


def social_multiplier(state: WorldState, params: Params, day: int) -> np.ndarray:
    """A_g = clip(1 + sum sgn(e) ((|e| - 0.6)/0.4) 0.25 2^(-age/3), 0.75, 1.25) over posts
    with |e| >= 0.6 and day <= d (eq 27; reference-notes §4.13)."""
    so = state.config.social
    total = np.zeros(params.n_groups)
    for post in state.agent_posts:
        if post.scores is None or post.day > day:
            continue
        e = post.scores
        viral = np.abs(e) >= so.viral_threshold
        age = day - post.day
        total += np.where(
            viral,
            np.sign(e)
            * (np.abs(e) - so.viral_threshold)
            / so.viral_span
            * so.multiplier_gain
            * 2.0 ** (-age / so.multiplier_half_life),
            0.0,
        )
    return np.clip(1.0 + total, *so.multiplier_bounds)

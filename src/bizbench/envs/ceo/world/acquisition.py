"""Lead generation and conversion (eq 28-29; reference-notes §2.6, §3.2-3.4)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from bizbench.envs.ceo.world.curve import required_quality
from bizbench.envs.ceo.world.customers import (
    CANCELLED,
    LEAD,
    LOST,
    NONE,
    SOURCE_NETWORK,
    SOURCE_ORGANIC,
    SUBSCRIBED,
)
from bizbench.envs.ceo.world.offer import lead_offer
from bizbench.envs.ceo.world.params import MACRO_LEAD, Params
from bizbench.envs.ceo.world.promotions import lead_promotion, ongoing_promotion
from bizbench.envs.ceo.world.quality import quota_factor
from bizbench.envs.ceo.world.rivals import Market, Moved, shop, tenders
from bizbench.envs.ceo.world.sampling import draw_prospects, prospects
from bizbench.envs.ceo.world.state import N_CHANNELS, WorldState
from bizbench.envs.ceo.world.usage import draw_usage_rate, weekly_factor


@dataclass
class LeadsDay:
    leads: np.ndarray  # per group
    channel_leads: np.ndarray  # [group, channel] realised channel-attributed leads
    new_subscribers: np.ndarray  # customer indices (individual signups)
    lost: np.ndarray  # individual leads that did not subscribe
    enterprise_leads: np.ndarray  # enterprise prospects that became leads (need a thread)
    expected: np.ndarray  # lambda_g
    dropped_quota: np.ndarray  # per group: enterprise prospects some plan would win but for its quota
    dropped_quality: np.ndarray  # per group: enterprise prospects no plan's quality wins, whatever the quota
    #: leads that went to a rival (docs/arena.md A3)
    to_rivals: Moved = field(default_factory=list)


def monthly_factor(state: WorldState, day: int) -> float:
    """Mo(d): 1.15 on days 1-3 of the 30-day month, 1.10 on days 28-30 (reference-notes §2.6)."""
    a = state.config.acquisition
    m = day % 30 + 1
    if m <= 3:
        return a.monthly_factor_start
    if m >= 28:
        return a.monthly_factor_end
    return 1.0


def saturation(counts: np.ndarray, caps: np.ndarray, exponent: float) -> np.ndarray:
    """D_g = max(0, 1 - (N_g / cap_g(d))^2), 1 when N_g = 0 (eq 29)."""
    d = np.maximum(0.0, 1.0 - (counts / caps) ** exponent)
    return np.where(counts > 0, d, 1.0)


def channel_noise(state: WorldState, rng: np.random.Generator) -> None:
    """Monthly random walk of the live channel table: v <- max(0, v + N(0, 0.05 v)) (reference-notes §3.2)."""
    frac = state.config.acquisition.channel_noise_fraction
    v = state.channel_leads
    state.channel_leads = np.maximum(0.0, v + rng.normal(0.0, 1.0, v.shape) * frac * v)


ENGAGED = (LEAD, SUBSCRIBED, CANCELLED, LOST)


def open_market(state: WorldState, params: Params, day: int) -> np.ndarray:
    """Prospects a group can still send on ``day``: the market cap less, for enterprise groups, the firms
    already engaged.

    An enterprise market is a finite list of cap_g(d) firms (CEO-Bench Appendix D counts N_g
    firms per enterprise group; eq 29's cap). A firm that is a lead, a customer, a lost lead or
    a cancelled account (a lost or cancelled customer never returns, reference-notes §3.4) is
    no longer a prospect, so the enterprise leads of all days together never exceed the
    market. A prospect dropped at the gate (``enterprise_gate``) engages nothing and may come
    back. Individual groups keep the per-day cap (their saturation is eq 29's D_g). With
    ``fixes.enterprise_market_finite`` off, every group keeps the per-day cap (the engine).

    Each row is counted once, on the first day it exists here: a prospect's status is set on the
    day it is drawn, and a status never turns into NONE nor leaves it, so the rows counted before
    keep their count (``WorldState.engaged_by_group``).
    """
    cap = params.market_cap(day)
    if not state.config.fixes.enterprise_market_finite:
        return cap
    cust = state.customers
    new = slice(state.market_rows_counted, cust.n)
    engaged = cust.status[new] != NONE  # ENGAGED: every status but a gate-dropped prospect's
    state.engaged_by_group += np.bincount(cust.group[new][engaged], minlength=params.n_groups)
    state.market_rows_counted = cust.n
    return np.where(params.is_ent, np.maximum(0.0, np.floor(cap) - state.engaged_by_group), cap)


def expected_leads(
    state: WorldState,
    params: Params,
    counts: np.ndarray,
    social: np.ndarray,
    surge: float,
    room: np.ndarray | None = None,
    market_counts: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """lambda_g = R D W Mo M_lead A Z (sum_c x_cg L_cg / 1000 + sum_h N_h NET[h,g]) (eq 28).

    Returns (lambda, channel part [g, c], network part [g]) for discovered groups only, each
    lambda at most ``room`` (``open_market``; the whole market cap when not given). D counts
    ``market_counts`` when given: every company's subscribers in an arena (docs/arena.md A2).
    """
    a = state.config.acquisition
    d = state.day
    disc = state.discovered
    channel = state.settings.ad_spend * state.channel_leads / a.ad_reference_spend
    network = (counts * disc) @ params.referral
    factor = (
        state.reputation
        * saturation(counts if market_counts is None else market_counts, params.market_cap(d), a.saturation_exponent)
        * weekly_factor(state, d)
        * monthly_factor(state, d)
        * state.macro_multipliers[:, MACRO_LEAD]
        * social
        * surge
    )
    lam = np.where(disc, np.maximum(0.0, factor * (channel.sum(axis=1) + network)), 0.0)
    # No group sends more prospects than it has left: the day's market cap for individual
    # groups, the firms not yet engaged for enterprise groups (open_market).
    lam = np.minimum(lam, params.market_cap(d) if room is None else room)
    return lam, channel, network


def generate_leads(
    state: WorldState,
    params: Params,
    rng_leads: np.random.Generator,
    rng_conversion: np.random.Generator,
    group_streams: list[np.random.Generator],
    counts: np.ndarray,
    delivered: np.ndarray,
    q_shift: np.ndarray,
    c_drift: np.ndarray,
    social: np.ndarray,
    surge: float,
    market: Market | None = None,
) -> LeadsDay:
    """Poisson leads per discovered group, source attribution, then conversion (eq 29; reference-notes §3.3-3.4).

    ``market``: the rivals of an arena (docs/arena.md A2-A5): saturation counts their
    subscribers too, an individual lead may go to a rival (``LeadsDay.to_rivals``) instead of
    converting here, and an enterprise lead also approaches the rivals it knows.

    Prospects are drawn and evaluated with the start-of-day caches (reference-notes §1.2 step 3):
    the delivered quality ``delivered``, the quality shift ``q_shift`` and the budget drift
    ``c_drift`` of each group.

    With ``fixes.enterprise_market_finite`` a group's realised prospects never exceed its open
    market (``open_market``), so the enterprise market cap holds across days; the Poisson draw is
    cut to it (for an individual group, to the day's cap, which binds only on a day its lambda
    sits at the cap). Without it (the engine, and runs recorded before the flag) only lambda is
    capped, at the day's market cap, and the draw is used as it comes.
    """
    room = open_market(state, params, state.day)
    market_counts = None if market is None else counts + market.rival_counts()
    lam, channel, network = expected_leads(state, params, counts, social, surge, room, market_counts)
    leads = rng_leads.poisson(lam)
    if state.config.fixes.enterprise_market_finite:
        leads = np.minimum(leads, room.astype(np.int64))
    channel_leads = np.zeros((params.n_groups, N_CHANNELS), dtype=np.int64)
    new_subs, lost, ent_leads = [], [], []
    dropped_quota = np.zeros(params.n_groups, dtype=np.int64)
    dropped_quality = np.zeros(params.n_groups, dtype=np.int64)
    to_rivals: Moved = []
    # each group's channel split (the leads stream) and its prospects' own draws (the group's stream), in
    # group order; then every prospect of the day in one pass (sampling.prospects)
    groups = np.flatnonzero(leads)
    sources = []
    for g in groups:
        weights = np.append(channel[g], network[g])
        total = weights.sum()
        if total > 0:
            split = rng_leads.multinomial(int(leads[g]), weights / total)
            channel_leads[g] = split[:N_CHANNELS]
            by_source = np.repeat(np.arange(N_CHANNELS + 1), split)
            by_source[by_source == N_CHANNELS] = SOURCE_NETWORK
            sources.append(by_source)
        else:
            sources.append(np.full(int(leads[g]), SOURCE_ORGANIC))
    row_groups = np.repeat(groups, leads[groups])
    block = np.concatenate([draw_prospects(group_streams[g], int(leads[g])) for g in groups] or [np.empty((0, 16))])
    day_cols = prospects(state, params, row_groups, block, q_shift=q_shift[row_groups], c_drift=c_drift[row_groups])
    day_cols["source"] = np.concatenate(sources or [np.empty(0, dtype=np.int64)])
    ends = np.cumsum(leads[groups])
    for g, end in zip(groups, ends, strict=True):
        first = end - int(leads[g])
        cols = {k: v[first:end] for k, v in day_cols.items()}
        prefs = lead_preferences(state, cols, q_shift=q_shift[g], c_drift=c_drift[g])
        if params.is_ent[g]:
            gated = enterprise_gate(state, int(g), cols, prefs, delivered)
            ent_leads.append(gated.leads)
            if market is not None:
                to_rivals += tenders(state, market, int(g), gated.leads)
            dropped_quota[g], dropped_quality[g] = gated.dropped_quota, gated.dropped_quality
        else:
            if market is not None:
                cols, prefs = _to_rivals(state, market, int(g), delivered, cols, prefs, to_rivals)
            subs, gone = convert_individuals(state, params, rng_conversion, int(g), cols, prefs, delivered)
            new_subs.append(subs)
            lost.append(gone)
    empty = np.empty(0, dtype=np.int64)
    return LeadsDay(
        leads=leads,
        channel_leads=channel_leads,
        new_subscribers=np.concatenate(new_subs) if new_subs else empty,
        lost=np.concatenate(lost) if lost else empty,
        enterprise_leads=np.concatenate(ent_leads) if ent_leads else empty,
        expected=lam,
        dropped_quota=dropped_quota,
        dropped_quality=dropped_quality,
        to_rivals=to_rivals,
    )


def _to_rivals(
    state: WorldState,
    market: Market,
    group: int,
    delivered: np.ndarray,
    cols: dict[str, np.ndarray],
    prefs: tuple[np.ndarray, np.ndarray, np.ndarray],
    out: Moved,
) -> tuple[dict[str, np.ndarray], tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Send the leads that prefer a rival there (docs/arena.md A3); the columns and preferences
    of those who stay."""
    choice = shop(state, market, group, delivered, cols, prefs)
    out += market.send(choice, group, cols, "lead")
    stay = choice < 0
    kept = (prefs[0][stay], prefs[1][stay], prefs[2][stay])
    return {k: v[stay] for k, v in cols.items()}, kept


def lead_preferences(
    state: WorldState, cols: dict[str, np.ndarray], *, q_shift: float, c_drift: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Budget, q_min and q_max a new lead evaluates with: its values at creation incl. the group's
    start-of-day drift ``q_shift`` and ``c_drift`` (reference-notes §4.7), which the engine's
    columns already hold (``sample_customers``)."""
    floor = state.config.sampling.c_max_floor
    if state.config.fixes.drift_counted_once:
        shift = q_shift
        c_max = np.maximum(floor, cols["c_max"] + c_drift)
    else:
        shift, c_max = 0.0, cols["c_max"]
    return c_max, cols["q_min"] + shift, cols["q_max"] + shift


def offered_quality(state: WorldState, group: int, demand: np.ndarray, delivered: np.ndarray) -> np.ndarray:
    """Del_{g,p} F(quota_p, u seats) for each plan, shape [n, 3] (reference-notes §3.4), the plans broadcast
    as columns."""
    return delivered[group] * quota_factor(state.settings.quotas, demand[:, None])


def convert_individuals(
    state: WorldState,
    params: Params,
    rng: np.random.Generator,
    group: int,
    cols: dict[str, np.ndarray],
    prefs: tuple[np.ndarray, np.ndarray, np.ndarray],
    delivered: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Each lead picks the plan with the largest positive surplus (else A) and subscribes if
    C <= c_max and q U(0.8, 1.1) >= Q_req(C) (reference-notes §3.4, eq 6); ``prefs`` is the
    leads' (c_max, q_min, q_max) from ``lead_preferences``."""
    cfg = state.config
    n = len(cols["group"])
    c_max = prefs[0]
    lead_promo = lead_promotion(state.settings, group, cols["source"])
    price, quality, req, surplus = lead_offer(state.settings, delivered[group], lead_promo, cols, prefs, cfg.curve)
    best = np.where(surplus.max(axis=1) > 0, surplus.argmax(axis=1), 0)
    rows = np.arange(n)
    noise = rng.uniform(*cfg.quality.lead_noise, n)
    accept = (price[rows, best] <= c_max) & (quality[rows, best] * noise >= req[rows, best])

    idx = state.customers.append(n, cols)
    subs, gone = idx[accept], idx[~accept]
    cust = state.customers
    cust.status[gone] = LOST
    plan = best[accept]
    cust.status[subs] = SUBSCRIBED
    cust.plan[subs] = plan
    list_price = state.settings.prices[plan]
    first_promo = lead_promo[accept] + ongoing_promotion(state.settings, subs, np.full(len(subs), group), plan)
    cust.listed_price[subs] = list_price
    cust.first_promotion[subs] = first_promo
    cust.promotion[subs] = first_promo
    cust.effective_price[subs] = np.maximum(0.0, list_price - first_promo)
    cust.start_day[subs] = state.day
    cust.billing_mod[subs] = state.day % 30
    cust.usage_rate[subs] = draw_usage_rate(
        rng, cust.usage_demand[subs], np.ones(len(subs)), cfg.usage.rate_sd_fraction
    )
    return subs, gone


@dataclass
class Gate:
    """The enterprise gate's outcome for one group's prospects of a day."""

    leads: np.ndarray  # customer indices that became leads
    dropped_quota: int  # dropped, but some plan would pass with a quota covering usage x seats
    dropped_quality: int  # dropped: no plan passes even with an unlimited quota


def enterprise_gate(
    state: WorldState,
    group: int,
    cols: dict[str, np.ndarray],
    prefs: tuple[np.ndarray, np.ndarray, np.ndarray],
    delivered: np.ndarray,
) -> Gate:
    """An enterprise prospect becomes a lead if some plan's quality Del_{g,p} F(quota_p, u seats) clears
    Q_req(0) (reference-notes §3.4); otherwise it is dropped (a customer row with no subscription).

    The engine drops prospects silently; here the drops are counted by cause so the world can tell
    the agent (docs/ceo-seat.md, "Enterprise deals"): ``quota`` when some plan's delivered quality
    alone would clear the bar but the quota it grants is below the firm's daily usage x seats,
    ``quality`` when no plan would clear it even with an unlimited quota.

    With ``fixes.enterprise_gate_as_negotiation`` the quality gets the negotiation's clip to
    [-1, 1] and the firm's sticky impression noise U(0.8, 1.1) (``negotiation_quality``;
    reference-notes §4.7); the engine reads Del F unclipped and without noise, and so admits leads
    whose negotiation quality is below Q_req(0) from their first day (docs/calibration.md,
    "Enterprise acceptance curve"). The gate still reads less than the negotiation does, so an
    admitted lead is not guaranteed a price: the negotiation adds the relationship bonus
    0.9 (r - 0.5) (0 at a new lead's r = 0.5, negative once late replies cost goodwill),
    subtracts the in-product ad penalty and the open-issue penalty, reads F = 1 for a lead (the
    gate reads the quota against usage x seats), and reads the drifted c_max and quality band of
    the day of each reply (the gate, those of the day the lead arrives). A lead whose negotiation
    quality is below Q_req(0) on a reply day gets a decline (``fixes.enterprise_decline_says_so``)
    or, in the engine, a ghost.
    """
    cfg = state.config
    c_max, q_min, q_max = prefs
    quality = offered_quality(state, group, cols["usage_demand"] * cols["seats"], delivered)
    unlimited_quality = np.broadcast_to(delivered[group][None, :], quality.shape)
    if cfg.fixes.enterprise_gate_as_negotiation:
        noise = cols["deal_noise"][:, None]
        quality = np.clip(quality, -1.0, 1.0) * noise
        unlimited_quality = np.clip(unlimited_quality, -1.0, 1.0) * noise
    floor = required_quality(np.zeros(len(c_max)), c_max, q_min, q_max, cols["s_left"], cols["s_right"], cfg.curve)
    gate = (quality >= floor[:, None]).any(axis=1)
    unlimited = (unlimited_quality >= floor[:, None]).any(axis=1)
    idx = state.customers.append(len(c_max), cols)
    leads = idx[gate]
    state.customers.status[leads] = LEAD
    state.customers.billing_mod[leads] = state.day % 30
    return Gate(leads, int((~gate & unlimited).sum()), int((~gate & ~unlimited).sum()))

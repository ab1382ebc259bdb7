"""Lead generation and conversion (eq 28-29; reference-notes §2.6, §3.2-3.4)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

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
from bizbench.envs.ceo.world.offer import best_plan, lead_offer
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
    # each group's channel split (the leads stream) and its prospects' own draws (the group's stream), in
    # group order; then every prospect of the day in one pass (sampling.prospects), and in one admission
    # (``admit``) unless rivals shop
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
    row_q_shift, row_c_drift = q_shift[row_groups], c_drift[row_groups]
    day_cols = prospects(state, params, row_groups, block, q_shift=row_q_shift, c_drift=row_c_drift)
    day_cols["source"] = np.concatenate(sources or [np.empty(0, dtype=np.int64)])
    to_rivals: Moved = []
    if not len(row_groups):
        admitted = Admission.none(params)
    elif market is None:  # every prospect of the day at once
        prefs = lead_preferences(state, day_cols, q_shift=row_q_shift, c_drift=row_c_drift)
        admitted = admit(state, params, rng_conversion, day_cols, prefs, delivered)
    else:  # group by group: a group's leads shop among the rivals, and its tenders read its admitted rows
        parts: list[Admission] = []
        for g, end in zip(groups, np.cumsum(leads[groups]), strict=True):
            cols = {k: v[end - int(leads[g]) : end] for k, v in day_cols.items()}
            prefs = lead_preferences(state, cols, q_shift=q_shift[g], c_drift=c_drift[g])
            parts.append(
                _admit_in_market(state, params, rng_conversion, market, int(g), delivered, cols, prefs, to_rivals)
            )
        admitted = Admission.combined(parts)
    return LeadsDay(
        leads=leads,
        channel_leads=channel_leads,
        new_subscribers=admitted.subscribers,
        lost=admitted.lost,
        enterprise_leads=admitted.leads,
        expected=lam,
        dropped_quota=admitted.dropped_quota,
        dropped_quality=admitted.dropped_quality,
        to_rivals=to_rivals,
    )


def _admit_in_market(
    state: WorldState,
    params: Params,
    rng: np.random.Generator,
    market: Market,
    group: int,
    delivered: np.ndarray,
    cols: dict[str, np.ndarray],
    prefs: tuple[np.ndarray, np.ndarray, np.ndarray],
    out: Moved,
) -> Admission:
    """One group's prospects of the day in an arena (docs/arena.md): individual leads that prefer a
    rival go there (A3) and the others are admitted here; the enterprise leads admitted here also
    approach the rivals they know (A5)."""
    if params.is_ent[group]:
        admitted = admit(state, params, rng, cols, prefs, delivered)
        out += tenders(state, market, group, admitted.leads)
        return admitted
    choice = shop(state, market, group, delivered, cols, prefs)
    out += market.send(choice, group, cols, "lead")
    return admit(state, params, rng, *_select(cols, prefs, choice < 0), delivered)


def lead_preferences(
    state: WorldState, cols: dict[str, np.ndarray], *, q_shift: float | np.ndarray, c_drift: float | np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Budget, q_min and q_max a new lead evaluates with: its values at creation incl. the group's
    start-of-day drift ``q_shift`` and ``c_drift`` (reference-notes §4.7; one group's, or each lead's),
    which the engine's columns already hold (``sample_customers``)."""
    floor = state.config.sampling.c_max_floor
    if state.config.fixes.drift_counted_once:
        shift = q_shift
        c_max = np.maximum(floor, cols["c_max"] + c_drift)
    else:
        shift, c_max = 0.0, cols["c_max"]
    return c_max, cols["q_min"] + shift, cols["q_max"] + shift


def offered_quality(state: WorldState, demand: np.ndarray, delivered_rows: np.ndarray) -> np.ndarray:
    """Del_{g,p} F(quota_p, u seats) for each plan, shape [n, 3] (reference-notes §3.4), the plans as
    columns; ``delivered_rows``: each prospect's group's row of the delivered quality Del."""
    return delivered_rows * quota_factor(state.settings.quotas, demand[:, None])


class Conversion(NamedTuple):
    """The individual leads' decisions (``convert_individuals``)."""

    accepted: np.ndarray  # per lead: it subscribes
    plan: np.ndarray  # of each lead that subscribes
    lead_promotion: np.ndarray  # of each lead that subscribes
    usage_rate: np.ndarray  # of each lead that subscribes


def _group_runs(groups: np.ndarray) -> list[slice]:
    """The runs of equal consecutive values of ``groups``: each group's rows of a day's prospects (which
    ``generate_leads`` draws group after group, so a group's rows are one run)."""
    cuts = np.flatnonzero(groups[1:] != groups[:-1]) + 1
    bounds = [0, *cuts.tolist(), len(groups)]
    return [slice(a, b) for a, b in zip(bounds[:-1], bounds[1:], strict=True) if b > a]


def convert_individuals(
    state: WorldState,
    rng: np.random.Generator,
    cols: dict[str, np.ndarray],
    prefs: tuple[np.ndarray, np.ndarray, np.ndarray],
    delivered: np.ndarray,
) -> Conversion:
    """Each lead picks the plan with the largest positive surplus (else A) and subscribes if
    C <= c_max and q U(0.8, 1.1) >= Q_req(C) (reference-notes §3.4, eq 6); a subscriber's usage
    rate is drawn at signup (reference-notes §4.3). ``prefs`` is the leads' (c_max, q_min, q_max)
    from ``lead_preferences``. The terms are read for every lead at once; the draws are each
    group's in turn (its noise, then its subscribers' rates), in the order of ``cols["group"]``."""
    cfg = state.config
    groups = cols["group"]
    lead_promo = lead_promotion(state.settings, groups, cols["source"])
    price, quality, req, surplus = lead_offer(state.settings, delivered[groups], lead_promo, cols, prefs, cfg.curve)
    plan, top = best_plan(surplus)
    best = np.where(top > 0, plan, 0)
    rows = np.arange(len(groups))
    affordable, best_quality, best_required = price[rows, best] <= prefs[0], quality[rows, best], req[rows, best]
    accepted = np.zeros(len(groups), dtype=bool)
    rates = [np.empty(0)]
    for run in _group_runs(groups):
        noise = rng.uniform(*cfg.quality.lead_noise, run.stop - run.start)
        accepted[run] = affordable[run] & (best_quality[run] * noise >= best_required[run])
        demand = cols["usage_demand"][run][accepted[run]]
        rates.append(draw_usage_rate(rng, demand, np.ones(len(demand)), cfg.usage.rate_sd_fraction))
    return Conversion(accepted, best[accepted], lead_promo[accepted], np.concatenate(rates))


class Gate(NamedTuple):
    """The enterprise gate's outcome for each prospect (``enterprise_gate``)."""

    admitted: np.ndarray  # it becomes a lead
    dropped_quota: np.ndarray  # dropped, but some plan would pass with a quota covering usage x seats
    dropped_quality: np.ndarray  # dropped: no plan passes even with an unlimited quota


def enterprise_gate(
    state: WorldState,
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
    delivered_rows = delivered[cols["group"]]
    quality = offered_quality(state, cols["usage_demand"] * cols["seats"], delivered_rows)
    unlimited_quality = delivered_rows
    if cfg.fixes.enterprise_gate_as_negotiation:
        noise = cols["deal_noise"][:, None]
        quality = np.clip(quality, -1.0, 1.0) * noise
        unlimited_quality = np.clip(unlimited_quality, -1.0, 1.0) * noise
    floor = required_quality(np.zeros(len(c_max)), c_max, q_min, q_max, cols["s_left"], cols["s_right"], cfg.curve)
    gate: np.ndarray = np.any(quality >= floor[:, None], axis=1)
    unlimited: np.ndarray = np.any(unlimited_quality >= floor[:, None], axis=1)
    return Gate(gate, ~gate & unlimited, ~gate & ~unlimited)


@dataclass
class Admission:
    """Prospects as rows of the customer table (``admit``)."""

    subscribers: np.ndarray  # individual leads that subscribed
    lost: np.ndarray  # individual leads that did not
    leads: np.ndarray  # enterprise prospects that became leads (each needs a thread)
    dropped_quota: np.ndarray  # per group: enterprise prospects the gate dropped for the quota
    dropped_quality: np.ndarray  # per group: enterprise prospects the gate dropped for the quality

    @classmethod
    def none(cls, params: Params) -> Admission:
        """A day with no prospect."""
        empty, per_group = np.empty(0, dtype=np.int64), np.zeros(params.n_groups, dtype=np.int64)
        return cls(empty, empty, empty, per_group, per_group.copy())

    @classmethod
    def combined(cls, parts: list[Admission]) -> Admission:
        """Admissions of successive appends, as one (their rows in order, their drops added)."""
        return cls(
            np.concatenate([a.subscribers for a in parts]),
            np.concatenate([a.lost for a in parts]),
            np.concatenate([a.leads for a in parts]),
            np.sum([a.dropped_quota for a in parts], axis=0),
            np.sum([a.dropped_quality for a in parts], axis=0),
        )


def admit(
    state: WorldState,
    params: Params,
    rng: np.random.Generator | None,
    cols: dict[str, np.ndarray],
    prefs: tuple[np.ndarray, np.ndarray, np.ndarray],
    delivered: np.ndarray,
) -> Admission:
    """Append prospects ``cols`` (each group's rows together) to the customer table, each as what it
    became: an individual lead converted (``convert_individuals``: subscribed at its plan's price after
    its first promotion, eq 7, or lost) or an enterprise prospect through the gate
    (``enterprise_gate``: a lead, or a row with no subscription). ``prefs``: their (c_max, q_min,
    q_max) from ``lead_preferences``; ``rng``: the conversion draws' stream, which only individual
    leads need (None for firms only: no stream is created for them)."""
    firm = params.is_ent[cols["group"]]
    if rng is None and not firm.all():
        raise ValueError("individual leads need the conversion stream")
    rows = state.customers.append(len(firm), cols)
    person = ~firm
    people = rows[person]
    subscribers, lost = (
        (people, people) if rng is None else _convert(state, rng, people, *_select(cols, prefs, person), delivered)
    )
    leads, dropped_quota, dropped_quality = _gate(state, params, rows[firm], *_select(cols, prefs, firm), delivered)
    return Admission(subscribers, lost, leads, dropped_quota, dropped_quality)


def _convert(
    state: WorldState,
    rng: np.random.Generator,
    rows: np.ndarray,
    cols: dict[str, np.ndarray],
    prefs: tuple[np.ndarray, np.ndarray, np.ndarray],
    delivered: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Individual leads appended as ``rows``: each subscriber's plan, price after its first promotion
    (eq 7), start day, billing anchor and usage rate, the others lost; returns (subscribers, lost)."""
    if not len(rows):
        return rows, rows
    cust, s, day = state.customers, state.settings, state.day
    decided = convert_individuals(state, rng, cols, prefs, delivered)
    subs, lost = rows[decided.accepted], rows[~decided.accepted]
    cust.status[lost] = LOST
    cust.status[subs] = SUBSCRIBED
    plan = decided.plan
    cust.plan[subs] = plan
    list_price = s.prices[plan]
    first_promo = decided.lead_promotion + ongoing_promotion(s, subs, cols["group"][decided.accepted], plan)
    cust.listed_price[subs] = list_price
    cust.first_promotion[subs] = first_promo
    cust.promotion[subs] = first_promo
    cust.effective_price[subs] = np.maximum(0.0, list_price - first_promo)
    cust.start_day[subs] = day
    cust.billing_mod[subs] = day % 30
    cust.usage_rate[subs] = decided.usage_rate
    return subs, lost


def _gate(
    state: WorldState,
    params: Params,
    rows: np.ndarray,
    cols: dict[str, np.ndarray],
    prefs: tuple[np.ndarray, np.ndarray, np.ndarray],
    delivered: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Enterprise prospects appended as ``rows``: those the gate admits become leads (billing anchor
    today); returns (leads, the drops per group for the quota, for the quality)."""
    dropped = np.zeros(params.n_groups, dtype=np.int64)
    if not len(rows):
        return rows, dropped, dropped.copy()
    gated = enterprise_gate(state, cols, prefs, delivered)
    leads = rows[gated.admitted]
    state.customers.status[leads] = LEAD
    state.customers.billing_mod[leads] = state.day % 30
    groups = cols["group"]
    return (
        leads,
        np.bincount(groups[gated.dropped_quota], minlength=params.n_groups),
        np.bincount(groups[gated.dropped_quality], minlength=params.n_groups),
    )


def _select(
    cols: dict[str, np.ndarray], prefs: tuple[np.ndarray, np.ndarray, np.ndarray], mask: np.ndarray
) -> tuple[dict[str, np.ndarray], tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """The prospects of ``mask``: their columns and their preferences (the same arrays when it takes every
    prospect, as on a day of individual leads only)."""
    if mask.all():
        return cols, prefs
    return {k: v[mask] for k, v in cols.items()}, (prefs[0][mask], prefs[1][mask], prefs[2][mask])

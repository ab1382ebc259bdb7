"""Upper-bound final-cash estimate of CEO-Bench, computed from a preset (paper Appendix D).

The paper (the CEO-Bench paper, Appendix D) calibrates the benchmark's headroom with an
accounting estimate rather than a simulated strategy:

* eq 45  R = sum_g N_g p_g sum_{t in B} r_g(t)       revenue over billing days B = {30, ..., 480}
* eq 46  C_pre = C_0 + R - K                          K = every modelled cost (Table 5 rows)
* eq 47  C_reported = F C_pre                         friction F = 0.49
* eq 48  T_g^(0) = 5000 [exp(Delta_g / (0.7 A_g 0.0225)) - 1],  T_g = 3 T_g^(0)
* eq 49  r_g(t) = Phi((m [q_0 + q_shared(t) + b_g(t)] - d_g(t) - l(t) - mu_g) / sigma_g)

The paper prints only the result (Table 5: revenue $6.69B, costs $2,164.7M, pre-friction
$4,526.3M, reported $2.2B). :func:`estimate` recomputes every row from a :class:`CeoConfig`,
so a change to any preset value the accounting touches moves the estimate. Engine rules come
from docs/reference-notes.md (CEO-Bench part; section numbers below). The operating plan is the
paper's (T3 inference, T7 capacity, $40K/day global development, eq 48 targeted development
for every group, R&D tiers 1-10 on day 1, operations $500/day + $0.001 per subscriber,
F = 0.49); it is :class:`UpperBoundAssumptions`.

Documented choices (the paper does not spell them out):

* **N_g** (maximum attainable customers): the group's base market cap (reference-notes §2.3; no cap
  growth, as the paper's $1.93B individual revenue implies). Individual groups count
  accounts; enterprise groups count accounts x mean seats ``(seats_min + seats_max) / 2``.
  ``enterprise_seats="max"`` uses seats_max; that is what reproduces the paper's compute,
  operations and enterprise-revenue rows.
* **p_g** (maximum supportable price): ``price_fraction`` x the group mean c_max (monthly,
  per seat for enterprise). The curve's hard cap C <= c_max is ignored (about half of a
  group's sampled customers have c_max below the mean); that loss, involuntary churn's
  revenue gap, macro WTP and negotiation discounts are what the friction F stands for.
* **mu_g, sigma_g** (eq 49): the participation curve (reference-notes §4.2) at x = p_g / c_max_mu with
  the group's mean q_min and q_range, averaged over the steepness distributions of ref
  §2.1: mu_g = q_min_mu + share(x) q_range_mu, sigma_g = sqrt(q_min_sd^2 +
  share(x)^2 q_range_sd^2). At x = 1 the share is ~0.9995, so mu_g ~ q_max.
* **Quality and drift paths** (reference-notes §1.2 order, §4.16, §4.17, §4.19, §4.20) are expected
  values, day by day: shared quality gains the deterministic global-dev term and each R&D
  tier's expected gain E[max(0.001, N)] on its expected completion day
  start + E[max(30, int N)]; competitor events fire with the mean-interval probability,
  min-interval blocking included; each event's boost is max(u H, ramp x clipped
  log-normal) averaged over u and the log-normal at the expected global bank H (mean
  field), so the adaptive catch-up turns most shared quality into global drift; every
  event adds kappa_g B to group drift and drains the targeted banks by E[v] H_g into it;
  group q-drift rates add every 30 days from day 90. d_g(t) = global + group q-drift (both
  shift q_min and q_max, reference-notes §4.17). Individual drift is per customer and left out, like
  the paper (``individual_drift=True`` scales mu_g, sigma_g by its compounded q_bias).
* **l(t)** = 0.08 E[overload] + 0.20 P(outage) at full retention (reference-notes §4.5), averaged over
  the weekly usage factors; constant in t.
* **Defaults** are ``targeted_sizing="retention"`` and ``enterprise_seats="max"``: together
  they keep r_g(t) ~ 1 for every group and billing day, as the paper's check states, and
  land within ~5 % of every large row of Table 5 (docs/calibration.md).
* **Targeted development**: ``targeted_sizing="eq48"`` is the paper's one-pass
  rule: Delta_g(t) is the bonus that lifts mean delivered quality to mu_g at billing day t
  given shared quality and drift without targeted spend, A(t) = t - 1 development days,
  T_g^(0) = the largest eq 48 spend over the late-run billing days (last third of B), and
  T_g = 3 T_g^(0). Because the engine drains ~5% of each targeted bank into group drift at
  every competitor event, this under-delivers late in the run (r_g(t) falls to ~0 for
  every group by day ~400 on the default preset). ``targeted_sizing="retention"`` instead
  solves, per group, the smallest daily spend with r_g(t) >= ``retention_target`` on every
  billing day (the paths are linear in the daily targeted gain). Spend runs from day 1 to
  the day before the last billing day.
* **Costs**: compute = full-retention usage x mean weekly factor x unit cost x horizon;
  capacity, global development and operations ($500 + $0.001 per subscriber, subscribers
  counted in N_g units, i.e. seats for enterprise) over the horizon; R&D = each started
  tier's cost once. Leads per account = integral_0^f dx / (1 - x^e) (saturation
  D = 1 - (N/cap)^e of reference-notes §3.3, filling f = 0.95 of the cap) plus one replacement per
  expected involuntary churn per billing cycle; every lead costs $0.50 (lead acquisition)
  and is bought at the group's best day-0 channel at the initial reputation and the mean
  calendar factors (advertising; free referral leads are not credited). Market research:
  n_discoverable / p attempts at $25K. Group research: one level-2 study per group.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np

from bizbench.envs.ceo.config import CeoConfig, GroupParams

# reference-notes §4.20: R&D duration max(30, int(N(mu, sd))) and gain max(0.001, N(mu, sd)); engine
# constants that the preset does not carry.
RND_MIN_DURATION_DAYS = 30
RND_MIN_GAIN = 0.001

# Deterministic quadrature: N(0, 1) on a grid, U(0, 1) on midpoints.
_Z = np.linspace(-8.0, 8.0, 1601)
_Z_W = np.exp(-0.5 * _Z**2)
_Z_W /= _Z_W.sum()
_U = (np.arange(4096) + 0.5) / 4096
_N_CATCHUP = 64  # midpoints of the catch-up fraction u ~ U(a, b)

TABLE5_LABELS: tuple[str, ...] = (
    "Subscription revenue",
    "Initial cash",
    "Compute",
    "Capacity",
    "Global development",
    "Targeted development",
    "R&D projects",
    "Advertising",
    "Lead acquisition",
    "Operations",
    "Market research",
    "Group research",
    "Total modeled costs",
    "Pre-friction ending cash subtotal",
    "Friction adjustment factor",
    "Estimated final cash upper bound",
)


@dataclass(frozen=True)
class UpperBoundAssumptions:
    """Operating plan of Appendix D "Parameter choices" plus the documented sizing rules."""

    model_tier: int = 3  # T3 inference for every plan: m = 0.90 (reference-notes §4.1)
    capacity_tier: int = 7  # T7 capacity (reference-notes §4.5)
    global_dev_per_day: float = 40_000.0
    targeted_sizing: Literal["eq48", "retention"] = "retention"
    targeted_multiplier: float = 3.0  # T_g = 3 T_g^(0) (eq 48)
    targeted_conversion: float = 0.7  # the 0.7 of eq 48
    eq48_days: Literal["late", "all"] = "late"  # billing days eq 48 must cover
    retention_target: float = 0.99  # r_g(t) floor when targeted_sizing="retention"
    rnd_tiers: tuple[int, ...] = tuple(range(1, 11))
    rnd_start_day: int = 1
    ops_base_per_day: float = 500.0
    ops_per_subscriber: float = 0.001
    friction: float = 0.49  # F of eq 47
    price_fraction: float = 1.0  # p_g = price_fraction x c_max_mu
    enterprise_seats: Literal["mean", "max"] = "max"
    saturation_fill: float = 0.95  # fraction of the cap the lead budget fills
    group_research_level: int = 2
    individual_drift: bool = False


@dataclass(frozen=True)
class GroupBound:
    """Per-group inputs and results of eq 45, 48 and 49."""

    id: str
    kind: str
    customers: float  # N_g (accounts, or seats for enterprise)
    price: float  # p_g, monthly (per seat for enterprise)
    threshold_mu: float  # mu_g
    threshold_sigma: float  # sigma_g
    required_bonus: float  # max_t Delta_g(t) (eq 48)
    targeted_per_day: float  # T_g ($/day)
    revenue: float  # N_g p_g sum_t r_g(t)
    retention_min: float  # min_t r_g(t)
    retention_mean: float


@dataclass(frozen=True)
class RetentionSummary:
    """Eq 49 over all groups and billing days."""

    min: float
    mean: float
    worst_group: str
    billing_days: tuple[int, ...]
    min_by_day: tuple[float, ...]  # min over groups of r_g(t), per billing day


@dataclass(frozen=True)
class UpperBound:
    """Table 5 of the paper, every dollar row recomputed from a preset (eq 45-47)."""

    subscription_revenue: float
    revenue_individual: float
    revenue_enterprise: float
    initial_cash: float
    compute: float
    capacity: float
    global_development: float
    targeted_development: float
    rnd_projects: float
    advertising: float
    lead_acquisition: float
    operations: float
    market_research: float
    group_research: float
    total_costs: float
    pre_friction: float
    friction: float
    reported: float
    retention: RetentionSummary
    usage_units_per_day: float
    service_penalty: float  # l(t)
    leads: float
    groups: tuple[GroupBound, ...]
    assumptions: UpperBoundAssumptions

    def rows(self) -> list[tuple[str, float]]:
        """Table 5 rows in the paper's order (dollars; the friction row is the factor F)."""
        values = (
            self.subscription_revenue,
            self.initial_cash,
            self.compute,
            self.capacity,
            self.global_development,
            self.targeted_development,
            self.rnd_projects,
            self.advertising,
            self.lead_acquisition,
            self.operations,
            self.market_research,
            self.group_research,
            self.total_costs,
            self.pre_friction,
            self.friction,
            self.reported,
        )
        return list(zip(TABLE5_LABELS, values, strict=True))

    def table(self) -> str:
        """Table 5 as text, amounts in $M."""
        lines = []
        for label, value in self.rows():
            if label == "Friction adjustment factor":
                text = f"x {value:.2f}"
            else:
                text = f"{value / 1e6:,.1f}"
            lines.append(f"{label:<36}{text:>12}")
        return "\n".join(lines)


@dataclass(frozen=True)
class _Paths:
    """Expected start-of-day state (index = day), as billing reads it on that day."""

    shared: np.ndarray  # q_shared(t)
    drift: np.ndarray  # [day, group] d_g(t) = global + group q-drift
    bonus: np.ndarray  # [day, group] b_g(t)


def _phi(x: np.ndarray) -> np.ndarray:
    """Standard normal CDF."""
    erf = np.vectorize(math.erf, otypes=[np.float64])
    return 0.5 * (1.0 + erf(np.asarray(x, dtype=np.float64) / math.sqrt(2.0)))


def _phi_inverse(p: float) -> float:
    """Standard normal quantile, by bisection."""
    lo, hi = -40.0, 40.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if 0.5 * (1.0 + math.erf(mid / math.sqrt(2.0))) < p else (lo, mid)
    return 0.5 * (lo + hi)


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.clip(z, -500.0, 500.0)))


def _steepness(scale: float, shift: float, bounds: tuple[float, float]) -> np.ndarray:
    """Quantile grid of clip(Exp(scale) + shift, lo, hi) (reference-notes §2.1)."""
    return np.clip(-scale * np.log1p(-_U) + shift, *bounds)


def _threshold_share(cfg: CeoConfig, x: float) -> float:
    """E over steepness of (Q_req - q_min) / q_range at price ratio x (reference-notes §4.2)."""
    if x > 1.0:
        return 1.0
    c, s = cfg.curve, cfg.sampling
    if x < c.split:
        s_left = _steepness(s.steep_left_scale, s.steep_left_shift, s.steep_left_bounds)
        return float(np.mean(0.5 * _sigmoid(c.k * s_left * (x - c.theta_left))))
    s_right = _steepness(s.steep_right_scale, s.steep_right_shift, s.steep_right_bounds)
    return float(np.mean(0.5 + 0.5 * _sigmoid(c.k * s_right * (x - c.theta_right))))


def _rnd_schedule(cfg: CeoConfig, a: UpperBoundAssumptions) -> dict[int, float]:
    """Expected completion day -> expected gain of the started tiers (reference-notes §4.20)."""
    done: dict[int, float] = {}
    for tier in a.rnd_tiers:
        spec = cfg.rnd_tiers[tier - 1]
        draws = spec.duration_mu + spec.duration_sd * _Z
        duration = float(_Z_W @ np.maximum(RND_MIN_DURATION_DAYS, np.trunc(draws)))
        gain = float(_Z_W @ np.maximum(RND_MIN_GAIN, spec.gain_mu + spec.gain_sd * _Z))
        day = a.rnd_start_day + math.ceil(duration)
        done[day] = done.get(day, 0.0) + gain
    return done


def _event_probability(cfg: CeoConfig) -> np.ndarray:
    """Expected number of competitor events on each day 0..horizon (reference-notes §4.16).

    An event fires with probability 1/interval unless one fired within the blocking window
    of ceil(min_interval) - 1 days; at most one event fits in that window, so the blocked
    probability is the sum of the window's daily probabilities.
    """
    c, total = cfg.competitor, cfg.horizon_days
    prob = np.zeros(total + 1)
    if not c.enabled:
        return prob
    for d in range(max(c.grace_days, 1), total - c.cutoff_days + 1):
        factor = c.early_multiplier if d < total // 2 else 1.0
        blocked = math.ceil(c.min_interval * factor) - 1
        recent = prob[max(d - blocked, 0) : d].sum() if blocked > 0 else 0.0
        prob[d] = min(1.0, 1.0 / (c.mean_interval * factor)) * (1.0 - recent)
    return prob


def _simulate(cfg: CeoConfig, a: UpperBoundAssumptions, target_gain: np.ndarray, last_dev_day: int) -> _Paths:
    """Expected quality and drift paths, one day at a time in engine order (reference-notes §1.2).

    Steps used: 3 (start-of-day cache), 6 (R&D completions), 8 (group drift), 11
    (competitor event: adaptive catch-up, kappa share, targeted drains), 13 (development).
    ``target_gain`` is each group's daily targeted-bonus gain on days 1..``last_dev_day``.
    The paths are linear in it: targeted banks never feed the global catch-up.
    """
    total, n = cfg.horizon_days, len(cfg.groups)
    q, c, dr = cfg.quality, cfg.competitor, cfg.drift
    kappa = np.array([g.kappa for g in cfg.groups])
    drift_q = np.array([g.drift_q for g in cfg.groups])
    dev_gain = 0.0
    if a.global_dev_per_day > 0:
        dev_gain = q.dev_beta * math.log1p(a.global_dev_per_day / q.dev_scale)
    rnd = _rnd_schedule(cfg, a)
    events = _event_probability(cfg)
    end = total - c.cutoff_days
    boost = np.clip(np.exp(c.boost_log_mu + c.boost_log_sigma * _Z), *c.boost_bounds)
    lo, hi = c.global_catchup
    u = lo + (hi - lo) * (np.arange(_N_CATCHUP) + 0.5) / _N_CATCHUP
    v_mean = 0.5 * (c.targeted_catchup[0] + c.targeted_catchup[1])

    shared = np.zeros(total + 2)
    drift = np.zeros((total + 2, n))
    bonus = np.zeros((total + 2, n))
    b_shared = bank = global_drift = 0.0
    group_drift, b_group, bank_group = np.zeros(n), np.zeros(n), np.zeros(n)
    for d in range(1, total + 2):
        shared[d], drift[d], bonus[d] = b_shared, global_drift + group_drift, b_group
        if d > total:
            break
        gain = rnd.get(d, 0.0)  # step 6
        b_shared += gain
        bank += gain
        if d % dr.period_days == 0 and d >= dr.first_day:  # step 8
            group_drift = group_drift + drift_q * dr.period_days
        if events[d] > 0:  # step 11: B = max(u H, ramped sample) (eq 34-36)
            ramp = 1.0 + c.ramp * min(max((d - 1) / max(end - 1, 1), 0.0), 1.0)
            sample = (boost * ramp)[None, :]
            feedback = (u * bank)[:, None]
            b_event = float(np.mean(np.maximum(feedback, sample) @ _Z_W))
            consumed = float(np.mean(np.where(feedback > sample, feedback, 0.0) @ _Z_W))
            drained = events[d] * v_mean * bank_group
            bank -= events[d] * consumed
            bank_group = bank_group - drained
            global_drift += events[d] * b_event
            group_drift = group_drift + drained + events[d] * kappa * b_event
        b_shared += dev_gain  # step 13
        bank += dev_gain
        if d <= last_dev_day:
            b_group = b_group + target_gain
            bank_group = bank_group + target_gain
    return _Paths(shared=shared, drift=drift, bonus=bonus)


def _fill_overhead(fill: float, exponent: float) -> float:
    """Leads per cap unit to reach fill x cap when a lead converts w.p. 1 - (N/cap)^e (§3.3)."""
    x = fill * _U
    return float(fill * np.mean(1.0 / (1.0 - x**exponent)))


def _seats(g: GroupParams, rule: str) -> float:
    if g.kind != "ENT":
        return 1.0
    return float(g.seats_max) if rule == "max" else 0.5 * (g.seats_min + g.seats_max)


def _targeted_spend(
    cfg: CeoConfig,
    a: UpperBoundAssumptions,
    billing: np.ndarray,
    delta: np.ndarray,
    need: np.ndarray,
    net_per_gain: np.ndarray,
) -> np.ndarray:
    """Daily targeted spend T_g per group (eq 48, or the retention-target solve).

    ``delta`` [billing day, group] is Delta_g(t); ``need`` the cushion targeted spend must
    add for r_g(t) = retention_target; ``net_per_gain`` [billing day, 1] the cushion one
    unit of daily targeted gain adds after its drain into group drift.
    """
    q = cfg.quality
    n = delta.shape[1]
    if len(billing) == 0:
        return np.zeros(n)
    if a.targeted_sizing == "eq48":
        dev_days = np.maximum(billing - 1, 1).astype(np.float64)[:, None]  # A(t)
        exponent = delta / (a.targeted_conversion * dev_days * q.target_beta)
        spend0 = q.target_scale * np.expm1(np.minimum(exponent, 700.0))
        rows = np.ones(len(billing), dtype=bool)
        if a.eq48_days == "late":
            rows = billing >= billing[-max(len(billing) // 3, 1)]
        return a.targeted_multiplier * np.max(spend0[rows], axis=0)
    with np.errstate(divide="ignore"):
        per_day = np.where(need <= 0, 0.0, np.where(net_per_gain > 0, need / net_per_gain, np.inf))
    gain = np.max(per_day, axis=0)
    return q.target_scale * np.expm1(np.minimum(gain / q.target_beta, 700.0))


def estimate(config: CeoConfig, assumptions: UpperBoundAssumptions | None = None) -> UpperBound:
    """Appendix D estimate from a preset: eq 48 sizing, eq 49 retention, eq 45-47, Table 5.

    Steps: (1) expected quality and drift paths without targeted spend, and the response to
    one unit of daily targeted gain; (2) eq 48 sizes each group's daily targeted spend
    T_g = 3 T_g^(0) (or the retention-target solve); (3) eq 49 gives r_g(t) on the billing
    days with that spend, its bank drains included; (4) eq 45 revenue, the Table 5 cost
    rows, eq 46 C_pre = C_0 + R - K and eq 47 C_reported = F C_pre.
    """
    a = assumptions or UpperBoundAssumptions()
    cfg = config
    groups = cfg.groups
    n = len(groups)
    total = cfg.horizon_days
    is_ent = np.array([g.kind == "ENT" for g in groups])
    tier = cfg.model_tiers[a.model_tier - 1]
    cap_tier = cfg.capacity_tiers[a.capacity_tier]
    m, q0 = tier.quality, cfg.quality.base
    billing = np.arange(cfg.enterprise.contract_days, total + 1, cfg.enterprise.contract_days)

    # N_g, p_g (eq 45) and the threshold distribution (mu_g, sigma_g) of eq 49.
    accounts = np.array([g.base_cap for g in groups])
    customers = accounts * np.array([_seats(g, a.enterprise_seats) for g in groups])
    price = a.price_fraction * np.array([g.c_max_mu for g in groups])
    share = _threshold_share(cfg, a.price_fraction)
    mu = np.array([g.q_min_mu + share * g.q_range_mu for g in groups])
    sigma = np.array([math.hypot(g.q_min_sd, share * g.q_range_sd) for g in groups])
    scale = np.ones((len(billing), n))
    if a.individual_drift:
        dr = cfg.drift
        first = -(-dr.first_day // dr.period_days) * dr.period_days  # first drift day
        applied = np.array([len(range(first, t + 1, dr.period_days)) for t in billing])
        rate = np.array([g.indiv_drift.q_bias for g in groups])
        scale = (1.0 + rate[None, :]) ** (dr.period_days * applied[:, None])
    mu_t, sigma_t = mu[None, :] * scale, sigma[None, :] * scale

    # Full-retention load and the service penalty l(t) (reference-notes §4.3, §4.5).
    units = float(customers @ np.array([g.usage_mu for g in groups]))
    weekly = np.array(cfg.usage.weekly_factors)
    svc = cfg.service
    overload = np.maximum(units * weekly / cap_tier.capacity - 1.0, 0.0)
    ops_per_day = a.ops_base_per_day + a.ops_per_subscriber * float(customers.sum())
    outage = max(svc.outage_floor, svc.outage_base * math.exp(-ops_per_day / svc.outage_ops_scale))
    penalty = float(
        np.mean(
            cfg.quality.overload_penalty * overload
            + cfg.quality.outage_penalty * outage * (1.0 + svc.outage_overload_factor * overload)
        )
    )

    # Expected paths; linear in the daily targeted gain g_g: b_g(t) = g_g x unit_bonus(t),
    # and g_g x unit_drain(t) of it has been drained into group drift.
    last_dev_day = int(billing[-1]) - 1 if len(billing) else 0
    base = _simulate(cfg, a, np.zeros(n), last_dev_day)
    unit = _simulate(cfg, a, np.ones(n), last_dev_day)
    shared = base.shared[billing][:, None]
    drift0 = base.drift[billing]
    unit_bonus = unit.bonus[billing][:, :1]
    unit_drain = (unit.drift - base.drift)[billing][:, :1]

    # Eq 48 sizing, then eq 49 with the chosen spend.
    delta = np.maximum((mu_t + drift0 + penalty) / m - q0 - shared, 0.0)
    need = _phi_inverse(a.retention_target) * sigma_t + mu_t + drift0 + penalty - m * (q0 + shared)
    targeted = _targeted_spend(cfg, a, billing, delta, need, m * unit_bonus - unit_drain)
    q = cfg.quality
    gain = np.where(targeted > 0, q.target_beta * np.log1p(targeted / q.target_scale), 0.0)
    cushion = m * (q0 + shared + gain * unit_bonus) - (drift0 + gain * unit_drain) - penalty - mu_t
    retention = _phi(cushion / sigma_t)

    # Eq 45.
    group_revenue = customers * price * retention.sum(axis=0)
    revenue = float(group_revenue.sum())

    # Table 5 cost rows.
    compute = units * float(weekly.mean()) * tier.cost_per_unit * total
    capacity = cap_tier.cost_per_day * total
    global_dev = a.global_dev_per_day * total
    targeted_dev = float(targeted.sum()) * last_dev_day
    rnd_cost = float(sum(cfg.rnd_tiers[t - 1].cost for t in a.rnd_tiers))
    operations = ops_per_day * total
    acq = cfg.acquisition
    invol = np.array([g.invol_churn_mu for g in groups])
    churns = ~is_ent | cfg.fixes.enterprise_involuntary_churn
    leads = accounts * (
        _fill_overhead(a.saturation_fill, acq.saturation_exponent) + np.where(churns, invol * len(billing), 0.0)
    )
    best = np.array([max(g.channel_leads.values()) for g in groups])
    if np.any(best <= 0):
        raise ValueError("every group needs a channel with positive leads per $1,000")
    monthly = (3 * acq.monthly_factor_start + 3 * acq.monthly_factor_end + 24) / 30.0
    per_lead = acq.ad_reference_spend / (best * cfg.reputation.initial * weekly.mean() * monthly)
    advertising = float(leads @ per_lead)
    lead_cost = float(leads.sum()) * acq.lead_cost
    r = cfg.research
    market = sum(g.discoverable for g in groups) / r.market_success_prob * r.market_cost
    level_cost = {lv.level: lv.cost for lv in r.levels}[a.group_research_level]
    group_research = level_cost * n

    total_costs = (
        compute
        + capacity
        + global_dev
        + targeted_dev
        + rnd_cost
        + advertising
        + lead_cost
        + operations
        + market
        + group_research
    )
    pre = cfg.start_cash + revenue - total_costs  # eq 46

    has_billing = len(billing) > 0
    per_group = tuple(
        GroupBound(
            id=g.id,
            kind=g.kind,
            customers=float(customers[i]),
            price=float(price[i]),
            threshold_mu=float(mu[i]),
            threshold_sigma=float(sigma[i]),
            required_bonus=float(delta[:, i].max()) if has_billing else 0.0,
            targeted_per_day=float(targeted[i]),
            revenue=float(group_revenue[i]),
            retention_min=float(retention[:, i].min()) if has_billing else 1.0,
            retention_mean=float(retention[:, i].mean()) if has_billing else 1.0,
        )
        for i, g in enumerate(groups)
    )
    worst = min(per_group, key=lambda g: g.retention_min)
    return UpperBound(
        subscription_revenue=revenue,
        revenue_individual=float(group_revenue[~is_ent].sum()),
        revenue_enterprise=float(group_revenue[is_ent].sum()),
        initial_cash=cfg.start_cash,
        compute=compute,
        capacity=capacity,
        global_development=global_dev,
        targeted_development=targeted_dev,
        rnd_projects=rnd_cost,
        advertising=advertising,
        lead_acquisition=lead_cost,
        operations=operations,
        market_research=market,
        group_research=group_research,
        total_costs=total_costs,
        pre_friction=pre,
        friction=a.friction,
        reported=a.friction * pre,  # eq 47
        retention=RetentionSummary(
            min=worst.retention_min,
            mean=float(retention.mean()) if has_billing else 1.0,
            worst_group=worst.id,
            billing_days=tuple(int(t) for t in billing),
            min_by_day=tuple(float(x) for x in retention.min(axis=1, initial=1.0)),
        ),
        usage_units_per_day=units,
        service_penalty=penalty,
        leads=float(leads.sum()),
        groups=per_group,
        assumptions=a,
    )

"""Typed configuration of the NovaMind (CEO-Bench) world.

Every constant of the simulation lives in a preset TOML file (``presets/*.toml``) and is
validated by these pydantic models (docs/principles.md principle 5). Field docstrings name the
paper equation (the CEO-Bench paper, Appendix A) or the reference section
(docs/reference-notes.md, CEO-Bench part) that the value comes from; the TOML files carry the
values and their sources.
"""

from __future__ import annotations

import math
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

PLANS: tuple[str, ...] = ("A", "B", "C")
CHANNELS: tuple[str, ...] = (
    "social_media",
    "search_ads",
    "linkedin",
    "content_marketing",
    "referral_program",
)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


class IndividualDrift(_Strict):
    """Per-day individual drift rates, compounded over 30 days (reference-notes §2.5, §4.17)."""

    c_max: float = 0.0
    q_bias: float = 0.0
    steepness_left: float = 0.0
    seat_count: float = 0.0


class GroupParams(_Strict):
    """One customer group (reference-notes §2.2-2.5; paper eq 4 sampling distributions)."""

    id: str
    name: str
    kind: Literal["IND", "ENT"]
    discoverable: bool
    q_min_mu: float
    q_min_sd: float
    q_range_mu: float
    q_range_sd: float
    c_max_mu: float
    c_max_sd: float
    usage_mu: float
    usage_sd: float
    base_cap: float
    cap_growth: float
    seats_min: int = 1
    seats_max: int = 1
    invol_churn_mu: float
    invol_churn_sd: float
    lockin_mu: float
    lockin_sd: float
    ads_q_sens_mu: float
    ads_q_sens_sd: float
    ads_rev_sens_mu: float
    ads_rev_sens_sd: float
    negotiation_rate_mu: float = 0.3
    negotiation_rate_sd: float = 0.1
    reply_delay_mu: float = 5.0
    reply_delay_sd: float = 2.0
    max_turns_mu: float = 2.0
    max_turns_sd: float = 1.0
    beta_lead: float = 0.0
    beta_wtp: float = 0.0
    beta_deal: float = 0.0
    beta_seat: float = 0.0
    kappa: float = 0.0
    drift_q: float = 0.0
    drift_c: float = 0.0
    indiv_drift: IndividualDrift = IndividualDrift()
    influencer: bool = False
    channel_leads: dict[str, float]

    @model_validator(mode="after")
    def _check(self) -> GroupParams:
        if set(self.channel_leads) != set(CHANNELS):
            raise ValueError(f"group {self.id}: channel_leads must have keys {CHANNELS}")
        if self.seats_min < 1 or self.seats_max < self.seats_min:
            raise ValueError(f"group {self.id}: need 1 <= seats_min <= seats_max")
        return self


class ModelTier(_Strict):
    """Model tier: cost per usage unit and quality multiplier m (reference-notes §4.1)."""

    cost_per_unit: float = Field(ge=0)
    quality: float = Field(gt=0)


class CapacityTier(_Strict):
    """Capacity tier: units/day and fixed cost per day (reference-notes §4.5, eq 9)."""

    capacity: float = Field(gt=0)
    cost_per_day: float = Field(ge=0)


class RndTier(_Strict):
    """R&D tier (reference-notes Appendix A3, eq 12)."""

    name: str
    cost: float = Field(gt=0)
    duration_mu: float
    duration_sd: float
    gain_mu: float
    gain_sd: float


class CustomerSampling(_Strict):
    """Group-independent sampling rules (reference-notes §2.1, eq 4)."""

    steep_left_scale: float = 1.0
    steep_left_shift: float = 0.2
    steep_left_bounds: tuple[float, float] = (0.2, 6.0)
    steep_right_scale: float = 2.0
    steep_right_shift: float = 0.8
    steep_right_bounds: tuple[float, float] = (0.5, 7.0)
    c_max_sd_scale: float = 1.2
    c_max_floor: float = 15.0
    param_floor: float = 1e-4
    usage_floor: float = 1.0
    offer_factor_mu: float = 0.75
    offer_factor_sd: float = 0.05
    offer_factor_bounds: tuple[float, float] = (0.5, 0.95)
    min_max_turns: int = 2
    reply_delay_floor: float = 0.5
    reply_sd_floor: float = 0.1
    negotiation_rate_bounds: tuple[float, float] = (0.05, 0.8)


class Curve(_Strict):
    """Participation curve Q_req (eq 5; engine form: piecewise two-sigmoid, reference-notes §4.2)."""

    k: float = 10.0
    theta_left: float = 0.25
    theta_right: float = 0.75
    split: float = 0.5
    counter_bisection_steps: int = 50


class Quality(_Strict):
    """Delivered and perceived quality (eq 10, 11, 15; reference-notes §4.6-4.7, §4.19)."""

    base: float = 0.20
    dev_beta: float = 0.0045
    dev_scale: float = 5000.0
    dev_noise_sd: float = 0.001
    target_beta: float = 0.0225
    target_scale: float = 5000.0
    relationship_weight: float = 0.9
    relationship_neutral: float = 0.5
    tenure_weight: float = 0.05
    tenure_scale: float = 30.0
    issue_penalty: float = 0.03
    overload_penalty: float = 0.08
    outage_penalty: float = 0.20
    lead_noise: tuple[float, float] = (0.8, 1.1)


class Usage(_Strict):
    """Usage model (eq 8; reference-notes §4.3)."""

    rate_sd_fraction: float = 0.2
    weekly_factors: tuple[float, ...] = (1.0, 1.1, 1.15, 1.1, 1.0, 0.6, 0.6)


class Service(_Strict):
    """Service health: overload, outages, latency (eq 9; reference-notes §4.5)."""

    outage_base: float = 0.03
    outage_ops_scale: float = 500.0
    outage_floor: float = 0.001
    outage_overload_factor: float = 4.0
    downtime_minutes: tuple[int, ...] = (10, 30, 90)
    downtime_probs: tuple[float, ...] = (0.5, 0.35, 0.15)
    p95_base: float = 180.0
    p95_overload: float = 800.0
    p95_sd: float = 50.0
    error_base: float = 0.003
    error_overload: float = 0.01
    error_sd: float = 0.001


class Satisfaction(_Strict):
    """Satisfaction EMA (eq 16-17; reference-notes §4.8). ``new_weight`` = 1 - lambda_S."""

    new_weight: float = Field(default=0.1, gt=0, le=1)
    initial: float = 0.5
    initial_relationship: float = 0.5


class Support(_Strict):
    """Support issues and resolution pools (eq 20-21; reference-notes §4.9-4.10)."""

    base_rate: float = 0.01
    satisfaction_rate: float = 0.15
    outage_rate: float = 0.25
    max_prob: float = 0.4
    pool_base: float = 2.0
    per_dollar_ind: float = 0.6
    per_dollar_ent: float = 0.1
    relationship_fast_fix: tuple[float, float] = (0.40, 0.30)
    relationship_daily_decay: float = 0.01


class Reputation(_Strict):
    """Reputation, cancellation damage and spillover (eq 22-25; reference-notes §4.11)."""

    initial: float = 0.5
    positive_rate: float = 0.0005
    negative_rate: float = 0.001
    floor: float = 0.001
    ceiling: float = 1.0
    n_min: int = 2
    update_threshold: float = 1e-5
    spillover: float = 0.3
    spillover_threshold: float = 1e-4
    cancel_damage: float = 0.000375
    cancel_noise_base: float = 0.5
    cancel_satisfaction_weight: float = 20.0


class Acquisition(_Strict):
    """Leads: channels, referrals, calendar, saturation (eq 28-29; reference-notes §3)."""

    lead_cost: float = 0.5
    ad_reference_spend: float = 1000.0
    monthly_factor_start: float = 1.15
    monthly_factor_end: float = 1.10
    channel_noise_fraction: float = 0.05
    saturation_exponent: float = 2.0


class Social(_Strict):
    """Customer post sampling (eq 26) and agent-post lead multiplier (eq 27; reference-notes §4.12-4.13)."""

    max_posts: int = 5
    extremity_weight: float = 10.0
    negative_weight: float = 20.0
    influencer_weight: float = 2.0
    new_customer_weight: float = 1.5
    new_customer_days: int = 30
    change_weight: float = 20.0
    change_threshold: float = 0.02
    event_weight: float = 5.0
    cancelled_weight: float = 5.0
    ent_churn_weight: float = 8.0
    viral_threshold: float = 0.6
    viral_span: float = 0.4
    multiplier_gain: float = 0.25
    multiplier_half_life: float = 3.0
    multiplier_bounds: tuple[float, float] = (0.75, 1.25)
    macro_batch_interval: tuple[int, int] = (5, 20)
    macro_batch_posts: tuple[int, int] = (2, 8)
    experience_window_days: int = 14
    post_max_chars: int = 280
    writer: Literal["templates", "llm"] = "templates"
    judge: Literal["rules", "llm"] = "rules"
    llm_model: str = "claude-haiku-4-5"
    llm_base_url: str | None = None  # any OpenAI-compatible endpoint; key from OPENAI_API_KEY


class Surges(_Strict):
    """Demand surges (eq 30; reference-notes §4.14)."""

    enabled: bool = True
    daily_probability: float = 0.005
    duration_days: tuple[int, int] = (3, 10)
    multiplier_base: float = 2.0
    multiplier_span: float = 6.0


class GroupResearchLevel(_Strict):
    level: int = Field(ge=2, le=5)
    cost: float
    delay_days: int
    noise: float


class Research(_Strict):
    """Market discovery and group research (eq 31; reference-notes §4.25)."""

    market_cost: float = 25_000.0
    market_success_prob: float = 0.30
    level1_noise: float = 0.65
    levels: tuple[GroupResearchLevel, ...]


class Competitor(_Strict):
    """Competitor events, stationary + adaptive catch-up (eq 32-36; reference-notes §4.16)."""

    enabled: bool = True
    grace_days: int = 60
    cutoff_days: int = 30
    mean_interval: float = 6.858
    early_multiplier: float = 1.5
    min_interval: float = 1.0
    boost_log_mu: float = -4.5559
    boost_log_sigma: float = 1.2
    boost_bounds: tuple[float, float] = (0.001974375, 0.1727578125)
    ramp: float = 3.0
    global_catchup: tuple[float, float] = (0.2, 0.5)
    targeted_catchup: tuple[float, float] = (0.0, 0.1)
    post_window_days: int = 4
    posts_per_day: int = 2


class Macro(_Strict):
    """Macro PMI process and multipliers (eq 37-38; reference-notes §4.15)."""

    initial: float = 49.37
    mean: float = 49.37
    amplitude: float = 8.0
    period_days: float = 548.0
    phase: float = 1.5 * math.pi
    reversion: float = 0.015
    shock_sd: float = 0.4
    bounds: tuple[float, float] = (30.0, 70.0)
    neutral: float = 50.0
    multiplier_floor: float = 0.5
    window_days: int = 30
    publication_delay_days: int = 30


class Drift(_Strict):
    """Market and individual preference drift (eq 4 drift term; reference-notes §4.17)."""

    period_days: int = 30
    first_day: int = 90
    c_max_bounds: tuple[float, float] = (10.0, 2000.0)
    steep_left_bounds: tuple[float, float] = (0.2, 5.0)


class Enterprise(_Strict):
    """Enterprise negotiation (eq 39-42; reference-notes §4.23)."""

    max_offers: int = 3
    reply_deadline_days: int = 7
    late_reply_penalty: float = 0.02
    counter_decay: float = 0.7
    contract_days: int = 30
    plan_change_probability: float = 0.3
    plan_change_min_improvement: float = 0.1
    relationship_deal_won: float = 0.10
    relationship_timeout: float = -0.30
    relationship_ghost: float = -0.20
    relationship_ghost_renegotiation: float = -0.30


class EngineFixes(_Strict):
    """Where the official engine has a plain bug, implement the paper's intent.

    See docs/calibration.md.

    Each flag set to ``false`` reproduces the engine's behaviour instead.

    A flag added after runs were recorded defaults here to the behaviour of the code those runs
    were recorded with, so that a recorded config.json that lacks it replays and resumes to its
    recorded result (docs/principles.md principles 4 and 9): ``False`` for the enterprise flags
    (the code had the engine's behaviour), ``True`` for ``relationship_zero_kept`` (it had the
    fix). The presets set each flag explicitly (``default.toml``, which every other preset but
    ``engine-bugs`` inherits).
    """

    drift_counted_once: bool = True
    tenure_in_negotiation: bool = True
    enterprise_involuntary_churn: bool = True
    surge_starts_on_roll_day: bool = True
    # added for issue 14, after runs were recorded: off unless a preset turns them on
    enterprise_market_finite: bool = False
    enterprise_gate_as_negotiation: bool = False
    enterprise_counter_on_a_winnable_plan: bool = False
    enterprise_decline_says_so: bool = False
    enterprise_offer_within_budget: bool = False
    # added for issue 19, after runs were recorded with the fix: on unless a preset turns it off
    relationship_zero_kept: bool = True


class CeoConfig(_Strict):
    """The whole NovaMind world: one preset."""

    description: str = ""
    horizon_days: int = Field(500, ge=1)
    start_cash: float = 1_000_000.0
    days_per_turn: int = 7
    groups: tuple[GroupParams, ...]
    referral_per_1000: tuple[tuple[float, ...], ...]
    reputation_spillover: tuple[tuple[float, ...], ...]
    model_tiers: tuple[ModelTier, ...]
    capacity_tiers: tuple[CapacityTier, ...]
    rnd_tiers: tuple[RndTier, ...]
    sampling: CustomerSampling = CustomerSampling()
    curve: Curve = Curve()
    quality: Quality = Quality()
    usage: Usage = Usage()
    service: Service = Service()
    satisfaction: Satisfaction = Satisfaction()
    support: Support = Support()
    reputation: Reputation = Reputation()
    acquisition: Acquisition = Acquisition()
    social: Social = Social()
    surges: Surges = Surges()
    research: Research
    competitor: Competitor = Competitor()
    macro: Macro = Macro()
    drift: Drift = Drift()
    enterprise: Enterprise = Enterprise()
    fixes: EngineFixes = EngineFixes()

    @model_validator(mode="after")
    def _check(self) -> CeoConfig:
        n = len(self.groups)
        ids = [g.id for g in self.groups]
        if len(set(ids)) != n:
            raise ValueError("group ids must be unique")
        for name in ("referral_per_1000", "reputation_spillover"):
            m = getattr(self, name)
            if len(m) != n or any(len(row) != n for row in m):
                raise ValueError(f"{name} must be a {n}x{n} matrix in group order")
        if len(self.model_tiers) != 5:
            raise ValueError("model_tiers must list the 5 tiers")
        return self

    @property
    def group_ids(self) -> tuple[str, ...]:
        return tuple(g.id for g in self.groups)


def load_config(preset: str = "default") -> tuple[CeoConfig, str]:
    """Load a named preset of the ceo env; returns (config, preset_hash)."""
    from bizbench.core.presets import load_preset

    config, digest = load_preset("bizbench.envs.ceo", preset, CeoConfig)
    assert isinstance(config, CeoConfig)
    return config, digest

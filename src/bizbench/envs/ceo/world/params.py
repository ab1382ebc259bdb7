"""Numpy views of the preset: per-group parameter arrays, matrices and tier tables.

Built once per world from :class:`CeoConfig`, so mechanics index arrays by group id
instead of reading pydantic objects in the daily step.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bizbench.envs.ceo.config import CeoConfig

# Columns of the macro multiplier matrix (eq 38; reference-notes §2.5).
MACRO_LEAD, MACRO_WTP, MACRO_DEAL, MACRO_SEAT = 0, 1, 2, 3


@dataclass(frozen=True)
class Params:
    """Array form of a :class:`CeoConfig`."""

    config: CeoConfig
    n_groups: int
    is_ent: np.ndarray
    q_min_mu: np.ndarray
    q_min_sd: np.ndarray
    q_range_mu: np.ndarray
    q_range_sd: np.ndarray
    c_max_mu: np.ndarray
    c_max_sd: np.ndarray
    usage_mu: np.ndarray
    usage_sd: np.ndarray
    reply_delay_mu: np.ndarray
    reply_delay_sd: np.ndarray
    negotiation_rate_mu: np.ndarray
    negotiation_rate_sd: np.ndarray
    max_turns_mu: np.ndarray
    max_turns_sd: np.ndarray
    lockin_mu: np.ndarray
    lockin_sd: np.ndarray
    ads_q_sens_mu: np.ndarray
    ads_q_sens_sd: np.ndarray
    ads_rev_sens_mu: np.ndarray
    ads_rev_sens_sd: np.ndarray
    base_cap: np.ndarray
    cap_growth: np.ndarray
    seats_min: np.ndarray
    seats_max: np.ndarray
    invol_mu: np.ndarray
    invol_sd: np.ndarray
    betas: np.ndarray  # [group, 4]
    kappa: np.ndarray
    drift_q: np.ndarray
    drift_c: np.ndarray
    indiv_drift: np.ndarray  # [group, 4]: c_max, q_bias, steepness_left, seat_count
    influencer: np.ndarray
    referral: np.ndarray  # leads per source subscriber per day [source, target]
    spillover: np.ndarray  # W_rep [source, target]
    support_scale: np.ndarray  # resolutions per dollar (reference-notes §4.9)
    tier_cost: np.ndarray  # index 0..4 = tier 1..5
    tier_quality: np.ndarray
    capacity_units: np.ndarray
    capacity_cost: np.ndarray

    @classmethod
    def from_config(cls, cfg: CeoConfig) -> Params:
        gs = cfg.groups

        def col(name: str) -> np.ndarray:
            return np.array([getattr(g, name) for g in gs], dtype=np.float64)

        is_ent = np.array([g.kind == "ENT" for g in gs])
        return cls(
            config=cfg,
            n_groups=len(gs),
            is_ent=is_ent,
            q_min_mu=col("q_min_mu"),
            q_min_sd=col("q_min_sd"),
            q_range_mu=col("q_range_mu"),
            q_range_sd=col("q_range_sd"),
            c_max_mu=col("c_max_mu"),
            c_max_sd=col("c_max_sd"),
            usage_mu=col("usage_mu"),
            usage_sd=col("usage_sd"),
            base_cap=col("base_cap"),
            cap_growth=col("cap_growth"),
            seats_min=col("seats_min").astype(np.int64),
            seats_max=col("seats_max").astype(np.int64),
            invol_mu=col("invol_churn_mu"),
            invol_sd=col("invol_churn_sd"),
            betas=np.stack([col("beta_lead"), col("beta_wtp"), col("beta_deal"), col("beta_seat")], 1),
            kappa=col("kappa"),
            drift_q=col("drift_q"),
            drift_c=col("drift_c"),
            indiv_drift=np.array(
                [
                    [g.indiv_drift.c_max, g.indiv_drift.q_bias, g.indiv_drift.steepness_left, g.indiv_drift.seat_count]
                    for g in gs
                ]
            ),
            influencer=np.array([g.influencer for g in gs]),
            referral=np.array(cfg.referral_per_1000, dtype=np.float64) / 1000.0,
            spillover=np.array(cfg.reputation_spillover, dtype=np.float64),
            support_scale=np.where(is_ent, cfg.support.per_dollar_ent, cfg.support.per_dollar_ind),
            tier_cost=np.array([t.cost_per_unit for t in cfg.model_tiers]),
            tier_quality=np.array([t.quality for t in cfg.model_tiers]),
            capacity_units=np.array([t.capacity for t in cfg.capacity_tiers]),
            capacity_cost=np.array([t.cost_per_day for t in cfg.capacity_tiers]),
            # the sampled traits (sampling.prospects)
            reply_delay_mu=col("reply_delay_mu"),
            reply_delay_sd=col("reply_delay_sd"),
            negotiation_rate_mu=col("negotiation_rate_mu"),
            negotiation_rate_sd=col("negotiation_rate_sd"),
            max_turns_mu=col("max_turns_mu"),
            max_turns_sd=col("max_turns_sd"),
            lockin_mu=col("lockin_mu"),
            lockin_sd=col("lockin_sd"),
            ads_q_sens_mu=col("ads_q_sens_mu"),
            ads_q_sens_sd=col("ads_q_sens_sd"),
            ads_rev_sens_mu=col("ads_rev_sens_mu"),
            ads_rev_sens_sd=col("ads_rev_sens_sd"),
        )

    def group_index(self, group_id: str) -> int:
        return self.config.group_ids.index(group_id)

    def market_cap(self, day: int) -> np.ndarray:
        """cap_g(d) = base_cap_g (1 + growth_g d / 365), linear (eq 29; reference-notes §2.3)."""
        return self.base_cap * (1.0 + self.cap_growth * day / 365.0)

"""World state of the NovaMind simulation: settings the agent controls and hidden state.

``Settings`` holds every control of the agent seat (reference-notes §6.2), as arrays indexed by group,
plan and channel. ``WorldState`` holds everything else: customers (numpy columns), the
per-group arrays, the quality banks, macro, competitor, research and the ledger.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from bizbench.core.ledger import Ledger
from bizbench.envs.ceo.config import CHANNELS, PLANS, CeoConfig
from bizbench.envs.ceo.world.customers import Customers

N_PLANS = len(PLANS)
N_CHANNELS = len(CHANNELS)


@dataclass
class Settings:
    """The agent's controls. Map-valued tools replace whole maps (reference-notes §6.1)."""

    n_groups: int
    prices: np.ndarray = field(default_factory=lambda: np.zeros(N_PLANS))
    tiers: np.ndarray = field(default_factory=lambda: np.ones(N_PLANS, dtype=np.int64))
    quotas: np.ndarray = field(default_factory=lambda: np.zeros(N_PLANS))
    operations: float = 0.0
    development: float = 0.0
    capacity_tier: int = 0
    ad_spend: np.ndarray = field(init=False)  # [group, channel] $/day
    targeted_dev: np.ndarray = field(init=False)  # [group] $/day
    ops_by_group: np.ndarray = field(init=False)
    ops_by_plan: np.ndarray = field(default_factory=lambda: np.zeros(N_PLANS))
    ops_by_group_plan: np.ndarray = field(init=False)
    ops_by_customer: dict[int, float] = field(default_factory=dict)
    ads_global: float = 0.0
    ads_by_group: np.ndarray = field(init=False)
    ads_by_customer: dict[int, float] = field(default_factory=dict)
    promo_global: float = 0.0
    promo_by_group: np.ndarray = field(init=False)
    promo_by_customer: dict[int, float] = field(default_factory=dict)
    promo_by_group_plan: np.ndarray = field(init=False)
    lead_promo_global: float = 0.0
    lead_promo_by_group: np.ndarray = field(init=False)
    lead_promo_by_channel: np.ndarray = field(default_factory=lambda: np.zeros(N_CHANNELS))
    lead_promo_by_channel_group: np.ndarray = field(init=False)  # [group, channel]

    def __post_init__(self) -> None:
        g = self.n_groups
        self.ad_spend = np.zeros((g, N_CHANNELS))
        self.targeted_dev = np.zeros(g)
        self.ops_by_group = np.zeros(g)
        self.ops_by_group_plan = np.zeros((g, N_PLANS))
        self.ads_by_group = np.zeros(g)
        self.promo_by_group = np.zeros(g)
        self.promo_by_group_plan = np.zeros((g, N_PLANS))
        self.lead_promo_by_group = np.zeros(g)
        self.lead_promo_by_channel_group = np.zeros((g, N_CHANNELS))

    def targeted_ops_total(self) -> float:
        return float(
            self.ops_by_group.sum()
            + self.ops_by_plan.sum()
            + self.ops_by_group_plan.sum()
            + sum(self.ops_by_customer.values())
        )


@dataclass
class RndProject:
    """One R&D invocation (reference-notes §4.20, eq 12)."""

    project_id: str
    tier: int
    start_day: int
    completion_day: int
    gain: float
    cost: float
    completed: bool = False


@dataclass
class PendingGroupResearch:
    group: int
    level: int
    completion_day: int


@dataclass
class Surge:
    """A demand surge (eq 30)."""

    start_day: int
    end_day: int  # exclusive
    multiplier: float


@dataclass
class AgentPost:
    """An agent social post and its per-group judged reaction (eq 27)."""

    post_id: int
    day: int
    content: str
    reply_to: int | None
    scores: np.ndarray | None = None  # per group, None until judged
    views: np.ndarray | None = None
    reasoning: dict[str, str] = field(default_factory=dict)  # per group id, the judge's reason
    comment_post_ids: list[int] = field(default_factory=list)  # customer replies to a viral post


@dataclass
class WorldState:
    """All state of one world. Hidden unless a tool explicitly reveals it."""

    config: CeoConfig
    seed: int
    day: int = 0
    customers: Customers = field(default_factory=Customers)
    ledger: Ledger = field(default_factory=Ledger)
    settings: Settings = field(init=False)
    # per-group arrays
    reputation: np.ndarray = field(init=False)
    discovered: np.ndarray = field(init=False)
    discovered_day: np.ndarray = field(init=False)
    info_level: np.ndarray = field(init=False)
    last_research_day: np.ndarray = field(init=False)
    q_drift_group: np.ndarray = field(init=False)
    c_drift_group: np.ndarray = field(init=False)
    bonus_group: np.ndarray = field(init=False)
    bank_group: np.ndarray = field(init=False)
    channel_leads: np.ndarray = field(init=False)  # live (noisy) table [group, channel]
    # customer rows no longer prospects, by group, over the first ``market_rows_counted`` rows (acquisition.open_market)
    engaged_by_group: np.ndarray = field(init=False)
    market_rows_counted: int = 0
    # customer rows of enterprise groups among the first ``enterprise_rows_scanned`` rows (enterprise.enterprise_rows)
    enterprise_rows: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=np.int64))
    enterprise_rows_scanned: int = 0
    insight_snapshots: dict[int, dict[str, Any]] = field(default_factory=dict)
    # global quality state (eq 12, 35)
    bonus_shared: float = 0.0
    bank_global: float = 0.0
    q_drift_global: float = 0.0
    # macro (eq 37-38)
    pmi: float = 0.0
    pmi_history: list[float] = field(default_factory=list)
    macro_readings: list[dict[str, Any]] = field(default_factory=list)
    macro_multipliers: np.ndarray = field(init=False)  # [group, 4]: lead, wtp, deal, seat
    # competitor (eq 32-36)
    last_competitor_day: float = 0.0
    competitor_events: list[dict[str, Any]] = field(default_factory=list)
    # research
    rnd_projects: list[RndProject] = field(default_factory=list)
    rnd_counts: dict[int, int] = field(default_factory=dict)
    pending_research: list[PendingGroupResearch] = field(default_factory=list)
    market_research_attempts: int = 0
    # surges and social
    surges: list[Surge] = field(default_factory=list)
    agent_posts: list[AgentPost] = field(default_factory=list)
    # service of the current day
    bankrupt: bool = False

    def __post_init__(self) -> None:
        cfg = self.config
        g = len(cfg.groups)
        self.settings = Settings(n_groups=g)
        self.reputation = np.full(g, cfg.reputation.initial)
        self.discovered = np.array([not grp.discoverable for grp in cfg.groups])
        self.discovered_day = np.where(self.discovered, 0, -1).astype(np.int64)
        self.info_level = self.discovered.astype(np.int64)
        self.last_research_day = np.full(g, -1, dtype=np.int64)
        self.q_drift_group = np.zeros(g)
        self.c_drift_group = np.zeros(g)
        self.bonus_group = np.zeros(g)
        self.bank_group = np.zeros(g)
        self.engaged_by_group = np.zeros(g, dtype=np.int64)
        self.channel_leads = np.array(
            [[grp.channel_leads[c] for c in CHANNELS] for grp in cfg.groups], dtype=np.float64
        )
        self.pmi = cfg.macro.initial
        self.macro_multipliers = np.ones((g, 4))
        self.last_competitor_day = -cfg.competitor.mean_interval

"""The ceo agent's tools, defined once (docs/principles.md principle 1; reference-notes §6.2).

Each tool is a typed function of the :class:`~bizbench.envs.ceo.env.CeoEnv` it acts on.
Validation happens before any change, so a rejected call changes nothing (principle 8).
Settings take effect from the next simulated day. Map-valued setters replace the whole
map; ``{}`` clears it; an omitted argument leaves its setting unchanged (reference-notes §6.1).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Any, Literal

import numpy as np
from pydantic import AliasChoices, BaseModel, ConfigDict, Field, model_validator

from bizbench.core.ledger import to_cents
from bizbench.core.registry import ToolError, ToolRegistry, echoed
from bizbench.envs.ceo.config import CHANNELS, PLANS
from bizbench.envs.ceo.world import development, research
from bizbench.envs.ceo.world.customers import SUBSCRIBED

if TYPE_CHECKING:
    from bizbench.envs.ceo.env import CeoEnv

registry = ToolRegistry()

Plan = Literal["A", "B", "C"]
Channel = Literal["social_media", "search_ads", "linkedin", "content_marketing", "referral_program"]
MAX_DOLLARS = 1e9  # a sanity ceiling on any price, promotion or daily spend (no real setting comes near)
NonNegative = Annotated[float, Field(ge=0, le=MAX_DOLLARS)]
Price = Annotated[float, Field(gt=0, le=MAX_DOLLARS)]
# A plan's list price may be 0, the price every plan has on day 0 (a free plan); the engine
# refuses 0 (reference-notes §6.2), which left an agent unable to return to the start's prices
# (docs/calibration.md, "What the agent reads").
ListPrice = Annotated[float, Field(ge=0, le=MAX_DOLLARS)]
Quota = Annotated[float, Field(ge=0, le=1e12)]
Unit = Annotated[float, Field(ge=0, le=1)]


# ---------------------------------------------------------------------------- helpers
def _group(env: CeoEnv, group_id: str, what: str = "group") -> int:
    """Index of a targetable group: the six initial groups plus discovered ones (reference-notes §6.1)."""
    ids = env.config.group_ids
    if group_id not in ids:
        raise ToolError(f"Unknown {what} '{echoed(group_id)}'. Known groups: {', '.join(env.known_group_ids())}")
    g = ids.index(group_id)
    if not env.world.state.discovered[g]:
        raise ToolError(f"Group '{echoed(group_id)}' has not been discovered yet; use research_market() first.")
    return g


def _group_vector(env: CeoEnv, values: dict[str, float]) -> np.ndarray:
    out = np.zeros(env.world.params.n_groups)
    for gid, v in values.items():
        out[_group(env, gid)] = v
    return out


def _keyed_vector(values: Mapping[Any, float] | None, keys: tuple[str, ...]) -> np.ndarray | None:
    """{plan or channel: value} -> vector in ``keys`` order (keys already validated by type)."""
    if values is None:
        return None
    out = np.zeros(len(keys))
    for key, v in values.items():
        out[keys.index(key)] = v
    return out


def _group_matrix(
    env: CeoEnv, values: Mapping[Any, Mapping[Any, float]] | None, columns: tuple[str, ...], group_outer: bool
) -> np.ndarray | None:
    """A nested map -> [group, column] matrix; ``group_outer`` says whether groups are the outer keys."""
    if values is None:
        return None
    out = np.zeros((env.world.params.n_groups, len(columns)))
    for outer, inner in values.items():
        for key, v in inner.items():
            gid, col = (outer, key) if group_outer else (key, outer)
            out[_group(env, gid), columns.index(col)] = v
    return out


def _customer_map(env: CeoEnv, values: dict[str, float] | None) -> dict[int, float] | None:
    if values is None:
        return None
    return {_customer(env, _int_id(k)): v for k, v in values.items()}


def _customer(env: CeoEnv, customer_id: int) -> int:
    if not 0 <= customer_id < env.world.state.customers.n:
        raise ToolError(f"Unknown customer_id {customer_id}.")
    return customer_id


def _plan_prices(A: float | None, B: float | None, C: float | None) -> dict[int, float]:
    given = {i: v for i, v in enumerate((A, B, C)) if v is not None}
    if not given:
        raise ToolError("Give at least one of A, B, C.")
    return given


def _set_given(settings: Any, **values: Any) -> None:
    """Apply the settings that were given; an omitted (None) argument leaves its setting (reference-notes §6.1)."""
    for name, value in values.items():
        if value is not None:
            setattr(settings, name, value)


def _settings(env: CeoEnv) -> Any:
    return env.world.state.settings


def _current_plan_config(env: CeoEnv) -> dict[str, Any]:
    s = _settings(env)
    return {
        "prices": dict(zip(PLANS, map(float, s.prices), strict=True)),
        "model_tiers": dict(zip(PLANS, map(int, s.tiers), strict=True)),
        "quotas": dict(zip(PLANS, map(float, s.quotas), strict=True)),
    }


def _map_by_group(env: CeoEnv, arr: np.ndarray) -> dict[str, float]:
    ids = env.config.group_ids
    return {ids[g]: float(arr[g]) for g in np.flatnonzero(arr)}


def _require_cash(env: CeoEnv, what: str, cost: float) -> None:
    """Lump-sum purchases are refused when cash is below their cost (reference-notes §1.4)."""
    cash = env.world.state.ledger.cash
    if cash < cost:
        raise ToolError(f"Insufficient cash: {what} costs ${cost:,.2f}, cash is ${cash:,.2f}.")


def _charge(env: CeoEnv, category: str, cost: float, note: str) -> None:
    st = env.world.state
    st.ledger.post(st.day, category, -to_cents(cost), note)


# ---------------------------------------------------------------------------- pricing
@registry.tool(category="pricing")
def set_prices(
    env: CeoEnv,
    A: ListPrice | None = None,
    B: ListPrice | None = None,
    C: ListPrice | None = None,
) -> dict[str, Any]:
    """Set monthly list prices of plans A, B, C (per seat for enterprise deals).

    Args:
        A: New monthly price of plan A in dollars (>= 0; 0, the starting price, makes it free); omit to keep.
        B: New monthly price of plan B in dollars (>= 0; 0, the starting price, makes it free); omit to keep.
        C: New monthly price of plan C in dollars (>= 0; 0, the starting price, makes it free); omit to keep.
    """
    given = _plan_prices(A, B, C)
    for i, v in given.items():
        _settings(env).prices[i] = v
    return {"updated": {PLANS[i]: v for i, v in given.items()}, "current": _current_plan_config(env)["prices"]}


@registry.tool(category="pricing")
def set_model_tiers(
    env: CeoEnv,
    A: Annotated[int, Field(ge=1, le=5)] | None = None,
    B: Annotated[int, Field(ge=1, le=5)] | None = None,
    C: Annotated[int, Field(ge=1, le=5)] | None = None,
) -> dict[str, Any]:
    """Set the model tier (1-5) serving each plan; higher tiers cost more per unit and score higher.

    Args:
        A: Model tier for plan A (1-5).
        B: Model tier for plan B (1-5).
        C: Model tier for plan C (1-5).
    """
    given = _plan_prices(A, B, C)
    for i, v in given.items():
        _settings(env).tiers[i] = v
    return {"updated": {PLANS[i]: v for i, v in given.items()}, "current": _current_plan_config(env)["model_tiers"]}


@registry.tool(category="pricing")
def set_usage_quotas(
    env: CeoEnv,
    A: Quota,
    B: Quota,
    C: Quota,
) -> dict[str, Any]:
    """Set the daily usage cap (units/day per subscription) of every plan; all three are required.

    Args:
        A: Units per day for plan A (>= 0).
        B: Units per day for plan B (>= 0).
        C: Units per day for plan C (>= 0).
    """
    _settings(env).quotas[:] = (A, B, C)
    return {"current": _current_plan_config(env)["quotas"], "unit": "units/day"}


@registry.tool(category="pricing")
def set_promotion(
    env: CeoEnv,
    global_promotion: NonNegative | None = None,
    by_group: dict[str, NonNegative] | None = None,
    by_customer: dict[str, NonNegative] | None = None,
    by_group_plan: dict[str, dict[Plan, NonNegative]] | None = None,
) -> dict[str, Any]:
    """Set ongoing dollar discounts; scopes add up and apply from each customer's next bill.

    Args:
        global_promotion: Dollars off every plan for every customer.
        by_group: {group_id: dollars off} (replaces the map).
        by_customer: {customer_id: dollars off} (replaces the map).
        by_group_plan: {group_id: {plan: dollars off}} (replaces the map).
    """
    s = _settings(env)
    group_vec = None if by_group is None else _group_vector(env, by_group)
    customers = _customer_map(env, by_customer)
    gp = _group_matrix(env, by_group_plan, PLANS, group_outer=True)
    _set_given(
        s, promo_global=global_promotion, promo_by_group=group_vec, promo_by_customer=customers, promo_by_group_plan=gp
    )
    env.log_override(
        "set_promotion",
        {
            "global_promotion": global_promotion,
            "by_group": by_group,
            "by_customer": by_customer,
            "by_group_plan": by_group_plan,
        },
    )
    return {
        "global_promotion": s.promo_global,
        "by_group": _map_by_group(env, s.promo_by_group),
        "by_customer": {str(k): v for k, v in s.promo_by_customer.items()},
        "by_group_plan": {
            env.config.group_ids[g]: {PLANS[p]: float(s.promo_by_group_plan[g, p])}
            for g, p in zip(*np.nonzero(s.promo_by_group_plan), strict=True)
        },
    }


def _int_id(key: str) -> int:
    try:
        return int(key)
    except ValueError:
        raise ToolError(f"Customer id '{echoed(key)}' is not an integer.") from None


# ---------------------------------------------------------------------------- marketing
@registry.tool(
    category="marketing",
    misplaced={
        "advertising": "advertising is not a global budget: set it per (channel, group) with "
        "set_targeted_ad_spend(targeted_spend={channel: {group_id: dollars_per_day}})"
    },
)
def set_daily_spend(
    env: CeoEnv,
    operations: NonNegative | None = None,
    development: NonNegative | None = None,
) -> dict[str, Any]:
    """Set global daily operations (support, reliability) and development (product quality) spend.

    Advertising is not a global budget: use set_targeted_ad_spend per (channel, group).

    Args:
        operations: Dollars per day on operations (>= 0).
        development: Dollars per day on global development (>= 0).
    """
    if operations is None and development is None:
        raise ToolError("Give operations and/or development.")
    s = _settings(env)
    _set_given(s, operations=operations, development=development)
    return {"current": {"operations": s.operations, "development": s.development}}


@registry.tool(category="marketing")
def set_targeted_ad_spend(env: CeoEnv, targeted_spend: dict[str, dict[str, NonNegative]]) -> dict[str, Any]:
    """Replace the ad budget: {channel: {group_id: dollars/day}} (a {group: {channel: $}} map is transposed).

    Args:
        targeted_spend: Daily ad spend per channel and group; {} stops all advertising.
    """
    s = _settings(env)
    ids = env.config.group_ids
    group_outer = bool(targeted_spend) and all(k in ids for k in targeted_spend)
    channels = {c for inner in targeted_spend.values() for c in inner} if group_outer else set(targeted_spend)
    unknown = sorted(channels - set(CHANNELS))
    if unknown:
        raise ToolError(f"Unknown channel '{echoed(unknown[0])}'. Channels: {', '.join(CHANNELS)}")
    table = _group_matrix(env, targeted_spend, CHANNELS, group_outer)
    assert table is not None
    s.ad_spend = table
    env.log_override("set_targeted_ad_spend", {"targeted_spend": targeted_spend})
    out = {ch: {ids[g]: float(table[g, c]) for g in np.flatnonzero(table[:, c])} for c, ch in enumerate(CHANNELS)}
    return {"targeted_spend": {k: v for k, v in out.items() if v}, "total_per_day": float(table.sum())}


@registry.tool(category="marketing")
def set_ads_strength(
    env: CeoEnv,
    global_strength: Unit | None = None,
    by_group: dict[str, Unit] | None = None,
    by_customer: dict[str, Unit] | None = None,
) -> dict[str, Any]:
    """Set in-app ad load (0-1) globally, per group and per customer; earns ad revenue, lowers quality.

    Args:
        global_strength: Ad load for everyone (0-1).
        by_group: {group_id: extra load} (replaces the map).
        by_customer: {customer_id: extra load} (replaces the map).
    """
    s = _settings(env)
    group_vec = None if by_group is None else _group_vector(env, by_group)
    customers = _customer_map(env, by_customer)
    _set_given(s, ads_global=global_strength, ads_by_group=group_vec, ads_by_customer=customers)
    env.log_override(
        "set_ads_strength", {"global_strength": global_strength, "by_group": by_group, "by_customer": by_customer}
    )
    return {
        "global": s.ads_global,
        "by_group": _map_by_group(env, s.ads_by_group),
        "by_customer": {str(k): v for k, v in s.ads_by_customer.items()},
    }


@registry.tool(category="marketing")
def set_lead_promotion(
    env: CeoEnv,
    global_promotion: NonNegative | None = None,
    by_group: dict[str, NonNegative] | None = None,
    by_channel: dict[Channel, NonNegative] | None = None,
    by_channel_group: dict[Channel, dict[str, NonNegative]] | None = None,
) -> dict[str, Any]:
    """Set first-bill discounts for new leads; channel terms apply to leads from that channel.

    Args:
        global_promotion: Dollars off the first bill of every new lead.
        by_group: {group_id: dollars} (replaces the map).
        by_channel: {channel: dollars} (replaces the map).
        by_channel_group: {channel: {group_id: dollars}} (replaces the map).
    """
    s = _settings(env)
    group_vec = None if by_group is None else _group_vector(env, by_group)
    ch_vec = _keyed_vector(by_channel, CHANNELS)
    cg = _group_matrix(env, by_channel_group, CHANNELS, group_outer=False)
    _set_given(
        s,
        lead_promo_global=global_promotion,
        lead_promo_by_group=group_vec,
        lead_promo_by_channel=ch_vec,
        lead_promo_by_channel_group=cg,
    )
    env.log_override(
        "set_lead_promotion",
        {
            "global_promotion": global_promotion,
            "by_group": by_group,
            "by_channel": by_channel,
            "by_channel_group": by_channel_group,
        },
    )
    return {
        "global_promotion": s.lead_promo_global,
        "by_group": _map_by_group(env, s.lead_promo_by_group),
        "by_channel": {CHANNELS[c]: float(s.lead_promo_by_channel[c]) for c in np.flatnonzero(s.lead_promo_by_channel)},
    }


# ---------------------------------------------------------------------------- analytics
@registry.tool(category="analytics")
def set_targeted_ops_spend(
    env: CeoEnv,
    targeted_spend: dict[str, NonNegative] | None = None,
    by_plan: dict[Plan, NonNegative] | None = None,
    by_group_plan: dict[str, dict[Plan, NonNegative]] | None = None,
    by_customer: dict[str, NonNegative] | None = None,
) -> dict[str, Any]:
    """Fund extra support pools that resolve open issues only within their scope.

    Args:
        targeted_spend: {group_id: dollars/day} (replaces the by-group map).
        by_plan: {plan: dollars/day} (replaces the map).
        by_group_plan: {group_id: {plan: dollars/day}} (replaces the map).
        by_customer: {customer_id: dollars/day} (replaces the map).
    """
    s = _settings(env)
    by_group_vec = None if targeted_spend is None else _group_vector(env, targeted_spend)
    plan_vec = _keyed_vector(by_plan, PLANS)
    gp = _group_matrix(env, by_group_plan, PLANS, group_outer=True)
    customers = _customer_map(env, by_customer)
    _set_given(s, ops_by_group=by_group_vec, ops_by_plan=plan_vec, ops_by_group_plan=gp, ops_by_customer=customers)
    env.log_override(
        "set_targeted_ops_spend",
        {"by_group": targeted_spend, "by_plan": by_plan, "by_group_plan": by_group_plan, "by_customer": by_customer},
    )
    return {
        "by_group": _map_by_group(env, s.ops_by_group),
        "by_plan": {PLANS[p]: float(s.ops_by_plan[p]) for p in np.flatnonzero(s.ops_by_plan)},
        "by_customer": {str(k): v for k, v in s.ops_by_customer.items()},
        "total_extra_per_day": s.targeted_ops_total(),
    }


@registry.tool(category="analytics")
def set_targeted_dev_spend(env: CeoEnv, targeted_spend: dict[str, NonNegative]) -> dict[str, Any]:
    """Replace targeted development: {group_id: dollars/day} raises that group's quality only.

    Args:
        targeted_spend: Daily development spend per group; {} stops it.
    """
    s = _settings(env)
    s.targeted_dev = _group_vector(env, targeted_spend)
    env.log_override("set_targeted_dev_spend", {"targeted_spend": targeted_spend})
    return {"targeted_spend": _map_by_group(env, s.targeted_dev), "total_extra_per_day": float(s.targeted_dev.sum())}


# ---------------------------------------------------------------------------- infrastructure
@registry.tool(category="infrastructure")
def set_capacity_tier(env: CeoEnv, tier: Annotated[int, Field(ge=0, le=7)]) -> dict[str, Any]:
    """Set the serving capacity tier (0-7); load above capacity causes overload and outages.

    Args:
        tier: Capacity tier 0-7.
    """
    _settings(env).capacity_tier = tier
    p = env.world.params
    return {"tier": tier, "capacity_units": float(p.capacity_units[tier]), "cost_per_day": float(p.capacity_cost[tier])}


@registry.tool(category="infrastructure", mutates=False)
def get_cost_info(env: CeoEnv) -> dict[str, Any]:
    """Model-tier unit costs and quality multipliers, and capacity-tier sizes and costs."""
    cfg = env.config
    return {
        "model_tiers": {
            str(i + 1): {"cost_per_usage_unit": t.cost_per_unit, "quality_multiplier": t.quality}
            for i, t in enumerate(cfg.model_tiers)
        },
        "capacity_tiers": {
            str(i): {"capacity_units": t.capacity, "cost_per_day": t.cost_per_day}
            for i, t in enumerate(cfg.capacity_tiers)
        },
        "note": "1 usage unit = 1K tokens; capacity is units per day.",
    }


@registry.tool(category="infrastructure", mutates=False)
def get_service_history(env: CeoEnv, days: Annotated[int, Field(ge=1, le=365)] = 7) -> dict[str, Any]:
    """Daily service rows of the last ``days`` days: usage, p95 latency, error rate, downtime.

    Args:
        days: How many recent days (1-365).
    """
    hist = env.world.service_history[-days:]
    first = env.world.day - len(hist) + 1
    return {
        "days": [
            {
                "day": first + k,
                "total_usage_units": int(h.total_usage),
                "p95_ms": round(h.p95_ms, 1),
                "error_rate": round(h.error_rate, 5),
                "downtime_minutes": h.downtime_minutes,
                "capacity_tier": h.capacity_tier,
                "capacity_units": int(h.capacity_units),
            }
            for k, h in enumerate(hist)
        ]
    }


# ---------------------------------------------------------------------------- market
@registry.tool(category="market")
def research_market(env: CeoEnv) -> dict[str, Any]:
    """Pay $25,000 for a chance to discover a new customer group (charged even if nothing is found)."""
    cost = env.config.research.market_cost
    _require_cash(env, "market research", cost)
    _charge(env, "market_research", cost, "market research")
    g = research.attempt_market_research(env.world.state, env.world.streams.get("market_research"))
    gid = None if g is None else env.config.groups[g].id
    env.market_research_log.append({"day": env.world.day, "cost": cost, "success": g is not None, "group_id": gid})
    if g is None:
        return {"discovered_group_id": None, "cost": cost}
    research.take_snapshot(env.world.state, env.world.params, g)
    env.world.notify("market_discovery", f"Discovered customer group {gid}")
    return {"discovered_group_id": gid, "cost": cost}


@registry.tool(category="market")
def research_group(
    env: CeoEnv, group_id: str, target_level: Annotated[int, Field(ge=2, le=5)] | None = None
) -> dict[str, Any]:
    """Commission research raising a discovered group's information level (2-5) after a delay.

    Args:
        group_id: A discovered group.
        target_level: 2-5, not below the current level (default max(current, 2)).
    """
    st = env.world.state
    g = _group(env, group_id)
    current = int(st.info_level[g])
    level = max(current, 2) if target_level is None else target_level
    if level < current:
        raise ToolError(f"target_level {level} is below the current level {current} of {group_id}.")
    if any(j.group == g for j in st.pending_research):
        raise ToolError(f"Research on {group_id} is already pending.")
    spec = research.level_spec(st, level)
    _require_cash(env, f"level-{level} research", spec.cost)
    _charge(env, "group_research", spec.cost, f"group research {group_id} level {level}")
    job = research.queue_group_research(st, g, level)
    return {
        "group_id": group_id,
        "new_level": level,
        "expected_completion_day": job.completion_day,
        "is_refresh": level == current,
        "cost": spec.cost,
    }


@registry.tool(category="market", mutates=False)
def get_market_overview(env: CeoEnv) -> dict[str, Any]:
    """Known groups with their information level and noise, undiscovered count, latest published PMI."""
    st = env.world.state
    from bizbench.envs.ceo.world import macro

    readings = macro.published_readings(st)
    known = []
    for g in np.flatnonzero(st.discovered):
        grp = env.config.groups[g]
        known.append(
            {
                "group_id": grp.id,
                "group_name": grp.name,
                "segment": "enterprise" if grp.kind == "ENT" else "individual",
                "info_level": int(st.info_level[g]),
                "noise": research.insight_noise(st, int(g)),
            }
        )
    return {
        "known_groups": known,
        "undiscovered_count": int((~st.discovered).sum()),
        "macroeconomic": {k: v for k, v in readings[-1].items() if k != "visible_day"} if readings else None,
    }


@registry.tool(category="market", mutates=False)
def get_group_insights(env: CeoEnv, group_id: str) -> dict[str, Any]:
    """Noisy estimates of a discovered group's budget, usage, quality floor, market size and networks.

    Args:
        group_id: A discovered group.
    """
    return research.group_insights(env.world.state, env.world.params, _group(env, group_id))


# ---------------------------------------------------------------------------- research
@registry.tool(category="research")
def start_research_project(env: CeoEnv, tier: Annotated[int, Field(ge=1, le=20)]) -> dict[str, Any]:
    """Start an R&D project of tier 1-20; cost is charged now and quality arrives on completion.

    Args:
        tier: R&D tier 1-20 (one in-progress run per tier).
    """
    st = env.world.state
    if development.tier_in_progress(st, tier):
        raise ToolError(f"An R&D project of tier {tier} is already in progress.")
    spec = env.config.rnd_tiers[tier - 1]
    _require_cash(env, f"R&D tier {tier}", spec.cost)
    proj = development.start_project(st, env.world.streams.get(f"rnd/{tier}"), tier)
    _charge(env, "research_project", spec.cost, f"R&D {proj.project_id}")
    return {
        "project_id": proj.project_id,
        "tier": tier,
        "name": spec.name,
        "cost": spec.cost,
        "expected_completion_day": proj.completion_day,
        "expected_duration_days": proj.completion_day - proj.start_day,
        "expected_quality_boost": round(proj.gain, 6),
    }


@registry.tool(category="research", mutates=False)
def list_research_projects(env: CeoEnv) -> dict[str, Any]:
    """Every R&D tier with cost, mean duration and gain, and your runs of it."""
    st = env.world.state
    tiers = []
    for i, spec in enumerate(env.config.rnd_tiers, start=1):
        runs = [p for p in st.rnd_projects if p.tier == i]
        tiers.append(
            {
                "tier": i,
                "name": spec.name,
                "cost": spec.cost,
                "mean_days": spec.duration_mu,
                "mean_quality_boost": spec.gain_mu,
                "in_progress": any(not p.completed for p in runs),
                "completed": sum(p.completed for p in runs),
                "total_quality_boost": round(sum(p.gain for p in runs if p.completed), 6),
            }
        )
    return {"tiers": tiers}


# ---------------------------------------------------------------------------- enterprise
class EnterpriseOffer(BaseModel):
    """One offering of an enterprise deal: a plan and its monthly price per seat."""

    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)
    plan: Plan
    price_per_seat: Price = Field(validation_alias=AliasChoices("price_per_seat", "price"))


class EnterpriseDeal(BaseModel):
    """Offers to one enterprise customer (only the first 3 are considered; reference-notes §4.23)."""

    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)
    customer_id: int
    offerings: Annotated[list[EnterpriseOffer], Field(min_length=1)]


def _enterprise_target(env: CeoEnv, customer_id: int) -> int:
    w = env.world
    c = _customer(env, customer_id)
    if not w.params.is_ent[w.state.customers.group[c]]:
        raise ToolError(f"Customer {customer_id} is not an enterprise customer.")
    if c not in w.book.open_by_customer and w.state.customers.status[c] != SUBSCRIBED:
        raise ToolError(f"Customer {customer_id} has no open thread and no active subscription.")
    return c


def _distinct(ids: list[int], what: str) -> None:
    if len(set(ids)) != len(ids):
        raise ToolError(f"{what}: each customer_id may appear once per call.")


@registry.tool(category="enterprise")
def send_enterprise_deal(
    env: CeoEnv, deals: Annotated[list[EnterpriseDeal], Field(min_length=1, max_length=1000)]
) -> dict[str, Any]:
    """Offer up to 3 (plan, price per seat per month) options to each of several enterprise customers.

    Replies on the customer's open thread, or opens a renegotiation with a subscribed account.
    The customer takes the offer it values most if its price is below what it will pay for that
    plan's quality; otherwise it counters, each round closer to its limit, and stops replying
    after its maximum number of rounds (offering its counter back closes the deal).
    Sending again before the customer answers replaces your offer and restarts their wait.
    Contracts are one month. Replying more than a day after the customer's last message costs
    relationship. Every deal is checked before any is sent: one bad deal rejects the call.

    Args:
        deals: e.g. [{"customer_id": 812, "offerings": [{"plan": "B", "price_per_seat": 95.0},
            {"plan": "C", "price_per_seat": 140.0}]}].
    """
    w = env.world
    _distinct([d.customer_id for d in deals], "deals")
    targets = [_enterprise_target(env, d.customer_id) for d in deals]
    from bizbench.envs.ceo.world import enterprise

    results = []
    for c, deal in zip(targets, deals, strict=True):
        offers = [(PLANS.index(o.plan), o.price_per_seat) for o in deal.offerings]
        t = enterprise.send_offers(w.state, w.streams.get("enterprise_replies"), w.book, c, offers)
        results.append(
            {
                "customer_id": deal.customer_id,
                "success": True,
                "thread_id": t.thread_id,
                "thread_type": t.kind,
                "offers_sent": len(t.offers),
            }
        )
    return {"results": results}


@registry.tool(category="enterprise")
def reject_enterprise_deal(
    env: CeoEnv, deals: Annotated[list[int], Field(min_length=1, max_length=1000)]
) -> dict[str, Any]:
    """Close the open negotiation threads with these customers (a new lead is then lost).

    Args:
        deals: Customer ids whose open thread to close, e.g. [812, 977].
    """
    w = env.world
    _distinct(deals, "deals")
    for customer_id in deals:
        if _customer(env, customer_id) not in w.book.open_by_customer:
            raise ToolError(f"Customer {customer_id} has no active thread.")
    from bizbench.envs.ceo.world import enterprise

    closed = [enterprise.reject(w.state, w.book, c) for c in deals]
    return {"results": [{"customer_id": t.customer, "thread_id": t.thread_id, "closed": True} for t in closed]}


@registry.tool(category="enterprise", mutates=False)
def list_enterprise_threads(
    env: CeoEnv,
    status: Literal["open", "awaiting_response", "all"] = "open",
    limit: Annotated[int, Field(ge=1, le=500)] = 50,
    offset: Annotated[int, Field(ge=0)] = 0,
) -> dict[str, Any]:
    """Negotiation threads, newest first, with the latest message and the reply deadline.

    One page at a time: `total` counts every matching thread; page on with
    offset = offset + limit while `next_offset` is not null.

    Args:
        status: "open" (default), "awaiting_response" (your move; reply by reply_by_day) or "all"
            (including closed threads: accepted, agent_rejected or ended).
        limit: At most this many threads per page (1-500).
        offset: Skip this many of the newest matching threads (>= 0).
    """
    w = env.world
    deadline = env.config.enterprise.reply_deadline_days
    if status == "all":
        threads = list(w.book.threads)
    else:
        threads = [t for t in w.book.threads if t.customer in w.book.open_by_customer and t.status == "open"]
        if status == "awaiting_response":
            threads = [t for t in threads if t.awaiting_agent]
    out = []
    newest_first = threads[::-1]
    for t in newest_first[offset : offset + limit]:
        out.append(
            {
                "thread_id": t.thread_id,
                "customer_id": t.customer,
                "thread_type": t.kind,
                "seat_count": int(w.state.customers.whole_seats(t.customer)),
                "opened_day": t.opened_day,
                "status": _public_status(t.status),
                "awaiting_response": t.status == "open" and t.awaiting_agent,
                "reply_by_day": t.last_counterparty_day + deadline - 1
                if t.status == "open" and t.awaiting_agent
                else None,
                "last_message": _turn_view(t.turns[-1]) if t.turns else None,
            }
        )
    end = offset + len(out)
    return {"threads": out, "total": len(threads), "offset": offset, "next_offset": end if end < len(threads) else None}


@registry.tool(category="enterprise", mutates=False)
def get_enterprise_thread(env: CeoEnv, thread_id: int) -> dict[str, Any]:
    """Every message of one negotiation thread.

    Args:
        thread_id: A thread id from list_enterprise_threads.
    """
    book = env.world.book
    if not book.threads:
        raise ToolError(f"Unknown thread_id {thread_id}: there are no negotiation threads yet.")
    if not 1 <= thread_id <= len(book.threads):
        ids = "the only thread id is 1" if len(book.threads) == 1 else f"thread ids run from 1 to {len(book.threads)}"
        raise ToolError(f"Unknown thread_id {thread_id}; {ids}.")
    t = book.threads[thread_id - 1]
    return {
        "thread_id": t.thread_id,
        "customer_id": t.customer,
        "thread_type": t.kind,
        "status": _public_status(t.status),
        "messages": [_turn_view(turn) for turn in t.turns],
    }


def _public_status(status: str) -> str:
    """open, accepted, agent_rejected, or ended (a timeout, ghosting or churn: why is hidden; reference-notes §5.1)."""
    return status if status in ("open", "accepted", "agent_rejected") else "ended"


def _turn_view(turn: dict[str, Any]) -> dict[str, Any]:
    return {k: turn[k] for k in ("message_id", "turn", "sender", "day", "text", "offer")}


# ---------------------------------------------------------------------------- social media
@registry.tool(category="marketing")
def post_social_media(
    env: CeoEnv,
    content: Annotated[str, Field(min_length=1, max_length=280)],
    reply_to_post_id: int | None = None,
) -> dict[str, Any]:
    """Publish a post (at most 280 characters, one per day, i.e. one per weekly turn).

    Each discovered group reacts to it the next day; a post a group finds compelling brings
    it more leads for a few days, a post it dislikes fewer (eq 27). It may reply to any
    post from get_social_posts (a customer's or another public one, reference-notes §4.13).

    Args:
        content: The post text, 1-280 characters.
        reply_to_post_id: post_id of a post from get_social_posts to reply to (optional).
    """
    st = env.world.state
    text = content.strip()
    if not text:
        raise ToolError("content is empty; write 1-280 characters.")
    if any(p.day == st.day for p in st.agent_posts):
        raise ToolError(f"Already posted today (day {st.day}); one post per day, i.e. one per weekly turn.")
    posts = env.world.social_posts
    if reply_to_post_id is not None and not 1 <= reply_to_post_id <= len(posts):
        raise ToolError(f"reply_to_post_id {reply_to_post_id} is not a post id (1-{len(posts)}).")
    from bizbench.envs.ceo.world.state import AgentPost

    post = AgentPost(post_id=len(st.agent_posts) + 1, day=st.day, content=text, reply_to=reply_to_post_id)
    st.agent_posts.append(post)
    return {"agent_post_id": post.post_id, "day": post.day, "content": text, "reply_to_post_id": reply_to_post_id}


@registry.tool(category="analytics", mutates=False)
def get_social_posts(
    env: CeoEnv, days: Annotated[int, Field(ge=1, le=10_000)] = 7, limit: Annotated[int, Field(ge=1, le=500)] = 50
) -> dict[str, Any]:
    """Public posts about NovaMind, the competition and the economy from the last ``days`` days, newest first.

    Args:
        days: Look back this many days (the reference engine ignored it; here it filters).
        limit: At most this many posts (1-500).
    """
    first = env.world.day - days + 1
    recent = [p for p in env.world.social_posts if p["day"] >= first]
    shown = recent[-limit:][::-1]
    ent = {g.id for g in env.config.groups if g.kind == "ENT"}
    out = []
    for p in shown:
        row = env.world.feed.visible(p)
        gid = p["source_group_id"]
        row["customer_type"] = "observer" if gid is None else "enterprise" if gid in ent else "individual"
        if p["reply_to_agent_post_id"] is not None:
            row["replying_to_your_post"] = p["reply_to_agent_post_id"]
        out.append(row)
    return {"posts": out, "total": len(recent)}


# ---------------------------------------------------------------------------- notifications
NotificationType = Literal[
    "large_customer_message",
    "lead_lost",
    "deal_won",
    "research_complete",
    "group_research_complete",
    "macro_economic_update",
    "market_discovery",
    "contract_renewal",
    "customer_churned",
    "social_media",
]


@registry.tool(category="status", mutates=False)
def get_notifications(
    env: CeoEnv,
    since_day: Annotated[int, Field(ge=0)] = 0,
    type: NotificationType | None = None,
    limit: Annotated[int, Field(ge=1, le=1000)] = 100,
) -> dict[str, Any]:
    """Notifications (deals won, leads lost, research done, PMI releases, post performance ...), newest first.

    Args:
        since_day: Only notifications from this day on.
        type: Only this type.
        limit: At most this many (1-1000).
    """
    rows = [n for n in env.world.notifications if n["day"] >= since_day and (type is None or n["type"] == type)]
    return {"notifications": rows[-limit:][::-1], "total": len(rows)}


# ---------------------------------------------------------------------------- status
@registry.tool(category="status", mutates=False)
def get_status(env: CeoEnv) -> dict[str, Any]:
    """Current day, cash, active individual subscribers, enterprise accounts and seats, MRR."""
    m = env.world.metrics[-1] if env.world.metrics else None
    st = env.world.state
    return {
        "day": st.day,
        "days_left": env.config.horizon_days - st.day,
        "cash": round(st.ledger.cash, 2),
        "subscribers": m["subscribers"] if m else 0,
        "enterprise_accounts": m["enterprise_accounts"] if m else 0,
        "enterprise_seats": m["enterprise_seats"] if m else 0,
        "mrr": round(m["mrr"], 2) if m else 0.0,
        "config": _current_plan_config(env),
        "capacity_tier": int(st.settings.capacity_tier),
        "spend": {
            "operations": st.settings.operations,
            "development": st.settings.development,
            "advertising": float(st.settings.ad_spend.sum()),
            "targeted_development": float(st.settings.targeted_dev.sum()),
        },
    }


@registry.tool(category="status", mutates=False)
def get_vars(env: CeoEnv) -> dict[str, Any]:
    """The current (last simulated) day and how many days remain."""
    return {
        "current_day": env.world.day,
        "horizon_days": env.config.horizon_days,
        "days_left": env.config.horizon_days - env.world.day,
    }


@registry.tool(category="status", mutates=False)
def get_dashboard(env: CeoEnv) -> dict[str, Any]:
    """The dashboard text of the current day (the same text next_week returned)."""
    return {"day": env.world.day, "dashboard": env.dashboard()}


# ---------------------------------------------------------------------------- turn
class Forecast(BaseModel):
    """A cash forecast with a 95 % interval: lower <= point <= upper (reference-notes §6.3)."""

    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)
    point: float
    lower: float
    upper: float

    @model_validator(mode="after")
    def _ordered(self) -> Forecast:
        if not self.lower <= self.point <= self.upper:
            raise ValueError(
                f"need lower <= point <= upper, got lower={self.lower}, point={self.point}, upper={self.upper}"
            )
        return self


class Predictions(BaseModel):
    """Cash forecasts 1, 4, 12 and 26 weeks ahead (reference-notes §6.3: exactly these four keys)."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)
    cash_1wk: Forecast
    cash_4wk: Forecast
    cash_12wk: Forecast
    cash_26wk: Forecast


HORIZON_DAYS = {"cash_1wk": 7, "cash_4wk": 28, "cash_12wk": 84, "cash_26wk": 182}


@registry.tool(category="turn")
def next_week(
    env: CeoEnv,
    rationale: Annotated[str, Field(min_length=1, max_length=20_000)],
    predictions: Predictions,
) -> dict[str, Any]:
    """End your turn: simulate the next 7 days and return the weekly dashboard.

    Give a rationale for this week's decisions and cash forecasts with honest 95 % intervals
    for 1, 4, 12 and 26 weeks ahead; they are stored in the ``predictions`` table.

    Args:
        rationale: Why you made this week's decisions (non-empty).
        predictions: {"cash_1wk": {"point": p, "lower": l, "upper": u}, "cash_4wk": {...},
            "cash_12wk": {...}, "cash_26wk": {...}} in dollars, lower <= point <= upper.
    """
    if not rationale.strip():
        raise ToolError("rationale is empty; explain this week's decisions.")
    day = env.world.day
    for key, horizon in HORIZON_DAYS.items():
        f: Forecast = getattr(predictions, key)
        env.predictions.append(
            {
                "submit_day": day,
                "horizon_days": horizon,
                "metric": "cash",
                "predicted_value": f.point,
                "predicted_lower": f.lower,
                "predicted_upper": f.upper,
                "submitted_at": float(day),
            }
        )
    env.rationales.append({"day": day, "rationale": rationale})
    env.step()
    return {"day": env.world.day, "dashboard": env.dashboard(), "done": env.done}


# ---------------------------------------------------------------------------- database
@registry.tool(category="database", mutates=False)
def query(env: CeoEnv, sql: Annotated[str, Field(min_length=1, max_length=100_000)]) -> dict[str, Any]:
    """Run one read-only SQL SELECT on the company database (19 tables; see describe_tables).

    In an arena the database also holds the market's public tables, rivals and rival_posts.

    At most 5,000 rows are returned (aggregate or use LIMIT); a query is stopped after 30 s.

    Args:
        sql: One SELECT (or WITH ... SELECT) statement.
    """
    if env.store is None:
        raise ToolError("This session has no database; start it with a database path to use query().")
    return env.store.query(sql, timeout_s=env.query_timeout_s)


@registry.tool(category="database", mutates=False)
def describe_tables(env: CeoEnv) -> dict[str, Any]:
    """The tables you can query (the company's 19; in an arena, the market's public tables too):
    their columns, types and what they hold."""
    from bizbench.envs.ceo.store import describe_tables as describe

    return {"tables": env.store.describe() if env.store is not None else describe()}

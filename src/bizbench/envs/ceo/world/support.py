"""Support issues: resolution pools, then new issues (eq 20-21; reference-notes §4.9-4.10)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bizbench.envs.ceo.world import kernels
from bizbench.envs.ceo.world.customers import SUBSCRIBED, for_blocks
from bizbench.envs.ceo.world.params import Params
from bizbench.envs.ceo.world.promotions import per_customer
from bizbench.envs.ceo.world.state import WorldState


@dataclass
class SupportDay:
    opened: np.ndarray  # customer indices with a new issue today
    resolved: np.ndarray  # customer indices whose issue was resolved today


def _resolve_pool(
    rng: np.random.Generator,
    pool: np.ndarray,
    groups: np.ndarray,
    spend: float,
    base: float,
    params: Params,
) -> np.ndarray:
    """N_resolved ~ Poisson((b_P + lambda_g x_P) n_g / |P|), capped at n_g (eq 21)."""
    if len(pool) == 0:
        return pool
    counts = np.bincount(groups, minlength=params.n_groups)
    means = (base + params.support_scale * spend) * counts / len(pool)
    draws = np.minimum(rng.poisson(means), counts)
    chosen = []
    order = np.argsort(groups, kind="stable")
    starts = np.concatenate([[0], np.cumsum(counts)])
    for g in np.flatnonzero(draws):
        members = pool[order[starts[g] : starts[g + 1]]]
        chosen.append(rng.choice(members, size=int(draws[g]), replace=False))
    return np.concatenate(chosen) if chosen else np.empty(0, dtype=np.int64)


def run_support(
    state: WorldState,
    params: Params,
    rng: np.random.Generator,
    active: np.ndarray,
    satisfaction_before: np.ndarray,
    outage: bool,
    has_issue: np.ndarray | None = None,
) -> SupportDay:
    """Resolve open issues through the global and targeted pools, then open new issues.

    Resolution (eq 21): the pool is every subscriber with open-issue days at day start; the
    global pool has base 2.0 and per-dollar rates 0.6 (individual) / 0.1 (enterprise);
    targeted pools (by group, plan, group-plan, customer) have no base and take only the
    still-unresolved. A fix within 1 or 2 days and no outage lifts the relationship by
    0.40 / 0.30; every unresolved day costs 0.01 (reference-notes §4.10).
    Generation (eq 20): P = clip((0.01 + 0.15 (1 - S_prev) + 0.25 1[outage]) seats, 0, 0.4).
    ``has_issue``: whether each of ``active`` has an issue open (``Customers.open_issue``), when the
    caller has read it already.
    """
    sp = state.config.support
    zero_kept = state.config.fixes.relationship_zero_kept
    s = state.settings
    cust = state.customers
    if has_issue is None:
        has_issue = cust.open_issue(active)
    pool = np.compress(has_issue, active)  # np.compress: a boolean index is slower unless nearly all pass
    pool_groups = cust.group[pool]
    resolved_mask = np.zeros(len(pool), dtype=bool)
    position = {"all": np.arange(len(pool))}

    def resolve(sel: np.ndarray, spend: float, base: float) -> None:
        sel = sel[~resolved_mask[sel]]
        picked = _resolve_pool(rng, sel, pool_groups[sel], spend, base, params)
        resolved_mask[picked] = True

    resolve(position["all"], s.operations, sp.pool_base)
    for g in np.flatnonzero(s.ops_by_group > 0):
        resolve(np.flatnonzero(pool_groups == g), float(s.ops_by_group[g]), 0.0)
    pool_plans = cust.plan[pool]
    for p in np.flatnonzero(s.ops_by_plan > 0):
        resolve(np.flatnonzero(pool_plans == p), float(s.ops_by_plan[p]), 0.0)
    for g, p in zip(*np.nonzero(s.ops_by_group_plan > 0), strict=True):
        resolve(np.flatnonzero((pool_groups == g) & (pool_plans == p)), float(s.ops_by_group_plan[g, p]), 0.0)
    if s.ops_by_customer:
        spend = per_customer(s.ops_by_customer, pool)
        for i in np.flatnonzero(spend > 0):
            resolve(np.array([i]), float(spend[i]), 0.0)

    fast1, fast2 = sp.relationship_fast_fix
    kernels.settle_issues(  # compiled: each pool row once
        pool,
        resolved_mask.view(np.uint8),
        cust.issue_days,
        cust.issue_open_day,
        cust.relationship,
        not outage,
        fast1,
        fast2,
        zero_kept,
        sp.relationship_daily_decay,
    )

    # Generation (compiled: kernels.open_issues) for the subscribers without an issue open at day start, one
    # uniform each in row order, in blocks of customers (``for_blocks``): a block's first draw follows the
    # draws of the blocks before it.
    flags = has_issue.view(np.uint8)
    uniforms = rng.random(len(active) - len(pool))

    def draw(b: slice) -> np.ndarray:
        rows, first = active[b], b.start - int(np.count_nonzero(flags[: b.start]))
        opened = np.empty(len(rows), dtype=np.int64)
        n = kernels.open_issues(
            rows,
            flags[b],
            satisfaction_before[b],
            cust.billed_seats,  # whole seats
            sp.satisfaction_rate,
            sp.base_rate,
            sp.outage_rate * float(outage),
            sp.max_prob,
            uniforms[first : first + len(rows) - int(np.count_nonzero(flags[b]))],
            opened,
        )
        return opened[:n]

    opened = np.concatenate(for_blocks(len(active), draw) or [active[:0]])
    cust.issue_days[opened] = 1
    cust.issue_open_day[opened] = state.day
    return SupportDay(opened=opened, resolved=pool[resolved_mask])


def close_churned_issues(state: WorldState) -> np.ndarray:
    """Close the open issue of every customer who is no longer subscribed; returns those customers.

    Resolution (eq 21) draws only from subscribers, and a cancelled or lost customer never
    subscribes again, so an issue left open at churn would stay open forever: the engine's
    ``issues`` table keeps them (reference-notes §4.9), and a 500-day run ended with tens of
    thousands of open issues and no subscriber. The world closes them at the end of the churn
    day instead (after the day's cancellation posts, which may tell of the issue). Only
    churned customers are touched, and no mechanic reads their issue days on a later day, so
    no figure of the simulation moves; the agent's ``issues`` table shows the closure as
    status ``closed``, resolution ``customer_churned`` (docs/calibration.md, "What the agent
    reads").
    """
    cust = state.customers
    gone = np.flatnonzero((cust.issue_days > 0) & (cust.status != SUBSCRIBED))
    cust.issue_days[gone] = 0
    cust.issue_open_day[gone] = -1
    return gone

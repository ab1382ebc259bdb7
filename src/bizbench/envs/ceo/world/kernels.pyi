"""Types of the compiled kernels (kernels.pyx)."""

from typing import Any

import numpy as np

def nan_positions(column: np.ndarray, rows: np.ndarray, out: np.ndarray) -> int: ...
def longest_tenure(rows: np.ndarray, start_day: np.ndarray, day: int) -> int: ...
def usage(
    rows: np.ndarray,
    rate: np.ndarray,
    plan: np.ndarray,
    quotas: np.ndarray,
    weekly: float,
    today: np.ndarray,
    period: np.ndarray,
    units: np.ndarray,
) -> None: ...
def satisfaction(
    rows: np.ndarray,
    group: np.ndarray,
    plan: np.ndarray,
    rate: np.ndarray,
    weekly: float,
    quotas: np.ndarray,
    delivered: np.ndarray,
    n_plans: int,
    service_penalty: float,
    perception_terms: tuple[Any, ...],
    relationship_zero_kept: bool,
    q_req: np.ndarray,
    new_weight: float,
    satisfaction: np.ndarray,
    change: np.ndarray,
    before: np.ndarray,
) -> None: ...
def sum_by_plan(rows: np.ndarray, plan: np.ndarray, units: np.ndarray, out: np.ndarray) -> None: ...
def positive(rows: np.ndarray, column: np.ndarray, out: np.ndarray) -> None: ...
def reputation_sums(
    rows: np.ndarray,
    groups: np.ndarray,
    satisfaction: np.ndarray,
    positive_rate: float,
    negative_rate: float,
    sums: np.ndarray,
) -> None: ...
def open_issues(
    rows: np.ndarray,
    has_issue: np.ndarray,
    satisfaction_before: np.ndarray,
    billed_seats: np.ndarray,
    satisfaction_rate: float,
    base_rate: float,
    outage_term: float,
    max_prob: float,
    uniforms: np.ndarray,
    opened: np.ndarray,
) -> int: ...
def daily_metrics(
    rows: np.ndarray,
    group: np.ndarray,
    is_enterprise: np.ndarray,
    satisfaction: np.ndarray,
    effective_price: np.ndarray,
    billed_seats: np.ndarray,
    issue_days: np.ndarray,
    satisfaction_out: np.ndarray,
    mrr_terms: np.ndarray,
    accounts: np.ndarray,
    enterprise_seats: np.ndarray,
) -> int: ...
def rows_with(status: np.ndarray, code: int, out: np.ndarray) -> int: ...
def due_rows(rows: np.ndarray, billing_mod: np.ndarray, today: int, out: np.ndarray) -> int: ...
def row_argmax(values: np.ndarray, allowed: np.ndarray | None, best: np.ndarray, top: np.ndarray) -> None: ...
def group_counts(rows: np.ndarray, group: np.ndarray, counts: np.ndarray) -> None: ...
def groups_of(rows: np.ndarray, group: np.ndarray, out: np.ndarray, counts: np.ndarray) -> None: ...
def curve_exponent(
    price: np.ndarray,
    c_max: np.ndarray,
    s_left: np.ndarray,
    s_right: np.ndarray,
    k: float,
    split: float,
    theta_left: float,
    theta_right: float,
    out: np.ndarray,
) -> None: ...
def curve_quality(
    price: np.ndarray,
    c_max: np.ndarray,
    q_min: np.ndarray,
    q_max: np.ndarray,
    split: float,
    exp_term: np.ndarray,
    out: np.ndarray,
) -> None: ...
def post_weights(
    rows: np.ndarray,
    satisfaction: np.ndarray,
    satisfaction_change: np.ndarray,
    group: np.ndarray,
    influencer: np.ndarray,
    start_day: np.ndarray,
    day: int,
    rate: np.ndarray,
    weekly: float,
    plan: np.ndarray,
    quotas: np.ndarray,
    open_issue: np.ndarray,
    billed_seats: np.ndarray,
    extremity_weight: float,
    negative_weight: float,
    influencer_weight: float,
    new_customer_weight: float,
    new_customer_days: int,
    change_weight: float,
    change_threshold: float,
    service_events: float,
    event_weight: float,
    out: np.ndarray,
) -> None: ...
def settle_issues(
    pool: np.ndarray,
    resolved: np.ndarray,
    issue_days: np.ndarray,
    issue_open_day: np.ndarray,
    relationship: np.ndarray,
    fast_fix: bool,
    fast_fix_1: float,
    fast_fix_2: float,
    relationship_zero_kept: bool,
    daily_decay: float,
) -> None: ...
def requirement_inputs(
    rows: np.ndarray,
    group: np.ndarray,
    effective_price: np.ndarray,
    effective_c_max: np.ndarray,
    c_max: np.ndarray,
    q_min: np.ndarray,
    q_max: np.ndarray,
    s_left: np.ndarray,
    s_right: np.ndarray,
    q_shift: np.ndarray,
    c_drift: np.ndarray,
    c_max_floor: float,
    inputs: np.ndarray,
) -> None: ...
def lead_terms(
    prices: np.ndarray,
    promotion: np.ndarray,
    delivered: np.ndarray,
    quotas: np.ndarray,
    demand: np.ndarray,
    preferences: tuple[np.ndarray, ...],
    terms: np.ndarray,
) -> None: ...
def plan_terms(
    rows: np.ndarray,
    group: np.ndarray,
    rate: np.ndarray,
    weekly: float,
    quotas: np.ndarray,
    delivered: np.ndarray,
    perception_terms: tuple[Any, ...],
    prices: np.ndarray,
    promotion: tuple[float, np.ndarray, np.ndarray, np.ndarray],
    budget_terms: tuple[np.ndarray, np.ndarray, float, np.ndarray],
    band: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    terms: np.ndarray,
) -> None: ...

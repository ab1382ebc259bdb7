"""Types of the compiled kernels (kernels.pyx)."""

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
    relationship: np.ndarray,
    relationship_zero_kept: bool,
    relationship_neutral: float,
    relationship_weight: float,
    day: int,
    start_day: np.ndarray,
    tenure_bonus: np.ndarray,
    issue_days: np.ndarray,
    issue_penalty: float,
    ad_penalty: np.ndarray,
    q_req: np.ndarray,
    new_weight: float,
    satisfaction: np.ndarray,
    change: np.ndarray,
    before: np.ndarray,
) -> None: ...

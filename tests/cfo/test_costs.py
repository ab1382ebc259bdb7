"""Operating costs from the two margins (docs/cfo-model.md "Costs"; paper Table 4)."""

from __future__ import annotations

import pytest

from bizbench.envs.cfo.world.costs import operating_costs


@pytest.mark.parametrize(
    ("revenue", "gross", "ebitda", "expected"),
    [
        (1_000_000, 40.0, 15.0, (600_000, 250_000)),  # 60 % cost of revenue; 40 - 15 = 25 % operating costs
        (1_000_001, 40.0, 15.0, (600_001, 250_000)),  # 600,000.6 and 250,000.25, rounded to the cent
        (999, 50.0, 50.0, (500, 0)),  # 499.5 rounds half to even; equal margins: no operating costs
        (1_000, 30.0, 45.0, (700, 0)),  # an EBITDA margin above the gross margin never makes costs negative
        (0, 40.0, 10.0, (0, 0)),
    ],
)
def test_costs_split_revenue_by_the_gross_margin_and_the_gap_to_the_ebitda_margin(
    revenue: int, gross: float, ebitda: float, expected: tuple[int, int]
) -> None:
    assert operating_costs(revenue, gross, ebitda) == expected

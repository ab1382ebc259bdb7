"""Operating costs from the two margin indicators (Table 4).

Gross margin converts revenue into gross profit ("Revenue -> gross profit conversion"): the
rest is the cost of revenue (funding and servicing), paid in the month. EBITDA margin is
the share kept after operating costs ("Post-operating-cost retention"): operating costs are
revenue x (gross margin - EBITDA margin), accrued in the month and paid the next under the
vendors' net-30 terms (the vendor contracts document says so).
"""

from __future__ import annotations

__all__ = ["operating_costs"]


def operating_costs(revenue_cents: int, gross_margin_pct: float, ebitda_margin_pct: float) -> tuple[int, int]:
    """(cost of revenue, operating expenses) in cents for a month's revenue."""
    cost_of_revenue = round(revenue_cents * (100 - gross_margin_pct) / 100)
    opex = round(revenue_cents * max(gross_margin_pct - ebitda_margin_pct, 0.0) / 100)
    return cost_of_revenue, opex

"""Scoring the agent's cash forecasts (CEO-Bench section 3.4 "forecasting"; reference-notes §6.3).

Every ``next_week`` stores a point and an interval for cash 1, 4, 12 and 26 weeks ahead.
Once the simulation reaches a forecast's target day it can be scored: the absolute
percentage error of the point and whether the interval held the truth (coverage).
Forecasts whose target lies beyond the end of the run are not scored.
"""

from __future__ import annotations

from statistics import mean
from typing import Any

__all__ = ["forecast_errors"]

WEEKS = {7: "1wk", 28: "4wk", 84: "12wk", 182: "26wk"}


def forecast_errors(predictions: list[dict[str, Any]], metrics: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """{"1wk": {"scored", "mape_pct", "coverage"}, ...} over the forecasts whose day has come."""
    cash = {m["day"]: m["cash"] for m in metrics}
    out: dict[str, dict[str, Any]] = {}
    for horizon, label in WEEKS.items():
        errors, hits = [], []
        for p in predictions:
            if p["horizon_days"] != horizon or p["metric"] != "cash":
                continue
            actual = cash.get(p["submit_day"] + horizon)
            if actual is None:
                continue
            errors.append(abs(p["predicted_value"] - actual) / max(abs(actual), 1.0) * 100)
            hits.append(p["predicted_lower"] <= actual <= p["predicted_upper"])
        out[label] = {
            "scored": len(errors),
            "mape_pct": round(mean(errors), 3) if errors else None,
            "coverage": round(mean(hits), 4) if hits else None,
        }
    return out

"""Forecast scoring in result.json (CEO-Bench section 3.4)."""

from __future__ import annotations

from bizbench.envs.ceo.forecasts import forecast_errors


def prediction(day: int, horizon: int, point: float, lower: float, upper: float) -> dict[str, object]:
    return {
        "submit_day": day,
        "horizon_days": horizon,
        "metric": "cash",
        "predicted_value": point,
        "predicted_lower": lower,
        "predicted_upper": upper,
    }


def test_forecasts_are_scored_once_their_day_has_come() -> None:
    metrics = [{"day": d, "cash": 1000.0 + d} for d in range(1, 40)]
    preds = [
        prediction(0, 7, 1007.0, 1000.0, 1010.0),  # exact, covered
        prediction(7, 7, 1114.0, 1015.0, 1020.0),  # 10 % high, not covered (truth 1014)
        prediction(7, 28, 500.0, 0.0, 2000.0),  # day 35: truth 1035, covered
        prediction(30, 28, 1.0, 0.0, 1.0),  # day 58: beyond the run, not scored
    ]
    out = forecast_errors(preds, metrics)
    assert out["1wk"]["scored"] == 2 and out["1wk"]["coverage"] == 0.5
    assert abs(out["1wk"]["mape_pct"] - (0 + 100 / 1014 * 100) / 2) < 1e-3
    assert out["4wk"]["scored"] == 1 and out["4wk"]["coverage"] == 1.0
    assert out["26wk"] == {"scored": 0, "mape_pct": None, "coverage": None}

"""The Appendix B rule-based policy written against the public SDK only (standard library + novamind_api).

Run from the agent workspace: ``python rule_based.py WEEKS``. It mirrors
``bizbench.envs.ceo.baselines.RuleBased`` with its default (paper-best) options, reading the
day-0 channel table from the workspace docs, and prints the final status as JSON.
"""

import json
import sys
from pathlib import Path

import novamind_api as nm

PRICE_BOOK = {"A": (12.0, 1, 60_000.0), "B": (25.0, 2, 250_000.0), "C": (55.0, 4, 1_200_000.0)}
HEAVY = {"S1": (6_000.0, 750.0)}
CHANNELS = ["social_media", "search_ads", "linkedin", "content_marketing", "referral_program"]
CASH_FLOOR, GLOBAL_DEV, ADS_START_DAY, UTILISATION = 100_000.0, 200.0, 20, 0.8


def act(table):
    nm.set_prices(**{p: v[0] for p, v in PRICE_BOOK.items()})
    nm.set_model_tiers(**{p: v[1] for p, v in PRICE_BOOK.items()})
    nm.set_usage_quotas(**{p: v[2] for p, v in PRICE_BOOK.items()})
    status = nm.get_status()
    enabled = status["cash"] > CASH_FLOOR
    accounts = status["subscribers"] + status["enterprise_accounts"]
    nm.set_daily_spend(operations=max(100.0, 0.05 * accounts), development=GLOBAL_DEV if enabled else 0.0)
    nm.set_targeted_dev_spend(targeted_spend={g: v[0] for g, v in HEAVY.items()} if enabled else {})
    ads = {}
    if enabled and status["day"] >= ADS_START_DAY:
        for g, (_, spend) in HEAVY.items():
            best = max(CHANNELS, key=table[g].__getitem__)
            ads.setdefault(best, {})[g] = spend
    nm.set_targeted_ad_spend(targeted_spend=ads)
    history = nm.get_service_history(days=7)["days"]
    avg = sum(r["total_usage_units"] for r in history) / len(history) if history else 0.0
    caps = nm.get_cost_info()["capacity_tiers"]
    units = [caps[str(t)]["capacity_units"] for t in range(len(caps))]
    target = next((t for t, u in enumerate(units) if u >= avg / UTILISATION), len(units) - 1)
    current = status["capacity_tier"]
    nm.set_capacity_tier(tier=current + (target > current) - (target < current))


def main(weeks):
    table = json.loads(Path("docs/channel_leads.json").read_text())
    for _ in range(weeks):
        act(table)
        cash = nm.get_status()["cash"]
        band = {"point": cash, "lower": cash - 1e6, "upper": cash + 1e6}
        keys = ("cash_1wk", "cash_4wk", "cash_12wk", "cash_26wk")
        nm.next_week(rationale="Appendix B rules.", predictions={k: band for k in keys})
    print(json.dumps(nm.get_status()))


if __name__ == "__main__":
    main(int(sys.argv[1]))

"""The ceo tool surface: every reference tool, one registry, generated docs, and garbage-proof tools
(reference-notes §6.2; docs/principles.md principles 1 and 8)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import strategies as st

from bizbench.envs.ceo.baselines import make_policy
from bizbench.envs.ceo.env import CeoEnv
from bizbench.envs.ceo.tools import registry

ROOT = Path(__file__).resolve().parents[2]

REFERENCE_TOOLS = {
    # pricing
    "set_prices",
    "set_model_tiers",
    "set_usage_quotas",
    "set_promotion",
    # marketing
    "set_daily_spend",
    "set_targeted_ad_spend",
    "set_ads_strength",
    "set_lead_promotion",
    "post_social_media",
    # analytics
    "get_social_posts",
    "set_targeted_ops_spend",
    "set_targeted_dev_spend",
    # infrastructure
    "set_capacity_tier",
    "get_cost_info",
    # enterprise
    "send_enterprise_deal",
    "reject_enterprise_deal",
    # market
    "research_market",
    "research_group",
    "get_market_overview",
    "get_group_insights",
    # research
    "start_research_project",
    "list_research_projects",
    # top level
    "next_week",
    "query",
    "get_vars",
    # operator read tools
    "describe_tables",
    "get_dashboard",
    "list_enterprise_threads",
    "get_notifications",
}


def test_every_reference_tool_and_at_least_30() -> None:
    names = set(registry.names())
    assert REFERENCE_TOOLS <= names, sorted(REFERENCE_TOOLS - names)
    assert len(names) >= 30


def test_a_price_of_zero_is_accepted_as_at_the_start_and_a_negative_one_is_refused() -> None:
    env = CeoEnv.from_preset("default", seed=1, horizon_days=60, database=False)
    assert env.world.state.settings.prices.tolist() == [0.0, 0.0, 0.0]  # the game starts at 0
    assert env.call("set_prices", A=12.0, B=25.0, C=55.0).ok
    r = env.call("set_prices", A=0)
    assert r.ok, r.error
    assert r.data["current"] == {"A": 0.0, "B": 25.0, "C": 55.0}
    r = env.call("set_prices", B=-1.0)
    assert not r.ok and "B" in r.error
    assert env.world.state.settings.prices.tolist() == [0.0, 25.0, 55.0]


# ---------------------------------------------------------------------------- garbage in, nothing changes
JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=40)
    | st.sampled_from(["S1", "E1", "A", "B", "C", "search_ads", "D_S01", "select 1", "DROP TABLE ledger"]),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=10,
)


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> CeoEnv:
    """Three weeks of the rule-based policy with a database, so customers, threads and posts exist."""
    db = tmp_path_factory.mktemp("garbage") / "company.db"
    env = CeoEnv.from_preset("default", seed=5, horizon_days=60, db_path=db)
    policy = make_policy("rule-based")
    for _ in range(3):
        policy.act(env)
        env.next_turn()
    return env


def test_queries_padded_to_100_kb_leave_a_small_record_and_a_verified_replay(tmp_path: Path) -> None:
    """Issue 16: valid ``query`` calls carrying 100 KB of SQL comment grew actions.jsonl by 143 MB
    in 10 s. A read replay does not send again keeps a digest of large arguments, not the SQL."""
    from bizbench.core.envs import get_env
    from bizbench.core.session import Session
    from bizbench.runner.replay import replay_run

    spec = get_env("ceo")
    session = Session(spec, spec.from_preset("horizon-50", seed=5, database=True, files=tmp_path), tmp_path / "run")
    sql = "SELECT 1 AS one -- " + "x" * 99_900
    answers = [session.call_tool("query", {"sql": sql}) for _ in range(100)]
    assert all(a.ok for a in answers)
    while not session.done:
        session.advance()
    session.finish()
    assert (tmp_path / "run" / "actions.jsonl").stat().st_size < 100 * 1_000
    assert replay_run(tmp_path / "run").ok

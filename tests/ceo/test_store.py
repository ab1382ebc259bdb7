"""The agent-visible database of the ceo env (reference-notes §5.1-5.3) and its persona text.

One module-scoped session runs six weeks of the rule-based baseline (Appendix B) with a
few extra tool calls so that every table gets rows (ads strength, research, R&D, posts,
forecasts, enterprise offers); the tests then read the store through ``query`` and the file
through a raw connection.
"""

from __future__ import annotations

import re
import sqlite3
import threading
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from bizbench.core.registry import ToolError
from bizbench.envs.ceo.baselines import make_policy
from bizbench.envs.ceo.config import load_config
from bizbench.envs.ceo.env import CeoEnv
from bizbench.envs.ceo.personas import CODE_BITS, PICKED, persona_codes, persona_emails, persona_vocabulary
from bizbench.envs.ceo.store import (
    _PACKED,
    HIDDEN_TABLES,
    SCHEMA_PATH,
    STORAGE_PATH,
    CeoStore,
    _Accounts,
    _fixed_digits,
    _json_ints,
    _pack,
    _row_codes,
    _sql_field,
    describe_tables,
    hidden_columns,
    visible_tables,
)
from bizbench.envs.ceo.world import enterprise
from bizbench.envs.ceo.world.customers import LEAD, NONE, SUBSCRIBED

WEEKS = 6

# Ref §5.1: the visible columns of the 19 tables, in order.
VISIBLE = {
    "customers": "customer_id customer_type group_id created_day persona_industry persona_role persona_experience "
    "persona_work_style persona_tech_savvy company_size_descriptor company_culture company_decision_style "
    "company_primary_concern persona_description email contract_start_day acquisition_source",
    "subscriptions": "subscription_id customer_id plan listed_price promotion effective_price start_day end_day "
    "status billing_day_mod30 pending_plan pending_price seat_count contract_months contract_end_day "
    "first_billing_done",
    "daily_usage": "day customer_id usage_units",
    "ledger": "id day category amount note",
    "service_day": "day total_usage_units p95_ms error_rate downtime_minutes capacity_tier capacity_units",
    "config_history": "day price_A price_B price_C tier_A tier_B tier_C spend_advertising spend_operations "
    "spend_development capacity_tier ad_spend_social_media ad_spend_search_ads ad_spend_linkedin "
    "ad_spend_content_marketing ad_spend_referral_program quota_A quota_B quota_C",
    "social_media_posts": "post_id day content reply_to_agent_post_id source_group_id",
    "agent_social_media_posts": "agent_post_id day content reply_to_post_id effect_by_group views views_by_group "
    "comment_post_ids reasoning_by_group",
    "predictions": "submit_day horizon_days metric predicted_value predicted_lower predicted_upper submitted_at",
    "enterprise_turns": "message_id thread_id customer_id thread_type turn_number sender message_text offer_json "
    "day email seat_count closed close_reason",
    "notifications": "notification_id day type message",
    "research_projects": "project_id tier status started_day expected_completion_day expected_quality_boost "
    "quality_boost_applied",
    "macroeconomic_conditions": "day pmi_value pmi_trend pmi_change cycle_phase description",
    "ad_channel_leads": "id day channel_id group_id leads_generated spend",
    "group_info_levels": "group_id info_level is_discoverable discovered_day last_research_day",
    "segment_discovery": "id day cost success discovered_group_id",
    "issues": "issue_id customer_id group_id open_day days_open status resolved_day resolution_type",
    "ads_revenue": "day customer_id group_id ads_strength revenue",
    "config_overrides": "id day tool_name setting_type settings_json",
}
# The tables the store keeps as views over compact storage (storage.sql).
VIEWS = ("customers", "subscriptions", "issues")
# Ref §5.1 stripped columns, per table.
STRIPPED = {
    "customers": "steepness_left steepness_right c_max q_max q_min usage_demand reply_delay_mean reply_delay_std "
    "negotiation_rate initial_offer_factor max_negotiation_turns contract_lockin_penalty persona_communication "
    "quality_sensitivity price_sensitivity willingness_to_pay usage_scale patience seat_count "
    "ads_quality_sensitivity ads_return_sensitivity",
    "subscriptions": "effective_c_max daily_usage_rate billing_period_usage churn_reason",
    "social_media_posts": "customer_id sentiment likes shares virality_score reputation_impact influence_score",
    "enterprise_turns": "next_reply_day current_offer_price _internal_status",
    "research_projects": "actual_completion_day current_decay_reduction decay_reduction_expiry_day",
    "segment_discovery": "remaining_undiscovered",
    "ads_revenue": "sensitivity seat_count",
}
# Hidden world state that must not appear anywhere in the schema.
WORLD_HIDDEN = (
    "s_left s_right c_max q_min q_max usage_demand eta_ads rho_ads lockin reply_mean reply_sd negotiation_rate "
    "offer_factor max_turns deal_noise satisfaction satisfaction_change relationship issue_days issue_open_day "
    "usage_rate period_usage effective_c_max churn_reason first_promotion sentiment likes shares virality "
    "influence reputation willingness_to_pay"
).split()
FORECAST = {"point": 900_000.0, "lower": 500_000.0, "upper": 1_200_000.0}
PREDICTIONS = {k: FORECAST for k in ("cash_1wk", "cash_4wk", "cash_12wk", "cash_26wk")}


def _ok(env: CeoEnv, tool: str, **args: Any) -> Any:
    result = env.call(tool, **args)
    assert result.ok, (tool, result.error)
    return result.data


def _seed_enterprise_leads(env: CeoEnv, k: int) -> None:
    """Make ``k`` dropped enterprise prospects leads with a new-lead thread, as acquisition
    does for prospects that clear the quality gate (too rare this early for the test)."""
    w = env.world
    cust = w.state.customers
    prospects = np.flatnonzero((cust.status == NONE) & w.params.is_ent[cust.group])[:k]
    for c in prospects.tolist():
        cust.status[c] = LEAD
        cust.billing_mod[c] = w.day % 30
        w.book.open_thread(c, enterprise.NEW_LEAD, w.day, "New enterprise lead.")


def persona_columns(ids: np.ndarray, groups: np.ndarray, config_groups: Any) -> dict[str, list[str | None]]:
    """Each customer's persona picks as text, decoded from its code with the vocabulary, and its email."""
    words = {(field, group, code): word for field, group, code, word in persona_vocabulary(config_groups)}
    codes = persona_codes(ids, groups, config_groups).tolist()
    gids = [config_groups[g].id for g in groups.tolist()]
    out: dict[str, list[str | None]] = {
        col: [words[(k, gid, (c >> (CODE_BITS * k)) & 15)] for c, gid in zip(codes, gids, strict=True)]
        for k, col in enumerate(PICKED)
    }
    out["email"] = persona_emails(ids, groups, config_groups)
    return out


def run_session(path: Path, seed: int = 1, weeks: int = WEEKS, between: Any = None) -> CeoEnv:
    """The rule-based baseline plus extra calls that fill every table; ``between(env)`` runs
    after each week (e.g. to query from another thread)."""
    env = CeoEnv.from_preset("default", seed=seed, db_path=path)
    assert isinstance(env.store, CeoStore)
    policy = make_policy("rule-based")
    for week in range(weeks):
        policy.act(env)
        _ok(env, "set_targeted_ad_spend", targeted_spend={"content_marketing": {"S1": 750.0, "E1": 3000.0}})
        if week == 0:
            _ok(env, "set_ads_strength", global_strength=0.2)
            _ok(env, "research_market")
            _ok(env, "start_research_project", tier=1)
        if week in (1, 2, 3):
            _seed_enterprise_leads(env, 3)
        _ok(env, "post_social_media", content=f"Week {week}: faster answers, same price. Tell us what you build!")
        threads = _ok(env, "list_enterprise_threads", status="awaiting_response")["threads"]
        if threads:
            _ok(env, "reject_enterprise_deal", deals=[threads[0]["customer_id"]])
            offers = [{"plan": "B", "price_per_seat": 20.0}, {"plan": "C", "price_per_seat": 45.0}]
            deals = [{"customer_id": t["customer_id"], "offerings": offers} for t in threads[1:]]
            if deals:
                _ok(env, "send_enterprise_deal", deals=deals)
        _ok(env, "next_week", rationale=f"week {week}", predictions=PREDICTIONS)
        if between is not None:
            between(env)
    return env


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> CeoEnv:
    return run_session(tmp_path_factory.mktemp("store") / "company.db")


def db(env: CeoEnv) -> CeoStore:
    assert isinstance(env.store, CeoStore)
    return env.store


def count(env: CeoEnv, table: str) -> int:
    return int(db(env).query(f"SELECT COUNT(*) AS n FROM {table}")["rows"][0]["n"])


def count_where(env: CeoEnv, table: str, where: str) -> int:
    return int(db(env).query(f"SELECT COUNT(*) AS n FROM {table} WHERE {where}")["rows"][0]["n"])


def dump(path: Path) -> dict[str, list[tuple[Any, ...]]]:
    conn = sqlite3.connect(path)
    try:
        return {t: conn.execute(f"SELECT * FROM {t} ORDER BY 1, 2").fetchall() for t in VISIBLE}
    finally:
        conn.close()


# ----------------------------------------------------------------------------- tables
@pytest.mark.parametrize("table", sorted(VISIBLE))
def test_every_table_has_rows(session: CeoEnv, table: str) -> None:
    assert count(session, table) > 0


def test_schema_is_exactly_the_visible_tables(session: CeoEnv) -> None:
    db(session).flush()
    conn = sqlite3.connect(db(session).path)
    try:
        kinds = dict(conn.execute("SELECT name, type FROM sqlite_master WHERE type IN ('table', 'view')").fetchall())
        assert set(VISIBLE) <= set(kinds)
        assert {t for t, kind in kinds.items() if kind == "view"} & set(VISIBLE) == set(VIEWS)
        for table in VISIBLE:
            cols = [r[1] for r in conn.execute(f"PRAGMA table_info({table})")]
            assert cols == VISIBLE[table].split(), table
            assert not set(cols) & set(STRIPPED.get(table, "").split()), table
        schema_sql = " ".join(r[0] or "" for r in conn.execute("SELECT sql FROM sqlite_master"))
        names = set(re.findall(r"[a-z_][a-z0-9_]*", schema_sql.lower()))
        assert not names & set(WORLD_HIDDEN)
        assert not names & set(HIDDEN_TABLES)
    finally:
        conn.close()


def test_storage_tables_cannot_be_queried_by_name(session: CeoEnv) -> None:
    conn = sqlite3.connect(db(session).path)
    try:
        storage = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")]
    finally:
        conn.close()
    for table in set(storage) - set(VISIBLE):
        for sql in (
            f"SELECT * FROM {table}",
            f"SELECT COUNT(*) FROM {table}",
            f"WITH customers AS (SELECT * FROM {table}) SELECT * FROM customers",  # a CTE named like a view
            f"WITH ledger AS (SELECT * FROM {table}) SELECT * FROM ledger",
        ):
            with pytest.raises(ToolError, match=f"Unknown table '{table}'"):
                db(session).query(sql)


def test_the_file_names_and_describes_only_groups_it_has_customers_of(session: CeoEnv) -> None:
    db(session).flush()
    conn = sqlite3.connect(db(session).path)
    try:
        with_words = {r[0] for r in conn.execute("SELECT DISTINCT group_id FROM persona_words")}
        named = {r[0] for r in conn.execute("SELECT group_id FROM group_names")}
        customers = {r[0] for r in conn.execute("SELECT DISTINCT group_id FROM customer_rows")}
    finally:
        conn.close()
    undiscovered = {g.id for g, known in zip(session.config.groups, session.world.state.discovered, strict=True)
                    if not known}  # fmt: skip
    assert len(customers) > 1 and with_words == named == customers
    assert undiscovered and not customers & undiscovered


def test_a_view_compares_its_numbers_with_quoted_numbers_as_the_table_did(session: CeoEnv) -> None:
    """SQLite converts a quoted number for a column of INTEGER affinity; a view's computed column keeps it."""
    store = db(session)
    for table, column in (("subscriptions", "subscription_id"), ("issues", "days_open"), ("issues", "open_day")):
        value = store.query(f"SELECT MAX({column}) AS v FROM {table}")["rows"][0]["v"]
        quoted = store.query(f"SELECT COUNT(*) AS n FROM {table} WHERE {column} >= '{value}'")["rows"][0]["n"]
        plain = store.query(f"SELECT COUNT(*) AS n FROM {table} WHERE {column} >= {value}")["rows"][0]["n"]
        assert quoted == plain > 0, (table, column)


def test_the_customers_view_spells_out_every_persona(session: CeoEnv) -> None:
    rows = db(session).query("SELECT * FROM customers ORDER BY customer_id", max_rows=100_000)["rows"]
    ids = np.array([r["customer_id"] for r in rows])
    groups = session.world.state.customers.group[ids]
    picked = persona_columns(ids, groups, session.config.groups)
    assert {"small", "large"} == {r["customer_type"] for r in rows}
    for k, r in enumerate(rows):
        assert {col: r[col] for col in picked} == {col: picked[col][k] for col in picked}
        role = r["persona_role"][:1].upper() + r["persona_role"][1:]
        if r["customer_type"] == "large":
            sentence = (
                f"{role} at a {r['company_size_descriptor']} {r['persona_industry']} organisation with a "
                f"{r['company_culture']} culture; {r['persona_experience']}, {r['persona_work_style']}; buying "
                f"decisions: {r['company_decision_style']}; main concern: {r['company_primary_concern']}."
            )
        else:
            sentence = (
                f"{role} in {r['persona_industry']} ({r['company_size_descriptor']}), {r['persona_experience']}, "
                f"{r['persona_work_style']}, {r['persona_tech_savvy']} technical skills; "
                f"{r['company_decision_style']}; main concern: {r['company_primary_concern']}."
            )
        assert r["persona_description"] == sentence


def test_describe_tables_matches_schema() -> None:
    described = {t["table"]: [c["name"] for c in t["columns"]] for t in describe_tables()}
    assert described == {t: cols.split() for t, cols in VISIBLE.items()}


def test_subscriptions_match_the_world(session: CeoEnv) -> None:
    cust = session.world.state.customers
    rows = db(session).query("SELECT * FROM subscriptions ORDER BY customer_id", max_rows=100_000)["rows"]
    idx = np.flatnonzero(cust.status != NONE)
    assert [r["customer_id"] for r in rows] == idx.tolist()
    status = {1: "lead", 2: "subscribed", 3: "cancelled", 4: "lost"}
    for r in rows:
        c = r["customer_id"]
        assert r["subscription_id"] == c + 1
        assert r["status"] == status[int(cust.status[c])]
        assert r["plan"] == ("ABC"[cust.plan[c]] if cust.plan[c] >= 0 else r["plan"])
        assert r["listed_price"] == cust.listed_price[c]
        assert r["effective_price"] == cust.effective_price[c]
        assert r["start_day"] == (None if cust.start_day[c] < 0 else int(cust.start_day[c]))
        assert r["end_day"] == (None if cust.end_day[c] < 0 else int(cust.end_day[c]))
        assert r["billing_day_mod30"] == cust.billing_mod[c]
        assert r["seat_count"] == int(np.floor(cust.seats[c]))
        assert r["first_billing_done"] == int(cust.first_billing_done[c])
    assert count(session, "customers") == cust.n


def test_enterprise_leads_show_as_pending(session: CeoEnv) -> None:
    rows = db(session).query(
        "SELECT s.plan, s.status, c.customer_type, c.email FROM subscriptions s "
        "JOIN customers c USING (customer_id) WHERE c.customer_type = 'large'"
    )["rows"]
    assert rows
    assert all(r["email"] and "@" in r["email"] for r in rows)
    assert {r["plan"] for r in rows if r["status"] in ("lead", "lost")} <= {"pending"}
    small = db(session).query("SELECT COUNT(*) AS n FROM customers WHERE customer_type = 'small' AND email IS NULL")
    assert small["rows"][0]["n"] == count(session, "customers") - count_large(session)
    no_plan = db(session).query(  # a small customer that never subscribed has no plan: NULL, not ''
        "SELECT COUNT(*) AS n, SUM(s.plan IS NULL) AS null_plans FROM subscriptions s "
        "JOIN customers c USING (customer_id) WHERE c.customer_type = 'small' AND s.status = 'lost'"
    )["rows"][0]
    assert no_plan["n"] > 0 and no_plan["null_plans"] == no_plan["n"]


def count_large(env: CeoEnv) -> int:
    return int(db(env).query("SELECT COUNT(*) AS n FROM customers WHERE customer_type='large'")["rows"][0]["n"])


def test_usage_counts_the_accounts_subscribed_before_the_day_or_cancelled_on_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    churned_on_a_day: list[int] = []
    record_day = CeoStore.record_day

    def checked(store: CeoStore, env: CeoEnv) -> None:  # every simulated day, before the store copies it
        w = env.world
        cust, d = w.state.customers, w.day
        started = (cust.start_day >= 0) & (cust.start_day < d)
        expected = np.flatnonzero(started & ((cust.status == SUBSCRIBED) | (cust.end_day == d)))
        assert w.usage_accounts.tolist() == expected.tolist()
        churned_on_a_day.append(int((cust.end_day[expected] == d).sum()))
        record_day(store, env)

    monkeypatch.setattr(CeoStore, "record_day", checked)
    run_session(tmp_path / "company.db")  # six weeks: cancellations begin at the first bills
    assert len(churned_on_a_day) == 7 * WEEKS and sum(churned_on_a_day) > 0


def test_daily_usage_keeps_30_days_and_matches_service(session: CeoEnv) -> None:
    day = session.day
    assert day == 7 * WEEKS
    r = db(session).query("SELECT MIN(day) AS lo, MAX(day) AS hi, COUNT(DISTINCT day) AS n FROM daily_usage")
    assert r["rows"][0] == {"lo": day - 29, "hi": day, "n": 30}
    mismatched = db(session).query(
        "SELECT s.day FROM service_day s JOIN (SELECT day, SUM(usage_units) AS u FROM daily_usage GROUP BY day) d "
        "USING (day) WHERE d.u != s.total_usage_units"
    )
    assert mismatched["row_count"] == 0
    ads = db(session).query("SELECT MIN(day) AS lo, MAX(day) AS hi FROM ads_revenue")["rows"][0]
    assert ads["lo"] >= day - 29 and ads["hi"] == day


@pytest.mark.parametrize("top", [0, 1, 9, 10, 65_535, 10**9, 10**18 - 1])
def test_json_ints_round_trip_through_sqlite(top: int) -> None:
    """The packed integers the lazy tables are bulk-written with read back exactly through json_each."""
    values = np.random.default_rng(top).integers(0, top + 1, 1_000)
    values[0] = top
    text, offset = _json_ints(values)
    conn = sqlite3.connect(":memory:")
    back = [v for (v,) in conn.execute("SELECT value - ? FROM json_each(?) ORDER BY key", (offset, text))]
    assert back == values.tolist()
    assert _json_ints(np.zeros(0, dtype=np.int64))[0] == "[]"
    with pytest.raises(ValueError, match="packs integers"):
        _json_ints(np.array([10**18]))


def test_fixed_digits_read_back_exactly_through_substr() -> None:
    """The BLOB customer rows are bulk-written with: each field, zero-padded, read back at its byte offset."""
    rng = np.random.default_rng(3)
    cols = [rng.integers(0, top + 1, 500) for top in (0, 9, 65_535, 2**58)]
    blob, widths = _fixed_digits(*cols)
    assert widths == [len(str(int(col.max()))) for col in cols]
    conn = sqlite3.connect(":memory:")
    ids = "[" + ",".join(map(str, range(500))) + "]"
    at = 0
    for col, width in zip(cols, widths, strict=True):
        sql = "SELECT CAST(substr(?1, key * ?2 + ?3 + 1, ?4) AS INTEGER) FROM json_each(?5) ORDER BY key"
        assert [v for (v,) in conn.execute(sql, (blob, sum(widths), at, width, ids))] == col.tolist()
        at += width
    with pytest.raises(ValueError, match="non-negative"):
        _fixed_digits(np.array([1, -1]))


@pytest.mark.parametrize("number", sorted(_PACKED))
def test_packed_fields_read_back_through_their_sql(number: str) -> None:
    """The customer rows' packed numbers: every field, at its largest value too, comes back out of the SQL
    that reads it; a value that does not fit its bits is refused by name."""
    fields = _PACKED[number]
    rng = np.random.default_rng(5)
    values = {f: rng.integers(0, 1 << bits, 300) for f, (_, bits) in fields.items()}
    for f, (_, bits) in fields.items():
        values[f][0] = (1 << bits) - 1
    packed = _pack(number, **values)
    conn = sqlite3.connect(":memory:")
    sql = f"SELECT {', '.join(_sql_field(f) for f in fields)} FROM (SELECT ? AS {number})"
    back = [conn.execute(sql, (x,)).fetchone() for x in packed.tolist()]
    assert back == list(zip(*(values[f].tolist() for f in fields), strict=True))
    first = next(iter(fields))
    for wrong in (values[first] + (1 << fields[first][1]), values[first] - (1 << fields[first][1])):
        with pytest.raises(ValueError, match=f"packs {first} in"):
            _pack(number, **{**values, first: wrong})
    with pytest.raises(ValueError, match="packs"):
        _pack(number, **{f: v for f, v in values.items() if f != first})


def test_a_config_with_more_groups_than_the_packed_index_holds_is_refused_when_the_store_opens() -> None:
    groups = [SimpleNamespace(id=f"S{k}", kind="IND") for k in range(65)]
    with pytest.raises(ValueError, match="65 groups"):
        _Accounts(groups)
    assert _Accounts(groups[:64]).n == 0


def test_row_codes_tell_floats_apart_bit_for_bit() -> None:
    """Prices travel as codes into a table of their distinct rows: equal bits share a code, any other
    difference (0.1 + 0.2 against 0.3, -0.0 against 0.0) gets its own."""
    a = np.array([0.0, -0.0, 0.1 + 0.2, 0.3, 0.0, 0.3, 7.8447])
    b = np.array([1.0, 1.0, 2.0, 2.0, 1.0, 2.0, 1.0])
    rows, codes = _row_codes([a, b])
    assert len(rows) == 5 and codes.tolist() == [1, 0, 3, 2, 1, 2, 4]
    back = np.array([rows[k] for k in codes.tolist()])
    assert back.view(np.int64).tolist() == np.stack([a, b], axis=1).view(np.int64).tolist()


@pytest.mark.parametrize("queried", [False, True], ids=["first written at close", "rewritten at close"])
def test_prices_reach_the_file_bit_for_bit_on_new_and_rewritten_rows(tmp_path: Path, queried: bool) -> None:
    """Prices are bound as REALs, never parsed from text (SQLite 3.40's CAST reads 124.6851155646414 and
    44.6029576233617 one ulp off): a customer's prices read back exactly whether its row is new at close
    (inserted) or was written by an earlier query (updated by the upsert)."""
    env = CeoEnv.from_preset("default", seed=3, db_path=tmp_path / "company.db")
    make_policy("rule-based").act(env)
    _ok(env, "set_targeted_ad_spend", targeted_spend={"content_marketing": {"S1": 750.0}})  # customers come
    _ok(env, "next_week", rationale="one week", predictions=PREDICTIONS)
    cust = env.world.state.customers
    if queried:
        assert count(env, "subscriptions") == int((cust.status != NONE).sum())  # every row written now
    awkward = [124.6851155646414, 44.6029576233617, 0.1 + 0.2, 1 / 3, 1e-300, 2.0**60 + 2048]
    rows = np.flatnonzero(cust.status != NONE)[: len(awkward)]
    assert len(rows) == len(awkward)
    for c, p in zip(rows.tolist(), awkward, strict=True):
        cust.listed_price[c], cust.promotion[c], cust.effective_price[c] = p, p / 7, p * 6 / 7
    env.close()  # compares every field of every row first
    with sqlite3.connect(f"file:{tmp_path / 'company.db'}?mode=ro", uri=True) as conn:
        got = conn.execute(
            "SELECT listed_price, promotion, effective_price FROM subscriptions "
            f"WHERE customer_id IN ({','.join(map(str, rows.tolist()))}) ORDER BY customer_id"
        ).fetchall()
    want = np.stack([cust.listed_price[rows], cust.promotion[rows], cust.effective_price[rows]], axis=1)
    assert np.array(got).view(np.int64).tolist() == want.view(np.int64).tolist()


def test_a_seat_count_too_large_to_pack_is_refused_not_wrapped(tmp_path: Path) -> None:
    """Seats share a packed number with the price code: one that would overflow it stops the write with an
    error naming it, instead of a wrong seat_count in the file."""
    env = CeoEnv.from_preset("default", seed=3, db_path=tmp_path / "company.db")
    make_policy("rule-based").act(env)
    _ok(env, "set_targeted_ad_spend", targeted_spend={"content_marketing": {"S1": 750.0}})
    _ok(env, "next_week", rationale="one week", predictions=PREDICTIONS)
    cust = env.world.state.customers
    cust.column("billed_seats")[np.flatnonzero(cust.status != NONE)[0]] = 2.0**61  # what seat_count reads
    with pytest.raises(ValueError, match="seat counts below"):
        db(env).close(cust)


def test_ledger_reconciles_to_cash(session: CeoEnv) -> None:
    total = db(session).query("SELECT ROUND(SUM(amount), 2) AS cash, COUNT(*) AS n FROM ledger")["rows"][0]
    assert total["cash"] == round(session.world.state.ledger.cash, 2)
    assert total["n"] == len(session.world.state.ledger.rows)


def test_open_issues_match_the_world(session: CeoEnv) -> None:
    cust = session.world.state.customers
    rows = db(session).query(
        "SELECT customer_id, open_day, days_open FROM issues WHERE status = 'open'", max_rows=10**6
    )
    assert {r["customer_id"] for r in rows["rows"]} == set(np.flatnonzero(cust.issue_days > 0).tolist())
    assert all(r["days_open"] == session.day - r["open_day"] for r in rows["rows"])
    resolved = db(session).query(
        "SELECT COUNT(*) AS n FROM issues WHERE status = 'resolved' AND "
        "(resolution_type != 'ops_resolved' OR days_open != resolved_day - open_day)"
    )
    assert resolved["rows"][0]["n"] == 0


def test_issues_of_customers_who_left_are_closed_on_their_churn_day(session: CeoEnv) -> None:
    """world/support.py close_churned_issues: the issues table keeps no open issue of a customer who left, and
    its open issues are exactly the dashboard's count of subscribers with an open issue."""
    cust = session.world.state.customers
    closed = db(session).query(
        "SELECT customer_id, open_day, days_open, resolved_day, resolution_type FROM issues WHERE status = 'closed'",
        max_rows=10**6,
    )["rows"]
    assert closed, "six weeks of the baseline lose some customers who had an open issue"
    ids = np.array([r["customer_id"] for r in closed])
    assert not (cust.status[ids] == SUBSCRIBED).any()
    assert [r["resolved_day"] for r in closed] == cust.end_day[ids].tolist()
    assert all(r["resolution_type"] == "customer_churned" for r in closed)
    assert all(r["days_open"] == r["resolved_day"] - r["open_day"] for r in closed)
    still_open = db(session).query(
        "SELECT COUNT(*) AS n FROM issues i JOIN subscriptions s USING (customer_id) "
        "WHERE i.status = 'open' AND s.status != 'subscribed'"
    )["rows"][0]["n"]
    assert still_open == 0
    n_open = count_where(session, "issues", "status = 'open'")
    assert n_open == session.world.metrics[-1]["open_issues"] > 0


def test_config_history_totals_ad_channels(session: CeoEnv) -> None:
    rows = db(session).query("SELECT * FROM config_history ORDER BY day")["rows"]
    assert rows[0]["day"] == 0 and len({r["day"] for r in rows}) == len(rows)
    for r in rows:
        channels = sum(v for k, v in r.items() if k.startswith("ad_spend_"))
        assert channels == pytest.approx(r["spend_advertising"])
    assert rows[-1]["ad_spend_content_marketing"] == 3750.0


def test_enterprise_turns_mirror_threads(session: CeoEnv) -> None:
    threads = session.world.book.threads
    rows = db(session).query("SELECT * FROM enterprise_turns ORDER BY message_id")["rows"]
    assert len(rows) == sum(len(t.turns) for t in threads)
    assert len({r["message_id"] for r in rows}) == len(rows)
    by_thread = {t.thread_id: t for t in threads}
    for r in rows:
        t = by_thread[r["thread_id"]]
        assert r["customer_id"] == t.customer and r["thread_type"] == t.kind
        closed = t.status in ("accepted", "agent_rejected")
        assert (r["closed"], r["close_reason"]) == ((1, t.status) if closed else (0, ""))
    assert {r["sender"] for r in rows} >= {"system", "agent"}
    assert any(r["close_reason"] == "agent_rejected" for r in rows)


def test_social_posts_are_the_visible_fields(session: CeoEnv) -> None:
    posts = session.world.social_posts
    rows = db(session).query("SELECT * FROM social_media_posts ORDER BY post_id", max_rows=100_000)["rows"]
    assert [r["content"] for r in rows] == [p["content"] for p in posts]
    assert set(rows[0]) == set(VISIBLE["social_media_posts"].split())
    judged = db(session).query("SELECT * FROM agent_social_media_posts WHERE views IS NOT NULL")["rows"]
    assert judged and all(r["effect_by_group"].startswith("{") for r in judged)


def test_session_logs(session: CeoEnv) -> None:
    assert count(session, "predictions") == 4 * WEEKS
    assert count(session, "segment_discovery") == 1
    rows = db(session).query("SELECT DISTINCT setting_type FROM config_overrides")["rows"]
    assert {"targeted_ad_spend", "ads_strength"} <= {r["setting_type"] for r in rows}
    macro = db(session).query("SELECT day FROM macroeconomic_conditions")["rows"]
    readings = [r for r in session.world.state.macro_readings if r["visible_day"] <= session.day]
    assert [r["day"] for r in macro] == [r["visible_day"] for r in readings]


# ----------------------------------------------------------------------------- query rules
@pytest.mark.parametrize(
    ("sql", "tamper"),
    [
        ("SELECT c_max FROM customers", "hidden_column"),
        ("SELECT satisfaction FROM customers", "hidden_column"),
        ("SELECT seat_count FROM customers", "hidden_column"),
        ("SELECT c.willingness_to_pay FROM customers AS c", "hidden_column"),
        ("SELECT customer_id, sentiment FROM social_media_posts", "hidden_column"),
        ("SELECT customer_id FROM social_media_posts", "hidden_column"),
        ("SELECT s.churn_reason FROM subscriptions s", "hidden_column"),
        ("SELECT * FROM customer_state", "hidden_table"),
        ("SELECT * FROM _rng_states", "hidden_table"),
        ("SELECT COUNT(*) FROM events", "hidden_table"),
        ("SELECT name FROM sqlite_master", "schema_introspection"),
        ("PRAGMA table_info(customers)", "schema_introspection"),
        ("DELETE FROM ledger", "write_sql"),
        ("SELECT 1; DROP TABLE ledger", "multiple_statements"),
    ],
)
def test_refusals(session: CeoEnv, sql: str, tamper: str) -> None:
    with pytest.raises(ToolError) as err:
        db(session).query(sql)
    assert err.value.tamper == tamper


# ----------------------------------------------------------------------------- hidden names look unknown
MADE_UP = "zq_made_up"  # a name that exists nowhere


def agent_sees(env: CeoEnv, sql: str, name: str) -> str:
    """The answer or error text of ``sql``, with ``name`` replaced by a placeholder."""
    try:
        seen = repr(db(env).query(sql))
    except ToolError as err:
        seen = f"error: {err}"
    return re.sub(re.escape(name), "<name>", seen, flags=re.IGNORECASE)


def test_every_hidden_name_is_answered_exactly_like_a_made_up_one(session: CeoEnv) -> None:
    """An attacker probing the store's own lists of hidden names learns nothing: each answer is the one a
    made-up name gets, and no answer names any other hidden name (docs/principles.md principle 3)."""
    visible = visible_tables()
    hidden_by_table = hidden_columns()
    table_forms = ("SELECT * FROM {t}", "SELECT COUNT(*) AS n FROM {t}", "SELECT l.id FROM ledger AS l JOIN {t} ON 1")
    column_forms = ("SELECT {c} FROM {t}", "SELECT x.{c} FROM {t} AS x", 'SELECT "{c}" AS v FROM {t} LIMIT 1')
    probes = [(form.format(t=name), name) for name in HIDDEN_TABLES for form in table_forms]
    probes += [
        (form.format(c=name, t=table), name)
        for table, names in hidden_by_table.items()
        for name in names
        for form in column_forms
    ]
    assert len(probes) > 19 * 60  # every table, every hidden column name
    public = set(visible) | {c for cols in visible.values() for c in cols}
    secret = (set(HIDDEN_TABLES) | {c for names in hidden_by_table.values() for c in names}) - public
    made_up: dict[str, str] = {}
    for sql, name in probes:
        template = sql.replace(name, "{}")
        if template not in made_up:
            made_up[template] = agent_sees(session, template.format(MADE_UP), MADE_UP)
        seen = agent_sees(session, sql, name)
        assert seen == made_up[template], sql
        assert not set(re.findall(r"\w+", seen.lower())) & secret, (sql, seen)


def test_visible_columns_and_hints(session: CeoEnv) -> None:
    assert db(session).query("SELECT seat_count FROM subscriptions LIMIT 1")["row_count"] == 1
    r = db(session).query("SELECT * FROM subscriptions WHERE status = 'active'")
    assert r["row_count"] == 0 and "'subscribed'" in r["hint"]
    r = db(session).query("SELECT COUNT(*) AS n FROM subscriptions WHERE status = 'active'")
    assert r["rows"] == [{"n": 0}] and "subscriptions.status" in r["hint"] and "'subscribed'" in r["hint"]
    join = "SELECT COUNT(*) AS n FROM issues i JOIN subscriptions s USING (customer_id) WHERE i.status = 'open' AND "
    assert "hint" not in db(session).query(join + "s.status = 'subscribed'")
    r = db(session).query(join + "s.status = 'active'")
    assert "subscriptions.status" in r["hint"] and "issues.status" not in r["hint"]
    with pytest.raises(ToolError) as err:
        db(session).query("SELECT statuz FROM subscriptions")
    assert err.value.tamper is None and "first_billing_done" in str(err.value)
    with pytest.raises(ToolError) as err:
        db(session).query("SELECT * FROM subscription")
    assert err.value.tamper is None and "subscriptions" in str(err.value)
    big = db(session).query("SELECT * FROM daily_usage", max_rows=100)
    assert big["truncated"] and big["row_count"] == 100


def test_tool_changes_show_before_the_next_day(tmp_path: Path) -> None:
    """A tool call's effect on customers is visible at once (record_turn after the call)."""
    env = CeoEnv.from_preset("default", seed=3, db_path=tmp_path / "company.db")
    _ok(env, "set_targeted_ad_spend", targeted_spend={"content_marketing": {"E1": 3000.0}})
    for _ in range(3):
        env.next_turn()
    _seed_enterprise_leads(env, 1)
    env.next_turn(1)
    lead = int(env.world.book.threads[0].customer)
    assert db(env).query(f"SELECT status FROM subscriptions WHERE customer_id = {lead}")["rows"] == [{"status": "lead"}]
    _ok(env, "reject_enterprise_deal", deals=[lead])
    rows = db(env).query(f"SELECT status, plan FROM subscriptions WHERE customer_id = {lead}")["rows"]
    assert rows == [{"status": "lost", "plan": "pending"}]
    turns = db(env).query(f"SELECT closed, close_reason FROM enterprise_turns WHERE customer_id = {lead}")["rows"]
    assert turns and all(t == {"closed": 1, "close_reason": "agent_rejected"} for t in turns)


def test_query_from_another_thread_while_writing(tmp_path: Path) -> None:
    """Readers on another thread see committed snapshots while the session writes."""
    seen: list[int] = []
    errors: list[BaseException] = []
    stop = threading.Event()

    def reader(env_box: list[CeoEnv]) -> None:
        while not stop.is_set():
            if not env_box:
                continue
            try:
                seen.append(count(env_box[0], "subscriptions"))
                count(env_box[0], "service_day")
            except BaseException as exc:  # noqa: BLE001 - collected for the assertion
                errors.append(exc)
                return

    box: list[CeoEnv] = []

    def between(env: CeoEnv) -> None:
        if not box:
            box.append(env)

    t = threading.Thread(target=reader, args=(box,), daemon=True)
    t.start()
    try:
        env = run_session(tmp_path / "company.db", weeks=3, between=between)
        assert count(env, "service_day") == 21
    finally:
        stop.set()
        t.join(timeout=60)
    assert not errors, errors
    assert seen == sorted(seen)


def test_close_leaves_a_plain_readable_file(tmp_path: Path) -> None:
    env = run_session(tmp_path / "company.db", weeks=1)
    env.close()
    assert not Path(f"{tmp_path / 'company.db'}-wal").exists()
    assert count(env, "service_day") == 7  # queries still work on the closed store
    conn = sqlite3.connect(f"file:{tmp_path / 'company.db'}?mode=ro", uri=True)
    assert conn.execute("SELECT COUNT(*) FROM daily_usage").fetchone()[0] > 0
    conn.close()


def test_same_seed_same_actions_same_tables(session: CeoEnv, tmp_path: Path) -> None:
    other = run_session(tmp_path / "company.db")
    db(session).flush()
    db(other).flush()
    assert dump(db(other).path) == dump(db(session).path)


def test_close_keeps_every_index_of_the_schema(tmp_path: Path) -> None:
    env = run_session(tmp_path / "company.db", weeks=1)
    env.close()

    def indexes(conn: sqlite3.Connection) -> list[tuple[str, str]]:
        return conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'index' ORDER BY name").fetchall()

    schema = sqlite3.connect(":memory:")
    schema.executescript(SCHEMA_PATH.read_text() + STORAGE_PATH.read_text())
    conn = sqlite3.connect(tmp_path / "company.db")
    try:
        assert indexes(conn) == indexes(schema)
        assert {"customer_rows_group", "issue_rows_customer"} <= {name for name, _ in indexes(conn)}
    finally:
        conn.close()
        schema.close()


# ----------------------------------------------------------------------------- personas
def test_personas_are_deterministic_and_fit_the_kind() -> None:
    config, _ = load_config("default")
    ids = np.arange(2_000)
    groups = ids % len(config.groups)
    a = persona_columns(ids, groups, config.groups)
    b = persona_columns(ids[::-1].copy(), groups[::-1].copy(), config.groups)
    assert set(a) == {*PICKED, "email"}
    for col in a:
        assert a[col] == b[col][::-1]
    ent = np.array([config.groups[g].kind == "ENT" for g in groups])
    assert all((e is not None) == bool(k) for e, k in zip(a["email"], ent, strict=True))
    assert len(set(zip(*(a[col] for col in PICKED), strict=True))) > 1_500  # varied personas
    assert all(isinstance(v, str) and v for col in PICKED for v in a[col])
    # The same customer id in another group reads differently (the group is part of the hash).
    other = persona_columns(ids, (groups + 1) % len(config.groups), config.groups)
    assert other["persona_role"] != a["persona_role"]


def test_every_persona_field_fits_its_bits_of_the_code() -> None:
    config, _ = load_config("default")
    counts: dict[tuple[str, int], int] = {}
    for field, group, _, _ in persona_vocabulary(config.groups):
        counts[(group, field)] = counts.get((group, field), 0) + 1
    assert len(counts) == len(config.groups) * len(PICKED)
    assert max(counts.values()) <= 1 << CODE_BITS


def test_a_query_beside_next_week_sees_every_customer_and_status_of_the_day(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``query`` takes no call lock, so it can run while ``next_week`` steps its days: on days inside a
    turn it reads every customer the world has (no issue without its customer row) and every status
    of the day; after the turn, every field of every row (store.py, "Lazy tables")."""
    env = CeoEnv.from_preset("default", seed=42, horizon_days=42, db_path=tmp_path / "company.db")
    seen: list[int] = []
    record_day = CeoStore.record_day

    def then_query(store: CeoStore, e: CeoEnv) -> None:
        record_day(store, e)
        if e.world.day % 7 in (3, 5):  # inside a turn
            cust = e.world.state.customers
            assert count(e, "customers") == cust.n
            subscribed = count_where(e, "subscriptions", "status = 'subscribed'")
            assert subscribed == int((cust.status == SUBSCRIBED).sum())
            orphans = "customer_id NOT IN (SELECT customer_id FROM customers)"
            assert count_where(e, "issues", orphans) == 0
            seen.append(e.world.day)

    monkeypatch.setattr(CeoStore, "record_day", then_query)
    policy = make_policy("rule-based")
    while not env.done:
        policy.act(env)
        if not env.done:
            _ok(env, "next_week", rationale="week", predictions=PREDICTIONS)
    assert len(seen) == 12
    test_subscriptions_match_the_world(env)


def test_a_turn_an_error_cut_short_still_closes_with_every_field_of_its_days(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A day that raises ends ``next_week`` with an error after the days before it were recorded; those
    days' customers reach the file in full at ``close()``, prices and plans of the bills included, not
    only their statuses (store.py, "Lazy tables")."""
    from bizbench.envs.ceo.world.world import World

    env = CeoEnv.from_preset("default", seed=42, horizon_days=70, db_path=tmp_path / "company.db")
    policy = make_policy("rule-based")
    for _ in range(7):  # the first subscribers (day 22 on) are billed again from day 52
        policy.act(env)
        _ok(env, "next_week", rationale="week", predictions=PREDICTIONS)
    step_day = World.step_day

    def fails_on_day_54(world: World, *args: Any, **kwargs: Any) -> dict[str, Any]:
        if world.day == 53:
            raise RuntimeError("a bug on day 54")
        return step_day(world, *args, **kwargs)

    monkeypatch.setattr(World, "step_day", fails_on_day_54)
    prices = env.world.state.settings.prices
    _ok(env, "set_prices", A=float(prices[0]) * 0.9, B=float(prices[1]) * 0.9)  # the bills of days 50-53 lower them
    cust = env.world.state.customers
    fields = ("plan", "listed_price", "promotion", "effective_price", "first_billing_done")
    before = {name: cust.column(name).copy() for name in fields}
    assert not env.call("next_week", rationale="week", predictions=PREDICTIONS).ok
    assert env.world.day == 53
    n = len(before["plan"])
    kept = cust.status[:n] == SUBSCRIBED
    assert any((cust.column(name)[:n] != before[name])[kept].any() for name in fields)
    env.close()
    test_subscriptions_match_the_world(env)


def test_a_host_session_answers_sql_from_a_company_db_of_its_own_and_replays_no_query(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`bizbench ceo --session DIR query ...` (docs/seats.md): the daemon's env keeps company.db with
    the host state, never in DIR. A restarted daemon replays the record without running its
    queries again (reads change nothing; ReplayRules), and answers as before."""
    import json
    import os
    import subprocess
    import sys

    from bizbench.core.cmdsession import CommandSession

    d, state = tmp_path / "s", tmp_path / "state"
    monkeypatch.setenv("BIZBENCH_STATE_DIR", str(state))
    env = dict(os.environ)
    env.pop("BIZBENCH_SEED_SECRET", None)

    def host(*words: str) -> Any:
        cmd = [sys.executable, "-m", "bizbench.entry", "ceo", "--session", str(d), *words]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=env)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        return json.loads(proc.stdout)

    forecast = json.dumps(
        {k: {"point": 1, "lower": 0, "upper": 2} for k in ("cash_1wk", "cash_4wk", "cash_12wk", "cash_26wk")}
    )
    sql = "SELECT COUNT(*) AS days, MIN(day) AS first FROM service_day"
    session = CommandSession("ceo", d)
    host("sim", "init", "--seed", "3", "--horizon", "14")
    try:
        host("set", "daily", "spend", "--operations", "500")
        host("next", "week", "--rationale", "first week", "--predictions", forecast)
        first = host("query", "--sql", sql)
        assert first["rows"] == [{"days": 7, "first": 1}]
        before = host("sim", "result")
        pid = (session.state_dir / "daemon.pid").read_text()
        session.stop_daemon()
        assert host("query", "--sql", sql) == first  # a new daemon, its company.db rebuilt
        assert (session.state_dir / "daemon.pid").read_text() != pid
        ops = "SELECT spend_operations AS ops FROM config_history ORDER BY day DESC LIMIT 1"
        assert host("query", "--sql", ops)["rows"] == [{"ops": 500.0}]
        after = host("sim", "result")
        assert after["tool_calls"] == before["tool_calls"] + 2  # the replayed query counted, not run
        assert session.load().world.day == 7  # replayed without files: no query is run again
        assert sorted(p.name for p in d.iterdir()) == ["session.json"]
    finally:
        session.stop_daemon()

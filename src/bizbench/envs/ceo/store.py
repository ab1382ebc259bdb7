"""The agent-visible SQLite database of a ceo session and its read-only query interface.

The file holds exactly the 19 agent-visible tables of ref/ceo-bench-reference.md §5.1
(``schema.sql``). Hidden state is never written, not even to be stripped at query time, so
no SQL can reach it; hidden table names (§5.2) and hidden column names (§5.1 "stripped
columns", and the world's hidden customer columns) are refused by name in errors and tagged
for the tamper log. Queries go through :class:`bizbench.core.sqlguard.SqlGuard` (§5.3).

Writing (the session calls these; all writes are incremental):

- ``record_settings(env)`` after a tool call that may change settings: a ``config_history``
  row for the current day when a price, tier, quota, spend, capacity or channel ad total
  changed (one row per day, replaced within the day). A setting made on day D applies from
  day D+1 (ref §1.2 step 1).
- ``record_day(env)`` after every simulated day: that day's service, channel, issue, usage
  and ad-revenue rows, plus everything ``record_turn`` writes.
- ``record_turn(env)``: the rows the world or the session appended since the last call
  (customers, subscriptions, ledger, notifications, R&D, macro publications, group levels,
  overrides, predictions, market research, social posts, agent posts, enterprise turns).
  Marks remember how far each log was written; ``subscriptions`` rows are upserted only for
  customers whose visible fields changed, found by a vectorised diff against a saved copy
  of those columns.

Each call is one transaction; the file is in WAL mode, so a reader on another thread (each
``query`` opens its own read-only connection) sees the last committed snapshot while the
writer runs.

Per-customer daily tables (``daily_usage``, ``ads_revenue``) keep a rolling window of the
last 30 days. Inserting 100K rows per day costs ~0.2 s (measured: 1.3 s per 700K-row week
with ``executemany``), far over the budget of 0.3 s per simulated week at 100K active
subscribers, so these two tables are **materialised lazily**: each day's columns go into a
numpy ring buffer of 30 days (a copy of two or four arrays), and the rows are written (bulk
``INSERT ... SELECT FROM json_each``, days older than the window deleted) only when a query
names one of the tables, and on ``flush()``/``close()``. A query therefore always sees the
full window.

``close()`` checkpoints and switches the file back to a rollback journal so it can be read
later (``mode=ro``) without its ``-wal``/``-shm`` companions. Opening a store on an existing
path replaces the file: a resumed session rebuilds it by replaying its actions.
"""

from __future__ import annotations

import json
import logging
import re
import sqlite3
import threading
from collections import deque
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from bizbench.core.registry import ToolError
from bizbench.core.sqlguard import SqlGuard
from bizbench.envs.ceo.config import CHANNELS, PLANS, CeoConfig
from bizbench.envs.ceo.personas import PERSONA_COLUMNS, persona_columns, persona_rows
from bizbench.envs.ceo.world.customers import COLUMNS as CUSTOMER_COLUMNS
from bizbench.envs.ceo.world.customers import NONE, SOURCE_NETWORK, SOURCE_ORGANIC, SUBSCRIBED

__all__ = ["CeoStore", "describe_tables", "visible_tables", "HIDDEN_TABLES", "STRIPPED_COLUMNS", "ENUMS"]

logger = logging.getLogger(__name__)

SCHEMA_PATH = Path(__file__).with_name("schema.sql")
WINDOW_DAYS = 30  # daily_usage / ads_revenue keep days d-29 .. d (ref §5.1 "last ~30 days")
LAZY_TABLES = ("daily_usage", "ads_revenue")
_LAZY_RE = re.compile(r"\b(daily_usage|ads_revenue)\b", re.IGNORECASE)

# Columns the engine keeps in visible tables but strips from answers (ref §5.1). bizbench
# never writes them; they are listed so naming one is refused as hidden, not as a typo.
STRIPPED_COLUMNS: dict[str, tuple[str, ...]] = {
    "customers": (
        "steepness_left", "steepness_right", "c_max", "q_max", "q_min", "usage_demand", "reply_delay_mean",
        "reply_delay_std", "negotiation_rate", "initial_offer_factor", "max_negotiation_turns",
        "contract_lockin_penalty", "persona_communication", "quality_sensitivity", "price_sensitivity",
        "willingness_to_pay", "usage_scale", "patience", "seat_count", "ads_quality_sensitivity",
        "ads_return_sensitivity",
    ),
    "subscriptions": ("effective_c_max", "daily_usage_rate", "billing_period_usage", "churn_reason"),
    "social_media_posts": (
        "customer_id", "sentiment", "likes", "shares", "virality_score", "reputation_impact", "influence_score",
    ),
    "enterprise_turns": ("next_reply_day", "current_offer_price", "_internal_status"),
    "research_projects": ("actual_completion_day", "current_decay_reduction", "decay_reduction_expiry_day"),
    "segment_discovery": ("remaining_undiscovered",),
    "ads_revenue": ("sensitivity", "seat_count"),
}  # fmt: skip

# Hidden tables (ref §5.2), blocked by name.
HIDDEN_TABLES: tuple[str, ...] = (
    "customer_state", "group_reputation", "reputation_history", "group_awareness", "global_state",
    "group_parameters", "competitor_events", "events", "pending_group_research", "api_costs",
    "customer_personas", "customer_persona_map", "group_characteristics", "world_context",
    "enterprise_thread_counter", "feature_tests", "test_assignments", "_hidden_leads_per_1k_snapshot",
    "_hidden_group_params_history", "_hidden_lead_multiplier_snapshot", "_hidden_quality_snapshot",
    "_hidden_satisfaction_snapshot", "global_drift_state", "group_insight_snapshots", "_rng_states",
)  # fmt: skip

# Names of hidden state anywhere in the world (customer columns, post engagement, thread
# internals): refused in any table unless the table has a visible column of that name.
_WORLD_HIDDEN = (
    "satisfaction", "relationship", "reputation", "issue_days", "usage_rate", "period_usage", "seats",
    "s_left", "s_right", "lockin", "eta_ads", "rho_ads", "reply_mean", "reply_sd", "offer_factor", "max_turns",
    "deal_noise", "first_promotion", "satisfaction_change", "issue_open_day", "virality", "influence",
    "q_drift", "c_drift", "quality_bonus", "bank", "wtp",
)  # fmt: skip

ENUMS: dict[tuple[str, str], tuple[str, ...]] = {
    ("subscriptions", "status"): ("lead", "subscribed", "cancelled", "lost"),
    ("subscriptions", "plan"): ("A", "B", "C", "pending"),
    ("enterprise_turns", "sender"): ("system", "customer", "agent"),
    ("enterprise_turns", "thread_type"): ("new_lead", "churn_prevention", "plan_change", "renegotiation", "renewal"),
    ("enterprise_turns", "close_reason"): ("", "accepted", "agent_rejected"),
    ("issues", "status"): ("open", "resolved"),
    ("customers", "customer_type"): ("small", "large"),
    ("notifications", "type"): (
        "large_customer_message", "lead_lost", "deal_won", "research_complete", "group_research_complete",
        "macro_economic_update", "market_discovery", "contract_renewal", "customer_churned", "social_media",
    ),
    ("ledger", "category"): (
        "initial_funding", "subscription_payment", "ad_revenue", "capacity", "compute", "operations",
        "development", "advertising", "lead_acquisition_cost", "market_research", "group_research",
        "research_project",
    ),
    ("research_projects", "status"): ("in_progress", "completed"),
}  # fmt: skip

TABLE_NOTES: dict[str, str] = {
    "customers": "One row per sampled prospect (leads, lost leads, subscribers); persona text, source, email "
    "(enterprise). customer_type 'small' (individual) or 'large' (enterprise).",
    "subscriptions": "One row per customer that became a lead: plan, prices, status (lead, subscribed, cancelled, "
    "lost), billing anchor (start day mod 30), seats and contract. Active: status='subscribed'.",
    "daily_usage": "Usage units per active customer and day, last 30 days.",
    "ledger": "Every cash movement (amount in $; income > 0, costs < 0). Cash = SUM(amount).",
    "service_day": "Daily load and service health: usage, p95 latency, error rate, downtime, capacity.",
    "config_history": "One row per day on which prices, tiers, quotas, spend or capacity changed; a row of day D "
    "applies from day D+1. ad_spend_<channel> is the total $/day on that channel.",
    "social_media_posts": "Public posts by customers and the market (source_group_id is the author's group).",
    "agent_social_media_posts": "Your posts with their judged effect, views and reply post ids per group.",
    "predictions": "Your cash forecasts from each next_week (horizons 7, 28, 84, 182 days).",
    "enterprise_turns": "Every message of every enterprise negotiation thread.",
    "notifications": "Deals won, leads lost, research completions, discoveries, macro updates and more.",
    "research_projects": "Your R&D projects (expected_quality_boost is the sampled gain).",
    "macroeconomic_conditions": "Published monthly PMI readings (day = publication day).",
    "ad_channel_leads": "Spend and attributed leads per day, channel and group.",
    "group_info_levels": "Discovery state and information level of all 26 groups.",
    "segment_discovery": "Your market-research attempts.",
    "issues": "Support issues: open day, days open, status (open, resolved), resolution.",
    "ads_revenue": "In-app ad revenue per customer and day (ads_strength is the effective load), last 30 days.",
    "config_overrides": "Your map-valued settings (targeted spend, promotions, ads strength) as JSON, by day.",
}

_PLAN_TEXT = np.array(list(PLANS), dtype=object)
_STATUS_TEXT = np.array([None, "lead", "subscribed", "cancelled", "lost"], dtype=object)
_SOURCE_TEXT = np.array([*CHANNELS, "network", "organic"], dtype=object)
assert len(_SOURCE_TEXT) == SOURCE_ORGANIC + 1 and _SOURCE_TEXT[SOURCE_NETWORK] == "network"
assert {"status", "plan", "seats", "start_day", "end_day"} <= set(CUSTOMER_COLUMNS)
_CLOSED_REASONS = ("accepted", "agent_rejected")  # other dead threads keep closed=0 (ref §5.1)
_VISIBLE_POST_KEYS = ("post_id", "day", "content", "reply_to_agent_post_id", "source_group_id")


@lru_cache(maxsize=1)
def _schema_info() -> dict[str, list[tuple[str, str]]]:
    """(column, type) of every table, read from ``schema.sql`` (the single source)."""
    conn = sqlite3.connect(":memory:")
    try:
        conn.executescript(SCHEMA_PATH.read_text())
        names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table' ORDER BY rowid")]
        return {t: [(r[1], r[2]) for r in conn.execute(f"PRAGMA table_info({t})")] for t in names}
    finally:
        conn.close()


def visible_tables() -> dict[str, list[str]]:
    """The 19 agent-visible tables and their columns (ref §5.1)."""
    return {t: [c for c, _ in cols] for t, cols in _schema_info().items()}


def describe_tables() -> list[dict[str, Any]]:
    """Tables, columns with SQLite types, a one-line description and enum values (for the agent)."""
    out = []
    for table, cols in _schema_info().items():
        columns = []
        for name, typ in cols:
            col: dict[str, Any] = {"name": name, "type": typ}
            if (table, name) in ENUMS:
                col["values"] = list(ENUMS[(table, name)])
            columns.append(col)
        out.append({"table": table, "description": TABLE_NOTES.get(table, ""), "columns": columns})
    return out


def hidden_columns() -> dict[str, frozenset[str]]:
    """Per visible table, the hidden names refused with ``hidden_column``."""
    every = set(_WORLD_HIDDEN) | {c for cols in STRIPPED_COLUMNS.values() for c in cols} - {"customer_id"}
    out = {}
    for table, cols in visible_tables().items():
        out[table] = frozenset((every | set(STRIPPED_COLUMNS.get(table, ()))) - set(cols))
    return out


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=_json_default, separators=(",", ":"))


def _json_default(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    return str(value)


class CeoStore:
    """Writer of a session's agent-visible database, and its query entry point."""

    def __init__(self, path: Path, config: CeoConfig) -> None:
        self.path = Path(path)
        self.config = config
        self.path.parent.mkdir(parents=True, exist_ok=True)
        for suffix in ("", "-wal", "-shm", "-journal"):
            Path(f"{self.path}{suffix}").unlink(missing_ok=True)
        self._lock = threading.RLock()
        self._conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False, timeout=10.0)
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA synchronous=NORMAL")
        self._conn.executescript(SCHEMA_PATH.read_text())
        self._guard = SqlGuard(
            self.path, visible_tables(), hidden_tables=HIDDEN_TABLES, hidden_columns=hidden_columns(), enums=ENUMS
        )
        self._closed = False
        self._groups = list(config.groups)
        self._group_ids = np.array([g.id for g in config.groups], dtype=object)
        self._is_ent = np.array([g.kind == "ENT" for g in config.groups], dtype=bool)
        self._day = 0
        # marks: how far each append-only log has been written
        self._marks: dict[str, int] = {}
        self._n_customers = 0
        self._saved: dict[str, np.ndarray] = {}  # visible subscription columns as last written
        self._open_issue = np.zeros(0, dtype=np.int64)  # customer -> open issue id (0: none)
        self._next_issue = 1
        self._next_channel_row = 1
        self._settings_row: tuple[Any, ...] | None = None
        self._group_state: np.ndarray | None = None
        self._projects: dict[str, bool] = {}  # project id -> completed, as written
        self._agent_posts: dict[int, tuple[Any, ...]] = {}
        self._live_threads: list[int] = []  # indices of threads not yet final in the table
        self._thread_state: dict[int, tuple[int, int, str]] = {}  # index -> (turns written, closed, reason)
        self._emails: dict[int, str | None] = {}
        # lazy per-customer tables: ring buffers of the last 30 days and days already in the file
        self._usage_ring: deque[tuple[int, np.ndarray, np.ndarray]] = deque(maxlen=WINDOW_DAYS)
        self._ads_ring: deque[tuple[int, np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = deque(maxlen=WINDOW_DAYS)
        self._in_file: dict[str, set[int]] = {t: set() for t in LAZY_TABLES}

    # ------------------------------------------------------------------ public: writing
    def record_settings(self, env: Any) -> None:
        """Write a ``config_history`` row for today if the config-row settings changed."""
        with self._lock, self._transaction():
            self._write_settings(env)

    def record_turn(self, env: Any) -> None:
        """Write everything appended since the last call (session logs, threads, posts, ...)."""
        with self._lock, self._transaction():
            self._sync(env)

    def record_day(self, env: Any) -> None:
        """Write the day just simulated; call after every ``World.step_day``."""
        w = env.world
        with self._lock, self._transaction():
            self._sync(env)
            self._write_service(w)
            self._write_channels(w)
            self._write_issues(w)
            self._buffer_usage(w.state)
            self._buffer_ads(w)

    def flush(self) -> None:
        """Materialise the lazy tables and checkpoint the WAL."""
        with self._lock:
            if self._closed:
                return
            with self._transaction():
                self._materialise(LAZY_TABLES)
            self._conn.execute("PRAGMA wal_checkpoint(PASSIVE)")

    def close(self) -> None:
        """Flush, leave a self-contained file (rollback journal) and close the writer."""
        with self._lock:
            if self._closed:
                return
            self.flush()
            try:
                self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                self._conn.execute("PRAGMA journal_mode=DELETE")
            except sqlite3.OperationalError:  # a reader still holds the file; it stays in WAL mode
                logger.warning("store: could not leave WAL mode at close")
            self._conn.close()
            self._closed = True

    # ------------------------------------------------------------------ public: reading
    def query(self, sql: str, timeout_s: float = 30.0, max_rows: int = 5000) -> dict[str, Any]:
        """Run one read-only SELECT (ref §5.3); errors are :class:`ToolError` only."""
        if isinstance(sql, str) and _LAZY_RE.search(sql):
            try:
                with self._lock:
                    if not self._closed and self._lazy_pending():
                        with self._transaction():
                            self._materialise([t for t in LAZY_TABLES if re.search(rf"\b{t}\b", sql, re.I)])
            except Exception:
                logger.exception("store: materialising the daily tables failed")
                raise ToolError("The database is being updated; please retry the query.") from None
        return self._guard.query(sql, timeout_s=timeout_s, max_rows=max_rows)

    # ------------------------------------------------------------------ internals
    @contextmanager
    def _transaction(self) -> Iterator[None]:
        if self._closed:
            raise RuntimeError("the store is closed")
        self._conn.execute("BEGIN")
        try:
            yield
        except BaseException:
            self._conn.execute("ROLLBACK")
            raise
        self._conn.execute("COMMIT")

    def _take(self, name: str, log: Sequence[Any]) -> tuple[int, Sequence[Any]]:
        """New entries of an append-only log since its mark, and the mark (advanced)."""
        start = self._marks.get(name, 0)
        self._marks[name] = len(log)
        return start, log[start:]

    def _sync(self, env: Any) -> None:
        w = env.world
        st = w.state
        self._day = int(st.day)
        self._write_settings(env)
        self._write_customers(st)
        self._write_ledger(st)
        self._write_notifications(w)
        self._write_projects(st)
        self._write_macro(st)
        self._write_group_levels(st)
        self._write_overrides(env)
        self._write_predictions(env)
        self._write_market_research(env)
        self._write_social_posts(w)
        self._write_agent_posts(st)
        self._write_threads(w)

    # -- settings (config_history)
    def _write_settings(self, env: Any) -> None:
        s = env.world.state.settings
        ads = np.asarray(s.ad_spend, dtype=np.float64)
        row = (
            *(float(x) for x in s.prices),
            *(int(x) for x in s.tiers),
            float(ads.sum()),  # spend_advertising: engine legacy 0; bizbench writes the total (schema.sql)
            float(s.operations),
            float(s.development),
            int(s.capacity_tier),
            *(float(x) for x in ads.sum(axis=0)),  # per channel, summed over groups
            *(int(round(float(x))) for x in s.quotas),
        )
        if row == self._settings_row:
            return
        self._settings_row = row
        self._conn.execute(
            f"INSERT OR REPLACE INTO config_history VALUES ({','.join('?' * 19)})", (env.world.day, *row)
        )

    # -- customers and subscriptions
    def _visible_subscription_columns(self, cust: Any) -> dict[str, np.ndarray]:
        return {
            "status": cust.status,
            "plan": cust.plan,
            "listed_price": cust.listed_price,
            "promotion": cust.promotion,
            "effective_price": cust.effective_price,
            "start_day": cust.start_day,
            "end_day": cust.end_day,
            "billing_mod": cust.billing_mod,
            "seats": np.floor(cust.seats),
            "first_billing_done": cust.first_billing_done,
        }

    def _write_customers(self, st: Any) -> None:
        cust = st.customers
        n, old = int(cust.n), self._n_customers
        cols = self._visible_subscription_columns(cust)
        changed = np.ones(n, dtype=bool)
        start_changed = np.zeros(old, dtype=bool)
        if old:
            changed[:old] = False
            for name, arr in cols.items():
                diff = arr[:old] != self._saved[name]
                changed[:old] |= diff
                if name == "start_day":
                    start_changed = diff
        if n > old:
            self._insert_customers(cust, np.arange(old, n))
        moved = np.flatnonzero(start_changed)
        if len(moved):
            self._conn.executemany(
                "UPDATE customers SET contract_start_day = NULLIF(?, -1) WHERE customer_id = ?",
                zip(cust.start_day[moved].tolist(), moved.tolist(), strict=True),
            )
        rows = np.flatnonzero(changed & (cols["status"] != NONE))
        if len(rows):
            self._upsert_subscriptions(cust, rows, cols)
        self._saved = {name: arr.copy() for name, arr in cols.items()}
        self._n_customers = n

    def _insert_customers(self, cust: Any, idx: np.ndarray) -> None:
        g = cust.group[idx].astype(np.int64)
        kind = np.where(self._is_ent[g], "large", "small").astype(object)
        personas = persona_rows(idx, g, self._groups)
        rows = zip(
            idx.tolist(),
            kind.tolist(),
            self._group_ids[g].tolist(),
            cust.created_day[idx].tolist(),
            personas,
            cust.start_day[idx].tolist(),
            _SOURCE_TEXT[cust.source[idx].astype(np.int64)].tolist(),
            strict=True,
        )
        self._conn.executemany(
            f"INSERT INTO customers VALUES (?,?,?,?,{','.join('?' * len(PERSONA_COLUMNS))},NULLIF(?, -1),?)",
            ((c, k, gid, day, *p, start, src) for c, k, gid, day, p, start, src in rows),
        )

    def _upsert_subscriptions(self, cust: Any, idx: np.ndarray, cols: dict[str, np.ndarray]) -> None:
        plan = cols["plan"][idx].astype(np.int64)
        ent = self._is_ent[cust.group[idx].astype(np.int64)]
        start = cols["start_day"][idx].astype(np.int64)
        plan_text = np.where(plan >= 0, _PLAN_TEXT[np.clip(plan, 0, len(PLANS) - 1)], np.where(ent, "pending", None))
        months = np.where(start >= 0, 1, -1)  # contracts are always one month (ref §4.23)
        contract_end = np.where(ent & (start >= 0), start + 30 * months, -1)
        self._conn.executemany(
            "INSERT OR REPLACE INTO subscriptions VALUES "
            "(?,?,?,?,?,?,NULLIF(?, -1),NULLIF(?, -1),?,?,NULL,NULL,?,NULLIF(?, -1),NULLIF(?, -1),?)",
            zip(
                (idx + 1).tolist(),
                idx.tolist(),
                plan_text.tolist(),
                cols["listed_price"][idx].tolist(),
                cols["promotion"][idx].tolist(),
                cols["effective_price"][idx].tolist(),
                start.tolist(),
                cols["end_day"][idx].tolist(),
                _STATUS_TEXT[cols["status"][idx].astype(np.int64)].tolist(),
                cols["billing_mod"][idx].tolist(),
                cols["seats"][idx].astype(np.int64).tolist(),
                months.tolist(),
                contract_end.tolist(),
                cols["first_billing_done"][idx].astype(np.int64).tolist(),
                strict=True,
            ),
        )

    # -- append-only logs
    def _write_ledger(self, st: Any) -> None:
        start, rows = self._take("ledger", st.ledger.rows)
        self._conn.executemany(
            "INSERT INTO ledger VALUES (?,?,?,?,?)",
            (
                (start + k + 1, r.day, r.category, r.cents / 100, f"{r.note} [{r.group}]" if r.group else r.note)
                for k, r in enumerate(rows)
            ),
        )

    def _write_notifications(self, w: Any) -> None:
        start, rows = self._take("notifications", w.notifications)
        self._conn.executemany(
            "INSERT INTO notifications VALUES (?,?,?,?)",
            ((n.get("notification_id", start + k + 1), n["day"], n["type"], n["message"]) for k, n in enumerate(rows)),
        )

    def _write_overrides(self, env: Any) -> None:
        start, rows = self._take("overrides", getattr(env, "overrides", ()))
        self._conn.executemany(
            "INSERT INTO config_overrides VALUES (?,?,?,?,?)",
            (
                (start + k + 1, o["day"], o["tool_name"], o["tool_name"].removeprefix("set_"), _json(o["settings"]))
                for k, o in enumerate(rows)
            ),
        )

    def _write_predictions(self, env: Any) -> None:
        _, rows = self._take("predictions", getattr(env, "predictions", ()))
        keys = ("submit_day", "horizon_days", "metric", "predicted_value", "predicted_lower", "predicted_upper")
        self._conn.executemany(
            "INSERT INTO predictions VALUES (?,?,?,?,?,?,?)",
            (tuple(p[k] for k in keys) + (p.get("submitted_at", float(p["submit_day"])),) for p in rows),
        )

    def _write_market_research(self, env: Any) -> None:
        start, rows = self._take("market_research", getattr(env, "market_research_log", ()))
        self._conn.executemany(
            "INSERT INTO segment_discovery VALUES (?,?,?,?,?)",
            (
                (
                    start + k + 1,
                    r["day"],
                    float(r["cost"]),
                    int(bool(r["success"])),
                    r.get("discovered_group_id", r.get("group_id")),
                )
                for k, r in enumerate(rows)
            ),
        )

    def _write_social_posts(self, w: Any) -> None:
        _, rows = self._take("social_posts", getattr(w, "social_posts", ()))
        self._conn.executemany(  # visible keys only; author, sentiment, engagement stay hidden
            "INSERT INTO social_media_posts VALUES (?,?,?,?,?)",
            (tuple(p.get(k) for k in _VISIBLE_POST_KEYS) for p in rows),
        )

    def _write_macro(self, st: Any) -> None:
        """Readings published by today (visible_day <= day), dated by publication (ref §4.15)."""
        readings = st.macro_readings
        k = self._marks.get("macro", 0)
        rows = []
        while k < len(readings) and readings[k].get("visible_day", readings[k]["day"]) <= st.day:
            r = readings[k]
            desc = r.get("description") or (
                f"Monthly PMI {r['pmi_value']:.1f} ({r['pmi_change']:+.1f}); "
                f"{r['pmi_trend'].replace('_', ' ')}, {r['cycle_phase']} phase."
            )
            rows.append(
                (
                    r.get("visible_day", r["day"]),
                    r["pmi_value"],
                    r["pmi_trend"],
                    r["pmi_change"],
                    r["cycle_phase"],
                    desc,
                )
            )
            k += 1
        self._marks["macro"] = k
        self._conn.executemany("INSERT OR REPLACE INTO macroeconomic_conditions VALUES (?,?,?,?,?,?)", rows)

    # -- small mutable tables
    def _write_projects(self, st: Any) -> None:
        rows = []
        for p in st.rnd_projects:
            if self._projects.get(p.project_id) == bool(p.completed):
                continue
            self._projects[p.project_id] = bool(p.completed)
            status = "completed" if p.completed else "in_progress"
            applied = float(p.gain) if p.completed else 0.0
            rows.append((p.project_id, p.tier, status, p.start_day, p.completion_day, float(p.gain), applied))
        self._conn.executemany("INSERT OR REPLACE INTO research_projects VALUES (?,?,?,?,?,?,?)", rows)

    def _write_group_levels(self, st: Any) -> None:
        state = np.stack(
            [np.asarray(st.info_level), np.asarray(st.discovered_day), np.asarray(st.last_research_day)]
        ).astype(np.int64)
        prev = self._group_state
        changed = np.arange(state.shape[1]) if prev is None else np.flatnonzero((state != prev).any(axis=0))
        self._group_state = state
        self._conn.executemany(
            "INSERT OR REPLACE INTO group_info_levels VALUES (?,?,?,NULLIF(?, -1),NULLIF(?, -1))",
            (
                (self._groups[g].id, int(state[0, g]), int(self._groups[g].discoverable), *state[1:, g].tolist())
                for g in changed.tolist()
            ),
        )

    def _write_agent_posts(self, st: Any) -> None:
        for post in st.agent_posts:
            row = self._agent_post_row(post)
            if self._agent_posts.get(post.post_id) != row:
                self._agent_posts[post.post_id] = row
                self._conn.execute("INSERT OR REPLACE INTO agent_social_media_posts VALUES (?,?,?,?,?,?,?,?,?)", row)

    def _agent_post_row(self, post: Any) -> tuple[Any, ...]:
        effect = views_by_group = None
        views = None
        if post.scores is not None and post.views is not None:
            seen = np.flatnonzero(np.asarray(post.views) > 0)
            effect = _json({self._groups[g].id: round(float(post.scores[g]), 6) for g in seen})
            views_by_group = _json({self._groups[g].id: int(post.views[g]) for g in seen})
            views = int(np.asarray(post.views).sum())
        comments = _json(list(getattr(post, "comment_post_ids", [])))
        reasoning = _json(dict(getattr(post, "reasoning", {})))
        return (post.post_id, post.day, post.content, post.reply_to, effect, views, views_by_group, comments, reasoning)

    def _write_threads(self, w: Any) -> None:
        threads = w.book.threads
        start, _ = self._take("threads", threads)
        self._live_threads.extend(range(start, len(threads)))
        if not self._live_threads:
            return
        cust = w.state.customers
        missing = [threads[i].customer for i in self._live_threads if threads[i].customer not in self._emails]
        if missing:
            ids = np.array(sorted(set(missing)), dtype=np.int64)
            emails = persona_columns(ids, cust.group[ids].astype(np.int64), self._groups)["email"]
            self._emails.update(zip(ids.tolist(), emails, strict=True))
        still_live = []
        rows, updates = [], []
        for i in self._live_threads:
            t = threads[i]
            written, closed_before, reason_before = self._thread_state.get(i, (0, 0, ""))
            closed, reason = (1, t.status) if t.status in _CLOSED_REASONS else (0, "")
            seats = int(np.floor(cust.seats[t.customer]))
            for k, turn in enumerate(t.turns[written:], start=written):
                offer = turn.get("offer")
                rows.append(
                    (
                        turn.get("message_id"),
                        t.thread_id,
                        t.customer,
                        t.kind,
                        turn.get("turn", k),
                        turn["sender"],
                        turn["text"],
                        None if offer is None else _json(offer),
                        turn["day"],
                        self._emails.get(t.customer),
                        seats,
                        closed,
                        reason,
                    )
                )
            if written and (closed, reason) != (closed_before, reason_before):
                updates.append((closed, reason, t.thread_id))
            self._thread_state[i] = (len(t.turns), closed, reason)
            if t.status == "open":
                still_live.append(i)
        self._live_threads = still_live
        self._conn.executemany("INSERT INTO enterprise_turns VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)", rows)
        self._conn.executemany("UPDATE enterprise_turns SET closed = ?, close_reason = ? WHERE thread_id = ?", updates)

    # -- per-day tables
    def _write_service(self, w: Any) -> None:
        start, rows = self._take("service", w.service_history)
        self._conn.executemany(
            "INSERT OR REPLACE INTO service_day VALUES (?,?,?,?,?,?,?)",
            (
                (
                    start + k + 1,
                    int(round(s.total_usage)),
                    float(s.p95_ms),
                    float(s.error_rate),
                    int(s.downtime_minutes),
                    int(s.capacity_tier),
                    int(round(s.capacity_units)),
                )
                for k, s in enumerate(rows)
            ),
        )

    def _write_channels(self, w: Any) -> None:
        _, entries = self._take("channels", w.channel_log)
        rows = []
        for day, spend, leads in entries:
            g, c = np.nonzero((np.asarray(spend) > 0) | (np.asarray(leads) > 0))
            for gi, ci in zip(g.tolist(), c.tolist(), strict=True):
                rows.append(
                    (
                        self._next_channel_row,
                        day,
                        CHANNELS[ci],
                        self._groups[gi].id,
                        int(leads[gi, ci]),
                        float(spend[gi, ci]),
                    )
                )
                self._next_channel_row += 1
        self._conn.executemany("INSERT INTO ad_channel_leads VALUES (?,?,?,?,?,?)", rows)

    def _write_issues(self, w: Any) -> None:
        """One issue per customer, open until resolved; ids in open order (ref §4.9)."""
        cust = w.state.customers
        if len(self._open_issue) < cust.n:
            self._open_issue = np.concatenate([self._open_issue, np.zeros(cust.n - len(self._open_issue), np.int64)])
        _, entries = self._take("issues", w.issue_log)
        for day, opened, resolved in entries:
            resolved = np.asarray(resolved, dtype=np.int64)
            ids = self._open_issue[resolved]
            ids = ids[ids > 0]
            self._open_issue[resolved] = 0
            self._conn.executemany(
                "UPDATE issues SET status = 'resolved', resolved_day = ?, days_open = ? - open_day, "
                "resolution_type = 'ops_resolved' WHERE issue_id = ?",
                ((day, day, i) for i in ids.tolist()),
            )
            opened = np.asarray(opened, dtype=np.int64)
            new_ids = np.arange(self._next_issue, self._next_issue + len(opened), dtype=np.int64)
            self._next_issue += len(opened)
            self._open_issue[opened] = new_ids
            self._conn.executemany(
                "INSERT INTO issues VALUES (?,?,?,?,0,'open',NULL,NULL)",
                zip(
                    new_ids.tolist(),
                    opened.tolist(),
                    self._group_ids[cust.group[opened].astype(np.int64)].tolist(),
                    [day] * len(opened),
                    strict=True,
                ),
            )
        if entries:
            self._conn.execute("UPDATE issues SET days_open = ? - open_day WHERE status = 'open'", (self._day,))

    # -- lazy per-customer tables
    def _buffer_usage(self, st: Any) -> None:
        """Today's units of every account active at the usage step (ref §1.2 step 5)."""
        cust, d = st.customers, int(st.day)
        active_at_usage = (
            (cust.start_day < d) & (cust.start_day >= 0) & ((cust.status == SUBSCRIBED) | (cust.end_day == d))
        )
        ids = np.flatnonzero(active_at_usage)
        units = np.clip(cust.usage_today[ids], 0, 2**32 - 1).astype(np.int64)
        if self._usage_ring and self._usage_ring[-1][0] == d:
            self._usage_ring.pop()
        self._usage_ring.append((d, ids, units))
        self._in_file["daily_usage"].discard(d)

    def _buffer_ads(self, w: Any) -> None:
        earners = getattr(w, "ad_revenue_today", None)
        d = int(w.state.day)
        if self._ads_ring and self._ads_ring[-1][0] == d:
            self._ads_ring.pop()
        self._in_file["ads_revenue"].discard(d)
        if earners is None or len(earners[0]) == 0:
            return
        ids = np.array(earners[0], dtype=np.int64)
        groups = w.state.customers.group[ids].astype(np.int64)
        strength, revenue = (np.array(a, dtype=np.float64) for a in earners[1:])
        self._ads_ring.append((d, ids, groups, strength, revenue))

    def _lazy_pending(self) -> bool:
        cutoff = self._day - WINDOW_DAYS + 1
        usage = any(d not in self._in_file["daily_usage"] for d, *_ in self._usage_ring if d >= cutoff)
        ads = any(d not in self._in_file["ads_revenue"] for d, *_ in self._ads_ring if d >= cutoff)
        stale = any(d < cutoff for days in self._in_file.values() for d in days)
        return usage or ads or stale

    def _materialise(self, tables: Sequence[str]) -> None:
        cutoff = self._day - WINDOW_DAYS + 1
        for table in tables:
            in_file = self._in_file[table]
            if any(d < cutoff for d in in_file):
                self._conn.execute(f"DELETE FROM {table} WHERE day < ?", (cutoff,))
                in_file.difference_update({d for d in in_file if d < cutoff})
            ring = self._usage_ring if table == "daily_usage" else self._ads_ring
            for entry in ring:
                day = entry[0]
                if day < cutoff or day in in_file:
                    continue
                self._conn.execute(f"DELETE FROM {table} WHERE day = ?", (day,))
                if table == "daily_usage":
                    _, ids, units = entry
                    packed = (ids.astype(np.int64) << 32) | units
                    self._conn.execute(
                        "INSERT INTO daily_usage SELECT ?, value >> 32, value & 4294967295 FROM json_each(?)",
                        (day, json.dumps(packed.tolist())),
                    )
                else:
                    _, ids, g, strength, revenue = entry
                    groups = self._group_ids[g]
                    payload = json.dumps(
                        list(zip(ids.tolist(), groups.tolist(), strength.tolist(), revenue.tolist(), strict=True))
                    )
                    self._conn.execute(
                        "INSERT INTO ads_revenue SELECT ?, value ->> 0, value ->> 1, value ->> 2, value ->> 3 "
                        "FROM json_each(?)",
                        (day, payload),
                    )
                in_file.add(day)

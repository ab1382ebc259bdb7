"""The agent-visible SQLite database of a ceo session and its read-only query interface.

The agent sees exactly the 19 tables of docs/reference-notes.md, ceo §5.1 (``schema.sql``,
the contract). Three of them, ``customers``, ``subscriptions`` and ``issues``, are views of
those names and columns over compact storage (``storage.sql``: codes instead of repeated text,
one row per customer for both customer tables, derived issue status), which keeps the file
about a fifth of the size it had as plain tables (docs/performance.md).

Hidden state is never written, not even to be stripped at query time, so no SQL can reach
it; hidden table names (§5.2) and hidden column names (§5.1 "stripped columns", and the
world's hidden customer columns) are refused by name and tagged for the tamper log. Queries
go through :class:`bizbench.core.sqlguard.SqlGuard` (§5.3).

Writing (the session calls these; every write is incremental):

- ``record_settings(env)`` after a tool call that may change settings: a ``config_history``
  row for the current day when a price, tier, quota, spend, capacity or channel ad total
  changed (one row per day, replaced within the day). A row of day D applies from day D+1
  (reference-notes §1.2 step 1).
- ``record_day(env)`` after every simulated day: the day's service, channel, issue, usage
  and ad-revenue data, plus everything ``record_turn`` writes (of the customers' rows, the new
  ones and the statuses).
- ``record_turn(env)``: whatever the world or the session appended since the last call
  (ledger, notifications, R&D, macro publications, group levels, overrides, predictions,
  market research, social posts, agent posts, enterprise turns, customer changes). Marks
  remember how far each log was written.

Each call is one transaction. The file is in WAL mode, so a reader on another thread (each
``query`` opens its own read-only connection) sees the last committed snapshot while the
writer runs.

**Lazy tables.** SQLite inserts cost 1.5-9 us per row (indexes included), and at 100,000
active subscribers a day brings ~100K usage rows, ~8K new support issues, ~2K new customers
and thousands of changed subscriptions: ~0.14 s per day written directly, against a budget of
0.3 s per simulated *week*. So the five tables that scale with the customer base are kept
in the store's own numpy arrays and written on demand, when a query names one of them and
on ``flush()``/``close()``; a query always sees them complete up to the last record call
(the customers' rows as below).

- ``customers``/``subscriptions``: a vectorised diff of the visible subscription columns
  against the store's copy marks new and changed customers: every field of every row at the
  first ``record_turn`` of a day (after a turn's days: where the agent next reads the file),
  new rows and statuses (a changed status brings all its row's fields) at every other record.
  Within a turn only a query running beside ``next_week`` (``query`` takes no call lock) can
  read the days in between; it sees every customer and status of the day, and the other
  fields (price, plan, seats) of a row whose status did not change as they were when the turn
  began. New customers are inserted (with their persona code) and changed ones updated, in one
  upsert, after their distinct prices go into a temporary table; new enterprise customers'
  addresses follow.
- ``issues``: the store keeps each issue's customer, group, open and resolved day; writing
  inserts new issues, closes resolved ones and moves the day open issues count to.
- ``daily_usage``/``ads_revenue``: a ring buffer of the last 30 days (the day's id and value
  arrays); writing deletes days older than the window and bulk-inserts the
  missing days.

New and changed customers, new issues and usage rows go in as one ``INSERT ... SELECT`` over
``json_each`` of packed integers (``_json_ints``), a row's fields unpacked in SQL (a customer's
other fields from fixed-width digits of one BLOB, ``_fixed_digits``, and its prices, bound as
REALs, from a table of their distinct rows): a quarter to about 0.6 of the cost of binding them
row by row (up to 1.7x more when most customers have prices of their own; docs/performance.md).

Measured at 300K active subscribers (``benchmarks/ceo_seat.py``, this 2-core machine, whose
figures move by 10-30 % from hour to hour): the store adds 0.02-0.07 s to a week. The first
query naming a lazy table after a week pays that week's writes: 0.2-0.4 s for
customers/subscriptions, 0.3-0.5 s for issues, 1.0-1.5 s for daily_usage (2M rows in, and from
the fifth week 2M out; docs/performance.md); with in-app ads on, ads_revenue costs more.

``close()`` checkpoints and switches the file back to a rollback journal so it can be read
later (``mode=ro``) without its ``-wal``/``-shm`` companions. Opening a store on an existing
path replaces the file: a resumed session rebuilds it by replaying its actions.
"""

from __future__ import annotations

import json
import logging
import os
import re
import sqlite3
import threading
from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from bizbench.core.registry import ToolError
from bizbench.core.sqlguard import SqlGuard
from bizbench.envs.ceo.config import CHANNELS, PLANS, CeoConfig
from bizbench.envs.ceo.personas import PERSONA_BITS, persona_codes, persona_emails, persona_vocabulary
from bizbench.envs.ceo.world.customers import COLUMNS as CUSTOMER_COLUMNS
from bizbench.envs.ceo.world.customers import SOURCE_NETWORK, SOURCE_ORGANIC

__all__ = ["CeoStore", "describe_tables", "visible_tables", "HIDDEN_TABLES", "STRIPPED_COLUMNS", "ENUMS"]

logger = logging.getLogger(__name__)

SCHEMA_PATH = Path(__file__).with_name("schema.sql")  # the agent's contract: 19 tables, columns, types
STORAGE_PATH = Path(__file__).with_name("storage.sql")  # how three of them are kept compact
WINDOW_DAYS = 30  # daily_usage / ads_revenue keep days d-29 .. d (reference-notes §5.1 "last ~30 days")
LAZY_TABLES = ("customers", "subscriptions", "issues", "daily_usage", "ads_revenue")
_LAZY_RE = re.compile(rf"\b({'|'.join(LAZY_TABLES)})\b", re.IGNORECASE)

# Columns the engine keeps in visible tables but strips from answers (reference-notes §5.1). bizbench
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

# Hidden tables (reference-notes §5.2), blocked by name.
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
    ("issues", "status"): ("open", "resolved", "closed"),
    ("issues", "resolution_type"): ("ops_resolved", "customer_churned"),
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
    "issues": "Support issues: open day, days open, status (open, resolved, or closed when the customer left), "
    "resolution.",
    "ads_revenue": "In-app ad revenue per customer and day (ads_strength is the effective load), last 30 days.",
    "config_overrides": "Your map-valued settings (targeted spend, promotions, ads strength) as JSON, by day.",
}

_STATUS_TEXT = (None, "lead", "subscribed", "cancelled", "lost")  # by status code (world/customers.py)
_SOURCE_TEXT = (*CHANNELS, "network", "organic")  # by acquisition source code
# customer_rows (storage.sql) is written by one INSERT ... SELECT, each row from numbers unpacked in SQL (a
# statement's step per row, as executemany takes, costs more): json_each over the customer ids is the row
# source, and three fixed-width decimal numbers of one BLOB (_fixed_digits), read with substr, hold the rest:
# v and d, the fields of _PACKED at (first bit, bits); and s, the billed seats above ?5 low bits holding the
# row's code in temp.customer_prices, the distinct (list price, promotion, effective price) of the rows,
# bound as REALs (text would round some floats). Start and end days are stored + 1, 0 for none; the created
# day as it is; plan is 0 for none, 1 for 'pending' (an enterprise lead), 2 + its index in PLANS. Contracts
# are one month (§4.23). A customer written before gets its subscription columns updated.
_PACKED: dict[str, dict[str, tuple[int, int]]] = {
    "v": {
        "persona": (0, PERSONA_BITS),
        "group": (36, 6),
        "source": (42, 3),
        "enterprise": (45, 1),
        "plan": (46, 3),
        "first_billing_done": (49, 1),
        "billing_mod": (50, 5),
        "status": (55, 3),
    },
    "d": {"start_day": (0, 16), "end_day": (16, 16), "created_day": (32, 16)},
}
_FIELD_OF = {field: (number, at) for number, fields in _PACKED.items() for field, at in fields.items()}


def _sql_field(field: str) -> str:
    """SQL reading ``field`` out of its packed number (``_PACKED``)."""
    number, (first, bits) = _FIELD_OF[field]
    return f"({number} >> {first} & {(1 << bits) - 1})"


def _pack(number: str, **fields: np.ndarray) -> np.ndarray:
    """The packed number ``number`` (``_PACKED``) of each row, from every one of its fields (non-negative
    integers, each below 2 to the power of its bits)."""
    if set(fields) != set(_PACKED[number]):
        raise ValueError(f"{number} packs {sorted(_PACKED[number])}, not {sorted(fields)}")
    packed = np.zeros(len(next(iter(fields.values()))), dtype=np.int64)
    for field, (first, bits) in _PACKED[number].items():
        values = np.asarray(fields[field], dtype=np.int64)
        if len(values) and (values.min() < 0 or values.max() >= 1 << bits):
            raise ValueError(f"the store packs {field} in [0, {1 << bits}), not {values.min()}..{values.max()}")
        packed |= values << first
    return packed


_PRICES = ("listed_price", "promotion", "effective_price")  # customer_rows' REALs, through temp.customer_prices
_SUBSCRIPTION_VALUES = {
    "status": _sql_field("status"),
    "plan": f"CASE {_sql_field('plan')} WHEN 1 THEN 'pending' "
    + " ".join(f"WHEN {k + 2} THEN '{plan}'" for k, plan in enumerate(PLANS))
    + " END",
    **{name: f"p.{name}" for name in _PRICES},
    "start_day": f"nullif({_sql_field('start_day')}, 0) - 1",
    "end_day": f"nullif({_sql_field('end_day')}, 0) - 1",
    "billing_day_mod30": _sql_field("billing_mod"),
    "seat_count": "s >> ?5",
    "contract_months": f"CASE WHEN {_sql_field('start_day')} THEN 1 END",
    "contract_end_day": f"CASE WHEN {_sql_field('enterprise')} THEN nullif({_sql_field('start_day')}, 0) + 29 END",
    "first_billing_done": _sql_field("first_billing_done"),
}
_MAX_SEATS_BITS = 62  # s: seats and the price code under 2**62
_CREATE_CUSTOMER_PRICES = "CREATE TEMP TABLE IF NOT EXISTS customer_prices (code INTEGER PRIMARY KEY, {})".format(
    ", ".join(f"{name} REAL" for name in _PRICES)
)
# ?1 the ids (JSON), ?2 their offset, ?3 the BLOB, ?4 its row width, ?5 the price code's bits, ?6-?8 the widths
# of v, d and s, ?9... the group ids
_WRITE_CUSTOMERS = (
    f"INSERT INTO customer_rows (customer_id, group_id, created_day, source, persona, "
    f"{', '.join(_SUBSCRIPTION_VALUES)}) SELECT id, {{group}}, {_sql_field('created_day')}, {_sql_field('source')}, "
    f"{_sql_field('persona')}, {', '.join(_SUBSCRIPTION_VALUES.values())} "
    "FROM (SELECT value - ?2 AS id, CAST(substr(?3, key * ?4 + 1, ?6) AS INTEGER) AS v, "
    "CAST(substr(?3, key * ?4 + ?6 + 1, ?7) AS INTEGER) AS d, "
    "CAST(substr(?3, key * ?4 + ?6 + ?7 + 1, ?8) AS INTEGER) AS s "
    "FROM json_each(?1) LIMIT -1 OFFSET 0) "  # OFFSET: each number read once; CROSS: the JSON drives the loop
    "CROSS JOIN temp.customer_prices AS p ON p.code = s & ((1 << ?5) - 1) WHERE true "
    f"ON CONFLICT (customer_id) DO UPDATE SET ({', '.join(_SUBSCRIPTION_VALUES)}) = "
    f"({', '.join('excluded.' + name for name in _SUBSCRIPTION_VALUES)})"
)
assert all(  # no two fields of a packed number share a bit, and each number fits a signed 64-bit integer
    len({bit for first, bits in fields.values() for bit in range(first, first + bits)})
    == sum(bits for _, bits in fields.values())
    and max(first + bits for first, bits in fields.values()) <= 63
    for fields in _PACKED.values()
)
assert max(len(PLANS) + 1, len(_SOURCE_TEXT) - 1, len(_STATUS_TEXT) - 1) < 8, "plan, source, status fit 3 bits"
assert len(_SOURCE_TEXT) == SOURCE_ORGANIC + 1 and _SOURCE_TEXT[SOURCE_NETWORK] == "network"
assert {"status", "plan", "seats", "start_day", "end_day"} <= set(CUSTOMER_COLUMNS)
_CLOSED_REASONS = ("accepted", "agent_rejected")  # other dead threads keep closed=0 (reference-notes §5.1)
_VISIBLE_POST_KEYS = ("post_id", "day", "content", "reply_to_agent_post_id", "source_group_id")


@lru_cache(maxsize=1)
def storage_tables() -> frozenset[str]:
    """The tables (and the inner view) ``storage.sql`` keeps the three view-backed tables in, never
    queryable by name: every table or view of the file that is not in the contract."""
    conn = sqlite3.connect(":memory:")
    try:
        conn.executescript(SCHEMA_PATH.read_text(encoding="utf-8") + STORAGE_PATH.read_text(encoding="utf-8"))
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")}
        return frozenset(tables - set(visible_tables()))
    finally:
        conn.close()


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
    """The 19 agent-visible tables and their columns (reference-notes §5.1)."""
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


_QUADS = np.array([f"{k:04d}".encode() for k in range(10_000)]).view(np.uint32)  # 4 ASCII digits as one word
_MAX_PACKED = 10**18  # _json_ints: values below it, offset by 10**width, fit a signed 64-bit integer


def _digits(values: np.ndarray, width: int) -> np.ndarray:
    """The ``width`` last decimal digits of non-negative int64 ``values``, as ASCII: one row of bytes a value,
    written by numpy four digits at a time."""
    quads = np.empty((len(values), -(-width // 4)), dtype=np.uint32)
    v = values
    for k in range(quads.shape[1] - 1, 0, -1):
        high = v // 10_000
        quads[:, k] = _QUADS[v - high * 10_000]
        v = high
    quads[:, 0] = _QUADS[v]
    return quads.view(np.uint8)[:, quads.shape[1] * 4 - width :]


def _json_ints(values: np.ndarray) -> tuple[str, int]:
    """A JSON array of non-negative ``values`` (int64, below ``_MAX_PACKED``), each plus ``offset`` so every
    number has the same count of digits, and that ``offset``: a quarter of the time of ``json.dumps`` of a
    list, and SQLite parses it as fast."""
    if not len(values):
        return "[]", 0
    top = int(values.max())
    if top >= _MAX_PACKED:
        raise ValueError(f"the store packs integers below {_MAX_PACKED}")
    width = len(str(top)) + 1  # digits of value + offset: a leading 1, then the value's digits
    offset = 10 ** (width - 1)
    text = np.empty((len(values), width + 1), dtype=np.uint8)
    text[:, :width] = _digits(values + offset, width)
    text[:, width] = ord(",")
    text[-1, width] = ord("]")
    return "[" + text.tobytes().decode("ascii"), offset  # text: SQLite 3.45+ reads a BLOB as binary JSON


def _fixed_digits(*columns: np.ndarray) -> tuple[bytes, list[int]]:
    """Non-negative int64 ``columns`` as one row of zero-padded decimal digits a value (``substr`` of a BLOB
    reads a field at its byte offset), and each column's width."""
    widths = [len(str(int(col.max(initial=0)))) for col in columns]
    if any(len(col) and col.min() < 0 for col in columns):
        raise ValueError("the store packs non-negative integers")
    rows = np.empty((len(columns[0]), sum(widths)), dtype=np.uint8)
    at = 0
    for col, width in zip(columns, widths, strict=True):
        rows[:, at : at + width] = _digits(col, width)
        at += width
    return rows.tobytes(), widths


def _row_codes(columns: Sequence[np.ndarray]) -> tuple[list[tuple[float, ...]], np.ndarray]:
    """The distinct rows of float ``columns``, bit for bit, and each row's index among them."""
    bits = [col.view(np.int64) for col in columns]
    order = np.lexsort(bits[::-1])
    first = np.zeros(len(order), dtype=bool)
    first[:1] = True
    for b in bits:
        first[1:] |= b[order[1:]] != b[order[:-1]]
    codes = np.empty(len(order), dtype=np.int64)
    codes[order] = np.cumsum(first) - 1
    rows = order[first]
    return list(zip(*(col[rows].tolist() for col in columns), strict=True)), codes


def _group_case(expr: str, first_param: int, groups: int) -> str:
    """SQL spelling a group index ``expr`` as its group id, the ids bound as parameters from ``first_param``."""
    return f"CASE {expr} " + " ".join(f"WHEN {g} THEN ?{first_param + g}" for g in range(groups)) + " END"


def _grow(arr: np.ndarray, n: int, fill: Any = 0) -> np.ndarray:
    """``arr`` with room for at least ``n`` rows (capacity doubles); new slots hold ``fill``."""
    if len(arr) >= n:
        return arr
    out = np.full(max(n, 2 * len(arr), 1024), fill, dtype=arr.dtype)
    out[: len(arr)] = arr
    return out


# ----------------------------------------------------------------------------- lazy tables
class _Accounts:
    """``customers`` and ``subscriptions``: diffed at every record, written on demand.

    ``capture`` compares the world's visible subscription columns with the store's copy
    (vectorised; every field once a day, else the statuses), copies only new and changed rows
    and marks them dirty. ``write`` inserts
    the new customers into ``customer_rows`` and rewrites the subscription columns of the
    changed ones (storage.sql). Nothing hidden is ever copied.
    """

    tables = ("customers", "subscriptions")
    FIELDS: dict[str, Any] = {
        "status": np.int8,
        "plan": np.int8,
        "listed_price": np.float64,
        "promotion": np.float64,
        "effective_price": np.float64,
        "start_day": np.int32,
        "end_day": np.int32,
        "billing_mod": np.int8,
        "seats": np.float64,  # floor(seats): the billed seat count
        "first_billing_done": np.bool_,
    }
    STATIC: dict[str, Any] = {"group": np.int16, "created_day": np.int32, "source": np.int8}

    def __init__(self, groups: Sequence[Any]) -> None:
        self.groups = list(groups)
        self.group_ids = np.array([g.id for g in groups], dtype=object)
        self.is_ent = np.array([g.kind == "ENT" for g in groups], dtype=bool)
        if len(groups) > 1 << _PACKED["v"]["group"][1]:
            raise ValueError(f"the store packs group indexes in {_PACKED['v']['group'][1]} bits: {len(groups)} groups")
        self._write_sql = _WRITE_CUSTOMERS.format(group=_group_case(_sql_field("group"), 9, len(groups)))
        self.n = 0  # customers captured
        self.in_file = 0  # customers written
        self.cols = {name: np.zeros(0, dtype) for name, dtype in {**self.FIELDS, **self.STATIC}.items()}
        self.dirty = np.zeros(0, dtype=bool)  # subscription row to (re)write
        self.any_dirty = False
        self.day = -1  # the day every field was last compared
        self.words_written: set[int] = set()  # groups whose names and persona words are in the file

    @staticmethod
    def _field(cust: Any, name: str, rows: Any = slice(None)) -> np.ndarray:
        """The world's column ``name`` at ``rows`` (a view for a slice); the seats are the billed whole seats."""
        return cust.column("billed_seats" if name == "seats" else name)[rows]

    def capture(self, cust: Any, every_field: bool) -> None:
        """Bring the copy up to the world's customers: new rows whole, and the rows whose ten visible
        fields changed (``every_field``) or whose status changed (with all their fields)."""
        n, old = int(cust.n), self.n
        for name in self.cols:
            self.cols[name] = _grow(self.cols[name], n)
        self.dirty = _grow(self.dirty, n, False)
        if old:
            first, *others = self.FIELDS if every_field else ("status",)
            changed = self._field(cust, first, slice(0, old)) != self.cols[first][:old]
            for name in others:
                changed |= self._field(cust, name, slice(0, old)) != self.cols[name][:old]
            idx = np.flatnonzero(changed)
            if len(idx):
                for name in self.FIELDS:
                    self.cols[name][idx] = self._field(cust, name, idx)
                self.dirty[idx] = True
                self.any_dirty = True
        if n > old:
            for name in (*self.FIELDS, *self.STATIC):
                self.cols[name][old:n] = self._field(cust, name, slice(old, n))
            self.dirty[old:n] = True
            self.any_dirty = True
        self.n = n

    def pending(self, day: int) -> bool:
        return self.any_dirty

    def write(self, conn: sqlite3.Connection, day: int) -> None:
        """New customers are inserted whole and customers seen before get their subscription columns updated
        (``_WRITE_CUSTOMERS``); then the new enterprise customers' contact addresses."""
        c, n = self.cols, self.n
        new = np.arange(self.in_file, n)
        rows = np.concatenate([np.flatnonzero(self.dirty[: self.in_file]), new])
        if len(rows):
            self._write_group_words(conn, np.unique(c["group"][new]).tolist())
            self._write_rows(conn, rows, len(new))
            named = new[self.is_ent[c["group"][new]]]
            conn.executemany(
                "UPDATE customer_rows SET email = ? WHERE customer_id = ?",
                zip(persona_emails(named, c["group"][named], self.groups), named.tolist(), strict=True),
            )
        self.dirty[:n] = False
        self.in_file = n
        self.any_dirty = False

    def _write_rows(self, conn: sqlite3.Connection, rows: np.ndarray, new: int) -> None:
        """Customers ``rows``, the last ``new`` of them not in the file yet, in one statement: their numbers
        packed as ``_WRITE_CUSTOMERS`` reads them."""
        c = self.cols
        col = {name: c[name][rows].astype(np.int64) for name in (*self.FIELDS, *self.STATIC) if name not in _PRICES}
        prices, price_code = _row_codes([c[name][rows] for name in _PRICES])
        price_bits = max(len(prices) - 1, 1).bit_length()
        if col["seats"].max() >= 1 << (_MAX_SEATS_BITS - price_bits):
            raise ValueError(f"the store packs seat counts below 2**{_MAX_SEATS_BITS - price_bits}")
        s = col["seats"] << price_bits | price_code
        first_new = len(rows) - new
        persona = np.zeros(len(rows), dtype=np.int64)  # written with new rows only (DO UPDATE leaves it)
        persona[first_new:] = persona_codes(rows[first_new:], col["group"][first_new:], self.groups)
        ent = self.is_ent[col["group"]].astype(np.int64)
        v = _pack(
            "v",
            persona=persona,
            group=col["group"],
            source=col["source"],
            enterprise=ent,
            plan=np.where(col["plan"] >= 0, col["plan"] + 2, ent),
            first_billing_done=col["first_billing_done"],
            billing_mod=col["billing_mod"],
            status=col["status"],
        )
        d = _pack("d", start_day=col["start_day"] + 1, end_day=col["end_day"] + 1, created_day=col["created_day"])
        blob, widths = _fixed_digits(v, d, s)
        ids, offset = _json_ints(rows)
        conn.execute(_CREATE_CUSTOMER_PRICES)
        conn.executemany(
            f"INSERT INTO temp.customer_prices VALUES (?{',?' * len(_PRICES)})",
            ((k, *row) for k, row in enumerate(prices)),
        )
        params = (ids, offset, blob, sum(widths), price_bits, *widths, *self.group_ids.tolist())
        written = conn.execute(self._write_sql, params).rowcount
        conn.execute("DELETE FROM temp.customer_prices")
        if written != len(rows):  # a row without its price code would be dropped by the join
            raise RuntimeError(f"the store wrote {written} of {len(rows)} customer rows")

    def _write_group_words(self, conn: sqlite3.Connection, groups: list[int]) -> None:
        """A group's name, kind and persona words, written with its first customer: before it, the file tells
        nothing of what the group is (an undiscovered group stays hidden, reference-notes §4.25)."""
        fresh = [self.groups[g] for g in groups if g not in self.words_written]
        self.words_written.update(groups)
        conn.executemany(
            "INSERT INTO group_names VALUES (?,?)", ((g.id, "large" if g.kind == "ENT" else "small") for g in fresh)
        )
        conn.executemany("INSERT INTO persona_words VALUES (?,?,?,?)", persona_vocabulary(fresh))


class _Issues:
    """``issues``: one issue per customer, open until resolved, ids in open order (reference-notes §4.9).

    The world's daily (opened, resolved, closed) customer arrays update the store's own issue
    arrays; ``write`` inserts new issues, marks resolved ones ``resolved`` / ``ops_resolved``
    and those of customers who left ``closed`` / ``customer_churned`` (world/support.py
    ``close_churned_issues``); ``days_open`` is the view's (storage.sql): the day of the last
    write minus the open day while open, the resolved day minus the open day after.
    """

    tables = ("issues",)

    def __init__(self, group_ids: np.ndarray) -> None:
        self.group_ids = group_ids
        self.count = 0
        self.customer = np.zeros(0, dtype=np.int64)
        self.group = np.zeros(0, dtype=np.int16)
        self.open_day = np.zeros(0, dtype=np.int32)
        self.resolved_day = np.zeros(0, dtype=np.int32)
        self.churned = np.zeros(0, dtype=bool)  # closed because the customer left
        self.open_of = np.zeros(0, dtype=np.int64)  # customer -> index + 1 of its open issue
        self.in_file = 0
        self.file_open = np.zeros(0, dtype=bool)  # written with status 'open'
        self.refreshed_day = -1
        self.resolved_since_write = False

    def capture(
        self,
        day: int,
        opened: np.ndarray,
        resolved: np.ndarray,
        closed: np.ndarray,
        groups: np.ndarray,
        n_customers: int,
    ) -> None:
        """One day in the world's order: resolutions, new issues, then closures of customers who left."""
        self.open_of = _grow(self.open_of, n_customers)
        self._close(day, resolved)
        k, m = self.count, self.count + len(opened)
        self.customer = _grow(self.customer, m)
        self.group = _grow(self.group, m)
        self.open_day = _grow(self.open_day, m)
        self.resolved_day = _grow(self.resolved_day, m, -1)
        self.churned = _grow(self.churned, m, False)
        self.customer[k:m] = opened
        self.group[k:m] = groups
        self.open_day[k:m] = day
        self.open_of[opened] = np.arange(k + 1, m + 1)
        self.count = m
        self.churned[self._close(day, closed)] = True

    def _close(self, day: int, customers: np.ndarray) -> np.ndarray:
        which = self.open_of[customers]
        which = which[which > 0] - 1
        self.resolved_day[which] = day
        self.open_of[customers] = 0
        self.resolved_since_write |= len(which) > 0
        return which

    def pending(self, day: int) -> bool:
        return self.in_file < self.count or self.resolved_since_write or self.refreshed_day != day

    def write(self, conn: sqlite3.Connection, day: int) -> None:
        """Closures of issues written open, then the new issues; open issues count their days to ``day``."""
        k = self.in_file
        self.file_open = _grow(self.file_open, self.count, False)
        closed = np.flatnonzero(self.file_open[:k] & (self.resolved_day[:k] >= 0))
        conn.executemany(
            "UPDATE issue_rows SET resolved_day = ?, churned = ? WHERE issue_id = ?",
            zip(
                self.resolved_day[closed].tolist(),
                self.churned[closed].astype(np.int64).tolist(),
                (closed + 1).tolist(),
                strict=True,
            ),
        )
        self.file_open[closed] = False
        new = np.arange(k, self.count)
        resolved = self.resolved_day[new]
        if len(new):
            self._insert(conn, k, new, resolved)
        conn.execute("UPDATE store_clock SET day = ?", (day,))
        self.file_open[new] = resolved < 0
        self.in_file = self.count
        self.refreshed_day = day
        self.resolved_since_write = False

    def _insert(self, conn: sqlite3.Connection, k: int, new: np.ndarray, resolved: np.ndarray) -> None:
        """Issues ``new`` (ids from ``k + 1``) in one statement: a row's fields packed in one JSON integer
        (open day, resolved day + 1, churned, group index, customer: bit widths from the data), the group
        index spelled out by a CASE over the group ids bound as parameters."""
        day_bits = int(max(self.open_day[new].max(), resolved.max() + 1)).bit_length()
        group_bits = (len(self.group_ids) - 1).bit_length()
        churn_shift = 2 * day_bits
        group_shift = churn_shift + 1
        customer_shift = group_shift + group_bits
        packed = (
            self.open_day[new].astype(np.int64)
            | (resolved.astype(np.int64) + 1) << day_bits
            | self.churned[new].astype(np.int64) << churn_shift
            | self.group[new].astype(np.int64) << group_shift
            | self.customer[new] << customer_shift
        )
        text, offset = _json_ints(packed)
        group = _group_case(f"v >> {group_shift} & {(1 << group_bits) - 1}", 3, len(self.group_ids))
        day_mask = (1 << day_bits) - 1
        conn.execute(
            f"INSERT INTO issue_rows SELECT key + {k + 1}, v >> {customer_shift}, {group}, v & {day_mask}, "
            f"nullif(v >> {day_bits} & {day_mask}, 0) - 1, v >> {churn_shift} & 1 "
            "FROM (SELECT key, value - ?1 AS v FROM json_each(?2) LIMIT -1 OFFSET 0)",  # OFFSET: value read once
            (offset, text, *self.group_ids.tolist()),
        )


class _Window:
    """A per-customer daily table keeping days d-29..d: a ring of numpy arrays, bulk-written
    (``INSERT ... SELECT FROM json_each``) on demand; older days are deleted."""

    def __init__(self, table: str) -> None:
        self.table = table
        self.tables = (table,)
        self.ring: deque[tuple[int, tuple[np.ndarray, ...]]] = deque(maxlen=WINDOW_DAYS)
        self.in_file: set[int] = set()
        self.rewrite: set[int] = set()  # days captured again after being written

    def capture(self, day: int, arrays: tuple[np.ndarray, ...] | None) -> None:
        if self.ring and self.ring[-1][0] == day:
            self.ring.pop()
        if day in self.in_file:
            self.in_file.discard(day)
            self.rewrite.add(day)
        if arrays is not None and len(arrays[0]):
            self.ring.append((day, arrays))

    def pending(self, day: int) -> bool:
        cutoff = day - WINDOW_DAYS + 1
        old = any(d < cutoff for d in self.in_file)
        return old or bool(self.rewrite) or any(d >= cutoff and d not in self.in_file for d, _ in self.ring)

    def write(self, conn: sqlite3.Connection, day: int) -> None:
        cutoff = day - WINDOW_DAYS + 1
        if any(d < cutoff for d in self.in_file):
            conn.execute(f"DELETE FROM {self.table} WHERE day < ?", (cutoff,))
            self.in_file = {d for d in self.in_file if d >= cutoff}
        for d in sorted(self.rewrite):
            conn.execute(f"DELETE FROM {self.table} WHERE day = ?", (d,))
        self.rewrite.clear()
        for d, arrays in self.ring:
            if d >= cutoff and d not in self.in_file:
                self._insert(conn, d, arrays)
                self.in_file.add(d)

    def _insert(self, conn: sqlite3.Connection, day: int, arrays: tuple[np.ndarray, ...]) -> None:
        if self.table == "daily_usage":
            ids, units = arrays[0], np.clip(arrays[1], 0, 2**32 - 1).astype(np.int64)  # whole units (eq 8)
            bits = int(units.max()).bit_length()
            text, offset = _json_ints(ids.astype(np.int64, copy=False) << bits | units)  # one number a row
            conn.execute(
                "INSERT INTO daily_usage SELECT ?1, (value - ?2) >> ?3, (value - ?2) & ?4 FROM json_each(?5)",
                (day, offset, bits, (1 << bits) - 1, text),
            )
        else:
            ids, group_ids, strength, revenue = arrays  # executemany beats json_each for mixed columns
            conn.executemany(
                "INSERT INTO ads_revenue VALUES (?,?,?,?,?)",
                zip(
                    [day] * len(ids), ids.tolist(), group_ids.tolist(), strength.tolist(), revenue.tolist(), strict=True
                ),
            )


# ----------------------------------------------------------------------------- store
class CeoStore:
    """Writer of a session's agent-visible database, and its query entry point.

    Args:
        path: The SQLite file to create (an existing file is replaced).
        config: The world's config (groups, channels).
    """

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
        self._conn.execute("PRAGMA cache_size=-65536")  # 64 MB: bulk writes touch many index pages
        self._conn.execute("PRAGMA temp.cache_size=-65536")  # temp.customer_prices: kept off the disk when large
        self._conn.executescript(SCHEMA_PATH.read_text(encoding="utf-8") + STORAGE_PATH.read_text(encoding="utf-8"))
        self._guard = SqlGuard(
            self.path,
            visible_tables(),
            hidden_tables=HIDDEN_TABLES,
            hidden_columns=hidden_columns(),
            enums=ENUMS,
            storage=storage_tables(),
        )
        self._closed = False
        self._public: dict[str, list[str]] = {}  # public market tables (add_public_tables) and their columns
        self._public_notes: dict[str, str] = {}
        self._groups = list(config.groups)
        self._group_ids = np.array([g.id for g in config.groups], dtype=object)
        self._day = 0
        self._marks: dict[str, int] = {}  # how far each append-only log has been written
        self._next_channel_row = 1
        self._settings_row: tuple[Any, ...] | None = None
        self._group_state: np.ndarray | None = None
        self._projects: dict[str, bool] = {}  # project id -> completed, as written
        self._agent_posts: dict[int, tuple[Any, ...]] = {}
        self._live_threads: list[int] = []  # indices of threads that may still change
        self._thread_state: dict[int, tuple[int, int, str]] = {}  # index -> (turns written, closed, reason)
        self._emails: dict[int, str | None] = {}
        self._write_lookups()
        self._accounts = _Accounts(self._groups)
        self._issues = _Issues(self._group_ids)
        self._usage = _Window("daily_usage")
        self._ads = _Window("ads_revenue")
        self._lazy: dict[str, Any] = {}
        for buffer in (self._accounts, self._issues, self._usage, self._ads):
            self._lazy.update(dict.fromkeys(buffer.tables, buffer))

    # ------------------------------------------------------------------ public: writing
    def record_settings(self, env: Any) -> None:
        """Write a ``config_history`` row for today if the config-row settings changed."""
        with self._lock, self._transaction():
            self._write_settings(env)

    def record_turn(self, env: Any) -> None:
        """Write everything appended since the last call (session logs, threads, posts, ...) and bring
        the customers and subscriptions up to date: every field of every row once a day (after a
        turn's days), the statuses after a tool call."""
        st = env.world.state
        with self._lock, self._transaction():
            every_field, self._accounts.day = self._accounts.day != st.day, int(st.day)
            self._accounts.capture(st.customers, every_field)
            self._sync(env)

    def record_day(self, env: Any) -> None:
        """Write the day just simulated; call after every ``World.step_day``."""
        w = env.world
        with self._lock, self._transaction():
            self._accounts.capture(w.state.customers, every_field=False)  # new rows and statuses (store.py)
            self._sync(env)
            self._write_service(w)
            self._write_channels(w)
            self._capture_issues(w)
            self._capture_usage(w)
            self._capture_ads(w)

    def flush(self) -> None:
        """Write every pending lazy table and checkpoint the WAL."""
        with self._lock:
            if self._closed:
                return
            self._materialise(LAZY_TABLES)
            self._conn.execute("PRAGMA wal_checkpoint(PASSIVE)")

    def close(self, customers: Any | None = None) -> None:
        """Flush, leave a self-contained, compacted file (rollback journal) and close the writer;
        ``customers``, the world's, are compared in every field first (a turn an error cut short left
        its days' statuses only).

        The last writes are the largest (a run that never queried writes every customer and issue now),
        so the storage indexes are dropped around them and built again after: one sort costs less than as
        many index insertions. It is done at every close, so the number of schema changes, which the
        file's header counts, does not depend on when queries wrote the lazy tables.
        """
        with self._lock:
            if self._closed:
                return
            if customers is not None:
                self._accounts.capture(customers, every_field=True)
            indexes = self._conn.execute(
                "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name"
            ).fetchall()
            with self._transaction():
                for name, _ in indexes:
                    self._conn.execute(f"DROP INDEX {name}")
                self._write_pending(LAZY_TABLES)
                for _, sql in indexes:
                    self._conn.execute(sql)
            # Page layout depends on when queries materialised the lazy tables; a compacted copy (VACUUM INTO,
            # which writes the file once where VACUUM writes it twice) replaces the file, so it is a function
            # of the seed and the actions only (byte-identical across runs).
            compact = Path(f"{self.path}.compact")
            compact.unlink(missing_ok=True)
            try:
                self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                self._conn.execute("PRAGMA journal_mode=DELETE")
                self._conn.execute("VACUUM INTO ?", (str(compact),))
            except sqlite3.OperationalError:  # a reader still holds the file; it stays in WAL mode
                logger.warning("store: could not leave WAL mode at close")
                compact.unlink(missing_ok=True)
            self._conn.close()
            self._closed = True
            if compact.exists():
                os.replace(compact, self.path)

    # ------------------------------------------------------------------ public: market tables
    def add_public_tables(self, ddl: str, notes: Mapping[str, str]) -> None:
        """Add tables of public market data (an arena seat's rivals, docs/arena.md): created by
        ``ddl``, described by ``notes``, queryable like the 19, written by :meth:`append_public`."""
        with self._lock:
            self._conn.executescript(ddl)
            added = {
                t: [r[1] for r in self._conn.execute(f"PRAGMA table_info({t})")]
                for t in notes  # the names come from the env's code, never from an agent
            }
            self._public = {**self._public, **added}
            self._public_notes = {**self._public_notes, **notes}
            self._guard = SqlGuard(
                self.path,
                {**visible_tables(), **self._public},
                hidden_tables=HIDDEN_TABLES,
                hidden_columns=hidden_columns(),
                enums=ENUMS,
                storage=storage_tables(),
            )

    def append_public(self, table: str, rows: list[tuple[Any, ...]]) -> None:
        """Append rows to a table of :meth:`add_public_tables`."""
        if table not in self._public:
            raise ValueError(f"{table!r} is not a public table of this database")
        if rows:
            marks = ",".join("?" * len(self._public[table]))
            with self._lock:
                self._conn.executemany(f"INSERT INTO {table} VALUES ({marks})", rows)

    def describe(self) -> list[dict[str, Any]]:
        """:func:`describe_tables`, and the public tables of :meth:`add_public_tables`."""
        out = describe_tables()
        for table, cols in self._public.items():
            types = {r[1]: r[2] for r in self._conn.execute(f"PRAGMA table_info({table})")}
            columns = [{"name": c, "type": types[c]} for c in cols]
            out.append({"table": table, "description": self._public_notes[table], "columns": columns})
        return out

    # ------------------------------------------------------------------ public: reading
    def query(self, sql: str, timeout_s: float = 30.0, max_rows: int = 5000) -> dict[str, Any]:
        """Run one read-only SELECT (reference-notes §5.3); every error is a :class:`ToolError`."""
        if isinstance(sql, str):
            named = sorted({m.lower() for m in _LAZY_RE.findall(sql)})
            if named:
                try:
                    with self._lock:
                        if not self._closed:
                            self._materialise(named)
                except Exception:
                    logger.exception("store: writing the pending tables failed")
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

    def _materialise(self, tables: Sequence[str]) -> None:
        """Write the pending rows of ``tables`` in one transaction (none when nothing is pending)."""
        if any(self._lazy[t].pending(self._day) for t in tables):
            with self._transaction():
                self._write_pending(tables)

    def _write_pending(self, tables: Sequence[str]) -> None:
        """Write the pending rows of each buffer behind ``tables`` once (inside a transaction)."""
        for b in dict.fromkeys(self._lazy[t] for t in tables):
            if b.pending(self._day):
                b.write(self._conn, self._day)

    def _take(self, name: str, log: Sequence[Any]) -> tuple[int, Sequence[Any]]:
        """New entries of an append-only log since its mark, and the mark (advanced)."""
        start = self._marks.get(name, 0)
        self._marks[name] = len(log)
        return start, log[start:]

    def _sync(self, env: Any) -> None:
        """Everything but the per-day tables and the customers' rows."""
        w = env.world
        st = w.state
        self._day = int(st.day)
        self._write_settings(env)
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

    def _write_lookups(self) -> None:
        """The enum names the storage views spell codes out with (storage.sql); a group's own words come
        with its first customer (``_Accounts.write``)."""
        self._conn.executemany("INSERT INTO status_names VALUES (?,?)", enumerate(_STATUS_TEXT))
        self._conn.executemany("INSERT INTO source_names VALUES (?,?)", enumerate(_SOURCE_TEXT))

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
            ((*(p[k] for k in keys), p.get("submitted_at", float(p["submit_day"]))) for p in rows),
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
        self._conn.executemany(  # visible keys only: author, sentiment and engagement stay hidden
            "INSERT INTO social_media_posts VALUES (?,?,?,?,?)",
            (tuple(p.get(k) for k in _VISIBLE_POST_KEYS) for p in rows),
        )

    def _write_macro(self, st: Any) -> None:
        """Readings published by today (visible_day <= day), dated by publication (reference-notes §4.15)."""
        readings = st.macro_readings
        k = self._marks.get("macro", 0)
        rows = []
        while k < len(readings) and readings[k].get("visible_day", readings[k]["day"]) <= st.day:
            r = readings[k]
            desc = r.get("description") or (
                f"Monthly PMI {r['pmi_value']:.1f} ({r['pmi_change']:+.1f}); "
                f"{r['pmi_trend'].replace('_', ' ')}, {r['cycle_phase']} phase."
            )
            day = r.get("visible_day", r["day"])
            rows.append((day, r["pmi_value"], r["pmi_trend"], r["pmi_change"], r["cycle_phase"], desc))
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
        state = np.stack([st.info_level, st.discovered_day, st.last_research_day]).astype(np.int64)
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
        """Judged effect and views per discovered group; NULL until judged (reference-notes §4.13)."""
        effect = views_by_group = views = None
        if post.scores is not None and post.views is not None:
            seen = np.flatnonzero(np.asarray(post.views) > 0)
            effect = _json({self._groups[g].id: round(float(post.scores[g]), 6) for g in seen})
            views_by_group = _json({self._groups[g].id: int(post.views[g]) for g in seen})
            views = int(np.asarray(post.views).sum())
        comments = _json(list(getattr(post, "comment_post_ids", [])))
        reasoning = _json(dict(getattr(post, "reasoning", {})))
        return (post.post_id, post.day, post.content, post.reply_to, effect, views, views_by_group, comments, reasoning)

    def _write_threads(self, w: Any) -> None:
        """New turns of every live thread; closed/close_reason follow the thread (reference-notes §5.1)."""
        threads = w.book.threads
        start, _ = self._take("threads", threads)
        self._live_threads.extend(range(start, len(threads)))
        if not self._live_threads:
            return
        customers = w.state.customers
        rows, updates, still_live = [], [], []
        for i in self._live_threads:
            t = threads[i]
            written, closed_before, reason_before = self._thread_state.get(i, (0, 0, ""))
            closed, reason = (1, t.status) if t.status in _CLOSED_REASONS else (0, "")
            if t.customer not in self._emails:
                group = customers.group[t.customer : t.customer + 1].astype(np.int64)
                self._emails[t.customer] = persona_emails(np.array([t.customer]), group, self._groups)[0]
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
                        self._emails[t.customer],
                        int(customers.whole_seats(t.customer)),
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
                    start + k + 1,  # service_history[i] is day i + 1
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
        """Rows for each (day, channel, group) with spend or attributed leads (reference-notes §5.1)."""
        _, entries = self._take("channels", w.channel_log)
        rows = []
        for day, spend, leads in entries:
            g, c = np.nonzero((np.asarray(spend) > 0) | (np.asarray(leads) > 0))
            for gi, ci in zip(g.tolist(), c.tolist(), strict=True):
                row = (day, CHANNELS[ci], self._groups[gi].id, int(leads[gi, ci]), float(spend[gi, ci]))
                rows.append((self._next_channel_row, *row))
                self._next_channel_row += 1
        self._conn.executemany("INSERT INTO ad_channel_leads VALUES (?,?,?,?,?,?)", rows)

    def _capture_issues(self, w: Any) -> None:
        cust = w.state.customers
        _, entries = self._take("issues", w.issue_log)
        for day, opened, resolved, closed in entries:
            opened = np.asarray(opened, dtype=np.int64)
            groups = cust.group[opened]
            self._issues.capture(
                int(day),
                opened,
                np.asarray(resolved, dtype=np.int64),
                np.asarray(closed, dtype=np.int64),
                groups,
                int(cust.n),
            )

    def _capture_usage(self, w: Any) -> None:
        """Today's units of every account active at the usage step (reference-notes §1.2 step 5): the
        morning's subscribers, today's cancellations among them."""
        self._usage.capture(int(w.state.day), (w.usage_accounts, w.usage_units))  # as integers when written

    def _capture_ads(self, w: Any) -> None:
        earners = getattr(w, "ad_revenue_today", None)
        d = int(w.state.day)
        if earners is None or len(earners[0]) == 0:
            self._ads.capture(d, None)
            return
        ids = np.array(earners[0], dtype=np.int64)
        group_ids = self._group_ids[w.state.customers.group[ids].astype(np.int64)]
        strength, revenue = (np.array(a, dtype=np.float64) for a in earners[1:3])
        self._ads.capture(d, (ids, group_ids, strength, revenue))

"""The generic read-only SQL guard (docs/reference-notes.md, ceo §5.3) against attack cases.

The test database has a visible table ``t`` with a column ``h`` that is not visible, a
visible table ``u``, and a table ``secret`` that is not visible at all; ``customer_state``
is a known hidden name that does not exist in the file.
"""

from __future__ import annotations

import os
import re
import sqlite3
import threading
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bizbench.core import sqlguard
from bizbench.core.registry import ToolError
from bizbench.core.sqlguard import (
    MAX_CONCURRENT_QUERIES,
    MAX_RESULT_BYTES,
    MAX_VALUE_BYTES,
    QUERY_HEAP_BYTES,
    QUEUE_WAIT_S,
    SQLITE_HEAP_LIMIT,
    SqlGuard,
    tokenize,
)


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("guard") / "g.db"
    conn = sqlite3.connect(path)
    conn.executescript(
        """
        PRAGMA journal_mode=WAL;
        CREATE TABLE t (day INTEGER, status TEXT, note TEXT, h REAL);
        CREATE TABLE u (day INTEGER, v REAL);
        CREATE TABLE secret (x INTEGER);
        INSERT INTO secret VALUES (42);
        """
    )
    conn.executemany(
        "INSERT INTO t VALUES (?,?,?,?)", [(d, "open" if d % 2 else "done", f"n{d}", 0.5) for d in range(20)]
    )
    conn.executemany("INSERT INTO u VALUES (?,?)", [(d, d * 1.5) for d in range(20)])
    conn.commit()
    conn.close()
    return path


@pytest.fixture(scope="module")
def guard(db: Path) -> SqlGuard:
    return SqlGuard(
        db,
        {"t": ["day", "status", "note"], "u": ["day", "v"]},
        hidden_tables=["customer_state", "events"],
        hidden_columns={"t": ["satisfaction", "h"], "u": ["satisfaction"]},
        enums={("t", "status"): ["open", "done"]},
    )


def refused(guard: SqlGuard, sql: str, **kw: float) -> ToolError:
    with pytest.raises(ToolError) as err:
        guard.query(sql, **kw)  # type: ignore[arg-type]
    return err.value


# ----------------------------------------------------------------------------- allowed
def test_a_query_without_limits_gets_30_seconds_and_5000_rows(guard: SqlGuard, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[str, float, int]] = []
    monkeypatch.setattr(guard, "_query", lambda sql, timeout_s, max_rows: seen.append((sql, timeout_s, max_rows)))
    guard.query("SELECT 1")
    assert seen == [("SELECT 1", 30.0, 5000)]


@pytest.mark.parametrize(("timeout_s", "max_rows"), [("soon", 10), (1.0, "many"), (None, 10)])
def test_limits_that_are_not_numbers_are_refused_in_words(guard: SqlGuard, timeout_s: object, max_rows: object) -> None:
    err = refused(guard, "SELECT 1", timeout_s=timeout_s, max_rows=max_rows)  # type: ignore[arg-type]
    assert str(err) == "timeout_s must be a number > 0 and max_rows an integer >= 1."


@pytest.mark.parametrize(
    ("sql", "limits", "message"),
    [
        (5, {}, "sql must be a string holding one SELECT statement."),
        (b"SELECT 1", {}, "sql must be a string holding one SELECT statement."),
        ("SELECT 1", {"timeout_s": 0}, "timeout_s must be > 0 and max_rows >= 1."),
        ("SELECT 1", {"timeout_s": -1}, "timeout_s must be > 0 and max_rows >= 1."),
        ("SELECT 1", {"max_rows": 0}, "timeout_s must be > 0 and max_rows >= 1."),
    ],
)
def test_a_query_that_is_not_text_or_has_no_time_or_no_rows_is_refused_in_words(
    guard: SqlGuard, sql: object, limits: dict[str, float], message: str
) -> None:
    err = refused(guard, sql, **limits)  # type: ignore[arg-type]
    assert (str(err), err.tamper) == (message, None)


def test_a_limit_of_exactly_one_row_still_answers(guard: SqlGuard) -> None:
    """max_rows = 1, the smallest allowed: the first row, and the answer says there were more."""
    answer = guard.query("SELECT 1 AS one UNION ALL SELECT 2", timeout_s=0.5, max_rows=1)
    assert answer["rows"] == [{"one": 1}] and answer["truncated"] is True


@pytest.mark.parametrize("content", [None, b"not a database, just bytes" * 100])
def test_a_database_file_missing_or_not_sqlite_is_not_available_yet(tmp_path: Path, content: bytes | None) -> None:
    """No file: SQLite cannot open it; a file of junk opens, and its schema cannot be read."""
    path = tmp_path / "company.db"
    if content is not None:
        path.write_bytes(content)
    err = refused(SqlGuard(path, {"t": ["day"]}), "SELECT day FROM t")
    assert (str(err), err.tamper) == ("The database is not available yet.", None)
    assert path.exists() == (content is not None)  # opened read-only: nothing is created


def test_a_database_with_no_table_still_answers_a_query_of_constants(tmp_path: Path) -> None:
    path = tmp_path / "empty.db"
    sqlite3.connect(path).close()  # a valid SQLite file whose schema is empty
    assert SqlGuard(path, {}).query("SELECT 1 AS one")["rows"] == [{"one": 1}]


def test_a_table_wider_than_the_column_floor_is_read_whole(tmp_path: Path) -> None:
    """The column limit is raised to the widest stored table: 120 columns > the floor of 100."""
    path = tmp_path / "wide.db"
    columns = [f"c{i}" for i in range(120)]
    conn = sqlite3.connect(path)
    conn.execute(f"CREATE TABLE wide ({', '.join(columns)})")
    conn.execute(f"INSERT INTO wide VALUES ({', '.join(str(i) for i in range(120))})")
    conn.commit()
    conn.close()
    row = SqlGuard(path, {"wide": columns}).query("SELECT * FROM wide")["rows"][0]
    assert list(row) == columns and row["c119"] == 119


class _Cursor:
    """A cursor over ``rows`` that records the batch sizes it is asked for."""

    def __init__(self, rows: list[tuple[object, ...]]) -> None:
        self.rows, self.asked = list(rows), []

    def fetchmany(self, n: int) -> list[tuple[object, ...]]:
        self.asked.append(n)
        out, self.rows = self.rows[:n], self.rows[n:]
        return out


def small_limits(monkeypatch: pytest.MonkeyPatch, result: int, batch: int) -> None:
    """A 10-byte longest value: with the one key "ab" a row costs 8 + 4 = 12 bytes of keys, so the
    worst row is 10 + 12 = 22 bytes and a row of one integer (24 bytes) 36."""
    monkeypatch.setattr(sqlguard, "MAX_VALUE_BYTES", 10)
    monkeypatch.setattr(sqlguard, "MAX_RESULT_BYTES", result)
    monkeypatch.setattr(sqlguard, "FETCH_BATCH", batch)


def test_an_answer_of_exactly_the_byte_limit_is_fetched_in_batches_the_room_left_allows(
    guard: SqlGuard, monkeypatch: pytest.MonkeyPatch
) -> None:
    """3 rows x 36 bytes = 108 = the limit: allowed. Batches: min(101 rows left, 3 per batch,
    108 // 22 = 4 that fit) = 3, then no room (0 // 22 -> at least 1), which finds the end."""
    small_limits(monkeypatch, result=108, batch=3)
    cur = _Cursor([(1,), (2,), (3,)])
    assert guard._fetch(cur, ["ab"], 100) == [(1,), (2,), (3,)]  # type: ignore[arg-type]
    assert cur.asked == [3, 1]


def test_an_answer_over_the_byte_limit_stops_where_the_room_runs_out(
    guard: SqlGuard, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Limit 200: min(101, 4, 200 // 22 = 9) = 4 rows (144 bytes); then 56 // 22 = 2 rows: 216 > 200."""
    small_limits(monkeypatch, result=200, batch=4)
    cur = _Cursor([(i,) for i in range(10)])
    with pytest.raises(ToolError, match=r"\(stopped after 6 rows\)") as err:
        guard._fetch(cur, ["ab"], 100)  # type: ignore[arg-type]
    assert cur.asked == [4, 2] and err.value.tamper == "oversized_result"


def test_no_batch_asks_for_more_than_the_rows_still_wanted_plus_the_one_that_tells_the_cut(
    guard: SqlGuard, monkeypatch: pytest.MonkeyPatch
) -> None:
    """max_rows 4, 3 per batch: 3, then min(4 + 1 - 3, 3) = 2; the 5th row only says "truncated"."""
    small_limits(monkeypatch, result=10_000, batch=3)
    cur = _Cursor([(i,) for i in range(9)])
    assert guard._fetch(cur, ["ab"], 4) == [(0,), (1,), (2,), (3,), (4,)]  # type: ignore[arg-type]
    assert cur.asked == [3, 2]


def test_the_oversized_answer_names_the_limit_in_mb_and_the_rows_fetched(
    guard: SqlGuard, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 2 MB limit, rows of one 700,000-character string (700,002 bytes with its quotes, + 12 of
    keys): one row fits the room at a time (1,000,012 is the worst row); the third makes
    2,100,042 > 2,000,000."""
    monkeypatch.setattr(sqlguard, "MAX_RESULT_BYTES", 2_000_000)
    text = "x" * 700_000
    cur = _Cursor([(text,)] * 5)
    with pytest.raises(ToolError) as err:
        guard._fetch(cur, ["ab"], 100)  # type: ignore[arg-type]
    assert str(err.value) == (
        "The answer is larger than the 2 MB limit (stopped after 3 rows). Aggregate with GROUP BY, select "
        "fewer or shorter columns (e.g. substr(text, 1, 200)), or add a LIMIT."
    )
    assert cur.asked == [1, 1, 1]


@pytest.mark.parametrize("sql", ["", "  ", ";", " ; ;", "-- only a comment", "/* a */ ;"])
def test_a_query_without_a_statement_is_refused_as_empty(guard: SqlGuard, sql: str) -> None:
    err = refused(guard, sql)
    assert (str(err), err.tamper) == ("The SQL query is empty.", None)


def test_an_unexpected_failure_is_logged_and_answered_with_its_kind_only(
    guard: SqlGuard, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(*args: object) -> None:
        raise RuntimeError("internal detail")

    monkeypatch.setattr(guard, "_query", broken)
    with caplog.at_level("ERROR", logger=sqlguard.logger.name):
        err = refused(guard, "SELECT 1")
    assert (str(err), err.tamper) == ("The query could not be run (RuntimeError).", None)
    assert [r.getMessage() for r in caplog.records] == ["sqlguard: unexpected failure"]
    monkeypatch.undo()
    assert guard.query("SELECT 1 AS x")["rows"] == [{"x": 1}]  # its slot was given back


def test_select_returns_columns_rows_and_count(guard: SqlGuard) -> None:
    r = guard.query("SELECT day, note FROM t WHERE day < 3 ORDER BY day")
    assert r == {
        "columns": ["day", "note"],
        "rows": [{"day": 0, "note": "n0"}, {"day": 1, "note": "n1"}, {"day": 2, "note": "n2"}],
        "row_count": 3,
    }


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT COUNT(*) AS n FROM t;",
        "SELECT COUNT(*) AS n FROM t; -- trailing comment",
        "select count(*) as n from t ;; /* c */ ",
        "-- leading comment\nSELECT COUNT(*) AS n FROM t",
        "WITH x AS (SELECT day FROM t) SELECT COUNT(*) AS n FROM x",
        "SELECT COUNT(*) AS n FROM (SELECT day FROM t JOIN u USING (day))",
        "SELECT COUNT(*) AS n FROM t WHERE note != 'DROP TABLE t; DELETE'",
        "SELECT COUNT(*) AS n FROM t, json_each('[1]')",
        "SELECT COUNT(replace(note, 'n', 'm')) AS n FROM t",
        "SELECT SUM(CASE WHEN status = 'open' THEN 1 ELSE 1 END) AS n FROM t",
        'SELECT COUNT(*) AS n FROM [t] WHERE `day` >= 0 AND "note" IS NOT NULL',
        "VALUES (20)",
        "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 20) SELECT COUNT(*) AS n FROM c",
    ],
)
def test_allowed_forms(guard: SqlGuard, sql: str) -> None:
    row = guard.query(sql)["rows"][0]
    assert list(row.values()) == [20]


def test_duplicate_names_and_blobs(guard: SqlGuard) -> None:
    r = guard.query("SELECT t.day, u.day, x'00ff' AS b FROM t JOIN u USING (day) LIMIT 1")
    assert r["columns"] == ["day", "day_2", "b"]
    assert r["rows"][0]["b"] == "00ff"


def test_truncation_at_max_rows(guard: SqlGuard) -> None:
    sql = "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 10000) SELECT i FROM c"
    r = guard.query(sql)
    assert r["truncated"] is True and r["row_count"] == 5000
    assert r["warning"] == (
        "Result truncated to the first 5000 rows. Add a LIMIT, filter with WHERE, or aggregate (GROUP BY) to "
        "get a smaller answer."
    )
    assert guard.query(sql, max_rows=10_000)["row_count"] == 10_000


@pytest.mark.parametrize(
    ("max_rows", "returned", "truncated"),
    [
        (21, 20, False),  # the query's 20 rows are max_rows - 1
        (20, 20, False),  # exactly max_rows rows: all of them, not truncated
        (19, 19, True),  # max_rows + 1 rows: the first max_rows, truncated
        (1, 1, True),
    ],
)
def test_a_query_is_truncated_only_when_it_has_more_than_max_rows_rows(
    guard: SqlGuard, max_rows: int, returned: int, truncated: bool
) -> None:
    """Table t holds 20 rows (days 0-19); the answer keeps the first ``max_rows`` in the query's
    order and says ``truncated`` (with its warning naming max_rows) only when a row was left out."""
    r = guard.query("SELECT day FROM t ORDER BY day", max_rows=max_rows)
    assert r["rows"] == [{"day": d} for d in range(returned)] and r["row_count"] == returned
    if truncated:
        assert r["truncated"] is True and f"first {max_rows} rows" in r["warning"]
    else:
        assert "truncated" not in r and "warning" not in r


@pytest.mark.parametrize("n", [15, 16, 30, 31])
def test_the_truncation_boundary_holds_across_fetch_batches(guard: SqlGuard, n: int) -> None:
    """Rows are fetched in batches no larger than the byte budget allows if every value were
    MAX_VALUE_BYTES long: for one column 16,000,000 // (1,000,000 + 11) = 15 rows (11 = the key
    "i" + 10 bytes of JSON per row). At and around a multiple of 15, a query of n rows answers n
    rows untruncated with max_rows = n or n + 1, and n - 1 rows truncated with max_rows = n - 1."""
    assert (MAX_RESULT_BYTES, MAX_VALUE_BYTES) == (16_000_000, 1_000_000)
    sql = f"WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < {n}) SELECT i FROM c"
    for max_rows, returned, truncated in ((n + 1, n, False), (n, n, False), (n - 1, n - 1, True)):
        r = guard.query(sql, max_rows=max_rows)
        assert r["row_count"] == returned and [row["i"] for row in r["rows"]] == list(range(1, returned + 1))
        assert r.get("truncated", False) is truncated, (n, max_rows)


def test_only_max_rows_plus_one_rows_are_read_however_many_the_query_has(guard: SqlGuard) -> None:
    """200 rows of 900,000 characters (180 MB) with max_rows = 10: the guard reads 11 rows (9.9 MB),
    answers the first 10, truncated; reading on would pass the 16 MB limit and be refused."""
    sql = "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r LIMIT 200) "
    sql += "SELECT n, substr(hex(zeroblob(450000)), 1, 900000) AS v FROM r"
    r = guard.query(sql, max_rows=10)
    assert r["truncated"] is True and r["row_count"] == 10
    assert [row["n"] for row in r["rows"]] == list(range(1, 11)) and len(r["rows"][9]["v"]) == 900_000


def test_a_truncated_answer_within_the_size_limit_is_not_refused_for_the_row_it_leaves_out(guard: SqlGuard) -> None:
    """Rows of 900,000 characters take about 900,010 bytes of JSON each ({"v": "..."}): 17 rows about
    15.3 MB, under the 16,000,000-byte limit, 18 rows about 16.2 MB, over it. A query of exactly
    17 such rows with max_rows = 17 is answered. One row more (18 rows, max_rows + 1) must give
    the same 17 rows, truncated, 15.3 MB (the guard counted the 18th row, which it reads only to
    see that the answer is truncated, and refused the query as larger than the limit)."""
    rows = "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r LIMIT {n}) "
    select = "SELECT substr(hex(zeroblob(450000)), 1, 900000) AS v FROM r"
    exact = guard.query(rows.format(n=17) + select, max_rows=17)
    assert exact["row_count"] == 17 and "truncated" not in exact
    over = guard.query(rows.format(n=18) + select, max_rows=17)
    assert over["row_count"] == 17 and over["truncated"] is True


@pytest.mark.parametrize(
    ("sql", "found"),
    [
        # every equality operator, with the literal on the right
        ("status = 'a'", [(None, "a")]),
        ("status == 'a'", [(None, "a")]),
        ("status != 'a'", [(None, "a")]),
        ("status <> 'a'", [(None, "a")]),
        ("status is 'a'", [(None, "a")]),
        ("status is not 'a'", [(None, "a")]),
        ("status not 'a'", []),
        # an ordering, a column or a number is not a compared value
        ("status > 'a'", []),
        ("status = other", []),
        ("status = 1", []),
        # a quoted column name is the column; a string that reads like it is not
        ("\"status\" = 'a'", [(None, "a")]),
        ("'status' = 'a'", []),
        # [NOT] IN (...): its strings up to the closing parenthesis, and nothing after it
        ("status in ('a', 1, 'b') and 'c' = 'c'", [(None, "a"), (None, "b")]),
        ("status not in ('a')", [(None, "a")]),
        ("status in 'a'", []),
        ("status in", []),
        ("x = 'z' and status in ('a')", [(None, "a")]),
        # every token of the list is read: a literal after an odd number of tokens is found too
        ("status in (-1, 'a')", [(None, "a")]),
        ("status not like 'a'", []),
        # the literal on the left: only =, ==, != and <>
        ("'a' = status", [(None, "a")]),
        ("'a' == status", [(None, "a")]),
        ("'a' != status", [(None, "a")]),
        ("'a' <> status", [(None, "a")]),
        ("'a' is status", []),
        ("'a' < status", []),
        ("x = status", []),
        # the qualifier: a name (plain or quoted) before a dot, on either side
        ("s.status = 'a'", [("s", "a")]),
        ("\"s\".status in ('a', 'b')", [("s", "a"), ("s", "b")]),
        ("'a' = s.status", [("s", "a")]),
        ("'a'.status = 'b'", [(None, "b")]),
        ("s . status <> 'a'", [("s", "a")]),
        # at the start or the end of the text: nothing is read from beyond it
        (". status = 'a' x", [(None, "a")]),
        ("= status 'a'", []),
        ("status =", []),
        ("status is not", []),
        ("status not", []),
        ("status in (", []),
        ("status in ('a'", [(None, "a")]),
        # every comparison, in the order of the text
        ("status = 'a' or status = 'b' or 'c' = t.status", [(None, "a"), (None, "b"), ("t", "c")]),
    ],
)
def test_the_literals_compared_with_a_column_are_read_on_both_sides_of_every_equality(
    sql: str, found: list[tuple[str | None, str]]
) -> None:
    assert sqlguard._compared_literals(tokenize(sql), "status") == found


def test_enum_hint_on_empty_result(guard: SqlGuard) -> None:
    r = guard.query("SELECT day FROM t WHERE status = 'closed'")
    assert r["row_count"] == 0
    assert r["hint"] == (
        "No rows matched. t.status takes the values 'open', 'done'; the query compared it with 'closed', "
        "which no row has."
    )
    # every unknown value once, in the query's order; a quoted table name takes an alias too
    r = guard.query("""SELECT day FROM "t" AS x WHERE x.status IN ('closed', 'nope', 'closed')""")
    assert r["hint"] == (
        "No rows matched. t.status takes the values 'open', 'done'; the query compared it with 'closed', "
        "'nope', which no row has."
    )
    assert "hint" not in guard.query("SELECT day FROM t WHERE status IN ('open') AND day > 99")
    assert "hint" in guard.query("SELECT day FROM t WHERE status NOT IN ('open', 'nope') AND day > 99")
    # an alias with or without AS, bare or quoted, leads the qualified column to its table
    for sql in (
        "SELECT day FROM t a WHERE a.status = 'closed'",
        "SELECT day FROM t [c] WHERE c.status = 'closed'",
        "SELECT day FROM t AS \"b\" WHERE b.status = 'closed'",
    ):
        assert guard.query(sql)["hint"] == (
            "No rows matched. t.status takes the values 'open', 'done'; the query compared it with 'closed', "
            "which no row has."
        ), sql


def test_the_enum_hint_has_one_note_per_column_and_names_no_table_the_value_is_valid_for(db: Path) -> None:
    guard = SqlGuard(
        db,
        {"t": ["day", "status", "note"], "u": ["day", "v"]},
        enums={("t", "status"): ["open"], ("t", "note"): ["a"], ("t", "day"): ["1"], ("u", "day"): ["2"]},
    )
    r = guard.query("SELECT t.day FROM t WHERE status = 'x' AND note = 'y'")
    assert r["hint"] == (
        "No rows matched. t.status takes the values 'open'; the query compared it with 'x', which no row has; "
        "t.note takes the values 'a'; the query compared it with 'y', which no row has."
    )
    # an unqualified day = '1' is valid for t, so u (whose only value is '2') is not flagged
    assert "hint" not in guard.query("SELECT t.day FROM t JOIN u USING (day) WHERE day = '1'")


def test_the_enum_hint_comes_with_aggregate_answers_too(guard: SqlGuard) -> None:
    r = guard.query("SELECT COUNT(*) AS n FROM t WHERE status = 'closed'")
    assert r["rows"] == [{"n": 0}]
    assert r["hint"] == (
        "Check the filter: t.status takes the values 'open', 'done'; the query compared it with 'closed', "
        "which no row has."
    )
    r = guard.query("SELECT SUM(CASE WHEN x.status = 'Open' THEN 1 ELSE 0 END) AS n FROM t AS x JOIN u USING (day)")
    assert r["rows"] == [{"n": 0}] and "'Open'" in r["hint"]
    r = guard.query("SELECT COUNT(*) AS n FROM t WHERE 'closed' != t.status")
    assert r["rows"] == [{"n": 20}] and "'closed'" in r["hint"]
    assert "hint" not in guard.query("SELECT COUNT(*) AS n FROM t y WHERE y.status IN ('open', 'done')")
    assert "hint" not in guard.query("SELECT COUNT(*) AS n FROM u WHERE 'closed' = 'closed'")


def test_queries_from_many_threads(guard: SqlGuard) -> None:
    results: list[int] = []

    def run() -> None:
        results.append(guard.query("SELECT SUM(v) AS s FROM u")["rows"][0]["s"])

    threads = [threading.Thread(target=run) for _ in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert results == [285.0] * 8


# ----------------------------------------------------------------------------- refused
@pytest.mark.parametrize(
    ("sql", "tamper"),
    [
        ("PRAGMA table_info(t)", "schema_introspection"),
        ("pragma journal_mode", "schema_introspection"),
        ("SELECT * FROM pragma_table_info('t')", "schema_introspection"),
        ("SELECT name FROM sqlite_master", "schema_introspection"),
        ("SELECT sql FROM sqlite_schema", "schema_introspection"),
        ("SELECT * FROM sqlite_temp_master", "schema_introspection"),
        ("SELECT * FROM 'sqlite_master'", "schema_introspection"),
        ("ATTACH DATABASE ':memory:' AS m", "write_sql"),
        ("DETACH DATABASE main", "write_sql"),
        ("INSERT INTO t VALUES (1, 'x', 'y', 0)", "write_sql"),
        ("insert into customer_state values (1)", "write_sql"),
        ("UPDATE t SET note = 'x'", "write_sql"),
        ("DELETE FROM t", "write_sql"),
        ("REPLACE INTO t VALUES (1, 'x', 'y', 0)", "write_sql"),
        ("INSERT OR REPLACE INTO t VALUES (1, 'x', 'y', 0)", "write_sql"),
        ("WITH x AS (SELECT 1) INSERT INTO t(day) SELECT * FROM x", "write_sql"),
        ("WITH x AS (SELECT 1) DELETE FROM t", "write_sql"),
        ("DROP TABLE t", "write_sql"),
        ("CREATE TABLE z (a)", "write_sql"),
        ("CREATE TEMP TABLE z AS SELECT * FROM t", "write_sql"),
        ("CREATE TEMP VIEW z AS SELECT * FROM secret", "write_sql"),
        ("ALTER TABLE t ADD COLUMN z", "write_sql"),
        ("BEGIN", "write_sql"),
        ("VACUUM", "write_sql"),
        ("/* hi */ delete from t", "write_sql"),
        ("SELECT * FROM secret", "hidden_table"),
        ("SELECT t.day FROM t JOIN secret ON 1", "hidden_table"),
        ("SELECT COUNT(*) FROM secret", "hidden_table"),
        ("WITH s AS (SELECT x FROM secret) SELECT COUNT(*) FROM s", "hidden_table"),
        ("SELECT * FROM customer_state", "hidden_table"),
        ("SELECT * FROM main.events", "hidden_table"),
        ("SELECT h FROM t", "hidden_column"),
        ("SELECT * FROM t", "hidden_column"),  # t's file has a non-visible column
        ("SELECT satisfaction FROM u", "hidden_column"),
        ("SELECT 1; SELECT 2", "multiple_statements"),
        ("SELECT * FROM u; DROP TABLE t", "multiple_statements"),
        ("SELECT load_extension('x')", "forbidden_function"),
    ],
)
def test_attacks_are_refused_and_tagged(guard: SqlGuard, sql: str, tamper: str) -> None:
    assert refused(guard, sql).tamper == tamper


@pytest.mark.parametrize(
    ("sql", "answer", "tamper"),
    [
        (
            "SELECT 1; SELECT 2",
            "Only one SQL statement per query is allowed; send each SELECT separately.",
            "multiple_statements",
        ),
        ("PRAGMA table_info(t)", "PRAGMA statements are not allowed.", "schema_introspection"),
        ("DELETE FROM t", "Only read-only SELECT queries are allowed ('DELETE' is not).", "write_sql"),
        ("REPLACE INTO t VALUES (1)", "Only read-only SELECT queries are allowed ('REPLACE' is not).", "write_sql"),
        # a name starting pragma_ (here an alias) is refused wherever it stands
        ("SELECT 1 AS pragma_x", "Schema introspection is not allowed.", "schema_introspection"),
        # a statement in parentheses is left to SQLite, which cannot run it
        ("(SELECT 1)", 'SQL error: near "(": syntax error', None),
        # INTO as the text's last word still makes REPLACE a write
        ("REPLACE INTO", "Only read-only SELECT queries are allowed ('REPLACE' is not).", "write_sql"),
    ],
)
def test_each_refusal_of_the_text_says_what_is_not_allowed(guard: SqlGuard, sql: str, answer: str, tamper: str) -> None:
    err = refused(guard, sql)
    assert (str(err), err.tamper) == (answer, tamper)


def test_nothing_was_written(guard: SqlGuard, db: Path) -> None:
    for sql in ("DELETE FROM t", "DROP TABLE t", "CREATE TEMP TABLE z AS SELECT 1"):
        refused(guard, sql)
    assert guard.query("SELECT COUNT(*) AS n FROM t")["rows"][0]["n"] == 20


def test_runaway_query_times_out(guard: SqlGuard) -> None:
    err = refused(
        guard, "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c) SELECT MAX(i) FROM c", timeout_s=0.5
    )
    assert err.tamper == "query_timeout" and "LIMIT" in str(err)


# ----------------------------------------------------------------------------- honest mistakes
def test_unknown_table_lists_the_tables(guard: SqlGuard) -> None:
    err = refused(guard, "SELECT * FROM nope")
    assert err.tamper is None and "t, u" in str(err) and "secret" not in str(err)


def test_unknown_column_lists_the_columns(guard: SqlGuard) -> None:
    err = refused(guard, "SELECT dya FROM u")
    assert err.tamper is None and "u(day, v)" in str(err)


def test_ambiguous_column_names_the_tables(guard: SqlGuard) -> None:
    err = refused(guard, "SELECT day FROM t JOIN u ON t.day = u.day")
    assert err.tamper is None and "t, u" in str(err)


@pytest.mark.parametrize("sql", ["SELEC 1", "SELECT FROM", "", "   ;  ", "-- only a comment", "EXPLAIN SELECT 1"])
def test_syntax_errors_are_plain(guard: SqlGuard, sql: str) -> None:
    assert refused(guard, sql).tamper is None


def test_bad_argument_types(guard: SqlGuard) -> None:
    with pytest.raises(ToolError):
        guard.query(None)  # type: ignore[arg-type]
    with pytest.raises(ToolError):
        guard.query("SELECT 1", max_rows=0)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ToolError):
        SqlGuard(tmp_path / "none.db", {"t": ["a"]}).query("SELECT 1")


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=80) | st.sampled_from(["SELECT", "';--", '"', "/*", "WITH", "x'zz'", "?", ":a", "[t"]))
def test_any_text_gives_an_answer_or_a_tool_error(guard: SqlGuard, sql: str) -> None:
    try:
        r = guard.query(sql, timeout_s=2.0)
    except ToolError:
        return
    assert set(r) >= {"columns", "rows", "row_count"}


def test_tokenizer_skips_strings_and_comments() -> None:
    toks = tokenize("SELECT 'a;b' -- x;\n, \"q;\" /* ; */ ; ")
    assert [t.kind for t in toks] == ["word", "string", "op", "qword", "semi"]


@pytest.mark.timeout(10)  # a comment that sends the lexer back to an earlier position loops for ever
@pytest.mark.parametrize(
    ("sql", "words"),
    [
        # a line comment ends at its own line's end, however many lines come before and after it
        ("SELECT 1\n-- a\nFROM t -- b\nWHERE x\n", ["select", "1", "from", "t", "where", "x"]),
        # a block comment ends at its own */, not at a later one nor an earlier one
        ("SELECT 1 /* a */ + /* b */ 2", ["select", "1", "+", "2"]),
        ("SELECT 1 /**/ FROM t", ["select", "1", "from", "t"]),
        ("SELECT 1 /* a */x", ["select", "1", "x"]),
        # an unterminated block comment runs to the end of the text
        ("SELECT 1 /* open", ["select", "1"]),
        # a capital X starts a word (not a quoted name)
        ("SELECT Xa, x", ["select", "xa", ",", "x"]),
    ],
)
def test_a_comment_ends_where_sqlite_ends_it(sql: str, words: list[str]) -> None:
    assert [t.text for t in tokenize(sql)] == words


def test_every_token_keeps_its_kind_text_and_position() -> None:
    assert [(t.kind, t.text, t.pos) for t in tokenize("SELECT 'a', \"b\"; x")] == [
        ("word", "select", 0),
        ("string", "a", 7),
        ("op", ",", 10),
        ("qword", "b", 12),
        ("semi", ";", 15),
        ("word", "x", 17),
    ]


def test_numbers_and_parameters_are_one_token_each_with_their_position() -> None:
    sql = "SELECT .5, 1e3, 0x1F, ?12, ?, :name, @v, $w, 3.;x ?"
    # positions by hand: SELECT 0-5, .5 at 7, 1e3 at 11, 0x1F at 16, ?12 at 22, ? at 27, :name at 30,
    # @v at 37, $w at 41, 3. at 45, ; at 47, x at 48 and the last ? (the text's last character) at 50
    assert [(t.kind, t.text, t.pos) for t in tokenize(sql)] == [
        ("word", "select", 0),
        ("number", ".5", 7),
        ("op", ",", 9),
        ("number", "1e3", 11),
        ("op", ",", 14),
        ("number", "0x1F", 16),
        ("op", ",", 20),
        ("param", "?12", 22),
        ("op", ",", 25),
        ("param", "?", 27),
        ("op", ",", 28),
        ("param", ":name", 30),
        ("op", ",", 35),
        ("param", "@v", 37),
        ("op", ",", 39),
        ("param", "$w", 41),
        ("op", ",", 43),
        ("number", "3.", 45),
        ("semi", ";", 47),
        ("word", "x", 48),
        ("param", "?", 50),
    ]
    # a ? takes the digits after it (one here) and no word: ?a is a ? and then the word a
    assert [(t.kind, t.text, t.pos) for t in tokenize("?1,?a")] == [
        ("param", "?1", 0),
        ("op", ",", 2),
        ("param", "?", 3),
        ("word", "a", 4),
    ]


@pytest.mark.parametrize(
    ("sql", "tokens"),
    [
        # a doubled quote is one quote inside a string or a quoted name, anywhere in the text
        ("SELECT 'it''s', x", [("word", "select"), ("string", "it's"), ("op", ","), ("word", "x")]),
        ('"a""b"c', [("qword", 'a"b'), ("word", "c")]),
        ("`a``b`c", [("qword", "a`b"), ("word", "c")]),
        ("'''' x", [("string", "'"), ("word", "x")]),
        # a bracketed name has no escape: its first ] ends it
        ("[a]]b]", [("qword", "a"), ("op", "]"), ("word", "b"), ("op", "]")]),
        ("'a',b", [("string", "a"), ("op", ","), ("word", "b")]),
        # unterminated: the rest of the text is the string (SQLite then reports the syntax error)
        ("SELECT 'ab", [("word", "select"), ("string", "ab")]),
        ("'a''", [("string", "a'")]),
        ("[a", [("qword", "a")]),
    ],
)
def test_a_quoted_run_ends_at_its_closing_quote_and_a_doubled_quote_escapes_it(
    sql: str, tokens: list[tuple[str, str]]
) -> None:
    assert [(t.kind, t.text) for t in tokenize(sql)] == tokens


# ----------------------------------------------------------------------------- memory and names
ROWS = "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r LIMIT {n})"


def test_a_value_above_the_length_limit_is_refused(guard: SqlGuard) -> None:
    doubled = "SELECT replace(substr(hex(zeroblob(450000)), 1, 900000), '0', '00') AS s"
    for sql in ("SELECT zeroblob(2000000) AS b", doubled):
        err = refused(guard, sql)
        assert err.tamper is None
        assert str(err) == (
            "A value in the query is longer than the 1,000,000-byte limit for one string or blob. Return "
            "shorter values (e.g. substr(text, 1, 1000)) or aggregate fewer rows at a time."
        )
    assert len(guard.query("SELECT substr(hex(zeroblob(450000)), 1, 900000) AS v")["rows"][0]["v"]) == 900_000


def test_printf_and_format_are_refused_their_widths_run_for_seconds_in_one_step(guard: SqlGuard) -> None:
    """Issue 16 review: printf('%.*c', 2147483647 - x, 'a') spent ~17 s in one VM step, where neither the
    time limit nor the step budget (checked between steps) could stop it."""
    for name in ("printf", "format"):
        err = refused(guard, f"SELECT length({name}('%.*c', 2147483647, 'a')) AS n".format(name=name))
        assert err.tamper == "forbidden_function" and name in str(err)


def test_an_oversized_answer_is_stopped_early(guard: SqlGuard) -> None:
    sql = f"{ROWS.format(n=200)} SELECT substr(hex(zeroblob(450000)), 1, 900000) FROM r"
    err = refused(guard, sql)
    assert err.tamper == "oversized_result" and "LIMIT" in str(err) and "GROUP BY" in str(err)
    stopped_after = int(str(err).split("stopped after ")[1].split()[0])
    assert stopped_after * 900_000 <= MAX_RESULT_BYTES + 60 * 900_000  # fetched in bounded batches
    legit = f"{ROWS.format(n=15)} SELECT substr(hex(zeroblob(450000)), 1, 900000) FROM r"
    assert guard.query(legit)["row_count"] == 15  # 13.5 MB


def test_an_answer_is_counted_as_json_escapes_it(guard: SqlGuard) -> None:
    """Issue 16 review: char(1) counted 1 byte but JSON writes 6 (\\u0001): 50 MB 'answers' were 300 MB."""
    err = refused(guard, f"{ROWS.format(n=10)} SELECT replace(hex(zeroblob(450000)), '0', char(1)) FROM r")
    assert err.tamper == "oversized_result"


def test_many_large_columns_are_refused(guard: SqlGuard) -> None:
    cols = ", ".join(f"s AS c{i}" for i in range(120))
    err = refused(guard, f"WITH v(s) AS (SELECT substr(hex(zeroblob(450000)), 1, 900000)) SELECT {cols} FROM v")
    assert "too many result columns" in str(err)
    assert len(guard.query("SELECT * FROM u JOIN u AS u2 USING (day) LIMIT 1")["columns"]) == 3


def test_at_most_two_queries_run_at_once(guard: SqlGuard, monkeypatch: pytest.MonkeyPatch) -> None:
    active, peak = [0], [0]
    lock = threading.Lock()
    connect = guard._connect

    def slow_connect(*args: object) -> sqlite3.Connection:
        with lock:
            active[0] += 1
            peak[0] = max(peak[0], active[0])
        time.sleep(0.1)
        with lock:
            active[0] -= 1
        return connect(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(guard, "_connect", slow_connect)
    results: list[float] = []
    threads = [
        threading.Thread(target=lambda: results.append(guard.query("SELECT SUM(v) AS s FROM u")["rows"][0]["s"]))
        for _ in range(6)
    ]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert results == [285.0] * 6 and peak[0] == MAX_CONCURRENT_QUERIES == 2


def test_a_third_concurrent_query_waits_then_is_refused(guard: SqlGuard, monkeypatch: pytest.MonkeyPatch) -> None:
    release, started = threading.Event(), threading.Semaphore(0)
    run = guard._query

    def blocked(*args: object) -> dict[str, object]:
        started.release()
        release.wait(10)
        return run(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(guard, "_query", blocked)
    threads = [threading.Thread(target=guard.query, args=("SELECT 1",)) for _ in range(2)]
    for th in threads:
        th.start()
    assert started.acquire(timeout=5) and started.acquire(timeout=5)
    slots, waits = guard._slots, []

    class Spy:  # the waits asked of the full slots, counted instead of timed (issue 18)
        def acquire(self, timeout: float) -> bool:
            waits.append(timeout)
            return slots.acquire(timeout=timeout) if 0 <= timeout < 1 else False

    monkeypatch.setattr(guard, "_slots", Spy())
    err = refused(guard, "SELECT 1", timeout_s=0.3)
    assert (str(err), err.tamper) == (
        "The database is busy: 2 other queries are still running. Wait for them to finish (or make them "
        "smaller) and send this query again.",
        None,
    )
    assert refused(guard, "SELECT 1", timeout_s=60).tamper is None
    assert refused(guard, "SELECT 1", timeout_s=-1).tamper is None
    # a query's own timeout, or QUEUE_WAIT_S at most, and no wait at all for a timeout that is not > 0
    assert waits == [0.3, QUEUE_WAIT_S, 0.0]
    monkeypatch.setattr(guard, "_slots", slots)
    release.set()
    for th in threads:
        th.join()
    monkeypatch.undo()
    assert guard.query("SELECT 1 AS x")["rows"] == [{"x": 1}]


# ----------------------------------------------------------------------------- temp data and work budgets
FOREVER = "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c) "
SPILL_ATTACKS = [  # run together, they wrote 2.7 GB of temp files in 28 s before temp data stayed in memory
    f"{FOREVER} SELECT i FROM c ORDER BY randomblob(1000)",
    f"{FOREVER} SELECT count(distinct randomblob(1000)) FROM c",
]


def open_temp_file_bytes() -> int:
    """Bytes in the SQLite temp files this process holds open (``etilqs_*``, unlinked as they open)."""
    total = 0
    for fd in Path("/proc/self/fd").iterdir():
        try:
            if "etilqs_" in os.readlink(fd):
                total += fd.stat().st_size
        except OSError:
            pass  # closed meanwhile
    return total


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="reads the process's open files in /proc")
def test_the_temp_spill_attack_writes_no_temp_file_and_stops_at_the_memory_budget(
    guard: SqlGuard, monkeypatch: pytest.MonkeyPatch
) -> None:
    budget = sqlguard._SQLITE_HEAP_USED() + 64_000_000  # 64 MB above what this process holds now
    monkeypatch.setattr(sqlguard, "QUERY_HEAP_BYTES", budget)
    errors: list[ToolError] = []
    peak_temp = [0]
    finished = threading.Event()

    def watch() -> None:
        while not finished.wait(0.02):
            peak_temp[0] = max(peak_temp[0], open_temp_file_bytes())

    def attack(sql: str) -> None:
        errors.append(refused(guard, sql, timeout_s=10))

    watcher = threading.Thread(target=watch)
    attackers = [threading.Thread(target=attack, args=(sql,)) for sql in SPILL_ATTACKS]
    for th in (watcher, *attackers):
        th.start()
    for th in attackers:
        th.join()
    finished.set()
    watcher.join()
    assert peak_temp[0] == 0  # the bound: not one byte of temp file
    assert [e.tamper for e in errors] == ["query_memory", "query_memory"]  # the memory budget, not the 10 s
    assert all(f"({budget // 1_000_000} MB for all running queries)" in str(e) for e in errors)
    assert guard.query("SELECT COUNT(*) AS n FROM t")["rows"] == [{"n": 20}]


def test_sqlite_memory_has_a_hard_limit_in_this_process(guard: SqlGuard) -> None:
    guard.query("SELECT 1")
    conn = sqlite3.connect(":memory:")
    try:
        assert 0 < conn.execute("PRAGMA hard_heap_limit").fetchone()[0] <= SQLITE_HEAP_LIMIT
        assert sqlguard._SQLITE_HEAP_USED is not None and sqlguard._SQLITE_HEAP_USED() > 0  # it reads this SQLite
    finally:
        conn.close()
    assert QUERY_HEAP_BYTES <= SQLITE_HEAP_LIMIT // 2  # the rest is the writer's headroom


def test_an_allocation_refused_at_the_hard_heap_limit_is_a_clear_error(
    guard: SqlGuard, monkeypatch: pytest.MonkeyPatch
) -> None:
    def out_of_memory(*args: object) -> None:
        raise MemoryError  # what SQLite's SQLITE_NOMEM becomes in Python

    monkeypatch.setattr(guard, "_fetch", out_of_memory)
    err = refused(guard, "SELECT day FROM t ORDER BY note")
    assert err.tamper == "query_memory"
    assert str(err) == (  # QUERY_HEAP_BYTES = 512,000,000 bytes = 512 MB
        "The query needed more memory than the database allows (512 MB for all running queries) and was "
        "stopped. Sorting, DISTINCT and GROUP BY hold their rows in memory: filter first, sort or group fewer "
        "and shorter values, or add a LIMIT."
    )
    monkeypatch.undo()
    assert guard.query("SELECT COUNT(*) AS n FROM t")["rows"] == [{"n": 20}]


def test_a_query_past_the_step_budget_is_stopped_with_an_error_naming_it(
    guard: SqlGuard, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sqlguard, "MAX_VM_STEPS", 200_000)
    err = refused(guard, f"{FOREVER} SELECT MAX(i) FROM c", timeout_s=30)
    assert err.tamper == "query_steps"
    assert str(err) == (
        "The query took more than 200,000 SQLite steps (the budget of one query) and was stopped. "
        "Narrow it: filter on day or customer_id, aggregate with GROUP BY, or add a LIMIT."
    )
    assert guard.query(f"{ROWS.format(n=1000)} SELECT COUNT(*) AS n FROM r")["rows"] == [{"n": 1000}]


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT 'sqlite_master' AS x",
        "SELECT 'pragma_table_info' AS x, 'sqlite_schema' AS y",
        "SELECT COUNT(*) AS n FROM t WHERE note NOT IN ('sqlite_master', 'pragma_x')",
        "SELECT 'sqlite_temp_master', day FROM t, u USING (day) LIMIT 1",
    ],
)
def test_string_literals_are_not_names(guard: SqlGuard, sql: str) -> None:
    assert guard.query(sql)["row_count"] == 1


def test_a_string_before_a_parenthesis_or_a_dot_is_a_name_wherever_it_stands() -> None:
    """SQLite reads ``x IN 'pragma_table_info'('t')`` as a table function and ``'a'.x`` as a
    qualified column, with no FROM, JOIN or comma before the string. Private: through ``query``
    the authorizer would refuse ``pragma_table_info`` anyway, so the answer cannot tell."""
    toks = tokenize("SELECT 1 WHERE 1 IN 'pragma_table_info'('t') AND 'a'.x = 'b'")
    # 0 select, 2 where, 4 in, 9 and, 12 x are words; 5 stands before "(" and 10 before ".";
    # 't' (7, after "(") and 'b' (14, after "=") are values
    assert sqlguard._name_positions(toks) == {0, 2, 4, 5, 9, 10, 12}


def test_a_string_after_a_comma_is_a_name_only_inside_a_from_list(guard: SqlGuard) -> None:
    # before any FROM, a comma-listed string (here a CTE's name that is never read) is not read as a name
    sql = "WITH a AS (SELECT 1 AS v), 'sqlite_master' AS (SELECT 2 AS v) SELECT v FROM a"
    assert guard.query(sql)["rows"] == [{"v": 1}]


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT rowid FROM 'sqlite_master'",
        "SELECT x.rowid FROM t, 'sqlite_master' AS x",
        "SELECT t.day FROM t JOIN u ON t.day = u.day, 'sqlite_master'",
        "SELECT rowid FROM main.'sqlite_master'",
        "SELECT * FROM 'pragma_table_info'('t')",
        'SELECT "sqlite_master"',
    ],
)
def test_strings_read_as_names_still_count(guard: SqlGuard, sql: str) -> None:
    assert refused(guard, sql).tamper == "schema_introspection"


@pytest.mark.parametrize(
    ("sql", "answer"),
    [
        # a string before "." or "(" is a name, even as the text's second-to-last token
        ("SELECT 'sqlite_master'.name FROM t", "Schema introspection is not allowed."),
        ("SELECT 'sqlite_master'.", "Schema introspection is not allowed."),
        # the first token has no token before it (not the text's last one, here FROM)
        ("'sqlite_master' FROM", "Only SELECT queries are allowed (the statement starts with 'sqlite_master')."),
        # a closing parenthesis with none open is SQLite's syntax error, not a crash of the lexer
        ("SELECT 1) FROM t", 'SQL error: near ")": syntax error'),
    ],
)
def test_where_a_string_is_a_name_decides_the_answer(guard: SqlGuard, sql: str, answer: str) -> None:
    assert str(refused(guard, sql)) == answer


@pytest.mark.parametrize(
    ("sql", "named"),
    [
        ("SELECT zz FROM u, 't'", "u(day, v); t(day, status, note)"),
        # a string right after FROM, JOIN or "." names a table
        ("SELECT zz FROM 't'", "t(day, status, note)"),
        ("SELECT zz FROM main.'t'", "t(day, status, note)"),
        # a JOIN starts a FROM list too (here inside parentheses, where no FROM came first)
        ("SELECT zz FROM (u JOIN u AS u2, 't' AS x)", "u(day, v); t(day, status, note)"),
        # ORDER BY ends the FROM list: 't' is a value there
        ("SELECT zz FROM u ORDER BY day, 't'", "u(day, v)"),
        # a subquery's own WHERE and ORDER BY end its list, not the outer one
        ("SELECT zz FROM (SELECT day FROM u WHERE day > 0 ORDER BY day), 't'", "u(day, v); t(day, status, note)"),
    ],
)
def test_a_table_named_by_a_string_in_a_from_list_is_one_the_query_mentions(
    guard: SqlGuard, sql: str, named: str
) -> None:
    # the unknown column's answer lists the columns of every table the query names
    assert str(refused(guard, sql)) == f"Unknown column 'zz'. Valid columns: {named}."


# ----------------------------------------------------------------------------- hidden names look unknown
MADE_UP = "zq_made_up"  # a name that exists nowhere
HIDDEN_TABLES = ["customer_state", "events", "secret"]  # two absent from the file, one in it but not visible
HIDDEN_COLUMNS = [("t", "satisfaction"), ("t", "h"), ("u", "satisfaction")]  # t.h is in the file
TABLE_FORMS = [
    "SELECT * FROM {name}",
    "SELECT COUNT(*) AS n FROM {name}",
    "SELECT t.day FROM t JOIN {name} ON 1",
    "SELECT x FROM main.{name}",
    "WITH s AS (SELECT * FROM {name}) SELECT COUNT(*) AS n FROM s",
    "SELECT * FROM {NAME}",
]
COLUMN_FORMS = [
    "SELECT {name} FROM {table}",
    "SELECT {table}.{name} FROM {table}",
    "SELECT x.{NAME} FROM {table} AS x",
    "SELECT COUNT(*) AS n FROM {table} WHERE {name} > 0",
    "SELECT day FROM {table} ORDER BY {name}",
    "SELECT {name} FROM t JOIN u USING (day)",
]


def outcome(guard: SqlGuard, sql: str, name: str) -> str:
    """The answer or error text an agent sees, with ``name`` replaced by a placeholder."""
    try:
        seen = repr(guard.query(sql))
    except ToolError as err:
        seen = f"error: {err}"
    return re.sub(re.escape(name), "<name>", seen, flags=re.IGNORECASE)


@pytest.mark.parametrize("form", TABLE_FORMS)
@pytest.mark.parametrize("hidden", HIDDEN_TABLES)
def test_a_hidden_table_is_answered_like_a_made_up_one(guard: SqlGuard, form: str, hidden: str) -> None:
    def sql(name: str) -> str:
        return form.format(name=name, NAME=name.upper())

    seen = outcome(guard, sql(hidden), hidden)
    assert seen == outcome(guard, sql(MADE_UP), MADE_UP)
    assert seen.startswith("error: Unknown table '<name>'. Valid tables: t, u.")


@pytest.mark.parametrize("form", COLUMN_FORMS)
@pytest.mark.parametrize(("table", "hidden"), HIDDEN_COLUMNS)
def test_a_hidden_column_is_answered_like_a_made_up_one(guard: SqlGuard, form: str, table: str, hidden: str) -> None:
    def sql(name: str) -> str:
        return form.format(name=name, NAME=name.upper(), table=table)

    assert outcome(guard, sql(hidden), hidden) == outcome(guard, sql(MADE_UP), MADE_UP)


@pytest.mark.parametrize(("table", "hidden"), [("t", "satisfaction"), ("u", "satisfaction")])
def test_a_double_quoted_hidden_name_is_a_string_like_any_unknown_name(
    guard: SqlGuard, table: str, hidden: str
) -> None:
    sql = 'SELECT "{name}" AS v FROM {table} LIMIT 1'
    seen = outcome(guard, sql.format(name=hidden, table=table), hidden)
    assert seen == outcome(guard, sql.format(name=MADE_UP, table=table), MADE_UP)
    assert guard.query(sql.format(name=hidden, table=table))["rows"] == [{"v": hidden}]  # SQLite's reading


def test_hidden_names_given_in_any_case_are_hidden(db: Path) -> None:
    """SQL names are case-insensitive, so the guard's lists are too: names given in mixed case
    hide the same tables and columns as the lower-case ones."""
    guard = SqlGuard(
        db,
        {"t": ["day", "status", "note"], "u": ["day", "v"]},
        hidden_tables=["Customer_State", "EVENTS"],
        hidden_columns={"T": ["Satisfaction"], "u": ["SATISFACTION"]},
    )
    assert refused(guard, "SELECT * FROM events").tamper == "hidden_table"
    assert refused(guard, "SELECT * FROM customer_state").tamper == "hidden_table"
    assert refused(guard, "SELECT satisfaction FROM t").tamper == "hidden_column"
    assert refused(guard, "SELECT satisfaction FROM u").tamper == "hidden_column"


def test_a_hidden_column_is_still_tagged_for_the_tamper_log(guard: SqlGuard) -> None:
    for sql, tamper in [("SELECT satisfaction FROM u", "hidden_column"), ("SELECT * FROM events", "hidden_table")]:
        assert refused(guard, sql).tamper == tamper
    assert refused(guard, f"SELECT {MADE_UP} FROM u").tamper is None


@pytest.fixture
def view_guard(tmp_path: Path) -> SqlGuard:
    """A file whose visible view ``v`` reads the hidden table ``secret``, and whose visible table
    ``t`` has a column ``h`` that is not visible and not listed among the hidden columns."""
    path = tmp_path / "v.db"
    conn = sqlite3.connect(path)
    conn.executescript(
        """
        CREATE TABLE t (day INTEGER, h REAL);
        CREATE TABLE secret (x INTEGER);
        INSERT INTO t VALUES (1, 0.5);
        INSERT INTO secret VALUES (42);
        CREATE VIEW v AS SELECT x FROM secret;
        """
    )
    conn.commit()
    conn.close()
    return SqlGuard(path, {"t": ["day"], "v": ["x"]})


def test_a_view_over_a_hidden_table_is_refused_with_an_error_that_names_nothing_hidden(view_guard: SqlGuard) -> None:
    for sql in ("SELECT x FROM v", "SELECT * FROM v"):
        err = refused(view_guard, sql)
        assert str(err) == "The query reads data you cannot query; name the columns you need. Valid columns: v(x)."
        assert err.tamper == "hidden_table"


def test_a_view_reads_the_storage_it_is_declared_over_but_no_query_reads_that_storage_by_name(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    conn = sqlite3.connect(path)
    conn.executescript(
        """
        CREATE TABLE rows (id INTEGER PRIMARY KEY, code INTEGER);
        CREATE TABLE names (code INTEGER PRIMARY KEY, name TEXT);
        INSERT INTO rows VALUES (1, 0), (2, 1), (3, 1);
        INSERT INTO names VALUES (0, 'zero'), (1, 'one');
        CREATE VIEW v AS SELECT r.id, (SELECT name FROM names AS n WHERE n.code = r.code) AS name FROM rows AS r;
        """
    )
    conn.commit()
    conn.close()
    guard = SqlGuard(path, {"v": ["id", "name"]}, storage=("rows", "names"))
    assert guard.query("SELECT name, COUNT(*) AS n FROM v GROUP BY name ORDER BY name")["rows"] == [
        {"name": "one", "n": 2},
        {"name": "zero", "n": 1},
    ]
    assert guard.query("SELECT COUNT(*) AS n FROM v")["rows"] == [{"n": 3}]
    # A storage table's name as an alias reads nothing: no refusal, no tamper entry.
    assert guard.query("SELECT COUNT(*) AS rows FROM v")["rows"] == [{"rows": 3}]
    assert guard.query('SELECT name AS "names" FROM v AS rows WHERE id = 1')["rows"] == [{"names": "zero"}]
    assert guard.query("SELECT CAST(id AS names) AS x FROM v WHERE id = 2")["rows"] == [{"x": 2}]
    for sql in (
        "SELECT * FROM rows",
        "SELECT COUNT(*) FROM names",
        "SELECT id FROM v JOIN rows USING (id)",
        "WITH v AS (SELECT code FROM rows) SELECT * FROM v",  # a CTE named like the view
        "WITH RECURSIVE v(x) AS (SELECT name FROM names) SELECT x FROM v",
        "SELECT * FROM (WITH v AS MATERIALIZED (SELECT * FROM rows) SELECT * FROM v)",
        "SELECT COUNT(*) AS rows FROM rows",  # the alias is allowed, the table it names is not
        "SELECT * FROM v AS x JOIN rows AS names USING (id)",
        "SELECT id FROM v AS rows, rows",
    ):
        err = refused(guard, sql)
        assert str(err).startswith("Unknown table"), (sql, err)


def test_a_column_in_the_file_but_not_visible_is_hidden_even_when_not_listed(view_guard: SqlGuard) -> None:
    err = refused(view_guard, "SELECT h FROM t")
    assert str(err) == "Unknown column 'h'. Valid columns: t(day)." and err.tamper == "hidden_column"
    err = refused(view_guard, "SELECT * FROM t")
    assert str(err) == "The query reads data you cannot query; name the columns you need. Valid columns: t(day)."
    assert err.tamper == "hidden_column"


def test_no_error_names_a_hidden_name_the_query_did_not(guard: SqlGuard) -> None:
    hidden = {*HIDDEN_TABLES, *(c for _, c in HIDDEN_COLUMNS)}
    queries = [form.format(name=MADE_UP, NAME=MADE_UP, table=t) for form in COLUMN_FORMS for t in ("t", "u")]
    queries += [form.format(name=MADE_UP, NAME=MADE_UP) for form in TABLE_FORMS]
    queries += ["SELECT * FROM t", "WITH x AS (SELECT * FROM t) SELECT day FROM x", "SELECT day FROM t, u"]
    for sql in queries:
        try:
            said = repr(guard.query(sql))
        except ToolError as err:
            said = str(err)
        assert not set(re.findall(r"\w+", said.lower())) & hidden, (sql, said)


def test_a_new_query_has_taken_no_steps() -> None:
    assert sqlguard._Run([], [], timeout_s=10.0).steps == 0


def test_each_budget_stops_a_query_only_once_it_is_passed_not_when_it_is_reached(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The progress handler's three budgets, on both sides of each boundary (a non-zero answer
    interrupts SQLite; the reason picks the error)."""
    steps, every = sqlguard.MAX_VM_STEPS, sqlguard.PROGRESS_STEPS
    now, heap = 0.0, QUERY_HEAP_BYTES
    monkeypatch.setattr(sqlguard.time, "monotonic", lambda: now)
    monkeypatch.setattr(sqlguard, "_SQLITE_HEAP_USED", lambda: heap)
    run = sqlguard._Run([], [], timeout_s=10.0)
    run.steps = steps - 2 * every
    assert (run.over_budget(), run.steps, run.stopped_by) == (0, steps - every, None)
    assert (run.over_budget(), run.steps, run.stopped_by) == (0, steps, None)  # reached, not passed
    assert (run.over_budget(), run.stopped_by) == (1, "steps")

    run = sqlguard._Run([], [], timeout_s=10.0)
    now = 10.0  # exactly the deadline, and exactly the heap budget: the query goes on
    assert (run.over_budget(), run.stopped_by) == (0, None)
    now = 10.000001
    assert (run.over_budget(), run.stopped_by) == (1, "time")
    assert sqlguard._stopped(run.stopped_by, 10.0).tamper == "query_timeout"

    run, now, heap = sqlguard._Run([], [], timeout_s=10.0), 0.0, QUERY_HEAP_BYTES + 1
    assert (run.over_budget(), run.stopped_by) == (1, "memory")
    assert sqlguard._stopped(run.stopped_by, 10.0).tamper == "query_memory"


@pytest.mark.parametrize(
    ("sql", "error", "tamper"),
    [
        # a qualified name is answered by its last part only
        ("SELECT main.t.nosuch FROM t", "Unknown column 'nosuch'. Valid columns: t(day, status, note).", None),
        ('SELECT * FROM main."x.y"', "Unknown table 'y'. Valid tables: t, u.", None),
        # every table the query names, in its order
        (
            "SELECT nosuch FROM u JOIN t USING (day)",
            "Unknown column 'nosuch'. Valid columns: u(day, v); t(day, status, note).",
            None,
        ),
        # a hidden column is told apart (for the tamper log only) among the tables the query names, or all
        # tables when it names none
        ("SELECT satisfaction", "Unknown column 'satisfaction'. Valid tables: t, u.", "hidden_column"),
        ("SELECT h FROM u", "Unknown column 'h'. Valid columns: u(day, v).", None),
        ("SELECT h FROM t", "Unknown column 'h'. Valid columns: t(day, status, note).", "hidden_column"),
    ],
)
def test_an_unknown_name_is_answered_by_its_last_part_with_what_the_query_may_read(
    guard: SqlGuard, sql: str, error: str, tamper: str | None
) -> None:
    err = refused(guard, sql)
    assert (str(err), err.tamper) == (error, tamper)


@pytest.mark.parametrize(
    ("sql", "error"),
    [
        ('SELECT * FROM "zq:a:b"', "Unknown table 'zq:a:b'. Valid tables: t, u."),
        ("SELECT [zq:a:b] FROM t", "Unknown column 'zq:a:b'. Valid columns: t(day, status, note)."),
        # an ambiguous name: the visible tables the query names that have the column, else "several tables"
        (
            "SELECT day FROM t AS a, t AS b",
            "Ambiguous column 'day': qualify it with a table name or alias (it is a column of t).",
        ),
        (
            "SELECT main.t.day FROM t, main.t",
            "Ambiguous column 'main.t.day': qualify it with a table name or alias (it is a column of t).",
        ),
        (
            "WITH a AS (SELECT 1 AS [k:1:2]), b AS (SELECT 2 AS [k:1:2]) SELECT [k:1:2] FROM a, b",
            "Ambiguous column 'k:1:2': qualify it with a table name or alias (it is a column of several tables).",
        ),
        (
            "WITH a AS (SELECT 1 AS [x day]), b AS (SELECT 2 AS [x day]) SELECT [x day] FROM a, b",
            "Ambiguous column 'x day': qualify it with a table name or alias (it is a column of several tables).",
        ),
        ("SELECT ?", "Query parameters (?, :name) are not supported; write the values into the SQL."),
        ("SELECT :x", "Query parameters (?, :name) are not supported; write the values into the SQL."),
        # a parameter's name is part of it, never a keyword: no write or PRAGMA refusal (and no tamper tag)
        ("SELECT :update", "Query parameters (?, :name) are not supported; write the values into the SQL."),
        ("SELECT @pragma", "Query parameters (?, :name) are not supported; write the values into the SQL."),
        ("SELECT $delete", "Query parameters (?, :name) are not supported; write the values into the SQL."),
        ("SELECT FROM", 'SQL error: near "FROM": syntax error'),
        ("SELECT 'ab", 'SQL error: unrecognized token: "\'ab"'),
    ],
)
def test_sqlites_error_reaches_the_agent_in_plain_words_with_the_whole_name_it_gave(
    guard: SqlGuard, sql: str, error: str
) -> None:
    """SQLite's message is split at its first colon only, so a name holding colons is kept whole."""
    err = refused(guard, sql)
    assert (str(err), err.tamper) == (error, None)


@pytest.mark.parametrize(
    ("exc", "error", "tamper"),
    [
        # Python's sqlite3 when text is left after the first statement (the guard hands SQLite only the first)
        (
            sqlite3.ProgrammingError("You can only execute one statement at a time."),
            "Only one SQL statement per query is allowed.",
            "multiple_statements",
        ),
        # SQLite when the authorizer denies without having said why (every denial says why today)
        (
            sqlite3.DatabaseError("not authorized"),
            "The query uses something that is not allowed (only read-only SELECT).",
            None,
        ),
        # Python's sqlite3 when a named parameter has no value
        (
            sqlite3.ProgrammingError("You did not supply a value for binding parameter :x."),
            "Query parameters (?, :name) are not supported; write the values into the SQL.",
            None,
        ),
    ],
)
def test_the_errors_no_query_text_reaches_today_still_get_their_own_words(
    guard: SqlGuard, exc: sqlite3.Error, error: str, tamper: str | None
) -> None:
    err = guard._translate(exc, sqlguard._Run([], [], timeout_s=1.0), 1.0)
    assert (str(err), err.tamper) == (error, tamper)


# ----------------------------------------------------------------------------- the allow-list itself
# The text check refuses most of what the authorizer would deny before SQLite runs anything, so
# the allow-list is driven here on its own: SQLite calls it as auth(action, arg1, arg2, db, trigger).
# The file holds t, u and secret; t and u are visible; h is a column of t that is not.
READ, SELECT, FUNCTION, UPDATE = (
    sqlite3.SQLITE_READ,
    sqlite3.SQLITE_SELECT,
    sqlite3.SQLITE_FUNCTION,
    sqlite3.SQLITE_UPDATE,
)
RECURSIVE = getattr(sqlite3, "SQLITE_RECURSIVE", 33)
OK, DENY = sqlite3.SQLITE_OK, sqlite3.SQLITE_DENY
STORED = {"t", "u", "secret"}
SEES_NOTHING = "The query reads data you cannot query; name the columns you need. Valid tables: t, u."


def authorize(
    guard: SqlGuard, action: int, arg1: str | None, arg2: str | None, db: str | None, sql: str = "SELECT 1"
) -> tuple[int, str | None, str | None]:
    """The allow-list's answer to one call, the error it records for the agent and that error's tamper tag."""
    run = sqlguard._Run(tokenize(sql), [], timeout_s=10.0)
    answer = guard._authorizer(run, STORED, set())(action, arg1, arg2, db, None)
    return answer, None if run.denial is None else str(run.denial), None if run.denial is None else run.denial.tamper


@pytest.mark.parametrize(
    ("action", "arg1", "arg2", "database"),
    [
        (SELECT, None, None, None),
        (RECURSIVE, None, None, None),
        (READ, "t", "day", "main"),
        (READ, "T", "DAY", "main"),  # SQLite gives names as the query spelled them
        (READ, "t", "day", None),
        (READ, "t", "rowid", "main"),  # every table's own key
        (READ, "t", "", "main"),  # COUNT(*) reads the table with no column
        (READ, "u", "v", "main"),
        (READ, "sqlite_master", "rowid", "main"),  # SQLite's own lookup when a table function is first used
        (READ, "SQLITE_SCHEMA", "ROWID", "main"),
        (READ, "json_each", "value", None),
        (READ, "JSON_TREE", "key", None),
        (READ, "recent", "day", None),  # a CTE or subquery: not in the file, no database
        (READ, "recent", None, None),
        (FUNCTION, None, "abs", None),
        (FUNCTION, None, "json_extract", None),
        (FUNCTION, None, None, None),
        (UPDATE, "sqlite_master", "name", "main"),  # SQLite registering an eponymous table function
        (UPDATE, "Sqlite_Temp_Master", "name", "temp"),
    ],
)
def test_the_allow_list_lets_through_selects_visible_reads_table_functions_and_safe_functions(
    guard: SqlGuard, action: int, arg1: str | None, arg2: str | None, database: str | None
) -> None:
    assert authorize(guard, action, arg1, arg2, database) == (OK, None, None)


@pytest.mark.parametrize(
    ("action", "arg1", "arg2", "database", "sql", "error", "tamper"),
    [
        # the schema tables (but their rowid lookup) and every sqlite_/pragma_ table
        (
            READ,
            "sqlite_master",
            "sql",
            "main",
            "SELECT 1",
            "Schema introspection is not allowed.",
            "schema_introspection",
        ),
        (
            READ,
            "sqlite_temp_schema",
            "",
            "temp",
            "SELECT 1",
            "Schema introspection is not allowed.",
            "schema_introspection",
        ),
        (
            READ,
            "sqlite_stat1",
            "tbl",
            "main",
            "SELECT 1",
            "Schema introspection is not allowed.",
            "schema_introspection",
        ),
        (
            READ,
            "Pragma_Table_Info",
            "name",
            None,
            "SELECT 1",
            "Schema introspection is not allowed.",
            "schema_introspection",
        ),
        (
            READ,
            "sqlite_sequence",
            "rowid",
            "main",
            "SELECT 1",
            "Schema introspection is not allowed.",
            "schema_introspection",
        ),
        # a table in the file that is not visible: the unknown-table answer when the query names it
        (
            READ,
            "secret",
            "x",
            "main",
            "SELECT x FROM secret",
            "Unknown table 'secret'. Valid tables: t, u.",
            "hidden_table",
        ),
        (READ, "SECRET", "", None, "SELECT 1", SEES_NOTHING, "hidden_table"),
        # named as a quoted identifier or a string, the table is still one the query named
        (
            READ,
            "secret",
            "",
            "main",
            'SELECT * FROM "secret"',
            "Unknown table 'secret'. Valid tables: t, u.",
            "hidden_table",
        ),
        (
            READ,
            "secret",
            "",
            "main",
            "SELECT * FROM 'Secret'",
            "Unknown table 'secret'. Valid tables: t, u.",
            "hidden_table",
        ),
        # a name in no table of the file, but read from a database: not a CTE
        (READ, "recent", "day", "main", "SELECT 1", SEES_NOTHING, "hidden_table"),
        # a visible table's name in another database
        (READ, "t", "day", "temp", "SELECT 1", SEES_NOTHING, "hidden_table"),
        (READ, "u", "", "aux", "SELECT 1", SEES_NOTHING, "hidden_table"),
        # a column of a visible table that is not visible (SELECT * reads it unnamed)
        (READ, "t", "h", "main", "SELECT * FROM t", SEES_NOTHING, "hidden_column"),
        (READ, "t", "H", None, "SELECT h FROM t", "Unknown column 'h'. Valid tables: t, u.", "hidden_column"),
        (READ, "u", "day2", "main", "SELECT 1", SEES_NOTHING, "hidden_column"),
        # functions that reach outside the database, in any case
        (
            FUNCTION,
            None,
            "load_extension",
            None,
            "SELECT 1",
            "Function 'load_extension' is not allowed.",
            "forbidden_function",
        ),
        (FUNCTION, None, "PRINTF", None, "SELECT 1", "Function 'printf' is not allowed.", "forbidden_function"),
        # every other action: PRAGMA is introspection, the rest writes
        (
            sqlite3.SQLITE_PRAGMA,
            "table_info",
            "t",
            None,
            "SELECT 1",
            "PRAGMA statements are not allowed.",
            "schema_introspection",
        ),
        (UPDATE, "t", "day", "main", "SELECT 1", "Only read-only SELECT queries are allowed.", "write_sql"),
        (UPDATE, None, None, "main", "SELECT 1", "Only read-only SELECT queries are allowed.", "write_sql"),
        (
            sqlite3.SQLITE_INSERT,
            "t",
            None,
            "main",
            "SELECT 1",
            "Only read-only SELECT queries are allowed.",
            "write_sql",
        ),
        (
            sqlite3.SQLITE_ATTACH,
            "x.db",
            None,
            None,
            "SELECT 1",
            "Only read-only SELECT queries are allowed.",
            "write_sql",
        ),
        (
            sqlite3.SQLITE_CREATE_TEMP_TABLE,
            "z",
            None,
            "temp",
            "SELECT 1",
            "Only read-only SELECT queries are allowed.",
            "write_sql",
        ),
    ],
)
def test_the_allow_list_denies_everything_else_and_records_why(
    guard: SqlGuard,
    action: int,
    arg1: str | None,
    arg2: str | None,
    database: str | None,
    sql: str,
    error: str,
    tamper: str,
) -> None:
    assert authorize(guard, action, arg1, arg2, database, sql) == (DENY, error, tamper)


def test_a_row_is_counted_as_its_json_a_blob_as_quoted_hex_any_other_value_as_24_bytes() -> None:
    # 7 -> 24; "ab" -> '"ab"' = 4; b"\x00\x01\x02" -> '"000102"' = 2 * 3 + 2 = 8; None -> 24: 24 + 4 + 8 + 24 = 60
    assert sqlguard._row_bytes((7, "ab", b"\x00\x01\x02", None)) == 60
    assert sqlguard._row_bytes(()) == 0


def test_a_word_that_goes_on_with_the_query_is_no_alias() -> None:
    # private: a WHERE taken for an alias would change no answer the guard gives
    assert sqlguard._aliases(tokenize("SELECT * FROM t WHERE day > 1"), ["t"]) == {}

"""Read-only SQL for agents over a SQLite file (generic; docs/reference-notes.md, ceo §5.3).

An env describes what the agent may read; :class:`SqlGuard` runs one query against the
file and returns a JSON-ready answer or raises :class:`~bizbench.core.registry.ToolError`
(and nothing else). Layers, each enough on its own for its job:

1. A lexer checks the text: exactly one statement (a trailing ``;``, whitespace or comments
   are fine), no write/DDL/transaction keyword, no ``PRAGMA``, no ``sqlite_*``/``pragma_*``
   name. Only the first statement's text is handed to SQLite.
2. The connection is opened read-only (``file:...?mode=ro``) with ``query_only`` on.
3. ``set_authorizer`` allows only SELECT, reads of the visible tables and columns (plus the
   ``json_each``/``json_tree`` table functions), non-dangerous functions and recursive CTEs;
   everything else (writes, temp tables, ATTACH, PRAGMA, schema tables) is denied. A visible
   table may be a view over storage tables the env declares (``storage``): reads the view
   makes of them are allowed, a query cannot read them by name, and a view over any other
   table is refused like the table.
4. A progress handler stops a query after ``timeout_s`` seconds or :data:`MAX_VM_STEPS`
   SQLite VM steps (a budget that does not depend on the machine's speed); at most
   ``max_rows`` rows are returned (``max_rows + 1`` are fetched to detect truncation).
5. Memory is bounded: ``SQLITE_LIMIT_LENGTH`` caps every string/blob (and stored row) at
   :data:`MAX_VALUE_BYTES`, ``SQLITE_LIMIT_COLUMN`` caps the result columns at
   :data:`MAX_RESULT_COLUMNS` (or the widest table of the file, if wider), rows are fetched in
   small batches (sized so that one batch cannot exceed the byte budget even if every value
   were as large as allowed) and the answer's size is counted as they come; above
   :data:`MAX_RESULT_BYTES` the query stops with ``oversized_result``. At most
   :data:`MAX_CONCURRENT_QUERIES` queries run at once per guard: a further query waits for a
   slot (up to ``min(timeout_s, QUEUE_WAIT_S)`` seconds, on top of its own ``timeout_s``) and
   is then refused with a plain "busy" error (``tamper=None``), so parallel calls cannot
   multiply the memory one query may use.
6. Nothing reaches the disk: the connection keeps its sorts, DISTINCT/GROUP BY b-trees and
   other temporary data in memory (``temp_store = MEMORY``; SQLite would otherwise spill them
   to temp files without bound), and that memory is bounded twice. The progress handler
   stops a query once SQLite's heap in this process passes :data:`QUERY_HEAP_BYTES`; and
   SQLite's hard heap limit, :data:`SQLITE_HEAP_LIMIT`, makes any allocation beyond it fail.
   SQLite has no memory limit per connection, so both are process-wide: the first is checked
   only by agents' queries, and the gap between the two is the headroom the env's own writer
   connection keeps while agents' queries fill the heap (the hard limit is a backstop for
   where the heap cannot be read, and it only ever lowers a limit set before).

Hidden tables and columns should simply not exist in the file (an env writes only visible
data). Naming one gets exactly the error of a name that does not exist ("Unknown column
'x'. Valid columns: ..."), so an agent cannot confirm a hidden name; the error is still
tagged (``ToolError.tamper``, which only the run's tamper log sees). A double-quoted
unknown name is a string to SQLite (``SELECT "x"`` returns ``'x'``), hidden or made up alike.

Result format (chosen to match the reference, §5.3 item 8): ``{"columns": [...], "rows":
[{column: value}, ...], "row_count": n}``, plus ``truncated``/``warning`` on overflow and a
``hint`` whenever the query compares an enum-like column with a literal that is not one of its
values (an empty answer, but also an aggregate such as ``COUNT(*)`` that returns a row of 0).
Duplicate result column names get a ``_2``, ``_3`` ... suffix so no value is lost; BLOBs are
returned as hex strings. Each call opens its own connection, so queries may run on any
thread while a writer commits (WAL readers see the last committed snapshot).

Tamper kinds: ``hidden_table``, ``hidden_column``, ``schema_introspection``, ``write_sql``,
``multiple_statements``, ``query_timeout``, ``query_steps``, ``query_memory``,
``forbidden_function``, ``oversized_result``; honest mistakes (syntax errors, unknown names, a
value above the length limit, a busy guard) have ``tamper=None``. String literals are values,
not names: ``SELECT 'sqlite_master'`` is fine; a string only counts as a name where SQLite
reads it as one (after ``FROM``/``JOIN``, in a ``FROM`` list, next to a ``.`` or before ``(``).
"""

from __future__ import annotations

import ctypes
import importlib
import logging
import re
import sqlite3
import threading
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bizbench.core.jsonio import json_text_bytes
from bizbench.core.registry import ToolError

__all__ = ["SqlGuard", "Token", "tokenize"]

logger = logging.getLogger(__name__)

# Statement keywords that change something (or the connection) and are never allowed.
WRITE_KEYWORDS = frozenset(
    {
        "insert",
        "update",
        "delete",
        "create",
        "drop",
        "alter",
        "attach",
        "detach",
        "vacuum",
        "reindex",
        "analyze",
        "begin",
        "commit",
        "rollback",
        "savepoint",
        "release",
    }
)
SCHEMA_NAMES = frozenset({"sqlite_master", "sqlite_schema", "sqlite_temp_master", "sqlite_temp_schema"})
# Functions that reach outside the database or are only useful for tampering; and printf/format,
# whose width or precision (``%.*c``) makes one VM step run for many seconds, out of reach of the
# time and step budgets (checked between steps).
DENIED_FUNCTIONS = frozenset(
    {
        "load_extension",
        "fts3_tokenizer",
        "readfile",
        "writefile",
        "edit",
        "sqlite_offset",
        "sqlite_compileoption_get",
        "printf",
        "format",
    }
)
# Table-valued functions that only read their arguments.
TABLE_FUNCTIONS = frozenset({"json_each", "json_tree"})
ALLOWED_LEADING = frozenset({"select", "with", "values"})

_SQLITE_CODES = {
    "read": sqlite3.SQLITE_READ,
    "select": sqlite3.SQLITE_SELECT,
    "function": sqlite3.SQLITE_FUNCTION,
    "recursive": getattr(sqlite3, "SQLITE_RECURSIVE", 33),
    "update": sqlite3.SQLITE_UPDATE,
    "pragma": sqlite3.SQLITE_PRAGMA,
    "attach": sqlite3.SQLITE_ATTACH,
    "detach": sqlite3.SQLITE_DETACH,
}
MAX_VALUE_BYTES = 1_000_000  # SQLITE_LIMIT_LENGTH: no single string/blob (or stored row) above 1 MB
MAX_RESULT_COLUMNS = 100  # SQLITE_LIMIT_COLUMN floor (raised to the widest table of the file)
MAX_RESULT_BYTES = 16_000_000  # the JSON size of one answer (a seat's server holds up to 16 unread replies)
MAX_CONCURRENT_QUERIES = 2  # per guard; further queries wait for a slot
QUEUE_WAIT_S = 10.0  # longest wait for a slot (the SDK's request timeout is 60 s, a query's 30 s)
FETCH_BATCH = 256  # rows per fetchmany at most
PROGRESS_STEPS = 1000  # VM instructions between budget checks
# The heaviest legitimate query measured, a LEFT JOIN of daily_usage (3.2M rows: 100K
# subscribers, 30 days) with issues, grouped and sorted, takes 119M steps (6 s on a 2-core
# machine); the heaviest in the tests takes 0.5M, the docs' examples less. 8x the heaviest:
MAX_VM_STEPS = 1_000_000_000
# SQLite memory (process-wide, see item 6 above). The heaviest legitimate query measured
# at 100K subscribers holds 164 MB; a world's writer keeps a 64 MB page cache.
QUERY_HEAP_BYTES = 512_000_000  # a running query is stopped once SQLite's heap passes this
SQLITE_HEAP_LIMIT = 1_024_000_000  # SQLite's hard heap limit: no allocation beyond it succeeds
# Names after which a string literal is read by SQLite as a name (``FROM 'sqlite_master'``).
_NAME_BEFORE = frozenset({"from", "join", "."})
# Words that may follow a table name but are not its alias.
_NOT_ALIAS = frozenset(
    {"where", "group", "having", "window", "order", "limit", "union", "intersect", "except", "select", "values",
     "join", "inner", "left", "right", "full", "outer", "cross", "natural", "on", "using", "as", "indexed", "not"}
)  # fmt: skip
# Words that end a FROM list (a comma after them no longer separates tables).
_FROM_END = frozenset(
    {"where", "group", "having", "window", "order", "limit", "union", "intersect", "except", "select", "values"}
)


# ----------------------------------------------------------------------------- lexer
@dataclass(frozen=True)
class Token:
    kind: str  # word | qword (quoted identifier) | string | number | op | semi | param
    text: str  # words lower-cased, quoted identifiers and strings unquoted
    pos: int


_WORD = re.compile(r"[A-Za-z_\u0080-\uffff][A-Za-z0-9_$\u0080-\uffff]*")
_NUMBER = re.compile(r"(?:0[xX][0-9A-Fa-f]+|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)")
_OPS = ("->>", "->", "==", "!=", "<>", "<=", ">=", "||", "<<", ">>")


def _quoted(sql: str, i: int, close: str) -> tuple[str, int]:
    """Read a quoted run starting after the opening quote; a doubled quote escapes it."""
    out = []
    n = len(sql)
    while i < n:
        ch = sql[i]
        if ch == close:
            if close != "]" and i + 1 < n and sql[i + 1] == close:
                out.append(close)
                i += 2
                continue
            return "".join(out), i + 1
        out.append(ch)
        i += 1
    return "".join(out), n  # unterminated: SQLite reports the syntax error


def tokenize(sql: str) -> list[Token]:
    """SQLite-like tokens, without whitespace and comments."""
    toks: list[Token] = []
    i, n = 0, len(sql)
    while i < n:
        ch = sql[i]
        if ch.isspace():
            i += 1
        elif sql.startswith("--", i):
            j = sql.find("\n", i)
            i = n if j < 0 else j + 1
        elif sql.startswith("/*", i):
            j = sql.find("*/", i + 2)
            i = n if j < 0 else j + 2
        elif ch == "'":
            text, j = _quoted(sql, i + 1, "'")
            toks.append(Token("string", text, i))
            i = j
        elif ch in '"`[':
            text, j = _quoted(sql, i + 1, {'"': '"', "`": "`", "[": "]"}[ch])
            toks.append(Token("qword", text.lower(), i))
            i = j
        elif ch == ";":
            toks.append(Token("semi", ";", i))
            i += 1
        elif ch in "?:@$":
            m = _WORD.match(sql, i + 1) if ch != "?" else None
            j = m.end() if m else i + 1
            if ch == "?":
                while j < n and sql[j].isdigit():
                    j += 1
            toks.append(Token("param", sql[i:j], i))
            i = j
        elif (m := _NUMBER.match(sql, i)) and (ch.isdigit() or ch == "."):
            toks.append(Token("number", m.group(), i))
            i = m.end()
        elif m := _WORD.match(sql, i):
            toks.append(Token("word", m.group().lower(), i))
            i = m.end()
        else:
            op = next((o for o in _OPS if sql.startswith(o, i)), ch)
            toks.append(Token("op", op, i))
            i += len(op)
    return toks


def _name_positions(toks: list[Token]) -> set[int]:
    """Indices of the tokens SQLite may read as names.

    Words and quoted identifiers (``"x"``, ```x```, ``[x]``; SQLite reads an unknown
    double-quoted name as a string, so they count either way) always do. A string literal
    only counts where SQLite's grammar takes a string as a name: after ``FROM``, ``JOIN`` or
    ``.``, after a comma of a ``FROM`` list, or before ``.`` or ``(``
    (``FROM 'pragma_table_info'('t')``).
    """
    out: set[int] = set()
    in_from = [False]  # per parenthesis depth: inside a FROM list
    n = len(toks)
    for k, tok in enumerate(toks):
        if tok.kind in ("word", "qword"):
            out.add(k)
            if tok.kind == "word" and tok.text in ("from", "join"):
                in_from[-1] = True
            elif tok.kind == "word" and tok.text in _FROM_END:
                in_from[-1] = False
        elif tok.kind == "op" and tok.text == "(":
            in_from.append(False)
        elif tok.kind == "op" and tok.text == ")":
            if len(in_from) > 1:
                in_from.pop()
        elif tok.kind == "string":
            prev = toks[k - 1] if k else None
            nxt = toks[k + 1] if k + 1 < n else None
            after = prev is not None and prev.kind in ("word", "op") and prev.text in _NAME_BEFORE
            listed = prev is not None and prev.kind == "op" and prev.text == "," and in_from[-1]
            before = nxt is not None and nxt.kind == "op" and nxt.text in (".", "(")
            if after or listed or before:
                out.add(k)
    return out


def _alias_positions(toks: list[Token]) -> set[int]:
    """Indices of the names right after ``AS``: an alias (of a result column, a table or a CTE's
    column) or a CAST's type, never a table the query reads, so a storage table's name may be one
    (``SELECT COUNT(*) AS issue_rows FROM issues``)."""
    return {
        k
        for k in range(1, len(toks))
        if toks[k].kind in ("word", "qword") and toks[k - 1].kind == "word" and toks[k - 1].text == "as"
    }


# ----------------------------------------------------------------------------- guard
def _heap_reader() -> Callable[[], int] | None:
    """``sqlite3_memory_used()`` of the SQLite that Python's ``sqlite3`` runs on, or None.

    Python offers no call for it. It is looked up through the ``_sqlite3`` extension module
    itself, so it is that module's SQLite (linked or built in), never another copy; where the
    symbol cannot be reached (a build that hides it) only the hard heap limit bounds memory.
    """
    try:
        used = ctypes.CDLL(importlib.import_module("_sqlite3").__file__).sqlite3_memory_used
    except (OSError, AttributeError, TypeError):
        return None
    used.restype, used.argtypes = ctypes.c_int64, []
    return lambda: int(used())


_SQLITE_HEAP_USED = _heap_reader()


class _Run:
    """One query as SQLite's callbacks see it: what it names, its budget, and why it was stopped."""

    def __init__(
        self, tokens: list[Token], mentioned: list[str], timeout_s: float, aliases: Collection[int] = ()
    ) -> None:
        self.named = frozenset(  # the names the text may read (an alias reads nothing)
            t.text.lower() for k, t in enumerate(tokens) if t.kind in ("word", "qword", "string") and k not in aliases
        )
        self.mentioned = mentioned  # the visible tables the text names
        self.deadline = time.monotonic() + timeout_s
        self.steps = 0
        self.stopped_by: str | None = None  # "steps" | "time" | "memory"
        self.denial: ToolError | None = None  # the first thing the authorizer refused

    def refuse(self, error: ToolError) -> None:
        if self.denial is None:
            self.denial = error

    def over_budget(self) -> int:
        """The progress handler (every :data:`PROGRESS_STEPS` VM steps): non-zero stops the query."""
        self.steps += PROGRESS_STEPS
        if self.steps > MAX_VM_STEPS:
            self.stopped_by = "steps"
        elif time.monotonic() > self.deadline:
            self.stopped_by = "time"
        elif _SQLITE_HEAP_USED is not None and _SQLITE_HEAP_USED() > QUERY_HEAP_BYTES:
            self.stopped_by = "memory"
        return 1 if self.stopped_by else 0


class SqlGuard:
    """Runs agents' read-only SQL against one SQLite file.

    Args:
        db_path: The SQLite file (written by someone else; WAL or rollback journal).
        tables: Every table the agent may read, with its readable columns.
        hidden_tables: Names of hidden state (they must not exist in the file): answered like
            unknown names, tagged ``hidden_table`` for the tamper log.
        hidden_columns: Per visible table, column names of hidden state (likewise, ``hidden_column``).
        enums: (table, column) -> valid values, for the 0-row hint.
        storage: Tables (or inner views) that visible views are defined over (they hold nothing
            hidden): read only through those views.
    """

    def __init__(
        self,
        db_path: Path,
        tables: Mapping[str, Sequence[str]],
        *,
        hidden_tables: Collection[str] = (),
        hidden_columns: Mapping[str, Collection[str]] | None = None,
        enums: Mapping[tuple[str, str], Sequence[str]] | None = None,
        storage: Collection[str] = (),
    ) -> None:
        self.db_path = Path(db_path)
        self.tables = {t.lower(): [c.lower() for c in cols] for t, cols in tables.items()}
        self._columns = {t: frozenset(cols) for t, cols in self.tables.items()}
        self.hidden_tables = frozenset(t.lower() for t in hidden_tables)
        self.hidden_columns = {t.lower(): frozenset(c.lower() for c in cs) for t, cs in (hidden_columns or {}).items()}
        self.enums = {(t.lower(), c.lower()): list(v) for (t, c), v in (enums or {}).items()}
        self.storage = frozenset(t.lower() for t in storage)
        self._slots = threading.BoundedSemaphore(MAX_CONCURRENT_QUERIES)

    # ------------------------------------------------------------------ public
    def query(self, sql: str, timeout_s: float = 30.0, max_rows: int = 5000) -> dict[str, Any]:
        """Run one SELECT; see the module docstring for the answer and the errors."""
        try:
            timeout, rows = float(timeout_s), int(max_rows)
        except (TypeError, ValueError):
            raise ToolError("timeout_s must be a number > 0 and max_rows an integer >= 1.") from None
        wait = min(timeout, QUEUE_WAIT_S) if timeout > 0 else 0.0
        if not self._slots.acquire(timeout=wait):
            raise ToolError(
                f"The database is busy: {MAX_CONCURRENT_QUERIES} other queries are still running. "
                "Wait for them to finish (or make them smaller) and send this query again."
            )
        try:
            return self._query(sql, timeout, rows)
        except ToolError:
            raise
        except MemoryError:  # an allocation failed at SQLite's hard heap limit
            raise _out_of_memory() from None
        except Exception as exc:  # never let anything else out (docs/principles.md principle 8)
            logger.exception("sqlguard: unexpected failure")
            raise ToolError(f"The query could not be run ({type(exc).__name__}).") from None
        finally:
            self._slots.release()

    # ------------------------------------------------------------------ steps
    def _query(self, sql: str, timeout_s: float, max_rows: int) -> dict[str, Any]:
        if not isinstance(sql, str):
            raise ToolError("sql must be a string holding one SELECT statement.")
        if not timeout_s > 0 or max_rows < 1:
            raise ToolError("timeout_s must be > 0 and max_rows >= 1.")
        tokens = tokenize(sql)
        statement, stmt_tokens = self._single_statement(sql, tokens)
        names_at = _name_positions(stmt_tokens)
        aliases = _alias_positions(stmt_tokens)
        self._check_text(stmt_tokens, names_at, aliases)
        mentioned = self._mentioned_tables(stmt_tokens, names_at)
        run = _Run(stmt_tokens, mentioned, timeout_s, aliases)
        conn = self._connect(run)
        try:
            try:
                cur = conn.execute(statement)
                names = [d[0] for d in cur.description or ()]
                rows = self._fetch(cur, _unique(names), max_rows)
            except sqlite3.Error as exc:
                raise self._translate(exc, run, timeout_s) from None
        finally:
            conn.close()
        return self._answer(names, rows, max_rows, stmt_tokens, mentioned)

    def _fetch(self, cur: sqlite3.Cursor, keys: list[str], max_rows: int) -> list[tuple[Any, ...]]:
        """Up to ``max_rows + 1`` rows, counting the answer's bytes as they come.

        A batch is never larger than what the remaining byte budget allows if every value were
        :data:`MAX_VALUE_BYTES` long, so the rows held in memory stay near :data:`MAX_RESULT_BYTES`.
        """
        per_row = sum(len(k) + 6 for k in keys) + 4  # the keys repeated in each JSON row object
        worst_row = max(1, len(keys)) * MAX_VALUE_BYTES + per_row
        rows: list[tuple[Any, ...]] = []
        size = 0
        while len(rows) <= max_rows:
            room = MAX_RESULT_BYTES - size
            batch = min(max_rows + 1 - len(rows), FETCH_BATCH, max(1, room // worst_row))
            chunk = cur.fetchmany(batch)
            if not chunk:
                break
            kept = chunk[: max_rows - len(rows)]  # row max_rows + 1 only tells that the answer is truncated
            size += sum(_row_bytes(row) for row in kept) + per_row * len(kept)
            if size > MAX_RESULT_BYTES:
                raise ToolError(
                    f"The answer is larger than the {MAX_RESULT_BYTES // 1_000_000} MB limit (stopped after "
                    f"{len(rows) + len(kept)} rows). Aggregate with GROUP BY, select fewer or shorter columns "
                    "(e.g. substr(text, 1, 200)), or add a LIMIT.",
                    tamper="oversized_result",
                )
            rows.extend(chunk)
        return rows

    def _single_statement(self, sql: str, tokens: list[Token]) -> tuple[str, list[Token]]:
        """The one non-empty statement and its text up to its ``;`` (empty statements are ignored)."""
        statements: list[tuple[list[Token], int]] = []
        current: list[Token] = []
        for tok in tokens:
            if tok.kind == "semi":
                if current:
                    statements.append((current, tok.pos))
                current = []
            else:
                current.append(tok)
        if current:
            statements.append((current, len(sql)))
        if not statements:
            raise ToolError("The SQL query is empty.")
        if len(statements) > 1:
            raise ToolError(
                "Only one SQL statement per query is allowed; send each SELECT separately.",
                tamper="multiple_statements",
            )
        toks, end = statements[0]
        return sql[:end], toks

    def _check_text(self, toks: list[Token], names_at: set[int], aliases: set[int]) -> None:
        for k, tok in enumerate(toks):
            if tok.kind == "word":
                nxt = toks[k + 1].text if k + 1 < len(toks) and toks[k + 1].kind == "word" else ""
                if tok.text == "pragma":
                    raise ToolError("PRAGMA statements are not allowed.", tamper="schema_introspection")
                if tok.text in WRITE_KEYWORDS or (tok.text == "replace" and nxt == "into"):
                    raise ToolError(
                        f"Only read-only SELECT queries are allowed ('{tok.text.upper()}' is not).", tamper="write_sql"
                    )
            if k in names_at and (tok.text in SCHEMA_NAMES or tok.text.startswith("pragma_")):
                raise ToolError("Schema introspection is not allowed.", tamper="schema_introspection")
            if k in names_at and k not in aliases and tok.text.lower() in self.storage:  # only the views read storage
                raise self._unknown_table(tok.text, hidden=True)
        lead = toks[0]
        if not (lead.kind == "word" and lead.text in ALLOWED_LEADING) and lead.text != "(":
            raise ToolError(f"Only SELECT queries are allowed (the statement starts with '{lead.text}').")

    def _mentioned_tables(self, toks: list[Token], names_at: set[int]) -> list[str]:
        seen: list[str] = []
        for k, tok in enumerate(toks):
            if k in names_at and tok.text in self.tables and tok.text not in seen:
                seen.append(tok.text)
        return seen

    def _connect(self, run: _Run) -> sqlite3.Connection:
        uri = self.db_path.resolve().as_uri() + "?mode=ro"
        try:
            conn = sqlite3.connect(uri, uri=True, timeout=5.0, check_same_thread=False, isolation_level=None)
        except sqlite3.Error:
            raise ToolError("The database is not available yet.") from None
        conn.execute("PRAGMA query_only = ON")
        conn.execute("PRAGMA temp_store = MEMORY")  # no temp file: sorts and temporary b-trees stay in the heap
        conn.execute(f"PRAGMA hard_heap_limit = {SQLITE_HEAP_LIMIT}")  # process-wide; only ever lowers it
        conn.setlimit(sqlite3.SQLITE_LIMIT_ATTACHED, 0)
        try:
            # Loads the schema (before the limits: a table wider than the column limit could not be parsed).
            found = conn.execute(
                "SELECT name, type, (SELECT COUNT(*) FROM pragma_table_xinfo(m.name)) FROM sqlite_master AS m "
                "WHERE type IN ('table', 'view')"
            ).fetchall()
        except sqlite3.Error:
            conn.close()
            raise ToolError("The database is not available yet.") from None
        stored = {str(name).lower() for name, _, _ in found}
        views = {str(name).lower() for name, kind, _ in found if kind == "view"} & (set(self.tables) | self.storage)
        widest = max((int(n or 0) for _, _, n in found), default=0)
        conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, MAX_VALUE_BYTES)
        conn.setlimit(sqlite3.SQLITE_LIMIT_COLUMN, max(MAX_RESULT_COLUMNS, widest))
        conn.set_authorizer(self._authorizer(run, stored, views))
        conn.set_progress_handler(run.over_budget, PROGRESS_STEPS)
        return conn

    def _authorizer(self, run: _Run, stored: set[str], views: set[str]) -> Any:
        """The allow-list; ``stored`` names the file's tables (other names read are CTEs/subqueries),
        ``views`` its visible views."""
        codes = _SQLITE_CODES
        ok, deny = sqlite3.SQLITE_OK, sqlite3.SQLITE_DENY

        def auth(action: int, arg1: str | None, arg2: str | None, db: str | None, view: str | None) -> int:
            if action in (codes["select"], codes["recursive"]):
                return ok
            if action == codes["read"]:
                table, column = (arg1 or "").lower(), (arg2 or "").lower()
                if table in self.storage and table not in run.named and (not column or (view or "").lower() in views):
                    # Read by a visible view defined over it, or opened by one that reads no column. SQLite also
                    # names a CTE as the "view", so a storage table the query's own text names is never allowed.
                    return ok
                if table in SCHEMA_NAMES and column == "rowid":
                    return ok  # SQLite's own lookup when a table function is first used
                if table in TABLE_FUNCTIONS:
                    return ok
                if table in SCHEMA_NAMES or table.startswith(("sqlite_", "pragma_")):
                    run.refuse(ToolError("Schema introspection is not allowed.", tamper="schema_introspection"))
                    return deny
                if table not in self.tables:
                    if table not in stored and db is None:
                        return ok  # COUNT(*) over a CTE or subquery names it with no column
                    run.refuse(self._hidden_read(run, table, ""))
                    return deny
                if db not in (None, "main"):
                    run.refuse(self._hidden_read(run, table, ""))
                    return deny
                if column and column != "rowid" and column not in self._columns[table]:
                    run.refuse(self._hidden_read(run, table, column))
                    return deny
                return ok
            if action == codes["function"]:
                name = (arg2 or "").lower()
                if name in DENIED_FUNCTIONS:
                    run.refuse(ToolError(f"Function '{name}' is not allowed.", tamper="forbidden_function"))
                    return deny
                return ok
            if action == codes["update"] and (arg1 or "").lower() in SCHEMA_NAMES:
                return ok  # SQLite registering an eponymous table function; the text check bars real writes
            if action == codes["pragma"]:
                run.refuse(ToolError("PRAGMA statements are not allowed.", tamper="schema_introspection"))
            else:
                run.refuse(ToolError("Only read-only SELECT queries are allowed.", tamper="write_sql"))
            return deny

        return auth

    # ------------------------------------------------------------------ errors
    def _translate(self, exc: sqlite3.Error, run: _Run, timeout_s: float) -> ToolError:
        msg = str(exc)
        mentioned = run.mentioned
        if run.denial is not None:
            return run.denial
        if "interrupted" in msg:
            return _stopped(run.stopped_by, timeout_s)
        if "string or blob too big" in msg:
            return ToolError(
                f"A value in the query is longer than the {MAX_VALUE_BYTES:,}-byte limit for one string or "
                "blob. Return shorter values (e.g. substr(text, 1, 1000)) or aggregate fewer rows at a time."
            )
        if "too many columns" in msg:
            return ToolError(
                f"The query has too many result columns (the limit is {MAX_RESULT_COLUMNS}); select fewer columns."
            )
        if "one statement at a time" in msg:
            return ToolError("Only one SQL statement per query is allowed.", tamper="multiple_statements")
        if msg.startswith("no such table:"):
            return self._unknown_table(msg.split(":", 1)[1].strip())
        if msg.startswith("no such column:"):
            return self._unknown_column(msg.split(":", 1)[1].strip(), mentioned)
        if msg.startswith("ambiguous column name:"):
            name = msg.split(":", 1)[1].strip()
            col = name.rsplit(".", 1)[-1].lower()
            owners = [t for t in (mentioned or self.tables) if col in self._columns[t]]
            return ToolError(
                f"Ambiguous column '{name}': qualify it with a table name or alias (it is a column of "
                f"{', '.join(owners) or 'several tables'})."
            )
        if "not authorized" in msg:
            return ToolError("The query uses something that is not allowed (only read-only SELECT).")
        if "bindings" in msg or "parameter" in msg:
            return ToolError("Query parameters (?, :name) are not supported; write the values into the SQL.")
        return ToolError(f"SQL error: {msg}")

    # A hidden name and a made-up one get the same words (only the tamper tag, which the agent
    # never sees, differs), so no answer confirms that a hidden table or column exists.
    def _unknown_table(self, name: str, hidden: bool = False) -> ToolError:
        bare = name.rsplit(".", 1)[-1].lower()
        tamper = "hidden_table" if hidden or bare in self.hidden_tables else None
        return ToolError(f"Unknown table '{bare}'. {self._valid()}", tamper=tamper)

    def _unknown_column(self, name: str, mentioned: list[str], hidden: bool = False) -> ToolError:
        col = name.rsplit(".", 1)[-1].lower()
        hidden = hidden or any(col in self.hidden_columns.get(t, ()) for t in mentioned or self.tables)
        return ToolError(
            f"Unknown column '{col}'. {self._valid(mentioned)}", tamper="hidden_column" if hidden else None
        )

    def _hidden_read(self, run: _Run, table: str, column: str) -> ToolError:
        """The authorizer's answer to a read of a table or column that is in the file but not visible:
        the unknown-name error when the query names it, else one that names nothing hidden
        (``SELECT *`` over such a table)."""
        if not column and table in run.named:
            return self._unknown_table(table, hidden=True)
        if column and column in run.named:
            return self._unknown_column(column, run.mentioned, hidden=True)
        return ToolError(
            f"The query reads data you cannot query; name the columns you need. {self._valid(run.mentioned)}",
            tamper="hidden_column" if column else "hidden_table",
        )

    def _valid(self, mentioned: list[str] | None = None) -> str:
        """What the agent can query: the columns of the tables the query names, else the tables."""
        if mentioned:
            return "Valid columns: " + "; ".join(f"{t}({', '.join(self.tables[t])})" for t in mentioned) + "."
        return f"Valid tables: {', '.join(sorted(self.tables))}."

    # ------------------------------------------------------------------ answer
    def _answer(
        self, names: list[str], rows: list[tuple[Any, ...]], max_rows: int, toks: list[Token], mentioned: list[str]
    ) -> dict[str, Any]:
        keys = _unique(names)
        out: dict[str, Any] = {"columns": keys}
        truncated = len(rows) > max_rows
        rows = rows[:max_rows]
        out["rows"] = [dict(zip(keys, (_jsonable(v) for v in row), strict=True)) for row in rows]
        out["row_count"] = len(rows)
        if truncated:
            out["truncated"] = True
            out["warning"] = (
                f"Result truncated to the first {max_rows} rows. Add a LIMIT, filter with WHERE, "
                "or aggregate (GROUP BY) to get a smaller answer."
            )
        hint = self._enum_hint(toks, mentioned, empty=not rows)
        if hint:
            out["hint"] = hint
        return out

    def _enum_hint(self, toks: list[Token], mentioned: list[str], empty: bool) -> str | None:
        """When a compared literal is not a valid value of an enum-like column (§5.3 item 5/8).

        Given with every answer, not only an empty one: ``SELECT COUNT(*) ... WHERE status =
        'active'`` returns one row (0), and a typo'd value inside an aggregate, a CASE or a
        != would otherwise pass silently. A qualified reference (``s.status``) is checked
        against the table its qualifier names (directly or as an alias); an unqualified one
        is flagged only when the value is valid for none of the mentioned tables having that
        column, so a join never draws a hint meant for the other table.
        """
        aliases = _aliases(toks, mentioned)
        by_column: dict[str, list[tuple[str, list[str]]]] = {}
        for (table, column), values in self.enums.items():
            if table in mentioned:
                by_column.setdefault(column, []).append((table, values))
        notes = []
        for column, candidates in by_column.items():
            bad: dict[str, list[str]] = {}
            for qualifier, literal in _compared_literals(toks, column):
                if qualifier is not None:
                    owner = aliases.get(qualifier, qualifier)
                    targets = [(t, v) for t, v in candidates if t == owner]
                else:
                    targets = candidates if all(literal not in v for _, v in candidates) else []
                for table, values in targets:
                    if literal not in values and literal not in bad.setdefault(table, []):
                        bad[table].append(literal)
            for table, values in candidates:
                if bad.get(table):
                    valid = ", ".join(repr(v) for v in values)
                    used = ", ".join(map(repr, bad[table]))
                    notes.append(
                        f"{table}.{column} takes the values {valid}; the query compared it with {used}, "
                        "which no row has"
                    )
        if not notes:
            return None
        return ("No rows matched. " if empty else "Check the filter: ") + "; ".join(notes) + "."


def _aliases(toks: list[Token], tables: list[str]) -> dict[str, str]:
    """``alias -> table`` for ``table [AS] alias`` of the mentioned tables (any clause)."""
    out: dict[str, str] = {}
    n = len(toks)
    for k, tok in enumerate(toks):
        if tok.kind not in ("word", "qword") or tok.text not in tables:
            continue
        j = k + 1
        if j < n and toks[j].kind == "word" and toks[j].text == "as":
            j += 1
        if j < n and toks[j].kind in ("word", "qword") and toks[j].text not in _NOT_ALIAS:
            out[toks[j].text] = tok.text
    return out


def _compared_literals(toks: list[Token], column: str) -> list[tuple[str | None, str]]:
    """(qualifier, literal) for string literals compared with ``[qualifier.]column`` by =, ==, !=, <>,
    IS [NOT], or [NOT] IN (...), on either side of the operator."""
    found: list[tuple[str | None, str]] = []
    n = len(toks)
    for k, tok in enumerate(toks):
        if tok.kind not in ("word", "qword") or tok.text != column:
            continue
        qualified = k >= 2 and toks[k - 1].text == "." and toks[k - 2].kind in ("word", "qword")
        qualifier = toks[k - 2].text if qualified else None
        j = k + 1
        if j < n and toks[j].text in ("=", "==", "!=", "<>", "is"):
            j += 1
            if j < n and toks[j].text == "not":
                j += 1
            if j < n and toks[j].kind == "string":
                found.append((qualifier, toks[j].text))
            continue
        if j < n and toks[j].text == "not":
            j += 1
        if j + 1 < n and toks[j].text == "in" and toks[j + 1].text == "(":
            j += 2
            while j < n and toks[j].text != ")":
                if toks[j].kind == "string":
                    found.append((qualifier, toks[j].text))
                j += 1
        # literal on the left: 'x' = [q.]column
        start = k - 2 if qualified else k
        if start >= 2 and toks[start - 1].text in ("=", "==", "!=", "<>") and toks[start - 2].kind == "string":
            found.append((qualifier, toks[start - 2].text))
    return found


def _stopped(reason: str | None, timeout_s: float) -> ToolError:
    """The error for a query the progress handler stopped (``reason`` from :class:`_Run`)."""
    if reason == "memory":
        return _out_of_memory()
    narrow = "Narrow it: filter on day or customer_id, aggregate with GROUP BY, or add a LIMIT."
    if reason == "steps":
        return ToolError(
            f"The query took more than {MAX_VM_STEPS:,} SQLite steps (the budget of one query) and was "
            f"stopped. {narrow}",
            tamper="query_steps",
        )
    return ToolError(f"The query ran longer than {timeout_s:g} s and was stopped. {narrow}", tamper="query_timeout")


def _out_of_memory() -> ToolError:
    return ToolError(
        f"The query needed more memory than the database allows ({QUERY_HEAP_BYTES // 1_000_000} MB for all "
        "running queries) and was stopped. Sorting, DISTINCT and GROUP BY hold their rows in memory: filter "
        "first, sort or group fewer and shorter values, or add a LIMIT.",
        tamper="query_memory",
    )


def _unique(names: list[str]) -> list[str]:
    """Result keys: duplicate column names get ``_2``, ``_3``, ... so no value is dropped."""
    used: set[str] = set()
    out = []
    for name in names:
        key, k = name, 1
        while key in used:
            k += 1
            key = f"{name}_{k}"
        used.add(key)
        out.append(key)
    return out


def _row_bytes(row: tuple[Any, ...]) -> int:
    """How many bytes ``row``'s values take in the JSON answer (strings as JSON escapes them: a
    control or non-ASCII character takes up to 6 bytes; BLOBs as hex)."""
    n = 0
    for v in row:
        if isinstance(v, str):
            n += json_text_bytes(v)
        elif isinstance(v, bytes):
            n += 2 * len(v) + 2
        else:
            n += 24
    return n


def _jsonable(v: Any) -> Any:
    if isinstance(v, bytes):
        return v.hex()
    return v

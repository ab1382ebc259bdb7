"""Customers as numpy columns (docs/principles.md principle 6).

One row per sampled prospect (subscribed, lead, lost, cancelled, or dropped enterprise
prospect). Columns start with room for ``RESERVED_ROWS`` rows and grow by doubling past it; the
daily step works on gathered index arrays and never loops over customers in Python.
"""

from __future__ import annotations

import functools
import mmap
import os
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import numpy as np

from bizbench.envs.ceo.world import kernels

T = TypeVar("T")

# Subscription status codes (reference-notes §5.1 subscriptions.status).
NONE, LEAD, SUBSCRIBED, CANCELLED, LOST = 0, 1, 2, 3, 4

# Acquisition sources: channel index 0..4, then these (reference-notes §3.3 source attribution).
SOURCE_NETWORK, SOURCE_ORGANIC = 5, 6

# Customers per block of an elementwise pass over many of them: temporaries stay small enough for the
# allocator to reuse (and for the caches), with identical results.
BLOCK = 1 << 19

# Rows from which a block pass runs its blocks on a pool of threads (``for_blocks``): a market of millions
# of subscribers; the episodes of a run (a few hundred thousand at their peak) never start one.
THREADED_ROWS = 1 << 20
THREADS_VAR = "BIZBENCH_THREADS"  # threads of a block pass (docs/performance.md); 1: none

# Rows the columns have room for from the start: the default 500-day episode's table (760K rows) fits, so it
# is never copied into a larger one. The room is zeroed memory whose pages the kernel maps only when a row
# is first written (``Customers.append``): untouched rows cost neither time nor resident memory. They do count
# towards the kernel's commit charge (about 250 MB a world), which only a strict overcommit policy enforces.
RESERVED_ROWS = 1 << 20


def block_threads() -> int:
    """The threads a large block pass runs on: ``$BIZBENCH_THREADS``, else min(2, the CPU count)."""
    given = os.environ.get(THREADS_VAR)
    if not given:
        return min(2, os.cpu_count() or 1)
    if not given.strip().isdigit() or int(given) < 1:
        raise ValueError(f"${THREADS_VAR} must be a whole number of threads of at least 1, got {given!r}")
    return int(given)


@functools.cache
def _pool(threads: int) -> ThreadPoolExecutor:
    return ThreadPoolExecutor(threads, thread_name_prefix="bizbench-blocks")


if hasattr(os, "register_at_fork"):  # a forked process has none of its parent's threads: it starts a pool
    os.register_at_fork(after_in_child=_pool.cache_clear)


def for_blocks(n: int, task: Callable[[slice], T]) -> list[T]:
    """``task(rows)`` for each block of ``BLOCK`` rows of ``range(n)``, one after the other, or on a pool
    of ``block_threads()`` threads from ``THREADED_ROWS`` rows (numpy releases the GIL inside its loops);
    returns the tasks' results in block order, for the caller to combine in that order. A task writes
    only its own block's rows and reads nothing another block writes, so the results are the same
    whatever the threads and their timing; a task's exception is raised here."""
    blocks = [slice(i, i + BLOCK) for i in range(0, n, BLOCK)]
    if n < THREADED_ROWS or (threads := block_threads()) < 2:
        return [task(rows) for rows in blocks]
    return list(_pool(threads).map(task, blocks))


# Churn reasons (hidden column).
REASON_NONE, REASON_VOLUNTARY, REASON_INVOLUNTARY, REASON_ENTERPRISE = 0, 1, 2, 3

COLUMNS: dict[str, tuple[Any, Any]] = {
    # identity
    "group": (np.int16, 0),
    "created_day": (np.int32, 0),
    "source": (np.int8, SOURCE_ORGANIC),
    # sampled preferences (eq 4; reference-notes §2.1); drifted in place for subscribers (reference-notes §4.17)
    "s_left": (np.float64, 1.0),
    "s_right": (np.float64, 1.0),
    "c_max": (np.float64, 15.0),
    "q_min": (np.float64, 0.0),
    "q_max": (np.float64, 1.0),
    "usage_demand": (np.float64, 1.0),
    "seats": (np.float64, 1.0),
    "billed_seats": (np.float64, 1.0),  # floor(seats), kept with it (append, set_seats): what mechanics read
    "eta_ads": (np.float64, 0.0),
    "rho_ads": (np.float64, 0.0),
    "lockin": (np.float64, 0.0),
    "reply_mean": (np.float64, 1.0),
    "reply_sd": (np.float64, 0.1),
    "negotiation_rate": (np.float64, 0.3),
    "offer_factor": (np.float64, 0.75),
    "max_turns": (np.int16, 2),
    "deal_noise": (np.float64, 1.0),
    # hidden state
    "satisfaction": (np.float64, 0.5),
    "satisfaction_change": (np.float64, 0.0),
    "relationship": (np.float64, 0.5),
    "issue_days": (np.int32, 0),
    "issue_open_day": (np.int32, -1),
    # subscription
    "status": (np.int8, NONE),
    "plan": (np.int8, -1),
    "listed_price": (np.float64, 0.0),
    "promotion": (np.float64, 0.0),
    "effective_price": (np.float64, 0.0),
    "first_promotion": (np.float64, 0.0),
    "start_day": (np.int32, -1),
    "end_day": (np.int32, -1),
    "billing_mod": (np.int8, 0),
    "usage_rate": (np.float64, 0.0),
    "period_usage": (np.float64, 0.0),
    "effective_c_max": (np.float64, np.nan),
    "first_billing_done": (np.bool_, False),
    "churn_reason": (np.int8, REASON_NONE),
    "usage_today": (np.float64, 0.0),
    # derived: Q_req of the daily-satisfaction read, NaN until computed (satisfaction.daily_requirement)
    "satisfaction_q_req": (np.float64, np.nan),
}


def _zeros(rows: int, dtype: Any) -> np.ndarray:
    """A zeroed column of ``rows`` rows in memory of its own (a private anonymous map): its pages take
    memory only when first written, which ``np.zeros`` does not promise once the allocator reuses freed
    memory. Private, so a forked process (a vector env's worker, a forked rollout) writes its own copy, as
    it would of heap memory."""
    buffer = mmap.mmap(-1, max(1, rows * np.dtype(dtype).itemsize), flags=mmap.MAP_PRIVATE)
    return np.frombuffer(buffer, dtype=dtype, count=rows)


class Customers:
    """Growable column store; ``n`` rows are live, arrays may be longer."""

    def __init__(self, capacity: int = RESERVED_ROWS) -> None:
        self.n = 0
        self._cols: dict[str, np.ndarray] = {name: _zeros(capacity, dtype) for name, (dtype, _) in COLUMNS.items()}
        self.q_req_market = b""  # the quality shift and budget drift the stored Q_req were computed with

    def forget_requirement(self, idx: np.ndarray | slice | int) -> None:
        """Mark the stored daily-satisfaction Q_req of rows ``idx`` stale: call it whenever a row's
        effective price, budget snapshot, c_max, quality band or steepness changes."""
        self.column("satisfaction_q_req")[idx] = np.nan

    def __getstate__(self) -> dict[str, Any]:
        """The live rows only (the env's state digest pickles the world, ``CeoEnv.state_digest``): the room
        past them holds nothing, and pickling it would cost as much as the reserve. A store unpickled (or
        copied) has room for its rows only and grows from them."""
        return {**self.__dict__, "_cols": {name: col[: self.n] for name, col in self._cols.items()}}

    def __getattr__(self, name: str) -> np.ndarray:
        cols = self.__dict__.get("_cols")
        if cols is not None and name in cols:
            return cols[name][: self.n]
        raise AttributeError(name)

    def column(self, name: str) -> np.ndarray:
        return self._cols[name][: self.n]

    def append(self, count: int, values: Mapping[str, np.ndarray | float | int]) -> np.ndarray:
        """Add ``count`` rows with the given column values (the column's default elsewhere); returns their
        indices. Past their room (``RESERVED_ROWS`` at first) the columns grow to the next power of two rows,
        into fresh zeroed maps (``_zeros``); only the appended rows are written."""
        need = self.n + count
        cap = len(self._cols["group"])
        unknown = set(values) - set(COLUMNS)
        if unknown:
            raise KeyError(f"unknown customer columns: {sorted(unknown)}")
        if need > cap:
            new_cap = max(2 * cap, 1 << (need - 1).bit_length())
            for name, (dtype, _) in COLUMNS.items():
                grown = _zeros(new_cap, dtype)
                grown[: self.n] = self._cols[name][: self.n]
                self._cols[name] = grown
        for name, (_, fill) in COLUMNS.items():
            if name in values or fill != 0:  # a column's spare rows are zero until appended (__init__, above)
                self._cols[name][self.n : need] = values.get(name, fill)
        np.floor(self._cols["seats"][self.n : need], out=self._cols["billed_seats"][self.n : need])
        idx = np.arange(self.n, need)
        self.n = need
        return idx

    def whole_seats(self, idx: np.ndarray | slice | int) -> np.ndarray:
        """Seats as every mechanic reads them: the floor of the seat count, which is kept as a float so
        the monthly drift's growth of less than a seat accumulates (reference-notes §4.17, §4.22; the
        engine floors on read). Individuals have exactly one. Read from ``billed_seats``, the floor
        stored whenever the seat count is set (a copy)."""
        seats = self.column("billed_seats")[idx]
        return seats.copy() if isinstance(idx, slice) else seats

    def set_seats(self, idx: np.ndarray, seats: np.ndarray) -> None:
        """Set the seat count of rows ``idx`` and its floor ``billed_seats`` with it."""
        self.column("seats")[idx] = seats
        self.column("billed_seats")[idx] = np.floor(seats)

    def open_issue(self, rows: np.ndarray) -> np.ndarray:
        """Whether each customer of ``rows`` has an issue open (open-issue days above 0, reference-notes
        §4.9), read in blocks (``for_blocks``)."""
        issue_days = self.column("issue_days")
        out = np.empty(len(rows), dtype=bool)
        flags = out.view(np.uint8)
        for_blocks(len(rows), lambda b: kernels.positive(rows[b], issue_days, flags[b]))
        return out

    def active(self) -> np.ndarray:
        """Indices of active subscriptions (status subscribed, reference-notes §5.1), ascending (compiled:
        one pass over the status column into a buffer of ``n`` rows, shrunk to the subscribers)."""
        rows = np.empty(self.n, dtype=np.int64)
        rows.resize(kernels.rows_with(self.column("status"), SUBSCRIBED, rows), refcheck=False)
        return rows

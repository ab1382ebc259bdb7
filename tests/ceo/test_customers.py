"""The customers' column store (docs/principles.md principle 6): one row per sampled prospect, numpy columns
that grow as rows are appended, each column of the type and default the ``COLUMNS`` table gives it."""

from __future__ import annotations

import gc
import multiprocessing
import os
import pickle

import numpy as np
import pytest

from bizbench.envs.ceo.world import customers
from bizbench.envs.ceo.world.customers import CANCELLED, COLUMNS, LEAD, SUBSCRIBED, Customers


def test_a_new_store_has_no_rows_and_new_rows_start_from_the_column_defaults():
    """Every column has the dtype ``COLUMNS`` declares (group an int16 index, status an int8 code, ...).
    docs/reference-notes.md §2.1: satisfaction and relationship start at 0.5; a new row has no status (0),
    no plan (-1), no start day (-1) and no budget snapshot yet (NaN)."""
    cust = Customers()
    assert cust.n == 0 and len(cust.group) == 0 and len(cust.active()) == 0
    assert {name: cust.column(name).dtype for name in COLUMNS} == {n: np.dtype(t) for n, (t, _) in COLUMNS.items()}
    [i] = cust.append(1, {"group": 4})
    assert (cust.group[i], cust.satisfaction[i], cust.relationship[i]) == (4, 0.5, 0.5)
    assert (cust.status[i], cust.plan[i], cust.start_day[i]) == (0, -1, -1)
    assert np.isnan(cust.effective_c_max[i])


def test_rows_appended_past_the_capacity_keep_every_value_and_each_column_its_type():
    """A store of capacity 2 takes 3 rows, then 1 (exactly full), then 1 more: the first rows' values survive
    each growth, the new rows get the defaults, and every column keeps the dtype of ``COLUMNS`` (group an
    integer index, ``first_billing_done`` a bool)."""
    cust = Customers(capacity=2)
    first = cust.append(3, {"group": np.array([1, 2, 3]), "satisfaction": np.array([0.1, 0.2, 0.3])})
    assert first.tolist() == [0, 1, 2]
    assert cust.append(1, {"group": 5, "first_billing_done": True}).tolist() == [3]
    assert cust.append(1, {"status": SUBSCRIBED}).tolist() == [4]
    assert cust.n == 5
    assert cust.group.tolist() == [1, 2, 3, 5, 0]
    assert cust.satisfaction.tolist() == [0.1, 0.2, 0.3, 0.5, 0.5]
    assert cust.first_billing_done.tolist() == [False, False, False, True, False]
    assert cust.active().tolist() == [4]
    assert {name: cust.column(name).dtype for name in COLUMNS} == {
        name: np.dtype(t) for name, (t, _) in COLUMNS.items()
    }
    assert (~cust.first_billing_done).tolist() == [True, True, True, False, True]


def test_the_active_customers_are_those_subscribed():
    """docs/reference-notes.md §5.1: only status ``subscribed`` is active; leads, cancelled and lost are not."""
    cust = Customers()
    cust.append(4, {"status": np.array([LEAD, SUBSCRIBED, CANCELLED, SUBSCRIBED])})
    assert cust.active().tolist() == [1, 3]


def test_an_unknown_column_is_refused_by_name_before_any_row_is_added():
    cust = Customers(capacity=2)
    cust.append(1, {"group": 1})
    with pytest.raises(KeyError) as err:
        cust.append(2, {"group": 2, "bogus": 1.0, "also_bogus": 2})
    assert err.value.args == ("unknown customer columns: ['also_bogus', 'bogus']",)
    assert cust.n == 1 and cust.group.tolist() == [1]


def test_a_column_is_an_attribute_and_any_other_name_is_an_attribute_error():
    cust = Customers()
    cust.append(2, {"seats": np.array([3.0, 40.0])})
    assert cust.seats.tolist() == [3.0, 40.0]
    assert not hasattr(cust, "no_such_column")
    with pytest.raises(AttributeError) as err:
        cust.no_such_column  # noqa: B018
    assert err.value.args == ("no_such_column",)


def test_a_store_pickles_and_unpickles_with_its_rows():
    """The env's state digest pickles the world state, customers included (``CeoEnv.state_digest``)."""
    cust = Customers(capacity=2)
    cust.append(3, {"group": np.array([1, 2, 3]), "status": SUBSCRIBED})
    back = pickle.loads(pickle.dumps(cust, protocol=5))
    assert back.n == 3 and back.group.tolist() == [1, 2, 3] and back.active().tolist() == [0, 1, 2]


def test_a_store_pickles_its_live_rows_only_and_the_unpickled_store_grows_from_them():
    """A new store has room for ``RESERVED_ROWS`` rows (a default episode's table fits without a copy); the
    room past the live rows holds nothing, so the state digest does not pickle it: three rows pickle to a few
    kilobytes, not the reserve's hundreds of megabytes, and the same rows pickle the same whatever the
    room. The unpickled store takes more rows, with their defaults."""
    cust = Customers()
    assert len(cust.column("group")) == 0 and len(cust._cols["group"]) == customers.RESERVED_ROWS >= 760_359
    cust.append(3, {"group": np.array([1, 2, 3]), "satisfaction": np.array([0.1, 0.2, 0.3])})
    small = Customers(capacity=3)
    small.append(3, {"group": np.array([1, 2, 3]), "satisfaction": np.array([0.1, 0.2, 0.3])})
    data = pickle.dumps(cust, protocol=5)
    assert len(data) < 20_000 and data == pickle.dumps(small, protocol=5)
    back = pickle.loads(data)
    assert back.append(2, {"group": 7}).tolist() == [3, 4]
    assert back.group.tolist() == [1, 2, 3, 7, 7] and back.satisfaction.tolist() == [0.1, 0.2, 0.3, 0.5, 0.5]
    assert back.plan.tolist() == [-1] * 5 and np.isnan(back.effective_c_max).all()


def _write_in_a_child(cust: Customers) -> None:
    cust.satisfaction[:] = 9.0
    cust.append(10, {"group": 2})


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork here")
def test_a_forked_process_writes_its_own_copy_of_the_store():
    """A sweep's worker forked from a process holding a world changes its copy only: the columns' memory is
    private to each process, as heap memory is."""
    cust = Customers()
    cust.append(3, {"group": np.array([1, 2, 3]), "satisfaction": np.array([0.1, 0.2, 0.3])})
    child = multiprocessing.get_context("fork").Process(target=_write_in_a_child, args=(cust,))
    child.start()
    try:
        child.join(timeout=60)
        assert child.exitcode == 0
    finally:
        child.kill()
        child.join()
    assert cust.n == 3 and cust.satisfaction.tolist() == [0.1, 0.2, 0.3] and cust.group.tolist() == [1, 2, 3]


def _resident_kb(column: np.ndarray) -> int:
    """The resident kilobytes of the memory map that holds ``column`` (its ``Rss`` in /proc/self/smaps; the
    kernel may merge it with its neighbours, so only a difference over a few steps tells of the column)."""
    address = column.ctypes.data
    with open("/proc/self/smaps") as smaps:
        inside = False
        for line in smaps:
            head = line.split()[0]
            if "-" in head and not head.endswith(":"):
                start, end = (int(x, 16) for x in head.split("-"))
                inside = start <= address < end
            elif inside and head == "Rss:":
                return int(line.split()[1])
    raise AssertionError("the column's map is not in /proc/self/smaps")


@pytest.mark.skipif(not os.path.exists("/proc/self/smaps"), reason="reads Linux's /proc")
def test_the_room_of_a_new_store_takes_no_memory_until_rows_are_written():
    """A new store's ``RESERVED_ROWS`` rows are zero pages: reading the room makes none of it resident (a map
    shared between processes would); writing rows does, a page at a time. (The garbage collector is held
    off, so nothing else is freed while the memory is read.)"""
    gc.collect()
    gc.disable()
    try:
        cust = Customers()
        satisfaction = cust._cols["satisfaction"]
        before = _resident_kb(satisfaction)
        assert not satisfaction.any()  # reads every page of the room (8 MB)
        assert _resident_kb(satisfaction) - before < 1_000
        cust.append(100_000, {"satisfaction": np.full(100_000, 0.25)})
        assert _resident_kb(satisfaction) - before >= 780  # 100,000 float64 satisfactions are 781 KB
    finally:
        gc.enable()


def test_whole_seats_are_the_floor_of_the_seat_count_as_appended_and_as_set():
    """docs/reference-notes.md §4.17, §4.22: seats are kept as a float and read floored; the floor is stored with
    the count, on append and by ``set_seats`` (the monthly drift's writer)."""
    cust = Customers()
    cust.append(3, {"seats": np.array([1.0, 10.7, 250.2])})
    assert cust.whole_seats(np.array([0, 1, 2])).tolist() == [1.0, 10.0, 250.0]
    cust.set_seats(np.array([1]), np.array([11.021]))
    assert cust.seats[1] == 11.021 and cust.whole_seats(slice(None)).tolist() == [1.0, 11.0, 250.0]


def _block_starts(n: int) -> list[int]:
    return customers.for_blocks(n, lambda rows: rows.start)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork here")
def test_block_passes_run_in_order_on_threads_and_in_a_forked_process_too(monkeypatch):
    """``for_blocks`` returns each block's result in block order, on threads from ``THREADED_ROWS`` rows;
    a process forked after the pool started (a sweep's worker) starts a pool of its own instead of
    waiting on its parent's threads, which it does not have."""
    monkeypatch.setattr(customers, "BLOCK", 10)
    monkeypatch.setattr(customers, "THREADED_ROWS", 20)
    monkeypatch.setenv(customers.THREADS_VAR, "2")
    assert _block_starts(15) == [0, 10]  # below THREADED_ROWS: one after the other
    assert _block_starts(95) == list(range(0, 95, 10))
    assert customers._pool.cache_info().currsize == 1
    with multiprocessing.get_context("fork").Pool(1) as child:
        assert child.apply_async(_block_starts, (95,)).get(timeout=60) == list(range(0, 95, 10))

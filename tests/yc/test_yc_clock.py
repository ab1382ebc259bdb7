"""Business-hours clock (paper section 3 "Simulation Clock"; Table 2 "Business hours 9-18, weekdays").

Expected values are worked out by hand from a 2025 calendar: 2025-01-01 is a Wednesday,
2025-01-04/05 a weekend, 2025-01-31 a Friday, 2025-02-01 a Saturday.
"""

from __future__ import annotations

import datetime as dt
import pickle

import pytest

from bizbench.envs.yc.world.clock import Calendar

DAY = 1440
CAL = Calendar(dt.date(2025, 1, 1))  # t = 0 is Wed 2025-01-01 00:00


def at(day: int, hh: int, mm: int = 0) -> int:
    return day * DAY + hh * 60 + mm


def test_business_minutes_within_and_across_a_weekend() -> None:
    assert CAL.business_minutes_before(0) == 0
    assert CAL.business_minutes_before(at(0, 8)) == 0  # before opening
    assert CAL.business_minutes_before(at(0, 12)) == 180  # Wed 09:00-12:00
    assert CAL.business_minutes_before(at(0, 23)) == 540  # after closing: the full day
    # Wed, Thu, Fri = 3 x 540; Saturday and Sunday add nothing
    assert CAL.business_minutes_before(at(3, 12)) == 1620
    assert CAL.business_minutes_before(at(4, 23, 59)) == 1620
    assert CAL.business_minutes_before(at(5, 9)) == 1620  # Mon 09:00
    assert CAL.business_minutes_before(at(5, 10, 30)) == 1620 + 90
    # a full 7-day week holds 5 x 540 minutes
    assert CAL.business_minutes_between(at(5, 9), at(12, 9)) == 5 * 540
    assert CAL.business_minutes_between(at(2, 17), at(5, 10)) == 60 + 60  # Fri 17-18, Mon 09-10
    assert CAL.business_minutes_between(at(5, 10), at(2, 17)) == 0


def test_add_business_minutes_ends_at_the_earliest_instant() -> None:
    # a full day's work from Wed 09:00 ends Wed 18:00, not Thu 09:00
    assert CAL.add_business_minutes(at(0, 9), 540) == at(0, 18)
    assert CAL.add_business_minutes(at(0, 9), 541) == at(1, 9, 1)
    # Fri 17:00 + 2 h -> Mon 10:00 (over the weekend)
    assert CAL.add_business_minutes(at(2, 17), 120) == at(5, 10)
    # from Saturday noon, one hour of work -> Mon 10:00
    assert CAL.add_business_minutes(at(3, 12), 60) == at(5, 10)
    # from Wed 20:00 (after hours) 30 minutes -> Thu 09:30
    assert CAL.add_business_minutes(at(0, 20), 30) == at(1, 9, 30)
    assert CAL.add_business_minutes(at(3, 12), 0) == at(3, 12)


def test_add_business_minutes_across_a_month_boundary() -> None:
    fri_jan_31 = 30
    # Fri 2025-01-31 09:00 + 2 business days -> Mon 2025-02-03 18:00
    t = CAL.add_business_minutes(at(fri_jan_31, 9), 2 * 540)
    assert CAL.iso(t) == "2025-02-03T18:00"
    # Fri 2025-02-28 16:00 + 3 h -> Mon 2025-03-03 10:00
    fri_feb_28 = (dt.date(2025, 2, 28) - dt.date(2025, 1, 1)).days
    assert CAL.iso(CAL.add_business_minutes(at(fri_feb_28, 16), 180)) == "2025-03-03T10:00"


def test_round_trip_with_business_minutes() -> None:
    for t in range(0, 20 * DAY, 37):
        b = CAL.business_minutes_before(t)
        if b > 0:
            back = CAL.from_business_minutes(b)
            assert back <= t
            assert CAL.business_minutes_before(back) == b


def test_year_2025_has_261_business_days() -> None:
    horizon = CAL.add_months(12)
    assert CAL.iso(horizon) == "2026-01-01T00:00"
    assert CAL.business_minutes_before(horizon) == 261 * 540


@pytest.mark.parametrize(
    ("month", "expected"),
    [(1, "2025-01-01"), (2, "2025-02-03"), (3, "2025-03-03"), (6, "2025-06-02"), (8, "2025-08-01"), (11, "2025-11-03")],
)
def test_first_business_day_of_month(month: int, expected: str) -> None:
    day = CAL.first_business_day_of_month(2025, month)
    assert CAL.iso(day * DAY)[:10] == expected


def test_first_business_instant_and_labels() -> None:
    assert CAL.first_business_instant(at(3, 12)) == at(5, 9)  # Saturday -> Monday 09:00
    assert CAL.first_business_instant(at(0, 10)) == at(0, 10)
    assert CAL.first_business_instant(at(0, 18)) == at(1, 9)
    assert CAL.weekday_name(at(0, 9)) == "Wed"
    assert CAL.in_business_hours(at(0, 9)) and not CAL.in_business_hours(at(0, 18))


def test_calendar_starting_on_a_sunday_with_other_hours() -> None:
    cal = Calendar(dt.date(2025, 1, 5), day_start_min=8 * 60, day_end_min=16 * 60)  # Sunday, 8 h days
    assert cal.business_minutes_before(at(1, 12)) == 240  # Monday 08:00-12:00
    assert cal.iso(cal.add_business_minutes(0, 480)) == "2025-01-06T16:00"
    assert cal.iso(cal.add_business_minutes(0, 5 * 480 + 1)) == "2025-01-13T08:01"


def test_business_days_repeat_every_seven_days():
    # day 0 is Wed 2025-01-01: Wed, Thu, Fri work; Sat (3), Sun (4) do not; the next week repeats
    assert [CAL.is_business_day(d) for d in range(14)] == [True, True, True, False, False, True, True] * 2
    assert CAL.is_business_day(7) and not CAL.is_business_day(10)  # Wed 2025-01-08, Sat 2025-01-11


def test_the_iso_memo_is_not_pickled():
    used = Calendar(dt.date(2025, 1, 1))
    assert used.iso(at(5, 9)) == "2025-01-06T09:00"  # fills the memo
    fresh = Calendar(dt.date(2025, 1, 1))
    assert pickle.dumps(used) == pickle.dumps(fresh)
    back = pickle.loads(pickle.dumps(used))
    assert back == fresh and back.iso(at(5, 9)) == "2025-01-06T09:00"


def test_no_business_minutes_take_no_time_and_one_minute_takes_one_minute() -> None:
    assert CAL.from_business_minutes(0) == 0
    assert CAL.from_business_minutes(-5) == 0
    assert CAL.from_business_minutes(1) == at(0, 9, 1)  # Wed 09:00 + 1
    assert CAL.add_business_minutes(at(0, 10), 0) == at(0, 10)
    assert CAL.add_business_minutes(at(0, 10), 1) == at(0, 10, 1)
    assert CAL.add_business_minutes(at(2, 17, 59), 1) == at(2, 18)  # Fri's last minute ends at 18:00
    assert CAL.add_business_minutes(at(2, 17, 59), 2) == at(5, 9, 1)  # then Monday


def test_a_calendar_open_from_midnight_is_in_business_at_t_zero() -> None:
    """The first instant of business is t itself when t is already inside business hours (also t = 0)."""
    cal = Calendar(dt.date(2025, 1, 1), day_start_min=0, day_end_min=DAY)
    assert cal.first_business_instant() == 0
    assert cal.first_business_instant(at(2, 23, 59)) == at(2, 23, 59)  # Fri 23:59
    assert cal.first_business_instant(at(3, 0)) == at(5, 0)  # Sat 00:00 -> Mon 00:00


def test_business_hours_repeat_every_seven_days_however_far_ahead() -> None:
    for week in (1, 2, 52):
        assert CAL.in_business_hours(at(7 * week, 9))  # a Wednesday
        assert CAL.in_business_hours(at(7 * week + 5, 17, 59))  # a Monday, its last minute
        assert not CAL.in_business_hours(at(7 * week + 3, 12))  # a Saturday
        assert not CAL.in_business_hours(at(7 * week + 5, 18))  # a Monday at closing


def test_a_minute_belongs_to_the_date_it_falls_on() -> None:
    assert CAL.date_of(0) == dt.date(2025, 1, 1)
    assert CAL.date_of(at(3, 23, 59)) == dt.date(2025, 1, 4)
    assert CAL.date_of(at(31, 0)) == dt.date(2025, 2, 1)

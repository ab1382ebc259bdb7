"""Business-hours time arithmetic (paper section 3 "Simulation Clock"; Table 2 "Business hours 9-18").

Time is an integer number of minutes since 00:00 of the start date (wall time). Work happens
only on workdays between ``day_start`` and ``day_end`` (Mon-Fri 09:00-18:00 by default: 540
business minutes a day, no holidays). Every function here is O(1) in the span of time.

``business_minutes_before(t)`` counts the business minutes in ``[0, t)``;
``add_business_minutes(t, m)`` is the earliest instant at which ``m`` business minutes have
elapsed after ``t`` (so adding a whole day's work from 09:00 ends at 18:00 the same day,
not 09:00 the next business day).
"""

from __future__ import annotations

import calendar
import datetime as dt
from dataclasses import dataclass, field

__all__ = ["MINUTES_PER_DAY", "Calendar"]

MINUTES_PER_DAY = 1440


@dataclass(frozen=True)
class Calendar:
    """A business calendar anchored at ``start`` 00:00 (t = 0)."""

    start: dt.date
    day_start_min: int = 9 * 60
    day_end_min: int = 18 * 60
    workdays: tuple[int, ...] = (0, 1, 2, 3, 4)
    # derived (filled in __post_init__)
    _pattern: tuple[bool, ...] = field(init=False, repr=False)
    _prefix: tuple[int, ...] = field(init=False, repr=False)
    _offsets: tuple[int, ...] = field(init=False, repr=False)
    _iso: dict[int, str] = field(init=False, repr=False, compare=False, default_factory=dict)  # memo of iso()

    def __post_init__(self) -> None:
        w0 = self.start.weekday()
        pattern = tuple(((w0 + i) % 7) in self.workdays for i in range(7))
        prefix = [0]
        for b in pattern:
            prefix.append(prefix[-1] + int(b))
        object.__setattr__(self, "_pattern", pattern)
        object.__setattr__(self, "_prefix", tuple(prefix))
        object.__setattr__(self, "_offsets", tuple(i for i, b in enumerate(pattern) if b))

    def __getstate__(self) -> dict[str, object]:
        return {k: v for k, v in self.__dict__.items() if k != "_iso"}  # the memo is not state

    def __setstate__(self, state: dict[str, object]) -> None:
        self.__dict__.update(state)
        object.__setattr__(self, "_iso", {})

    @property
    def day_minutes(self) -> int:
        """Business minutes in one business day (540 for 09:00-18:00)."""
        return self.day_end_min - self.day_start_min

    @property
    def days_per_week(self) -> int:
        return len(self._offsets)

    # ------------------------------------------------------------------ days
    def is_business_day(self, day: int) -> bool:
        return self._pattern[day % 7]

    def business_days_before(self, day: int) -> int:
        """Number of business days among days ``0 .. day - 1`` (``day >= 0``)."""
        weeks, rest = divmod(day, 7)
        return weeks * self.days_per_week + self._prefix[rest]

    def kth_business_day(self, k: int) -> int:
        """Day index of the ``k``-th business day (0-based) on or after day 0."""
        weeks, j = divmod(k, self.days_per_week)
        return weeks * 7 + self._offsets[j]

    # ------------------------------------------------------------------ minutes
    def business_minutes_before(self, t: int) -> int:
        """Business minutes in ``[0, t)``."""
        day, minute = divmod(t, MINUTES_PER_DAY)
        out = self.business_days_before(day) * self.day_minutes
        if self._pattern[day % 7]:
            out += min(max(minute - self.day_start_min, 0), self.day_minutes)
        return out

    def business_minutes_between(self, t0: int, t1: int) -> int:
        """Business minutes in ``[t0, t1)`` (0 if ``t1 <= t0``)."""
        if t1 <= t0:
            return 0
        return self.business_minutes_before(t1) - self.business_minutes_before(t0)

    def from_business_minutes(self, b: int) -> int:
        """The earliest instant by which ``b`` business minutes (counted from t = 0) have elapsed."""
        if b <= 0:
            return 0
        k, rest = divmod(b - 1, self.day_minutes)
        return self.kth_business_day(k) * MINUTES_PER_DAY + self.day_start_min + rest + 1

    def add_business_minutes(self, t: int, minutes: int) -> int:
        """The earliest instant at which ``minutes`` business minutes have elapsed after ``t``."""
        if minutes <= 0:
            return t
        return self.from_business_minutes(self.business_minutes_before(t) + minutes)

    def first_business_instant(self, t: int = 0) -> int:
        """The first instant at or after ``t`` that lies in business hours."""
        if self.in_business_hours(t):
            return t
        return self.from_business_minutes(self.business_minutes_before(t) + 1) - 1

    def in_business_hours(self, t: int) -> bool:
        day, minute = divmod(t, MINUTES_PER_DAY)
        return self._pattern[day % 7] and self.day_start_min <= minute < self.day_end_min

    # ------------------------------------------------------------------ calendar dates
    def day_of(self, date: dt.date) -> int:
        return (date - self.start).days

    def date_of(self, t: int) -> dt.date:
        return self.start + dt.timedelta(days=t // MINUTES_PER_DAY)

    def first_business_day_of_month(self, year: int, month: int) -> int:
        """Day index of the first business day of ``year-month`` (may precede the start)."""
        d = dt.date(year, month, 1)
        while d.weekday() not in self.workdays:
            d += dt.timedelta(days=1)
        return self.day_of(d)

    def add_months(self, months: int) -> int:
        """t of 00:00 on the start date plus ``months`` calendar months (day clipped to the month's end)."""
        y, m = divmod(self.start.month - 1 + months, 12)
        year, month = self.start.year + y, m + 1
        day = min(self.start.day, calendar.monthrange(year, month)[1])
        return self.day_of(dt.date(year, month, day)) * MINUTES_PER_DAY

    def iso(self, t: int) -> str:
        """``YYYY-MM-DDTHH:MM`` of wall time ``t`` (memoised: views format the same instants often)."""
        out = self._iso.get(t)
        if out is None:
            if len(self._iso) > 100_000:
                self._iso.clear()
            day, minute = divmod(t, MINUTES_PER_DAY)
            h, mi = divmod(minute, 60)
            out = self._iso[t] = f"{(self.start + dt.timedelta(days=day)).isoformat()}T{h:02d}:{mi:02d}"
        return out

    def weekday_name(self, t: int) -> str:
        return calendar.day_abbr[self.date_of(t).weekday()]

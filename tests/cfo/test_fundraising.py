"""Fundraising odds, contract rates and draws (docs/cfo-model.md; paper section 3.3, Table 5, eq 3).

Every expected value is worked out by hand from the preset's parameters (``config.py``):
equity p_macro = clip(1.07 - 0.019 VIX, 0.05, 0.9), round decay 0.75, the size factor 1 up to
25 % of the enterprise value and 0 from 60 %; debt p_macro = clip(0.95 - 0.05 SOFR%, 0.05, 0.95),
m = max(0, 1 - 1.5 max(0, L - 0.5)); rate = (Tsy2Y + Baa)/100 + 500 bps x (L - 0.5)+.
"""

from __future__ import annotations

import pytest

from bizbench.envs.cfo.config import Debt, Equity, Fundraising
from bizbench.envs.cfo.world import fundraising as fr
from scripted_stream import ScriptedStream

EQUITY, DEBT, SHARED = Equity(), Debt(), Fundraising()
EV = 100_000_000  # an enterprise value of $1M, in cents


@pytest.mark.parametrize(
    ("vix", "expected"),
    [
        (20.0, 0.69),  # 1.07 - 0.38
        (10.0, 0.88),  # 1.07 - 0.19, just under the cap
        (5.0, 0.9),  # 0.975, capped at p_max
        (53.0, 0.063),  # 1.07 - 1.007, just over the floor
        (60.0, 0.05),  # -0.07, floored at p_min
    ],
)
def test_the_equity_odds_follow_the_vix_between_their_floor_and_cap(vix: float, expected: float) -> None:
    assert fr.equity_probability(vix, 0, EV // 10, EV, EQUITY, None) == pytest.approx(expected)


@pytest.mark.parametrize(("rounds", "expected"), [(0, 0.69), (1, 0.5175), (2, 0.388125), (3, 0.29109375)])
def test_each_earlier_equity_round_cuts_the_odds_by_a_quarter(rounds: int, expected: float) -> None:
    assert fr.equity_probability(20.0, rounds, EV // 10, EV, EQUITY, None) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("share", "size"),
    [
        (0.10, 1.0),
        (0.25, 1.0),  # size_free: still the full odds
        (0.30, 1 - 0.05 / 0.35),  # one step past it: the line down to zero at 60 %
        (0.425, 0.5),  # half-way
        (0.60, 0.0),  # size_zero
        (0.90, 0.0),  # beyond it: clipped, never negative
    ],
)
def test_a_request_above_a_quarter_of_the_enterprise_value_lowers_the_odds_to_zero_at_sixty_percent(
    share: float, size: float
) -> None:
    requested = round(share * EV)
    assert fr.equity_probability(20.0, 0, requested, EV, EQUITY, None) == pytest.approx(0.69 * size)


@pytest.mark.parametrize("enterprise_value", [0, -EV])
def test_no_equity_is_raised_on_a_company_worth_nothing(enterprise_value: int) -> None:
    assert fr.equity_probability(20.0, 0, 1, enterprise_value, EQUITY, None) == 0.0


def test_an_enterprise_value_of_one_cent_still_prices_the_request_against_it() -> None:
    # One cent is the first value above "worth nothing": the request is read as a share of
    # it. With a preset whose size_zero (2.0) is past the whole value, a one-cent request is
    # ratio 1: size = 1 - (1 - 0.25) / (2.0 - 0.25) = 1 - 0.75 / 1.75 = 4/7; p = 0.69 x 4/7.
    wide = Equity(size_zero=2.0)
    assert fr.equity_probability(20.0, 0, 1, 1, wide, None) == pytest.approx(0.69 * 4 / 7)
    # ... and one cent below it (0), the same request and preset get no odds at all.
    assert fr.equity_probability(20.0, 0, 1, 0, wide, None) == 0.0


@pytest.mark.parametrize(
    ("books_age", "factor"),
    [
        (None, 0.5),  # books never closed
        (0, 1.0),
        (3, 1.0),  # closed exactly diligence_months ago: still fresh
        (4, 0.5),  # one month older: investors halve the odds
        (12, 0.5),
    ],
)
def test_diligence_halves_the_equity_odds_when_the_books_are_older_than_its_window(
    books_age: int | None, factor: float
) -> None:
    hardened = Equity(diligence_months=3)
    assert fr.equity_probability(20.0, 0, EV // 10, EV, hardened, books_age) == pytest.approx(0.69 * factor)


def test_diligence_penalty_is_the_presets_own_and_off_by_default() -> None:
    strict = Equity(diligence_months=2, diligence_penalty=0.2)
    assert fr.equity_probability(20.0, 0, EV // 10, EV, strict, None) == pytest.approx(0.138)
    assert fr.equity_probability(20.0, 0, EV // 10, EV, EQUITY, None) == pytest.approx(0.69)
    assert fr.equity_probability(20.0, 0, EV // 10, EV, EQUITY, 100) == pytest.approx(0.69)


@pytest.mark.parametrize(
    ("sofr", "expected"),
    [
        (5.0, 0.7),  # 0.95 - 0.25
        (0.0, 0.95),
        (-2.0, 0.95),  # 1.05 capped at p_max
        (17.0, 0.1),  # 0.95 - 0.85
        (20.0, 0.05),  # -0.05 floored at p_min
    ],
)
def test_the_debt_odds_follow_sofr_between_their_floor_and_cap(sofr: float, expected: float) -> None:
    assert fr.debt_probability(sofr, 0.0, DEBT) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("lev", "m"),
    [
        (0.0, 1.0),
        (0.5, 1.0),  # leverage_free: no cut yet
        (0.8, 0.55),  # 1 - 1.5 x 0.3
        (1.0, 0.25),
        (1.5, 0.0),  # 1 - 1.5 x 1.0 < 0: no lender at all
    ],
)
def test_the_debt_odds_fall_with_pro_forma_leverage_above_one_half(lev: float, m: float) -> None:
    assert fr.debt_probability(5.0, lev, DEBT) == pytest.approx(0.7 * m)


@pytest.mark.parametrize(
    ("treasury", "baa", "lev", "rate"),
    [
        (4.0, 6.0, 0.2, 0.10),  # below leverage_free: no spread
        (4.0, 6.0, 0.5, 0.10),
        (4.0, 6.0, 1.3, 0.14),  # + 500 bps x 0.8
        (1.5, 3.0, 2.5, 0.145),  # 0.045 + 0.05 x 2.0
    ],
)
def test_a_contract_rate_is_treasury_plus_baa_plus_500_bps_per_unit_of_leverage_above_one_half(
    treasury: float, baa: float, lev: float, rate: float
) -> None:
    assert fr.contract_rate(treasury, baa, lev, DEBT) == pytest.approx(rate)


@pytest.mark.parametrize(
    ("debt", "equity", "expected"),
    [
        (0, 100, 0.0),
        (-5, 100, 0.0),  # no debt is no leverage, whatever the equity
        (0, -100, 0.0),
        (1, 100, 0.01),  # one cent of debt is already leverage
        (50, 200, 0.25),
        (999, 100, 9.99),
        (1000, 100, 10.0),
        (5000, 100, 10.0),  # capped
        (5, 1, 5.0),  # one cent of equity still divides
        (50, 0, 10.0),  # no book equity left: the cap
        (50, -100, 10.0),
    ],
)
def test_leverage_is_debt_over_book_equity_capped_at_ten(debt: int, equity: int, expected: float) -> None:
    assert fr.leverage(debt, equity) == pytest.approx(expected)


@pytest.mark.parametrize(("u", "probability", "success"), [(0.3, 0.31, True), (0.3, 0.3, False), (0.0, 0.0, False)])
def test_an_attempt_succeeds_when_its_draw_is_below_its_odds(u: float, probability: float, success: bool) -> None:
    stream = ScriptedStream(random=[u], uniform=[0.8], integers=[4])
    attempt = fr.draw_attempt("debt", 12_345_678, 7, probability, SHARED, stream)
    assert attempt == fr.Attempt(
        kind="debt",
        requested_cents=12_345_678,
        month=7,
        settle_month=11,  # month 7 + a delay of 4
        success=success,
        received_cents=9_876_542 if success else 0,  # round(12,345,678 x 0.8) = round(9,876,542.4)
        probability=probability,
    )


def test_every_attempt_draws_its_outcome_fill_and_delay_in_that_order() -> None:
    """Success or not, the same three draws, so the stream stays aligned whatever was asked."""
    for probability in (0.0, 1.0):
        stream = ScriptedStream(random=[0.5], uniform=[0.9], integers=[1])
        fr.draw_attempt("equity", 100, 0, probability, SHARED, stream)
        assert stream.calls == [("random",), ("uniform", 0.7, 1.0), ("integers", 1, 7)]
    narrow = Fundraising(fill_low=0.5, fill_high=0.6, delay_min_months=2, delay_max_months=3)
    stream = ScriptedStream(random=[0.5], uniform=[0.55], integers=[3])
    attempt = fr.draw_attempt("equity", 1_000, 5, 1.0, narrow, stream)
    assert stream.calls == [("random",), ("uniform", 0.5, 0.6), ("integers", 2, 4)]
    assert (attempt.received_cents, attempt.settle_month) == (550, 8)

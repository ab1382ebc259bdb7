"""External economic and industry series of the cfo env (EnterpriseArena Table 4 bottom, Table 6).

The paper's environment has three layers (Appendix A.1.1, Table 3): an economic layer (GDP,
CPI, unemployment; interbank rates and bond yields for debt fundraising; VIX, P/E and P/S for
equity fundraising), an industry layer (user growth, gross and EBITDA margin benchmarks) and
the enterprise itself. This module holds the first two, as a :class:`MacroPath`: 16 monthly
series over the horizon plus the hidden regime of every month.

Two sources of paths:

- :func:`paper_path` - Table 4 "External Economic & Industry Dynamics": a fixed 132-month
  trajectory of approximate public figures from Jan 2015 to Dec 2025, anonymised
  (``data/macro_paper.csv``; sources and construction in ``data/PROVENANCE.md``). It runs
  expansion -> shock -> recovery -> rate hikes -> high-rate plateau.
- :func:`generate_path` - Appendix A.1.2 says external indicators "evolve through
  regime-dependent transition models calibrated on real-world historical data, capturing the
  shifting conditions across expansion, neutral, and recession phases". The paper does not give
  the model, so this is ours: a seeded Markov chain over the three regimes drives AR(1)
  processes with regime-dependent targets, speeds and volatilities; the policy rate follows a
  lagged inflation/unemployment rule (cuts to the floor in recessions, hikes when inflation is
  high); Treasury yields load on the policy rate and inflation; Baa = 10Y + a regime-dependent
  credit spread; VIX spikes and P/E, P/S fall in recessions. Every constant lives in
  :class:`MacroGeneratorConfig` with the place its value came from (fitted on the paper path by
  :func:`fit_summary` and least squares, or chosen). It lets a preset replace the one fixed
  path, a known weakness of the original (reference-notes "Known weaknesses").

Regimes are hidden state (docs/principles.md principle 3): nothing the agent reads may expose
``MacroPath.regimes``. Month labels are anonymised as in the paper ("Jan 2xx0"; see
:meth:`MacroPath.label`).
"""

from __future__ import annotations

import csv
import functools
import io
import math
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

__all__ = [
    "BOUNDS",
    "DATA_TYPES",
    "DECIMALS",
    "GROUPS",
    "REGIMES",
    "SERIES",
    "MacroGeneratorConfig",
    "MacroPath",
    "RegimeAR1",
    "Tenor",
    "fit_summary",
    "generate_path",
    "keys_for",
    "paper_path",
]

#: Series key -> description with units (Table 3 / Table 6 indicators).
SERIES: dict[str, str] = {
    "gdp_growth": "Real GDP growth, % year over year",
    "cpi_inflation": "Consumer price inflation (CPI), % year over year",
    "unemployment": "Unemployment rate, % of the labour force",
    "fed_funds": "Effective federal funds rate, % per year",
    "sofr": "Secured overnight financing rate (SOFR), % per year",
    "treasury_2y": "2-year Treasury yield, % per year",
    "treasury_5y": "5-year Treasury yield, % per year",
    "treasury_10y": "10-year Treasury yield, % per year",
    "treasury_30y": "30-year Treasury yield, % per year",
    "baa_yield": "Baa corporate bond yield, % per year",
    "vix": "Equity volatility index (VIX), monthly average, index points",
    "pe_ratio": "Equity market price-to-earnings ratio (trailing), x",
    "ps_ratio": "Equity market price-to-sales ratio (revenue multiple), x",
    "industry_user_growth": "Consumer fintech/lending industry user growth, % per month",
    "industry_gross_margin": "Consumer fintech/lending industry gross margin, %",
    "industry_ebitda_margin": "Consumer fintech/lending industry EBITDA margin, %",
}

#: The paper's layers (Table 3, Table 6) -> series keys; also the group ``data_type`` values of the
#: market-data tool (each single key is a ``data_type`` too, see :data:`DATA_TYPES`).
GROUPS: dict[str, tuple[str, ...]] = {
    "economic": ("gdp_growth", "cpi_inflation", "unemployment"),
    "debt_market": (
        "fed_funds",
        "sofr",
        "treasury_2y",
        "treasury_5y",
        "treasury_10y",
        "treasury_30y",
        "baa_yield",
    ),
    "equity_market": ("vix", "pe_ratio", "ps_ratio"),
    "industry": ("industry_user_growth", "industry_gross_margin", "industry_ebitda_margin"),
}

#: Every accepted ``data_type``: the four groups, then each single series key.
DATA_TYPES: dict[str, tuple[str, ...]] = {**GROUPS, **{k: (k,) for k in SERIES}}

#: Decimals of the published figures (paper CSV); generated paths are rounded the same way.
DECIMALS: dict[str, int] = {
    "gdp_growth": 1,
    "cpi_inflation": 1,
    "unemployment": 1,
    "fed_funds": 2,
    "sofr": 2,
    "treasury_2y": 2,
    "treasury_5y": 2,
    "treasury_10y": 2,
    "treasury_30y": 2,
    "baa_yield": 2,
    "vix": 1,
    "pe_ratio": 1,
    "ps_ratio": 2,
    "industry_user_growth": 2,
    "industry_gross_margin": 1,
    "industry_ebitda_margin": 1,
}

#: Realistic range of every series (CHOSEN: a margin around the post-1980 US extremes, e.g.
#: unemployment 14.8 % in 2020, CPI 9.1 % in 2022, VIX monthly average 58-63 in 2008/2020).
#: The generator clips to these; tests check the paper path lies inside them.
BOUNDS: dict[str, tuple[float, float]] = {
    "gdp_growth": (-12.0, 14.0),
    "cpi_inflation": (-2.5, 12.0),
    "unemployment": (2.5, 16.0),
    "fed_funds": (0.0, 9.0),
    "sofr": (0.0, 9.0),
    "treasury_2y": (0.05, 9.0),
    "treasury_5y": (0.1, 9.5),
    "treasury_10y": (0.3, 10.0),
    "treasury_30y": (0.8, 10.5),
    "baa_yield": (2.5, 12.0),
    "vix": (9.0, 70.0),
    "pe_ratio": (10.0, 45.0),
    "ps_ratio": (0.8, 4.0),
    "industry_user_growth": (-4.0, 8.0),
    "industry_gross_margin": (25.0, 75.0),
    "industry_ebitda_margin": (-15.0, 40.0),
}

#: Regime codes of ``MacroPath.regimes`` (section 4.1: "expansion, neutral, and recession phases").
REGIMES: tuple[str, ...] = ("expansion", "neutral", "recession")
EXPANSION, NEUTRAL, RECESSION = 0, 1, 2

_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
#: Longest path (months): keeps labels at most "2xx99", which never reads like a real year.
MAX_MONTHS = 1200

#: Hidden regimes of the paper path (our reading of the period; first and last month inclusive).
#: Month 0 = Jan 2015. Neutral: the 2016 H1 growth/earnings slowdown, the 2019 H2 slowdown with
#: rate cuts, the 2020 H2 - 2021 Q1 early recovery, the 2022-23 hike cycle and bear market, the
#: 2025 tariff-shock slowdown. Recession: Mar-Jun 2020.
_PAPER_REGIMES: tuple[tuple[int, int, int], ...] = (
    (0, 11, EXPANSION),
    (12, 17, NEUTRAL),
    (18, 53, EXPANSION),
    (54, 61, NEUTRAL),
    (62, 65, RECESSION),
    (66, 74, NEUTRAL),
    (75, 86, EXPANSION),
    (87, 107, NEUTRAL),
    (108, 122, EXPANSION),
    (123, 131, NEUTRAL),
)


def keys_for(data_type: str) -> tuple[str, ...]:
    """Series keys of a ``data_type`` (a group of :data:`GROUPS` or one series key)."""
    try:
        return DATA_TYPES[data_type]
    except KeyError:
        raise ValueError(f"unknown data_type {data_type!r}; allowed: {', '.join(DATA_TYPES)}") from None


@dataclass(frozen=True, eq=False)
class MacroPath:
    """One realisation of the external series (Table 4 bottom), exogenous to the agent.

    ``series`` maps every :data:`SERIES` key to a read-only float64 array of length ``months``;
    ``regimes`` (int8 codes into :data:`REGIMES`) is hidden state that no agent-visible output
    may contain; ``source`` is ``"paper"`` or ``"generated:<seed or note>"``.
    """

    series: dict[str, np.ndarray]
    regimes: np.ndarray
    source: str

    def __post_init__(self) -> None:
        if set(self.series) != set(SERIES):
            missing = sorted(set(SERIES) - set(self.series))
            extra = sorted(set(self.series) - set(SERIES))
            raise ValueError(f"macro path series mismatch: missing {missing}, unexpected {extra}")
        regimes = np.array(self.regimes, dtype=np.int8)
        n = len(regimes)
        if not 1 <= n <= MAX_MONTHS:
            raise ValueError(f"a macro path has 1..{MAX_MONTHS} months, got {n}")
        if regimes.min() < 0 or regimes.max() >= len(REGIMES):
            raise ValueError(f"regime codes must be 0..{len(REGIMES) - 1}")
        series: dict[str, np.ndarray] = {}
        for key in SERIES:  # canonical key order
            arr = np.array(self.series[key], dtype=np.float64)
            if arr.shape != (n,):
                raise ValueError(f"series {key!r} has shape {arr.shape}; expected ({n},)")
            if not np.all(np.isfinite(arr)):
                raise ValueError(f"series {key!r} contains NaN or infinite values")
            arr.flags.writeable = False
            series[key] = arr
        regimes.flags.writeable = False
        object.__setattr__(self, "series", series)
        object.__setattr__(self, "regimes", regimes)

    @property
    def months(self) -> int:
        """Number of months in the path."""
        return len(self.regimes)

    def _check_month(self, month: int, name: str = "month") -> int:
        if isinstance(month, bool) or not isinstance(month, int | np.integer):
            raise ValueError(f"{name} must be an integer month index, got {month!r}")
        if not 0 <= month < self.months:
            raise ValueError(f"{name} {month} is out of range; allowed 0..{self.months - 1}")
        return int(month)

    def at(self, month: int) -> dict[str, float]:
        """Every series at ``month`` (0-based), as plain floats."""
        t = self._check_month(month)
        return {k: float(v[t]) for k, v in self.series.items()}

    def window(self, key: str, start: int, end: int) -> np.ndarray:
        """Values of ``key`` for months ``start``..``end`` inclusive (a copy)."""
        if key not in self.series:
            raise ValueError(f"unknown series {key!r}; allowed: {', '.join(SERIES)}")
        s = self._check_month(start, "start")
        e = self._check_month(end, "end")
        if s > e:
            raise ValueError(f"start {s} is after end {e}")
        return self.series[key][s : e + 1].copy()

    def label(self, month: int) -> str:
        """Anonymised date of ``month``, as in the paper's "Jan 2xx0" (section 3.4).

        Scheme: month-of-year name, then a four-character year: ``2``, the 0-based year index
        of the episode, and ``x`` filling the middle: months 0-11 are "Jan 2xx0".."Dec 2xx0",
        month 12 is "Jan 2xx1", month 131 (year 10) is "Dec 2x10". Every path starts in
        January, so the month names carry seasonality but the year never reveals the calendar
        (no label contains a real year such as 2015).
        """
        t = self._check_month(month)
        year = str(t // 12)
        return f"{_MONTHS[t % 12]} 2{year.rjust(3, 'x')}"


def _regimes_from_spans(spans: Sequence[tuple[int, int, int]], months: int) -> np.ndarray:
    out = np.full(months, -1, dtype=np.int8)
    for first, last, code in spans:
        out[first : last + 1] = code
    if (out < 0).any():
        raise ValueError("regime spans do not cover the path")
    return out


@functools.cache
def paper_path() -> MacroPath:
    """The fixed path of the paper (Table 4: Jan 2015 - Dec 2025, monthly, anonymised).

    Loaded once from the packaged ``data/macro_paper.csv`` (columns ``month`` then the
    :data:`SERIES` keys); sources and construction in ``data/PROVENANCE.md``.
    """
    text = resources.files("bizbench.envs.cfo").joinpath("data", "macro_paper.csv").read_text(encoding="utf-8")
    rows = list(csv.DictReader(io.StringIO(text)))
    months = [int(r["month"]) for r in rows]
    if months != list(range(len(rows))):
        raise ValueError("macro_paper.csv: the month column must run 0, 1, 2, ...")
    series = {k: np.array([float(r[k]) for r in rows]) for k in SERIES}
    return MacroPath(series, _regimes_from_spans(_PAPER_REGIMES, len(rows)), "paper")


# --------------------------------------------------------------------------------------------
# Generator configuration
# --------------------------------------------------------------------------------------------

Triple = tuple[float, float, float]


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


class RegimeAR1(_Frozen):
    """x_t = x_{t-1} + speed[r_t] (target[r_t] - x_{t-1}) + vol[r_t] eps_t (regime r; A.1.2).

    Indexed by regime (expansion, neutral, recession). For ``vix``, ``pe_ratio`` and
    ``ps_ratio`` the process runs on logs: ``target`` is in the series' units, ``vol`` in
    log points.
    """

    target: Triple
    speed: Triple
    vol: Triple

    @field_validator("speed")
    @classmethod
    def _speed(cls, v: Triple) -> Triple:
        if not all(0.0 < s <= 0.9 for s in v):
            raise ValueError("every speed must be in (0, 0.9]")
        return v

    @field_validator("vol")
    @classmethod
    def _vol(cls, v: Triple) -> Triple:
        if not all(s >= 0.0 for s in v):
            raise ValueError("every vol must be >= 0")
        return v


class Tenor(_Frozen):
    """Treasury yield = intercept + ff x fed_funds + cpi x CPI + offset[regime] + deviation.

    intercept/ff/cpi: least squares of the tenor's yield on fed funds and CPI over the paper
    path (rounded); offset: the mean residual per regime on the paper path (rounded);
    vol: the monthly innovation s.d. of the residual's AR(1) on the paper path.
    """

    intercept: float
    ff: float
    cpi: float
    offset: Triple
    vol: float = Field(ge=0.0)


def _ar(target: Triple, speed: Triple, vol: Triple) -> RegimeAR1:
    return RegimeAR1(target=target, speed=speed, vol=vol)


class MacroGeneratorConfig(_Frozen):
    """Every constant of :func:`generate_path` (A.1.2 "regime-dependent transition models").

    "fitted" means computed on the paper path (``fit_summary(paper_path())``, least squares or
    spell counts) and rounded; the AR(1) targets of short regimes are set beyond the fitted
    regime means so that the simulated regime means (which lag the target) land near them;
    "chosen" means a judgement where the paper path has too little data. ``tests/cfo/
    test_macro.py`` checks that many generated paths match the paper path's statistics.
    """

    # Regime chain (rows: from expansion, neutral, recession; columns: to the same order).
    # Fitted from the paper path's spells (expansion 4 exits in 74 months, neutral 4 exits in 52
    # of which 1 into recession, recession 1 exit in 4 months); the expansion -> recession entry
    # 0.005 is chosen (a sudden shock without a slowdown first; the paper path has none).
    transition: tuple[Triple, Triple, Triple] = (
        (0.945, 0.050, 0.005),
        (0.058, 0.923, 0.019),
        (0.000, 0.250, 0.750),
    )
    # Regime distribution at the start of the burn-in; None = the chain's stationary distribution
    # (chosen: so paths start in any regime, not always in the paper's expansion).
    initial: Triple | None = None
    # Months simulated and discarded before month 0, so that rates and inflation start from a
    # history consistent with the rule (chosen: two years, longer than the 12-month policy lag).
    burn_in_months: int = Field(default=24, ge=0, le=240)

    # Real economy. Paper regime means (expansion / neutral / recession): GDP 3.2 / 1.8 / -5.0 %,
    # unemployment 4.4 / 4.5 / 10.9 %, CPI 2.6 / 3.4 / 0.6 %. Targets fitted so the simulated
    # regime means land near them (the process lags its target: short recessions need a deeper
    # target, neutral months after a recession inherit its unemployment, so the neutral target
    # sits below the neutral mean); recession speeds chosen from the 2020 adjustment
    # (unemployment 3.5 -> 14.8 % in two months), others chosen from the paper's recoveries
    # (unemployment 14.8 -> 3.9 % in 20 months); vols fitted so the simulated s.d. of monthly
    # changes per regime come near the paper's (GDP 0.76 / 0.68 / 2.0, unemployment 0.14 / 0.32,
    # CPI 0.33 / 0.38 / 0.64). CPI reverts slowly (speeds 0.02-0.04, chosen) so that inflation
    # surges like 2021-22 happen and drive hike cycles.
    gdp_growth: RegimeAR1 = _ar((3.4, 2.2, -7.0), (0.15, 0.15, 0.40), (0.5, 0.5, 1.40))
    unemployment: RegimeAR1 = _ar((4.0, 4.2, 12.0), (0.08, 0.12, 0.55), (0.10, 0.20, 1.20))
    cpi_inflation: RegimeAR1 = _ar((2.2, 3.8, 0.5), (0.02, 0.04, 0.30), (0.30, 0.35, 0.40))

    # Equity sentiment: log VIX AR(1). Targets fitted so the simulated regime means match the
    # paper's (15.9 / 20.0 / 40.2; jumps lift the calm regimes' means above their targets);
    # speeds fitted (log-VIX autocorrelation 0.79 -> 0.25; recession chosen 0.7: Mar 2020 jumped
    # x4 in one month). Jumps: the paper has 7 monthly rises of 35 % or more outside the
    # recession in 128 months (Aug 2015, Feb 2018, Oct 2018, Aug 2019, Feb 2020, Aug 2024, Apr
    # 2025), median log rise 0.34; part of each is ordinary noise, so prob 0.04 and size 0.35
    # (chosen); vol 0.14 plus the jumps gives the fitted 0.17 log points per month.
    vix: RegimeAR1 = _ar((14.0, 18.0, 42.0), (0.25, 0.25, 0.70), (0.14, 0.14, 0.20))
    vix_jump_prob: float = Field(default=0.04, ge=0.0, le=1.0)
    vix_jump_log: float = Field(default=0.35, ge=0.0)

    # Policy rate (fed funds): target = intercept + inflation x CPI[t-lag] + unemployment x U[t-lag],
    # least squares on the paper path with the lag that fits best of 0, 3, 6, 9, 12 months
    # (12: coefficients 1.71, 0.554, -0.239); in a recession the target is the floor (the 2020
    # cut to zero). Partial adjustment per month (chosen): a quarter of the gap when hiking, 60 %
    # when cutting (the Mar-Apr 2020 cut to the floor took two months); caps chosen at or above
    # the paper's largest monthly moves (+0.70 in Nov 2022, -0.93 in Mar 2020).
    policy_intercept: float = 1.7
    policy_inflation: float = 0.55
    policy_unemployment: float = -0.24
    policy_lag_months: int = Field(default=12, ge=0, le=24)
    # A persistent policy stance (forward guidance, "lower for longer", "higher for longer") is
    # added to the rule's target: AR(1) toward 0 with the rule residual's persistence on the
    # paper path (autocorrelation 0.95 -> speed 0.05); vol chosen 0.3 (the residual's fitted
    # innovation s.d. is 0.39 but includes the steps of the target itself), giving a stance
    # s.d. near 1 point, as the residual's 1.2.
    policy_stance_speed: float = Field(default=0.05, gt=0.0, le=0.9)
    policy_stance_vol: float = Field(default=0.3, ge=0.0)
    policy_floor: float = Field(default=0.08, ge=0.0)  # fitted: fed funds at the 2020-21 floor
    policy_cap: float = 8.0  # chosen: the top of the 1990-2025 range plus a margin
    hike_speed: float = Field(default=0.25, gt=0.0, le=1.0)
    cut_speed: float = Field(default=0.6, gt=0.0, le=1.0)
    max_hike: float = Field(default=0.75, ge=0.0)
    max_cut: float = Field(default=1.5, ge=0.0)

    # SOFR = fed funds + spread + noise (fitted: SOFR - EFFR on Apr 2018 - Dec 2025 has mean
    # 0.00 and s.d. 0.05 percentage points).
    sofr_spread: float = 0.0
    sofr_noise: float = Field(default=0.04, ge=0.0)

    # Treasury curve (see Tenor). Residual AR(1) speed fitted: residual autocorrelation 0.89-0.93
    # -> speed 0.1; share of the curve shock common to all tenors chosen 0.8 (the paper's
    # monthly yield changes move together across tenors).
    treasury_2y: Tenor = Tenor(intercept=0.27, ff=0.76, cpi=0.13, offset=(0.04, -0.04, -0.25), vol=0.13)
    treasury_5y: Tenor = Tenor(intercept=0.89, ff=0.60, cpi=0.10, offset=(0.14, -0.14, -0.66), vol=0.14)
    treasury_10y: Tenor = Tenor(intercept=1.47, ff=0.52, cpi=0.05, offset=(0.15, -0.15, -0.87), vol=0.14)
    treasury_30y: Tenor = Tenor(intercept=2.22, ff=0.44, cpi=0.0, offset=(0.12, -0.10, -0.90), vol=0.13)
    curve_speed: float = Field(default=0.1, gt=0.0, le=0.9)
    curve_common_share: float = Field(default=0.8, ge=0.0, le=1.0)
    # The regime offsets phase in and out at this monthly speed (chosen: the 10Y fell over two
    # months in Feb-Apr 2020, not in one step).
    curve_offset_speed: float = Field(default=0.5, gt=0.0, le=0.9)

    # Credit: Baa = 10Y + spread; spread AR(1) targets fitted to the paper's regime means
    # (2.08 / 2.21 / 3.27 percentage points), recession target set higher for the short spells;
    # speed 0.05 fitted (autocorrelation 0.95), vols fitted so that Baa's simulated monthly
    # changes (10Y moves plus spread moves) come near the paper's 0.16 / 0.25 / 0.39.
    credit_spread: RegimeAR1 = _ar((2.05, 2.25, 3.6), (0.05, 0.05, 0.5), (0.10, 0.12, 0.25))

    # Valuation multiples: log AR(1) minus vix_beta x (log VIX - log expansion VIX target), so a
    # VIX spike cuts the multiple at once. Targets fitted so the simulated means match the
    # paper's (P/E 24.7, P/S 2.40 overall); vix_beta fitted on the Feb -> Mar 2020 shock month
    # (log VIX +1.08, log P/E -0.18, log P/S -0.23: betas 0.17 and 0.21); speeds chosen slow (0.01) so that
    # valuations drift for years as the paper's P/S did (1.8 -> 3.25); vols fitted so the
    # simulated monthly changes come near the paper's (P/E 0.6, P/S 0.05-0.07). Not modelled:
    # the paper's 2020-21 trailing-P/E spike to 37 (an earnings collapse, not a price rise).
    pe_ratio: RegimeAR1 = _ar((22.5, 26.0, 30.0), (0.01, 0.01, 0.15), (0.006, 0.008, 0.04))
    pe_vix_beta: float = Field(default=0.17, ge=0.0)
    ps_ratio: RegimeAR1 = _ar((2.25, 2.5, 2.8), (0.01, 0.01, 0.15), (0.006, 0.008, 0.04))
    ps_vix_beta: float = Field(default=0.21, ge=0.0)

    # Industry benchmarks (consumer fintech/lending): targets fitted so the simulated regime
    # means come near the constructed paper series' (user growth 2.1 / 1.4 / -0.4 % per month,
    # gross margin 54.6 / 51.7 / 45.9 %, EBITDA margin 15.7 / 12.7 / 4.4 %); speeds chosen (a
    # 10-month half-gap outside recessions, as the paper's 2021 recovery); vols fitted to the
    # paper series' s.d. of monthly changes (they are smooth by construction).
    industry_user_growth: RegimeAR1 = _ar((2.3, 1.5, -0.8), (0.1, 0.1, 0.5), (0.08, 0.12, 0.40))
    industry_gross_margin: RegimeAR1 = _ar((55.5, 52.0, 42.0), (0.1, 0.1, 0.4), (0.3, 0.45, 1.2))
    industry_ebitda_margin: RegimeAR1 = _ar((16.5, 13.0, 1.0), (0.1, 0.1, 0.4), (0.4, 0.65, 1.8))

    # Clip ranges (see BOUNDS).
    bounds: dict[str, tuple[float, float]] = Field(default_factory=lambda: dict(BOUNDS))
    # Series that approach their lower limit smoothly instead of piling up at a hard clip:
    # key -> (floor, softness); x -> floor + softness x log(1 + exp((x - floor) / softness)).
    # Chosen: rates near the zero lower bound (the paper's 2020-21 2Y of 0.11-0.25 %, SOFR of
    # 0.01-0.05 %), and the VIX, whose monthly average has not gone below about 9.5 since 1990.
    soft_floors: dict[str, tuple[float, float]] = Field(
        default_factory=lambda: {
            "sofr": (0.01, 0.03),
            "treasury_2y": (0.05, 0.1),
            "treasury_5y": (0.1, 0.15),
            "treasury_10y": (0.3, 0.2),
            "treasury_30y": (0.8, 0.2),
            "baa_yield": (2.5, 0.3),
            "vix": (9.5, 1.5),
        }
    )

    @field_validator("transition")
    @classmethod
    def _rows_sum_to_one(cls, v: tuple[Triple, Triple, Triple]) -> tuple[Triple, Triple, Triple]:
        for i, row in enumerate(v):
            if min(row) < 0.0 or abs(sum(row) - 1.0) > 1e-9:
                raise ValueError(f"transition row {i} ({REGIMES[i]}) must be >= 0 and sum to 1, got {row}")
        return v

    @field_validator("initial")
    @classmethod
    def _initial(cls, v: Triple | None) -> Triple | None:
        if v is not None and (min(v) < 0.0 or abs(sum(v) - 1.0) > 1e-9):
            raise ValueError(f"initial must be >= 0 and sum to 1, got {v}")
        return v

    @model_validator(mode="after")
    def _bounds(self) -> MacroGeneratorConfig:
        if set(self.bounds) != set(SERIES):
            raise ValueError(f"bounds must name exactly the series {sorted(SERIES)}")
        for k, (lo, hi) in self.bounds.items():
            if not lo < hi:
                raise ValueError(f"bounds[{k!r}] must have low < high, got ({lo}, {hi})")
        for k in ("vix", "pe_ratio", "ps_ratio"):
            if min(getattr(self, k).target) <= 0:
                raise ValueError(f"{k} runs on logs; its targets must be > 0")
        for k, (_, softness) in self.soft_floors.items():
            if k not in SERIES:
                raise ValueError(f"soft_floors names an unknown series {k!r}")
            if not softness > 0:
                raise ValueError(f"soft_floors[{k!r}] needs a softness > 0, got {softness}")
        return self

    def stationary(self) -> np.ndarray:
        """Stationary distribution of the regime chain."""
        p = np.asarray(self.transition, dtype=np.float64)
        a = np.vstack([p.T - np.eye(3), np.ones(3)])
        b = np.array([0.0, 0.0, 0.0, 1.0])
        pi = np.linalg.lstsq(a, b, rcond=None)[0]
        pi = np.clip(pi, 0.0, None)
        return pi / pi.sum()


# --------------------------------------------------------------------------------------------
# Generator
# --------------------------------------------------------------------------------------------

_BLOCK = 96  # months per closed-form block of the AR(1) recursion (keeps products far from underflow)


def _ar1(x0: np.ndarray | float, speed: np.ndarray, target: np.ndarray, shock: np.ndarray) -> np.ndarray:
    """x_0 = x0; x_t = (1 - k_t) x_{t-1} + k_t m_t + e_t, vectorised over time (and columns).

    Closed form per block: x_t = A_t (x_s + sum_{j<=t} b_j / A_j), A_t = prod_{i<=t} (1 - k_i),
    b_j = k_j m_j + e_j. Speeds are at most 0.9, so A stays above 0.1^96 within a block.
    """
    n = speed.shape[0]
    x = np.empty(np.broadcast_shapes(speed.shape, target.shape, shock.shape), dtype=np.float64)
    x[0] = x0
    a = 1.0 - speed
    b = speed * target + shock
    s = 1
    while s < n:
        e = min(s + _BLOCK, n)
        cum = np.cumprod(a[s:e], axis=0)
        x[s:e] = cum * (x[s - 1] + np.cumsum(b[s:e] / cum, axis=0))
        s = e
    return x


def _regime_chain(u: np.ndarray, start: int, p: np.ndarray) -> np.ndarray:
    cum = np.cumsum(p, axis=1).tolist()
    out = [start]
    r = start
    for x in u[1:].tolist():
        row = cum[r]
        r = 0 if x < row[0] else (1 if x < row[1] else 2)
        out.append(r)
    return np.array(out, dtype=np.int8)


def _policy_rate(
    cfg: MacroGeneratorConfig, r: np.ndarray, cpi: np.ndarray, unemp: np.ndarray, z: np.ndarray
) -> np.ndarray:
    lag = cfg.policy_lag_months
    n = len(r)
    idx = np.maximum(np.arange(n) - lag, 0)
    stance = _ar1(0.0, np.full(n, cfg.policy_stance_speed), np.zeros(n), cfg.policy_stance_vol * z)
    target = cfg.policy_intercept + cfg.policy_inflation * cpi[idx] + cfg.policy_unemployment * unemp[idx] + stance
    target = np.clip(target, cfg.policy_floor, cfg.policy_cap)
    target[r == RECESSION] = cfg.policy_floor
    tl = target.tolist()
    ff = [tl[0]]
    cur = tl[0]
    hs, cs, mh, mc = cfg.hike_speed, cfg.cut_speed, cfg.max_hike, cfg.max_cut
    for tg in tl[1:]:
        gap = tg - cur
        cur += min(gap * hs, mh) if gap > 0 else max(gap * cs, -mc)
        ff.append(cur)
    return np.array(ff)


# Columns of the standard-normal draw matrix (fixed layout: adding a series must append, so
# old seeds keep their paths).
_Z = {
    name: i
    for i, name in enumerate(
        (
            "gdp_growth",
            "unemployment",
            "cpi_inflation",
            "vix",
            "sofr",
            "curve_common",
            "treasury_2y",
            "treasury_5y",
            "treasury_10y",
            "treasury_30y",
            "credit_spread",
            "pe_ratio",
            "ps_ratio",
            "industry_user_growth",
            "industry_gross_margin",
            "industry_ebitda_margin",
            "policy_stance",
        )
    )
}
_TENORS = ("treasury_2y", "treasury_5y", "treasury_10y", "treasury_30y")
# The RegimeAR1 processes, simulated together; vix, pe_ratio and ps_ratio run on logs.
_AR = (
    "gdp_growth",
    "unemployment",
    "cpi_inflation",
    "industry_user_growth",
    "industry_gross_margin",
    "industry_ebitda_margin",
    "vix",
    "pe_ratio",
    "ps_ratio",
    "credit_spread",
)
_AR_LOG = [_AR.index(k) for k in ("vix", "pe_ratio", "ps_ratio")]


def generate_path(rng: np.random.Generator, cfg: MacroGeneratorConfig | None = None, months: int = 132) -> MacroPath:
    """A seeded regime-switching macro path (A.1.2 "regime-dependent transition models").

    Draws, in a fixed order, the initial regime, the chain's uniforms, one normal per series
    channel and month and the VIX jump uniforms; simulates ``cfg.burn_in_months`` extra months
    and drops them. Same generator state -> same path. ``source`` is ``"generated:<seed>"``
    (the entropy of the generator's SeedSequence, plus ``/<spawn key>`` for a named stream);
    like the regimes it is hidden state, never shown to an agent.
    """
    cfg = cfg if cfg is not None else MacroGeneratorConfig()
    if isinstance(months, bool) or not isinstance(months, int) or not 1 <= months <= MAX_MONTHS:
        raise ValueError(f"months must be an integer in 1..{MAX_MONTHS}, got {months!r}")
    n = cfg.burn_in_months + months
    p0 = np.asarray(cfg.initial if cfg.initial is not None else cfg.stationary(), dtype=np.float64)
    start = int(rng.choice(3, p=p0 / p0.sum()))
    u_chain = rng.random(n)
    z = rng.standard_normal((n, len(_Z)))
    u_jump = rng.random(n)

    r = _regime_chain(u_chain, start, np.asarray(cfg.transition, dtype=np.float64))
    # All regime AR(1) processes in one vectorised pass (columns in _AR order).
    procs = [getattr(cfg, k) for k in _AR]
    target = np.array([p.target for p in procs]).T  # (3 regimes, len(_AR))
    target[:, _AR_LOG] = np.log(target[:, _AR_LOG])
    speed = np.array([p.speed for p in procs]).T
    vol = np.array([p.vol for p in procs]).T
    shocks = vol[r] * z[:, [_Z[k] for k in _AR]]
    # VIX spikes: upward jumps of vix_jump_log log points in any regime.
    shocks[:, _AR.index("vix")] += (u_jump < cfg.vix_jump_prob) * cfg.vix_jump_log
    tg = target[r]
    ar = _ar1(tg[0], speed[r], tg, shocks)
    out: dict[str, np.ndarray] = {k: ar[:, j] for j, k in enumerate(_AR)}

    # VIX on logs; the multiples fall when the VIX rises above its calm (expansion) level.
    log_vix = out["vix"]
    out["vix"] = np.exp(log_vix)
    excess = log_vix - math.log(cfg.vix.target[EXPANSION])
    out["pe_ratio"] = np.exp(out["pe_ratio"] - cfg.pe_vix_beta * excess)
    out["ps_ratio"] = np.exp(out["ps_ratio"] - cfg.ps_vix_beta * excess)

    # Rates.
    cpi_c = np.clip(out["cpi_inflation"], *cfg.bounds["cpi_inflation"])
    un_c = np.clip(out["unemployment"], *cfg.bounds["unemployment"])
    ff = _policy_rate(cfg, r, cpi_c, un_c, z[:, _Z["policy_stance"]])
    out["fed_funds"] = ff
    out["sofr"] = ff + cfg.sofr_spread + cfg.sofr_noise * z[:, _Z["sofr"]]
    tenors = [getattr(cfg, t) for t in _TENORS]
    w = cfg.curve_common_share
    shocks = np.sqrt(w) * z[:, [_Z["curve_common"]]] + np.sqrt(1.0 - w) * z[:, [_Z[t] for t in _TENORS]]
    shocks *= np.array([t.vol for t in tenors])
    dev = _ar1(np.zeros(4), np.full((n, 1), cfg.curve_speed), np.zeros((n, 1)), shocks)
    offsets = np.array([t.offset for t in tenors]).T[r]  # (n, 4): each tenor's offset in each month's regime
    offsets = _ar1(offsets[0], np.full((n, 1), cfg.curve_offset_speed), offsets, np.zeros((n, 1)))
    for j, (key, t) in enumerate(zip(_TENORS, tenors, strict=True)):
        out[key] = t.intercept + t.ff * ff + t.cpi * cpi_c + offsets[:, j] + dev[:, j]
    out["baa_yield"] = np.clip(out["treasury_10y"], *cfg.bounds["treasury_10y"]) + out.pop("credit_spread")

    for k, (floor, softness) in cfg.soft_floors.items():
        out[k] = floor + softness * np.logaddexp(0.0, (out[k] - floor) / softness)
    keep = slice(cfg.burn_in_months, n)
    series = {k: np.round(np.clip(out[k][keep], *cfg.bounds[k]), DECIMALS[k]) for k in SERIES}
    return MacroPath(series, r[keep], f"generated:{_seed_tag(rng)}")


def _seed_tag(rng: np.random.Generator) -> str:
    ss = getattr(rng.bit_generator, "seed_seq", None)
    entropy = getattr(ss, "entropy", None)
    if entropy is None:
        return "unknown"
    spawn = getattr(ss, "spawn_key", ())
    return f"{entropy}" + (f"/{'.'.join(str(k) for k in spawn)}" if spawn else "")


# --------------------------------------------------------------------------------------------
# Statistics
# --------------------------------------------------------------------------------------------


def fit_summary(paths: MacroPath | Sequence[MacroPath] | None = None) -> dict[str, dict[str, dict[str, float]]]:
    """Per-series, per-regime statistics of one path (default: the paper path) or a pool of paths.

    Returns ``{key: {scope: {"mean", "sd", "vol", "months"}}}`` with scope ``"all"`` or a
    regime name: ``mean`` and ``sd`` of the levels in that scope, ``vol`` the s.d. of the
    month-on-month changes *into* months of that scope (changes never cross two paths), and
    ``months`` the number of months. Scopes with no months have NaN statistics. The generator
    defaults were read off ``fit_summary()``; tests compare it with a pool of generated paths.
    """
    if paths is None:
        pool: Sequence[MacroPath] = (paper_path(),)
    elif isinstance(paths, MacroPath):
        pool = (paths,)
    else:
        pool = paths
    regimes = np.concatenate([p.regimes for p in pool])
    # changes into month t (t >= 1) of each path, with the regime of month t
    d_regimes = np.concatenate([p.regimes[1:] for p in pool])
    summary: dict[str, dict[str, dict[str, float]]] = {}
    for key in SERIES:
        levels = np.concatenate([p.series[key] for p in pool])
        changes = np.concatenate([np.diff(p.series[key]) for p in pool])
        scopes: dict[str, dict[str, float]] = {}
        for name, mask, dmask in [("all", slice(None), slice(None))] + [
            (REGIMES[i], regimes == i, d_regimes == i) for i in range(len(REGIMES))
        ]:
            lv = levels[mask]
            ch = changes[dmask]
            scopes[name] = {
                "mean": float(lv.mean()) if lv.size else math.nan,
                "sd": float(lv.std()) if lv.size else math.nan,
                "vol": float(ch.std()) if ch.size else math.nan,
                "months": float(lv.size),
            }
        summary[key] = scopes
    return summary

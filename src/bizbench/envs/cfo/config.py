"""Typed configuration of the EnterpriseArena (cfo) world.

Every constant lives in a preset TOML file (``presets/*.toml``) validated by these pydantic
models (docs/principles.md principle 5). Sources: the EnterpriseArena paper (section 3, 4.1,
Appendix A.1 Tables 3-5, Appendix E) and docs/reference-notes.md (EnterpriseArena part). The paper
fixes the company's opening position, the indicator noise (Table 4), the fundraising rules
(Table 5), the tool budget and the score (eq 2); the lending book's cash-flow model is ours
and every value of it is marked CHOSEN in the preset with its reason (docs/cfo-model.md).

Money in presets is in whole dollars; the world converts to integer cents once.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer, model_validator

from bizbench.envs.cfo.world.macro import MacroGeneratorConfig

__all__ = ["CfoConfig", "load_config"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


class Company(_Strict):
    """The enterprise at t = 0 (section 4.1 "Environment configuration")."""

    name: str = "Company XYZ"
    start_cash_dollars: int = Field(default=15_000_000, ge=0)
    borrowers: int = Field(default=5_000, ge=1)
    average_loan_dollars: int = Field(default=10_000, ge=1)
    shares_outstanding: int = Field(default=10_500_000, ge=1)
    share_price_dollars: float = Field(default=10.0, gt=0)
    #: Paid-in capital of the opening balance sheet; retained earnings close the opening equation.
    paid_in_capital_dollars: int = Field(default=80_000_000, ge=0)


class Noisy(_Strict):
    """One operational indicator of Table 4: ``x' = x + e``, ``e ~ N(0, sigma^2)``, clipped."""

    start: float
    sigma: float = Field(ge=0)
    low: float
    high: float
    #: ``random_walk``: x' = x + e (margins, user growth); ``around_start``: x' = x0 + e (collection rate).
    process: Literal["random_walk", "around_start"] = "random_walk"

    @model_validator(mode="after")
    def _check(self) -> Noisy:
        if not self.low <= self.start <= self.high:
            raise ValueError(f"start {self.start} must lie in [{self.low}, {self.high}]")
        return self


class Indicators(_Strict):
    """The four noisy operational indicators (Table 4, "Enterprise Operational Dynamics")."""

    gross_margin_pct: Noisy
    ebitda_margin_pct: Noisy
    #: The company's own growth deviation from the industry, annualised (% a year).
    user_growth_pct: Noisy
    collection_rate: Noisy


class Lending(_Strict):
    """The lending book (ours: the paper does not give the cash-flow model; docs/cfo-model.md)."""

    loan_term_months: int = Field(default=12, ge=1, le=120)
    #: Borrowers' APR = lending_spread_pct + the macro fed funds rate (consumer credit tracks prime).
    lending_spread_pct: float = Field(default=10.0, ge=0, le=100)
    origination_fee_pct: float = Field(default=2.0, ge=0, le=100)
    #: Weight of the industry's user growth in the company's user growth.
    industry_growth_weight: float = Field(default=0.2, ge=0)
    user_growth_floor_pct: float = -10.0
    user_growth_cap_pct: float = 15.0


class Surges(_Strict):
    """Hidden growth surges that drain cash through new loans (reference "Reported behaviour")."""

    #: ``windows``: one surge starting uniformly inside each [first, last] month window;
    #: ``renewal``: surges at random gaps (the random-macro preset).
    schedule: Literal["windows", "renewal"] = "windows"
    windows: tuple[tuple[int, int], ...] = ((23, 36), (50, 62), (100, 115))
    renewal_gap_months: tuple[int, int] = (18, 40)
    duration_months: tuple[int, int] = (3, 8)
    extra_growth_pct: tuple[float, float] = (1.5, 3.5)

    @model_validator(mode="after")
    def _check(self) -> Surges:
        for lo, hi in (*self.windows, self.renewal_gap_months, self.duration_months):
            if not 0 <= lo <= hi:
                raise ValueError(f"need 0 <= low <= high, got ({lo}, {hi})")
        if not 0 <= self.extra_growth_pct[0] <= self.extra_growth_pct[1]:
            raise ValueError("extra_growth_pct must be (low, high) with 0 <= low <= high")
        return self


class Equity(_Strict):
    """Equity raises (Table 5; A.1.3): p = p_macro(VIX) x 0.75^n x size factor."""

    #: p_macro = clip(vix_intercept - vix_slope x VIX, p_min, p_max) (CHOSEN mapping of "VIX-driven").
    vix_intercept: float = 1.07
    vix_slope: float = Field(default=0.019, ge=0)
    p_min: float = Field(default=0.05, ge=0, le=1)
    p_max: float = Field(default=0.9, ge=0, le=1)
    round_decay: float = Field(default=0.75, gt=0, le=1)
    #: Size factor (the paper: "approval ... depend[s] on ... firm-specific characteristics"):
    #: 1 up to size_free x enterprise value, falling linearly to 0 at size_zero x enterprise value.
    size_free: float = Field(default=0.25, ge=0)
    size_zero: float = Field(default=0.6, gt=0)
    #: CHOSEN (hardened): investors' diligence needs books closed within this many months (0 = off).
    diligence_months: int = Field(default=0, ge=0)
    diligence_penalty: float = Field(default=0.5, ge=0, le=1)
    #: New shares are priced at ``market`` value (EV + cash - debt) or at the ``score``'s own value
    #: (eq 2 with net cash), which makes a raise neutral for a per-share score.
    share_pricing: Literal["market", "score"] = "market"
    #: With ``share_pricing = "score"``: price year 1's shares on the trailing revenue annualised
    #: (x 12 / months run; before month 1 the opening plan's month x 12) instead of eq 2's
    #: partial Rev_TTM. The default, False, is how every config recorded before the field
    #: existed was priced, so such a run replays as it ran (``bizbench replay``); hardened sets it.
    annualise_year_one: bool = False

    @model_serializer(mode="wrap")
    def _dump(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """``annualise_year_one`` is dumped only when set: a config without it is the world
        configs had before the field existed, so their dump, preset_hash and the config a run
        recorded stay as they were (an old paper run still replays with no config change)."""
        data: dict[str, Any] = handler(self)
        if not self.annualise_year_one:
            data.pop("annualise_year_one", None)
        return data

    @model_validator(mode="after")
    def _check(self) -> Equity:
        if self.size_zero <= self.size_free:
            raise ValueError("size_zero must exceed size_free")
        if self.p_min > self.p_max:
            raise ValueError("p_min must not exceed p_max")
        return self


class Debt(_Strict):
    """Debt raises (Table 5; eq 3): p = p_macro(SOFR) x max(0, 1 - 1.5 max(0, L - 0.5))."""

    #: p_macro = clip(sofr_intercept - sofr_slope x SOFR%, p_min, p_max) (CHOSEN mapping of "SOFR-driven").
    sofr_intercept: float = 0.95
    sofr_slope: float = Field(default=0.05, ge=0)
    p_min: float = Field(default=0.05, ge=0, le=1)
    p_max: float = Field(default=0.95, ge=0, le=1)
    leverage_free: float = Field(default=0.5, ge=0)  # eq 3
    leverage_slope: float = Field(default=1.5, ge=0)  # eq 3
    spread_bps_per_leverage: float = Field(default=500.0, ge=0)  # Table 5 "500 bps x (L - 0.5)+"
    maturity_months: int = Field(default=36, ge=1)  # CHOSEN: bullet repayment after three years


class Fundraising(_Strict):
    """What every attempt shares (Table 5: fill rate, settlement delay)."""

    fill_low: float = Field(default=0.7, ge=0, le=1)
    fill_high: float = Field(default=1.0, ge=0, le=1)
    delay_min_months: int = Field(default=1, ge=0)
    delay_max_months: int = Field(default=6, ge=0)
    min_request_dollars: int = Field(default=100_000, ge=1)
    max_request_dollars: int = Field(default=10_000_000_000, ge=1)
    equity: Equity = Equity()
    debt: Debt = Debt()

    @model_validator(mode="after")
    def _check(self) -> Fundraising:
        if self.fill_low > self.fill_high or self.delay_min_months > self.delay_max_months:
            raise ValueError("fill and delay ranges must be (low, high) with low <= high")
        return self


class Agent(_Strict):
    """The agent's budget and memory (section 3.2 "Tool budget"; Appendix E)."""

    tool_budget: int = Field(default=20, ge=0)
    notes_shown: int = Field(default=5, ge=0)
    #: None = unbounded (the paper); the hardened preset caps notes.
    max_notes: int | None = Field(default=None, ge=1)
    max_note_chars: int | None = Field(default=None, ge=1)
    recall_limit_max: int = Field(default=50, ge=1)
    #: Statements older than this (in months) are labelled stale in the document list.
    stale_after_months: int = Field(default=1, ge=0)


class Score(_Strict):
    """Eq 2: Score_T = Rev_TTM x m + Cash_T - lambda x N_tools; 0 if cash < 0 at any month."""

    revenue_multiple: float = 5.0
    tool_penalty_dollars: int = 5_000
    #: ``paper``: eq 2. ``per_share``: eq 2 x (opening shares / final shares), so dilution counts.
    basis: Literal["paper", "per_share"] = "paper"
    #: ``gross``: eq 2's Cash_T. ``net``: cash less debt still owed, so late borrowing does not pay.
    cash: Literal["gross", "net"] = "gross"


class Macro(_Strict):
    """External series (Table 4 bottom): the paper path or a seeded regime-switching path."""

    source: Literal["paper", "generated"] = "paper"
    generator: MacroGeneratorConfig = MacroGeneratorConfig()


class CfoConfig(_Strict):
    description: str = ""
    months: int = Field(default=132, ge=1, le=132)
    company: Company = Company()
    indicators: Indicators
    lending: Lending = Lending()
    surges: Surges = Surges()
    fundraising: Fundraising = Fundraising()
    agent: Agent = Agent()
    score: Score = Score()
    macro: Macro = Macro()


def load_config(preset: str = "paper") -> tuple[CfoConfig, str]:
    """Load a named preset of the cfo env; returns (config, preset_hash)."""
    from bizbench.core.presets import load_preset

    config, digest = load_preset("bizbench.envs.cfo", preset, CfoConfig)
    assert isinstance(config, CfoConfig)
    return config, digest

"""Rule-based CFOs for the calibration ladder (issue 5; docs/calibration.md).

Each baseline acts only through :meth:`CfoEnv.call` and reads only the month's observation
and tool results, exactly what an LLM agent sees; budgeted tool calls are paid for in the
score like anyone's.

- ``always-pass``: never acts (GPT-5.4's disengagement in the paper, section 4.3).
- ``one-raise``: $20M equity at month 0, then passes (the reference's scripted run).
- ``greedy-equity`` / ``greedy-debt``: $20M of equity (debt) whenever nothing is pending.
- ``prudent-cfo``: closes the books most months, reads the statements every few months,
  estimates its runway from the cash burned since the last reading, and raises ahead of it:
  debt while leverage is low, equity sized to a quarter of its estimated valuation.
- ``late-leverage``: an audit policy, not a CFO (issue 14): equity of about a quarter of the
  valuation whenever nothing is pending, and from month 100 debt up to eq 3's free leverage
  of 0.5, whose 36-month bullets fall due after the horizon. It shows what the paper's score
  (eq 2, cash counted gross) rewards; docs/calibration.md compares it with prudent-cfo.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bizbench.core.env import Baseline
from bizbench.envs.cfo.env import CfoEnv

__all__ = ["BASELINES", "TABLE", "make_policy", "run_policy"]

Policy = Callable[[CfoEnv, dict[str, Any]], None]
RAISE = 20_000_000


def _act(env: CfoEnv, name: str, **args: Any) -> dict[str, Any]:
    r = env.call(name, **args)
    if not r.ok:
        raise RuntimeError(f"baseline call {name}({args}) failed: {r.error}")
    return dict(r.data)


def always_pass(env: CfoEnv, obs: dict[str, Any]) -> None:
    _act(env, "pass")


def one_raise(env: CfoEnv, obs: dict[str, Any]) -> None:
    if obs["current_month"] == 0:
        _act(env, "fund_raising_request", type="equity", amount=RAISE)
    else:
        _act(env, "pass")


def _greedy(kind: str) -> Policy:
    def policy(env: CfoEnv, obs: dict[str, Any]) -> None:
        if obs["pending_request"] is None:
            _act(env, "fund_raising_request", type=kind, amount=RAISE)
        else:
            _act(env, "pass")

    return policy


@dataclass
class PrudentCfo:
    """Closes books, reads them every ``read_every`` months, raises ahead of its needs.

    It needs ``runway_months`` of the monthly burn measured between readings, at least
    ``floor``, plus every debt principal falling due within ``maturity_horizon`` months (it
    remembers its own loans from the settlement notices). Below that it raises: debt while
    book leverage after the loan stays under ``max_leverage``, otherwise equity of
    ``equity_share`` of the enterprise value it estimates: the opening $90M ($105M of shares
    less $15M of cash) scaled by its revenue growth since the first statements it read. The
    high floor makes it build a buffer early, as the paper's human experts did (section 4.2,
    RQ3).
    """

    read_every: int = 1
    runway_months: float = 30.0
    floor: float = 80_000_000.0
    maturity_horizon: int = 12
    max_leverage: float = 0.3
    leverage_after_failure: float = 0.5  # after a failed equity round, borrow up to eq 3's free leverage
    debt_ask: float = 25_000_000.0
    equity_share: float = 0.35
    _last: tuple[int, float] | None = field(default=None, repr=False)
    _burn: float = field(default=0.0, repr=False)
    _cash: float | None = field(default=None, repr=False)
    _lev: tuple[float, float] = field(default=(0.0, 1.0), repr=False)  # (debt, equity)
    _revenue: tuple[float, float] | None = field(default=None, repr=False)  # (first, latest) monthly revenue
    _closed: int = field(default=-1, repr=False)
    _last_failed: str | None = field(default=None, repr=False)
    _loans: list[tuple[int, float]] = field(default_factory=list, repr=False)  # (maturity month, principal)

    def __call__(self, env: CfoEnv, obs: dict[str, Any]) -> None:
        t = obs["current_month"]
        for e in obs["events"]:
            if e["kind"] == "fundraising_result":
                self._last_failed = None if e["success"] else e["type"]
            if e["kind"] == "fundraising_result" and e["success"]:
                self._cash = None  # re-read after money arrives
                if e["type"] == "debt":
                    self._loans.append((e["maturity_month"], e["received"]))
        if (t % self.read_every == 0 or self._cash is None) and self._closed >= 0:
            self._read(env, self._closed)
        if obs["pending_request"] is None and self._needs_cash(t):
            self._raise(env, t)
        else:
            _act(env, "book_closing")
            self._closed = t - 1  # the statements cover the months before this one

    def _read(self, env: CfoEnv, t: int) -> None:
        """Read the statements as of the end of month ``t`` (once)."""
        if self._last is not None and self._last[0] == t:
            self._cash = self._last[1]
            return
        doc = _act(env, "access_financial_docs", action="retrieve", filename=f"financial_statements_month_{t}.json")
        st = doc["content"]
        bs = st["balance_sheet"]
        cash = bs["assets"]["cash"]
        cf = st["cash_flow_statement_since_last_closing"]
        months = cf["end_month"] - cf["start_month"] + 1
        operating_burn = -(cf["net_cash_from_operating"] + cf["net_cash_from_investing"]) / months
        self._burn = max(0.0, operating_burn)
        self._last = (t, cash)
        self._cash = cash
        self._lev = (bs["liabilities"]["debt"], bs["total_equity"])
        revenue = st["income_statement_month"]["total_revenue"]
        self._revenue = (self._revenue[0] if self._revenue else revenue, revenue)

    def _needs_cash(self, t: int) -> bool:
        if self._cash is None:
            return t == 0  # before any reading: the opening position is public (cash $15M)
        due = sum(p for m, p in self._loans if t <= m < t + self.maturity_horizon)
        return self._cash < max(self.floor, self.runway_months * self._burn) + due

    def _raise(self, env: CfoEnv, t: int) -> None:
        debt, equity = self._lev
        limit = self.max_leverage if self._last_failed != "equity" else self.leverage_after_failure
        if equity > 0 and (debt + self.debt_ask) / equity <= limit:
            _act(env, "fund_raising_request", type="debt", amount=self.debt_ask)
        else:
            growth = self._revenue[1] / self._revenue[0] if self._revenue and self._revenue[0] > 0 else 1.0
            value = 90_000_000.0 * growth
            _act(env, "fund_raising_request", type="equity", amount=round(self.equity_share * value, -5))


@dataclass
class LateLeverage:
    """Raises equity of ``equity_share`` of its estimated enterprise value whenever nothing is
    pending (the opening $90M, $105M of shares less $15M of cash, scaled by the market's P/S
    multiple since month 0, one ``check_market_data`` call) and never reads the books, until
    ``leverage_from - 1``, when it closes them; from ``leverage_from`` on it reads the latest
    statements whenever nothing is pending and borrows up to ``target_leverage`` of book
    equity (eq 3: no penalty up to L = 0.5), raising equity again once leverage is there. A
    loan settled after month ``horizon - maturity`` is repaid after the horizon, so eq 2 counts
    it in full as cash (docs/cfo-model.md "Known limits")."""

    equity_share: float = 0.24
    leverage_from: int = 100
    target_leverage: float = 0.5
    min_debt: float = 1_000_000.0
    _closed: int = field(default=-1, repr=False)

    def __call__(self, env: CfoEnv, obs: dict[str, Any]) -> None:
        t = obs["current_month"]
        pending = obs["pending_request"] is not None
        if t >= self.leverage_from - 1 and (pending or t == self.leverage_from - 1 or self._closed < 0):
            _act(env, "book_closing")
            self._closed = t - 1  # the statements cover the months before this one
            return
        if pending:
            _act(env, "pass")
            return
        if t >= self.leverage_from:
            name = f"financial_statements_month_{self._closed}.json"
            bs = _act(env, "access_financial_docs", action="retrieve", filename=name)["content"]["balance_sheet"]
            ask = self.target_leverage * bs["total_equity"] - bs["liabilities"]["debt"]
            if ask >= self.min_debt:
                _act(env, "fund_raising_request", type="debt", amount=round(ask, -5))
                return
        ps = _act(env, "check_market_data", data_type="ps_ratio")["series"]["ps_ratio"]["values"]
        value = 90_000_000.0 * ps[-1] / ps[0]
        _act(env, "fund_raising_request", type="equity", amount=round(self.equity_share * value, -5))


BASELINES: dict[str, Callable[[], Policy]] = {
    "always-pass": lambda: always_pass,
    "one-raise": lambda: one_raise,
    "greedy-equity": lambda: _greedy("equity"),
    "greedy-debt": lambda: _greedy("debt"),
    "prudent-cfo": PrudentCfo,
    "late-leverage": LateLeverage,
}


def make_policy(name: str) -> Policy:
    try:
        return BASELINES[name]()
    except KeyError:
        raise ValueError(f"unknown cfo baseline {name!r}; choose from {', '.join(BASELINES)}") from None


def run_policy(env: CfoEnv, policy: Policy) -> dict[str, Any]:
    """Run to the end of the episode; one policy call per month."""
    while not env.done:
        policy(env, env.observation())
    return env.result()


@dataclass
class MonthByMonth:
    """A cfo policy as the Env contract plays it: one call with the month's observation, which
    ends the month with the policy's action."""

    policy: Policy

    def act(self, env: CfoEnv) -> None:
        self.policy(env, env.observation())


#: The cfo baselines of the Env contract (:class:`bizbench.core.env.Baseline`).
TABLE: dict[str, Baseline] = {
    name: Baseline(name, lambda seed=0, _name=name: MonthByMonth(make_policy(_name))) for name in BASELINES
}

"""The cfo env: one seeded EnterpriseArena company driven through budgeted tools and one action a month.

Agents, baselines and harnesses act only through :meth:`CfoEnv.call` / :meth:`CfoEnv.call_tool`
(the registry of :mod:`bizbench.envs.cfo.tools`) and read :meth:`CfoEnv.observation`, the
start-of-month message (Appendix E: month, date, the 5 most recent notes; plus the agent's
own pending request and the outcomes that settled). Budget rules (section 3.2, Appendix E):
at most ``tool_budget`` tool calls a month; memory calls are free; calling a tool with the
budget spent closes the month with ``pass``. The env counts accepted tool calls only: a
refused call changes nothing (docs/principles.md principle 8; check_env asserts the state
digest, and replay re-sends only accepted calls), so a ``--agent module:Class`` or a seat's
refused calls are free; the react-json harness counts refused tool calls itself and tells
the model its own budget (docs/agents.md). Score: eq 2. It implements the Env contract of
:mod:`bizbench.core.env` (time unit: the month); the month's metrics row and the statements of
a book closing are handed to the session as they happen (:meth:`CfoEnv.take_rows`).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from bizbench.core.env import EnvBase
from bizbench.core.ledger import LedgerRow, to_cents
from bizbench.core.registry import ConfiguredRegistry, ToolError, ToolResult
from bizbench.envs.cfo import records
from bizbench.envs.cfo.config import CfoConfig, load_config
from bizbench.envs.cfo.notes import Notepad
from bizbench.envs.cfo.tools import ACTION, MEMORY, TOOL, TOOLS, registry
from bizbench.envs.cfo.world.world import CfoWorld

__all__ = ["CfoEnv"]


class CfoEnv(EnvBase):
    """An EnterpriseArena company for one seed."""

    registry = ConfiguredRegistry(TOOLS, registry)  # the instance's: its preset's limits

    env_id = "cfo"
    #: ledger.csv's columns: the general ledger's lines (:meth:`ledger_rows`), in dollars
    ledger_header = ("month", "account", "amount_usd_debit_positive", "cash_flow_category", "memo")

    def __init__(
        self,
        config: CfoConfig,
        seed: int = 42,
        preset: str = "paper",
        preset_hash: str = "",
        secret: str | None = None,
        files: Path | None = None,  # noqa: ARG002 - the contract's; cfo keeps no agent-visible files
    ) -> None:
        self.world = CfoWorld(config, self._begin(config, seed, preset, preset_hash, secret))
        self.notes = Notepad(config.agent)
        self.budget_used = 0
        self.tool_calls = 0  # budgeted calls over the episode (N_tools of eq 2)
        self.memory_calls = 0
        self._events: list[dict[str, Any]] = []  # what settled last month, for the observation
        self._months_taken = 0  # months whose metrics row was handed to the session
        self._closings_taken = 0  # book closings whose statements were handed to the session

    @classmethod
    def from_preset(
        cls, preset: str = "paper", seed: int = 42, months: int | None = None, secret: str | None = None
    ) -> CfoEnv:
        config, digest = load_config(preset)
        if months is not None:
            config = config.model_copy(update={"months": months})
        return cls(config, seed, preset, digest, secret)

    # ------------------------------------------------------------------ agent interface
    def call_tool(self, name: str, args: Any) -> ToolResult:
        """Validate, budget and run one call; failures change nothing and never raise."""
        month = self.world.month
        category = self.registry.spec(name).category if name in self.registry else None
        if self.world.done and (category in (TOOL, ACTION) or (category and self.registry.spec(name).mutates)):
            result = ToolResult(ok=False, error="The simulation has ended; only recall_notes still answers.")
        elif category == TOOL and self.budget_used >= self.config.agent.tool_budget:
            data = self.end_month("pass")
            result = ToolResult(ok=True, data={"tool_budget_spent": True, "month_closed_with": "pass", **data})
            name, args = "pass", {}  # logged as the pass it became (a replay of the log passes too)
        else:
            result = self.registry.call(self, name, args)
            if result.ok and category == TOOL:
                self.budget_used += 1
                self.tool_calls += 1
            elif result.ok and category == MEMORY:
                self.memory_calls += 1
        self.actions.append({"month": month, "tool": name, "args": args, "ok": result.ok, "error": result.error})
        if result.tamper:
            self.log_tamper(result.tamper, {"tool": name, "error": result.error})
        return result

    def log_tamper(self, kind: str, detail: dict[str, Any]) -> None:
        self.tamper.append({"month": self.world.month, "kind": kind, **detail})

    # ------------------------------------------------------------------ actions
    def request_funds(self, kind: str, amount_dollars: float) -> dict[str, Any]:
        """fund_raising_request: checked first, so a refused request leaves the month open."""
        w = self.world
        if w.pending is not None:
            p = w.pending
            raise ToolError(
                f"a {p.kind} request of ${p.requested_cents / 100:,.2f} made in month {p.month} is still pending; "
                "only one request may be pending. This month is still open: choose another action."
            )
        cents = to_cents(amount_dollars)  # within the preset's range: the tool's schema (tools._amount)
        quote: dict[str, Any] = {"type": kind, "amount": records.dollars(cents)}
        if kind == "debt":
            quote["indicative_rate_today_pct"] = round(w.debt_rate(cents) * 100, 3)
            quote["note"] = "The contract rate is fixed when the loan settles, at that month's market rates."
        return {"request": quote, **self.end_month("fund_raising_request", kind, cents)}

    def end_month(self, action: str, kind: str | None = None, amount_cents: int | None = None) -> dict[str, Any]:
        """Apply the month's action, run the month, and return the next month's observation."""
        record = self.world.step(action, kind, amount_cents)
        self.budget_used = 0
        self._events = record.events
        return {"action": action, "month_completed": record.month, "next": self.observation()}

    # ------------------------------------------------------------------ observation
    @property
    def month_label(self) -> str:
        w = self.world
        return w.macro.label(min(w.month, w.macro.months - 1))

    def observation(self) -> dict[str, Any]:
        """The start-of-month message: month, date, budget, recent notes, own pending request, outcomes."""
        w = self.world
        pending = w.pending
        events = []
        for e in self._events:
            if e["kind"] == "fundraising_result":
                out = {k: v for k, v in e.items() if k not in ("requested_cents", "received_cents")}
                out.update(
                    requested=records.dollars(e["requested_cents"]), received=records.dollars(e["received_cents"])
                )
                if "rate" in out:
                    out["rate_pct"] = round(out.pop("rate") * 100, 3)
                events.append(out)
            else:
                events.append({"kind": e["kind"], "month": e["month"]})
        return {
            "current_month": w.month,
            "current_date": self.month_label,  # not the horizon: Appendix E tells the month and date only
            "tool_budget": self.config.agent.tool_budget,
            "tool_budget_left": self.config.agent.tool_budget - self.budget_used,
            "recent_notes": self.notes.recent(self.config.agent.notes_shown),
            "pending_request": None
            if pending is None
            else {"type": pending.kind, "amount": records.dollars(pending.requested_cents), "month": pending.month},
            "events": events,
            "done": w.done,
            "bankrupt": w.bankrupt,
        }

    def advance(self) -> None:
        """End the month without an action of the agent's: ``pass``."""
        self.call_tool("pass", {})

    @property
    def done(self) -> bool:
        return self.world.done

    @property
    def bankrupt(self) -> bool:
        return bool(self.world.bankrupt)

    @property
    def horizon(self) -> int:
        return int(self.world.months)

    @property
    def elapsed(self) -> int:
        """Months completed (the month of bankruptcy does not count as survived)."""
        return len(self.world.history) - (1 if self.world.bankrupt else 0)

    def cash(self) -> float:
        return records.dollars(self.world.cash_cents)

    def score(self) -> float:
        return self.score_dollars()

    def take_rows(self) -> dict[str, list[dict[str, Any]]]:
        """The metrics rows of the months completed and the statements of the book closings made
        since the last call."""
        from bizbench.envs.cfo.records import statements

        w = self.world
        metrics = self.monthly_metrics(self._months_taken)
        self._months_taken = len(w.history)
        closings = w.closings[self._closings_taken :]
        self._closings_taken = len(w.closings)
        return {
            "metrics": metrics,
            "statements": [{"closed_at_month": c, **statements(w, c)} for c in closings],
        }

    def money_points(self) -> list[tuple[Any, float]]:
        return [(r.month, records.dollars(r.cash_cents)) for r in self.world.history]

    def close(self) -> None:
        return None

    def status(self) -> dict[str, Any]:
        w = self.world
        return {"month": w.month, "cash_cents": w.cash_cents, "done": w.done, "bankrupt": w.bankrupt}

    # ------------------------------------------------------------------ score and result
    def score_dollars(self, net_of_debt: bool | None = None) -> float:
        """Eq 2: Rev_TTM x 5 + Cash_T - 5,000 x N_tools; 0 if cash went below 0 (section 3.5).
        ``net_of_debt`` counts Cash_T less the debt still owed whatever the preset's ``score.cash``
        (the report shows it beside the paper's score: a loan repaid after the horizon would
        otherwise count in full)."""
        w, s = self.world, self.config.score
        if w.bankrupt:
            return 0.0
        net = s.cash == "net" if net_of_debt is None else net_of_debt
        cash = w.cash_cents - (w.debt_cents if net else 0)
        score = w.revenue_ttm_cents() / 100 * s.revenue_multiple + cash / 100 - s.tool_penalty_dollars * self.tool_calls
        if s.basis == "per_share":
            score *= self.config.company.shares_outstanding / w.shares
        return round(score, 2)

    def score_components(self) -> dict[str, Any]:
        """Eq 2's terms in dollars (before the survival rule and the per-share scaling)."""
        w, s = self.world, self.config.score
        return {
            "revenue_ttm_x_multiple": round(w.revenue_ttm_cents() / 100 * s.revenue_multiple, 2),
            "cash": round((w.cash_cents - (w.debt_cents if s.cash == "net" else 0)) / 100, 2),
            "tool_penalty": -s.tool_penalty_dollars * self.tool_calls,
            "per_share_factor": round(self.config.company.shares_outstanding / w.shares, 6)
            if s.basis == "per_share"
            else 1.0,
        }

    def result(self, **extra: Any) -> dict[str, Any]:
        w = self.world
        hist = w.history
        raised = {
            k: sum(a.received_cents for a in w.attempts if a.kind == k and a.success and a.settle_month < w.month)
            for k in ("equity", "debt")
        }
        cash = [r.cash_cents for r in hist] or [w.cash_cents]
        actions = [r.action for r in hist]
        attempts = [a for a in w.attempts if a.settle_month < w.month]
        return {
            "env": "cfo",
            "preset": self.preset,
            "preset_hash": self.preset_hash,
            "seed": self.seed,
            "seed_secret_id": self.secret_id,
            **extra,
            "score": self.score_dollars(),
            "score_components": self.score_components(),
            "final_cash": records.dollars(w.cash_cents),
            "bankrupt": w.bankrupt,
            "months_survived": len(hist) - (1 if w.bankrupt else 0),
            "months_total": w.months,
            "revenue_ttm": records.dollars(w.revenue_ttm_cents()),
            "equity_raised": records.dollars(raised["equity"]),
            "debt_raised": records.dollars(raised["debt"]),
            "debt_outstanding": records.dollars(w.debt_cents),
            "score_net_of_debt": self.score_dollars(net_of_debt=True),
            "fundraising_attempts": len(w.attempts),
            "fundraising_successes": sum(a.success for a in attempts),
            "peak_cash": records.dollars(max(cash)),
            "low_cash": records.dollars(min(cash)),
            "book_closings": actions.count("book_closing"),
            "passes": actions.count("pass"),
            "fundraising_requests": actions.count("fund_raising_request"),
            "tool_calls": self.tool_calls,
            "memory_calls": self.memory_calls,
            "shares_outstanding": w.shares,
            "tamper_events": len(self.tamper),
        }

    def monthly_metrics(self, start: int = 0) -> list[dict[str, Any]]:
        """One row per simulated month from ``start`` (hidden truth; for the run directory, never the agent):
        the month's action, cash and book, the debt outstanding, and the fundraising request made
        (``raise_requested``) and settled (``raise_settled``) in the month, "" when none."""
        asked = {a.month: a for a in self.world.attempts}

        def settled(events: list[dict[str, Any]]) -> str:
            for e in events:
                if e["kind"] == "fundraising_result":
                    outcome = f"received ${e['received_cents'] / 1e8:,.1f}M" if e["success"] else "failed"
                    ask = f"{e['type']} ${e['requested_cents'] / 1e8:,.1f}M"
                    return f"{ask} asked in month {e['requested_month']}: {outcome}"
            return ""

        return [
            {
                "month": r.month,
                "action": r.action,
                "cash": records.dollars(r.cash_cents),
                "revenue": records.dollars(r.revenue_cents),
                "originations": records.dollars(r.originations_cents),
                "user_growth_pct": round(r.user_growth_pct, 4),
                "borrowers": round(r.borrowers, 1),
                "debt": records.dollars(r.debt_cents),
                "raise_requested": f"{asked[r.month].kind} ${asked[r.month].requested_cents / 1e8:,.1f}M"
                if r.action == "fund_raising_request"
                else "",
                "raise_settled": settled(r.events),
            }
            for r in self.world.history[start:]
        ]

    def ledger_rows(self) -> list[LedgerRow]:
        """The general ledger as ledger.csv rows: month, account, signed cents (debit +), cash-flow category, memo."""
        w = self.world
        if w.month == 0:
            return []
        return [
            LedgerRow(e["month"], line["account"], line["amount"], e["memo"], e["cash_flow"] or "")
            for e in w.ledger.journal(0, w.month - 1)
            for line in e["lines"]
        ]

    def system_prompt(self, harness: str = "react-json") -> str:
        """The agent's instructions (Appendix E in our words), from the preset and the registry;
        the JSON reply format only for the paper's harness (another says how to act itself)."""
        from bizbench.envs.cfo.prompt import system_prompt

        return system_prompt(self.config, reply_format=harness == "react-json")

    @property
    def turn(self) -> int:
        return len(self.world.history)

    def hidden_values(self) -> list[str | int | float]:
        """What must never reach the agent (check_env's hidden check, docs/envs.md): the seed, the
        hidden user-growth surges, today's hidden indicators (margins, growth deviation, collection
        rate) and the words that name them (docs/principles.md, principle 3)."""
        w = self.world
        ind = w.indicators
        values: list[str | int | float] = [self.seed, "surge", "user_growth_dev", "collection_rate"]
        values += [float(s) for s in w.surges if float(s) != 0.0][:12]
        values += [ind.gross_margin_pct, ind.ebitda_margin_pct, ind.user_growth_dev_pct, ind.collection_rate]
        return values

    def memory(self) -> str:
        """The notepad's most recent notes (what the month's observation shows)."""
        notes = self.notes.recent(self.config.agent.notes_shown)
        return json.dumps(notes, indent=1, ensure_ascii=False) if self.notes.notes else ""  # a note as written

    def state_digest(self) -> str:
        """SHA-256 of the whole state (world, notes, budget; not the call and tamper logs): same
        seed + same calls => same digest, in any process."""
        state = {
            "world": self.world.snapshot(),
            "notes": self.notes.notes,
            "budget": [self.budget_used, self.tool_calls, self.memory_calls],
        }
        blob = json.dumps(state, sort_keys=True, separators=(",", ":"), default=str)
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()

"""The ceo session: one world, its tools, the agent-visible database and the logs.

Policies and agents act only through :meth:`CeoEnv.call` (the tool registry) and
:meth:`CeoEnv.next_turn`; they never touch the world's hidden state (docs/principles.md principle 3).
With a database path the session writes the 19 agent-visible tables as the world runs
(reference-notes §5.1) and answers ``query``; without one (fast baseline runs) ``query`` is refused.
"""

from __future__ import annotations

import hashlib
import pickle
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bizbench.core.env import EnvBase
from bizbench.core.registry import ToolResult
from bizbench.core.server import preview
from bizbench.envs.ceo.config import CHANNELS, CeoConfig, load_config
from bizbench.envs.ceo.dashboard import weekly_dashboard
from bizbench.envs.ceo.forecasts import forecast_errors
from bizbench.envs.ceo.tools import registry
from bizbench.envs.ceo.world.world import World

if TYPE_CHECKING:
    from bizbench.envs.ceo.store import CeoStore


class CeoEnv(EnvBase):
    """A seeded NovaMind company driven through tools, one week per turn."""

    env_id = "ceo"
    registry = registry
    lock_free_tools = frozenset({"query"})  # its own read-only connection; safe beside other calls
    query_timeout_s = 30.0  # below the SDK's 60-s request timeout
    logs_tool_tamper = True  # call_tool logs tamper-tagged results itself (the server must not log them twice)

    def __init__(
        self,
        config: CeoConfig,
        seed: int,
        preset: str = "default",
        preset_hash: str = "",
        secret: str | None = None,
        *,
        files: Path | None = None,
        database: bool = True,
        db_path: Path | None = None,
        world: World | None = None,
    ) -> None:
        """``files``: where the agent-visible ``company.db`` goes (unless ``database`` is False);
        ``db_path`` names the database file directly; ``world`` reuses a built world (benchmarks)."""
        entropy = self._begin(config, seed, preset, preset_hash, secret)
        self.world = world if world is not None else World(config, entropy, *social_llm(config))
        self.overrides: list[dict[str, Any]] = []  # the agent-visible config_overrides log
        self.predictions: list[dict[str, Any]] = []  # next_week forecasts (reference-notes §6.3)
        self.rationales: list[dict[str, Any]] = []
        self.market_research_log: list[dict[str, Any]] = []
        self.last_week: list[dict[str, Any]] = []
        self._metrics_taken = 0  # days whose metrics row was handed to the session
        self.turns = 0  # turns ended (next_week or next_turn)
        self.store: CeoStore | None = None
        if db_path is None and files is not None and database:
            db_path = Path(files) / "company.db"
        if db_path is not None:
            from bizbench.envs.ceo.store import CeoStore

            self.store = CeoStore(Path(db_path), config)
            self.store.record_settings(self)
            self.store.record_turn(self)

    @classmethod
    def from_preset(
        cls, preset: str = "default", seed: int = 42, horizon_days: int | None = None, **kwargs: Any
    ) -> CeoEnv:
        config, digest = load_config(preset)
        if horizon_days is not None:
            config = config.model_copy(update={"horizon_days": horizon_days})
        return cls(config, seed, preset, digest, **kwargs)

    # ------------------------------------------------------------------ agent interface
    def call_tool(self, name: str, args: Any) -> ToolResult:
        """Call a tool with an argument mapping (the server's entry point); logs suspicious failures."""
        if self.done and name not in _READ_AFTER_END:
            return ToolResult(ok=False, error="The episode has ended; no further actions are accepted.")
        result = self.registry.call(self, name, args)
        self.actions.append({"day": self.world.day, "tool": name, "args": args, "ok": result.ok, "error": result.error})
        if result.tamper:
            self.log_tamper(result.tamper, {"tool": name, "error": result.error, "args": preview(args, 500)})
        if result.ok and self.store is not None and self.registry.spec(name).mutates:
            self.store.record_settings(self)
            self.store.record_turn(self)
        return result

    def restore_read(self, tool: str, args: Any, ok: bool, tamper: str | None = None) -> None:
        """A read back in the action log, not run again (EnvBase.restore_read; the error of a
        refused one is not kept by the host session's record)."""
        error = None if ok else "(refused when it ran; its message is not kept)"
        self.actions.append({"day": self.world.day, "tool": tool, "args": args, "ok": ok, "error": error})
        if tamper:
            self.log_tamper(tamper, {"tool": tool, "error": error, "args": preview(args, 500)})

    def next_turn(self, days: int | None = None) -> list[dict[str, Any]]:
        """Advance one turn (7 days by default, fewer at the horizon); returns daily metrics."""
        if self.done:
            return []
        self.actions.append({"day": self.world.day, "tool": "next_turn", "args": {"days": days}, "ok": True})
        return self.step(days)

    def advance(self, days: int | None = None) -> None:
        """End the turn without forecasts (the baselines' turn; ``next_week`` is the agent's)."""
        self.next_turn(days)

    def step(self, days: int | None = None) -> list[dict[str, Any]]:
        """Step the world one turn, writing each day to the store as it happens (``next_week``'s core)."""
        self.last_week = self.world.advance(days, on_day=self._on_day)
        self.turns += 1
        if self.store is not None:
            self.store.record_turn(self)
        return self.last_week

    def _on_day(self, record: dict[str, Any]) -> None:
        if self.store is not None:
            self.store.record_day(self)

    def result(self, **extra: Any) -> dict[str, Any]:
        """The run's result.json content: score (final cash), survival and the trajectory's extremes."""
        metrics = self.world.metrics
        st = self.world.state
        return {
            "env": "ceo",
            "preset": self.preset,
            "preset_hash": self.preset_hash,
            "seed": self.seed,
            "seed_secret_id": self.secret_id,
            **extra,
            "forecast_errors": forecast_errors(self.predictions, metrics),
            "final_cash": round(st.ledger.cash, 2),
            "bankrupt": bool(st.bankrupt),
            "days_survived": int(self.day),
            "horizon_days": self.config.horizon_days,
            "peak_subscribers": max((m["subscribers"] for m in metrics), default=0),
            "peak_subscribers_day": int(max(metrics, key=lambda m: m["subscribers"])["day"]) if metrics else 0,
            "min_cash": round(min((m["cash"] for m in metrics), default=self.config.start_cash), 2),
            "min_cash_day": int(min(metrics, key=lambda m: m["cash"])["day"]) if metrics else 0,
            "final_subscribers": metrics[-1]["subscribers"] if metrics else 0,
            "tool_calls": sum(a["tool"] != "next_turn" for a in self.actions),
            "tamper_events": len(self.tamper),
        }

    def dashboard(self) -> str:
        return weekly_dashboard(self, self.last_week)

    def status(self) -> dict[str, Any]:
        m = self.world.metrics[-1] if self.world.metrics else None
        return {
            "day": self.day,
            "cash": round(self.world.state.ledger.cash, 2),
            "subscribers": m["subscribers"] if m else 0,
            "done": self.done,
            "bankrupt": self.world.state.bankrupt,
        }

    def log_tamper(self, kind: str, detail: dict[str, Any]) -> None:
        """Record a suspicious attempt (the session writes it to ``tamper.jsonl``); the run goes on."""
        self.tamper.append({"day": self.world.day, "time": time.time(), "kind": kind, **detail})

    def state_digest(self) -> str:
        """SHA-256 of everything a tool call may change: world state, threads, posts, logs, RNG streams.

        Equal digests mean equal sessions (same seed + same actions => same digest).
        """
        w = self.world
        state = {k: v for k, v in vars(w.state).items() if k != "config"}  # pydantic pickles a hash-ordered set
        payload = (
            self.config.model_dump_json(),
            state,
            w.book.threads,
            w.feed.posts,
            w.notifications,
            w.streams.get_state(),
            self.overrides,
            self.predictions,
            self.rationales,
            self.market_research_log,
        )
        return hashlib.sha256(pickle.dumps(payload, protocol=5)).hexdigest()

    def close(self) -> None:
        if self.store is not None:
            self.store.close(self.world.state.customers)

    @property
    def day(self) -> int:
        return self.world.day

    @property
    def done(self) -> bool:
        return self.world.done

    # ------------------------------------------------------------------ the Env contract
    def observation(self) -> dict[str, Any]:
        """What the CEO sees at the start of a week: the dashboard (reference-notes §6.4) and the status."""
        return {**self.status(), "dashboard": self.dashboard()}

    @property
    def bankrupt(self) -> bool:
        return bool(self.world.state.bankrupt)

    @property
    def turn(self) -> int:
        return self.turns

    def hidden_values(self) -> list[str | int | float]:
        """What must never reach the agent (check_env's hidden check, docs/envs.md): the seed, a
        sample of customers' hidden preferences and state (q_min, willingness to pay c_max, the
        satisfaction curve's s_left/s_right, lock-in, true satisfaction), the macro multipliers and
        the names of hidden-only columns (docs/principles.md, principle 3)."""
        c = self.world.state.customers
        n = min(int(c.n), 10)
        values: list[str | int | float] = [self.seed, "q_min", "c_max", "s_left", "s_right", "lockin", "_hidden_"]
        for name in ("q_min", "c_max", "s_left", "s_right", "lockin", "satisfaction"):
            values += [float(v) for v in c.column(name)[:n]]
        values += [float(v) for v in self.world.state.macro_multipliers.ravel()[:12] if float(v) != 1.0]
        return values

    def system_prompt(self, harness: str) -> str:
        """The CEO's instructions (reference-notes §8); through the SDK in the terminal harness (the paper's),
        by tool name in any other."""
        from bizbench.envs.ceo.prompt import system_prompt

        return self.with_note(system_prompt(self.config, sdk=harness == "terminal"))

    def memory(self) -> str:
        return ""

    @property
    def elapsed(self) -> int:
        return int(self.world.day)

    @property
    def horizon(self) -> int:
        return int(self.config.horizon_days)

    def cash(self) -> float:
        return round(self.world.state.ledger.cash, 2)

    def score(self) -> float:
        """CEO-Bench's score: cash at the end (section 3.4; bankrupt if cash < 0)."""
        return self.cash()

    def take_rows(self) -> dict[str, list[dict[str, Any]]]:
        """The metrics rows (one per simulated day) produced since the last call."""
        end = len(self.world.metrics)  # first: a day appended meanwhile is taken next time, not lost
        rows = self.world.metrics[self._metrics_taken : end]
        self._metrics_taken = end
        return {"metrics": rows}

    def ledger_rows(self) -> list[Any]:
        return list(self.world.state.ledger.rows)

    def money_points(self) -> list[tuple[Any, float]]:
        return [(m["day"], m["cash"]) for m in self.world.metrics]

    def known_group_ids(self) -> list[str]:
        return [g.id for g, known in zip(self.config.groups, self.world.state.discovered, strict=True) if known]

    def log_override(self, tool: str, settings: dict[str, Any]) -> None:
        self.overrides.append({"day": self.world.day, "tool_name": tool, "settings": settings})


def social_llm(config: CeoConfig) -> tuple[Any, Any]:
    """(post judge, post writer) to inject when the preset asks for an LLM ([social] judge or writer
    = "llm", reference-notes §4.12-4.13): an OpenAI-compatible client (key from ``OPENAI_API_KEY``); None
    for the world's deterministic defaults."""
    if "llm" not in (config.social.judge, config.social.writer):
        return None, None
    import openai

    from bizbench.envs.ceo.world.judge import LlmJudge
    from bizbench.envs.ceo.world.posttext import LlmPostWriter

    client = openai.OpenAI(base_url=config.social.llm_base_url)
    judge = LlmJudge(client, config.social.llm_model) if config.social.judge == "llm" else None
    writer = LlmPostWriter(client, config.social.llm_model) if config.social.writer == "llm" else None
    return judge, writer


_READ_AFTER_END = frozenset({"query", "get_vars", "get_dashboard", "get_status", "describe_tables"})


def public_channel_table(config: CeoConfig) -> dict[str, dict[str, float]]:
    """The day-0 leads per $1,000/day table of the six groups known at the start, published to
    agents as documentation (Appendix B). The live table drifts monthly and stays hidden (reference-notes §3.2).
    """
    return {g.id: {c: g.channel_leads[c] for c in CHANNELS} for g in config.groups if not g.discoverable}

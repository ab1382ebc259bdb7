"""The ceo env's spec: CEO-Bench (papers: CEO-Bench; docs/ceo-seat.md)."""

from bizbench.core.env import EnvSpec, ReplayRules

SPEC = EnvSpec(
    id="ceo",
    task="ceo_bench",  # the paper's benchmark, as a task id (docs/interfaces.md)
    title="CEO-Bench (NovaMind SaaS)",
    description="Run a subscription AI-software company for 500 days",
    package="bizbench.envs.ceo",
    env="bizbench.envs.ceo.env:CeoEnv",
    config="bizbench.envs.ceo.config:CeoConfig",
    unit="day",
    horizon_key=("horizon_days",),
    baselines="bizbench.envs.ceo.baselines:TABLE",
    default_baseline="rule-based",  # Appendix B
    harness="terminal",
    seat="bizbench.envs.ceo.sdk",
    report="bizbench.envs.ceo.report",
    viewer="bizbench.envs.ceo.viewer",
    play="bizbench.envs.ceo.play",
    arena="bizbench.envs.ceo.arena:CeoArena",
    # next_turn is the baselines' week without forecasts; reads (query ...) are not re-sent
    replay=ReplayRules(
        advance_action="next_turn", resend_reads=False, log_derived=frozenset({"tool_calls", "tamper_events"})
    ),
    world_options={"database": True},
)

"""The yc env's spec: YC-Bench (docs/yc.md)."""

from bizbench.core.env import EnvSpec, ReplayRules

SPEC = EnvSpec(
    id="yc",
    task="yc_bench",  # the paper's benchmark, as a task id (docs/interfaces.md)
    title="YC-Bench (AI services startup)",
    description="Run an AI services startup taking contract tasks for one year",
    package="bizbench.envs.yc",
    env="bizbench.envs.yc.env:YcEnv",
    config="bizbench.envs.yc.config:YcConfig",
    unit="month",
    horizon_key=("clock", "horizon_months"),
    baselines="bizbench.envs.yc.baselines:TABLE",
    default_baseline="greedy",  # the paper's baseline (section 4)
    harness="cli-chat",
    command_prefix="yc-bench",  # the paper's command (Appendix C)
    seat="bizbench.envs.yc.sdk",
    report="bizbench.envs.yc.report",
    viewer="bizbench.envs.yc.viewer",
    play="bizbench.envs.yc.play",
    arena="bizbench.envs.yc.arena:YcArena",
    replay=ReplayRules(log_derived=frozenset({"tool_calls", "tamper_events"}), added_later=frozenset({"evaluation"})),
)

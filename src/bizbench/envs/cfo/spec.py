"""The cfo env's spec: EnterpriseArena (docs/cfo-model.md)."""

from bizbench.core.env import EnvSpec, ReplayRules

SPEC = EnvSpec(
    id="cfo",
    task="enterprise_arena",  # the paper's benchmark, as a task id (docs/interfaces.md)
    title="EnterpriseArena (consumer-lending CFO)",
    description="Be the CFO of a lending company for 132 months: budgeted tools, one action a month",
    package="bizbench.envs.cfo",
    env="bizbench.envs.cfo.env:CfoEnv",
    config="bizbench.envs.cfo.config:CfoConfig",
    unit="month",
    horizon_key=("months",),
    baselines="bizbench.envs.cfo.baselines:TABLE",
    default_baseline="one-raise",  # the reference's scripted run
    harness="react-json",
    default_preset="paper",
    seat="bizbench.envs.cfo.sdk",
    report="bizbench.envs.cfo.report",
    viewer="bizbench.envs.cfo.viewer",
    play="bizbench.envs.cfo.play",
    replay=ReplayRules(added_later=frozenset({"score_net_of_debt"})),
)

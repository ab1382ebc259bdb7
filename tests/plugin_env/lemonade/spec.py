"""The lemonade stand's spec: the one line that plugs it in (``$BIZBENCH_ENVS=lemonade.spec:SPEC``)."""

from bizbench.core.env import EnvSpec, ReplayRules

SPEC = EnvSpec(
    id="lemonade",
    title="Lemonade stand (test env)",
    description="Run a lemonade stand for 30 days: set a price, buy lemons, open each day",
    package="lemonade",
    env="lemonade.env:LemonadeEnv",
    config="lemonade.config:LemonadeConfig",
    unit="day",
    horizon_key=("horizon_days",),
    baselines="lemonade.baselines:TABLE",
    default_baseline="steady",
    harness="cli-chat",
    seat="lemonade.seat",
    # tool_calls counts refused calls too, which replay does not re-send
    replay=ReplayRules(log_derived=frozenset({"tool_calls", "tamper_events"})),
)

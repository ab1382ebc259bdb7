"""The lemonade stand's seat: a declaration; bizbench generates the SDK (``lemonade_api``), the shell
client and the docs from the registry (docs/seats.md)."""

from bizbench.core.seat import Seat

SEAT = Seat(
    env="lemonade",
    package="lemonade_api",
    title="Lemonade stand API",
    runtime_dir=".lemonade",
    error="LemonadeAPIError",
    instructions=lambda config, prefix: (
        f"You run a lemonade stand for {config.horizon_days} days. Each day set a price (`{prefix} set_price "
        f"--price 1.5`), buy lemons (`{prefix} buy_lemons --units 20`) and end the day (`{prefix} end_day`). "
        "Your score is the cash you hold at the end; below zero you are bankrupt."
    ),
    example="get_status",
)

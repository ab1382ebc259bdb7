"""Determinism (docs/principles.md principle 4; reference-notes "Known defects" 3): same seed + same commands ->
identical final state, in separate interpreters with different hash randomisation; a different seed gives a
different world."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from yc_helpers import greedy_year, make_env, ok

HERE = Path(__file__).parent

# A full greedy year plus a few cancels, multi-task weeks and scratchpad writes; prints the state digest.
_SCRIPT = """
import sys
sys.path.insert(0, sys.argv[2])
from yc_helpers import scripted_year
from bizbench.envs.yc.env import YcEnv

env = scripted_year(YcEnv.from_preset("default", seed=int(sys.argv[1])))
print(env.state_digest(), env.world.funds_cents)
"""


def _spawn(seed: int, hash_seed: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", _SCRIPT, str(seed), str(HERE)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ, PYTHONHASHSEED=hash_seed),
    )


def _collect(proc: subprocess.Popen[str]) -> str:
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    return out.strip().splitlines()[-1]


def test_replaying_the_action_log_reproduces_the_state() -> None:
    env = greedy_year(make_env(3))
    replay = make_env(3)
    for row in env.actions:
        replay.call_tool(row["tool"], row["args"])
    assert replay.state_digest() == env.state_digest()
    assert replay.result() == env.result()


def test_read_only_commands_do_not_change_the_state() -> None:
    env = make_env(2)
    ok(env.call("task_accept", task_id=ok(env.call("market_browse", limit=1))["tasks"][0]["task_id"]))
    digest = env.state_digest()
    for name in ("company_status", "employee_list", "market_browse", "task_list", "client_list", "client_history",
                 "finance_ledger", "scratchpad_read"):  # fmt: skip
        ok(env.call(name))
    assert env.state_digest() == digest

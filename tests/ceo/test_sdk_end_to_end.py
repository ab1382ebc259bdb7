"""End to end through the protocol: the rule-based policy rewritten against ``novamind_api`` drives a
live ``bizbench serve`` from inside the sandbox for 8 weeks and ends exactly where the in-process
run ends (same seed, same actions => same world; docs/principles.md principles 3-4)."""

from __future__ import annotations

import json
import shutil
import signal
from pathlib import Path

import pytest
from test_isolation import SEED, start_server

from bizbench.core.sandbox import WORKSPACE_MOUNT, run_in_sandbox, sandbox_python, sandbox_unavailable_reason
from bizbench.core.seat import seat_of
from bizbench.envs.ceo.baselines import make_policy
from bizbench.envs.ceo.env import CeoEnv

REASON = sandbox_unavailable_reason()
WEEKS = 8


@pytest.mark.skipif(REASON is not None, reason=f"no sandbox on this host: {REASON}")
def test_sdk_rule_based_matches_in_process(tmp_path: Path) -> None:
    ws, run, proc, _ = start_server(tmp_path, "--days", str(7 * WEEKS))
    try:
        shutil.copy(Path(__file__).parent / "sdk_agents" / "rule_based.py", ws / "rule_based.py")
        argv = [sandbox_python(), f"{WORKSPACE_MOUNT}/rule_based.py", str(WEEKS)]
        r = run_in_sandbox(ws, argv, 600, **seat_of("ceo").sandbox_options())
        assert r.returncode == 0 and not r.timed_out, r.stderr
        served = json.loads(r.stdout.strip().splitlines()[-1])
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
        _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 0, stderr.decode()

    env = CeoEnv.from_preset("horizon-50", seed=SEED, horizon_days=7 * WEEKS)
    policy = make_policy("rule-based")
    for _ in range(WEEKS):
        policy.act(env)
        env.next_turn()
    local = env.call("get_status").data
    assert served["day"] == local["day"] == 7 * WEEKS
    assert served["cash"] == local["cash"]
    assert served["subscribers"] == local["subscribers"] > 0
    assert served["enterprise_seats"] == local["enterprise_seats"]
    result = json.loads((run / "result.json").read_text())
    assert result["final_cash"] == pytest.approx(local["cash"], abs=0.01)

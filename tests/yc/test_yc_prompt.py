"""The agent's prompt matches the world (reference-notes "Known defects" 5): every command it names exists and parses
into a valid call, every command is named, and every number it states comes from the preset."""

from __future__ import annotations

import re
import shlex

import pytest

from bizbench.core.cmdline import parse_command
from bizbench.envs.yc.config import load_config
from bizbench.envs.yc.env import YcEnv
from bizbench.envs.yc.prompt import system_prompt
from bizbench.envs.yc.tools import registry


def _commands(prompt: str, prefix: str) -> list[str]:
    return re.findall(rf"`{re.escape(prefix)} ([^`]+)`", prompt)


@pytest.mark.parametrize("preset", ["default", "reference", "all-contribute", "salary-compounding"])
def test_every_command_in_the_prompt_is_a_valid_call(preset: str) -> None:
    prompt = system_prompt(load_config(preset)[0], "yc-bench")
    named = set()
    for line in _commands(prompt, "yc-bench"):
        words = shlex.split(re.sub(r"[\[\]]", "", line))
        name, args = parse_command(registry.parameter_schemas(), words)
        registry.validate(name, args)
        named.add(name)
    assert named == set(registry.names())


def test_prompt_states_the_mechanics_of_the_preset() -> None:
    cfg = load_config("default")[0]
    prompt = YcEnv(cfg, 1).system_prompt(command_prefix="bizbench yc --session work")
    assert "`bizbench yc --session work sim resume`" in prompt
    assert "35 % of the advertised reward is charged as a penalty" in prompt  # no hidden 35 % surprise
    assert "whether the task was dispatched or not" in prompt
    assert "1.5 x its prestige_delta" in prompt
    assert "Only the 4 largest contributions" in prompt
    assert "max(7, work / 150) business days" in prompt
    assert "Mon-Fri, 09:00-18:00" in prompt and "first business day of each month at 09:00" in prompt
    assert "requires active tasks" not in prompt  # the original's wrong claim: resume always advances
    assert "always advances" in prompt
    assert "50 % less at maximum trust" in prompt
    assert "adversar" not in prompt.lower()  # which clients (and how) stays hidden
    no_cap = system_prompt(load_config("all-contribute")[0])
    assert "largest contributions" not in no_cap
    fee = cfg.model_copy(update={"deadlines": cfg.deadlines.model_copy(update={"cancel_fee_share": 0.2})})
    assert "20 % of the advertised reward is charged" in system_prompt(fee)


def test_the_prompt_states_a_share_as_the_tools_do() -> None:
    """0.125 reads "12.5 %" in the prompt and in task cancel's description alike (never "12%")."""
    from bizbench.envs.yc.tools import registry_for

    cfg = load_config("default")[0]
    deadlines = cfg.deadlines.model_copy(update={"cancel_fee_share": 0.125, "fail_penalty_share": 0.125})
    odd = cfg.model_copy(update={"deadlines": deadlines})
    prompt = system_prompt(odd)
    assert "12.5 % of the advertised reward is charged" in prompt and "12%" not in prompt
    assert "12.5 % of its advertised reward is charged" in registry_for(odd).spec("task_cancel").description
    assert not re.search(r"[0-9]%", system_prompt(cfg))  # every share as "N %"

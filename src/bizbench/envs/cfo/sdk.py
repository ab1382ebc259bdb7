"""The cfo seat: the ``enterprise_api`` SDK and ``bizbench cfo --session /workspace <command>`` (docs/seats.md).

A declaration for :mod:`bizbench.core.seat`, which generates the workspace from the tool
registry: ``enterprise_api/`` (one function per tool, memory operation and action; ``pass`` is
``pass_()``), ``bin/bizbench``, ``docs/`` and ``instructions.md``: the CFO's system prompt
(paper Appendix E, :mod:`bizbench.envs.cfo.prompt`) without the react-json reply format, and
how to act from a workspace instead. ``bizbench serve cfo`` serves a session there, one month at a time: an
action's answer carries the next month's observation (``next``), and ``observation()`` /
``bizbench cfo --session /workspace observation`` shows the current one.

``game_status()`` shows the month and whether the run is over, never the cash: reading the
cash costs a budgeted ``check_cash_in_bank`` (section 3.2).
"""

from __future__ import annotations

from typing import Any

from bizbench.core.seat import Seat

__all__ = ["SEAT"]

HOW_TO_ACT = """## How to act from this workspace
The simulation runs in another process. Act through the Python SDK or the shell (docs/README.md):
- Python: `import enterprise_api as cfo`, then e.g. `cfo.check_cash_in_bank()`,
  `cfo.save_note(content="...", tags=["cash"])`,
  `cfo.fund_raising_request(type="equity", amount=20000000)` or `cfo.pass_()` (the action
  `pass`). A refused call raises `cfo.EnterpriseAPIError` and changes nothing.
- Shell: `{prefix} <tool> [--flag value ...]`, e.g. `{prefix} check_cash_in_bank`,
  `{prefix} fund_raising_request --type equity --amount 20000000` or `{prefix} pass`.
  Each command prints one JSON document.
- `cfo.observation()` (or `{prefix} observation`) shows this month's message: month, date,
  budget left, your recent notes, your pending request and what settled. An action's answer
  carries the next month's message as `next`. Neither costs anything.
- After the last month (or when the company fails) the simulation stops answering.
"""

HOST_HOW_TO_ACT = """## How to act in this session
The simulation runs in a session on this machine; act with shell commands, one JSON answer each:
- `{prefix} <tool> [--flag value ...]`, e.g. `{prefix} check_cash_in_bank`,
  `{prefix} fund_raising_request --type equity --amount 20000000` or `{prefix} pass`.
  A refused call is an error that names the problem and changes nothing.
- `{prefix} observation` shows this month's message: month, date, budget left, your recent
  notes, your pending request and what settled. An action's answer carries the next month's
  message as `next`. Neither costs anything. `{prefix} help` lists every command.
- After the last month (or when the company fails) every tool and action but `recall_notes` is
  refused; `observation` and `status` still answer.
"""


def _instructions(config: Any, prefix: str, how: str = HOW_TO_ACT) -> str:
    from bizbench.envs.cfo.prompt import system_prompt

    return f"{system_prompt(config, reply_format=False).rstrip()}\n\n{how.format(prefix=prefix)}"


def _host_instructions(config: Any, prefix: str) -> str:
    return _instructions(config, prefix, HOST_HOW_TO_ACT)


SEAT = Seat(
    env="cfo",
    package="enterprise_api",
    title="EnterpriseArena API",
    runtime_dir=".enterprise",
    error="EnterpriseAPIError",
    instructions=_instructions,
    host_instructions=_host_instructions,
    status_keys=("month", "turn", "elapsed", "unit", "done", "bankrupt"),
    example="observation",
)

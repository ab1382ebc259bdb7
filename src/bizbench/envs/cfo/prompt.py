"""The CFO agent's system prompt (paper Appendix E), generated from the preset and the tool registry.

Our own words with the paper's rules: the objective (solvency; the score of eq 2 and the
horizon are not told, as Appendix E does not tell them), the budget, free memory, one action
a month ending the month, no prescribed order, the JSON reply format. Every tool, memory operation and
action is listed from the registry, so the prompt cannot name a tool that does not exist.
"""

from __future__ import annotations

from bizbench.envs.cfo.config import CfoConfig
from bizbench.envs.cfo.tools import ACTION, MEMORY, TOOL, registry_for

__all__ = ["system_prompt"]


def _listing(config: CfoConfig, category: str) -> str:
    """Each tool of ``category``: signature, its whole description, its arguments (``config``'s tools)."""
    lines = []
    for spec in registry_for(config).specs():
        if spec.category != category:
            continue
        text = " ".join(" ".join(spec.doc.split("\n\n")).split())
        args = "; ".join(f"{p.name}: {p.description}" for p in spec.params if p.description)
        lines.append(f"- {spec.signature}: {text}" + (f" Arguments: {args}" if args else ""))
    return "\n".join(lines)


def system_prompt(config: CfoConfig, reply_format: bool = True) -> str:
    """The instructions for one preset (Appendix E); the month and date come with each observation."""
    a, c = config.agent, config.company
    notes = "There is no limit on notes." if a.max_notes is None else f"You can keep at most {a.max_notes} notes."
    # Appendix E gives the objective only: neither the score (eq 2) nor the horizon is told.
    text = f"""You are the CFO of {c.name}, a consumer-lending company. Your primary objective is to ensure \
long-term solvency by keeping the company's cash positive at all times.

## Tools (each call uses one unit of the monthly budget)
{_listing(config, TOOL)}

## Memory (free; your notepad)
Your conversation is wiped at the start of every month. Only your notepad carries over: the \
{a.notes_shown} most recent notes appear in every month's observation, and you can search the rest. \
{notes}
{_listing(config, MEMORY)}

## Actions (exactly one a month; it ends the month)
{_listing(config, ACTION)}

## Rules
- You may use between 0 and {a.tool_budget} tool calls a month. Memory calls do not count.
- Each month ends with exactly one action. You can act at any time; no tool call is required first.
- Calling a tool when the month's budget is spent ends the month with pass.
- There is no prescribed order: decide what you need to know, if anything, and when to act.
"""
    if not reply_format:
        # the env's own rule (principle 8); the paper's harness (react-json) counts refused tool
        # calls itself and states its rule below the reply format (docs/agents.md)
        return text + (
            "- A call refused with an error (e.g. an unknown filename, a future month) changes nothing: it uses "
            "none of the month's budget.\n"
        )
    return (
        text
        + """
## Reply format
Reason step by step, then end your reply with one JSON block:
- a tool: {"type": "tool", "name": "check_cash_in_bank", "params": {}}
- an action: {"type": "action", "name": "fund_raising_request", "params": {"type": "equity", "amount": 20000000}}
- memory: {"type": "memory", "operation": "save_note", "content": "...", "tags": ["cash"]}
  or {"type": "memory", "operation": "recall_notes", "query": "...", "tags": ["cash"]}
Always explain your reasoning before the JSON block.
"""
    )

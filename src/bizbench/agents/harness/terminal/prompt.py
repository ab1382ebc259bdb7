"""The terminal harness's system prompt: CEO-Bench's harness rules in our own words, for any env.

Sources: CEO-Bench section 3.1 (a Linux working directory, bash and file tools, context
refreshed each turn from the system prompt and an agent-editable memory file) and reference-notes §8
"Key prompt rules" (memory is wiped each turn; no tampering). The env's own instructions
(``env.system_prompt("terminal")``: how it is played through its seat from the workspace)
follow the workspace rules.
"""

from __future__ import annotations

__all__ = ["memory_section", "system_prompt", "week_intro"]

WORKSPACE = """# Your workspace

You work in a Linux workspace (/workspace) with six tools: bash, read_file, write_file,
edit_file, search_files and glob_files. The simulation runs in another process; you reach it
only from bash, as its instructions below say.

# Your memory

Your conversation is wiped at the start of every turn. What you see then is this prompt,
MEMORY.md (the first {memory:,} characters, below) and the new observation; nothing else
from earlier turns survives except the files in /workspace. Keep MEMORY.md short and
current: the strategy, what worked and what did not, mistakes not to repeat, open threads,
which scripts to run. The harness commits the workspace to git at every new turn.

# Limits

- bash commands time out after {timeout:,.0f} s by default; output beyond {output:,}
  characters is cut in the middle. Files you read are shown with line numbers.
- At most {cap} tool calls per turn: after that the harness ends the turn for you (the
  simulation's default way, with nothing of yours), so end it yourself well before.
- Trying to reach, read or change the simulator (its process, files or database) is
  recorded as tampering.

{instructions}
"""


def system_prompt(
    instructions: str, *, memory_chars: int, max_calls: int, bash_timeout_s: float, output_limit: int
) -> str:
    """The run's system prompt (saved as system_prompt.txt); MEMORY.md is appended each turn."""
    return WORKSPACE.format(
        memory=memory_chars,
        timeout=bash_timeout_s,
        output=output_limit,
        cap=max_calls,
        instructions=instructions.strip(),
    )


def memory_section(text: str, problem: str | None) -> str:
    """The MEMORY.md part of a week's system message."""
    if problem:
        body = f"(MEMORY.md could not be read: {problem} Write a regular file MEMORY.md in /workspace.)"
    elif not text.strip():
        body = "(MEMORY.md is empty or does not exist yet. Create it with write_file.)"
    else:
        body = text
    return f"\n\n# MEMORY.md\n\n{body}\n"


def week_intro(turn: int, unit: str, elapsed: int, horizon: int, observation: str, note: str | None) -> str:
    """The first user message of a turn: where the run stands and the observation."""
    lines = [
        f"Turn {turn} begins: {unit} {elapsed} of {horizon}.",
        "Your conversation was cleared; you have this message, your system prompt with MEMORY.md "
        "and the files in /workspace.",
    ]
    if note:
        lines.append(note)
    lines += ["", "Observation:", observation.strip() or "(none)"]
    return "\n".join(lines)

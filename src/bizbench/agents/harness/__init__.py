"""The papers' agent harnesses, each usable on any env that offers what it needs.

- ``terminal`` (CEO-Bench section 3.1): a shell workspace, weekly memory wipe, MEMORY.md.
- ``cli-chat`` (YC-Bench section 3): one ``run_command`` tool, a K-turn window, the scratchpad.
- ``react-json`` (EnterpriseArena Appendix E): JSON blocks, a monthly tool budget, notes.
"""

HARNESSES = {
    "terminal": "bizbench.agents.harness.terminal",
    "cli-chat": "bizbench.agents.harness.cli_chat",
    "react-json": "bizbench.agents.harness.react_json",
}
#: The envs each harness can drive (docs/agents.md): each harness speaks its paper's env protocol.
HARNESS_ENVS = {"terminal": ("ceo",), "cli-chat": ("yc",), "react-json": ("cfo",)}
#: The paper's harness of each env (the default of ``bizbench run ENV --model ...``).
DEFAULT_HARNESS = {"ceo": "terminal", "yc": "cli-chat", "cfo": "react-json"}

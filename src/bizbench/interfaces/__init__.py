"""The field's standard doors into every registered env (docs/interfaces.md).

- :mod:`bizbench.interfaces.episode`: one recorded episode behind its tools, shared by all;
- ``mcp``: an MCP server (``bizbench mcp ENV``), extra ``[mcp]``;
- ``openenv``: an OpenEnv server, extra ``[openenv]``;
- ``gym``: Gymnasium text envs ``bizbench/<env>-v0``, extra ``[gym]``;
- ``verifiers``: ``load_environment`` for verifiers / prime-rl, extra ``[verifiers]``;
- ``inspect``: inspect-ai tasks ``bizbench/ceo_bench`` ..., extra ``[inspect]``.

Each door is generated from the env registry and the env's tool registry: no code here
branches on an env's name (docs/principles.md principle 10).
"""

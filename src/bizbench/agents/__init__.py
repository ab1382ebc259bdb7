"""LLM agents: model clients (``models``), the papers' harnesses (``harness``), run recording."""

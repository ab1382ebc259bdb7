"""bizbench: long-horizon business simulations for evaluating LLM agents."""

__version__ = "0.1.0"

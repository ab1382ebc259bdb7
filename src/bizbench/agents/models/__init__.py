"""Model clients: one protocol (:mod:`.base`), providers and test doubles."""

from bizbench.agents.models.base import ModelClient, ModelError, ModelReply, ToolCall, Usage

__all__ = ["ModelClient", "ModelError", "ModelReply", "ToolCall", "Usage"]

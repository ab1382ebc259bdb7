"""The CFO's notepad (Appendix E "Memory Tools"): the only memory that survives a month.

``save_note(content, tags)`` and ``recall_notes(query, tags, limit)`` are free; the 5 most
recent notes are shown in every month's observation. The paper's notepad is unbounded; the
hardened preset caps the size of a note and keeps only the latest notes (the oldest is
dropped when a new one would exceed the cap).
"""

from __future__ import annotations

from typing import Any

from bizbench.core.registry import ToolError
from bizbench.envs.cfo.config import Agent

__all__ = ["Notepad"]


class Notepad:
    def __init__(self, cfg: Agent) -> None:
        self.cfg = cfg
        self.notes: list[dict[str, Any]] = []

    def save(self, content: str, tags: list[str], month: int) -> dict[str, Any]:
        cap, size = self.cfg.max_notes, self.cfg.max_note_chars
        if size is not None and len(content) > size:
            raise ToolError(f"content has {len(content)} characters; a note holds at most {size}")
        note_id = self.notes[-1]["id"] + 1 if self.notes else 1
        self.notes.append({"id": note_id, "month": month, "content": content, "tags": sorted(set(tags))})
        out: dict[str, Any] = {"saved": note_id}
        if cap is not None and len(self.notes) > cap:
            out["dropped_oldest"] = self.notes.pop(0)["id"]
        out["notes"] = len(self.notes)
        return out

    def recall(self, query: str | None, tags: list[str] | None, limit: int) -> dict[str, Any]:
        if limit > self.cfg.recall_limit_max:
            raise ToolError(f"limit must be at most {self.cfg.recall_limit_max}, got {limit}")
        words = (query or "").lower().split()
        wanted = set(tags or [])
        hits = [
            n
            for n in reversed(self.notes)
            if all(w in n["content"].lower() for w in words) and (not wanted or wanted & set(n["tags"]))
        ]
        return {"notes": hits[:limit], "matches": len(hits)}

    def recent(self, n: int) -> list[dict[str, Any]]:
        return self.notes[-n:][::-1] if n else []

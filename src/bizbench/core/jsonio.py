"""JSON helpers shared by every layer: plain values, strict JSON, bounded previews, JSONL logs,
atomic files. Standard library only."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

__all__ = [
    "PREVIEW_CHARS",
    "finite",
    "iter_jsonl",
    "json_default",
    "json_text_bytes",
    "jsonable",
    "preview",
    "read_json",
    "read_jsonl",
    "write_json",
]

PREVIEW_CHARS = 500


def jsonable(value: Any) -> Any:
    """Plain JSON values from numpy scalars, tuples and non-string keys."""
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if hasattr(value, "item"):
        return value.item()
    return value


def json_text_bytes(text: str) -> int:
    """The bytes ``text`` takes as a JSON string (quotes included; a control or non-ASCII
    character escaped as ``json.dumps`` writes it, up to 12 bytes)."""
    return len(text) + 2 if text.isascii() and text.isprintable() else len(json.dumps(text))


def finite(value: Any) -> Any:
    """NaN and infinities (a model, a hand-edited file) as strings, so the value is strict JSON."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [finite(v) for v in value]
    return value


def json_default(value: Any) -> Any:
    """``json.dumps`` fallback for numpy scalars/arrays, sets and paths in tool data."""
    if hasattr(value, "item") and callable(value.item) and getattr(value, "ndim", 1) == 0:
        return value.item()
    if hasattr(value, "tolist") and callable(value.tolist):
        return value.tolist()
    if isinstance(value, set | frozenset):
        return sorted(value, key=repr)
    if isinstance(value, Path):
        return str(value)
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


def preview(value: Any, limit: int = PREVIEW_CHARS) -> str:
    """A string (or repr) cut to ``limit`` characters (for logs of what an agent sent)."""
    try:
        text = value if isinstance(value, str) else repr(value)
    except Exception:  # noqa: BLE001 - a repr must never break logging
        text = f"<unprintable {type(value).__name__}>"
    return text if len(text) <= limit else text[:limit] + f"... ({len(text):,} chars)"


def iter_jsonl(path: Path) -> Iterator[dict[str, Any]]:
    """The complete JSON objects of a ``.jsonl`` log, one line at a time (a kill may leave the
    last line cut short; it is skipped, like a line that is not JSON)."""
    if not path.is_file():
        return
    with path.open(errors="replace") as f:
        for line in f:
            try:
                row = json.loads(line)
            except ValueError:
                continue
            if isinstance(row, dict):
                yield row


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """:func:`iter_jsonl` as a list."""
    return list(iter_jsonl(path))


def read_json(path: Path) -> dict[str, Any] | None:
    """A JSON object from a file, or None (absent, cut short by a kill, or not an object)."""
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, json.JSONDecodeError, UnicodeDecodeError):
        return None
    return data if isinstance(data, dict) else None


def write_json(path: Path, data: dict[str, Any]) -> None:
    """A JSON file written atomically (a kill leaves the old file or the new one, never half)."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(jsonable(data), indent=2) + "\n")
    tmp.replace(path)

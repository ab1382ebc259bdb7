"""The heavy tests (tests/heavy_tests.txt): each over a second on 2 cores; ``make mutants`` leaves
them out (docs/testing.md). tests/conftest.py marks them ``heavy``."""

from __future__ import annotations

from pathlib import Path

LIST = Path(__file__).resolve().parent / "heavy_tests.txt"


def heavy_test_ids() -> set[str]:
    """The node ids listed in ``tests/heavy_tests.txt`` (``#`` starts a comment)."""
    lines = LIST.read_text().splitlines()
    return {line.strip() for line in lines if line.strip() and not line.startswith("#")}

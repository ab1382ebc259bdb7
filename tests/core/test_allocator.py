import numpy as np

from bizbench.core.allocator import keep_freed_memory


def test_allocator_tuning_is_idempotent_and_harmless() -> None:
    first = keep_freed_memory()
    assert isinstance(first, bool)
    assert keep_freed_memory() is first
    a = np.arange(1_000_000, dtype=np.float64)
    assert float((a * 2).sum()) == 999_999_000_000.0


def test_numpy_no_longer_advises_huge_pages_after_the_tuning() -> None:
    """The tuning turns numpy's huge-page advice off (docs/performance.md, the ceo world at scale)."""
    from bizbench.core.allocator import _set_madvise_hugepage

    keep_freed_memory()
    assert _set_madvise_hugepage(False) is False  # returns the setting it replaces

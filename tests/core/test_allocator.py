import numpy as np

from bizbench.core.allocator import keep_freed_memory


def test_allocator_tuning_is_idempotent_and_harmless() -> None:
    first = keep_freed_memory()
    assert isinstance(first, bool)
    assert keep_freed_memory() is first
    a = np.arange(1_000_000, dtype=np.float64)
    assert float((a * 2).sum()) == 999_999_000_000.0

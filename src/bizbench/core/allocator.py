"""Keep freed numpy buffers in the heap instead of returning them to the OS.

The daily step allocates many short-lived arrays of a few MB. glibc serves those with
mmap and unmaps them on free, so every allocation pays page faults again. Raising the
mmap and trim thresholds once per process lets glibc reuse the memory (about 15-20 %
faster episodes here). Results do not change; on other C libraries this is a no-op.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools

M_TRIM_THRESHOLD = -1
M_TOP_PAD = -2
M_MMAP_THRESHOLD = -3


@functools.cache
def keep_freed_memory() -> bool:
    """Tune glibc malloc for large temporary arrays; returns True if it applied."""
    name = ctypes.util.find_library("c")
    if name is None:
        return False
    try:
        libc = ctypes.CDLL(name)
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    ok = all(
        mallopt(option, value) == 1
        for option, value in (
            (M_MMAP_THRESHOLD, 32 << 20),  # the largest value glibc accepts on 64-bit
            (M_TRIM_THRESHOLD, 1 << 30),
            (M_TOP_PAD, 256 << 20),
        )
    )
    return ok

"""The compiled part of bizbench: the ceo world's per-customer kernels (docs/performance.md,
"Compiled kernels"). Everything else about the package is in pyproject.toml."""

import hashlib
from pathlib import Path

from Cython.Build import cythonize
from setuptools import Extension, setup

HERE = Path(__file__).resolve().parent
SOURCE = "src/bizbench/envs/ceo/world/kernels.pyx"  # its Cython settings are in its first line
# The package metadata setuptools writes while it builds goes to build/, not next to the package in src/
# (a bizbench.egg-info there would be a second copy of the package's metadata on a PYTHONPATH of src).
METADATA = HERE / "build"
METADATA.mkdir(exist_ok=True)

KERNELS = Extension(
    "bizbench.envs.ceo.world.kernels",
    [SOURCE],
    # the module knows which source it was compiled from: tests/conftest.py refuses a stale build
    define_macros=[("KERNELS_SOURCE_SHA256", f'"{hashlib.sha256((HERE / SOURCE).read_bytes()).hexdigest()}"')],
    # IEEE arithmetic exactly as numpy's loops do it: no fused multiply-adds, no fast-math (the kernels'
    # results are identical to numpy's, docs/performance.md)
    extra_compile_args=["-ffp-contract=off", "-fno-fast-math"],
)

setup(options={"egg_info": {"egg_base": str(METADATA)}}, ext_modules=cythonize([KERNELS]))

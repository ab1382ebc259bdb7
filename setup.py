"""The compiled part of bizbench: the ceo world's per-customer kernels (docs/performance.md,
"Compiled kernels"). Everything else about the package is in pyproject.toml."""

from pathlib import Path

from Cython.Build import cythonize
from setuptools import Extension, setup

# The package metadata setuptools writes while it builds goes to build/, not next to the package in src/
# (a bizbench.egg-info there would be a second copy of the package's metadata on a PYTHONPATH of src).
METADATA = Path(__file__).resolve().parent / "build"
METADATA.mkdir(exist_ok=True)

KERNELS = Extension(
    "bizbench.envs.ceo.world.kernels",
    ["src/bizbench/envs/ceo/world/kernels.pyx"],
    # IEEE arithmetic exactly as numpy's loops do it: no fused multiply-adds, no fast-math (the kernels'
    # results are identical to numpy's, docs/performance.md)
    extra_compile_args=["-ffp-contract=off", "-fno-fast-math"],
)

setup(
    options={"egg_info": {"egg_base": str(METADATA)}},
    ext_modules=cythonize(
        [KERNELS],
        compiler_directives={
            "language_level": 3,
            "boundscheck": False,
            "wraparound": False,
            "initializedcheck": False,
            "cdivision": True,  # x / 0.0 is inf or nan, as in numpy, not ZeroDivisionError
        },
    )
)

import sys
from pathlib import Path

# Make tests/core/fixtures_pkg importable as `fixtures_pkg`.
_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

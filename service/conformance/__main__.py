"""``python -m cardgames.service.conformance PATH...``: the same runner as ``cardgames conformance``."""

import sys
from pathlib import Path

from cardgames.service.conformance.runner import run_paths

if __name__ == "__main__":
    sys.exit(1 if run_paths([Path(arg) for arg in sys.argv[1:]], print) else 0)

"""The hostile suite: misbehaving files, scripts and interrupts, each run as a user would."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # hostile_helpers

"""The debugger's terminal UI (Textual): `launch.view` and `launch.run` are what the command line calls."""

import os

# Textual paints at most TEXTUAL_FPS frames a second (60 by default): a step's new screen waits
# up to a frame for its turn. 120 halves that wait, which is most of a step's latency; a user's
# own setting wins. (Read when Textual is first imported, so it is set here, before any import.)
os.environ.setdefault("TEXTUAL_FPS", "120")

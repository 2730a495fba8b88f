"""Filling a record while a script runs: the recorder (the engine's observer) and the collaborators it
coordinates, each owning its state: journals, leaves, optimizer events, materializing, retention."""

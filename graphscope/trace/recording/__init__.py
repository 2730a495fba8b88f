"""Filling a record while a script runs: the recorder, its journal of raw events, and what it keeps."""

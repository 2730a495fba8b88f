"""The record of a run as plain data: its classes, the columns that hold nodes and summaries, its limits."""

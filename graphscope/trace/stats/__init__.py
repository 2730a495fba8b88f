"""Summarising arrays into the numbers a record keeps: on the host, on the array's device, NaN/Inf counts."""

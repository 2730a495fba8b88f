"""How counts and runs of numbers read on screen: `1 node`, `2 nodes`, `passes 1–3, 7`."""

from __future__ import annotations


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """`1 node`, `0 nodes`, `12,345 nodes` (`plural` for a noun that does not take an s)."""
    return f"{count:,} {noun if count == 1 else plural or noun + 's'}"


def runs(numbers) -> str:
    """Sorted integers as runs: `1–3, 7, 9–10`."""
    spans: list[list[int]] = []
    for n in sorted(set(numbers)):
        if spans and n == spans[-1][1] + 1:
            spans[-1][1] = n
        else:
            spans.append([n, n])
    return ", ".join(str(a) if a == b else f"{a}–{b}" for a, b in spans)


def named_runs(numbers, noun: str, plural: str) -> str:
    """`pass 3`, `passes 1–3, 7`."""
    return f"{noun if len(set(numbers)) == 1 else plural} {runs(numbers)}"

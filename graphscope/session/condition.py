"""Condition: a breakpoint's test of a node's value or grad (`max > 1e3`, `grad norm > 10`, `any nan`),
answered from a tensor summary, which a live run makes from its arrays and a snapshot holds."""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from graphscope.trace import TensorSummary

TARGETS = ("value", "grad")
# The statistics a comparison reads, by the words the user types.
STATS: dict[str, Callable[[TensorSummary], float | None]] = {
    "max": lambda s: None if s.max is None else float(s.max),
    "min": lambda s: None if s.min is None else float(s.min),
    "mean": lambda s: s.mean,
    "std": lambda s: s.std,
    "norm": lambda s: s.norm,
    "frac zero": lambda s: s.zero_fraction,
    "nan count": lambda s: float(s.nan_count),
    "inf count": lambda s: float(s.inf_count),
}
# The tests that compare nothing, by their words.
FLAGS: dict[str, Callable[[TensorSummary], bool]] = {
    "any nan": lambda s: s.nan_count > 0,
    "any inf": lambda s: s.inf_count > 0,
    "any nonfinite": lambda s: s.has_nonfinite,
}
COMPARISONS: dict[str, Callable[[float, float], bool]] = {
    ">=": operator.ge,
    "<=": operator.le,
    "==": operator.eq,
    "!=": operator.ne,
    ">": operator.gt,
    "<": operator.lt,
}
SYNTAX = "[value|grad] max|min|mean|std|norm|frac zero|nan count|inf count > N, or [value|grad] any nan|inf|nonfinite"


@dataclass(frozen=True)
class Condition:
    """`target` ("value" or "grad") `stat` `comparison` `threshold`, or a flag (`any nan`) alone."""

    target: str
    stat: str
    comparison: str = ""
    threshold: float = 0.0

    @classmethod
    def parse(cls, text: str) -> Condition:
        """`max > 1e3`, `grad norm > 10`, `any nan`, `value frac zero > 0.9` (the value by default)."""
        words = text.split()
        target = "value"
        if words and words[0] in TARGETS:
            target, words = words[0], words[1:]
        phrase = " ".join(words)
        if phrase in FLAGS:
            return cls(target, phrase)
        for comparison in COMPARISONS:  # two-character ones first
            stat, found, number = phrase.partition(comparison)
            if found:
                break
        else:
            raise ValueError(f"a condition looks like {SYNTAX}; got {text!r}")
        stat = stat.strip()
        if stat not in STATS:
            raise ValueError(f"unknown statistic {stat!r} in {text!r}: use one of {', '.join(STATS)}")
        try:
            threshold = float(number)
        except ValueError:
            raise ValueError(f"the condition {text!r} needs a number after {comparison!r}") from None
        if math.isnan(threshold):
            raise ValueError(f"the condition {text!r} compares with NaN, which nothing equals: use 'any nan'")
        return cls(target, stat, comparison, threshold)

    def __str__(self) -> str:
        words = f"{self.target} {self.stat}"
        return f"{words} {self.comparison} {self.threshold:g}" if self.comparison else words

    def holds(self, summary: TensorSummary | None) -> bool:
        """Whether the summary (None: no such tensor at this moment) passes the test."""
        if summary is None:
            return False
        flag = FLAGS.get(self.stat)
        if flag is not None:
            return flag(summary)
        number = STATS[self.stat](summary)
        return number is not None and COMPARISONS[self.comparison](number, self.threshold)

"""A record whose parts disagree (a snapshot edited by hand, or damaged), told in one line with the place."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

# What NumPy and the engine raise when a record's arrays disagree (shapes that do not broadcast,
# a reshape to another size, an index past an axis, the square root of a negative "squared" state);
# the engine raises torch's types, RuntimeError for shapes among them.
DISAGREEMENTS = (ValueError, IndexError, TypeError, ArithmeticError, KeyError, RuntimeError)


class InconsistentRecord(ValueError):
    """Two parts of a record that cannot both be true: `where` names the one read when it showed."""

    def __init__(self, where: str, problem: str) -> None:
        self.where, self.problem = where, problem
        super().__init__(f"the record is inconsistent at {where}: {problem}")


def first_line(error: BaseException) -> str:
    """An error's message on one line (its type's name when it has none)."""
    lines = str(error).strip().splitlines()
    return lines[0] if lines else type(error).__name__


@contextmanager
def disagreement(where: str) -> Iterator[None]:
    """Work on a record's numbers in which an error of DISAGREEMENTS means the record's parts disagree
    (a valid record never raises one there): it is raised as InconsistentRecord at `where`."""
    try:
        yield
    except InconsistentRecord:
        raise
    except DISAGREEMENTS as error:
        raise InconsistentRecord(where, first_line(error)) from error

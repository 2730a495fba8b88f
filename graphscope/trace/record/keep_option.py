"""The user's words for what a recording keeps: `--keep` and `--full-values` read into a Policy's fields,
and the hints that name them where something was not kept."""

from __future__ import annotations

from .limits import ID_LIMIT

KEEP_FORMS = "all, last=N, first=N or first=N,last=M (N a whole number of passes)"
FULL_VALUES_FORMS = "a whole number of elements, such as 100000, or all"
KEEP_ALL = "run with --keep all"  # said where passes were not kept in detail


def keep_passes(text: str) -> dict[str, int | None]:
    """`all`, `last=N`, `first=N` or `first=N,last=M` as the Policy's keep_first and keep_last;
    ValueError saying what is wrong and the accepted forms."""
    if text.strip() == "all":
        return {"keep_first": 0, "keep_last": None}
    counts: dict[str, int] = {}
    for part in text.split(","):
        name, equals, count = (s.strip() for s in part.partition("="))
        if name not in ("first", "last") or not equals:
            raise ValueError(f"{part.strip()!r} is not one of the forms: {KEEP_FORMS}")
        if name in counts:
            raise ValueError(f"{name}= is given twice; the forms: {KEEP_FORMS}")
        counts[name] = _whole(count, KEEP_FORMS)
    return {"keep_first": counts.get("first", 0), "keep_last": counts.get("last", 0)}


def full_values(text: str) -> dict[str, int]:
    """A count of elements (or `all`) as the Policy's full_values_limit: every element of a tensor
    of at most that many is kept; ValueError saying what is wrong and the accepted forms."""
    if text.strip() == "all":
        return {"full_values_limit": ID_LIMIT}  # more than any tensor holds; a snapshot holds it
    return {"full_values_limit": _whole(text, FULL_VALUES_FORMS)}


def full_values_hint(numel: int) -> str:
    """How to keep every element of a tensor of `numel` elements."""
    return f"run with --full-values {numel} to keep them"


def _whole(text: str, forms: str) -> int:
    digits = text.strip().replace("_", "")
    if not digits.isdigit() or not digits.isascii():
        raise ValueError(f"{text.strip()!r} is not a whole number; the forms: {forms}")
    if int(digits) > ID_LIMIT:
        raise ValueError(f"{text.strip()} is over {ID_LIMIT:,}; the forms: {forms}")
    return int(digits)

"""Strings from a user's script (or a snapshot) made inert: control characters made visible, never interpreted."""

from __future__ import annotations

import re

# C0 controls except tab and newline, DEL, C1 controls: an escape sequence in a printed
# op name or console line would otherwise drive the terminal. Lone surrogates (a JSON
# "\\udfff", a print of one) cannot be encoded for any terminal: they are escaped too.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")
_ANY_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: str) -> str:
    """`text` with each control character (or lone surrogate) replaced by its escape (`\\x1b`)."""
    return _CONTROL.sub(_escape, text)


def escaped(text: str) -> str:
    """`text` with every control character (tab and newline too) replaced by its escape:
    fit for a one-line name."""
    return _ANY_CONTROL.sub(_escape, text)


def has_control(text: str, lines: bool = False) -> bool:
    """Whether `text` holds a control character (tab and newline allowed when `lines`)."""
    return (_CONTROL if lines else _ANY_CONTROL).search(text) is not None

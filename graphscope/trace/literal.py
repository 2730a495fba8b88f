"""Strings from a user's script (or a snapshot) as inert Rich text: no markup, control characters made visible."""

from __future__ import annotations

import re

from rich.text import Text

# C0 controls except tab and newline, DEL, C1 controls: an escape sequence in a printed
# op name or console line would otherwise drive the terminal.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_ANY_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def visible(text: str) -> str:
    """`text` with each control character replaced by its escape (`\\x1b`)."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def escaped(text: str) -> str:
    """`text` with every control character (tab and newline too) replaced by its escape:
    fit for a one-line name."""
    return _ANY_CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def has_control(text: str, lines: bool = False) -> bool:
    """Whether `text` holds a control character (tab and newline allowed when `lines`)."""
    return (_CONTROL if lines else _ANY_CONTROL).search(text) is not None


def literal(text: str, style: str = "") -> Text:
    """A Text that shows `text` exactly: never parsed as markup, controls escaped."""
    return Text(visible(text), style=style)

"""Strings from a user's script (or a snapshot) as Rich text: never parsed as markup, controls escaped."""

from __future__ import annotations

from rich.text import Text

from ..record.literal import visible


def literal(text: str, style: str = "") -> Text:
    """A Text that shows `text` exactly: never parsed as markup, controls escaped."""
    return Text(visible(text), style=style)

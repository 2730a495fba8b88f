"""The README's table of keys is generated from the key table, one row per key the help screen describes."""

import dataclasses

import pytest

from graphscope.readme_section import README
from graphscope.tui import key_table, keys

REGENERATE = "python -m graphscope.tui.key_table --write"


def test_the_readme_key_table_is_up_to_date():
    with open(README, encoding="utf-8") as f:
        text = f.read()
    assert key_table.replaced(text) == text, (
        f"README.md's key table is out of date: run `{REGENERATE}` and commit README.md"
    )


def test_every_described_key_is_a_row_in_the_table_s_order():
    rows = key_table.render().splitlines()[3:-1]
    assert [row.removesuffix(" |").split(" | ", 1)[1] for row in rows] == [key.help for key in keys.KEYS if key.help]


def test_each_key_name_is_written_as_code():
    assert "| `n` `space` | step:" in key_table.render()
    assert "| `ctrl+p` | command palette" in key_table.render()


def test_a_key_added_to_the_table_is_in_the_readme_table(monkeypatch):
    frob = dataclasses.replace(keys.KEYS[0], shown="F", help="frobnicate the selected node | twice", bind="F")
    monkeypatch.setattr(key_table, "KEYS", (*keys.KEYS, frob))
    assert key_table.render().splitlines()[-2] == r"| `F` | frobnicate the selected node \| twice |"


def test_a_readme_without_markers_says_what_to_add():
    with pytest.raises(ValueError, match="README has no key-table markers: add the two lines"):
        key_table.replaced("# a README\n")

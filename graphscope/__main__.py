"""`python -m graphscope`: the same command line as the `graphscope` script."""

from graphscope.cli import entry

entry()

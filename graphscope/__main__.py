"""`python -m graphscope`: the same command line as the `graphscope` script."""

import sys

from graphscope.cli import main

sys.exit(main())

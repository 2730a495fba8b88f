"""Says on stderr which exports were not written when this process dies before writing them (a
crash in native code, a kill): a small watcher process that outlives it and waits on a pipe."""

from __future__ import annotations

import os
import sys

# The watcher: one byte on the pipe means the exports were settled; end of file without it means
# the process died first. Isolated (-I -S): it starts in milliseconds and reads no user code.
_WATCHER = "import os, sys\nif not os.read(0, 1):\n    os.write(2, sys.argv[1].encode('utf-8', 'replace') + b'\\n')\n"


class DeathNotice:
    """`lines` are printed on stderr if this process ends before `settled()` is called."""

    def __init__(self, lines: list[str]):
        self._pipe = None
        if not lines:
            return
        import subprocess  # (only a run with exports starts the watcher)

        read, write = os.pipe()
        try:
            # A session of its own: the terminal's Ctrl-C and hang-up go to graphscope, not to it.
            self._watcher = subprocess.Popen(
                [sys.executable, "-I", "-S", "-c", _WATCHER, "\n".join(lines)],
                stdin=read,
                stdout=subprocess.DEVNULL,
                start_new_session=True,
            )
        except OSError:
            os.close(write)  # no watcher: a crash says nothing more than it would without graphscope
        else:
            self._pipe = write
        finally:
            os.close(read)

    def settled(self) -> None:
        """The exports were written, or the reason they were not was printed: nothing to add."""
        if self._pipe is not None:
            os.write(self._pipe, b"\n")
            os.close(self._pipe)
            self._pipe = None

"""Run a user's script as `__main__` with its own argv and path, and turn every ending into an outcome."""

from __future__ import annotations

import os
import runpy
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass


class SessionQuit(BaseException):
    """Raised inside the script's thread to unwind it when the user quits the debugger."""


@dataclass(frozen=True)
class Outcome:
    """How the script ended: its exit code, and the exception (with a traceback from the
    script's own first frame) if it raised."""

    exit_code: int
    error: BaseException | None = None
    traceback: str = ""
    quit: bool = False


def _exit_code(code: object) -> tuple[int, str]:
    """sys.exit's argument as an exit code and a message (sys.exit("msg") prints it, exits 1)."""
    if code is None:
        return 0, ""
    if isinstance(code, int):
        return code, ""
    return 1, str(code)


def _user_traceback(error: BaseException, script: str) -> str:
    """The traceback from the script's first frame on (the runner's frames above it dropped)."""
    frames = traceback.extract_tb(error.__traceback__)
    script = os.path.abspath(script)
    start = next((i for i, f in enumerate(frames) if os.path.abspath(f.filename) == script), 0)
    lines = ["Traceback (most recent call last):\n"]
    lines += traceback.format_list(frames[start:])
    lines += traceback.format_exception_only(type(error), error)
    return "".join(lines)


def run_script(
    script: str, argv: list[str], restate: Callable[[BaseException], BaseException] | None = None
) -> Outcome:
    """Run `script` as __main__ with sys.argv = [script, *argv] and its folder first on sys.path.

    Both are restored afterwards. Never raises for anything the script does. `restate(error)`, if
    given, may replace the error the script failed with (--as-torch names missing torch names).
    """
    saved_argv, saved_path = sys.argv[:], sys.path[:]
    sys.argv = [script, *argv]
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    try:
        runpy.run_path(script, run_name="__main__")
    except SessionQuit:
        return Outcome(exit_code=130, quit=True)
    except SystemExit as exit_:
        code, message = _exit_code(exit_.code)
        if message:
            print(message, file=sys.stderr)
        return Outcome(exit_code=code)
    except KeyboardInterrupt as error:
        return Outcome(exit_code=130, error=error, traceback=_user_traceback(error, script))
    except BaseException as error:  # noqa: BLE001 (the script's own failure, reported, never lost)
        if restate is not None:
            error = restate(error)
        return Outcome(exit_code=1, error=error, traceback=_user_traceback(error, script))
    finally:
        sys.argv[:] = saved_argv
        sys.path[:] = saved_path
    return Outcome(exit_code=0)

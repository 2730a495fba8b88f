"""The session layer: runs a user's script in a thread under the recorder, pausing in backward."""

from .session import Session, SessionOptions
from .state import Breakpoint, SessionState

__all__ = ["Breakpoint", "Session", "SessionOptions", "SessionState"]

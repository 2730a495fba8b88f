"""The session layer: the debuggee (a cursor over the record) and a user's script run under it."""

from .breakpoint import Breakpoint, NodeKey
from .debuggee import Debuggee
from .session import Session, SessionOptions
from .state import SessionState, State

__all__ = ["Breakpoint", "Debuggee", "NodeKey", "Session", "SessionOptions", "SessionState", "State"]

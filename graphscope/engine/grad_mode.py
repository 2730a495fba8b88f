"""Grad mode: whether ops record graph nodes (no_grad, enable_grad, set_grad_enabled)."""

from __future__ import annotations

import functools


class _GradMode:
    """One flag read by every op; a plain attribute keeps that read cheap."""

    __slots__ = ("enabled",)

    def __init__(self):
        self.enabled = True


state = _GradMode()
_new = object.__new__  # `with no_grad():` runs once per training step: its construction is kept short


def is_grad_enabled() -> bool:
    return state.enabled


class set_grad_enabled:
    """Turn recording on or off: as a function call, a context manager or a decorator."""

    def __init__(self, mode: bool):
        self.prev = state.enabled
        self.mode = bool(mode)
        state.enabled = self.mode

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        state.enabled = self.prev
        return False

    def __call__(self, func):
        state.enabled = self.prev

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with set_grad_enabled(self.mode):
                return func(*args, **kwargs)

        return wrapper


class _GradModeContext:
    """Base of no_grad / enable_grad: a context manager that is also a decorator."""

    mode = True

    def __new__(cls, func=None):
        self = _new(cls)
        return self if func is None else self(func)  # also usable bare: @no_grad

    def __enter__(self):
        self.prev = state.enabled
        state.enabled = self.mode

    def __exit__(self, exc_type, exc, traceback):
        state.enabled = self.prev
        return False

    def __call__(self, func):
        mode = self.mode

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            prev = state.enabled
            state.enabled = mode
            try:
                return func(*args, **kwargs)
            finally:
                state.enabled = prev

        return wrapper


class no_grad(_GradModeContext):
    """Ops inside record no graph nodes (for updates and evaluation)."""

    mode = False


class enable_grad(_GradModeContext):
    """Ops inside record graph nodes even within no_grad."""

    mode = True


class inference_mode(_GradModeContext):
    """As torch.inference_mode: no graph is recorded inside (the engine has no separate inference
    tensors, so this is no_grad); inference_mode(False) leaves grad mode as it is."""

    mode = False  # None: leave grad mode as it is

    def __new__(cls, mode=True):
        if callable(mode) and not isinstance(mode, bool):
            return super().__new__(cls, mode)  # used bare: @inference_mode
        self = super().__new__(cls)
        self.mode = None if not mode else False
        return self

    def __enter__(self):
        self.prev = state.enabled
        if self.mode is not None:
            state.enabled = self.mode

    def __call__(self, func):
        if self.mode is None:
            return func
        return super().__call__(func)

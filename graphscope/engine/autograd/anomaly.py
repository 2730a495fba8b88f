"""detect_anomaly: backward raises at the first node that produces NaN/Inf, naming its source line."""

from __future__ import annotations

import linecache
import weakref

from ..backend import namespace
from ..hooks import Observer, install, observe, uninstall
from ..outer_grad import multiplied


class _AnomalyObserver(Observer):
    """Remembers where each node was created and checks every grad a node produces."""

    def __init__(self, check_nan: bool):
        self.check_nan = check_nan
        self.sites: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    def node_created(self, node, inputs, output, site):
        self.sites[node] = site

    def after_node(self, node, grad_inputs):
        if not self.check_nan:
            return
        for i, g in enumerate(multiplied(grad_inputs)):
            if g is not None and not _finite(g):
                site = self.sites.get(node)
                where = "an unknown place"
                if site is not None:
                    line = linecache.getline(site.file, site.line).strip()
                    where = f"{site.file}:{site.line} in {site.function}" + (f": {line}" if line else "")
                raise RuntimeError(
                    f"Function '{node.name()}' returned nan values in its {i}th output. The node was created at {where}"
                )


def _finite(array) -> bool:
    xp = namespace(array)
    return bool(xp.all(xp.isfinite(array)))


class detect_anomaly:
    """Context manager (and decorator): make backward fail loudly at the first NaN/Inf gradient."""

    def __init__(self, check_nan: bool = True):
        self.check_nan = check_nan

    def __enter__(self):
        self._context = observe(_AnomalyObserver(self.check_nan))
        self._context.__enter__()
        return self

    def __exit__(self, *exc):
        return self._context.__exit__(*exc)

    def __call__(self, func):
        import functools

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with detect_anomaly(self.check_nan):
                return func(*args, **kwargs)

        return wrapper


_switched_on = None


def set_detect_anomaly(mode: bool) -> None:
    """Turn anomaly detection on or off for the rest of the program."""
    global _switched_on
    if mode and _switched_on is None:
        _switched_on = _AnomalyObserver(check_nan=True)
        install(_switched_on)
    elif not mode and _switched_on is not None:
        uninstall(_switched_on)
        _switched_on = None

"""Random numbers: one seeded generator per device, so manual_seed makes runs reproducible."""

from __future__ import annotations

import numpy as np

from . import backend

_seed = None
_generators: dict = {}


class Generator:
    """Draws arrays on one device from a seeded bit generator."""

    def __init__(self, device: backend.Device, seed):
        self.device = device
        if device.type == "cpu":
            self._rng = np.random.default_rng(seed)
        else:
            cupy = backend.cuda_module()
            with cupy.cuda.Device(device.index or 0):
                self._rng = cupy.random.default_rng(seed)

    def normal(self, shape, dtype):
        return self._rng.standard_normal(shape, dtype=_float_dtype(dtype))

    def uniform(self, low, high, shape, dtype):
        values = self._rng.random(shape, dtype=_float_dtype(dtype))
        if low != 0.0 or high != 1.0:
            values = values * (high - low) + low
        return values.astype(dtype, copy=False)

    def integers(self, low, high, shape, dtype):
        return self._rng.integers(low, high, size=shape, dtype=dtype)

    def permutation(self, n):
        return self._rng.permutation(n)


def _float_dtype(dtype):
    dtype = np.dtype(dtype)
    return dtype if dtype in (np.float32, np.float64) else np.float64


def manual_seed(seed: int):
    """Seed every device's generator (as torch.manual_seed)."""
    global _seed
    _seed = int(seed)
    _generators.clear()
    return _seed


def seed() -> int:
    """Reseed from fresh entropy and return the new seed."""
    return manual_seed(int(np.random.SeedSequence().entropy % (2**63)))


def initial_seed():
    return _seed


def generator_for(device) -> Generator:
    device = backend.as_device(device)
    generator = _generators.get(device)
    if generator is None:
        generator = _generators[device] = Generator(device, _seed)
    return generator

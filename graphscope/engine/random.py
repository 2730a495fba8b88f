"""Random numbers: one seeded generator per device, so manual_seed makes runs reproducible."""

from __future__ import annotations

import os

from . import backend, dtypes

_seed = None
_generators: dict = {}
_type_seeds: dict = {}  # device type -> its own seed (torch.cuda.manual_seed_all), over _seed


class Generator:
    """Draws arrays on one device from a seeded bit generator.

    The device type's generator (NumPy's or CuPy's Generator, or a test device's) draws in
    float32/float64/int64 on the device; other dtypes are cast there.
    """

    def __init__(self, device: backend.Device, seed):
        self.device = device
        self._rng = backend.device_type(device).generator(seed, device)

    def _native(self, dtype):
        return backend.native_dtype_for(dtype, self.device)

    def normal(self, shape, dtype):
        """Standard normal samples of `shape`, in the graphscope `dtype`."""
        dtype = dtypes.from_any(dtype)
        values = self._rng.standard_normal(shape, dtype=_drawn(dtype).numpy)
        return self._cast(values, dtype)

    def uniform(self, low, high, shape, dtype):
        dtype = dtypes.from_any(dtype)
        values = self._rng.random(shape, dtype=_drawn(dtype).numpy)
        if low != 0.0 or high != 1.0:
            values = values * (high - low) + low
        return self._cast(values, dtype)

    def integers(self, low, high, shape, dtype):
        dtype = dtypes.from_any(dtype)
        drawn = dtypes.int64 if dtype.is_floating_point or dtype is dtypes.bool_ else dtype
        values = self._rng.integers(low, high, size=shape, dtype=drawn.numpy)
        return self._cast(values, dtype)

    def permutation(self, n):
        """0..n-1 shuffled, as int64."""
        permutation = getattr(self._rng, "permutation", None)
        if permutation is not None:
            return permutation(n)
        keys = self._rng.random((n,), dtype=dtypes.float64.numpy)  # CuPy's Generator has none
        return backend.namespace(keys).argsort(keys)

    def _cast(self, values, dtype):
        native = self._native(dtype)
        return values if values.dtype == native else backend.astype(values, native, copy=False)


def _drawn(dtype):
    """The dtype the bit generator draws in for `dtype` (float16 is drawn in float32)."""
    return dtype if dtype in (dtypes.float32, dtypes.float64) else dtypes.float32


def manual_seed(seed: int):
    """Seed every device's generator (as torch.manual_seed)."""
    global _seed
    _seed = int(seed)
    _generators.clear()
    _type_seeds.clear()
    return _seed


def manual_seed_device_type(kind: str, seed: int) -> None:
    """Seed the generators of every device of one type (`cuda`), as torch.cuda.manual_seed_all."""
    _type_seeds[kind] = int(seed)
    for device in [d for d in _generators if d.type == kind]:
        del _generators[device]


def seed() -> int:
    """Reseed from fresh entropy and return the new seed."""
    return manual_seed(int.from_bytes(os.urandom(8), "little") % (2**63))


def initial_seed():
    return _seed


def generator_for(device) -> Generator:
    device = backend.as_device(device)
    generator = _generators.get(device)
    if generator is None:
        generator = _generators[device] = Generator(device, _type_seeds.get(device.type, _seed))
    return generator

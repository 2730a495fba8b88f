"""Random numbers: seeded generators (torch.Generator), one global per device, so seeds make runs reproducible."""

from __future__ import annotations

import operator
import os

from . import backend, dtypes

DEFAULT_SEED = 67280421310721  # the seed a new torch.Generator starts from
_SEEDS = 2**64  # seeds are unsigned 64-bit; a negative one wraps around, as torch's
_type_seeds: dict = {}  # device type -> its own seed (torch.cuda.manual_seed_all), over _seed


class Generator:
    """A seeded stream of random numbers on one device (torch.Generator): same seed, same draws.

    The device type's bit generator (NumPy's or CuPy's Generator, or a test device's) offers
    standard_normal, random and integers in float32/float64/int64, poisson, and optionally
    permutation; other dtypes are cast on the device. The numbers are graphscope's, not torch's.
    """

    def __init__(self, device="cpu"):
        self.device = backend.as_device(device)
        self._kind = backend.device_type(self.device)  # a clear error if the device can't be used
        self._reseed(DEFAULT_SEED)

    def _reseed(self, seed: int) -> None:
        self._initial_seed = seed
        self._bits = None

    @property
    def _rng(self):
        """The device's bit generator, made at the first draw (so `import graphscope` doesn't load
        numpy.random)."""
        if self._bits is None:
            self._bits = self._kind.generator(self._initial_seed, self.device)
        return self._bits

    # --- torch.Generator's API -------------------------------------------------------------------

    def manual_seed(self, seed) -> Generator:
        self._reseed(checked_seed(seed))
        return self

    def seed(self) -> int:
        """Reseed from fresh entropy and return the new seed."""
        seed = fresh_seed()
        self._reseed(seed)
        return seed

    def initial_seed(self) -> int:
        return self._initial_seed

    def get_state(self):
        """The generator's state as a uint8 CPU tensor, for set_state."""
        from .tensor import wrap

        return wrap(self._kind.generator_state(self._rng))

    def set_state(self, new_state) -> Generator:
        from .tensor import Tensor

        if not isinstance(new_state, Tensor):
            raise TypeError(f"expected a torch.ByteTensor, but got {type(new_state).__name__}")
        if new_state.dtype is not dtypes.uint8:
            raise TypeError(
                f"RNG state must be a torch.ByteTensor (uint8), got {new_state.dtype}; "
                "pass a state from Generator.get_state()"
            )
        self._kind.set_generator_state(self._rng, backend.to_host(new_state.array))
        return self

    # --- draws, used by the random functions -------------------------------------------------------

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

    def poisson(self, rates, dtype):
        """One Poisson count per rate in the device array `rates`, in the graphscope `dtype`."""
        return self._cast(self._rng.poisson(rates), dtypes.from_any(dtype))

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


def checked_seed(seed) -> int:
    """`seed` as an unsigned 64-bit int, or torch's error for anything else."""
    try:
        seed = operator.index(seed)
    except TypeError:
        raise RuntimeError(f"manual_seed expected a long, but got {type(seed).__name__}") from None
    if not -(2**63) <= seed < _SEEDS:
        raise ValueError(f"Overflow when unpacking long long: a seed must lie in [-2**63, 2**64), got {seed}")
    return seed % _SEEDS


def fresh_seed() -> int:
    return int.from_bytes(os.urandom(8), "little") % (2**63)


def manual_seed(seed) -> Generator:
    """Seed every device's global generator (as torch.manual_seed); returns the CPU's."""
    global _seed
    _seed = checked_seed(seed)
    _type_seeds.clear()
    for generator in _generators.values():
        generator._reseed(_seed)
    return default_generator


def manual_seed_device_type(kind: str, seed: int) -> None:
    """Seed the generators of every device of one type (`cuda`), as torch.cuda.manual_seed_all."""
    _type_seeds[kind] = checked_seed(seed)
    for device, generator in _generators.items():
        if device.type == kind:
            generator._reseed(_type_seeds[kind])


def seed() -> int:
    """Reseed every device's global generator from fresh entropy and return the new seed."""
    manual_seed(fresh_seed())
    return _seed


def initial_seed() -> int:
    return _seed


def get_rng_state():
    """The CPU's global generator state (torch.get_rng_state), for set_rng_state."""
    return default_generator.get_state()


def set_rng_state(new_state) -> None:
    default_generator.set_state(new_state)


def generator_for(device) -> Generator:
    """The global generator of `device`."""
    device = backend.as_device(device)
    generator = _generators.get(device)
    if generator is None:
        generator = _generators[device] = Generator(device)
        generator._reseed(_type_seeds.get(device.type, _seed))
    return generator


def drawing(generator, device, function: str) -> Generator:
    """The generator `function` draws from for a result on `device`: `generator` if given (it
    must live on that device, as torch requires), else the device's global one."""
    device = backend.as_device(device)
    if generator is None:
        return generator_for(device)
    if not isinstance(generator, Generator):
        raise TypeError(f"{function}(): generator must be a torch.Generator, not {type(generator).__name__}")
    if generator.device != device:
        raise RuntimeError(
            f"Expected a '{device}' device type for generator but found '{generator.device}' (in "
            f"{function}()); make the generator on the result's device: Generator(device='{device}')"
        )
    return generator


_seed = fresh_seed()  # unseeded runs differ, as before; torch.initial_seed() still tells the seed
default_generator = Generator(backend.CPU)
default_generator._reseed(_seed)
_generators: dict = {backend.CPU: default_generator}

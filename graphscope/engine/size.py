"""Size: the tuple of ints that `Tensor.shape` and `Tensor.size()` return (as torch.Size)."""

from __future__ import annotations

import operator

from . import library_name


class Size(tuple):
    """A tensor's shape: a tuple whose slices, sums and repeats stay Sizes, printed as torch does."""

    __slots__ = ()

    def __new__(cls, sizes=()):
        return tuple.__new__(cls, (_int(n, i) for i, n in enumerate(sizes)))

    def __getitem__(self, index):
        item = tuple.__getitem__(self, index)
        return tuple.__new__(Size, item) if isinstance(index, slice) else item

    def __add__(self, other):
        return tuple.__new__(Size, tuple.__add__(self, other))

    def __radd__(self, other):
        if not isinstance(other, tuple):
            return NotImplemented
        return tuple.__new__(Size, tuple.__add__(other, self))

    def __mul__(self, times):
        return tuple.__new__(Size, tuple.__mul__(self, times))

    __rmul__ = __mul__

    def numel(self) -> int:
        """The number of elements a tensor of this shape holds."""
        count = 1
        for n in self:
            count *= n
        return count

    def __repr__(self):
        return f"{library_name.library()}.Size([{', '.join(map(str, self))}])"

    __str__ = __repr__

    def __reduce__(self):
        return (Size, (tuple(self),))


def _int(n, i: int) -> int:
    try:
        return operator.index(n)
    except TypeError:
        raise TypeError(f"Size() takes an iterable of 'int' (item {i} is '{type(n).__name__}')") from None


def of(shape) -> Size:
    """A Size for an array's shape (a tuple of ints: no checks, the engine's fast path)."""
    return tuple.__new__(Size, shape)

"""Devices and their array modules: NumPy for `cpu`, CuPy for `cuda`, chosen here and nowhere else.

Op code elsewhere in the engine is written against the array API standard through
`xp = namespace(array)`; what the standard lacks, and the few calls whose standard spelling is
slow in NumPy, are the array helpers (arrays.py), which ask the array's `DeviceType`
(registry.py), of which there is one per kind of device (numpy_cpu.py, cupy_cuda.py). Tests
register one more, backed by array-api-strict, to prove that the engine needs nothing else.
Callers use the package's names (`backend.reshape`, `backend.Device`), not its modules.
"""

from .arrays import (
    CPU_ARRAY,
    NUMPY_FLOATS,
    arange,
    asarray,
    astype,
    bincount,
    copy,
    create,
    cumprod,
    device_of,
    dtype_kind,
    dtype_name,
    dtype_of,
    fill,
    from_bytes,
    from_data,
    from_host,
    from_storage,
    full,
    into,
    is_array,
    is_floating,
    is_private,
    keep,
    matmul,
    matrix_transpose,
    mean,
    namespace,
    native_dtype,
    native_dtype_for,
    ones_like,
    permute_dims,
    put,
    reshape,
    same_device,
    scalar,
    scalars,
    scatter_add,
    sum,
    take,
    to_bytes,
    to_device,
    to_host,
    updater,
    viewable,
    writeable,
    zeros,
)
from .device import (
    CPU,
    Device,
    as_device,
    cuda_available,
    cuda_device_count,
    get_default_device,
    set_default_device,
)
from .numpy_cpu import numpy_dtype_name
from .registry import (
    DEVICE_TYPES,
    DeviceType,
    device_type,
    register_device_type,
    type_of,
)

# The device model's public names keep the package as their home, as NumPy's `set_module` does:
# pickles that hold a Device, and the README's API list (grouped by module), name `backend`.
for _public in (Device, as_device, cuda_available, cuda_device_count, get_default_device, set_default_device):
    _public.__module__ = __name__
del _public

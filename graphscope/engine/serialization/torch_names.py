"""The names torch's files give to dtypes: storage classes (`torch.FloatStorage`) and dtype globals."""

from __future__ import annotations

from .. import dtypes

STORAGE_NAMES = {
    dtypes.float32: "FloatStorage",
    dtypes.float64: "DoubleStorage",
    dtypes.float16: "HalfStorage",
    dtypes.int64: "LongStorage",
    dtypes.int32: "IntStorage",
    dtypes.int16: "ShortStorage",
    dtypes.int8: "CharStorage",
    dtypes.uint8: "ByteStorage",
    dtypes.bool_: "BoolStorage",
}
STORAGE_DTYPES = {name: dtype for dtype, name in STORAGE_NAMES.items()}

# torch's dtypes that graphscope lacks, by the names torch's files use for them.
MISSING_DTYPES = {
    "BFloat16Storage": "bfloat16",
    "ComplexFloatStorage": "complex64",
    "ComplexDoubleStorage": "complex128",
    "ComplexHalfStorage": "complex32",
    "QInt8Storage": "qint8",
    "QUInt8Storage": "quint8",
    "QInt32Storage": "qint32",
    "QUInt4x2Storage": "quint4x2",
    "QUInt2x4Storage": "quint2x4",
}

DTYPE_NAMES = {dtype: dtype.name for dtype in STORAGE_NAMES}  # torch.float32 is "torch float32"
DTYPES = {name: dtype for dtype, name in DTYPE_NAMES.items()}


def missing_dtype_error(what: str, dtype_name: str) -> TypeError:
    """The error for a tensor or dtype in a file whose dtype graphscope has no counterpart for."""
    supported = ", ".join(DTYPES)
    return TypeError(
        f"{what} holds {dtype_name} data, and graphscope has no {dtype_name} dtype (it has "
        f"{supported}): in PyTorch, convert those tensors (e.g. with .float()) before torch.save"
    )

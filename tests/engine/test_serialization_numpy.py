"""NumPy arrays in torch.save's files, as torch 2.13: written pickle for pickle as torch writes them, loaded
with weights_only=False (rebuilt without running code from the file) and refused by default, as torch."""

import io
import pickle
import re
import zipfile

import numpy as np
import pytest
import torch

import graphscope as gs
from graphscope.engine.serialization import archive

ARRAYS = {
    "float32 matrix": np.arange(6, dtype=np.float32).reshape(2, 3),
    "int64 vector": np.arange(5),
    "big-endian float64": np.arange(4, dtype=">f8").reshape(2, 2),
    "bools": np.array([True, False, True]),
    "complex64": np.arange(3, dtype=np.complex64) * 1j,
    "Fortran order": np.asfortranarray(np.arange(6.0).reshape(2, 3)),
    "a strided view": np.arange(12.0).reshape(3, 4)[:, ::2],
    "empty": np.zeros((0, 3), dtype=np.int16),
    "0-d": np.array(7.5),
    "a float32 scalar": np.float32(2.5),
    "an int8 scalar": np.int8(-3),
}


def saved(obj, save) -> bytes:
    buffer = io.BytesIO()
    save(obj, buffer)
    return buffer.getvalue()


def data_pkl(file: bytes) -> bytes:
    archive_file = zipfile.ZipFile(io.BytesIO(file))
    return archive_file.read(next(name for name in archive_file.namelist() if name.endswith("/data.pkl")))


def same_array(got, expected) -> None:
    assert type(got) is type(expected) and got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("name", ARRAYS)
def test_graphscope_writes_torchs_pickle_of_an_array(name):
    obj = {"array": ARRAYS[name], "same again": ARRAYS[name], "tensor": 1}
    assert data_pkl(saved(obj, gs.save)) == data_pkl(saved(obj, torch.save))


@pytest.mark.parametrize("name", ARRAYS)
def test_arrays_load_both_ways_with_weights_only_false(name):
    array = ARRAYS[name]
    expected = torch.load(io.BytesIO(saved(array, torch.save)), weights_only=False)  # (native byte order)
    np.testing.assert_array_equal(expected, array)
    same_array(gs.load(io.BytesIO(saved(array, torch.save)), weights_only=False), expected)
    same_array(torch.load(io.BytesIO(saved(array, gs.save)), weights_only=False), expected)


def test_arrays_beside_tensors_and_shared_arrays_come_back_as_one():
    array = np.arange(3.0)
    loaded = gs.load(
        io.BytesIO(saved({"a": array, "b": array, "t": torch.ones(2)}, torch.save)),
        weights_only=False,
    )
    assert loaded["a"] is loaded["b"] and loaded["t"].tolist() == [1.0, 1.0]
    loaded["a"][0] = 9.0
    assert array[0] == 0.0  # a copy of the file's values, writable


def test_a_file_of_numpy_1_names_loads():
    data = data_pkl(saved(np.arange(3), torch.save)).replace(b"numpy._core.multiarray", b"numpy.core.multiarray")
    buffer = io.BytesIO()
    archive.write(buffer, data, [])
    buffer.seek(0)
    same_array(gs.load(buffer, weights_only=False), np.arange(3))


@pytest.mark.parametrize("weights_only", [None, True])
def test_arrays_are_refused_by_default_as_torch_2_13_refuses_them(weights_only):
    for load, file in ((torch.load, saved(np.arange(3), gs.save)), (gs.load, saved(np.arange(3), torch.save))):
        with pytest.raises(pickle.UnpicklingError) as refused:
            load(io.BytesIO(file), weights_only=weights_only)
    message = str(refused.value)
    assert "numpy._core.multiarray._reconstruct" in message and "weights_only=False" in message
    assert "\n" not in message


@pytest.mark.parametrize(
    "obj, what",
    [
        (np.array([1, "a"], dtype=object), "dtype object"),
        (np.zeros(2, dtype=[("x", "f4"), ("y", "i4")]), "dtype [('x', '<f4'), ('y', '<i4')]"),
        (np.array(["ab"]), "dtype <U2"),
    ],
    ids=["objects", "structured", "text"],
)
def test_arrays_of_other_than_numbers_are_not_saved(obj, what):
    with pytest.raises(TypeError, match="cannot save a NumPy ndarray of " + re.escape(what)):
        gs.save(obj, io.BytesIO())

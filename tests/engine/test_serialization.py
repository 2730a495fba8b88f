"""graphscope.save / graphscope.load: torch.save's file format, both ways with PyTorch 2.13, loaded
without running code from the file, and map_location as torch."""

import io
import pickle
import zipfile
from collections import OrderedDict

import numpy as np
import pytest
import torch

import graphscope as gs
from graphscope.engine.serialization import archive
from graphscope.engine.serialization.pickle_writer import Call, Global, PersistentId, PickleWriter
from tests.engine import strict_device
from tests.engine.torch_reference import dtype_name

strict_device.register()

DTYPES = ["float32", "float64", "float16", "int64", "int32", "int16", "int8", "uint8", "bool"]


def sample(dtype: str, shape=(3, 4)) -> np.ndarray:
    """Values that exercise every bit pattern class of `dtype` (NaN, infinities and -0.0 for floats)."""
    rng = np.random.default_rng(0)
    if dtype == "bool":
        return rng.random(shape) > 0.5
    if dtype.startswith("float"):
        values = rng.standard_normal(shape).astype(dtype)
        flat = values.reshape(-1)
        flat[:4] = [np.nan, np.inf, -np.inf, -0.0][: flat.size]
        return values
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)


def on_test_device(values: np.ndarray):
    """A tensor of `values` on the default (test) device; skipped where that device lacks the dtype."""
    try:
        return gs.tensor(values)
    except TypeError as error:
        pytest.skip(str(error))


def bits(t) -> bytes:
    return np.ascontiguousarray(np.asarray(t)).tobytes()


def saved(obj, save=gs.save) -> io.BytesIO:
    buffer = io.BytesIO()
    save(obj, buffer)
    buffer.seek(0)
    return buffer


def round_trip(obj, **load_args):
    return gs.load(saved(obj), **load_args)


def with_pickle(data: bytes, storages=()) -> io.BytesIO:
    """An archive holding a hand-written data.pkl (to test what a damaged or hostile file does)."""
    buffer = io.BytesIO()
    archive.write(buffer, data, list(storages))
    buffer.seek(0)
    return buffer


def written(obj) -> bytes:
    """`obj` pickled by graphscope's writer (Call/Global/PersistentId spell torch's objects)."""
    return PickleWriter(lambda o: (_ for _ in ()).throw(TypeError(type(o)))).dumps(obj)


def float_storage(key="0", location="cpu", numel=4):
    return PersistentId(("storage", Global("torch", "FloatStorage"), key, location, numel))


def rebuild(storage, offset=0, size=(4,), stride=(1,), requires_grad=False, hooks=None):
    return Call(
        Global("torch._utils", "_rebuild_tensor_v2"),
        (storage, offset, size, stride, requires_grad, OrderedDict() if hooks is None else hooks),
    )


FOUR_FLOATS = np.arange(4, dtype=np.float32).tobytes()


# --- graphscope -> graphscope ---------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
def test_a_tensor_comes_back_bit_exact(dtype):
    t = on_test_device(sample(dtype))
    back = round_trip(t)
    assert type(back) is gs.Tensor and back.dtype == t.dtype and back.shape == t.shape
    assert back.device == t.device and not back.requires_grad and back.is_leaf
    assert bits(back) == bits(t)


@pytest.mark.parametrize("shape", [(), (0,), (0, 3), (2, 0, 3), (1,), (2, 3, 4)], ids=str)
def test_any_shape_comes_back(shape):
    t = gs.tensor(sample("float64", shape))
    back = round_trip(t)
    assert back.shape == shape and bits(back) == bits(t)


def test_a_non_contiguous_tensor_comes_back_with_its_values():
    t = gs.tensor(sample("float32", (3, 4))).T
    back = round_trip(t)
    assert back.shape == (4, 3) and bits(back) == bits(t)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_requires_grad_comes_back_and_the_loaded_tensor_is_a_leaf(dtype):
    x = gs.tensor([1.0, 2.0], dtype=getattr(gs, dtype), requires_grad=True)
    y = x * 2  # a non-leaf: torch saves its values and requires_grad, not its graph
    back_x, back_y = round_trip([x, y])
    assert back_x.requires_grad and back_x.is_leaf and back_x.grad is None
    assert back_y.requires_grad and back_y.is_leaf and back_y.tolist() == [2.0, 4.0]
    back_y.sum().backward()
    assert back_y.grad.tolist() == [1.0, 1.0]


def test_a_parameter_comes_back_as_a_parameter():
    weight = gs.nn.Parameter(gs.tensor([[1.0, 2.0]]))
    frozen = gs.nn.Parameter(gs.tensor([3.0]), requires_grad=False)
    back_weight, back_frozen = round_trip((weight, frozen))
    assert type(back_weight) is gs.nn.Parameter and back_weight.requires_grad
    assert type(back_frozen) is gs.nn.Parameter and not back_frozen.requires_grad
    assert back_weight.tolist() == [[1.0, 2.0]] and back_frozen.tolist() == [3.0]


def test_nested_plain_values_come_back_equal():
    value = {
        "ints": [0, 255, 256, 65535, 65536, -1, 2**31, -(2**31) - 1, 2**70, -(2**2100)],
        "floats": (1.5, -0.0, float("inf")),
        "complex": 1 - 2j,
        "text": "é ✓",
        "bytes": b"\x00\xff",
        "empty": ["", b"", (), [], {}, set(), OrderedDict()],
        "flags": (True, False, None),
        "ordered": OrderedDict([("b", 1), ("a", 2)]),
        "set": {1, 2, 3},
        "tuple": (1, (2, (3, 4, 5, 6))),
        "dtypes": [gs.float16, gs.int64, gs.bool],
        "devices": [gs.device("cpu"), gs.device("cuda:1")],
        "many": list(range(2500)),
        7: "int key",
    }
    back = round_trip(value)
    assert back == value
    assert type(back["ordered"]) is OrderedDict and list(back["ordered"]) == ["b", "a"]
    assert back["dtypes"][0] is gs.float16 and type(back["devices"][1]) is gs.device


def test_tensors_in_containers_come_back():
    t, u = gs.tensor([1.0, 2.0]), gs.tensor([[3]], dtype=gs.int32)
    back = round_trip({"pair": (t, u), "list": [t], "nested": {"u": u}})
    assert back["pair"][0].tolist() == [1.0, 2.0] and back["pair"][1].dtype == gs.int32
    assert back["list"][0] is back["pair"][0] and back["nested"]["u"] is back["pair"][1]


def test_a_list_that_contains_itself_comes_back():
    value = [1]
    value.append(value)
    back = round_trip(value)
    assert back[0] == 1 and back[1] is back


@pytest.mark.cpu_only
def test_tensors_of_one_array_share_memory_after_loading_as_in_torch():
    model = gs.nn.Linear(2, 3)
    back = round_trip({"param": model.weight, "state": model.state_dict()})
    back["param"].data.array[0, 0] = 42.0
    assert back["state"]["weight"][0, 0].item() == 42.0


def test_a_state_dict_loads_into_a_new_model():
    gs.manual_seed(0)
    model = gs.nn.Sequential(gs.nn.Linear(3, 4), gs.nn.ReLU(), gs.nn.Linear(4, 2))
    state = round_trip(model.state_dict())
    assert type(state) is OrderedDict and list(state) == list(model.state_dict())
    fresh = gs.nn.Sequential(gs.nn.Linear(3, 4), gs.nn.ReLU(), gs.nn.Linear(4, 2))
    fresh.load_state_dict(state)
    x = gs.randn(5, 3)
    assert bits(fresh(x).detach()) == bits(model(x).detach())


@pytest.mark.parametrize("optimizer", ["SGD", "Adam", "AdamW", "RMSprop"])
def test_an_optimizer_state_dict_round_trip_continues_training_identically(optimizer):
    options = {"lr": 0.1, "momentum": 0.9} if optimizer in ("SGD", "RMSprop") else {"lr": 0.1}

    def train(model, opt, steps):
        for _ in range(steps):
            opt.zero_grad()
            model(gs.ones(2, 3)).pow(2).sum().backward()
            opt.step()

    gs.manual_seed(0)
    model = gs.nn.Linear(3, 2)
    opt = getattr(gs.optim, optimizer)(model.parameters(), **options)
    train(model, opt, 2)
    checkpoint = round_trip({"model": model.state_dict(), "optim": opt.state_dict()})
    resumed = gs.nn.Linear(3, 2)
    resumed.load_state_dict(checkpoint["model"])
    resumed_opt = getattr(gs.optim, optimizer)(resumed.parameters(), **options)
    resumed_opt.load_state_dict(checkpoint["optim"])
    train(model, opt, 2)
    train(resumed, resumed_opt, 2)
    assert bits(resumed.weight.detach()) == bits(model.weight.detach())
    assert bits(resumed.bias.detach()) == bits(model.bias.detach())


def test_a_scheduler_state_dict_comes_back_equal():
    opt = gs.optim.SGD([gs.nn.Parameter(gs.ones(1))], lr=0.1)
    scheduler = gs.optim.lr_scheduler.StepLR(opt, step_size=2)
    scheduler.step()
    assert round_trip(scheduler.state_dict()) == scheduler.state_dict()


@pytest.mark.parametrize("kind", ["str", "pathlib.Path"])
def test_save_and_load_take_a_path(tmp_path, kind):
    path = str(tmp_path / "t.pt") if kind == "str" else tmp_path / "t.pt"
    gs.save({"t": gs.tensor([1, 2])}, path)
    assert gs.load(path)["t"].tolist() == [1, 2]


def test_load_reads_a_file_object_that_cannot_seek():
    class Stream(io.RawIOBase):
        def __init__(self, data):
            self.data = io.BytesIO(data)

        def readable(self):
            return True

        def readinto(self, buffer):
            return self.data.readinto(buffer)

    assert gs.load(Stream(saved(gs.tensor([5.0])).getvalue())).tolist() == [5.0]


def test_saved_storages_are_64_byte_aligned_as_torch_writes_them():
    data = saved({"a": gs.tensor([1.0]), "b": gs.tensor([2, 3]), "c": gs.tensor([True])}).getvalue()
    records = zipfile.ZipFile(io.BytesIO(data)).infolist()
    storages = [info for info in records if "/data/" in info.filename]
    assert len(storages) == 3
    for info in storages:
        name_length = int.from_bytes(data[info.header_offset + 26 : info.header_offset + 28], "little")
        extra_length = int.from_bytes(data[info.header_offset + 28 : info.header_offset + 30], "little")
        assert (info.header_offset + 30 + name_length + extra_length) % 64 == 0


# --- graphscope <-> torch ---------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
def test_torch_loads_what_graphscope_saved_bit_exact(dtype):
    t = on_test_device(sample(dtype))
    back = torch.load(saved(t), map_location="cpu")
    assert dtype_name(back.dtype) == dtype and tuple(back.shape) == t.shape
    assert back.numpy().tobytes() == bits(t)


def test_torch_memory_maps_what_graphscope_saved(tmp_path):
    gs.save({"a": gs.tensor([1.0, 2.0]), "b": gs.arange(5), "c": gs.tensor([True])}, tmp_path / "t.pt")
    back = torch.load(tmp_path / "t.pt", mmap=True, map_location="cpu")
    assert back["a"].tolist() == [1.0, 2.0] and back["b"].tolist() == list(range(5)) and back["c"].tolist() == [True]


@pytest.mark.parametrize("dtype", DTYPES)
def test_graphscope_loads_what_torch_saved_bit_exact(dtype):
    t = torch.from_numpy(sample(dtype))
    back = gs.load(saved(t, torch.save))
    assert dtype_name(back.dtype) == dtype and back.shape == tuple(t.shape)
    assert back.device == gs.device("cpu") and bits(back) == t.numpy().tobytes()


@pytest.mark.cpu_only
def test_graphscope_writes_the_same_pickle_as_torch():
    values = {
        "ints": [1, 300, 70000, -5, 2**70],
        "text": "é",
        "pair": (1.5, None, True),
        "set": {1},
        "bytes": b"ab",
        "complex": 2j,
        "ordered": OrderedDict(a=1),
    }

    def records(save, obj):
        z = zipfile.ZipFile(saved(obj, save))
        return {name.partition("/")[2]: z.read(name) for name in z.namelist() if not name.endswith("serialization_id")}

    ours = records(
        gs.save,
        {
            **values,
            "t": gs.tensor([[1.0, 2.0]], requires_grad=True),
            "p": gs.nn.Parameter(gs.tensor([3.0, 4.0], dtype=gs.float64)),
            "i": gs.tensor([3, 4], dtype=gs.int16),
            "dtype": gs.float64,
            "device": gs.device("cuda:1"),
        },
    )
    theirs = records(
        torch.save,
        {
            **values,
            "t": torch.tensor([[1.0, 2.0]], requires_grad=True),
            "p": torch.nn.Parameter(torch.tensor([3.0, 4.0], dtype=torch.float64)),
            "i": torch.tensor([3, 4], dtype=torch.int16),
            "dtype": torch.float64,
            "device": torch.device("cuda:1"),
        },
    )
    assert ours == theirs


def test_torch_loads_graphscope_parameters_state_dicts_and_plain_values():
    gs.manual_seed(0)
    model = gs.nn.Linear(2, 3)
    back = torch.load(
        saved(
            {
                "param": model.weight,
                "state": model.state_dict(),
                "dtype": gs.int8,
                "device": gs.device("cpu"),
                "x": [1, (2.5, "s")],
            }
        ),
        map_location="cpu",
    )
    assert type(back["param"]) is torch.nn.Parameter and back["param"].requires_grad
    assert type(back["state"]) is OrderedDict and list(back["state"]) == ["weight", "bias"]
    assert back["state"]["bias"].numpy().tobytes() == bits(model.bias.detach())
    assert back["dtype"] is torch.int8 and back["device"] == torch.device("cpu") and back["x"] == [1, (2.5, "s")]
    torch_model = torch.nn.Linear(2, 3)
    torch_model.load_state_dict(back["state"])
    x = np.ones((1, 2), dtype=np.float32)
    np.testing.assert_allclose(
        torch_model(torch.from_numpy(x)).detach().numpy(), np.asarray(model(gs.tensor(x)).detach()), rtol=1e-6
    )


def test_graphscope_loads_torch_views_with_offsets_and_strides():
    base = torch.arange(24, dtype=torch.float64).reshape(4, 6)
    views = {
        "row": base[2],
        "column": base[:, 3],
        "transposed": base.T,
        "block": base[1:3, 2:5],
        "expanded": torch.tensor([1.0, 2.0]).expand(3, 2),
        "scalar": base[3, 4],
    }
    back = gs.load(saved(views, torch.save))
    for name, view in views.items():
        assert back[name].tolist() == view.tolist(), name


@pytest.mark.cpu_only
def test_torch_views_of_one_storage_share_memory_after_loading():
    base = torch.zeros(2, 3)
    back = gs.load(saved({"base": base, "row": base[1]}, torch.save))
    back["base"].array[1, 2] = 7.0
    assert back["row"].tolist() == [0.0, 0.0, 7.0]


def test_a_torch_state_dict_loads_into_a_graphscope_model():
    torch.manual_seed(0)
    torch_model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2))
    state = gs.load(saved(torch_model.state_dict(), torch.save))
    assert type(state) is OrderedDict and state._metadata[""] == {"version": 1}
    model = gs.nn.Sequential(gs.nn.Linear(3, 4), gs.nn.Tanh(), gs.nn.Linear(4, 2))
    model.load_state_dict(state)
    x = np.random.default_rng(1).standard_normal((5, 3)).astype(np.float32)
    np.testing.assert_allclose(
        np.asarray(model(gs.tensor(x)).detach()),
        torch_model(torch.from_numpy(x)).detach().numpy(),
        rtol=1e-5,
        atol=1e-6,
    )


@pytest.mark.parametrize("optimizer", ["SGD", "Adam", "AdamW", "RMSprop"])
def test_optimizer_checkpoints_resume_across_torch_and_graphscope_both_ways(optimizer):
    """torch trains a step and saves; graphscope loads, trains a step and saves; torch loads and
    trains a third: every step lands where torch alone would (torch's step count is a tensor)."""
    options = {"lr": 0.1} if optimizer.startswith("Adam") else {"lr": 0.1, "momentum": 0.9}

    def step(lib, model, opt):
        opt.zero_grad()
        model(lib.ones(2, 3)).pow(2).sum().backward()
        opt.step()

    def resumed(lib, checkpoint):
        model = lib.nn.Linear(3, 2)
        model.load_state_dict(checkpoint["model"])
        opt = getattr(lib.optim, optimizer)(model.parameters(), **options)
        opt.load_state_dict(checkpoint["optim"])
        return model, opt

    torch.manual_seed(0)
    reference = torch.nn.Linear(3, 2)
    reference_opt = getattr(torch.optim, optimizer)(reference.parameters(), **options)
    step(torch, reference, reference_opt)
    model, opt = resumed(
        gs, gs.load(saved({"model": reference.state_dict(), "optim": reference_opt.state_dict()}, torch.save))
    )
    step(gs, model, opt)
    step(torch, reference, reference_opt)
    np.testing.assert_allclose(np.asarray(model.weight.detach()), reference.weight.detach().numpy(), rtol=1e-6)
    torch_model, torch_opt = resumed(
        torch, torch.load(saved({"model": model.state_dict(), "optim": opt.state_dict()}), map_location="cpu")
    )
    step(torch, torch_model, torch_opt)
    step(torch, reference, reference_opt)
    np.testing.assert_allclose(torch_model.weight.detach().numpy(), reference.weight.detach().numpy(), rtol=1e-6)


def test_torch_sizes_devices_dtypes_and_parameters_load_as_graphscope_values():
    back = gs.load(
        saved(
            {
                "size": torch.Size([2, 3]),
                "device": torch.device("cuda", 1),
                "dtype": torch.float16,
                "param": torch.nn.Parameter(torch.ones(2)),
            },
            torch.save,
        )
    )
    assert back["size"] == (2, 3) and type(back["size"]) is gs.Size
    assert back["device"] == gs.device("cuda:1") and back["dtype"] is gs.float16
    assert type(back["param"]) is gs.nn.Parameter and back["param"].requires_grad


@pytest.mark.parametrize("protocol", [2, 3, 4, 5])
def test_graphscope_loads_torch_files_of_any_pickle_protocol(protocol):
    buffer = io.BytesIO()
    value = {"t": torch.tensor([1.5, 2.5]), "b": b"xyz", "s": {1, 2}, "f": frozenset({3}), "long": "x" * 300}
    torch.save(value, buffer, pickle_protocol=protocol)
    buffer.seek(0)
    back = gs.load(buffer)
    assert back["t"].tolist() == [1.5, 2.5] and back["b"] == b"xyz" and back["s"] == {1, 2}
    assert back["f"] == frozenset({3}) and back["long"] == "x" * 300


def test_the_file_named_torch_save_under_as_torch_is_graphscope_save():
    from graphscope.session.torch_alias import TorchAliases

    with TorchAliases():
        import torch as aliased

        assert aliased.save is gs.save and aliased.load is gs.load


# --- map_location -----------------------------------------------------------------------------------


@pytest.mark.parametrize("default", ["cpu", "strict"])
def test_tensors_come_back_on_the_device_they_were_saved_from_whatever_the_default(default):
    file = saved({"cpu": gs.tensor([1.0], device="cpu"), "strict": gs.tensor([2.0], device="strict")})
    before = gs.get_default_device()
    gs.set_default_device(default)
    try:
        back = gs.load(file)
    finally:
        gs.set_default_device(before)
    assert back["cpu"].device == gs.device("cpu") and back["strict"].device == gs.device("strict:0")


@pytest.mark.parametrize(
    "map_location",
    ["cpu", gs.device("cpu"), {"strict:0": "cpu"}, {"strict:0": gs.device("cpu")}, lambda storage, location: storage],
    ids=["str", "device", "dict", "dict-to-device", "callable"],
)
def test_map_location_moves_tensors_to_the_cpu(map_location):
    back = round_trip([gs.tensor([1.0, 2.0], device="strict")], map_location=map_location)
    assert back[0].device == gs.device("cpu") and back[0].tolist() == [1.0, 2.0]


@pytest.mark.parametrize(
    "map_location",
    ["strict", {"cpu": "strict"}, lambda storage, location: storage.to("strict")],
    ids=["str", "dict", "callable"],
)
def test_map_location_moves_tensors_to_another_device(map_location):
    back = round_trip(gs.tensor([[1, 2]], device="cpu"), map_location=map_location)
    assert back.device == gs.device("strict:0") and back.tolist() == [[1, 2]]


def test_map_location_callable_gets_the_storage_and_its_location_and_none_keeps_it():
    calls = []

    def record(storage, location):
        calls.append((storage.tolist(), location))

    back = round_trip(
        {"a": gs.tensor([1.0, 2.0], device="cpu"), "b": gs.tensor([3], device="strict")}, map_location=record
    )
    assert calls == [([1.0, 2.0], "cpu"), ([3], "strict:0")]
    assert back["a"].device == gs.device("cpu") and back["b"].device == gs.device("strict:0")


def test_a_dict_map_location_leaves_other_locations_where_they_were():
    back = round_trip(gs.tensor([1.0], device="cpu"), map_location={"cuda:0": "strict"})
    assert back.device == gs.device("cpu")


def saved_on(location: str) -> io.BytesIO:
    """A file like one torch writes for a tensor saved on `location`."""
    return with_pickle(written(rebuild(float_storage(location=location))), [FOUR_FLOATS])


@pytest.mark.skipif(gs.cuda.is_available(), reason="about machines without a GPU")
def test_loading_cuda_tensors_without_a_gpu_says_to_map_them_to_the_cpu():
    with pytest.raises(
        RuntimeError,
        match=r"Attempting to deserialize object on a CUDA device but "
        r"graphscope.cuda.is_available\(\) is False. If you are running on a CPU-only "
        r"machine, please use graphscope.load with map_location='cpu'",
    ):
        gs.load(saved_on("cuda:0"))
    with pytest.raises(RuntimeError, match="Attempting to deserialize object on a CUDA device"):
        gs.load(saved_on("cpu"), map_location="cuda")
    assert gs.load(saved({"no": "tensors"}), map_location="cuda") == {"no": "tensors"}
    assert gs.load(saved_on("cuda:0"), map_location="cpu").tolist() == [0.0, 1.0, 2.0, 3.0]
    assert gs.load(saved_on("cuda:0"), map_location={"cuda:0": "cpu"}).device == gs.device("cpu")


@pytest.mark.skipif(not gs.cuda.is_available(), reason="needs a GPU")
def test_cuda_tensors_load_on_their_gpu_and_an_absent_gpu_index_is_an_error():
    back = gs.load(saved_on("cuda:0"))
    assert back.device == gs.device("cuda:0") and back.tolist() == [0.0, 1.0, 2.0, 3.0]
    assert round_trip(back).device == gs.device("cuda:0")
    assert round_trip(back, map_location="cpu").device == gs.device("cpu")
    count = gs.cuda.device_count()
    with pytest.raises(
        RuntimeError,
        match=f"on CUDA device {count} but graphscope.cuda.device_count"
        f"\\(\\) is {count}. Please use graphscope.load with map_location",
    ):
        gs.load(saved_on(f"cuda:{count}"))


def test_an_unknown_saved_location_says_to_use_map_location():
    with pytest.raises(
        RuntimeError,
        match=r"cannot place tensors saved on 'mps': unknown device 'mps'.*"
        r"pass map_location='cpu'",
    ):
        gs.load(saved_on("mps"))
    assert gs.load(saved_on("mps"), map_location="cpu").device == gs.device("cpu")


@pytest.mark.parametrize(
    "map_location, message",
    [
        (3, "map_location must be None, a str, a device, a dict or a callable, got int"),
        (
            {"cpu": 0},
            r"map_location as a dict maps location strings to devices \(e.g. \{'cuda:1': 'cpu'\}\), got 'cpu': 0",
        ),
        (
            lambda storage, location: "cpu",
            r"map_location\(storage, location\) must return a storage \(a tensor in graphscope\) or None, got str",
        ),
    ],
)
def test_a_bad_map_location_is_a_type_error(map_location, message):
    with pytest.raises(TypeError, match=message):
        round_trip(gs.tensor([1.0]), map_location=map_location)


# --- what graphscope will not save --------------------------------------------------------------------


class Custom:
    pass


@pytest.mark.parametrize(
    "obj, name, hint",
    [
        (Custom(), f"{__name__}.Custom", ""),
        (frozenset({1}), "builtins.frozenset", ""),
        (bytearray(b"x"), "builtins.bytearray", ""),
    ],
)
def test_save_refuses_what_torch_load_would_not_load_safely(obj, name, hint):
    with pytest.raises(TypeError) as error:
        gs.save(obj, io.BytesIO())
    assert str(error.value) == (
        f"graphscope.save cannot save a {name} object: it saves tensors, Parameters, dtypes, devices "
        "and nested dict, OrderedDict, list, tuple and set of them with str, bytes, int, float, complex, "
        "bool and None (what torch.load reads with weights_only=True), and NumPy arrays and scalars of bools "
        f"and numbers{hint}"
    )


def test_save_refuses_an_optimizer_and_says_to_save_its_state_dict():
    opt = gs.optim.SGD([gs.nn.Parameter(gs.ones(1))], lr=0.1)
    with pytest.raises(
        TypeError,
        match=r"graphscope.engine.optim.sgd.SGD object: .*; save its state_dict\(\) "
        "instead, and load that into a new SGD",
    ):
        gs.save(opt, io.BytesIO())


def test_save_refuses_a_tuple_that_contains_itself():
    inner = []
    value = (inner,)
    inner.append(value)
    with pytest.raises(ValueError, match=r"cannot save a tuple that contains itself \(through a list or dict in it\)"):
        gs.save(value, io.BytesIO())


def test_save_refuses_too_deep_nesting():
    value = []
    for _ in range(100_000):
        value = [value]
    with pytest.raises(ValueError, match=r"graphscope\.save: the object is nested too deeply to save"):
        gs.save(value, io.BytesIO())


@pytest.mark.parametrize(
    "option, error, message",
    [
        ({"pickle_module": pickle}, TypeError, "graphscope.save writes its own pickles: pickle_module must be None"),
        (
            {"pickle_protocol": 4},
            ValueError,
            r"graphscope.save writes pickle protocol 2 \(torch.save's default\), got pickle_protocol=4",
        ),
        (
            {"_use_new_zipfile_serialization": False},
            ValueError,
            r"graphscope.save writes only torch's zip format "
            r"\(_use_new_zipfile_serialization=True\), not the legacy one",
        ),
        (
            {"_disable_byteorder_record": True},
            ValueError,
            r"graphscope.save always records the byte order \(_disable_byteorder_record=False\)",
        ),
    ],
)
def test_save_options_graphscope_does_not_offer_are_errors(option, error, message):
    with pytest.raises(error, match=message):
        gs.save(gs.ones(1), io.BytesIO(), **option)


@pytest.mark.parametrize("function, mode", [(lambda f: gs.save(1, f), "write"), (gs.load, "read")])
def test_save_and_load_need_a_path_or_a_binary_file(function, mode):
    with pytest.raises(
        TypeError,
        match=rf"expected a path \(str or os.PathLike\) or a binary file object "
        rf"with {mode}\(\), got int",
    ):
        function(3)


# --- what graphscope will not load ----------------------------------------------------------------------

REFUSED = (
    "which graphscope.load does not load{also}: it loads tensors, Parameters, dtypes, devices and "
    "nested dict, OrderedDict, list, tuple and set of them with str, bytes, int, float, complex, bool "
    "and None (what torch.load reads with weights_only=True), and NumPy arrays and scalars of bools and "
    "numbers. If the file holds a whole model "
    "(torch.save(model)), save model.state_dict() instead and load that into the model"
)


@pytest.mark.parametrize(
    "weights_only, also",
    [
        (None, ""),
        (True, ""),
        (False, " (not with weights_only=False either: it never runs code from a file)"),
    ],
)
def test_load_refuses_objects_of_other_classes_and_names_them(weights_only, also):
    buffer = io.BytesIO()
    torch.save({"x": Custom()}, buffer)
    buffer.seek(0)
    with pytest.raises(pickle.UnpicklingError) as error:
        gs.load(buffer, weights_only=weights_only)
    assert str(error.value) == f"the file names {__name__}.Custom, " + REFUSED.format(also=also)


def test_load_refuses_a_whole_torch_model(tmp_path):
    torch.save(torch.nn.Linear(1, 1), tmp_path / "model.pt")
    with pytest.raises(pickle.UnpicklingError) as error:
        gs.load(tmp_path / "model.pt")
    assert str(error.value) == (
        f"{str(tmp_path / 'model.pt')!r} names torch.nn.modules.linear.Linear, " + REFUSED.format(also="")
    )


@pytest.mark.parametrize("weights_only", [None, True, False])
def test_a_whole_torch_model_is_refused_whatever_weights_only_and_says_why(tmp_path, weights_only):
    """torch 2.13 refuses it by default too; with weights_only=False torch would import the model's classes and
    run their code, which graphscope never does for a file."""
    torch.save(torch.nn.Sequential(torch.nn.Linear(1, 1)), tmp_path / "model.pt")
    if weights_only is not False:
        with pytest.raises(pickle.UnpicklingError, match=r"Unsupported global: GLOBAL torch\.nn\.modules"):
            torch.load(tmp_path / "model.pt", weights_only=weights_only)
    with pytest.raises(pickle.UnpicklingError) as error:
        gs.load(tmp_path / "model.pt", weights_only=weights_only)
    message = str(error.value)
    assert "names torch.nn.modules.container.Sequential, which graphscope.load does not load" in message
    assert ("it never runs code from a file" in message) == (weights_only is False)
    assert "save model.state_dict() instead and load that into the model" in message and "\n" not in message


def test_load_never_calls_what_a_hostile_file_names():
    hostile = b"\x80\x02cos\nsystem\nX\x04\x00\x00\x00echoq\x00\x85R."
    with pytest.raises(
        pickle.UnpicklingError, match=r"the file names os\.system, which graphscope\.load does not load"
    ):
        gs.load(with_pickle(hostile))


@pytest.mark.parametrize("dtype, name", [(torch.bfloat16, "bfloat16"), (torch.complex64, "complex64")])
def test_load_explains_that_graphscope_lacks_a_dtype(dtype, name):
    with pytest.raises(TypeError) as error:
        gs.load(saved(torch.ones(2, dtype=dtype), torch.save))
    assert str(error.value) == (
        f"the file holds {name} data, and graphscope has no {name} dtype (it has float32, float64, "
        "float16, int64, int32, int16, int8, uint8, bool): in PyTorch, convert those tensors (e.g. with "
        ".float()) before torch.save"
    )


def test_load_explains_a_bfloat16_dtype_value_too():
    with pytest.raises(TypeError, match="the file holds bfloat16 data, and graphscope has no bfloat16 dtype"):
        gs.load(saved({"dtype": torch.bfloat16}, torch.save))


def test_load_refuses_a_tensor_with_python_attributes():
    t = torch.ones(1)
    t.note = "hi"
    with pytest.raises(pickle.UnpicklingError, match=r"the file names torch\._tensor\._rebuild_from_type_v2, which"):
        gs.load(saved(t, torch.save))


def test_load_refuses_a_parameter_with_python_attributes():
    p = torch.nn.Parameter(torch.ones(1))
    p.note = "hi"
    with pytest.raises(
        pickle.UnpicklingError,
        match=r"the file holds a Parameter with Python attributes "
        r"\['note'\], which graphscope cannot load",
    ):
        gs.load(saved(p, torch.save))


@pytest.mark.parametrize(
    "content, reason",
    [
        (b"", "it is empty"),
        (b"hello world", "it is not a zip archive"),
        (
            None,
            "it looks like PyTorch's legacy format from before PyTorch 1.6, which graphscope cannot read: "
            "load it with PyTorch and save it again with torch.save",
        ),
    ],
    ids=["empty", "text", "legacy"],
)
def test_load_refuses_files_that_are_not_torch_archives(tmp_path, content, reason):
    path = tmp_path / "f.pt"
    if content is None:
        torch.save(torch.ones(1), path, _use_new_zipfile_serialization=False)
    else:
        path.write_bytes(content)
    with pytest.raises(RuntimeError) as error:
        gs.load(path)
    assert str(error.value) == f"{str(path)!r} is not a file written by torch.save or graphscope.save ({reason})"


@pytest.mark.filterwarnings("ignore:`torch.jit:DeprecationWarning")
def test_load_refuses_a_torchscript_archive():
    buffer = io.BytesIO()
    torch.jit.save(torch.jit.script(torch.nn.Linear(1, 1)), buffer)
    buffer.seek(0)
    with pytest.raises(
        RuntimeError,
        match=r"the file is a TorchScript archive \(torch.jit.save\), which graphscope "
        r"cannot load: in PyTorch, save the model's state_dict\(\) with "
        "torch.save and load that instead",
    ):
        gs.load(buffer)


def test_load_refuses_a_zip_that_is_not_a_torch_archive():
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        z.writestr("notes.txt", "hi")
    with pytest.raises(
        RuntimeError,
        match=r"the file is a zip archive but not one written by torch.save or "
        r"graphscope.save \(it has no data.pkl record\)",
    ):
        gs.load(buffer)


@pytest.mark.parametrize(
    "data, storages, message",
    [
        (
            written(rebuild(float_storage(), size=(3,), stride=(2,))),
            [FOUR_FLOATS],
            r"the file is damaged: a tensor of size \(3,\) and stride \(2,\) at offset 0 reaches past its storage of 4",
        ),
        (
            written(rebuild(float_storage(), offset=5, size=(0,))),
            [FOUR_FLOATS],
            r"a tensor of size \(0,\) and stride \(1,\) at offset 5 reaches past its storage of 4 elements",
        ),
        (
            written(rebuild(float_storage(), size=(2, 2), stride=(2,))),
            [FOUR_FLOATS],
            r"a tensor's size \(2, 2\) and stride \(2,\) must be equally long tuples of non-negative ints",
        ),
        (written(rebuild(float_storage(), size=(-1,))), [FOUR_FLOATS], "must be equally long tuples of non-negative"),
        (written(rebuild("not a storage")), [], "the file is damaged: a tensor needs a storage and an offset"),
        (
            written(Call(Global("torch._utils", "_rebuild_parameter"), ([1.0], True, OrderedDict()))),
            [],
            "the file is damaged: a Parameter's data must be a tensor, got list",
        ),
        (
            written(Call(Global("torch._utils", "_rebuild_parameter"), (rebuild(float_storage()), True, {"h": 1}))),
            [FOUR_FLOATS],
            "the file holds a Parameter with backward hooks, which graphscope cannot load",
        ),
        (
            written(Call(Global("torch", "Size"), ([1.5],))),
            [],
            r"the file is damaged: torch.Size needs ints, got \[1.5\]",
        ),
        (
            written(PersistentId(("storage", "FloatStorage", "0", "cpu", 4))),
            [],
            r"a persistent id must be \('storage', storage type, key, location, size\), got",
        ),
        (
            written(
                [
                    rebuild(float_storage()),
                    rebuild(PersistentId(("storage", Global("torch", "IntStorage"), "0", "cpu", 4))),
                ]
            ),
            [FOUR_FLOATS],
            "the file views storage '0' as both float32 and int32, which graphscope cannot load",
        ),
        (
            written(rebuild(float_storage(), hooks=OrderedDict(a=1))),
            [FOUR_FLOATS],
            r"the file holds a tensor with backward hooks or metadata "
            r"\(OrderedDict\(\[\('a', 1\)\]\)\), which graphscope",
        ),
    ],
)
def test_load_explains_a_damaged_file(data, storages, message):
    with pytest.raises(pickle.UnpicklingError, match=message):
        gs.load(with_pickle(data, storages))


@pytest.mark.parametrize(
    "storages, message",
    [
        ([], "the file is damaged: it has no record 'archive/data/0' for storage '0'"),
        ([b"\x00" * 12], "the file is damaged: storage '0' holds 12 bytes, its tensors need 16"),
    ],
)
def test_load_explains_a_missing_or_short_storage(storages, message):
    with pytest.raises(RuntimeError, match=message):
        gs.load(with_pickle(written(rebuild(float_storage())), storages))


@pytest.mark.parametrize(
    "data, message",
    [
        (
            pickle.dumps({"a": 1}, protocol=0),
            "unsupported pickle opcode DICT at byte 1: graphscope.load reads only pickles of plain data",
        ),
        (b"\x80\x02cbuiltins\nset\n}R.", "damaged pickle: call arguments must be a tuple, got dict"),
        (
            b"\x80\x02cbuiltins\nset\n)R}b.",
            "refusing to set the state of a set object from the file: graphscope.load "
            "sets only an OrderedDict's attributes",
        ),
        (b"\x80\x02]K\x01\x85R.", r"refusing to call list object \[\]: graphscope.load calls only the allowed globals"),
        (b"\x80\x02]K\x01", "damaged pickle: it ends before its STOP opcode"),
        (b"\x80\x02h\x05.", "damaged pickle: memo entry 5 was never stored"),
        (b"\x80\x02\x86.", r"damaged pickle: opcode TUPLE2 at byte 2 found too few values"),
        (b"\x80\x02K\x01q\x00u.", r"damaged pickle: opcode SETITEMS at byte 6 found too few values"),
        (b"\x80\x02K\x01K\x02.", "damaged pickle: STOP with an unfinished stack"),
        (b"\x80\x02K\x05K\x01K\x02s.", "damaged pickle: SETITEM on a int"),
        (b"\x80\x02}]K\x01s.", r"damaged pickle: SETITEM with a key that can't be one \(unhashable type: 'list'\)"),
        (b"\x80\x02\x8f(]\x90.", r"damaged pickle: ADDITEMS with a key that can't be one"),
        (
            b"\x80\x02ccollections\nOrderedDict\n)R}X\x04\x00\x00\x00keysK\x01sb.",
            "refusing to set attribute 'keys' of an OrderedDict from the file: it would hide one of OrderedDict's own",
        ),
        (b"\x80\x02cbuiltins", "damaged pickle: a GLOBAL name has no end"),
        (
            b"\x80\x02c_codecs\nencode\nX\x01\x00\x00\x00aX\x05\x00\x00\x00utf-8\x86R.",
            "refusing _codecs.encode with 'utf-8': pickles of bytes use 'latin1'",
        ),
    ],
)
def test_load_refuses_pickles_that_are_not_plain_data(data, message):
    with pytest.raises(pickle.UnpicklingError, match=message):
        gs.load(with_pickle(data))


@pytest.mark.parametrize(
    "options, error, message",
    [
        (
            {"pickle_module": pickle},
            TypeError,
            "graphscope.load reads pickles itself, without running code: pickle_module must be None",
        ),
        (
            {"mmap": True},
            ValueError,
            r"graphscope.load does not memory-map files \(mmap=True\): it reads them into memory",
        ),
        ({"weights_only": "yes"}, TypeError, "weights_only must be a bool or None, got 'yes'"),
        ({"errors": "strict"}, TypeError, r"load\(\) got unexpected keyword arguments \['errors'\]"),
    ],
)
def test_load_options_graphscope_does_not_offer_are_errors(options, error, message):
    with pytest.raises(error, match=message):
        gs.load(saved(gs.ones(1)), **options)


def test_load_decodes_python_2_strings_with_the_given_encoding():
    data = b"\x80\x02U\x03abc."  # SHORT_BINSTRING, as Python 2 pickled str
    assert gs.load(with_pickle(data)) == "abc"
    assert gs.load(with_pickle(data), encoding="bytes") == b"abc"


# --- torch's files at the edges of the format ---------------------------------------------------------


def test_torch_files_saved_without_checksums_load():
    torch.serialization.set_crc32_options(False)
    try:
        buffer = saved({"w": torch.arange(3.0)}, torch.save)
    finally:
        torch.serialization.set_crc32_options(True)
    assert all(info.CRC == 0 for info in zipfile.ZipFile(buffer).infolist())
    buffer.seek(0)
    assert gs.load(buffer)["w"].tolist() == [0.0, 1.0, 2.0]


@pytest.mark.parametrize("size, stride", [((1,), (2**62,)), ((1, 4), (2**63 - 1, 1)), ((0,), (2**62,))], ids=str)
def test_a_dimension_that_never_steps_may_have_any_stride_below_2_63_as_in_torch(size, stride):
    data = written(rebuild(float_storage(), size=size, stride=stride))
    expected = torch.load(with_pickle(data, [FOUR_FLOATS]))
    back = gs.load(with_pickle(data, [FOUR_FLOATS]))
    assert back.shape == tuple(expected.shape) and back.tolist() == expected.tolist()


@pytest.mark.parametrize("size, stride", [((1,), (2**63,)), ((2**63,), (1,))], ids=str)
def test_a_size_or_stride_of_2_63_is_damaged_as_torch_says(size, stride):
    with pytest.raises(pickle.UnpicklingError, match="must be equally long tuples of non-negative ints below 2"):
        gs.load(with_pickle(written(rebuild(float_storage(), size=size, stride=stride)), [FOUR_FLOATS]))


def test_a_tensor_of_more_dimensions_than_numpy_holds_is_refused_with_numpys_reason():
    data = written(rebuild(float_storage(), size=(1,) * 65, stride=(1,) * 65))
    with pytest.raises(
        pickle.UnpicklingError,
        match=r"the file holds a tensor of size \(1, 1, 1, 1, 1, 1, \.\.\. "
        r"\(65 in all\)\), which graphscope cannot hold: .*64",
    ):
        gs.load(with_pickle(data, [FOUR_FLOATS]))


def test_errors_inside_the_pickle_name_the_file(tmp_path):
    path = tmp_path / "damaged.pt"
    path.write_bytes(with_pickle(b"\x80\x02]K\x01").getvalue())
    with pytest.raises(pickle.UnpicklingError) as error:
        gs.load(path)
    assert str(error.value) == f"cannot load {str(path)!r}: damaged pickle: it ends before its STOP opcode"


def test_empty_bytes_are_written_and_read_as_torch_writes_them():
    obj = {"empty": b"", "again": b"", "some": b"ab"}
    assert zipfile.ZipFile(saved(obj)).read("archive/data.pkl") == zipfile.ZipFile(saved(obj, torch.save)).read(
        "archive/data.pkl"
    )
    # (torch 2.13's weights-only loader refuses bytes(), its own spelling of b""; graphscope reads it: it runs nothing)
    assert gs.load(saved(obj, torch.save)) == torch.load(saved(obj), weights_only=False) == obj

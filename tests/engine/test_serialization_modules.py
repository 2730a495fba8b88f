"""torch.save of a whole nn.Module, as torch 2.13 pickles one: torch's classes and attribute layout, so that
torch.load(weights_only=False) gives back a working torch model."""

import io
import pickle
import zipfile

import numpy as np
import pytest
import torch

import graphscope as gs
from graphscope.engine.serialization import module_pickle

LAYERS = {  # a layer of each kind, with the same arguments in both libraries
    "Linear": (2, 3),
    "ReLU": (),
    "Tanh": (),
    "Sigmoid": (),
    "GELU": (),
    "LeakyReLU": (),
    "Softmax": (1,),
    "LogSoftmax": (1,),
    "Identity": (),
    "Dropout": (0.2,),
    "Embedding": (5, 3),
    "LayerNorm": (4,),
    "BatchNorm1d": (4,),
    "Flatten": (),
    "Conv1d": (1, 2, 3),
    "Conv2d": (1, 2, 3),
    "MaxPool2d": (2,),
    "CrossEntropyLoss": (),
    "MSELoss": (),
}


def saved(obj, save) -> bytes:
    buffer = io.BytesIO()
    save(obj, buffer)
    return buffer.getvalue()


def data_pkl(file: bytes) -> bytes:
    archive = zipfile.ZipFile(io.BytesIO(file))
    return archive.read(next(name for name in archive.namelist() if name.endswith("/data.pkl")))


def torch_twin(model):
    """A torch model with `model`'s state."""
    return {k: torch.tensor(v.detach().cpu().numpy()) for k, v in model.state_dict().items()}


@pytest.mark.parametrize("name", LAYERS)
def test_each_layer_is_pickled_as_torchs_class_with_torchs_settings(name):
    ours, theirs = getattr(gs.nn, name)(*LAYERS[name]), getattr(torch.nn, name)(*LAYERS[name])
    spelled = module_pickle.reduce(ours)
    assert spelled.cls == (type(theirs).__module__, name)
    registered = {*ours._parameters, *ours._buffers, *ours._modules}
    assert sorted(spelled.state) == sorted(vars(theirs)) and not registered & set(spelled.state)
    for key, value in vars(theirs).items():
        if not key.startswith("_") or key == "_reversed_padding_repeated_twice":
            assert list(np.ravel(spelled.state[key])) == list(np.ravel(value)), key


def test_a_model_is_pickled_byte_for_byte_as_torch_pickles_it():
    gs.manual_seed(0)
    ours = gs.nn.Sequential(gs.nn.Linear(2, 1), gs.nn.ReLU())
    theirs = torch.nn.Sequential(torch.nn.Linear(2, 1), torch.nn.ReLU())
    theirs.load_state_dict(torch_twin(ours))
    assert data_pkl(saved(ours, gs.save)) == data_pkl(saved(theirs, torch.save))


def test_torch_loads_a_whole_graphscope_model_that_computes_the_same():
    gs.manual_seed(0)
    model = gs.nn.Sequential(
        gs.nn.Conv2d(1, 4, 3, padding=1),
        gs.nn.MaxPool2d(2),
        gs.nn.Flatten(),
        gs.nn.Linear(16, 8),
        gs.nn.LayerNorm(8),
        gs.nn.GELU(),
        gs.nn.Dropout(0.5),
        gs.nn.BatchNorm1d(8),
        gs.nn.Linear(8, 3),
    )
    model(gs.randn(5, 1, 4, 4))  # the batch norm's running statistics move
    model.eval()
    loaded = torch.load(io.BytesIO(saved(model, gs.save)), weights_only=False)
    assert isinstance(loaded, torch.nn.Sequential) and not loaded.training
    x = np.random.default_rng(0).standard_normal((2, 1, 4, 4)).astype(np.float32)
    with torch.no_grad():
        expected = loaded(torch.tensor(x)).numpy()
    np.testing.assert_allclose(model(gs.tensor(x)).detach().numpy(), expected, rtol=1e-5, atol=1e-6)


class TorchNet(torch.nn.Module):
    """The torch side of a script's own model class (a script run with --as-torch and then with torch)."""

    def __init__(self):
        super().__init__()
        self.embed = torch.nn.Embedding(10, 4)
        self.out = torch.nn.Linear(4, 2)
        self.scale = 0.5

    def forward(self, x):
        return self.out(self.embed(x)) * self.scale


class Net(gs.nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = gs.nn.Embedding(10, 4)
        self.out = gs.nn.Linear(4, 2)
        self.scale = 0.5

    def forward(self, x):
        return self.out(self.embed(x)) * self.scale


Net.__qualname__ = "TorchNet"  # pickled under its script's name, which the torch run defines as a torch Module


def test_a_scripts_own_model_class_is_pickled_by_its_name_with_its_attributes():
    gs.manual_seed(1)
    model = Net()
    loaded = torch.load(io.BytesIO(saved(model, gs.save)), weights_only=False)
    assert type(loaded) is TorchNet and loaded.scale == 0.5
    ids = np.array([[1, 2, 3]])
    with torch.no_grad():
        expected = loaded(torch.tensor(ids)).numpy()
    np.testing.assert_allclose(model(gs.tensor(ids)).detach().numpy(), expected, rtol=1e-6)


def test_recurrent_layers_and_hooks_are_refused_with_what_to_do():
    with pytest.raises(TypeError, match=r"cannot save a whole LSTM: .*save the model's state_dict\(\) instead"):
        gs.save(gs.nn.Sequential(gs.nn.LSTM(2, 3)), io.BytesIO())
    model = gs.nn.Linear(2, 2)
    model.register_forward_hook(lambda *args: None)
    with pytest.raises(TypeError, match="cannot save a whole Linear with hooks registered"):
        gs.save(model, io.BytesIO())


def test_graphscope_still_never_loads_a_whole_model():
    with pytest.raises(pickle.UnpicklingError, match=r"save model\.state_dict"):
        gs.load(io.BytesIO(saved(gs.nn.Linear(2, 2), gs.save)), weights_only=False)

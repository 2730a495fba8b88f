"""torch.Generator and generator=: a seed gives the same draws; a generator is independent of the global seed."""

import numpy as np
import pytest
import torch

import graphscope as gs
from tests.engine import strict_device

DRAWS = {
    "randn": lambda g: gs.randn(3, 4, generator=g),
    "rand": lambda g: gs.rand(5, dtype=gs.float64, generator=g),
    "randint": lambda g: gs.randint(0, 100, (6,), generator=g),
    "randint high only": lambda g: gs.randint(7, (6,), generator=g),
    "randperm": lambda g: gs.randperm(9, generator=g),
    "multinomial": lambda g: gs.multinomial(gs.tensor([[0.2, 0.3, 0.5]]), 2, generator=g),
    "multinomial with replacement": lambda g: gs.multinomial(gs.tensor([0.2, 0.8]), 8, True, generator=g),
    "normal": lambda g: gs.normal(gs.zeros(4), 1.0, generator=g),
    "normal, size": lambda g: gs.normal(0.0, 2.0, (4,), generator=g),
    "bernoulli": lambda g: gs.bernoulli(gs.full((8,), 0.5), generator=g),
    "bernoulli_": lambda g: gs.zeros(8).bernoulli_(0.5, generator=g),
    "poisson": lambda g: gs.poisson(gs.full((6,), 3.0), generator=g),
    "uniform_": lambda g: gs.zeros(4).uniform_(generator=g),
    "normal_": lambda g: gs.zeros(4).normal_(generator=g),
}


def generator(seed=None):
    """A generator on the device the suite runs on (a torch.Generator is made for one device)."""
    g = gs.Generator(gs.get_default_device())
    return g if seed is None else g.manual_seed(seed)


def values(t) -> np.ndarray:
    return t.cpu().numpy()


@pytest.mark.parametrize("draw", DRAWS)
def test_the_same_seed_gives_the_same_draws(draw):
    first, second = generator(7), generator(7)
    a = [values(DRAWS[draw](first)) for _ in range(2)]
    b = [values(DRAWS[draw](second)) for _ in range(2)]
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])


@pytest.mark.parametrize("draw", ["randn", "rand", "randperm", "normal, size", "poisson", "uniform_"])
def test_draws_go_on_and_other_seeds_differ(draw):
    g = generator(7)
    first, then = values(DRAWS[draw](g)), values(DRAWS[draw](g))
    assert not np.array_equal(first, then)
    assert not np.array_equal(first, values(DRAWS[draw](generator(8))))


@pytest.mark.parametrize("draw", DRAWS)
def test_a_generator_is_independent_of_the_global_seed_and_draws(draw):
    reference = generator(3)
    expected = [values(DRAWS[draw](reference)) for _ in range(2)]
    g = generator(3)
    gs.manual_seed(0)
    first = values(DRAWS[draw](g))
    gs.randn(100)
    gs.manual_seed(1)
    np.testing.assert_array_equal(first, expected[0])
    np.testing.assert_array_equal(values(DRAWS[draw](g)), expected[1])


@pytest.mark.parametrize("draw", DRAWS)
def test_drawing_from_a_generator_leaves_the_global_sequence_alone(draw):
    gs.manual_seed(5)
    expected = values(gs.randn(6))
    gs.manual_seed(5)
    DRAWS[draw](generator(1))
    np.testing.assert_array_equal(values(gs.randn(6)), expected)


@pytest.mark.parametrize("draw", DRAWS)
def test_the_global_seed_makes_the_functions_reproducible(draw):
    gs.manual_seed(11)
    first = values(DRAWS[draw](None))
    gs.manual_seed(11)
    np.testing.assert_array_equal(values(DRAWS[draw](None)), first)


def test_a_new_generator_starts_from_torchs_default_seed():
    assert gs.Generator().initial_seed() == torch.Generator().initial_seed() == 67280421310721
    np.testing.assert_array_equal(
        values(gs.randn(4, generator=generator())), values(gs.randn(4, generator=generator()))
    )


def test_manual_seed_returns_the_generator_and_sets_initial_seed():
    g = gs.Generator()
    assert g.manual_seed(3) is g and g.initial_seed() == 3
    assert g.manual_seed(-1).initial_seed() == torch.Generator().manual_seed(-1).initial_seed() == 2**64 - 1
    assert g.device == gs.device("cpu") and g.device == torch.Generator().device.type


def test_seed_reseeds_from_entropy_and_returns_the_seed():
    g = generator(3)
    before = values(gs.rand(4, generator=g))
    s = g.seed()
    assert isinstance(s, int) and g.initial_seed() == s
    after = values(gs.rand(4, generator=g))
    np.testing.assert_array_equal(after, values(gs.rand(4, generator=generator(s))))
    assert not np.array_equal(before, after)


def test_global_manual_seed_returns_the_default_generator_and_sets_initial_seed():
    g = gs.manual_seed(42)
    assert g is gs.default_generator and isinstance(g, gs.Generator)
    assert gs.initial_seed() == 42 == gs.default_generator.initial_seed()
    s = gs.seed()
    assert gs.initial_seed() == s


def test_the_default_generator_draws_the_global_cpu_sequence():
    gs.manual_seed(9)
    expected = values(gs.randn(5, device="cpu"))
    gs.manual_seed(9)
    np.testing.assert_array_equal(values(gs.randn(5, device="cpu", generator=gs.default_generator)), expected)


def test_get_state_and_set_state_replay_the_draws():
    g = generator(4)
    gs.rand(3, generator=g)
    state = g.get_state()
    assert state.dtype == gs.uint8 and state.ndim == 1 and state.device == gs.device("cpu")
    expected = values(gs.randn(5, generator=g))
    assert g.set_state(state) is g
    np.testing.assert_array_equal(values(gs.randn(5, generator=g)), expected)
    other = generator(99).set_state(state)
    np.testing.assert_array_equal(values(gs.randn(5, generator=other)), expected)


def test_get_rng_state_and_set_rng_state_replay_the_global_cpu_draws():
    gs.manual_seed(2)
    state = gs.get_rng_state()
    assert state.dtype == gs.uint8 and state.ndim == 1
    expected = values(gs.rand(4, device="cpu"))
    gs.set_rng_state(state)
    np.testing.assert_array_equal(values(gs.rand(4, device="cpu")), expected)


@pytest.mark.parametrize("bad", [lambda lib: [1, 2], lambda lib: lib.zeros(3)], ids=["list", "float tensor"])
def test_set_state_refuses_what_torch_refuses(bad):
    with pytest.raises(TypeError) as expected:
        torch.Generator().set_state(bad(torch))
    with pytest.raises(TypeError, match="ByteTensor") as got:
        gs.Generator().set_state(bad(gs))
    assert str(got.value).startswith(str(expected.value))


def test_set_state_refuses_a_state_it_did_not_make():
    with pytest.raises(RuntimeError):
        torch.Generator().set_state(torch.zeros(3, dtype=torch.uint8))
    with pytest.raises(RuntimeError, match=r"invalid RNG state for a cpu Generator .*Generator.get_state\(\)"):
        gs.Generator().set_state(gs.zeros(3, dtype=gs.uint8))


@pytest.mark.parametrize("seed", [1.5, "a"])
def test_manual_seed_refuses_a_non_integer_as_torch(seed):
    with pytest.raises(RuntimeError) as expected:
        torch.Generator().manual_seed(seed)
    for call in (gs.Generator().manual_seed, gs.manual_seed):
        with pytest.raises(RuntimeError, match=f"^{expected.value}$"):
            call(seed)


def test_manual_seed_refuses_a_seed_out_of_range_as_torch():
    with pytest.raises(ValueError) as expected:
        torch.Generator().manual_seed(2**64)
    with pytest.raises(ValueError, match=f"^{expected.value}: a seed must lie in"):
        gs.Generator().manual_seed(2**64)


def test_a_generator_on_another_device_is_refused():
    strict_device.register()
    with pytest.raises(
        RuntimeError,
        match=r"^Expected a 'strict' device type for generator but found 'cpu' \(in "
        r"randn\(\)\); make the generator on the result's device",
    ):
        gs.randn(2, device="strict", generator=gs.Generator("cpu"))
    with pytest.raises(RuntimeError, match=r"^Expected a 'cpu' device type for generator but found 'strict'"):
        gs.multinomial(gs.ones(2, device="cpu"), 1, generator=gs.Generator("strict"))


def test_generator_must_be_a_generator():
    with pytest.raises(TypeError):
        torch.randn(2, generator=3)
    with pytest.raises(TypeError, match=r"randn\(\): generator must be a torch.Generator, not int"):
        gs.randn(2, generator=3)


def test_generator_on_an_unknown_device_is_refused():
    with pytest.raises(RuntimeError, match="unknown device 'xyz'"):
        gs.Generator("xyz")

"""The device the test suite runs on: `--device strict` or GRAPHSCOPE_TEST_DEVICE=strict (or cuda).

The chosen device becomes graphscope's default device, so every tensor a test creates without
`device=` lives there: `GRAPHSCOPE_TEST_DEVICE=strict python -m pytest tests/engine` runs the op
conformance suite on the array-api-strict test device, `cuda` on a GPU. Tests that are about the
CPU itself (`.numpy()` sharing memory, `from_numpy`) carry the `cpu_only` marker and are skipped
on other devices.
"""

from __future__ import annotations

import gc
import os
import sys
import threading

import pytest

# Where PYTHONDONTWRITEBYTECODE is set, every pytest process (each xdist worker, each strict-device
# sub-suite) would rewrite the test modules' asserts again (~7 s of CPU) and every `graphscope` subprocess
# would compile the package again (~0.3 s): cache them as an installed package's are, in __pycache__
# (which git ignores). Cleared here, before pytest-xdist starts its workers, so they and every subprocess
# a test starts inherit it.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
sys.dont_write_bytecode = False

# One BLAS and OpenMP thread per process, set before NumPy or torch is imported, and inherited by the
# `graphscope` subprocesses: pytest-xdist runs a worker per core, each of which would start a thread per
# core; and a matrix product's rounding follows its thread count, so the samples' byte-identity digests
# (tests/trace/test_samples_recorded.py) would hold only on machines with as many cores as the one that took them.
for _threads in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_threads, "1")

# A test process keeps torch, the whole suite's modules and Textual's caches (its lru_caches hold whole
# StylesCaches of Strips after their apps are gone) alive: hundreds of thousands of objects that every full
# collection walks (~0.3 s each). At CPython's default one follows every 10 collections of the middle
# generation, ~10% of a pilot or recording test's CPU; here every 100. A test that needs cycles freed
# collects them itself (gc.collect()), and the `graphscope` subprocesses the tests start keep the default.
young, middle, _ = gc.get_threshold()
gc.set_threshold(young, middle, 100)


def pytest_addoption(parser):
    parser.addoption(
        "--device",
        default=os.environ.get("GRAPHSCOPE_TEST_DEVICE", "cpu"),
        help="graphscope's default device for the tests: cpu (default), strict or cuda (also GRAPHSCOPE_TEST_DEVICE)",
    )


def pytest_configure(config):
    config.addinivalue_line("markers", "cpu_only: about CPU tensors themselves; skipped on other test devices")
    config.addinivalue_line(
        "markers",
        "runs_long: a sub-suite run in a subprocess (tens of seconds); started "
        "first so that the parallel workers do not wait for it at the end",
    )
    device = config.getoption("--device")
    if device == "cpu":
        return
    import graphscope as gs

    if device.partition(":")[0] == "strict":
        from tests.engine import strict_device

        strict_device.register()
    gs.set_default_device(device)


def pytest_collection_modifyitems(config, items):
    items.sort(key=lambda item: "runs_long" not in item.keywords)  # stable: the rest keep their order
    device = config.getoption("--device")
    if device == "cpu":
        return
    skip = pytest.mark.skip(reason=f"about CPU tensors; the suite runs on {device}")
    for item in items:
        if "cpu_only" in item.keywords:
            item.add_marker(skip)


def pytest_report_header(config):
    return f"graphscope test device: {config.getoption('--device')}"


@pytest.fixture(autouse=True)
def fresh_generators():
    """Every test starts from the same global random state, whichever tests ran before it in its
    process (pytest-xdist hands each worker a different share of the suite, in any order)."""
    import graphscope as gs
    from graphscope.engine.random import DEFAULT_SEED

    gs.manual_seed(DEFAULT_SEED)
    if "torch" in sys.modules:  # the reference, imported by the engine tests, which draw from it on the CPU only
        # Its CPU generator alone: torch.manual_seed also queues a seeding of CUDA's, with the caller's formatted
        # traceback, at every call (0.5 ms of each of the ~9,000 tests run after torch is imported).
        sys.modules["torch"].random.default_generator.manual_seed(DEFAULT_SEED)


@pytest.fixture(autouse=True)
def no_script_thread_outlives_its_test():
    """A Session's script thread installs engine observers, which are process-global: a test that
    leaves one running changes what the next test in its worker records. Quit and join sessions."""
    from graphscope.engine import hooks

    yield
    leaked = [t.name for t in threading.enumerate() if t.name == "graphscope-script" and t.is_alive()]
    left = list(hooks.observers)
    for observer in left:  # so that one leak fails one test, not every test after it
        hooks.uninstall(observer)
    assert not leaked, f"{len(leaked)} script thread(s) still running after the test: quit and join its Session"
    assert not left, f"engine observers still installed after the test: {left}"


@pytest.fixture(autouse=True)
def nothing_left_frozen():
    """Objects a test left frozen (`graphscope view` freezes the record it loads: `load_for_viewing`) are
    thawed after it: every later recording in its worker would find them, and keep its collector's
    promotion off (`Collector`), and they would never be collected."""
    yield
    if gc.get_freeze_count():
        gc.unfreeze()

"""Prints the SHA-256 of a sample's export, recorded in this process: run by test_samples_recorded.py in a
subprocess whose arithmetic is pinned to one instruction set, so the digest is the same on every x86 machine."""

import dataclasses
import hashlib
import json
import runpy
import sys
from pathlib import Path
from unittest import mock

from graphscope.engine import hooks
from graphscope.trace import snapshot
from graphscope.trace.recording.recorder import Recorder
from tests.brief_samples import BRIEF_ARGV

# NumPy picks its kernels (OpenBLAS's matmul, its own SIMD loops for exp, tanh, ...) by the CPU it runs on,
# and kernels for wider vectors round differently in the last bit. These pin both to AVX2, which every
# machine here has: a machine with AVX-512 would otherwise record other last digits than one without.
PINNED_ARITHMETIC = {"OPENBLAS_CORETYPE": "Haswell", "NPY_DISABLE_CPU_FEATURES": "X86_V4 AVX512_ICL AVX512_SPR"}


def export_digest(path: Path) -> str:
    """SHA-256 of the sample's export, with what differs between runs and checkouts made plain: the
    clock, the versions of Python and NumPy, and where the repository lies."""
    argv = [str(path), *BRIEF_ARGV[path.name]]  # as `python sample.py N` would see it
    recorder = Recorder(script=str(path), argv=argv)
    with hooks.observe(recorder), mock.patch.object(sys, "argv", argv):
        runpy.run_path(str(path), run_name="__main__")
    rec = recorder.finish(0)
    rec.metadata = dataclasses.replace(rec.metadata, started="", finished="", python_version="", numpy_version="")
    text = snapshot.dumps(rec).replace(json.dumps(str(path.parent))[1:-1], "samples")
    return hashlib.sha256(text.encode()).hexdigest()


if __name__ == "__main__":
    print(export_digest(Path(sys.argv[1])))

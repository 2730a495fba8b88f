#!/usr/bin/env bash
# GPU check, one command on a machine with an NVIDIA GPU: install what the CUDA tests need, run
# them (the `cuda` marker: device model, then the conformance suite, nn, optim, the samples and
# the trace tests with cuda as the default device), then the GPU benchmark (bench/gpu.py).
# Finishes within 8 minutes on one GPU; prints a summary line per stage and exits non-zero if a
# stage failed.
#
# Packages come from the package index, or from ./.whl/ when that folder holds wheels (for a GPU
# machine without network access). Any CuPy build that imports is used as it is (cupy-cuda13x on
# CUDA 13 images); otherwise the gpu extra's cupy-cuda12x is installed.
#
#   bash bench/gpu_check.sh          (PYTHON=... to choose the interpreter)
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

PY=${PYTHON:-python3}
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONUNBUFFERED=1
start=$SECONDS
status=0

has() { "$PY" -c "import $1" 2>/dev/null; }
install() {  # never fatal: a missing package makes its tests skip or fail, said below
    if [ -d .whl ] && ls .whl/*.whl >/dev/null 2>&1; then
        "$PY" -m pip install -q --no-index --find-links .whl "$@" 2>/dev/null && return 0
    fi
    timeout 90 "$PY" -m pip install -q --retries 0 --timeout 10 "$@" 2>/dev/null
}

echo "== gpu_check: packages"
if ! command -v nvidia-smi >/dev/null 2>&1; then
    echo "   no nvidia-smi: not a GPU machine, so nothing is installed; the cuda tests will skip"
elif ! has cupy; then
    install 'cupy-cuda12x>=13' || echo "   CuPy could not be installed: the cuda tests will skip"
fi
command -v nvidia-smi >/dev/null 2>&1 && for pair in pytest:pytest xdist:pytest-xdist torch:torch \
        hypothesis:hypothesis jsonschema:jsonschema rich:rich numpy:numpy; do
    module=${pair%%:*} package=${pair#*:}
    has "$module" || install "$package" || echo "   $package is missing: tests that import it will fail"
done

echo "== gpu_check: devices"
"$PY" - <<'EOF' || status=1
import graphscope as gs
print(f"   graphscope {gs.__version__}: cuda available {gs.cuda.is_available()}, "
      f"{gs.cuda.device_count()} device(s)")
if gs.cuda.is_available():
    import cupy
    props = cupy.cuda.runtime.getDeviceProperties(0)
    print(f"   CuPy {cupy.__version__}, GPU 0: {props['name'].decode()}")
EOF

echo "== gpu_check: cuda tests"
parallel=()
has xdist && parallel=(-n 8)  # the suites run as subprocesses; CuPy compiles each kernel once
timeout 330 "$PY" -m pytest -m cuda -q -rs -p no:cacheprovider "${parallel[@]}" \
    tests/engine/test_cuda.py tests/trace
tests=$?
[ "$tests" -eq 124 ] && echo "   the cuda tests ran past their 330 s"
[ "$tests" -ne 0 ] && status=1

echo "== gpu_check: benchmark"
timeout 120 "$PY" bench/gpu.py --steps 10 --repeats 5 || status=1

echo "== gpu_check: done in $((SECONDS - start)) s, cuda tests exit $tests, overall $([ $status -eq 0 ] && echo ok || echo FAILED)"
exit $status

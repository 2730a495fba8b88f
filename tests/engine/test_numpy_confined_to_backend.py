"""NumPy is called only in engine/backend: every other engine module reaches arrays through `xp`.

An AST scan of graphscope/engine: any `np.X` / `numpy.X` (under whatever name numpy was imported)
outside the backend package fails the test, unless X is a type or dtype constant (which never touches a
device array) or the use sits in one of the few functions below that work on host data by design.
A call such as `np.exp(x)` on a CuPy array would copy it to the host or fail; this keeps them out.
"""

from __future__ import annotations

import ast
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[2] / "graphscope" / "engine"

# Names that are types or dtype metadata, not computations on arrays.
TYPES_AND_DTYPES = {
    "ndarray",  # `type(x) is np.ndarray`: the CPU fast paths' test for "a NumPy array"
    "generic",
    "integer",
    "floating",
    "number",  # isinstance checks on NumPy scalars
    "dtype",
    "promote_types",  # dtype objects and PyTorch-style promotion on them (dtypes.py)
    "float16",
    "float32",
    "float64",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "bool_",
    "broadcast_shapes",  # shape tuples only
}

# (module, function): places that handle host data on purpose, with the reason.
HOST_DATA = {
    ("creation.py", "_infer"): "parses the user's Python lists into a host array before from_host",
    ("creation.py", "_holds_float_arrays"): "inspects the user's data, not device arrays",
    ("creation.py", "tensor"): "copies a NumPy array the user passed (host data)",
    ("tensor.py", "as_array"): "turns NumPy scalars, which only NumPy ops return, into 0-d arrays",
    ("printing.py", "__init__"): "the Formatter measures a host copy made by backend.to_host",
    ("printing.py", "_summarized"): "picks the shown elements of a host copy made by backend.to_host",
    ("tensor.py", "numpy"): "the CPU tensor's own NumPy array",
    ("serialization/numpy_arrays.py", "_scalar"): "reads a NumPy scalar's bytes from a file (host data)",
    ("autograd/jacobian_check.py", "gradcheck"): "compares Jacobians on host copies (backend.to_host)",
    ("autograd/jacobian_check.py", "_numerical_jacobian"): "perturbs a host copy, runs the function on the device",
    ("autograd/jacobian_check.py", "output_with"): "perturbs a host copy, runs the function on the device",
    ("utils/tensorboard/writer.py", "as_numpy"): "a logged value on the host (backend.to_host), as torch's make_np",
    ("utils/tensorboard/event_files.py", "histogram"): "bins a host copy of the logged values for TensorBoard",
}


def _numpy_uses(path: Path):
    """(function, attribute, line) for each use of numpy in the module at `path`."""
    tree = ast.parse(path.read_text(), str(path))
    aliases, imported = set(), {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for name in node.names:
                if name.name == "numpy" or name.name.startswith("numpy."):
                    aliases.add(name.asname or name.name.split(".")[0])
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "numpy":
            for name in node.names:
                imported[name.asname or name.name] = name.name
    uses = []

    def visit(node, function):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            function = node.name
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases:
            uses.append((function, node.attr, node.lineno))
        elif isinstance(node, ast.Name) and node.id in imported:
            uses.append((function, imported[node.id], node.lineno))
        for child in ast.iter_child_nodes(node):
            visit(child, function)

    visit(tree, "<module>")
    return uses


def test_engine_modules_call_numpy_only_through_backend():
    offences = []
    for path in sorted(ENGINE.rglob("*.py")):
        module = path.relative_to(ENGINE).as_posix()
        if module.startswith("backend/"):
            continue
        for function, attribute, line in _numpy_uses(path):
            if attribute in TYPES_AND_DTYPES or (module, function) in HOST_DATA:
                continue
            offences.append(f"graphscope/engine/{module}:{line} in {function}(): np.{attribute}")
    assert not offences, (
        "NumPy used directly outside engine/backend (use xp = namespace(array), or add a helper "
        "to backend with a counterpart per device):\n  " + "\n  ".join(offences)
    )


def test_the_backend_is_the_package_the_scan_skips():
    """A backend module moved or renamed would make the scan skip nothing, or the wrong files."""
    assert (ENGINE / "backend" / "__init__.py").is_file()
    assert not (ENGINE / "backend.py").exists()
    assert any(_numpy_uses(path) for path in (ENGINE / "backend").glob("*.py"))


def test_the_scan_sees_a_numpy_call(tmp_path):
    module = tmp_path / "op.py"
    module.write_text("import numpy as xnp\nfrom numpy import add\n\ndef f(x):\n    return xnp.exp(x) + add(x, x)\n")
    assert _numpy_uses(module) == [("f", "exp", 5), ("f", "add", 5)]


def test_every_allowed_host_function_still_exists():
    """A stale allow-list entry would hide nothing but mislead; each one names a real function."""
    for module, function in HOST_DATA:
        source = (ENGINE / module).read_text()
        assert f"def {function}(" in source, f"{module} has no function {function}()"

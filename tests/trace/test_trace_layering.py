"""The trace layer sits on the engine alone: it never loads Textual, the session or the TUI."""

import ast
import subprocess
import sys
from pathlib import Path

import graphscope

REPO = Path(graphscope.__file__).resolve().parent.parent


def test_importing_the_trace_layer_loads_no_ui_and_no_session():
    code = (
        "import sys, graphscope.trace; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'textual' "
        "or m.startswith(('graphscope.session', 'graphscope.tui'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True)
    assert out.stdout.strip() == "[]"


# Optional libraries a trace module may import where it is used (never at import time): `graphscope plot`'s.
OPTIONAL = {"plot_file.py": {"matplotlib"}}


def test_trace_modules_import_only_the_engine_numpy_rich_and_the_standard_library():
    for path in (REPO / "graphscope" / "trace").rglob("*.py"):
        allowed = (
            {"graphscope", "numpy", "rich", "__future__"}
            | set(sys.stdlib_module_names)
            | OPTIONAL.get(path.name, set())
        )
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                names = [node.module]
            else:
                continue
            for name in names:
                assert name.split(".")[0] in allowed, f"{path.name} imports {name}"
                if name.startswith("graphscope"):
                    assert name.startswith("graphscope.engine"), f"{path.name} imports {name}"

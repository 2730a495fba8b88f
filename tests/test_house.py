"""The house's shape, held on the source: trace/'s rooms stack without circles, big files say why,
and no private name crosses a package (docs/architecture.md draws the layout)."""

import ast
import functools
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "graphscope"
TRACE = PACKAGE / "trace"
# trace/'s subpackages, bottom first: each imports only those before it.
TRACE_ROOMS = ("record", "stats", "snapshot", "report", "analysis", "explain", "recording")
# Rich draws; the data model, the statistics and the files do not.
DRAWING_ROOMS = {"report"}
LONG_FILE = 450


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def package_of(path: Path) -> str:
    return module_name(path.parent / "__init__.py")


@functools.cache  # each test walks the same files: parsed once a process
def imported(path: Path) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """(absolute module, names taken from it) for every import in `path`, at any depth (a lazy
    import inside a function counts)."""
    package = package_of(path).split(".")
    found: list[tuple[str, tuple[str, ...]]] = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found += [(a.name, ()) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join(base + ([node.module] if node.module else []))
            found.append((module, tuple(a.name for a in node.names)))
    return tuple(found)


def sources(root: Path) -> list[Path]:
    return sorted(root.rglob("*.py"))


def trace_graph() -> dict[str, set[str]]:
    """Module -> the trace modules it imports (a name imported from a package may be a module)."""
    modules = {module_name(p): p for p in sources(TRACE)}
    graph = {}
    for name, path in modules.items():
        targets = set()
        for module, names in imported(path):
            targets |= {t for t in [module, *(f"{module}.{n}" for n in names)] if t in modules and t != name}
        graph[name] = targets
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while not component or component[-1] != v:
                component.append(stack.pop())
                on_stack.discard(component[-1])
            if len(component) > 1:
                found.append(sorted(component))

    for v in graph:
        if v not in index:
            visit(v)
    return found


def room(module: str) -> str | None:
    parts = module.split(".")
    return parts[2] if parts[:2] == ["graphscope", "trace"] and len(parts) > 2 and parts[2] in TRACE_ROOMS else None


def test_no_import_circle_inside_trace():
    assert cycles(trace_graph()) == []


def test_every_trace_module_lives_in_a_room():
    loose = [p.name for p in TRACE.glob("*.py") if p.name != "__init__.py"]
    assert loose == [], f"trace/ holds its modules in {TRACE_ROOMS}; found {loose} at its top"
    assert {p.name for p in TRACE.iterdir() if (p / "__init__.py").exists()} == set(TRACE_ROOMS)


@pytest.mark.parametrize("name", TRACE_ROOMS)
def test_a_trace_room_imports_only_the_rooms_below_it(name):
    below = TRACE_ROOMS[: TRACE_ROOMS.index(name) + 1]
    for path in sources(TRACE / name):
        for module, _ in imported(path):
            used = room(module)
            assert used is None or used in below, (
                f"{path.relative_to(PACKAGE)} imports {module}: trace/{name} may import only {', '.join(below)}"
            )


def test_only_the_report_room_draws_with_rich():
    for path in sources(TRACE):
        if room(module_name(path)) in DRAWING_ROOMS:
            continue
        for module, _ in imported(path):
            assert module.split(".")[0] != "rich", f"{path.relative_to(PACKAGE)} imports {module}: drawing is report/'s"


def test_a_file_over_450_lines_says_why_in_its_docstring():
    for path in sources(PACKAGE):
        lines = path.read_text().count("\n")
        if lines <= LONG_FILE:
            continue
        doc = ast.get_docstring(ast.parse(path.read_text())) or ""
        assert re.search(r"\d{3} lines", doc), (
            f"{path.relative_to(PACKAGE)} has {lines} lines; its docstring must say why it is over {LONG_FILE} lines"
        )


def test_no_private_name_is_imported_across_packages():
    crossing = []
    for path in sources(PACKAGE):
        here = package_of(path)
        for module, names in imported(path):
            private = [n for n in names if n.startswith("_") and not n.startswith("__")]
            target_package = (
                module
                if (PACKAGE.parent / module.replace(".", "/") / "__init__.py").exists()
                else module.rpartition(".")[0]
            )
            if private and module.startswith("graphscope") and target_package != here:
                crossing.append(f"{path.relative_to(PACKAGE)}: from {module} import {', '.join(private)}")
    assert crossing == [], "give these a public name where they are defined:\n" + "\n".join(crossing)

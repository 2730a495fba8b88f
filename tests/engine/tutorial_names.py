"""The torch names PyTorch's tutorials use, and whether graphscope has each (issue 27's name scan).

As a script it reads the tutorials' sources (`beginner_source/` and `intermediate_source/` of a checkout of
pytorch/tutorials or of a translation that keeps its code), lists the torch names the runnable ones use and
writes them to `tutorial_names.txt` beside this file, then prints how many graphscope has, declares
unsupported, or lacks:

    python -m tests.engine.tutorial_names TUTORIALS_CHECKOUT [--write]

A tutorial is scanned when it runs on a CPU without a download: it imports only the standard library,
torch, NumPy and matplotlib (not torchvision, torchaudio, torchtext, ...), names no URL or data folder,
and uses CUDA only behind `is_available()`. A name is a dotted chain rooted at an import of torch
(`torch.nn.functional.relu`, `nn.Linear`, `F.relu`, `optim.SGD`, `from torch.utils.data import
DataLoader`); Tensor methods are not scanned. The test (`test_tutorial_names.py`) reads the committed
list, so it needs neither the network nor the tutorials.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import sys
from pathlib import Path

from graphscope.engine.unsupported import UnsupportedTorchName, declared_reason
from graphscope.session.torch_alias import TorchAliases

NAMES_FILE = Path(__file__).with_name("tutorial_names.txt")
FOLDERS = ("beginner_source", "intermediate_source")
# Imports a runnable tutorial may have besides the standard library.
ALLOWED_PACKAGES = {"torch", "numpy", "matplotlib"}


def runnable(tree: ast.Module) -> bool:
    """Whether the tutorial runs on a CPU with only torch, NumPy and matplotlib, and downloads nothing."""
    prose = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr)}  # docstrings, text cells
    cuda = guarded = False
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            packages = [alias.name.split(".")[0] for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            packages = [] if node.level else [(node.module or "").split(".")[0]]
        else:
            packages = []
        if any(p not in ALLOWED_PACKAGES and p not in sys.stdlib_module_names for p in packages):
            return False
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in prose:
            text = node.value
            if "://" in text or text == "data" or text.startswith(("data/", "./data", "../data")):
                return False
            cuda = cuda or text.startswith("cuda")
        if isinstance(node, ast.Attribute):
            cuda = cuda or node.attr == "cuda"
            guarded = guarded or node.attr == "is_available"
    return guarded or not cuda


def torch_bindings(tree: ast.Module) -> dict[str, str]:
    """Local name -> the torch name it is bound to by the file's imports (`F` -> torch.nn.functional)."""
    bound: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "torch":
                    if alias.asname:
                        bound[alias.asname] = alias.name
                    else:
                        bound["torch"] = "torch"
        elif isinstance(node, ast.ImportFrom) and not node.level and (node.module or "").split(".")[0] == "torch":
            for alias in node.names:
                if alias.name != "*":
                    bound[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return bound


def dotted(node: ast.expr) -> list[str] | None:
    """`a.b.c` as ["a", "b", "c"]; None for a chain not rooted at a name."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return [node.id, *reversed(parts)]


def names_used(source: str) -> set[str]:
    """The torch names `source` uses: its torch imports and every attribute chain rooted at one."""
    tree = ast.parse(source)
    bound = torch_bindings(tree)
    used = set(bound.values())
    inner = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and id(node) not in inner:
            parts = dotted(node)
            if parts and parts[0] in bound:
                used.add(".".join([bound[parts[0]], *parts[1:]]))
    return used


def scan(checkout: Path) -> tuple[list[str], dict[str, set[str]]]:
    """(the tutorials scanned, relative paths; each torch name they use -> the tutorials using it)."""
    scanned: list[str] = []
    users: dict[str, set[str]] = {}
    for folder in FOLDERS:
        for path in sorted((checkout / folder).rglob("*.py")):
            source = path.read_text(encoding="utf-8")
            if not runnable(ast.parse(source)):
                continue
            relative = path.relative_to(checkout).as_posix()
            scanned.append(relative)
            for name in names_used(source):
                if in_torch(name):
                    users.setdefault(name, set()).add(relative)
    return scanned, users


def in_torch(name: str) -> bool:
    """Whether PyTorch itself has `name` (a tutorial may use a name torch no longer has), importing
    submodules as `import torch.utils.benchmark` would."""
    import torch

    obj: object = torch
    parts = name.split(".")
    for i, part in enumerate(parts[1:], 2):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            try:
                obj = importlib.import_module(".".join(parts[:i]))
            except ImportError:
                return False
    return True


def standing(name: str) -> tuple[str, str]:
    """("present" | "unsupported" | "missing", the prefix that failed) of a torch name under --as-torch.

    The name is looked up attribute by attribute from `import torch` as a script run with --as-torch sees
    it; a name is unsupported when the first part graphscope lacks is declared in engine/unsupported.py.
    """
    with TorchAliases():
        obj: object = importlib.import_module("torch")
        parts = name.split(".")
        for i, part in enumerate(parts[1:], 2):
            try:
                obj = getattr(obj, part)
            except (UnsupportedTorchName, AttributeError):
                prefix = ".".join(parts[:i])
                return ("unsupported" if declared_reason(prefix) else "missing"), prefix
    return "present", name


def read_names(path: Path = NAMES_FILE) -> list[str]:
    """The names in the committed list (one a line; `#` lines are notes)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return [line.split()[0] for line in lines if line and not line.startswith("#")]


def write_names(scanned: list[str], users: dict[str, set[str]], source: str, path: Path = NAMES_FILE) -> None:
    """The list: a header naming the checkout and the tutorials scanned, then each name and its users' count."""
    header = [f"# torch names used by {len(scanned)} runnable tutorials of {source}", "# scanned:"]
    header += [f"#   {relative}" for relative in scanned]
    body = [f"{name} {len(users[name])}" for name in sorted(users)]
    path.write_text("\n".join(header + body) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkout", type=Path, help="a checkout of pytorch/tutorials (or of a translation of it)")
    parser.add_argument("--write", action="store_true", help=f"write the list to {NAMES_FILE.name}")
    parser.add_argument("--source", default="pytorch/tutorials", help="what the checkout is, for the list's header")
    args = parser.parse_args(argv)
    if not all((args.checkout / folder).is_dir() for folder in FOLDERS):
        parser.error(f"{args.checkout} has no {' and '.join(FOLDERS)}: give a checkout of pytorch/tutorials")
    scanned, users = scan(args.checkout)
    standings = {name: standing(name) for name in sorted(users)}
    counts = {
        kind: sum(1 for s, _ in standings.values() if s == kind) for kind in ("present", "unsupported", "missing")
    }
    print(
        f"{len(scanned)} tutorials scanned; {len(users)} names used: "
        + ", ".join(f"{n} {k}" for k, n in counts.items())
    )
    for name, (kind, prefix) in standings.items():
        if kind != "present":
            print(
                f"  {kind:11} {name}" + (f"  (at {prefix})" if prefix != name else "") + f"  [{len(users[name])} files]"
            )
    if args.write:
        write_names(scanned, users, args.source)
    return 0


if __name__ == "__main__":
    sys.exit(main())

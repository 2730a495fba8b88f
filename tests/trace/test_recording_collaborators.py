"""The recorder and its collaborators own their state: none reads or writes another object's private
attributes, and none inherits from another (see graphscope/trace/recording/recorder.py)."""

from __future__ import annotations

import ast
from pathlib import Path

import graphscope.trace.recording as recording

SOURCES = sorted(Path(recording.__file__).parent.glob("*.py"))
# The engine's Tensor fields the recorder reads at its events, at no property's cost: the live version
# counter (an op's event keeps the list itself, to see a later write in place) and `.grad`'s own slot.
ENGINE_FIELDS = {"_vc", "_grad"}


def test_no_private_attribute_of_another_object_is_used():
    found = []
    for path in SOURCES:
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if (
                isinstance(node, ast.Attribute)
                and node.attr.startswith("_")
                and not node.attr.startswith("__")
                and node.attr not in ENGINE_FIELDS
                and not (isinstance(node.value, ast.Name) and node.value.id == "self")
            ):
                found.append(f"{path.name}:{node.lineno} {ast.unparse(node)}")
    assert not found


def test_no_recording_class_inherits_from_another():
    classes = {}
    for path in SOURCES:
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ClassDef):
                classes[node.name] = [ast.unparse(b).rsplit(".", 1)[-1] for b in node.bases]
    assert "Recorder" in classes
    assert {
        name: [b for b in bases if b in classes] for name, bases in classes.items() if any(b in classes for b in bases)
    } == {}

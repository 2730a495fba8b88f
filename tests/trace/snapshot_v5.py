"""The snapshot format of versions 4 and 5 (nodes and tensors as columns, backward steps as JSON
lists), made from a current document: the tests check that such files still load."""

from __future__ import annotations

import base64

import numpy as np


def _values(column: dict) -> list[int]:
    return np.frombuffer(base64.b64decode(column["data"]), dtype=np.dtype(column["dtype"]).newbyteorder("<")).tolist()


def _rows(values: list[int], counts: list[int]) -> list[list[int]]:
    out, k = [], 0
    for c in counts:
        out.append(values[k : k + c])
        k += c
    return out


def as_version_5(doc: dict) -> dict:
    """The document as version 5 wrote it: each pass's order as a list of node ids, and its steps
    as lists of tensor rows (null for none)."""

    def row(v: int) -> int | None:
        return None if v < 0 else v

    for p in doc["passes"]:
        p["order"] = _values(p["order"])
        st = p["steps"]
        inputs = st["grad_inputs"]
        leaves = st["leaf_grads"]
        leaf_counts = _values(leaves["count"])
        leaf_rows = list(
            zip(
                _values(leaves["node"]),
                *([row(v) for v in _values(leaves[key])] for key in ("grad", "before", "now")),
            )
        )
        p["steps"] = {
            "node": _values(st["node"]),
            "grad_output": [row(v) for v in _values(st["grad_output"])],
            "grad_inputs": [[row(v) for v in r] for r in _rows(_values(inputs["rows"]), _values(inputs["count"]))],
            "leaf_grads": [[list(x) for x in r] for r in _rows(leaf_rows, leaf_counts)],
        }
    doc["version"] = 5
    return doc

"""torch.load (graphscope.load) of pickles that try to run code (issue 25's list): os.system in every
protocol, eval and exec, subprocess, the INST, OBJ and NEWOBJ_EX opcodes, dotted globals, getattr chains,
REDUCE on a string and on a memo entry, BUILD over a method. Each runs nothing (the command it carries
would leave a file) and is refused in one line that names what it reached for."""

import io
import os
import pickle
import struct

import pytest

import graphscope as gs
from graphscope.engine.serialization import archive


class _Calls:
    """An object that pickles as a call of `function(*args)` (what an attacker writes by hand)."""

    def __init__(self, function, *args):
        self.function, self.args = function, args

    def __reduce__(self):
        return self.function, self.args


def _text(s: str) -> bytes:
    """A str as opcodes any protocol 2+ reads."""
    data = s.encode()
    return pickle.BINUNICODE + struct.pack("<I", len(data)) + data


def _global(module: str, name: str) -> bytes:
    return pickle.GLOBAL + f"{module}\n{name}\n".encode()


def _stack_global(module: str, name: str) -> bytes:
    return _text(module) + _text(name) + pickle.STACK_GLOBAL


P2, P4 = pickle.PROTO + b"\x02", pickle.PROTO + b"\x04"


def _opcodes(command: str) -> dict[str, tuple[bytes, str]]:
    """Hand-made pickles that would run `command`, and what the refusal must name."""
    cmd = _text(command)
    return {
        "INST": (pickle.MARK + cmd + pickle.INST + b"os\nsystem\n" + pickle.STOP, "unsupported pickle opcode INST"),
        "OBJ": (P2 + pickle.MARK + _global("os", "system") + cmd + pickle.OBJ + pickle.STOP, "os.system"),
        "NEWOBJ_EX": (
            P4
            + _stack_global("subprocess", "Popen")
            + pickle.MARK
            + pickle.MARK
            + _text("sh")
            + _text("-c")
            + cmd
            + pickle.LIST
            + pickle.TUPLE
            + pickle.EMPTY_DICT
            + pickle.NEWOBJ_EX
            + pickle.STOP,
            "subprocess.Popen",
        ),
        "dotted global": (
            P4 + _stack_global("os", "path.os.system") + cmd + pickle.TUPLE1 + pickle.REDUCE + b".",
            "os",
        ),
        "dotted module": (P4 + _stack_global("os.path", "os") + pickle.STOP, "os.path.os"),
        "getattr chain": (
            P2
            + _global("builtins", "getattr")
            + _global("builtins", "__import__")
            + _text("os")
            + pickle.TUPLE1
            + pickle.REDUCE
            + _text("system")
            + pickle.TUPLE2
            + pickle.REDUCE
            + cmd
            + pickle.TUPLE1
            + pickle.REDUCE
            + pickle.STOP,
            "builtins.getattr",
        ),
        "REDUCE on a string": (
            P2 + _text("os.system") + cmd + pickle.TUPLE1 + pickle.REDUCE + pickle.STOP,
            "refusing to call str object",
        ),
        "REDUCE on a memo entry": (
            P2
            + _text("os.system")
            + pickle.BINPUT
            + b"\x00"
            + pickle.POP
            + pickle.BINGET
            + b"\x00"
            + cmd
            + pickle.TUPLE1
            + pickle.REDUCE
            + pickle.STOP,
            "refusing to call str object",
        ),
        "BUILD over a method": (
            P2
            + _global("collections", "OrderedDict")
            + pickle.EMPTY_TUPLE
            + pickle.REDUCE
            + pickle.NONE
            + pickle.EMPTY_DICT
            + _text("__setstate__")
            + _global("os", "system")
            + pickle.SETITEM
            + pickle.TUPLE2
            + pickle.BUILD
            + pickle.STOP,
            "os.system",
        ),
        "BUILD over a method of an allowed class": (
            P2
            + _global("collections", "OrderedDict")
            + pickle.EMPTY_TUPLE
            + pickle.REDUCE
            + pickle.EMPTY_DICT
            + _text("keys")
            + _global("os", "system")
            + pickle.SETITEM
            + pickle.BUILD
            + pickle.STOP,
            "os.system",
        ),
        "BUILD over a method with plain data": (
            P2
            + _global("collections", "OrderedDict")
            + pickle.EMPTY_TUPLE
            + pickle.REDUCE
            + pickle.EMPTY_DICT
            + _text("keys")
            + cmd
            + pickle.SETITEM
            + pickle.BUILD
            + pickle.STOP,
            "refusing to set attribute 'keys'",
        ),
    }


def _load(data: bytes):
    buffer = io.BytesIO()
    archive.write(buffer, data, [])
    buffer.seek(0)
    return gs.load(buffer)


def _refused(data: bytes, mark, *needles: str) -> None:
    with pytest.raises(pickle.UnpicklingError) as refused:
        _load(data)
    message = str(refused.value)
    assert "\n" not in message and all(n in message for n in needles), message
    assert not mark.exists(), "the pickle's command ran"


@pytest.mark.parametrize("protocol", range(6))
def test_os_system_in_every_protocol_runs_nothing_and_is_named(tmp_path, protocol):
    mark = tmp_path / "ran"
    _refused(
        pickle.dumps(_Calls(os.system, f"touch {mark}"), protocol=protocol),
        mark,
        "os.system" if os.name != "posix" else "posix.system",
    )


@pytest.mark.parametrize(
    "module, name",
    [("builtins", "eval"), ("builtins", "exec"), ("subprocess", "call"), ("subprocess", "Popen")],
)
def test_eval_exec_and_subprocess_run_nothing_and_are_named(tmp_path, module, name):
    mark = tmp_path / "ran"
    if module == "builtins":  # eval("__import__('os').system('touch MARK')")
        argument = _text(f"__import__('os').system('touch {mark}')")
    else:  # subprocess.call(["touch", MARK])
        argument = pickle.EMPTY_LIST + pickle.MARK + _text("touch") + _text(str(mark)) + pickle.APPENDS
    data = P2 + _global(module, name) + argument + pickle.TUPLE1 + pickle.REDUCE + pickle.STOP
    _refused(data, mark, f"{module}.{name}")


@pytest.mark.parametrize("case", sorted(_opcodes("true")))
def test_hand_made_opcodes_run_nothing_and_are_refused_in_one_line(tmp_path, case):
    mark = tmp_path / "ran"
    data, named = _opcodes(f"touch {mark}")[case]
    _refused(data, mark, named)


def _numpy_cases(command: str, mark) -> dict[str, tuple[bytes, str]]:
    """Pickles that look like NumPy's and reach for code, and what the refusal must name (weights_only=False,
    with which graphscope.load rebuilds plain NumPy arrays itself)."""
    import numpy as np

    cmd = _text(command)
    reconstruct = _global("numpy._core.multiarray", "_reconstruct")
    return {
        "numpy.load": (
            P2 + _global("numpy", "load") + _text(str(mark)) + pickle.TUPLE1 + pickle.REDUCE + b".",
            "numpy.load",
        ),
        "a NumPy module's os": (P2 + _global("numpy.lib.npyio", "os") + b".", "numpy.lib.npyio.os"),
        "numpy.ctypeslib": (
            P2 + _global("numpy.ctypeslib", "load_library") + cmd + cmd + pickle.TUPLE2 + pickle.REDUCE + b".",
            "numpy.ctypeslib.load_library",
        ),
        "_reconstruct of another class": (
            P2
            + reconstruct
            + _global("os", "system")
            + cmd
            + pickle.TUPLE1
            + _text("b")
            + pickle.TUPLE3
            + pickle.REDUCE
            + b".",
            "os.system",
        ),
        "_reconstruct of a str": (
            P2 + reconstruct + cmd + pickle.EMPTY_TUPLE + _text("b") + pickle.TUPLE3 + pickle.REDUCE + b".",
            "only plain NumPy arrays load",
        ),
        "an array of objects that run code": (
            pickle.dumps(np.array([_Calls(os.system, command)], dtype=object), protocol=2),
            "refusing NumPy dtype 'O8'",
        ),
        "a dtype whose state names fields": (
            P2
            + _global("numpy", "dtype")
            + _text("f4")
            + pickle.NEWFALSE
            + pickle.NEWTRUE
            + pickle.TUPLE3
            + pickle.REDUCE
            + pickle.MARK
            + pickle.BININT1
            + b"\x03"
            + _text("<")
            + pickle.NONE
            + pickle.EMPTY_TUPLE
            + pickle.EMPTY_DICT
            + pickle.BININT1
            + b"\x04"
            + pickle.BININT1
            + b"\x04"
            + pickle.BININT1
            + b"\x00"
            + pickle.TUPLE
            + pickle.BUILD
            + b".",
            "only bools and numbers load",
        ),
        "an array state that is not NumPy's": (
            P2
            + reconstruct
            + _global("numpy", "ndarray")
            + pickle.BININT1
            + b"\x00"
            + pickle.TUPLE1
            + _text("b")
            + pickle.TUPLE3
            + pickle.REDUCE
            + pickle.EMPTY_DICT
            + _text("__class__")
            + _global("os", "system")
            + pickle.SETITEM
            + pickle.BUILD
            + b".",
            "os.system",
        ),
    }


@pytest.mark.parametrize("case", sorted(_numpy_cases("true", "x")))
def test_numpy_looking_pickles_run_nothing_and_are_refused_in_one_line(tmp_path, case):
    mark = tmp_path / "ran"
    data, named = _numpy_cases(f"touch {mark}", mark)[case]
    buffer = io.BytesIO()
    archive.write(buffer, data, [])
    for weights_only in (False, None):
        buffer.seek(0)
        with pytest.raises(pickle.UnpicklingError) as refused:
            gs.load(buffer, weights_only=weights_only)
        message = str(refused.value)
        assert "\n" not in message and (named in message or weights_only is None), message
        assert not mark.exists(), "the pickle's command ran"

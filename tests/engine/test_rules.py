"""Every Function carries its derivative rule as text beside its backward, for the debugger to show."""

import importlib
import pkgutil

import graphscope as gs
import graphscope.engine
from graphscope.engine.function import Function
from graphscope.engine.tensor import wrap
from tests.engine.op_tables import GS_FUNCTIONS


def _functions() -> list[type]:
    """Every Function subclass the engine defines (each of its modules imported first)."""
    for module in pkgutil.walk_packages(graphscope.engine.__path__, "graphscope.engine."):
        importlib.import_module(module.name)
    found, stack = [], [Function]
    while stack:
        cls = stack.pop()
        for sub in cls.__subclasses__():
            stack.append(sub)
            if sub.__module__.startswith("graphscope.engine."):
                found.append(sub)
    return found


def test_every_function_of_the_engine_has_a_rule():
    functions = _functions()
    assert len(functions) > 90
    missing = [
        f"{cls.__module__}.{cls.__qualname__}"
        for cls in functions
        if not (isinstance(cls.rule, str) and cls.rule.strip())
    ]
    assert missing == []


def test_an_elementwise_function_has_a_local_factor_text_per_forward_argument_it_differentiates():
    for cls in _functions():
        if cls.elementwise:
            assert cls.local, cls.__qualname__
            assert all(isinstance(text, str) for text in cls.local), cls.__qualname__


def test_pow_writes_its_own_exponent_into_its_rule():
    from graphscope.engine.ops.arithmetic import Pow

    assert Pow.rule_for({"exponent": 3}) == "d(x³)/dx = 3·x²"
    assert Pow.rule_for({"exponent": 2}) == "d(x²)/dx = 2·x"
    assert Pow.rule_for({"exponent": 0.5}) == "d(x⁰·⁵)/dx = 0.5·x⁻⁰·⁵"
    assert Pow.rule_for({"exponent": -1}) == "d(x⁻¹)/dx = -1·x⁻²"
    assert Pow.rule_for({}) == Pow.rule  # a tensor exponent: the general rule


def test_local_factors_are_the_backward_of_a_unit_cotangent_in_the_output_shape():
    from graphscope.engine.ops.arithmetic import Mul

    a, b = gs.tensor([[1.0], [2.0]]).array, gs.tensor([3.0, 4.0, 5.0]).array  # on the test device
    da, db = Mul.local_factors([a, b])
    assert wrap(da).tolist() == [[3.0, 4.0, 5.0]] * 2
    assert wrap(db).tolist() == [[1.0] * 3, [2.0] * 3]


def test_a_custom_function_names_its_backward_and_the_line_it_starts_on():
    my_relu = GS_FUNCTIONS["MyReLU"]
    out = my_relu.apply(gs.tensor([1.0], requires_grad=True))
    line = my_relu.backward.__code__.co_firstlineno + 1  # the def, under its @staticmethod
    assert out.grad_fn.rule == f"custom backward: custom_functions.<locals>.MyReLU.backward (op_tables.py:{line})"


def test_clamp_writes_only_the_bounds_it_has_into_its_local_factor():
    from graphscope.engine.ops.unary import Clamp

    low_only = ("({low} ≤ {x})", "({x} < {low})", "")
    assert Clamp.local_for({"low": 0.0, "high": None}) == low_only
    assert Clamp.local_for({"high": None}) == low_only  # a tensor bound is an input, not an argument
    assert Clamp.local_for({"low": None, "high": 1.0}) == ("({x} ≤ {high})", "", "({x} > {high})")
    assert Clamp.local_for({"low": -1.0, "high": 1.0}) == Clamp.local == Clamp.local_for({})

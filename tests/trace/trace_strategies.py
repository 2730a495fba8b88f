"""Hypothesis strategies for records: real summaries of generated arrays, hostile text, consistent node ids,
and grads of the shapes of the tensors they are the grads of (the loader refuses a record whose parts disagree)."""

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from graphscope.trace.record.model import (
    FINDING_KINDS,
    LEAF_OPS,
    OPTIMIZER_EVENT_KINDS,
    BackwardPass,
    ConsoleLine,
    Finding,
    LeafGrad,
    Metadata,
    Node,
    OptimizerEvent,
    ParamChange,
    Record,
    ScriptError,
    SourceSite,
    Step,
)
from graphscope.trace.record.naming import engine_functions
from graphscope.trace.record.training import (
    ACTIVATION_KINDS,
    ActivationSeries,
    ParamSeries,
    ScalarSeries,
    TrainingSeries,
)
from graphscope.trace.stats.summarize import summarize

# Names never hold control characters (the loader refuses them); free text may hold anything.
names = st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=12)
texts = st.text(max_size=40)
floats = st.floats(allow_nan=True, allow_infinity=True)

DTYPES = ("float32", "float64", "float16", "int64", "int32", "bool")


@st.composite
def summaries(draw, shape=None):
    """A summary of a generated array (of `shape` when given)."""
    dtype = np.dtype(draw(st.sampled_from(DTYPES)))
    if shape is None:
        shape = draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=6))
    if dtype.kind == "f":
        elements = st.floats(width=dtype.itemsize * 8, allow_nan=True, allow_infinity=True)
    elif dtype.kind == "i":
        elements = st.integers(-1000, 1000)
    else:
        elements = st.booleans()
    array = draw(hnp.arrays(dtype, shape, elements=elements))
    limit = draw(st.sampled_from([0, 8, 4096]))
    with np.errstate(all="ignore"):
        s = summarize(array, full_values_limit=limit, device=draw(st.sampled_from(["cpu", "cuda:0"])))
    if draw(st.integers(0, 9)) == 0:
        s.drop_values()
    return s


def optional(strategy):
    return st.one_of(st.none(), strategy)


def grads(of):
    """A grad's summary, or None, for a tensor summarised as `of` (any shape where it has none)."""
    return optional(summaries(None if of is None else tuple(of.shape)))


sites = st.builds(SourceSite, names, st.integers(0, 10**6), names, texts)
# An op named as an engine op is held to its shape rule: generated ops are other names.
ops = st.one_of(st.sampled_from(LEAF_OPS), names.filter(lambda n: n not in engine_functions()))


@st.composite
def records(draw):
    site_pool = draw(st.lists(sites, min_size=1, max_size=3))
    pick_site = optional(st.sampled_from(site_pool))
    nodes = {}
    next_id = draw(st.integers(0, 5))
    for _ in range(draw(st.integers(0, 8))):
        ids = list(nodes)
        inputs = tuple(draw(st.lists(st.sampled_from(ids), max_size=3))) if ids else ()
        op = draw(ops)
        nodes[next_id] = Node(
            id=next_id,
            op=op,
            name=draw(names),
            inputs=inputs,
            pass_index=draw(st.integers(0, 3)),
            output=draw(optional(summaries())),
            requires_grad=draw(st.booleans()),
            is_leaf=draw(st.booleans()),
            parameter=draw(optional(names)),
            module=draw(optional(names)),
            site=draw(pick_site),
            saved=tuple(draw(st.lists(names.filter(lambda n: not n.startswith("input:")), max_size=2))),
            dead_units=draw(optional(st.tuples(st.integers(0, 9), st.integers(0, 9)))),
            leaf=draw(optional(st.integers(0, 50))),
        )
        next_id += draw(st.integers(1, 3))
    ids = list(nodes)
    node_id = st.sampled_from(ids) if ids else st.nothing()
    opt_node = optional(node_id) if ids else st.none()
    passes = []
    for index in range(draw(st.integers(0, 3))):
        detailed = bool(ids) and draw(st.booleans())
        steps = []
        order = tuple(draw(st.lists(node_id, max_size=4))) if detailed else ()
        steps = [_step(draw, nodes, node, node_id) for node in order[: draw(st.integers(0, len(order)))]]
        passes.append(
            BackwardPass(
                index=index,
                loss=draw(optional(floats)),
                grad_norms=draw(st.dictionaries(names, floats, max_size=3)),
                node_count=draw(st.integers(0, 100)),
                detailed=detailed,
                finished=draw(st.booleans()),
                root=draw(opt_node) if detailed else None,
                order=order,
                steps=steps,
            )
        )
    metadata = Metadata(
        script=draw(texts),
        argv=draw(st.lists(texts, max_size=3)),
        started=draw(names),
        finished=draw(names),
        exit_code=draw(optional(st.integers(-5, 255))),
        graphscope_version=draw(names),
        python_version=draw(names),
        numpy_version=draw(names),
        device=draw(names),
        keep_first=draw(st.integers(0, 3)),
        keep_last=draw(optional(st.integers(0, 5))),
        full_values_limit=draw(st.integers(0, 5000)),
        memory_budget=draw(st.integers(0, 2**40)),
    )
    console = [
        ConsoleLine(
            draw(st.sampled_from(["stdout", "stderr"])),
            draw(texts),
            draw(st.integers(0, 3)),
            draw(optional(st.integers(0, 9))),
            draw(st.integers(0, 4)),
        )
        for _ in range(draw(st.integers(0, 3)))
    ]
    error = draw(optional(st.builds(ScriptError, names, texts, texts, opt_node, pick_site)))
    findings = [
        Finding(
            draw(st.sampled_from(FINDING_KINDS)),
            draw(texts),
            draw(opt_node),
            draw(optional(st.integers(0, 3))),
            draw(optional(names)),
            draw(pick_site),
        )
        for _ in range(draw(st.integers(0, 3)))
    ]
    optimizer = [
        OptimizerEvent(
            draw(st.sampled_from(OPTIMIZER_EVENT_KINDS)),
            draw(st.integers(0, 4)),
            draw(names),
            tuple(draw(st.lists(st.tuples(names, names), max_size=3))),
            draw(pick_site),
            [_param_change(draw) for _ in range(draw(st.integers(0, 2)))],
        )
        for _ in range(draw(st.integers(0, 2)))
    ]
    return Record(
        metadata=metadata,
        nodes=nodes,
        passes=passes,
        console=console,
        error=error,
        findings=findings,
        optimizer=optimizer,
        dropped_values=draw(st.integers(0, 9)),
        trimmed_nodes=draw(st.integers(0, 9)),
        dropped_console=draw(st.integers(0, 9)),
        rules=draw(st.dictionaries(names, texts, max_size=3)),
        training=draw(training_series(len(passes))),
    )


@st.composite
def training_series(draw, passes):
    """A training series of `passes` passes: NaN, Inf and any float in its columns, scalars logged in
    passes begun by then."""

    def column():
        return draw(hnp.arrays(np.float64, passes, elements=floats))

    series = TrainingSeries(passes, column())
    for name in draw(st.lists(names, max_size=3, unique=True)):
        series.params[name] = ParamSeries(name, column(), column(), column())
    for module in draw(st.lists(names, max_size=2, unique=True)):
        kind = draw(st.sampled_from(ACTIVATION_KINDS))
        series.activations[module] = ActivationSeries(module, kind, column(), column(), column(), column())
    for tag in draw(st.lists(names, max_size=2, unique=True)):
        k = draw(st.integers(0, 4))
        series.scalars[tag] = ScalarSeries(
            tag,
            draw(hnp.arrays(np.int64, k, elements=st.integers(-(2**40), 2**40))),
            draw(hnp.arrays(np.float64, k, elements=floats)),
            draw(hnp.arrays(np.int64, k, elements=st.integers(0, passes))),
        )
    return series


def _step(draw, nodes, node, node_id) -> Step:
    """The step of `node`: grads of its output's and its inputs' shapes, and leaf grads."""
    inputs = nodes[node].inputs
    return Step(
        node=node,
        grad_output=draw(grads(nodes[node].output)),
        grad_inputs=[draw(grads(nodes[k].output)) for k in inputs[: draw(st.integers(0, min(len(inputs), 2)))]],
        leaf_grads=[_leaf_grad(draw, nodes, draw(node_id)) for _ in range(draw(st.integers(0, 2)))],
    )


def _leaf_grad(draw, nodes, leaf) -> LeafGrad:
    """A leaf grad whose `now` is sometimes the added grad's own summary (nothing was there before)."""
    of = nodes[leaf].output
    grad = draw(grads(of))
    if draw(st.booleans()):
        return LeafGrad(leaf, grad, None, grad)
    return LeafGrad(leaf, grad, draw(grads(of)), draw(grads(of)))


def _param_change(draw) -> ParamChange:
    """A parameter's change: its value before, update, value after and grad of one shape."""
    state = tuple(draw(st.lists(st.tuples(names, st.one_of(names, summaries())), max_size=2)))
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=6))
    before, update, after, grad = (draw(optional(summaries(shape))) for _ in range(4))
    return ParamChange(draw(st.integers(0, 50)), draw(names), before, update, after, state, grad)

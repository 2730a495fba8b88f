"""Small arrays kept whole are summarised without their statistics, worked out bit for bit when first read."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from graphscope.trace.record.equality import same
from graphscope.trace.record.summary_table import SummaryTable
from graphscope.trace.stats.batched import summarize_batch
from graphscope.trace.stats.summarize import summarize_many

FIGURES = ("min", "max", "mean", "std", "norm", "zero_fraction", "histogram")


def _arrays(seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    shapes = [(64, 16), (16,), (16, 2), (1,), (), (3, 1, 2)]
    return [rng.standard_normal(s).astype(np.float32) for s in shapes] + [np.zeros(5, np.float32)]


def _eager(arrays: list[np.ndarray]) -> list:
    """The same batch summarised with its figures at once (values kept up to one element short of the largest)."""
    return summarize_batch(arrays, max(a.size for a in arrays) - 1)


def _figures(s) -> tuple:
    return tuple(getattr(s, name) for name in FIGURES)


def test_a_batch_kept_whole_leaves_its_figures_to_be_worked_out_when_read():
    summaries = summarize_batch(_arrays(), 4096)
    assert all(s.pending is not None for s in summaries)
    assert summaries[0].mean is not None
    assert summaries[0].pending is None and summaries[1].pending is not None


def test_figures_worked_out_later_are_those_worked_out_at_once_bit_for_bit():
    arrays = _arrays(1)
    later, eager = summarize_batch(arrays, 4096), _eager(arrays)
    assert all(s.pending is None for s in eager)
    for a, b in zip(later, eager):
        for x, y in zip(_figures(a), _figures(b)):
            if isinstance(x, np.ndarray):
                assert x.dtype == y.dtype and np.array_equal(x, y) and not x.flags.writeable
            else:
                assert type(x) is type(y) and (x == y or (x is None and y is None)), (x, y)


def test_a_deferred_summary_equals_the_eager_one_and_packs_into_the_same_table():
    arrays = _arrays(2)
    later = summarize_batch(arrays, 4096)
    eager = summarize_batch(arrays, 4096)
    for s in eager:
        s.settle()
    assert all(same(a, b) for a, b in zip(later[:3], eager[:3]))  # read through equality
    table, expected = SummaryTable.from_summaries(later), SummaryTable.from_summaries(eager)
    assert all(same(table[i], expected[i]) for i in range(len(arrays)))


def test_dropping_a_deferred_summarys_values_keeps_its_figures():
    arrays = _arrays(3)
    s, reference = summarize_batch(arrays, 4096)[0], _eager(arrays)[0]
    assert s.drop_values() > 0
    assert s.dropped and s.values is None and s.pending is None
    assert s.min == reference.min and s.std == reference.std and np.array_equal(s.histogram, reference.histogram)


def test_a_batch_not_kept_whole_is_figured_at_once():
    assert all(s.pending is None for s in _eager(_arrays(4)))


def test_a_field_that_is_not_a_figure_is_still_missing():
    s = summarize_batch(_arrays(), 4096)[1]
    assert not hasattr(s, "no_such_field") and s.pending is not None


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        hnp.arrays(
            st.sampled_from([np.float16, np.float32, np.float64]),
            hnp.array_shapes(min_dims=0, max_dims=2, max_side=20),
            elements=st.floats(-1e4, 1e4, width=16),
        ),
        min_size=1,
        max_size=6,
    )
)
def test_any_batch_kept_whole_reads_as_the_batch_figured_at_once(arrays):
    arrays = [a for a in arrays if a.size] or [np.ones(2, np.float32)]
    dtype = arrays[0].dtype
    arrays = [a.astype(dtype) for a in arrays]
    later = summarize_batch(arrays, 4096)
    eager = summarize_batch(arrays, 4096)
    for s in eager:
        s.settle()  # worked out now: the one reading below is the deferred one's
    for a, b in zip(reversed(later), reversed(eager)):  # (read from the last: any order works them out alike)
        assert same(a, b)


def test_a_table_packs_deferred_summaries_from_their_batch_leaving_them_deferred():
    arrays = _arrays(5)
    later = summarize_batch(arrays, 4096)
    others = summarize_many([np.arange(6, dtype=np.int64), np.array([np.nan, 1.0]), np.zeros(0, np.float32)])
    eager = summarize_batch(arrays, 4096)
    for s in eager:
        s.settle()  # (its figures read from it)
    mixed = [later[0], others[0], later[1], others[1], eager[2], others[2], *later[2:]]
    expected = [eager[0], others[0], eager[1], others[1], eager[2], others[2], *eager[2:]]
    table = SummaryTable.from_summaries(mixed)
    assert all(s.pending is not None for s in later)  # read from their batch, not filled in one by one
    reference = SummaryTable.from_summaries(expected)
    for i in range(len(mixed)):
        assert same(table[i], reference[i]), i


def test_a_table_of_deferred_summaries_only_reads_each_from_its_own_batch():
    first, second = summarize_batch(_arrays(6), 4096), summarize_batch(_arrays(7)[::-1], 4096)
    mixed = [s for pair in zip(first, second) for s in pair]
    table = SummaryTable.from_summaries(mixed)
    assert all(s.pending is not None for s in mixed)
    for s in mixed:
        s.settle()
    reference = SummaryTable.from_summaries(mixed)
    for i in range(len(mixed)):
        assert same(table[i], reference[i]), i


def test_a_figure_never_set_is_missing_not_worked_out_again_and_again():
    s = summarize_batch(_arrays(), 4096)[0]
    s.settle()
    del s.norm
    assert not hasattr(s, "norm")

"""The host shortcuts of ``concatenate``/``concat`` (one operand, ``axis=None``), ``append``,
``atleast_1d``/``atleast_2d``/``atleast_3d``, ``flip``, ``flipud`` and ``fliplr`` give the
general path's outcome (``tests/shortcut_oracle.py``): the same result (type, shape, dtype,
weak type, bits) or the same error, for every dtype, edge values, 0-d and empty shapes,
mixed dtypes, bad axes, and operands given as Arrays, weak arrays, device arrays, NumPy
arrays and lists. The last test checks that the shortcuts take the common forms themselves."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from indexing_operands import KINDS, as_kind, edge_values, operands
from op_table import ALL_DTYPES
from shortcut_oracle import assert_same_outcome

import funcarray as fa
import funcarray.numpy as fnp
from funcarray.base.array import Array
from funcarray.numpy import _array_ops, _rearranging_on_host, _shape_on_host

_SHAPES = [(), (0,), (1,), (4,), (2, 3), (1, 3), (3, 1), (3, 0), (2, 1, 3), (1, 1, 1, 2)]
_AXES = st.sampled_from([None, 0, 1, -1, -2, 2, 3, 1.0])


@st.composite
def _operand(draw, dtype=None, shapes=_SHAPES, kinds=KINDS):
    dtype = np.dtype(fnp.dtype(dtype if dtype is not None else draw(st.sampled_from(ALL_DTYPES))))
    value = edge_values(draw, dtype, draw(st.sampled_from(shapes)))
    return as_kind(value, draw(st.sampled_from(kinds)))


@st.composite
def _joined(draw):
    """One to three operands, mostly of one dtype and one shape (the shortcut's case)."""
    dtype = draw(st.sampled_from(ALL_DTYPES))
    shape = draw(st.sampled_from(_SHAPES))
    count = draw(st.integers(1, 3))
    parts = []
    for _ in range(count):
        same = draw(st.integers(0, 3))
        parts.append(draw(_operand(dtype if same else None, [shape] if same else _SHAPES)))
    return draw(st.sampled_from([list, tuple]))(parts)


@settings(max_examples=120, deadline=None)
@given(_joined(), _AXES)
def test_concatenate_and_concat_match_general_path(arrays, axis):
    assert_same_outcome(lambda: fnp.concatenate(arrays, axis))
    assert_same_outcome(lambda: fnp.concat(arrays, axis=axis))


@settings(max_examples=120, deadline=None)
@given(_operand(), st.data(), _AXES)
def test_append_matches_general_path(arr, data, axis):
    # values of the same dtype and shape (mostly), of another, or a Python scalar
    values = data.draw(st.one_of(
        st.just(arr), _operand(), st.sampled_from([0, 1.5, -0.0, True, 2**31, np.nan])))
    assert_same_outcome(lambda: fnp.append(arr, values, axis))


@settings(max_examples=120, deadline=None)
@given(st.sampled_from([fnp.atleast_1d, fnp.atleast_2d, fnp.atleast_3d]),
       st.lists(st.one_of(_operand(), st.sampled_from([1.5, 3, True])), max_size=3))
def test_atleast_matches_general_path(op, arys):
    assert_same_outcome(lambda: op(*arys))


@settings(max_examples=120, deadline=None)
@given(operands(shapes=_SHAPES), st.sampled_from([None, 0, 1, -1, (0, 1), (1, -1), (0, 0), 3]))
def test_flips_match_general_path(operand, axis):
    x, _ = operand
    assert_same_outcome(lambda: fnp.flip(x, axis))
    assert_same_outcome(lambda: fnp.flipud(x))
    assert_same_outcome(lambda: fnp.fliplr(x))


def test_shortcuts_take_the_common_forms():
    x = fnp.asarray(np.arange(4.0, dtype=np.float32))
    m = fa.device_put(fnp.asarray(np.arange(6.0, dtype=np.float32).reshape(2, 3)))
    s = fnp.asarray(np.float32(2.0))
    h, r = _shape_on_host, _rearranging_on_host
    outs = [h._concatenate_on_host([x, x]), h._concat_on_host((m, m), axis=-1),
            h._concatenate_on_host([m], None), _array_ops._append_on_host(s, s),
            _array_ops._append_on_host(m, m, 0), h._atleast_1d_on_host(s),
            h._atleast_2d_on_host(x), h._atleast_3d_on_host(m), h._atleast_3d_on_host(x, s),
            r.flipud_on_host(x), r.flipud_on_host(m), r.fliplr_on_host(m), r.flip_on_host(m),
            r.flip_on_host(m, -1)]
    for out in outs:
        assert out is not NotImplemented
        assert all(type(o) is Array for o in (out if isinstance(out, list) else [out]))

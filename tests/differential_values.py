"""Hypothesis strategies for the differential test against jax: dtypes, shapes, values and
Python scalars, drawn so that the edge values of every dtype appear often.

Values mix the op's domain (``op_table.Domain``) with the dtype's edge values: signed zeros,
infinities, NaN, the largest and smallest finite values, the smallest normal and the smallest
subnormal, integer minimum and maximum. Arrays stay small (at most ``MAX_SIDE`` elements per
axis) and their shapes come from a fixed list: each distinct shape and dtype compiles a
program under jit, so the list bounds the compile cost of a run.

Example:
    >>> from hypothesis import given
    >>> from op_table import ANY
    >>> @given(operands(2, ANY, (dtypes.float32,), with_scalars=False))
    ... def check(case):
    ...     assert all(v.dtype == np.float32 for v in case.values)
    >>> check()
"""

from __future__ import annotations

import dataclasses

import numpy as np
from differential_compare import reproducer
from hypothesis import strategies as st
from op_table import ALL_DTYPES, kind_of

from funcarray import dtypes

__all__ = ["Case", "SHAPES", "array_of", "edge_values", "operands", "python_scalars"]

MAX_SIDE = 3

# Shapes per number of operands: 0-d, empty, one axis, and broadcasting of a lower rank, of
# a size-1 axis both ways, of a 0-d operand, and of an empty axis against a size-1 axis.
SHAPES = {
    1: (((),), ((0,),), ((MAX_SIDE,),), ((2, MAX_SIDE),)),
    2: (((MAX_SIDE,), (MAX_SIDE,)), ((), ()), ((), (MAX_SIDE,)), ((2, MAX_SIDE), (MAX_SIDE,)),
        ((2, 1), (1, MAX_SIDE)), ((0,), (1,)), ((0,), ())),
    3: (((MAX_SIDE,),) * 3, ((2, MAX_SIDE), (MAX_SIDE,), ()), ((2, 1), (1, MAX_SIDE), (1, 1)),
        ((0,), (), (1,))),
}


def edge_values(dtype) -> tuple:
    """The values of ``dtype`` (Python numbers, exact in it) where implementations differ."""
    kind = kind_of(dtype)
    if kind == "b":
        return (False, True)
    if kind in "iu":
        info = np.iinfo(dtype)
        return tuple(sorted({0, 1, int(info.max), int(info.max) - 1, int(info.min),
                             int(info.min) + 1, *((-1,) if kind == "i" else ())}))
    info = dtypes.finfo(dtype)
    magnitudes = (0.0, np.inf, float(info.max), float(info.tiny),
                  float(info.smallest_subnormal), 1.0)
    return (np.nan, *magnitudes, *(-m for m in magnitudes))


def _real_dtype(dtype):
    return {dtypes.complex64: dtypes.float32, dtypes.complex128: dtypes.float64}.get(
        np.dtype(dtype), np.dtype(dtype))


def _domain_values(dtype, domain):
    """Values inside ``domain``, as the op table's elementwise tests draw them."""
    kind = kind_of(dtype)
    if kind == "b":
        return st.booleans()
    if kind in "iu":
        info = np.iinfo(dtype)
        if domain.shift:
            return st.integers(0, info.bits - 1)
        if domain.full_int_range:
            return st.integers(int(info.min), int(info.max))
        lo = max(int(np.ceil(domain.lo)), int(info.min))
        return st.integers(lo, max(lo, min(int(np.floor(domain.hi)), int(info.max))))
    if domain.shift:
        return st.integers(0, 7).map(float)
    return st.floats(domain.lo, domain.hi)


def _elements(dtype, domain):
    """One element: in the domain two times out of three, else an edge value."""
    real = _real_dtype(dtype)
    one = st.one_of(_domain_values(real, domain), _domain_values(real, domain),
                    st.sampled_from(edge_values(real)))
    if kind_of(dtype) == "c":
        return st.builds(complex, one, one)
    return one


def array_of(dtype, shape, domain):
    """A NumPy array of ``dtype`` and ``shape`` with values from ``_elements``."""
    size = int(np.prod(shape, dtype=np.int64))
    return st.lists(_elements(dtype, domain), min_size=size, max_size=size).map(
        lambda xs: _as_array(xs, dtype, shape))


def _as_array(xs, dtype, shape):
    dtype = np.dtype(dtype)
    if kind_of(dtype) in "biu":
        return np.array(xs, dtype).reshape(shape)
    wide = np.complex128 if dtype.kind == "c" else np.float64
    with np.errstate(over="ignore"):  # finfo.max of float64 passes through a cast unchanged
        return np.array(xs, wide).astype(dtype).reshape(shape)


def python_scalars(domain):
    """A Python scalar of each kind: bool; int within and beyond int32 (and int64); float
    inside the domain and at the edges; complex. Weak-typed operands in both libraries."""
    ints = st.one_of(_domain_values(np.dtype(np.int64), domain),
                     st.sampled_from((0, 1, -1, 127, 128, -129, 255, 256, 2**31 - 1, 2**31,
                                      -2**31 - 1, 2**32, 2**63 - 1, -2**63, 2**64)))
    floats = st.one_of(_domain_values(np.dtype(np.float64), domain),
                       st.sampled_from(edge_values(dtypes.float64)))
    return st.one_of(st.booleans(), ints, floats, st.builds(complex, floats, floats))


@dataclasses.dataclass(frozen=True)
class Case:
    """The operands of one call: NumPy arrays and Python scalars, in argument order."""

    values: tuple

    @property
    def array_positions(self) -> tuple:
        return tuple(i for i, v in enumerate(self.values) if isinstance(v, np.ndarray))

    def with_arrays(self, arrays) -> tuple:
        """The operands with the arrays replaced, in order, by ``arrays``."""
        it = iter(arrays)
        return tuple(next(it) if isinstance(v, np.ndarray) else v for v in self.values)

    def __repr__(self):
        return "Case(" + ", ".join(map(reproducer, self.values)) + ")"


@st.composite
def operands(draw, nargs, domains, dtype_choices=ALL_DTYPES, *, condition=False,
             with_scalars=True):
    """Operands for an op of ``nargs`` arguments: one dtype for the arrays, a shape set from
    ``SHAPES``, and (``with_scalars``) Python scalars in place of some operands, at least
    one array left. ``condition``: the first operand is a bool array (``where``)."""
    if not isinstance(domains, tuple):
        domains = (domains,) * nargs
    dtype = draw(st.sampled_from(dtype_choices), label="dtype")
    shapes = draw(st.sampled_from(SHAPES[nargs]), label="shapes")
    scalar_at = set()
    if with_scalars and nargs > 1:
        free = [i for i in range(nargs) if not (condition and i == 0)]
        picked = draw(st.lists(st.sampled_from(free), unique=True, max_size=len(free) - 1))
        scalar_at = set(picked)
    values = []
    for i, (shape, domain) in enumerate(zip(shapes, domains)):
        if i in scalar_at:
            values.append(draw(python_scalars(domain)))
        elif condition and i == 0:
            values.append(draw(array_of(dtypes.bool_, shape, domain)))
        else:
            values.append(draw(array_of(dtype, shape, domain)))
    return Case(tuple(values))

"""Every operation of the eager benchmark's op table ends the same with the host shortcuts on
and off: the same result (type, shape, dtype, weak type, bits) or the same error
(``tests/shortcut_oracle.py``), on host arrays and on device arrays.

The op table (``bench/eager_op_cases.py``) calls each public ``funcarray.numpy``,
``funcarray.lax``, ``funcarray.numpy.linalg`` and ``funcarray.numpy.fft`` operation on the
inputs the speed goals are measured on, so a shortcut that only the benchmark takes is held to
the general path here too; the per-family tests draw the edge values and dtypes.
"""

import sys
from pathlib import Path

import numpy as np
import pytest
from shortcut_oracle import assert_same_outcome, outcomes

import funcarray as fa
import funcarray.numpy as fnp

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import bench_eager_ops  # noqa: E402 (bench/ is no package: found through sys.path)
import eager_op_cases  # noqa: E402

_NAMESPACES = {"numpy": fnp, "lax": fa.lax, "numpy.linalg": fnp.linalg,
               "numpy.fft": fnp.fft}
_GENS = {label: eager_op_cases.Gen(label) for label in eager_op_cases.SHAPES}
_PLACEMENTS = {"host": fnp.asarray, "device": fa.device_put}
# NumPy's LAPACK routines in one step against the general path's LU primitives: they differ
# by rounding (tests/numpy/test_linalg_solve_shortcuts.py has the exact cases).
_ROUNDING_ONLY = {"numpy.linalg.solve", "numpy.linalg.inv", "numpy.linalg.det",
                  "numpy.linalg.slogdet", "numpy.linalg.tensorinv", "numpy.linalg.tensorsolve"}
# A stateful random draw: two calls differ whichever path takes them.
_NOT_REPEATABLE = {"lax.rng_uniform"}


def _assert_same_up_to_rounding(call):
    fast, general = outcomes(call)
    assert fast[0] == general[0] == "ok", (fast, general)
    fast_leaves, general_leaves = fa.tree.leaves(fast[1]), fa.tree.leaves(general[1])
    assert len(fast_leaves) == len(general_leaves)
    for got, want in zip(fast_leaves, general_leaves):
        assert (got.shape, got.dtype, got.weak_type) == (want.shape, want.dtype, want.weak_type)
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("op", [op for op in eager_op_cases.TABLE
                                if op.key not in _NOT_REPEATABLE], ids=lambda op: op.key)
def test_shortcut_gives_the_general_path_outcome(op):
    function = getattr(_NAMESPACES[op.module], op.name)
    check = _assert_same_up_to_rounding if op.key in _ROUNDING_ONLY else assert_same_outcome
    for label in op.shapes:
        arguments = op.build(_GENS[label])
        for place in _PLACEMENTS.values():
            # (each call gets fresh arrays: a device array's value is fetched on first use)
            check(lambda: bench_eager_ops._call(op, function, arguments, place, "fa")())


def test_the_table_covers_the_public_operations():
    """Names missing from the table (and not left out with a reason) would go unchecked."""
    from funcarray.numpy._scalar_types import ScalarType

    covered = bench_eager_ops.coverage(_NAMESPACES, eager_op_cases.TABLE,
                                       eager_op_cases.SKIPPED, ScalarType)
    missing = [key for key, reason in covered.left_out.items()
               if reason == "MISSING FROM THE TABLE"]
    assert not missing
    assert sum(map(len, covered.timed.values())) > 400

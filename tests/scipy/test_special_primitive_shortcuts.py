"""``funcarray.scipy.special``'s one-primitive functions (erf, erfc, erfinv, gammaln,
digamma) run their kernel at once on concrete float32/float64 arrays: the general path's
outcome (``tests/shortcut_oracle.py``) for every dtype, operand kind and size."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from shortcut_oracle import assert_same_outcome

import funcarray as fa
import funcarray.numpy as fnp
from funcarray.base.array import Array
from funcarray.scipy import special as fsp

_FUNCTIONS = [fsp.erf, fsp.erfc, fsp.erfinv, fsp.gammaln, fsp.digamma]
_VALUES = st.one_of(st.sampled_from([0.0, -0.0, 1.0, -1.0, 2.0, 0.5, -2.5, 30.0, np.inf,
                                     -np.inf, np.nan]), st.floats(-40, 40))


def _operand(values, dtype, kind):
    with np.errstate(over="ignore", invalid="ignore"):  # (inf, NaN as ints)
        x = np.asarray(values, np.float64).astype(dtype)
    if kind == "numpy":
        return x
    if kind == "weak":
        return Array(x.copy(), True)
    if kind == "device":
        return fa.device_put(fnp.asarray(x))
    if kind == "scalar":
        return float(x.reshape(-1)[0]) if x.size else 1.0
    return fnp.asarray(x)


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(_FUNCTIONS),
       st.sampled_from([np.float16, np.float32, np.float64, np.int32, np.bool_]),
       st.lists(_VALUES, max_size=9), st.sampled_from(["array", "weak", "device", "numpy",
                                                       "scalar"]))
def test_shortcut_matches_general_path(function, dtype, values, kind):
    operand = _operand(values, dtype, kind)
    assert_same_outcome(lambda: function(operand))

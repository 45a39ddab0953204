"""debug_nans / debug_infs: FloatingPointError at the operation that made the NaN (inf)."""

import os
import subprocess
import sys

import numpy as np
import pytest

import funcarray as fa
import funcarray.numpy as fnp
from funcarray.transforms.core import EVAL_TRACE, EvalTrace


def log_of_negative(x):
    y = fnp.sin(x)
    z = fnp.log(y - 2.0)  # the NaN is made here
    return z * 2.0


TRANSFORMS = {
    "eager": lambda f: f,
    "jit": fa.jit,
    "grad": lambda f: fa.grad(lambda x: f(x).sum()),
    "vmap": fa.vmap,
    "jit inside grad": lambda f: fa.grad(lambda x: fa.jit(f)(x).sum()),
    "jit of jit": lambda f: fa.jit(fa.jit(f)),
}


@pytest.mark.parametrize("transform", TRANSFORMS)
def test_the_error_names_the_operation_and_the_users_line(transform):
    fun = TRANSFORMS[transform](log_of_negative)
    with fa.debug_nans(), pytest.raises(FloatingPointError) as info:
        fun(fnp.ones(3))
    message = str(info.value)
    assert message.startswith(("log: invalid value (nan)", "jit ")), message
    assert "log" in message and "nan" in message
    line = "z = fnp.log(y - 2.0)" if transform != "jit inside grad" else "fa.jit(f)(x).sum()"
    assert line in message, message


def test_off_by_default_and_restored_after_the_block():
    jitted = fa.jit(log_of_negative)
    assert np.isnan(np.asarray(jitted(fnp.ones(3)))).all()  # compiled, fast path remembered
    with fa.debug_nans():
        assert EVAL_TRACE.__class__ is not EvalTrace
        with pytest.raises(FloatingPointError):
            jitted(fnp.ones(3))  # the fast path must not skip the check
        assert float(fa.jit(lambda x: x * 2.0)(fnp.ones(()))) == 2.0  # no NaN: no error
    assert EVAL_TRACE.__class__ is EvalTrace and not fa.config.debug_nans
    assert np.isnan(np.asarray(jitted(fnp.ones(3)))).all()


def test_debug_infs_flags_infinities_and_debug_nans_does_not():
    divide = fa.jit(lambda x: x / 0.0)
    with fa.debug_nans():
        assert np.isinf(np.asarray(divide(fnp.ones(2)))).all()
    with fa.debug_infs(), pytest.raises(FloatingPointError, match=r"div: invalid value \(inf\)"):
        divide(fnp.ones(2))


def test_integer_and_nan_free_outputs_pass_and_nan_inputs_are_caught_where_used():
    with fa.debug_nans():
        assert int(fnp.arange(3).sum()) == 3
        with pytest.raises(FloatingPointError, match="mul"):
            fnp.asarray([np.nan]) * 2.0


def test_donated_call_is_not_rerun():
    fun = fa.jit(lambda x: fnp.log(x - 5.0), donate_argnums=0)
    with fa.debug_nans(), pytest.raises(FloatingPointError, match="donated its arguments"):
        fun(fa.device_put(fnp.ones(3)))


def test_environment_variables_take_effect_at_import():
    # With the XLA eager backend too: the checking class wraps whichever eager class is on.
    code = ("import funcarray as fa, funcarray.numpy as fnp\n"
            "from funcarray.transforms.core import EVAL_TRACE\n"
            "print(type(EVAL_TRACE).__name__)\n"
            "try:\n    fnp.log(fnp.asarray(-1.0))\nexcept FloatingPointError as e:\n"
            "    print(str(e).splitlines()[0])")
    env = dict(os.environ, FUNCARRAY_DEBUG_NANS="1", FUNCARRAY_EAGER_BACKEND="xla")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True)
    assert out.stdout.splitlines() == [
        "NanCheckingXlaEvalTrace",
        "log: invalid value (nan) in the output (float32[]); funcarray.config.debug_nans is on"]

"""NumPy's promotion of mixed operands for ``funcarray.numpy``: dtypes promoted to one, shapes
broadcast to one, with fast paths for the common eager cases.

Argument conversion (scalars, lists, axes) is below, in ``funcarray.api.arguments``; primitives
and ``funcarray.lax`` never promote or broadcast implicitly.
"""

from __future__ import annotations

import numpy as np

from funcarray.api.arguments import (
    _scalar_operand,
    asarray_arg,
    broadcast_shapes,
    broadcast_to_shape,
    convert,
    host_view,
    is_array,
    to_inexact_dtype,
)
from funcarray.base import dtypes
from funcarray.base.array import Array, DeviceArray
from funcarray.base.errors import op_type_error
from funcarray.base.host_values import SCALAR_DEFAULTS, scalar_to_array
from funcarray.transforms.core import Tracer, running_eagerly
from funcarray.transforms.host_shortcuts import host_value, shortcuts_run_now

# Dtypes whose (strong) arrays absorb a Python float / int scalar without changing dtype.
_ABSORBS_FLOAT = dtypes.dtype_set(dtypes.is_inexact)
_ABSORBS_INT = dtypes.dtype_set(lambda d: dtypes.is_inexact(d) or dtypes.is_integer(d))


def promote_binary(op: str, x, y, eager: bool | None = None):
    """``promote_args`` for two operands, with fast paths for the common eager cases.

    Eager kernels broadcast like NumPy (NumPy's own, and the XLA eager backend's single-op
    executables, which broadcast inside), so when every operand is concrete and a bind would
    run at once (``running_eagerly``) the explicit ``broadcast_in_dim`` is skipped (shapes
    are still validated). Under a transform the operands are broadcast explicitly, since
    primitives are strict about shapes: even concrete operands can reach an equation
    (``fa.jit(lambda x: x + c * 2.0)`` with a closed-over ``c`` stages ``c * 2.0``).
    """
    tx, ty = type(x), type(y)
    if tx is Array:
        vx = x._value
        if ty is Array:
            vy = y._value
            if (vx.dtype is vy.dtype or vx.dtype == vy.dtype) and vx.shape == vy.shape:
                return x, y
        elif (ty is float and vx.dtype in _ABSORBS_FLOAT) or (
                ty is int and vx.dtype in _ABSORBS_INT):
            if not x._weak or _weak_absorbs(vx.dtype, y):
                scalar = _scalar_operand(op, y, vx.dtype)
                if vx.shape and not running_eagerly():  # (eager kernels broadcast)
                    scalar = broadcast_to_shape(scalar, vx.shape)
                return x, scalar
    elif ty is Array and (tx is float or tx is int):
        vy = y._value
        if vy.dtype in (_ABSORBS_FLOAT if tx is float else _ABSORBS_INT) and (
                not y._weak or _weak_absorbs(vy.dtype, x)):
            scalar = _scalar_operand(op, x, vy.dtype)
            if vy.shape and not running_eagerly():
                scalar = broadcast_to_shape(scalar, vy.shape)
            return scalar, y
    elif ty is float or ty is int:
        if isinstance(x, Tracer) and not x.weak_type and x.dtype in (
                _ABSORBS_FLOAT if ty is float else _ABSORBS_INT):
            # A strong tracer and a Python scalar under a transform (``maximum(h, 0.0)``,
            # ``x - 1.0`` in grad's forward pass): the scalar takes the tracer's dtype, with
            # no walk of the promotion lattice.
            return x, broadcast_to_shape(scalar_to_array(op, y, x.dtype), x.shape)
    elif tx is float or tx is int:
        if isinstance(y, Tracer) and not y.weak_type and y.dtype in (
                _ABSORBS_FLOAT if tx is float else _ABSORBS_INT):
            return broadcast_to_shape(scalar_to_array(op, x, y.dtype), y.shape), y
    elif isinstance(x, Tracer) and is_array(y) or isinstance(y, Tracer) and is_array(x):
        # Under a transform (grad's forward pass): operands of one dtype and weak type need no
        # conversion, only a broadcast when their shapes differ (a bias added to a batch).
        # (A weak one meeting a strong one takes the general path.)
        if x.dtype == y.dtype and x.weak_type == y.weak_type:
            x_shape, y_shape = x.shape, y.shape
            if x_shape == y_shape:
                return x, y
            shape = broadcast_shapes(op, x_shape, y_shape)
            return broadcast_to_shape(x, shape), broadcast_to_shape(y, shape)
    if eager is None:
        # A host shortcut asked for here, not by a decorator: this is the promotion step of
        # every binary function (x + y), and a decorator on each of them would cost every
        # call a wrapper for a case only mixed or device operands reach.
        eager = shortcuts_run_now()
    if eager:
        if tx is DeviceArray or ty is DeviceArray:
            # A jit output in eager code (``params["w"] * 2.0`` after a jitted step): NumPy
            # kernels read its host value anyway, so take the host Arrays' fast paths above.
            return promote_binary(op, host_view(x), host_view(y), eager)
        return _promote(op, (x, y), eager_broadcast=True)
    # The XLA eager backend broadcasts operands inside its single-op executable: outside
    # every transform the explicit broadcast (an executable run of its own) is skipped too.
    eagerly = running_eagerly()
    if eagerly and (tx is DeviceArray or ty is DeviceArray):
        operands = _device_operands(op, x, y, tx, ty)
        if operands is not None:
            return operands
    return _promote(op, (x, y), eager_broadcast=eagerly)


# The dtypes of weak arrays made from Python scalars: a weak array of one meets a Python
# scalar its dtype absorbs (a loop counter ``c + 1``, ``t * 0.5``) with no change of dtype or
# weak type, so the general path's walk of the lattice can be skipped.
_WEAK_DEFAULTS = frozenset({dtypes.default_int, dtypes.default_float, dtypes.default_complex})
_INT32_MIN, _INT32_MAX = -2 ** 31, 2 ** 31 - 1


def _weak_absorbs(dtype, scalar) -> bool:
    """Whether a weak array of ``dtype`` and the Python ``scalar`` promote to ``dtype``, weak,
    with ``scalar`` converted as the general path converts it (an int beyond int32 takes the
    general path, whose error names the default integer type)."""
    return dtype in _WEAK_DEFAULTS and (
        type(scalar) is not int or _INT32_MIN <= scalar <= _INT32_MAX)


def host_pair(x, y):
    """For a host shortcut of a binary function: the NumPy values of ``x`` and ``y`` as the
    general path's promotion gives them, and their weak type, for two host (or device)
    arrays of one NumPy dtype, or a strong one and a Python int or float its dtype absorbs
    (made in its dtype, as ``promote_args`` makes it); None for anything else (the general
    path promotes it). The values keep their shapes: NumPy's kernels broadcast them.

    Example:
        >>> import funcarray.numpy as fnp
        >>> host_pair(fnp.ones(2), 3)
        (array([1., 1.], dtype=float32), array(3., dtype=float32), False)
    """
    vx, vy = host_value(x), host_value(y)
    if vx is None:
        if vy is None or y._weak:
            return None
        vx = _absorbed_scalar(x, vy.dtype)
        return None if vx is None else (vx, vy, False)
    dtype = vx.dtype
    if dtype.isbuiltin != 1:  # (ml_dtypes' types: the general path)
        return None
    if vy is None:
        if x._weak:
            return None
        vy = _absorbed_scalar(y, dtype)
        return None if vy is None else (vx, vy, False)
    if vy.dtype != dtype:
        return None
    return vx, vy, x._weak and y._weak


def strong_host_values(*arrays, inexact=False, kinds="iufc"):
    """For a host shortcut: the NumPy values of strong host (or device) arrays of one dtype
    of ``kinds`` (inexact if asked: the promotion would convert integers), which the general
    path's promotion leaves as they are; None for anything else.

    Example:
        >>> import funcarray.numpy as fnp
        >>> strong_host_values(fnp.ones(2), fnp.zeros(3))
        [array([1., 1.], dtype=float32), array([0., 0., 0.], dtype=float32)]
        >>> strong_host_values(fnp.ones(2), fnp.arange(2)) is None
        True
    """
    values = []
    for a in arrays:
        v = host_value(a)
        if v is None or a._weak:
            return None
        values.append(v)
    dtype = values[0].dtype
    if dtype.kind not in kinds or (inexact and not dtypes.is_inexact(dtype)):
        return None
    for v in values:
        if v.dtype != dtype:
            return None
    return values


def _absorbed_scalar(scalar, dtype):
    """A Python int or float as a 0-d NumPy value of ``dtype`` when ``dtype`` absorbs it
    (an integer outside the dtype's range raises), else None."""
    t = type(scalar)
    if dtype.isbuiltin != 1 or not ((t is float and dtype in _ABSORBS_FLOAT) or (
            t is int and dtype in _ABSORBS_INT)):
        return None
    return np.asarray(scalar, dtype)


def _device_operands(op: str, x, y, tx, ty):
    """The common eager cases on device arrays with the XLA eager backend, read from their
    types alone (their values stay on the device): two arrays of one dtype and weak type, or
    a strong array and a Python scalar its dtype absorbs. None: take the general path."""
    if tx is DeviceArray:
        ax = x._aval
        if ty is DeviceArray:
            ay = y._aval
            if ax.dtype == ay.dtype and x._weak == y._weak:
                if ax.shape != ay.shape:
                    broadcast_shapes(op, ax.shape, ay.shape)  # (validated, not applied)
                return x, y
        elif not x._weak and ((ty is float and ax.dtype in _ABSORBS_FLOAT) or (
                ty is int and ax.dtype in _ABSORBS_INT)):
            return x, _scalar_operand(op, y, ax.dtype)
    elif (tx is float or tx is int) and not y._weak and y._aval.dtype in (
            _ABSORBS_FLOAT if tx is float else _ABSORBS_INT):
        return _scalar_operand(op, x, y._aval.dtype), y
    return None


def promote_args(op: str, *args):
    """Convert, promote to one dtype and broadcast to one shape: the operands of an
    elementwise primitive."""
    return _promote(op, args, eager_broadcast=False)


def promote_args_inexact(op: str, *args):
    """``promote_args`` to the inexact dtype of the operands' common dtype (float32 for
    integers and bools), each operand converted straight to it as jax does: ``int8 / -129``
    divides by -129.0, where converting the Python int to int8 first would wrap it (under
    jit, where its value is not known) or raise (eagerly)."""
    return _promote(op, args, eager_broadcast=False, inexact=True)


def promote_args_unbroadcast(op: str, *args):
    """``promote_args`` without the broadcast: the operands converted to their common dtype and
    weak type, for operations that join arrays of different shapes (``append``, ``diff``'s
    ``prepend``). A Python scalar is converted straight to that dtype (a Python float joining
    a float64 array keeps float64's precision, as it does in ``promote_args``)."""
    return _promote(op, args, eager_broadcast=False, broadcast=False)


def _promote(op: str, args, eager_broadcast: bool, broadcast: bool = True,
             inexact: bool = False):
    args = [a if is_array(a) or type(a) in SCALAR_DEFAULTS else asarray_arg(op, a)
            for a in args]
    if len(args) == 2 and is_array(args[0]) and is_array(args[1]) and (
            args[0].dtype == args[1].dtype):
        # Two arrays of one dtype (a bias added under grad): no lattice walk needed.
        dtype, weak = args[0].dtype, args[0].weak_type and args[1].weak_type
    else:
        try:
            dtype, weak = dtypes.result_type(*args, return_weak_type=True)
        except TypeError as exc:
            raise op_type_error(op, str(exc)) from None
    if inexact and not dtypes.is_inexact(dtype):
        dtype = to_inexact_dtype(dtype)
    arrays = []
    all_concrete = True
    for a in args:
        if type(a) in SCALAR_DEFAULTS:
            a = scalar_to_array(op, a, dtype)
            a._weak = weak
        else:
            a = convert(a, dtype, weak)
            all_concrete = all_concrete and (type(a) is Array or type(a) is DeviceArray)
        arrays.append(a)
    if not broadcast:
        return arrays
    shape = broadcast_shapes(op, *(a.shape for a in arrays))
    if all_concrete and eager_broadcast:
        return arrays  # the eager kernel broadcasts them itself (see promote_binary)
    return [broadcast_to_shape(a, shape) for a in arrays]



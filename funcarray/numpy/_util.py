"""Argument normalisation shared by ``funcarray.numpy``: conversion, promotion, broadcasting,
axes.

This is where NumPy's conveniences (Python scalars, lists, implicit broadcasting, mixed dtypes,
negative axes) are turned into the strict operands that primitives accept. Nothing below this
layer promotes or broadcasts.
"""

from __future__ import annotations

import numpy as np

from funcarray import dtypes
from funcarray._errors import axis_error, op_type_error, op_value_error
from funcarray.array import Array, DeviceArray
from funcarray.primitives.elementwise import convert_element_type_p
from funcarray.primitives.shape import broadcast_in_dim_p
from funcarray.transforms.core import Tracer, running_eagerly, running_numpy_kernels

_SCALAR_DEFAULTS = {int: dtypes.default_int, float: dtypes.default_float,
                    complex: dtypes.default_complex, bool: dtypes.bool_}
_INT32 = np.iinfo(np.int32)


def is_array(x) -> bool:
    """True for funcarray Arrays and tracers (anything ``bind`` accepts as an operand)."""
    # (Exact types and Tracer first: Array's isinstance check is a Python-level call for
    # anything but an exact Array, see array._ArrayMeta.)
    t = type(x)
    return t is Array or t is DeviceArray or isinstance(x, (Tracer, Array))


def _scalar_to_array(op: str, x, dtype=None) -> Array:
    t = type(x)
    weak = t is not bool and dtype is None  # an explicit dtype makes the value strong
    if dtype is None:
        dtype = _SCALAR_DEFAULTS[t]
        if t is int and not _INT32.min <= x <= _INT32.max:
            raise OverflowError(
                f"{op}: the Python int {x} does not fit in int32, the default integer type. "
                f"Pass an explicit 64-bit array, e.g. fnp.asarray({x}, dtype=fnp.int64).")
    if t is float and dtypes.is_integer(dtype):
        # Python semantics would silently truncate; NumPy and JAX refuse too.
        raise op_type_error(op, f"cannot convert the float {x} to integer dtype {dtype}")
    try:
        return Array(np.asarray(x, dtype), weak)
    except OverflowError:
        raise op_value_error(
            op, f"the Python int {x} is out of range for {dtype}; convert the array to a "
                f"wider dtype first (x.astype(...))") from None


def _from_numpy(op: str, x, dtype=None) -> Array:
    value = np.asarray(x)
    if value.dtype.kind in "OUSV" and not dtypes.is_supported(value.dtype):
        if value.dtype == dtypes.float0:
            raise op_type_error(op, dtypes.float0_message())
        raise op_type_error(
            op, f"cannot make an array from {type(x).__name__} of dtype {value.dtype}; "
                f"funcarray holds numbers and booleans only")
    target = dtypes.canonicalize_dtype(value.dtype if dtype is None else dtype)
    # Copy: the caller keeps their NumPy array and may mutate it; ours must never change.
    return Array(np.array(value, dtype=target, copy=True))


def _sequence_default_dtype(seq):
    """Python lists of Python scalars default to int32/float32/complex64, as in JAX."""
    value = np.asarray(seq)
    kind = value.dtype.kind
    if kind == "f":
        return dtypes.default_float
    if kind in "iu":
        return dtypes.default_int
    if kind == "c":
        return dtypes.default_complex
    return value.dtype


def _kind(seq) -> str:
    """NumPy's dtype kind of a nested sequence of Python scalars ("" if it is ragged)."""
    try:
        return np.asarray(seq).dtype.kind
    except ValueError:
        return ""


def _contains_arrays(seq) -> bool:
    for item in seq:
        if is_array(item) or isinstance(item, (np.ndarray, np.generic)):
            return True
        if isinstance(item, (list, tuple)) and _contains_arrays(item):
            return True
    return False


def asarray_arg(op: str, x, dtype=None):
    """Convert a user argument to an Array (or pass a tracer through).

    Python scalars become weak-typed arrays; NumPy arrays are copied and keep their dtype
    (float64 stays float64); lists of Python numbers default to int32/float32.
    """
    if is_array(x):
        return x if dtype is None else convert(x, dtypes.canonicalize_dtype(dtype))
    t = type(x)
    if t in _SCALAR_DEFAULTS:
        return _scalar_to_array(op, x, None if dtype is None else dtypes.canonicalize_dtype(dtype))
    if isinstance(x, (np.ndarray, np.generic)):
        return _from_numpy(op, x, dtype)
    if isinstance(x, (list, tuple)):
        if _contains_arrays(x):
            from funcarray.numpy._shape import stack
            out = stack([asarray_arg(op, item) for item in x])
            # A list built from arrays is a strong array, as in JAX, even if every item is weak.
            target = out.dtype if dtype is None else dtypes.canonicalize_dtype(dtype)
            return convert(out, target, weak_type=False)
        if dtype is None:
            dtype = _sequence_default_dtype(x)
        try:
            return _from_numpy(op, np.asarray(x), dtype)
        except ValueError as exc:
            raise op_value_error(op, f"cannot make an array from this nested sequence: {exc}")
    if hasattr(x, "__array__") or hasattr(x, "__array_interface__"):
        return _from_numpy(op, np.asarray(x), dtype)
    raise op_type_error(
        op, f"expected an array, a number or a (nested) list of numbers, got "
            f"{type(x).__name__}")


def convert(x, dtype, weak_type: bool = False):
    """Convert an Array/tracer to ``dtype`` (no-op when it already has it)."""
    if x.dtype == dtype and x.weak_type == weak_type:
        return x
    return convert_element_type_p.bind(x, new_dtype=np.dtype(dtype), weak_type=weak_type)


def convert_arg(op: str, x, dtype, weak_type: bool = False):
    """``convert(asarray_arg(op, x), dtype, weak_type)`` without rounding Python floats to
    float32 on the way: ``asarray_arg`` stores a Python float (or a list of them) as a weak
    float32, so converting that to float64 would keep float32's rounding (0.1 would become
    0.10000000149). Python floats and complexes (and lists of them) are taken at double
    precision instead; to an integer dtype they truncate as ``convert_element_type`` does.

    Example:
        >>> convert_arg("op", 0.1, np.float64).item()
        0.1
        >>> convert_arg("op", 2.7, np.int32)
        Array(2, dtype=int32)
    """
    t = type(x)
    dtype = dtypes.canonicalize_dtype(dtype)
    if t is float or t is complex:
        x = Array(np.asarray(x, np.complex128 if t is complex else np.float64))
    elif (t is list or t is tuple) and not _contains_arrays(x):
        x = Array(np.asarray(x)) if _kind(x) in "fc" else asarray_arg(op, x, dtype)
    else:
        x = asarray_arg(op, x)
    return convert(x, dtype, weak_type)


def broadcast_shapes(op: str, *shapes) -> tuple:
    """NumPy's broadcasting of shapes, with an error that names the operation and shapes."""
    if len(shapes) == 2 and shapes[0] == shapes[1]:
        return tuple(shapes[0])
    ndim = max(len(s) for s in shapes)
    out = []
    for i in range(ndim):
        size = 1
        for s in shapes:
            d = s[i - ndim + len(s)] if i - ndim + len(s) >= 0 else 1
            if d != 1:
                if size != 1 and size != d:
                    raise op_value_error(
                        op, f"shapes {' and '.join(str(tuple(s)) for s in shapes)} cannot be "
                            f"broadcast together (dimension {i - ndim} has sizes {size} and {d}). "
                            f"Reshape or expand_dims one operand so the trailing dimensions "
                            f"match or are 1.")
                size = d
        out.append(size)
    return tuple(out)


def broadcast_to_shape(x, shape):
    """Broadcast an Array/tracer to ``shape`` with NumPy's rules (trailing alignment)."""
    if x.shape == shape:
        return x
    lead = len(shape) - x.ndim
    return broadcast_in_dim_p.bind(
        x, shape=tuple(shape), broadcast_dimensions=tuple(range(lead, len(shape))))


# Dtypes whose (strong) arrays absorb a Python float / int scalar without changing dtype.
_ABSORBS_FLOAT = dtypes.dtype_set(dtypes.is_inexact)
_ABSORBS_INT = dtypes.dtype_set(lambda d: dtypes.is_inexact(d) or dtypes.is_integer(d))


def _scalar_operand(op: str, scalar, dtype) -> Array:
    try:
        return Array(dtype.type(scalar), True)  # a NumPy scalar: ~3x cheaper than a 0-d array
    except OverflowError:
        raise op_value_error(
            op, f"the Python int {scalar} is out of range for {dtype}; convert the array to "
                f"a wider dtype first (x.astype(...))") from None


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
            if not x._weak:
                scalar = _scalar_operand(op, y, vx.dtype)
                if vx.shape and not running_eagerly():  # (eager kernels broadcast)
                    scalar = broadcast_to_shape(scalar, vx.shape)
                return x, scalar
    elif ty is Array and (tx is float or tx is int):
        vy = y._value
        if not y._weak and vy.dtype in (_ABSORBS_FLOAT if tx is float else _ABSORBS_INT):
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
            return x, broadcast_to_shape(_scalar_to_array(op, y, x.dtype), x.shape)
    elif tx is float or tx is int:
        if isinstance(y, Tracer) and not y.weak_type and y.dtype in (
                _ABSORBS_FLOAT if tx is float else _ABSORBS_INT):
            return broadcast_to_shape(_scalar_to_array(op, x, y.dtype), y.shape), y
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
        eager = running_numpy_kernels()
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


_new_object = object.__new__


def host_view(x):
    """``x``, or for a DeviceArray an Array over its host value (fetched once) with its weak
    type and cached device buffer: for eager code that runs NumPy kernels, where the host
    Array fast paths then apply. Only call it when NumPy kernels run (on an accelerator the
    value must stay on the device).

    Example:
        >>> import funcarray as fa
        >>> y = fa.jit(lambda x: x * 2)(fa.numpy.ones(2))
        >>> type(host_view(y)).__name__, host_view(y)
        ('Array', Array([2., 2.], dtype=float32))
    """
    if type(x) is not DeviceArray:
        return x
    view = _new_object(Array)
    view._value = x._value
    view._weak = x._weak
    view._buf = x._buf
    return view


def promote_args(op: str, *args):
    """Convert, promote to one dtype and broadcast to one shape: the operands of an
    elementwise primitive."""
    return _promote(op, args, eager_broadcast=False)


def promote_args_unbroadcast(op: str, *args):
    """``promote_args`` without the broadcast: the operands converted to their common dtype and
    weak type, for operations that join arrays of different shapes (``append``, ``diff``'s
    ``prepend``). A Python scalar is converted straight to that dtype (a Python float joining
    a float64 array keeps float64's precision, as it does in ``promote_args``)."""
    return _promote(op, args, eager_broadcast=False, broadcast=False)


def _promote(op: str, args, eager_broadcast: bool, broadcast: bool = True):
    args = [a if is_array(a) or type(a) in _SCALAR_DEFAULTS else asarray_arg(op, a)
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
    arrays = []
    all_concrete = True
    for a in args:
        if type(a) in _SCALAR_DEFAULTS:
            a = _scalar_to_array(op, a, dtype)
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


def to_inexact_dtype(dtype) -> np.dtype:
    """The float dtype integer/bool inputs are computed in (int64 -> float64, else float32)."""
    if dtypes.is_inexact(dtype):
        return np.dtype(dtype)
    return dtypes.float64 if np.dtype(dtype).itemsize == 8 else dtypes.float32


def canonicalize_axis(op: str, axis, ndim: int) -> int:
    """A possibly negative axis as a non-negative int, or a clear out-of-range error."""
    try:
        axis = int(axis.__index__())
    except (AttributeError, TypeError):
        raise op_type_error(op, f"axis must be an integer, got {axis!r}") from None
    if not -ndim <= axis < ndim:
        raise axis_error(op, axis, ndim)
    return axis % ndim if ndim else axis


def canonicalize_axes(op: str, axis, ndim: int) -> tuple:
    """``None`` (all axes), an int or a sequence of ints as a sorted tuple of unique axes."""
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, (tuple, list)):
        axes = tuple(canonicalize_axis(op, a, ndim) for a in axis)
        if len(set(axes)) != len(axes):
            raise op_value_error(op, f"repeated axis in {tuple(axis)}")
        return tuple(sorted(axes))
    return (canonicalize_axis(op, axis, ndim),)

"""Argument normalisation and checks shared by ``funcarray.lax``'s operations.

The operations (``_ops_unary.py``, ``_ops_binary.py``, ``_ops_shape.py``, ``_ops_slicing.py``,
``_ops_reduce.py``, ``_ops_dot.py``) are thin, validated wrappers over funcarray's primitives:
each has ``jax.lax``'s name, signature and semantics and binds an existing primitive
(``funcarray/primitives/``), so it works eagerly and under every transform (jit, grad, vmap)
with the primitive's rules. The wrappers only normalise and check their arguments, with the
helpers here; errors name ``lax.<op>``, the shapes/dtypes involved and the fix.

``jax.lax`` is stricter than ``jax.numpy``, and so are these helpers:

* Operands that must agree (binary elementwise ops, ``pad``'s value, scatter updates...)
  share one dtype (``_same_dtype_operands``): a weak-typed operand (a Python scalar, or a
  weak array made from one) of the same kind (integer, floating, complex) takes the other
  operand's dtype, so ``lax.add(x_f16, 1.0)`` is a float16 sum. (jax.lax turns a Python
  scalar into the default dtype of its kind first, so there the same call works only when
  that default is the array's dtype.) Anything else raises a ``TypeError`` naming both
  dtypes; ``funcarray.numpy`` is the promoting API. Binary elementwise ops do not broadcast
  ranks (``_broadcast_operands``): shapes have one rank (dimensions equal or 1) or are
  scalars.
* Each op takes the dtypes jax.lax takes (``_check_kinds``: ``lax.sin`` of an integer array
  is an error, not a float32 result), and dimension arguments are non-negative where jax.lax
  wants them so (``_dims``, ``_axis``: ``transpose``, ``rev``, reductions...). ``squeeze``,
  ``expand_dims``, the ``*_in_dim`` helpers and ``collapse`` accept negative axes, as in JAX
  (``_any_axis``).

Example:
    >>> import funcarray.numpy as fnp
    >>> from funcarray.lax._ops_common import _same_dtype_operands
    >>> x, one = _same_dtype_operands("lax.add", (fnp.zeros(2, fnp.float16), 1.0))
    >>> one
    Array(1., dtype=float16, weak_type=True)
"""

from __future__ import annotations

import operator

import numpy as np

from funcarray.api.arguments import (
    _int_tuple,
    _scalar_operand,
    asarray_arg,
    broadcast_to_shape,
    convert,
    is_array,
)
from funcarray.base import dtypes
from funcarray.base.array import Array, DeviceArray
from funcarray.base.errors import axis_error, op_type_error, op_value_error

__all__ = [
    "_kind", "_short", "_operand", "_check_kinds", "_operand_of_kinds", "_same_dtype_operands",
    "_broadcast_operands", "_int", "_dims", "_axis", "_any_axis", "_dtype_arg",
    "_checked_bind", "_no_accuracy", "_doc", "_concrete", "_plain_ints", "_FC", "_F", "_IUFC",
    "_BIU", "_IU",
]

_KIND_NAMES = {"b": "bool", "i": "signed integer", "u": "unsigned integer", "f": "floating",
               "c": "complex"}
# The kind a Python scalar of each type may join (ints join signed and unsigned integers).
_PY_KINDS = {int: "iu", float: "f", complex: "c"}


def _refuse_python_complex_to_real(op: str, value, dtype) -> None:
    """jax.lax converts a Python complex to a real dtype as NumPy does: integer and float
    dtypes refuse it (bool takes its truth). Silently keeping the real part would hide a
    mistake."""
    if type(value) is complex and _kind(dtype) in "iuf":
        raise op_type_error(op, f"cannot convert the Python complex {value!r} to "
                                f"{np.dtype(dtype)}; pass its real part (value.real) or a "
                                f"complex dtype")


def _kind(dt) -> str:
    """``b``, ``i``, ``u``, ``f`` or ``c`` for any supported dtype (ml_dtypes' included)."""
    dt = np.dtype(dt)
    if dt == np.bool_:
        return "b"
    if dtypes.is_complex(dt):
        return "c"
    if dtypes.is_float(dt):
        return "f"
    if dtypes.is_integer(dt):
        return "u" if dtypes.iinfo(dt).min == 0 else "i"
    return dt.kind


def _family(kind: str) -> str:
    """Weak values move within a family: integers (signed or not), floats, complex."""
    return "iu" if kind in "iu" else kind


def _short(x) -> str:
    return x.aval.str_short()


def _operand(op: str, x, what: str = "operand"):
    """An Array/tracer from a jax.lax operand: arrays pass; Python and NumPy scalars and NumPy
    arrays are converted (Python scalars weakly typed); lists are refused, as in jax.lax."""
    if is_array(x):
        return x
    if isinstance(x, (list, tuple)):
        raise op_type_error(
            op, f"{what} must be an array or a scalar, got a {type(x).__name__}. jax.lax "
                f"does not convert lists: wrap it with funcarray.numpy.asarray(...) first")
    return asarray_arg(op, x)


# The dtypes an Array holds: a NumPy scalar of one of these becomes an Array as it is.
_CANONICAL = dtypes.dtype_set(lambda d: dtypes.canonicalize_dtype(d) == d)


def _concrete(x):
    """For the host shortcuts: ``x`` as a concrete Array when it is one (an Array, a device
    array) or a NumPy scalar of a canonical dtype (made the strong Array ``_operand`` makes
    of it); None for anything else (the general path converts or rejects it)."""
    t = type(x)
    if t is Array or t is DeviceArray:
        return x
    if isinstance(x, np.generic) and x.dtype in _CANONICAL:
        return Array(np.asarray(x))
    return None


def _plain_ints(seq) -> tuple | None:
    """For the host shortcuts: a tuple or list of Python ints (bools excluded) as a tuple,
    else None (the general path parses and checks anything else)."""
    if type(seq) is not tuple and type(seq) is not list:
        return None
    for d in seq:
        if type(d) is not int:
            return None
    return tuple(seq)


def _check_kinds(op: str, x, kinds: str, position: int | None = None):
    kind = _kind(x.dtype)
    if kind not in kinds:
        where = "" if position is None else f" at position {position}"
        allowed = ", ".join(_KIND_NAMES[k] for k in "biufc" if k in kinds)
        raise op_type_error(
            op, f"does not accept dtype {x.dtype}{where} (operand {_short(x)}); it takes "
                f"{allowed} arrays. Convert first with lax.convert_element_type(x, dtype)")


def _operand_of_kinds(op: str, x, kinds: str, what: str = "operand"):
    """``_operand(op, x, what)``, refused unless its dtype is of ``kinds`` (``_check_kinds``):
    the argument of every one-operand op, reduction and scan."""
    x = _operand(op, x, what)
    _check_kinds(op, x, kinds)
    return x


def _same_dtype_operands(op: str, args, *, equivalent: str | None = None,
                         anchor: int | None = None):
    """jax.lax's dtype rule: the operands of ``op`` as Arrays/tracers of one dtype.

    A weak-typed operand (Python scalar or weak array) whose kind family (integer, floating,
    complex) matches the target dtype takes that dtype; any other mismatch is a TypeError
    naming every dtype. The target is ``args[anchor]``'s dtype (which never changes), or by
    default the first strong operand's.
    """
    arrays = [None if type(a) in _PY_KINDS else _operand(op, a) for a in args]
    if anchor is not None:
        if arrays[anchor] is None:
            arrays[anchor] = asarray_arg(op, args[anchor])
        target = arrays[anchor].dtype
    else:
        given = [a for a in arrays if a is not None]
        target = next((a.dtype for a in given if not a.weak_type),
                      given[0].dtype if given else None)
    out = []
    for i, (a, arr) in enumerate(zip(args, arrays)):
        may = i != anchor and target is not None
        if arr is None:
            if may and _kind(target) in _PY_KINDS[type(a)]:
                arr = _scalar_operand(op, a, target)
            else:
                arr = asarray_arg(op, a)
        elif (may and arr.weak_type and arr.dtype != target
              and _family(_kind(arr.dtype)) == _family(_kind(target))):
            arr = convert(arr, target, True)
        out.append(arr)
    if any(a.dtype != out[0].dtype for a in out[1:]):
        tip = (f", or use funcarray.numpy.{equivalent}, which promotes" if equivalent else "")
        raise op_type_error(
            op, f"requires arguments to have the same dtype, got "
                f"{', '.join(str(a.dtype) for a in out)} ({', '.join(_short(a) for a in out)}). "
                f"jax.lax does not promote: convert one with lax.convert_element_type(x, dtype)"
                f"{tip}")
    return out


def _broadcast_operands(op: str, arrays, *, equivalent: str | None = None):
    """jax.lax's shape rule: scalars broadcast anywhere; other operands share one rank, and
    their dimensions are equal or 1."""
    shapes = [tuple(a.shape) for a in arrays]
    if len(set(shapes)) == 1:
        return arrays
    ranked = [s for s in shapes if s]
    tip = f"; funcarray.numpy.{equivalent} broadcasts NumPy-style" if equivalent else ""
    if len({len(s) for s in ranked}) > 1:
        raise op_type_error(
            op, f"arrays must have the same number of dimensions (or be scalars), got shapes "
                f"{', '.join(map(str, shapes))}. jax.lax does not broadcast ranks: add the "
                f"missing dimensions with lax.expand_dims or lax.broadcast_in_dim{tip}")
    result = []
    for sizes in zip(*ranked):
        big = {d for d in sizes if d != 1}
        if len(big) > 1:
            raise op_type_error(
                op, f"got incompatible shapes for broadcasting: {', '.join(map(str, shapes))} "
                    f"(each dimension must be equal or 1)")
        result.append(big.pop() if big else 1)
    result = tuple(result)
    return [broadcast_to_shape(a, result) for a in arrays]


def _int(op: str, what: str, value) -> int:
    try:
        return operator.index(value)
    except TypeError:
        raise op_type_error(op, f"{what} must be an int, got {value!r}") from None


def _dims(op: str, what: str, dims, ndim: int, x=None) -> tuple:
    """Unique, non-negative, in-range dimensions (jax.lax's rule for most dimension lists)."""
    dims = _int_tuple(op, dims, what, sequence_only=True)
    of = f" of operand {_short(x)}" if x is not None else ""
    if any(d < 0 for d in dims):
        raise op_value_error(
            op, f"{what}={dims} must be non-negative{of}; jax.lax takes no negative "
                f"dimensions here (write {tuple(d % ndim if ndim else d for d in dims)})")
    if any(d >= ndim for d in dims):
        raise op_value_error(op, f"{what}={dims} is out of range{of} (valid: 0 to {ndim - 1})")
    if len(set(dims)) != len(dims):
        raise op_value_error(op, f"{what}={dims} has a repeated dimension")
    return dims


def _axis(op: str, axis, ndim: int, x=None) -> int:
    """One non-negative in-range axis (jax.lax's rule for ``argmax``, scans...)."""
    axis = _int(op, "axis", axis)
    of = f" for operand {_short(x)}" if x is not None else ""
    if axis < 0 and ndim:
        raise op_value_error(op, f"axis={axis} must be non-negative{of}; jax.lax takes no "
                                 f"negative axes here (write {axis % ndim})")
    if not 0 <= axis < ndim:
        raise op_value_error(op, f"axis={axis} is out of range{of} (valid: 0 to {ndim - 1})")
    return axis


def _any_axis(op: str, axis, ndim: int) -> int:
    """One axis, negative allowed (the ``*_in_dim`` helpers, ``squeeze``, ``expand_dims``)."""
    axis = _int(op, "axis", axis)
    if not -ndim <= axis < ndim:
        raise axis_error(op, axis, ndim)
    return axis % ndim


def _dtype_arg(op: str, dtype, what: str = "dtype") -> np.dtype:
    try:
        return dtypes.canonicalize_dtype(dtype)
    except TypeError as exc:
        raise op_type_error(op, f"{what}: {exc}") from None


def _checked_bind(op: str, prim, *args, **params):
    """Bind ``prim`` after running its shape rule, so a bad call raises the same clear
    error eagerly (whose kernels do not check) and traced."""
    try:
        prim.abstract_eval(*(a.aval for a in args), **params)
    except (TypeError, ValueError) as exc:
        message = str(exc)
        if message.startswith(prim.name + ": "):
            message = message[len(prim.name) + 2:]
        raise op_type_error(op, message) from None
    return prim.bind(*args, **params)


def _no_accuracy(op: str, accuracy):
    # (lax.AccuracyMode / lax.Tolerance are hints: there is one, full-accuracy implementation)
    if accuracy is not None and type(accuracy).__name__ not in ("AccuracyMode", "Tolerance"):
        raise op_value_error(
            op, f"accuracy={accuracy!r} is not supported; funcarray computes transcendental "
                f"functions at the dtype's full accuracy (pass None, a lax.AccuracyMode or a "
                f"lax.Tolerance)")


def _doc(fn, name: str, summary: str, example: tuple):
    fn.__name__ = fn.__qualname__ = name
    call, result = example
    fn.__doc__ = (f"{summary}\n\n    Example:\n        >>> import funcarray.numpy as fnp\n"
                  f"        >>> from funcarray import lax\n        >>> {call}\n"
                  f"        {result}\n    ")
    return fn


_FC, _F, _IUFC, _BIU, _IU = "fc", "f", "iufc", "biu", "iu"


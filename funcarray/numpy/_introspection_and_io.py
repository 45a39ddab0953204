"""jax.numpy's small helpers with no array kernel of their own: the predicates ``isreal``,
``iscomplex``, ``isrealobj``, ``iscomplexobj``, ``iterable``, ``isdtype``; NumPy's print
options and ``array_repr``/``array_str``; ``einsum_path``; ``pow``; ``from_dlpack``; and
``load``/``save``/``savez`` (NumPy's ``.npy``/``.npz`` files, Arrays accepted, bfloat16
recovered on load as jax.numpy does). Re-exported by ``_vectorize_and_constructors.py``.

Example:
    >>> import funcarray.numpy as fnp
    >>> fnp.isdtype(fnp.float32, "real floating")
    True
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from funcarray.api.arguments import asarray_arg, is_array
from funcarray.api.placement import place
from funcarray.base import dtypes
from funcarray.base.array import Array
from funcarray.base.errors import op_type_error, op_value_error
from funcarray.numpy._creation import array, asarray
from funcarray.numpy._elementwise import power
from funcarray.numpy._math_functions import imag
from funcarray.transforms.host_shortcuts import host_shortcut, host_value

if TYPE_CHECKING:
    from typing import Any

    from funcarray.base.array import Array
    from funcarray.base.typing import ArrayLike, DTypeLike

__all__ = [
    "isreal", "iscomplex", "isrealobj", "iscomplexobj", "iterable", "isdtype", "printoptions",
    "get_printoptions", "set_printoptions", "array_repr", "array_str", "einsum_path", "pow",
    "from_dlpack", "load", "save", "savez",
]


# --------------------------------------------------------------------------------------------
# Predicates
# --------------------------------------------------------------------------------------------

def _imaginary_test_on_host(compare, real_answer: bool):
    """The host shortcut of ``isreal`` (``compare`` np.equal, real dtypes all True) or
    ``iscomplex`` (np.not_equal, all False): the imaginary part of a host value against 0,
    weak as ``x``, as the general path (it compares with a zero of ``x``'s weak type)."""
    fill = np.ones if real_answer else np.zeros

    def on_host(x):
        value = host_value(x)
        if value is None or value.dtype.isbuiltin != 1:
            return NotImplemented
        if value.dtype.kind == "c":
            return Array(compare(np.imag(value), 0), x._weak)
        return Array(fill(value.shape, np.bool_), x._weak)

    return on_host


_isreal_on_host = _imaginary_test_on_host(np.equal, True)
_iscomplex_on_host = _imaginary_test_on_host(np.not_equal, False)


@host_shortcut(_isreal_on_host)
def isreal(x: ArrayLike) -> Array:
    """Elementwise, whether the imaginary part is zero (always true for real dtypes).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.isreal(fnp.array([1 + 0j, 1 + 2j]))
        Array([ True, False], dtype=bool)
    """
    part, zero = _imaginary_part_and_zero("isreal", x)
    return part == zero


@host_shortcut(_iscomplex_on_host)
def iscomplex(x: ArrayLike) -> Array:
    """Elementwise, whether the imaginary part is nonzero.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.iscomplex(fnp.array([1 + 0j, 1 + 2j]))
        Array([False,  True], dtype=bool)
    """
    part, zero = _imaginary_part_and_zero("iscomplex", x)
    return part != zero


def _imaginary_part_and_zero(op, x):
    """The imaginary part of ``x`` and a zero of its dtype and weak type, as jax's constant
    is: a bool's imaginary part (a strong bool) then compares to a strong result, where a
    weak int 0 would promote it to a weak int32."""
    part = imag(asarray_arg(op, x))
    return part, Array(np.zeros((), part.dtype), part.weak_type)


def iscomplexobj(x: Any) -> bool:
    """Whether ``x`` has a complex dtype (a Python bool, whatever its values).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.iscomplexobj(fnp.array([1.0])), fnp.iscomplexobj(1j)
        (False, True)
    """
    if type(x) is Array:  # (the common call, answered at once)
        return x._value.dtype.kind == "c"
    if isinstance(x, (complex, np.complexfloating)):
        return True
    if x is None or isinstance(x, (bool, int, float, str, np.generic)):
        return False
    dtype = getattr(x, "dtype", None)
    if dtype is None:
        dtype = asarray_arg("iscomplexobj", x).dtype
    return np.dtype(dtype).kind == "c"


def isrealobj(x: Any) -> bool:
    """Whether ``x`` does not have a complex dtype.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.isrealobj(fnp.array([1 + 0j]))
        False
    """
    if type(x) is Array:
        return x._value.dtype.kind != "c"
    return not iscomplexobj(x)


def iterable(y: object) -> bool:
    """Whether ``iter(y)`` works (NumPy's function; a 0-d array is not iterable).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.iterable([1, 2]), fnp.iterable(2)
        (True, False)
    """
    if type(y) is Array:
        return y._value.ndim > 0
    if is_array(y):
        return y.ndim > 0
    return np.iterable(y)


_SIGNED = dtypes.dtype_set(lambda d: dtypes.kind(d) == "i")
_UNSIGNED = dtypes.dtype_set(lambda d: dtypes.kind(d) == "u")
_REAL_FLOATING = dtypes.dtype_set(dtypes.is_float)
_COMPLEX = dtypes.dtype_set(dtypes.is_complex)
_DTYPE_KINDS = {
    "bool": frozenset({dtypes.bool_}),
    "signed integer": _SIGNED,
    "unsigned integer": _UNSIGNED,
    "integral": _SIGNED | _UNSIGNED,
    "real floating": _REAL_FLOATING,
    "complex floating": _COMPLEX,
    "numeric": _SIGNED | _UNSIGNED | _REAL_FLOATING | _COMPLEX,
}


def isdtype(dtype: DTypeLike, kind: DTypeLike | str | tuple[DTypeLike | str, ...]) -> bool:
    """Whether ``dtype`` is of ``kind``: a dtype, a kind name ("bool", "signed integer",
    "unsigned integer", "integral", "real floating", "complex floating", "numeric"), or a
    tuple of these (the array API's function; bfloat16 and float8 are real floating).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.isdtype(fnp.bfloat16, ("integral", "real floating"))
        True
        >>> fnp.isdtype(fnp.int8, fnp.int16)
        False
    """
    op = "isdtype"
    try:
        the_dtype = np.dtype(dtype)
    except TypeError:
        raise op_type_error(op, f"dtype must be a dtype, got {dtype!r}") from None
    options = set()
    for k in kind if isinstance(kind, tuple) else (kind,):
        if isinstance(k, str) and k in _DTYPE_KINDS:
            options |= _DTYPE_KINDS[k]
            continue
        try:
            options.add(np.dtype(k))
        except TypeError:
            if isinstance(k, str):
                raise op_value_error(op, f"unknown kind {k!r}: use one of "
                                         f"{list(_DTYPE_KINDS)} or a dtype") from None
            raise op_type_error(op, f"kind must be a dtype, a kind name or a tuple of them, "
                                    f"got {k!r}") from None
    return the_dtype in options


# --------------------------------------------------------------------------------------------
# Printing
# --------------------------------------------------------------------------------------------

def printoptions(*args, **kwargs):
    """NumPy's ``printoptions`` context manager: Arrays print through NumPy, so its options
    apply to them.

    Example:
        >>> import funcarray.numpy as fnp
        >>> with fnp.printoptions(precision=2):
        ...     print(fnp.array([1 / 3]))
        [0.33]
    """
    return np.printoptions(*args, **kwargs)


def get_printoptions() -> dict[str, Any]:
    """NumPy's current print options, as a dict.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.get_printoptions()["precision"]
        8
    """
    return np.get_printoptions()


def set_printoptions(*args: Any, **kwargs: Any) -> None:
    """Set NumPy's print options (they apply to Arrays); prefer ``printoptions`` as a context
    manager, which restores them.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.set_printoptions(precision=8)
    """
    return np.set_printoptions(*args, **kwargs)


def _print_options(max_line_width, precision, suppress_small):
    given = {"linewidth": max_line_width, "precision": precision, "suppress": suppress_small}
    return np.printoptions(**{k: v for k, v in given.items() if v is not None})


def array_repr(arr: ArrayLike, max_line_width: int | None = None,
               precision: int | None = None, suppress_small: bool | None = None) -> str:
    """``repr(arr)`` as an Array, with the given print options.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.array_repr(fnp.array([1 / 3, 2.0]), precision=3)
        'Array([0.333, 2.   ], dtype=float32)'
    """
    arr = asarray_arg("array_repr", arr)
    with _print_options(max_line_width, precision, suppress_small):
        return repr(arr)


def array_str(a: ArrayLike, max_line_width: int | None = None, precision: int | None = None,
              suppress_small: bool | None = None) -> str:
    """``str(a)``: the values only, with the given print options.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.array_str(fnp.array([1 / 3, 2.0]), precision=3)
        '[0.333 2.   ]'
    """
    a = asarray_arg("array_str", a)
    return np.array_str(np.asarray(a), max_line_width=max_line_width, precision=precision,
                        suppress_small=suppress_small)


# --------------------------------------------------------------------------------------------
# einsum_path, pow
# --------------------------------------------------------------------------------------------

def einsum_path(subscripts: str, /, *operands: ArrayLike, optimize: Any = "auto"
                ) -> tuple[list[Any], str]:
    """A contraction order for ``einsum`` and a printable report: (path, report). The path
    (a list of operand-index tuples) can be passed to ``fnp.einsum(..., optimize=path)``.
    Only the operands' shapes matter. ``optimize`` is "auto"/"greedy" (or True), "optimal",
    or an explicit path; NumPy's planner computes it (jax.numpy uses opt_einsum's, whose
    report reads differently).

    Example:
        >>> import funcarray.numpy as fnp
        >>> x, y, z = fnp.ones((2, 3)), fnp.ones((3, 100)), fnp.ones((100, 5))
        >>> fnp.einsum_path("ij,jk,kl", x, y, z, optimize="optimal")[0]
        [(1, 2), (0, 1)]
    """
    op = "einsum_path"
    if optimize in ("auto", True):
        optimize = "greedy"
    elif optimize is False:
        raise op_value_error(op, "optimize=False asks for no path; use 'greedy' or 'optimal'")
    elif isinstance(optimize, list):
        optimize = ["einsum_path", *optimize]
    # Zero-stride stand-ins: NumPy's planner reads only the shapes (and needs no memory).
    standins = []
    for x in operands:
        shape = np.shape(x) if not hasattr(x, "shape") else tuple(x.shape)
        standins.append(np.broadcast_to(np.zeros((), np.float32), shape))
    try:
        path, report = np.einsum_path(subscripts, *standins, optimize=optimize)
    except (ValueError, TypeError) as exc:
        raise op_value_error(op, f"{exc} (subscripts {subscripts!r}, shapes "
                                 f"{[s.shape for s in standins]})") from None
    return list(path[1:]), report


def pow(x1: ArrayLike, x2: ArrayLike, /) -> Array:  # noqa: A001 (jax.numpy's name)
    """``x1 ** x2`` elementwise (the array API's name for ``power``).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.pow(fnp.array([2, 3]), 2)
        Array([4, 9], dtype=int32)
    """
    return power(x1, x2)


# --------------------------------------------------------------------------------------------
# Interchange and files: from_dlpack, load, save, savez
# --------------------------------------------------------------------------------------------

def _from_dlpack_on_host(x, /, *, device=None, copy=None):
    """A host (or device) array's own value as a strong Array: the general path imports a
    read-only view of it and copies that, and a value an Array holds is never written, so
    sharing it gives the same array."""
    value = host_value(x)
    if value is None or device is not None or copy is False or (
            value.dtype.kind not in "biufc" or value.dtype.isbuiltin != 1):
        return NotImplemented
    return Array(value, False)


@host_shortcut(_from_dlpack_on_host)
def from_dlpack(x: Any, /, *, device: Any = None, copy: bool | None = None) -> Array:
    """An Array from any object that implements the DLPack protocol (``__dlpack__``): a
    NumPy array, a torch CPU tensor, a jax array on the CPU... The data is always copied
    (funcarray arrays are immutable, the producer's may not be), so ``copy=False`` is refused.

    Example:
        >>> import numpy as np, funcarray.numpy as fnp
        >>> fnp.from_dlpack(np.arange(3, dtype=np.int32))
        Array([0, 1, 2], dtype=int32)
    """
    op = "from_dlpack"
    if copy is False:
        raise op_value_error(op, "funcarray always copies (its arrays are immutable); pass "
                                 "copy=None or copy=True")
    if not hasattr(x, "__dlpack__"):
        raise op_type_error(op, f"{type(x).__name__} does not implement __dlpack__; pass an "
                                f"array from a DLPack-capable library")
    try:
        value = np.from_dlpack(x)
    except (BufferError, RuntimeError, TypeError) as exc:
        value = _through_array_protocol(x)
        if value is None:
            raise op_value_error(op, f"cannot import this {type(x).__name__}: {exc}. Only "
                                     f"CPU-resident data can be imported; move it to the "
                                     f"CPU first") from None
    return place(op, array(value), device)


def _through_array_protocol(x):
    """``x``'s value through ``__array__`` where its producer exports it through DLPack in a
    dtype NumPy's DLPack import lacks (a jax bfloat16 array, which jax's from_dlpack takes);
    None where it does not export it (NumPy's own bfloat16 arrays, refused by jax too) or
    gives no dtype funcarray holds."""
    if not hasattr(x, "__array__"):
        return None
    try:
        x.__dlpack__()
        value = np.asarray(x)
    except (BufferError, TypeError, ValueError, RuntimeError):
        return None
    return value if value.dtype.kind not in "OUSV" or dtypes.is_supported(value.dtype) else None


def load(file, *args, **kwargs):
    """NumPy's ``load``, returning an Array for a ``.npy`` file (bfloat16 arrays, which NumPy
    writes as 2-byte void, come back as bfloat16) and NumPy's own objects otherwise
    (``.npz`` archives).

    Example:
        >>> import io, funcarray.numpy as fnp
        >>> buf = io.BytesIO()
        >>> fnp.save(buf, fnp.arange(3, dtype=fnp.bfloat16))
        >>> _ = buf.seek(0)
        >>> fnp.load(buf)
        Array([0, 1, 2], dtype=bfloat16)
    """
    out = np.load(file, *args, **kwargs)
    if isinstance(out, np.ndarray):
        if out.dtype == np.dtype("V2"):
            out = out.view(dtypes.bfloat16)
        try:
            return asarray(out)
        except TypeError:  # a dtype funcarray does not hold (strings, objects): keep NumPy's
            return out
    return out


def save(file: Any, arr: ArrayLike, allow_pickle: bool = True) -> None:
    """NumPy's ``save`` of ``arr`` (an Array or anything NumPy takes) to a ``.npy`` file.

    Example:
        >>> import io, funcarray.numpy as fnp
        >>> buf = io.BytesIO()
        >>> fnp.save(buf, fnp.ones(2))
        >>> _ = buf.seek(0)
        >>> fnp.load(buf)
        Array([1., 1.], dtype=float32)
    """
    np.save(file, np.asarray(arr), allow_pickle=allow_pickle)


def savez(file: Any, *args: ArrayLike, allow_pickle: bool = True, **kwds: ArrayLike) -> None:
    """NumPy's ``savez`` of several arrays (Arrays accepted) to an uncompressed ``.npz``
    archive; ``fnp.load`` gives NumPy's archive object back.

    Example:
        >>> import io, funcarray.numpy as fnp
        >>> buf = io.BytesIO()
        >>> fnp.savez(buf, w=fnp.ones(2))
        >>> _ = buf.seek(0)
        >>> fnp.asarray(fnp.load(buf)["w"])
        Array([1., 1.], dtype=float32)
    """
    np.savez(file, *(np.asarray(a) for a in args), allow_pickle=allow_pickle,
             **{k: np.asarray(v) for k, v in kwds.items()})

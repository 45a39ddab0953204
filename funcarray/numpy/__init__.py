"""``funcarray.numpy``: the NumPy-style API over immutable arrays.

Functions here accept NumPy's conveniences (Python scalars, nested lists, broadcasting, mixed
dtypes with JAX's promotion, negative axes) and bind strict primitives, so the same call works
eagerly and under every transform.

Example:
    >>> import funcarray.numpy as fnp
    >>> x = fnp.linspace(0.0, 1.0, 3)
    >>> fnp.sum(x * 2)
    Array(3., dtype=float32)
"""

import math as _math
import typing as _typing

import numpy as _np

from funcarray.api.arguments import canonicalize_axes as _canonicalize_axes
from funcarray.base import dtypes as _dtypes
from funcarray.base.array import Array as Array
from funcarray.base.dtypes import (  # noqa: F401
    issubdtype,
    promote_types,
    result_type,
)
from funcarray.lax._ops_binary import register_equivalents as _register_lax_equivalents
from funcarray.numpy import fft as fft
from funcarray.numpy import linalg as linalg
from funcarray.numpy._array_api import *  # noqa: F403
from funcarray.numpy._array_ops import *  # noqa: F403
from funcarray.numpy._comparison import *  # noqa: F403
from funcarray.numpy._convolve import *  # noqa: F403
from funcarray.numpy._creation import *  # noqa: F403
from funcarray.numpy._diagonals import *  # noqa: F403
from funcarray.numpy._dtype_info import *  # noqa: F403
from funcarray.numpy._elementwise import *  # noqa: F403
from funcarray.numpy._index_routines import *  # noqa: F403
from funcarray.numpy._index_tricks import *  # noqa: F403
from funcarray.numpy._indexing import *  # noqa: F403
from funcarray.numpy._linalg import *  # noqa: F403
from funcarray.numpy._manipulation import *  # noqa: F403
from funcarray.numpy._math_functions import *  # noqa: F403
from funcarray.numpy._numerics import *  # noqa: F403
from funcarray.numpy._numerics_stats import *  # noqa: F403
from funcarray.numpy._padding import *  # noqa: F403
from funcarray.numpy._polynomial import *  # noqa: F403
from funcarray.numpy._predicates_and_bits import *  # noqa: F403
from funcarray.numpy._rearranging import *  # noqa: F403
from funcarray.numpy._reductions import *  # noqa: F403
from funcarray.numpy._rounding_and_division import *  # noqa: F403
from funcarray.numpy._scalar_types import ScalarType as _ScalarType
from funcarray.numpy._search import *  # noqa: F403
from funcarray.numpy._sets import *  # noqa: F403
from funcarray.numpy._shape import *  # noqa: F403
from funcarray.numpy._sort_and_nonzero import *  # noqa: F403
from funcarray.numpy._statistics import *  # noqa: F403
from funcarray.numpy._vectorize_and_constructors import *  # noqa: F403

# lax.reduce / lax.reduce_window recognise these as the monoids lax's functions are.
_register_lax_equivalents(add=add, mul=multiply, max=maximum, min=minimum,  # noqa: F405
                          bitwise_or=bitwise_or, bitwise_and=bitwise_and,  # noqa: F405
                          bitwise_xor=bitwise_xor)  # noqa: F405

# Scalar types: dtypes that are also constructors (``fnp.float32(1.5)``), as in jax.numpy.
bool_ = _ScalarType(_dtypes.bool_)
int8, int16, int32, int64 = (_ScalarType(_dtypes.int8), _ScalarType(_dtypes.int16),
                             _ScalarType(_dtypes.int32), _ScalarType(_dtypes.int64))
uint8, uint16, uint32, uint64 = (_ScalarType(_dtypes.uint8), _ScalarType(_dtypes.uint16),
                                 _ScalarType(_dtypes.uint32), _ScalarType(_dtypes.uint64))
float16, float32, float64 = (_ScalarType(_dtypes.float16), _ScalarType(_dtypes.float32),
                             _ScalarType(_dtypes.float64))
complex64, complex128 = _ScalarType(_dtypes.complex64), _ScalarType(_dtypes.complex128)
# NumPy's aliases of the same types (jax.numpy has them too): ``double`` is float64, etc.
double = float_ = float64
single = float32
cdouble = complex_ = complex128
csingle = complex64
int_ = int64
uint = uint64
# NumPy's abstract scalar types, for ``issubdtype`` checks.
generic, flexible, character, object_ = _np.generic, _np.flexible, _np.character, _np.object_
ComplexWarning = _np.exceptions.ComplexWarning

ndarray = Array
bool = bool_  # noqa: A001 (jax.numpy exports this name too)
dtype = _np.dtype
pi = _np.pi
e = _np.e
inf = _np.inf
nan = _np.nan
euler_gamma = _np.euler_gamma
newaxis = None
floating, integer, inexact, number = _np.floating, _np.integer, _np.inexact, _np.number
signedinteger, unsignedinteger, complexfloating = (
    _np.signedinteger, _np.unsignedinteger, _np.complexfloating)


def shape(a: _typing.Any) -> tuple[int, ...]:
    """The shape of ``a`` (an Array, a tracer, a NumPy array or a nested list).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.shape([[1, 2, 3]])
        (1, 3)
    """
    if type(a) is Array:  # (the common call, read at once)
        return a._value.shape
    return tuple(a.shape) if hasattr(a, "shape") else _np.shape(a)


def ndim(a: _typing.Any) -> int:
    """The number of dimensions of ``a``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.ndim(fnp.zeros((2, 3)))
        2
    """
    if type(a) is Array:
        return a._value.ndim
    return len(shape(a))


def size(a: _typing.Any, axis: int | _typing.Sequence[int] | None = None) -> int:
    """The number of elements of ``a``, or along ``axis`` (an axis or a sequence of them).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.size(fnp.zeros((2, 3))), fnp.size(fnp.zeros((2, 3)), axis=-1)
        (6, 3)
    """
    if axis is None and type(a) is Array:
        return a._value.size
    dims = shape(a)
    if axis is not None:
        dims = tuple(dims[d] for d in _canonicalize_axes("size", axis, len(dims)))
    return int(_math.prod(dims))  # (math.prod: np.prod costs ~2 us)


def isscalar(element: object) -> bool:
    """True for Python and NumPy scalars and for 0-d arrays (funcarray's, NumPy's, tracers),
    as ``jax.numpy.isscalar``: unlike NumPy's, a 0-d array counts, since funcarray has no
    scalar type distinct from its 0-d arrays.

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.isscalar(1.0), fnp.isscalar(fnp.array(1.0)), fnp.isscalar(fnp.ones(2))
        (True, True, False)
    """
    if _np.isscalar(element):
        return True
    return isinstance(element, (_np.ndarray, Array)) and element.ndim == 0


def _install_api_boundaries():
    """Wrap every public function so that user-facing errors show the user's frames only."""
    from funcarray.base.errors import api_boundary
    namespace = globals()
    for name, value in list(namespace.items()):
        if (not name.startswith("_") and callable(value)
                and not isinstance(value, (type, _ScalarType))
                and getattr(value, "__module__", "").startswith("funcarray.numpy")
                and not hasattr(value, "__wrapped__")
                and not getattr(value, "_filters_own_errors", False)):
            namespace[name] = api_boundary(value)


_install_api_boundaries()

# add, multiply, maximum... as ufunc objects with outer/reduce/accumulate/at (jax.numpy's 14).
from funcarray.numpy._ufunc import frompyfunc, ufunc  # noqa: E402
from funcarray.numpy._ufunc import numpy_ufuncs as _numpy_ufuncs  # noqa: E402

globals().update(_numpy_ufuncs(globals()))


if _typing.TYPE_CHECKING:
    # What the run-time machinery above and below makes, declared for type checkers: the
    # fourteen ufuncs, and the narrow dtypes of ml_dtypes (base.dtypes.NARROW_DTYPE_NAMES).
    # (re-exported by _vectorize_and_constructors through an __all__ list type checkers
    # cannot follow)
    from funcarray.numpy._introspection_and_io import *  # noqa: F403
    from funcarray.numpy._ufunc import _BinaryUfunc, _UnaryUfunc

    add: _BinaryUfunc
    subtract: _BinaryUfunc
    multiply: _BinaryUfunc
    maximum: _BinaryUfunc
    minimum: _BinaryUfunc
    logaddexp: _BinaryUfunc
    logaddexp2: _BinaryUfunc
    logical_and: _BinaryUfunc
    logical_or: _BinaryUfunc
    logical_xor: _BinaryUfunc
    bitwise_and: _BinaryUfunc
    bitwise_or: _BinaryUfunc
    bitwise_xor: _BinaryUfunc
    negative: _UnaryUfunc

    bfloat16: _ScalarType
    float4_e2m1fn: _ScalarType
    float6_e2m3fn: _ScalarType
    float6_e3m2fn: _ScalarType
    float8_e3m4: _ScalarType
    float8_e4m3: _ScalarType
    float8_e4m3b11fnuz: _ScalarType
    float8_e4m3fn: _ScalarType
    float8_e4m3fnuz: _ScalarType
    float8_e5m2: _ScalarType
    float8_e5m2fnuz: _ScalarType
    float8_e8m0fnu: _ScalarType
    int2: _ScalarType
    int4: _ScalarType
    uint2: _ScalarType
    uint4: _ScalarType
else:  # (hidden from type checkers, so a misspelt name is an error there)
    def __getattr__(name):
        # bfloat16 and the other narrow floats and ints of ml_dtypes (float8 variants,
        # float6/4, int2/int4...), under their ml_dtypes names as jax.numpy has them: made on
        # first access, since importing ml_dtypes costs more than all of funcarray (see
        # funcarray.dtypes).
        if name in _dtypes.NARROW_DTYPE_NAMES:
            _dtypes.load_narrow_dtypes()
            for dtype in _dtypes.supported_dtypes:
                if dtype.name == name:
                    globals()[name] = _ScalarType(dtype)
                    return globals()[name]
        raise AttributeError(f"module 'funcarray.numpy' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_dtypes.NARROW_DTYPE_NAMES))

"""Typed key arrays: the ``key<fry>`` dtype and the arrays of keys ``funcarray.random.key``
makes (JAX's ``PRNGKeyArray``).

A key array of shape ``s`` holds its raw threefry data, a uint32 array of shape ``s + (2,)``.
It is a pytree node whose one child is that data, so every transform (jit, vmap, scan,
while_loop, cond, grad, checkpoint...) carries a key as its uint32 data and rebuilds it, the
way JAX lowers key arrays to their data; see docs/decisions.md, "Random numbers". Keys
index, reshape and compare like arrays; arithmetic on them is an error that points at
``key_data``.
"""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Any

import numpy as np

from funcarray import numpy as fnp
from funcarray.api.shape_evaluation import ShapeDtypeStruct
from funcarray.base import dtypes
from funcarray.base import pytrees as fa_tree
from funcarray.base.array import Array
from funcarray.base.errors import op_type_error, op_value_error
from funcarray.transforms.core import Tracer

if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import TypeAlias

    from funcarray.base.typing import ArrayLike

    # What the random functions take as a key: a typed key array or raw uint32 key data.
    KeyArrayLike: TypeAlias = "KeyArray | ArrayLike"

__all__ = ["KeyDType", "KeyArray", "THREEFRY", "impl_dtype", "key_bits"]

_KEY_DATA_HINT = ("a PRNG key holds no numbers; use funcarray.random.key_data(key) for its "
                  "raw uint32 bits")


class KeyDType(dtypes.ExtendedDType):
    """The dtype of a key array: ``key<fry>`` for threefry2x32, the one implementation.

    Example:
        >>> import funcarray.dtypes as fdt, funcarray.numpy as fnp, funcarray.random as fr
        >>> k = fr.key(0)
        >>> k.dtype, fnp.issubdtype(k.dtype, fdt.prng_key), fnp.issubdtype(k.dtype, fnp.integer)
        (key<fry>, True, False)
    """

    type = dtypes.prng_key
    refusal = _KEY_DATA_HINT

    def __init__(self, impl: str, tag: str, element_shape: tuple) -> None:
        self.impl = impl
        self.name = f"key<{tag}>"
        self.element_shape = element_shape  # the shape of one key's raw data

    @property
    def itemsize(self) -> int:
        return 4 * self.element_shape[-1]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, KeyDType) and other.impl == self.impl

    def __hash__(self) -> int:
        return hash(("key", self.impl))


THREEFRY = KeyDType("threefry2x32", "fry", (2,))
_IMPLS = {THREEFRY.impl: THREEFRY}


def impl_dtype(op: str, impl: Any) -> KeyDType:
    """The key dtype of the implementation ``impl`` (its name; None for the default)."""
    if impl is None:
        return THREEFRY
    dtype = _IMPLS.get(impl) if isinstance(impl, str) else None
    if dtype is None:
        raise op_value_error(
            op, f"unknown PRNG implementation {impl!r}; funcarray has {sorted(_IMPLS)}")
    return dtype


def _axis(op: str, axis: int, ndim: int) -> int:
    """A key axis in ``range(ndim)`` (negative axes count from the end of the key shape, not
    from the data's trailing axis)."""
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise op_value_error(op, f"axis {axis} is out of bounds for a key array of {ndim} "
                                 f"dimensions")
    return axis % ndim


def _arithmetic(name: str):
    def refuse(self, *_):
        raise op_type_error(name, f"does not accept dtype {self.dtype}: {_KEY_DATA_HINT}")
    refuse.__name__ = f"__{name}__"
    return refuse


class KeyArray:
    """An array of PRNG keys (the values of ``funcarray.random.key``, ``split`` and
    ``fold_in`` on such keys), printed as JAX prints them.

    Example:
        >>> import funcarray.random as fr
        >>> keys = fr.split(fr.key(0), 3)
        >>> keys.shape, keys.dtype
        ((3,), key<fry>)
        >>> keys[0]
        Array((), dtype=key<fry>) overlaying:
        [1797259609 2579123966]
    """

    __slots__ = ("_data", "_dtype")
    __hash__ = None  # unhashable, as arrays are
    # NumPy defers to this type's reflected operators (which refuse) instead of making an
    # object array of it.
    __array_ufunc__ = None

    def __init__(self, data: Any, dtype: KeyDType = THREEFRY) -> None:
        self._data = data  # uint32 Array or tracer of shape ``shape + dtype.element_shape``
        self._dtype = dtype

    # --- what an array answers ------------------------------------------------------------
    @property
    def dtype(self) -> KeyDType:
        return self._dtype

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self._data.shape[:-len(self._dtype.element_shape)])

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        size = 1
        for n in self.shape:
            size *= n
        return size

    @property
    def itemsize(self) -> int:
        return self._dtype.itemsize

    @property
    def nbytes(self) -> int:
        return self.size * self.itemsize

    @property
    def weak_type(self) -> bool:
        return False

    @property
    def device(self) -> Any:
        return self._data.device

    def devices(self) -> set:
        return self._data.devices()

    def block_until_ready(self) -> KeyArray:
        self._data.block_until_ready()
        return self

    def __len__(self) -> int:
        if not self.ndim:
            raise TypeError("len() of unsized object (a 0-d key array)")
        return self.shape[0]

    def __iter__(self) -> Iterator[KeyArray]:
        if not self.ndim:
            raise TypeError("iteration over a 0-d key array")
        return (self[i] for i in range(self.shape[0]))

    # --- indexing and shape changes act on the key axes, never on the data's last one ------
    def _rewrap(self, data) -> KeyArray:
        return KeyArray(data, self._dtype)

    def __getitem__(self, idx: Any) -> KeyArray:
        idx = idx if isinstance(idx, tuple) else (idx,)
        if not any(i is Ellipsis for i in idx):
            idx = (*idx, Ellipsis)
        return self._rewrap(self._data[(*idx, slice(None))])

    def reshape(self, *shape: Any, order: str = "C") -> KeyArray:
        if order != "C":
            raise op_value_error("reshape", f"key arrays reshape in C order only, got {order!r}")
        if len(shape) == 1 and not isinstance(shape[0], int):
            shape = tuple(shape[0])
        return self._rewrap(fnp.reshape(self._data, (*shape, *self._dtype.element_shape)))

    def ravel(self, order: str = "C") -> KeyArray:
        return self.reshape(-1, order=order)

    flatten = ravel

    def transpose(self, *axes: Any) -> KeyArray:
        if len(axes) == 1 and (axes[0] is None or not isinstance(axes[0], int)):
            axes = axes[0]
        ndim = self.ndim
        order = (tuple(reversed(range(ndim))) if axes is None or axes == ()
                 else tuple(_axis("transpose", a, ndim) for a in axes))
        trailing = tuple(range(ndim, self._data.ndim))
        return self._rewrap(fnp.transpose(self._data, order + trailing))

    @property
    def T(self) -> KeyArray:  # noqa: N802 (NumPy's name)
        return self.transpose()

    def swapaxes(self, axis1: int, axis2: int) -> KeyArray:
        order = list(range(self.ndim))
        a, b = _axis("swapaxes", axis1, self.ndim), _axis("swapaxes", axis2, self.ndim)
        order[a], order[b] = order[b], order[a]
        return self.transpose(order)

    def squeeze(self, axis: int | tuple[int, ...] | None = None) -> KeyArray:
        if axis is None:
            axes = tuple(i for i, n in enumerate(self.shape) if n == 1)
        else:
            axes = tuple(_axis("squeeze", a, self.ndim)
                         for a in (axis if isinstance(axis, tuple) else (axis,)))
        return self._rewrap(fnp.squeeze(self._data, axes))

    def copy(self) -> KeyArray:
        return self

    # --- comparison: keys are equal when their data are --------------------------------------
    def _same_keys(self, op: str, other: Any):
        if not isinstance(other, KeyArray) or other.dtype != self.dtype:
            got = getattr(other, "dtype", type(other).__name__)
            raise op_type_error(op, f"compares key arrays with key arrays of the same dtype, "
                                    f"got {self.dtype} and {got}")
        return fnp.all(self._data == other._data, axis=-1)

    def __eq__(self, other: Any) -> Array:  # type: ignore[override]
        return self._same_keys("equal", other)

    def __ne__(self, other: Any) -> Array:  # type: ignore[override]
        return ~self._same_keys("not_equal", other)

    # --- no arithmetic, no conversion to numbers ---------------------------------------------
    __add__ = __radd__ = _arithmetic("add")
    __sub__ = __rsub__ = _arithmetic("subtract")
    __mul__ = __rmul__ = _arithmetic("multiply")
    __matmul__ = __rmatmul__ = _arithmetic("matmul")
    __truediv__ = __rtruediv__ = _arithmetic("divide")
    __floordiv__ = __rfloordiv__ = _arithmetic("floor_divide")
    __mod__ = __rmod__ = _arithmetic("remainder")
    __divmod__ = __rdivmod__ = _arithmetic("divmod")
    __pow__ = __rpow__ = _arithmetic("power")
    __lshift__ = __rlshift__ = _arithmetic("left_shift")
    __rshift__ = __rrshift__ = _arithmetic("right_shift")
    __and__ = __rand__ = _arithmetic("bitwise_and")
    __or__ = __ror__ = _arithmetic("bitwise_or")
    __xor__ = __rxor__ = _arithmetic("bitwise_xor")
    __lt__ = _arithmetic("less")
    __le__ = _arithmetic("less_equal")
    __gt__ = _arithmetic("greater")
    __ge__ = _arithmetic("greater_equal")
    __neg__ = _arithmetic("negative")
    __pos__ = _arithmetic("positive")
    __abs__ = _arithmetic("absolute")
    __invert__ = _arithmetic("invert")
    __bool__ = _arithmetic("bool")

    def __array__(self, dtype: Any = None, copy: Any = None):
        raise TypeError(f"a key array (dtype {self.dtype}) cannot be converted to a NumPy "
                        f"array: {_KEY_DATA_HINT}")

    astype = _arithmetic("astype")

    # --- printing (JAX's form: the key shape and dtype over the raw data) ----------------------
    def __repr__(self) -> str:
        data = self._data
        if isinstance(data, ShapeDtypeStruct):  # what eval_shape gives
            return f"ShapeDtypeStruct(shape={self.shape}, dtype={self.dtype})"
        if isinstance(data, Tracer):
            return f"Traced<{self.dtype}[{','.join(map(str, self.shape))}]>"
        if not isinstance(data, (Array, np.ndarray)):  # a tree function put something else in
            return f"KeyArray({data!r}, dtype={self.dtype})"
        return f"Array({self.shape}, dtype={self.dtype}) overlaying:\n{data}"

    __str__ = __repr__


def key_bits(keys: KeyArray):
    """The raw uint32 data of a key array (shape ``keys.shape + (2,)``)."""
    return keys._data


def _flatten(keys: KeyArray):
    return (keys._data,), keys._dtype


def _unflatten(dtype: KeyDType, children) -> KeyArray:
    (data,) = children
    if getattr(data, "dtype", None) == dtypes.float0:
        # A key's gradient (grad/vjp with allow_int): JAX's float0 zeros of the key shape.
        return np.zeros(data.shape[:-len(dtype.element_shape)], dtypes.float0)
    return KeyArray(data, dtype)


fa_tree.register_pytree_node(KeyArray, _flatten, _unflatten)

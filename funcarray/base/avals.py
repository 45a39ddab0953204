"""Abstract values: what tracing knows of an array without its data (shape, dtype and
weak type), shared by the ``Array`` value type, the transforms, lowering and primitives.

Example:
    >>> from funcarray.base.avals import ShapedArray
    >>> aval = ShapedArray((3, 4), "float32", weak_type=True)
    >>> aval, str(aval), aval.str_short(short_dtypes=True)
    (ShapedArray(float32[3,4], weak_type=True), '~float32[3,4]', 'f32[3,4]')
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["ShapedArray", "canonical_aval", "short_dtype_name"]


_SHORT_NAMES = {
    "bool": "bool",
    "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
    "uint8": "u8", "uint16": "u16", "uint32": "u32", "uint64": "u64",
    "float16": "f16", "bfloat16": "bf16", "float32": "f32", "float64": "f64",
    "complex64": "c64", "complex128": "c128",
}


def short_dtype_name(dtype) -> str:
    """``float32`` -> ``f32``; float8 variants keep their ml_dtypes name (``float8_e4m3fn``)."""
    name = np.dtype(dtype).name
    return _SHORT_NAMES.get(name, name)


_new_object = object.__new__


class ShapedArray:
    """The abstract value of an array: what tracing knows about it without its data.

    ``weak_type`` marks values that came from Python scalars: they adopt the dtype of the
    array they meet (``f32_array * 2.0`` stays float32), as in JAX.

    Example:
        >>> ShapedArray((3, 4), "float32")
        ShapedArray(float32[3,4])
    """

    __slots__ = ("shape", "dtype", "weak_type")

    def __init__(self, shape, dtype, weak_type: bool = False):
        self.shape = tuple(shape)
        self.dtype = np.dtype(dtype)
        self.weak_type = bool(weak_type)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return int(math.prod(self.shape))  # (np.prod costs ~4 us per call)

    @classmethod
    def trusted(cls, shape: tuple, dtype: np.dtype, weak_type: bool) -> ShapedArray:
        """A ShapedArray from values that already have the right types (a tuple, an
        ``np.dtype``, a bool), skipping the constructor's conversions: ``Array.aval`` runs
        this for every operand of every primitive under a transform (~2x cheaper)."""
        aval = _new_object(cls)
        aval.shape = shape
        aval.dtype = dtype
        aval.weak_type = weak_type
        return aval

    def update(self, shape=None, dtype=None, weak_type=None) -> ShapedArray:
        return ShapedArray(
            self.shape if shape is None else shape,
            self.dtype if dtype is None else dtype,
            self.weak_type if weak_type is None else weak_type,
        )

    def str_short(self, short_dtypes: bool = False) -> str:
        """``float32[3,4]``, as JAX's; ``f32[3,4]`` with ``short_dtypes`` (the IR printer's
        form, JAX's jaxpr style)."""
        name = short_dtype_name(self.dtype) if short_dtypes else self.dtype.name
        return f"{name}[{','.join(map(str, self.shape))}]"

    def __eq__(self, other):
        return (
            type(other) is ShapedArray
            and self.shape == other.shape
            and self.dtype == other.dtype
            and self.weak_type == other.weak_type
        )

    def __hash__(self):
        return hash((self.shape, self.dtype, self.weak_type))

    def __repr__(self):
        weak = ", weak_type=True" if self.weak_type else ""
        return f"ShapedArray({self.str_short()}{weak})"

    def __str__(self):  # JAX's: a weak type is marked with ~
        return f"~{self.str_short()}" if self.weak_type else self.str_short()


_CANONICAL_AVALS: dict = {}


def canonical_aval(aval: ShapedArray) -> ShapedArray:
    """The one shared ShapedArray equal to ``aval``. Device arrays made by jit and
    ``device_put`` carry canonical avals, so jit's dispatch guard can recognise an argument's
    type by identity (one check instead of three comparisons per leaf); an aval that is not
    canonical is still compared by value, so this is only ever a shortcut. Bounded: the
    table is emptied when it reaches 4096 types."""
    found = _CANONICAL_AVALS.get(aval)
    if found is None:
        if len(_CANONICAL_AVALS) >= 4096:
            _CANONICAL_AVALS.clear()
        found = _CANONICAL_AVALS[aval] = aval
    return found

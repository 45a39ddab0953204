"""``eval_shape`` and ``ShapeDtypeStruct``: a function's output types without computing it.

``eval_shape(f, *args)`` stages ``f`` (``make_ir``) on the types of its arguments and returns
the types of its outputs, as ``jax.eval_shape`` does: nothing is computed, so it answers "what
would this return?" for models too large to run (e.g. the shapes of a parameter tree before
initialising it). Arguments may be arrays, Python scalars, or anything with ``shape`` and
``dtype`` (a ``ShapeDtypeStruct``, a ``jax.ShapeDtypeStruct``, a NumPy array).

Example:
    >>> import funcarray as fa
    >>> import funcarray.numpy as fnp
    >>> x = fa.ShapeDtypeStruct((128, 784), fnp.float32)
    >>> fa.eval_shape(lambda x, w: {"h": fnp.tanh(x @ w)}, x, fnp.ones((784, 512)))
    {'h': ShapeDtypeStruct(shape=(128, 512), dtype=float32)}
"""

from __future__ import annotations

import math
import operator

import numpy as np

from funcarray.api.arguments import asarray_arg
from funcarray.base import pytrees as tree
from funcarray.base.errors import api_boundary
from funcarray.transforms.core import ShapedArray
from funcarray.transforms.staging import make_ir

__all__ = ["ShapeDtypeStruct", "eval_shape", "make_jaxpr", "typeof"]


class ShapeDtypeStruct:
    """A shape and a dtype standing for an array (JAX's class of the same name): what
    ``eval_shape`` returns, and what it accepts in place of an array.

    Example:
        >>> import numpy as np
        >>> s = ShapeDtypeStruct((2, 3), np.float32)
        >>> s, s.ndim, s.size
        (ShapeDtypeStruct(shape=(2, 3), dtype=float32), 2, 6)
    """

    __slots__ = ("shape", "dtype", "weak_type")

    def __init__(self, shape, dtype, weak_type: bool = False):
        try:
            self.shape = tuple(operator.index(d) for d in shape)
        except TypeError:
            raise TypeError(f"ShapeDtypeStruct: shape must be a sequence of ints, got "
                            f"{shape!r}") from None
        if any(d < 0 for d in self.shape):
            raise ValueError(f"ShapeDtypeStruct: shape must not be negative, got {self.shape}")
        self.dtype = np.dtype(dtype)
        self.weak_type = bool(weak_type)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def aval(self) -> ShapedArray:
        """The abstract value it stands for (what staging traces an argument as)."""
        return ShapedArray(self.shape, self.dtype, self.weak_type)

    def __eq__(self, other):
        return (type(other) is ShapeDtypeStruct and self.shape == other.shape
                and self.dtype == other.dtype and self.weak_type == other.weak_type)

    def __hash__(self):
        return hash((self.shape, self.dtype, self.weak_type))

    def __repr__(self):
        weak = ", weak_type=True" if self.weak_type else ""
        return f"ShapeDtypeStruct(shape={self.shape}, dtype={self.dtype.name}{weak})"


def _as_struct(leaf):
    """An argument leaf in a form staging accepts: arrays and scalars as they are, other
    objects with a shape and a dtype (jax.ShapeDtypeStruct) as a ShapeDtypeStruct."""
    if hasattr(leaf, "aval") or isinstance(leaf, (bool, int, float, complex, np.ndarray)):
        return leaf
    if hasattr(leaf, "shape") and hasattr(leaf, "dtype"):
        return ShapeDtypeStruct(leaf.shape, leaf.dtype, getattr(leaf, "weak_type", False))
    return leaf  # make_ir names the argument and says what is wrong with it


@api_boundary
def eval_shape(fun, *args, **kwargs):
    """The pytree of ``ShapeDtypeStruct`` s that ``fun(*args, **kwargs)`` would return,
    found by staging ``fun`` on the arguments' types: nothing is computed. Pass non-array
    arguments with ``functools.partial``, as with JAX.

    Example:
        >>> import funcarray as fa
        >>> import funcarray.numpy as fnp
        >>> fa.eval_shape(lambda x: (x.sum(axis=0), x > 0), fnp.ones((4, 3), fnp.int32))
        (ShapeDtypeStruct(shape=(3,), dtype=int32), ShapeDtypeStruct(shape=(4, 3), dtype=bool))
    """
    args, kwargs = tree.map(_as_struct, (args, kwargs))
    staged = make_ir(fun)(*args, **kwargs)
    structs = [ShapeDtypeStruct(a.shape, a.dtype, a.weak_type) for a in staged.out_avals]
    return tree.unflatten(staged.out_tree, structs)


def make_jaxpr(fun, static_argnums=(), axis_env=None, return_shape=False,
               abstracted_axes=None):
    """JAX's ``make_jaxpr`` for code being ported: ``make_jaxpr(f)(*args)`` returns funcarray's
    IR of ``f`` (``make_ir``'s printable ``StagedIR``; funcarray has no jaxprs), and with
    ``return_shape=True`` also the output's ``ShapeDtypeStruct`` pytree. ``axis_env`` (named
    axes: use ``vmap(axis_name=)``) and ``abstracted_axes`` (dynamic shapes) are not supported.

    Example:
        >>> import funcarray as fa
        >>> import funcarray.numpy as fnp
        >>> ir, shape = fa.make_jaxpr(lambda x: fnp.sin(x) * 2.0, return_shape=True)(fnp.ones(3))
        >>> shape
        ShapeDtypeStruct(shape=(3,), dtype=float32)
    """
    if axis_env is not None or abstracted_axes is not None:
        raise NotImplementedError(
            "make_jaxpr: axis_env= and abstracted_axes= are not supported; stage a function "
            "using named axes inside fa.vmap(..., axis_name=...) instead")
    staging = make_ir(fun, static_argnums=static_argnums)

    @api_boundary
    def make(*args, **kwargs):
        args, kwargs = tree.map(_as_struct, (args, kwargs))
        staged = staging(*args, **kwargs)
        if not return_shape:
            return staged
        structs = [ShapeDtypeStruct(a.shape, a.dtype, a.weak_type) for a in staged.out_avals]
        return staged, tree.unflatten(staged.out_tree, structs)

    return make


@api_boundary
def typeof(x) -> ShapedArray:
    """The abstract type of ``x`` (shape, dtype, weak type), as ``jax.typeof``; works on
    arrays, tracers (inside a transform) and Python scalars.

    Example:
        >>> import funcarray as fa
        >>> import funcarray.numpy as fnp
        >>> fa.typeof(fnp.ones((2, 3))), fa.typeof(1.0)
        (ShapedArray(float32[2,3]), ShapedArray(float32[], weak_type=True))
    """
    aval = getattr(x, "aval", None)
    return aval if aval is not None else asarray_arg("typeof", x).aval

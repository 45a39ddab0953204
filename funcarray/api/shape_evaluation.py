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
from funcarray.base.errors import api_boundary, op_type_error, op_value_error
from funcarray.base.sharding import Sharding
from funcarray.transforms.core import ShapedArray
from funcarray.transforms.staging import make_ir
from funcarray.transforms.vmap import bound_axes

__all__ = ["ShapeDtypeStruct", "eval_shape", "make_jaxpr", "typeof"]


class ShapeDtypeStruct:
    """A shape and a dtype standing for an array (JAX's class of the same name): what
    ``eval_shape`` returns, and what it accepts in place of an array. ``sharding`` (a
    ``funcarray.sharding`` object, or None) and ``weak_type`` are keyword-only, as in JAX.

    Example:
        >>> import numpy as np
        >>> s = ShapeDtypeStruct((2, 3), np.float32)
        >>> s, s.ndim, s.size
        (ShapeDtypeStruct(shape=(2, 3), dtype=float32), 2, 6)
    """

    __slots__ = ("shape", "dtype", "weak_type", "sharding")

    def __init__(self, shape, dtype, *, sharding: Sharding | None = None,
                 weak_type: bool = False):
        if sharding is not None and not isinstance(sharding, Sharding):
            raise op_value_error("ShapeDtypeStruct", f"sharding must be a funcarray.sharding "
                                 f"Sharding or None, got {type(sharding).__name__}")
        self.sharding = sharding
        try:
            self.shape = tuple(operator.index(d) for d in shape)
        except TypeError:
            raise TypeError(f"ShapeDtypeStruct: shape must be a sequence of ints, got "
                            f"{shape!r}") from None
        if any(d < 0 for d in self.shape):
            raise ValueError(f"ShapeDtypeStruct: shape must not be negative, got {self.shape}")
        self.dtype = np.dtype(dtype)
        self.weak_type = bool(weak_type)

    @classmethod
    def like(cls, x) -> ShapeDtypeStruct:
        """The ShapeDtypeStruct of ``x``: an array, a tracer, a Python or NumPy scalar, or
        anything with ``shape`` and ``dtype`` (``jax.ShapeDtypeStruct.like``).

        Example:
            >>> import funcarray.numpy as fnp
            >>> ShapeDtypeStruct.like(fnp.ones((2, 3))), ShapeDtypeStruct.like(1.0)
            (ShapeDtypeStruct(shape=(2, 3), dtype=float32), \
ShapeDtypeStruct(shape=(), dtype=float32, weak_type=True))
        """
        if isinstance(x, (list, tuple)):
            raise op_type_error("ShapeDtypeStruct.like", f"cannot interpret a value of type "
                                f"{type(x).__name__} as an abstract array; pass an array")
        struct = _as_struct(x)
        if isinstance(struct, ShapeDtypeStruct):
            return cls(struct.shape, struct.dtype, sharding=struct.sharding,
                       weak_type=struct.weak_type)
        aval = typeof(struct)
        return cls(aval.shape, aval.dtype, weak_type=aval.weak_type)

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
                and self.dtype == other.dtype and self.weak_type == other.weak_type
                and self.sharding == other.sharding)

    def __hash__(self):
        return hash((self.shape, self.dtype, self.weak_type, self.sharding))

    def __repr__(self):
        sharding = "" if self.sharding is None else f", sharding={self.sharding!r}"
        weak = ", weak_type=True" if self.weak_type else ""
        return f"ShapeDtypeStruct(shape={self.shape}, dtype={self.dtype.name}{sharding}{weak})"


def _as_struct(leaf):
    """An argument leaf in a form staging accepts: arrays and scalars as they are, other
    objects with a shape and a dtype (jax.ShapeDtypeStruct) as a ShapeDtypeStruct."""
    if hasattr(leaf, "aval") or isinstance(leaf, (bool, int, float, complex, np.ndarray)):
        return leaf
    if hasattr(leaf, "shape") and hasattr(leaf, "dtype"):
        return ShapeDtypeStruct(leaf.shape, leaf.dtype,
                                weak_type=getattr(leaf, "weak_type", False))
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
    return _structs(make_ir(fun)(*args, **kwargs))


def make_jaxpr(fun, static_argnums=(), axis_env=None, return_shape=False):
    """``make_jaxpr(f)(*args)`` stages ``f`` on its arguments' types and returns its IR, as
    ``jax.make_jaxpr``; with ``return_shape=True`` also the output's ``ShapeDtypeStruct``
    pytree.

    The result prints in JAX's jaxpr style and answers to ``jax.core.ClosedJaxpr``'s names:
    ``.jaxpr`` (``.invars``, ``.outvars``, ``.constvars``, ``.eqns``, ``.effects``),
    ``.consts`` (= ``.literals``), ``.in_avals``, ``.out_avals``, ``.eqns``; each equation
    has ``.primitive``, ``.invars``, ``.outvars``, ``.params``; variables have ``.aval``.
    IRs nested in the params of jit, cond, scan and while are walked the same way (under
    funcarray's param names: ``ir``, ``branches``, ``body``, ``cond_ir``/``body_ir``).
    ``axis_env``, a sequence of ``(axis_name, size)`` pairs, binds named axes so that
    collectives over them (``lax.psum(x, "i")``) can be staged, as inside
    ``vmap(axis_name=)``.

    Example:
        >>> import funcarray as fa
        >>> import funcarray.numpy as fnp
        >>> closed, shape = fa.make_jaxpr(lambda x: fnp.sin(x) * x,
        ...                               return_shape=True)(fnp.ones(3))
        >>> print(closed)
        { lambda ; a:f32[3]. let
            b:f32[3] = sin a
            c:f32[3] = mul b a
          in (c) }
        >>> [eqn.primitive.name for eqn in closed.jaxpr.eqns], closed.in_avals, shape
        (['sin', 'mul'], [ShapedArray(float32[3])], ShapeDtypeStruct(shape=(3,), dtype=float32))
    """
    axes = _axis_env_pairs(axis_env)
    staging = make_ir(fun, static_argnums=static_argnums)

    @api_boundary
    def make(*args, **kwargs):
        args, kwargs = tree.map(_as_struct, (args, kwargs))
        with bound_axes(axes):
            staged = staging(*args, **kwargs)
        if not return_shape:
            return staged
        return staged, _structs(staged)

    return make


def _axis_env_pairs(axis_env) -> tuple:
    """``make_jaxpr``'s ``axis_env`` as ``((name, size), ...)``, checked."""
    if axis_env is None:
        return ()
    try:
        pairs = tuple((name, operator.index(size)) for name, size in axis_env)
    except (TypeError, ValueError):
        raise op_type_error("make_jaxpr", f"axis_env must be a sequence of (axis_name, size) "
                            f"pairs, got {axis_env!r}") from None
    if any(size < 0 for _, size in pairs):
        raise op_value_error("make_jaxpr", f"axis_env sizes must not be negative, got "
                             f"{axis_env!r}")
    return pairs


def _structs(staged):
    """The output pytree of ``staged`` as ShapeDtypeStructs."""
    structs = [ShapeDtypeStruct(a.shape, a.dtype, weak_type=a.weak_type)
               for a in staged.out_avals]
    return tree.unflatten(staged.out_tree, structs)


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

"""``jax.lax``'s small utilities: ``broadcast_like``, ``broadcast_shapes``, ``dtype``,
``shape_as_value``, ``stage``, ``composite``, ``with_sharding_constraint``, ``dce_sink``,
``optimization_barrier`` (the primitive of ``primitives/compiler_hints.py``) and tokens
(``create_token``, ``after_all``).

Several of these exist in JAX for compilers and devices that funcarray's single-device,
program-order world does not have; they keep their signatures so code ports, and do the one
thing that is meaningful here:

* ``with_sharding_constraint`` returns its input (one device: nothing to shard);
* ``composite`` calls the decomposition (XLA would only pattern-match the composite's name);
* ``dce_sink`` does nothing (it keeps values alive in JAX's dead-code elimination tests);
* tokens carry no data: funcarray orders effects (debug callbacks) in program order, so a
  ``Token`` is an empty pytree that passes through ``jit``, ``vmap`` and
  ``optimization_barrier`` and orders nothing.

Example:
    >>> import funcarray.numpy as fnp
    >>> from funcarray import lax
    >>> lax.broadcast_like(fnp.asarray([1, 2, 3]), fnp.zeros((2, 3)))
    Array([[1, 2, 3],
           [1, 2, 3]], dtype=int32)
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

import numpy as np

from funcarray.api.arguments import _broadcast_to_checked, _int_tuple, asarray_arg
from funcarray.api.arguments import broadcast_shapes as _broadcast_shapes
from funcarray.base import dtypes
from funcarray.base import pytrees as fa_tree
from funcarray.base.array import Array, DeviceArray
from funcarray.base.errors import op_type_error
from funcarray.lax._ops_common import _operand
from funcarray.primitives.compiler_hints import optimization_barrier_p
from funcarray.transforms.core import Tracer
from funcarray.transforms.host_shortcuts import host_shortcut

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from funcarray.base.typing import ArrayLike, DTypeLike, Shape

__all__ = ["broadcast_like", "broadcast_shapes", "dtype", "shape_as_value", "stage",
           "composite", "with_sharding_constraint", "dce_sink", "create_token", "after_all",
           "optimization_barrier"]
# (Token, the type create_token returns, is not a jax.lax name: reach it as
# type(lax.create_token()))


def broadcast_like(arr: ArrayLike, like_arr: ArrayLike) -> Array:
    """``arr`` broadcast (NumPy's rules) to the shape of ``like_arr``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> lax.broadcast_like(1.0, fnp.zeros(2))
        Array([1., 1.], dtype=float32, weak_type=True)
    """
    op = "lax.broadcast_like"
    like = like_arr if hasattr(like_arr, "shape") else asarray_arg(op, like_arr)
    return _broadcast_to_checked("broadcast_to", asarray_arg(op, arr), tuple(like.shape))


def broadcast_shapes(*shapes: Shape) -> tuple[int, ...]:
    """The shape NumPy broadcasting gives ``shapes`` (tuples of ints); a ValueError names
    incompatible shapes.

    Example:
        >>> from funcarray import lax
        >>> lax.broadcast_shapes((3, 1), (1, 4), (5, 1, 1))
        (5, 3, 4)
    """
    shapes = [_int_tuple("broadcast_shapes", s, "shape") for s in shapes]
    for s in shapes:
        if any(d < 0 for d in s):
            raise op_type_error("broadcast_shapes", f"dimensions must be non-negative (as in "
                                                    f"jax), got shape {s}")
    return _broadcast_shapes("broadcast_shapes", *shapes) if shapes else ()


def dtype(x: ArrayLike | DTypeLike) -> np.dtype:
    """The dtype funcarray gives ``x``: an array's or NumPy scalar's own dtype, a dtype-like
    (``"float16"``, ``np.int8``) as that dtype, and the 32-bit defaults for Python scalars
    and the types ``int``/``float``/``complex``.

    Example:
        >>> import numpy as np
        >>> from funcarray import lax
        >>> lax.dtype(1.0), lax.dtype(np.arange(3, dtype=np.int8)), lax.dtype("bfloat16")
        (dtype('float32'), dtype('int8'), dtype(bfloat16))
    """
    if type(x) in (int, float, complex, bool):
        return dtypes.canonicalize_dtype(type(x))
    if x is None:
        raise ValueError("lax.dtype: None has no dtype")
    if not isinstance(x, type) and hasattr(x, "dtype"):
        return dtypes.canonicalize_dtype(x.dtype)
    if isinstance(x, (list, tuple)):
        raise TypeError(f"lax.dtype: cannot determine the dtype of the {type(x).__name__} "
                        f"{x!r}; convert it with funcarray.numpy.asarray first")
    return dtypes.canonicalize_dtype(x)


_INT32_MAX = 2**31 - 1


def shape_as_value(shape: Shape) -> Array:
    """``shape`` as a 1-d integer array (int32, or int64 if a dimension needs it).

    Example:
        >>> from funcarray import lax
        >>> lax.shape_as_value((2, 3))
        Array([2, 3], dtype=int32)
    """
    try:
        dims = [int(d) for d in shape]
    except TypeError:
        raise op_type_error("lax.shape_as_value", f"shape must be a sequence of ints, got "
                                                  f"{shape!r}") from None
    wide = any(d > _INT32_MAX for d in dims)
    return Array(np.array(dims, np.int64 if wide else np.int32))


def stage(x: ArrayLike, /) -> Array:
    """The identity, returning an array (a Python scalar or NumPy value becomes a funcarray
    array; a traced value is returned as is).

    Example:
        >>> from funcarray import lax
        >>> lax.stage(2.0)
        Array(2., dtype=float32, weak_type=True)
    """
    if type(x) is Array:
        return x
    return asarray_arg("lax.stage", x)


def composite(decomposition: Callable[..., Any], name: str, version: int = 0
              ) -> Callable[..., Any]:
    """Mark ``decomposition`` as the composite operation ``name`` (jax.lax's decorator):
    positional arguments are its operands, keyword arguments static attributes. XLA would
    recognise the name to emit a fused kernel; funcarray has no such kernels, so the
    composite simply calls (inlines) ``decomposition`` and every transform sees its body.

    Example:
        >>> import functools
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> @functools.partial(lax.composite, name="my.scale")
        ... def scale(x, *, by):
        ...     return x * by
        >>> scale(fnp.ones(2), by=3.0)
        Array([3., 3.], dtype=float32)
    """
    if not callable(decomposition):
        raise TypeError(f"lax.composite: decomposition must be a function, got "
                        f"{decomposition!r}")
    if not isinstance(name, str):
        raise TypeError(f"lax.composite: name must be a string, got {name!r}")

    @functools.wraps(decomposition)
    def call(*args, **kwargs):
        if not kwargs:  # (no attributes: nothing to check)
            return decomposition(*args)
        traced = [k for k, v in kwargs.items()
                  if any(isinstance(leaf, Tracer) for leaf in fa_tree.leaves(v))]
        if traced:
            raise TypeError(
                f"lax.composite {name!r}: the attribute(s) {', '.join(traced)} hold traced "
                f"values; attributes are static, so pass traced values positionally (as "
                f"operands), or use NumPy values")
        return decomposition(*args, **kwargs)

    return call


def with_sharding_constraint(x: Any, shardings: Any) -> Any:
    """``x`` (an array or pytree) laid out as ``shardings`` (a sharding, or a pytree prefix
    of ``x`` of them: ``NamedSharding``, a bare ``PartitionSpec`` over the mesh of
    ``set_mesh``, or None for no constraint), as ``jax.lax.with_sharding_constraint``.
    Under ``jit`` it tells XLA's partitioner how to split the value at this point (Shardy's
    ``sdy.sharding_constraint``); eagerly it places ``x`` that way. The mesh axes it names
    must be ``AxisType.Auto`` ones, as in JAX.

    Example:
        >>> import funcarray as fa
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> mesh = fa.make_mesh((1,), ("x",), (fa.sharding.AxisType.Auto,))
        >>> s = fa.sharding.NamedSharding(mesh, fa.P("x"))
        >>> fa.jit(lambda v: lax.with_sharding_constraint(v * 2, s))(fnp.ones(2))
        Array([2., 2.], dtype=float32)
    """
    from funcarray.api.sharded_arrays import resolve_sharding
    from funcarray.base.mesh import AxisType, PartitionSpec
    from funcarray.base.sharding import NamedSharding, Sharding
    from funcarray.primitives.sharding_constraints import sharding_constraint_p

    where = "lax.with_sharding_constraint"
    leaves, tree = fa_tree.flatten(x)
    try:
        per_leaf = fa_tree.broadcast_prefix(
            shardings, x, is_leaf=lambda v: v is None or isinstance(v, (Sharding,
                                                                          PartitionSpec)))
    except ValueError as exc:
        raise ValueError(f"{where}: shardings must be a pytree prefix of x ({exc})") from None
    out = []
    for leaf, sharding in zip(leaves, per_leaf):
        leaf = asarray_arg(where, leaf)
        sharding = resolve_sharding(sharding, where, allow_unconstrained=True)
        if isinstance(sharding, NamedSharding):
            mesh = sharding.mesh
            for axes in sharding.spec.normalized():
                for name in axes:
                    if mesh.axis_types[mesh.axis_names.index(name)] is not AxisType.Auto:
                        raise ValueError(
                            f"The spec of NamedSharding passed to with_sharding_constraint "
                            f"can only refer to Auto axes of the mesh. Got spec="
                            f"{sharding.spec!r} and mesh={mesh}. (funcarray.make_mesh "
                            f"makes Explicit axes by default, as JAX 0.10: pass axis_types="
                            f"(funcarray.sharding.AxisType.Auto, ...).)")
            sharding.check_shape(tuple(leaf.shape))
            leaf = sharding_constraint_p.bind(leaf, sharding=sharding)
        out.append(leaf)
    return fa_tree.unflatten(tree, out)


def dce_sink(val: Any, *, prevent_mlir_dce: bool = False) -> None:
    """Nothing: in JAX it keeps ``val`` (a pytree) alive through dead-code elimination for
    tests; funcarray has no such pass to defeat. Returns None.

    Example:
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> lax.dce_sink(fnp.ones(2)) is None
        True
    """
    for leaf in fa_tree.leaves(val):
        asarray_arg("lax.dce_sink", leaf)
    return None


class Token:
    """An effect-ordering token (XLA's ``token``). funcarray keeps effects in program order,
    so a token carries nothing; it is an empty pytree (no leaves), so it passes through
    ``jit``, ``vmap`` and ``lax.optimization_barrier`` unchanged.

    Example:
        >>> import funcarray as fa
        >>> from funcarray import lax
        >>> fa.jit(lambda t: lax.after_all(t, lax.create_token()))(lax.create_token())
        Token()
    """

    __slots__ = ()

    def __repr__(self) -> str:
        return "Token()"

    def __eq__(self, other) -> bool:
        return isinstance(other, Token)

    def __hash__(self) -> int:
        return hash(Token)


fa_tree.register_pytree_node(Token, lambda token: ((), None), lambda aux, children: Token())


def create_token(_: Any = None) -> Token:
    """A new token (the argument is ignored, as in JAX).

    Example:
        >>> from funcarray import lax
        >>> lax.create_token()
        Token()
    """
    return Token()


def after_all(*operands: Token) -> Token:
    """A token after all of ``operands`` (tokens): XLA's ``after_all``.

    Example:
        >>> from funcarray import lax
        >>> lax.after_all(lax.create_token(), lax.create_token())
        Token()
    """
    for i, operand in enumerate(operands):
        if not isinstance(operand, Token):
            raise TypeError(f"lax.after_all: operand {i} is a {type(operand).__name__}, not a "
                            f"token; pass tokens from lax.create_token() or lax.after_all()")
    return Token()


def _optimization_barrier_on_host(operand, /):
    # Eagerly the barrier's impl hands back its operands themselves: a lone host array is
    # returned as it is, and a pytree of them rebuilt around the same leaves.
    if type(operand) is Array or type(operand) is DeviceArray:
        return operand
    leaves, treedef = fa_tree.flatten(operand)
    for leaf in leaves:
        if type(leaf) is not Array and type(leaf) is not DeviceArray:
            return NotImplemented
    return fa_tree.unflatten(treedef, leaves)


@host_shortcut(_optimization_barrier_on_host)
def optimization_barrier(operand: Any, /) -> Any:
    """The identity on a pytree of arrays, which the compiler may not reorder computations
    across nor merge with equal computations outside it (no effect outside ``jit``).

    Example:
        >>> import funcarray as fa
        >>> import funcarray.numpy as fnp
        >>> from funcarray import lax
        >>> fa.jit(lambda x: lax.optimization_barrier(fnp.sin(x)) + fnp.sin(x))(0.0)
        Array(0., dtype=float32, weak_type=True)
    """
    leaves, treedef = fa_tree.flatten(operand)
    arrays = [_operand("lax.optimization_barrier", x) for x in leaves]
    return fa_tree.unflatten(treedef, optimization_barrier_p.bind(*arrays) if arrays else [])

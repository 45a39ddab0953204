"""``ufunc`` and ``frompyfunc``: elementwise functions with NumPy's ufunc methods.

As in jax.numpy, fourteen of ``funcarray.numpy``'s functions (``add``, ``multiply``,
``maximum``, ``logaddexp``, ``logical_and``...) are ``ufunc`` objects: callable as before, and
with ``outer``, ``reduce``, ``accumulate``, ``at`` and ``reduceat``. Each method uses the
specialised operation when the ufunc has one (``add.reduce`` is ``sum``, ``maximum.accumulate``
is ``lax.cummax``, ``add.at`` is ``x.at[i].add``); otherwise a ``lax.scan`` folds the binary
function along the axis, so any ufunc (``frompyfunc`` of a Python function, say) works eagerly
and under every transform. Arrays are immutable: ``at`` returns the updated array and, as in
JAX, must be called with ``inplace=False``.

Example:
    >>> import funcarray.numpy as fnp
    >>> fnp.add.outer(fnp.arange(2), fnp.arange(3))
    Array([[0, 1, 2],
           [1, 2, 3]], dtype=int32)
    >>> fnp.maximum.accumulate(fnp.asarray([1, 3, 2, 5]))
    Array([1, 3, 3, 5], dtype=int32)
"""

from __future__ import annotations

import sys
import types
from typing import TYPE_CHECKING

from funcarray.base.errors import api_boundary, op_type_error, op_value_error
from funcarray.numpy._creation import arange, asarray
from funcarray.numpy._elementwise import where as where_
from funcarray.numpy._shape import broadcast_to, concatenate, expand_dims, moveaxis
from funcarray.numpy._vectorize_and_constructors import vectorize
from funcarray.primitives.eager_entry import MISSING_OPERAND, entry_variant, general_path

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

    from funcarray.base.array import Array
    from funcarray.base.typing import ArrayLike, DTypeLike

__all__ = ["ufunc", "frompyfunc", "numpy_ufuncs"]


class ufunc:  # noqa: N801 (NumPy's and JAX's name)
    """An elementwise function of ``nin`` arrays with NumPy's ufunc methods (JAX's
    ``jax.numpy.ufunc``). ``call``, ``reduce``, ``accumulate``, ``at`` and ``reduceat``
    override the generic implementations (a ``lax.scan`` over the axis).

    Example:
        >>> import funcarray.numpy as fnp
        >>> hypot = fnp.ufunc(lambda a, b: fnp.sqrt(a * a + b * b), 2, 1, name="hypot")
        >>> hypot.reduce(fnp.asarray([3.0, 4.0, 12.0]))
        Array(13., dtype=float32)
    """

    def __init__(self, func: Callable[..., Any], /, nin: int, nout: int, *,
                 name: str | None = None, nargs: int | None = None, identity: Any = None,
                 call: Callable[..., Any] | None = None,
                 reduce: Callable[..., Any] | None = None,
                 accumulate: Callable[..., Any] | None = None,
                 at: Callable[..., Any] | None = None,
                 reduceat: Callable[..., Any] | None = None) -> None:
        self.__name__ = name or getattr(func, "__name__", "ufunc")
        self.__doc__ = getattr(func, "__doc__", None) or ufunc.__doc__
        self._func, self.nin, self.nout = func, int(nin), int(nout)
        self.nargs = int(nargs) if nargs is not None else self.nin
        self.identity = identity
        self._call = call or func
        # The plain function, for callers that skip the ufunc layer: the operators (``x + y``
        # calls it directly, as before ufuncs existed) and ``inspect.signature``.
        self.__wrapped__ = getattr(self._call, "__wrapped__", self._call)
        self._reduce, self._accumulate, self._at, self._reduceat = (
            reduce, accumulate, at, reduceat)

    def __get__(self, obj, objtype=None):
        # Installed as a method (``Array.__neg__ = fnp.negative``): bind the function itself,
        # as a plain function attribute would be bound.
        return self if obj is None else types.MethodType(self._call, obj)

    def __repr__(self) -> str:
        return f"<funcarray.numpy.ufunc '{self.__name__}'>"

    def __call__(self, *args: ArrayLike, out: None = None, where: None = None) -> Any:
        if out is not None or where is not None:
            raise NotImplementedError(f"{self.__name__}: out= and where= are not supported "
                                      "(arrays are immutable); use fnp.where on the result")
        try:  # (the argument count is checked only on failure: this is fnp.add's call path)
            return self._call(*args)
        except TypeError:
            if len(args) != self.nin:
                raise op_type_error(self.__name__, f"takes {self.nin} arguments, got "
                                                   f"{len(args)}") from None
            raise

    def _binary(self, method: str) -> None:
        if self.nin != 2 or self.nout != 1:
            raise op_value_error(f"{self.__name__}.{method}", f"needs a binary ufunc with one "
                                 f"output; this one has nin={self.nin}, nout={self.nout}")

    @api_boundary
    def outer(self, A: ArrayLike, B: ArrayLike, /) -> Array:
        """``f(A[i, ...], B[j, ...])`` for every pair: shape ``A.shape + B.shape``.

        Example:
            >>> import funcarray.numpy as fnp
            >>> fnp.multiply.outer(fnp.asarray([1, 2]), fnp.asarray([1, 10]))
            Array([[ 1, 10],
                   [ 2, 20]], dtype=int32)
        """
        self._binary("outer")
        A, B = asarray(A), asarray(B)
        return self(A.reshape(A.shape + (1,) * B.ndim), B)

    @api_boundary
    def reduce(self, a: ArrayLike, axis: int | Sequence[int] | None = 0,
               dtype: DTypeLike | None = None, out: None = None, keepdims: bool = False,
               initial: ArrayLike | None = None, where: ArrayLike | None = None) -> Array:
        """Fold ``f`` along ``axis`` (an int, a tuple, or None for every axis).

        Example:
            >>> import funcarray.numpy as fnp
            >>> fnp.logaddexp.reduce(fnp.zeros(4)).round(4)
            Array(1.3863, dtype=float32)
        """
        self._binary("reduce")
        if out is not None:
            raise NotImplementedError(f"{self.__name__}.reduce: out= is not supported")
        if self._reduce is not None:
            result = self._reduce(a, axis=axis, dtype=dtype, keepdims=keepdims,
                                  initial=initial, where=where)
            if result is not None:  # (None: the specialised reduce cannot take initial=)
                return result
        return _fold(self, a, axis, dtype, keepdims, initial, where)

    @api_boundary
    def accumulate(self, a: ArrayLike, axis: int = 0, dtype: DTypeLike | None = None,
                   out: None = None) -> Array:
        """The running fold of ``f`` along ``axis``: ``out[i] = f(out[i-1], a[i])``.

        Example:
            >>> import funcarray.numpy as fnp
            >>> fnp.subtract.accumulate(fnp.asarray([10, 1, 2]))
            Array([10,  9,  7], dtype=int32)
        """
        self._binary("accumulate")
        if out is not None:
            raise NotImplementedError(f"{self.__name__}.accumulate: out= is not supported")
        if self._accumulate is not None:
            return self._accumulate(a, axis=axis, dtype=dtype)
        return _running_fold(self, a, axis, dtype)

    @api_boundary
    def at(self, a: ArrayLike, indices: Any, b: ArrayLike | None = None, /, *,
           inplace: bool = True) -> Array:
        """``a`` with ``a[indices] = f(a[indices], b)`` applied once per index, repeated
        indices included (``add.at`` accumulates). Pass ``inplace=False``, as in JAX.

        Example:
            >>> import funcarray.numpy as fnp
            >>> fnp.add.at(fnp.zeros(3), fnp.asarray([0, 0, 2]), 1.0, inplace=False)
            Array([2., 0., 1.], dtype=float32)
        """
        if inplace:
            raise op_value_error(f"{self.__name__}.at", "arrays are immutable: call it with "
                                 "inplace=False, which returns the updated array")
        if (b is None) != (self.nin == 1):
            raise op_type_error(f"{self.__name__}.at", f"a ufunc with nin={self.nin} takes "
                                f"{'no' if self.nin == 1 else 'one'} value argument b")
        if self.nout != 1:
            raise op_value_error(f"{self.__name__}.at", "needs a ufunc with one output")
        if self._at is not None:
            return self._at(a, indices, b)
        return _scatter_fold(self, a, indices, b)

    @api_boundary
    def reduceat(self, a: ArrayLike, indices: Any, axis: int = 0,
                 dtype: DTypeLike | None = None, out: None = None) -> Array:
        """NumPy's ``reduceat``: ``reduce`` over each slice ``a[indices[i]:indices[i+1]]``
        along ``axis`` (just ``a[indices[i]]`` where ``indices[i] >= indices[i+1]``; the
        last slice runs to the end). ``indices`` must be concrete.

        Example:
            >>> import funcarray.numpy as fnp
            >>> fnp.add.reduceat(fnp.arange(6), [0, 2, 5])
            Array([1, 9, 5], dtype=int32)
        """
        import numpy as np

        self._binary("reduceat")
        if out is not None:
            raise NotImplementedError(f"{self.__name__}.reduceat: out= is not supported")
        if self._reduceat is not None:
            return self._reduceat(a, indices, axis=axis, dtype=dtype)
        a = asarray(a) if dtype is None else asarray(a).astype(dtype)
        try:
            starts = np.asarray(indices, dtype=np.int64).reshape(-1)
        except Exception:  # noqa: BLE001 (a traced index array)
            raise op_type_error(f"{self.__name__}.reduceat", "indices must be concrete "
                                "(a list or a NumPy array), not a traced value") from None
        n = a.shape[axis]
        if starts.size and (starts.min() < -n or starts.max() >= n):
            raise op_value_error(f"{self.__name__}.reduceat",
                                 f"indices must lie in [0, {n}), got {starts.tolist()}")
        starts = starts % n if n else starts
        moved = moveaxis(a, axis, 0)
        pieces = []
        for i, start in enumerate(starts):
            stop = starts[i + 1] if i + 1 < len(starts) else n
            piece = moved[start:stop] if start < stop else moved[start:start + 1]
            pieces.append(expand_dims(self.reduce(piece, axis=0), 0))
        return moveaxis(concatenate(pieces, axis=0), 0, axis)


if TYPE_CHECKING:
    class _UnaryUfunc(ufunc):
        """funcarray.numpy's one-argument ufunc (``negative``), for type checkers."""

        def __call__(self, x: ArrayLike, /, *, out: None = None, where: None = None
                     ) -> Array: ...

    class _BinaryUfunc(ufunc):
        """funcarray.numpy's two-argument ufuncs (``add``...), for type checkers."""

        def __call__(self, x: ArrayLike, y: ArrayLike, /, *, out: None = None,
                     where: None = None) -> Array: ...


def _entry_general(uf: ufunc):
    """What the eager entry of ``uf``'s call does not run itself: ``nin`` operands go to
    the general path of ``uf``'s function, anything else to ``ufunc.__call__``, which raises
    the errors."""
    call, general = general_path(uf._call), ufunc.__call__

    def forward(*operands, out=None, where=None):
        given = tuple(x for x in operands if x is not MISSING_OPERAND)
        if len(given) != uf.nin or out is not None or where is not None:
            return general(uf, *given, out=out, where=where)
        return call(*given)
    return forward


def _direct_call_class(uf: ufunc) -> type:
    """A class of ``uf`` alone whose ``__call__`` runs ``uf``'s function without the ufunc
    layer.

    Calling an instance goes through its class's ``__call__``: ``ufunc.__call__`` packs
    ``*args`` and looks up ``self._call``, ~100 ns of every ``fnp.add(x, y)``. A
    ``staticmethod`` there is called without ``self``, with ``uf``'s arguments as given: for
    an elementwise primitive's function it is that function's eager entry with the ufunc's
    signature (``entry_variant``: the kernel runs in the call's own frame), else a forwarder
    that takes ``nin`` operands and calls ``uf._call`` from its closure (~40 ns less). Its
    parameters are plain ones (a surplus operand lands in ``extra``): ``*args`` and
    keyword-only parameters make CPython call a function through its slow path. Other calls
    (``out=``, ``where=``, a wrong argument count) take ``ufunc.__call__``, for its errors.
    """
    call, general = uf._call, ufunc.__call__
    entry = entry_variant(call, _entry_general(uf), home=vars(sys.modules[call.__module__]),
                          ufunc_call=True)
    if entry is not None:
        forward = entry
    elif uf.nin == 1:
        def forward(x=MISSING_OPERAND, extra=MISSING_OPERAND, /, out=None, where=None):
            if (x is MISSING_OPERAND or extra is not MISSING_OPERAND or out is not None
                    or where is not None):
                given = tuple(a for a in (x, extra) if a is not MISSING_OPERAND)
                return general(uf, *given, out=out, where=where)
            return call(x)
    else:
        def forward(x1=MISSING_OPERAND, x2=MISSING_OPERAND, extra=MISSING_OPERAND, /, out=None,
                    where=None):
            if (x2 is MISSING_OPERAND or extra is not MISSING_OPERAND or out is not None
                    or where is not None):
                given = tuple(a for a in (x1, x2, extra) if a is not MISSING_OPERAND)
                return general(uf, *given, out=out, where=where)
            return call(x1, x2)
    # (named for the ufunc: Python's own error for too many arguments names the function,
    # and tracebacks name the code)
    forward.__code__ = forward.__code__.replace(co_name=uf.__name__, co_qualname=uf.__name__)
    forward.__name__ = forward.__qualname__ = uf.__name__
    return type("ufunc", (ufunc,), {"__slots__": (), "__call__": staticmethod(forward),
                                    "__module__": ufunc.__module__, "__qualname__": "ufunc",
                                    "__doc__": ufunc.__doc__})


def _fold(uf: ufunc, a, axis, dtype, keepdims, initial, where):
    """The generic ``reduce``: a ``lax.scan`` applying ``f`` along the (merged) axes."""
    from funcarray import lax
    from funcarray.api.arguments import canonicalize_axes

    op = f"{uf.__name__}.reduce"
    a = asarray(a) if dtype is None else asarray(a).astype(dtype)
    axes = canonicalize_axes(op, axis, a.ndim)
    kept = [d for d in range(a.ndim) if d not in axes]
    rows = moveaxis(a, axes, tuple(range(len(axes)))).reshape(
        (-1,) + tuple(a.shape[d] for d in kept))
    if where is not None:
        if uf.identity is None:
            raise op_value_error(op, "where= needs a ufunc with an identity")
        mask = moveaxis(broadcast_to(asarray(where), a.shape), axes,
                        tuple(range(len(axes)))).reshape(rows.shape)
        rows = where_(mask, rows, asarray(uf.identity).astype(rows.dtype))
    if initial is None and rows.shape[0] == 0:
        if uf.identity is None:
            raise op_value_error(op, "reducing an empty axis needs initial= (this ufunc has "
                                 "no identity)")
        initial = uf.identity
    if initial is not None:
        carry = broadcast_to(asarray(initial).astype(rows.dtype), rows.shape[1:])
        xs = rows
    else:
        carry, xs = rows[0], rows[1:]
    result, _ = lax.scan(lambda c, x: (uf(c, x).astype(c.dtype), None), carry, xs)
    if keepdims:
        for d in sorted(axes):
            result = expand_dims(result, d)
    return result


def _running_fold(uf: ufunc, a, axis, dtype):
    """The generic ``accumulate``: a ``lax.scan`` that keeps every partial fold."""
    from funcarray import lax
    from funcarray.api.arguments import canonicalize_axis

    a = asarray(a) if dtype is None else asarray(a).astype(dtype)
    axis = canonicalize_axis(f"{uf.__name__}.accumulate", axis, a.ndim)
    rows = moveaxis(a, axis, 0)
    if rows.shape[0] == 0:
        return a

    def step(c, x):
        c = uf(c, x).astype(c.dtype)
        return c, c

    _, rest = lax.scan(step, rows[0], rows[1:])
    return moveaxis(concatenate([rows[:1], rest], axis=0), 0, axis)


def _scatter_fold(uf: ufunc, a, indices, b):
    """The generic ``at``: every indexed position updated in turn (``lax.scan`` over the
    flat positions ``indices`` selects), so repeated indices apply ``f`` repeatedly."""
    from funcarray import lax

    a = asarray(a)
    positions = arange(a.size).reshape(a.shape)[indices]
    flat_positions = positions.reshape(-1)
    if b is None:
        values = None
    else:
        values = broadcast_to(asarray(b), positions.shape).reshape(-1)

    def step(flat, item):
        pos, value = item
        new = uf(flat[pos]) if value is None else uf(flat[pos], value)
        return flat.at[pos].set(new.astype(flat.dtype)), None

    flat, _ = lax.scan(step, a.reshape(-1), (flat_positions, values))
    return flat.reshape(a.shape)


def frompyfunc(func: Callable[..., Any], /, nin: int, nout: int, *,
               identity: Any = None) -> ufunc:
    """A ``ufunc`` from a function of scalars (JAX's ``jnp.frompyfunc``): calls are
    ``vectorize``d over broadcast arguments; the methods fold it with ``lax.scan``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> gcd_like = fnp.frompyfunc(lambda a, b: fnp.maximum(a, b) - fnp.minimum(a, b), 2, 1)
        >>> gcd_like.reduce(fnp.asarray([10, 4, 1]))
        Array(5, dtype=int32)
    """
    return ufunc(func, nin, nout, name=getattr(func, "__name__", None), identity=identity,
                 call=vectorize(func))


# --- the ufuncs of funcarray.numpy ----------------------------------------------------------
# name -> (identity, specialised reduce / accumulate / at builders), as jax.numpy has them.
_UFUNC_IDENTITIES = {
    "add": 0, "subtract": None, "multiply": 1, "maximum": None, "minimum": None,
    "logaddexp": -float("inf"), "logaddexp2": -float("inf"), "logical_and": True,
    "logical_or": False, "logical_xor": False, "bitwise_and": -1, "bitwise_or": 0,
    "bitwise_xor": 0, "negative": None,
}


def _reduction(fn, *, has_dtype=True, has_initial=True):
    """A ufunc ``reduce`` from a NumPy-style reduction ``fn`` (sum, max, all...)."""

    def reduce(a, axis=0, dtype=None, keepdims=False, initial=None, where=None):
        if not has_dtype and dtype is not None:
            a = asarray(a).astype(dtype)
        kwargs = {"axis": axis, "keepdims": keepdims, "where": where}
        if has_dtype:
            kwargs["dtype"] = dtype
        if initial is not None:
            if not has_initial:
                return None  # the caller folds generically
            kwargs["initial"] = initial
        return fn(a, **kwargs)

    return reduce


def numpy_ufuncs(namespace: dict) -> dict:
    """The fourteen ufuncs of ``funcarray.numpy``, made from its functions in ``namespace``.

    Example:
        >>> import funcarray.numpy as fnp
        >>> sorted(numpy_ufuncs(vars(fnp)))[:3]
        ['add', 'bitwise_and', 'bitwise_or']
    """
    ns = namespace

    def cumulative(fn):
        """``fn``: a function of ``funcarray.numpy``, or the name of one of ``funcarray.lax``
        (looked up at the call: ``import funcarray`` does not load lax)."""
        def accumulate(a, axis=0, dtype=None):
            from funcarray import lax
            from funcarray.api.arguments import canonicalize_axis

            a = asarray(a) if dtype is None else asarray(a).astype(dtype)
            op = getattr(lax, fn) if isinstance(fn, str) else fn
            return op(a, axis=canonicalize_axis("accumulate", axis, a.ndim))
        return accumulate

    def scatter(method):
        return lambda a, indices, b: getattr(ns["asarray"](a).at[indices], method)(b)

    special = {
        "add": dict(reduce=_reduction(ns["sum"]), accumulate=cumulative(ns["cumsum"]),
                    at=scatter("add")),
        "multiply": dict(reduce=_reduction(ns["prod"]), accumulate=cumulative(ns["cumprod"]),
                         at=scatter("multiply")),
        "maximum": dict(reduce=_reduction(ns["max"], has_dtype=False),
                        accumulate=cumulative("cummax"), at=scatter("max")),
        "minimum": dict(reduce=_reduction(ns["min"], has_dtype=False),
                        accumulate=cumulative("cummin"), at=scatter("min")),
        "logical_and": dict(reduce=_reduction(ns["all"], has_dtype=False, has_initial=False)),
        "logical_or": dict(reduce=_reduction(ns["any"], has_dtype=False, has_initial=False)),
        "logaddexp": dict(accumulate=cumulative("cumlogsumexp")),
    }
    table = {}
    for name, identity in _UFUNC_IDENTITIES.items():
        func = ns[name]
        nin = 1 if name == "negative" else 2
        uf = ufunc(func, nin, 1, name=name, identity=identity, **special.get(name, {}))
        # (a class of its own, for the hot calls; not for every ufunc a user makes, such as
        # frompyfunc's per call: making a class costs ~20 us)
        uf.__class__ = _direct_call_class(uf)
        table[name] = uf
    return table

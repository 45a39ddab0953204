"""The scatter primitives, ``scatter``, ``scatter_add``, ``scatter_mul``, ``scatter_min`` and
``scatter_max``, with all their rules.

Contract (StableHLO semantics; JAX's primitive names and parameters):
``scatter*(x, indices, updates, dimension_numbers, indices_are_sorted, unique_indices, mode)``
is StableHLO ``scatter`` with a :class:`ScatterDimensionNumbers`: the update dimensions not in
``update_window_dims`` are the scatter (batch) dimensions and match ``indices.shape[:-1]``;
each update window lands at the start given by ``indices`` through
``scatter_dims_to_operand_dims`` (``inserted_window_dims`` / ``operand_batching_dims`` are size
1 in the operand's window). Repeated indices combine with add / multiply / min / max;
``scatter`` (replace) keeps one of them (which one is unspecified, as in XLA).
``mode="drop"`` skips a window that does not fit entirely (XLA's behaviour;
``"promise_in_bounds"`` is the same here); ``mode="clip"`` clamps its start first.

Rules (the indices are never differentiated: zero tangents, ``None`` cotangents):

* ``scatter_add`` and ``scatter`` are linear in (operand, updates) together; ``scatter_add``
  transposes to a gather. ``scatter`` with repeated indices finds the update that won by
  scattering an id per update and reading the ids back (JAX's scheme), so its derivatives
  agree with its result; ``unique_indices=True`` skips that work.
* ``scatter_mul`` is linear in its operand; its derivative in the updates needs
  ``unique_indices=True`` (as in JAX; NotImplementedError otherwise). ``scatter_min/max``:
  where several values tie for a result, its tangent is their average (JAX's rule).
* Batching: a batch axis of the operand becomes an ``operand_batching_dims`` dimension, a
  batch axis of the indices a batching dimension.

Lowering: StableHLO ``scatter`` with an update-computation region. ``"drop"`` /
``"promise_in_bounds"`` are XLA's own behaviour (windows that do not fit are skipped);
``"clip"`` clamps the index vectors first. Boolean add/max are ``or``, mul/min ``and``;
complex min/max keep NumPy's NaN propagation. Two XLA defects are avoided: a 0-d operand is
scattered as shape (1,), and an empty index vector is given one explicit 0 component (XLA
otherwise misplaces the updates).

Example:
    >>> import funcarray.numpy as fnp
    >>> from funcarray.primitives.gather_scatter_dims import ScatterDimensionNumbers
    >>> from funcarray.primitives.scatter import scatter_add
    >>> dn = ScatterDimensionNumbers((), (0,), (0,))
    >>> scatter_add(fnp.zeros(3), fnp.array([[2], [0], [2]]), fnp.array([1.0, 2.0, 3.0]), dn)
    Array([2., 0., 4.], dtype=float32)
"""

from __future__ import annotations

import math

import numpy as np

from funcarray.base.array import Array
from funcarray.lowering.stablehlo import compare
from funcarray.primitives import elementwise as ew
from funcarray.primitives._define import wrap_kernel
from funcarray.primitives.gather import gather_p
from funcarray.primitives.gather_scatter_dims import (
    _SCATTER_MODES,
    ScatterDimensionNumbers,
    _as_int_tuples,
    _check_dims,
    _check_integer_indices,
    _clamp_indices,
    _dimension_numbers_attr,
    _fail,
    _full_starts,
    _gather_dn_of_scatter,
    _gather_mode_of_scatter,
    _shifted,
    _window_grids,
)
from funcarray.primitives.region_lowering import (
    _bool_attr,
    _emit_region_op,
    _same_type_op,
    _scalar_aval,
    _select_op,
)
from funcarray.primitives.select_n import select_n_p
from funcarray.primitives.shape import broadcast_in_dim_p, iota_p, reshape_p
from funcarray.transforms import support
from funcarray.transforms.core import Primitive, ShapedArray
from funcarray.transforms.jvp import Zero, instantiate, tangent_aval
from funcarray.transforms.transpose import is_undefined
from funcarray.transforms.vmap import move_to_front, not_mapped

__all__ = ["scatter_p", "scatter_add_p", "scatter_mul_p", "scatter_min_p", "scatter_max_p",
           "scatter", "scatter_add", "scatter_mul", "scatter_min", "scatter_max"]


def _full(value, dtype, shape):
    """A constant of ``dtype`` and ``shape`` (a broadcast scalar: one small op when traced)."""
    scalar = Array(np.array(value, dtype))
    return broadcast_in_dim_p.bind(scalar, shape=tuple(shape), broadcast_dimensions=())


def _zeros_like(x):
    """Zeros with ``x``'s shape, dtype and weak_type."""
    scalar = Array(np.zeros((), x.dtype), x.weak_type)
    return broadcast_in_dim_p.bind(scalar, shape=tuple(x.shape), broadcast_dimensions=())


def _select(pred, on_true, on_false):
    return select_n_p.bind(pred, on_false, on_true)


def _gather_back(x, indices, updates_shape, dn, mode, indices_are_sorted, unique_indices):
    """For each element of a scatter's updates, the element of ``x`` (operand-shaped) at the
    position it is scattered to; 0 for the elements the scatter drops."""
    window = [updates_shape[d] for d in dn.update_window_dims]
    gather_mode = _gather_mode_of_scatter(mode)
    return gather_p.bind(
        x, indices, dimension_numbers=_gather_dn_of_scatter(dn),
        slice_sizes=_operand_window(x.ndim, dn, window), indices_are_sorted=indices_are_sorted,
        unique_indices=unique_indices, mode=gather_mode,
        fill_value=0 if gather_mode == "fill" else None)


def _replace_at(out, flat_indices, values):
    out[flat_indices] = values


_COMBINERS = {
    "scatter": _replace_at, "scatter_add": np.add.at, "scatter_mul": np.multiply.at,
    "scatter_min": np.minimum.at, "scatter_max": np.maximum.at,
}


def _operand_window(operand_ndim, dn, window_shape):
    """The update window's size along each operand dimension (1 where a dim is inserted)."""
    full = [1] * operand_ndim
    skipped = set(dn.inserted_window_dims) | set(dn.operand_batching_dims)
    for d, n in zip((d for d in range(operand_ndim) if d not in skipped), window_shape):
        full[d] = n
    return tuple(full)


def _make_scatter_kernel(name):
    combine = _COMBINERS[name]

    def kernel(operand, indices, updates, *, dimension_numbers, indices_are_sorted,
               unique_indices, mode):
        operand, indices, updates = map(np.asarray, (operand, indices, updates))
        dn = dimension_numbers
        n_scatter = updates.ndim - len(dn.update_window_dims)
        # Scatter (batch) dimensions first, in order, then the window dimensions.
        updates = np.moveaxis(updates, dn.update_window_dims, range(n_scatter, updates.ndim))
        window = _operand_window(operand.ndim, dn, updates.shape[n_scatter:])
        starts = _full_starts(indices, operand.ndim, dn.scatter_dims_to_operand_dims,
                              dn.operand_batching_dims, dn.scatter_indices_batching_dims)
        updates = updates.reshape((starts.shape[0],) + window)
        upper = np.array(operand.shape, np.int64) - np.array(window, np.int64)
        if mode == "clip" and (upper >= 0).all():
            starts = np.clip(starts, 0, upper)
        else:  # XLA skips every window that does not fit entirely
            keep = np.all((starts >= 0) & (starts <= upper), axis=1)
            starts, updates = starts[keep], updates[keep]
        strides = np.array([math.prod(operand.shape[d + 1:]) for d in range(operand.ndim)],
                           np.int64)
        flat = np.zeros((starts.shape[0],) + window, np.int64)
        for d, grid in enumerate(_window_grids(starts, window)):
            flat = flat + grid * strides[d]
        out = np.array(operand, copy=True).reshape(-1)
        combine(out, flat.reshape(-1), updates.reshape(-1))
        return out.reshape(operand.shape)

    kernel.__name__ = f"_{name}_kernel"
    return kernel


def _make_scatter_abstract_eval(name):
    def abstract_eval(operand, indices, updates, *, dimension_numbers, indices_are_sorted,
                      unique_indices, mode):
        dn = dimension_numbers
        if not isinstance(dn, ScatterDimensionNumbers):
            _fail(name, f"dimension_numbers must be a ScatterDimensionNumbers, got {dn!r}")
        if mode not in _SCATTER_MODES:
            _fail(name, f"mode must be one of {_SCATTER_MODES}, got {mode!r}")
        _check_integer_indices(name, indices)
        if updates.dtype != operand.dtype:
            _fail(name, f"updates {updates.str_short()} must have the dtype of the operand "
                        f"{operand.str_short()}")
        batch_shape = indices.shape[:-1]
        _check_dims(name, "update_window_dims", dn.update_window_dims, updates.ndim)
        _check_dims(name, "inserted_window_dims", dn.inserted_window_dims, operand.ndim)
        _check_dims(name, "operand_batching_dims", dn.operand_batching_dims, operand.ndim)
        _check_dims(name, "scatter_dims_to_operand_dims", dn.scatter_dims_to_operand_dims,
                    operand.ndim, sorted_=False)
        _check_dims(name, "scatter_indices_batching_dims", dn.scatter_indices_batching_dims,
                    len(batch_shape), sorted_=False)
        if set(dn.inserted_window_dims) & set(dn.operand_batching_dims):
            _fail(name, "inserted_window_dims and operand_batching_dims must be disjoint")
        if set(dn.scatter_dims_to_operand_dims) & set(dn.operand_batching_dims):
            _fail(name, "scatter_dims_to_operand_dims and operand_batching_dims must be "
                        "disjoint")
        if len(dn.operand_batching_dims) != len(dn.scatter_indices_batching_dims):
            _fail(name, "operand_batching_dims and scatter_indices_batching_dims need equal "
                        "lengths")
        if indices.shape[-1] != len(dn.scatter_dims_to_operand_dims):
            _fail(name, f"the last dimension of the indices {indices.str_short()} must equal "
                        f"len(scatter_dims_to_operand_dims)="
                        f"{len(dn.scatter_dims_to_operand_dims)}")
        n_window = len(dn.update_window_dims)
        if n_window + len(dn.inserted_window_dims) + len(dn.operand_batching_dims) \
                != operand.ndim:
            _fail(name, f"update_window_dims, inserted_window_dims and operand_batching_dims "
                        f"must account for every dimension of the operand {operand.str_short()}")
        scatter_sizes = tuple(n for d, n in enumerate(updates.shape)
                              if d not in dn.update_window_dims)
        if scatter_sizes != batch_shape:
            _fail(name, f"the scatter dimensions of the updates {updates.str_short()} must "
                        f"match the batch dimensions of the indices {indices.str_short()}")
        window = tuple(updates.shape[d] for d in dn.update_window_dims)
        skipped = set(dn.inserted_window_dims) | set(dn.operand_batching_dims)
        bounds = [n for d, n in enumerate(operand.shape) if d not in skipped]
        if any(w > d for w, d in zip(window, bounds)):
            _fail(name, f"the update window {window} of {updates.str_short()} does not fit "
                        f"in the operand {operand.str_short()}")
        for od, idim in zip(dn.operand_batching_dims, dn.scatter_indices_batching_dims):
            if operand.shape[od] != batch_shape[idim]:
                _fail(name, f"batching dimension {od} of the operand {operand.str_short()} "
                            f"and {idim} of the indices {indices.str_short()} differ in size")
        return ShapedArray(operand.shape, operand.dtype, operand.weak_type)

    return abstract_eval


def _scatter_primitive(name):
    prim = Primitive(name)
    prim.kernel = _make_scatter_kernel(name)
    prim.impl = wrap_kernel(prim.kernel, keep_weak=True)
    prim.abstract_eval = _make_scatter_abstract_eval(name)
    return prim


scatter_p = _scatter_primitive("scatter")
scatter_add_p = _scatter_primitive("scatter_add")
scatter_mul_p = _scatter_primitive("scatter_mul")
scatter_min_p = _scatter_primitive("scatter_min")
scatter_max_p = _scatter_primitive("scatter_max")


# --- scatter lowering ----------------------------------------------------------------------

# The update computation of each scatter: how an update combines with the operand's element.
# On booleans StableHLO has no arithmetic: add/max are "or", mul/min are "and" (as NumPy).
_SCATTER_COMBINE = {
    "scatter_add": ("stablehlo.add", "stablehlo.or"),
    "scatter_mul": ("stablehlo.multiply", "stablehlo.and"),
    "scatter_min": ("stablehlo.minimum", "stablehlo.and"),
    "scatter_max": ("stablehlo.maximum", "stablehlo.or"),
}


def _scatter_into_scalar(ctx, lower, operand, indices, updates, **params) -> list:
    """A scatter into a 0-d operand, as one into its reshape to shape (1,) (every update lands
    on the one element): XLA's scatter simplifier rejects 0-d operands."""
    aval = ctx.type_of(operand)
    vector = ShapedArray((1,), aval.dtype)
    operand = ctx.op("stablehlo.reshape", operand, results=[vector])[0]
    dn = ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0,),
                                 scatter_dims_to_operand_dims=())
    (out,) = lower(ctx, operand, indices, updates, dimension_numbers=dn, **params)
    return ctx.op("stablehlo.reshape", out)


def _scatter_lowering(name):
    def lower(ctx, operand, indices, updates, *, dimension_numbers, indices_are_sorted,
              unique_indices, mode):
        dn = dimension_numbers
        operand_aval, indices_aval = ctx.type_of(operand), ctx.type_of(indices)
        if not operand_aval.shape:
            return _scatter_into_scalar(ctx, lower, operand, indices, updates,
                                        indices_are_sorted=indices_are_sorted,
                                        unique_indices=unique_indices, mode=mode)
        free = [d for d in range(operand_aval.ndim) if d not in dn.operand_batching_dims]
        if not dn.scatter_dims_to_operand_dims and free:
            # XLA mis-scatters with empty index vectors (updates land at their scatter
            # position, not at 0): spell out the start 0 of one dimension instead.
            indices_aval = ShapedArray((*indices_aval.shape[:-1], 1), indices_aval.dtype)
            indices = ctx.constant(0, indices_aval)
            dn = dn._replace(scatter_dims_to_operand_dims=(free[0],))
        if mode == "clip" and dn.scatter_dims_to_operand_dims:
            # StableHLO skips windows that do not fit ("drop"): clamp their starts first.
            updates_shape = ctx.type_of(updates).shape
            window = _operand_window(operand_aval.ndim, dn,
                                     [updates_shape[d] for d in dn.update_window_dims])
            upper = [operand_aval.shape[d] - window[d] for d in dn.scatter_dims_to_operand_dims]
            indices = _clamp_indices(ctx, indices, upper)
        attr = _dimension_numbers_attr("scatter", (
            ("update_window_dims", dn.update_window_dims),
            ("inserted_window_dims", dn.inserted_window_dims),
            ("input_batching_dims", dn.operand_batching_dims),
            ("scatter_indices_batching_dims", dn.scatter_indices_batching_dims),
            ("scatter_dims_to_operand_dims", dn.scatter_dims_to_operand_dims)),
            indices_aval.ndim - 1)
        element = _scalar_aval(operand_aval.dtype)

        def combine(old, new):
            if name == "scatter":  # replace
                return [new]
            arithmetic, logical = _SCATTER_COMBINE[name]
            hlo = logical if element.dtype == np.bool_ else arithmetic
            out = _same_type_op(ctx, hlo, old, new)
            if element.dtype.kind == "c" and name in ("scatter_min", "scatter_max"):
                # XLA's complex min/max compare lexicographically and drop NaNs; NumPy's
                # (the contract) return the first operand holding a NaN.
                out = _select_op(ctx, compare(ctx, new, new, "NE"), new, out)
                out = _select_op(ctx, compare(ctx, old, old, "NE"), old, out)
            return [out]

        return _emit_region_op(
            ctx, "stablehlo.scatter", [operand, indices, updates],
            [ShapedArray(operand_aval.shape, operand_aval.dtype)],
            {"indices_are_sorted": _bool_attr(indices_are_sorted),
             "scatter_dimension_numbers": attr, "unique_indices": _bool_attr(unique_indices)},
            [element, element], combine)

    lower.__qualname__ = f"_{name}_lower"
    return lower


# --- scatter rules -------------------------------------------------------------------------

def _scatter_batch_rule(prim):
    """Batch rule shared by the scatters: operand and updates get the batch axis first; it is
    a window dimension when the indices are shared, else a batching dimension."""
    def rule(vals, dims, *, dimension_numbers, **params):
        operand, indices, updates = vals
        operand_dim, indices_dim, updates_dim = dims
        dn = dimension_numbers
        size = next(v.shape[d] for v, d in zip(vals, dims) if d is not not_mapped)
        operand = move_to_front(operand, operand_dim, size)
        updates = move_to_front(updates, updates_dim, size)
        common = dict(inserted_window_dims=_shifted(dn.inserted_window_dims),
                      scatter_dims_to_operand_dims=_shifted(dn.scatter_dims_to_operand_dims))
        if indices_dim is not_mapped:
            dn = ScatterDimensionNumbers(
                update_window_dims=(0, *_shifted(dn.update_window_dims)), **common,
                operand_batching_dims=_shifted(dn.operand_batching_dims),
                scatter_indices_batching_dims=dn.scatter_indices_batching_dims)
        else:
            indices = move_to_front(indices, indices_dim, size)
            dn = ScatterDimensionNumbers(
                update_window_dims=_shifted(dn.update_window_dims), **common,
                operand_batching_dims=(0, *_shifted(dn.operand_batching_dims)),
                scatter_indices_batching_dims=(0, *_shifted(dn.scatter_indices_batching_dims)))
        return prim.bind(operand, indices, updates, dimension_numbers=dn, **params), 0

    return rule


for _prim in (scatter_p, scatter_add_p, scatter_mul_p, scatter_min_p, scatter_max_p):
    _prim.batch_rule = _scatter_batch_rule(_prim)
    _prim.lower_rule = _scatter_lowering(_prim.name)
del _prim


def _zero_out_like(out):
    return Zero(tangent_aval(out.aval))


@scatter_add_p.def_jvp
def _scatter_add_jvp(primals, tangents, **params):
    operand, indices, updates = primals
    t_operand, _, t_updates = tangents
    out = scatter_add_p.bind(operand, indices, updates, **params)
    if type(t_operand) is Zero and type(t_updates) is Zero:
        return out, _zero_out_like(out)
    return out, scatter_add_p.bind(instantiate(t_operand), indices, instantiate(t_updates),
                                   **params)


@scatter_add_p.def_transpose
def _scatter_add_transpose(ct, operand, indices, updates, *, dimension_numbers, mode,
                           indices_are_sorted, unique_indices):
    ct_operand = ct if is_undefined(operand) else None
    ct_updates = None
    if is_undefined(updates):
        ct_updates = _gather_back(ct, indices, updates.aval.shape, dimension_numbers, mode,
                                  indices_are_sorted, unique_indices)
    return [ct_operand, None, ct_updates]


def _winning_updates(operand_aval, indices, updates_aval, dn, mode, indices_are_sorted,
                     unique_indices):
    """Which update elements a (replacing) ``scatter`` keeps, and which operand positions it
    leaves alone. Repeated indices keep one update, unspecified which; scattering a distinct id
    per update window and reading the ids back finds the one that won, so the derivative rules
    agree with the primal result whatever the backend picks (JAX's scheme).

    Returns ``(untouched, won)``: bool masks shaped like the operand and the updates.
    """
    ids_shape = tuple(1 if d in dn.update_window_dims else n
                      for d, n in enumerate(updates_aval.shape))
    count = math.prod(ids_shape)
    id_dtype = np.dtype(np.uint32 if count < 2**32 - 1 else np.uint64)
    ids = iota_p.bind(dtype=id_dtype, shape=(count,), dimension=0)
    ids = ew.add_p.bind(ids, _full(1, id_dtype, (count,)))  # 0 means "no update landed"
    ids = broadcast_in_dim_p.bind(reshape_p.bind(ids, new_sizes=ids_shape),
                                  shape=updates_aval.shape,
                                  broadcast_dimensions=tuple(range(len(ids_shape))))
    params = dict(indices_are_sorted=indices_are_sorted, unique_indices=unique_indices)
    scattered = scatter_p.bind(_full(0, id_dtype, operand_aval.shape), indices, ids,
                               dimension_numbers=dn, mode=mode, **params)
    read_back = _gather_back(scattered, indices, updates_aval.shape, dn, mode, **params)
    untouched = ew.eq_p.bind(scattered, _full(0, id_dtype, operand_aval.shape))
    return untouched, ew.eq_p.bind(read_back, ids)


@scatter_p.def_jvp
def _scatter_jvp(primals, tangents, *, dimension_numbers, indices_are_sorted, unique_indices,
                 mode):
    operand, indices, updates = primals
    t_operand, _, t_updates = tangents
    params = dict(dimension_numbers=dimension_numbers, indices_are_sorted=indices_are_sorted,
                  unique_indices=unique_indices, mode=mode)
    if type(t_operand) is Zero and type(t_updates) is Zero:
        out = scatter_p.bind(operand, indices, updates, **params)
        return out, _zero_out_like(out)
    t_operand, t_updates = instantiate(t_operand), instantiate(t_updates)
    if unique_indices:  # the caller promises no two updates overlap: scatter is linear
        return (scatter_p.bind(operand, indices, updates, **params),
                scatter_p.bind(t_operand, indices, t_updates, **params))
    # Mask the losers out, then add: the primal and tangent are computed the same way, so they
    # agree on which update won.
    untouched, won = _winning_updates(operand.aval, indices, updates.aval, dimension_numbers,
                                      mode, indices_are_sorted, unique_indices)

    def masked_scatter(x, u):
        x = _select(untouched, x, _zeros_like(x))
        u = _select(won, u, _zeros_like(u))
        return scatter_add_p.bind(x, indices, u, **params)

    return masked_scatter(operand, updates), masked_scatter(t_operand, t_updates)


@scatter_p.def_transpose
def _scatter_transpose(ct, operand, indices, updates, *, dimension_numbers, indices_are_sorted,
                       unique_indices, mode):
    params = dict(indices_are_sorted=indices_are_sorted, unique_indices=unique_indices)
    ct_operand = ct_updates = None
    if is_undefined(operand):  # overwritten positions get nothing back
        ct_operand = scatter_p.bind(ct, indices, support.ops.zeros(updates.aval),
                                    dimension_numbers=dimension_numbers, mode=mode, **params)
    if is_undefined(updates):
        ct_updates = _gather_back(ct, indices, updates.aval.shape, dimension_numbers, mode,
                                  **params)
        if not unique_indices:  # only the updates that won receive a cotangent
            _, won = _winning_updates(ct.aval, indices, updates.aval, dimension_numbers, mode,
                                      **params)
            ct_updates = _select(won, ct_updates, support.ops.zeros(ct_updates.aval))
    return [ct_operand, None, ct_updates]


@scatter_mul_p.def_jvp
def _scatter_mul_jvp(primals, tangents, *, dimension_numbers, indices_are_sorted,
                     unique_indices, mode):
    operand, indices, updates = primals
    t_operand, _, t_updates = tangents
    params = dict(dimension_numbers=dimension_numbers, indices_are_sorted=indices_are_sorted,
                  unique_indices=unique_indices, mode=mode)
    out = scatter_mul_p.bind(operand, indices, updates, **params)
    tangent = None
    if type(t_operand) is not Zero:  # linear in the operand for any indices
        tangent = scatter_mul_p.bind(t_operand, indices, updates, **params)
    if type(t_updates) is not Zero:
        if not unique_indices:
            raise NotImplementedError(
                "scatter_mul (x.at[idx].multiply(values)): the derivative with respect to the "
                "values is only implemented when the indices are unique, as in JAX. If no "
                "position is updated twice, pass unique_indices=True; otherwise multiply the "
                "values per position first (e.g. with a segment product) and scatter once.")
        # Each position is multiplied by one value at most: d out = operand * scattered dv.
        spread = scatter_add_p.bind(support.ops.zeros(operand.aval), indices, t_updates,
                                    **params)
        from_updates = ew.mul_p.bind(operand, spread)
        tangent = from_updates if tangent is None else ew.add_p.bind(tangent, from_updates)
    return out, (_zero_out_like(out) if tangent is None else tangent)


@scatter_mul_p.def_transpose
def _scatter_mul_transpose(ct, operand, indices, updates, **params):
    if is_undefined(updates):
        raise NotImplementedError(
            "scatter_mul is not linear in its updates, so it cannot be transposed with respect "
            "to them (its jvp never produces that case)")
    ct_operand = scatter_mul_p.bind(ct, indices, updates, **params) \
        if is_undefined(operand) else None
    return [ct_operand, None, None]


def _scatter_extremum_jvp(prim):
    """jvp of scatter_min/scatter_max, as JAX defines it: where several values tie for the
    result (operand and updates alike), the tangent is the average of theirs."""
    def rule(primals, tangents, *, dimension_numbers, indices_are_sorted, unique_indices,
             mode):
        operand, indices, updates = primals
        t_operand, _, t_updates = tangents
        params = dict(dimension_numbers=dimension_numbers,
                      indices_are_sorted=indices_are_sorted, unique_indices=unique_indices,
                      mode=mode)
        out = prim.bind(operand, indices, updates, **params)
        if type(t_operand) is Zero and type(t_updates) is Zero:
            return out, _zero_out_like(out)
        t_operand, t_updates = instantiate(t_operand), instantiate(t_updates)
        dtype, shape = updates.dtype, updates.shape

        def back(x):  # operand-shaped -> updates-shaped, at the positions each update hits
            return _gather_back(x, indices, shape, dimension_numbers, mode,
                                indices_are_sorted, unique_indices)

        def count(per_update):  # per position: the sum of ``per_update`` over its updates
            total = scatter_add_p.bind(support.ops.zeros(out.aval),
                                       indices, per_update, **params)
            return back(total)

        ones, zeros = _full(1, dtype, shape), _full(0, dtype, shape)
        result = back(out)
        won = ew.eq_p.bind(updates, result)  # this update value reached the result
        kept = ew.eq_p.bind(back(operand), result)  # the operand's value is still there
        num_won = count(_select(won, ones, zeros))
        num_refs = count(ones)
        num_won_and_kept = ew.add_p.bind(num_won, ones)
        share = _select(kept, ew.div_p.bind(ones, num_won_and_kept),
                        ew.div_p.bind(ones, num_won))
        update_coef = _select(won, share, zeros)
        operand_share = _select(kept, ew.div_p.bind(ones, num_won_and_kept), zeros)
        # The operand's tangent is added once per update at its position by the scatter_add
        # below (and once more as its own operand): scale it to ``operand_share`` in total.
        operand_coef = ew.div_p.bind(ew.sub_p.bind(operand_share, ones), num_refs)
        tangent_updates = ew.add_p.bind(ew.mul_p.bind(back(t_operand), operand_coef),
                                        ew.mul_p.bind(t_updates, update_coef))
        return out, scatter_add_p.bind(t_operand, indices, tangent_updates, **params)

    return rule


scatter_min_p.jvp_rule = _scatter_extremum_jvp(scatter_min_p)
scatter_max_p.jvp_rule = _scatter_extremum_jvp(scatter_max_p)


def _scatter_binder(prim):
    def bind(operand, indices, updates, dimension_numbers, *, mode="drop",
             indices_are_sorted=False, unique_indices=False):
        return prim.bind(
            operand, indices, updates, dimension_numbers=_as_int_tuples(dimension_numbers),
            indices_are_sorted=bool(indices_are_sorted), unique_indices=bool(unique_indices),
            mode=mode)
    bind.__name__ = bind.__qualname__ = prim.name
    bind.__doc__ = f"Bind ``{prim.name}`` (see the module docstring for the semantics)."
    return bind


scatter = _scatter_binder(scatter_p)
scatter_add = _scatter_binder(scatter_add_p)
scatter_mul = _scatter_binder(scatter_mul_p)
scatter_min = _scatter_binder(scatter_min_p)
scatter_max = _scatter_binder(scatter_max_p)

"""Pytree functions as functions of flat leaves, for the transforms: ``transforms/`` works
on flat lists of arrays, so the public transforms (``autodiff.py``, ``vectorization.py``,
``linear_transpose.py``) flatten arguments and outputs here, at the API edge, and put the
trees (and the aux outputs of ``has_aux``) back afterwards.

Example:
    >>> import funcarray.numpy as fnp
    >>> from funcarray.base import pytrees as fa_tree
    >>> leaves, in_tree = fa_tree.flatten(({"a": fnp.ones(2)},))
    >>> flat_fun, store = flatten_fun(lambda d: (d["a"] * 2.0, 1.0), in_tree)
    >>> flat_fun(*leaves)
    [Array([2., 2.], dtype=float32), Array(1., dtype=float32, weak_type=True)]
    >>> store["n_out"]
    2
"""

from __future__ import annotations

import numpy as np

from funcarray.api.arguments import asarray_arg, is_array
from funcarray.base import float0 as _float0
from funcarray.base import pytrees as fa_tree

__all__ = ["as_array_leaves", "flatten_fun", "flat_outputs", "filled", "split_aux"]


def as_array_leaves(name: str, leaves):
    """``leaves`` as Arrays (tracers pass through); errors name the transform ``name``."""
    return [x if is_array(x) else asarray_arg(name, x) for x in leaves]


def flatten_fun(fun, in_tree, has_aux=False, float0_ok=False):
    """``fun`` of a pytree, as a function of flat leaves returning flat leaves.

    The output tree structure is stored in the returned cell after the call, and, with
    ``float0_ok``, the float0 outputs' holes (``store["float0"]``, see ``flat_outputs``).
    """
    store = {}

    def flat_fun(*leaves):
        args = fa_tree.unflatten(in_tree, list(leaves))
        return flat_outputs(fun(*args), store, has_aux, "transformed function output",
                            float0_ok)

    return flat_fun, store


def flat_outputs(out, store, has_aux, name, float0_ok=False):
    """The output leaves of a flattened function (aux leaves appended), recording the trees
    and the number of declared outputs in ``store``.

    With ``float0_ok``, float0 arrays among the outputs (gradients of integer inputs) are
    set aside: they are no values a transform can carry, and they are all zeros. The leaves
    returned are the others; ``store["float0"]`` holds the holes to fill afterwards
    (``_float0.fill``, positions among all the leaves), or None.
    """
    if has_aux:
        if not (isinstance(out, tuple) and len(out) == 2):
            raise TypeError("has_aux=True needs the function to return a pair (out, aux)")
        out, aux = out
    out_leaves, store["out_tree"] = fa_tree.flatten(out)
    found = [] if float0_ok else None
    out_leaves = _as_output_leaves(name, out_leaves, found)
    store["n_out"] = len(out_leaves)
    if has_aux:
        # Array aux leaves leave the transform as extra outputs, so it unboxes them like any
        # output (handing them back through `store` would leak the transform's tracers);
        # other Python values (strings, numbers, None...) come back as they are, as in JAX.
        aux_leaves, store["aux_tree"] = fa_tree.flatten(aux)
        store["aux_kept"] = [(i, x) for i, x in enumerate(aux_leaves) if not _array_like(x)]
        aux_arrays = [x for x in aux_leaves if _array_like(x)]
        out_leaves += _as_output_leaves("has_aux auxiliary output", aux_arrays, found)
    store["float0"] = None
    if found:
        out_leaves, store["float0"] = _float0.split(out_leaves)
    return out_leaves


def _array_like(x) -> bool:
    return is_array(x) or isinstance(x, (np.ndarray, np.generic))


def _as_output_leaves(name, leaves, found):
    """Leaves as arrays, float0 ones kept as they are (and noted in ``found``) when
    ``found`` is a list."""
    return [x if is_array(x) else _output_leaf(name, x, found) for x in leaves]


def _output_leaf(name, x, found):
    if found is not None and _float0.is_float0(x):
        found.append(True)
        return x
    return asarray_arg(name, x)


def filled(store, kept) -> list:
    """A flat function's output leaves with its float0 outputs put back (see
    ``flat_outputs``)."""
    holes = store["float0"]
    return list(kept) if holes is None else _float0.fill(kept, holes)


def split_aux(store, leaves):
    """``(output leaves, aux pytree or None)`` from a flat function's results."""
    n = store["n_out"]
    if "aux_tree" not in store:
        return list(leaves), None
    aux = list(leaves[n:])
    for i, x in store["aux_kept"]:
        aux.insert(i, x)
    return list(leaves[:n]), fa_tree.unflatten(store["aux_tree"], aux)

"""``Embedding``: a lookup table of vectors indexed by integer ids."""

from __future__ import annotations

from typing import TYPE_CHECKING

from funcarray import random
from funcarray.api.arguments import asarray_arg
from funcarray.base import dtypes
from funcarray.base.errors import op_type_error, op_value_error
from funcarray.nn._module import Module, field

if TYPE_CHECKING:
    from funcarray.base.array import Array
    from funcarray.base.typing import ArrayLike, DTypeLike
    from funcarray.random._keys import KeyArrayLike

__all__ = ["Embedding"]


class Embedding(Module):
    """``weight[x]``: row ``x`` of a ``(num_embeddings, embedding_size)`` table for each
    integer id in ``x`` (a scalar or an array of ids).

    Initialised as PyTorch's ``nn.Embedding``: standard normal entries drawn from ``key``;
    or pass ``weight=`` (pretrained vectors). Ids index as ``funcarray.numpy`` does (JAX's
    rules): negative ids count from the end, and ids past the end are clamped.

    Example:
        >>> import funcarray.nn as nn, funcarray.numpy as fnp, funcarray.random as random
        >>> embed = nn.Embedding(10, 4, key=random.key(0))
        >>> embed(fnp.asarray([1, 2, 1])).shape
        (3, 4)
    """

    weight: Array
    num_embeddings: int = field(static=True)
    embedding_size: int = field(static=True)

    def __init__(self, num_embeddings: int | None = None, embedding_size: int | None = None,
                 weight: ArrayLike | None = None, *, dtype: DTypeLike | None = None,
                 key: KeyArrayLike | None = None):
        if weight is None:
            if num_embeddings is None or embedding_size is None or key is None:
                raise op_type_error("Embedding", "give num_embeddings, embedding_size and "
                                                 "key=, or a weight= table")
            dtype = dtypes.float32 if dtype is None else dtype
            weight = random.normal(key, (num_embeddings, embedding_size), dtype)
        weight = asarray_arg("Embedding", weight)
        if weight.ndim != 2 or (num_embeddings, embedding_size) not in (
                (None, None), tuple(weight.shape)):
            wanted = (num_embeddings, embedding_size)
            raise op_value_error("Embedding", f"weight must have shape (num_embeddings, "
                                              f"embedding_size) = {wanted}, got "
                                              f"{tuple(weight.shape)}")
        self.weight = weight
        self.num_embeddings, self.embedding_size = (int(n) for n in weight.shape)

    def __call__(self, x: ArrayLike, *, key: KeyArrayLike | None = None) -> Array:
        x = asarray_arg("Embedding", x)
        if not dtypes.is_integer(x.dtype):
            raise op_type_error("Embedding", f"ids must be integers, got {x.dtype}; cast "
                                             "them with .astype(int)")
        return self.weight[x]

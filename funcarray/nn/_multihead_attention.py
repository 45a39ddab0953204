"""``MultiHeadAttention``: projections to heads around ``dot_product_attention``."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from funcarray import numpy as fnp
from funcarray import random
from funcarray.api.arguments import asarray_arg
from funcarray.base.errors import op_type_error, op_value_error
from funcarray.nn._attention import dot_product_attention
from funcarray.nn._dropout import Dropout
from funcarray.nn._functions import softmax
from funcarray.nn._linear import Linear
from funcarray.nn._module import Module, field
from funcarray.nn._surgery import tree_at

if TYPE_CHECKING:
    from funcarray.base.array import Array
    from funcarray.base.typing import ArrayLike, DTypeLike
    from funcarray.random._keys import KeyArrayLike

__all__ = ["MultiHeadAttention", "MultiheadAttention"]


def _projection(in_size: int, out_size: int, use_bias: bool, dtype, key) -> Linear:
    """A Linear with PyTorch's ``nn.MultiheadAttention`` input projection: Glorot-uniform
    weight (``xavier_uniform_``), zero bias."""
    wkey, lkey = random.split(key)
    bound = math.sqrt(6.0 / (in_size + out_size))
    layer = Linear(in_size, out_size, use_bias, dtype=dtype, key=lkey)
    layer = tree_at(lambda m: m.weight, layer, replace=random.uniform(
        wkey, (out_size, in_size), layer.weight.dtype, minval=-bound, maxval=bound))
    if use_bias:
        layer = tree_at(lambda m: m.bias, layer, replace=fnp.zeros_like(layer.bias))
    return layer


class MultiHeadAttention(Module):
    """Multi-head attention over one example: ``query`` (T, query_size) attends to
    ``key_`` (S, key_size) and ``value`` (S, value_size), giving (T, output_size).

    The query is projected to ``num_heads`` heads of ``qk_size`` (default
    ``query_size // num_heads``), key and value to ``num_kv_heads`` heads (default
    ``num_heads``; fewer is grouped-query attention, ``num_heads`` a multiple of it) of
    ``qk_size`` and ``vo_size``, then ``softmax(q k^T / sqrt(qk_size)) v`` per head, and the
    heads concatenated and projected to ``output_size`` (default ``query_size``). The call's
    ``mask`` is boolean (True attends), broadcastable to (num_heads, T, S): (T, S) for a
    pattern, (S,) for the padding of the keys; ``is_causal=True`` adds the causal mask.
    ``dropout_p`` drops attention weights in training (the call's ``key`` then needed).

    Equinox's signature (``eqx.nn.MultiheadAttention``, also available under that name);
    the parameters are named as PyTorch's separate projections (``query_proj.weight``...).
    Initialised as PyTorch's ``nn.MultiheadAttention``: Glorot-uniform input projections,
    the output projection as a ``Linear``, every bias zero; biases are off by default, as in
    Equinox.

    Example:
        >>> import funcarray.nn as nn, funcarray.numpy as fnp, funcarray.random as random
        >>> mha = nn.MultiHeadAttention(num_heads=4, query_size=16, key=random.key(0))
        >>> x = fnp.ones((5, 16))
        >>> mha(x, x, x, is_causal=True).shape
        (5, 16)
    """

    query_proj: Linear
    key_proj: Linear
    value_proj: Linear
    output_proj: Linear
    dropout: Dropout
    num_heads: int = field(static=True)
    num_kv_heads: int = field(static=True)
    query_size: int = field(static=True)
    key_size: int = field(static=True)
    value_size: int = field(static=True)
    output_size: int = field(static=True)
    qk_size: int = field(static=True)
    vo_size: int = field(static=True)

    def __init__(self, num_heads: int, query_size: int, key_size: int | None = None,
                 value_size: int | None = None, output_size: int | None = None,
                 qk_size: int | None = None, vo_size: int | None = None,
                 use_query_bias: bool = False, use_key_bias: bool = False,
                 use_value_bias: bool = False, use_output_bias: bool = False,
                 dropout_p: float = 0.0, inference: bool = False, *,
                 num_kv_heads: int | None = None, dtype: DTypeLike | None = None,
                 key: KeyArrayLike):
        op = "MultiHeadAttention"
        num_kv_heads = num_heads if num_kv_heads is None else num_kv_heads
        if num_heads < 1 or num_kv_heads < 1 or num_heads % num_kv_heads:
            raise op_value_error(op, f"num_heads ({num_heads}) must be a positive multiple of "
                                     f"num_kv_heads ({num_kv_heads})")
        key_size = query_size if key_size is None else key_size
        value_size = query_size if value_size is None else value_size
        output_size = query_size if output_size is None else output_size
        qk_size = query_size // num_heads if qk_size is None else qk_size
        vo_size = query_size // num_heads if vo_size is None else vo_size
        if qk_size < 1 or vo_size < 1:
            raise op_value_error(op, f"query_size ({query_size}) is smaller than num_heads "
                                     f"({num_heads}): give qk_size and vo_size")
        qkey, kkey, vkey, okey = random.split(key, 4)
        self.query_proj = _projection(query_size, num_heads * qk_size, use_query_bias, dtype,
                                      qkey)
        self.key_proj = _projection(key_size, num_kv_heads * qk_size, use_key_bias, dtype,
                                    kkey)
        self.value_proj = _projection(value_size, num_kv_heads * vo_size, use_value_bias,
                                      dtype, vkey)
        output = Linear(num_heads * vo_size, output_size, use_output_bias, dtype=dtype,
                        key=okey)
        if use_output_bias:
            output = tree_at(lambda m: m.bias, output, replace=fnp.zeros_like(output.bias))
        self.output_proj = output
        self.dropout = Dropout(dropout_p, inference=inference)
        self.num_heads, self.num_kv_heads = num_heads, num_kv_heads
        self.query_size, self.key_size, self.value_size = query_size, key_size, value_size
        self.output_size, self.qk_size, self.vo_size = output_size, qk_size, vo_size

    def __call__(self, query: ArrayLike, key_: ArrayLike, value: ArrayLike,
                 mask: ArrayLike | None = None, *, is_causal: bool = False,
                 key: KeyArrayLike | None = None, inference: bool | None = None) -> Array:
        op = "MultiHeadAttention"
        query, key_, value = (asarray_arg(op, a) for a in (query, key_, value))
        for name, x, size in (("query", query, self.query_size), ("key_", key_, self.key_size),
                              ("value", value, self.value_size)):
            if x.ndim != 2 or x.shape[1] != size:
                raise op_value_error(op, f"{name} must have shape (sequence, {size}), got "
                                         f"{tuple(x.shape)}; batches go through funcarray.vmap")
        t, s = query.shape[0], key_.shape[0]
        if value.shape[0] != s:
            raise op_value_error(op, f"key_ and value must have one sequence length, got {s} "
                                     f"and {value.shape[0]}")
        q = self.query_proj(query).reshape((t, self.num_heads, self.qk_size))
        k = self.key_proj(key_).reshape((s, self.num_kv_heads, self.qk_size))
        v = self.value_proj(value).reshape((s, self.num_kv_heads, self.vo_size))
        if mask is not None:
            mask = asarray_arg(op, mask)
            if mask.dtype != np.bool_:
                raise op_type_error(op, f"mask must be boolean (True attends), got {mask.dtype}")
            try:
                mask = fnp.broadcast_to(mask, (self.num_heads, t, s))
            except ValueError:
                raise op_value_error(op, f"mask of shape {tuple(mask.shape)} does not broadcast "
                                         f"to (num_heads, T, S) = {(self.num_heads, t, s)}"
                                     ) from None
        inference = self.dropout.inference if inference is None else inference
        if (inference or self.dropout.p == 0.0) and self.qk_size == self.vo_size:
            heads = dot_product_attention(q, k, v, mask=mask, is_causal=is_causal)
        else:
            heads = self._attend(q, k, v, mask, is_causal, key, inference)
        return self.output_proj(heads.reshape((t, self.num_heads * self.vo_size)))

    def _attend(self, q, k, v, mask, is_causal, key, inference):
        """Attention with its weights in hand (dropout on them, or value heads of another
        size than the query's), with ``dot_product_attention``'s masking."""
        groups = self.num_heads // self.num_kv_heads
        k, v = fnp.repeat(k, groups, axis=1), fnp.repeat(v, groups, axis=1)
        logits = fnp.einsum("tnh,snh->nts", q, k) / np.sqrt(self.qk_size).astype(q.dtype)
        t, s = q.shape[0], k.shape[0]
        if is_causal:
            causal = fnp.tril(fnp.ones((t, s), dtype=bool))
            mask = causal if mask is None else fnp.logical_and(mask, causal)
        if mask is not None:
            lowest = -0.7 * float(np.finfo(np.float32).max)
            logits = fnp.where(mask, logits, fnp.asarray(lowest, dtype=logits.dtype))
        weights = softmax(logits, axis=-1)
        weights = self.dropout(weights, key=key, inference=inference)
        return fnp.einsum("nts,snh->tnh", weights, v)


# Equinox's spelling.
MultiheadAttention = MultiHeadAttention

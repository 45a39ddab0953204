"""``dot_product_attention``, as ``jax.nn.dot_product_attention`` computes it with
``implementation="xla"``: logits in float32 (or wider), the masks (boolean ``mask``,
``is_causal``, sequence lengths, a local window) replacing logits by a large negative number,
a float32 softmax, grouped-query heads (query heads a multiple of key/value heads).

Example:
    >>> import funcarray.nn as nn, funcarray.numpy as fnp
    >>> q = k = v = fnp.ones((1, 3, 2, 4))  # (batch, sequence, heads, head dim)
    >>> nn.dot_product_attention(q, k, v, is_causal=True).shape
    (1, 3, 2, 4)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, overload

import numpy as np

import funcarray.numpy as fnp
from funcarray.api.arguments import asarray_arg
from funcarray.api.autodiff import stop_gradient
from funcarray.base import dtypes
from funcarray.nn._functions import logsumexp, softmax

if TYPE_CHECKING:
    from typing import Literal

    from funcarray.base.array import Array
    from funcarray.base.typing import ArrayLike

__all__ = ["dot_product_attention"]


def _large_negative(dtype) -> float:
    # (jax's value: finite in float32 even for float64 logits)
    return -0.7 * min(float(np.finfo(dtype).max), float(np.finfo(np.float32).max))


def _as_4d(name: str, x):
    if x is None:
        return None
    x = asarray_arg(f"dot_product_attention's {name}", x)
    if x.ndim == 3:
        return x[None]
    if x.ndim != 4:
        raise ValueError(f"dot_product_attention: {name} must have rank 3 (T, N, H) or 4 "
                         f"(B, T, N, H), got shape {tuple(x.shape)}")
    return x


def _mask(t: int, s: int, mask, is_causal, q_lengths, kv_lengths, window):
    """The combined boolean mask, broadcastable to (B, N, T, S), or None."""
    combined = None

    def both(a, b):
        return b if a is None else fnp.logical_and(a, b)

    if mask is not None:
        combined = mask
    if is_causal:
        combined = both(combined, fnp.tril(fnp.ones((t, s), dtype=bool))[None, None])
    if window is not None:
        left, right = window
        q_pos, k_pos = np.arange(t)[:, None], np.arange(s)[None, :]
        local = (q_pos <= k_pos + left) & (q_pos >= k_pos - right)
        combined = both(combined, fnp.asarray(local)[None, None])
    if q_lengths is not None or kv_lengths is not None:
        lengths = True
        if q_lengths is not None:
            lengths = fnp.arange(t)[None, :, None] < q_lengths[:, None, None]
        if kv_lengths is not None:
            kv = fnp.arange(s)[None, None, :] < kv_lengths[:, None, None]
            lengths = kv if lengths is True else fnp.logical_and(lengths, kv)
        combined = both(combined, lengths[:, None])
    return combined


@overload
def dot_product_attention(query: ArrayLike, key: ArrayLike, value: ArrayLike,
                          bias: ArrayLike | None = None, mask: ArrayLike | None = None, *,
                          scale: float | None = None, is_causal: bool = False,
                          query_seq_lengths: ArrayLike | None = None,
                          key_value_seq_lengths: ArrayLike | None = None,
                          local_window_size: int | tuple[int, int] | None = None,
                          implementation: str | None = None,
                          return_residual: Literal[False] = False) -> Array: ...
@overload
def dot_product_attention(query: ArrayLike, key: ArrayLike, value: ArrayLike,
                          bias: ArrayLike | None = None, mask: ArrayLike | None = None, *,
                          scale: float | None = None, is_causal: bool = False,
                          query_seq_lengths: ArrayLike | None = None,
                          key_value_seq_lengths: ArrayLike | None = None,
                          local_window_size: int | tuple[int, int] | None = None,
                          implementation: str | None = None,
                          return_residual: Literal[True]) -> tuple[Array, Array]: ...
@overload
def dot_product_attention(query: ArrayLike, key: ArrayLike, value: ArrayLike,
                          bias: ArrayLike | None = None, mask: ArrayLike | None = None, *,
                          scale: float | None = None, is_causal: bool = False,
                          query_seq_lengths: ArrayLike | None = None,
                          key_value_seq_lengths: ArrayLike | None = None,
                          local_window_size: int | tuple[int, int] | None = None,
                          implementation: str | None = None,
                          return_residual: bool = False) -> Array | tuple[Array, Array]: ...
def dot_product_attention(query, key, value, bias=None, mask=None, *, scale=None,
                          is_causal: bool = False, query_seq_lengths=None,
                          key_value_seq_lengths=None, local_window_size=None,
                          implementation=None, return_residual: bool = False):
    """Scaled dot-product attention ``softmax(q k^T * scale + bias, masked) v`` over
    (B, T, N, H) query and (B, S, K, H) key/value (the batch axis optional; N a multiple of
    K: grouped-query attention). ``mask`` is boolean (True keeps), ``scale`` defaults to
    ``1/sqrt(H)``, ``local_window_size`` is an int or ``(left, right)``. With
    ``return_residual`` also returns the softmax's log-normaliser, (B, T, N), without
    gradient. ``implementation`` may be None or ``"xla"`` (one device, no cuDNN).

    Example:
        >>> import funcarray.nn as nn, funcarray.numpy as fnp
        >>> q = fnp.ones((2, 4, 8))  # (T, N, H): no batch axis
        >>> nn.dot_product_attention(q, q, q).shape
        (2, 4, 8)
    """
    if implementation not in (None, "xla"):
        raise ValueError(f"dot_product_attention: implementation must be None or 'xla' "
                         f"(funcarray has no cuDNN path), got {implementation!r}")
    batched = asarray_arg("dot_product_attention's query", query).ndim == 4
    q, k, v = _as_4d("query", query), _as_4d("key", key), _as_4d("value", value)
    bias, mask = _as_4d("bias", bias), _as_4d("mask", mask)
    b, s, kv_heads, h = k.shape
    if tuple(v.shape) != tuple(k.shape) or v.dtype != k.dtype:
        raise ValueError(f"dot_product_attention: value must match key's shape and dtype, got "
                         f"{v.aval.str_short()} and {k.aval.str_short()}")
    if q.shape[0] != b or q.shape[3] != h or q.dtype != k.dtype:
        raise ValueError(f"dot_product_attention: query {q.aval.str_short()} must share the "
                         f"batch size, head dimension and dtype of key {k.aval.str_short()}")
    t, heads = q.shape[1], q.shape[2]
    if heads % kv_heads:
        raise ValueError(f"dot_product_attention: the number of query heads ({heads}) must be "
                         f"a multiple of the key/value heads ({kv_heads})")
    if mask is not None and mask.dtype != np.bool_:
        raise TypeError(f"dot_product_attention: mask must be boolean, got {mask.dtype}")
    if isinstance(local_window_size, int):
        local_window_size = (local_window_size, local_window_size)
    lengths = [None if x is None else asarray_arg("dot_product_attention", x)
               for x in (query_seq_lengths, key_value_seq_lengths)]
    groups = heads // kv_heads
    logits_dtype = dtypes.promote_types(q.dtype, np.float32)
    scale = 1.0 / np.sqrt(h) if scale is None else scale
    qg = q.reshape((b, t, kv_heads, groups, h)).astype(logits_dtype)
    logits = fnp.einsum("btkgh,bskh->bkgts", qg, k.astype(logits_dtype))
    logits = logits.reshape((b, heads, t, s)) * fnp.asarray(scale, dtype=logits_dtype)
    if bias is not None:
        logits = (logits + bias).astype(logits_dtype)
    keep = _mask(t, s, mask, is_causal, *lengths, local_window_size)
    if keep is not None:
        logits = fnp.where(keep, logits, fnp.asarray(_large_negative(logits_dtype),
                                                     dtype=logits_dtype))
    logits32 = logits.astype(np.float32)
    probs = softmax(logits32, axis=-1).astype(k.dtype)
    out = fnp.einsum("bkgts,bskh->btkgh", probs.reshape((b, kv_heads, groups, t, s)), v)
    out = out.reshape((b, t, heads, h))
    if lengths[0] is not None:
        out = out * (fnp.arange(t)[None, :] < lengths[0][:, None])[:, :, None, None].astype(
            out.dtype)
    if not batched:
        out = out[0]
    if not return_residual:
        return out
    residual = stop_gradient(fnp.transpose(logsumexp(logits32, axis=-1).astype(k.dtype),
                                           (0, 2, 1)))
    return out, residual if batched else residual[0]

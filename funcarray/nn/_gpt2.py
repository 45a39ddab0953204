"""``GPT2``: the decoder-only transformer of GPT-2, and its conversion from Hugging Face's
tensor names and layouts."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from funcarray import numpy as fnp
from funcarray import random
from funcarray.api.arguments import asarray_arg
from funcarray.api.shape_evaluation import eval_shape
from funcarray.base import dtypes
from funcarray.base import pytrees as tree
from funcarray.base.errors import op_type_error, op_value_error
from funcarray.nn._activations import gelu
from funcarray.nn._embedding import Embedding
from funcarray.nn._functions import softmax
from funcarray.nn._linear import Linear
from funcarray.nn._module import Module, field
from funcarray.nn._normalization import LayerNorm
from funcarray.nn._state_dict import _name
from funcarray.nn._surgery import tree_at

if TYPE_CHECKING:
    from funcarray.base.array import Array
    from funcarray.base.typing import ArrayLike, DTypeLike
    from funcarray.random._keys import KeyArrayLike

__all__ = ["GPT2", "GPT2Config"]


@dataclasses.dataclass(frozen=True)
class GPT2Config:
    """The sizes of a GPT-2 model, under Hugging Face's ``GPT2Config`` names; the defaults
    are GPT-2 small (124M parameters)."""

    vocab_size: int = 50257
    n_positions: int = 1024
    n_embd: int = 768
    n_layer: int = 12
    n_head: int = 12
    layer_norm_epsilon: float = 1e-5


def _linear(n_in: int, n_out: int, std: float, dtype, key) -> Linear:
    """A Linear with GPT-2's initialisation: normal(0, std) weight, zero bias."""
    wkey, lkey = random.split(key)
    layer = Linear(n_in, n_out, dtype=dtype, key=lkey)
    return tree_at(lambda m: (m.weight, m.bias), layer,
                   replace=(std * random.normal(wkey, (n_out, n_in), layer.weight.dtype),
                            fnp.zeros_like(layer.bias)))


class CausalSelfAttention(Module):
    """GPT-2's attention: one fused projection to queries, keys and values (``c_attn``),
    causal scaled dot-product attention per head, the output projection ``c_proj``."""

    c_attn: Linear
    c_proj: Linear
    n_head: int = field(static=True)

    def __init__(self, n_embd: int, n_head: int, proj_std: float, dtype, *, key):
        akey, pkey = random.split(key)
        self.c_attn = _linear(n_embd, 3 * n_embd, 0.02, dtype, akey)
        self.c_proj = _linear(n_embd, n_embd, proj_std, dtype, pkey)
        self.n_head = n_head

    def __call__(self, x: Array) -> Array:
        t, c = x.shape
        d = c // self.n_head
        q, k, v = (a.reshape((t, self.n_head, d)) for a in fnp.split(self.c_attn(x), 3, -1))
        # Two einsums around a masked softmax rather than dot_product_attention: for one
        # sequence this compiles to about half the time of dot_product_attention's
        # (batch, T, heads, size) layout, in jax as in funcarray, on the CPU.
        logits = fnp.einsum("tnh,snh->nts", q, k) * np.asarray(1 / np.sqrt(d), x.dtype)
        causal = fnp.tril(fnp.ones((t, t), dtype=bool))
        logits = fnp.where(causal, logits, fnp.finfo(logits.dtype).min)
        heads = fnp.einsum("nts,snh->tnh", softmax(logits, axis=-1), v)
        return self.c_proj(heads.reshape((t, c)))


class FeedForward(Module):
    """GPT-2's MLP: ``c_proj(gelu(c_fc(x)))`` with a 4x wider hidden layer and the tanh
    approximation of GELU (Hugging Face's ``gelu_new``)."""

    c_fc: Linear
    c_proj: Linear

    def __init__(self, n_embd: int, proj_std: float, dtype, *, key):
        fkey, pkey = random.split(key)
        self.c_fc = _linear(n_embd, 4 * n_embd, 0.02, dtype, fkey)
        self.c_proj = _linear(4 * n_embd, n_embd, proj_std, dtype, pkey)

    def __call__(self, x: Array) -> Array:
        return self.c_proj(gelu(self.c_fc(x), approximate=True))


class Block(Module):
    """A pre-norm transformer block: ``x + attn(ln_1(x))``, then ``x + mlp(ln_2(x))``."""

    ln_1: LayerNorm
    attn: CausalSelfAttention
    ln_2: LayerNorm
    mlp: FeedForward

    def __init__(self, config: GPT2Config, dtype, *, key):
        akey, mkey = random.split(key)
        # GPT-2 scales the projections into the residual stream by 1/sqrt(2 * n_layer), so
        # the stream's variance does not grow with depth.
        proj_std = 0.02 / float(np.sqrt(2 * config.n_layer))  # a weak-typed Python float
        eps = config.layer_norm_epsilon
        self.ln_1 = LayerNorm(config.n_embd, eps, dtype=dtype)
        self.attn = CausalSelfAttention(config.n_embd, config.n_head, proj_std, dtype, key=akey)
        self.ln_2 = LayerNorm(config.n_embd, eps, dtype=dtype)
        self.mlp = FeedForward(config.n_embd, proj_std, dtype, key=mkey)

    def __call__(self, x: Array) -> Array:
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT2(Module):
    """GPT-2 (Radford et al., 2019): token and position embeddings (``wte``, ``wpe``),
    ``n_layer`` pre-norm blocks (``h``), a final ``ln_f``, and logits from the token embedding
    itself (tied weights).

    The call takes one sequence of token ids, shape ``(T,)`` with ``T <= n_positions``, and
    gives next-token logits ``(T, vocab_size)``; batches go through ``vmap``. Parameters are
    named as Hugging Face's ``GPT2Model`` (``h.0.attn.c_attn.weight``...), with each
    projection a ``Linear`` (weight ``(out, in)``), where Hugging Face's ``Conv1D`` stores
    ``(in, out)``: ``GPT2.from_hf_state_dict`` (and ``funcarray.io.load_gpt2`` for a
    safetensors file) transposes them. Initialised as GPT-2: normal(0, 0.02) weights and
    embeddings, the residual projections scaled by ``1/sqrt(2 * n_layer)``, zero biases.
    There is no dropout (GPT-2 pretrained with 0.1): inference and fine-tuning do without.

    Example:
        >>> import funcarray as fa, funcarray.nn as nn, funcarray.numpy as fnp
        >>> config = nn.GPT2Config(vocab_size=50, n_positions=16, n_embd=32, n_layer=2,
        ...                        n_head=4)
        >>> model = nn.GPT2(config, key=fa.random.key(0))
        >>> model(fnp.asarray([1, 2, 3])).shape
        (3, 50)
        >>> fa.vmap(model)(fnp.zeros((4, 16), dtype=int)).shape
        (4, 16, 50)
    """

    wte: Embedding
    wpe: Embedding
    h: tuple
    ln_f: LayerNorm
    config: GPT2Config = field(static=True)

    def __init__(self, config: GPT2Config, *, dtype: DTypeLike | None = None,
                 key: KeyArrayLike):
        if not isinstance(config, GPT2Config):
            raise op_type_error("GPT2", f"config must be a GPT2Config, got {config!r}")
        if config.n_embd % config.n_head:
            raise op_value_error("GPT2", f"n_embd ({config.n_embd}) must be a multiple of "
                                         f"n_head ({config.n_head})")
        dtype = dtypes.float32 if dtype is None else dtype
        tkey, pkey, *bkeys = random.split(key, 2 + config.n_layer)
        self.wte = Embedding(weight=0.02 * random.normal(
            tkey, (config.vocab_size, config.n_embd), dtype))
        self.wpe = Embedding(weight=0.02 * random.normal(
            pkey, (config.n_positions, config.n_embd), dtype))
        self.h = tuple(Block(config, dtype, key=k) for k in bkeys)
        self.ln_f = LayerNorm(config.n_embd, config.layer_norm_epsilon, dtype=dtype)
        self.config = config

    def __call__(self, ids: ArrayLike, *, key: KeyArrayLike | None = None) -> Array:
        return fnp.matmul(self.hidden_states(ids), self.wte.weight.T)

    def hidden_states(self, ids: ArrayLike) -> Array:
        """The final normalised states ``(T, n_embd)`` the logits are read from: the
        features for a new head (a classifier on a pretrained body).

        Example:
            >>> import funcarray as fa, funcarray.nn as nn, funcarray.numpy as fnp
            >>> config = nn.GPT2Config(vocab_size=50, n_positions=8, n_embd=16, n_layer=1,
            ...                        n_head=2)
            >>> nn.GPT2(config, key=fa.random.key(0)).hidden_states(fnp.arange(5)).shape
            (5, 16)
        """
        ids = asarray_arg("GPT2", ids)
        if ids.ndim != 1 or not dtypes.is_integer(ids.dtype):
            raise op_value_error("GPT2", f"ids must be one sequence of integer token ids, shape "
                                         f"(T,), got {tuple(ids.shape)} {ids.dtype}; batches "
                                         "go through funcarray.vmap")
        t = ids.shape[0]
        if t > self.config.n_positions:
            raise op_value_error("GPT2", f"sequence of {t} tokens is longer than n_positions "
                                         f"({self.config.n_positions})")
        x = self.wte(ids) + self.wpe.weight[:t]
        for block in self.h:
            x = block(x)
        return self.ln_f(x)

    @classmethod
    def from_hf_state_dict(cls, tensors: Mapping[str, Any], n_head: int,
                           layer_norm_epsilon: float = 1e-5) -> GPT2:
        """A ``GPT2`` holding the arrays of a Hugging Face GPT-2 checkpoint.

        ``tensors`` maps Hugging Face's names to arrays: ``wte.weight``, ``wpe.weight``,
        ``h.{i}.ln_1.weight``..., ``h.{i}.attn.c_attn.weight`` of shape ``(n_embd,
        3 * n_embd)`` (a ``Conv1D``: transposed against ``Linear``), ``ln_f.bias``; an
        optional ``transformer.`` prefix is dropped, and the attention-mask buffers
        (``attn.bias``, ``attn.masked_bias``) and ``lm_head.weight`` (tied to ``wte``) are
        skipped. The sizes come from the shapes; the number of heads is not in the tensors and
        is given as ``n_head``. Every missing, unexpected or mis-shaped key is named in one
        ValueError.

        Example:
            >>> import numpy as np, funcarray as fa, funcarray.nn as nn
            >>> config = nn.GPT2Config(vocab_size=10, n_positions=4, n_embd=8, n_layer=1,
            ...                        n_head=2)
            >>> ours = nn.GPT2(config, key=fa.random.key(0))
            >>> hf = {name: np.asarray(p.T if name.endswith(nn.GPT2.CONV1D_WEIGHTS) else p)
            ...       for name, p in nn.named_parameters(ours)}
            >>> nn.GPT2.from_hf_state_dict(hf, n_head=2).config == config
            True
        """
        op = "GPT2.from_hf_state_dict"
        tensors = _strip_hf_names(tensors)
        for name in ("wte.weight", "wpe.weight"):
            if name not in tensors or np.ndim(tensors[name]) != 2:
                raise op_value_error(op, f"{name!r} must be a 2-d array: it gives the "
                                         "vocabulary, context and embedding sizes")
        layers = {int(m.group(1)) for m in map(re.compile(r"h\.(\d+)\.").match, tensors) if m}
        (vocab, n_embd), n_positions = np.shape(tensors["wte.weight"]), len(tensors["wpe.weight"])
        config = GPT2Config(vocab, n_positions, n_embd, max(layers, default=-1) + 1, n_head,
                            layer_norm_epsilon)
        dtype = np.asarray(tensors["wte.weight"]).dtype
        # The structure and shapes alone (no random weights drawn for a model to overwrite).
        skeleton = eval_shape(lambda k: cls(config, dtype=dtype, key=k), random.key(0))
        paths, leaves, treedef = tree.flatten_with_path(skeleton)
        arrays, problems = [], []
        for path, leaf in zip(paths, leaves, strict=True):
            name = _name(op, path)
            conv1d = name.endswith(cls.CONV1D_WEIGHTS)
            wanted = tuple(reversed(leaf.shape)) if conv1d else tuple(leaf.shape)
            if name not in tensors:
                problems.append(f"missing {name!r} (shape {wanted})")
                continue
            value = tensors.pop(name)
            if tuple(np.shape(value)) != wanted:
                problems.append(f"{name!r} has shape {tuple(np.shape(value))}, expected "
                                f"{wanted}" + (" (a Conv1D weight: (in, out))" if conv1d else ""))
                continue
            value = asarray_arg(op, value).astype(dtype)
            arrays.append(value.T if conv1d else value)
        problems += [f"unexpected {name!r}" for name in tensors]
        if problems:
            raise op_value_error(op, "the tensors do not fit a GPT-2 checkpoint: "
                                     + "; ".join(problems))
        return tree.unflatten(treedef, arrays)

    # Hugging Face's Conv1D weights, stored (in, out): the suffixes of their names.
    CONV1D_WEIGHTS = ("attn.c_attn.weight", "attn.c_proj.weight", "mlp.c_fc.weight",
                      "mlp.c_proj.weight")


def _strip_hf_names(tensors: Mapping[str, Any]) -> dict:
    """The tensors under names without ``transformer.``, less the buffers GPT-2 checkpoints
    carry beside the parameters."""
    kept = {}
    for name, value in tensors.items():
        name = name.removeprefix("transformer.")
        if name == "lm_head.weight" or re.fullmatch(r"h\.\d+\.attn\.(masked_)?bias", name):
            continue
        kept[name] = value
    return kept

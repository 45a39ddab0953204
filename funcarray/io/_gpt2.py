"""``load_gpt2``: a Hugging Face GPT-2 safetensors checkpoint as a ``funcarray.nn.GPT2``."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from funcarray.base.errors import api_boundary
from funcarray.io._api import load
from funcarray.nn import GPT2

if TYPE_CHECKING:
    _Path = str | os.PathLike[str]

__all__ = ["load_gpt2"]


@api_boundary
def load_gpt2(path: _Path, *, n_head: int = 12, layer_norm_epsilon: float = 1e-5) -> GPT2:
    """Load a GPT-2 checkpoint saved by Hugging Face ``transformers`` (``model.safetensors``
    of ``GPT2Model`` or ``GPT2LMHeadModel``) into ``funcarray.nn.GPT2``.

    The tensors keep Hugging Face's names (``wte.weight``, ``h.0.attn.c_attn.weight``...,
    with or without a ``transformer.`` prefix); the ``Conv1D`` weights, stored ``(in,
    out)``, are transposed to ``Linear``'s ``(out, in)``, and the language-model head is the
    token embedding (tied). Sizes come from the tensors' shapes; ``n_head`` is not stored in
    the file (GPT-2 small and its distillations have 12; medium 16, large 20, XL 25). Every
    missing, unexpected or mis-shaped tensor is named in one ValueError. See
    ``GPT2.from_hf_state_dict``.

    Example:
        >>> import os, tempfile, numpy as np
        >>> import funcarray as fa, funcarray.io as fio, funcarray.nn as nn
        >>> config = nn.GPT2Config(vocab_size=10, n_positions=4, n_embd=8, n_layer=1,
        ...                        n_head=2)
        >>> model = nn.GPT2(config, key=fa.random.key(0))
        >>> hf = {name: p.T if name.endswith(nn.GPT2.CONV1D_WEIGHTS) else p
        ...       for name, p in nn.named_parameters(model)}
        >>> path = os.path.join(tempfile.mkdtemp(), "model.safetensors")
        >>> fio.save(path, hf)
        >>> loaded = fio.load_gpt2(path, n_head=2)
        >>> bool((loaded.h[0].attn.c_attn.weight == model.h[0].attn.c_attn.weight).all())
        True
    """
    return GPT2.from_hf_state_dict(load(path, flat=True), n_head=n_head,
                                   layer_norm_epsilon=layer_norm_epsilon)

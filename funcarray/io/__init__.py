"""``funcarray.io``: save and load parameter pytrees as safetensors or ``.npz`` checkpoints.

``save(path, tree)`` stores each leaf under its dotted path (``"layers.0.weight"``, as in a
PyTorch ``state_dict``) with its dtype (bfloat16 included) and shape; ``load(path, like=tree)``
gives back a pytree of ``tree``'s structure after checking every key, shape and dtype, and
``load(path)`` a nested dict; ``load_gpt2(path)`` reads a Hugging Face GPT-2 checkpoint
into ``funcarray.nn.GPT2``. The safetensors format is implemented here with NumPy (no
extra dependency), so weights exported from PyTorch or a model hub load directly, and a
truncated or corrupt file raises an error naming the key instead of loading garbage. See
``funcarray.io.save`` and ``funcarray.io.load`` for the details.

Example:
    >>> import os, tempfile
    >>> import funcarray.io as fio, funcarray.numpy as fnp
    >>> path = os.path.join(tempfile.mkdtemp(), "model.safetensors")
    >>> fio.save(path, {"w": fnp.arange(3.0)})
    >>> fio.load(path)["w"]
    Array([0., 1., 2.], dtype=float32)
"""

from funcarray.io._api import load, load_metadata, save
from funcarray.io._gpt2 import load_gpt2

__all__ = ["save", "load", "load_metadata", "load_gpt2"]

"""``funcarray.nn``: neural-network functions in the style of ``jax.nn``.

Activations (``relu``, ``gelu``, ``silu``, ``softplus``...), normalisations (``softmax``,
``log_softmax``, ``logsumexp``, ``standardize``), ``one_hot`` and, in
``funcarray.nn.initializers``, weight initializers as pure functions of a random key. Every
function is built from ``funcarray.numpy`` operations, so it works eagerly and under
``grad``, ``vmap`` and ``jit``, with ``jax.nn``'s values and gradients at the edges.

Models, in the style of Equinox: ``Module`` (a frozen dataclass that is a pytree) and its
layers (``Linear``, ``MLP``, ``Sequential``, ``Embedding``, ``Conv1d``..., ``LayerNorm``,
``RMSNorm``, ``GroupNorm``, ``BatchNorm``, ``Dropout``, ``MultiHeadAttention``,
``GRUCell``, ``LSTMCell``, initialised as PyTorch's), the GPT-2 model ``GPT2``, the
transforms that sort a model's leaves (``filter_jit``, ``filter_grad``, ``filter_vmap``),
PyTorch-style parameter names (``named_parameters``, ``state_dict``, ``load_state_dict``,
``name_mask``) and ``tree_at`` for surgery. A layer takes one example; batches go through ``vmap``.

Example:
    >>> import funcarray as fa, funcarray.nn as nn, funcarray.numpy as fnp
    >>> nn.softmax(fnp.asarray([0.0, 0.0]))
    Array([0.5, 0.5], dtype=float32)
    >>> model = nn.MLP(2, 1, width_size=8, depth=2, key=fa.random.key(0))
    >>> fa.vmap(model)(fnp.ones((5, 2))).shape
    (5, 1)
"""

from funcarray.nn import initializers as initializers
from funcarray.nn._activations import *  # noqa: F403
from funcarray.nn._activations import __all__ as _activation_names
from funcarray.nn._attention import dot_product_attention as dot_product_attention
from funcarray.nn._batch_norm import BatchNorm as BatchNorm
from funcarray.nn._batch_norm import BatchNormState as BatchNormState
from funcarray.nn._convolution import Conv as Conv
from funcarray.nn._convolution import Conv1d as Conv1d
from funcarray.nn._convolution import Conv2d as Conv2d
from funcarray.nn._convolution import Conv3d as Conv3d
from funcarray.nn._convolution import ConvTranspose as ConvTranspose
from funcarray.nn._convolution import ConvTranspose1d as ConvTranspose1d
from funcarray.nn._convolution import ConvTranspose2d as ConvTranspose2d
from funcarray.nn._convolution import ConvTranspose3d as ConvTranspose3d
from funcarray.nn._dropout import Dropout as Dropout
from funcarray.nn._embedding import Embedding as Embedding
from funcarray.nn._filtered_transforms import filter_grad as filter_grad
from funcarray.nn._filtered_transforms import filter_jit as filter_jit
from funcarray.nn._filtered_transforms import filter_value_and_grad as filter_value_and_grad
from funcarray.nn._filtered_transforms import filter_vmap as filter_vmap
from funcarray.nn._functions import *  # noqa: F403
from funcarray.nn._functions import __all__ as _function_names
from funcarray.nn._gpt2 import GPT2 as GPT2
from funcarray.nn._gpt2 import GPT2Config as GPT2Config
from funcarray.nn._linear import Identity as Identity
from funcarray.nn._linear import Lambda as Lambda
from funcarray.nn._linear import Linear as Linear
from funcarray.nn._module import Module as Module
from funcarray.nn._module import field as field
from funcarray.nn._module import static_field as static_field
from funcarray.nn._multihead_attention import MultiHeadAttention as MultiHeadAttention
from funcarray.nn._multihead_attention import MultiheadAttention as MultiheadAttention
from funcarray.nn._normalization import GroupNorm as GroupNorm
from funcarray.nn._normalization import LayerNorm as LayerNorm
from funcarray.nn._normalization import RMSNorm as RMSNorm
from funcarray.nn._predicates import is_array as is_array
from funcarray.nn._predicates import is_inexact_array as is_inexact_array
from funcarray.nn._recurrent import GRUCell as GRUCell
from funcarray.nn._recurrent import LSTMCell as LSTMCell
from funcarray.nn._sequential import MLP as MLP
from funcarray.nn._sequential import Sequential as Sequential
from funcarray.nn._state_dict import load_state_dict as load_state_dict
from funcarray.nn._state_dict import name_mask as name_mask
from funcarray.nn._state_dict import named_parameters as named_parameters
from funcarray.nn._state_dict import state_dict as state_dict
from funcarray.nn._surgery import tree_at as tree_at

# Models (funcarray.nn.Module and its layers), with the helpers that handle them.
_MODULE_NAMES = [
    "Module", "field", "static_field", "is_array", "is_inexact_array", "filter_jit",
    "filter_grad", "filter_vmap", "filter_value_and_grad", "named_parameters", "state_dict",
    "load_state_dict", "name_mask", "tree_at", "Linear", "Identity", "Lambda", "Sequential",
    "MLP", "Embedding", "LayerNorm", "RMSNorm", "Dropout", "MultiHeadAttention",
    "MultiheadAttention", "Conv", "Conv1d", "Conv2d", "Conv3d", "ConvTranspose",
    "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d", "GroupNorm", "BatchNorm",
    "BatchNormState", "GRUCell", "LSTMCell", "GPT2", "GPT2Config",
]

__all__ = ["initializers", *_activation_names, *_function_names,
           "dot_product_attention", *_MODULE_NAMES]


def _install_api_boundaries():
    """Wrap every public function so that user-facing errors show the user's frames only."""
    from funcarray.base.errors import api_boundary
    namespace = globals()
    for name in __all__:
        value = namespace[name]
        if (callable(value) and not isinstance(value, type) and not hasattr(value, "__wrapped__")
                and not getattr(value, "_filters_own_errors", False)):
            namespace[name] = api_boundary(value)


_install_api_boundaries()

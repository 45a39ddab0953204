"""More of jax.lax's operations, gathered from ``_extras_*.py`` (this module's ``__all__`` is
re-exported by ``funcarray.lax``): shapes (``_extras_shape``: ``tile``, ``stack``, ``split``...),
small ops (``_extras_misc``: ``reduce_precision``, ``optimization_barrier``, ``mulhi``...),
convolution helpers (``_extras_conv``) and the general ``reduce`` (``_extras_reduce``)."""

from funcarray.lax import _extras_conv, _extras_misc, _extras_reduce, _extras_shape

_MODULES = (_extras_shape, _extras_misc, _extras_conv, _extras_reduce)

for _module in _MODULES:
    globals().update({name: getattr(_module, name) for name in _module.__all__})

__all__: list[str] = [name for m in _MODULES for name in m.__all__]

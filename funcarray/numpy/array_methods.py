"""Install Python operators and array methods on ``Array`` and ``Tracer``.

Both classes get the same methods, each a thin call into ``funcarray.numpy``, so user code
behaves identically whether a value is concrete or traced. This runs once at import, after
the namespace exists (the array classes sit below ``funcarray.numpy`` in the import graph and
cannot import it themselves).
"""

from __future__ import annotations

import numpy as np

import funcarray.numpy as fnp
from funcarray.api.placement import place
from funcarray.base.array import Array, DeviceArray
from funcarray.base.errors import filtered
from funcarray.primitives.eager_entry import entry_variant, general_path
from funcarray.transforms.core import Tracer

# Right-hand operands that an operator accepts; anything else returns NotImplemented so that
# Python can try the other operand's method (and then raise its usual TypeError).
# (Array last: its isinstance check is a Python-level call for anything but an exact Array,
# see array._ArrayMeta; exact Arrays and DeviceArrays are answered by the type checks.)
_OPERAND_TYPES = (float, int, Tracer, np.generic, np.ndarray, complex, DeviceArray, Array)


# Each operator calls the namespace function's unwrapped body and filters the traceback of a
# user-facing error itself (see _errors.api_boundary), so `x + y` with mismatched shapes shows
# the user's line and a single funcarray frame.

def _without_api_boundary(fn):
    """The plain function under ``api_boundary``'s wrapper or a ufunc object (operators filter
    errors themselves, and each layer costs a call); a host-shortcut operation is kept, as
    its shortcut is the point."""
    if hasattr(fn, "general_path"):
        return fn
    return getattr(fn, "__wrapped__", fn)


def _forward(fn):
    fn = _without_api_boundary(fn)
    # (an elementwise function's general path: the operator's own entry has just tried the
    # rest, see below)
    general = general_path(fn)

    def method(self, other):
        if type(other) is Array or isinstance(other, _OPERAND_TYPES):
            try:
                return general(self, other)
            except Exception as exc:
                raise filtered(exc) from exc.__cause__
        return NotImplemented
    # Two concrete arrays of one dtype (``x + y`` in eager code) run the primitive's kernel
    # in the operator's own frame, as ``fnp.add`` does (see ``eager_entry``).
    entry = entry_variant(fn, method, home=globals()) or method
    entry.__name__ = entry.__qualname__ = fn.__name__
    return entry


def _reflected(fn):
    fn = _without_api_boundary(fn)
    general = general_path(fn)

    def method(self, other):
        if isinstance(other, _OPERAND_TYPES):
            try:
                return general(other, self)
            except Exception as exc:
                raise filtered(exc) from exc.__cause__
        return NotImplemented
    # (``2.0 * x``: the kernel in the operator's own frame, as for ``x * 2.0``)
    entry = entry_variant(fn, method, home=globals(), reflected=True) or method
    entry.__name__ = entry.__qualname__ = "r" + fn.__name__
    return entry


_BINARY = {
    "add": "add", "sub": "subtract", "mul": "multiply", "truediv": "true_divide",
    "floordiv": "floor_divide", "mod": "remainder", "pow": "power", "matmul": "matmul",
    "and": "bitwise_and", "or": "bitwise_or", "xor": "bitwise_xor", "lshift": "left_shift",
    "rshift": "right_shift", "divmod": "divmod",
}
_COMPARISONS = {"eq": fnp.equal, "ne": fnp.not_equal, "lt": fnp.less, "le": fnp.less_equal,
                "gt": fnp.greater, "ge": fnp.greater_equal}
# (fnp.negative is a ufunc object: its plain function, as a method needs no ufunc layer)
_UNARY = {"neg": fnp.negative.__wrapped__, "pos": fnp.positive, "abs": fnp.absolute,
          "invert": fnp.bitwise_not}

# Methods that forward to the function of the same name, with the array first.
_METHODS = (
    "all", "any", "argmax", "argmin", "clip", "conj", "conjugate", "cumsum", "cumprod",
    "dot", "max", "mean", "min", "nonzero", "prod", "ravel", "repeat", "round", "squeeze",
    "std", "sum", "swapaxes", "take", "var", "argsort", "sort", "trace", "diagonal",
)


def _method(name):
    def method(self, *args, **kwargs):
        return getattr(fnp, name)(self, *args, **kwargs)
    method.__name__ = name
    method.__doc__ = f"Same as ``funcarray.numpy.{name}(self, ...)``."
    return method


def _reshape(self, *shape, order="C"):
    """``x.reshape(2, 3)`` or ``x.reshape((2, 3))``."""
    if len(shape) == 1 and not isinstance(shape[0], (int, np.integer)):
        shape = shape[0]
    return fnp.reshape(self, shape, order=order)


def _transpose(self, *axes):
    """``x.transpose()``, ``x.transpose(1, 0)`` or ``x.transpose((1, 0))``."""
    if len(axes) == 1 and not isinstance(axes[0], (int, np.integer)):
        axes = axes[0]
    return fnp.transpose(self, axes or None)


def _astype(self, dtype, copy=False, device=None):
    """``fnp.astype(self, dtype)``: float to int truncates and saturates, complex to bool is
    ``x != 0`` (as jax's method)."""
    return fnp.astype(self, dtype, copy=copy, device=device)


def _flatten(self, order="C"):
    return fnp.reshape(self, (-1,), order=order)


def _copy(self):
    return self  # immutable: a copy is the same value


_API_VERSIONS = ("2021.12", "2022.12", "2023.12", "2024.12")


def _array_namespace(self, *, api_version=None):
    """The Array API namespace of this array: ``funcarray.numpy``.

    ``api_version`` may name any standard version up to 2024.12 (the namespace conforms to
    the newest, which keeps the older ones' functions).

    Example:
        >>> import funcarray.numpy as fnp
        >>> fnp.ones(2).__array_namespace__() is fnp
        True
    """
    if api_version is not None and api_version not in _API_VERSIONS:
        raise ValueError(f"__array_namespace__: api_version={api_version!r} is not "
                         f"supported; funcarray.numpy implements the Array API versions "
                         f"{', '.join(_API_VERSIONS)} (pass one of them, or None)")
    return fnp


def _to_device(self, device, /, *, stream=None):
    """This array on ``device`` (the Array API's method; ``funcarray.device_put`` does the
    same for pytrees). ``stream`` must be None: funcarray orders transfers itself.

    Example:
        >>> import funcarray.numpy as fnp
        >>> x = fnp.ones(2)
        >>> x.to_device(x.device).device
        CpuDevice(id=0)
    """
    if stream is not None:
        raise ValueError(f"to_device: stream={stream!r} is not supported; leave it None "
                         f"(funcarray orders device transfers itself)")
    return place("to_device", self, device)


def _namespace_function(fn_name, what):
    """``funcarray.numpy.<fn_name>``; an ImportError naming ``what`` (the operator or method
    that forwards to it) if it is missing, so a deleted function breaks the import instead of
    leaving ``Array`` without the operator."""
    fn = getattr(fnp, fn_name, None)
    if fn is None:
        raise ImportError(f"funcarray: {what} forwards to funcarray.numpy.{fn_name}, which "
                          "does not exist")
    return fn


def install(cls):
    for name, fn_name in _BINARY.items():
        fn = _namespace_function(fn_name, f"the operator __{name}__")
        setattr(cls, f"__{name}__", _forward(fn))
        setattr(cls, f"__r{name}__", _reflected(fn))
    for name, fn in _COMPARISONS.items():
        setattr(cls, f"__{name}__", _forward(fn))
    for name, fn in _UNARY.items():
        setattr(cls, f"__{name}__", fn)
    for name in _METHODS:
        _namespace_function(name, f"the method {cls.__name__}.{name}")
        setattr(cls, name, _method(name))
    cls.reshape = _reshape
    cls.transpose = _transpose
    cls.astype = _astype
    cls.flatten = _flatten
    cls.copy = _copy
    cls.__array_namespace__ = _array_namespace
    cls.to_device = _to_device
    cls.__getitem__ = lambda self, idx: fnp.getitem(self, idx)
    cls.T = property(lambda self: fnp.transpose(self))
    cls.mT = property(lambda self: fnp.matrix_transpose(self))
    cls.real = property(fnp.real)
    cls.imag = property(fnp.imag)
    cls.at = property(lambda self: fnp.IndexUpdateHelper(self))
    cls.__round__ = lambda self, ndigits=None: (
        fnp.round(self, ndigits or 0) if ndigits is not None else round(self.item()))


install(Array)
install(Tracer)
# A traced value has no placement until the transformed function returns: its device is None
# (the Array API's "wherever the computation runs"), so that code written against the
# standard (``xp.zeros(n, device=x.device)``) also runs under jit, grad and vmap.
Tracer.device = property(lambda self: None)

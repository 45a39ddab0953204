"""Running funcarray and jax on the same operands and comparing what comes out, shared by the
differential tests against jax (elementwise functions, reductions).

An implementation's answer is either its outputs as ``(NumPy array, weak_type)`` pairs or a
``Raised`` holding the exception: raising is part of the behaviour compared.

Example:
    >>> import funcarray.numpy as fnp
    >>> attempt(lambda: fnp.sum(fnp.ones(3)), multiple=False)[0][0].tolist()
    3.0
    >>> attempt(lambda: fnp.argmax(fnp.ones(0)), multiple=False)  # doctest: +ELLIPSIS
    raised ValueError: ...
"""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np

from funcarray import dtypes

__all__ = ["BITS_64", "Case", "DEFAULT_32", "Raised", "attempt", "outputs", "parts",
           "reproducer", "same_kind_of_answer", "subnormal"]

BITS_64 = frozenset({dtypes.int64, dtypes.uint64, dtypes.float64, dtypes.complex128})
# jax's and funcarray's Python scalar defaults without x64 (funcarray's always).
DEFAULT_32 = {dtypes.float64: dtypes.float32, dtypes.int64: dtypes.int32,
              dtypes.complex128: dtypes.complex64}


@dataclasses.dataclass(frozen=True)
class Case:
    """One call's operand (a NumPy array or a Python scalar; None for functions that take
    none) and keyword arguments, printed as a reproducer."""

    operand: object
    kwargs: dict

    @property
    def array(self) -> np.ndarray:
        return np.asarray(self.operand)

    def __repr__(self):
        return f"({reproducer(self.operand)}, **{self.kwargs!r})"


def reproducer(value) -> str:
    """``value`` (an operand: a NumPy array, a list or tuple of them, a Python scalar) as
    Python source that rebuilds it, for failure messages.

    Example:
        >>> reproducer([np.array([1, 2], np.int8), 2.5])
        "[np.array([1, 2], 'int8'), 2.5]"
    """
    if isinstance(value, np.ndarray):
        return f"np.array({value.tolist()!r}, {value.dtype.name!r})"
    if isinstance(value, (list, tuple)):
        inner = ", ".join(map(reproducer, value))
        return f"[{inner}]" if isinstance(value, list) else f"({inner},)"
    return repr(value)


class Raised:
    """An implementation raised: the exception, kept for the failure message."""

    def __init__(self, exc):
        self.exc = exc

    def __repr__(self):
        return f"raised {type(self.exc).__name__}: {self.exc}"


def outputs(out, multiple):
    outs = out if multiple else (out,)
    return [(np.asarray(o), bool(o.weak_type)) for o in outs]


def attempt(call, multiple):
    """``call()``'s outputs (a tuple of them when ``multiple``), or ``Raised``."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # NumPy's and jax's own warnings (overflow, casts)
            return outputs(call(), multiple)
    except Exception as exc:  # noqa: BLE001 (any exception is compared with the others')
        return Raised(exc)


def subnormal(x, dtype):
    """Elements of ``x`` (a real NumPy array) subnormal in the precision XLA computes
    ``dtype`` in (float16 and bfloat16 in float32, whose subnormals only bfloat16 reaches)."""
    real = np.float64 if np.dtype(dtype) in BITS_64 else np.float32
    wide = np.abs(np.asarray(x, np.float64))
    return (wide > 0) & (wide < float(np.finfo(real).tiny))


def parts(x):
    """The real and imaginary parts of a complex array, or the real array alone."""
    return (x.real, x.imag) if np.iscomplexobj(x) else (x,)


def same_kind_of_answer(where: str, got, want) -> bool:
    """Assert that funcarray's answer ``got`` and jax's ``want`` (``attempt``'s) both
    raised, or that neither did and their outputs agree in number, shape, dtype and weak
    type. True when there are values to compare."""
    if isinstance(want, Raised) or isinstance(got, Raised):
        assert isinstance(want, Raised) and isinstance(got, Raised), (
            f"{where}: {got!r}, jax {want!r}")
        return False
    assert len(got) == len(want), f"{where}: {len(got)} outputs, jax {len(want)}"
    for k, ((g, g_weak), (w, w_weak)) in enumerate(zip(got, want)):
        assert g.shape == w.shape, f"{where}, output {k}: shape {g.shape}, jax {w.shape}"
        assert g.dtype == w.dtype, f"{where}, output {k}: dtype {g.dtype}, jax {w.dtype}"
        assert g_weak == w_weak, f"{where}, output {k}: weak_type {g_weak}, jax {w_weak}"
    return True

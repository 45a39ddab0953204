"""Eager kernels that run a primitive's native CPU lowering (LAPACK through jaxlib).

NumPy has no Schur decomposition and no column-pivoted QR. Rather than a second algorithm in
NumPy (whose Schur form would differ from LAPACK's: the order of the eigenvalues on the
diagonal and the vectors' phases depend on the algorithm), the eager kernels of these
primitives compile their one-equation IR for the CPU device, where the lowering emits jaxlib's
LAPACK custom call (``gees``, ``geqp3``...), and run it on the NumPy operands. Eager results
are then bit for bit jit's on CPU and JAX's, whatever the platform selected for jit (the
kernel always runs on the host). The first call per signature imports jax and compiles
(tens of milliseconds); later calls reuse the executable (``lowering/cache.py``). The run
goes through ``lowering/executor.execute_ir_numpy``, as every IR run on a device goes through
the executor.

``lower_native_or_host`` is the matching lowering: the native kernel where the platform has
one, otherwise a host callback into the eager kernel (CPU and GPU), otherwise (a
backend-neutral lowering) a NotImplementedError naming the operation.

Example:
    >>> import funcarray.numpy as fnp
    >>> from funcarray.primitives.schur import schur_p
    >>> t, z = schur_p.bind(fnp.asarray([[1.0, 2.0], [0.0, 3.0]]), compute_schur_vectors=True)
    >>> t
    Array([[1., 2.],
           [0., 3.]], dtype=float32)
"""

from __future__ import annotations

import functools
import threading

import numpy as np

from funcarray.lowering import executor, runtime
from funcarray.primitives.callbacks import HostCallback, lower_host_callback
from funcarray.transforms.core import ShapedArray
from funcarray.transforms.ir import IR, Eqn, Var

__all__ = ["native_cpu_kernel", "lower_native_or_host"]


# Set while an eager kernel lowers its primitive: a CPU without the native kernel must then fail
# instead of calling the eager kernel back (which would lower the same module again).
_eager = threading.local()


@functools.lru_cache(maxsize=256)
def _one_equation_ir(prim, avals: tuple, params: tuple) -> IR:
    ins = tuple(Var(a) for a in avals)
    out_avals = prim.abstract_eval(*avals, **dict(params))
    outs = tuple(Var(a) for a in (out_avals if prim.multiple_results else [out_avals]))
    return IR((), ins, (Eqn(prim, ins, dict(params), outs),), outs)


def native_cpu_kernel(prim):
    """An eager kernel (NumPy values in, a list of NumPy values out) that runs ``prim``'s
    lowering on the CPU device: its native LAPACK call."""
    def kernel(*values, **params):
        values = [np.asarray(v) for v in values]
        avals = tuple(ShapedArray(v.shape, v.dtype) for v in values)
        ir = _one_equation_ir(prim, avals, tuple(sorted(params.items())))
        _eager.lowering = True  # (only compiling reads it; the run lowers nothing)
        try:
            return executor.execute_ir_numpy(ir, values, runtime.default_device_for("cpu"))
        finally:
            _eager.lowering = False

    kernel.__name__ = f"{prim.name}_kernel"
    return kernel


@functools.lru_cache(maxsize=256)
def _host_callback(prim, avals: tuple, params: tuple) -> HostCallback:
    """One callback per signature (the executable cache keys on the callback object)."""
    kw = dict(params)
    out_avals = prim.abstract_eval(*avals, **kw)
    return HostCallback(lambda *xs: prim.kernel(*xs, **kw), tuple(out_avals), prim.name)


def lower_native_or_host(ctx, prim, operands, params: dict, native, emit_native) -> list:
    """Lower ``prim``: ``emit_native(ctx, native)`` when ``native`` (the platform's kernel
    from ``runtime.native_linalg``) is not None, else a host callback into the eager kernel
    where the platform has one, else NotImplementedError (StableHLO has no such operation)."""
    if native is not None:
        return emit_native(ctx, native)
    if getattr(_eager, "lowering", False):
        raise NotImplementedError(
            f"{prim.name}: this jaxlib has no native CPU kernel for {ctx.avals_in[0]}, which "
            f"funcarray's eager {prim.name} runs")
    if runtime.host_callback_target(ctx.platform) is None:
        raise NotImplementedError(
            f"{prim.name} has no StableHLO operation and no native kernel for platform "
            f"{ctx.platform!r}; compute it eagerly (outside jit) or on CPU")
    callback = _host_callback(prim, tuple(ctx.avals_in), tuple(sorted(params.items())))
    return lower_host_callback(ctx, *operands, callback=callback, side_effect=False)

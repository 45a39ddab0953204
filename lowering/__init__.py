"""funcarray.lowering: funcarray IR -> StableHLO text -> compiled XLA executables.

This package is the only place that talks to jaxlib; it is imported lazily, on the first jit
or device transfer, so eager CPU work never loads jax.
"""

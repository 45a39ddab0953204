"""funcarray.lowering: funcarray IR -> StableHLO text -> compiled XLA executables.

This package is the only place that talks to jaxlib; it is imported lazily, on the first jit
or device transfer, so eager CPU work never loads jax.
"""

from funcarray.base.array import register_deferred_error_handler
from funcarray.lowering.runtime import raise_deferred_error

# An error a computation reports late (when a device array is read) surfaces as the runtime
# translates it; the Array type sits below this package and cannot import it.
register_deferred_error_handler(raise_deferred_error)

"""funcarray: a JAX-style functional array library with a NumPy-speed eager mode.

Example:
    >>> import funcarray as fa
    >>> import funcarray.numpy as fnp
    >>> x = fnp.arange(3.0)
    >>> (x * 2 + 1).tolist()
    [1.0, 3.0, 5.0]
"""

import typing as _typing
import warnings as _warnings

# The eager kernels follow XLA, where log(0) = -inf and 0/0 = nan silently; NumPy would warn
# from inside the kernels. Ignoring those warnings by module (instead of np.errstate around
# every call, which costs ~3 µs) keeps eager ops fast and leaves the user's NumPy state alone.
_warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"funcarray\.")

from funcarray import debug as debug  # noqa: E402
from funcarray import dtypes as dtypes  # noqa: E402
from funcarray import errors as errors  # noqa: E402
from funcarray import numpy as numpy  # noqa: E402
from funcarray import tree as tree  # noqa: E402
from funcarray import tree_util as tree_util  # noqa: E402
from funcarray.ad_checkpoint import checkpoint as checkpoint  # noqa: E402
from funcarray.ad_checkpoint import checkpoint_policies as checkpoint_policies  # noqa: E402
from funcarray.ad_checkpoint import remat as remat  # noqa: E402
from funcarray.api.autodiff import grad as grad  # noqa: E402
from funcarray.api.autodiff import hessian as hessian  # noqa: E402
from funcarray.api.autodiff import jacfwd as jacfwd  # noqa: E402
from funcarray.api.autodiff import jacrev as jacobian  # noqa: E402,F401  (JAX's alias)
from funcarray.api.autodiff import jacrev as jacrev  # noqa: E402
from funcarray.api.autodiff import jvp as jvp  # noqa: E402
from funcarray.api.autodiff import linearize as linearize  # noqa: E402
from funcarray.api.autodiff import stop_gradient as stop_gradient  # noqa: E402
from funcarray.api.autodiff import value_and_grad as value_and_grad  # noqa: E402
from funcarray.api.autodiff import vjp as vjp  # noqa: E402
from funcarray.api.callbacks import pure_callback as pure_callback  # noqa: E402
from funcarray.api.closure_conversion import closure_convert as closure_convert  # noqa: E402
from funcarray.api.closure_conversion import custom_gradient as custom_gradient  # noqa: E402
from funcarray.api.closure_conversion import (  # noqa: E402
    ensure_compile_time_eval as ensure_compile_time_eval,
)
from funcarray.api.closure_conversion import named_call as named_call  # noqa: E402
from funcarray.api.custom_derivatives import custom_jvp as custom_jvp  # noqa: E402
from funcarray.api.custom_derivatives import custom_vjp as custom_vjp  # noqa: E402
from funcarray.api.debug_nans import debug_infs as debug_infs  # noqa: E402
from funcarray.api.debug_nans import debug_nans as debug_nans  # noqa: E402
from funcarray.api.jit import clear_caches as clear_caches  # noqa: E402
from funcarray.api.jit import disable_jit as disable_jit  # noqa: E402
from funcarray.api.jit import jit as jit  # noqa: E402
from funcarray.api.linear_transpose import linear_transpose as linear_transpose  # noqa: E402
from funcarray.api.multi_process import (  # noqa: E402
    make_array_from_process_local_data as make_array_from_process_local_data,
)
from funcarray.api.shape_evaluation import ShapeDtypeStruct as ShapeDtypeStruct  # noqa: E402
from funcarray.api.shape_evaluation import eval_shape as eval_shape  # noqa: E402
from funcarray.api.shape_evaluation import make_jaxpr as make_jaxpr  # noqa: E402
from funcarray.api.shape_evaluation import typeof as typeof  # noqa: E402
from funcarray.api.shard_map import shard_map as shard_map  # noqa: E402
from funcarray.api.sharded_arrays import (  # noqa: E402
    make_array_from_callback as make_array_from_callback,
)
from funcarray.api.sharded_arrays import (  # noqa: E402
    make_array_from_single_device_arrays as make_array_from_single_device_arrays,
)
from funcarray.api.sharded_arrays import make_mesh as make_mesh  # noqa: E402
from funcarray.api.transfers import block_until_ready as block_until_ready  # noqa: E402
from funcarray.api.transfers import device_get as device_get  # noqa: E402
from funcarray.api.transfers import device_put as device_put  # noqa: E402
from funcarray.api.vectorization import vmap as vmap  # noqa: E402
from funcarray.base.array import Array as Array  # noqa: E402
from funcarray.base.array import Device as Device  # noqa: E402
from funcarray.base.config import config as config  # noqa: E402
from funcarray.base.mesh import PartitionSpec as P  # noqa: E402,F401  (JAX's alias)
from funcarray.base.mesh import set_mesh as set_mesh  # noqa: E402
from funcarray.lowering.devices import default_backend as default_backend  # noqa: E402
from funcarray.lowering.devices import device_count as device_count  # noqa: E402
from funcarray.lowering.devices import devices as devices  # noqa: E402
from funcarray.lowering.devices import local_device_count as local_device_count  # noqa: E402
from funcarray.lowering.devices import local_devices as local_devices  # noqa: E402
from funcarray.lowering.devices import process_count as process_count  # noqa: E402
from funcarray.lowering.devices import process_index as process_index  # noqa: E402
from funcarray.numpy import array_methods as _operators  # noqa: E402,F401  (installs Array/Tracer operators)
from funcarray.numpy import asarray as asarray  # noqa: E402
from funcarray.primitives import _transform_support  # noqa: E402,F401  (for the transforms)
from funcarray.transforms.staging import make_ir as make_ir  # noqa: E402

# The one place the version is written (pyproject.toml reads it; CHANGELOG.md says what changed).
__version__ = "0.2.0"


# Subpackages beyond the core load on first use (`fa.random`, `import funcarray.lax`), so that
# `import funcarray` costs little more than `import numpy`.
_LAZY_SUBPACKAGES = frozenset({"distributed", "io", "lax", "nn", "optim", "random", "scipy",
                               "sharding", "test_util", "typing"})

if _typing.TYPE_CHECKING:
    # What the lazy attributes hold, for type checkers (which do not run __getattr__).
    from funcarray import distributed as distributed
    from funcarray import io as io
    from funcarray import lax as lax
    from funcarray import nn as nn
    from funcarray import optim as optim
    from funcarray import random as random
    from funcarray import scipy as scipy
    from funcarray import sharding as sharding
    from funcarray import test_util as test_util
    from funcarray import typing as typing


if not _typing.TYPE_CHECKING:  # (hidden from type checkers, so `fa.grd` is an error there)
    def __getattr__(name):
        if name in _LAZY_SUBPACKAGES:
            import importlib

            module = importlib.import_module(f"funcarray.{name}")
            globals()[name] = module
            return module
        raise AttributeError(f"module 'funcarray' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | _LAZY_SUBPACKAGES)

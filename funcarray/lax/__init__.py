"""``funcarray.lax``: structured control flow and jax.lax's operations (JAX's ``jax.lax``).

The control flow (``cond``, ``scan``, ``while_loop``, ``platform_dependent``...) is in
``_branches.py`` and ``_control_flow.py``. The operations are thin validated wrappers over
funcarray's primitives, with jax.lax's strict dtype and shape rules (the shared checks are in
``_ops_common.py``):
``_ops_unary.py`` (``neg``, ``exp``..., conversions), ``_ops_binary.py`` (``add``, ``eq``,
``select``...), ``_ops_shape.py`` (``reshape``, ``pad``, ``iota``...), ``_ops_slicing.py``
(``slice``, ``dynamic_slice``, ``gather``, ``scatter``...), ``_ops_reduce.py``
(``reduce_sum``, ``cumsum``, ``sort``...), ``_ops_dot.py`` (``dot_general``...) and
``_collectives.py`` (``psum``, ``all_gather``... over named vmap axes);
``_linear_solve.py`` has ``custom_linear_solve`` and ``custom_root``, ``_conv.py`` the
convolutions, ``_windowed.py`` ``reduce_window`` (pooling); ``_ragged.py`` the grouped
products, ``_rng.py`` XLA's bit generators, ``_dot_algorithms.py`` the dot algorithms and
precision types, ``_utilities.py`` (utilities and tokens), ``_conv_shapes.py`` (patches and
shape tuples of convolutions) and ``_reduce_general.py`` (``reduce`` with any computation).

Example:
    >>> import funcarray.numpy as fnp
    >>> from funcarray import lax
    >>> lax.fori_loop(0, 4, lambda i, total: total + i, 0)
    Array(6, dtype=int32)
"""

import importlib as _importlib
import typing as _typing

# The control flow and the modules of jax.lax's operations, whose ``__all__`` this package
# re-exports. They load on first use of a name (module ``__getattr__``): funcarray.numpy
# imports a few of lax's modules at start-up, and importing one of them must not load the
# rest (interpreter start-up stays within 2x NumPy's: bench/bench_startup.py).
_CONTROL_FLOW = {
    "cond": "_branches", "switch": "_branches", "associative_scan": "_control_flow",
    "fori_loop": "_control_flow", "map": "_control_flow", "scan": "_control_flow",
    "select_n": "_control_flow", "while_loop": "_control_flow",
    "platform_dependent": "_branches",
}
_TYPE_ALIASES = ("PrecisionLike", "DotDimensionNumbers", "ConvGeneralDilatedDimensionNumbers")
_OP_MODULES = ("_ops_slicing", "_ops_unary", "_ops_binary", "_ops_shape", "_ops_reduce",
               "_ops_dot", "_collectives", "_linear_solve", "_conv", "_windowed", "_fft",
               "_special", "_composed_shape_ops", "_conv_shapes", "_reduce_general",
               "_ragged", "_dot_algorithms", "_rng", "_utilities")
_namespace: dict | None = None


def _load_namespace() -> dict:
    """Every public name of the package, its functions wrapped so that user-facing errors
    show the user's frames only (the unwrapped ones in the modules keep their doctests)."""
    global _namespace
    if _namespace is None:
        from funcarray.api.autodiff import stop_gradient
        from funcarray.base.errors import api_boundary

        names = {"stop_gradient": stop_gradient,
                 "linalg": _importlib.import_module("funcarray.lax.linalg")}
        for name, module in _CONTROL_FLOW.items():
            names[name] = getattr(_importlib.import_module(f"funcarray.lax.{module}"), name)
        # A plain function, not a staged one: its errors show the user's frames only, as the
        # operations' do.
        names["platform_dependent"] = api_boundary(names["platform_dependent"])
        algorithms = _importlib.import_module("funcarray.lax._dot_algorithms")
        names.update((alias, getattr(algorithms, alias)) for alias in _TYPE_ALIASES)
        for module_name in _OP_MODULES:
            module = _importlib.import_module(f"funcarray.lax.{module_name}")
            for name in module.__all__:
                value = getattr(module, name)
                names[name] = value if isinstance(value, type) else api_boundary(value)
        names["__all__"] = ["cond", "switch", "while_loop", "fori_loop", "scan", "map",
                            "associative_scan", "select_n", "platform_dependent", "stop_gradient",
                            *(name for module in _OP_MODULES for name in
                              _importlib.import_module(f"funcarray.lax.{module}").__all__),
                            *_TYPE_ALIASES]
        globals().update(names)
        _namespace = names
    return _namespace


def __getattr__(name: str):
    namespace = _load_namespace()
    try:
        return namespace[name]
    except KeyError:
        raise AttributeError(f"module 'funcarray.lax' has no attribute {name!r}") from None


def __dir__() -> list:
    return sorted(set(globals()) | set(_load_namespace()))


if _typing.TYPE_CHECKING:
    # The names ``__getattr__`` provides, for type checkers (which do not run it).
    from funcarray.api.autodiff import stop_gradient as stop_gradient
    from funcarray.lax import linalg as linalg
    from funcarray.lax._branches import cond as cond
    from funcarray.lax._branches import platform_dependent as platform_dependent
    from funcarray.lax._branches import switch as switch
    from funcarray.lax._collectives import *  # noqa: F403
    from funcarray.lax._composed_shape_ops import *  # noqa: F403
    from funcarray.lax._control_flow import associative_scan as associative_scan
    from funcarray.lax._control_flow import fori_loop as fori_loop
    from funcarray.lax._control_flow import map as map  # noqa: A004 (JAX's name)
    from funcarray.lax._control_flow import scan as scan
    from funcarray.lax._control_flow import select_n as select_n
    from funcarray.lax._control_flow import while_loop as while_loop
    from funcarray.lax._conv import *  # noqa: F403
    from funcarray.lax._conv_shapes import *  # noqa: F403
    from funcarray.lax._dot_algorithms import *  # noqa: F403
    from funcarray.lax._fft import *  # noqa: F403
    from funcarray.lax._linear_solve import *  # noqa: F403
    from funcarray.lax._ops_binary import *  # noqa: F403
    from funcarray.lax._ops_dot import *  # noqa: F403
    from funcarray.lax._ops_reduce import *  # noqa: F403
    from funcarray.lax._ops_shape import *  # noqa: F403
    from funcarray.lax._ops_slicing import *  # noqa: F403
    from funcarray.lax._ops_unary import *  # noqa: F403
    from funcarray.lax._ragged import *  # noqa: F403
    from funcarray.lax._reduce_general import *  # noqa: F403
    from funcarray.lax._rng import *  # noqa: F403
    from funcarray.lax._special import *  # noqa: F403
    from funcarray.lax._utilities import *  # noqa: F403
    from funcarray.lax._windowed import *  # noqa: F403


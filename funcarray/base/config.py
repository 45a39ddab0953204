"""funcarray's settings: one object, ``funcarray.config``, read by the compiled path.

Each setting has a default, can be set from the environment when funcarray is imported
(``FUNCARRAY_<NAME>`` in upper case), and changed at run time with ``config.update(name,
value)`` (or as an attribute).

Settings:
    platform: the PJRT platform jit compiles for ("cpu", "cuda", "rocm", "tpu"...); empty:
        jax's default (a GPU when one is found).
    disable_jit: run jitted functions eagerly, line by line (see ``funcarray.disable_jit``).
    explain_cache_misses: log (logger ``funcarray.jit``, level WARNING) why each jit cache
        miss recompiled: which argument changed, from what to what.
    compilation_cache_dir: a directory for the persistent executable cache (empty: off).
    persistent_cache_min_compile_time_secs: only executables that took at least this long
        to compile are written to the persistent cache.
    eager_backend: "numpy" (eager ops run NumPy kernels), "xla" (each eager op runs as a
        cached single-op XLA executable: on the CPU this reproduces jit's numerics op by op;
        on an accelerator arrays stay on the device) or "auto" (the default: NumPy until an
        array is placed on an accelerator, XLA from then on).
    debug_nans: raise ``FloatingPointError`` at the first operation that produces a NaN (eager
        ops are checked as they run; a jitted call that returns a NaN is re-run eagerly to
        find the operation). Slow: for debugging (see ``funcarray.debug_nans``).
    debug_infs: the same for infinities (and NaN).
    eager_shortcuts: with NumPy kernels, let whole eager operations (indexing, reductions,
        reshapes...) take their host shortcut (``transforms/host_shortcuts.py``): the same
        results and errors as the general path, faster. Off, every operation takes the general
        path, primitive by primitive (for debugging a suspected shortcut).
    eager_buffer_pool_bytes: how much memory eager kernels may keep for recycling large
        outputs (per-example gradients: ``primitives/_buffers.py``); 0 turns it off.
    check_index_bounds: raise NumPy's IndexError, at the user's line, for an out-of-bounds
        index of ``x[idx]`` and ``x.at[idx]`` (default ``mode`` or "promise_in_bounds")
        instead of clamping reads and dropping updates as JAX does. It checks every index
        whose value is known: static ints (eagerly and under jit, at trace time) and concrete
        index arrays; a traced index under jit cannot raise and keeps JAX's semantics. A
        debugging aid (jax's ``jax_check_static_indices`` checks static ints only); changing
        it empties the compilation caches.

Example:
    >>> from funcarray import config
    >>> config.update("explain_cache_misses", True)
    >>> config.explain_cache_misses
    True
    >>> config.update("explain_cache_misses", False)
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

__all__ = ["Config", "config"]

_DEFAULTS = {
    "platform": "",
    "disable_jit": False,
    "explain_cache_misses": False,
    "compilation_cache_dir": "",
    "persistent_cache_min_compile_time_secs": 1.0,
    "eager_backend": "auto",
    "eager_buffer_pool_bytes": 1 << 30,
    "eager_shortcuts": True,
    "debug_nans": False,
    "debug_infs": False,
    "check_index_bounds": False,
}
# Settings that take one of a few strings.
_CHOICES = {"eager_backend": ("auto", "numpy", "xla")}
# Settings under which jit's dispatch fast path must not run (it skips every check).
_SLOW_DISPATCH_SETTINGS = ("disable_jit", "debug_nans", "debug_infs")


def _parse(name: str, text: str):
    kind = type(_DEFAULTS[name])
    if kind is bool:
        if text.strip().lower() in ("1", "true", "yes", "on"):
            return True
        if text.strip().lower() in ("0", "false", "no", "off", ""):
            return False
        raise ValueError(f"FUNCARRAY_{name.upper()}={text!r}: expected 1/0, true/false")
    return kind(text)


def _check(name: str, value) -> None:
    if name == "eager_buffer_pool_bytes" and value < 0:
        raise ValueError(f"funcarray.config.eager_buffer_pool_bytes must be >= 0, got "
                         f"{value}")
    choices = _CHOICES.get(name)
    if choices is not None and value not in choices:
        raise ValueError(f"funcarray.config.{name} must be "
                         f"{', '.join(map(repr, choices[:-1]))} or {choices[-1]!r}, got "
                         f"{value!r}")


class Config:
    """The settings object (``funcarray.config``); see the module docstring."""

    # The settings (set in __init__ from _DEFAULTS and the environment), for type checkers.
    platform: str
    disable_jit: bool
    explain_cache_misses: bool
    compilation_cache_dir: str
    persistent_cache_min_compile_time_secs: float
    eager_backend: str
    eager_buffer_pool_bytes: int
    eager_shortcuts: bool
    debug_nans: bool
    debug_infs: bool
    check_index_bounds: bool
    _fast_dispatch: bool

    def __init__(self) -> None:
        object.__setattr__(self, "_subscribers", [])
        for name, default in _DEFAULTS.items():
            text = os.environ.get(f"FUNCARRAY_{name.upper()}")
            value = default if text is None else _parse(name, text)
            _check(name, value)
            object.__setattr__(self, name, value)
        self._derive()

    def subscribe(self, names, callback, *, now: bool = True) -> Callable[[], None]:
        """Call ``callback(name, value)`` after each change of a setting in ``names``, and,
        with ``now``, once at once for each (so the subscriber starts from the current
        values). The modules that react to a setting subscribe; the settings import none of
        them. Returns a function that ends the subscription.

        Example:
            >>> from funcarray import config
            >>> seen = []
            >>> stop = config.subscribe(("explain_cache_misses",), lambda n, v: seen.append(v))
            >>> config.update("explain_cache_misses", True)
            >>> config.update("explain_cache_misses", False)
            >>> stop()
            >>> config.update("explain_cache_misses", True)
            >>> config.update("explain_cache_misses", False)
            >>> seen
            [False, True, False]
        """
        names = tuple(names)
        unknown = [n for n in names if n not in _DEFAULTS]
        if unknown:
            raise AttributeError(f"funcarray.config has no setting {unknown[0]!r}")
        entry = (names, callback)
        self._subscribers.append(entry)
        for name in names if now else ():
            callback(name, getattr(self, name))

        def unsubscribe() -> None:
            if entry in self._subscribers:
                self._subscribers.remove(entry)
        return unsubscribe

    def _derive(self) -> None:
        # One attribute for jit's hot path to read (see funcarray.api.jit._dispatcher).
        object.__setattr__(self, "_fast_dispatch",
                           not any(getattr(self, n) for n in _SLOW_DISPATCH_SETTINGS))

    def update(self, name: str, value: Any) -> None:
        """Set ``name`` to ``value`` (checked against the setting's type)."""
        setattr(self, name, value)

    def __setattr__(self, name: str, value: Any) -> None:
        if name not in _DEFAULTS:
            raise AttributeError(f"funcarray.config has no setting {name!r}; the settings "
                                 f"are {sorted(_DEFAULTS)}")
        kind = type(_DEFAULTS[name])
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if not isinstance(value, kind):
            raise TypeError(f"funcarray.config.{name} takes a {kind.__name__}, got "
                            f"{type(value).__name__} {value!r}")
        _check(name, value)
        object.__setattr__(self, name, value)
        self._derive()
        for names, callback in tuple(self._subscribers):  # (a callback may unsubscribe)
            if name in names:
                callback(name, value)

    def values(self) -> dict[str, Any]:
        """Every setting and its current value."""
        return {name: getattr(self, name) for name in _DEFAULTS}

    def __repr__(self):
        return f"funcarray.config({self.values()})"


config = Config()

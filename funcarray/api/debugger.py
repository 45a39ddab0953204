"""``funcarray.debug.breakpoint``: stop in a debugger with the user's frames and their local
variables holding concrete values, eagerly and inside ``jit``, ``vmap`` and ``grad``, as
``jax.debug.breakpoint``.

At the call the Python stack is captured (funcarray's own frames left out); the tracers
among the frames' local variables become the operands of a debug callback, so when the
computation runs the callback gets their values and opens the debugger on frames rebuilt
with them. Under ``vmap`` it stops once per batch member (the
debug callback's rule), under ``grad`` it shows primal values. The debugger is JAX's
command-line one (``jdb``): ``p expr``, ``pp expr``, ``u``/``d`` (up and down the frames),
``l`` (the source around the line), ``w`` (the frames), ``c`` (continue), ``q`` (quit),
in ``api/debugger_cli.py`` (imported at the first stop: ``cmd`` and ``pprint`` are not part
of every program's start-up).

Example:
    >>> import io
    >>> import funcarray as fa, funcarray.numpy as fnp
    >>> shown = io.StringIO()
    >>> @fa.jit
    ... def f(x):
    ...     y = x * 2
    ...     fa.debug.breakpoint(stdin=io.StringIO("p y\\nc\\n"), stdout=shown)
    ...     return y
    >>> _ = f(fnp.arange(3.0))
    >>> shown.getvalue().splitlines()
    ['Entering jdb:', '(jdb) Array([0., 2., 4.], dtype=float32)', '(jdb) ']
"""

from __future__ import annotations

import linecache
import os
import sys
from dataclasses import dataclass

from funcarray.base import pytrees as fa_tree
from funcarray.base.array import Array
from funcarray.transforms.core import Tracer

__all__ = ["DebuggerFrame", "capture_frames", "frames_as_operands"]

# The package's folders (funcarray/, and transforms/ and lowering/ beside it in a source
# checkout): frames there are funcarray's own, left out with filter_frames.
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_INTERNAL = tuple(os.path.join(root, "") for root in (
    _PACKAGE, os.path.join(os.path.dirname(_PACKAGE), "transforms"),
    os.path.join(os.path.dirname(_PACKAGE), "lowering")))


@dataclass
class DebuggerFrame:
    """One Python frame as the debugger shows it: its file, line and local variables."""

    filename: str
    lineno: int
    locals: dict
    globals: dict

    def source_line(self, lineno: int) -> str:
        return linecache.getline(self.filename, lineno).rstrip("\n")


def capture_frames(filter_frames: bool = True, num_frames: int | None = None,
                   skip: int = 1) -> list:
    """The caller's frames, innermost first (``skip`` frames above this call left out),
    without funcarray's own with ``filter_frames``, at most ``num_frames``."""
    frame = sys._getframe(skip + 1)
    frames = []
    while frame is not None:
        if not (filter_frames and frame.f_code.co_filename.startswith(_INTERNAL)):
            frames.append(DebuggerFrame(frame.f_code.co_filename, frame.f_lineno,
                                        dict(frame.f_locals), frame.f_globals))
        frame = frame.f_back
    return frames if num_frames is None else frames[:num_frames]


def frames_as_operands(frames: list):
    """``(operands, rebuild)``: the tracers among the frames' local variables (pytree
    leaves), and ``rebuild(*values)``, the frames with those values
    (NumPy arrays, as a callback receives them) in their places as funcarray Arrays."""
    operands, places = [], []  # places: (frame index, name, treedef, leaves, array positions)
    for k, frame in enumerate(frames):
        for name, value in frame.locals.items():
            try:
                leaves, treedef = fa_tree.flatten(value)
            except Exception:  # noqa: BLE001 (a value optree cannot walk stays as it is)
                continue
            # (only tracers: a concrete array already shows its value, and as an operand it
            # would be copied into the compiled code)
            positions = [i for i, x in enumerate(leaves) if isinstance(x, Tracer)]
            if positions:
                weak = [bool(leaves[i].aval.weak_type) for i in positions]
                places.append((k, name, treedef, leaves, positions, weak))
                operands.extend(leaves[i] for i in positions)

    def rebuild(*values):
        concrete = [DebuggerFrame(f.filename, f.lineno, dict(f.locals), f.globals)
                    for f in frames]
        it = iter(values)
        for k, name, treedef, leaves, positions, weak in places:
            leaves = list(leaves)
            for i, w in zip(positions, weak):
                leaves[i] = Array(next(it), w)
            concrete[k].locals[name] = fa_tree.unflatten(treedef, leaves)
        return concrete

    return operands, rebuild

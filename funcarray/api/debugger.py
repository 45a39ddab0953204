"""``funcarray.debug.breakpoint``: stop in a debugger with the user's frames and their local
variables holding concrete values, eagerly and inside ``jit``, ``vmap`` and ``grad``, as
``jax.debug.breakpoint``.

At the call the Python stack is captured (funcarray's own frames left out); the tracers
among the frames' local variables become the operands of a debug callback, so when the
computation runs the callback gets their values and opens the debugger on frames rebuilt
with them. Under ``vmap`` it stops once per batch member (the
debug callback's rule), under ``grad`` it shows primal values. The debugger is JAX's
command-line one (``jdb``): ``p expr``, ``pp expr``, ``u``/``d`` (up and down the frames),
``l`` (the source around the line), ``w`` (the frames), ``c`` (continue), ``q`` (quit).

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

import cmd
import linecache
import os
import pprint
import sys
import threading
import traceback
from dataclasses import dataclass

from funcarray.base import pytrees as fa_tree
from funcarray.base.array import Array
from funcarray.transforms.core import Tracer

__all__ = ["DebuggerFrame", "CliDebugger", "capture_frames", "frames_as_operands"]

# The package's folders (funcarray/, and transforms/ and lowering/ beside it in a source
# checkout): frames there are funcarray's own, left out with filter_frames.
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_INTERNAL = tuple(os.path.join(root, "") for root in (
    _PACKAGE, os.path.join(os.path.dirname(_PACKAGE), "transforms"),
    os.path.join(os.path.dirname(_PACKAGE), "lowering")))

# One debugger session at a time: callbacks may run on several threads.
_session_lock = threading.Lock()


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


class CliDebugger(cmd.Cmd):
    """JAX's command-line debugger (``jdb``) over captured frames (see the module
    docstring); ``stdin``/``stdout`` replace the terminal (tests drive it with them)."""

    prompt = "(jdb) "

    def __init__(self, frames: list, stdin=None, stdout=None):
        super().__init__(stdin=stdin, stdout=stdout)
        self.use_rawinput = stdin is None
        self.frames = frames
        self.frame_index = 0
        self.intro = "Entering jdb:"

    def evaluate(self, expr: str):
        frame = self.frames[self.frame_index]
        return eval(expr, {}, {**frame.globals, **frame.locals})  # noqa: S307 (a debugger)

    def _show(self, expr: str, form) -> None:
        try:
            print(form(self.evaluate(expr)), file=self.stdout)
        except Exception:  # noqa: BLE001 (reported as pdb does)
            exc_type, exc = sys.exc_info()[:2]
            message = traceback.format_exception_only(exc_type, exc)[-1].strip()
            print("***", message, file=self.stdout)

    def default(self, line):
        """Evaluate an expression and print its value."""
        self._show(line, repr)

    def do_p(self, arg):
        """p expression: print the value of an expression."""
        self._show(arg, repr)

    def do_pp(self, arg):
        """pp expression: pretty-print the value of an expression."""
        self._show(arg, pprint.pformat)

    def do_up(self, arg):
        """u(p): move to the frame of the caller."""
        if self.frame_index == len(self.frames) - 1:
            print("At topmost frame.", file=self.stdout)
        else:
            self.frame_index += 1
        self.print_context()

    def do_down(self, arg):
        """d(own): move to the frame called."""
        if self.frame_index == 0:
            print("At bottommost frame.", file=self.stdout)
        else:
            self.frame_index -= 1
        self.print_context()

    def do_list(self, arg):
        """l(ist): the source around the current line."""
        self.print_context(num_lines=5)

    def do_where(self, arg):
        """w(here): the frames, the most recent last ('bt' too)."""
        lines = ["Traceback:"]
        for frame in self.frames[::-1]:
            lines.append(f'  File "{frame.filename}", line {frame.lineno}')
            lines.append(f"    {frame.source_line(frame.lineno).strip() or '<no source>'}")
        print("\n".join(lines), file=self.stdout)

    def do_continue(self, arg):
        """c(ont(inue)): continue the program."""
        return True

    def do_quit(self, arg):
        """q(uit): exit the program."""
        sys.exit(0)

    do_u, do_d, do_l, do_w, do_bt = do_up, do_down, do_list, do_where, do_where
    do_c = do_cont = do_continue
    do_q = do_exit = do_EOF = do_quit

    def print_context(self, num_lines: int = 2) -> None:
        frame = self.frames[self.frame_index]
        lines = [f"> {frame.filename}({frame.lineno})"]
        for n in range(max(frame.lineno - num_lines, 1), frame.lineno + num_lines + 1):
            text = frame.source_line(n)
            lines.append(f"{'->  ' if n == frame.lineno else '    '}{text}")
        print("\n".join(lines), file=self.stdout)

    def run(self) -> None:
        with _session_lock:
            self.cmdloop()

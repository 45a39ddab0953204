"""The command-line debugger (JAX's ``jdb``) that ``funcarray.debug.breakpoint`` opens on
the frames it captured (``api/debugger.py``): ``p expr``, ``pp expr``, ``u``/``d`` (up and
down the frames), ``l`` (the source around the line), ``w`` (the frames), ``c`` (continue),
``q`` (quit).

Example:
    >>> import io
    >>> from funcarray.api.debugger import DebuggerFrame
    >>> shown = io.StringIO()
    >>> frame = DebuggerFrame("<example>", 1, {"y": [1, 2]}, {})
    >>> CliDebugger([frame], stdin=io.StringIO("p y\\nc\\n"), stdout=shown).run()
    >>> shown.getvalue().splitlines()
    ['Entering jdb:', '(jdb) [1, 2]', '(jdb) ']
"""

from __future__ import annotations

import cmd
import pprint
import sys
import threading
import traceback

__all__ = ["CliDebugger"]

# One debugger session at a time: callbacks may run on several threads.
_session_lock = threading.Lock()


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

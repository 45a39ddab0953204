"""funcarray's type hints (PEP 561: funcarray/py.typed) as a type checker sees them.

mypy checks the README's Python blocks (no errors) and tests/package/typing_usage.py, whose
``assert_type`` calls pin the types of the public API and whose ``# E: <code>`` lines must stay
errors; the same file is then run with an ``assert_type`` that also checks each value's
run-time type, so the hints describe what funcarray really returns.

mypy cannot follow the editable install's import hook, and transforms/ and lowering/ install
as funcarray.transforms / funcarray.lowering (pyproject's package-dir), so mypy reads funcarray
through a folder of symlinks laid out as the installed package. ``--follow-imports=silent``:
funcarray's own modules are analysed for their types but not reported on; what is checked is
the API as users see it.
"""

from __future__ import annotations

import collections.abc
import os
import re
import runpy
import shutil
import subprocess
import sys
import types
import typing
from pathlib import Path

import pytest
from test_readme import _python_blocks

REPO = Path(__file__).resolve().parents[2]
USAGE = Path(__file__).with_name("typing_usage.py")

# What mypy reveals for the `reveal_type(...)  # R: <tag>` lines of typing_usage.py.
_A = "funcarray.base.array.Array"
REVEALED = {
    "grad": f"def (w: {_A}, x: {_A}) -> Any",
    "jit": f"funcarray.api.jit.JitWrapped[[w: {_A}, x: {_A}], {_A}]",
    "vmap": f"def (w: {_A}, x: {_A}) -> {_A}",
    "custom_jvp": f"funcarray.api.custom_derivatives.custom_jvp[[w: {_A}, x: {_A}], {_A}]",
    "optim_init": "funcarray.optim._base.TransformInitFn",
    "optim_update": "funcarray.optim._base.TransformUpdateFn",
    "optim_apply": f"dict[str, {_A}]",
    "treedef": "optree._C.PyTreeSpec",
    "register_class": "def [_Node] (cls: type[_Node]) -> type[_Node]",
    "sampler": "funcarray.random._continuous._Sampler",
    "scaling": "funcarray.nn.initializers._ScalingConstructor",
    "load_like": f"dict[str, {_A}]",
}


def _mirror(root: Path) -> Path:
    """A folder holding ``funcarray/`` as installed: the repository's files as symlinks, with
    transforms/ and lowering/ inside the package."""
    package = root / "funcarray"
    package.mkdir(parents=True)
    for entry in (REPO / "funcarray").iterdir():
        if entry.name != "__pycache__":
            (package / entry.name).symlink_to(entry)
    for sub in ("transforms", "lowering"):
        (package / sub).symlink_to(REPO / sub)
    return root


def _mypy(tmp_path: Path, files: list[Path], *options: str) -> subprocess.CompletedProcess:
    search = _mirror(tmp_path / "mirror")
    env = dict(os.environ, MYPYPATH=str(search))
    command = [sys.executable, "-m", "mypy", "--follow-imports=silent",
               "--cache-dir", str(tmp_path / "mypy_cache"), "--show-error-codes",
               "--hide-error-context", "--no-pretty", "--no-color-output", *options,
               *map(str, files)]
    # (run from tmp_path: no configuration file of the repository or above applies)
    return subprocess.run(command, capture_output=True, text=True, env=env, cwd=tmp_path,
                          timeout=600)


def _messages(output: str, filename: str) -> list[tuple[int, str, str]]:
    """``(line, severity, message)`` for each of mypy's messages about ``filename``."""
    found = []
    for line in output.splitlines():
        match = re.match(rf"^{re.escape(filename)}:(\d+): (error|note): (.*)$", line)
        if match:
            found.append((int(match.group(1)), match.group(2), match.group(3)))
    return found


def test_readme_and_typed_usage_type_check(tmp_path):
    """One mypy run (each run analyses funcarray and NumPy's stubs anew, ~15 s) over two sets
    of files:

    * every README Python block, the bodies of its unannotated functions included
      (``check_untyped_defs`` for those modules): no message at all;
    * typing_usage.py: each ``# E: <code>`` line is reported with that error code and
      nothing else is; each ``# R: <tag>`` line reveals ``REVEALED[tag]``.
    """
    readme_files = []
    for line, code in _python_blocks():
        path = tmp_path / f"readme_line_{line}.py"
        path.write_text(code)
        readme_files.append(path)
    usage = tmp_path / USAGE.name
    shutil.copy(USAGE, usage)
    config = tmp_path / "mypy.ini"
    # (mypy's section patterns take a wildcard only as a whole name component: listed)
    readme_modules = ",".join(path.stem for path in readme_files)
    config.write_text(f"[mypy]\n[mypy-{readme_modules}]\ncheck_untyped_defs = True\n")
    result = _mypy(tmp_path, [*readme_files, usage], "--config-file", str(config))

    readme_messages = {path.name: _messages(result.stdout, path.name) for path in readme_files}
    assert not any(readme_messages.values()), result.stdout + result.stderr

    messages = _messages(result.stdout, usage.name)
    assert messages, result.stdout + result.stderr
    source = USAGE.read_text().splitlines()
    want_errors = {k + 1: m.group(1) for k, text in enumerate(source)
                   if (m := re.search(r"# E: ([\w-]+)$", text))}
    want_notes = {k + 1: REVEALED[m.group(1)] for k, text in enumerate(source)
                  if (m := re.search(r"# R: (\w+)$", text))}
    errors = {line: text for line, severity, text in messages if severity == "error"}
    notes = {line: text for line, severity, text in messages if severity == "note"}

    # Each marked misuse is reported, with its error code; nothing else is (a failed
    # assert_type is an [assert-type] error on its line).
    assert {line: re.sub(r".*\[([\w-]+)\]$", r"\1", text) for line, text in errors.items()} \
        == want_errors, "\n".join(f"{line}: {text}" for line, text in sorted(errors.items()))
    assert notes == {line: f'Revealed type is "{text}"' for line, text in want_notes.items()}
    checked = len(readme_files) + 1
    assert result.returncode == 1, result.stdout + result.stderr
    assert (f"Found {len(want_errors)} errors in 1 file (checked {checked} source files)"
            in result.stdout), result.stdout


def _matches(value, hint) -> bool:
    """Whether ``value``'s run-time type fits the type ``hint`` (those typing_usage uses)."""
    if hint is typing.Any:
        return True
    if hint is None:
        return value is None
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (types.UnionType, typing.Union):
        return any(_matches(value, arg) for arg in args)
    if origin is collections.abc.Callable:
        return callable(value)
    if origin is tuple:
        if not isinstance(value, tuple):
            return False
        if len(args) == 2 and args[1] is Ellipsis:
            return all(_matches(item, args[0]) for item in value)
        return len(value) == len(args) and all(map(_matches, value, args))
    if origin is list:
        return isinstance(value, list) and all(_matches(item, args[0]) for item in value)
    if origin is dict:
        return isinstance(value, dict) and all(
            _matches(k, args[0]) and _matches(v, args[1]) for k, v in value.items())
    if origin is not None:  # other generics (numpy's dtype[...], ndarray[...]): the class
        return isinstance(value, origin)
    return isinstance(value, hint)


def test_typed_usage_runs_with_the_types_it_claims(monkeypatch):
    """typing_usage.py runs, and every value it passes to assert_type has the run-time type
    mypy was told it has: each assert_type line runs once at least, checked."""
    checked = set()

    def checking_assert_type(value, hint):
        line = sys._getframe(1).f_lineno
        assert _matches(value, hint), (
            f"typing_usage.py:{line}: {type(value).__name__} {value!r} is not a {hint}")
        checked.add(line)
        return value

    monkeypatch.setattr(typing, "assert_type", checking_assert_type)
    runpy.run_path(str(USAGE), run_name="typing_usage")
    calls = {k + 1 for k, text in enumerate(USAGE.read_text().splitlines())
             if text.lstrip().startswith("assert_type(")}
    assert len(calls) > 150 and checked == calls, sorted(calls ^ checked)


def test_elementwise_all_for_type_checkers_matches_run_time():
    """funcarray/numpy/_elementwise.py computes its __all__ at run time and writes it out
    for type checkers (without the ufuncs, which funcarray.numpy declares as such); the two
    must agree, or a new function would be invisible to type checkers."""
    import funcarray.numpy._elementwise as elementwise
    from funcarray.numpy._ufunc import _UFUNC_IDENTITIES

    text = Path(elementwise.__file__).read_text()
    block = text[text.rindex("if TYPE_CHECKING:"):]
    written = re.findall(r'"(\w+)"', block[block.index("__all__"):])
    assert sorted(written) == sorted(n for n in elementwise.__all__
                                     if n not in _UFUNC_IDENTITIES)
    assert set(_UFUNC_IDENTITIES) <= set(elementwise.__all__)


@pytest.mark.parametrize("module", ["funcarray", "funcarray.numpy"])
def test_lazy_names_declared_for_type_checkers(module):
    """The names a module makes at run time (lazy subpackages, ufuncs, narrow dtypes) are
    declared in its ``if TYPE_CHECKING`` block, so type checkers know them."""
    import importlib

    from funcarray import dtypes
    from funcarray.numpy._ufunc import _UFUNC_IDENTITIES

    mod = importlib.import_module(module)
    text = Path(mod.__file__).read_text()
    declared = set(re.findall(r"^    (\w+): _", text, re.M)) | set(
        re.findall(r"^    from funcarray import \w+ as (\w+)$", text, re.M))
    made = (set(mod._LAZY_SUBPACKAGES) if module == "funcarray"
            else set(_UFUNC_IDENTITIES) | set(dtypes.NARROW_DTYPE_NAMES))
    assert made <= declared, sorted(made - declared)


def test_typing_module_is_lazy():
    """``import funcarray`` does not import funcarray.typing; ``fa.typing`` and
    ``import funcarray.typing`` both work."""
    code = ("import sys, funcarray as fa; assert 'funcarray.typing' not in sys.modules; "
            "from funcarray.typing import ArrayLike, DTypeLike; import funcarray.typing; "
            "assert fa.typing.ArrayLike is ArrayLike; print('ok')")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=120)
    assert result.stdout.strip() == "ok", result.stderr

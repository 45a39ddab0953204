"""Packaging: a regular (non-editable) install maps transforms/ and lowering/ into the package
and installs no top-level `transforms` or `lowering` module. (The editable install is what
the rest of the suite runs on.)"""

import os
import site
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_CHECK = textwrap.dedent("""
    import importlib, importlib.util, sys
    import funcarray, funcarray.numpy as fnp
    import funcarray.transforms.core, funcarray.lowering
    assert "site-packages" in funcarray.__file__, funcarray.__file__
    assert "site-packages" in funcarray.transforms.core.__file__
    assert importlib.util.find_spec("transforms") is None, "top-level transforms installed"
    assert importlib.util.find_spec("lowering") is None, "top-level lowering installed"
    assert (fnp.arange(3) * 2).tolist() == [0, 2, 4]
    for name in sys.argv[1:]:  # every subpackage of the source tree must be installed
        importlib.import_module(name)
        assert "site-packages" in sys.modules[name].__file__, name
    print("ok")
""")


def _subpackages() -> list:
    """Dotted names of funcarray's subpackages in the source tree (folders with __init__)."""
    names = []
    for init in sorted((ROOT / "funcarray").rglob("__init__.py")):
        parts = init.parent.relative_to(ROOT).parts
        names.append(".".join(parts))
    return names


def test_regular_install_in_fresh_venv(tmp_path):
    venv = tmp_path / "venv"
    # System site-packages provide the runtime dependencies (numpy, optree, ml_dtypes).
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)],
                   check=True)
    python = venv / "bin" / "python"
    if sys.prefix != sys.base_prefix:
        # Run from a virtual environment: --system-site-packages reaches only its base
        # interpreter's packages, so point the new one at this environment's as well (plain
        # path entries: its .pth files, the editable funcarray's among them, are not run).
        ask = "import site; print(site.getsitepackages()[0])"
        site_dir = subprocess.run([str(python), "-c", ask], check=True, capture_output=True,
                                  text=True).stdout.strip()
        Path(site_dir, "parent_environment.pth").write_text("\n".join(site.getsitepackages()))
    build = tmp_path / "src"
    subprocess.run(["git", "clone", "-q", "--no-hardlinks", str(ROOT), str(build)], check=True)
    # Copy the working tree's package files over the clone so uncommitted changes count too.
    subprocess.run(["cp", "-r", str(ROOT / "funcarray"), str(ROOT / "transforms"),
                    str(ROOT / "lowering"), str(ROOT / "pyproject.toml"), str(build)],
                   check=True)
    # Build isolation fetches the setuptools that pyproject.toml asks for.
    subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps", str(build)],
                   check=True, cwd=tmp_path)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    result = subprocess.run([str(python), "-c", _CHECK, *_subpackages()], capture_output=True,
                            text=True, cwd=tmp_path, env=env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"

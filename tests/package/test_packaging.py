"""Packaging: a regular (non-editable) install maps transforms/ and lowering/ into the package
and installs no top-level `transforms` or `lowering` module. (The editable install is what
the rest of the suite runs on.)"""

import os
import subprocess
import sys
import sysconfig
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

def _subpackages() -> list:
    """Dotted names of funcarray's subpackages in the source tree (folders with __init__)."""
    names = []
    for init in sorted((ROOT / "funcarray").rglob("__init__.py")):
        parts = init.parent.relative_to(ROOT).parts
        names.append(".".join(parts))
    return names


def _site_packages() -> list:
    """The running environment's package folders (a virtual environment's, when the suite
    runs in one: `--system-site-packages` would give the base interpreter's instead)."""
    paths = sysconfig.get_paths()
    return sorted({paths["purelib"], paths["platlib"]})


def test_regular_install_in_fresh_venv(tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    # The dependencies (numpy, optree, ml_dtypes, jax) come from the running environment, as
    # path entries after the new venv's own site-packages: its .pth files (the editable
    # install's finder among them) are not run, so the regular install below is what imports.
    target = subprocess.run([str(python), "-c", "import sysconfig; "
                             "print(sysconfig.get_paths()['purelib'])"],
                            check=True, capture_output=True, text=True).stdout.strip()
    Path(target, "running_environment.pth").write_text("\n".join(_site_packages()) + "\n")
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
    result = subprocess.run([str(python), str(ROOT / "tests" / "package" / "install_smoke.py"),
                             *_subpackages()], capture_output=True, text=True, cwd=tmp_path,
                            env=env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"

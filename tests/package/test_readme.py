"""Every Python code block in README.md runs as written, each on its own (a reader copies one
block at a time), and the test functions a block defines pass."""

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"
_BLOCK = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)


def _python_blocks() -> list:
    text = README.read_text()
    return [(text[:match.start()].count("\n") + 2, match.group(1))
            for match in _BLOCK.finditer(text)]


def test_readme_has_python_blocks():
    assert len(_python_blocks()) >= 3


@pytest.mark.parametrize("line, code", _python_blocks(), ids=lambda v: str(v)[:20])
def test_readme_block_runs(line, code):
    namespace = {"__name__": f"readme_line_{line}"}
    exec(compile(code, f"README.md:{line}", "exec"), namespace)
    for name, value in namespace.items():
        if name.startswith("test_") and callable(value):
            value()

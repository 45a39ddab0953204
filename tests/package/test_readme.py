"""Every Python code block in README.md and docs/array_api.md runs as written, each on its own
(a reader copies one block at a time), and the test functions a block defines pass."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = (README, ROOT / "docs" / "array_api.md")
_BLOCK = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)


def _python_blocks(path: Path = README) -> list:
    text = path.read_text()
    return [(text[:match.start()].count("\n") + 2, match.group(1))
            for match in _BLOCK.finditer(text)]


def test_readme_has_python_blocks():
    assert len(_python_blocks()) >= 3
    assert len(_python_blocks(DOCS[1])) >= 2


@pytest.mark.parametrize("path, line, code",
                         [(p, line, code) for p in DOCS for line, code in _python_blocks(p)],
                         ids=lambda v: v.name if isinstance(v, Path) else str(v)[:20])
def test_readme_block_runs(path, line, code):
    namespace = {"__name__": f"{path.stem}_line_{line}"}
    exec(compile(code, f"{path.name}:{line}", "exec"), namespace)
    for name, value in namespace.items():
        if name.startswith("test_") and callable(value):
            value()

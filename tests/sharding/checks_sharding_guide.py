"""The Python blocks of docs/sharding.md as checks (run by test_sharding_guide.py in a
subprocess with 8 CPU devices, see multi_device.py): each block runs as written, on its own,
in a fresh namespace, as a reader copies one block at a time."""

import re
from pathlib import Path

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "sharding.md"
_BLOCK = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)


def guide_blocks() -> dict:
    """``{check name: code}``, one per Python block, named by its first line's number."""
    text = GUIDE.read_text()
    return {f"check_block_at_line_{text[:m.start()].count(chr(10)) + 2}": m.group(1)
            for m in _BLOCK.finditer(text)}


def _checker(name: str, code: str):
    def check():
        exec(compile(code, f"{GUIDE.name}:{name.rsplit('_', 1)[1]}", "exec"),
             {"__name__": name})
    return check


for _name, _code in guide_blocks().items():
    globals()[_name] = _checker(_name, _code)

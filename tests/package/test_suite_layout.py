"""The test suite's own layout: pytest imports test files by their base name (the test
directories are not packages), so two files of one name in different directories stop the
collection of the second with "import file mismatch"."""

from collections import Counter
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]


def test_test_file_names_are_unique_across_directories():
    names = Counter(path.name for path in TESTS.rglob("test_*.py"))
    assert not [name for name, count in names.items() if count > 1]

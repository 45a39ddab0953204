"""Run every docstring example in the package: public functions promise a runnable example."""

import doctest
import importlib
import pkgutil

import pytest

import funcarray
import funcarray.lowering
import funcarray.transforms

_FLAGS = doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS


def _module_names():
    # transforms/ and lowering/ are mapped into the package by pyproject's package-dir, so
    # walk them too.
    names = {"funcarray", "funcarray.transforms", "funcarray.lowering"}
    for package in (funcarray, funcarray.transforms, funcarray.lowering):
        for info in pkgutil.walk_packages(package.__path__, prefix=package.__name__ + "."):
            names.add(info.name)
    return sorted(names)


@pytest.mark.parametrize("module_name", _module_names())
def test_docstring_examples(module_name):
    module = importlib.import_module(module_name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=_FLAGS)
    for test in finder.find(module, module_name):
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} docstring example(s) failed in {module_name}"

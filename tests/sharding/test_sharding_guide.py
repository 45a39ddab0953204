"""Every Python block of docs/sharding.md runs as written on 8 simulated CPU devices
(checks_sharding_guide.py, in one subprocess: see multi_device.py)."""

from checks_sharding_guide import guide_blocks
from multi_device import check_tests

_NAMES = sorted(guide_blocks())


def test_the_guide_has_its_examples():
    assert len(_NAMES) >= 6


results, test_every_check_ran, test_check = check_tests("checks_sharding_guide.py", _NAMES)

"""tools/compat.py: the ranges it reads and the versions it accepts as 'newest' or 'oldest'."""

import pytest

import compat


def test_the_ranges_are_pyprojects_with_a_floor_each():
    ranges = compat.ranges()
    assert set(ranges) == {"torch", "numpy", "matplotlib", "tqdm", "sacrebleu"}
    for name, spec in ranges.items():
        assert compat.floor(spec), name  # every promise has a floor that test-oldest installs


@pytest.mark.parametrize(
    ("spec", "version", "ok"),
    [
        (">=2.3,<2.7", "2.6.0", True),
        (">=2.3,<2.7", "2.7.0", False),
        (">=2.3,<2.7", "2.7", False),
        (">=2.3,<2.7", "2.2.1", False),
        (">=2.1", "2.1", True),
        (">=2.1", "2.15.0", True),  # numbers, not strings: 15 > 9
        (">=2.1", "2.13.0+cpu", False),  # a local build is not a release on the index
        (">=1.24", "2.0.0rc1", False),  # nor is a pre-release
    ],
)
def test_admits_compares_release_numbers(spec, version, ok):
    assert compat.admits(spec, version) is ok


def test_a_range_without_a_floor_is_refused():
    with pytest.raises(SystemExit, match="no floor"):
        compat.floor("<3")

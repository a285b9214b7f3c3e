"""A file records' counts name (`[[record.count]] file`, a checker's constant)
merged by the driver: git's text merge, each counted number both sides moved
set on both sides to the base plus both moves first."""

from __future__ import annotations

from mergedrv import config as cfgmod
from mergedrv.merge.driver import merge_declared
from mergedrv.merge.values import Markers

CONFIG = b"""[[record]]
name = "M"
path = "m.md"
key = "ID"

[[record.count]]
file = "check.py"
pattern = 'M = (\\d+)'
"""


def merged(base: bytes, ours: bytes, theirs: bytes, path: str = "check.py"):
    return merge_declared(path, base, ours, theirs, cfgmod.load_bytes(CONFIG), Markers())


def test_both_moves_are_added():
    result = merged(b"a = 1\nM = 3\nb = 2\n", b"a = 1\nM = 5\nb = 2\n", b"a = 1\nM = 4\nb = 2\n")
    assert result.data == b"a = 1\nM = 6\nb = 2\n" and not result.conflicts
    assert result.notes == ["2: note: M: both sides moved count 'M = (\\d+)'; merged as a counter: 6"]


def test_the_rest_of_the_file_merges_as_text():
    base = b"a = 1\n\n\nM = 3\n\n\nb = 2\n"
    result = merged(base, b"a = 7\n\n\nM = 5\n\n\nb = 2\n", b"a = 1\n\n\nM = 4\n\n\nb = 9\n")
    assert result.data == b"a = 7\n\n\nM = 6\n\n\nb = 9\n" and not result.conflicts
    same = merged(base, b"a = 7\n\n\nM = 4\n\n\nb = 2\n", b"a = 1\n\n\nM = 4\n\n\nb = 9\n")
    assert same.data == b"a = 7\n\n\nM = 5\n\n\nb = 9\n" and same.notes  # (the same move on both sides is two moves, as for a pin)
    one = merged(base, b"a = 7\n\n\nM = 3\n\n\nb = 2\n", b"a = 1\n\n\nM = 4\n\n\nb = 9\n")
    assert one.data == b"a = 7\n\n\nM = 4\n\n\nb = 9\n" and not one.notes  # (one side's move)
    clash = merged(b"a = 1\nM = 3\n", b"a = 2\nM = 3\n", b"a = 3\nM = 3\n")
    assert clash.conflicts and b"<<<<<<< ours" in clash.data  # (the lines a counter does not own conflict as git's)


def test_a_number_found_twice_is_left_to_the_text_merge():
    base, ours, theirs = b"M = 3\nM = 3\n", b"M = 4\nM = 3\n", b"M = 5\nM = 3\n"
    result = merged(base, ours, theirs)
    assert result.conflicts and not result.notes


def test_a_file_no_count_names_is_plain_text():
    result = merged(b"M = 3\n", b"M = 4\n", b"M = 5\n", path="other.py")
    assert result.conflicts and not result.notes and b"M = 4" in result.data and b"M = 5" in result.data

"""A file records' counts name (`[[record.count]] file`, a checker's constant)
merged by the driver: git's text merge, each counted number both sides moved
set on both sides to the base plus both moves (less the keys both added) first.
`tests/commands/test_count_file.py` runs it under git, with the revisions."""

from __future__ import annotations

from mergedrv import config as cfgmod
from mergedrv.merge.counted import merge_counted_file
from mergedrv.merge.values import Markers

CONFIG = b"""[[record]]
name = "M"
path = "m.md"
key = "ID"

[[record.count]]
file = "check.py"
pattern = 'M = (\\d+)'

[[record.count]]
file = "check.py"
pattern = 'done = (\\d+)'
where = { State = "DONE" }
"""
NONE_TWICE = lambda name: 0  # noqa: E731 - no key both sides added
BASE = b"a = 1\n\n\nM = 3\n\n\nb = 2\n"


def merged(base: bytes, ours: bytes, theirs: bytes, twice=NONE_TWICE, config: bytes = CONFIG):
    cfg = cfgmod.load_bytes(config)
    return merge_counted_file("check.py", base, ours, theirs, cfg.records, Markers(), twice)


def test_both_moves_are_added_less_the_keys_both_added():
    result = merged(BASE, BASE.replace(b"M = 3", b"M = 5"), BASE.replace(b"M = 3", b"M = 4").replace(b"b = 2", b"b = 9"))
    assert result.data == b"a = 1\n\n\nM = 6\n\n\nb = 9\n" and not result.conflicts
    assert result.notes == ["4: note: M: both sides moved count 'M = (\\d+)'; merged as a counter: 6"]
    once = merged(BASE, BASE.replace(b"M = 3", b"M = 5"), BASE.replace(b"M = 3", b"M = 4").replace(b"b = 2", b"b = 9"),
                  twice=lambda name: 1)
    assert b"M = 5" in once.data and not once.conflicts  # (the key both sides added is one row)
    same = merged(BASE, BASE.replace(b"M = 3", b"M = 4").replace(b"a = 1", b"a = 7"), BASE.replace(b"M = 3", b"M = 4"))
    assert same.data == b"a = 7\n\n\nM = 5\n\n\nb = 2\n" and same.notes  # (the same move on both sides is two moves, as for a pin)


def test_one_sides_move_and_the_rest_of_the_file_merge_as_text():
    one = merged(BASE, BASE.replace(b"a = 1", b"a = 7"), BASE.replace(b"M = 3", b"M = 4").replace(b"b = 2", b"b = 9"))
    assert one.data == b"a = 7\n\n\nM = 4\n\n\nb = 9\n" and not one.notes
    clash = merged(b"a = 1\nM = 3\n", b"a = 2\nM = 3\n", b"a = 3\nM = 3\n")
    assert clash.conflicts and b"<<<<<<< ours" in clash.data  # (the lines a counter does not own conflict as git's)


def test_unknown_revisions_a_filtered_count_a_repeat_or_a_total_below_zero_are_git_s():
    ours, theirs = BASE.replace(b"M = 3", b"M = 5"), BASE.replace(b"M = 3", b"M = 4")
    assert merged(BASE, ours, theirs, twice=lambda name: None).conflicts  # (a single cherry-pick on old git, `git am`)
    done = b"done = 3\n"
    assert merged(done, b"done = 5\n", b"done = 4\n").conflicts  # (which rows both sides counted is not known)
    assert merged(b"M = 3\nM = 3\n", b"M = 4\nM = 3\n", b"M = 5\nM = 3\n").conflicts
    assert merged(b"M = 3\n", b"M = 1\n", b"M = 0\n", twice=lambda name: 0).conflicts  # (3 - 2 - 3 < 0)


def test_a_number_two_counts_find_is_set_once():
    twice = CONFIG + b'\n[[record]]\nname = "N"\npath = "n.md"\nkey = "ID"\n\n[[record.count]]\nfile = "check.py"\npattern = \'M = (\\d+)\'\n'
    result = merged(b"a\nM = 8\nb\n", b"a\nM = 9\nb\n", b"a\nM = 9\nb\nc\n", config=twice)
    assert result.data == b"a\nM = 10\nb\nc\n" and not result.conflicts

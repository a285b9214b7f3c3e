"""Defects the fuzz campaign (bench/fuzz_merge.py) found, each as its minimal
reproducer; the keyed merge itself is checked (`merge_documents`, without
the self-check that turns such a bug into a fallback), then the driver's
merge: no fallback, nothing lost."""

from __future__ import annotations

from mergedrv import model
from mergedrv.merge import Markers, Options, merge, merge_documents

from .fuzz_gen import lost_lines


def _keyed(base: bytes, ours: bytes, theirs: bytes, key="ID", pattern=None):
    opts = Options(markers=Markers(7), key=key)
    opts.key_pattern = pattern
    docs = model.parse_many([base, ours, theirs], key, False, pattern, 7)
    return merge_documents(docs, opts)[0], merge(base, ours, theirs, opts)


def test_a_row_moved_into_a_conflicting_table_keeps_the_other_sides_reshaped_row():
    # classic seed 525: ours moves K-1 from A into B and edits B; theirs drops
    # column W of A (K-1 now `| K-1 | a |`) and adds a column to B, so B is
    # one conflict: theirs' K-1 was in neither the result nor a conflict
    base = b"## A\n\n| ID | V | W |\n|---|---|---|\n| K-1 | a | b |\n| K-2 | c | d |\n\n## B\n\n| ID | V | W |\n|---|---|---|\n| K-3 | e | f |\n"
    ours = b"## A\n\n| ID | V | W |\n|---|---|---|\n| K-2 | c | d |\n\n## B\n\n| ID | V | W |\n|---|---|---|\n| K-3 | e | ours |\n| K-1 | a | b |\n"
    theirs = b"## A\n\n| ID | V |\n|---|---|\n| K-1 | a |\n| K-2 | c |\n\n## B\n\n| ID | V | W | X |\n|---|---|---|---|\n| K-3 | e | f | x |\n"
    keyed, result = _keyed(base, ours, theirs)
    assert b"| K-1 | a |\n" in keyed.data and not lost_lines(base, ours, theirs, keyed.data)
    assert result.fallback is None and b"| K-1 | a |\n" in result.data

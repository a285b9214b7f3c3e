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


def test_a_fallback_in_a_criss_cross_merge_is_gits_merge_of_the_virtual_ancestor_as_given():
    # adversarial crisscross seed 180: git passes its virtual ancestor, inner
    # conflicts and all, as %O; a fallback must be git's text merge of
    # exactly that, not of the ancestor without its inner conflicts
    from .fuzz_gen import git_merge_file

    table = b"| ID | S |\n|---|---|\n| K-1 | a |\n"
    base = table + b"<<<<<<<< ours\n| K-2 | x |\n|||||||| base\n| K-2 | b |\n========\n| K-2 | y |\n>>>>>>>> theirs\n\nend\n"
    ours = table + b"| K-2 | x |\n\nend ours \xff\n"  # not UTF-8: git's text merge
    theirs = table.replace(b"| a |", b"| c |") + b"| K-2 | y |\n\nend\n"
    result = merge(base, ours, theirs, Options(markers=Markers(7), key="ID"))
    data, rc = git_merge_file(base, ours, theirs, 7)
    assert result.fallback and "UTF-8" in result.fallback
    assert (result.data, bool(result.conflicts)) == (data, bool(rc))


def test_the_self_check_reads_rows_under_a_header_in_a_conflict_region_in_their_own_table():
    # adversarial twokeys seeds 1965 and 5387: a `#` table's header inside a
    # conflict region, its rows clean below it; read without the region, the
    # rows fell to the `ID` table's detached rows above, a key "doubled"
    # there: a needless fallback (and a false finding of the fuzz oracle)
    from mergedrv.merge import self_check
    from mergedrv.merge.options import Conflict, Result

    from .fuzz_gen import doubled_keys

    key, pattern = ("ID", "#"), (("ID", "^K-[0-9]+$"), ("#", "^K-[0-9]+$"))
    ids = b"| ID | V |\n|---|---|\n| K-2 | a |\n\n| K-1 | d |\n\n"
    side = ids + b"## Tracks\n\n| # | V |\n|---|---|\n| K-1 | b |\n"
    ours, theirs = side.replace(b"## Tracks", b"## Tracks ours"), side.replace(b"## Tracks", b"## Tracks theirs")
    grid = b"\n| # | V |\n|---|---|\n"
    head = b"<<<<<<< ours\n## Tracks ours\n" + grid + b"||||||| base\n## Tracks\n" + grid + b"=======\n## Tracks theirs\n" + grid + b">>>>>>> theirs\n"
    data = ids + head + b"| K-1 | b |\n"
    docs = model.parse_many([side, ours, theirs], key, False, pattern, 7)
    opts = Options(markers=Markers(7), key=key)
    opts.key_pattern = pattern
    assert self_check(docs, ours, theirs, Result(data, [Conflict("text", "-", "x", 6)]), opts, None) is None
    assert doubled_keys(side, ours, theirs, data, 7, key, pattern) == []
    # a key the clean text really holds twice is still found, by both
    doubled = data + b"| K-1 | c |\n"
    assert "is defined" in self_check(docs, ours, theirs, Result(doubled, [Conflict("text", "-", "x", 6)]), opts, None)
    assert doubled_keys(side, ours, theirs, doubled, 7, key, pattern) == ["#\x1fK-1"]

"""Defects the fuzz campaign (bench/fuzz_merge.py) found, each as its minimal
reproducer; the keyed merge itself is checked (`merge_documents`, without
the self-check that turns such a bug into a fallback), then the driver's
merge: no fallback, nothing lost."""

from __future__ import annotations

from mergedrv import model
from mergedrv.merge import Markers, Options, merge, merge_documents

from tests.fuzz_gen import lost_lines


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
    from tests.fuzz_gen import git_merge_file

    table = b"| ID | S |\n|---|---|\n| K-1 | a |\n"
    base = table + b"<<<<<<<< ours\n| K-2 | x |\n|||||||| base\n| K-2 | b |\n========\n| K-2 | y |\n>>>>>>>> theirs\n\nend\n"
    ours = table + b"| K-2 | x |\n\nend ours \xff\n"  # not UTF-8: git's text merge
    theirs = table.replace(b"| a |", b"| c |") + b"| K-2 | y |\n\nend\n"
    result = merge(base, ours, theirs, Options(markers=Markers(7), key="ID"))
    data, rc = git_merge_file(base, ours, theirs, 7)
    assert result.fallback and "UTF-8" in result.fallback
    assert (result.data, bool(result.conflicts)) == (data, bool(rc))


def test_a_header_inside_a_conflict_region_with_its_rows_below_falls_back_to_git():
    # adversarial twokeys seeds 1965 and 5387 (with the self-check off): a
    # `#` table's header inside a conflict region, its rows clean below it;
    # the clean text alone gives those rows to the `ID` table above, where
    # the key stands twice: the self-check reads it so and falls back to
    # git's text merge rather than keep a result a reader could take for a
    # doubled key (conservative: a fallback loses nothing)
    from mergedrv.merge import self_check
    from mergedrv.merge.values import Conflict, Result

    from tests.fuzz_gen import doubled_keys

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
    assert "defined 2 times" in self_check(docs, ours, theirs, Result(data, [Conflict("text", "-", "x", 6)]), opts, None)
    assert doubled_keys(side, ours, theirs, data, 7, key, pattern) == ["K-1"]  # the oracle reads it as the self-check does
    # each region read as one side's part, the rows are the `#` table's
    from tests.fuzz_gen import hunks

    for part in ("ours", "theirs"):
        text = b"".join(ln for h in hunks(data, 7) for ln in (h.clean if h.clean is not None else getattr(h, part)))
        assert [r.key for r in model.parse(text, key, key_pattern=pattern).rows()] == ["K-2", "K-1", "#\x1fK-1"]


def test_a_row_moved_into_a_table_the_same_side_reshaped_keeps_the_other_sides_edit():
    # mixed seed 13598 (and 18088), in LF: theirs moves K-9 from B into A and
    # adds a column to A; ours edits K-9 in B; A came out as theirs has it,
    # ours' edit of K-9 in neither the result nor a conflict
    base = b"## A\n\n| ID | V |\n|---|---|\n| K-1 | a |\n\n## B\n\n| ID | V | W |\n|---|---|---|\n| K-2 | b |  |\n| K-9 | c |  |\n"
    ours = base.replace(b"| K-9 | c |  |", b"| K-9 | ours |  |")
    theirs = b"## A\n\n| ID | V | X |\n|---|---|---|\n| K-1 | a |  |\n| K-9 | c |  |\n\n## B\n\n| ID | V | W |\n|---|---|---|\n| K-2 | b |  |\n"
    keyed, result = _keyed(base, ours, theirs)
    assert b"| K-9 | ours |  |\n" in keyed.data and not lost_lines(base, ours, theirs, keyed.data)
    assert result.fallback is None and b"| K-9 | ours |  |\n" in result.data and result.conflicts

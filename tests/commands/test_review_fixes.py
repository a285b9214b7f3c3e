"""Defects an adversarial review of issues #10 and #16 found in the keyed
merge: each reproducer here (and in the case corpus) failed before its fix."""

from __future__ import annotations

from mergedrv import model
from mergedrv.merge import Markers, Options, Result, merge, self_check
from tests.fuzz_gen import git_merge_file
from tests.merge.test_never_lose import check, lost_lines
from tests.helpers import examples


def _docs(base, ours, theirs, log=False):
    return model.parse_many([base, ours, theirs], None if log else "ID", log)


# 3. a CR at the end of a file without a final LF is a byte of that line


def test_self_check_finds_a_lost_cr_of_a_last_line_without_lf():
    base = b"| ID | S |\n|---|---|\n| K-1 | a |\n\nend\r"
    ours = base.replace(b"| K-1 | a |\n", b"| K-1 | a |\n| K-2 | b |\n")
    theirs = base.replace(b"| a |", b"| c |")
    good = b"| ID | S |\n|---|---|\n| K-1 | c |\n| K-2 | b |\n\nend\r"
    opts = Options(key="ID")
    assert self_check(_docs(base, ours, theirs), ours, theirs, Result(good), opts) is None
    assert self_check(_docs(base, ours, theirs), ours, theirs, Result(good + b"\n"), opts) is None
    why = self_check(_docs(base, ours, theirs), ours, theirs, Result(good[:-1]), opts)
    assert why is not None and "missing" in why


def test_self_check_turns_the_old_cr_loss_into_a_fallback(monkeypatch):
    from mergedrv.merge import render

    real = render._no_eol

    def lossy(out, eol):  # the defect, put back: the last line's CR dropped with its missing LF
        unended = real(out, eol)
        out[-1] = out[-1].rstrip(b"\r")
        return unended

    monkeypatch.setattr(render, "_no_eol", lossy)
    base = b"| ID | S |\n|---|---|\n| K-1 | a |\n\nend\r"
    ours = base.replace(b"| K-1 | a |\n", b"| K-1 | a |\n| K-2 | b |\n")
    theirs = base.replace(b"| a |", b"| c |")
    result = merge(base, ours, theirs, Options(markers=Markers(7), key="ID"))
    assert result.fallback is not None and "missing" in result.fallback
    assert result.data == git_merge_file(base, ours, theirs, 7)[0]


def test_lost_final_crs_are_caught_for_every_tail():
    for tail in (b"\r", b"\r\r", b"zzz\r", b"end\r\r"):
        base = b"| ID | S |\n|---|---|\n| K-1 | a |\n\n" + tail
        ours = base.replace(b"| K-1 | a |\n", b"| K-1 | a |\n| K-2 | b |\n")
        theirs = base.replace(b"| a |", b"| c |")
        result = check(base, ours, theirs)
        assert result.data.endswith(tail) and not result.conflicts, (tail, result.data)
        stripped = result.data[: -len(tail)] + tail.rstrip(b"\r")
        why = self_check(_docs(base, ours, theirs), ours, theirs, Result(stripped), Options(key="ID"))
        assert why is not None, tail


# 4. a line one side inserts inside a table ends the table there: the rows
#    after it are prose in that side, merged as git merges lines

_T = b"| ID | S |\n|---|---|\n| K-1 | a |\n| K-2 | a |\n| K-3 | a |\n"


def _crlf(data: bytes) -> bytes:
    return data.replace(b"\n", b"\r\n")


def _as_git(base, ours, theirs, clean: bool):
    result = check(base, ours, theirs)
    data, rc = git_merge_file(base, ours, theirs, 7)
    assert result.data == data
    assert bool(result.conflicts) == bool(rc) == (not clean)
    return result


def test_block_line_inserted_inside_a_table_other_side_edits_a_later_row():
    for inserted in (b"---\n", b"=\n", b"- item\n", b">>> x\n", b"| K-5 | x |\n===\n"):
        for crlf in (False, True):
            base = _T
            ours = _T.replace(b"| K-1 | a |\n", b"| K-1 | a |\n" + inserted)
            theirs = _T.replace(b"| K-3 | a |", b"| K-3 | b |")
            if crlf:
                base, ours, theirs = map(_crlf, (base, ours, theirs))
            result = _as_git(base, ours, theirs, clean=True)
            assert b"| K-3 | b |" in result.data and result.fallback is not None
            result = _as_git(base, theirs, ours, clean=True)  # sides swapped
            assert b"| K-3 | b |" in result.data


def test_block_line_inserted_inside_a_table_other_side_deletes_a_later_row_conflicts():
    ours = _T.replace(b"| K-1 | a |\n", b"| K-1 | a |\n---\n")
    theirs = _T.replace(b"| K-2 | a |\n", b"")
    for a, b in ((ours, theirs), (theirs, ours)):
        result = _as_git(_T, a, b, clean=False)
        assert result.conflicts


# 5. a side that changed a table's last row and inserted lines after the
#    blank line below it, the other side inserting there too: clean, as git


def test_insertions_after_a_table_nobody_changed_still_conflict():
    base = b"| ID | S |\n|---|---|\n| K-1 | a |\n| K-2 | a |\n\n[r]: https://e.org/\n"
    ours = base.replace(b"\n\n[r]", b"\n\n## New\n\n[r]")
    theirs = base.replace(b"\n\n[r]", b"\n\nmore text\n[r]")
    result = check(base, ours, theirs)
    assert [c.kind for c in result.conflicts] == ["text"]
    edited = ours.replace(b"| K-1 | a |", b"| K-1 | CHANGED |")  # not the last row: git conflicts too
    assert check(base, edited, theirs).conflicts


def test_last_lines_without_lf_keep_every_byte_property():
    from hypothesis import given, settings, strategies as st

    tails = st.text(alphabet="\rz \n", max_size=5).map(str.encode)

    @settings(max_examples=examples(300), deadline=None)
    @given(tails, tails, tails, st.booleans(), st.booleans())
    def run(t_base, t_ours, t_theirs, crlf, swap):
        table = b"| ID | S |\n|---|---|\n| K-1 | a |\n| K-2 | a |\n\nend"
        base = table + t_base
        ours = table.replace(b"| K-2 | a |\n", b"| K-2 | a |\n| K-3 | b |\n") + t_ours
        theirs = table.replace(b"| K-1 | a |", b"| K-1 | c |") + t_theirs
        if crlf:
            base, ours, theirs = (x.replace(b"|\n", b"|\r\n") for x in (base, ours, theirs))
        if swap:
            ours, theirs = theirs, ours
        result = merge(base, ours, theirs, Options(markers=Markers(7), key="ID"))
        assert not (result.fallback or "").startswith("self-check"), result.fallback  # the merge itself kept them
        if not result.conflicts:  # (in a conflict a last line gets the LF its marker needs)
            lines = model.split_lines(result.data)
            # a side's `end\r` with the other side's final LF after it is `end\r\n`: every byte kept
            assert [x for x in lost_lines(base, ours, theirs, result.data) if x + b"\n" not in lines] == []
            data, rc = git_merge_file(base, ours, theirs, 7)
            tail = data[data.rindex(b"end") :] if rc == 0 else None
            # the file's end merges as git merges it (the rows merge by key above it)
            assert tail is None or result.data.endswith(tail), (result.data, data)

    run()


def test_a_deleted_row_whose_text_the_base_has_as_prose_too_is_merged_by_rows():
    example = b"An example row:\n\n    | K-2 | a |\n\n"
    base = example + _T
    ours = example + _T.replace(b"| K-2 | a |\n", b"")
    theirs = example + _T.replace(b"| K-3 | a |", b"| K-3 | b |")
    result = check(base, ours, theirs)
    assert result.fallback is None and not result.conflicts
    assert result.data == example + b"| ID | S |\n|---|---|\n| K-1 | a |\n| K-3 | b |\n"


def test_both_sides_changing_the_last_line_and_its_cr_lf_conflict_there_as_in_git():
    # found by the property above: each side changed the last line, and two of
    # its three versions differ only in CR/LF; git conflicts, so does mergedrv,
    # on that line only (the prose merge sees the missing LF as git does),
    # the rows merged by key: here byte for byte git's result
    table = b"| ID | S |\n|---|---|\n| K-1 | a |\n| K-2 | a |\n\nend"
    for t_base, t_ours, t_theirs in ((b"\r\n", b"", b"\r"), (b"\r", b"z\r", b"\r\n"), (b"\r", b"\r\n", b"z\r\n"), (b"z\n", b"\r", b"\r\n")):
        base = table + t_base
        ours = table.replace(b"| K-2 | a |\n", b"| K-2 | a |\n| K-3 | b |\n") + t_ours
        theirs = table.replace(b"| K-1 | a |", b"| K-1 | c |") + t_theirs
        result = merge(base, ours, theirs, Options(markers=Markers(7), key="ID"))
        data, rc = git_merge_file(base, ours, theirs, 7)
        assert result.fallback is None and [c.kind for c in result.conflicts] == ["text"] and rc == 1
        assert result.data == data


def test_both_sides_changing_a_last_row_and_its_cr_lf_fall_back_to_git():
    # the same in a table's last row, whose LF the row merge merges apart: git's text merge
    table = b"| ID | S |\n|---|---|\n| K-1 | a |\n| K-2 | a"
    for t_base, t_ours, t_theirs in ((b" |\r\n", b" |", b" |\r"), (b" |\r", b"z |\r", b" |\r\n")):
        base = table + t_base
        ours = table.replace(b"| K-1 | a |\n", b"| K-1 | a |\n| K-3 | b |\n") + t_ours
        theirs = table.replace(b"| K-1 | a |", b"| K-1 | c |") + t_theirs
        result = merge(base, ours, theirs, Options(markers=Markers(7), key="ID"))
        data, rc = git_merge_file(base, ours, theirs, 7)
        assert result.fallback and "CR/LF" in result.fallback and (result.data, bool(result.conflicts)) == (data, bool(rc))

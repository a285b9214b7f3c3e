"""Issue #10, driver part: no merge loses a line of either side.

Each reproducer of the issue, merged with real `git merge-file`, checked by
one oracle: every line ours or theirs added or kept is in the result unless
the other side deleted or changed it, and no key is defined twice outside
conflict regions.
"""

from __future__ import annotations

import subprocess

from mergedrv import model
from mergedrv.merge import Options, merge
from mergedrv.merge import Markers, hunks
from tests.fuzz_gen import git_merge_file


def _strip(line: bytes) -> bytes:
    return line[:-2] if line.endswith(b"\r\n") else line[:-1] if line.endswith(b"\n") else line


def _row_keys(data: bytes, key: str | None) -> dict[bytes, str]:
    """line (without its ending) -> key of the row it is, for keyed rows."""
    if key is None:
        return {}
    try:
        doc = model.parse(data, key)
    except model.Unmodelable:
        return {}
    return {_strip(r.lines[0]): r.key for r in doc.rows()}


def _texts(data: bytes, key: str | None) -> dict[str, set[bytes]]:
    out: dict[str, set[bytes]] = {}
    for line, k in _row_keys(data, key).items():
        out.setdefault(k, set()).add(line)
    return out


def lost_lines(base: bytes, ours: bytes, theirs: bytes, out: bytes, key: str | None = "ID") -> list[bytes]:
    """Lines of ours or theirs the result should hold and does not."""
    have = {_strip(x) for x in model.split_lines(out)}
    o_lines = {_strip(x) for x in model.split_lines(base)}
    o_rows = _texts(base, key)
    missing = []
    for mine, other in ((ours, theirs), (theirs, ours)):
        other_lines = {_strip(x) for x in model.split_lines(other)}
        other_rows = _texts(other, key)
        mine_keys = _row_keys(mine, key)
        for raw in model.split_lines(mine):
            line = _strip(raw)
            if line in have:
                continue
            if line in o_lines:
                if line not in other_lines:
                    continue  # the other side deleted or changed it
            else:
                k = mine_keys.get(line)
                if k is not None and k in o_rows and other_rows.get(k) != o_rows[k]:
                    continue  # the other side changed or deleted this row
            missing.append(line)
    return missing


def doubled_keys(out: bytes, size: int, key: str = "ID") -> list[str]:
    clean = b"".join(line for h in hunks(out, size) if h.clean is not None for line in h.clean)
    keys = [r.key for r in model.parse(clean, key).rows()]
    return sorted({k for k in keys if keys.count(k) > 1})




def check(base: bytes, ours: bytes, theirs: bytes, key: str | None = "ID", log: bool = False, size: int = 7):
    result = merge(base, ours, theirs, Options(markers=Markers(size), key=None if log else key, log=log))
    assert lost_lines(base, ours, theirs, result.data, None if log else key) == []
    if result.fallback is not None:
        data, rc = git_merge_file(base, ours, theirs, size)
        assert result.data == data
        assert bool(result.conflicts) == bool(rc)
    elif not log:  # a duplicate a side has itself may stay (issue #16: one side touched it)
        own = set(doubled_keys(ours, size, key)) | set(doubled_keys(theirs, size, key))
        assert [k for k in doubled_keys(result.data, size, key) if k not in own] == []
    return result


# 1. columns changed on one side, a row deleted on the other


def test_column_added_ours_row_edited_and_deleted_theirs():
    base = b"| ID | State |\n|---|---|\n| K-1 | open |\n| K-2 | open |\n"
    ours = b"| ID | State | Owner |\n|---|---|---|\n| K-1 | open | alice |\n| K-2 | open | bob: DO NOT DELETE |\n"
    theirs = b"| ID | State |\n|---|---|\n| K-1 | open |\n"
    result = check(base, ours, theirs)
    assert b"bob: DO NOT DELETE" in result.data
    assert result.conflicts


def test_column_added_theirs_row_deleted_ours():
    base = b"| ID | State |\n|---|---|\n| K-1 | open |\n| K-2 | open |\n"
    theirs = b"| ID | State | Owner |\n|---|---|---|\n| K-1 | open | alice |\n| K-2 | open | bob: DO NOT DELETE |\n"
    ours = b"| ID | State |\n|---|---|\n| K-1 | open |\n"
    result = check(base, ours, theirs)
    assert b"bob: DO NOT DELETE" in result.data
    assert result.conflicts


def test_column_added_with_one_fill_value_row_deleted_is_clean():
    base = b"| ID | State |\n|---|---|\n| K-1 | open |\n| K-2 | open |\n"
    ours = b"| ID | State | Owner |\n|---|---|---|\n| K-1 | open | - |\n| K-2 | open | - |\n"
    theirs = b"| ID | State |\n|---|---|\n| K-1 | open |\n"
    result = check(base, ours, theirs)
    assert result.data == b"| ID | State | Owner |\n|---|---|---|\n| K-1 | open | - |\n"
    assert not result.conflicts


def test_column_added_row_moved_to_other_table_and_deleted():
    base = b"# A\n\n| ID | State |\n|---|---|\n| K-1 | open |\n| K-2 | open |\n\n# B\n\n| ID | State |\n|---|---|\n| K-3 | open |\n"
    ours = b"# A\n\n| ID | State | Owner |\n|---|---|---|\n| K-1 | open | alice |\n\n# B\n\n| ID | State |\n|---|---|\n| K-3 | open |\n| K-2 | closed |\n"
    theirs = b"# A\n\n| ID | State |\n|---|---|\n| K-1 | open |\n\n# B\n\n| ID | State |\n|---|---|\n| K-3 | open |\n"
    result = check(base, ours, theirs)
    assert b"| K-2 | closed |" in result.data


# 2. the same table added on both sides with different headers


def test_add_add_tables_with_different_headers():
    ours = b"| ID | Owner |\n|---|---|\n| K-1 | alice |\n"
    theirs = b"| ID | Reviewer |\n|---|---|\n| K-2 | bob |\n"
    result = check(b"", ours, theirs)
    assert b"| ID | Owner |" in result.data and b"| ID | Reviewer |" in result.data
    assert result.conflicts


def test_add_add_sections_with_different_headers_in_existing_file():
    base = b"# Intro\n\ntext\n"
    ours = base + b"\n## New\n\n| ID | Owner |\n|---|---|\n| K-1 | alice |\n"
    theirs = base + b"\n## New\n\n| ID | Reviewer |\n|---|---|\n| K-2 | bob |\n"
    result = check(base, ours, theirs)
    assert b"| ID | Owner |" in result.data and b"| ID | Reviewer |" in result.data


def test_add_add_logs_with_different_headers():
    ours = b"| n | what |\n|---|---|\n| 1 | one |\n"
    theirs = b"| n | who |\n|---|---|\n| 2 | two |\n"
    result = check(b"", ours, theirs, log=True)
    assert b"| n | what |" in result.data and b"| n | who |" in result.data


# 3. tables that share no key are not matched by position alone


def test_log_tables_matched_by_content_not_position():
    base = b"# Log\n\n| n | what |\n|---|---|\n| 1 | one |\n\npara\n\n| n | what |\n|---|---|\n| 2 | two |\n"
    ours = b"# Log\n\npara\n\n| n | what |\n|---|---|\n| 2 | two |\n| 4 | four |\n"
    theirs = b"# Log\n\n| n | what |\n|---|---|\n| 1 | one |\n| 3 | three |\n\npara\n\n| n | what |\n|---|---|\n| 2 | two |\n| 5 | five |\n"
    result = check(base, ours, theirs, log=True)
    assert b"| 3 | three |" in result.data
    assert b"| 4 | four |" in result.data and b"| 5 | five |" in result.data


# 4. mixed CRLF and LF


def test_mixed_crlf_and_lf_keeps_both_tables():
    base = b"# T\r\n\r\ntext\n\n| ID | v |\n|---|---|\n| A | 1 |\n| B | 2 |\n\n# U\n\n| ID | v |\r\n|---|---|\r\n| C | 3 |\r\n"
    ours = base.replace(b"| A | 1 |\n", b"| A | ours |\n").replace(b"text\n", b"text\r\n")
    theirs = base.replace(b"| C | 3 |\r\n", b"| C | theirs |\n| D | 4 |\r\n").replace(b"# U\n", b"# U\r\n")
    result = check(base, ours, theirs)
    assert b"| A | ours |" in result.data and b"| C | theirs |" in result.data and b"| D | 4 |" in result.data


# 5. a lone CR inside an untouched prose line stays byte-identical


def test_lone_cr_in_prose_is_untouched():
    base = b"stray\rCR here\n\n| ID | v |\n|---|---|\n| A | 1 |\n| B | 2 |\n"
    ours = base.replace(b"| A | 1 |", b"| A | ours |")
    theirs = base.replace(b"| B | 2 |", b"| B | theirs |")
    result = check(base, ours, theirs)
    assert result.data == b"stray\rCR here\n\n| ID | v |\n|---|---|\n| A | ours |\n| B | theirs |\n"


def test_hunks_split_only_on_newline():
    parts = hunks(b"a\rb\nc\r\n", 7)
    assert parts[0].clean == [b"a\rb\n", b"c\r\n"]


# 6. marker sizes below 7


def test_marker_size_three_with_marker_like_prose():
    # a line that reads as a marker of the size git asked for: git's text merge
    base = b"<<< not a marker\n||| nor this\n=== nor this\n>>> nor this\n\n| ID | v |\n|---|---|\n| A | 1 |\n| C | 3 |\n| B | 2 |\n"
    ours = base.replace(b"| A | 1 |", b"| A | ours |")
    theirs = base.replace(b"| B | 2 |", b"| B | theirs |")
    result = check(base, ours, theirs, size=3)
    assert b"<<< not a marker\n||| nor this\n=== nor this\n>>> nor this\n" in result.data
    assert not result.conflicts


def test_marker_size_three_keyed_merge_with_equals_runs():
    base = b"Title\n===\n\n| ID | v |\n|---|---|\n| A | 1 |\n| B | 2 |\n"
    ours = base.replace(b"| A | 1 |", b"| A | ours |")
    theirs = base.replace(b"| B | 2 |", b"| B | theirs |")
    result = check(base, ours, theirs, size=3)
    assert result.data == b"Title\n===\n\n| ID | v |\n|---|---|\n| A | ours |\n| B | theirs |\n"
    assert not result.conflicts


# 7. a row moved into a table that ends up conflicted


def test_row_moved_into_whole_table_conflict_keeps_other_sides_edit():
    base = b"# A\n\n| ID | v |\n|---|---|\n| K-1 | 1 |\n| K-2 | 2 |\n\n# B\n\n| ID | v |\n|---|---|\n| K-3 | 3 |\n"
    # ours moves K-2 into B and edits K-3 there; theirs edits K-2 in A and adds a column to B
    ours = b"# A\n\n| ID | v |\n|---|---|\n| K-1 | 1 |\n\n# B\n\n| ID | v |\n|---|---|\n| K-3 | ours |\n| K-2 | 2 |\n"
    theirs = b"# A\n\n| ID | v |\n|---|---|\n| K-1 | 1 |\n| K-2 | theirs edit |\n\n# B\n\n| ID | v | w |\n|---|---|---|\n| K-3 | 3 | x |\n"
    result = check(base, ours, theirs)
    assert b"theirs edit" in result.data
    assert result.conflicts


def test_row_moved_into_table_in_prose_conflict_keeps_other_sides_edit():
    base = b"# A\n\n| ID | v |\n|---|---|\n| K-1 | 1 |\n| K-2 | 2 |\n\nabout B\n\n| ID | v |\n|---|---|\n| K-3 | 3 |\n"
    ours = b"# A\n\n| ID | v |\n|---|---|\n| K-1 | 1 |\n\nabout B, ours\n\n| ID | v |\n|---|---|\n| K-3 | 3 |\n| K-2 | 2 |\n"
    theirs = b"# A\n\n| ID | v |\n|---|---|\n| K-1 | 1 |\n| K-2 | theirs edit |\n\nabout B, theirs\n\n| ID | v |\n|---|---|\n| K-3 | 3 |\n"
    result = check(base, ours, theirs)
    assert b"theirs edit" in result.data


def test_marker_size_three_prose_edit_is_not_a_false_conflict():
    base = b"<<< not a marker\n||| nor this\n=== nor this\n>>> nor this\n\nx\n\n| ID | v |\n|---|---|\n| A | 1 |\n| C | 3 |\n| B | 2 |\n"
    ours = base.replace(b"| A | 1 |", b"| A | ours |").replace(b"x\n", b"y\n")
    theirs = base.replace(b"| B | 2 |", b"| B | theirs |")
    result = check(base, ours, theirs, size=3)
    assert result.data.startswith(b"<<< not a marker\n||| nor this\n=== nor this\n>>> nor this\n\ny\n")
    assert not result.conflicts


def test_marker_size_three_short_runs_in_prose_keyed_merge():
    # runs shorter than the marker size are text: the keyed merge goes on
    base = b"<< two\n== two\n>> two\n\nx\n\n| ID | v |\n|---|---|\n| A | 1 |\n| B | 2 |\n"
    ours = base.replace(b"| A | 1 |", b"| A | ours |").replace(b"x\n", b"y\n")
    theirs = base.replace(b"| B | 2 |", b"| B | theirs |")
    result = check(base, ours, theirs, size=3)
    assert result.fallback is None
    assert result.data == b"<< two\n== two\n>> two\n\ny\n\n| ID | v |\n|---|---|\n| A | ours |\n| B | theirs |\n"
    assert not result.conflicts


# the self-check after every keyed merge


def _docs(base, ours, theirs):
    return model.parse_many([base, ours, theirs], "ID")


def test_self_check_finds_a_lost_line_and_a_doubled_key():
    from mergedrv.merge import Result, self_check

    base = b"| ID | v |\n|---|---|\n| A | 1 |\n| B | 2 |\n"
    ours = base.replace(b"| A | 1 |", b"| A | ours |")
    theirs = base + b"| C | 3 |\n"
    opts = Options(key="ID")
    good = b"| ID | v |\n|---|---|\n| A | ours |\n| B | 2 |\n| C | 3 |\n"
    assert self_check(_docs(base, ours, theirs), ours, theirs, Result(good), opts) is None
    lost = good.replace(b"| C | 3 |\n", b"")
    assert "theirs is missing" in self_check(_docs(base, ours, theirs), ours, theirs, Result(lost), opts)
    doubled = good + b"| B | 2 |\n"
    assert "B is defined 2 times" in self_check(_docs(base, ours, theirs), ours, theirs, Result(doubled), opts)
    invented = good + b"| Z | 2 |\n"
    assert "on neither side" in self_check(_docs(base, ours, theirs), ours, theirs, Result(invented), opts)


def test_self_check_accepts_deleted_copies_of_a_repeated_line():
    from mergedrv.merge import Result, self_check

    base = b"| ID | v |\n|---|---|\n| A | 1 |\n| | **x** |\n| B | 2 |\n| | **x** |\n"
    ours = b"| ID | v |\n|---|---|\n| A | 1 |\n| B | 2 |\n| | **x** |\n"
    theirs = b"| ID | v |\n|---|---|\n| A | 1 |\n| | **x** |\n| B | 2 |\n"
    out = b"| ID | v |\n|---|---|\n| A | 1 |\n| B | 2 |\n"
    assert self_check(_docs(base, ours, theirs), ours, theirs, Result(out), Options(key="ID")) is None


# 4. (the keyed merge itself, without the self-check behind it)


def test_mixed_crlf_prose_merge_that_drops_a_table_falls_back():
    import pytest

    from mergedrv.merge import Fallback, merge_documents
    from tests.fuzz_gen import case

    base, ours, theirs, size = case(2815)  # CRLF and LF mixed differently on each side
    assert b"\r\n" in ours and b"\r\n" in theirs
    docs = model.parse_many([base, ours, theirs], "ID")
    with pytest.raises(Fallback, match="lost the place of a table of theirs"):
        merge_documents(docs, Options(markers=Markers(size), key="ID"))
    result = check(base, ours, theirs, size=size)
    assert b"| K-84 | theirs-new |" in result.data


# through the driver, as git runs it


def _drive(tmp_path, base, ours, theirs, *extra, config='[[record]]\nname = "R"\npath = "rec.md"\nkey = "ID"\n'):
    from tests.helpers import MERGEDRV

    for name, data in (("O", base), ("A", ours), ("B", theirs)):
        (tmp_path / name).write_bytes(data)
    (tmp_path / ".mergedrv.toml").write_text(config)
    proc = subprocess.run([*MERGEDRV, "merge", "O", "A", "B", "-p", "rec.md", *extra], cwd=tmp_path, capture_output=True)
    assert b"Traceback" not in proc.stderr
    return proc.returncode, (tmp_path / "A").read_bytes(), proc.stderr.decode()


def test_driver_issue_reproducer_column_change_keeps_the_deleted_rows_edit(tmp_path):
    rc, out, err = _drive(
        tmp_path,
        b"| ID | State |\n|---|---|\n| K-1 | open |\n| K-2 | open |\n",
        b"| ID | State | Owner |\n|---|---|---|\n| K-1 | open | alice |\n| K-2 | open | bob: DO NOT DELETE |\n",
        b"| ID | State |\n|---|---|\n| K-1 | open |\n",
        "-l", "7",
    )
    assert rc == 1 and b"bob: DO NOT DELETE" in out
    assert "conflict" in err


def test_driver_issue_reproducer_log_tables_by_content(tmp_path):
    base = b"# Log\n\n| n | what |\n|---|---|\n| 1 | one |\n\npara\n\n| n | what |\n|---|---|\n| 2 | two |\n"
    ours = b"# Log\n\npara\n\n| n | what |\n|---|---|\n| 2 | two |\n| 4 | four |\n"
    theirs = b"# Log\n\n| n | what |\n|---|---|\n| 1 | one |\n| 3 | three |\n\npara\n\n| n | what |\n|---|---|\n| 2 | two |\n| 5 | five |\n"
    rc, out, err = _drive(tmp_path, base, ours, theirs, config='[[log]]\npath = "rec.md"\n')
    assert b"| 3 | three |" in out and b"| 4 | four |" in out and b"| 5 | five |" in out


def test_driver_mixed_line_endings_fall_back_and_say_why(tmp_path):
    from tests.fuzz_gen import case

    base, ours, theirs, size = case(2815)
    rc, out, err = _drive(tmp_path, base, ours, theirs, "-l", str(size), "-x", "ours", "-s", "base", "-y", "theirs")
    data, git_rc = git_merge_file(base, ours, theirs, size)
    assert out == data and rc == (1 if git_rc else 0)
    # this case also changes its last line's CR/LF on one side, which is said first
    assert any(f"merged as plain text: {why}" in err for why in (
        "the prose merge lost the place of a table of theirs", "both sides changed the last line differently, one only in its CR/LF ending")), err


def test_driver_self_check_fallback_equals_git_and_says_why(tmp_path):
    import sys

    from tests.fuzz_gen import case

    # classic fuzz seed 525 lost a line of theirs before the fix of
    # tables._reshaped (tests/checks/test_fuzz_findings.py); the driver runs here
    # with that fix taken back out, as a merge bug that remains would be
    base, ours, theirs, size = case(525)
    broken = (
        "import sys; from mergedrv.merge import tables; "
        "tables.Ctx.moved = property(lambda self: [], lambda self, v: None); "
        "from mergedrv.entry import main; sys.exit(main())"
    )
    for name, data in (("O", base), ("A", ours), ("B", theirs)):
        (tmp_path / name).write_bytes(data)
    (tmp_path / ".mergedrv.toml").write_text('[[record]]\nname = "R"\npath = "rec.md"\nkey = "ID"\n')
    args = ["merge", "O", "A", "B", "-p", "rec.md", "-l", str(size), "-x", "ours", "-s", "base", "-y", "theirs"]
    proc = subprocess.run([sys.executable, "-c", broken, *args], cwd=tmp_path, capture_output=True)
    assert b"Traceback" not in proc.stderr
    rc, out, err = proc.returncode, (tmp_path / "A").read_bytes(), proc.stderr.decode()
    data, git_rc = git_merge_file(base, ours, theirs, size)
    assert out == data and rc == (1 if git_rc else 0)
    assert "merged as plain text: self-check: a line of theirs is missing from the merged result" in err


# 8. no key doubled outside conflicts


def test_column_added_with_a_key_doubled_by_the_same_side_keeps_that_sides_rows():
    # theirs left K-1 as the base has it: ours' two K-1 rows are taken as they
    # are (issue #16's rule; keys-unique reports the duplicate), and K-2, which
    # ours changed only by the new column's fill value, is deleted with theirs
    base = b"| ID | V |\n|---|---|\n| K-1 | a |\n| K-2 | b |\n"
    ours = b"| ID | V | W |\n|---|---|---|\n| K-1 | a | - |\n| K-2 | b | - |\n| K-1 | again | - |\n"
    theirs = base.replace(b"| K-2 | b |\n", b"")
    result = check(base, ours, theirs)
    assert result.fallback is None and not result.conflicts
    assert result.data == b"| ID | V | W |\n|---|---|---|\n| K-1 | a | - |\n| K-1 | again | - |\n"
    assert any("defined 2 times in ours" in n for n in result.notes)


def test_self_check_reads_rows_on_both_sides_of_a_row_conflict_as_one_table():
    from mergedrv.merge import Conflict, Result, self_check

    base = b"| ID | v |\n|---|---|\n| A | 1 |\n| B | 2 |\n| C | 3 |\n\ntext | with a pipe\n"
    ours = base.replace(b"| B | 2 |", b"| B | ours |")
    theirs = base.replace(b"| B | 2 |", b"| B | theirs |")
    block = b"<<<<<<< ours\n| B | ours |\n||||||| base\n| B | 2 |\n=======\n| B | theirs |\n>>>>>>> theirs\n"
    good = b"| ID | v |\n|---|---|\n| A | 1 |\n" + block + b"| C | 3 |\n\ntext | with a pipe\n"
    conflict = [Conflict("same-cell", "B", "x", 4)]
    opts = Options(key="ID")
    assert self_check(_docs(base, ours, theirs), ours, theirs, Result(good, conflict), opts) is None
    doubled = good.replace(b"| C | 3 |\n", b"| C | 3 |\n| A | 1 |\n")
    assert "A is defined 2 times" in self_check(_docs(base, ours, theirs), ours, theirs, Result(doubled, conflict), opts)

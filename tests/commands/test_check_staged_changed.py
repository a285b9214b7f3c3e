"""`check --staged` checks the index and the parent only where the change can
have made a finding (the files it touched, the records they belong to, the
references a removed key leaves dangling): what it calls introduced must be
what checking the whole index and the whole parent says.  Each case is also
run with `--config`, which checks the whole index and marks its findings by
checking the whole parent (the way every check did before), and the two must
agree on what blocks; the hook counts the inherited findings only where it
looked."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.checks_helpers import check, edit
from tests.helpers import commit, git

CONFIG = """
[[record]]
name = "A"
path = "recs/*.md"
key = "ID"
key_pattern = '^A-[0-9]+$'
ref_files = ["notes.md"]

[[record]]
name = "B"
path = "b.md"
key = "ID"
key_pattern = '^B-[0-9]+$'
pin = 2
ref_files = ["notes.md"]
"""

ONE = "# One\n\n| ID | State |\n|---|---|\n| A-1 | open |\n| A-2 | open |\n| A-3 | open |\n"
TWO = "# Two\n\n| ID | State |\n|---|---|\n| A-4 | open |\n| A-3 | again |\n"  # A-3 twice across the files: an old finding
B = "# B\n\n| ID | State |\n|---|---|\n| B-1 | open |\n| B-2 | open |\n"
NOTES = "# Notes\n\nSee `A-1`, `A-4` and `B-1`; `A-9` was never a key (an old finding).\n"


@pytest.fixture
def records(repo: Path) -> Path:
    commit(repo, "records", {".mergedrv.toml": CONFIG, "recs/one.md": ONE, "recs/two.md": TWO, "b.md": B, "notes.md": NOTES})
    code, out, _ = check(repo, "--all")
    assert code == 1 and len(out) == 2 and "A-9 names no key" in out[0] and "keys-unique" in out[1], out
    return repo


def _staged(repo: Path) -> tuple[int, list[str], str]:
    """`check --staged`, asserted to block on what the whole check blocks on (`--config`)."""
    got = check(repo, "--staged")
    whole = check(repo, "--staged", "--config", ".mergedrv.toml")
    assert got[:2] == whole[:2], (got, whole)
    assert "2 inherited findings (already in the parent commit)" in whole[2], whole  # what the whole check counts
    return got


def test_an_edit_elsewhere_leaves_the_findings_of_the_untouched_files_unread(records):
    edit(records / "b.md", "| B-2 | open |", "| B-2 | done |")
    git(records, "add", "b.md")
    code, out, err = _staged(records)
    assert code == 0 and out == [] and "inherited" not in err, (out, err)  # neither is where the change is


def test_a_touched_record_keeps_its_double_key_across_files_inherited(records):
    edit(records / "recs/one.md", "| A-1 | open |", "| A-1 | done |")
    git(records, "add", "recs/one.md")
    code, out, err = _staged(records)
    assert code == 0 and out == [] and "1 inherited finding in what this change touches" in err, (out, err)


def test_a_key_removed_in_a_touched_file_makes_a_reference_in_an_untouched_file_dangle(records):
    edit(records / "recs/one.md", "| A-1 | open |\n", "")
    git(records, "add", "recs/one.md")
    code, out, err = _staged(records)
    assert code == 1 and len(out) == 1 and out[0].startswith("notes.md:3: refs: A: A-1 names no key"), out
    assert "2 inherited findings" in err, err  # A-9 and A-3's double definition stay the parent's


def test_a_removed_key_is_looked_for_only_in_the_files_that_cite_it(records):
    # an untouched reference file that never names A-2, with an old finding of its own
    (records / "more.md").write_text("# More\n\nOnly `B-2` and `A-7` here (an old finding).\n")
    edit(records / ".mergedrv.toml", 'ref_files = ["notes.md"]\n\n[[record]]\nname = "B"',
         'ref_files = ["notes.md", "more.md"]\n\n[[record]]\nname = "B"')
    git(records, "add", "more.md", ".mergedrv.toml")
    git(records, "commit", "-q", "--no-verify", "-m", "more references")
    edit(records / "notes.md", "`A-1`, `A-4`", "`A-1`, `A-2`, `A-4`")
    git(records, "add", "notes.md")
    git(records, "commit", "-q", "--no-verify", "-m", "cite A-2")
    edit(records / "recs/one.md", "| A-2 | open |\n", "")
    git(records, "add", "recs/one.md")
    got = check(records, "--staged")
    whole = check(records, "--staged", "--config", ".mergedrv.toml")
    assert got[:2] == whole[:2], (got, whole)
    code, out, err = got
    assert code == 1 and len(out) == 1 and out[0].startswith("notes.md:3: refs: A: A-2 names no key"), out
    assert "3 inherited findings (already" in whole[2], whole  # A-9, A-7 and A-3's double definition
    assert "2 inherited findings in what this change touches" in err, err  # more.md, which names no A-2, unread


def test_a_key_added_twice_across_the_files_of_a_glob_record_is_the_change_s(records):
    edit(records / "recs/one.md", "| A-3 | open |\n", "| A-3 | open |\n| A-4 | new |\n")
    git(records, "add", "recs/one.md")
    code, out, err = _staged(records)
    # reported at its second definition, in the file the change did not touch
    assert code == 1 and len(out) == 1 and out[0].startswith("recs/two.md:5: keys-unique:") and "A-4" in out[0], out


def test_a_key_added_with_its_pin_moved_passes(records):
    edit(records / "b.md", "| B-2 | open |\n", "| B-2 | open |\n| B-3 | new |\n")
    edit(records / ".mergedrv.toml", "pin = 2", "pin = 3")
    git(records, "add", "b.md", ".mergedrv.toml")
    code, out, err = check(records, "--staged")
    assert code == 0 and out == [] and "inherited" not in err, (out, err)  # A's findings are not where B is
    assert check(records, "--staged", "--all")[0] == 1  # (they are still there)
    edit(records / ".mergedrv.toml", "pin = 3", "pin = 4")
    git(records, "add", ".mergedrv.toml")
    code, out, err = check(records, "--staged")
    assert code == 1 and len(out) == 1 and "ratchet" in out[0] and "B has 3 keys but its pin is 4" in out[0], out


def test_an_old_finding_that_moves_with_the_change_stays_inherited_and_a_new_one_is_not(records):
    edit(records / "notes.md", "# Notes\n\n", "# Notes\n\nA line above: the old finding moves down.\n\n")
    git(records, "add", "notes.md")
    code, out, err = _staged(records)
    assert code == 0 and out == [] and "inherited" not in err, (out, err)  # no key removed: the line it sits on, unchanged, is not read
    edit(records / "notes.md", "(an old finding)", "(an old finding); and `A-8`")
    git(records, "add", "notes.md")
    code, out, err = _staged(records)
    assert code == 1 and len(out) == 1 and "A-8 names no key" in out[0], out
    assert "1 inherited finding in what this change touches" in err, err  # A-9, on the line the change rewrote


def test_references_on_lines_the_change_left_as_they_are_are_not_read_again(records):
    """No key removed: a reference the parent's file holds on the same line
    names what it named there, so only the new lines' references are read;
    a new line naming a key that never was blocks, one naming a dangling
    key already cited is the parent's finding."""
    edit(records / "notes.md", "(an old finding).\n", "(an old finding).\n\nAlso `A-9` again, and `A-7`.\n")
    git(records, "add", "notes.md")
    code, out, err = check(records, "--staged")
    assert check(records, "--staged", "--config", ".mergedrv.toml")[:2] == (code, out)
    assert code == 1 and [line.split(": ", 2)[:2] for line in out] == [["notes.md:5", "refs"]] and "A-7 names no key" in out[0], out
    assert "2 inherited findings in what this change touches" in err, err  # `A-9`, cited on the new line and the old one: the parent's finding


COUNTED = """
[[record]]
name = "C"
path = "c.md"
key = "ID"

[[record.count]]
file = "counts.txt"
pattern = 'C: (\\d+)'

[[record]]
name = "D"
path = "d.md"
key = "ID"
key_pattern = '^D-[0-9]+$'

[[record.count]]
file = "counts.txt"
pattern = 'D: (\\d+)'
"""


def test_a_record_counted_in_the_same_file_as_the_touched_one_is_not_examined(repo):
    """Two records count their rows in one checker file: a change to the
    first reads that file for its count, but the second record (with an old
    double key and a stale count) is not examined for it."""
    table = "| ID | v |\n|---|---|\n"
    commit(repo, "records", {".mergedrv.toml": COUNTED, "c.md": table + "| C-1 | a |\n", "d.md": table + "| D-1 | a |\n| D-1 | b |\n",
                              "counts.txt": "C: 1\nD: 5\n"})
    assert check(repo, "--all")[0] == 1
    edit(repo / "c.md", "| C-1 | a |", "| C-1 | b |")
    git(repo, "add", "c.md")
    code, out, err = check(repo, "--staged")
    assert code == 0 and out == [] and "inherited" not in err, (out, err)
    whole = check(repo, "--staged", "--config", ".mergedrv.toml")
    assert whole[:2] == (0, []) and "inherited" in whole[2], whole
    edit(repo / "c.md", "| C-1 | b |", "| C-1 | b |\n| C-2 | c |")
    git(repo, "add", "c.md")
    code, out, err = check(repo, "--staged")
    assert code == 1 and len(out) == 1 and out[0].startswith("counts.txt:1: ") and "C" in out[0], out


REFS = """
[[record]]
name = "E"
path = "e.md"
key = "ID"
key_pattern = '^E-[0-9]+$'
refs = ["Needs"]
"""


def test_a_reference_column_is_read_on_the_rows_the_change_wrote(repo):
    """No key removed: a reference cell on a row the change left as it is (an
    old dangling one) is not read again; one on an edited row is."""
    table = "| ID | Needs | v |\n|---|---|---|\n"
    commit(repo, "records", {".mergedrv.toml": REFS, "e.md": table + "| E-1 | E-9 | a |\n| E-2 | E-1 | a |\n"})
    edit(repo / "e.md", "| E-2 | E-1 | a |", "| E-2 | E-1 | b |")
    git(repo, "add", "e.md")
    code, out, err = check(repo, "--staged")
    assert code == 0 and out == [] and "inherited" not in err, (out, err)
    edit(repo / "e.md", "| E-2 | E-1 | b |", "| E-2 | E-8 | b |")
    git(repo, "add", "e.md")
    code, out, err = check(repo, "--staged")
    assert code == 1 and len(out) == 1 and out[0].startswith("e.md:4: refs: E: column Needs: E-8 names no key"), out
    assert check(repo, "--staged", "--config", ".mergedrv.toml")[:2] == (code, out)


@pytest.mark.parametrize("before, after", [
    ("| ID | Notes | v |\n|---|---|---|\n| E-1 | E-9 | a |\n", "| ID | Needs | v |\n|---|---|---|\n| E-1 | E-9 | a |\n"),  # the header renamed
    ("| ID | v | Needs |\n|---|---|---|\n| E-1 | E-9 | a |\n", "| ID | Needs | v |\n|---|---|---|\n| E-1 | E-9 | a |\n"),  # columns swapped
    ("| ID | Needs | v |\n|---|---|---|\n| E-1 | E-1 | a |\n\n```\n| E-2 | E-9 | a |\n```\n",
     "| ID | Needs | v |\n|---|---|---|\n| E-1 | E-1 | a |\n| E-2 | E-9 | a |\n"),  # a line moved out of a code fence into the table
])
def test_a_line_the_parent_holds_is_read_again_under_another_header_or_out_of_a_fence(repo, before, after):
    """A line's references are settled only under the same header: the same
    bytes read under a renamed header, or moved into the table from a code
    block, name references they did not (review of the settled lines)."""
    commit(repo, "records", {".mergedrv.toml": REFS, "e.md": before})
    (repo / "e.md").write_text(after)
    git(repo, "add", "e.md")
    code, out, _ = check(repo, "--staged")
    assert code == 1 and len(out) == 1 and "E-9 names no key" in out[0], out
    assert check(repo, "--staged", "--config", ".mergedrv.toml")[:2] == (code, out)

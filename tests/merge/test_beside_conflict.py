"""Derived numbers beside a conflict (issue #12, item 5): a rollup, grid
cell or prose count never gets a conflict region of its own; it is written
from the merged rows, each conflicted key counted once with ours' cells, and
stderr says so and that `mergedrv fix` sets them after the person resolves."""

from __future__ import annotations

import subprocess

from mergedrv import config
from mergedrv.merge import Markers, merge_path

from tests.helpers import MERGEDRV, git, diverge
from tests.test_derived_grid import CFG, PATH, _repo, fixed, set_state, sides, wrong

SMALL = """\
# Rec

3 rows are tracked; 1 is done.

| ID | State |
|---|---|
| K-1 | DONE |
| K-2 | OPEN |
| K-3 | OPEN |
"""
SMALL_CFG = config.loads(
    """
[[record]]
name = "K"
path = "rec.md"
key = "ID"

[[record.count]]
pattern = '(\\d+) rows are tracked'

[[record.count]]
pattern = '(\\d+) is done'
where = { State = "DONE" }
"""
)


def test_a_row_conflict_leaves_the_grid_clean_and_counted_with_ours_cells():
    base, _, _ = sides()
    ours = fixed(set_state(set_state(base, "ENG-BATCH-INVARIANT", "INVENTORIED", "READY"), "PAR-PP", "INVENTORIED", "SPIKE"))
    theirs = fixed(set_state(base, "ENG-BATCH-INVARIANT", "INVENTORIED", "DONE"))
    result = merge_path(PATH, base, ours, theirs, CFG, Markers())
    assert len(result.conflicts) == 1
    assert result.data.count(b"<<<<<<<") == 1
    ours_resolution = result.data.split(b"<<<<<<< ours\n")[0] + result.data.split(b"<<<<<<< ours\n")[1].split(b"||||||| base\n")[0] + result.data.split(b">>>>>>> theirs\n")[1]
    assert ours_resolution == ours  # the grid counted with ours' cells: exactly ours' grid
    assert wrong(ours_resolution) == []
    assert any("mergedrv fix" in n and "ours' cells" in n for n in result.notes)


def test_prose_counts_beside_a_conflict_count_each_key_once():
    base = SMALL.encode()
    ours = base.replace(b"| K-2 | OPEN |", b"| K-2 | DONE |").replace(b"1 is done", b"2 is done").replace(b"| K-3 | OPEN |\n", b"| K-3 | OPEN |\n| K-4 | OPEN |\n").replace(b"3 rows", b"4 rows")
    theirs = base.replace(b"| K-2 | OPEN |", b"| K-2 | WONTFIX |").replace(b"| K-3 | OPEN |\n", b"| K-3 | OPEN |\n| K-5 | OPEN |\n").replace(b"3 rows", b"4 rows")
    result = merge_path("rec.md", base, ours, theirs, SMALL_CFG, Markers())
    assert len(result.conflicts) == 1
    head = result.data.split(b"\n\n| ID")[0]
    assert head == b"# Rec\n\n5 rows are tracked; 2 is done."  # K-1..K-5 once each, K-2 as ours has it
    assert b"<<<<<<<" not in head


def test_the_driver_says_so_and_fix_sets_the_numbers_after_the_person_resolves(tmp_path):
    base = SMALL.encode()
    ours = base.replace(b"| K-2 | OPEN |", b"| K-2 | DONE |").replace(b"1 is done", b"2 is done")
    theirs = base.replace(b"| K-2 | OPEN |", b"| K-2 | WONTFIX |").replace(b"| K-3 | OPEN |\n", b"| K-3 | OPEN |\n| K-5 | OPEN |\n").replace(b"3 rows", b"4 rows")
    repo = _repo(tmp_path)
    (repo / ".mergedrv.toml").write_text(
        '[[record]]\nname = "K"\npath = "rec.md"\nkey = "ID"\n\n[[record.count]]\npattern = \'(\\d+) rows are tracked\'\n\n'
        '[[record.count]]\npattern = \'(\\d+) is done\'\nwhere = { State = "DONE" }\n'
    )
    diverge(repo, "rec.md", base, ours, theirs)
    proc = git(repo, "merge", "topic", check=False)
    assert proc.returncode == 1
    assert "rec.md:" in proc.stderr and "`mergedrv fix`" in proc.stderr and "ours' cells" in proc.stderr
    merged = (repo / "rec.md").read_bytes()
    assert merged.startswith(b"# Rec\n\n4 rows are tracked; 2 is done.\n")
    # the person resolves the row as theirs, then runs fix
    lines = merged.split(b"\n")
    start = next(i for i, ln in enumerate(lines) if ln.startswith(b"<<<<<<< "))
    end = next(i for i, ln in enumerate(lines) if ln.startswith(b">>>>>>> "))
    (repo / "rec.md").write_bytes(b"\n".join(lines[:start] + [b"| K-2 | WONTFIX |"] + lines[end + 1 :]))
    fix = subprocess.run([*MERGEDRV, "fix"], cwd=repo, capture_output=True, text=True)
    assert fix.returncode == 0, fix.stdout + fix.stderr
    assert (repo / "rec.md").read_bytes().startswith(b"# Rec\n\n4 rows are tracked; 1 is done.\n")


def test_check_during_the_conflict_reports_each_region_once_and_nothing_else(tmp_path):
    from tests.checks_helpers import check

    base = SMALL.encode()
    ours = base.replace(b"| K-2 | OPEN |", b"| K-2 | DONE |").replace(b"1 is done", b"2 is done").replace(b"| K-1 | DONE |", b"| K-1 | DONE (a) |")
    theirs = base.replace(b"| K-2 | OPEN |", b"| K-2 | WONTFIX |").replace(b"| K-1 | DONE |", b"| K-1 | DONE (b) |")
    repo = _repo(tmp_path)
    (repo / ".mergedrv.toml").write_text(
        '[[record]]\nname = "K"\npath = "rec.md"\nkey = "ID"\nkey_pattern = \'^K-\\d+$\'\nref_files = ["notes.md"]\npin = 3\n\n'
        "[[record.count]]\npattern = '(\\d+) rows are tracked'\n"
    )
    (repo / "rec.md").write_bytes(base)
    (repo / "notes.md").write_text("Notes: `K-1`, `K-2` and `K-3` are tracked.\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    git(repo, "checkout", "-qb", "topic")
    (repo / "rec.md").write_bytes(theirs)
    git(repo, "commit", "-qam", "theirs")
    git(repo, "checkout", "-q", "main")
    (repo / "rec.md").write_bytes(ours)
    git(repo, "commit", "-qam", "ours")
    assert git(repo, "merge", "topic", check=False).returncode == 1
    merged = (repo / "rec.md").read_text().split("\n")
    starts = [n for n, line in enumerate(merged, 1) if line.startswith("<<<<<<< ")]
    assert len(starts) == 2
    code, out, err = check(repo)
    assert code == 1, err
    assert out == [f"rec.md:{n}: table-shape: a conflict region from a merge (lines {n}-{m}): resolve it; nothing else in this file is checked until then, and `mergedrv fix` sets its derived numbers after" for n, m in zip(starts, [next(i for i, line in enumerate(merged, 1) if i > s and line.startswith(">>>>>>> ")) for s in starts])]


def test_the_pin_counter_counts_a_key_both_sides_added_once(tmp_path):
    """Both sides add K-4 (differently) and move the pin 3 -> 4: git takes the
    identical `.mergedrv.toml`; after the person resolves the double
    definition, `mergedrv fix` keeps the pin at 4, not base plus both moves."""
    base = SMALL.encode()
    ours = base + b"| K-4 | OPEN |\n"
    theirs = base + b"| K-4 | DONE |\n"
    repo = _repo(tmp_path)
    conf = '[[record]]\nname = "K"\npath = "rec.md"\nkey = "ID"\npin = {}\n'
    (repo / ".mergedrv.toml").write_text(conf.format(3))
    (repo / "rec.md").write_bytes(base)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    git(repo, "checkout", "-qb", "topic")
    (repo / "rec.md").write_bytes(theirs)
    (repo / ".mergedrv.toml").write_text(conf.format(4))
    git(repo, "commit", "-qam", "theirs")
    git(repo, "checkout", "-q", "main")
    (repo / "rec.md").write_bytes(ours)
    (repo / ".mergedrv.toml").write_text(conf.format(4))
    git(repo, "commit", "-qam", "ours")
    assert git(repo, "merge", "topic", check=False).returncode == 1
    (repo / "rec.md").write_bytes(ours)  # the person keeps ours' K-4
    fix = subprocess.run([*MERGEDRV, "fix"], cwd=repo, capture_output=True, text=True)
    assert fix.returncode == 0, fix.stdout + fix.stderr
    assert (repo / ".mergedrv.toml").read_text() == conf.format(4)

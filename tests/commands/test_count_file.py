"""A count searched in another tracked file (`[[record.count]] file`, #18): a
checker script's hard-coded row count is judged, fixed and kept in step with
the record like a prose count, by `check` (working tree, index, range), `fix`,
the pre-commit hook and a merge's conclusion."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.helpers import git
from tests.install_helpers import install, mergedrv

CONFIG = """\
[[record]]
name = "M"
path = "m.md"
key = "ID"
pin = 4

[[record.count]]
file = "scripts/check.py"
pattern = '"M": \\("m.md", (\\d+)\\)'
"""
PATTERN = '"M": \\("m.md", (\\d+)\\)'
SCRIPT = 'MATRICES = {\n    "M": ("m.md", 4),\n}\nprint("checked")\n'


def table(*keys: str) -> str:
    return "# Models\n\n| ID | State |\n|---|---|\n" + "".join(f"| {k} | DONE |\n" for k in keys)


BASE = ("M-1", "M-2", "M-7", "M-8")


@pytest.fixture
def counted(repo: Path) -> Path:
    """A record of four rows, whose checker script states 4."""
    (repo / "scripts").mkdir()
    (repo / "m.md").write_text(table(*BASE))
    (repo / "scripts/check.py").write_text(SCRIPT)
    (repo / ".mergedrv.toml").write_text(CONFIG)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "records")
    return repo


def add_row(repo: Path, key: str = "M-9") -> None:
    with (repo / "m.md").open("a") as fh:
        fh.write(f"| {key} | DONE |\n")


def each_adds_a_row(repo: Path) -> None:
    """With the hooks installed, branch side adds M-9 and main M-0, each
    through a commit that sets the pin and the script 4 -> 5; main is checked out."""
    install(repo)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--no-verify", "-m", "attributes")
    git(repo, "checkout", "-q", "-b", "side")
    add_row(repo, "M-9")
    assert git(repo, "commit", "-qam", "add M-9", check=False).returncode == 0
    git(repo, "checkout", "-q", "main")
    (repo / "m.md").write_text(table("M-0", *BASE))
    assert git(repo, "commit", "-qam", "add M-0", check=False).returncode == 0


def stale(line: int, says: int, gives: int) -> str:
    return f"scripts/check.py:{line}: rollup: M: count '{PATTERN}' says {says}, the rows give {gives} (`mergedrv fix` rewrites it)"


def test_check_reports_the_stale_constant_at_its_line(counted):
    assert mergedrv(counted, "check").returncode == 0
    add_row(counted)
    proc = mergedrv(counted, "check")
    assert proc.returncode == 1
    assert stale(2, 4, 5) in proc.stdout.splitlines(), proc.stdout


def test_fix_rewrites_the_constant_of_every_record_naming_the_file(counted):
    """Two records' constants in one script, one of them growing a digit
    (9 -> 10): each is set, the rest of the file byte for byte."""
    nine = "".join(f"| N-{i} | x |\n" for i in range(1, 10))
    script = 'MATRICES = {\n    "N": ("n.md", 9),\n    "M": ("m.md", 4),\n}\n'
    (counted / "n.md").write_text("# N\n\n| ID | What |\n|---|---|\n" + nine)
    (counted / "scripts/check.py").write_text(script)
    (counted / ".mergedrv.toml").write_text(CONFIG + '\n[[record]]\nname = "N"\npath = "n.md"\nkey = "ID"\n\n'
                                            '[[record.count]]\nfile = "scripts/check.py"\npattern = \'"N": \\("n.md", (\\d+)\\)\'\n')
    git(counted, "add", "-A")
    git(counted, "commit", "-q", "-m", "two records")
    add_row(counted)
    with (counted / "n.md").open("a") as fh:
        fh.write("| N-10 | x |\n")
    proc = mergedrv(counted, "fix")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"scripts/check.py:3: fixed: M: count '{PATTERN}': 4 -> 5" in proc.stdout.splitlines(), proc.stdout
    assert "scripts/check.py:2: fixed: N: count '\"N\": \\(\"n.md\", (\\d+)\\)': 9 -> 10" in proc.stdout.splitlines()
    assert (counted / "scripts/check.py").read_text() == script.replace("9)", "10)").replace("4)", "5)")
    assert mergedrv(counted, "check").returncode == 0


def test_one_commit_through_the_hooks_restages_the_script(counted):
    install(counted)
    git(counted, "add", "-A")
    git(counted, "commit", "-q", "--no-verify", "-m", "attributes")
    add_row(counted)
    proc = git(counted, "commit", "-am", "add M-9", check=False)  # once
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert f"scripts/check.py:2: fixed: M count '{PATTERN}' 4 -> 5" in out
    assert "\nM 4 -> 5\n" in git(counted, "log", "-1", "--format=%B").stdout
    assert '"M": ("m.md", 5)' in git(counted, "show", "HEAD:scripts/check.py").stdout
    assert git(counted, "status", "--porcelain").stdout == ""
    check = mergedrv(counted, "check", "--base", "HEAD~1", "--head", "HEAD")
    assert check.returncode == 0 and check.stdout == "", check.stdout + check.stderr


def test_a_script_with_unstaged_changes_is_not_fixed_and_blocks(counted):
    install(counted)
    git(counted, "add", "-A")
    git(counted, "commit", "-q", "--no-verify", "-m", "attributes")
    add_row(counted)
    git(counted, "add", "m.md")
    with (counted / "scripts/check.py").open("a") as fh:
        fh.write("# an unstaged note\n")
    proc = git(counted, "commit", "-m", "add M-9", check=False)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    assert "scripts/check.py:1: not fixed: it has unstaged changes" in out
    assert stale(2, 4, 5) in out
    assert git(counted, "show", ":scripts/check.py").stdout == SCRIPT  # nothing restaged


def test_the_staged_check_reads_the_script_and_the_record_alone(counted):
    """A change to the script alone, or to the record alone, is judged."""
    (counted / "scripts/check.py").write_text(SCRIPT.replace("4)", "7)"))
    git(counted, "add", "scripts/check.py")
    proc = mergedrv(counted, "check", "--staged")
    assert proc.returncode == 1 and stale(2, 7, 4) in proc.stdout, proc.stdout + proc.stderr
    git(counted, "checkout", "HEAD", "--", "scripts/check.py")
    add_row(counted)
    git(counted, "add", "m.md")
    proc = mergedrv(counted, "check", "--staged")
    assert proc.returncode == 1 and stale(2, 4, 5) in proc.stdout, proc.stdout + proc.stderr


def _commit(repo: Path, message: str) -> str:
    git(repo, "commit", "-q", "--no-verify", "-am", message)
    return git(repo, "rev-parse", "--short", "HEAD").stdout.strip()


def test_range_mode_finds_a_row_added_without_the_constant_and_a_wrong_constant(counted):
    base = git(counted, "rev-parse", "HEAD").stdout.strip()
    config = counted / ".mergedrv.toml"
    add_row(counted, "M-9")
    config.write_text(config.read_text().replace("pin = 4", "pin = 5"))
    (counted / "scripts/check.py").write_text(SCRIPT.replace("4)", "5)"))
    _commit(counted, "both\n\nM 4 -> 5")
    add_row(counted, "M-10")
    config.write_text(config.read_text().replace("pin = 5", "pin = 6"))
    behind = _commit(counted, "the record alone\n\nM 5 -> 6")
    (counted / "scripts/check.py").write_text(SCRIPT.replace("4)", "6)"))
    _commit(counted, "caught up")
    (counted / "scripts/check.py").write_text(SCRIPT.replace("4)", "8)"))
    wrong = _commit(counted, "the script alone, wrong")
    proc = mergedrv(counted, "check", "--base", base, "--head", "HEAD")
    assert proc.returncode == 1
    assert proc.stdout.splitlines() == [f"{behind}:{stale(2, 5, 6)}", f"{wrong}:{stale(2, 8, 6)}"], proc.stdout


def test_a_pattern_matching_nothing_in_the_file_is_a_configuration_finding(counted):
    config = counted / ".mergedrv.toml"
    config.write_text(CONFIG.replace('"M": ', '"MODEL": '))
    proc = mergedrv(counted, "check")
    assert proc.returncode == 1
    assert proc.stdout.strip() == ".mergedrv.toml:7: rollup: M: count pattern '\"MODEL\": \\(\"m.md\", (\\d+)\\)' matches nothing in scripts/check.py"
    config.write_text(CONFIG.replace("scripts/check.py", "scripts/gone.py"))
    proc = mergedrv(counted, "check")
    assert proc.returncode == 1
    assert re.match(r"\.mergedrv\.toml:7: rollup: M: count file 'scripts/gone\.py' matches no file in working tree, so the count is not judged", proc.stdout), proc.stdout


def test_a_file_outside_the_repository_is_refused_at_its_line(counted):
    (counted / ".mergedrv.toml").write_text(CONFIG.replace('file = "scripts/check.py"', 'file = "../check.py"'))
    proc = mergedrv(counted, "check")
    assert proc.returncode == 2
    assert re.search(r"\.mergedrv\.toml:8: .*file", proc.stderr), proc.stderr


def test_concluding_a_merge_sets_the_constant_git_merged_as_text(counted):
    """Both sides add a row through the hooks (each 4 -> 5); git merges the
    script as text (5), the rows are 6: `git commit` concluding the merge
    sets it with the pin."""
    each_adds_a_row(counted)
    assert '"M": ("m.md", 5)' in git(counted, "show", "side:scripts/check.py").stdout
    git(counted, "merge", "side", "-m", "merge", check=False)  # pre-merge-commit refuses it: the pin and the script say 5
    proc = git(counted, "commit", "--no-edit", check=False)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert f"scripts/check.py:2: fixed: M count '{PATTERN}' 5 -> 6" in out
    assert '"M": ("m.md", 6)' in git(counted, "show", "HEAD:scripts/check.py").stdout
    assert len(git(counted, "log", "-1", "--format=%P").stdout.split()) == 2
    assert git(counted, "status", "--porcelain").stdout == ""


def test_two_sides_moving_the_constant_by_different_amounts_merge_as_a_counter(counted):
    """One side adds two rows (4 -> 6), the other one (4 -> 5): git's text merge
    conflicts on the script's line; under the attributes `install` writes, the
    driver merges the constant as a counter (4 + 2 + 1 = 7) and the merge is one
    `git merge`, checked clean."""
    install(counted)
    assert "scripts/check.py merge=keyed" in (counted / ".gitattributes").read_text()
    git(counted, "add", "-A")
    git(counted, "commit", "-q", "--no-verify", "-m", "attributes")
    git(counted, "checkout", "-q", "-b", "side")
    add_row(counted, "M-9")
    add_row(counted, "M-10")
    assert git(counted, "commit", "-qam", "add M-9 and M-10", check=False).returncode == 0
    git(counted, "checkout", "-q", "main")
    (counted / "m.md").write_text(table("M-0", *BASE))
    assert git(counted, "commit", "-qam", "add M-0", check=False).returncode == 0
    assert '"M": ("m.md", 6)' in git(counted, "show", "side:scripts/check.py").stdout
    proc = git(counted, "merge", "side", "-m", "merge", check=False)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert "note: M: both sides moved count" in out and "merged as a counter: 7" in out
    assert '"M": ("m.md", 7)' in git(counted, "show", "HEAD:scripts/check.py").stdout
    assert git(counted, "status", "--porcelain").stdout == ""
    check = mergedrv(counted, "check", "--base", "HEAD~2", "--head", "HEAD")
    assert check.returncode == 0 and check.stdout.strip() == "", check.stdout + check.stderr


def test_doctor_takes_a_block_an_older_install_wrote_without_the_counted_file(counted):
    install(counted)
    attributes = counted / ".gitattributes"
    attributes.write_text(attributes.read_text().replace("scripts/check.py merge=keyed\n", ""))
    git(counted, "add", "-A")
    git(counted, "commit", "-q", "--no-verify", "-m", "attributes, as an older install wrote them")
    proc = mergedrv(counted, "doctor")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "the files its counts name merge as text (`mergedrv install` adds them" in proc.stdout, proc.stdout


def test_resolve_merges_the_constant_a_rebase_without_the_driver_left_conflicted(counted):
    """A clone where `mergedrv install` never ran: the rebase conflicts on the
    script's constant (4 -> 6 against 4 -> 5); `mergedrv resolve` merges it as
    the driver would, a counter (7)."""
    git(counted, "checkout", "-q", "-b", "side")
    add_row(counted, "M-9")
    add_row(counted, "M-10")
    (counted / "scripts/check.py").write_text(SCRIPT.replace('4)', '6)'))
    git(counted, "commit", "-qam", "add M-9 and M-10")
    git(counted, "checkout", "-q", "main")
    (counted / "m.md").write_text(table("M-0", *BASE))
    (counted / "scripts/check.py").write_text(SCRIPT.replace('4)', '5)'))
    git(counted, "commit", "-qam", "add M-0")
    git(counted, "checkout", "-q", "side")
    assert git(counted, "rebase", "main", check=False).returncode != 0
    assert "<<<<<<<" in (counted / "scripts/check.py").read_text()
    proc = mergedrv(counted, "resolve")
    assert '"M": ("m.md", 7)' in (counted / "scripts/check.py").read_text(), proc.stdout + proc.stderr
    assert "<<<<<<<" not in (counted / "scripts/check.py").read_text()


def test_a_key_both_sides_added_counts_once_in_the_constant_a_rebase_merges(counted):
    """Both sides add M-70 (one also M-71) and edit the script elsewhere, so
    the driver merges it: 4 + 1 + 2 less the key both added is 6, the rows."""
    install(counted)
    git(counted, "add", "-A")
    git(counted, "commit", "-q", "--no-verify", "-m", "attributes")
    script = counted / "scripts/check.py"
    git(counted, "checkout", "-q", "-b", "side")
    add_row(counted, "M-70")
    add_row(counted, "M-71")
    script.write_text(script.read_text() + 'print("side")\n')
    assert git(counted, "commit", "-qam", "add M-70 and M-71", check=False).returncode == 0
    git(counted, "checkout", "-q", "main")
    add_row(counted, "M-70")
    script.write_text("# main's note\n" + script.read_text())
    assert git(counted, "commit", "-qam", "add M-70", check=False).returncode == 0
    git(counted, "checkout", "-q", "side")
    proc = git(counted, "rebase", "main", check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert '"M": ("m.md", 6)' in script.read_text(), script.read_text()
    check = mergedrv(counted, "check", "--base", "main", "--head", "HEAD")
    assert "rollup" not in check.stdout, check.stdout


def test_a_counted_file_at_the_top_gets_an_anchored_attribute():
    from mergedrv import config as cfgmod
    from mergedrv.commands.install_files import attribute_lines

    cfg = cfgmod.load_bytes(CONFIG.replace('file = "scripts/check.py"', 'file = "check.py"').encode())
    lines = attribute_lines(cfg)
    assert "/check.py merge=keyed\n" in lines and "m.md merge=keyed\n" in lines
    assert "/check.py merge=keyed\n" not in attribute_lines(cfg, counted=False)


def test_resolve_leaves_a_counted_file_resolved_by_hand_or_conflicting_elsewhere(counted):
    git(counted, "checkout", "-q", "-b", "side")
    add_row(counted, "M-9")
    (counted / "scripts/check.py").write_text(SCRIPT.replace('4)', '5)').replace("checked", "side"))
    git(counted, "commit", "-qam", "add M-9")
    git(counted, "checkout", "-q", "main")
    (counted / "m.md").write_text(table("M-0", *BASE))
    (counted / "scripts/check.py").write_text(SCRIPT.replace('4)', '5)').replace("checked", "main"))
    git(counted, "commit", "-qam", "add M-0")
    git(counted, "checkout", "-q", "side")
    assert git(counted, "rebase", "main", check=False).returncode != 0
    conflicted = (counted / "scripts/check.py").read_text()
    proc = mergedrv(counted, "resolve")  # the print line conflicts: git's conflict stays as it was
    assert "scripts/check.py: lines other than its counted numbers conflict; left as git left it" in proc.stderr, proc.stderr
    assert (counted / "scripts/check.py").read_text() == conflicted
    by_hand = SCRIPT.replace('4)', '6)').replace("checked", "both")
    (counted / "scripts/check.py").write_text(by_hand)
    proc = mergedrv(counted, "resolve")
    assert "scripts/check.py: resolved by hand already (no conflict markers); left as it is" in proc.stderr, proc.stderr
    assert (counted / "scripts/check.py").read_text() == by_hand


def test_a_rebase_that_leaves_the_numbers_stale_says_the_repair_and_it_works(counted):
    """Both branches add a row through the hooks (pin and script 4 -> 5 on
    each, byte for byte): git takes both files as they are and a rebase runs no
    hook that could set them; post-rewrite names the repair, which leaves the
    rebased commit clean."""
    each_adds_a_row(counted)
    git(counted, "checkout", "-q", "side")
    proc = git(counted, "rebase", "main", check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    repair = "`mergedrv fix && git commit -a --amend --no-edit` sets them"
    assert "the rebase left derived numbers stale in HEAD (M's pin, scripts/check.py)" in proc.stderr and repair in proc.stderr, proc.stderr
    assert mergedrv(counted, "check", "--base", "main", "--head", "HEAD").returncode == 1
    assert mergedrv(counted, "fix").returncode == 0
    assert git(counted, "commit", "-q", "-a", "--amend", "--no-edit", check=False).returncode == 0
    check = mergedrv(counted, "check", "--base", "main", "--head", "HEAD")
    assert check.returncode == 0 and check.stdout.strip() == "", check.stdout + check.stderr
    assert '"M": ("m.md", 6)' in git(counted, "show", "HEAD:scripts/check.py").stdout

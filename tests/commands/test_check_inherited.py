"""Findings a change introduces vs the ones it inherited (issue #13, item 1), with
real git and the installed hooks: the hooks block only on what a change
introduces; `mergedrv check` on the working tree shows both, marked."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.checks_helpers import MATRIX, check, check_json, edit, make_records_repo, row_line
from tests.helpers import MERGEDRV, git

ARCEE = "MODEL-TEXT-arcee-arcee-for-causal-lm"
BLOOM = "MODEL-TEXT-bloom-bloom-for-causal-lm"


def _break_shape(repo: Path, key: str = ARCEE) -> None:
    """One row gets an extra cell: a table-shape finding, committed without the hooks."""
    row = row_line(repo / MATRIX, key)
    edit(repo / MATRIX, row, row + " extra |")
    git(repo, "commit", "-q", "--no-verify", "-am", "an old broken row")


@pytest.fixture
def old_findings(repo):
    """The real records with one table-shape finding already committed, hooks installed."""
    make_records_repo(repo)
    _break_shape(repo)
    proc = subprocess.run([*MERGEDRV, "install"], cwd=repo, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "install mergedrv")  # the first commit after install passes its hooks
    return repo


def _commit(repo: Path, message: str) -> subprocess.CompletedProcess:
    return git(repo, "commit", "-am", message, check=False)


def _one_cell(repo: Path, key: str = BLOOM) -> None:
    row = row_line(repo / MATRIX, key)
    edit(repo / MATRIX, row, row.replace("| unassigned |", "| someone |"))


def test_the_work_tree_shows_inherited_findings_marked_and_passes(old_findings):
    code, out, _ = check(old_findings)
    assert code == 0 and len(out) == 1 and out[0].endswith("(inherited)") and "table-shape" in out[0], out
    code, out, _ = check(old_findings, "--all")
    assert code == 1 and out[0].endswith("(inherited)"), out
    code, found = check_json(old_findings)
    assert code == 0 and [f["inherited"] for f in found] == [True]


def test_a_docs_only_commit_passes_the_hooks_without_a_look_at_the_records(old_findings):
    (old_findings / "NOTES.md").write_text("# Notes\n\nno records here\n")
    git(old_findings, "add", "NOTES.md")
    code, out, err = check(old_findings, "--staged")
    assert code == 0 and out == [] and "inherited" not in err, (out, err)  # it touched no record: nothing to count
    proc = _commit(old_findings, "docs only")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    code, out, _ = check(old_findings, "--staged", "--all")
    assert code == 1 and "table-shape" in out[0]


def test_an_edit_of_the_record_counts_what_it_inherited_there(old_findings):
    _one_cell(old_findings)
    git(old_findings, "add", MATRIX)
    code, out, err = check(old_findings, "--staged")
    assert code == 0 and out == [], out
    assert "1 inherited finding in what this change touches" in err and "mergedrv check --all" in err, err


def test_a_one_cell_edit_and_a_line_shift_pass_the_hooks(old_findings):
    _one_cell(old_findings)
    proc = _commit(old_findings, "one cell")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    text = (old_findings / MATRIX).read_text(encoding="utf-8")
    (old_findings / MATRIX).write_text(text.replace("\n\n", "\n\nA line of prose above the tables.\n\n", 1), encoding="utf-8")
    proc = _commit(old_findings, "prose above: the old finding moves down a line")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_a_new_finding_and_a_double_definition_are_still_refused(old_findings):
    _break_shape_staged = row_line(old_findings / MATRIX, BLOOM)
    edit(old_findings / MATRIX, _break_shape_staged, _break_shape_staged + " extra |")
    proc = _commit(old_findings, "a second broken row")
    said = proc.stdout + proc.stderr  # git passes the hook's output on stderr
    assert proc.returncode == 1 and f"table-shape: {BLOOM}" in said and f"table-shape: {ARCEE}" not in said, said
    git(old_findings, "checkout", "--", MATRIX)
    row = row_line(old_findings / MATRIX, BLOOM)
    edit(old_findings / MATRIX, row, row + "\n" + row)
    proc = _commit(old_findings, "bloom twice")
    said = proc.stdout + proc.stderr
    assert proc.returncode == 1 and "keys-unique" in said and "(inherited)" not in said, said


def test_a_merge_passes_pre_merge_commit_on_inherited_findings(old_findings):
    git(old_findings, "checkout", "-q", "-b", "side")
    _one_cell(old_findings)
    assert _commit(old_findings, "side: one cell").returncode == 0
    git(old_findings, "checkout", "-q", "main")
    (old_findings / "NOTES.md").write_text("notes\n")
    git(old_findings, "add", "NOTES.md")
    assert _commit(old_findings, "main: docs").returncode == 0
    proc = git(old_findings, "merge", "--no-ff", "-m", "merge side", "side", check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert git(old_findings, "rev-list", "--count", "--merges", "HEAD").stdout.strip() == "1"


def test_a_merge_inherits_a_finding_from_either_parent(old_findings):
    git(old_findings, "checkout", "-q", "-b", "side")
    row = row_line(old_findings / MATRIX, BLOOM)
    edit(old_findings / MATRIX, row, row + " extra |")
    git(old_findings, "commit", "-q", "--no-verify", "-am", "side: a new broken row")
    git(old_findings, "checkout", "-q", "main")
    (old_findings / "NOTES.md").write_text("notes\n")
    git(old_findings, "add", "NOTES.md")
    assert _commit(old_findings, "main: docs").returncode == 0
    proc = git(old_findings, "merge", "--no-ff", "-m", "merge side", "side", check=False)
    # the finding is side's: the merge inherits it from that parent
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_concluding_a_conflicted_merge_judges_the_index_against_both_parents(old_findings):
    git(old_findings, "checkout", "-q", "-b", "side")
    (old_findings / "NOTES.md").write_text("side\n")
    git(old_findings, "add", "NOTES.md")
    assert _commit(old_findings, "side notes").returncode == 0
    git(old_findings, "checkout", "-q", "main")
    (old_findings / "NOTES.md").write_text("main\n")
    git(old_findings, "add", "NOTES.md")
    assert _commit(old_findings, "main notes").returncode == 0
    assert git(old_findings, "merge", "side", check=False).returncode == 1  # NOTES.md conflicts
    (old_findings / "NOTES.md").write_text("both\n")
    git(old_findings, "add", "NOTES.md")
    code, out, err = check(old_findings, "--staged")
    assert code == 0 and out == [] and "1 inherited finding" in err, (out, err)
    proc = git(old_findings, "commit", "--no-edit", check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_a_committed_conflict_marker_is_reported_at_its_line(repo):
    make_records_repo(repo)
    text = (repo / MATRIX).read_text(encoding="utf-8").split("\n")
    at = next(n for n, line in enumerate(text) if BLOOM in line)
    text[at:at] = ["<<<<<<< ours", "=======", ">>>>>>> theirs"]
    (repo / MATRIX).write_text("\n".join(text), encoding="utf-8")
    git(repo, "commit", "-q", "-am", "a conflict committed")
    code, out, _ = check(repo, "--commit", "HEAD", "--only", "table-shape")
    # reported once, at the marker's line (not line 0), as the conflict region it is
    assert code == 1 and len(out) == 1 and out[0].startswith(f"{MATRIX}:{at + 1}: table-shape: a conflict region"), out


def test_the_commit_msg_check_without_a_claim_or_a_pin_move_and_with_either(repo, tmp_path):
    """The commit-msg hook's fast path (no claim, no pin moved) must not hide a
    false claim or an unclaimed move."""
    make_records_repo(repo)
    msg = tmp_path / "MSG"
    msg.write_text("docs\n")
    assert check(repo, "--staged", "--message-file", str(msg), "--only", "pin-claims")[0] == 0
    msg.write_text("docs\n\nMODEL 326 -> 327\n")
    code, out, _ = check(repo, "--staged", "--message-file", str(msg), "--only", "pin-claims")
    assert code == 1 and "pin-claims" in out[0], out
    edit(repo / ".mergedrv.toml", "pin = 326", "pin = 327")
    git(repo, "add", ".mergedrv.toml")
    msg.write_text("docs\n")
    code, out, _ = check(repo, "--staged", "--message-file", str(msg), "--only", "pin-claims")
    assert code == 1 and "does not say `MODEL 326 -> 327`" in out[0], out


def test_the_first_commit_after_install_passes_over_old_findings(repo):
    """The configuration arrives in the commit: the parent, without one, is
    checked with it (and no pins), so the matrix's old problem is inherited."""
    make_records_repo(repo)
    git(repo, "rm", "-q", "--cached", ".mergedrv.toml")
    config = (repo / ".mergedrv.toml").read_text()
    (repo / ".mergedrv.toml").unlink()
    git(repo, "commit", "-q", "-m", "no configuration yet")
    _break_shape(repo)
    (repo / ".mergedrv.toml").write_text(config)
    proc = subprocess.run([*MERGEDRV, "install"], cwd=repo, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    git(repo, "add", "-A")
    proc = git(repo, "commit", "-m", "configure mergedrv", check=False)
    assert proc.returncode == 0 and "1 inherited finding" in proc.stderr, proc.stdout + proc.stderr


def test_a_pin_left_short_by_a_rebase_is_inherited_by_the_next_commit(old_findings):
    """A replayed commit can land with one key more than its pin (both sides
    moved it the same way, so git never merged the configuration): the next
    commit, which touches no record, inherits that ratchet finding."""
    row = row_line(old_findings / MATRIX, BLOOM)
    edit(old_findings / MATRIX, row, row + "\n" + row.replace(BLOOM, "MODEL-TEXT-zz-new-for-causal-lm"))
    git(old_findings, "commit", "-q", "--no-verify", "-am", "a key added, the pin left behind")
    (old_findings / "NOTES.md").write_text("# Notes\n")
    git(old_findings, "add", "NOTES.md")
    proc = _commit(old_findings, "docs only")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    code, out, _ = check(old_findings, "--all")
    assert code == 1 and any("ratchet" in x and x.endswith("(inherited)") for x in out), out
    row = row_line(old_findings / MATRIX, BLOOM)
    edit(old_findings / MATRIX, row, row + "\n" + row.replace(BLOOM, "MODEL-TEXT-zz-newer-for-causal-lm"))
    proc = _commit(old_findings, "one more key, the pin still behind")  # the change moved the count: its hook fixes all
    assert proc.returncode == 0 and "fixed: MODEL pin 326 -> 328" in proc.stderr, proc.stderr
    assert "MODEL 326 -> 328" in git(old_findings, "log", "-1", "--format=%B").stdout


def test_a_staged_configuration_that_does_not_load_is_refused(old_findings):
    """The plain hooks fail open when mergedrv cannot run (exit 2); a broken
    .mergedrv.toml in the change is the change's own finding, so it blocks."""
    with open(old_findings / ".mergedrv.toml", "a") as f:
        f.write("x = \n")
    git(old_findings, "add", ".mergedrv.toml")
    code, out, _ = check(old_findings, "--staged")
    assert code == 1 and len(out) == 1 and out[0].startswith(".mergedrv.toml:") and ": config: not valid TOML" in out[0], out
    proc = _commit(old_findings, "break the configuration")
    assert proc.returncode == 1 and "config: not valid TOML" in proc.stdout + proc.stderr, proc.stderr
    code, _, err = check(old_findings)
    assert code == 2 and "not valid TOML" in err, err

"""The everyday loop (#18 item 1): on the real records with init's proposal and
the installed hooks, adding a row is one `git commit`; the pre-commit hook
fixes what is derived, prepare-commit-msg writes the pin claim, and only what
a person must decide blocks.  `fix` leaves stale numbers HEAD already had alone."""

from __future__ import annotations

import re

import shutil
from pathlib import Path

import pytest

from tests.helpers import DATA, git
from tests.install_helpers import install, mergedrv

MATRIX = ".agents/model-matrix.md"
ENGINE = ".agents/engine-matrix.md"
NEW_ROW = ("| `MODEL-TEXT-zz-new-for-causal-lm` | `ZzNewForCausalLM` | `registry.py:75`; "
           "`vllm/model_executor/models/zz.py::ZzNewForCausalLM` | causal generation / text | model loader/forward "
           "| ☐ required | `INVENTORIED` | none | unassigned |\n")
AFTER = "| `MODEL-TEXT-apertus-apertus-for-causal-lm` |"


@pytest.fixture
def records(repo: Path) -> Path:
    """The real model matrix, roadmap, ledger and engine matrix (its grid stale
    already), `mergedrv init`'s proposal unedited, `mergedrv install`."""
    (repo / ".agents").mkdir()
    for name, fixture in ((MATRIX, "model-matrix.f887c34c.md"), (".agents/roadmap_v1.md", "roadmap_v1.d85906ae.md"),
                          (".agents/parity-ledger.md", "parity-ledger.d85906ae.md"), (ENGINE, "engine-matrix.2c0c076e.md")):
        shutil.copy(DATA / fixture, repo / name)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "records")
    proc = mergedrv(repo, "init")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    install(repo)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "mergedrv: init's proposal")
    return repo


def add_row(repo: Path, row: str = NEW_ROW) -> None:
    path = repo / MATRIX
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if line.startswith(AFTER))
    path.write_text("".join(lines[: at + 1] + [row] + lines[at + 1 :]), encoding="utf-8")


def test_adding_a_row_is_one_commit_and_the_range_check_then_finds_nothing(records):
    engine = (records / ENGINE).read_bytes()
    add_row(records)
    git(records, "add", MATRIX)
    proc = git(records, "commit", "-m", "add the zz model", check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = proc.stdout + proc.stderr
    assert re.search(r"^\.mergedrv\.toml:\d+: fixed: MODEL pin 326 -> 327\b", out, re.M), out
    assert "fixed: MODEL rollup 'Architecture-support checklist' row 'Total' 326 -> 327" in out
    assert "fixed: MODEL count '(\\d+) architecture rows are' 326 -> 327" in out
    message = git(records, "log", "-1", "--format=%B").stdout
    assert "\nMODEL 326 -> 327\n" in message and message.startswith("add the zz model\n")
    assert git(records, "status", "--porcelain").stdout == ""  # the fixes are in the commit and the work tree
    assert (records / ENGINE).read_bytes() == engine  # its stale grid was not this commit's
    assert "pin = 327" in git(records, "show", "HEAD:.mergedrv.toml").stdout
    check = mergedrv(records, "check", "--base", "HEAD~1", "--head", "HEAD")
    assert check.returncode == 0, check.stdout + check.stderr
    assert check.stdout.strip() == ""


def test_a_file_with_unstaged_changes_is_not_fixed_and_blocks(records):
    add_row(records)
    git(records, "add", MATRIX)
    with (records / MATRIX).open("a", encoding="utf-8") as fh:
        fh.write("\nan unstaged note\n")
    before = (records / MATRIX).read_bytes()
    staged = git(records, "show", f":{MATRIX}").stdout
    proc = git(records, "commit", "-m", "add the zz model", check=False)
    assert proc.returncode == 1
    assert f"{MATRIX}:1: not fixed: it has unstaged changes" in proc.stdout + proc.stderr
    assert "pin = 326" in git(records, "show", ":.mergedrv.toml").stdout  # all or none: the pin waits too
    assert (records / MATRIX).read_bytes() == before  # the unstaged edit is untouched
    assert git(records, "show", f":{MATRIX}").stdout == staged
    assert git(records, "rev-list", "--count", "HEAD").stdout.strip() == "2"


def test_a_double_key_still_blocks_after_the_fixes(records):
    add_row(records)
    add_row(records)  # the same key twice: a person decides
    git(records, "add", MATRIX)
    proc = git(records, "commit", "-m", "add the zz model twice", check=False)
    assert proc.returncode == 1
    out = proc.stdout + proc.stderr
    assert "keys-unique" in out and "MODEL-TEXT-zz-new-for-causal-lm" in out
    assert git(records, "rev-list", "--count", "HEAD").stdout.strip() == "2"
    # the counts were fixed (for the rows as staged) and stay staged; the output says the commit is refused anyway
    assert ": fixed: MODEL" in out and "above are written (the work tree and the index); the findings listed block the commit" in proc.stderr, out


def test_the_check_after_the_fixes_finds_what_a_fresh_check_of_the_fixed_index_finds(records):
    """The check after restaging keeps the first check's findings on what the
    fixes did not touch (a row with an extra cell in another record) and
    checks the fixed files again (a double key): as a check run afresh does."""
    add_row(records)
    add_row(records, NEW_ROW.replace("zz-new", "zz-other"))
    add_row(records, NEW_ROW.replace("zz-new", "zz-other"))
    path = records / ENGINE
    text = path.read_text(encoding="utf-8")
    row = next(line for line in text.split("\n") if line.startswith("| `ENG-CHUNKED-PREFILL` |"))
    path.write_text(text.replace(row, row + " extra |", 1), encoding="utf-8")
    git(records, "add", MATRIX, ENGINE)
    first = mergedrv(records, "check", "--staged", "--fix")
    assert first.returncode == 1, first.stdout + first.stderr
    fixed = [line for line in first.stdout.splitlines() if ": fixed: " in line]
    found = [line for line in first.stdout.splitlines() if ": fixed: " not in line]
    assert any("fixed: MODEL pin 326 -> 328" in line for line in fixed), first.stdout
    assert any("keys-unique" in line and "zz-other" in line for line in found), found
    assert any(line.startswith(f"{ENGINE}:") and "table-shape" in line for line in found), found
    fresh = mergedrv(records, "check", "--staged")
    assert fresh.returncode == 1 and fresh.stdout.splitlines() == found, (fresh.stdout, found)
    assert [line for line in first.stderr.splitlines() if "inherited" in line] == [line for line in fresh.stderr.splitlines() if "inherited" in line]


def test_fix_fail_mode_fails_after_fixing_then_passes(records):
    """`--fix=fail`, the pre-commit framework's entry: a hook that changed files fails once."""
    add_row(records)
    git(records, "add", MATRIX)
    first = mergedrv(records, "check", "--staged", "--fix=fail")
    assert first.returncode == 1, first.stdout + first.stderr
    assert "fixed: MODEL pin 326 -> 327" in first.stdout
    again = mergedrv(records, "check", "--staged", "--fix=fail")
    assert again.returncode == 0, again.stdout + again.stderr
    assert "fixed" not in again.stdout


def test_fix_leaves_a_stale_grid_head_had_alone_unless_all(records):
    engine = (records / ENGINE).read_bytes()
    add_row(records)
    proc = mergedrv(records, "fix")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"{ENGINE}:41: rollup: ENGINE_MATRIX: grid 'State'" in proc.stdout and "left alone" in proc.stdout
    assert (records / ENGINE).read_bytes() == engine
    assert "fixed: MODEL: rollup 'Architecture-support checklist' row 'Total': 326 -> 327" in proc.stdout
    proc = mergedrv(records, "fix", "--all")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (records / ENGINE).read_bytes() != engine
    assert "left alone" not in proc.stdout


def test_fix_on_a_clean_tree_sets_what_heads_own_commit_left_stale(records):
    """A commit made without the hooks (`--no-verify`, a merge where the driver
    did not run) left the counts stale; the tree is clean, so the change is
    HEAD's commit: `fix` sets what it left, not the grid its parent already had."""
    engine = (records / ENGINE).read_bytes()
    add_row(records)
    git(records, "commit", "-q", "--no-verify", "-am", "add the zz model, no hooks")
    proc = mergedrv(records, "fix")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "fixed: MODEL: rollup 'Architecture-support checklist' row 'Total': 326 -> 327" in proc.stdout
    assert "fixed: MODEL pin: 326 -> 327" in proc.stdout
    assert "the change is HEAD's own commit" in proc.stderr
    assert f"{ENGINE}:41: rollup: ENGINE_MATRIX: grid 'State'" in proc.stdout and "left alone" in proc.stdout
    assert (records / ENGINE).read_bytes() == engine
    git(records, "commit", "-q", "--no-verify", "-am", "the counts")
    again = mergedrv(records, "fix")  # HEAD's commit made nothing stale: no word of it, the grid still left alone
    assert again.returncode == 0 and "HEAD's own commit" not in again.stderr and "fixed:" not in again.stdout, again.stdout + again.stderr


def test_claim_pins_adds_a_missing_claim_once_and_skips_other_sources(records, tmp_path):
    add_row(records)
    git(records, "add", MATRIX)
    assert mergedrv(records, "fix").returncode == 0
    git(records, "add", "-u")
    msg = tmp_path / "MSG"
    msg.write_text("add the zz model\n\n# Please enter the commit message\n")
    assert mergedrv(records, "claim-pins", str(msg), "message").returncode == 0
    assert msg.read_text() == "add the zz model\n\nMODEL 326 -> 327\n\n# Please enter the commit message\n"
    assert mergedrv(records, "claim-pins", str(msg), "message").returncode == 0
    assert msg.read_text().count("MODEL 326 -> 327") == 1  # already said: not twice
    other = tmp_path / "MSG-commit"  # (`-C HEAD~1`: another commit's message; squash: below)
    other.write_text("as it was\n")
    assert mergedrv(records, "claim-pins", str(other), "commit", "HEAD~1").returncode == 0
    assert other.read_text() == "as it was\n"
    picked = tmp_path / "MSG-merge"  # git's MERGE_MSG with no merge under way: a cherry-pick or revert that stopped
    picked.write_text("as it was\n\nMODEL 300 -> 301\n")
    assert mergedrv(records, "claim-pins", str(picked), "merge").returncode == 0
    assert picked.read_text() == "as it was\n\nMODEL 326 -> 327\n", picked.read_text()  # (the picked commit's claim replaced)


def test_claim_pins_leaves_a_merges_message_alone(records, tmp_path):
    """A merge's pins move by its parents' claims: the message git writes for it gets none."""
    git(records, "checkout", "-q", "-b", "side")
    add_row(records)
    assert mergedrv(records, "fix").returncode == 0
    git(records, "commit", "-q", "--no-verify", "-am", "add the zz model")
    git(records, "checkout", "-q", "main")
    (records / "NOTES.md").write_text("notes\n")
    git(records, "add", "NOTES.md")
    git(records, "commit", "-q", "--no-verify", "-m", "notes")
    git(records, "merge", "-q", "--no-commit", "--no-ff", "side")  # (the pin moved 326 -> 327 against HEAD, a merge under way)
    msg = tmp_path / "MSG"
    msg.write_text("Merge branch 'side'\n")
    assert mergedrv(records, "claim-pins", str(msg), "merge").returncode == 0
    assert msg.read_text() == "Merge branch 'side'\n"


def test_amending_a_row_addition_judges_the_claim_against_the_amended_commits_parent(records):
    """`git commit --amend` replaces HEAD: the pin moved 326 -> 327 since HEAD's
    parent, not since HEAD, and the claim the message holds stays right."""
    add_row(records)
    git(records, "add", MATRIX)
    assert git(records, "commit", "-q", "-m", "add the zz model", check=False).returncode == 0
    path = records / MATRIX
    path.write_text(path.read_text(encoding="utf-8").replace("`ZzNewForCausalLM` |", "`ZzNewerForCausalLM` |", 1), encoding="utf-8")
    proc = git(records, "commit", "-a", "--amend", "--no-edit", check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    message = git(records, "log", "-1", "--format=%B").stdout
    assert message.count("MODEL 326 -> 327") == 1, message
    assert "ZzNewerForCausalLM" in git(records, "show", f"HEAD:{MATRIX}").stdout
    check = mergedrv(records, "check", "--base", "HEAD~1", "--head", "HEAD")
    assert check.returncode == 0 and check.stdout.strip() == "", check.stdout + check.stderr
    # the next, ordinary commit is judged against HEAD again (the note the amend left names the old HEAD)
    with path.open("a", encoding="utf-8") as fh:
        fh.write("\nA closing note.\n")
    assert git(records, "commit", "-q", "-am", "a note", check=False).returncode == 0


def test_amending_away_the_move_drops_the_claim_the_message_held(records, tmp_path):
    """An amend that deletes the row it added: the pin is back at 326, as HEAD's
    parent had it, so `MODEL 326 -> 327` in the message is no longer true and
    goes, and commit-msg judges the rest against HEAD's parent.  (The
    pre-commit hook, which git runs before it says the commit is an amend,
    still judges the deletion against HEAD: `--no-verify`, or a new commit.)"""
    add_row(records)
    git(records, "add", MATRIX)
    assert git(records, "commit", "-q", "-m", "add the zz model", check=False).returncode == 0
    path = records / MATRIX
    path.write_text(path.read_text(encoding="utf-8").replace(NEW_ROW, "", 1), encoding="utf-8")
    git(records, "add", MATRIX)
    mergedrv(records, "fix")  # the counts back at 326 (exit 1: it never lowers a pin, a person does)
    config = records / ".mergedrv.toml"
    config.write_text(config.read_text(encoding="utf-8").replace("pin = 327", "pin = 326", 1), encoding="utf-8")
    git(records, "add", "-u")
    msg = tmp_path / "COMMIT_EDITMSG"
    msg.write_text(git(records, "log", "-1", "--format=%B").stdout + "# Please enter the commit message\n")
    assert "\nMODEL 326 -> 327\n" in msg.read_text()
    assert mergedrv(records, "claim-pins", str(msg), "commit", "HEAD").returncode == 0
    text = msg.read_text()
    assert "->" not in text and text.startswith("add the zz model\n") and text.endswith("\n# Please enter the commit message\n"), text
    check = mergedrv(records, "check", "--staged", "--message-file", str(msg), "--only", "pin-claims")
    assert check.returncode == 0 and check.stdout.strip() == "", check.stdout + check.stderr
    # without the note (an ordinary commit after HEAD), the same message is judged against HEAD: the pin moved back
    assert mergedrv(records, "claim-pins", str(msg), "message").returncode == 0
    assert "MODEL 327 -> 326" in msg.read_text()


def test_a_new_commit_reusing_heads_message_and_an_amended_merge_are_no_amends(records):
    """`git commit -C HEAD` makes a new commit on HEAD, and an amended merge
    moves its pins by its parents' claims: neither is judged against HEAD's parent."""
    add_row(records)
    git(records, "add", MATRIX)
    assert git(records, "commit", "-q", "-m", "add the zz model", check=False).returncode == 0
    add_row(records, NEW_ROW.replace("zz-new", "zz-newer"))
    proc = git(records, "commit", "-q", "-a", "-C", "HEAD", check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    message = git(records, "log", "-1", "--format=%B").stdout
    assert message.count("->") == 1 and "MODEL 326 -> 327" in message, message  # (HEAD's claim, the same move: kept)
    git(records, "checkout", "-q", "-b", "side", "HEAD~2")
    add_row(records, NEW_ROW.replace("zz-new", "zz-side"))
    assert git(records, "commit", "-q", "-am", "add the side model", check=False).returncode == 0
    git(records, "checkout", "-q", "-")
    git(records, "merge", "side", "--no-edit", check=False)
    if (records / ".git" / "MERGE_HEAD").exists():  # (pre-merge-commit refused a number git merged as text: the commit sets it)
        assert git(records, "commit", "-q", "--no-edit", check=False).returncode == 0
    assert len(git(records, "log", "-1", "--format=%P").stdout.split()) == 2
    before = git(records, "log", "-1", "--format=%B").stdout
    proc = git(records, "commit", "-q", "--amend", "--no-edit", check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert git(records, "log", "-1", "--format=%B").stdout == before


def test_an_amend_with_a_new_message_keeps_the_claim_of_the_amended_commit(records):
    """`git commit --amend -m MESSAGE` (git's hooks are told `message`): the git
    command line says `--amend`, so the claim is counted from HEAD's parent."""
    add_row(records)
    git(records, "add", MATRIX)
    assert git(records, "commit", "-q", "-m", "add the zz model", check=False).returncode == 0
    proc = git(records, "commit", "-q", "--amend", "-m", "add the zz model (reworded)", check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    message = git(records, "log", "-1", "--format=%B").stdout
    assert message.startswith("add the zz model (reworded)") and message.count("MODEL 326 -> 327") == 1, message
    check = mergedrv(records, "check", "--base", "HEAD~1", "--head", "HEAD")
    assert check.returncode == 0 and check.stdout.strip() == "", check.stdout + check.stderr


def test_a_fixup_folded_by_a_rebase_claims_the_whole_move_once(records):
    """`rebase -i --autosquash` folds a fixup adding a second row into the
    commit that added the first: the folded commit claims 326 -> 328, once."""
    add_row(records)
    git(records, "add", MATRIX)
    assert git(records, "commit", "-q", "-m", "add the zz model", check=False).returncode == 0
    add_row(records, NEW_ROW.replace("zz-new", "zz-newer"))
    assert git(records, "commit", "-q", "-a", "--fixup", "HEAD", check=False).returncode == 0
    add_row(records, NEW_ROW.replace("zz-new", "zz-later"))  # (a commit picked after the fold: its own move)
    assert git(records, "commit", "-q", "-am", "add the zz-later model", check=False).returncode == 0
    env = {"GIT_SEQUENCE_EDITOR": "true", "GIT_EDITOR": "true"}
    proc = git(records, "rebase", "-q", "-i", "--autosquash", "HEAD~3", check=False, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    message = git(records, "log", "-1", "--format=%B", "HEAD~1").stdout
    assert message.count("->") == 1 and "MODEL 326 -> 328" in message, message
    later = git(records, "log", "-1", "--format=%B").stdout
    assert later.count("->") == 1 and "MODEL 328 -> 329" in later, later
    check = mergedrv(records, "check", "--base", "HEAD~2", "--head", "HEAD")
    assert check.returncode == 0 and check.stdout.strip() == "", check.stdout + check.stderr


def test_a_squash_merge_claims_its_own_move_not_the_squashed_commits(records):
    """`git merge --squash` of two commits that each added a row: the message
    git writes quotes their claims (326 -> 327, 327 -> 328); the commit claims
    its own move, once."""
    git(records, "checkout", "-q", "-b", "side")
    add_row(records)
    assert git(records, "commit", "-q", "-am", "add the zz model", check=False).returncode == 0
    add_row(records, NEW_ROW.replace("zz-new", "zz-newer"))
    assert git(records, "commit", "-q", "-am", "add the zz-newer model", check=False).returncode == 0
    git(records, "checkout", "-q", "main")
    assert git(records, "merge", "-q", "--squash", "side", check=False).returncode == 0
    proc = git(records, "commit", "--no-edit", check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    message = git(records, "log", "-1", "--format=%B").stdout
    assert message.count("->") == 1 and "MODEL 326 -> 328" in message, message
    assert "Squashed commit of the following" in message


def test_a_pin_the_change_raised_above_its_keys_goes_back_to_them(records):
    """Two rows added and fixed (326 -> 328), then one taken out before the
    commit: the hook sets the pin to the keys, 327, never below HEAD's."""
    add_row(records)
    add_row(records, NEW_ROW.replace("zz-new", "zz-newer"))
    git(records, "add", MATRIX)
    mergedrv(records, "fix")
    assert "pin = 328" in (records / ".mergedrv.toml").read_text()
    path = records / MATRIX
    path.write_text(path.read_text(encoding="utf-8").replace(NEW_ROW, "", 1), encoding="utf-8")
    git(records, "add", "-u")
    proc = git(records, "commit", "-m", "add the zz-newer model", check=False)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert "fixed: MODEL pin 328 -> 327 (the change raised it above the keys it counts)" in out, out
    assert "MODEL 326 -> 327" in git(records, "log", "-1", "--format=%B").stdout
    check = mergedrv(records, "check", "--base", "HEAD~1", "--head", "HEAD")
    assert check.returncode == 0 and check.stdout.strip() == "", check.stdout + check.stderr


def test_an_amend_made_without_the_hooks_that_took_the_row_out_is_repaired_by_fix(records):
    """The escape the docs give for an amend deleting the row its commit added
    where the git command line cannot be read: `--no-verify`, then `mergedrv
    fix` (the change is HEAD's own commit: its pin goes back to HEAD's
    parent's) and an amend through the hooks."""
    add_row(records)
    (records / "notes.txt").write_text("the zz model\n")  # (the commit holds more than the row: the amend is not empty)
    git(records, "add", MATRIX, "notes.txt")
    assert git(records, "commit", "-q", "-m", "add the zz model", check=False).returncode == 0
    path = records / MATRIX
    path.write_text(path.read_text(encoding="utf-8").replace(NEW_ROW, "", 1), encoding="utf-8")
    assert git(records, "commit", "-q", "-a", "--amend", "--no-edit", "--no-verify", check=False).returncode == 0
    proc = mergedrv(records, "fix")
    assert "fixed: MODEL pin: 327 -> 326 (the change raised it above the keys it counts)" in proc.stdout, proc.stdout + proc.stderr
    proc = git(records, "commit", "-q", "-a", "--amend", "--no-edit", check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "->" not in git(records, "log", "-1", "--format=%B").stdout
    check = mergedrv(records, "check", "--base", "HEAD~1", "--head", "HEAD")
    assert check.returncode == 0 and check.stdout.strip() == "", check.stdout + check.stderr


def test_an_amend_taking_out_the_row_its_commit_added_goes_through_the_hooks(records):
    """The pre-commit hook reads `--amend` from the git command line (where
    /proc has it) and judges the amend against HEAD's parent: the row never
    was there, and the pin its commit raised goes back."""
    import os

    if not os.path.exists(f"/proc/{os.getpid()}/cmdline"):
        import pytest

        pytest.skip("the git command line is read from /proc")
    add_row(records)
    (records / "notes.txt").write_text("the zz model\n")
    git(records, "add", MATRIX, "notes.txt")
    assert git(records, "commit", "-q", "-m", "add the zz model", check=False).returncode == 0
    path = records / MATRIX
    path.write_text(path.read_text(encoding="utf-8").replace(NEW_ROW, "", 1), encoding="utf-8")
    proc = git(records, "commit", "-a", "--amend", "--no-edit", check=False)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert "fixed: MODEL pin 327 -> 326 (the change raised it above the keys it counts)" in out, out
    assert "->" not in git(records, "log", "-1", "--format=%B").stdout
    assert "pin = 326" in git(records, "show", "HEAD:.mergedrv.toml").stdout
    check = mergedrv(records, "check", "--base", "HEAD~1", "--head", "HEAD")
    assert check.returncode == 0 and check.stdout.strip() == "", check.stdout + check.stderr


def test_an_amend_the_fixes_leave_empty_is_stopped_as_git_stops_one(records):
    """An amend taking out the only row its commit added, the counts and pin
    set back by the hook: the amended commit would hold its parent's tree,
    which git refuses for an amend ("would make it empty") but cannot see
    here, since the hook changed the index after git looked.  The hook stops
    it and says so; HEAD stays as it was.  A commit that held more than the row
    is amended (`test_an_amend_made_without_the_hooks_...`)."""
    add_row(records)
    assert git(records, "commit", "-q", "-am", "add the zz model", check=False).returncode == 0
    head = git(records, "rev-parse", "HEAD").stdout
    path = records / MATRIX
    path.write_text(path.read_text(encoding="utf-8").replace(NEW_ROW, "", 1), encoding="utf-8")
    proc = git(records, "commit", "-q", "-a", "--amend", "--no-edit", check=False)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "git would record an empty commit; nothing is committed" in proc.stderr
    assert git(records, "rev-parse", "HEAD").stdout == head

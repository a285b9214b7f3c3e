"""Checks with real git: merges through the driver (derived counts, pins as
counters, the ratchet of a merge commit) and the pre-commit framework hooks."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.checks_helpers import MATRIX, check, edit, key_line, make_records_repo, row_line
from tests.helpers import MERGEDRV, ROOT, driver_command, git

ARCEE = "MODEL-TEXT-arcee-arcee-for-causal-lm"
BLOOM = "MODEL-TEXT-bloom-bloom-for-causal-lm"


@pytest.fixture
def merging(repo):
    """The real records, with mergedrv wired in as git's merge driver."""
    make_records_repo(repo)
    git(repo, "config", "merge.keyed.name", "mergedrv keyed records")
    git(repo, "config", "merge.keyed.driver", driver_command())
    (repo / ".gitattributes").write_text(f"{MATRIX} merge=keyed\n.mergedrv.toml merge=keyed\n")
    git(repo, "add", ".gitattributes")
    git(repo, "commit", "-q", "-m", "wire the merge driver")
    return repo


def add_row(repo: Path, after: str, key: str, state: str = "INVENTORIED", pin: tuple[int, int] = (326, 327)) -> None:
    """Add a row like ``after``'s under it, move the pin, fix the counts, commit."""
    path = repo / MATRIX
    row = row_line(path, after)
    new = row.replace(after, key).replace("`INVENTORIED`", f"`{state}`")
    edit(path, row, row + "\n" + new)
    edit(repo / ".mergedrv.toml", f"pin = {pin[0]}", f"pin = {pin[1]}")
    subprocess.run([*MERGEDRV, "fix"], cwd=repo, check=True, capture_output=True)
    git(repo, "commit", "-q", "-am", f"row {key}\n\nMODEL {pin[0]} -> {pin[1]}")


def text(repo: Path) -> str:
    return (repo / MATRIX).read_text(encoding="utf-8")


def _two_rows(merging: Path, theirs_state: str = "INVENTORIED") -> tuple[str, str]:
    """Branch theirs adds yotta under bloom, main adds zeta under arcee; both move the pin 326 -> 327."""
    git(merging, "checkout", "-q", "-b", "theirs")
    add_row(merging, BLOOM, "MODEL-TEXT-yotta-yotta-for-causal-lm", state=theirs_state)
    git(merging, "checkout", "-q", "main")
    add_row(merging, ARCEE, "MODEL-TEXT-zeta-zeta-for-causal-lm")
    short = lambda rev: git(merging, "rev-parse", "--short", rev).stdout.strip()  # noqa: E731
    return short("HEAD"), short("theirs")


def test_two_branches_adding_rows_merge_with_counts_plus_two(merging):
    _two_rows(merging)
    assert "| INVENTORIED | 291 |" in text(merging)
    proc = git(merging, "merge", "--no-edit", "theirs", check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    merged = text(merging)
    assert "<<<<<<<" not in merged
    assert "| INVENTORIED | 292 |" in merged and "| **Total** | **328** |" in merged
    assert "**328 architecture rows are inventoried at the pin**; 36 are past `INVENTORIED`" in merged
    assert "the remaining 292 are known" in merged
    assert "| `MODEL-TEXT` | Text generation | 130 | 116 |" in merged
    assert "**326 category/target rows**" in merged  # 324 + 2
    only = "keys-unique,key-format,column-format,table-shape,refs,rollup,log-append-only,pin-claims"
    assert check(merging, "--commit", "HEAD", "--only", only)[:2] == (0, [])


def test_the_ratchet_of_a_merge_commit_names_what_each_side_added(merging):
    # both sides wrote the same .mergedrv.toml (pin 327): git takes it without
    # calling any driver, so the merge commit holds 328 keys under pin 327
    ours, theirs = _two_rows(merging)
    git(merging, "merge", "--no-edit", "theirs")
    assert "pin = 327" in (merging / ".mergedrv.toml").read_text()
    rc, out, _ = check(merging, "--commit", "HEAD", "--only", "ratchet")
    assert rc == 1
    assert out == [
        f"{MATRIX}:{key_line(merging / MATRIX, BLOOM) + 1}: ratchet: MODEL has 328 keys but its pin is 327 (.mergedrv.toml:7); "
        f"the count moved 327 -> 328 without moving the pin; against the parent ({ours}): added MODEL-TEXT-yotta-yotta-for-causal-lm; "
        f"merge: {ours} added MODEL-TEXT-zeta-zeta-for-causal-lm; {theirs} added MODEL-TEXT-yotta-yotta-for-causal-lm; "
        "`git commit` concludes the merge with the pin set to the base plus both sides' moves (its pre-commit hook sets it; "
        "without the hooks: `mergedrv fix`, `git add .mergedrv.toml`, `git commit`)"
    ]


def test_pre_merge_commit_refuses_two_identical_pin_bumps_and_says_to_run_fix(merging):
    proc = subprocess.run([*MERGEDRV, "install"], cwd=merging, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    git(merging, "commit", "-q", "-am", "install")
    _two_rows(merging)
    proc = git(merging, "merge", "--no-edit", "theirs", check=False)
    assert proc.returncode != 0 and "`mergedrv fix`, `git add .mergedrv.toml`" in proc.stdout + proc.stderr, proc.stdout + proc.stderr
    fixed = subprocess.run([*MERGEDRV, "fix"], cwd=merging, capture_output=True, text=True)
    assert fixed.returncode == 0 and "MODEL pin: 327 -> 328" in fixed.stdout, fixed.stdout + fixed.stderr
    proc = git(merging, "commit", "-q", "-am", "merge theirs", check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_fix_merges_pins_as_counters_during_a_merge(merging):
    _two_rows(merging)
    git(merging, "merge", "--no-commit", "theirs")
    proc = subprocess.run([*MERGEDRV, "fix"], cwd=merging, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert ".mergedrv.toml:7: fixed: MODEL pin: 327 -> 328" in proc.stdout
    git(merging, "commit", "-q", "-am", "merge theirs")
    assert check(merging, "--commit", "HEAD")[:2] == (0, [])


def test_fix_counts_a_pin_written_with_underscores(repo):
    """`pin = 1_000` moved to 1_001 on both sides is 1002 after the merge."""
    (repo / "t.md").write_text("| ID | X |\n|---|---|\n| T-1 | a |\n")
    cfg = '[[record]]\nname = "T"\npath = "t.md"\nkey = "ID"\npin = {}\n'
    (repo / ".mergedrv.toml").write_text(cfg.format("1_000"))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    git(repo, "checkout", "-q", "-b", "theirs")
    (repo / ".mergedrv.toml").write_text(cfg.format("1_001"))
    git(repo, "commit", "-q", "-am", "theirs")
    git(repo, "checkout", "-q", "main")
    (repo / ".mergedrv.toml").write_text(cfg.format("1_001"))
    git(repo, "commit", "-q", "-am", "ours")
    git(repo, "merge", "--no-commit", "theirs")
    proc = subprocess.run([*MERGEDRV, "fix"], cwd=repo, capture_output=True, text=True)
    assert ".mergedrv.toml:5: fixed: T pin: 1001 -> 1002" in proc.stdout, proc.stdout + proc.stderr
    assert (repo / ".mergedrv.toml").read_text() == cfg.format("1002")


def test_fix_and_staged_see_a_merge_in_a_linked_worktree(merging, tmp_path):
    """In `git worktree add` checkouts `.git` is a file; MERGE_HEAD lives in the worktree's git dir."""
    _two_rows(merging)
    tree = tmp_path / "wt"
    git(merging, "worktree", "add", "-q", "-b", "side", str(tree), "main")
    git(tree, "merge", "--no-commit", "theirs")
    proc = subprocess.run([*MERGEDRV, "fix"], cwd=tree, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert ".mergedrv.toml:7: fixed: MODEL pin: 327 -> 328" in proc.stdout
    git(tree, "add", "-A")
    edit(tree / ".mergedrv.toml", "pin = 328", "pin = 327")
    git(tree, "add", "-A")
    rc, out, _ = check(tree, "--staged", "--only", "ratchet")
    assert rc == 1 and len(out) == 1 and "; merge: " in out[0], out


def test_the_driver_merges_pins_as_counters(merging):
    # when the two configurations differ elsewhere, git calls the driver on it
    git(merging, "checkout", "-q", "-b", "theirs")
    edit(merging / ".mergedrv.toml", "[[log]]", "# the ledger is append-only\n[[log]]")
    add_row(merging, BLOOM, "MODEL-TEXT-yotta-yotta-for-causal-lm")
    git(merging, "checkout", "-q", "main")
    add_row(merging, ARCEE, "MODEL-TEXT-zeta-zeta-for-causal-lm")
    proc = git(merging, "merge", "--no-edit", "theirs", check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    config = (merging / ".mergedrv.toml").read_text()
    assert "pin = 328" in config and "# the ledger is append-only" in config
    assert check(merging, "--commit", "HEAD")[:2] == (0, [])
    assert check(merging)[:2] == (0, [])


def test_branches_adding_rows_in_different_states_merge_cleanly(merging):
    # main moves INVENTORIED's counts, theirs SPIKE's, in one prose sentence:
    # a text merge of the numbers would conflict; the driver keeps them out of it
    _two_rows(merging, theirs_state="SPIKE")
    git(merging, "merge", "--no-commit", "theirs")
    merged = text(merging)
    assert "<<<<<<<" not in merged
    assert "| SPIKE | 13 |" in merged and "| INVENTORIED | 291 |" in merged and "| **Total** | **328** |" in merged
    assert "**328 architecture rows are inventoried at the pin**; 37 are past `INVENTORIED`" in merged
    subprocess.run([*MERGEDRV, "fix"], cwd=merging, check=True, capture_output=True)
    git(merging, "commit", "-q", "-am", "merge theirs")
    assert check(merging, "--commit", "HEAD")[:2] == (0, [])


# --- the pre-commit framework ---------------------------------------------------


def _local_hooks(repo: Path) -> None:
    """A .pre-commit-config.yaml running this checkout's hook entries as `repo: local`."""
    import yaml

    manifest = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    bindir = Path(sys.executable).parent
    hooks = []
    for hook in manifest:
        local = dict(hook, language="system", entry=f"{bindir}/{hook['entry']}")
        hooks.append(local)
    (repo / ".pre-commit-config.yaml").write_text(yaml.safe_dump({"repos": [{"repo": "local", "hooks": hooks}]}, sort_keys=False))


def _pre_commit(repo: Path, *args: str) -> subprocess.CompletedProcess:
    bindir = Path(sys.executable).parent
    return subprocess.run([str(bindir / "pre-commit"), *args], cwd=repo, capture_output=True, text=True, timeout=300)


def _hooked(repo: Path) -> Path:
    """The real records, with this checkout's hooks installed by `pre-commit install`."""
    make_records_repo(repo)
    _local_hooks(repo)
    git(repo, "add", ".pre-commit-config.yaml")
    git(repo, "commit", "-q", "-m", "hooks")
    assert _pre_commit(repo, "install", "--hook-type", "pre-commit", "--hook-type", "commit-msg").returncode == 0
    return repo


def test_hooks_run_by_the_pre_commit_framework_check_what_is_staged(repo):
    _hooked(repo)
    path = repo / MATRIX
    # a good staged change (a fixed typo) with a bad unstaged one (a row deleted)
    edit(path, "At-a-glance view", "At a glance view")
    git(repo, "add", MATRIX)
    lines = path.read_text(encoding="utf-8").split("\n")
    del lines[key_line(path, ARCEE) - 1]
    path.write_text("\n".join(lines), encoding="utf-8")
    proc = git(repo, "commit", "-m", "typo", check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # now stage the deletion: the ratchet hook refuses it and names the key
    git(repo, "add", MATRIX)
    proc = git(repo, "commit", "-m", "drop a row", check=False)
    assert proc.returncode != 0
    assert f"ratchet: MODEL: key {ARCEE} was removed" in proc.stdout + proc.stderr


def test_the_commit_msg_hook_refuses_an_unclaimed_pin_move(repo):
    _hooked(repo)
    path = repo / MATRIX
    row = row_line(path, ARCEE)
    edit(path, row, row + "\n" + row.replace(ARCEE, "MODEL-TEXT-zeta-zeta-for-causal-lm"))
    edit(repo / ".mergedrv.toml", "pin = 326", "pin = 327")
    subprocess.run([*MERGEDRV, "fix"], cwd=repo, check=True, capture_output=True)
    git(repo, "add", "-A")
    proc = git(repo, "commit", "-m", "row zeta", check=False)
    assert proc.returncode != 0
    assert "pin-claims: MODEL pin moved 326 -> 327" in proc.stdout + proc.stderr
    proc = git(repo, "commit", "-m", "row zeta\n\nMODEL 326 -> 327", check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.parametrize("fixed_first", [False, True])
def test_git_commit_concludes_a_refused_merge_with_the_pin_both_sides_moved(merging, fixed_first):
    """The merge pre-merge-commit refused (both sides bumped the pin 327 -> 328
    alike, git kept one) is concluded by a plain `git commit`: its pre-commit
    hook sets the index's pin to the base plus both moves; also where
    `mergedrv fix` already wrote that into the work tree only (no loop)."""
    proc = subprocess.run([*MERGEDRV, "install"], cwd=merging, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    git(merging, "commit", "-q", "-am", "install")
    _two_rows(merging)
    assert git(merging, "merge", "--no-edit", "theirs", check=False).returncode != 0
    if fixed_first:
        subprocess.run([*MERGEDRV, "fix"], cwd=merging, capture_output=True, text=True, check=True)
        assert git(merging, "diff", "--name-only").stdout.split() == [".mergedrv.toml"]  # the fix, unstaged
    proc = git(merging, "commit", "--no-edit", check=False)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert ".mergedrv.toml:7: fixed: MODEL pin 327 -> 328 (both sides of the merge moved it: base plus both moves)" in out
    assert "pin = 328" in git(merging, "show", "HEAD:.mergedrv.toml").stdout
    assert len(git(merging, "rev-list", "--parents", "-1", "HEAD").stdout.split()) == 3  # the merge commit
    assert git(merging, "status", "--porcelain").stdout == ""
    assert check(merging, "--commit", "HEAD", "--only", "ratchet")[:2] == (0, [])

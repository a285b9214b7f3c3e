"""`git revert` and `git cherry-pick` make their commit with no pre-commit
hook (git 2.39 runs prepare-commit-msg, then the commit): with the installed
hooks, a clean revert that removes a key unretired is stopped there, the
change staged, and the message a revert or pick carries has its pin claims
set to the commit's own moves, so the range check finds nothing in what
lands.  `git commit --no-verify` is not stopped."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.helpers import MERGEDRV, git

CONFIG = '[[record]]\nname = "K"\npath = "t.md"\nkey = "ID"\npin = 2\n'
HEAD = "# Keys\n\n| ID | v |\n|---|---|\n"
BASE = HEAD + "| K-1 | a |\n| K-2 | b |\n"


def mergedrv(repo: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*MERGEDRV, *args], cwd=repo, capture_output=True, text=True)


def add_row(repo: Path, key: str, message: str) -> subprocess.CompletedProcess:
    (repo / "t.md").write_text((repo / "t.md").read_text() + f"| {key} | new |\n")
    return git(repo, "commit", "-qam", message, check=False)


@pytest.fixture
def pinned(repo: Path) -> Path:
    git(repo, "config", "user.email", "a@example.com")
    git(repo, "config", "user.name", "a")
    (repo / ".mergedrv.toml").write_text(CONFIG)
    (repo / "t.md").write_text(BASE)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    proc = mergedrv(repo, "install")
    assert proc.returncode == 0, proc.stderr
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--no-verify", "-m", "install")
    return repo


def message(repo: Path) -> str:
    return git(repo, "log", "-1", "--format=%B").stdout


def range_ok(repo: Path, base: str) -> None:
    proc = mergedrv(repo, "check", "--base", base, "--head", "HEAD")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_a_revert_removing_a_key_unretired_is_stopped_with_the_change_staged(pinned):
    repo = pinned
    assert add_row(repo, "K-3", "add K-3").returncode == 0
    assert "K 2 -> 3" in message(repo)  # (the hooks fixed the pin and claimed it)
    head = git(repo, "rev-parse", "HEAD").stdout
    proc = git(repo, "revert", "--no-edit", "HEAD", check=False)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0, out
    assert "ratchet: K: key K-3 was removed" in out and "git revert makes its commit without the pre-commit hook" in out, out
    assert "git reset --merge" in out and "then `git commit`" in out
    assert git(repo, "rev-parse", "HEAD").stdout == head  # nothing landed
    assert "K-3" not in git(repo, "show", ":t.md").stdout  # the revert is staged
    # retire it, as the ratchet asks; `git commit` takes git's message and the claim is the revert's own move
    (repo / ".mergedrv.toml").write_text(CONFIG + 'retired = "RETIRED.md"\n')
    (repo / "RETIRED.md").write_text("# Retired\n\n- `K-3`: reverted\n")
    git(repo, "add", "-A")
    proc = git(repo, "commit", "--no-edit", check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert message(repo).startswith('Revert "add K-3"') and "K 3 -> 2" in message(repo), message(repo)
    range_ok(repo, "HEAD~2")


def add_rows(repo: Path, keys: list[str], message: str) -> None:
    (repo / "t.md").write_text((repo / "t.md").read_text() + "".join(f"| {k} | new |\n" for k in keys))
    assert git(repo, "commit", "-qam", message, check=False).returncode == 0


def test_a_clean_cherry_pick_carries_the_claim_of_its_own_pin_move(pinned):
    """The picked commit claims `K 2 -> 4`; on main, where K-3 came first,
    the driver merges the pin to 5, and the commit's move is `K 3 -> 5`."""
    repo = pinned
    git(repo, "checkout", "-q", "-b", "side")
    add_rows(repo, ["K-8", "K-9"], "add K-8 and K-9")
    assert "K 2 -> 4" in message(repo)
    git(repo, "checkout", "-q", "main")
    add_rows(repo, ["K-3"], "add K-3")
    proc = git(repo, "cherry-pick", "side", check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "pin = 5" in (repo / ".mergedrv.toml").read_text()
    text = message(repo)
    assert "K 3 -> 5" in text and "K 2 -> 4" not in text, text  # the picked commit's claim was another move
    range_ok(repo, "HEAD~2")


def test_a_cherry_pick_whose_pin_git_took_as_both_sides_wrote_it_is_stopped(pinned):
    """Both commits moved the pin 2 -> 3, the same line: git takes it without
    the driver, one short; the pick is stopped, `mergedrv fix` and `git
    commit` finish it with the claim of its own move."""
    repo = pinned
    git(repo, "checkout", "-q", "-b", "side")
    add_rows(repo, ["K-9"], "add K-9")
    git(repo, "checkout", "-q", "main")
    add_rows(repo, ["K-3"], "add K-3")
    proc = git(repo, "cherry-pick", "side", check=False)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0 and "K has 4 keys but its pin is 3" in out and "git cherry-pick makes its commit without" in out, out
    assert mergedrv(repo, "fix").returncode == 0
    git(repo, "add", "-u")
    proc = git(repo, "commit", "--no-edit", check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    text = message(repo)
    assert text.startswith("add K-9") and "K 3 -> 4" in text and "K 2 -> 3" not in text, text
    range_ok(repo, "HEAD~2")


def test_a_commit_without_verification_is_not_stopped_by_prepare_commit_msg(pinned):
    repo = pinned
    (repo / "t.md").write_text(HEAD + "| K-1 | a |\n")
    proc = git(repo, "commit", "-q", "--no-verify", "-am", "drop K-2", check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr  # (the documented escape: the range check will say it)

"""A rewrite never drops a key silently (issue #22 item 3), with real git and the
installed hooks: main adds K-3 and K-5, topic adds another K-3; the double
definition conflicts, the user takes topic's file whole (`checkout --theirs`),
which drops K-5.  Each way git replays topic's commit refuses that before the
branch moves: merge and cherry-pick (pre-commit), `rebase -i` stopped and
committed by hand (pre-commit), `rebase --continue` and `am -3 --continue`
(neither runs pre-commit: the reference-transaction hook)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.helpers import MERGEDRV, git

CONFIG = '[[record]]\nname = "K"\npath = "t.md"\nkey = "ID"\n'
HEAD = "| ID | v |\n|---|---|\n"
BASE = HEAD + "| K-1 | a |\n| K-2 | b |\n"
TOPIC = BASE + "| K-3 | topic |\n"
MAIN = BASE + "| K-3 | main |\n| K-5 | main |\n"
ENV = {"GIT_EDITOR": "true", "GIT_SEQUENCE_EDITOR": "true"}


def run(repo: Path, *args: str) -> subprocess.CompletedProcess:
    return git(repo, *args, check=False, env=ENV)


@pytest.fixture
def diverged(repo: Path) -> Path:
    git(repo, "config", "user.email", "a@example.com")
    git(repo, "config", "user.name", "a")
    (repo / ".mergedrv.toml").write_text(CONFIG)
    (repo / "t.md").write_text(BASE)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    proc = subprocess.run([*MERGEDRV, "install"], cwd=repo, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--no-verify", "-m", "install")
    git(repo, "checkout", "-q", "-b", "topic")
    (repo / "t.md").write_text(TOPIC)
    git(repo, "commit", "-q", "-am", "topic adds K-3")
    git(repo, "checkout", "-q", "main")
    (repo / "t.md").write_text(MAIN)
    git(repo, "commit", "-q", "-am", "main adds K-3 and K-5")
    return repo


def take_theirs(repo: Path) -> None:
    assert "<<<<<<<" in (repo / "t.md").read_text()  # the double definition of K-3 conflicted
    git(repo, "checkout", "--theirs", "--", "t.md")
    git(repo, "add", "t.md")
    assert "K-5" not in (repo / "t.md").read_text()


def rev(repo: Path, name: str) -> str:
    return git(repo, "rev-parse", name).stdout.strip()


def test_rebase_continue_is_refused_at_the_branch_update(diverged):
    repo = diverged
    git(repo, "checkout", "-q", "topic")
    before = rev(repo, "topic")
    assert run(repo, "rebase", "main").returncode != 0
    take_theirs(repo)
    proc = run(repo, "rebase", "--continue")
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0 and "Successfully rebased" not in out, out
    new = git(repo, "rev-parse", "--short", "HEAD").stdout.strip()
    assert f"t.md:6: merge-keys: K-5 is lost: {new} (rebased from " in out, out
    assert "refs/heads/topic is not updated" in out and "git rebase --continue" in out and "git rebase --abort" in out
    assert rev(repo, "topic") == before  # the branch did not move
    assert git(repo, "cat-file", "-t", new).stdout.strip() == "commit"  # the rebased commit is kept (HEAD)
    # the repair the message names: the row back, amend, continue
    (repo / "t.md").write_text(TOPIC + "| K-5 | main |\n")
    git(repo, "commit", "-q", "-a", "--amend", "--no-edit", env=ENV)
    proc = run(repo, "rebase", "--continue")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0 and "Successfully rebased" in out, proc.stderr
    assert "K-5" in git(repo, "show", "topic:t.md").stdout
    # post-rewrite judges what landed, not the refused commit the amend replaced (git still lists that one)
    assert "merge-keys" not in out and new not in out, out


def test_rebase_interactive_stop_committed_by_hand_is_refused(diverged):
    repo = diverged
    git(repo, "checkout", "-q", "topic")
    assert run(repo, "rebase", "-i", "main").returncode != 0
    take_theirs(repo)
    proc = run(repo, "commit", "-q", "--no-edit")
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0, out
    assert "t.md:6: merge-keys: K-5 is lost: the commit being made (picking " in out
    assert "git checkout -m -- t.md && mergedrv resolve --add t.md" in out and "git checkout --ours -- t.md" in out
    # the repair it names redoes the keyed merge: K-5 is back, K-3 is still for a person to decide
    git(repo, "checkout", "-m", "--", "t.md")
    subprocess.run([*MERGEDRV, "resolve", "--add", "t.md"], cwd=repo, capture_output=True, text=True)
    text = (repo / "t.md").read_text()
    assert "| K-5 | main |" in text and "| K-3 | topic |" in text and "| K-3 | main |" in text


def test_cherry_pick_continue_is_refused(diverged):
    repo = diverged
    before = rev(repo, "main")
    assert run(repo, "cherry-pick", "topic").returncode != 0
    take_theirs(repo)
    proc = run(repo, "cherry-pick", "--continue")
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0 and "K-5 is lost: the commit being made (picking " in out, out
    assert rev(repo, "main") == before


def test_revert_that_drops_a_key_is_refused(diverged):
    """Reverting topic's K-3 on a branch where K-5 came after: taking the
    reverted parent's file whole drops K-5, which the revert does not delete."""
    repo = diverged
    git(repo, "checkout", "-q", "topic")
    (repo / "t.md").write_text(TOPIC + "| K-5 | later |\n")
    git(repo, "commit", "-q", "-am", "K-5")
    (repo / "t.md").write_text(TOPIC.replace("| K-3 | topic |", "| K-3 | edited |") + "| K-5 | later |\n")
    git(repo, "commit", "-q", "-am", "edit K-3")
    before = rev(repo, "topic")
    assert run(repo, "revert", "--no-edit", "HEAD~2").returncode != 0  # K-3 was edited since: modify/delete
    git(repo, "checkout", "HEAD~2~", "--", "t.md")  # the reverted commit's parent, whole
    git(repo, "add", "t.md")
    proc = run(repo, "revert", "--continue")
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0 and "K-5 is lost: the commit being made (reverting " in out, out
    assert rev(repo, "topic") == before


def test_am_three_way_continue_is_refused_at_the_branch_update(diverged, tmp_path):
    repo = diverged
    patches = tmp_path / "patches"
    git(repo, "format-patch", "-q", "-1", "topic", "-o", str(patches))
    before = rev(repo, "main")
    assert run(repo, "am", "-3", *sorted(str(p) for p in patches.iterdir())).returncode != 0
    take_theirs(repo)
    proc = run(repo, "am", "--continue")
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0, out
    assert "t.md:6: merge-keys: K-5 is lost: " in out and "(`git am`) drops it" in out and "git am --continue" in out, out
    assert rev(repo, "main") == before


def test_merge_resolved_with_theirs_is_refused(diverged):
    repo = diverged
    assert run(repo, "merge", "topic").returncode != 0
    take_theirs(repo)
    proc = run(repo, "commit", "-q", "--no-edit")
    assert proc.returncode != 0 and "K-5" in proc.stdout + proc.stderr


def test_a_rebase_that_keeps_every_key_lands(diverged):
    """Resolved by key (the keyed merge, then the person's choice for K-3): nothing is refused."""
    repo = diverged
    git(repo, "checkout", "-q", "topic")
    assert run(repo, "rebase", "main").returncode != 0
    (repo / "t.md").write_text(BASE + "| K-3 | main |\n| K-5 | main |\n| K-3a | topic |\n")
    git(repo, "add", "t.md")
    proc = run(repo, "rebase", "--continue")
    assert proc.returncode == 0 and "Successfully rebased" in proc.stdout + proc.stderr, proc.stdout + proc.stderr


def test_a_rebase_over_leaves_no_original_behind_for_later_commits(diverged):
    """git leaves REBASE_HEAD in the git folder after a rebase that stopped
    and went on; the commits made afterwards replay nothing, so the rows the
    rebased commit added are not asked of them."""
    repo = diverged
    git(repo, "checkout", "-q", "topic")
    (repo / "t.md").write_text(TOPIC + "| K-8 | topic |\n")
    git(repo, "commit", "-q", "--no-verify", "--amend", "-am", "topic adds K-3 and K-8")
    assert run(repo, "rebase", "main").returncode != 0
    (repo / "t.md").write_text(MAIN + "| K-3a | topic |\n| K-8 | topic |\n")
    git(repo, "add", "t.md")
    assert run(repo, "rebase", "--continue").returncode == 0
    assert (repo / ".git" / "REBASE_HEAD").exists()  # (what git 2.39 leaves; the test means nothing without it)
    git(repo, "checkout", "-q", "main")
    (repo / "t.md").write_text(MAIN + "| K-6 | main |\n")
    proc = run(repo, "commit", "-q", "-am", "main adds K-6")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "K-8" not in proc.stdout + proc.stderr


def test_the_reference_transaction_hook_starts_nothing_outside_a_rewrite(diverged):
    """On an ordinary commit, checkout and branch update the hook exits in the
    shell: a mergedrv that cannot be found is never looked for."""
    repo = diverged
    env = {**ENV, "MERGEDRV": "/nonexistent/mergedrv"}
    (repo / "notes.txt").write_text("x\n")
    git(repo, "add", "notes.txt")
    for args in (["commit", "-q", "--no-verify", "-m", "notes"], ["checkout", "-q", "topic"], ["branch", "-f", "other", "main"]):
        proc = git(repo, *args, env=env)
        assert "reference-transaction check skipped" not in proc.stderr, (args, proc.stderr)
    hook = repo / ".git" / "hooks" / "reference-transaction"
    assert hook.exists() and os.access(hook, os.X_OK)


def test_rebase_abort_after_a_refusal_puts_the_branch_back(diverged):
    repo = diverged
    git(repo, "checkout", "-q", "topic")
    before = rev(repo, "topic")
    assert run(repo, "rebase", "main").returncode != 0
    take_theirs(repo)
    assert run(repo, "rebase", "--continue").returncode != 0
    proc = run(repo, "rebase", "--abort")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert rev(repo, "topic") == before and git(repo, "symbolic-ref", "HEAD").stdout.strip() == "refs/heads/topic"


def test_am_abort_after_a_refusal_puts_the_branch_back(diverged, tmp_path):
    """The first patch (adding K-9) lands, the second is refused; `git am --abort`
    moves main back over K-9: a reset, not a commit losing it."""
    repo = diverged
    patches = tmp_path / "patches"
    git(repo, "checkout", "-q", "-b", "series", "main~1")
    (repo / "t.md").write_text(BASE + "| K-9 | series |\n")
    git(repo, "commit", "-q", "-am", "K-9")
    (repo / "t.md").write_text(BASE + "| K-9 | series |\n| K-3 | series |\n")
    git(repo, "commit", "-q", "-am", "K-3")
    git(repo, "format-patch", "-q", "-2", "series", "-o", str(patches))
    git(repo, "checkout", "-q", "main")
    before = rev(repo, "main")
    assert run(repo, "am", "-3", *sorted(str(p) for p in patches.iterdir())).returncode != 0
    assert rev(repo, "main") != before  # the K-9 patch landed
    take_theirs(repo)
    assert run(repo, "am", "--continue").returncode != 0
    proc = run(repo, "am", "--abort")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert rev(repo, "main") == before


def test_a_deletion_made_on_purpose_passes_with_allow_drop(diverged):
    repo = diverged
    git(repo, "checkout", "-q", "topic")
    assert run(repo, "rebase", "main").returncode != 0
    take_theirs(repo)
    proc = run(repo, "rebase", "--continue")
    assert proc.returncode != 0 and "MERGEDRV_ALLOW_DROP=1" in proc.stderr + proc.stdout
    proc = git(repo, "rebase", "--continue", check=False, env={**ENV, "MERGEDRV_ALLOW_DROP": "1"})
    assert proc.returncode == 0 and "Successfully rebased" in proc.stdout + proc.stderr
    assert "K-5" not in git(repo, "show", "topic:t.md").stdout


PER_TABLE = '[[record]]\nname = "API"\npath = "t.md"\nkey = "API"\nkey_scope = "table"\n'


def apis(animals: list[str], science: list[str]) -> str:
    table = "| API | by |\n|---|---|\n"
    return ("## Animals\n\n" + table + "".join(f"| {a} |\n" for a in animals)
            + "\n## Science\n\n" + table + "".join(f"| {s} |\n" for s in science))


def test_rebase_dropping_a_per_table_key_from_one_of_its_tables_is_refused(repo):
    """key_scope = "table": main lists Dogs under Animals and Science, topic
    adds another Dogs under Animals; taking topic's file whole drops the
    Science one, which the name's row under Animals does not stand for."""
    git(repo, "config", "user.email", "a@example.com")
    git(repo, "config", "user.name", "a")
    (repo / ".mergedrv.toml").write_text(PER_TABLE)
    (repo / "t.md").write_text(apis(["Cats | base"], ["Numbers | base"]))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    assert subprocess.run([*MERGEDRV, "install"], cwd=repo, capture_output=True).returncode == 0
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--no-verify", "-m", "install")
    git(repo, "checkout", "-q", "-b", "topic")
    (repo / "t.md").write_text(apis(["Cats | base", "Dogs | topic"], ["Numbers | base"]))
    git(repo, "commit", "-q", "-am", "topic adds Dogs to Animals")
    git(repo, "checkout", "-q", "main")
    (repo / "t.md").write_text(apis(["Cats | base", "Dogs | main"], ["Numbers | base", "Dogs | main"]))
    git(repo, "commit", "-q", "-am", "main adds Dogs to both")
    git(repo, "checkout", "-q", "topic")
    before = rev(repo, "topic")
    assert run(repo, "rebase", "main").returncode != 0
    assert "<<<<<<<" in (repo / "t.md").read_text()  # Dogs defined twice under Animals
    git(repo, "checkout", "--theirs", "--", "t.md")
    git(repo, "add", "t.md")
    proc = run(repo, "rebase", "--continue")
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0 and "Successfully rebased" not in out, out
    assert "t.md:13: merge-keys: Dogs is lost: " in out and "refs/heads/topic is not updated" in out, out
    assert rev(repo, "topic") == before

"""post-rewrite: a rebased branch adds, changes and deletes the same keys."""

from __future__ import annotations

import os
import subprocess

import pytest

from mergedrv import config, history
from mergedrv.git import repository
from tests.history_helpers import CONFIG, MATRIX
from tests.helpers import commit, git, short
from tests.history.test_merge_keys import rows

HOOK = "#!/bin/sh\ncat >> \"$(git rev-parse --git-dir)/rewritten-$1\"\n"


@pytest.fixture
def started(repo):
    commit(repo, "root", {".mergedrv.toml": CONFIG, MATRIX: rows()})
    hook = repo / ".git/hooks/post-rewrite"
    hook.write_text(HOOK)
    hook.chmod(0o755)
    return repo


def pairs(repo, kind: str = "rebase") -> list[tuple[str, str]]:
    path = repo / f".git/rewritten-{kind}"
    text = path.read_text() if path.exists() else ""
    path.unlink(missing_ok=True)
    return history.parse_rewritten(text)


def check(repo, kind: str = "rebase"):
    return history.rewritten(history.Reader(repository(repo), config.loads(CONFIG)), pairs(repo, kind))


def diverge(repo, ours: dict, theirs: list[dict]) -> None:
    """main gets ``ours``; branch feature (from the root) gets one commit per dict."""
    git(repo, "switch", "-q", "-c", "feature")
    for n, files in enumerate(theirs):
        commit(repo, f"feature {n}", files)
    git(repo, "switch", "-q", "main")
    commit(repo, "main", ours)
    git(repo, "switch", "-q", "feature")


def test_clean_rebase_passes(started):
    repo = started
    diverge(repo, {MATRIX: rows(after={"M-9": ["M-90"]})},
            [{MATRIX: rows(after={"M-2": ["M-20"]})}, {MATRIX: rows(("M-5", "DONE"), drop=["M-7"], after={"M-2": ["M-20"]})}])
    git(repo, "rebase", "-q", "main")
    assert len((repo / ".git/rewritten-rebase").read_text().splitlines()) == 2
    assert check(repo) == []


def test_rebase_resolved_as_a_union_duplicates_a_key(started):
    repo = started
    diverge(repo, {MATRIX: rows(("M-4", "BLOCKED"))}, [{MATRIX: rows(("M-4", "DONE"))}])
    assert git(repo, "rebase", "-q", "main", check=False).returncode != 0
    (repo / MATRIX).write_text(rows(("M-4", "BLOCKED"), after={"M-4": [("M-4", "DONE")]}))
    git(repo, "add", MATRIX)
    git(repo, "-c", "core.editor=true", "rebase", "--continue")
    [f] = check(repo)
    assert f.check == "merge-keys" and f.commit == short(repo, "HEAD")
    assert f.message.startswith("M-4 is defined twice after the rewrite (lines 8 and 9)")


def test_rebase_resolved_by_taking_upstream_drops_the_change(started):
    repo = started
    diverge(repo, {MATRIX: rows(("M-4", "BLOCKED"))}, [{MATRIX: rows(("M-4", "DONE"), after={"M-1": ["M-15"]})}])
    git(repo, "rebase", "-q", "main", check=False)
    (repo / MATRIX).write_text(rows(("M-4", "BLOCKED"), after={"M-1": ["M-15"]}))
    git(repo, "add", MATRIX)
    git(repo, "-c", "core.editor=true", "rebase", "--continue")
    [f] = check(repo)
    assert f.message.startswith("M-4: the original (") and "set column 'state'" in f.message


def test_rebase_that_loses_an_added_key_and_touches_another(started):
    repo = started
    diverge(repo, {MATRIX: rows(("M-10", "X"), after={"M-10": ["M-11"]})}, [{MATRIX: rows(after={"M-10": ["M-12"]})}])
    git(repo, "rebase", "-q", "main", check=False)
    (repo / MATRIX).write_text(rows(("M-10", "X"), drop=["M-3"], after={"M-10": ["M-11"]}))
    git(repo, "add", MATRIX)
    git(repo, "-c", "core.editor=true", "rebase", "--continue")
    found = sorted(f.message for f in check(repo))
    assert [m.split(":")[0] for m in found] == ["M-12 is lost", "M-3"]
    assert "the rewritten commit deletes it; the original" in found[1]


def test_squash_is_compared_as_one_change(started):
    repo = started
    diverge(repo, {"notes.txt": "n\n"},
            [{MATRIX: rows(after={"M-2": ["M-20"]})}, {MATRIX: rows(("M-20", "DONE"), after={"M-2": [("M-20", "DONE")]})}])
    subprocess.run(["git", "-c", "core.editor=true", "rebase", "-q", "-i", "main"], cwd=repo, check=True,
                   env={**os.environ, "GIT_SEQUENCE_EDITOR": "sed -i -e '2s/^pick/squash/'"}, capture_output=True)
    got = pairs(repo)
    assert len(got) == 2 and got[0][1] == got[1][1]
    assert history.rewritten(history.Reader(repository(repo), config.loads(CONFIG)), got) == []


def test_unknown_commit_in_the_input_is_a_clear_error(started):
    from mergedrv.git import GitError

    with pytest.raises(GitError, match="is not a commit"):
        history.rewritten(history.Reader(repository(started), config.loads(CONFIG)), [("deadbeef" * 5, "HEAD")])
    with pytest.raises(GitError, match="expected `old-sha new-sha`"):
        history.parse_rewritten("justone\n")

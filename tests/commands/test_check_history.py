"""`mergedrv check --base/--head`, `--merge-head` and `--rewritten` as processes, and as git hooks."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys

import pytest

from tests.history_helpers import CONFIG, MATRIX, table
from tests.helpers import commit, git, head, short
from tests.history.test_merge_keys import rows

MERGEDRV = [sys.executable, "-m", "mergedrv"]
DOCS = {"README.md": "readme\n", "docs/STATUS.md": "status\n"}
PINNED = CONFIG.replace('key = "ID"\n', 'key = "ID"\npin = 1\n', 1)


def check(repo, *args: str, input: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([*MERGEDRV, "check", *args], cwd=repo, capture_output=True, text=True, input=input)


@pytest.fixture
def history(repo):
    """root (fine), src without docs (bad), a duplicated key with docs (bad)."""
    commit(repo, "root", {".mergedrv.toml": CONFIG, **DOCS, MATRIX: table("M-1")})
    commit(repo, "src alone", {"src/a.c": "a\n"})
    commit(repo, "dup", {MATRIX: table("M-1", "M-2", "M-2"), "README.md": "r2\n", "docs/STATUS.md": "s2\n"})
    return repo


def test_range_text_output_summary_and_exit_code(history):
    repo = history
    p = check(repo, "--base", "HEAD~2", "--head", "HEAD")
    assert p.returncode == 1
    lines = p.stdout.splitlines()
    bad, dup = short(repo, "HEAD~1"), short(repo, "HEAD")
    assert lines[0] == (f"{bad}:.mergedrv.toml:6: checkpoint: changes src/a.c but not README.md, docs/STATUS.md; "
                        "a change to a `when` path must update every `require` document in the same commit")
    assert any(line.startswith(f"{dup}:{MATRIX}:7: keys-unique:") for line in lines), lines
    assert p.stderr.strip().startswith("mergedrv check: 2 commits (0 merges) checked in ")
    assert p.stderr.strip().endswith(f": {len(lines)} findings in 2 commits")


def test_range_json_has_one_object_per_finding(history):
    p = check(history, "--base", "HEAD~2", "--head", "HEAD", "--format", "json")
    assert p.returncode == 1
    found = json.loads(p.stdout)
    assert {(f["check"], f["commit"]) for f in found} >= {("checkpoint", short(history, "HEAD~1")),
                                                         ("keys-unique", short(history, "HEAD"))}
    assert set(found[0]) == {"path", "line", "check", "message", "commit", "inherited"}


def test_clean_range_exits_zero_and_only_selects_checks(history):
    p = check(history, "--base", "HEAD~1", "--head", "HEAD", "--only", "checkpoint")
    assert (p.returncode, p.stdout) == (0, "")
    assert p.stderr.strip().endswith("1 commit (0 merges) checked in " + p.stderr.split(" in ")[1].split(":")[0] + ": ok")
    p = check(history, "--base", "HEAD", "--head", "HEAD", "--format", "json")
    assert (p.returncode, json.loads(p.stdout)) == (0, [])


@pytest.mark.parametrize(
    "args, message",
    [
        (["--base", "nope", "--head", "HEAD"], "--base 'nope' does not exist in this repository"),
        (["--base", "HEAD~1"], "--base and --head go together"),
        (["--base", "HEAD~1", "--head", "HEAD", "--only", "bogus"], "--only: unknown check id 'bogus'"),
    ],
)
def test_usage_errors_exit_two_with_one_line(history, args, message):
    p = check(history, *args)
    assert p.returncode == 2 and p.stdout == ""
    assert message in p.stderr and len(p.stderr.strip().splitlines()) == 1 and "Traceback" not in p.stderr


def test_base_not_an_ancestor_exits_two(history):
    git(history, "switch", "-q", "-c", "side", "HEAD~1")
    commit(history, "side", {"notes.txt": "n\n"})
    p = check(history, "--base", "main", "--head", "side")
    assert p.returncode == 2
    assert "--base main" in p.stderr and "is not an ancestor of --head side" in p.stderr


def test_bad_configuration_exits_two(history, tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("[[checkpoint]]\nwhen = 'src/**'\nrequire = []\n")
    p = check(history, "--base", "HEAD~1", "--head", "HEAD", "--config", str(bad))
    assert p.returncode == 2 and f"{bad}:2:" in p.stderr and "Traceback" not in p.stderr


def test_each_commit_is_held_to_its_own_pin(repo):
    """Pins move with the rows; older commits are not judged by the head's pin."""
    commit(repo, "root", {".mergedrv.toml": PINNED, **DOCS, MATRIX: table("M-1")})
    base = head(repo)
    commit(repo, "add M-2\n\nMODEL 1 -> 2", {".mergedrv.toml": PINNED.replace("pin = 1", "pin = 2"),
                                           MATRIX: table("M-1", "M-2"), "README.md": "r2\n", "docs/STATUS.md": "s2\n"})
    commit(repo, "add M-3\n\nMODEL 2 -> 3", {".mergedrv.toml": PINNED.replace("pin = 1", "pin = 3"),
                                           MATRIX: table("M-1", "M-2", "M-3"), "README.md": "r3\n", "docs/STATUS.md": "s3\n"})
    p = check(repo, "--base", base, "--head", "HEAD")
    assert (p.returncode, p.stdout) == (0, ""), p.stdout
    silent = commit(repo, "add M-4 quietly", {".mergedrv.toml": PINNED.replace("pin = 1", "pin = 4"),
                                              MATRIX: table("M-1", "M-2", "M-3", "M-4"), "README.md": "r4\n",
                                              "docs/STATUS.md": "s4\n"})
    unpinned = commit(repo, "add M-5, pin not moved", {MATRIX: table("M-1", "M-2", "M-3", "M-4", "M-5"),
                                                        "README.md": "r5\n", "docs/STATUS.md": "s5\n"})
    p = check(repo, "--base", base, "--head", "HEAD")
    got = {(line.split(":")[0], line.split(": ")[1]) for line in p.stdout.splitlines()}
    assert got == {(short(repo, silent), "pin-claims"), (short(repo, unpinned), "ratchet")}, p.stdout


def _install_hook(repo, name: str, body: str) -> None:
    hook = repo / ".git" / "hooks" / name
    hook.write_text(f"#!/bin/sh\nexec '{sys.executable}' -m mergedrv check {body}\n")
    hook.chmod(0o755)


def test_pre_merge_commit_hook_refuses_a_merge_that_duplicates_a_key(repo):
    commit(repo, "root", {".mergedrv.toml": CONFIG.split("[[checkpoint]]")[0], MATRIX: rows()})
    _install_hook(repo, "pre-merge-commit", "--merge-head")
    git(repo, "switch", "-q", "-c", "feature")
    commit(repo, "feature", {MATRIX: rows(after={"M-2": [("M-99", "DONE")]})})
    git(repo, "switch", "-q", "main")
    commit(repo, "main", {MATRIX: rows(after={"M-9": [("M-99", "TODO")]})})
    before = head(repo)
    p = git(repo, "merge", "--no-ff", "-m", "merge", "feature", check=False)
    assert p.returncode != 0 and head(repo) == before  # the hook stopped the merge commit
    assert f"{MATRIX}:15: merge-keys: M-99 is defined twice (lines 7 and 15); no parent defines it twice" in p.stderr
    git(repo, "merge", "--abort")
    git(repo, "switch", "-q", "-c", "ok", "HEAD~1")
    assert git(repo, "merge", "--no-ff", "-m", "merge", "feature", check=False).returncode == 0


def test_post_rewrite_hook_reports_a_union_resolution(repo):
    commit(repo, "root", {".mergedrv.toml": CONFIG.split("[[checkpoint]]")[0], MATRIX: rows()})
    _install_hook(repo, "post-rewrite", '--rewritten "$1"')
    git(repo, "switch", "-q", "-c", "feature")
    commit(repo, "feature", {MATRIX: rows(("M-4", "DONE"))})
    git(repo, "switch", "-q", "main")
    commit(repo, "main", {MATRIX: rows(("M-4", "BLOCKED"))})
    git(repo, "switch", "-q", "feature")
    git(repo, "rebase", "main", check=False)
    (repo / MATRIX).write_text(rows(("M-4", "BLOCKED"), after={"M-4": [("M-4", "DONE")]}))
    git(repo, "add", MATRIX)
    p = git(repo, "-c", "core.editor=true", "rebase", "--continue")
    assert f"{short(repo, 'HEAD')}:{MATRIX}:9: merge-keys: M-4 is defined twice after the rewrite (lines 8 and 9)" in \
        p.stdout + p.stderr
    p = git(repo, "commit", "--amend", "-m", "amended")
    assert "merge-keys" not in p.stdout + p.stderr  # an amend rewrites on purpose


def test_rewritten_reads_pairs_from_stdin(repo):
    commit(repo, "root", {".mergedrv.toml": CONFIG, MATRIX: rows()})
    old = commit(repo, "add", {MATRIX: rows(after={"M-1": ["M-11"]})})
    git(repo, "reset", "-q", "--hard", "HEAD~1")
    new = commit(repo, "add, but lose it", {MATRIX: rows(("M-1", "x"))})
    p = check(repo, "--rewritten", input=f"{old} {new}\n")
    assert p.returncode == 1
    assert {line.split(": ", 2)[2].split(":")[0] for line in p.stdout.splitlines()} == {"M-11 is lost", "M-1"}
    assert check(repo, "--rewritten", "amend", input=f"{old} {new}\n").returncode == 0
    p = check(repo, "--rewritten", input="garbage\n")
    assert p.returncode == 2 and "expected `old-sha new-sha`" in p.stderr


def _long_history(repo, n: int) -> None:
    stream = []
    for i in range(n):
        data = f"{i}\n"
        stream.append(f"commit refs/heads/main\nmark :{i + 1}\ncommitter T <t@e> {1700000000 + i} +0000\ndata 1\nx\n"
                      + (f"from :{i}\n" if i else "") + f"M 100644 inline notes.txt\ndata {len(data)}\n{data}\n")
    git(repo, "fast-import", "--quiet", input="".join(stream))
    (repo / ".mergedrv.toml").write_text(CONFIG)


def test_progress_bar_only_on_a_terminal(repo):
    _long_history(repo, 400)
    args = [*MERGEDRV, "check", "--base", "0" * 40, "--head", "main", "--config", ".mergedrv.toml"]
    p = subprocess.run(args, cwd=repo, capture_output=True, text=True)
    assert p.returncode == 0 and p.stderr.count("\n") == 1 and "400 commits" in p.stderr
    leader, follower = pty.openpty()
    proc = subprocess.Popen(args, cwd=repo, stdout=subprocess.PIPE, stderr=follower, env={**os.environ, "TERM": "xterm"})
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    proc.wait()
    os.close(leader)
    seen = b"".join(chunks).decode("utf-8", "replace")
    assert proc.returncode == 0 and "400 commits" in seen
    assert "checking commits" in seen or "\x1b[?25l" in seen  # rich drew (and hid the cursor for) a bar


def test_pre_merge_commit_hook_under_git_pull(repo, tmp_path):
    commit(repo, "root", {".mergedrv.toml": CONFIG.split("[[checkpoint]]")[0], MATRIX: rows()})
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(repo), str(clone))
    _install_hook(clone, "pre-merge-commit", "--merge-head")
    commit(repo, "upstream", {MATRIX: rows(after={"M-2": [("M-99", "DONE")]})})
    commit(clone, "local", {MATRIX: rows(after={"M-9": [("M-99", "TODO")]})})
    before = head(clone)
    p = git(clone, "pull", "--no-rebase", "--no-edit", check=False)
    assert p.returncode != 0 and head(clone) == before
    assert "merge-keys: M-99 is defined twice" in p.stderr


def test_range_reports_what_each_commit_introduced(repo):
    """A problem already in the parent is not repeated at every later commit."""
    commit(repo, "root", {".mergedrv.toml": CONFIG.split("[[checkpoint]]")[0], MATRIX: table("M-1", "M-1")})
    base = head(repo)
    commit(repo, "more rows", {MATRIX: table("M-1", "M-1", "M-2")})
    dup = commit(repo, "another duplicate", {MATRIX: table("M-1", "M-1", "M-2", "M-2")})
    commit(repo, "more rows again", {MATRIX: table("M-1", "M-1", "M-2", "M-2", "M-3")})
    p = check(repo, "--base", base, "--head", "HEAD")
    assert p.returncode == 1
    assert [line.split(": ")[:2] for line in p.stdout.splitlines()] == [[f"{short(repo, dup)}:{MATRIX}:8", "keys-unique"]]
    p = check(repo, "--base", "0" * 40, "--head", "HEAD")
    assert {line.split(":")[0] for line in p.stdout.splitlines()} == {short(repo, base), short(repo, dup)}, p.stdout + p.stderr

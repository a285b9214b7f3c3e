"""git access (mergedrv.git): pygit2 imported as a package (never its compiled core alone), only when a snapshot needs it."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.history_helpers import CONFIG, MATRIX, table
from tests.helpers import commit


def _python(code: str, cwd) -> str:
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, check=True).stdout


def test_range_check_imports_the_pygit2_package_itself(repo):
    """The range walk reads commits, trees and blobs through ``import pygit2``
    (the compiled core is never loaded on its own, issue #17)."""
    commit(repo, "root", {".mergedrv.toml": CONFIG, MATRIX: table("M-1")})
    commit(repo, "add", {MATRIX: table("M-1", "M-2")})
    out = _python(
        "import sys\n"
        "from mergedrv.cli import main\n"
        "rc = main(['check', '--base', '0' * 40, '--head', 'HEAD'])\n"
        "print(rc, 'pygit2' in sys.modules, 'pygit2._pygit2' in sys.modules)\n",
        repo,
    )
    assert out.splitlines()[-1].split()[1:] == ["True", "True"]


def test_the_full_package_imported_after_the_core_shares_its_types(repo):
    commit(repo, "root", {"a.txt": "a\n"})
    out = _python(
        "from mergedrv import git as gitmod\n"
        "git2 = gitmod.core()\n"
        "r = gitmod.repository('.')\n"
        "c = r.revparse_single('HEAD').peel(git2.Commit)\n"
        "import pygit2\n"
        "full = gitmod.repository('.', index=True)\n"
        "print(pygit2.Commit is git2.Commit, isinstance(full, pygit2.Repository),\n"
        "      int(c.tree['a.txt'].filemode), r.get(c.tree['a.txt'].id).data == b'a\\n', r.get('0' * 40))\n",
        repo,
    )
    assert out.split() == ["True", "True", "33188", "True", "None"]


def test_outside_a_repository_is_a_clear_error(tmp_path):
    from mergedrv.git import GitError, repository

    try:
        repository(tmp_path)
    except GitError as exc:
        assert "is not inside a git repository" in str(exc)
    else:
        raise AssertionError("no error outside a repository")


def test_a_checkpoint_only_range_check_leaves_the_record_model_unimported(repo):
    """`--only checkpoint` (the CI rule most often timed) needs neither the record
    checks nor tree-sitter."""
    commit(repo, "root", {".mergedrv.toml": CONFIG, MATRIX: table("M-1")})
    out = _python(
        "import sys\n"
        "from mergedrv.cli import main\n"
        "main(['check', '--only', 'checkpoint', '--base', '0' * 40, '--head', 'HEAD'])\n"
        "print([m for m in ('mergedrv.checks', 'mergedrv.model', 'tree_sitter') if m in sys.modules])\n",
        repo,
    )
    assert out.splitlines()[-1] == "[]"


def test_the_git_runner_gives_what_subprocess_gives(tmp_path):
    # mergedrv.spawn replaces subprocess.run for git (a hook saves importing subprocess)
    from mergedrv import git as gitmod

    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    blob = subprocess.run(["git", "hash-object", "-w", "--stdin"], cwd=tmp_path, input=b"x" * 70000, capture_output=True, check=True)
    oid = blob.stdout.strip().decode()
    batch = (oid + "\n").encode() * 300  # ~20 MB out while 12 KB go in: no deadlock
    for args, stdin in ((["cat-file", "--batch"], batch), (["rev-parse", "--verify", "nope"], None), (["status", "--porcelain"], None)):
        want = subprocess.run(["git", *args], cwd=tmp_path, input=stdin, capture_output=True)
        got = gitmod.run(tmp_path, *args, input=stdin)
        assert (got.status, got.stdout, got.stderr) == (want.returncode, want.stdout, want.stderr), args
        pending = gitmod.start(tmp_path, *args, input=stdin)  # in the background: ~20 MB out, no pipe to fill
        later = pending.ran()
        assert (later.status, later.stdout, later.stderr) == (want.returncode, want.stdout, want.stderr), args
    elsewhere = gitmod.run(str(tmp_path / ".git"), "rev-parse", "--git-dir")  # another folder than the current one
    assert elsewhere.ok and elsewhere.stdout.strip() == b"."
    for runner in (gitmod.run, gitmod.start):
        try:
            runner(tmp_path / "missing", "status")
        except gitmod.GitError as exc:
            assert str(exc).endswith("missing: no such directory")
        else:
            raise AssertionError("a missing folder must be a GitError")


def test_a_merge_in_progress_is_seen_in_the_main_and_a_linked_worktree(tmp_path):
    # merge_in_progress reads MERGE_HEAD's file where the git folder is plain to
    # see (no git process on every commit), and asks git otherwise
    from mergedrv.git import merge_in_progress

    main = tmp_path / "main"
    subprocess.run(["git", "init", "-q", "-b", "main", str(main)], check=True)
    for k, v in (("user.email", "t@example.com"), ("user.name", "T")):
        subprocess.run(["git", "config", k, v], cwd=main, check=True)
    (main / "f").write_text("base\n")
    subprocess.run(["git", "add", "f"], cwd=main, check=True)
    subprocess.run(["git", "commit", "-qm", "base"], cwd=main, check=True)
    linked = tmp_path / "linked"
    subprocess.run(["git", "worktree", "add", "-q", "-b", "side", str(linked)], cwd=main, check=True)
    for where, name in ((main, "side-main"), (linked, "side-linked")):
        subprocess.run(["git", "checkout", "-qb", name], cwd=where, check=True)
        (where / "f").write_text(f"{name}\n")
        subprocess.run(["git", "commit", "-qam", name], cwd=where, check=True)
    subprocess.run(["git", "checkout", "-q", "main"], cwd=main, check=True)
    (main / "f").write_text("main\n")
    subprocess.run(["git", "commit", "-qam", "main"], cwd=main, check=True)
    assert not merge_in_progress(main) and not merge_in_progress(linked)
    subprocess.run(["git", "merge", "-q", "side-main"], cwd=main, capture_output=True)  # conflicts: MERGE_HEAD stays
    assert merge_in_progress(main) and not merge_in_progress(linked)
    subprocess.run(["git", "merge", "--abort"], cwd=main, check=True)
    subprocess.run(["git", "merge", "-q", "main"], cwd=linked, capture_output=True)
    assert merge_in_progress(linked) and not merge_in_progress(main)
    env_dir = subprocess.run(["git", "rev-parse", "--absolute-git-dir"], cwd=linked, capture_output=True, text=True).stdout.strip()
    import os

    os.environ["GIT_DIR"] = env_dir
    try:
        assert merge_in_progress(linked)
    finally:
        del os.environ["GIT_DIR"]


def test_a_snapshot_reads_a_small_file_from_the_work_tree_only_when_it_holds_the_same_bytes(tmp_path):
    # GitRev.read skips `git cat-file` for a small file whose work-tree bytes hash to the blob id
    import os

    from mergedrv.git import GitRev

    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "same.md").write_bytes(b"staged\n")
    (tmp_path / "edited.md").write_bytes(b"staged\n")
    (tmp_path / "link.md").symlink_to("same.md")
    subprocess.run(["git", "add", "-A"], cwd=tmp_path, check=True)
    tree = subprocess.run(["git", "write-tree"], cwd=tmp_path, capture_output=True, text=True, check=True).stdout.strip()
    (tmp_path / "edited.md").write_bytes(b"not staged\n")
    snap = GitRev(str(tmp_path), tree)
    assert snap.read("same.md") == b"staged\n"
    assert snap.read("edited.md") == b"staged\n"  # the index's bytes, not the work tree's
    assert snap.read("link.md") == b"same.md"  # a symlink is its target's name, as git stores it
    os.chmod(tmp_path / "same.md", 0)  # unreadable: git still reads the blob
    try:
        assert GitRev(str(tmp_path), tree).read("same.md") == b"staged\n"
    finally:
        os.chmod(tmp_path / "same.md", 0o644)


def test_a_large_file_the_work_tree_holds_as_staged_is_read_without_git(tmp_path):
    # a 300 KB record (the real model matrix is 252 KB) is read from the work tree when its bytes hash to
    # the blob id: with the blob's object removed from the repository, only the work tree can give it
    from mergedrv.git import GitRev

    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    big = b"".join(b"| ROW-%06d | cell |\n" % n for n in range(15000))
    assert len(big) > 300_000
    (tmp_path / "big.md").write_bytes(big)
    subprocess.run(["git", "add", "big.md"], cwd=tmp_path, check=True)
    tree = subprocess.run(["git", "write-tree"], cwd=tmp_path, capture_output=True, text=True, check=True).stdout.strip()
    blob = subprocess.run(["git", "rev-parse", ":big.md"], cwd=tmp_path, capture_output=True, text=True, check=True).stdout.strip()
    (tmp_path / ".git" / "objects" / blob[:2] / blob[2:]).unlink()
    assert GitRev(str(tmp_path), tree).read("big.md") == big
    (tmp_path / "big.md").write_bytes(big + b"| ROW-X | edited |\n")  # other bytes: git is asked, and has no such blob now
    assert GitRev(str(tmp_path), tree).read("big.md") is None


def test_a_missing_folder_is_named_as_such(tmp_path):
    from mergedrv.git import GitError, run

    for where, said in ((tmp_path / "nope", "no such directory"), (tmp_path / "f", "not a directory")):
        if where.name == "f":
            where.write_text("x")
        with pytest.raises(GitError, match=said):
            run(where, "status")


def test_an_empty_repository_has_no_head_to_check(tmp_path):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    proc = subprocess.run([sys.executable, "-m", "mergedrv", "check", "--commit", "HEAD"], cwd=tmp_path, capture_output=True, text=True)
    assert proc.returncode == 2 and proc.stderr == "mergedrv check: --commit 'HEAD': no commit yet (the repository is empty)\n", proc.stderr

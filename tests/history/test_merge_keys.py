"""merge-keys: merge commits (and a merge being concluded) keep every key."""

from __future__ import annotations

import pytest

from mergedrv import config, history
from mergedrv.git import repository
from tests.history_helpers import CONFIG, MATRIX, table
from tests.helpers import commit, git, head, merge, short

ROWS = [f"M-{i}" for i in range(1, 11)]


def rows(*changes, drop=(), after: dict[str, list] | None = None) -> str:
    """The ten base rows with (key, state) changes, dropped keys and rows inserted after a key."""
    state = dict(changes)
    out: list = []
    for key in ROWS:
        if key not in drop:
            out.append((key, state.get(key, "TODO")))
        out.extend((after or {}).get(key, []))
    return table(*out)


def merge_findings(repo, base: str, cfg_text: str = CONFIG):
    findings, _ = history.check_range(repository(repo), config.loads(cfg_text), base, "HEAD", only={"merge-keys"})
    return findings


@pytest.fixture
def started(repo):
    commit(repo, "root", {".mergedrv.toml": CONFIG, MATRIX: rows()})
    return repo


def branch(repo, name: str, files: dict, start: str = "main") -> str:
    git(repo, "switch", "-q", "-c", name, start)
    sha = commit(repo, name, files)
    git(repo, "switch", "-q", "main")
    return sha


def test_clean_merge_of_distinct_additions_passes(started):
    repo = started
    base = head(repo)
    branch(repo, "feature", {MATRIX: rows(after={"M-2": ["M-20"]})})
    commit(repo, "main", {MATRIX: rows(after={"M-9": ["M-90"]})})
    merge(repo, "feature")
    text = (repo / MATRIX).read_text()
    assert "M-20" in text and "M-90" in text
    assert merge_findings(repo, base) == []


def test_merge_that_duplicates_a_key_is_flagged_with_both_lines(started):
    repo = started
    base = head(repo)
    branch(repo, "feature", {MATRIX: rows(after={"M-2": [("M-99", "DONE")]})})
    commit(repo, "main", {MATRIX: rows(after={"M-9": [("M-99", "TODO")]})})
    merge(repo, "feature")  # git merges this cleanly: the key is now defined twice
    [f] = merge_findings(repo, base)
    lines = (repo / MATRIX).read_text().splitlines()
    where = [n for n, line in enumerate(lines, 1) if "M-99" in line]
    assert len(where) == 2
    assert (f.path, f.line, f.check, f.commit) == (MATRIX, where[1], "merge-keys", short(repo, "HEAD"))
    assert f"M-99 is defined twice (lines {where[0]} and {where[1]})" in f.message


def test_evil_merge_that_takes_ours_wholesale_loses_their_key(started):
    repo = started
    base = head(repo)
    theirs = branch(repo, "feature", {MATRIX: rows(after={"M-5": ["M-55"]})})
    commit(repo, "main", {MATRIX: rows(after={"M-9": ["M-90"]})})
    git(repo, "merge", "-q", "-s", "ours", "-m", "merge, blindly", "feature")
    [f] = merge_findings(repo, base)
    assert f.check == "merge-keys" and f.commit == short(repo, "HEAD")
    assert f.message.startswith(f"M-55 is lost: {short(repo, theirs)} has it (line 10 of {short(repo, theirs)})")
    assert (f.path, f.line) == (MATRIX, 10)


def test_conflict_resolved_by_taking_one_side_loses_the_other_sides_key(started):
    repo = started
    base = head(repo)
    branch(repo, "feature", {MATRIX: rows(after={"M-10": ["M-11"]})})
    commit(repo, "main", {MATRIX: rows(after={"M-10": ["M-12"]})})
    assert merge(repo, "feature", check=False).returncode != 0  # both appended: a conflict
    git(repo, "checkout", "--ours", "--", MATRIX)
    git(repo, "add", MATRIX)
    git(repo, "commit", "-q", "--no-edit")
    [f] = merge_findings(repo, base)
    assert f.message.startswith("M-11 is lost")


def test_conflict_resolved_with_both_rows_passes(started):
    repo = started
    base = head(repo)
    branch(repo, "feature", {MATRIX: rows(after={"M-10": ["M-11"]})})
    commit(repo, "main", {MATRIX: rows(after={"M-10": ["M-12"]})})
    merge(repo, "feature", check=False)
    (repo / MATRIX).write_text(rows(after={"M-10": ["M-12", "M-11"]}))
    git(repo, "add", MATRIX)
    git(repo, "commit", "-q", "--no-edit")
    assert merge_findings(repo, base) == []


def test_key_deleted_by_the_other_side_may_go(started):
    repo = started
    base = head(repo)
    branch(repo, "feature", {MATRIX: rows(drop=["M-3"])})
    commit(repo, "main", {MATRIX: rows(("M-9", "DONE"))})
    merge(repo, "feature")
    assert "M-3" not in (repo / MATRIX).read_text()
    assert merge_findings(repo, base) == []


def test_row_changed_on_one_side_must_keep_that_sides_content(started):
    repo = started
    base = head(repo)
    theirs = branch(repo, "feature", {MATRIX: rows(("M-4", "DONE"))})
    commit(repo, "main", {"notes.txt": "n\n"})
    git(repo, "merge", "-q", "-s", "ours", "-m", "merge", "feature")
    [f] = merge_findings(repo, base)
    assert f.message == (f"M-4: only {short(repo, theirs)} changed column 'state', but the merge does not have its "
                         f"value (line 8 of {short(repo, theirs)})")
    assert (f.path, f.line) == (MATRIX, 8)


def test_row_added_on_one_side_must_keep_that_sides_content(started):
    repo = started
    base = head(repo)
    branch(repo, "feature", {MATRIX: rows(after={"M-5": [("M-55", "DONE")]})})
    git(repo, "merge", "-q", "--no-ff", "--no-commit", "feature")
    (repo / MATRIX).write_text(rows(after={"M-5": [("M-55", "BLOCKED")]}))
    git(repo, "add", MATRIX)
    git(repo, "commit", "-q", "--no-edit")
    [f] = merge_findings(repo, base)
    assert "M-55: added by" in f.message and "column 'state'" in f.message


def test_criss_cross_merge_that_deletes_correctly_is_not_flagged(started):
    repo = started
    base = head(repo)
    x1 = branch(repo, "x", {MATRIX: rows(after={"M-2": ["M-x"]})})
    y1 = branch(repo, "y", {MATRIX: rows(after={"M-8": ["M-y"]})})
    git(repo, "switch", "-q", "x")
    merge(repo, y1)
    git(repo, "switch", "-q", "y")
    merge(repo, x1)
    git(repo, "switch", "-q", "x")
    commit(repo, "x drops M-y", {MATRIX: rows(after={"M-2": ["M-x"]})})
    merge(repo, "y")  # bases are x1 and y1: only y1 has M-y, so x deleted it
    assert len(git(repo, "merge-base", "--all", "HEAD^1", "HEAD^2").stdout.split()) == 2
    assert "M-y" not in (repo / MATRIX).read_text()
    assert merge_findings(repo, base) == []
    # and the same criss-cross losing a key that only y kept is flagged
    git(repo, "switch", "-q", "y")
    commit(repo, "y adds M-z", {MATRIX: rows(after={"M-2": ["M-x"], "M-8": ["M-y", "M-z"]})})
    git(repo, "switch", "-q", "x")
    git(repo, "merge", "-q", "-s", "ours", "-m", "lose M-z", "y")
    found = merge_findings(repo, base)
    assert [f.message.split(":")[0] for f in found] == ["M-z is lost"]


def test_octopus_merge_keeps_every_sides_keys(started):
    repo = started
    base = head(repo)
    branch(repo, "a", {MATRIX: rows(after={"M-2": ["M-a"]})})
    branch(repo, "b", {MATRIX: rows(after={"M-5": ["M-b"]})})
    branch(repo, "c", {MATRIX: rows(drop=["M-9"])})
    commit(repo, "main", {"notes.txt": "n\n"})
    git(repo, "merge", "-q", "-m", "octopus", "a", "b", "c")
    r = repository(repo)
    assert len(r.revparse_single("HEAD").parents) == 4
    text = (repo / MATRIX).read_text()
    assert "M-a" in text and "M-b" in text and "M-9" not in text
    assert merge_findings(repo, base) == []
    (repo / MATRIX).write_text(rows(drop=["M-9"], after={"M-2": ["M-a"]}))
    git(repo, "add", MATRIX)
    git(repo, "commit", "-q", "--amend", "--no-edit")
    [f] = merge_findings(repo, base)
    assert f.message.startswith(f"M-b is lost: {short(repo, 'b')} has it")


def test_record_file_renamed_on_one_side(repo):
    cfg = CONFIG.replace('path = ".agents/model-matrix.md"', 'path = ".agents/*.md"')
    commit(repo, "root", {".mergedrv.toml": cfg, MATRIX: rows()})
    base = head(repo)
    git(repo, "switch", "-q", "-c", "feature")
    git(repo, "mv", MATRIX, ".agents/models.md")
    git(repo, "commit", "-q", "-m", "rename")
    git(repo, "switch", "-q", "main")
    commit(repo, "main adds", {MATRIX: rows(after={"M-5": ["M-55"]})})
    merge(repo, "feature")  # git follows the rename: M-55 lands in the new file
    assert "M-55" in (repo / ".agents/models.md").read_text()
    assert merge_findings(repo, base, cfg) == []
    git(repo, "reset", "-q", "--hard", "HEAD~1")
    git(repo, "merge", "-q", "--no-commit", "feature")
    (repo / ".agents/models.md").write_text(rows())
    git(repo, "add", ".agents/models.md")
    git(repo, "commit", "-q", "--no-edit")
    [f] = merge_findings(repo, base, cfg)
    assert f.message.startswith("M-55 is lost") and (f.path, f.line) == (MATRIX, 10)


def test_merge_in_progress_is_checked_for_pre_merge_commit_and_pre_commit(started):
    repo = started
    cfg = config.loads(CONFIG)
    branch(repo, "feature", {MATRIX: rows(after={"M-5": ["M-55"]})})
    commit(repo, "main", {MATRIX: rows(after={"M-9": ["M-90"]})})
    git(repo, "merge", "-q", "--no-ff", "--no-commit", "feature")
    assert [f.check for f in history.merge_head(cfg, repository(repo, index=True))] == ["checkpoint"]
    (repo / MATRIX).write_text(rows(after={"M-9": ["M-90", "M-90"]}))
    git(repo, "add", MATRIX)
    found = [f for f in history.merge_head(cfg, repository(repo, index=True)) if f.check == "merge-keys"]
    assert sorted(f.message.split(" (")[0] for f in found) == ["M-55 is lost: " + short(repo, "feature") + " has it",
                                                             "M-90 is defined twice"]
    assert all(f.commit is None for f in found)
    assert [f.message for f in history.checkpoint_staged(cfg, repository(repo, index=True)) if f.check == "merge-keys"] == \
        [f.message for f in found]


def test_merge_head_without_a_merge_is_an_error(started):
    from mergedrv.git import GitError

    with pytest.raises(GitError, match="no merge in progress"):
        history.merge_head(config.loads(CONFIG), repository(started, index=True))


def test_the_rows_of_one_blob_are_keyed_for_each_file_and_tree_that_holds_it(tmp_path) -> None:
    # entries.Reader: a blob's (key, Entry) rows are made once and shared by the trees holding it at that path;
    # the same blob at two paths gives each path's own entries, and a changed blob its own
    from mergedrv.history.entries import Reader

    cfg_text = '[[record]]\nname = "R"\npath = "*.md"\nkey = "ID"\nkey_scope = "file"\n'
    text = "# R\n\n| ID | v |\n|---|---|\n| `A` | 1 |\n| `B` | 2 |\n"
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    commit(repo, "both", {"a.md": text, "b.md": text})
    commit(repo, "another tree, the same blobs", {"README": "x\n"})
    commit(repo, "b.md changed", {"b.md": text.replace("| `B` | 2 |\n", "| `C` | 3 |\n| `B` | 2 |\n")})
    r = repository(repo)
    reader = Reader(r, config.loads(cfg_text))
    trees = [r.revparse_single(f"HEAD~{n}").tree for n in (2, 1, 0)]
    got = [reader.keys(t, ["a.md", "b.md"]) for t in trees]
    assert got[0] == got[1]
    assert {k: [(e.path, e.line) for e in es] for k, es in got[0].items()} == {
        ("R:a.md", "A"): [("a.md", 5)], ("R:a.md", "B"): [("a.md", 6)], ("R:b.md", "A"): [("b.md", 5)], ("R:b.md", "B"): [("b.md", 6)]}
    assert [(e.path, e.line) for e in got[2][("R:b.md", "B")]] == [("b.md", 7)] and got[2][("R:a.md", "B")] == got[0][("R:a.md", "B")]

"""The checkpoint rule and the range walk, on real git histories."""

from __future__ import annotations

import os
import subprocess

import pytest

from mergedrv import config, history
from mergedrv.commands import check as checkcmd
from mergedrv.git import GitError, repository
from tests.history_helpers import CONFIG, MATRIX, table
from tests.helpers import MERGEDRV, commit, git, head, merge, short

DOCS = {"README.md": "readme\n", "docs/STATUS.md": "status\n"}


def bump(n: int) -> dict[str, str]:
    """Both required documents, changed."""
    return {"README.md": f"readme {n}\n", "docs/STATUS.md": f"status {n}\n"}


def run(repo, base: str, head_rev: str = "HEAD", cfg: config.Config | None = None):
    r = repository(repo)
    cfg = cfg or config.loads(CONFIG)
    findings, summary = history.check_range(r, cfg, base, head_rev, only={"checkpoint", "merge-keys"})
    return findings, summary


def flagged(findings, check: str = "checkpoint") -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for f in findings:
        if f.check == check:
            out.setdefault(f.commit, []).append(f.message)
    return out


@pytest.fixture
def started(repo):
    """A repository whose root commit holds the config, the docs and a record."""
    commit(repo, "root", {".mergedrv.toml": CONFIG, **DOCS, MATRIX: table("M-1")})
    return repo


def test_linear_history_flags_exactly_the_commit_without_its_documents(started):
    repo = started
    base = head(repo)
    commit(repo, "src with docs", {"src/a.c": "a\n", **bump(1)})
    bad = commit(repo, "src alone", {"src/b.c": "b\n"})
    commit(repo, "docs only", {"docs/STATUS.md": "status 9\n"})
    half = commit(repo, "record with one doc", {MATRIX: table("M-1", "M-2"), "README.md": "readme 2\n"})
    findings, summary = run(repo, base)
    got = flagged(findings)
    assert set(got) == {short(repo, bad), short(repo, half)}
    [message] = got[short(repo, bad)]
    assert "src/b.c" in message and "README.md, docs/STATUS.md" in message
    [message] = got[short(repo, half)]
    assert MATRIX in message and "not docs/STATUS.md" in message and "README.md" not in message.split("but")[1]
    assert summary.commits == 4 and summary.merges == 0 and summary.failing == 2
    f = next(f for f in findings if f.commit == short(repo, bad))
    assert f.text().startswith(f"{short(repo, bad)}:.mergedrv.toml:6: checkpoint: changes src/b.c")


def test_root_commit_is_judged_on_all_its_paths(repo):
    commit(repo, "root", {".mergedrv.toml": CONFIG, "src/a.c": "a\n", "README.md": "r\n"})
    commit(repo, "fine", {"src/a.c": "a2\n", **bump(1)})
    findings, summary = run(repo, "0" * 40)  # the null hash: from the root
    assert list(flagged(findings)) == [short(repo, "HEAD~1")]
    assert "not docs/STATUS.md" in flagged(findings)[short(repo, "HEAD~1")][0]
    assert summary.commits == 2


def test_root_commit_with_everything_passes(started):
    findings, _ = run(started, history.EMPTY_TREE)
    assert findings == []


def test_history_older_than_the_configuration_is_checked(repo):
    early = commit(repo, "before any config", {"src/a.c": "a\n", "README.md": "r\n"})
    commit(repo, "adopt mergedrv", {".mergedrv.toml": CONFIG, "docs/STATUS.md": "s\n"})
    commit(repo, "good", {"src/a.c": "a2\n", **bump(2)})
    findings, summary = run(repo, "0" * 40, cfg=None)
    assert list(flagged(findings)) == [short(repo, early)]
    assert summary.commits == 3


def test_the_configuration_comes_from_the_head_commit(repo, tmp_path):
    commit(repo, "root", {".mergedrv.toml": CONFIG, **DOCS})
    base = head(repo)
    bad = commit(repo, "src", {"src/a.c": "a\n"})
    r = repository(repo)
    cfg = checkcmd._range_config(r, "HEAD", None)
    assert [c.require for c in cfg.checkpoints] == [["README.md", "docs/STATUS.md"]]
    assert list(flagged(history.check_range(r, cfg, base, "HEAD", only={"checkpoint"})[0])) == [short(repo, bad)]
    other = tmp_path / "other.toml"
    other.write_text('[[checkpoint]]\nwhen = ["docs/**"]\nrequire = ["CHANGELOG.md"]\n')
    assert history.check_range(r, checkcmd._range_config(r, "HEAD", str(other)), base, "HEAD", only={"checkpoint"})[0] == []


def test_head_without_configuration_is_a_clear_error(repo):
    commit(repo, "root", {"a": "a\n"})
    with pytest.raises(GitError, match="has no .mergedrv.toml; pass --config"):
        checkcmd._range_config(repository(repo), "HEAD", None)


def test_base_that_is_not_an_ancestor_is_refused(started):
    repo = started
    git(repo, "switch", "-q", "-c", "side")
    commit(repo, "side", {"src/s.c": "s\n", **bump(1)})
    git(repo, "switch", "-q", "main")
    commit(repo, "main", {"src/m.c": "m\n", **bump(2)})
    with pytest.raises(GitError, match=r"--base side \(\w+\) is not an ancestor of --head main .*git merge-base side main"):
        run(repo, "side", "main")
    with pytest.raises(GitError, match="--base 'nope' does not exist"):
        run(repo, "nope", "main")
    with pytest.raises(GitError, match="--head 'nope' does not exist"):
        run(repo, "side", "nope")


def test_empty_range_checks_nothing(started):
    findings, summary = run(started, "HEAD", "HEAD")
    assert findings == [] and summary.commits == 0


def test_globs_are_rooted_paths(repo):
    cfg = config.loads('[[checkpoint]]\nwhen = ["CMakeLists.txt", "src/**/*.h", "include/"]\nrequire = ["docs/*.md"]\n')
    commit(repo, "root", {"x": "x\n"})
    base = head(repo)
    deep = commit(repo, "nested CMakeLists is not the root one", {"examples/CMakeLists.txt": "e\n"})
    top = commit(repo, "root CMakeLists", {"CMakeLists.txt": "c\n"})
    header = commit(repo, "deep header", {"src/a/b/c.h": "h\n"})
    inc = commit(repo, "include dir", {"include/x/y.h": "h\n"})
    ok = commit(repo, "header with any doc", {"src/d.h": "h\n", "docs/any.md": "d\n"})
    got = flagged(history.check_range(repository(repo), cfg, base, "HEAD", only={"checkpoint"})[0])
    assert set(got) == {short(repo, top), short(repo, header), short(repo, inc)}
    assert short(repo, deep) not in got and short(repo, ok) not in got


def diverge(repo, main_files: dict[str, str]) -> str:
    """A feature branch changing src with both documents; main changing ``main_files``."""
    base = head(repo)
    git(repo, "switch", "-q", "-c", "feature")
    commit(repo, "feature src with docs", {"src/f.c": "f\n", **bump(1)})
    git(repo, "switch", "-q", "main")
    commit(repo, "main", main_files)
    return base


def test_merge_is_judged_on_what_it_introduced(started):
    repo = started
    base = diverge(repo, {"docs/STATUS.md": "status main\n"})
    merge(repo, "feature", check=False)
    # STATUS conflicts: resolve with both sides' text, README as feature had it
    (repo / "docs/STATUS.md").write_text("status 1\nstatus main\n")
    git(repo, "add", "docs/STATUS.md")
    git(repo, "commit", "-q", "--no-edit")
    findings, summary = run(repo, base)
    # first parent sees src/f.c + README + STATUS: fine either way; nothing introduced by the merge
    assert flagged(findings) == {} and summary.merges == 1


def test_merge_that_takes_each_side_unchanged_raises_no_false_alarm(started):
    repo = started
    base = diverge(repo, {"notes.txt": "n\n"})
    merge(repo, "feature")
    findings, _ = run(repo, base)
    assert flagged(findings) == {}
    # against its first parent alone the merge changes src/f.c; against both parents, nothing
    m = repository(repo).revparse_single("HEAD")
    assert "src/f.c" in history.tree_changes(m.parents[0].tree, m.tree)
    assert history.merge_changes([history.tree_changes(p.tree, m.tree) for p in m.parents]) == set()


def test_evil_merge_that_changes_a_when_path_is_flagged(started):
    repo = started
    base = head(repo)
    git(repo, "switch", "-q", "-c", "feature")
    commit(repo, "feature", {"notes.txt": "f\n"})
    git(repo, "switch", "-q", "main")
    commit(repo, "main", {"other.txt": "m\n"})
    git(repo, "merge", "-q", "--no-ff", "--no-commit", "feature")
    (repo / "src").mkdir()
    (repo / "src/evil.c").write_text("evil\n")
    git(repo, "add", "src/evil.c")
    git(repo, "commit", "-q", "--no-edit")
    findings, summary = run(repo, base)
    got = flagged(findings)
    assert list(got) == [short(repo, "HEAD")]
    assert "src/evil.c" in got[short(repo, "HEAD")][0]
    assert summary.merges == 1 and summary.failing == 1


def test_octopus_merge_is_judged_against_every_parent(repo):
    cfg = config.loads('[[checkpoint]]\nwhen = ["src/**"]\nrequire = ["docs/"]\n')
    base = commit(repo, "root", {"x": "x\n"})
    for name in ("a", "b"):
        git(repo, "switch", "-q", "-c", name, "main")
        commit(repo, name, {f"src/{name}.c": f"{name}\n", f"docs/{name}.md": f"{name}\n"})
    git(repo, "switch", "-q", "main")
    commit(repo, "main", {"notes.txt": "n\n"})
    git(repo, "merge", "-q", "--no-commit", "a", "b")
    git(repo, "commit", "-q", "-m", "octopus")
    r = repository(repo)
    assert len(r.revparse_single("HEAD").parents) == 3
    findings, summary = history.check_range(r, cfg, base, "HEAD", only={"checkpoint"})
    assert findings == [] and summary.merges == 1 and summary.commits == 4
    (repo / "src/evil.c").write_text("e\n")
    git(repo, "add", "src/evil.c")
    git(repo, "commit", "-q", "--amend", "--no-edit")
    findings, _ = history.check_range(repository(repo), cfg, base, "HEAD", only={"checkpoint"})
    assert [(f.commit, "src/evil.c" in f.message) for f in findings] == [(short(repo, "HEAD"), True)]


def test_rename_counts_under_its_new_name_as_git_diff_lists_it(started):
    repo = started
    base = head(repo)
    commit(repo, "some source", {"src/a.c": "int a;\n" * 20, **bump(1)})
    (repo / "lib").mkdir()
    git(repo, "mv", "src/a.c", "lib/a.c")
    git(repo, "commit", "-q", "-m", "move out of src")
    moved = short(repo, "HEAD")
    git(repo, "mv", "lib/a.c", "src/b.c")
    git(repo, "commit", "-q", "-m", "move into src")
    back = short(repo, "HEAD")
    git(repo, "mv", MATRIX, ".agents/models.md")
    git(repo, "commit", "-q", "-m", "rename the record file")
    renamed = short(repo, "HEAD")
    got = flagged(run(repo, base)[0])
    # `git diff --name-only` lists lib/a.c only: nothing under src/ changed by that view
    assert moved not in got and renamed not in got
    assert back in got and "src/b.c" in got[back][0]


def test_mode_change_counts_as_a_change(started):
    repo = started
    base = head(repo)
    commit(repo, "src", {"src/run.sh": "echo\n", **bump(1)})
    git(repo, "update-index", "--chmod=+x", "src/run.sh")
    git(repo, "commit", "-q", "-m", "chmod")
    assert list(flagged(run(repo, base)[0])) == [short(repo, "HEAD")]


def test_staged_change_and_concluding_merge(started):
    repo = started
    cfg = config.loads(CONFIG)
    (repo / "src").mkdir()
    (repo / "src/a.c").write_text("a\n")
    git(repo, "add", "src/a.c")
    [f] = history.checkpoint_staged(cfg, repository(repo, index=True))
    assert f.commit is None and "src/a.c" in f.message and f.path == ".mergedrv.toml"
    for name, text in bump(1).items():
        (repo / name).write_text(text)
    git(repo, "add", ".")
    assert history.checkpoint_staged(cfg, repository(repo, index=True)) == []
    git(repo, "commit", "-q", "-m", "ok")
    # during a merge, the index is judged as the merge: only what it introduces
    git(repo, "switch", "-q", "-c", "feature", "HEAD~1")
    commit(repo, "feature", {"src/f.c": "f\n", "README.md": "readme f\n", "docs/STATUS.md": "status f\n"})
    git(repo, "switch", "-q", "main")
    git(repo, "merge", "-q", "--no-commit", "feature", check=False)
    for name in ("README.md", "docs/STATUS.md"):
        git(repo, "checkout", "--theirs", "--", name)
        git(repo, "add", name)
    assert history.checkpoint_staged(cfg, repository(repo, index=True)) == []


def test_staged_honours_git_index_file(started, monkeypatch):
    repo = started
    cfg = config.loads(CONFIG)
    (repo / "src").mkdir()
    (repo / "src/a.c").write_text("a\n")
    alt = repo / ".git" / "alt-index"
    env = {**os.environ, "GIT_INDEX_FILE": str(alt)}
    subprocess.run(["git", "read-tree", "HEAD"], cwd=repo, env=env, check=True)
    subprocess.run(["git", "add", "src/a.c"], cwd=repo, env=env, check=True)
    assert history.checkpoint_staged(cfg, repository(repo, index=True)) == []  # the real index is clean
    monkeypatch.setenv("GIT_INDEX_FILE", str(alt))
    assert len(history.checkpoint_staged(cfg, repository(repo, index=True))) == 1


# --- every record check in range mode (issue #13, item 2) ---------------------


def _planted(repo):
    """The real records, then one commit breaking a rollup, a roadmap
    reference, a column format and a key format, then a one-cell edit."""
    from tests.checks_helpers import MATRIX, ROADMAP, edit, make_records_repo, row_line

    make_records_repo(repo)
    base = head(repo)
    matrix = repo / MATRIX
    edit(matrix, "| INVENTORIED | 290 |", "| INVENTORIED | 289 |")
    bloom = row_line(matrix, "MODEL-TEXT-bloom-bloom-for-causal-lm")
    edit(matrix, bloom, bloom.replace("`INVENTORIED`", "`NOPE`"))
    arcee = "MODEL-TEXT-arcee-arcee-for-causal-lm"
    edit(matrix, f"`{arcee}`", "`MODEL TEXT arcee`")
    (repo / ROADMAP).write_text((repo / ROADMAP).read_text(encoding="utf-8") + "\nSee `MODEL-TEXT-nope-nope-for-causal-lm`.\n",
                                encoding="utf-8")
    planted = commit(repo, "planted", {MATRIX: matrix.read_text(encoding="utf-8"), ROADMAP: (repo / ROADMAP).read_text(encoding="utf-8")})
    row = row_line(matrix, "MODEL-TEXT-bloom-bloom-for-causal-lm")
    edit(matrix, row, row.replace("| unassigned |", "| someone |"))
    commit(repo, "one cell", {MATRIX: matrix.read_text(encoding="utf-8")})
    return base, planted


def _json(repo, *args):
    import json

    p = subprocess.run([*MERGEDRV, "check", "--format", "json", *args], cwd=repo, capture_output=True, text=True, timeout=120)
    assert p.returncode in (0, 1), p.stderr
    return json.loads(p.stdout)


def test_range_mode_runs_every_record_check_like_check_commit(repo):
    base, planted = _planted(repo)
    found = _json(repo, "--base", base, "--head", "HEAD")
    at = short(repo, planted)
    assert {f["commit"] for f in found} == {at}, found  # the one-cell edit introduces nothing
    assert {"rollup", "refs", "column-format", "key-format"} <= {f["check"] for f in found}, found
    refs = [f for f in found if f["check"] == "refs"]
    assert any(f["path"] == ".agents/roadmap_v1.md" and "MODEL-TEXT-nope-nope-for-causal-lm" in f["message"] for f in refs), refs
    one = _json(repo, "--commit", planted)
    assert not any(f["inherited"] for f in one)
    fields = lambda fs: sorted((f["path"], f["line"], f["check"], f["message"]) for f in fs)  # noqa: E731
    assert fields(found) == fields(one)
    later = _json(repo, "--commit", "HEAD")  # the one-cell edit holds the planted findings, inherited
    assert later and all(f["inherited"] for f in later)


def test_range_mode_checks_a_commit_that_changed_only_a_reference_file(repo):
    from tests.checks_helpers import ROADMAP, make_records_repo

    make_records_repo(repo)
    base = head(repo)
    text = (repo / ROADMAP).read_text(encoding="utf-8") + "\nSee `MODEL-TEXT-nope-nope-for-causal-lm`.\n"
    bad = commit(repo, "a dangling reference", {ROADMAP: text})
    found = _json(repo, "--base", base, "--head", "HEAD")
    assert [(f["commit"], f["path"], f["check"]) for f in found] == [(short(repo, bad), ROADMAP, "refs")], found


def test_ref_files_named_whole_are_looked_up_as_the_globs_match_them() -> None:
    # walk.ref_globs: a ref_files entry without a wildcard and with a slash matches its own path alone
    # (a set lookup); every other entry is matched as a glob; each path is watched as matching them all says
    from mergedrv.config import glob_match
    from mergedrv.history.walk import ref_globs, watched

    entries = ["docs/a.md", "docs/b.md", "notes.md", "specs/*.md", "deep/**/x.md", "dir/", "sub/top.md", "docs/a.md"]
    cfg = config.loads('[[record]]\nname = "R"\npath = "r.md"\nkey = "ID"\nkey_pattern = "^R-"\nref_files = ['
                       + ", ".join(f'"{e}"' for e in entries) + "]\n")
    exact, rest = ref_globs(cfg)
    assert exact == {"docs/a.md", "docs/b.md", "sub/top.md"} and "notes.md" in rest and len(rest) == 4
    paths = ["docs/a.md", "docs/b.md", "x/docs/a.md", "notes.md", "sub/notes.md", "specs/s.md", "specs/t/s.md", "deep/q/x.md",
             "dir/f.md", "top.md", "sub/top.md", "other.md", "docs/a.mdx"]
    for p in paths:
        want = any(glob_match(e, p) for e in entries)
        assert watched(cfg, p, (exact, rest)) == want == watched(cfg, p), p
    assert sum(watched(cfg, p) for p in paths) == 8

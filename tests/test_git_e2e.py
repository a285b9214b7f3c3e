"""The driver under real git: merge, rebase, cherry-pick, pull, a criss-cross
merge (git calls the driver for the virtual ancestor too), and paths with
spaces and quotes."""

from __future__ import annotations

from pathlib import Path

import pytest

from mergedrv import model

from tests.helpers import driver_command, git

RECORD = "records.md"
BASE = "# Records\n\n## Models\n\n| ID | Name | State |\n|---|---|---|\n| `M-1` | one | INVENTORIED |\n| `M-2` | two | SPIKE |\n| `M-3` | three | INVENTORIED |\n\nEnd.\n"


def row(key: str, name: str, state: str = "INVENTORIED") -> str:
    return f"| `{key}` | {name} | {state} |\n"


def add_after(text: str, key: str, new: str) -> str:
    i = text.index(f"| `{key}` |")
    j = text.index("\n", i) + 1
    return text[:j] + new + text[j:]


def wire(repo: Path, path: str = RECORD) -> None:
    (repo / ".mergedrv.toml").write_text(f'[[record]]\nname = "MODEL"\npath = "{path}"\nkey = "ID"\n')
    (repo / ".gitattributes").write_text("*.md merge=keyed\n")
    git(repo, "config", "merge.keyed.name", "mergedrv keyed records")
    git(repo, "config", "merge.keyed.driver", driver_command())


def commit(repo: Path, path: str, text: str, message: str) -> None:
    (repo / path).write_text(text)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", message)


def keys(text: str) -> list[str]:
    return [r.key for r in model.parse(text.encode(), "ID").rows()]


@pytest.fixture
def wired(repo):
    wire(repo)
    commit(repo, RECORD, BASE, "base")
    return repo


def test_merge_two_appends_is_clean(wired):
    git(wired, "checkout", "-qb", "feature")
    commit(wired, RECORD, add_after(BASE, "M-3", row("M-5", "five")), "feature adds M-5")
    git(wired, "checkout", "-q", "main")
    commit(wired, RECORD, add_after(BASE, "M-3", row("M-4", "four")), "main adds M-4")
    out = git(wired, "merge", "--no-edit", "feature")
    assert out.returncode == 0
    assert keys((wired / RECORD).read_text()) == ["M-1", "M-2", "M-3", "M-4", "M-5"]


def test_merge_double_definition_conflicts(wired):
    git(wired, "checkout", "-qb", "feature")
    commit(wired, RECORD, add_after(BASE, "M-3", row("M-9", "theirs")), "feature adds M-9")
    git(wired, "checkout", "-q", "main")
    commit(wired, RECORD, add_after(BASE, "M-1", row("M-9", "ours")), "main adds M-9")
    out = git(wired, "merge", "--no-edit", "feature", check=False)
    assert out.returncode == 1
    text = (wired / RECORD).read_text()
    assert "conflict: double-definition: M-9" in out.stderr + out.stdout
    assert "<<<<<<< " in text and "| ours |" in text and "| theirs |" in text
    assert git(wired, "ls-files", "-u").stdout.count(RECORD) == 3  # git sees the conflict


def test_plain_git_silently_defines_the_key_twice_where_the_driver_refuses(repo):
    """The failure mode the project exists for, measured with plain git."""
    commit(repo, RECORD, BASE, "base")
    git(repo, "checkout", "-qb", "feature")
    commit(repo, RECORD, add_after(BASE, "M-3", row("M-9", "same")), "feature adds M-9")
    git(repo, "checkout", "-q", "main")
    commit(repo, RECORD, add_after(BASE, "M-1", row("M-9", "same")), "main adds M-9")
    assert git(repo, "merge", "--no-edit", "feature").returncode == 0
    assert keys((repo / RECORD).read_text()).count("M-9") == 2


def test_rebase_of_several_commits_keeps_every_key_once(wired):
    git(wired, "checkout", "-qb", "feature")
    text = BASE
    for i in (5, 6, 7):
        text = add_after(text, "M-3", row(f"M-{i}", f"feature {i}"))
        commit(wired, RECORD, text, f"feature adds M-{i}")
    git(wired, "checkout", "-q", "main")
    main_text = add_after(BASE, "M-3", row("M-4", "main four")).replace("| two | SPIKE |", "| two | DONE |")
    commit(wired, RECORD, main_text, "main adds M-4, M-2 done")
    git(wired, "checkout", "-q", "feature")
    out = git(wired, "rebase", "main", check=False)
    assert out.returncode == 0, out.stderr
    for n in range(3):  # every rewritten commit: no key lost or duplicated
        ks = keys(git(wired, "show", f"HEAD~{n}:{RECORD}").stdout)
        assert len(ks) == len(set(ks))
        assert {"M-1", "M-2", "M-3", "M-4"} <= set(ks)
    final = git(wired, "show", f"HEAD:{RECORD}").stdout
    assert set(keys(final)) == {"M-1", "M-2", "M-3", "M-4", "M-5", "M-6", "M-7"}
    assert "| two | DONE |" in final


def test_cherry_pick_uses_the_driver(wired):
    git(wired, "checkout", "-qb", "feature")
    commit(wired, RECORD, add_after(BASE, "M-3", row("M-8", "eight")), "feature adds M-8")
    git(wired, "checkout", "-q", "main")
    commit(wired, RECORD, add_after(BASE, "M-3", row("M-4", "four")), "main adds M-4")
    out = git(wired, "cherry-pick", "feature", check=False)
    assert out.returncode == 0, out.stderr
    assert keys((wired / RECORD).read_text()) == ["M-1", "M-2", "M-3", "M-4", "M-8"]


@pytest.mark.parametrize("rebase", [False, True])
def test_pull_merges_records(wired, tmp_path, rebase):
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(wired), str(clone))
    git(clone, "config", "merge.keyed.driver", driver_command())
    commit(clone, RECORD, add_after(BASE, "M-1", row("M-6", "clone six")), "clone adds M-6")
    commit(wired, RECORD, add_after(BASE, "M-3", row("M-7", "upstream seven")), "upstream adds M-7")
    out = git(clone, "pull", "--rebase" if rebase else "--no-rebase", "--no-edit", "origin", "main", check=False)
    assert out.returncode == 0, out.stderr
    assert sorted(keys((clone / RECORD).read_text())) == ["M-1", "M-2", "M-3", "M-6", "M-7"]


def test_criss_cross_merge_with_a_virtual_ancestor(wired):
    # two branches that merge each other, then merge again: two merge bases
    git(wired, "checkout", "-qb", "a")
    a1 = add_after(BASE, "M-3", row("A-1", "a one"))
    commit(wired, RECORD, a1, "a1")
    git(wired, "checkout", "-q", "main")
    git(wired, "checkout", "-qb", "b")
    b1 = add_after(BASE, "M-1", row("B-1", "b one"))
    commit(wired, RECORD, b1, "b1")
    git(wired, "checkout", "-q", "a")
    git(wired, "merge", "--no-edit", "-q", "b~0")
    git(wired, "checkout", "-q", "b")
    git(wired, "merge", "--no-edit", "-q", "a~1")
    # now diverge again on both
    git(wired, "checkout", "-q", "a")
    commit(wired, RECORD, add_after((wired / RECORD).read_text(), "A-1", row("A-2", "a two")), "a2")
    git(wired, "checkout", "-q", "b")
    commit(wired, RECORD, add_after((wired / RECORD).read_text(), "B-1", row("B-2", "b two")), "b2")
    bases = git(wired, "merge-base", "--all", "a", "b").stdout.split()
    assert len(bases) == 2  # a real criss-cross
    out = git(wired, "merge", "--no-edit", "a", check=False)
    assert out.returncode == 0, out.stdout + out.stderr
    ks = keys((wired / RECORD).read_text())
    assert sorted(ks) == ["A-1", "A-2", "B-1", "B-2", "M-1", "M-2", "M-3"]


def test_path_with_spaces_and_quotes(repo):
    name = 'my "records" file.md'
    wire(repo, path=name)
    commit(repo, name, BASE, "base")
    git(repo, "checkout", "-qb", "feature")
    commit(repo, name, add_after(BASE, "M-3", row("M-9", "theirs")), "feature")
    git(repo, "checkout", "-q", "main")
    commit(repo, name, add_after(BASE, "M-3", row("M-9", "ours")), "main")
    out = git(repo, "merge", "--no-edit", "feature", check=False)
    assert out.returncode == 1
    assert f'{name}:' in out.stdout + out.stderr  # the stderr line names the real path
    assert "<<<<<<< " in (repo / name).read_text()


def test_staged_snapshot_reads_the_index_git_names_in_a_hook(repo, monkeypatch):
    """`git commit -a` stages into a temporary index named by GIT_INDEX_FILE."""
    from mergedrv import git as gitmod

    commit(repo, RECORD, BASE, "base")
    (repo / RECORD).write_text(add_after(BASE, "M-3", row("M-4", "four")))
    other = repo / ".git" / "other-index"
    git(repo, "add", RECORD, env={"GIT_INDEX_FILE": str(other)})
    r = gitmod.repository(repo, index=True)
    assert "M-4" not in gitmod.index_snapshot(r).read(RECORD).decode()  # the normal index
    monkeypatch.setenv("GIT_INDEX_FILE", str(other))
    assert "M-4" in gitmod.index_snapshot(r).read(RECORD).decode()


def test_criss_cross_whose_virtual_ancestor_holds_a_conflict(wired):
    """Both merge bases edited M-1 differently: git's virtual ancestor keeps
    the inner conflict (longer markers). The driver must still merge by key,
    so a key added differently on both sides conflicts instead of being
    text-merged into two definitions."""
    git(wired, "checkout", "-qb", "x")
    commit(wired, RECORD, BASE.replace("| one |", "| one-x |"), "x edits M-1")
    git(wired, "checkout", "-q", "main")
    git(wired, "checkout", "-qb", "y")
    commit(wired, RECORD, BASE.replace("| one |", "| one-y |"), "y edits M-1")
    resolved = BASE.replace("| one |", "| one-z |")
    git(wired, "checkout", "-q", "x")
    git(wired, "merge", "--no-edit", "-q", "y", check=False)
    commit(wired, RECORD, resolved, "x merges y")
    git(wired, "checkout", "-q", "y")
    git(wired, "merge", "--no-edit", "-q", "x~1", check=False)
    commit(wired, RECORD, resolved, "y merges x")
    git(wired, "checkout", "-q", "x")
    commit(wired, RECORD, add_after(resolved, "M-3", row("M-4", "four-x")), "x adds M-4")
    git(wired, "checkout", "-q", "y")
    commit(wired, RECORD, add_after(resolved, "M-2", row("M-4", "four-y")), "y adds M-4")
    assert len(git(wired, "merge-base", "--all", "x", "y").stdout.split()) == 2
    out = git(wired, "merge", "--no-edit", "x", check=False)
    assert out.returncode == 1, out.stdout + out.stderr
    assert "double-definition: M-4" in out.stdout + out.stderr
    text = (wired / RECORD).read_text()
    assert "four-x" in text and "four-y" in text and "| one-z |" in text

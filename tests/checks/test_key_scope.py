"""`key_scope = "file"`: a glob record whose keys are unique within each file
(a folder of agendas, the same person in every one), on real git histories:
keys-unique whole and in range mode, merge-keys, and the refused pin; and
`key_scope = "table"`: a list by category whose entry may be in two tables."""

from __future__ import annotations

import random
import subprocess
from pathlib import Path

import pytest

from mergedrv import config, history
from mergedrv.checks import run_checks
from mergedrv.git import WorkTree, repository
from mergedrv.history import walk
from mergedrv.history.walk import range_commits
from tests.helpers import commit, git, head

PER_FILE = """
[[record]]
name = "AGENDA"
path = "agendas/**/*.md"
key = "Name"
key_scope = "file"
"""
PER_RECORD = PER_FILE.replace('key_scope = "file"\n', "")
PEOPLE = ["Ann", "Bo", "Cy", "Di", "Ed", "Flo", "Gus", "Hal"]


def agenda(names: list[str], title: str = "Meeting") -> str:
    rows = "".join(f"| {n} | @{n.lower()} | Org |\n" for n in names)
    return f"# {title}\n\n## Attendees\n\n| Name | GitHub | Organization |\n|---|---|---|\n{rows}\n## Agenda\n\n1. Intro\n"


def test_the_same_name_in_two_files_is_no_finding_but_twice_in_one_is(tmp_path) -> None:
    root = tmp_path / "r"
    (root / "agendas" / "2024").mkdir(parents=True)
    (root / "agendas" / "2024" / "01-04.md").write_text(agenda(["Ann", "Bo"]))
    (root / "agendas" / "2024" / "01-11.md").write_text(agenda(["Ann", "Cy", "Ann"]))
    per_file = run_checks(config.loads(PER_FILE), WorkTree(str(root)), only={"keys-unique"})
    assert [f.text() for f in per_file] == ["agendas/2024/01-11.md:9: keys-unique: AGENDA: key Ann is defined twice (first at line 7)"]
    per_record = run_checks(config.loads(PER_RECORD), WorkTree(str(root)), only={"keys-unique"})
    assert len(per_record) == 2  # both rows of Ann in the second file, against the first file's
    assert "(first at agendas/2024/01-04.md:7)" in per_record[0].text()


@pytest.mark.parametrize(("extra", "what"), [("pin = 3", "pin"), ('retired = "gone.md"', "retired")])
def test_a_pin_or_a_retired_file_is_refused_with_per_file_keys(extra, what) -> None:
    with pytest.raises(config.ConfigError) as err:
        config.loads(PER_FILE + extra + "\n", ".mergedrv.toml")
    assert f'{what} holds the keys of the whole record, but key_scope = "file"' in str(err.value)
    assert str(err.value).startswith(".mergedrv.toml:")


def test_an_unknown_scope_is_refused() -> None:
    with pytest.raises(config.ConfigError, match="not one of: 'record', 'file'"):
        config.loads(PER_FILE.replace('"file"', '"folder"'), ".mergedrv.toml")


def _history(repo: Path, seed: int, commits: int) -> None:
    """Agendas made one after another; names added (some already in another
    agenda, some twice in one), removed and moved; one agenda per commit."""
    rng = random.Random(seed)
    files: dict[str, list[str]] = {}
    out: list[bytes] = []

    def emit(n: int, msg: str, changed: dict[str, bytes]) -> None:
        out.append(f"commit refs/heads/main\nmark :{n}\ncommitter B <b@example.com> {1700000000 + n * 60} +0000\n"
                   f"data {len(msg)}\n{msg}\n".encode() + (f"from :{n - 1}\n".encode() if n > 1 else b""))
        for path, data in changed.items():
            out.append(f"M 100644 inline {path}\ndata {len(data)}\n".encode() + data + b"\n")

    emit(1, "root", {".mergedrv.toml": PER_FILE.encode()})
    for n in range(2, commits + 2):
        what = rng.choice(["new", "add", "add", "add", "double", "remove", "move"]) if files else "new"
        if what == "new":
            path = f"agendas/{2024 + len(files) // 12}/{len(files) % 12 + 1:02}-01.md"
            files[path] = rng.sample(PEOPLE, 2)
        else:
            path = rng.choice(sorted(files))
            names = files[path]
            if what == "add":
                names.insert(rng.randint(0, len(names)), rng.choice([p for p in PEOPLE if p not in names] or PEOPLE))
            elif what == "double" and names:
                names.insert(rng.randint(0, len(names)), rng.choice(names))
            elif what == "remove" and names:
                names.pop(rng.randrange(len(names)))
            elif names:
                names.insert(rng.randint(0, len(names) - 1), names.pop())
        emit(n, f"{what} {path}", {path: agenda(files[path]).encode()})
    subprocess.run(["git", "fast-import", "--quiet"], cwd=repo, input=b"".join(out), check=True)
    subprocess.run(["git", "reset", "-q", "--hard", "main"], cwd=repo, check=True)


def _oracle(repo: Path, rev: str) -> list[str]:
    """Each file's doubled names, read by hand: (path, line) of every repeat."""
    out = []
    listed = git(repo, "ls-tree", "-r", "--name-only", rev, "agendas").stdout.split()
    for path in sorted(listed):
        seen: set[str] = set()
        for i, line in enumerate(git(repo, "show", f"{rev}:{path}").stdout.splitlines()):
            if line.startswith("| ") and "@" in line:
                name = line.split("|")[1].strip()
                if name in seen:
                    out.append(f"{path}:{i + 1}")
                seen.add(name)
    return out


@pytest.mark.parametrize("seed", range(6))
def test_range_mode_finds_each_files_doubles_as_the_whole_check_and_no_other(tmp_path, monkeypatch, seed) -> None:
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    _history(repo, seed, 60)
    r = repository(repo)
    cfg = config.loads(PER_FILE)
    made: list = []
    make = walk.SnapshotChecks.make
    monkeypatch.setattr(walk.SnapshotChecks, "make", lambda *a, **k: made.append(make(*a, **k)) or made[-1])
    history.check_range(r, cfg, "0" * 40, "HEAD", only={"keys-unique"})
    history.check_range(r, cfg, "0" * 40, "HEAD", fast=False, only={"keys-unique"})
    commits = range_commits(r, "0" * 40, "HEAD")
    incremental = 0
    for c in commits:
        fast, whole = ([f.text() for f in m.raw(c, None) if f.check == "keys-unique"] for m in made[:2])
        assert fast == whole, c.message
        assert sorted(t.split(": ")[0] for t in whole) == sorted(_oracle(repo, str(c.id))), c.message
        incremental += bool(whole)
    assert made[0].incremental == []  # a glob record's files are checked whole at each commit
    assert incremental  # some commit has a double within one file


@pytest.mark.parametrize(("scope", "kept"), [(PER_FILE, True), (PER_RECORD, False)])
def test_a_name_added_that_another_file_holds_keeps_the_parents_keys_unique_findings(tmp_path, scope, kept) -> None:
    """range mode's rows-added shortcut (`incremental._unique_kept`): a key new
    to its file but in another file of the record leaves keys-unique as it
    was only when keys are unique per file."""
    from mergedrv import model
    from mergedrv.checks import Context
    from mergedrv.checks.incremental import _unique_kept
    from mergedrv.history.rowedits import moved

    root = tmp_path / "r"
    (root / "agendas").mkdir(parents=True)
    (root / "agendas" / "a.md").write_text(agenda(["Ann", "Bo"]))
    (root / "agendas" / "b.md").write_text(agenda(["Cy"]))
    cfg = config.loads(scope)
    before = Context(cfg, WorkTree(str(root)))
    record = cfg.records[0]
    old, new = (model.parse(agenda(names).encode(), record.key) for names in (["Cy"], ["Cy", "Ann"]))
    moves = {"agendas/b.md": moved("agendas/b.md", old, new)}
    assert moves["agendas/b.md"] is not None and [r.key for _, r in moves["agendas/b.md"].added] == ["Ann"]
    assert _unique_kept(before, [], moves) is kept


def test_merge_keys_holds_each_file_to_its_own_keys(repo) -> None:
    a, b = "agendas/2024/01-04.md", "agendas/2024/01-11.md"
    commit(repo, "root", {".mergedrv.toml": PER_FILE, a: agenda(["Ann", "Bo"]), b: agenda(["Ann", "Cy"])})
    base = head(repo)
    git(repo, "switch", "-q", "-c", "side")
    commit(repo, "side", {b: agenda(["Ann", "Cy", "Di"])})
    git(repo, "switch", "-q", "main")
    commit(repo, "main", {a: agenda(["Ann", "Bo", "Ed"])})
    git(repo, "merge", "-q", "--no-ff", "--no-commit", "side")
    commit(repo, "the merge, Ann of the second agenda lost", {b: agenda(["Cy", "Di"])})
    assert len(git(repo, "rev-list", "--parents", "-1", "HEAD").stdout.split()) == 3
    found, _ = history.check_range(repository(repo), config.loads(PER_FILE), base, "HEAD", only={"merge-keys"})
    assert [f.path for f in found] == [b] and "Ann is lost" in found[0].message
    found, _ = history.check_range(repository(repo), config.loads(PER_RECORD), base, "HEAD", only={"merge-keys"})
    assert found == []  # record-wide, Ann is still in the first agenda


def test_the_keys_a_rewrite_may_not_drop_are_each_files_own(tmp_path) -> None:
    """`history.dropped.keys_of` (pre-commit and reference-transaction while
    git replays commits): under key_scope = "file" a name in two agendas is
    two keys, so a rebase dropping it from one is seen; a patch's removed row
    names its file's key."""
    from mergedrv.history.dropped import _patch_delta, keys_of

    root = tmp_path / "r"
    (root / "agendas").mkdir(parents=True)
    (root / "agendas" / "a.md").write_text(agenda(["Ann", "Bo"]))
    (root / "agendas" / "b.md").write_text(agenda(["Ann"]))
    per_file = keys_of(config.loads(PER_FILE), WorkTree(str(root)))
    assert sorted(per_file) == [("AGENDA", "Ann", "agendas/a.md"), ("AGENDA", "Ann", "agendas/b.md"), ("AGENDA", "Bo", "agendas/a.md")]
    assert per_file[("AGENDA", "Ann", "agendas/b.md")] == ("agendas/b.md", 7)
    assert sorted(keys_of(config.loads(PER_RECORD), WorkTree(str(root)))) == [("AGENDA", "Ann", ""), ("AGENDA", "Bo", "")]
    patch = b"--- a/agendas/b.md\n+++ b/agendas/b.md\n@@ -7 +6,0 @@\n-| Ann | @ann | Org |\n"
    assert _patch_delta(config.loads(PER_FILE), patch, per_file) == (set(), {("AGENDA", "Ann", "agendas/b.md")})


PER_TABLE = """
[[record]]
name = "API"
path = "README.md"
key = "API"
key_scope = "table"
"""


def apis(sections: dict[str, list[str]]) -> str:
    """A list of APIs by category, as awesome-lists keep them."""
    out = "# Public APIs\n"
    for title, names in sections.items():
        out += f"\n### {title}\n\n| API | Description | Auth |\n|---|---|---|\n" + "".join(f"| {n} | about {n} | No |\n" for n in names)
    return out


def test_per_table_keys_a_name_in_two_tables_is_no_finding_but_twice_in_one_is(tmp_path) -> None:
    root = tmp_path / "r"
    root.mkdir()
    (root / "README.md").write_text(apis({"Animals": ["Cat Facts", "Dogs"], "Science": ["Numbers", "Cat Facts", "Numbers"]}))
    found = run_checks(config.loads(PER_TABLE), WorkTree(str(root)), only={"keys-unique"})
    assert [f.text() for f in found] == ["README.md:16: keys-unique: API: key Numbers is defined twice (first at line 14)"]
    whole = run_checks(config.loads(PER_TABLE.replace('key_scope = "table"\n', "")), WorkTree(str(root)), only={"keys-unique"})
    assert len(whole) == 2  # record-wide, Cat Facts of Science is a double too


def test_a_pin_is_refused_with_per_table_keys() -> None:
    with pytest.raises(config.ConfigError, match='pin holds the keys of the whole record, but key_scope = "table"'):
        config.loads(PER_TABLE + "pin = 3\n", ".mergedrv.toml")


def test_range_mode_and_merge_keys_allow_a_name_added_to_a_second_table(repo) -> None:
    commit(repo, "root", {".mergedrv.toml": PER_TABLE, "README.md": apis({"Animals": ["Cats"], "Science": ["Numbers"]})})
    base = head(repo)
    git(repo, "switch", "-q", "-c", "side")
    commit(repo, "side", {"README.md": apis({"Animals": ["Cats", "Dogs"], "Science": ["Numbers"]})})
    git(repo, "switch", "-q", "main")
    commit(repo, "main", {"README.md": apis({"Animals": ["Cats"], "Science": ["Numbers", "Dogs"]})})
    git(repo, "merge", "-q", "--no-ff", "--no-commit", "side")
    commit(repo, "the merge: Dogs in both tables", {"README.md": apis({"Animals": ["Cats", "Dogs"], "Science": ["Numbers", "Dogs"]})})
    checks = {"keys-unique", "merge-keys"}
    found, _ = history.check_range(repository(repo), config.loads(PER_TABLE), base, "HEAD", only=checks)
    assert found == []
    found, _ = history.check_range(repository(repo), config.loads(PER_TABLE.replace('key_scope = "table"\n', "")), base, "HEAD", only=checks)
    assert {f.check for f in found} == {"keys-unique", "merge-keys"}  # record-wide, Dogs is defined twice
    commit(repo, "Numbers twice in Science", {"README.md": apis({"Animals": ["Cats", "Dogs"], "Science": ["Numbers", "Dogs", "Numbers"]})})
    found, _ = history.check_range(repository(repo), config.loads(PER_TABLE), base, "HEAD", only=checks)
    assert [(f.check, f.line) for f in found] == [("keys-unique", 16)]


def test_merge_keys_sees_a_per_table_key_lost_from_one_of_its_tables(repo) -> None:
    """Under key_scope = "table" a name in two tables is defined twice: a merge
    that keeps it in one is a lost key, unless a side deleted it from the
    other; a side moving a row to another table keeps its count."""
    commit(repo, "root", {".mergedrv.toml": PER_TABLE, "README.md": apis({"Animals": ["Cats", "Dogs"], "Science": ["Numbers", "Dogs"]})})
    base = head(repo)
    git(repo, "switch", "-q", "-c", "side")
    commit(repo, "side", {"README.md": apis({"Animals": ["Cats", "Dogs", "Ants"], "Science": ["Numbers", "Dogs"]})})
    git(repo, "switch", "-q", "main")
    commit(repo, "main", {"README.md": apis({"Animals": ["Cats", "Dogs"], "Science": ["Numbers", "Dogs", "Atoms"]})})
    git(repo, "merge", "-q", "--no-ff", "--no-commit", "side")
    commit(repo, "the merge, Dogs of Science lost", {"README.md": apis({"Animals": ["Cats", "Dogs", "Ants"], "Science": ["Numbers", "Atoms"]})})
    found, _ = history.check_range(repository(repo), config.loads(PER_TABLE), base, "HEAD", only={"merge-keys"})
    assert [f.message.split(":")[0] for f in found] == ["Dogs is lost from a table"], found
    assert "in 2 tables (lines 8 and 15 of " in found[0].message and "the merge in 1" in found[0].message
    found, _ = history.check_range(repository(repo), config.loads(PER_TABLE.replace('key_scope = "table"\n', "")), base, "HEAD",
                                   only={"merge-keys"})
    assert found == []  # record-wide, Dogs is still in Animals: nothing is lost
    git(repo, "switch", "-q", "-c", "deleting", base)
    commit(repo, "side deletes Dogs from Science", {"README.md": apis({"Animals": ["Cats", "Dogs"], "Science": ["Numbers"]})})
    git(repo, "switch", "-q", "-c", "moving", base)
    commit(repo, "side moves Numbers to Animals", {"README.md": apis({"Animals": ["Cats", "Dogs", "Numbers"], "Science": ["Dogs"]})})
    git(repo, "merge", "-q", "--no-ff", "--no-commit", "deleting", check=False)  # (plain git conflicts: the merge is written whole)
    commit(repo, "the merge of both", {"README.md": apis({"Animals": ["Cats", "Dogs", "Numbers"], "Science": []})})
    found, _ = history.check_range(repository(repo), config.loads(PER_TABLE), base, "HEAD", only={"merge-keys"})
    assert found == []


def test_the_keys_a_rewrite_may_not_drop_count_a_per_table_keys_tables(tmp_path) -> None:
    """`history.dropped`: under key_scope = "table" a name in two tables is two
    keys (its second "#2"); a patch removing one of its rows deletes one."""
    from mergedrv.history.dropped import _patch_delta, keys_of

    root = tmp_path / "r"
    root.mkdir()
    (root / "README.md").write_text(apis({"Animals": ["Cats", "Dogs"], "Science": ["Dogs", "Numbers"]}))
    known = keys_of(config.loads(PER_TABLE), WorkTree(str(root)))
    assert sorted(known) == [("API", "Cats", ""), ("API", "Dogs", ""), ("API", "Dogs", "#2"), ("API", "Numbers", "")]
    assert known[("API", "Dogs", "#2")] == ("README.md", 14)
    patch = b"--- a/README.md\n+++ b/README.md\n@@ -14 +13,0 @@\n-| Dogs | about Dogs | No |\n"
    assert _patch_delta(config.loads(PER_TABLE), patch, known) == (set(), {("API", "Dogs", "#2")})
    moved = patch + b"@@ -8 +8 @@\n+| Dogs | about Dogs | No |\n"
    assert _patch_delta(config.loads(PER_TABLE), moved, known) == (set(), set())  # a move: as many rows as before

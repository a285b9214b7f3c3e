"""Range mode's incremental record checks on a small record that puts every
rule of `checks.incremental` to work (a count pattern across lines, a keyed
table that is its own rollup, labels, a merge): each commit's findings, and
what each introduced, are those of checking every version whole."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from mergedrv import config, history
from mergedrv.git import repository
from mergedrv.history import walk
from mergedrv.history.walk import range_commits

CONFIG = r"""
[[record]]
name = "R"
path = "r.md"
key = "ID"
key_pattern = '^R-[a-z0-9]+$'

[record.columns]
v = '^[0-9]+$'

[[record.rollup]]
heading = "Summary"
group = "Kind"
label = "Kind"
count = "N"

[[record.count]]
pattern = '(\d+) of kind a'
where = { Kind = "a" }

[[record]]
name = "S"
path = "s.md"
key = "ID"
key_pattern = '^S-[a-z0-9]+$'

[[record.count]]
pattern = '(\d+)[^|]*?rows counted'
"""

DOC = (b"# R\n\n## Summary\n\n| ID | Kind | N | v |\n|---|---|---|---|\n| **Group** | | | |\n| `R-a` | a | 1 | 1 |\n"
       b"| `R-b` | b | 1 | 2 |\n\n1 of kind a.\n")
OTHER = b"# S\n\n| ID | Kind | v |\n|---|---|---|\n| `S-a` | a | 1 |\n| `S-c` | c | x 5\n\nsaid 3 rows counted\n"

STEPS = [  # (message, (old, new) replacements of r.md then s.md, the checks its whole check says it introduces)
    ("a digit dropped from a row: the count across lines now starts in prose", [(b"| `S-c` | c | x 5", b"| `S-c` | c | x y")], {"rollup"}),
    ("the digit back", [(b"| `S-c` | c | x y", b"| `S-c` | c | x 5")], {"rollup"}),
    ("a row of the keyed rollup table bumped", [(b"| `R-a` | a | 1 | 1 |", b"| `R-a` | a | 2 | 1 |")], {"rollup"}),
    ("a Kind moved", [(b"| `R-b` | b | 1 | 2 |", b"| `R-b` | a | 1 | 2 |")], {"rollup"}),
    ("a cell refused", [(b"| `R-b` | a | 1 | 2 |", b"| `R-b` | a | 1 | two |")], {"column-format"}),
    ("a key refused and a cell put right", [(b"| `R-b` | a | 1 | two |", b"| `R-bad!` | a | 1 | 2 |")], {"key-format"}),
    ("a key twice", [(b"| `R-bad!` | a | 1 | 2 |", b"| `R-a` | a | 1 | 2 |")], {"keys-unique"}),
    ("a row given a cell too many", [(b"| `R-a` | a | 1 | 2 |", b"| `R-b` | a | 1 | 2 | 3 |")], {"table-shape"}),
]


def _run(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture(scope="module")
def small_history(tmp_path_factory) -> tuple[Path, dict[str, set[str]]]:
    repo = tmp_path_factory.mktemp("rowedits") / "repo"
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    for k, v in (("user.name", "B"), ("user.email", "b@example.com")):
        _run(repo, "config", k, v)
    (repo / ".mergedrv.toml").write_text(CONFIG)
    data, other = DOC, OTHER
    (repo / "r.md").write_bytes(data)
    (repo / "s.md").write_bytes(other)
    _run(repo, "add", "-A")
    _run(repo, "commit", "-q", "-m", "root")
    want = {}
    for msg, edits, checks in STEPS:
        for old, new in edits:
            assert data.count(old) + other.count(old) == 1, msg
            data, other = data.replace(old, new), other.replace(old, new)
        (repo / "r.md").write_bytes(data)
        (repo / "s.md").write_bytes(other)
        _run(repo, "commit", "-q", "-am", msg)
        want[msg] = checks
    # a side branch and its merge: both sides edit rows in place
    _run(repo, "checkout", "-q", "-b", "side", "HEAD~1")
    side = (repo / "r.md").read_bytes()
    assert side.count(b"| `R-a` | a | 2 | 1 |") == 1
    (repo / "r.md").write_bytes(side.replace(b"| `R-a` | a | 2 | 1 |", b"| `R-a` | a | 2 | x |"))
    _run(repo, "commit", "-q", "-am", "a side's cell")
    want["a side's cell"] = {"column-format"}
    _run(repo, "checkout", "-q", "main")
    assert data.count(b"| `R-a` | a | 2 | 1 |") == 1
    merged = data.replace(b"| `R-a` | a | 2 | 1 |", b"| `R-a` | a | 2 | 11 |")
    subprocess.run(["git", "merge", "-q", "--no-ff", "--no-commit", "-s", "ours", "side"], cwd=repo, check=True)
    (repo / "r.md").write_bytes(merged)
    _run(repo, "commit", "-q", "-am", "the merge, a row edited")
    want["the merge, a row edited"] = set()
    return repo, want


@pytest.mark.parametrize("only", [None, {"rollup"}, {"column-format", "table-shape"}, {"keys-unique", "key-format", "refs"}])
def test_each_commit_finds_what_the_whole_check_finds(small_history, monkeypatch, only) -> None:
    repo, want = small_history
    r = repository(repo)
    cfg = config.loads(CONFIG)
    made: list = []
    make = walk.SnapshotChecks.make
    monkeypatch.setattr(walk.SnapshotChecks, "make", lambda *a, **k: made.append(make(*a, **k)) or made[-1])
    fast, _ = history.check_range(r, cfg, "0" * 40, "HEAD", only=only)
    whole, _ = history.check_range(r, cfg, "0" * 40, "HEAD", only=only, fast=False)
    assert [f.text() for f in fast] == [f.text() for f in whole]
    commits = range_commits(r, "0" * 40, "HEAD")
    message = {c.short_id: c.message.strip() for c in commits}
    # every step and the merge, from its first parent's findings ("the digit back" is the root's version, known)
    assert sorted(message[str(c)[:7]] for c in made[0].incremental) == sorted(set(want) - {"the digit back"})
    for c in commits:
        assert [f.text() for f in made[0].raw(c, None)] == [f.text() for f in made[1].raw(c, None)], message[c.short_id]
    if only is None:
        got: dict[str, set[str]] = {m: set() for m in want}
        for f in whole:
            got.setdefault(message[f.commit], set()).add(f.check)
        assert got == {**want, "root": {"rollup"}}


LATE = CONFIG.replace('path = "r.md"', 'path = "late.md"')


def test_a_record_added_removed_and_added_again_is_checked_where_it_is(tmp_path: Path) -> None:
    """Each commit's snapshot answers for its own tree (range mode keeps a
    snapshot's files and blob ids while the commit is in use; the record's
    path is this test's own, so nothing read before answers for it)."""
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    for k, v in (("user.name", "B"), ("user.email", "b@example.com")):
        _run(repo, "config", k, v)
    (repo / ".mergedrv.toml").write_text(LATE)
    (repo / "s.md").write_bytes(OTHER)
    _run(repo, "add", "-A")
    _run(repo, "commit", "-q", "-m", "root")
    steps = [("late.md added with a refused cell", DOC.replace(b"| `R-b` | b | 1 | 2 |", b"| `R-b` | b | 1 | x |")),
             ("late.md removed", None), ("late.md back, another refused cell", DOC.replace(b"| `R-a` | a | 1 | 1 |", b"| `R-a` | a | 1 | y |"))]
    for msg, data in steps:
        if data is None:
            _run(repo, "rm", "-q", "late.md")
        else:
            (repo / "late.md").write_bytes(data)
            _run(repo, "add", "-A")
        _run(repo, "commit", "-q", "-m", msg)
    r = repository(repo)
    cfg = config.loads(LATE)
    message = {c.short_id: c.message.strip() for c in range_commits(r, "0" * 40, "HEAD")}
    for fast in (True, False):
        found, _ = history.check_range(r, cfg, "0" * 40, "HEAD", fast=fast)
        got = {(message[f.commit], f.check) for f in found if f.path == "late.md"}
        assert got == {("late.md added with a refused cell", "column-format"), ("late.md back, another refused cell", "column-format")}


COUNTED = r"""
[[record]]
name = "R"
path = "r.md"
key = "ID"

[[record.count]]
file = "count.py"
pattern = 'ROWS = (\d+)'
"""


def test_a_counted_file_whose_lines_move_is_judged_at_its_own_lines(tmp_path: Path) -> None:
    """The line starts of a counted file are kept per blob over a range
    (`Context._file_starts`): each commit's stale count is reported at the
    line its own version holds it, as a range of that commit alone reports it."""
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    for k, v in (("user.name", "B"), ("user.email", "b@example.com")):
        _run(repo, "config", k, v)
    (repo / ".mergedrv.toml").write_text(COUNTED)
    rows = ["| `R-a` | 1 |"]
    script = ["ROWS = 1"]

    def commit(msg: str) -> None:
        (repo / "r.md").write_text("# R\n\n| ID | v |\n|---|---|\n" + "".join(r + "\n" for r in rows))
        (repo / "count.py").write_text("\n".join(script))  # (no newline at its end)
        _run(repo, "add", "-A")
        _run(repo, "commit", "-q", "-m", msg)

    commit("root")
    for n in range(2, 8):
        rows.append(f"| `R-{n}` | {n} |")
        if n % 2:
            script.insert(0, f"# a line above, {n}")  # the count moves down
        if n % 3 == 0:
            script[-1] = f"ROWS = {n}"  # put right now and then
        commit(f"row {n}")
    r = repository(repo)
    cfg = config.loads(COUNTED)
    whole, _ = history.check_range(r, cfg, "0" * 40, "HEAD")
    alone = []
    for c in range_commits(r, "0" * 40, "HEAD"):
        found, _ = history.check_range(r, cfg, str(c.parents[0].id) if c.parents else "0" * 40, str(c.id))
        alone += found
    assert [f.text() for f in whole] == [f.text() for f in alone]
    lines = {f.line for f in whole if f.path == "count.py"}
    assert len(lines) > 2  # reported at several lines

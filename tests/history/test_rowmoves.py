"""Range mode's record checks from the parent's findings when rows are added,
removed or moved (`history.rowedits.moved`, `checks.incremental.rows_only`):
on generated histories (real git), every commit's findings are those of
checking every version whole (a count of another file, a checker's constant, among them)."""

from __future__ import annotations

import random
import subprocess
from pathlib import Path

import pytest

from mergedrv import config, history, model
from mergedrv.git import repository
from mergedrv.history import walk
from mergedrv.history.rowedits import moved
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
total = "Total"

[[record.count]]
pattern = '(\d+) of kind a'
where = { Kind = "a" }

[[record.count]]
file = "c.py"
pattern = 'R_ROWS = (\d+)'

[[record]]
name = "S"
path = "s.md"
key = ["ID", "Step"]
key_pattern = { ID = '^S-[a-z0-9]+$' }

[[record.grid]]
column = "State"
label = "Area"
rows = "Rows"
total = "Total"
"""

KINDS = ["a", "b", "c"]


def _row(rng: random.Random, key: str, width: int) -> str:
    cells = [f"`{key}`", rng.choice(KINDS), str(rng.randint(0, 3)), rng.choice(["1", "2", "x"])][:width]
    if rng.random() < 0.1:
        cells.append("extra")  # a cell too many
    return "| " + " | ".join(cells) + " |"


class Record:
    """r.md as sections of rows, the rollup table and the prose that counts."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.n = 0
        self.intro = ["# R", "", "Some prose."]
        self.tables = {"Alpha": [self.fresh() for _ in range(4)], "Beta": [self.fresh() for _ in range(3)]}
        self.tally = {"a": 2, "b": 2, "c": 1, "Total": 7}
        self.said = 3
        self.ragged = False  # a row of the (unkeyed) rollup table with a cell too many

    def fresh(self) -> str:
        self.n += 1
        return _row(self.rng, f"R-k{self.n}", 4)

    def render(self) -> bytes:
        out = list(self.intro) + [""]
        for heading, rows in self.tables.items():
            out += [f"## {heading}", "", "| ID | Kind | N | v |", "|---|---|---|---|", *rows, ""]
        out += ["## Summary", "", "| Kind | N |", "|---|---|", *[f"| {k} | {v} |" for k, v in self.tally.items()],
                *(["| d | 0 | 1 |"] if self.ragged else []), ""]
        out += [f"{self.said} of kind a.", ""]
        return "\n".join(out).encode()

    def step(self) -> str:
        """One random change; what it did."""
        rng = self.rng
        heading = rng.choice(list(self.tables))
        rows = self.tables[heading]
        what = rng.choice(["add", "add", "add", "remove", "move", "edit", "double", "bad key", "continuation", "prose", "tally",
                           "count", "group label", "ragged summary"])
        if what == "add" or not rows:
            rows.insert(rng.randint(0, len(rows)), self.fresh())
        elif what == "remove":
            rows.pop(rng.randrange(len(rows)))
        elif what == "move":
            row = rows.pop(rng.randrange(len(rows)))
            other = self.tables[rng.choice(list(self.tables))]
            other.insert(rng.randint(0, len(other)), row)
        elif what == "edit":
            i = rng.randrange(len(rows))
            rows[i] = _row(rng, rows[i].split("`")[1] if "`" in rows[i] else f"R-e{self.n}", 4)
        elif what == "double":  # a key some row has already
            pool = [r for t in self.tables.values() for r in t if "`" in r]
            key = rng.choice(pool).split("`")[1] if pool else "R-k1"
            rows.insert(rng.randint(0, len(rows)), _row(rng, key, 4))
        elif what == "bad key":
            self.n += 1
            rows.insert(rng.randint(0, len(rows)), _row(rng, f"R-Bad{self.n}!", 4))
        elif what == "continuation":  # a line with no key: part of the row above
            rows.insert(rng.randint(0, len(rows)), "| | more | | |")
        elif what == "group label":
            rows.insert(rng.randint(0, len(rows)), "| **Group** | | | |")
        elif what == "prose":
            if len(self.intro) > 3 and rng.random() < 0.5:
                self.intro.pop()
            else:
                self.intro.append(f"More prose {self.n}.")
        elif what == "ragged summary":
            self.ragged = not self.ragged
        elif what == "tally":
            kind = rng.choice(list(self.tally))
            self.tally[kind] += rng.choice([-1, 1])
        else:
            self.said += rng.choice([-1, 1])
        return f"{what} in {heading}"


def _other(rng: random.Random, n: int, bad: bool = False) -> bytes:
    """s.md: a grid over two sections, keyed by ID or (a later key column)
    Step (``bad``: no ID matches the key pattern)."""
    rows = [f"| `S{'_' if bad else '-'}{i}` | {rng.choice(['DONE', 'OPEN'])} |" for i in range(n)]
    steps = [f"| {i} | {rng.choice(['DONE', 'OPEN'])} |" for i in range(rng.randint(1, 3))]
    return ("# S\n\n| Area | Rows | DONE | OPEN |\n|---|---|---|---|\n| One | 3 | 2 | 1 |\n| Total | 3 | 2 | 1 |\n\n"
            "## One\n\n| ID | State |\n|---|---|\n" + "\n".join(rows) + "\n\n## Two\n\n| Step | State |\n|---|---|\n"
            + "\n".join(steps) + "\n").encode()


def _history(repo: Path, seed: int, commits: int) -> None:
    rng = random.Random(seed)
    record = Record(rng)
    other_n = 3
    out: list[bytes] = []

    def commit(n: int, msg: str, files: dict[str, bytes]) -> None:
        out.append(f"commit refs/heads/main\nmark :{n}\ncommitter B <b@example.com> {1700000000 + n * 60} +0000\n"
                   f"data {len(msg)}\n{msg}\n".encode() + (f"from :{n - 1}\n".encode() if n > 1 else b""))
        for path, data in files.items():
            out.append(f"M 100644 inline {path}\ndata {len(data)}\n".encode() + data + b"\n")

    commit(1, "root", {".mergedrv.toml": CONFIG.encode(), "r.md": record.render(), "s.md": _other(rng, other_n), "c.py": b"R_ROWS = 7\n"})
    constant = random.Random(seed + 1000)  # a checker's constant, edited now and then (its own draws: the rest of the history stays)
    for n in range(2, commits + 2):
        files = {}
        if constant.random() < 0.15:
            files["c.py"] = f"R_ROWS = {constant.randint(5, 12)}\n".encode()
        if rng.random() < 0.8:
            msg = "; ".join(record.step() for _ in range(rng.choice([1, 1, 2, 3])))
            files["r.md"] = record.render()
        else:
            other_n = max(2, other_n + rng.choice([-1, 1, 1]))
            bad = rng.random() < 0.3
            msg = f"s.md with {other_n} rows" + (", no key matching" if bad else "")
            files["s.md"] = _other(rng, other_n, bad)
        commit(n, msg, files)
    subprocess.run(["git", "fast-import", "--quiet"], cwd=repo, input=b"".join(out), check=True)
    subprocess.run(["git", "reset", "-q", "--hard", "main"], cwd=repo, check=True)


@pytest.mark.parametrize("seed", range(16))
def test_rows_added_removed_and_moved_find_what_the_whole_check_finds(tmp_path, monkeypatch, seed) -> None:
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    _history(repo, seed, 80)
    r = repository(repo)
    cfg = config.loads(CONFIG)
    made: list = []
    make = walk.SnapshotChecks.make
    monkeypatch.setattr(walk.SnapshotChecks, "make", lambda *a, **k: made.append(make(*a, **k)) or made[-1])
    fast, _ = history.check_range(r, cfg, "0" * 40, "HEAD")
    whole, _ = history.check_range(r, cfg, "0" * 40, "HEAD", fast=False)
    commits = range_commits(r, "0" * 40, "HEAD")
    message = {c.id: c.message.strip() for c in commits}
    for c in commits:  # every commit's own findings, inherited ones too
        assert [f.text() for f in made[0].raw(c, None)] == [f.text() for f in made[1].raw(c, None)], message[c.id]
    assert [f.text() for f in fast] == [f.text() for f in whole]
    assert len(made[0].incremental) >= 20  # most commits came from their parent's findings
    assert {f.check for f in whole} >= {"keys-unique", "key-format", "column-format", "rollup", "table-shape"}  # the planted breaks are found


def _parse(data: bytes, record) -> model.Document:
    return model.parse(data, record.key, key_pattern=record.key_pattern)


def test_each_kept_line_is_placed_where_it_stands_in_the_new_version() -> None:
    rng = random.Random(7)
    record_cfg = config.loads(CONFIG).records[0]
    for _ in range(200):
        r = Record(rng)
        for _ in range(rng.randint(0, 4)):
            r.step()
        old = _parse(r.render(), record_cfg)
        r.step()
        new = _parse(r.render(), record_cfg)
        m = moved("r.md", old, new)
        if m is None:  # refused: the blocks or a table's preamble (a keyless line above its first row) differ
            assert len(old.blocks) != len(new.blocks) or [t.preamble for t in old.tables] != [t.preamble for t in new.tables]
            continue
        added = {row.line for _, row in m.added}
        for n, line in enumerate(old.lines):
            at = m.line(n)
            if at is not None:
                assert new.lines[at] == line, (n, at)
        for _, row in m.removed:
            assert m.line(row.line) is None
        kept = [m.line(row.line) for t in old.keyed_tables() for row in t.rows]
        assert sorted(x for x in kept if x is not None) == sorted({row.line for row in new.rows()} - added)


PLANTED = [  # (message, r.md's rows of its one table; k' is another row of key k): rows added, removed or moved
    ("root", ["a", "k", "b", "c"]),
    ("a key twice", ["a", "k", "b", "c", "k'"]),
    ("the double moved to the top, a row added", ["k'", "a", "k", "b", "c", "e"]),
    ("a row added between the doubles", ["k'", "a", "d", "k", "b", "c", "e"]),
    ("the first of the doubles moved below the second, a row removed", ["a", "d", "k", "b", "k'", "c"]),
    ("a row removed above them", ["d", "k", "b", "k'", "c"]),
    ("the second removed", ["d", "k", "b", "c"]),
    ("rows moved, none doubled, one added", ["c", "b", "k", "d", "f"]),
]


def _planted(rows: list[str]) -> bytes:
    body = "".join(f"| `R-{k.rstrip(chr(39))}` | a | {len(k)} | {'x' if k == 'b' else '1'} |\n" for k in rows)  # k': another row of key k
    return (f"# R\n\n## Alpha\n\n| ID | Kind | N | v |\n|---|---|---|---|\n{body}\n## Summary\n\n| Kind | N |\n|---|---|\n"
            f"| a | {len(rows)} |\n| Total | {len(rows)} |\n\n{len(rows)} of kind a.\n").encode()


def test_planted_moves_of_a_doubled_key_find_what_the_whole_check_finds(tmp_path, monkeypatch) -> None:
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    for k, v in (("user.name", "B"), ("user.email", "b@example.com")):
        subprocess.run(["git", "config", k, v], cwd=repo, check=True)
    (repo / ".mergedrv.toml").write_text(CONFIG)
    (repo / "s.md").write_bytes(_other(random.Random(1), 2))
    for msg, rows in PLANTED:
        (repo / "r.md").write_bytes(_planted(rows))
        subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
        subprocess.run(["git", "commit", "-q", "-m", msg], cwd=repo, check=True)
    r = repository(repo)
    cfg = config.loads(CONFIG)
    made: list = []
    make = walk.SnapshotChecks.make
    monkeypatch.setattr(walk.SnapshotChecks, "make", lambda *a, **k: made.append(make(*a, **k)) or made[-1])
    history.check_range(r, cfg, "0" * 40, "HEAD")
    history.check_range(r, cfg, "0" * 40, "HEAD", fast=False)
    commits = range_commits(r, "0" * 40, "HEAD")
    for c in commits:
        assert [f.text() for f in made[0].raw(c, None)] == [f.text() for f in made[1].raw(c, None)], c.message
    assert len(made[0].incremental) == len(PLANTED) - 1
    assert sum(f.check == "keys-unique" for c in commits for f in made[1].raw(c, None)) == 5

"""Range mode on matrix commits that change a few rows: what each planted
commit is found to introduce must be exactly what checking every version
whole finds (`check_range(..., fast=False)`), commit by commit."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from mergedrv import config, history
from mergedrv.git import repository
from mergedrv.history import walk
from mergedrv.history.walk import range_commits

from tests.checks_helpers import LEDGER, MATRIX, RETIRED, RETIRED_TEXT, ROADMAP, WORKED_CONFIG
from tests.helpers import DATA

NAMED = b"`MODEL-TEXT-qwen3-qwen3-for-causal-lm`"  # a key the ledger names


def _cells(matrix: bytes, key: bytes) -> tuple[bytes, list[bytes]]:
    line = next(x for x in matrix.split(b"\n") if x.startswith(b"| " + key + b" |"))
    return line, line.split(b"|")


def _set(matrix: bytes, key: bytes, column: int, value: bytes) -> bytes:
    line, cells = _cells(matrix, key)
    cells[column] = b" " + value + b" "
    return matrix.replace(line, b"|".join(cells), 1)


def _key(matrix: bytes, key: bytes, new: bytes) -> bytes:
    """The row of ``key`` given the key ``new`` (its line's first cell)."""
    return matrix.replace(b"\n| " + key + b" |", b"\n| " + new + b" |", 1)


def _history(repo: Path) -> dict[str, set[str]]:
    """A matrix edited row by row between ledger appends; message -> the checks it must trip."""
    ledger = (DATA / "parity-ledger.d85906ae.md").read_bytes()
    matrix = (DATA / "model-matrix.f887c34c.md").read_bytes()
    files = {".mergedrv.toml": WORKED_CONFIG.encode(), MATRIX: matrix, ROADMAP: (DATA / "roadmap_v1.d85906ae.md").read_bytes(),
             LEDGER: ledger, RETIRED: RETIRED_TEXT.encode()}
    out: list[bytes] = []
    want: dict[str, set[str]] = {}

    def commit(msg: str, changes: dict[str, bytes], checks: set[str] = frozenset()) -> None:
        n = len(want) + 1
        want[msg] = set(checks)
        out.append(f"commit refs/heads/main\nmark :{n}\ncommitter B <b@example.com> {1700000000 + n * 60} +0000\n"
                   f"data {len(msg)}\n{msg}\n".encode() + (f"from :{n - 1}\n".encode() if n > 1 else b""))
        for path, data in changes.items():
            out.append(f"M 100644 inline {path}\ndata {len(data)}\n".encode() + data + b"\n")

    commit("root", files)
    arcee, bloom = b"`MODEL-TEXT-arcee-arcee-for-causal-lm`", b"`MODEL-TEXT-bloom-bloom-for-causal-lm`"
    plain = matrix
    planted = [
        ("an owner cell", _set(matrix, bloom, -2, b"owner-1"), set()),
        ("another owner cell", _set(matrix, bloom, -2, b"owner-2"), set()),
        ("an Upstream cell the column pattern refuses", _set(matrix, bloom, 3, b"somewhere else"), {"column-format"}),
        ("the Upstream cell put back", plain, set()),
        ("a key the key pattern refuses", matrix.replace(b"| " + arcee + b" |", b"| `MODEL-TEXT-arcee bad!` |", 1), {"key-format", "ratchet"}),
        ("the key put back", plain, {"ratchet"}),  # a key removed
        ("a key twice", matrix.replace(_cells(matrix, bloom)[0], _cells(matrix, bloom)[0] + b"\n" + _cells(matrix, bloom)[0], 1),
         {"keys-unique", "rollup"}),
        ("the row once", plain, set()),
        ("the rollup Total bumped", matrix.replace(b"| **Total** | **326** |", b"| **Total** | **327** |", 1), {"rollup"}),
        ("the Total put back", plain, set()),
        ("a row the ledger names deleted", b"\n".join(x for x in matrix.split(b"\n") if not x.startswith(b"| " + NAMED + b" |")),
         {"refs", "rollup", "ratchet"}),
        ("the row back", plain, set()),
        ("a State edit that moves a rollup tally", _set(matrix, bloom, 7, b"`SPIKE`"), {"rollup"}),
        ("the State edit kept, an owner edit", _set(_set(matrix, bloom, 7, b"`SPIKE`"), bloom, -2, b"owner-3"), set()),
        ("the State put back", _set(matrix, bloom, -2, b"owner-3"), set()),
        # rows edited in place of the version before: the incremental checks (`rowedits`) on every check
        ("an Upstream cell refused in place", _set(plain, bloom, 3, b"elsewhere"), {"column-format"}),
        ("an owner edit beside the refused cell", _set(_set(plain, bloom, 3, b"elsewhere"), arcee, -2, b"owner-5"), set()),
        ("the refused cell put right", _set(plain, arcee, -2, b"owner-5"), set()),
        ("a key renamed in place to another row's key", _key(plain, bloom, arcee), {"keys-unique", "ratchet"}),
        ("an owner edit beside the double key", _set(_key(plain, bloom, arcee), arcee, -2, b"owner-6"), set()),
        ("the key given back", _set(plain, arcee, -2, b"owner-6"), set()),
        ("a row given a cell too many", plain.replace(_cells(plain, bloom)[0], _cells(plain, bloom)[0] + b" extra |", 1), {"table-shape"}),
        ("a key the ledger names renamed in place", _key(plain, NAMED, b"`MODEL-TEXT-qwen3-renamed`"), {"refs", "ratchet"}),
        ("a key renamed in place to one the pattern refuses", _key(plain, bloom, b"`MODEL-bad key`"), {"key-format", "ratchet", "rollup"}),
        ("a State edit that moves the counts", _set(plain, arcee, 7, b"`DONE`"), {"rollup", "ratchet"}),  # and the refused key gone
        ("an owner edit beside the moved counts", _set(_set(plain, arcee, 7, b"`DONE`"), bloom, -2, b"owner-7"), set()),
        ("two rows edited", _set(_set(plain, arcee, -2, b"owner-8"), bloom, -2, b"owner-8"), set()),
    ]
    for n, (msg, new, checks) in enumerate(planted):
        ledger += f"| 2026-08-{n + 1:02d} `{n:07x}` | entry {n} | none | `DONE` |\n".encode()
        commit(f"ledger {n}", {LEDGER: ledger})
        commit(msg, {MATRIX: new}, checks)
    roadmap = files[ROADMAP]
    row = next(x for x in roadmap.split(b"\n") if x.startswith(b"| 2 | `ROAD-V1-C2` |"))
    commit("a roadmap row and a matrix row edited", {ROADMAP: roadmap.replace(row, row[:-2] + b"x |", 1),
                                                     MATRIX: _set(plain, bloom, -2, b"owner-9")})
    commit("the configuration rewritten, a matrix row edited", {".mergedrv.toml": WORKED_CONFIG.encode() + b"# moved\n",
                                                               MATRIX: _set(plain, bloom, -2, b"owner-10")})
    commit("a matrix row edited under the rewritten configuration", {MATRIX: _set(plain, bloom, -2, b"owner-11")})
    subprocess.run(["git", "fast-import", "--quiet"], cwd=repo, input=b"".join(out), check=True)
    subprocess.run(["git", "reset", "-q", "--hard", "main"], cwd=repo, check=True)
    subprocess.run(["git", "repack", "-adfq"], cwd=repo, check=True)
    return want


@pytest.fixture(scope="module")
def matrix_history(tmp_path_factory) -> tuple[Path, dict[str, set[str]]]:
    repo = tmp_path_factory.mktemp("matrix") / "repo"
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    return repo, _history(repo)


INCREMENTAL = {  # the planted commits whose record-only checks ran on their changed rows alone (`rowedits`)
    "an owner cell", "another owner cell", "an Upstream cell the column pattern refuses", "a key the key pattern refuses",
    "a State edit that moves a rollup tally", "the State edit kept, an owner edit", "the State put back",
    "an Upstream cell refused in place", "an owner edit beside the refused cell", "the refused cell put right",
    "a key renamed in place to another row's key", "an owner edit beside the double key", "the key given back",
    "a row given a cell too many", "a key the ledger names renamed in place", "a key renamed in place to one the pattern refuses",
    "a State edit that moves the counts", "an owner edit beside the moved counts", "two rows edited",
    "a roadmap row and a matrix row edited", "a matrix row edited under the rewritten configuration",
    "a key twice", "a row the ledger names deleted", "the rollup Total bumped",  # rows added or removed, a rollup table edited (`rowedits.moved`)
}


def _snapshot_checks(monkeypatch) -> list:
    made: list = []
    make = walk.SnapshotChecks.make

    def kept(*args, **kwargs):
        made.append(make(*args, **kwargs))
        return made[-1]

    monkeypatch.setattr(walk.SnapshotChecks, "make", kept)
    return made


def test_row_edits_find_what_the_whole_check_finds(matrix_history, monkeypatch) -> None:
    repo, want = matrix_history
    r = repository(repo)
    cfg = config.loads(WORKED_CONFIG)
    made = _snapshot_checks(monkeypatch)
    fast, _ = history.check_range(r, cfg, "0" * 40, "HEAD")
    whole, _ = history.check_range(r, cfg, "0" * 40, "HEAD", fast=False)
    assert [f.text() for f in fast] == [f.text() for f in whole]
    commits = range_commits(r, "0" * 40, "HEAD")
    message = {c.short_id: c.message.strip() for c in commits}
    assert {message[str(c)[:7]] for c in made[0].incremental} == INCREMENTAL  # the configuration's rewrite: whole
    # every commit's own findings (inherited ones too), not only what each introduced
    for c in commits:
        assert [f.text() for f in made[0].raw(c, None)] == [f.text() for f in made[1].raw(c, None)], message[c.short_id]
    got: dict[str, set[str]] = {m: set() for m in want}
    for f in whole:
        got[message[f.commit]].add(f.check)
    assert {m: c for m, c in got.items() if m != "root"} == {m: c for m, c in want.items() if m != "root"}

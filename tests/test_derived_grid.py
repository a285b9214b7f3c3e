"""Section grids (issue #12, item 3): one row per section of the file, a
column counting its rows and one per value of a record column, a Total row;
checked cell by cell, recomputed by the driver after rows merge, rewritten by
`mergedrv fix`.  On the real engine matrix 2c0c076e."""

from __future__ import annotations

import shutil
import subprocess

from mergedrv import config, derived, model
from mergedrv.merge import Markers, merge_path

from tests.checks_helpers import check
from tests.checks_helpers import ENGINE_GRID
from tests.helpers import DATA, MERGEDRV, git, keyed_repo

FIXTURE = DATA / "engine-matrix.2c0c076e.md"
PATH = "engine-matrix.md"
CONFIG = """
[[record]]
name = "ENG"
path = "engine-matrix.md"
key = "ID"

""" + ENGINE_GRID
CFG = config.loads(CONFIG)
RECORD = CFG.records[0]


def numbers(data: bytes) -> derived.Derived:
    return derived.derive(model.parse(data, "ID"), RECORD)


def wrong(data: bytes) -> list[tuple[int, str, int, int]]:
    return [(n.line, n.what, n.found, n.want) for n in numbers(data).numbers if n.found != n.want]


def fixed(data: bytes) -> bytes:
    return derived.rewrite(data, numbers(data).numbers, lambda n: n.want)


def set_state(data: bytes, key: str, old: str, new: str) -> bytes:
    lines = data.split(b"\n")
    for i, line in enumerate(lines):
        if line.startswith(f"| `{key}` |".encode()):
            assert f"| `{old}` |".encode() in line
            lines[i] = line.replace(f"| `{old}` |".encode(), f"| `{new}` |".encode(), 1)
            return b"\n".join(lines)
    raise AssertionError(key)


def test_the_real_grid_has_one_stale_row_the_rows_disagree_with():
    found = numbers(FIXTURE.read_bytes())
    assert not found.problems
    assert len(found.numbers) == 11 * 9  # ten sections and Total; Rows and eight states
    assert wrong(FIXTURE.read_bytes()) == [
        (41, "grid 'State' row 'KV cache and memory' column 'ACTIVE'", 2, 1),
        (41, "grid 'State' row 'KV cache and memory' column 'INVENTORIED'", 8, 9),
    ]
    assert wrong(fixed(FIXTURE.read_bytes())) == []


def test_a_section_the_grid_does_not_list_is_a_problem():
    text = CONFIG.replace('"Parallelism and scale-out" = "Parallelism"\n', "")
    found = derived.derive(model.parse(FIXTURE.read_bytes(), "ID"), config.loads(text).records[0])
    assert [p.message for p in found.problems] == [
        "grid 'State' row 'Parallelism' names no section of the file (give its heading a label in `labels`)",
        "grid 'State' lists no row for the section 'parallelism and scale-out'",
    ]


def test_the_labels_must_be_strings():
    import pytest

    with pytest.raises(config.ConfigError, match=r"labels maps a section's heading"):
        config.loads(CONFIG + '"LoRA and adapters" = 3\n')


def sides() -> tuple[bytes, bytes, bytes]:
    base = fixed(FIXTURE.read_bytes())
    ours = fixed(set_state(base, "ENG-BATCH-INVARIANT", "INVENTORIED", "READY"))
    theirs = fixed(set_state(base, "PAR-PP", "INVENTORIED", "SPIKE"))
    return base, ours, theirs


def test_rows_moved_between_states_in_two_sections_merge_with_the_right_grid():
    base, ours, theirs = sides()
    result = merge_path(PATH, base, ours, theirs, CFG, Markers())
    assert result.conflicts == [] and result.fallback is None
    assert wrong(result.data) == []
    want = fixed(set_state(set_state(base, "ENG-BATCH-INVARIANT", "INVENTORIED", "READY"), "PAR-PP", "INVENTORIED", "SPIKE"))
    assert result.data == want
    lines = result.data.split(b"\n")
    assert lines[39].startswith(b"| Engine and scheduling | 16 | 3 | 3 | 1 | 1 | 2 | 2 | 1 | 3 |")
    assert lines[41].startswith(b"| Parallelism | 6 | 0 | 0 | 1 | 1 | 0 | 0 | 0 | 4 |")
    assert lines[49] == b"| **Total** | **110** | **8** | **18** | **4** | **8** | **5** | **14** | **3** | **50** |"


def test_a_stale_grid_on_one_side_is_recomputed_by_the_merge():
    base, ours, theirs = sides()
    stale = set_state(base, "PAR-PP", "INVENTORIED", "SPIKE")  # the grid not updated
    result = merge_path(PATH, base, ours, stale, CFG, Markers())
    assert result.conflicts == [] and wrong(result.data) == []


def _repo(tmp_path):
    return keyed_repo(tmp_path / "repo", CONFIG)


def test_check_reports_each_wrong_cell_at_its_line_and_fix_rewrites_it(tmp_path):
    repo = _repo(tmp_path)
    shutil.copy(FIXTURE, repo / PATH)
    code, out, _ = check(repo)
    assert code == 1
    assert [line for line in out if ": rollup:" in line] == [
        "engine-matrix.md:41: rollup: ENG: grid 'State' row 'KV cache and memory' column 'ACTIVE' says 2, the rows give 1 (`mergedrv fix` rewrites it)",
        "engine-matrix.md:41: rollup: ENG: grid 'State' row 'KV cache and memory' column 'INVENTORIED' says 8, the rows give 9 (`mergedrv fix` rewrites it)",
    ]
    proc = subprocess.run([*MERGEDRV, "fix"], cwd=repo, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (repo / PATH).read_bytes() == fixed(FIXTURE.read_bytes())
    assert [line for line in check(repo)[1] if ": rollup:" in line] == []
    # mutation: bump one cell of the fixed grid
    data = (repo / PATH).read_bytes().replace(b"| LoRA and adapters | 2 | 0 |", b"| LoRA and adapters | 2 | 1 |")
    (repo / PATH).write_bytes(data)
    assert [line for line in check(repo)[1] if ": rollup:" in line] == [
        "engine-matrix.md:47: rollup: ENG: grid 'State' row 'LoRA and adapters' column 'ANCHOR-BACKFILL' says 1, the rows give 0 (`mergedrv fix` rewrites it)",
    ]


def test_git_merge_and_rebase_of_two_state_moves(tmp_path):
    base, ours, theirs = sides()
    repo = _repo(tmp_path)
    (repo / PATH).write_bytes(base)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    git(repo, "checkout", "-q", "-b", "topic")
    (repo / PATH).write_bytes(theirs)
    git(repo, "commit", "-q", "-am", "PAR-PP spike")
    git(repo, "checkout", "-q", "main")
    (repo / PATH).write_bytes(ours)
    git(repo, "commit", "-q", "-am", "ENG-BATCH-INVARIANT ready")
    want = merge_path(PATH, base, ours, theirs, CFG, Markers()).data
    git(repo, "merge", "-q", "--no-ff", "-m", "merge", "topic")
    assert (repo / PATH).read_bytes() == want
    git(repo, "checkout", "-q", "-b", "replay", "topic")
    proc = git(repo, "rebase", "-q", "main^1", check=False)  # theirs replayed onto ours
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (repo / PATH).read_bytes() == want
    assert wrong(want) == []

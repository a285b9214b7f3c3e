"""Range mode in several processes (`history.parallel`): the range cut into
runs of consecutive commits of about equal weight, and the findings the one
process finds, in its order."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from mergedrv import config, history
from mergedrv.git import repository
from mergedrv.history import parallel, walk

from tests.checks_helpers import MATRIX, WORKED_CONFIG
from tests.helpers import MERGEDRV
from tests.history.test_matrix import _history


@given(st.lists(st.floats(min_value=0.0, max_value=100.0), min_size=1, max_size=60), st.integers(1, 12))
def test_runs_cover_the_range_in_order_and_share_the_weight(weights, parts):
    cut = parallel.runs(weights, parts)
    assert cut[0][0] == 0 and cut[-1][1] == len(weights)
    assert all(a < b for a, b in cut)  # none empty
    assert all(cut[i][1] == cut[i + 1][0] for i in range(len(cut) - 1))  # consecutive
    assert len(cut) <= parts
    share = sum(weights) / min(parts, len(weights))
    assert all(sum(weights[a:b]) <= share + max(weights) + 1e-9 for a, b in cut[:-1])


def test_equal_weights_are_cut_evenly():
    assert parallel.runs([1.0] * 12, 3) == [(0, 4), (4, 8), (8, 12)]
    assert parallel.runs([1.0] * 2, 5) == [(0, 1), (1, 2)]


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture(scope="module")
def merged_history(tmp_path_factory) -> Path:
    """The matrix history of test_matrix, then a merge of two rows added apart
    and a merge that kept one side's file whole (a key dropped)."""
    repo = tmp_path_factory.mktemp("parallel") / "repo"
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    _history(repo)
    for k, v in {"user.email": "b@example.com", "user.name": "B", "commit.gpgsign": "false"}.items():
        _git(repo, "config", k, v)
    matrix = (repo / MATRIX).read_text()
    row = next(x for x in matrix.splitlines() if x.startswith("| `MODEL-TEXT-bloom"))
    for n, branch in enumerate(("one", "two")):
        _git(repo, "checkout", "-q", "-b", branch, "main")
        new = row.replace("`MODEL-TEXT-bloom-bloom-for-causal-lm`", f"`MODEL-TEXT-added-{branch}`")
        (repo / MATRIX).write_text(matrix.replace(row, row + "\n" + new, 1) if n else matrix.replace(row, new + "\n" + row, 1))
        _git(repo, "commit", "-qam", f"a row on {branch}")
    _git(repo, "checkout", "-q", "main")
    _git(repo, "merge", "-q", "--no-ff", "-m", "merge one", "one")
    tree = _git(repo, "rev-parse", "two^{tree}")  # the second branch's file whole: one's row dropped
    merge = _git(repo, "commit-tree", tree, "-p", "main", "-p", "two", "-m", "merge two, one's row dropped")
    _git(repo, "reset", "-q", "--hard", merge)
    return repo


def test_jobs_find_what_one_process_finds(merged_history, monkeypatch):
    r = repository(merged_history)
    cfg = config.loads(WORKED_CONFIG)
    used = []
    real = parallel.check_parallel

    def spy(*args, **kwargs):
        used.append(args[5])  # jobs
        return real(*args, **kwargs)

    monkeypatch.setattr(walk, "PARALLEL_MIN", 1)  # the history is short: share it anyway
    monkeypatch.setattr(parallel, "check_parallel", spy)
    one, alone = history.check_range(r, cfg, "0" * 40, "HEAD", jobs=1)
    many, shared = history.check_range(r, cfg, "0" * 40, "HEAD", jobs=3)
    assert used == [3]  # the second run was shared among processes
    assert {f.check for f in one} >= {"keys-unique", "refs", "rollup", "merge-keys"}  # the planted findings, and the dropped row
    assert [f.text() for f in many] == [f.text() for f in one]
    assert (shared.commits, shared.merges, shared.failing, shared.findings) == (alone.commits, alone.merges, alone.failing, alone.findings)
    assert [n.text() for n in shared.notes] == [n.text() for n in alone.notes]


def test_a_short_range_stays_in_this_process(merged_history, monkeypatch):
    used = []
    monkeypatch.setattr(parallel, "check_parallel", lambda *a, **k: used.append(a) or [])
    history.check_range(repository(merged_history), config.loads(WORKED_CONFIG), "0" * 40, "HEAD", jobs=4)
    assert used == []  # fewer than PARALLEL_MIN commits


def test_jobs_must_be_a_number_of_processes(merged_history):
    out = subprocess.run([*MERGEDRV, "check", "--base", "HEAD~3", "--head", "HEAD", "--jobs", "0"],
                         cwd=merged_history, capture_output=True, text=True)
    assert out.returncode == 2
    assert "'0' is not a number of processes" in out.stderr and "Traceback" not in out.stderr


def test_jobs_outside_a_range_is_a_usage_error(merged_history):
    out = subprocess.run([*MERGEDRV, "check", "--staged", "--jobs", "2"], cwd=merged_history, capture_output=True, text=True)
    assert out.returncode == 2
    assert "--jobs shares a range among processes: use it with --base and --head" in out.stderr

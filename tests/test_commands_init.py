"""`mergedrv init`: records, keys, patterns and pins proposed from real records; logs from history."""

from __future__ import annotations

import re
import shutil

from mergedrv import config, model
from mergedrv.commands import init

from .helpers import DATA, git
from .install_helpers import commit, mergedrv


def fixtures_repo(repo):
    (repo / ".agents").mkdir()
    shutil.copyfile(DATA / "model-matrix.f887c34c.md", repo / ".agents/model-matrix.md")
    shutil.copyfile(DATA / "roadmap_v1.d85906ae.md", repo / ".agents/roadmap_v1.md")
    shutil.copyfile(DATA / "parity-ledger.d85906ae.md", repo / ".agents/parity-ledger.md")
    commit(repo, {"README.md": "# vllm.cpp\n\n| a | b |\n|---|---|\n| 1 | 2 |\n"}, "records")


def test_real_records_get_the_right_keys_patterns_and_pins(repo):
    fixtures_repo(repo)
    proc = mergedrv(repo, "init")
    assert proc.returncode == 0, proc.stderr
    cfg = config.load(repo / ".mergedrv.toml")
    matrix = cfg.record_for(".agents/model-matrix.md")
    assert (matrix.name, matrix.key, matrix.key_pattern, matrix.pin) == ("MODEL", "ID", "^MODEL-[A-Za-z0-9_.-]+$", 326)
    assert matrix.refs == ["Row"]  # the checklist's Row column names matrix keys
    road = cfg.record_for(".agents/roadmap_v1.md")
    assert (road.name, road.key, road.key_pattern, road.pin) == ("ROAD", "Block", "^ROAD-V1-[A-Za-z0-9_.-]+$", 17)
    assert [log.path for log in cfg.logs] == [".agents/parity-ledger.md"]
    assert cfg.record_for("README.md") is None
    # every key of the file matches the proposed pattern, and the pin is the row count
    for record, name in ((matrix, "model-matrix.md"), (road, "roadmap_v1.md")):
        keys = [r.key for r in model.parse((repo / ".agents" / name).read_bytes(), key=record.key).rows()]
        assert len(keys) == record.pin
        assert all(re.match(record.key_pattern, k) for k in keys)
    text = (repo / ".mergedrv.toml").read_text()
    assert "# .agents/model-matrix.md: 326 rows in 12 tables keyed by column 'ID' (all backticked)." in text
    assert "calls itself append-only" in text
    assert "README.md" in text  # named among the tables left out
    assert "record MODEL: key 'ID'" in proc.stdout


def test_an_older_matrix_gets_its_own_count(repo):
    (repo / "m.md").write_bytes((DATA / "model-matrix.40ddeb59.md").read_bytes())
    git(repo, "add", "m.md")
    git(repo, "commit", "-qm", "m")
    proposals, _ = init.propose(repo)
    [p] = proposals
    rows = list(model.parse((repo / "m.md").read_bytes(), key="ID").rows())
    assert (p.key, p.pin) == ("ID", len(rows))


def test_never_overwrites_without_force(repo):
    fixtures_repo(repo)
    (repo / ".mergedrv.toml").write_text("# mine\n")
    proc = mergedrv(repo, "init")
    assert proc.returncode == 2 and "already exists" in proc.stderr and "--force" in proc.stderr
    assert (repo / ".mergedrv.toml").read_text() == "# mine\n"
    printed = mergedrv(repo, "init", "--print")
    assert printed.returncode == 0 and "[[record]]" in printed.stdout
    assert (repo / ".mergedrv.toml").read_text() == "# mine\n"
    assert mergedrv(repo, "init", "--force").returncode == 0
    assert "[[record]]" in (repo / ".mergedrv.toml").read_text()


LEDGER_HEAD = "# Benchmarks\n\nResults, newest last.\n\n| Date | Result |\n|---|---|\n"


def test_a_keyless_table_that_only_grew_at_the_end_is_a_log(repo):
    rows = [f"| 2026-07-0{i} | run {i} |\n" for i in range(1, 5)]
    for n in range(1, 5):
        commit(repo, {"bench.md": LEDGER_HEAD + "".join(rows[:n])}, f"bench {n}")
    proposals, _ = init.propose(repo)
    assert [(p.kind, p.path) for p in proposals] == [("log", "bench.md")]
    assert "in 4 versions its table only grew at the end" in proposals[0].why[0]


def test_a_keyless_table_edited_in_the_middle_is_not_a_log(repo):
    rows = [f"| 2026-07-0{i} | run {i} |\n" for i in range(1, 4)]
    commit(repo, {"bench.md": LEDGER_HEAD + "".join(rows[:2])}, "one")
    commit(repo, {"bench.md": LEDGER_HEAD + rows[2] + "".join(rows[:2])}, "inserted on top")
    proposals, skipped = init.propose(repo)
    assert proposals == [] and skipped == ["bench.md"]
    proc = mergedrv(repo, "init")
    assert proc.returncode == 1 and "nothing written" in proc.stderr
    assert not (repo / ".mergedrv.toml").exists()


def test_duplicates_and_odd_keys_are_explained(repo):
    table = "| Key | Title |\n|---|---|\n" + "".join(
        f"| `FEAT-{i}` | t |\n" for i in (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 3)
    ) + "| `BUG-1` | t |\n"
    commit(repo, {"docs/features.md": "# Features\n\n" + table}, "features")
    [p] = init.propose(repo)[0]
    assert (p.name, p.key, p.pin) == ("FEAT", "Key", 12)
    assert p.key_pattern == "^FEAT-[A-Za-z0-9_.-]+$"
    why = " ".join(p.why)
    assert "except BUG-1" in why
    assert "FEAT-3 (lines 7, 15)" in why


def test_name_clashes_get_a_suffix(repo):
    table = "| ID | x |\n|---|---|\n| `RQ-1` | a |\n| `RQ-2` | b |\n"
    commit(repo, {"a.md": table, "b.md": table}, "two")
    names = [p.name for p in init.propose(repo)[0]]
    assert names == ["RQ", "RQ_2"]
    config.loads(init.render(*init.propose(repo)))


def test_outside_a_repository(tmp_path):
    proc = mergedrv(tmp_path, "init")
    assert proc.returncode == 2 and "not inside a git working tree" in proc.stderr

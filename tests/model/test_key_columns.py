"""Several key columns in one record and detached rows (issue #12, items 1-2),
on the real coordination and roadmap fixtures: the model, the configuration,
the checks (mutated), and the driver under real `git merge` and `git rebase`."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from mergedrv import config, model

from tests.checks_helpers import check
from tests.helpers import DATA, MERGEDRV, diverge, driver_command, git

COORD = ".agents/coordination.md"
ROAD = ".agents/roadmap_v1.md"
CLAIM_PATTERN = (("Claim", "^CLAIM-[A-Z0-9.-]+$"), ("Priority", "^[0-9]+$"))
CONFIG = r"""
[[record]]
name = "CLAIM"
path = ".agents/coordination.md"
key = ["Claim", "Priority"]
key_pattern = { Claim = '^CLAIM-[A-Z0-9.-]+$', Priority = '^[0-9]+$' }
pin = 69
retired = ".agents/retired.md"
{extra}
[[record]]
name = "ROADMAP"
path = ".agents/roadmap_v1.md"
key = ["Block", "#"]
key_pattern = { Block = '^ROAD-V1-[A-Z0-9-]+$', "#" = '^(?:[A-D][0-9]+[a-z]?|[A-Z0-9-]+`? \(formerly A[0-9]+\))$' }
pin = 17
"""


def coordination() -> bytes:
    return (DATA / "coordination.d85906ae.md").read_bytes()


def roadmap() -> bytes:
    return (DATA / "roadmap_v1.d85906ae.md").read_bytes()


# --- the model ---------------------------------------------------------------


def test_coordination_claims_table_detached_runs_and_the_handoff_queue():
    data = coordination()
    doc = model.parse(data, ("Claim", "Priority"), key_pattern=CLAIM_PATTERN)
    assert doc.render() == data
    tables = doc.keyed_tables()
    claims = [t for t in tables if t.key_name == "Claim"]
    assert [len(t.rows) for t in claims] == [42, 13, 6, 3, 5]
    assert [t.detached is claims[0] for t in claims] == [False, True, True, True, True]
    assert [t.start + 1 for t in claims[1:]] == [332, 346, 451, 455]
    handoff = [t for t in tables if t.key_name == "Priority"]
    assert len(handoff) == 1 and len(handoff[0].rows) == 11
    assert model.shown(handoff[0].rows[0].key) == "1" and handoff[0].rows[0].key != "1"  # namespaced
    # line 454 has 9 cells, the table 8: it stays prose
    assert doc.row_at(453) is None and b"CLAIM-MLA-DEEPSEEK" in doc.lines[453]


def test_without_a_key_pattern_there_are_no_detached_rows():
    doc = model.parse(coordination(), ("Claim", "Priority"))
    assert [len(t.rows) for t in doc.keyed_tables()] == [42, 11]


def test_roadmap_tables_are_keyed_by_the_first_declared_column_their_header_holds():
    doc = model.parse(roadmap(), ("Block", "#"), key_pattern="^")
    names = [(t.key_name, len(t.rows)) for t in doc.keyed_tables()]
    assert names == [("Block", 17), ("#", 6), ("#", 9), ("#", 5)]
    assert model.parse(roadmap(), ("#", "Block")).keyed_tables()[0].key_name == "Block"  # no `#` in its header
    blocks = {r.key for t in doc.keyed_tables()[:1] for r in t.rows}
    tracks = {r.key for t in doc.keyed_tables()[1:] for r in t.rows}
    assert "ROAD-V1-C5" in blocks and "#\x1fC5" in tracks and not blocks & tracks


# --- the configuration ------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "line", "says"),
    [
        ('key = []', 4, "non-empty list"),
        ('key = ["Block", 3]', 4, "non-empty list"),
        ('key = ["Block", "block"]', 4, "twice"),
        ('key = ["Block", "#"]\nkey_pattern = { Block = "^R", Track = "^T" }', 5, "'Track', which is not a key column"),
        ('key = ["Block", "#"]\nkey_pattern = { Block = 3 }', 5, "regular expression string"),
        ('key = ["Block", "#"]\nkey_pattern = { "#" = "(" }', 5, "not a valid regular expression"),
        ('key = ["Block", "#"]\npin_column = "State"', 5, "pin_column 'State' is not a key column"),
        ('key = "Block"\ndetached_rows = "hide"', 5, "not one of: 'report', 'keep'"),
        ('key = 3', 4, "must be a string or a list"),
    ],
)
def test_bad_key_columns_are_errors_at_their_line(body, line, says):
    text = f'\n[[record]]\nname = "R"\n{body}\npath = "r.md"\n'
    with pytest.raises(config.ConfigError) as err:
        config.loads(text, ".mergedrv.toml")
    assert str(err.value).startswith(f".mergedrv.toml:{line}: ") and says in str(err.value), str(err.value)


def test_key_columns_load_as_tuples():
    cfg = config.loads(CONFIG.replace("{extra}", 'pin_column = "Claim"\ndetached_rows = "keep"\n'), ".mergedrv.toml")
    rec = cfg.records[0]
    assert rec.key == ("Claim", "Priority") and rec.key_pattern == CLAIM_PATTERN
    assert rec.pin_counts() == "Claim" and rec.detached_rows == "keep"
    assert cfg.records[1].pin_counts() == "Block" and cfg.records[1].detached_rows == "report"


# --- the checks, on the fixtures, mutated ------------------------------------------


def _repo(path: Path, extra: str = "") -> Path:
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    git(path, "config", "user.name", "t")
    git(path, "config", "user.email", "t@example.com")
    (path / ".agents").mkdir()
    shutil.copy(DATA / "coordination.d85906ae.md", path / COORD)
    shutil.copy(DATA / "roadmap_v1.d85906ae.md", path / ROAD)
    (path / ".agents/retired.md").write_text("# Retired\n")
    (path / ".mergedrv.toml").write_text(CONFIG.replace("{extra}", extra))
    git(path, "add", "-A")
    git(path, "commit", "-qm", "records")
    return path


def _mutate(path: Path, old: bytes, new: bytes) -> None:
    data = path.read_bytes()
    assert old in data
    path.write_bytes(data.replace(old, new, 1))


def _line(data: bytes, needle: bytes) -> bytes:
    """The first line starting with ``| needle`` (a row keyed by it), else holding it."""
    lines = data.split(b"\n")
    return next((line for line in lines if line.startswith(b"| " + needle)), None) or next(line for line in lines if needle in line)


def test_unmutated_fixtures_report_only_the_detached_rows(tmp_path):
    repo = _repo(tmp_path / "r")
    code, lines, err = check(repo, "--all")  # the fixture's detached rows are committed: inherited, listed with --all
    assert err == "" and code == 1
    assert all(": detached-row: CLAIM: " in line for line in lines) and len(lines) == 27
    assert lines[0].startswith(f"{COORD}:332: detached-row: CLAIM: CLAIM-MOE-DECODE-PARALLEL-1 is a row of the table at line 287")
    assert "move it up into the table" in lines[0]


def test_detached_rows_keep_switches_the_finding_off_but_not_the_keying(tmp_path):
    repo = _repo(tmp_path / "r", 'detached_rows = "keep"\n')
    assert check(repo) == (0, [], "")
    _mutate(repo / COORD, _line(coordination(), b"`CLAIM-CUDA-SM120-BRINGUP`") + b"\n", b"")  # a detached row deleted
    code, lines, _ = check(repo)
    assert code == 1 and any(f"{COORD}:452: ratchet: CLAIM: key CLAIM-CUDA-SM120-BRINGUP was removed" in x for x in lines), lines
    assert any("CLAIM has 68 keys but its pin is 69" in x for x in lines), lines


def test_a_detached_key_defined_again_in_the_table_is_a_duplicate(tmp_path):
    repo = _repo(tmp_path / "r", 'detached_rows = "keep"\n')
    row = _line(coordination(), b"`CLAIM-SWEEP-OLMO2`")
    last = _line(coordination(), b"`CLAIM-BACKEND-PLATFORM-1`")
    _mutate(repo / COORD, last, last + b"\n" + row)
    code, lines, _ = check(repo, "--only", "keys-unique")
    assert code == 1 and lines == [f"{COORD}:460: keys-unique: CLAIM: key CLAIM-SWEEP-OLMO2 is defined twice (first at line 331)"]


def test_the_same_value_under_two_key_columns_is_no_duplicate(tmp_path):
    repo = _repo(tmp_path / "r", 'detached_rows = "keep"\n')
    # a `#` row whose value is a Block value: no duplicate (the pin counts Block rows: 17 still)
    _mutate(repo / ROAD, b"| D5 |", b"| ROAD-V1-D5 |")
    code, lines, _ = check(repo, "--only", "keys-unique,key-format")
    assert lines == [f"{ROAD}:193: key-format: ROADMAP: key ROAD-V1-D5 does not match key_pattern (#) "
                     "'^(?:[A-D][0-9]+[a-z]?|[A-Z0-9-]+`? \\(formerly A[0-9]+\\))$'"], lines


def test_key_format_holds_each_column_to_its_own_pattern(tmp_path):
    repo = _repo(tmp_path / "r", 'detached_rows = "keep"\n')
    _mutate(repo / COORD, b"| 11 | `ENG-EXPERT-STREAM`", b"| eleven | `ENG-EXPERT-STREAM`")
    code, lines, _ = check(repo, "--only", "key-format")
    assert code == 1 and len(lines) == 1 and lines[0].startswith(f"{COORD}:475: key-format: CLAIM: key eleven does not match key_pattern (Priority)")
    # a claim key that does not match its pattern is no detached row: prose, and the count drops
    _mutate(repo / COORD, b"| eleven |", b"| 11 |")
    _mutate(repo / COORD, b"| `CLAIM-SWEEP-OLMO2` |", b"| `claim-sweep-olmo2` |")
    code, lines, _ = check(repo, "--only", "ratchet")
    assert code == 1 and any("CLAIM has 68 keys but its pin is 69" in x for x in lines), lines


def test_the_pin_counts_its_pin_column(tmp_path):
    repo = _repo(tmp_path / "r", 'detached_rows = "keep"\n')
    cfg = (repo / ".mergedrv.toml").read_text()
    (repo / ".mergedrv.toml").write_text(cfg.replace("pin = 17\n", 'pin = 20\npin_column = "#"\n'))
    assert check(repo, "--only", "ratchet") == (0, [], "")
    (repo / ".mergedrv.toml").write_text(cfg.replace("pin = 17\n", 'pin = 17\npin_column = "#"\n'))
    code, lines, _ = check(repo, "--only", "ratchet")
    assert code == 1 and "ROADMAP has 20 keys but its pin is 17" in lines[0]


def test_refs_know_detached_rows_and_second_column_keys(tmp_path):
    repo = _repo(tmp_path / "r", 'detached_rows = "keep"\nref_files = [".agents/notes.md"]\n')
    (repo / ".agents/notes.md").write_text("See `CLAIM-SWEEP-OLMO2` and `CLAIM-GONE-1`.\n")
    code, lines, _ = check(repo, "--only", "refs")
    assert code == 1 and len(lines) == 1 and "CLAIM-GONE-1" in lines[0] and lines[0].startswith(".agents/notes.md:1: refs: CLAIM: ")


# --- the driver under real git -----------------------------------------------------


def _wired(path: Path) -> Path:
    repo = _repo(path, 'detached_rows = "keep"\n')
    (repo / ".gitattributes").write_text("*.md merge=keyed\n")
    git(repo, "config", "merge.keyed.name", "mergedrv keyed records")
    git(repo, "config", "merge.keyed.driver", driver_command())
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "wire")
    return repo


NEW_T = b"| `CLAIM-NEW-TABLE-1` | `ENG-X` | alice | wt-a | a | `src/a` | ACTIVE | 2026-07-30 |"
NEW_D = b"| `CLAIM-NEW-DETACHED-1` | `ENG-Y` | bob | wt-b | b | `src/b` | ACTIVE | 2026-07-30 |"


def _coordination_sides(data: bytes) -> tuple[bytes, bytes]:
    last_t = _line(data, b"`CLAIM-BACKEND-PLATFORM-1`")
    det = _line(data, b"`CLAIM-QUANT-GGUF-COMPUTE-1`")
    h2, h3 = _line(data, b"| 2 | `SERVE-ASYNC-LLM`"), _line(data, b"| 3 | `SERVE-E2E-NIGHTLY`")
    ours = data.replace(last_t, last_t + b"\n" + NEW_T).replace(h2, h2[:-2] + b" (main) |")
    theirs = data.replace(det, det + b"\n" + NEW_D).replace(h3, h3[:-2] + b" (topic) |")
    return ours, theirs


def _roadmap_sides(data: bytes) -> tuple[bytes, bytes]:
    c5, rc5, d5 = _line(data, b"| C5 |"), _line(data, b"| 5 | `ROAD-V1-C5`"), _line(data, b"| D5 |")
    ours = data.replace(c5, c5[:-2] + b" (main) |")
    theirs = data.replace(rc5, rc5[:-2] + b" (topic) |").replace(d5, d5 + b"\n| D6 | New T2 track | open |")
    return ours, theirs


@pytest.mark.parametrize("how", ["merge", "rebase"])
@pytest.mark.parametrize("shape", ["detached", "two-keys"])
def test_git_merges_and_rebases_each_shape_cleanly(tmp_path, how, shape):
    repo = _wired(tmp_path / "r")
    path, sides = (COORD, _coordination_sides(coordination())) if shape == "detached" else (ROAD, _roadmap_sides(roadmap()))
    ours, theirs = sides
    diverge(repo, path, None, ours, theirs)
    if how == "merge":
        out = git(repo, "merge", "--no-edit", "topic", check=False)
    else:
        git(repo, "checkout", "-q", "topic")
        out = git(repo, "rebase", "main", check=False)
    assert out.returncode == 0, out.stdout + out.stderr
    got = (repo / path).read_bytes()
    assert b"<<<<<<<" not in got and b"(main) |" in got and b"(topic) |" in got
    if shape == "detached":
        assert got.count(NEW_T) == 1 and got.count(NEW_D) == 1
        lines = got.split(b"\n")
        assert lines.index(NEW_T) == 330 and lines.index(NEW_D) == 334  # each where its side put it
        assert lines[331] == b""  # the detached rows stay detached, byte for byte
    else:
        assert got.count(b"| D6 | New T2 track | open |") == 1
    proc = subprocess.run([*MERGEDRV, "check", "--only", "keys-unique"], cwd=repo, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout


def test_prose_counts_count_detached_rows(tmp_path):
    count = "\n[[record.count]]\npattern = '(\\d+) claims are recorded'\nwhere = { Claim = '~.' }\n"
    repo = _repo(tmp_path / "r", 'detached_rows = "keep"\n' + count)
    _mutate(repo / COORD, b"## Handoff queue\n", b"69 claims are recorded.\n\n## Handoff queue\n")
    assert check(repo, "--only", "rollup") == (0, [], "")
    row = _line(coordination(), b"`CLAIM-SWEEP-OLMO2`")  # a detached row added below the last one
    _mutate(repo / COORD, row, row + b"\n" + row.replace(b"CLAIM-SWEEP-OLMO2", b"CLAIM-SWEEP-OLMO3"))
    code, lines, _ = check(repo, "--only", "rollup")
    assert code == 1 and len(lines) == 1 and "70" in lines[0] and lines[0].startswith(f"{COORD}:"), lines


def test_resolve_merges_both_shapes_by_key_after_plain_git(tmp_path):
    repo = _repo(tmp_path / "r", 'detached_rows = "keep"\n')
    (c_ours, c_theirs), (r_ours, r_theirs) = _coordination_sides(coordination()), _roadmap_sides(roadmap())
    git(repo, "checkout", "-qb", "topic")
    (repo / COORD).write_bytes(c_theirs)
    (repo / ROAD).write_bytes(r_theirs)
    git(repo, "commit", "-qam", "topic")
    git(repo, "checkout", "-q", "main")
    (repo / COORD).write_bytes(c_ours)
    (repo / ROAD).write_bytes(r_ours)
    git(repo, "commit", "-qam", "main")
    out = git(repo, "merge", "--no-edit", "topic", check=False)
    assert out.returncode != 0 and "CONFLICT" in out.stdout  # plain git: the adjacent handoff edits
    proc = subprocess.run([*MERGEDRV, "resolve", "--add"], cwd=repo, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    got = (repo / COORD).read_bytes()
    assert b"<<<<<<<" not in got and got.count(NEW_T) == 1 and got.count(NEW_D) == 1
    assert b"(main) |" in got and b"(topic) |" in got


def test_merge_keys_follow_namespaces_and_detached_rows(repo):
    from mergedrv import history
    from mergedrv.git import repository

    from tests.helpers import commit as commit_files
    from tests.helpers import head as head_of

    cfg = '[[record]]\nname = "R"\npath = "r.md"\nkey = ["Block", "#"]\nkey_pattern = "^[A-Z]-[0-9]+$"\n'
    base = "| Block | v |\n|---|---|\n| B-1 | a |\n\n| B-2 | detached |\n\n| # | v |\n|---|---|\n| B-1 | t |\n"
    git(repo, "config", "user.name", "t")
    git(repo, "config", "user.email", "t@example.com")
    commit_files(repo, "root", {".mergedrv.toml": cfg, "r.md": base})
    start = head_of(repo)
    git(repo, "switch", "-q", "-c", "topic")
    commit_files(repo, "topic", {"r.md": base.replace("| B-2 | detached |\n", "| B-2 | detached |\n| B-3 | new |\n") + "| B-4 | t4 |\n"})
    git(repo, "switch", "-q", "main")
    commit_files(repo, "main", {"r.md": base.replace("| B-1 | a |", "| B-1 | A |")})
    git(repo, "merge", "-q", "--no-commit", "-s", "ours", "topic")  # a resolution that drops topic's rows
    git(repo, "commit", "-qm", "merge")
    findings, _ = history.check_range(repository(repo), config.loads(cfg), start, "HEAD", only={"merge-keys"})
    said = sorted(f.message.split(" is lost")[0] for f in findings)
    assert said == ["B-3", "B-4"], [f.message for f in findings]  # the `#` B-4 by its plain value, the detached B-3


@pytest.mark.parametrize("how", ["merge", "rebase"])
def test_git_stops_only_on_the_detached_row_both_sides_changed(tmp_path, how):
    repo = _wired(tmp_path / "r")
    data = coordination()
    row = _line(data, b"`CLAIM-SWEEP-OLMO2`")
    ours, theirs = _coordination_sides(data)
    git(repo, "checkout", "-qb", "topic")
    (repo / COORD).write_bytes(theirs.replace(row, row[:-2] + b" topic |"))
    git(repo, "commit", "-qam", "topic")
    git(repo, "checkout", "-q", "main")
    (repo / COORD).write_bytes(ours.replace(row, row[:-2] + b" main |"))
    git(repo, "commit", "-qam", "main")
    if how == "merge":
        out = git(repo, "merge", "--no-edit", "topic", check=False)
    else:
        git(repo, "checkout", "-q", "topic")
        out = git(repo, "rebase", "main", check=False)
    assert out.returncode != 0 and "CONFLICT" in out.stdout
    got = (repo / COORD).read_bytes()
    assert got.count(b"<<<<<<< ") == 1 and got.count(NEW_T) == 1 and got.count(NEW_D) == 1
    start = got.split(b"\n").index(next(x for x in got.split(b"\n") if x.startswith(b"<<<<<<< ")))
    assert got.split(b"\n")[start + 1].startswith(b"| `CLAIM-SWEEP-OLMO2` |")


def test_a_removed_key_of_any_column_must_be_retired_by_its_plain_value(tmp_path):
    repo = _repo(tmp_path / "r", 'detached_rows = "keep"\n')
    _mutate(repo / ROAD, _line(roadmap(), b"| C4 |") + b"\n", b"")  # a `#` row: not counted by the pin (Block)
    code, lines, _ = check(repo, "--only", "ratchet")
    assert code == 1 and len(lines) == 1 and lines[0].startswith(f"{ROAD}:178: ratchet: ROADMAP: key C4 was removed (parent line 178) but is not retired"), lines
    (repo / ".agents/retired.md").write_text("# Retired\n\n- C4\n")
    assert check(repo, "--only", "ratchet") == (0, [], "")

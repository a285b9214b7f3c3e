"""`mergedrv init`: a proposal a maintainer can commit unedited.

Every proposal is run through `mergedrv check` on the unedited tree, and a
mutation it exists to catch must then be reported.
"""

from __future__ import annotations

import re
import shutil

from mergedrv import config, model
from mergedrv.commands import init
from mergedrv.propose import history as inithistory, keys as initkeys

from tests.helpers import DATA, git
from tests.install_helpers import commit, mergedrv, write


def check(repo, *args):
    return mergedrv(repo, "check", "--only", ",".join(init.CHECKED), *args)


def ledger_in_steps(repo, path=".agents/parity-ledger.md", steps=4):
    """The real ledger committed as it grew: its rows appended in ``steps`` commits."""
    lines = (DATA / "parity-ledger.d85906ae.md").read_bytes().splitlines(keepends=True)
    head = next(i for i, line in enumerate(lines) if line.startswith(b"|---")) + 1
    cut = [head + (len(lines) - head) * (i + 1) // steps for i in range(steps)]
    for n, end in enumerate(cut):
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_bytes(b"".join(lines[:end]))
        git(repo, "add", "-A")
        git(repo, "commit", "-qm", f"ledger {n}")


def fixtures_repo(repo):
    (repo / ".agents").mkdir()
    shutil.copyfile(DATA / "model-matrix.f887c34c.md", repo / ".agents/model-matrix.md")
    shutil.copyfile(DATA / "engine-matrix.2c0c076e.md", repo / ".agents/engine-matrix.md")
    shutil.copyfile(DATA / "roadmap_v1.d85906ae.md", repo / ".agents/roadmap_v1.md")
    readme = "# vllm.cpp\n\n| Option | Default | Meaning |\n|---|---|---|\n| `GGML_CUDA` | OFF | CUDA |\n| `VT_BF16` | ON | bf16 |\n"
    commit(repo, {"README.md": readme}, "records")
    ledger_in_steps(repo)


def test_the_real_records(repo):
    fixtures_repo(repo)
    proc = mergedrv(repo, "init")
    assert proc.returncode == 0, proc.stderr
    cfg = config.load(repo / ".mergedrv.toml")
    matrix = cfg.record_for(".agents/model-matrix.md")
    assert (matrix.name, matrix.key, matrix.key_pattern, matrix.pin) == ("MODEL", "ID", "^MODEL-[A-Za-z0-9_.-]+$", 326)
    assert matrix.refs == ["Row"]  # the checklist's Row column names matrix keys
    assert [(r.heading, r.group, r.label, r.count, r.total) for r in matrix.rollups][0] == (
        "Architecture-support checklist", "State", "State", "Rows", "Total")
    assert {c.pattern for c in matrix.counts} >= {r"(\d+) architecture rows are", r"(\d+) are past `INVENTORIED`"}
    engine = cfg.record_for(".agents/engine-matrix.md")
    assert engine.key_pattern == "^(?:ATTN|ENG|KV|LOAD|LORA|PAR|SAMPLE|SERVE|SPEC|TOOLS)-[A-Za-z0-9_.-]+$"
    road = cfg.record_for(".agents/roadmap_v1.md")
    assert (road.name, road.key, road.key_pattern, road.pin) == ("ROAD", "Block", "^ROAD-V1-[A-Za-z0-9_.-]+$", None)  # no count stated
    assert ".agents/roadmap_v1.md" in matrix.ref_files
    assert [log.path for log in cfg.logs] == [".agents/parity-ledger.md"]
    assert cfg.record_for("README.md") is None and cfg.log_for("README.md") is None
    for record in cfg.records:  # every key matches its pattern; the pin is the row count
        keys = [r.key for r in model.parse((repo / record.path).read_bytes(), key=record.key, key_pattern=record.key_pattern).rows()]
        assert record.pin in (None, len(keys))
        assert all(re.match(record.key_pattern, k) for k in keys)
        assert not any(re.match(o.key_pattern, k) for o in cfg.records if o is not record for k in keys)
    text = re.sub(r"\n#\s+", " ", (repo / ".mergedrv.toml").read_text())  # comments unwrapped
    assert "326 rows, the Total row says 326" in text
    assert "3 of 3 changes read only appended at its end (3 rows, 0 dated entries)" in text
    assert "README.md: column 'Option' names options" in text
    assert "record MODEL: key 'ID'" in proc.stdout
    git(repo, "add", ".mergedrv.toml")
    git(repo, "commit", "-qm", "config")
    assert check(repo).returncode == 0, check(repo).stdout
    # a row of the engine matrix pasted into the model matrix
    eng_row = next(line for line in (repo / ".agents/engine-matrix.md").read_text().splitlines() if line.startswith("| `KV-"))
    mm = (repo / ".agents/model-matrix.md").read_text()
    (repo / ".agents/model-matrix.md").write_text(mm.replace("| **Total** | **326** |", "| **Total** | **327** |"))
    out = check(repo).stdout
    assert "rollup: MODEL: rollup 'Architecture-support checklist' row 'Total' says 327, the rows give 326" in out
    (repo / ".agents/model-matrix.md").write_text(mm.replace("\n\n## MODEL-EMBED", "\n" + eng_row + "\n\n## MODEL-EMBED", 1))
    out = check(repo).stdout
    assert "key-format: MODEL: key KV-" in out
    (repo / ".agents/model-matrix.md").write_text(mm)
    road_text = (repo / ".agents/roadmap_v1.md").read_text()
    (repo / ".agents/roadmap_v1.md").write_text(road_text + "\nNext: `MODEL-TEXT-no-such-row`.\n")
    assert "MODEL-TEXT-no-such-row names no key of any record" in check(repo).stdout


def test_an_older_matrix_gets_its_own_count(repo):
    shutil.copyfile(DATA / "model-matrix.40ddeb59.md", repo / "m.md")
    commit(repo, {}, "m")
    [p] = init.propose(repo)[0]
    rows = list(model.parse((repo / "m.md").read_bytes(), key="ID").rows())
    assert (p.key, p.pin) == ("ID", None) and len(rows) > 100  # the older matrix states no count of its rows
    assert f"add `pin = {len(rows)}`" in " ".join(p.why)


def test_never_overwrites_without_force(repo):
    commit(repo, {"t.md": "| ID | x |\n|---|---|\n| `RQ-1` | a |\n| `RQ-2` | b |\n"}, "t")
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


def test_a_table_that_only_grew_at_the_end_is_a_log(repo):
    rows = [f"| 2026-07-0{i} | run {i} |\n" for i in range(1, 5)]
    for n in range(1, 5):
        commit(repo, {"runs.md": LEDGER_HEAD + "".join(rows[:n])}, f"run {n}")
    proposals, _ = init.propose(repo)
    assert [(p.kind, p.path) for p in proposals] == [("log", "runs.md")]
    assert "3 of 3 changes read only appended at its end" in proposals[0].why[0]


def test_edited_in_place_or_a_ledger_word_is_no_log(repo):
    rows = [f"| 2026-07-0{i} | run {i} |\n" for i in range(1, 6)]
    commit(repo, {"runs.md": "# Append-only ledger\n\n" + LEDGER_HEAD + "".join(rows[:2])}, "one")
    commit(repo, {"runs.md": "# Append-only ledger\n\n" + LEDGER_HEAD + rows[2] + "".join(rows[:2])}, "inserted on top")
    commit(repo, {"runs.md": "# Append-only ledger\n\n" + LEDGER_HEAD + rows[2] + "".join(rows[:2]) + rows[3]}, "appended")
    proposals, skipped = init.propose(repo)
    assert proposals == [] and skipped[0].startswith("runs.md: ")
    proc = mergedrv(repo, "init")
    assert proc.returncode == 1 and "nothing written" in proc.stderr
    assert f"\n  {skipped[0]}\n" in proc.stderr  # each file's reason, as the comment would give it
    assert not (repo / ".mergedrv.toml").exists()


def test_one_duplicate_is_a_finding_two_drop_the_column(repo):
    table = "| Key | Title |\n|---|---|\n" + "".join(f"| `FEAT-{i}` | t{i} |\n" for i in (1, 2, 3, 4, 3))
    commit(repo, {"features.md": "# Features\n\n" + table}, "features")
    [p] = init.propose(repo)[0]
    assert (p.key, p.cand.dup) == ("Key", "FEAT-3")
    assert "Finding: 'FEAT-3' is in two rows; keys-unique reports it" in " ".join(p.why)
    commit(repo, {"features.md": "# Features\n\n" + table + "| `FEAT-1` | again |\n"}, "another")
    proposals, skipped = init.propose(repo)
    assert proposals == [] and "holds 'FEAT-1' twice" in skipped[0]


def test_an_id_with_a_note_matches_its_pattern(repo):
    """stellar/stellar-protocol: `[CAP-0046-01 (formerly 0046)](...)` is a CAP
    ID with a note; the pattern admits it, so day one has no key-format finding."""
    rows = [f"| [CAP-{i:04}](cap-{i:04}.md) | t |" for i in range(1, 9)] + ["| [CAP-0046-01 (formerly 0046)](cap-0046-01.md) | t |"]
    commit(repo, {"core/README.md": "# CAPs\n\n| Number | Title |\n|---|---|\n" + "\n".join(rows) + "\n"}, "caps")
    [p] = init.propose(repo)[0]
    assert p.key_pattern == r"^CAP-[A-Za-z0-9_.-]+(?: \([^()]*\))?$"
    assert "key-format reports" not in " ".join(p.why)
    assert mergedrv(repo, "init").returncode == 0
    assert check(repo).stdout == ""


def test_every_key_matches_and_misfits_are_named(repo):
    table = "| Key | Title |\n|---|---|\n" + "".join(f"| `FEAT-{i}` | t |\n" for i in range(1, 11)) + "| `BUG-1` | t |\n| misc | t |\n"
    commit(repo, {"docs/features.md": "# Features\n\n" + table}, "features")
    [p] = init.propose(repo)[0]
    assert p.key_pattern == "^(?:BUG|FEAT)-[A-Za-z0-9_.-]+$"
    assert "key-format reports misc" in " ".join(p.why)
    proc = mergedrv(repo, "init")
    assert proc.returncode == 0
    assert "mergedrv init: the tree already has 1 finding (not the first commit's to fix; they do not block it):\n  docs/features.md:16: key-format: FEATURES: key misc" in proc.stdout
    assert "# The tree already has 1 finding under this proposal" in (repo / ".mergedrv.toml").read_text()
    found = check(repo).stdout.splitlines()
    assert len(found) == 1 and found[0].startswith("docs/features.md:16: key-format: FEATURES: key misc")


def test_keys_that_are_numbers_names_or_link_text(repo):
    kinds = "# Kinds\n\n| kind | Description |\n|---|---|\n" + "".join(f"| {k} | d{k} |\n" for k in (0, 1, 3, 7, 10002))
    apis = "# APIs\n\n| API | Description | Auth |\n|---|---|---|\n" + "".join(f"| {n} | d | apiKey |\n" for n in ("Cat Facts", "Dogs", "NASA"))
    adrs = "# ADRs\n\n| ADR | Title |\n|---|---|\n" + "".join(f"| [ADR-{i:03}](./adr-{i:03}.md) | t{i} |\n" for i in (1, 2, 21))
    commit(repo, {"kinds.md": kinds, "apis.md": apis, "adr/README.md": adrs}, "three")
    got = {p.path: p for p in init.propose(repo)[0]}
    assert (got["kinds.md"].key, got["kinds.md"].cand.kind, got["kinds.md"].key_pattern) == ("kind", "number", None)
    assert (got["apis.md"].key, got["apis.md"].cand.kind) == ("API", "name")
    assert got["adr/README.md"].kind == "record" and got["adr/README.md"].key_pattern == r"^ADR-[A-Za-z0-9_.-]+$"  # a link cell is keyed by its text (#16)
    text = init.render(*init.propose(repo))
    cfg = config.loads(text)
    assert cfg.logs == []
    commit(repo, {".mergedrv.toml": text}, "config")
    assert check(repo).returncode == 0
    # (the record model keys a link cell by its whole text, so the same ID linked elsewhere is another key)
    commit(repo, {"adr/README.md": adrs + "| [ADR-021](./adr-021.md) | again |\n"}, "two ADR-021")
    assert "keys-unique" in check(repo, "--commit", "HEAD").stdout


def test_name_clashes_get_a_suffix(repo):
    table = "| ID | x |\n|---|---|\n| `RQ-1` | a |\n| `RQ-2` | b |\n"
    commit(repo, {"a.md": table, "b.md": table.replace("RQ-", "RQ-B")}, "two")
    names = [p.name for p in init.propose(repo)[0]]
    assert names == ["RQ", "RQ_2"]
    config.loads(init.render(*init.propose(repo)))


def test_outside_a_repository(tmp_path):
    proc = mergedrv(tmp_path, "init")
    assert proc.returncode == 2 and "not inside a git working tree" in proc.stderr


def test_history_is_read_once_with_renames(repo):
    commit(repo, {"a.md": "x\n"}, "add")
    commit(repo, {"a.md": "x\ny\n"}, "append")
    git(repo, "mv", "a.md", "b.md")
    commit(repo, {}, "rename")
    commit(repo, {"b.md": "z\ny\n"}, "edit")
    hist = inithistory.read(repo)
    inithistory.measure(repo, hist, ["b.md"])
    h = hist.of("b.md")
    assert (h.commits, h.seen, h.appends, h.added) == (3, 2, 1, True)


# --- a generated repository holding every trap ----------------------------------


def _eng(n):
    rows = "".join(f"| `{'KV' if i % 3 == 0 else 'ENG'}-{i}` | item {i} | `{'DONE' if i % 2 else 'READY'}` |\n" for i in range(1, n + 1))
    done = sum(1 for i in range(1, n + 1) if i % 2)
    return (f"# Engine matrix\n\nThere are {n} engine rows tracked here.\n\n## Rollup\n\n| State | Rows |\n|---|---|\n"
            f"| DONE | {done} |\n| READY | {n - done} |\n| **Total** | **{n}** |\n\n## Rows\n\n| ID | Item | State |\n|---|---|---|\n{rows}")


def _models(n):
    rows = "".join(f"| `MODEL-{'TEXT' if i % 2 else 'MM'}-m{i}` | model {i} |\n" for i in range(1, n + 1))
    return f"# Models\n\n| ID | Architecture |\n|---|---|\n{rows}"


def trap_repo(repo, commits=24):
    archive = "# Old matrix\n\n| ID | What |\n|---|---|\n" + "".join(f"| `OLD-{i}` | w |\n" for i in range(1, 6))
    spec = "# Spec\n\n| ID | Requirement |\n|---|---|\n" + "".join(f"| `REQ-{i}` | r |\n" for i in range(1, 4))
    template = "# Row template\n\n| ID | Title |\n|---|---|\n| `<ID>` | <title> |\n| `ROW-1` | example |\n"
    commit(repo, {"archive/old-matrix.md": archive, "docs/spec.md": spec, "templates/row.md": template}, "start")
    for c in range(1, commits + 1):
        files = {
            ".agents/eng.md": _eng(4 + c),
            ".agents/models.md": _models(3 + c // 2),
            "ledger.md": "# Ledger\n\n| Date | What |\n|---|---|\n" + "".join(f"| 2026-01-{d:02} | change {d} |\n" for d in range(1, c + 1)),
            "docs/BENCHMARKS.md": "# Benchmarks\n\n| Model | tok/s | TTFT ms |\n|---|---|---|\n"
            + "".join(f"| m{i} | {100 + c * i} | {20 + c} |\n" for i in range(1, 4)),
            "notes.md": "# Notes\n\nNext up: `ENG-1`, `ENG-2`, then `KV-3` and `ENG-4`.\n",
        }
        if c <= 5:
            files["README.md"] = "# Tool\n\n| Option | Default | Meaning |\n|---|---|---|\n" + "".join(f"| `OPT_{i}` | OFF | o{i} |\n" for i in range(c + 1))
        if c % 6 == 0:
            files["templates/row.md"] = template + f"\nRevised {c}.\n"
        commit(repo, files, f"change {c}")


def test_every_trap(repo):
    trap_repo(repo)
    proc = mergedrv(repo, "init")
    assert proc.returncode == 0, proc.stderr
    cfg = config.load(repo / ".mergedrv.toml")
    assert sorted(r.path for r in cfg.records) == [".agents/eng.md", ".agents/models.md"]  # archive/ stays out
    assert [log.path for log in cfg.logs] == ["ledger.md"]
    eng, models = (cfg.record_for(p) for p in (".agents/eng.md", ".agents/models.md"))
    assert (eng.key_pattern, eng.pin) == ("^(?:ENG|KV)-[A-Za-z0-9_.-]+$", 28)
    assert models.key_pattern == "^MODEL-[A-Za-z0-9_.-]+$"
    assert models.pin is None  # nothing states its count
    assert "archive/old-matrix.md: archived (it sits under the archive folder archive/)" in (repo / ".mergedrv.toml").read_text()
    from mergedrv.propose import history as inithistory

    assert [inithistory.archive_folder(p) for p in (".archive/tags.md", "_archive/7.md", "docs/old/x.md", "docs/olden/x.md")] == [
        ".archive", "_archive", "old", None]  # (cncf/toc, libp2p/specs: a folder named with a prefix)
    assert [(r.group, r.label, r.count) for r in eng.rollups] == [("State", "State", "Rows")]
    assert [c.pattern for c in eng.counts] == [r"(\d+) engine rows tracked"]
    assert eng.ref_files == ["notes.md"]
    text = re.sub(r"\n#\s+", " ", (repo / ".mergedrv.toml").read_text())
    assert "docs/spec.md: written once" in text
    assert "templates/row.md: column 'ID' holds a placeholder" in text
    assert "docs/BENCHMARKS.md: a table with column 'Model' holds measurements" in text
    commit(repo, {}, "config")
    assert check(repo).returncode == 0, check(repo).stdout
    good = (repo / ".agents/eng.md").read_text()
    mutations = {
        "| `MODEL-TEXT-m1` | pasted | `DONE` |\n": "key-format: ENG: key MODEL-TEXT-m1 does not match",
        "| `ENG-99` | new | `DONE` |\n": "ratchet: ENG has 29 keys but its pin is 28",
    }
    for row, finding in mutations.items():
        (repo / ".agents/eng.md").write_text(good + row)
        assert finding in check(repo).stdout
    (repo / ".agents/eng.md").write_text(good.replace("**28**", "**29**"))
    assert "row 'Total' says 29, the rows give 28" in check(repo).stdout
    (repo / ".agents/eng.md").write_text(good.replace("There are 28", "There are 27"))
    assert "count '(\\d+) engine rows tracked' says 27, the rows give 28" in check(repo).stdout
    (repo / ".agents/eng.md").write_text(good)
    (repo / "notes.md").write_text("Next: `ENG-404`.\n")
    assert "notes.md:1: refs: ENG: ENG-404 names no key of any record" in check(repo).stdout
    (repo / "notes.md").write_text("Next: `ENG-1`.\n")
    commit(repo, {"ledger.md": (repo / "ledger.md").read_text().replace("change 3", "changed 3")}, "edit a log row")
    assert "log-append-only" in mergedrv(repo, "check", "--commit", "HEAD").stdout


def test_a_dated_prose_log_is_a_log_and_a_growing_spec_is_not(repo):
    matrix = "# M\n\n| ID | State |\n|---|---|\n" + "".join(f"| `MODEL-{i}` | s |\n" for i in range(1, 9))
    state = "# State log (newest last)\n\n"
    spec = "# Spec\n\n| ID | Requirement |\n|---|---|\n| `S-1` | r |\n| `S-2` | r |\n"
    for d in range(1, 6):
        state += f"- **2026-07-0{d}** — worked on things.\n\n"
        spec += f"\n## Section {d}\n\nMore text.\n"
        if d == 3:  # a small table of matrix rows inside one entry
            state += "| Row | Was | Now |\n|---|---|---|\n| `MODEL-1` | a | b |\n| `MODEL-2` | a | b |\n| `MODEL-3` | a | b |\n\n"
        commit(repo, {"m.md": matrix + "".join(f"| `MODEL-X{k}` | s |\n" for k in range(d)), "state.md": state, "spec.md": spec}, f"day {d}")
    got = {p.path: p for p in init.propose(repo)[0]}
    assert got["state.md"].kind == "log" and "dated entries" in got["state.md"].why[0]
    assert "names keys of m.md" in got["state.md"].why[0]
    assert "spec.md" not in got or got["spec.md"].kind == "record"


def test_a_spec_given_a_few_dated_addenda_and_then_left_is_no_log(repo):
    # vllm.cpp's .agents/specs/rmsnorm-decode-fast-2026-07-16.md: written once, five
    # dated sections appended at its end over a day and a half, then unchanged for 195 commits
    spec = ("# Decode kernel port — 2026-07-16\n\n## Scope\n\nPort the kernel.\n\n| Step | What |\n|---|---|\n"
            "| Port | the kernel as upstream launches it |\n| Gate | the oracle stays token-exact |\n\n## Risks\n\nNumerics.\n")
    notes = "# Notes — 2026-07-16\n\n- **2026-07-16** — started.\n- **2026-07-16** — measured.\n"
    state = "# State log (newest last)\n\n- **2026-07-01** — begun.\n"
    hour = 0

    def at_hour(files, message):
        nonlocal hour
        hour += 8  # the addenda span more than a day: not "written within a day"
        write(repo, files)
        when = {"GIT_AUTHOR_DATE": f"{1_784_000_000 + hour * 3600} +0000", "GIT_COMMITTER_DATE": f"{1_784_000_000 + hour * 3600} +0000"}
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "--no-verify", "-m", message, env=when)

    at_hour({"specs/port-2026-07-16.md": spec, "notes-2026-07-16.md": notes, "state.md": state}, "spec")
    for d in range(1, 6):
        spec += f"\n## 2026-07-1{d} — addendum {d}\n\nThe default flipped, measured again.\n"
        notes += f"- **2026-07-1{d}** — addendum {d}.\n"
        at_hour({"specs/port-2026-07-16.md": spec, "notes-2026-07-16.md": notes}, f"addendum {d}")
    for d in range(2, 28):  # the repository goes on; the state log keeps growing, the spec and the notes do not
        state += f"- **2026-08-{d:02}** — entry {d}.\n"
        at_hour({"state.md": state}, f"day {d}")
    proposals, skipped = init.propose(repo)
    assert [(p.kind, p.path) for p in proposals] == [("log", "state.md")]
    assert "notes-2026-07-16.md: dated prose, but it grew in only 5 changes, the last 26 commits ago: no log" in skipped
    assert [s for s in skipped if s.startswith("specs/port-2026-07-16.md: ")]  # its table's columns: no keys either
    # the same addenda still coming in (the last within 20 commits): a log, as before
    at_hour({"specs/port-2026-07-16.md": spec + "\n## 2026-07-20 — addendum 6\n\nAgain.\n"}, "addendum 6")
    assert ("log", "specs/port-2026-07-16.md") in [(p.kind, p.path) for p in init.propose(repo)[0]]


def test_kind_numbers_with_a_range_row(repo):
    kinds = "# Kinds\n\n| kind | description | NIP |\n|---|---|---|\n" + "".join(
        f"| `{k}` | d{k} | [01](01.md) |\n" for k in (0, 1, 3, 5, 6, 7, 10002)) + "| `1000`-`9999` | regular | [01](01.md) |\n"
    commit(repo, {"README.md": kinds}, "kinds")
    [p] = init.propose(repo)[0]
    assert (p.key, p.cand.kind, p.key_pattern, p.pin) == ("kind", "number", None, None)


def test_retired_keys_and_repeated_group_labels(repo):
    matrix = "# M\n\n| ID | State |\n|---|---|\n" + "".join(f"| `M-{i}` | s |\n" for i in range(1, 6))
    retired = "# Retired keys\n\n| Key | Why |\n|---|---|\n| `M-0` | merged into M-1 |\n| `M-9` | dropped |\n"
    glossary = "# Terms\n\n| Term | Meaning |\n|---|---|\n| **Core** | |\n| alpha | a |\n| beta | b |\n| **Core** | |\n| gamma | c |\n"
    commit(repo, {"m.md": matrix, "retired-keys.md": retired, "terms.md": glossary}, "start")
    proposals, skipped = init.propose(repo)
    p, terms = proposals
    assert (p.path, p.retired) == ("m.md", "retired-keys.md")
    assert "retired-keys.md: a list of retired keys" in skipped
    assert (terms.path, terms.cand.labels) == ("terms.md", 2)  # group rows: proposed (issue 25)
    assert "2 group rows (a name in the first cell only) label the rows below them." in terms.why  # no key repeats
    cfg = config.loads(init.render(proposals, skipped))
    assert cfg.records[0].retired == "retired-keys.md"


def test_families_are_deepened_until_no_pattern_admits_another_records_keys(repo):
    a = "| ID | x |\n|---|---|\n" + "".join(f"| `ENG-{f}-{i}` | a |\n" for f in ("CORE", "KV") for i in range(3))
    b = "| ID | x |\n|---|---|\n" + "".join(f"| `ENG-SERVE-{i}` | b |\n" for i in range(4))
    commit(repo, {"a.md": a, "b.md": b}, "two")
    got = {p.path: p.key_pattern for p in init.propose(repo)[0]}
    assert got == {"a.md": "^(?:ENG-CORE|ENG-KV)-[A-Za-z0-9_.-]+$", "b.md": "^ENG-SERVE-[A-Za-z0-9_.-]+$"}


def test_a_table_only_ever_edited_in_place_is_no_record(repo):
    for n in range(1, 5):
        table = "# Status\n\n| Component | Owner | Note |\n|---|---|---|\n" + "".join(f"| {c} | o{n} | n{n} |\n" for c in ("parser", "merger", "cli"))
        commit(repo, {"status.md": table}, f"edit {n}")
    proposals, skipped = init.propose(repo)
    assert proposals == [] and skipped[0].startswith("status.md: history: rows were never added (none of the 3 changes read added one)")


def test_a_log_whose_last_entry_is_touched_up_is_a_log(repo):
    text = "# State log (append; newest last)\n\n| Date | Gate |\n|---|---|\n| 2026-07-01 | g |\n\n"
    for d in range(2, 7):
        text = text.replace("NEXT: tbd.", "NEXT: done.")  # the previous entry's last line, edited
        text += f"- **2026-07-0{d}** — entry {d}. NEXT: tbd.\n"
        commit(repo, {"state.md": text}, f"day {d}")
    [p] = init.propose(repo)[0]
    assert (p.kind, p.path) == ("log", "state.md")


def test_a_names_table_that_grew_once_is_no_record(repo):
    doc = "# Design\n\n| Component | Role |\n|---|---|\n| parser | p |\n| merger | m |\n"
    commit(repo, {"docs/design.md": doc}, "design")
    commit(repo, {"docs/design.md": doc + "| cli | c |\n"}, "one more")
    commit(repo, {"docs/design.md": doc.replace("| p |", "| parses |") + "| cli | c |\n"}, "wording")
    proposals, skipped = init.propose(repo)
    assert proposals == [] and "holds names, and history shows rows added in only 1 change" in skipped[0]


def test_one_fixed_slip_in_history_is_no_evidence_but_two_are(repo):
    rows = ["| `K-%d` | x |\n" % i for i in range(1, 9)]
    head = "| ID | x |\n|---|---|\n"
    for n, version in enumerate([rows[:3], rows[:3] + [rows[0]], rows[:5], rows[:8]]):
        commit(repo, {"a.md": head + "".join(version)}, f"v{n}")
    [p] = init.propose(repo)[0]
    assert p.key == "ID" and "a value twice at" in p.why[0]
    h = inithistory.FileHistory(samples=[("c0", "a.md"), ("c1", "a.md"), ("c2", "a.md")])
    dup = (head + "".join(rows[:3] + rows[:1])).encode()
    cand = next(c for c in initkeys.candidates(model.parse((repo / "a.md").read_bytes())) if c.name == "id")
    assert init.history_refusal(cand, h, {("c1", "a.md"): dup, ("c2", "a.md"): dup}) == "column 'ID' held a value twice at c1 and c2"


def test_a_count_left_stale_in_history_is_not_proposed(repo):
    def matrix(n, said):
        return f"# M\n\nThere are {said} rows here.\n\n| ID | x |\n|---|---|\n" + "".join(f"| `K-{i}` | x |\n" for i in range(n))
    for n, said in ((5, 5), (6, 6), (7, 7)):
        commit(repo, {"m.md": matrix(n, said)}, f"{n}")
    [p] = init.propose(repo)[0]
    assert [c.pattern for c in p.counts] == [r"(\d+) rows here"]
    assert "pin = 7: line 3 says 7." in " ".join(p.why)
    commit(repo, {"m.md": matrix(8, 7)}, "forgot the count")
    commit(repo, {"m.md": matrix(9, 9)}, "caught up")
    assert init.propose(repo)[0][0].counts == []


def test_descriptions_fixtures_and_copies(repo):
    table = "| check | refuses |\n|---|---|\n"
    rows = ["| keys-unique | a |\n", "| ratchet | b |\n", "| refs | c |\n", "| rollup | d |\n"]
    matrix = "| ID | x |\n|---|---|\n" + "".join(f"| `Q-{i}` | x |\n" for i in range(4))
    for n in range(2, 5):
        commit(repo, {"README.md": "# Tool\n\n" + table + "".join(rows[:n]), "tests/cases/a/Base.md": matrix,
                      "a.md": matrix, "b.md": matrix}, f"v{n}")
    proposals, skipped = init.propose(repo)
    assert [p.path for p in proposals] == ["a.md"]
    assert "README.md: column 'check' holds names, and history shows rows added in only 2 changes" in skipped[0]
    assert "b.md: column 'ID' names keys of a.md: references, not keys" in skipped


def test_backticked_words_are_those_the_plain_reading_of_every_code_span_finds():
    """`_backticked` reads code spans with one regex that fills a group only for a span starting
    with a token; on text mixing backticks, blanks, line endings and near-tokens it finds what
    stripping every span `_SPAN` pairs and testing its start finds."""
    import random

    def plain(data, tokens):
        starts = tuple(t.encode() for t in tokens)
        out = {}
        for path, text in data.items():
            for span in init._SPAN.findall(text):
                word = span.strip()
                if word.startswith(starts):
                    word = word.decode("utf-8", "replace")
                    m = init._TOKEN.match(word)
                    out.setdefault(m.group() if m else word, []).append((path, word))
        return out

    rng = random.Random(7)
    parts = [b"`", b" ", b"\t", b"\n", b"\r", b"\x0b", b"ENG-", b"EN", b"G-", b"AB_", b"x", b"1", b"-", "é".encode()]
    found = 0
    for _ in range(3000):
        data = {f"f{n}.md": b"".join(rng.choice(parts) for _ in range(rng.randint(0, 40))) for n in range(3)}
        tokens = rng.choice([{"ENG-"}, {"ENG-", "AB_"}, {"EN"}, {"E", "ENG-"}])
        want = plain(data, tokens)
        assert init._backticked(data, set(), tokens) == want
        found += sum(map(len, want.values()))
    assert found > 200  # (the text held many spans that start with a token)


def test_placeholder_search_over_a_columns_cores_is_the_match_of_each():
    """`initkeys._placeholder` searches a column's cores joined a line each; it says what matching
    PLACEHOLDER against each core says (an alternative reaching past a line's end would join two)."""
    import random

    rng = random.Random(3)
    parts = ["<", ">", "{", "}", "...", "…", "x", "X", "tbd", "TODO", "n/a", "none", "-", "—", "?", "example",
             "foo", "Bar", "YYYY", "xxx", "nnn", "000x", "a", "ab", "ENG-1", "ENG-2", "Core", " ", "1", "\r", "\t"]
    hits = misses = 0
    for _ in range(20000):
        cores = ["".join(rng.choice(parts) for _ in range(rng.randint(1, 4))) for _ in range(rng.randint(1, 5))]
        want = any(initkeys.PLACEHOLDER.match(c) for c in cores)
        assert initkeys._placeholder(cores) == want, cores
        hits, misses = hits + want, misses + (not want)
    assert hits > 1000 and misses > 1000
    import itertools  # and every core of up to three characters of the alphabet its alternatives open with

    alphabet = "<>{}.…xXtTbdoOnN/aAemplfr-—–?yY0 ŉ"
    for size in (1, 2, 3):
        for chars in itertools.product(alphabet, repeat=size):
            core = "".join(chars)
            assert initkeys._placeholder([core]) == bool(initkeys.PLACEHOLDER.match(core)), core


TOPICS = ["[Iterator Sequencing](https://example.org/seq) for Stage 4 ([slides](https://example.org/s1))",
          "[JSON.parse source text access](https://example.org/json) for Stage 4 ([PR](https://example.org/p1))",
          "[Temporal](https://example.org/temporal) status report and normative PR ([slides](https://example.org/s2))",
          "[Joint Iteration](https://example.org/joint) for Stage 3 ([tests PR](https://example.org/t1))",
          "[Intl Locale Info API](https://example.org/locale) for Stage 4 ([slides](https://example.org/s3))",
          "Module-declarations-like proposals in other areas of the web platform (low priority, push if needed)"]


def _meeting(topics: list[str]) -> str:
    """An agenda as standards committees keep one: a static legend, then tables
    of topics inside list items, a timebox and a stage before each topic."""
    legend = "| Emoji | Meaning |\n| :---: | :--- |\n| 🔒 | schedule constraints apply to this agenda item |\n| 🔁 | continuation of a previous item |\n"
    rows = "".join(f"    | {n % 3} | {15 * (n % 4 + 1)}m | {t} | Person {n} |\n" for n, t in enumerate(topics))
    return (f"# Meeting\n\n## Agenda key\n\n{legend}\n## Agenda items\n\n1. Opening (Chair, 10m)\n1. Proposals\n\n"
            f"    | stage | timebox | topic | presenter |\n    |:-----:|:-------:|-------|-----------|\n{rows}\n1. Adjournment\n")


def _agenda_history(repo, authors: list[str]):
    for n, who in enumerate(authors):
        write(repo, {"meetings/11.md": _meeting(TOPICS[::-1][: n + 2][::-1])})  # each new topic above the others
        git(repo, "add", "-A")
        git(repo, "commit", "-qm", f"add topic {n}", env={"GIT_AUTHOR_NAME": who, "GIT_AUTHOR_EMAIL": f"{who}@example.org"})


def test_unique_topics_that_many_people_add_are_the_key_not_the_static_legend(repo):
    _agenda_history(repo, ["ann", "bo", "cy", "di"])
    proposals, skipped = init.propose(repo)
    (p,) = [p for p in proposals if p.path == "meetings/11.md"]
    assert (p.kind, p.key) == ("record", "topic")  # the legend's Emoji rows never grew
    assert "unique titles" in p.why[0]
    cfg = mergedrv(repo, "init")
    assert cfg.returncode == 0, cfg.stderr


def test_unique_topics_one_person_wrote_are_no_key(repo):
    _agenda_history(repo, ["ann"] * 4)
    proposals, skipped = init.propose(repo)
    assert not [p for p in proposals if p.path == "meetings/11.md"]
    assert any("'topic' holds titles, and the 3 changes that added rows are by 1 author" in s for s in skipped), skipped


def test_a_benchmark_table_after_its_key_is_measurements_a_stage_before_it_is_not():
    bench = model.parse(b"| Model | Backend | tok/s | TTFT ms |\n|---|---|---|---|\n" + b"".join(b"| m%d | cuda | %d.5 | %d |\n" % (i, 100 + i, 20 + i) for i in range(4)))
    assert "measurements" in initkeys.column_of(bench, "model").refused
    agenda = model.parse(_meeting(TOPICS).encode())
    assert initkeys.column_of(agenda, "topic").refused == ""
    assert initkeys.column_of(agenda, "topic").kind == "title"


def _by_category(step: int) -> str:
    """A list of APIs by category (awesome-list style); `Cat Facts` is listed under two."""
    cats = {"Animals": ["Cat Facts", "Dogs", "Axolotl", "Birds"], "Science": ["Numbers", "Arxiv", "Cat Facts", "NASA"],
            "Games": ["Chess", "Steam", "Pokemon", "Dice"]}
    out = "# Public APIs\n"
    for title, names in cats.items():
        rows = "".join(f"| [{n}](https://example.org/{n.replace(' ', '-')}) | about {n} | No |\n" for n in names[: step + 1])
        out += f"\n### {title}\n\n| API | Description | Auth |\n|---|---|---|\n{rows}"
    return out + "\n## License\n\nCC0\n"


def test_a_list_by_category_with_an_entry_under_two_is_keyed_per_table(repo):
    for step, who in enumerate(["ann", "bo", "cy", "di"]):
        write(repo, {"README.md": _by_category(step)})
        git(repo, "add", "-A")
        git(repo, "commit", "-qm", f"add APIs {step}", env={"GIT_AUTHOR_NAME": who, "GIT_AUTHOR_EMAIL": f"{who}@example.org"})
    proposals, skipped = init.propose(repo)
    (p,) = [p for p in proposals if p.path == "README.md"]
    assert (p.key, p.scope, p.pin) == ("API", "table", None), skipped
    proc = mergedrv(repo, "init")
    assert proc.returncode == 0, proc.stderr
    assert config.load(repo / ".mergedrv.toml").record_for("README.md").per_table()
    assert check(repo).returncode == 0  # Cat Facts in two tables is no finding


def test_a_logs_reason_counts_in_words_that_agree() -> None:
    from mergedrv.propose import choose
    from mergedrv.propose.history import FileHistory

    h = FileHistory(commits=20, seen=20, appends=20, entries=19, row_adds=1, added=False, last_index=0)
    assert "(1 row, 19 dated entries)" in choose.log_evidence(h)
    h.row_adds, h.entries = 19, 1
    assert "(19 rows, 1 dated entry)" in choose.log_evidence(h)

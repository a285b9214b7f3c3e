"""`mergedrv init` proposes each shape of a real record set when it finds it
(issue #12 item 6, issue #14): a second key column, detached rows, a section
grid, a prose log, and prose counts whose words wrap onto the next line.
Each proposal is run through `mergedrv check` on the unedited tree, then a
mutation it exists to catch must be reported."""

from __future__ import annotations

import re

from mergedrv import config, model
from mergedrv.commands import init
from mergedrv.propose import choose, history as inithistory

from tests.helpers import DATA, git
from tests.install_helpers import commit, mergedrv


ROAD = ".agents/roadmap_v1.md"
COORD = ".agents/coordination.md"


def check(repo, *args):
    return mergedrv(repo, "check", "--only", ",".join(init.CHECKED), *args)


def proposed(repo):
    proc = mergedrv(repo, "init")
    assert proc.returncode == 0, proc.stderr
    git(repo, "add", ".mergedrv.toml")
    git(repo, "commit", "-qm", "config")
    return config.load(repo / ".mergedrv.toml"), re.sub(r"\n#\s+", " ", (repo / ".mergedrv.toml").read_text())


# --- a prose count wrapped across lines (#14) -------------------------------------


def _tracker(n_ready: int, n_done: int, prose: str) -> str:
    rows = "".join(f"| `TRK-{i}` | item {i} | `{'READY' if i <= n_ready else 'DONE'}` |\n" for i in range(1, n_ready + n_done + 1))
    return f"# Tracker\n\n{prose}\n\n| ID | Item | State |\n|---|---|---|\n{rows}"


WRAPPED = ("Every item of the project is listed below: all {total}\nentries are tracked here, and `READY` holds {ready}\n"
           "of them so far; the others are done.")


def test_a_count_whose_words_wrap_onto_the_next_line(repo):
    for ready, done in ((10, 2), (11, 3), (12, 3)):
        commit(repo, {"tracker.md": _tracker(ready, done, WRAPPED.format(total=ready + done, ready=ready))}, f"{ready}")
    cfg, text = proposed(repo)
    rec = cfg.record_for("tracker.md")
    assert [(c.pattern, c.where) for c in rec.counts] == [
        (r"(\d+)\s+entries\s+are\s+tracked", {}),
        (r"(\d+)\s+of\s+them\s+so", {"State": ["READY"]}),
    ]
    assert "line 3 says 15: the number of all rows" in text
    assert check(repo).returncode == 0, check(repo).stdout
    good = (repo / "tracker.md").read_text()
    # re-wrapped: the patterns still match
    (repo / "tracker.md").write_text(good.replace("all 15\nentries are tracked here", "all 15 entries\nare tracked here"))
    assert check(repo).returncode == 0, check(repo).stdout
    (repo / "tracker.md").write_text(good.replace("all 15\n", "all 16\n"))
    assert "count '(\\d+)\\s+entries\\s+are\\s+tracked' says 16, the rows give 15" in check(repo).stdout
    (repo / "tracker.md").write_text(good.replace("holds 12\n", "holds 11\n"))
    assert "says 11, the rows give 12" in check(repo).stdout



def test_a_sentence_ending_in_the_rows_it_counts_is_a_count_and_a_pin(repo):
    """`The tracker holds 11 rows.`: one word after the number, ending the
    sentence, is a count of every row (and so the pin's evidence)."""
    for ready, done in ((7, 2), (8, 2), (8, 3)):
        commit(repo, {"tracker.md": _tracker(ready, done, f"The tracker holds {ready + done} rows.")}, f"{ready + done}")
    cfg, text = proposed(repo)
    rec = cfg.record_for("tracker.md")
    assert [(c.pattern, c.where) for c in rec.counts] == [(r"(\d+) rows", {})], text
    assert rec.pin == 11, text
    assert check(repo).returncode == 0, check(repo).stdout
    (repo / "tracker.md").write_text((repo / "tracker.md").read_text().replace("holds 11 rows.", "holds 12 rows."))
    assert "count '(\\d+) rows' says 12, the rows give 11" in check(repo).stdout

# --- a second key column, detached rows (#12 items 1, 2) ----------------------------


def _without(data: bytes, *starts: bytes) -> bytes:
    return b"\n".join(line for line in data.split(b"\n") if not line.startswith(starts))


def two_columns_repo(repo):
    """The real roadmap and coordination records, committed as they grew: a
    track, a portfolio block, a claim and a handoff added in the second commit."""
    road = (DATA / "roadmap_v1.d85906ae.md").read_bytes()
    coord = (DATA / "coordination.d85906ae.md").read_bytes()
    (repo / ".agents").mkdir()
    for files in ({ROAD: _without(road, b"| C9 |", b"| D5 |", b"| 14 | `ROAD-V1-D5`"),
                   COORD: _without(coord, b"| 11 | ", b"| `CLAIM-SPEC-REJECTION-I3`")}, {ROAD: road, COORD: coord}):
        for path, data in files.items():
            (repo / path).write_bytes(data)
        git(repo, "add", "-A")
        git(repo, "commit", "-qm", "grew")


def _mutate(path, old: str, new: str) -> str:
    good = path.read_text()
    assert old in good
    path.write_text(good.replace(old, new, 1))
    return good


def test_a_second_key_column_and_detached_rows_on_the_real_records(repo):
    two_columns_repo(repo)
    cfg, text = proposed(repo)
    road, claims = cfg.record_for(ROAD), cfg.record_for(COORD)
    assert (road.key, road.key_pattern, road.pin) == (("Block", "#"), (("Block", "^ROAD-V1-[A-Za-z0-9_.-]+$"),), None)
    assert (claims.key, claims.key_pattern, claims.pin) == (("Claim", "Priority"), (("Claim", "^CLAIM-[A-Za-z0-9_.-]+$"),), None)
    assert claims.detached_rows == "report"
    assert "Second key column '#': 20 rows of the tables without 'Block' (unique names" in text
    assert "Second key column 'Priority': 11 rows of the tables without 'Claim'" in text
    assert "detached_rows: 27 rows sit below their table past blank lines or prose (lines 332, 346, 451, 455)" in text
    said = mergedrv(repo, "init", "--print").stderr
    # the roadmap cites closed claims: it is left out of ref_files, so day one has no refs finding (issue 25)
    assert "mergedrv init: the tree already has 27 findings (not the first commit's to fix; they do not block it):\n  " in said
    assert ".agents/roadmap_v1.md" not in claims.ref_files and "Not in ref_files: 1 file cites" in text
    # documentation tables beside them stay prose: not named like a key, or no row added
    doc = model.parse((repo / COORD).read_bytes(), claims.key, key_pattern=claims.key_pattern)
    assert sorted({t.key_name for t in doc.keyed_tables()}) == ["Claim", "Priority"]
    code = check(repo)
    assert code.returncode == 0, code.stdout  # the tree's findings are inherited: listed, not blocking
    found = check(repo, "--all").stdout.splitlines()
    assert sum(": detached-row: CLAIM: " in f for f in found) == 27
    assert all(": detached-row: " in f for f in found), found
    # a track pasted into another `#` table: the `#` namespace holds it twice
    c5 = next(line for line in (repo / ROAD).read_text().splitlines() if line.startswith("| C5 |"))
    good = _mutate(repo / ROAD, "| D3 |", c5 + "\n| D3 |")
    assert "keys-unique: ROAD: key C5 is defined twice" in check(repo).stdout
    (repo / ROAD).write_text(good)
    # the same value in the two namespaces is two keys
    _mutate(repo / ROAD, "| D3 |", "| ROAD-V1-D3 | again | x |\n| D3 |")
    assert check(repo).returncode == 0, check(repo).stdout
    (repo / ROAD).write_text(good)
    # a handoff priority given twice
    good = _mutate(repo / COORD, "| 3 | `SERVE-E2E-NIGHTLY`", "| 2 | `SERVE-E2E-NIGHTLY`")
    assert "keys-unique: CLAIM: key 2 is defined twice" in check(repo).stdout
    (repo / COORD).write_text(good)
    # a claim added below the table, past a blank line: a new detached row (no pin: the board states no count)
    last = next(line for line in good.splitlines() if line.startswith("| `CLAIM-SPEC-REJECTION-I3`"))
    _mutate(repo / COORD, "\n## Handoff queue", "\n" + last.replace("CLAIM-SPEC-REJECTION-I3", "CLAIM-NEW-1") + "\n\n## Handoff queue")
    out = check(repo).stdout
    assert "detached-row: CLAIM: CLAIM-NEW-1 is a row of the table at line 287" in out
    assert "ratchet:" not in out
    (repo / COORD).write_text(good)
    # a detached claim's key given again in the table
    detached = next(line for line in good.splitlines()[340:] if line.startswith("| `CLAIM-"))
    _mutate(repo / COORD, last, last + "\n" + detached)
    assert "keys-unique: CLAIM: key " in check(repo).stdout


def test_a_second_column_no_history_shows_growing_stays_prose(repo):
    table = "| ID | x |\n|---|---|\n" + "".join(f"| `K-{i}` | x |\n" for i in range(1, 6))
    glossary = "\n## Terms\n\n| Name | Meaning |\n|---|---|\n| alpha | a |\n| beta | b |\n| gamma | c |\n"
    commit(repo, {"k.md": table + glossary}, "one")
    commit(repo, {"k.md": table + "| `K-6` | x |\n" + glossary}, "two")
    [p] = init.propose(repo)[0]
    assert (p.key_spec(), p.more) == ("ID", [])
    commit(repo, {"k.md": table + "| `K-6` | x |\n" + glossary + "| delta | d |\n"}, "three")
    [p] = init.propose(repo)[0]
    assert p.key_spec() == ("ID", "Name")


# --- a section grid (#12 item 3) ---------------------------------------------------


ENGINE = ".agents/engine-matrix.md"


def test_the_real_engine_matrix_gets_its_section_grid(repo):
    (repo / ".agents").mkdir()
    (repo / ENGINE).write_bytes((DATA / "engine-matrix.2c0c076e.md").read_bytes())
    commit(repo, {}, "engine matrix")
    cfg, text = proposed(repo)
    [grid] = cfg.record_for(ENGINE).grids
    assert (grid.column, grid.label, grid.rows, grid.total, grid.heading) == ("State", "Area", "Rows", "Total", None)
    assert grid.labels == {
        "Engine core and scheduling": "Engine and scheduling",
        "Parallelism and scale-out": "Parallelism",
        "Sampling and generation controls": "Sampling and generation",
        "Structured outputs and tool calling": "Structured output and tools",
        "Serving surface, CLI, and library": "Serving, API, CLI, library",
        "Long context and attention breadth": "Long context and attention",
        "Loading, tokenizer, and config": "Loading, tokenizer, config",
    }
    assert "has a row for each of the 10 sections (7 by a shortened heading, in `labels`)" in text
    assert "97 of its 99 cells agree with the rows; 2 cells disagree (line 41: 'KV cache and memory' column 'ACTIVE' says 2" in text
    # the one stale row is the tree's real problem, listed and inherited
    assert check(repo).returncode == 0
    found = [f for f in check(repo, "--all").stdout.splitlines() if ": rollup: " in f]
    assert [f.split(": rollup: ")[0] for f in found] == [f"{ENGINE}:41", f"{ENGINE}:41"]
    good = _mutate(repo / ENGINE, "| Parallelism | 6 |", "| Parallelism | 7 |")
    assert "grid 'State' row 'Parallelism' column 'Rows' says 7, the rows give 6" in check(repo).stdout
    (repo / ENGINE).write_text(good)
    # a row of the Parallelism section moved from INVENTORIED to READY: its grid row is now stale
    par = good.index("## Parallelism and scale-out")
    row_at = good.index("`INVENTORIED`", par)
    (repo / ENGINE).write_text(good[:row_at] + "`READY`" + good[row_at + len("`INVENTORIED`"):])
    out = check(repo).stdout
    assert "grid 'State' row 'Parallelism' column 'READY' says 1, the rows give 2" in out
    assert "grid 'State' row 'Total' column 'INVENTORIED' says 52, the rows give 51" in out
    assert mergedrv(repo, "fix").returncode == 0
    assert check(repo).returncode == 0


def _sections(states: dict[str, list[str]], grid: str, prefix: str = "W") -> str:
    out = "# Work\n\n" + grid + "\n"
    n = 0
    for heading, rows in states.items():
        out += f"\n## {heading}\n\n| ID | What | Status |\n|---|---|---|\n"
        for state in rows:
            n += 1
            out += f"| `{prefix}-{n}` | item {n} | {state} |\n"
    return out


def test_a_grid_whose_labels_are_the_headings_and_a_look_alike_that_is_none(repo):
    states = {"Parser": ["open", "open", "done"], "Merger": ["done", "open"], "Command line": ["open", "done", "done", "done"]}
    grid = ("| Section | Rows | open | done |\n|---|---|---|---|\n| Parser | 3 | 2 | 1 |\n| Merger | 2 | 1 | 1 |\n"
            "| Command line | 4 | 1 | 3 |\n| **Total** | **9** | **4** | **5** |\n")
    bench = "\n## Speed\n\n| Machine | Runs | open | done |\n|---|---|---|---|\n| laptop | 3 | 2 | 1 |\n| server | 2 | 1 | 1 |\n| ci | 4 | 1 | 3 |\n"
    commit(repo, {"work.md": _sections(states, grid), "other.md": _sections(states, bench.lstrip("\n"), "X")}, "work")
    got = {p.path: p for p in init.propose(repo)[0]}
    [g] = got["work.md"].grids
    assert (g.column, g.label, g.rows, g.total, g.labels) == ("Status", "Section", "Rows", "Total", {})
    assert got["other.md"].grids == []  # its labels name no section
    commit(repo, {".mergedrv.toml": init.render(*init.propose(repo))}, "config")
    assert check(repo).returncode == 0, check(repo).stdout
    _mutate(repo / "work.md", "| Merger | 2 | 1 | 1 |", "| Merger | 2 | 2 | 0 |")
    assert "grid 'Status' row 'Merger' column 'open' says 2, the rows give 1" in check(repo).stdout


# --- a prose log (#12 item 4) -------------------------------------------------------


STATE = ".agents/state.md"


def state_in_steps(repo, cuts=(11, 18, 23, 33, 40, 49, 60, 75)):
    """The real state log's dated bullets (no table yet), committed as they were appended."""
    lines = (DATA / "state.trimmed.d85906ae.md").read_bytes().splitlines(keepends=True)
    (repo / ".agents").mkdir(exist_ok=True)
    for n, end in enumerate(cuts):
        (repo / STATE).write_bytes(b"".join(lines[:end]))
        git(repo, "add", "-A")
        git(repo, "commit", "-qm", f"state {n}")
    return lines


def test_a_prose_log_of_dated_entries_is_a_log(repo):
    lines = state_in_steps(repo)
    cfg, text = proposed(repo)
    assert [log.path for log in cfg.logs] == [STATE] and cfg.records == []
    assert f"{STATE}: a prose log (no table): 7 of 7 changes read only appended at its end (0 rows, 7 dated entries); none touched a line above it" in text
    assert mergedrv(repo, "check").returncode == 0
    # an entry edited above the tail
    _mutate(repo / STATE, "Project kicked off.", "Project started.")
    git(repo, "commit", "-qam", "reworded the first entry")
    out = mergedrv(repo, "check", "--commit", "HEAD").stdout
    assert f"{STATE}:3: log-append-only: line 3 of the log was changed" in out
    git(repo, "reset", "-q", "--hard", "HEAD~1")
    # an entry appended at the end passes
    (repo / STATE).write_bytes((repo / STATE).read_bytes() + b"- **2026-07-04** \xe2\x80\x94 next entry.\n")
    git(repo, "commit", "-qam", "appended")
    assert mergedrv(repo, "check", "--commit", "HEAD").returncode == 0
    # later entries hold sections with tables of their own: still a log
    (repo / STATE).write_bytes(b"".join(lines))
    git(repo, "commit", "-qam", "sections with tables")
    [p] = init.propose(repo)[0]
    assert p.kind == "log" and p.why[0].startswith(f"{STATE}: a prose log (prose after its tables): 9 of 9 changes read")


def test_dated_prose_edited_in_the_middle_is_no_log(repo):
    entries = [f"- **2026-07-0{d}** — entry {d}.\n" for d in range(1, 8)]
    for n in range(3, 8):
        body = "".join(entries[:n])
        if n % 2:  # an entry inserted at the top, an old one reworded
            body = entries[n - 1] + "".join(entries[: n - 1]).replace("entry 1.", f"entry 1, reworded {n}.")
        commit(repo, {"notes/journal.md": "# Journal\n\n" + body}, f"v{n}")
    proposals, skipped = init.propose(repo)
    assert proposals == []
    assert "notes/journal.md: dated prose, but 2 of the 4 changes read appended at its end, 2 of them dated entries: no log" in skipped


def test_the_real_matrix_count_whose_filter_value_is_on_the_line_above(repo):
    # "36 are past `INVENTORIED`\n(engaged), the remaining 290 are known-but-not-started"
    (repo / "m.md").write_bytes((DATA / "model-matrix.f887c34c.md").read_bytes())
    commit(repo, {}, "matrix")
    cfg, text = proposed(repo)
    counts = {c.pattern: c.where for c in cfg.record_for("m.md").counts}
    assert counts[r"(\d+) are known-but-not-started long"] == {"State": ["INVENTORIED"]}
    assert "line 20 says 290: the number of rows whose State is INVENTORIED" in text
    assert check(repo).returncode == 0, check(repo).stdout
    _mutate(repo / "m.md", "the remaining 290 are", "the remaining 291 are")
    assert "count '(\\d+) are known-but-not-started long' says 291, the rows give 290" in check(repo).stdout


def test_detached_rows_of_a_generated_table_and_reattaching_them(repo):
    head = "# Tasks\n\n| ID | Task | Owner |\n|---|---|---|\n" + "".join(f"| `T-{i}` | task {i} | a |\n" for i in range(1, 6))
    tail = "\nAdded later:\n\n| `T-6` | task 6 | b |\n| `T-7` | task 7 | b |\n"
    commit(repo, {"tasks.md": head}, "tasks")
    commit(repo, {"tasks.md": head + tail}, "two more, below")
    cfg, text = proposed(repo)
    rec = cfg.record_for("tasks.md")
    assert (rec.pin, rec.detached_rows) == (None, "report")
    assert "detached_rows: 2 rows sit below their table past blank lines or prose (lines 13)" in text
    found = check(repo, "--all").stdout.splitlines()
    assert [f.split(": detached-row: ")[0] for f in found] == ["tasks.md:13", "tasks.md:14"], found
    (repo / "tasks.md").write_text(head + tail.replace("\nAdded later:\n\n", "").lstrip("\n"))  # moved up into the table
    assert check(repo, "--all").returncode == 0


def test_a_second_column_of_group_labels_stays_prose(repo):
    table = "| ID | x |\n|---|---|\n" + "".join(f"| `K-{i}` | x |\n" for i in range(1, 4))
    terms = ["| **Core** | |\n", "| alpha | a |\n", "| beta | b |\n", "| **Extra** | |\n", "| gamma | c |\n"]
    for n in (3, 5):
        commit(repo, {"k.md": table + "\n## Terms\n\n| Name | Meaning |\n|---|---|\n" + "".join(terms[:n])}, f"{n}")
    [p] = init.propose(repo)[0]
    assert p.more == []
    notes = choose._more_keys(p, model.parse((repo / "k.md").read_bytes()), inithistory.FileHistory(), {})
    assert "column 'Name' holds group labels (`| **Core** | | |`), which it would read as keys" in notes


# --- the tables people merge (issue 25 item 2) ---------------------------------------


def _as(repo, who: str, message: str, files: dict[str, str]) -> None:
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--no-verify", "-m", message, env=_author(who))


def _author(who: str) -> dict:
    return {"GIT_AUTHOR_NAME": who, "GIT_AUTHOR_EMAIL": f"{who}@example.com", "GIT_COMMITTER_NAME": who, "GIT_COMMITTER_EMAIL": f"{who}@example.com"}


def _table(head: str, rows: list[str]) -> str:
    cols = head.count("|") - 1
    return f"{head}\n|{'---|' * cols}\n" + "".join(r + "\n" for r in rows)


def merged_rounds(repo, path: str, render, rows: list, rounds: int, topic, main, branch: str = "topic") -> list:
    """``rounds`` merges of a topic branch into main, each side changing rows of ``path`` far apart:
    ``topic(rows, i)`` and ``main(rows, i)`` return the rows after that side's change."""
    for i in range(rounds):
        git(repo, "checkout", "-q", "-b", f"{branch}-{i}")
        theirs = topic(list(rows), i)
        _as(repo, f"t{i % 4}", f"topic {i}", {path: render(theirs)})
        git(repo, "checkout", "-q", "main")
        ours = main(list(rows), i)
        _as(repo, f"m{i % 3}", f"main {i}", {path: render(ours)})
        git(repo, "merge", "-q", "--no-ff", "--no-edit", f"{branch}-{i}", env=_author("m"))
        lines = (repo / path).read_text().splitlines()
        delim = max(n for n, line in enumerate(lines) if line.startswith("|---"))
        rows = [line for line in lines[delim + 1:] if line.startswith("| ")]  # the last table's rows
    return rows


def _edit(rows: list, at: int, i, mark: str = "v") -> list:
    cells = rows[at].split(" | ")
    cells[-1] = f"{mark}{i} |"
    rows[at] = " | ".join(cells)
    return rows


LANGS = [f"Lang{chr(65 + i // 26)}{chr(97 + i % 26)}" for i in range(259)]


def test_the_tables_people_merge_are_proposed_and_the_rest_left_out(repo):
    """A plugin table of unique language names (no PREFIX- IDs) that merges grow, a
    README exercise table only ever edited but merged each time, a static table beside
    the plugins, and a maintained design table nobody merges: init proposes the first
    two, keyed by the column whose rows the merges touched, with no pin."""
    maint = ["| alice | lead |", "| bob | review |"]
    readme = lambda rows: "# Plugins\n\n## Maintainers\n\n" + _table("| Name | Role |", maint) + "\n## Plugins\n\n" + _table(
        "| Language | Plugin | Notes |", rows)
    plugins = [f"| {lang} | plugin-{lang.lower()} | v0 |" for lang in LANGS[:240]]
    exercises = lambda rows: "# Exercises\n\n" + _table("| Exercise | Difficulty | Status |", rows)
    ex = [f"| ex-{n:02} | easy | v0 |" for n in range(27)]
    design = "# Design\n\n" + _table("| Component | Role |", ["| parser | p |", "| merger | m |"])
    _as(repo, "a", "start", {"README.md": readme(plugins), "exercises/README.md": exercises(ex), "docs/design.md": design})
    grow = lambda rows, i: rows[:-1] + [f"| {LANGS[240 + i]} | plugin-new | v0 |", rows[-1]]
    rows = merged_rounds(repo, "README.md", readme, plugins, 6, grow, lambda rows, i: _edit(rows, 5 + i, i, "m"))
    assert len(rows) == 246
    merged_rounds(repo, "exercises/README.md", exercises, ex, 4, lambda rows, i: _edit(rows, 1 + i, i, "t"), lambda rows, i: _edit(rows, 20 + i, i, "m"), "ex")
    for i in range(22):  # the last changes only edit rows in place
        ex[10] = f"| ex-10 | easy | w{i} |"
        _as(repo, "a", f"status {i}", {"exercises/README.md": exercises([line for line in ex])})
    _as(repo, "a", "design", {"docs/design.md": design + "| cli | c |\n"})
    cfg, text = proposed(repo)
    plug, exe = cfg.record_for("README.md"), cfg.record_for("exercises/README.md")
    assert plug and exe, text
    assert (plug.key, plug.key_pattern, plug.pin) == ("Language", None, None)
    assert "README.md: 246 rows keyed by 'Language' (unique names; 6 merges joined changes to its rows" in text
    assert "add `pin = 246` to ratchet it" in text
    assert (exe.key, exe.pin) == ("Exercise", None)
    assert "4 merges joined changes to its rows" in text
    assert cfg.record_for("docs/design.md") is None
    assert "docs/design.md: column 'Component' holds names, and history shows rows added" in text
    assert "docs/design.md: column 'Component' holds names, and history shows rows added in only 1 change" in init.propose(repo)[1][0]
    assert check(repo, "--all").returncode == 0, check(repo, "--all").stdout
    (repo / "README.md").write_text(readme(rows + [rows[0]]))
    assert f"keys-unique: README: key {LANGS[0]} is defined twice" in check(repo).stdout


def test_a_duplicate_a_repeated_language_and_group_rows_keep_their_tables(repo):
    tasks = [f"| task {n} | owner{n % 3} | open |" for n in range(12)] + ["| task 3 | owner9 | done |"]
    servers = [f"| {lang} | {lang.lower()}-ls | v0 |" for lang in ("Go", "Python", "Rust", "Zig", "C")] + ["| Python | pyright | v0 |"]
    groups = {"Core": ["parse", "merge", "check"], "Extensions": ["parse", "render"], "Experimental": ["merge", "fuzz"]}
    matrix = lambda st: "# Compliance\n\n" + _table("| Feature | Status |", [line for g, fs in groups.items() for line in
                                                                               [f"| **{g}** | |"] + [f"| {f} | {st.get((g, f), 'ok')} |" for f in fs]])
    _as(repo, "a", "start", {"tasks.md": "# Tasks\n\n" + _table("| Task | Owner | State |", tasks),
                             "servers.md": "# Servers\n\n" + _table("| Language | Server | Version |", servers), "compliance.md": matrix({})})
    for i in range(3):
        git(repo, "checkout", "-q", "-b", f"t{i}")
        before = {("Core", "parse"): f"t{i - 1}" if i else "ok", ("Experimental", "fuzz"): f"m{i - 1}" if i else "ok"}
        _as(repo, "b", f"topic {i}", {"compliance.md": matrix({**before, ("Core", "parse"): f"t{i}"}),
                                      "tasks.md": "# Tasks\n\n" + _table("| Task | Owner | State |", tasks[:-1] + [f"| task {20 + i} | b | open |", tasks[-1]]),
                                      "servers.md": "# Servers\n\n" + _table("| Language | Server | Version |", [f"| Go | gopls | t{i} |"] + servers[1:])})
        git(repo, "checkout", "-q", "main")
        _as(repo, "c", f"main {i}", {"compliance.md": matrix({**before, ("Experimental", "fuzz"): f"m{i}"}),
                                     "tasks.md": "# Tasks\n\n" + _table("| Task | Owner | State |", [f"| task 0 | c{i} | open |"] + tasks[1:]),
                                     "servers.md": "# Servers\n\n" + _table("| Language | Server | Version |", servers[:-1] + [f"| Python | pyright | m{i} |"])})
        git(repo, "merge", "-q", "--no-ff", "--no-edit", f"t{i}", env=_author("m"))
        tasks = [line for line in (repo / "tasks.md").read_text().splitlines() if line.startswith("| task")]
        servers = [line for line in (repo / "servers.md").read_text().splitlines() if line.startswith("| ") and "Language" not in line and "---" not in line]
    proposals, skipped = init.propose(repo)
    got = {p.path: p for p in proposals}
    assert set(got) == {"tasks.md", "servers.md", "compliance.md"}, skipped
    assert (got["tasks.md"].key, got["tasks.md"].cand.dup) == ("Task", "task 3")
    assert "Finding: 'task 3' is in two rows; keys-unique reports it" in " ".join(got["tasks.md"].why)
    assert (got["servers.md"].key, got["servers.md"].cand.dup) == ("Language", "Python")
    comp = got["compliance.md"]
    assert (comp.key, comp.cand.labels) == ("Feature", 3)
    assert ("3 group rows (a name in the first cell only) label the rows below them; 2 keys repeat across groups ('merge' …),"
            " which keys-unique reports while the record model reads no groups.") in comp.why


def test_id_keys_on_a_small_board_beat_its_section_column(repo):
    """At an older vllm.cpp commit the claims board had two rows: the `CLAIM-` IDs are the key."""
    board = "# Coordination\n\n" + _table("| Section | Claim | Owner |", ["| Serving | `CLAIM-SERVE-1` | a |", "| Kernels | `CLAIM-KERNEL-2` | b |"])
    _as(repo, "a", "board", {"coordination.md": board})
    _as(repo, "a", "owner", {"coordination.md": board.replace("| b |", "| c |")})
    [p] = init.propose(repo)[0]
    assert (p.key, p.key_pattern) == ("Claim", "^CLAIM-[A-Za-z0-9_.-]+$")


def test_a_pin_only_where_a_checker_states_the_count(repo):
    rows = [f"| `SPEC-{i}` | s |" for i in range(1, 6)]
    checker = "EXPECTED = {\n    'specs': ('docs/specs.md', 5),\n}\nOTHER_ROWS = 5\n"
    _as(repo, "a", "start", {"specs.md": _table("| ID | What |", rows[:3]), "other.md": _table("| ID | What |", [r.replace("SPEC", "OTH") for r in rows])})
    _as(repo, "a", "more", {"specs.md": _table("| ID | What |", rows), "scripts/check-records.py": checker})
    got = {p.path: p for p in init.propose(repo)[0]}
    assert got["specs.md"].pin == 5 and "pin = 5: scripts/check-records.py:2 expects 5." in " ".join(got["specs.md"].why)
    assert got["other.md"].pin == 5 and "scripts/check-records.py:4 expects 5" in " ".join(got["other.md"].why)
    (repo / "scripts/check-records.py").write_text("print('no count here')\n")
    got = {p.path: p for p in init.propose(repo)[0]}
    assert got["specs.md"].pin is None and "add `pin = 5`" in " ".join(got["specs.md"].why)


def test_a_checkers_constant_is_proposed_as_a_count_of_its_file(repo):
    """The line a checker states the count on becomes a `[[record.count]]`
    of its file (its text, the number a group); `fix` then keeps it in step.
    A pattern that would match another line too is left to the pin's comment."""
    rows = [f"| `SPEC-{i}` | s |" for i in range(1, 6)]
    checker = ("EXPECTED = {\n    'specs':  ('docs/specs.md', 5),\n}\nOTHER_ROWS = 5\nprint('OTHER_ROWS = 5')\n")
    _as(repo, "a", "start", {"specs.md": _table("| ID | What |", rows), "other.md": _table("| ID | What |", [r.replace("SPEC", "OTH") for r in rows]),
                             "scripts/check-records.py": checker})
    cfg, text = proposed(repo)
    specs, other = cfg.record_for("specs.md"), cfg.record_for("other.md")
    assert [(c.file, c.pattern) for c in specs.counts] == [("scripts/check-records.py", r"'specs':\s+\('docs/specs\.md',\s+(\d+)\),")]
    assert "count: scripts/check-records.py:2 states 5, kept in step with the rows." in text
    assert other.pin == 5 and other.counts == []  # `OTHER_ROWS = 5` is on two lines
    assert check(repo).returncode == 0, check(repo).stdout
    (repo / "specs.md").write_text(_table("| ID | What |", [*rows, "| `SPEC-6` | s |"]))
    fixed = mergedrv(repo, "fix")
    assert "scripts/check-records.py:2: fixed: SPEC: count" in fixed.stdout, fixed.stdout
    assert (repo / "scripts/check-records.py").read_text() == checker.replace("5),", "6),")


# --- a key column renamed in history (asdf-vm/asdf-plugins: `Language` -> `Tool / Language`) -------------


def _plugins(header: str, names: list[str]) -> str:
    rows = "".join(f"| {n:<10} | [asdf-{n}](https://github.com/asdf-community/asdf-{n}) |\n" for n in names)
    return f"# Plugins\n\n| {header} | Repository |\n|---|---|\n{rows}"


def test_a_key_column_renamed_in_history_keeps_its_former_name_in_the_key(repo):
    names = ["bats", "crystal", "dart", "elixir", "flutter", "golang"]

    def add(header: str, rows: list[str], who: int) -> None:  # rows added by several people
        (repo / "README.md").write_text(_plugins(header, rows))
        git(repo, "add", "-A")
        git(repo, "commit", "-qm", f"add {rows[-1]}", env={"GIT_AUTHOR_NAME": f"p{who}", "GIT_AUTHOR_EMAIL": f"p{who}@example.com"})

    for n in range(3, len(names) + 1):
        add("Language", names[:n], n)
    for n in range(3):
        names.append(f"tool{n}")
        add("Tool / Language", names, n)
    cfg, text = proposed(repo)
    [record] = [r for r in cfg.records if r.path == "README.md"]
    assert record.key == ("Tool / Language", "Language"), text
    assert "Former name of the key column: 'Language'" in text
    # a branch made before the rename merges by key with one made after it
    from mergedrv.merge import Markers, Options, merge

    base = _plugins("Language", names[:6]).encode()
    ours = _plugins("Language", names[:6] + ["haskell"]).encode()
    theirs = _plugins("Tool / Language", names[:6] + ["zig"]).encode()
    result = merge(base, ours, theirs, Options(markers=Markers(7, "base", "ours", "theirs"), key=record.key))
    assert not result.conflicts and b"haskell" in result.data and b"| Tool / Language |" in result.data


# --- a table of badges (alexandresanlim/Badges4-README.md-Profile): images first, their URLs beside --------


def _badges(names: list[str]) -> str:
    url = "https://img.shields.io/badge/{0}-000?style=for-the-badge&logo={0}&logoColor=white"
    rows = [f'| <img src="{url.format(n)}" /> | `{url.format(n)}` |' for n in names]
    return "# Badges\n\n" + _table("| Badge | URL |", rows)


def test_a_column_of_images_leaves_the_key_to_the_urls_beside_it(repo):
    """The first column holds images alone, no text to key by; the URLs
    beside them are unique, and their queries (`style=...`) are no options."""
    names = ["alpha", "beta", "gamma", "delta"]
    for who, name in enumerate(["epsilon", "zeta", "eta", "theta"]):
        names.append(name)
        _as(repo, f"p{who}", f"add {name}", {"README.md": _badges(names)})
    cfg, text = proposed(repo)
    record = cfg.record_for("README.md")
    assert record is not None and record.key == "URL", text
    assert check(repo).returncode == 0, check(repo).stdout
    from mergedrv.propose import keys

    gallery = keys.parse_version(b"| Preview | Theme | License |\n|---|---|---|\n" + b"".join(
        b'| <img src="https://x/%d.png"> | theme %d | MIT |\n' % (i, i) for i in range(6)))
    theme = next(c for c in keys.candidates(gallery) if c.name == "theme")
    assert "neither named like a key nor first" in theme.refused  # beside images, no URLs: a description of them
    (repo / "README.md").write_text(_badges(names + ["beta"]))
    assert "key https://img.shields.io/badge/beta-000?style=for-the-badge&logo=beta&logoColor=white is defined twice" in check(repo).stdout


def _categories(tables: dict[str, list[str]]) -> str:
    return "# Badges\n\n" + "".join(f"## {cat}\n\n" + _table("| Name | Badge |", [f"| {n} | ![{n}](https://x/{n}) |" for n in names]) + "\n"
                                    for cat, names in tables.items())


def test_a_list_by_category_is_keyed_table_by_table_before_a_name_repeats(repo):
    """Ileriayo/markdown-badges 52d866f: names in table after table, none yet
    in two; init keyed them across the file, and the same badge added to two
    categories by the two sides became a double definition where git merges."""
    cats = {"Blog": ["Medium", "Dev.to"], "Social": ["Mastodon", "Reddit"], "Hosting": ["Netlify", "Vercel"]}
    for who, (cat, name) in enumerate([("Blog", "Ghost"), ("Social", "Bluesky"), ("Hosting", "Render"), ("Blog", "Hashnode")]):
        cats[cat].append(name)
        _as(repo, f"p{who}", f"add {name}", {"README.md": _categories(cats)})
    cfg, text = proposed(repo)
    record = cfg.record_for("README.md")
    assert record is not None and (record.key, record.key_scope) == ("Name", "table"), text
    from mergedrv.merge import Markers, merge, options_for

    base = _categories(cats).encode()
    ours = _categories({**cats, "Blog": cats["Blog"] + ["Substack"]}).encode()
    theirs = _categories({**cats, "Social": cats["Social"] + ["Substack"]}).encode()
    opts = options_for("README.md", cfg, Markers(7, "base", "ours", "theirs"))
    result = merge(base, ours, theirs, opts)
    assert not result.conflicts and result.data.count(b"| Substack |") == 2


def _messages(head: str, names: list[str]) -> str:
    return "# Messages\n\n" + _table(head, [f"| `{n}` | used to {n.lower()} | [01](01.md) |" for n in names])


def test_a_key_column_named_type_lists_types_unless_a_field_column_lists_options(repo):
    """nostr-protocol/nips: a table of message types keyed by its own `type`
    column is no table of options; a table of fields and their types is one."""
    names = ["EVENT", "REQ"]
    for who, name in enumerate(["CLOSE", "AUTH", "COUNT", "NEG"]):
        names.append(name)
        _as(repo, f"p{who}", f"add {name}", {"messages.md": _messages("| type | description | NIP |", names),
                                             "fields.md": _messages("| Type | Field | Description |", names)})
    cfg, text = proposed(repo)
    record = cfg.record_for("messages.md")
    assert record is not None and record.key == "type", text
    assert cfg.record_for("fields.md") is None and "fields.md: a table with column 'Type' lists options" in text, text


def _index(rows: list[tuple[str, str]]) -> str:
    return "# Proposals\n\n" + _table("| TIP # | Title | Type | Status |",
                                      [f"| [TIP&nbsp;{n}](tip-{n}.md) | {t} | {'Standards Track' if len(t) % 2 else 'Informational'} | Draft |" for n, t in rows])


def test_a_proposal_index_with_a_type_column_is_no_table_of_options(repo):
    """tronprotocol/TIPs, filecoin-project/FIPs, bnb-chain/BEPs: the index of
    numbered proposals has a `Type` (Standards Track, Informational) and a key
    column named `FIP #`; it was refused as a table of options, while a spec's
    table of constants (`COLD_SLOAD_COST`, a prefix each) was proposed as IDs."""
    rows = [(str(n), f"proposal {n}") for n in range(10, 16)]
    constants = _table("| Constant | Value |", ["| `COLD_SLOAD_COST` | 2100 |", "| `WARM_STORAGE_READ_COST` | 100 |",
                                                "| `BLOB_GAS_PER_BLOB` | 131072 |", "| `FORK_TIMESTAMP` | 0 |"])
    _as(repo, "a", "start", {"README.md": _index(rows), "BEPs/BEP-230.md": "# BEP-230\n\n" + constants})
    for who in range(4):
        rows.append((str(20 + who), f"added by {who}"))
        _as(repo, f"p{who}", f"add {20 + who}", {"README.md": _index(rows)})
    cfg, text = proposed(repo)
    record = cfg.record_for("README.md")
    assert record is not None and record.key == "TIP #", text
    assert cfg.record_for("BEPs/BEP-230.md") is None, text
    from mergedrv.propose import keys

    params = keys.candidates(keys.parse_version(b"| Name | Type | Description |\n|---|---|---|\n| depth | int | how deep |\n| mode | str | how |\n"))
    assert "lists options" in next(c for c in params if c.name == "name").refused and all(c.refused for c in params)  # parameters still are
    named = {h: keys.Candidate(h, h.lower()).rank < len(keys.KEY_NAMES) for h in ("FIP #", "Vote No.", "Client ID", "Markdown Code", "Preview")}
    assert named == {"FIP #": True, "Vote No.": True, "Client ID": True, "Markdown Code": False, "Preview": False}


def _decisions(ids: list[int], a: list[str], b: list[str]) -> str:
    names = lambda keys, who: _table("| Name | Meaning |", [f"| {k} | {who} {k.lower()} |" for k in keys])
    return (f"# Protocol\n\nThis file lists {len(ids)} decisions.\n\n## Decisions\n\n"
            + _table("| ID | Title | Status |", [f"| ADR-{i} | decision {i} | accepted |" for i in ids])
            + "\n## Client to relay\n\n" + names(a, "client") + "\n## Relay to client\n\n" + names(b, "relay") + "\n## Notes\n\nSee the spec.\n")


def test_a_further_key_column_repeated_table_by_table_leaves_the_record_keyed_across_it(repo):
    """Review repro: beside an `ID` table (a pin, retired keys), two `Name`
    tables share a name; taking `Name` as a further key column per table made
    the whole record `key_scope = "table"` and dropped its pin and retired."""
    ids, a, b = [1, 2], ["EVENT", "REQ"], ["EVENT", "OK"]
    _as(repo, "alice", "start", {"protocol.md": _decisions(ids, a, b), "RETIRED.md": "# Retired\n\n- ADR-0\n"})
    for who, i, ka, kb in [("bob", 3, "CLOSE", "CLOSE"), ("carol", 4, "AUTH", "AUTH"), ("dave", 5, "COUNT", "COUNT"), ("bob", 6, "NEG", "NOTICE")]:
        ids, a, b = ids + [i], a + [ka], b + [kb]
        _as(repo, who, f"add {i}", {"protocol.md": _decisions(ids, a, b)})
    [p] = [p for p in init.propose(repo)[0] if p.path == "protocol.md"]
    assert (p.key, p.scope, p.retired) == ("ID", "record", "RETIRED.md"), p.why


def test_a_list_and_its_translation_are_two_records_not_references(repo):
    """ikaijua/Awesome-AITools: README.md and README-CN.md list the same tools
    (the translation lags a little); README.md was dropped as 'references'."""
    tools = [f"Tool{chr(65 + i)}" for i in range(12)]
    page = lambda names, note: "# Tools\n\n" + _table("| Name | Note |", [f"| {n} | {note} {n} |" for n in names])
    for who, n in enumerate(range(8, 12)):
        _as(repo, f"p{who}", f"add {n}", {"README.md": page(tools[:n], "about"), "README-CN.md": page(tools[:n - 1] + ["ToolZ", "ToolY"], "关于")})
    got = {p.path for p in init.propose(repo)[0]}
    assert got == {"README.md", "README-CN.md"}, init.propose(repo)[1]
    from mergedrv.commands.init import _translation

    assert [_translation("README.md", b) for b in ("README-CN.md", "README.zh-CN.md", "README-index.md", "docs/README-CN.md")] == [
        True, True, False, False]


def test_meetings_numbered_anew_in_each_table_are_keyed_table_by_table(repo):
    """ethereum/pm: the execution-layer and consensus-layer calls, each table
    numbered from 1 (`№`), so every number stands in both tables."""
    calls = lambda n, m: ("# Meetings\n\n## Execution Layer\n\n" + _table("| № | Date | Notes |", [f"| {i} | 2025-01-{i:02} | [notes](el/{i}.md) |" for i in range(n, 0, -1)])
                          + "\n## Consensus Layer\n\n" + _table("| № | Date | Notes |", [f"| {i} | 2025-02-{i:02} | [notes](cl/{i}.md) |" for i in range(m, 0, -1)])
                          + "\n## Other\n\nSee the calendar.\n")
    for who, (n, m) in enumerate([(6, 5), (7, 5), (7, 6), (8, 7)]):
        _as(repo, f"p{who}", f"call {n} {m}", {"README.md": calls(n, m)})
    cfg, text = proposed(repo)
    record = cfg.record_for("README.md")
    assert record is not None and (record.key, record.key_scope) == ("№", "table"), text
    assert check(repo).returncode == 0, check(repo).stdout


def _releases(upcoming: list[str], supported: list[str], old: list[str]) -> str:
    row = lambda v, date: f"| {v} | {date} | Release of 1.{int(v.strip('[]').split('.')[1]) + 2} | 1.30 → 1.33 |"
    table = lambda rows: _table("| Release | Release Date | End of Life | Kubernetes Versions |", rows)
    return ("# Supported releases\n\n## Upcoming releases\n\n" + table([row(v, d) for v, d in upcoming])
            + "\n## Currently supported releases\n\n" + table([row(f"[{v}][]", d) for v, d in supported])
            + "\n## Old releases\n\n" + table([row(f"[{v}][]", d) for v, d in old]) + "\n[1.10]: ./notes-1.10.md\n")


def test_release_tables_keyed_by_version_numbers_named_release_are_a_record(repo):
    """cert-manager/website 0eb9dcb: tables of releases keyed by a first
    column `Release` of version numbers (`1.21`, `[1.20][]`), which read as
    measurements; a release moves from table to table (upcoming, supported,
    old), so they are keyed across the file, not table by table."""
    up, sup, old = [("1.16", "~Jan")], [("1.15", "Oct 1"), ("1.14", "Jun 1")], [("1.13", "Feb 1"), ("1.12", "Oct 1"), ("1.11", "Jun 1")]
    for who in range(4):
        _as(repo, f"p{who}", f"release {up[0][0]}", {"README.md": _releases(up, sup, old)})
        old, sup, up = [sup[-1]] + old, [up[0]] + sup[:-1], [(f"1.{int(up[0][0].split('.')[1]) + 1}", "~soon")]
    bench = "# Speed\n\n" + _table("| Version | Requests/s | Latency ms |", [f"| 1.{i} | {300 + i} | {12.5 - i / 10} |" for i in range(8)])
    for who in range(3):
        _as(repo, f"b{who}", "bench", {"BENCH.md": bench + "".join(f"| 2.{i} | {400 + i} | 9.{i} |\n" for i in range(who + 1))})
    cfg, text = proposed(repo)
    record = cfg.record_for("README.md")
    assert record is not None and (record.key, record.key_scope) == ("Release", "record"), text
    assert cfg.record_for("BENCH.md") is None, text  # a first column of versions beside measurements stays prose
    assert check(repo).returncode == 0, check(repo).stdout
    from mergedrv.merge import Markers, merge, options_for

    base = _releases(up, sup, old)
    ours = _releases([("1.21", "~Nov")], [(up[0][0], "Jul 8")] + sup[:-1], [sup[-1]] + old)  # released: moved, its date set
    theirs = _releases([(up[0][0], "Jul 8")], sup, old)  # the date set where it stood
    result = merge(base.encode(), ours.encode(), theirs.encode(), options_for("README.md", cfg, Markers(7, "base", "ours", "theirs")))
    assert not result.conflicts and result.data == ours.encode()


def _sites_with_slips(repo, slip_rows: int) -> tuple[list, list]:
    """Seven changes by seven authors to a list of 300 sites, versions 1-2
    and 4-5 holding ``slip_rows`` of its rows twice; init's proposals."""
    sites = [f"| [Site {n}](https://site{n}.example/) | a resource |" for n in range(300)]
    for i in range(7):
        sites.append(f"| [New {i}](https://new{i}.example/) | added by p{i} |")
        slips = sites[5 + 40 * (i > 3):5 + 40 * (i > 3) + slip_rows] if i in (1, 2, 4, 5) else []
        _as(repo, f"p{i}", f"add {i}", {"README.md": "# Resources\n\n" + _table("| Website | Description |", sites + slips)})
    return init.propose(repo)


def test_a_long_list_whose_older_versions_each_held_a_slip_is_still_a_record(repo):
    """bradtraversy/design-resources-for-developers: a list of 1,100 sites
    held one or three of them twice in older versions read (each fixed a
    few changes later); two such versions made init drop the column, while
    the tree itself may hold that many, a finding each."""
    proposals, skipped = _sites_with_slips(repo, 3)
    got = {p.path: p for p in proposals}
    assert "README.md" in got, skipped
    assert got["README.md"].key == "Website"


def test_older_versions_holding_more_than_one_in_a_hundred_twice_drop_the_column(repo):
    proposals, skipped = _sites_with_slips(repo, 6)
    assert "README.md" not in {p.path for p in proposals}
    assert "held a value twice at" in str(skipped), skipped


def test_a_release_table_with_a_column_of_kubernetes_versions_is_a_record(repo):
    """prometheus-operator/kube-prometheus RELEASE.md: `Release | Kubernetes
    Version | Release shepherd`, its second column's `1.37` read as
    measurements, half the table's cells; a column named like a release
    holding only version numbers names releases.  A column of versions
    beside figures (`Requests/s`) still measures."""
    rows = [f"| v0.{i}.0 | 1.{20 + i} | person {i % 3} (GitHub: @p{i % 3}) |" for i in range(8)]
    for who in range(3):
        rows.insert(0, f"| v0.{8 + who}.0 | 1.{28 + who} | **searching for volunteer** |")
        _as(repo, f"s{who}", f"release {who}", {"RELEASE.md": "# Releases\n\n" + _table("| Release | Kubernetes Version | Release shepherd |", rows)})
    bench = "# Speed\n\n" + _table("| Build | Kubernetes Version | Requests/s |", [f"| b{i} | 1.{i} | {300 + i} |" for i in range(8)])
    for who in range(3):
        _as(repo, f"b{who}", "bench", {"BENCH.md": bench + "".join(f"| c{i} | 2.{i} | {400 + i} |\n" for i in range(who + 1))})
    cfg, text = proposed(repo)
    record = cfg.record_for("RELEASE.md")
    assert record is not None and record.key == "Release", text
    assert cfg.record_for("BENCH.md") is None, text
    assert check(repo).returncode == 0, check(repo).stdout


def test_a_header_padded_with_nbsp_is_proposed_by_its_name(repo):
    """Awesome-lists widen a column with `&nbsp;` in its header (`Website&nbsp;
    &nbsp; &nbsp;`): init names the key column `Website`, and the checks match
    it to that header as they match case and markup."""
    head = "| Website&nbsp; &nbsp; &nbsp; &nbsp; | Description |"
    readme = lambda rows: "# Resources\n\n## Tools\n\n" + _table(head, rows)
    sites = [f"| {lang}.io | a tool |" for lang in LANGS[:40]]
    _as(repo, "a", "start", {"README.md": readme(sites)})
    grow = lambda rows, i: rows + [f"| {LANGS[200 + i]}.io | new |"]
    rows = merged_rounds(repo, "README.md", readme, sites, 4, grow, lambda rows, i: _edit(rows, 3 + i, i, "m"))
    cfg, text = proposed(repo)
    record = cfg.record_for("README.md")
    assert record is not None and record.key == "Website", text
    assert "&nbsp;" not in text
    assert check(repo, "--all").returncode == 0, check(repo, "--all").stdout
    (repo / "README.md").write_text(readme(rows + [rows[0]]))
    assert f"key {LANGS[0]}.io is defined twice" in check(repo).stdout


def _linters(langs: list[str], envs: list[str]) -> str:
    return ("# Linter\n\n## Supported linters\n\n" + _table("| _Language_ | _Linter_ |", langs)
            + "\n## Environment variables\n\n" + _table("| **ENV VAR** | **Default Value** | **Notes** |", envs))


def test_a_table_of_options_people_merge_is_a_further_key_column(repo):
    """super-linter: each pull request adding a linter adds its language's row
    and its `VALIDATE_...` row to the environment variables table (`ENV VAR`,
    `Default Value`), and merges join the two sides' rows there; an options
    table refused by its name or its `Default` column is a key column where
    rows were added by three changes of three authors and two merges joined
    changes to its rows.  A static table of options, or one only its author
    grows, is still refused."""
    langs = [f"| **Lang{n}** | [lint{n}](https://example.com/{n}) |" for n in range(6)]
    envs = [f"| **VALIDATE_LANG{n}** | `true` | Flag to enable linter {n}. |" for n in range(6)]
    opts = lambda n: "# Options\n\n" + _table("| Option | Default | Description |", [f"| opt{i} | 1 | option {i} |" for i in range(n)])
    _as(repo, "a", "start", {"README.md": _linters(langs, envs), "docs/options.md": opts(3)})
    for i in range(3):
        _as(repo, "a", f"option {i}", {"docs/options.md": opts(4 + i)})

    topic = lambda rows, i: rows + [f"| **VALIDATE_NEW{i}** | `true` | Flag to enable new linter {i}. |"]
    added = lambda rows: [f"| **New{i}** | [new{i}](https://example.com/new{i}) |" for i in range(4) if f"VALIDATE_NEW{i}**" in "".join(rows)]
    render = lambda rows: _linters(langs + added(rows), rows)  # (the language's row comes with its variable's)
    merged_rounds(repo, "README.md", render, envs, 4, topic, lambda rows, i: _edit(rows, i, i, "m"))
    cfg, text = proposed(repo)
    record = cfg.record_for("README.md")
    assert record is not None and record.key == ("Language", "ENV VAR"), text
    assert "Second key column 'ENV VAR'" in text
    assert "a table of options, kept: changes by several people add rows to it and merges join them" in text  # (why it is no option list)
    assert cfg.record_for("docs/options.md") is None and "docs/options.md: column 'Option' names options" in text, text
    assert check(repo, "--all").returncode == 0, check(repo, "--all").stdout


def _by_category(tables: dict[str, list[str]]) -> str:
    return "# Algorithms\n\n## Links\n\n" + _table("| Site | Link |", ["| Wiki | [w](https://w.example) |", "| Book | [b](https://b.example) |"]) \
        + "\n## Implementations\n\n" + "\n".join(_table(f"| {head} | C | Java | Python |", rows) for head, rows in tables.items())


def test_tables_whose_first_column_is_named_after_their_category_are_keyed_each_by_it(repo):
    """kelvins/algorithms-and-data-structures: a table per category, each
    naming its first column after the category (`Algoritmos`, `Estruturas de
    Dados`) before the same language columns; merges join implementations
    added to different cells of a row.  The first table's key has merges to
    show, its siblings take their own first columns as further key columns,
    and a table of other columns stays prose; a merge of two cells of one
    sorting row is then clean."""
    row = lambda name: f"| {name} | C | Java | Python |"
    algos = [row(f"Algo{i}") for i in range(6)]
    cats = {"Data Structures": [row(n) for n in ("Stack", "Queue", "Heap", "Trie")],
            "Sorting": [row(n) for n in ("Bubble Sort", "Quicksort", "Merge Sort", "Radix Sort")]}
    render = lambda rows: _by_category({**cats, "Algorithms": rows})
    _as(repo, "a", "start", {"README.md": render(algos)})
    merged_rounds(repo, "README.md", render, algos, 3, lambda rows, i: _edit(rows, i, i, "[Python](py)"),
                  lambda rows, i: _edit(rows, 5, i, "[Python](m)"))
    cfg, text = proposed(repo)
    record = cfg.record_for("README.md")
    assert record is not None and set(record.key) == {"Algorithms", "Data Structures", "Sorting"}, text
    assert "beside the columns of the 'Algorithms' tables" in text
    assert check(repo, "--all").returncode == 0, check(repo, "--all").stdout

    assert mergedrv(repo, "install").returncode == 0
    git(repo, "add", ".gitattributes")
    git(repo, "commit", "-qm", "attributes")
    git(repo, "checkout", "-q", "-b", "java")
    _as(repo, "j", "java quicksort", {"README.md": (repo / "README.md").read_text().replace("| Quicksort | C | Java |", "| Quicksort | C | [Java](q.java) |")})
    git(repo, "checkout", "-q", "main")
    _as(repo, "c", "c quicksort", {"README.md": (repo / "README.md").read_text().replace("| Quicksort | C |", "| Quicksort | [C](q.c) |")})
    assert git(repo, "merge", "-q", "--no-edit", "java", check=False).returncode == 0
    assert "| Quicksort | [C](q.c) | [Java](q.java) | Python |" in (repo / "README.md").read_text()

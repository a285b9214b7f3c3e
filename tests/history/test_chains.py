"""Range mode's fast path for logs (history/chains.py): a log's versions read
as prefixes of one another and checked on what each commit appended must
give exactly the findings of checking every version whole."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from mergedrv import config, history
from mergedrv.git import repository
from mergedrv.history.chains import Chains
from mergedrv.history.walk import log_chains, range_commits

from tests.checks_helpers import LEDGER, MATRIX, RETIRED, RETIRED_TEXT, ROADMAP, WORKED_CONFIG
from tests.helpers import DATA

GONE = "MODEL-TEXT-deepseek-v4-deepseek-v4-for-causal-lm"  # a matrix key an old ledger line names


def _row(n: int, cells: int = 4, extra: str = "") -> bytes:
    parts = [f"2026-08-{n % 28 + 1:02d} `{n:07x}`", f"entry {n}{extra}", "none", "`DONE`", "more", "again"][:cells]
    return ("| " + " | ".join(parts) + " |\n").encode()


def _history(repo: Path) -> None:
    """A history planting every kind of log change, with a branch and its merge."""
    ledger = (DATA / "parity-ledger.d85906ae.md").read_bytes()
    matrix = (DATA / "model-matrix.f887c34c.md").read_bytes()
    files = {".mergedrv.toml": WORKED_CONFIG.encode(), MATRIX: matrix, ROADMAP: (DATA / "roadmap_v1.d85906ae.md").read_bytes(),
             LEDGER: ledger, RETIRED: RETIRED_TEXT.encode(), "README.md": b"# readme\n"}
    out: list[bytes] = []
    mark = 0

    def commit(msg: str, changes: dict[str, bytes], branch: str = "main", parents: tuple[int, ...] = ()) -> int:
        nonlocal mark
        mark += 1
        out.append(f"commit refs/heads/{branch}\nmark :{mark}\ncommitter B <b@example.com> {1700000000 + mark * 60} +0000\n"
                   f"data {len(msg)}\n{msg}\n".encode())
        for i, p in enumerate(parents):
            out.append(f"{'from' if i == 0 else 'merge'} :{p}\n".encode())
        for path, data in changes.items():
            out.append(f"M 100644 inline {path}\ndata {len(data)}\n".encode() + data + b"\n")
        return mark

    last = commit("root", files)
    steps: list[tuple[str, bytes]] = [
        ("append", _row(2)),
        ("append a 3-cell row", _row(3, cells=3)),
        ("append", _row(4)),
        ("append a dangling ref", _row(5, extra=" `MODEL-TEXT-nonexistent-model`")),
        ("append the same dangling ref again", _row(6, extra=" `MODEL-TEXT-nonexistent-model`")),
        ("append a blank line and a row", b"\n" + _row(7)),
        ("append the 3-cell row's copy", _row(3, cells=3)),
        ("append two rows, one of 5 cells", _row(8) + _row(9, cells=5)),
    ]
    history_of_ledger = [ledger]
    for msg, tail in steps:
        ledger += tail
        history_of_ledger.append(ledger)
        last = commit(msg, {LEDGER: ledger}, parents=(last,))
        last = commit("src", {"README.md": f"# readme {mark}\n".encode()}, parents=(last,))
    lines = ledger.split(b"\n")
    rows = [i for i, line in enumerate(lines) if line.startswith(b"| 2026")]
    edited = lines[:]
    edited[rows[2]] = edited[rows[2]].replace(b"|", b"| edited |", 1)
    ledger = b"\n".join(edited) + _row(10)
    last = commit("edit an old row and append", {LEDGER: ledger}, parents=(last,))
    ledger += _row(11)
    last = commit("append", {LEDGER: ledger}, parents=(last,))
    lines = ledger.split(b"\n")
    ledger = b"\n".join(lines[: rows[5]] + [_row(12).rstrip(b"\n")] + lines[rows[5] :])
    last = commit("insert a row mid-log", {LEDGER: ledger}, parents=(last,))
    text = matrix.split(b"\n")
    matrix = b"\n".join(line for line in text if f"`{GONE}`".encode() not in line)
    last = commit("drop a matrix key an old ledger line names", {MATRIX: matrix}, parents=(last,))
    ledger += _row(13)
    last = commit("append after the drop", {LEDGER: ledger}, parents=(last,))
    ledger += b"|---|---|---|---|\n"
    last = commit("append a delimiter-like line", {LEDGER: ledger}, parents=(last,))
    ledger += _row(14, cells=2)
    last = commit("append a 2-cell row after it", {LEDGER: ledger}, parents=(last,))
    ledger = history_of_ledger[4]
    last = commit("the log shrinks back", {LEDGER: ledger}, parents=(last,))
    ledger += _row(15, cells=3)
    last = commit("append a 3-cell row", {LEDGER: ledger}, parents=(last,))
    fork = last
    topic = commit("topic appends", {LEDGER: ledger + _row(16)}, branch="topic", parents=(fork,))
    ledger += _row(17, cells=6)
    last = commit("main appends a 6-cell row", {LEDGER: ledger}, parents=(fork,))
    ledger += _row(16)
    last = commit("merge topic", {LEDGER: ledger}, parents=(last, topic))
    ledger = ledger.rstrip(b"\n")
    last = commit("the last line loses its newline", {LEDGER: ledger}, parents=(last,))
    ledger += b"\n" + _row(18, cells=3)
    last = commit("append after a line without newline", {LEDGER: ledger}, parents=(last,))
    matrix = matrix.replace(b"| `MODEL-TEXT-qwen3-qwen3-for-causal-lm` |", b"| `MODEL-TEXT-qwen3-qwen3-for-causal-lm` | x |", 1)
    ledger += _row(19, extra=" `MODEL-TEXT-other-missing`")
    last = commit("break a matrix row and append a dangling ref", {MATRIX: matrix, LEDGER: ledger}, parents=(last,))
    ledger += _row(20, cells=1)
    last = commit("append a 1-cell row", {LEDGER: ledger}, parents=(last,))
    row = next(line for line in matrix.split(b"\n") if line.startswith(b"| `MODEL-TEXT-chatglm"))
    state = row.split(b"|")
    state[7] = b" `BOGUS` "  # the State column
    bogus = matrix.replace(row, b"|".join(state), 1)
    row = b"|".join(state)
    last = commit("a State no pattern allows", {MATRIX: bogus}, parents=(last,))
    last = commit("append", {LEDGER: ledger + _row(21)}, parents=(last,))
    doubled = bogus.replace(row, row + b"\n" + row.replace(b"`MODEL-TEXT-chatglm", b"`MODEL-TEXT-bad key!", 1) + b"\n" + row, 1)
    last = commit("a key twice and a key the pattern refuses", {MATRIX: doubled}, parents=(last,))
    commit("put the matrix back", {MATRIX: matrix, LEDGER: ledger + _row(21) + _row(22)}, parents=(last,))
    subprocess.run(["git", "fast-import", "--quiet"], cwd=repo, input=b"".join(out), check=True)
    subprocess.run(["git", "reset", "-q", "--hard", "main"], cwd=repo, check=True)


@pytest.fixture(scope="module")
def planted(tmp_path_factory) -> Path:
    repo = tmp_path_factory.mktemp("chains") / "repo"
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    _history(repo)
    return repo


def test_fast_path_finds_what_the_whole_check_finds(planted: Path) -> None:
    r = repository(planted)
    cfg = config.loads(WORKED_CONFIG)
    fast, fast_summary = history.check_range(r, cfg, "0" * 40, "HEAD")
    whole, whole_summary = history.check_range(r, cfg, "0" * 40, "HEAD", fast=False)
    assert [f.text() for f in fast] == [f.text() for f in whole]
    assert [n.text() for n in fast_summary.notes] == [n.text() for n in whole_summary.notes]
    assert whole_summary.merges == 1
    checks = {f.check for f in whole}
    assert {"table-shape", "log-append-only", "refs", "ratchet"} <= checks
    said = "\n".join(f.text() for f in whole)
    assert "has 3 cells" in said and "has 5 cells" in said and "has 6 cells" in said and "has 1 cells" in said
    assert "MODEL-TEXT-nonexistent-model names no key" in said and "MODEL-TEXT-other-missing names no key" in said
    assert f"{GONE} names no key" in said  # the old ledger line the dropped key made dangle
    assert "was changed" in said and "inserted before existing rows" in said and "was removed" in said
    assert {"column-format", "keys-unique", "key-format", "rollup"} <= checks


def test_fast_path_is_taken_for_appends(planted: Path) -> None:
    r = repository(planted)
    cfg = config.loads(WORKED_CONFIG)
    commits = range_commits(r, "0" * 40, "HEAD")
    chains = log_chains(r, cfg, commits, None)
    assert isinstance(chains, Chains)
    appended = [c for c in commits if len(c.parents) == 1 and c.tree[LEDGER].id != c.parents[0].tree[LEDGER].id
                and chains.appended(c.parents[0].tree[LEDGER].id, c.tree[LEDGER].id) is not None]
    messages = {c.message.strip() for c in appended}
    assert "append a 3-cell row" in messages and "append a dangling ref" in messages
    assert "edit an old row and append" not in messages and "insert a row mid-log" not in messages
    assert "append a delimiter-like line" not in messages and "append after a line without newline" not in messages
    reads = sum(1 for src in {id(s): s for s, _ in chains.members.values()}.values())
    assert reads < len(chains.members) / 2  # most versions are slices of a version read once


def test_a_log_rewritten_again_and_again_is_read_as_any_file(tmp_path: Path) -> None:
    # every version edits the first row: none is a prefix of another; only a few (MAX_SOURCES) are kept whole
    from mergedrv.history.chains import MAX_SOURCES

    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    cfg_text = '[[log]]\npath = "log.md"\n'
    out, rows = [], [b"| 2026-01-01 | first |\n"]
    for n in range(1, 41):
        rows[0] = f"| 2026-01-{n:02d} | first, take {n} |\n".encode()
        rows.append(f"| 2026-02-{n:02d} | row {n} |\n".encode() if n % 3 else f"| 2026-02-{n:02d} | row {n} | extra |\n".encode())
        data = b"# Log\n\n| Date | What |\n|---|---|\n" + b"".join(rows)
        out.append(f"commit refs/heads/main\nmark :{n}\ncommitter B <b@example.com> {1700000000 + n} +0000\ndata 3\nc{n:02d}\n".encode()
                   + (f"from :{n - 1}\n".encode() if n > 1 else b"")
                   + f"M 100644 inline .mergedrv.toml\ndata {len(cfg_text)}\n{cfg_text}\n".encode()
                   + f"M 100644 inline log.md\ndata {len(data)}\n".encode() + data + b"\n")
    subprocess.run(["git", "fast-import", "--quiet"], cwd=repo, input=b"".join(out), check=True)
    r = repository(repo)
    cfg = config.loads(cfg_text)
    chains = log_chains(r, cfg, range_commits(r, "0" * 40, "HEAD"), None)
    assert len({id(s) for s, _ in chains.members.values()}) <= MAX_SOURCES < 40
    fast, _ = history.check_range(r, cfg, "0" * 40, "HEAD")
    whole, _ = history.check_range(r, cfg, "0" * 40, "HEAD", fast=False)
    assert [f.text() for f in fast] == [f.text() for f in whole]
    assert {f.check for f in whole} == {"log-append-only", "table-shape"}


@pytest.mark.parametrize("only", [{"refs"}, {"table-shape"}, {"log-append-only", "pin-claims"}, {"rollup", "ratchet", "column-format"}])
def test_fast_path_with_only_some_checks(planted: Path, only: set[str]) -> None:
    r = repository(planted)
    cfg = config.loads(WORKED_CONFIG)
    fast, _ = history.check_range(r, cfg, "0" * 40, "HEAD", only=only)
    whole, _ = history.check_range(r, cfg, "0" * 40, "HEAD", only=only, fast=False)
    assert [f.text() for f in fast] == [f.text() for f in whole]
    assert fast


def _clone(planted: Path, repo: Path, repack: bool) -> Path:
    """A clone of the planted history: fast-import's pack as fetched, or repacked."""
    subprocess.run(["git", "clone", "-q", "--no-local", str(planted), str(repo)], check=True)
    if repack:
        subprocess.run(["git", "repack", "-adfq"], cwd=repo, check=True)
    return repo


@pytest.mark.parametrize("repack", [False, True])
def test_pack_deltas_prove_what_the_hashes_prove(planted: Path, tmp_path: Path, repack: bool) -> None:
    # history/packs.py: a version whose delta copies its (proven) base to the same offsets is a
    # prefix without a hash; every verdict must be the SHA-1's, on fast-import's pack and a repacked one
    from mergedrv.history import chains as chains_mod
    from mergedrv.history.packs import proven

    repo = _clone(planted, tmp_path / "repo", repack)
    r = repository(repo)
    oids = {c.tree[LEDGER].id for c in range_commits(r, "0" * 40, "origin/main")}
    sizes = chains_mod.blob_sizes(r, [str(o) for o in oids])
    sized = sorted(((sizes[str(o)], str(o), o) for o in oids), reverse=True)
    longest = r.get(sized[0][2]).data
    hashed = []

    def sha1(some: list) -> set:
        hashed.extend(h for _, h in some)
        return {h for size, h in some if chains_mod._prefix(longest, size, h)}

    told = proven(r, longest, sized[0][1], sized[1:], sha1)
    assert set(told) == {h for _, h, _ in sized[1:]}
    assert told == {h: chains_mod._prefix(longest, size, h) for size, h, _ in sized[1:]}
    assert True in told.values() and False in told.values()  # an edited ledger is no prefix
    if repack:
        yes = [h for h, ok in told.items() if ok]
        assert len(set(hashed) & set(yes)) < len(yes) / 2, (len(hashed), len(yes))  # most prefixes are proven by their deltas alone
        fast, _ = history.check_range(r, config.loads(WORKED_CONFIG), "0" * 40, "origin/main")
        whole, _ = history.check_range(r, config.loads(WORKED_CONFIG), "0" * 40, "origin/main", fast=False)
        assert [f.text() for f in fast] == [f.text() for f in whole] and fast


@pytest.mark.parametrize("repack", [False, True])
def test_blobs_rebuilt_from_pack_deltas_are_the_blobs(planted: Path, tmp_path: Path, repack: bool) -> None:
    # history/packs.py Blobs: a blob rebuilt from its deltas is checked against its id; every one must be
    # git's bytes, and most of a repacked pack's are rebuilt (the matrix and ledger versions)
    from mergedrv.history.packs import Blobs

    repo = _clone(planted, tmp_path / "repo", repack)
    listed = subprocess.run(["git", "cat-file", "--batch-all-objects", "--batch-check=%(objectname) %(objecttype) %(deltabase)"],
                            cwd=repo, capture_output=True, text=True, check=True).stdout.split("\n")
    blobs = [line.split() for line in listed if " blob " in line]
    r = repository(repo)
    reader = Blobs(r)
    got = {oid: reader.read(oid) for oid, _, _ in blobs}
    assert all(data is None or data == r.get(oid).data for oid, data in got.items())
    deltas = [oid for oid, _, base in blobs if base != "0" * 40]
    assert deltas and sum(got[oid] is not None for oid in deltas) > len(deltas) / 2
    assert reader.read("0" * 40) is None and reader.read("ab" * 20) is None
    assert reader._held_bytes <= Blobs.HELD or len(reader._held) == 1
    starved = Blobs(r)
    starved.HELD = 1  # every body dropped but the last: a read rebuilds its chain (or gives up: None), never wrong bytes
    lean = {oid: starved.read(oid) for oid, _, _ in blobs}
    assert all(data is None or data == got[oid] for oid, data in lean.items()) and any(lean.values())
    assert len(starved._held) == 1 and starved._held_bytes == len(next(iter(starved._held.values())))


LOG = "# Log\n\n| Date | What |\n|---|---|\n| 1 | a |\n"


def _small_log_repo(path: Path, first: str = LOG, second: str = LOG + "| 2 | b |\n") -> Path:
    """A repository whose log.md is ``first`` in one commit, then ``second``."""
    from tests.helpers import git

    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    (path / ".mergedrv.toml").write_text('[[log]]\npath = "log.md"\n')
    (path / "log.md").write_text(first)
    git(path, "add", "-A")
    git(path, "commit", "-qm", "c1")
    (path / "log.md").write_text(second)
    git(path, "commit", "-qam", "c2")
    return path


def _range_check(repo: Path) -> subprocess.CompletedProcess:
    from tests.helpers import MERGEDRV

    return subprocess.run([*MERGEDRV, "check", "--base", "0" * 40, "--head", "HEAD"], cwd=repo, capture_output=True, text=True)


def test_loose_objects_only_and_a_junk_pack_index(tmp_path: Path) -> None:
    """No objects/pack folder at all, or a pack index git only warns about: the
    fast path reads what it can and hashes the rest, as the whole check."""
    from tests.helpers import git

    loose = _small_log_repo(tmp_path / "loose")
    (loose / ".git/objects/pack").rmdir()
    proc = _range_check(loose)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    junk = _small_log_repo(tmp_path / "junk")
    git(junk, "gc", "-q")
    (junk / ".git/objects/pack/pack-zz.idx").write_bytes(b"\377tOc\0\0\0\2")
    (junk / ".git/objects/pack/pack-zz.pack").write_bytes(b"PACK")
    proc = _range_check(junk)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr


def test_a_prose_log_losing_its_last_line_is_a_finding_not_a_crash(tmp_path: Path) -> None:
    from tests.helpers import MERGEDRV

    repo = _small_log_repo(tmp_path / "r", LOG + "\nsome prose\n", LOG + "\n")
    for args in (["--commit", "HEAD"], ["--base", "HEAD~1", "--head", "HEAD"]):
        proc = subprocess.run([*MERGEDRV, "check", *args], cwd=repo, capture_output=True, text=True)
        assert proc.returncode == 1 and "log-append-only" in proc.stdout and "was removed" in proc.stdout, proc.stdout + proc.stderr


@pytest.mark.parametrize("tail", [b"| 3 | \xff |\n", b"| 3 | c\0 |\n", b">>>>>>> theirs\n| 3 | c |\n"], ids=["not UTF-8", "NUL", "marker"])
def test_an_appended_line_the_model_refuses_is_found_as_the_whole_check_finds_it(tmp_path: Path, tail: bytes) -> None:
    """The chain proves the shortest version readable by its parse and the
    lines after it alone: a byte or a marker appended later is not read as rows."""
    from tests.helpers import git

    repo = _small_log_repo(tmp_path / "r")
    (repo / "log.md").write_bytes((repo / "log.md").read_bytes() + tail)
    git(repo, "commit", "-qam", "c3")
    r = repository(repo)
    cfg = config.loads('[[log]]\npath = "log.md"\n')
    fast, _ = history.check_range(r, cfg, "0" * 40, "HEAD")
    whole, _ = history.check_range(r, cfg, "0" * 40, "HEAD", fast=False)
    assert [f.text() for f in fast] == [f.text() for f in whole]
    assert any("cannot be read" in f.message for f in whole)


@pytest.mark.parametrize("tail", [b"\nmore prose\n", b"\n---\n", b"\n| X | Y |\n|---|---|\n| 3 | c | d |\n", b"\nprose \xff\n", b"\n<<<<<<< ours\n"],
                         ids=["prose", "underline", "a bad row", "not UTF-8", "marker"])
def test_prose_appended_to_a_prose_log_is_judged_as_the_whole_check_judges_it(tmp_path: Path, tail: bytes) -> None:
    """A prose log a commit only appended prose to is not parsed again; a
    pipe, a delimiter-like line or a byte the model refuses still is."""
    from tests.helpers import git

    repo = tmp_path / "r"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    text = b"# Log\n\n## one\n\n| A | B |\n|---|---|\n| 1 | 2 |\n\nSome prose.\n"
    for n, extra in enumerate((b"", b"\n## two\n\nMore.\n", tail)):
        text += extra
        (repo / "log.md").write_bytes(text)
        git(repo, "add", "log.md")
        git(repo, "commit", "-qm", f"c{n}")
    r = repository(repo)
    cfg = config.loads('[[log]]\npath = "log.md"\n')
    fast, _ = history.check_range(r, cfg, "0" * 40, "HEAD")
    whole, _ = history.check_range(r, cfg, "0" * 40, "HEAD", fast=False)
    assert [f.text() for f in fast] == [f.text() for f in whole]
    assert bool(whole) == (tail not in (b"\nmore prose\n", b"\n---\n"))


def test_a_log_edited_in_place_again_and_again_keeps_its_later_versions_proven(tmp_path: Path) -> None:
    # chains.MAX_SOURCES: every in-place edit starts a chain of its own; a log edited a dozen times over
    # a range (the real state log: 25 edits in 533 versions) still has each append proven against its
    # chain, so its versions are neither read nor parsed whole; past the cap a version is read as any file
    from mergedrv.history import chains as chains_mod
    from tests.helpers import git

    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    text = "# Log\n\nentry 0\n"
    oids = []
    for n in range(1, 61):
        if n % 5 == 0:  # an edit in place: line 3 rewritten
            text = text.replace(text.splitlines()[2], f"entry 0, edit {n}")
        else:
            text += f"entry {n}\n"
        (repo / "log.md").write_text(text)
        git(repo, "add", "log.md")
        git(repo, "commit", "-qm", f"c{n}")
        oids.append(git(repo, "rev-parse", "HEAD:log.md").stdout.strip())
    r = repository(repo)
    versions = [r.get(o).id for o in oids]
    out = Chains()
    out.add_versions(r, versions)
    assert all(out.data(v) == r.get(v).data for v in versions if v in out.members)
    sources = {id(src) for src, _ in out.members.values()}
    assert len(out.members) == len(versions) and len(sources) == 13 > 8  # 12 edits, 13 chains: all held (the old cap was 8)
    capped = Chains()
    saved, chains_mod.MAX_SOURCES = chains_mod.MAX_SOURCES, 4
    try:
        capped.add_versions(r, versions)
    finally:
        chains_mod.MAX_SOURCES = saved
    assert 0 < len(capped.members) < len(versions)  # past the cap: left to be read as any file
    assert all(capped.data(v) == r.get(v).data for v in capped.members)


@pytest.mark.parametrize("ending", ["\n", ""])
def test_lines_appended_to_a_prose_log_are_judged_without_its_parent(tmp_path: Path, monkeypatch, ending: str) -> None:
    # checks/deltas.Extended: a proven append that holds table lines is parsed once (the parent is its first
    # lines); the new rows' shapes are still judged, an old row's copy is not new, and fast agrees with whole;
    # the child's last line may lack its line ending
    from mergedrv.checks import deltas

    first = "# Log\n\nentry one\n\n| a | b |\n|---|---|\n| 1 | 2 | 9 |\n\nmore prose\n"
    second = first + "\n| x | y |\n|---|---|\n| 3 | 4 | 5 |\n| 1 | 2 | 9 |\n| 6 | 7 |\n| 8 | 9 | 10 |" + ending
    repo = _small_log_repo(tmp_path / "repo", first, second)
    r = repository(repo)
    cfg = config.loads('[[log]]\npath = "log.md"\n')
    made, init = [], deltas.Extended.__init__

    def spy(self, lines: int) -> None:
        made.append(lines)
        init(self, lines)

    monkeypatch.setattr(deltas.Extended, "__init__", spy)  # (the class itself stays: the checks import it lazily)
    fast, _ = history.check_range(r, cfg, "0" * 40, "HEAD")
    whole, _ = history.check_range(r, cfg, "0" * 40, "HEAD", fast=False)
    assert made == [first.count("\n")] * len(made) and made  # the fast path took it, cut at the parent's end
    assert [f.text() for f in fast] == [f.text() for f in whole]
    shapes = [f for f in fast if f.check == "table-shape" and f.path == "log.md"]
    assert [f.line for f in shapes] == [13, 16]  # `| 3 | 4 | 5 |` and the last row; the copy of line 7 is no new row


def test_an_appended_delimiter_row_that_recasts_the_last_row_is_judged_whole(tmp_path: Path) -> None:
    # the first appended line turns the parent's last row into a table header: its row is gone, which
    # only a parse of the parent shows (deltas._underlines keeps such an append off the one-parse path)
    first = "# Log\n\nprose\n\n| a | b |\n|---|---|\n| 1 | 2 |\n"
    repo = _small_log_repo(tmp_path / "repo", first, first + "|---|---|\n| 5 | 6 |\n")
    r = repository(repo)
    cfg = config.loads('[[log]]\npath = "log.md"\n')
    fast, _ = history.check_range(r, cfg, "0" * 40, "HEAD")
    whole, _ = history.check_range(r, cfg, "0" * 40, "HEAD", fast=False)
    assert [f.text() for f in fast] == [f.text() for f in whole]
    assert [(f.check, f.line) for f in fast] == [("log-append-only", 9)]  # the row of line 7 is no row now


def _edited_log(repo: Path) -> list[str]:
    """A log of 48 versions, appended to, edited in place and cut back now and
    then (each edit starts a chain of its own), repacked so that most versions
    are deltas of one another: its versions' blob ids, oldest first."""
    from tests.helpers import git

    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    lines = [f"| 2026-07-{n % 28 + 1:02d} | entry {n} with some words to make a delta worth it | `DONE` |\n" for n in range(40)]
    text = "# Log\n\n| Date | What | State |\n|---|---|---|\n" + "".join(lines)
    ids = []
    for n in range(1, 49):
        if n % 7 == 0:
            text = text.replace(f"entry {n % 40} with", f"entry {n % 40} (edited {n}) with", 1)
        elif n % 11 == 0:
            text = text[: text.rindex("| 2026")]  # the last row dropped
        else:
            text += f"| 2026-08-{n % 28 + 1:02d} | appended {n} | `DONE` |\n"
        (repo / "log.md").write_text(text)
        git(repo, "add", "log.md")
        git(repo, "commit", "-qm", f"c{n}")
        ids.append(git(repo, "rev-parse", "HEAD:log.md").stdout.strip())
    git(repo, "repack", "-adfq")
    return ids


def test_pack_deltas_compared_with_their_bases_bytes_say_what_the_bytes_say(tmp_path: Path) -> None:
    # history/packs.rebuilds: a delta applied (in thought) to its base's bytes, compared with another
    # version's, must answer as comparing the versions' bytes does, for every pair; `proven` with `deltas`
    # decides by hashing or by the deltas exactly as the SHA-1s would, and leaves out only versions it was given a delta of
    from mergedrv.history import chains as chains_mod
    from mergedrv.history.packs import apply_delta, proven, rebuilds

    ids = _edited_log(tmp_path / "repo")
    r = repository(tmp_path / "repo")
    data = {h: r.get(h).data for h in set(ids)}
    sized = sorted(((len(d), h, r.get(h).id) for h, d in data.items()), reverse=True)
    longest = data[sized[0][1]]
    deltas: dict = {}
    told = proven(r, longest, sized[0][1], sized[1:], lambda some: {h for size, h in some if chains_mod._prefix(longest, size, h)}, deltas)
    assert told == {h: chains_mod._prefix(longest, len(data[h]), h) for h in told}
    assert False in told.values() and True in told.values()
    assert {h for _, h, _ in sized[1:]} - told.keys() <= deltas.keys()
    left = {h for _, h, _ in sized[1:]} - told.keys()
    assert left and all(not told.get(deltas[h][0], False) for h in left)  # each rests on a base that is no prefix
    compared = 0
    for h, (base, delta) in deltas.items():
        assert apply_delta(data[base], delta) == data[h]
        for other, bytes_ in data.items():
            got = rebuilds(delta, data[base], len(data[base]), bytes_, len(data[h]))
            assert got == (bytes_[: len(data[h])] == data[h]), (h, other)
            compared += 1
        assert rebuilds(delta, data[base], len(data[base]) - 1, data[h], len(data[h])) is None  # a base of another size: nothing known
    assert compared > 100


def test_chains_from_pack_deltas_are_the_chains_from_hashes(tmp_path: Path, monkeypatch) -> None:
    # history/chains.add_versions: versions placed by their deltas onto bases already placed (and edited
    # versions rebuilt from them) make the very chains that hashing every version makes, with few hashes
    from mergedrv.history import chains as chains_mod

    ids = _edited_log(tmp_path / "repo")
    loose = tmp_path / "loose"
    subprocess.run(["git", "clone", "-q", "--no-local", str(tmp_path / "repo"), str(loose)], check=True)
    pack = next((loose / ".git/objects/pack").glob("*.pack"))
    moved = tmp_path / "moved.pack"
    pack.rename(moved)
    for other in (loose / ".git/objects/pack").iterdir():
        other.unlink()
    subprocess.run(["git", "unpack-objects", "-q"], cwd=loose, input=moved.read_bytes(), check=True)
    hashed: list[str] = []
    real = chains_mod._prefix
    monkeypatch.setattr(chains_mod, "_prefix", lambda data, size, h: hashed.append(h) or real(data, size, h))

    def chains_of(path: Path) -> tuple[set, int]:
        hashed.clear()
        r = repository(path)
        out = Chains()
        out.add_versions(r, [r.get(h).id for h in ids])
        assert len(out.members) == len(set(ids)) and all(out.data(o) == r.get(o).data for o in out.members)
        groups: dict = {}
        for oid, (src, _) in out.members.items():
            groups.setdefault(id(src), set()).add(str(oid))
        return {frozenset(g) for g in groups.values()}, len(hashed)

    by_hashes, hashes = chains_of(loose)
    by_deltas, fewer = chains_of(tmp_path / "repo")
    assert by_deltas == by_hashes and len(by_hashes) > 5
    assert fewer < hashes / 4, (fewer, hashes)


def test_a_snapshot_tells_each_path_its_own_chain_once_asked(planted: Path) -> None:
    # entries.ParsedTree.span_source keeps its answer per path: each record's refs asks it of every reference file
    from mergedrv.history.entries import Parsed, parsed_tree

    r = repository(planted)
    commits = range_commits(r, "0" * 40, "HEAD")
    parsed = Parsed(r)
    parsed.chains = log_chains(r, config.loads(WORKED_CONFIG), commits, None)
    for c in commits[-6:]:
        tree = parsed_tree(r, c, parsed)
        for _ in range(2):
            assert tree.span_source(LEDGER) == parsed.chains.spans(c.tree[LEDGER].id) is not None
            assert tree.span_source(MATRIX) is None and tree.span_source("no/such.md") is None

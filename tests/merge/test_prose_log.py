"""Prose logs (issue #12, item 4): a log that grows in prose at its end
(dated bullets, then dated `## ...` sections with tables inside) merges as
base + ours' appended entries + theirs', each whole; a change above the tail
is merged as text and conflicts where git would; `log-append-only` reports
it.  On a trimmed copy of the real state log d85906ae."""

from __future__ import annotations

from mergedrv import config
from mergedrv.merge import Markers, merge_path

from tests.checks_helpers import check
from tests.helpers import DATA, git, keyed_repo

STATE = (DATA / "state.trimmed.d85906ae.md").read_bytes()
BULLETS = STATE.split(b"\n## Current status")[0]  # the log's first era: dated bullets only
CFG = config.loads('[[log]]\npath = "state.md"\n')
OURS_SECTION = "\n## 2026-07-25 — ours: a section\n\nOurs did a thing.\n\n| Gate | State |\n|---|---|\n| a | ✅ PASS |\n".encode()
THEIRS_SECTION = "\n## 2026-07-25 — theirs: another section\n\nTheirs did another thing.\n".encode()
OURS_BULLET = b"- **2026-07-03** \xe2\x80\x94 Ours: a bullet,\n  on two lines.\n"
THEIRS_BULLET = b"- **2026-07-03 (later)** \xe2\x80\x94 Theirs: a bullet.\n"


def merged(base: bytes, ours: bytes, theirs: bytes):
    return merge_path("state.md", base, ours, theirs, CFG, Markers())


def test_both_sides_append_a_section():
    result = merged(STATE, STATE + OURS_SECTION, STATE + THEIRS_SECTION)
    assert result.conflicts == [] and result.fallback is None
    assert result.data == STATE + OURS_SECTION + THEIRS_SECTION


def test_both_sides_append_dated_bullets():
    base = BULLETS
    assert base.endswith(b"records).\n")
    result = merged(base, base + OURS_BULLET, base + THEIRS_BULLET)
    assert result.conflicts == []
    assert result.data == base + OURS_BULLET + THEIRS_BULLET


def test_entries_are_separated_as_the_log_separates_them():
    base = STATE + b"\n"  # the log ends with a blank line: entries start without one
    ours, theirs = base + OURS_SECTION[1:], base + THEIRS_SECTION[1:]
    assert merged(base, ours, theirs).data == base + OURS_SECTION[1:] + b"\n" + THEIRS_SECTION[1:]


def test_the_same_entry_appended_on_both_sides_is_kept_once():
    result = merged(STATE, STATE + OURS_SECTION, STATE + OURS_SECTION)
    assert result.data == STATE + OURS_SECTION and result.conflicts == []


def test_a_change_above_the_tail_on_one_side_is_kept_and_both_tails_follow():
    edited = STATE.replace(b"Project kicked off.", b"Project kicked off (edited).", 1)
    result = merged(STATE, STATE + OURS_SECTION, edited + THEIRS_SECTION)
    assert result.conflicts == []
    assert result.data == edited + OURS_SECTION + THEIRS_SECTION


def test_a_change_above_the_tail_on_both_sides_conflicts_where_git_would():
    a = STATE.replace(b"Project kicked off.", b"Project kicked off (ours).", 1)
    b = STATE.replace(b"Project kicked off.", b"Project kicked off (theirs).", 1)
    result = merged(STATE, a + OURS_SECTION, b + THEIRS_SECTION)
    assert [c.kind for c in result.conflicts] == ["text"]
    assert result.data.count(b"<<<<<<< ours") == 1
    assert result.data.endswith(OURS_SECTION + THEIRS_SECTION)
    head = result.data[: -len(OURS_SECTION + THEIRS_SECTION)]
    assert b"(ours)" in head and b"(theirs)" in head


def _repo(tmp_path):
    repo = keyed_repo(tmp_path / "repo", '[[log]]\npath = "state.md"\n')
    (repo / "state.md").write_bytes(STATE)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    return repo


def test_git_merge_and_rebase_of_two_appended_sections(tmp_path):
    repo = _repo(tmp_path)
    git(repo, "checkout", "-qb", "topic")
    (repo / "state.md").write_bytes(STATE + THEIRS_SECTION)
    git(repo, "commit", "-qam", "theirs")
    git(repo, "checkout", "-q", "main")
    (repo / "state.md").write_bytes(STATE + OURS_SECTION)
    git(repo, "commit", "-qam", "ours")
    git(repo, "merge", "-q", "--no-ff", "-m", "merge", "topic")
    assert (repo / "state.md").read_bytes() == STATE + OURS_SECTION + THEIRS_SECTION
    git(repo, "checkout", "-qb", "replay", "topic")
    proc = git(repo, "rebase", "-q", "main^1", check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # a rebase replays theirs onto ours: ours' section first, as in the merge
    assert (repo / "state.md").read_bytes() == STATE + OURS_SECTION + THEIRS_SECTION
    assert check(repo, "--only", "log-append-only", "--base", "main^1", "--head", "replay")[0] == 0


def test_log_append_only_reports_an_edit_above_the_tail(tmp_path):
    repo = _repo(tmp_path)
    (repo / "state.md").write_bytes(STATE + OURS_SECTION)
    git(repo, "commit", "-qam", "append")
    assert check(repo, "--only", "log-append-only", "--commit", "HEAD")[:2] == (0, [])
    (repo / "state.md").write_bytes(STATE.replace(b"Project kicked off.", b"Project kicked off (edited).", 1) + OURS_SECTION)
    git(repo, "commit", "-qam", "edit above the tail")
    code, out, _ = check(repo, "--only", "log-append-only", "--commit", "HEAD")
    assert code == 1
    assert len(out) == 1 and out[0].startswith("state.md:3: log-append-only: line 3 of the log was changed (- **2026-07-02**")

"""The refs check of one snapshot reads the records' keys lazily
(`checks.refs.Lazy`): it must find exactly what the whole universe finds
(range mode keeps that one), and read a record only for a name its own
record does not settle."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from mergedrv import config as cfgmod
from mergedrv.checks import run_checks
from mergedrv.git import Snapshot

CONFIG = """
[[record]]
name = "ALPHA"
path = "alpha.md"
key = "ID"
key_pattern = '^A-[0-9]+$'
ref_files = ["notes.md"]
refs = ["Needs"]

[[record]]
name = "BETA"
path = "beta.md"
key = "ID"
key_pattern = '^B-[0-9]+$'
ref_files = ["notes.md"]

[[record]]
name = "GAMMA"
path = "gamma.md"
key = "ID"
key_pattern = '^(?:A|B|G)-[0-9]+$'
"""


class Files(Snapshot):
    """A snapshot in memory that counts what is read."""

    def __init__(self, files: dict[str, str]) -> None:
        self.files = {p: t.encode() for p, t in files.items()}
        self.reads: list[str] = []

    def read(self, path: str) -> bytes | None:
        self.reads.append(path)
        return self.files.get(path)

    def has(self, path: str) -> bool:  # (lists without reading, as a git snapshot does)
        return path in self.files

    def paths(self) -> list[str]:
        return sorted(self.files)


def _table(keys: list[str], needs: list[str] | None = None) -> str:
    head = "| ID | Needs |\n|---|---|\n" if needs is not None else "| ID | State |\n|---|---|\n"
    rows = [f"| {k} | {needs[i % len(needs)] if needs else 'open'} |" for i, k in enumerate(keys)]
    return "# Table\n\n" + head + "\n".join(rows) + "\n"


def _snapshot(alpha, beta, gamma, cited, needs) -> Files:
    notes = "# Notes\n\n" + "\n".join(f"See `{c}`." for c in cited) + "\n"
    return Files({
        ".mergedrv.toml": CONFIG,
        "alpha.md": _table(alpha, needs or ["-"]),
        "beta.md": _table(beta),
        "gamma.md": _table(gamma),
        "notes.md": notes,
    })


def _refs(snap: Files, memo) -> list[tuple]:
    cfg = cfgmod.load_bytes(CONFIG.encode())
    return [(f.path, f.line, f.message) for f in run_checks(cfg, snap, only={"refs"}, memo=memo)]


keys = st.lists(st.integers(1, 12), unique=True, max_size=6)
names = st.sampled_from("ABG").flatmap(lambda p: st.integers(1, 14).map(lambda n: f"{p}-{n}"))


@settings(max_examples=40, deadline=None)
@given(keys, keys, keys, st.lists(names, max_size=8), st.lists(names, max_size=3))
def test_the_lazy_universe_finds_what_the_whole_one_finds(a, b, g, cited, needs):
    alpha, beta, gamma = [f"A-{n}" for n in a], [f"B-{n}" for n in b], [f"G-{n}" for n in g]
    lazy = _refs(_snapshot(alpha, beta, gamma, cited, needs), None)
    whole = _refs(_snapshot(alpha, beta, gamma, cited, needs), {})  # a memo: the universe read whole
    assert lazy == whole


def test_a_reference_its_own_record_settles_reads_no_other_record():
    snap = _snapshot(["A-1", "A-2"], ["B-1"], ["G-1"], ["A-1", "A-2"], None)
    assert _refs(snap, None) == []
    assert "gamma.md" not in snap.reads and "beta.md" not in snap.reads, snap.reads
    snap = _snapshot(["A-1"], ["B-1"], ["G-1"], ["A-1", "A-9"], None)
    found = _refs(snap, None)
    assert [m for _, _, m in found] == ["ALPHA: A-9 names no key of any record"], found
    assert "gamma.md" in snap.reads  # A-9 is looked for wherever a key may be

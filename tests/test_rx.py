"""mergedrv.rx: the patterns `re` compiles, rebuilt from the kept programs,
are the very patterns `re` makes; a damaged or unwritable cache costs only time."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from mergedrv import rx

from .helpers import loaded_by

PATTERNS = [
    (rb"^[ \t>]*\|?[ \t]*:?-+:?[ \t]*(\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*\r?$", 0),
    (rb"[ \t>]*([=\-_*~`])[ \t]*(?:\1[ \t]*)*\r?$", 0),
    (rb"^(?:<{7,}|>{7,})(?: |\r?$)", rx.M),
    (r"(?P<name>\w+)-(\d+)", 0),
    (r"</(?:script|pre)", rx.I),
    (r"a.b", rx.S),
    ("é+", 0),
]


@pytest.fixture
def fresh(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(rx, "_KEPT", None)
    monkeypatch.setattr(rx, "_MADE", {})
    monkeypatch.setattr(rx, "_NEW", [])
    return tmp_path


@pytest.mark.parametrize("pattern,flags", PATTERNS)
def test_a_kept_program_makes_the_pattern_re_makes(fresh, monkeypatch, pattern, flags):
    first = rx.compile(pattern, flags)
    assert first == re.compile(pattern, flags) and first.pattern == pattern
    rx._save()  # as the process ends
    monkeypatch.setattr(rx, "_KEPT", None)  # a new process: read back from the file
    monkeypatch.setattr(rx, "_MADE", {})
    monkeypatch.setattr(rx, "_compiled", lambda key: pytest.fail(f"{key} was not kept"))
    again = rx.compile(pattern, flags)
    assert again == re.compile(pattern, flags) and again.groupindex == re.compile(pattern, flags).groupindex
    text = "a\nb name-12 </PRE> éé" if isinstance(pattern, str) else b"| --- | :-: |\n<<<<<<< ours\n==\n"
    assert [m.span() for m in again.finditer(text)] == [m.span() for m in re.finditer(pattern, text, flags)]


def _table(path) -> dict:
    import marshal

    return marshal.loads(marshal.loads(path.read_bytes())[1])


def test_a_table_damaged_into_other_valid_programs_is_not_used(fresh):
    """The file carries the CRC-32 of its table: one program swapped for
    another valid one (``(?!)``, which matches nothing) is refused whole."""
    import marshal
    import zlib

    line = rb"[^\n]*\n|[^\n]+"
    rx.compile(line, 0)
    rx.compile(rb"(?!)", 0)
    rx._save()
    (kept,) = (fresh / "mergedrv").glob("rx-*.marshal")
    crc, payload = marshal.loads(kept.read_bytes())
    table = marshal.loads(payload)
    table[(line, 0)] = table[(rb"(?!)", 0)]
    kept.write_bytes(marshal.dumps((crc, marshal.dumps(table))))  # the old CRC: damage
    rx._KEPT, rx._MADE = None, {}
    assert rx.compile(line, 0).findall(b"a\nb") == [b"a\n", b"b"]
    kept.write_bytes(marshal.dumps((zlib.crc32(marshal.dumps(table)), marshal.dumps(table))))  # a consistent file is trusted
    rx._KEPT, rx._MADE = None, {}
    assert rx.compile(line, 0).findall(b"a\nb") == []


def test_a_fifo_or_folder_at_the_cache_path_neither_blocks_nor_breaks(fresh):
    import os

    rx.compile(r"f(o)+", 0)
    rx._save()
    (kept,) = (fresh / "mergedrv").glob("rx-*.marshal")
    kept.unlink()
    os.mkfifo(kept)  # open() would wait for a writer for ever
    rx._KEPT, rx._MADE = None, {}
    assert rx.compile(r"f(o)+", 0) == re.compile(r"f(o)+")


@pytest.mark.parametrize("env", [{"XDG_CACHE_HOME": "relcache"}, {"HOME": "", "XDG_CACHE_HOME": ""}])
def test_no_cache_is_written_into_the_work_tree(tmp_path, monkeypatch, env):
    """A relative XDG_CACHE_HOME is ignored (the XDG spec) and no home means no cache."""
    from mergedrv import atomic

    monkeypatch.chdir(tmp_path)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    if "HOME" in env:
        monkeypatch.setattr(atomic.os.path, "expanduser", lambda p: p)  # no passwd entry either
        assert atomic.cache_dir() is None
    else:
        assert atomic.cache_dir() == str(Path.home() / ".cache" / "mergedrv")
    monkeypatch.setattr(rx, "_KEPT", None)
    monkeypatch.setattr(rx, "_MADE", {})
    monkeypatch.setattr(rx, "_NEW", [])
    monkeypatch.setenv("HOME", str(tmp_path / "home")) if "HOME" not in env else None
    rx.compile(r"w(x)", 0)
    rx._save()
    assert not (tmp_path / "relcache").exists() and not (tmp_path / "~").exists()


def test_a_damaged_cache_is_compiled_again(fresh):
    rx.compile(r"x+y", 0)
    rx._save()
    (kept,) = (fresh / "mergedrv").glob("rx-*.marshal")
    kept.write_bytes(b"\x00garbage")
    import zlib

    table = __import__("marshal").dumps({(r"x+y", 0): (0, [1, 2, 3], 0, {}, ())})
    for bad in (b"\x00garbage", __import__("marshal").dumps((zlib.crc32(table), table))):
        kept.write_bytes(bad)
        rx._KEPT, rx._MADE = None, {}
        assert rx.compile(r"x+y", 0) == re.compile(r"x+y")  # a bad program is refused by _sre: re compiles it


def test_an_unwritable_cache_leaves_nothing_behind(fresh):
    (fresh / "mergedrv").write_text("not a folder")
    assert rx.compile(r"q(\d)", 0) == re.compile(r"q(\d)")
    rx._save()
    assert sorted(p.name for p in fresh.iterdir()) == ["mergedrv"]


def test_escape_is_res():
    for text in ["a.b*c", "(x)[y]{z}", "#~ &\t\n", "plain"]:
        assert rx.escape(text) == re.escape(text) and rx.escape(text.encode()) == re.escape(text.encode())


def test_the_driver_start_loads_neither_re_nor_enum_nor_functools(tmp_path):
    """The driver's start as install writes it (the interpreter, -I, the
    package's __main__.py), the second time (the first keeps the programs)."""
    base = b"# R\n\n| ID | v |\n|---|---|\n| `a` | 1 |\n| `b` | 2 |\n"
    (tmp_path / ".mergedrv.toml").write_text('[[record]]\nname = "R"\npath = "*.md"\nkey = "ID"\n')
    env = {"HOME": str(tmp_path), "XDG_CACHE_HOME": str(tmp_path / "cache"), "PATH": "/usr/bin:/bin"}
    for _ in range(2):
        (tmp_path / "O.md").write_bytes(base)
        (tmp_path / "A.md").write_bytes(base.replace(b"| 1 |", b"| 10 |"))
        (tmp_path / "B.md").write_bytes(base + b"| `c` | 3 |\n")
        proc, loaded = loaded_by(tmp_path, ["merge", "O.md", "A.md", "B.md", "-p", "records.md"], isolated=True, env=env)
        assert proc.returncode == 0 and proc.stderr == "", proc.stderr
        assert (tmp_path / "A.md").read_bytes() == base.replace(b"| 1 |", b"| 10 |") + b"| `c` | 3 |\n"
    assert "mergedrv.model" in loaded and "tree_sitter._binding" in loaded
    assert not {"re", "enum", "functools", "collections", "hashlib", "typing"} & loaded, sorted(loaded)


def test_at_most_limit_patterns_are_kept_those_a_process_used_first(fresh, monkeypatch):
    import marshal

    monkeypatch.setattr(rx, "LIMIT", 5)
    for i in range(8):  # one process using more than the limit (a configuration of many globs)
        rx.compile(f"old{i}", 0)
    rx.compile("x" * (rx.LONGEST + 1), 0)  # too long to be worth keeping
    rx._save()
    (kept,) = (fresh / "mergedrv").glob("rx-*.marshal")
    assert [k[0] for k in _table(kept)] == ["old0", "old1", "old2", "old3", "old4"]
    monkeypatch.setattr(rx, "_KEPT", None)  # a new process using two patterns
    monkeypatch.setattr(rx, "_MADE", {})
    monkeypatch.setattr(rx, "_NEW", [])
    rx.compile("old3", 0)
    rx.compile("new", 0)
    rx._save()
    assert [k[0] for k in _table(kept)] == ["old3", "new", "old0", "old1", "old2"]


def test_the_driver_start_ends_with_the_merges_exit_code_its_messages_and_its_cache(tmp_path):
    """__main__.py leaves a merge with os._exit (freeing three parsed versions
    is pure cost): the exit code, stderr and the kept programs are all there."""
    main = Path(rx.__file__).with_name("__main__.py")
    base = b"# R\n\n| ID | v |\n|---|---|\n| `a` | 1 |\n"
    (tmp_path / ".mergedrv.toml").write_text('[[record]]\nname = "R"\npath = "*.md"\nkey = "ID"\n')
    (tmp_path / "O.md").write_bytes(base)
    (tmp_path / "A.md").write_bytes(base.replace(b"| 1 |", b"| 2 |"))
    (tmp_path / "B.md").write_bytes(base.replace(b"| 1 |", b"| 3 |"))
    env = {"HOME": str(tmp_path), "XDG_CACHE_HOME": str(tmp_path / "cache"), "PATH": "/usr/bin:/bin"}
    proc = subprocess.run([sys.executable, "-I", str(main), "merge", "O.md", "A.md", "B.md", "-p", "records.md"],
                          cwd=tmp_path, capture_output=True, text=True, env=env)
    assert proc.returncode == 1, proc.stderr
    assert "records.md:5: conflict: same-cell: a: both sides changed column v differently" in proc.stderr, proc.stderr
    assert b"<<<<<<< " in (tmp_path / "A.md").read_bytes()
    assert list((tmp_path / "cache" / "mergedrv").glob("rx-*.marshal")), "the exit handlers did not run"
    proc = subprocess.run([sys.executable, "-I", str(main), "--version"], capture_output=True, text=True, env=env)
    assert proc.returncode == 0 and "mergedrv" in proc.stdout

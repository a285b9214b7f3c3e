"""No cache can change a result (issue #17, item 2): mergedrv.rx is `re`
compiled in process, the driver keeps no regex programs, uses no private
CPython module and plants no module; the parse cache of `.mergedrv.toml` is
used only from a folder this user alone can write, only for the exact text,
and a cold, warm, damaged or crafted cache gives the same merge."""

from __future__ import annotations

import ast
import json
import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from mergedrv import rx
from mergedrv.config import cache

from tests.helpers import loaded_by

PACKAGE = Path(rx.__file__).resolve().parent
MAIN = PACKAGE / "__main__.py"

PATTERNS = [
    (rb"^[ \t>]*\|?[ \t]*:?-+:?[ \t]*(\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*\r?$", 0),
    (rb"^(?:<{7,}|>{7,})(?: |\r?$)", rx.M),
    (r"(?P<name>\w+)-(\d+)", 0),
    (r"</(?:script|pre)", rx.I),
    (r"a.b", rx.S),
    ("é+", rx.A),
]


@pytest.mark.parametrize("pattern,flags", PATTERNS)
def test_a_pattern_is_the_one_re_compiles(pattern, flags):
    made = rx.compile(pattern, flags)
    want = re.compile(pattern, flags)
    text = "a\nb name-12 </PRE> éé" if isinstance(pattern, str) else b"| --- | :-: |\n<<<<<<< ours\n==\n"
    assert [m.span() for m in made.finditer(text)] == [m.span() for m in want.finditer(text)]
    assert made.pattern == pattern and made.flags == want.flags and made.groupindex == want.groupindex


def test_escape_is_res():
    for text in ["a.b*c", "(x)[y]{z}", "#~ &\t\n", "plain"]:
        assert rx.escape(text) == re.escape(text) and rx.escape(text.encode()) == re.escape(text.encode())


PRIVATE = ("_signal", "_sre", "re._parser", "re._compiler", "sre_compile", "sre_parse", "_sha1", "_sha2", "_sha256", "_md5",
           "_frozen_importlib", "_frozen_importlib_external", "pygit2._pygit2")


# standard modules whose underscored names the package must not reach for
STDLIB = {"sys", "os", "atexit", "re", "importlib", "gc", "io", "marshal", "zlib", "enum", "functools", "collections"}
PUBLIC = {"os._exit"}  # documented: leave at once, after the driver flushed its streams


def test_no_module_takes_cpythons_private_modules_or_plants_one():
    """No import of a private CPython module (or of pygit2's core alone),
    no ``sys.modules[...] = ...``, anywhere in the package."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""] + [f"{node.module}.{a.name}" for a in node.names]
            found += [f"{path.name}:{node.lineno}: {n}" for n in names if n in PRIVATE]
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in STDLIB
                    and node.attr.startswith("_") and not node.attr.startswith("__") and ast.unparse(node) not in PUBLIC):
                found.append(f"{path.name}:{node.lineno}: {ast.unparse(node)}")
            if isinstance(node, ast.Constant) and node.value in PRIVATE:
                found.append(f"{path.name}:{node.lineno}: {node.value!r}")
            targets = node.targets if isinstance(node, ast.Assign) else []
            for t in targets:
                if isinstance(t, ast.Subscript) and ast.unparse(t.value) == "sys.modules":
                    found.append(f"{path.name}:{node.lineno}: {ast.unparse(t)} assigned")
    assert found == [], found


# --- the driver: what it loads, what it keeps -------------------------------

BASE = b"# R\n\n| ID | v |\n|---|---|\n| `a` | 1 |\n| `b` | 2 |\n"
OURS = BASE.replace(b"| 1 |", b"| 10 |")
THEIRS = BASE + b"| `c` | 3 |\n"
CONFIG = '[[record]]\nname = "R"\npath = "*.md"\nkey = "ID"\n'


# both sides add key c, differently: a conflict by ID, two clean additions by v
DOUBLE = (BASE + b"| `c` | 3 |\n", BASE + b"| `c` | 4 |\n")


def _driver(tmp_path: Path, env: dict, config: str = CONFIG, sides: tuple[bytes, bytes] = (OURS, THEIRS)) -> tuple[int, str, bytes]:
    """One merge by the driver as install starts it: exit code, stderr, %A."""
    (tmp_path / ".mergedrv.toml").write_text(config)
    for name, data in (("O.md", BASE), ("A.md", sides[0]), ("B.md", sides[1])):
        (tmp_path / name).write_bytes(data)
    proc = subprocess.run([sys.executable, "-I", str(MAIN), "merge", "O.md", "A.md", "B.md", "-p", "records.md"],
                          cwd=tmp_path, capture_output=True, text=True, env=env)
    return proc.returncode, proc.stderr, (tmp_path / "A.md").read_bytes()


def _env(tmp_path: Path) -> dict:
    return {"HOME": str(tmp_path), "XDG_CACHE_HOME": str(tmp_path / "cache"), "PATH": "/usr/bin:/bin"}


def test_the_driver_loads_neither_pygit2_nor_rich_nor_tomllib_once_warm_and_keeps_no_regex(tmp_path):
    env = _env(tmp_path)
    for _ in range(2):  # the second start reads the configuration's table from the cache
        (tmp_path / ".mergedrv.toml").write_text(CONFIG)
        for name, data in (("O.md", BASE), ("A.md", OURS), ("B.md", THEIRS)):
            (tmp_path / name).write_bytes(data)
        proc, loaded = loaded_by(tmp_path, ["merge", "O.md", "A.md", "B.md", "-p", "records.md"], isolated=True, env=env)
        assert proc.returncode == 0 and proc.stderr == "", proc.stderr
        assert (tmp_path / "A.md").read_bytes() == OURS + b"| `c` | 3 |\n"
    assert "mergedrv.model" in loaded and "tree_sitter._binding" in loaded  # the keyed path ran
    heavy = {"pygit2", "rich", "tomllib", "typing", "hashlib", "importlib.resources", "tree_sitter", "tree_sitter_markdown"}
    assert not heavy & loaded, sorted(heavy & loaded)
    kept = sorted(str(p.relative_to(tmp_path / "cache")) for p in (tmp_path / "cache").rglob("*"))
    assert not [k for k in kept if "rx" in k or k.endswith(".marshal")], kept
    assert stat.S_IMODE((tmp_path / "cache" / "mergedrv" / "config").stat().st_mode) == 0o700


def _entry(tmp_path: Path, config: str = CONFIG) -> Path:
    return tmp_path / "cache" / "mergedrv" / "config" / cache._name(config)


def test_cold_warm_damaged_and_crafted_caches_give_the_same_merge(tmp_path):
    env = _env(tmp_path)
    want = _driver(tmp_path, env)  # cold
    assert want[0] == 0 and want[2] == OURS + b"| `c` | 3 |\n", want
    entry = _entry(tmp_path)
    assert json.loads(entry.read_text())["text"] == CONFIG
    assert _driver(tmp_path, env) == want  # warm
    other = {"record": [{"name": "R", "path": "*.md", "key": "v"}]}  # a different table: key v
    crafted = [
        b"", b"\x00garbage", b"{", b'{"version": 1, "text": 1, "data": []}',
        b"(\xff\xff\xff\x7f",  # marshal's 2^31-item tuple
        json.dumps({"version": 1, "text": CONFIG + " ", "data": other}).encode(),  # another text's table
        json.dumps({"version": 1, "text": CONFIG, "data": {"record": [{"name": "R", "path": "*.md", "key": ["x", {"y": None}]}]}}).encode(),
        json.dumps({"version": 1, "text": CONFIG, "data": {"record": "not a table"}}).encode(),
        b"[" * 100_000 + b"]" * 100_000,  # deeper than any parser's stack
        b'{"version": 1, "text": "' + b"x" * (cache.LIMIT + 1) + b'"}',  # over the size bound
    ]
    for data in crafted:
        entry.write_bytes(data)
        assert _driver(tmp_path, env) == want, data[:40]
    entry.unlink()
    os.mkfifo(entry)  # neither blocks nor breaks
    assert _driver(tmp_path, env) == want


def test_the_5_byte_marshal_bomb_under_a_3_gb_address_limit(tmp_path):
    env = _env(tmp_path)
    want = _driver(tmp_path, env)
    folder = tmp_path / "cache" / "mergedrv"
    for name in (_entry(tmp_path), folder / "rx-3.11.7-20221023-4.marshal", folder / "config-3.11-x.marshal"):
        name.write_bytes(b"(\xff\xff\xff\x7f")
    limit = "import resource; resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))"
    code = f"{limit}; import runpy, sys; sys.argv[0] = {str(MAIN)!r}; runpy.run_path(sys.argv[0], run_name='__main__')"
    (tmp_path / "A.md").write_bytes(OURS)
    proc = subprocess.run([sys.executable, "-I", "-c", code, "merge", "O.md", "A.md", "B.md", "-p", "records.md"],
                          cwd=tmp_path, capture_output=True, text=True, env=env, timeout=120)
    assert (proc.returncode, proc.stderr, (tmp_path / "A.md").read_bytes()) == want


def _poison(entry: Path, config: str = CONFIG) -> None:
    """An entry for the exact text whose table differs (key v): used only where the folder is trusted."""
    table = {"record": [{"name": "R", "path": "*.md", "key": "v"}]}
    entry.write_text(json.dumps({"version": 1, "text": config, "data": table}))
    entry.chmod(0o600)


def test_the_trust_boundary_is_the_folder_the_poison_counts_only_inside_it(tmp_path):
    """The control for the tests below: a schema-valid table planted for the
    exact text in this user's own 0700 folder is used (whoever can write
    there is this user); the same entry anywhere else is not."""
    env = _env(tmp_path)
    want = _driver(tmp_path, env, sides=DOUBLE)
    assert want[0] == 1 and "double-definition: c" in want[1]
    _poison(_entry(tmp_path))
    assert _driver(tmp_path, env, sides=DOUBLE)[0] == 0


@pytest.mark.parametrize("mode", [0o770, 0o707, 0o750, 0o705])
def test_a_cache_folder_others_can_reach_is_not_used(tmp_path, mode):
    env = _env(tmp_path)
    want = _driver(tmp_path, env, sides=DOUBLE)
    folder = tmp_path / "cache" / "mergedrv" / "config"
    _poison(_entry(tmp_path))
    folder.chmod(mode)
    assert _driver(tmp_path, env, sides=DOUBLE) == want
    assert stat.S_IMODE(folder.stat().st_mode) == mode  # not "repaired" either: the entries there are suspect


def test_a_parent_folder_others_can_write_is_not_used(tmp_path):
    env = _env(tmp_path)
    want = _driver(tmp_path, env, sides=DOUBLE)
    _poison(_entry(tmp_path))
    (tmp_path / "cache" / "mergedrv").chmod(0o777)
    assert _driver(tmp_path, env, sides=DOUBLE) == want


def test_a_symlinked_cache_folder_is_not_used(tmp_path):
    env = _env(tmp_path)
    want = _driver(tmp_path, env, sides=DOUBLE)
    folder = tmp_path / "cache" / "mergedrv" / "config"
    _poison(_entry(tmp_path))
    folder.rename(tmp_path / "elsewhere")
    folder.symlink_to(tmp_path / "elsewhere")
    assert _driver(tmp_path, env, sides=DOUBLE) == want


@pytest.mark.skipif(not hasattr(os, "getuid") or os.getuid() != 0, reason="only root can chown")
@pytest.mark.parametrize("what", ["folder", "parent", "entry"])
def test_a_cache_owned_by_another_uid_is_not_used(tmp_path, what):
    env = _env(tmp_path)
    want = _driver(tmp_path, env, sides=DOUBLE)
    entry = _entry(tmp_path)
    _poison(entry)
    target = {"folder": entry.parent, "parent": entry.parent.parent, "entry": entry}[what]
    os.chown(target, 12345, 12345)
    assert _driver(tmp_path, env, sides=DOUBLE) == want


def test_a_trusted_entry_for_the_exact_text_is_validated_like_a_fresh_parse(tmp_path, monkeypatch):
    """The one entry a cache can make count: the exact text, in this user's
    0700 folder.  Its table is still checked by the schema and its patterns
    compiled; a table that fails is dropped for the text's own parse."""
    from mergedrv import config

    env = _env(tmp_path)
    text = CONFIG + "key_pattern = '^`'\n"
    _driver(tmp_path, env, text)
    entry = _entry(tmp_path, text)
    assert entry.exists()
    bad = {"record": [{"name": "R", "path": "*.md", "key": "ID", "key_pattern": "(?=x)"}]}
    entry.write_text(json.dumps({"version": 1, "text": text, "data": bad}))
    monkeypatch.setenv("XDG_CACHE_HOME", env["XDG_CACHE_HOME"])
    assert config.loads(text).records[0].key_pattern == "^`"
    assert json.loads(entry.read_text())["data"]["record"][0]["key_pattern"] == "^`"  # the true table kept again


def test_an_unwritable_cache_leaves_nothing_behind_and_costs_only_time(tmp_path):
    env = _env(tmp_path)
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / "mergedrv").write_text("not a folder")
    code, err, out = _driver(tmp_path, env)
    assert (code, err, out) == (0, "", OURS + b"| `c` | 3 |\n")
    assert sorted(p.name for p in (tmp_path / "cache").iterdir()) == ["mergedrv"]


@pytest.mark.parametrize("env", [{"XDG_CACHE_HOME": "relcache"}, {"HOME": "", "XDG_CACHE_HOME": ""}])
def test_no_cache_is_written_into_the_work_tree(tmp_path, monkeypatch, env):
    """A relative XDG_CACHE_HOME is ignored (the XDG spec) and no home means no cache."""
    from mergedrv import atomic, config

    monkeypatch.chdir(tmp_path)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    if "HOME" in env:
        monkeypatch.setattr(atomic.os.path, "expanduser", lambda p: p)  # no passwd entry either
        assert atomic.cache_dir() is None
    else:
        monkeypatch.setenv("HOME", str(tmp_path / "home"))
    config.loads(CONFIG)
    assert not (tmp_path / "relcache").exists() and not (tmp_path / "~").exists()


def test_the_driver_start_ends_with_the_merges_exit_code_its_messages_and_its_cache(tmp_path):
    """__main__.py leaves a merge with os._exit: the exit code, stderr and
    the configuration's cache entry (written as the configuration loads) are all there."""
    env = _env(tmp_path)
    theirs = BASE.replace(b"| 1 |", b"| 3 |")
    code, err, out = _driver(tmp_path, env, sides=(OURS, theirs))
    assert code == 1 and "records.md:5: conflict: same-cell: a: both sides changed column v differently" in err, err
    assert b"<<<<<<< " in out
    assert _entry(tmp_path).is_file()
    proc = subprocess.run([sys.executable, "-I", str(MAIN), "--version"], capture_output=True, text=True, env=env)
    assert proc.returncode == 0 and "mergedrv" in proc.stdout

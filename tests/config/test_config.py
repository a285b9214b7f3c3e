"""Configuration: validation errors name the file, the line and the fix; the
parse cache, find, values (the globs: tests/config/test_globs.py)."""

from __future__ import annotations

import pytest

from mergedrv import config

GOOD = """\
[[record]]
name = "MODEL"
path = ".agents/model-matrix.md"
key = "ID"
key_pattern = '^MODEL-[A-Za-z0-9_.-]+$'
pin = 326
refs = ["Row"]

[[log]]
path = ".agents/parity-ledger.md"

[[checkpoint]]
when = ["src/**", "include/**", ".agents/model-matrix.md"]
require = ["README.md", "docs/BENCHMARKS.md"]
"""


def test_spec_example_loads():
    cfg = config.loads(GOOD)
    record = cfg.records[0]
    assert (record.name, record.key, record.pin, record.refs, record.line) == ("MODEL", "ID", 326, ["Row"], 1)
    assert cfg.record_for(".agents/model-matrix.md") is record
    assert cfg.record_for("other.md") is None
    assert cfg.log_for(".agents/parity-ledger.md").line == 9
    assert cfg.checkpoints[0].require == ["README.md", "docs/BENCHMARKS.md"]


@pytest.mark.parametrize(
    "text, where, what",
    [
        ('[[record]]\nname = "A"\npath = "a.md"\n', ":1:", "missing 'key'; add `key = ...`"),
        ('[[record]]\nname = "A"\npath = "a.md"\nkey = "ID"\npinn = 3\n', ":5:", "no option 'pinn'"),
        ('[[record]]\nname = "A"\npath = "a.md"\nkey = "ID"\npin = "3"\n', ":5:", "pin must be an integer, not a string"),
        ('[[record]]\nname = "A"\npath = "a.md"\nkey = "ID"\nkey_pattern = "(["\n', ":5:", "not a valid regular expression"),
        ('\n\n[[record]]\nname = "A"\npath = "a.md"\nkey = "ID"\n[[record]]\nname = "A"\npath = "b.md"\nkey = "ID"\n', ":8:", "used twice"),
        ("[[record]\nname = 1\n", ":1:", "not valid TOML"),
        ('[records]\nname = "x"\n', ":1:", "unknown section 'records'"),
        ('[[log]]\npath = "l.md"\n[[log]]\npaht = "m.md"\n', ":4:", "no option 'paht'"),
    ],
)
def test_errors_name_file_line_and_fix(text, where, what):
    with pytest.raises(config.ConfigError) as info:
        config.loads(text, ".mergedrv.toml")
    message = str(info.value)
    assert message.startswith(".mergedrv.toml" + where), message
    assert what in message


def test_missing_file_suggests_init(tmp_path):
    with pytest.raises(config.ConfigError, match="run `mergedrv init`"):
        config.load(tmp_path / ".mergedrv.toml")


def test_find_stops_at_the_repository_top(tmp_path):
    (tmp_path / ".mergedrv.toml").write_text(GOOD)
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "sub").mkdir()
    assert config.find(repo / "sub") is None  # a config above the repository is not ours
    (repo / ".mergedrv.toml").write_text(GOOD)
    assert config.find(repo / "sub") == repo / ".mergedrv.toml"


def test_values_compare_and_copy():
    cfg = config.loads(GOOD)
    assert cfg == config.loads(GOOD)
    bumped = cfg.records[0].replace(pin=327)
    assert bumped.pin == 327 and cfg.records[0].pin == 326 and bumped.name == "MODEL"
    with pytest.raises(TypeError):
        cfg.replace(nope=1)


def test_parsed_toml_is_cached_by_content(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    first = config.loads(GOOD)
    files = list((tmp_path / "mergedrv" / "config").iterdir())
    assert len(files) == 1 and files[0].suffix == ".json"
    assert config.loads(GOOD) == first  # read back from the cache
    files[0].write_bytes(b"not json")  # a broken cache is only a miss
    assert config.loads(GOOD) == first
    changed = GOOD.replace("pin = 326", "pin = 327")
    assert config.loads(changed).records[0].pin == 327
    with pytest.raises(config.ConfigError, match="not valid TOML"):
        config.loads("[[record]\n")


def test_a_log_path_is_not_a_record_even_when_a_record_glob_matches():
    cfg = config.loads('[[record]]\nname = "R"\npath = "*.md"\nkey = "ID"\n\n[[log]]\npath = ".agents/parity-ledger.md"\n')
    assert cfg.record_for(".agents/parity-ledger.md") is None
    assert cfg.log_for(".agents/parity-ledger.md") is not None
    assert cfg.record_for(".agents/model-matrix.md").name == "R"


def test_a_non_utf8_byte_is_named_at_its_line():
    from mergedrv import config as cfgmod

    with pytest.raises(cfgmod.ConfigError, match=r"^\.mergedrv\.toml:3: the file is not UTF-8 \(byte 0xff\)$"):
        cfgmod.load_bytes(b'[[record]]\nname = "A"\n# \xff\npath = "a.md"\nkey = "ID"\n')

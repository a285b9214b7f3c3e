"""config/schema: each key declared once gives the value classes their fields,
defaults and constructors; config.merge_options builds merge.Options in one call."""

from __future__ import annotations

import pytest

from mergedrv import config
from mergedrv.config import schema
from mergedrv.merge import Options


def test_value_classes_take_fields_and_defaults_from_their_keys():
    for cls in (schema.Record, schema.Count, schema.Rollup, schema.Log, schema.Checkpoint, schema.Anchors):
        assert cls.__slots__ == (*(k.attr for k in cls.KEYS), "line")
    assert schema.MergeOptions.__slots__ == ("strict_additions", "cell_merge")  # [merge] keeps no line
    assert config.MergeOptions(cell_merge=False) == config.MergeOptions(False, False)
    r = config.Record(name="R", path="*.md", key="ID")
    assert r.refs == [] and r.columns == {} and r.counts == [] and r.pin is None and r.line == 0
    assert config.Record(name="S", path="*.md", key="ID").refs is not r.refs  # a fresh default each time
    c = config.Count("(\\d+)", None, 0, None, 7)
    assert (c.pattern, c.where, c.offset, c.file, c.line) == ("(\\d+)", {}, 0, None, 7)
    assert config.Rollup("H", "G", "L", "C").total == "Total"
    with pytest.raises(TypeError):
        config.Record(name="R", path="*.md")  # key is required
    with pytest.raises(TypeError):
        config.Log(path="a", nope=1)


def test_unknown_key_lists_the_schema_and_missing_key_names_the_fix():
    with pytest.raises(config.ConfigError, match=r":3: \[log\] has no option 'paths'; use one of: path"):
        config.loads('\n[[log]]\npaths = "a"\n')
    with pytest.raises(config.ConfigError, match=r":5: \[\[count\]\] is missing 'pattern'; add `pattern = ...` under it"):
        config.loads('[[record]]\nname = "R"\npath = "*.md"\nkey = "ID"\n[[record.count]]\noffset = 1\n')


def test_merge_options_builds_options_in_one_call():
    cfg = config.loads('[[record]]\nname = "R"\npath = "*.md"\nkey = "ID"\nkey_pattern = "^`"\n\n[[log]]\npath = "log.md"\n\n[merge]\nstrict_additions = true\n')
    opts = Options(**config.merge_options(cfg, "a.md"))
    assert (opts.key, opts.key_pattern, opts.log, opts.strict_additions, opts.cell_merge) == ("ID", "^`", False, True, True)
    assert config.merge_options(cfg, "log.md", cell_merge=False) == {"key": None, "key_pattern": None, "log": True, "strict_additions": True, "cell_merge": False}
    assert config.merge_options(cfg, "x.txt")["key"] is None


R = '[[record]]\nname = "R"\npath = "*.md"\nkey = "ID"\n'


def test_the_first_error_is_the_one_reported_before_the_schema():
    """Checks run in rounds (paths, then tables, then patterns), so a file
    with two errors reports the same one as the hand-written loader did."""
    with pytest.raises(config.ConfigError, match=r":5: \[record\] retired '/abs' is not a path inside the repository"):
        config.loads(R + 'retired = "/abs"\n[record.columns]\nA = 3\n')
    with pytest.raises(config.ConfigError, match=r":7: \[record.columns\] A is not a valid regular expression"):
        config.loads(R + 'key_pattern = "(?=x)"\n[record.columns]\nA = "(?<y)"\n')
